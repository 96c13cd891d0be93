"""The fifteen behaviour differences of issue 18, each as Chainer 7.8.1 behaves.

Every test is named after its number in the issue.  The same programs run under Chainer
itself in tests/test_differential_chainer.py (``prog_issue18_*``); debug mode (3), the
old-style Function and the device rules have their own files as well.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import gradient_check, initializers
from autograd_lab.utils.type_check import InvalidType


def test_01_check_type_forward_set_on_an_instance_is_called():
    class Twice(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

    seen = []
    f = Twice()
    f.check_type_forward = lambda in_types: seen.append(len(in_types))
    f.apply((np.ones(2),))
    assert seen == [1]
    g = Twice()
    g.apply((np.ones(2),))  # other instances are unaffected
    assert seen == [1]

    def reject(in_types):
        from autograd_lab.utils import type_check
        type_check.expect(in_types[0].ndim == 2)

    f.check_type_forward = reject
    with pytest.raises(InvalidType, match=r'performed in: Twice \(Forward\)'):
        f.apply((np.ones(2),))
    del f.check_type_forward
    f.apply((np.ones(2),))


def test_02_link_to_cpu_and_to_gpu_are_deprecated():
    link = chainer.Link()
    with pytest.warns(DeprecationWarning, match=r"to_cpu is deprecated\. Please use "
                                                r"to_device\('@numpy'\) instead\."):
        assert link.to_cpu() is link
    with pytest.warns(DeprecationWarning, match="Overriding method 'to_cpu'."):
        class Old(chainer.Link):
            def to_cpu(self):
                self.moved = True
                return super().to_cpu()

    class Parent(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.child = Old()

    parent = Parent()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        parent.to_device('@numpy')
    assert parent.child.moved  # the override is honoured when the parent moves


def test_03_debug_mode_nan_and_wrong_gradients():
    x = chainer.Variable(np.ones(2, np.float32))

    class Nan(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            return chainer.Variable(np.full(2, np.nan, np.float32)),

    with chainer.using_config('debug', True):
        y, = Nan().apply((x,))
        with pytest.raises(RuntimeError, match='NaN is detected on backward computation of '
                                               'Nan'):
            F.sum(y).backward()


def test_04_numerical_grad_detects_smooth_points_as_differentiable():
    x = np.array([0.0], np.float32)
    gradient_check.numerical_grad(lambda: (-3 * x ** 3 + 2 * x ** 2 + 1,) * 2, (x,),
                                  (np.ones(1, np.float32),) * 2, detect_nondifferentiable=True)
    z = np.array([100.0], np.float32)
    g, = gradient_check.numerical_grad(lambda: (np.log(z),), (z,), (np.ones(1, np.float32),),
                                       detect_nondifferentiable=True)
    np.testing.assert_allclose(g, [0.01], rtol=2e-3)


def test_05_a_link_cannot_define_to_device():
    with pytest.raises(TypeError, match=r"^method 'to_device' is final.$"):
        class Mine(chainer.Link):
            def to_device(self, device):
                return self
    for name in ('to_chx', 'from_chx'):
        with pytest.raises(TypeError, match=f"^method '{name}' is final.$"):
            type('Mine', (chainer.Link,), {name: lambda self: self})


def test_06_check_backward_no_grads_with_a_computed_gradient_is_a_runtime_error():
    with pytest.raises(RuntimeError, match='gradient of int variable must be None'):
        gradient_check.check_backward(lambda a, b: a + b, (np.ones(1), np.ones(1)),
                                      np.ones(1), no_grads=[True, True])


def test_07_link_copies_keep_the_name_and_init_copies_have_nan_grads():
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(initializers.One(), (2,))
    link.name = 'a'
    assert link.copy(mode='copy').name == 'a'
    assert link.copy(mode='init').name == 'a'
    assert link.copy(mode='share').name is None

    class Net(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = chainer.Link()
                with self.l.init_scope():
                    self.l.w = chainer.Parameter(initializers.Normal(), (2, 3))

    net = Net()
    net.l.w.grad = np.zeros((2, 3), np.float32)
    copied = net.copy(mode='init')
    assert copied.l.name == 'l'
    assert np.isnan(copied.l.w.grad).all()
    assert not np.array_equal(copied.l.w.array, net.l.w.array)


def test_08_a_copied_uninitialized_parameter_shares_the_data_once_initialized():
    x = chainer.Parameter()
    y = copy.copy(x)
    assert y is not x and y.node is not x.node
    x.initialize((3, 2))
    assert y.array is x.array and y.shape == (3, 2)
    x.array = np.zeros((3, 2), np.float32)
    assert y.array is x.array
    x.to_device('@numpy')  # a move gives x a data cell of its own (as Chainer)
    x.array = np.ones((3, 2), np.float32)
    assert y.array is not x.array


def test_09_variables_with_grads_pickle_and_deep_copy_without_their_graph():
    x = chainer.Variable(np.ones(3, np.float32), name='x')
    y = x * 2
    y.grad = np.full(3, 2.0, np.float32)
    z = pickle.loads(pickle.dumps(y))
    assert z.array.tolist() == [2.0, 2.0, 2.0] and z.grad.tolist() == [2.0, 2.0, 2.0]
    assert z.creator is None and z.requires_grad
    w = pickle.loads(pickle.dumps(x))
    assert w.name == 'x'
    d = copy.deepcopy(y)
    assert d.creator is None and d.array is not y.array
    c = copy.copy(y)
    assert c.array is y.array and c.node is not y.node and c.creator is None


def test_10_grad_and_backward_want_sequences():
    x = chainer.Variable(np.ones(2, np.float32))
    y = x * x
    gy = chainer.Variable(np.ones(2, np.float32))
    with pytest.raises(TypeError, match=r'^grad_outputs must be a tuple or a list or None, '
                                        r"not <class 'autograd_lab.variable.Variable'>.$"):
        chainer.grad([y], [x], gy)
    with pytest.raises(TypeError, match=r'^grad_inputs must be a tuple or a list or None'):
        chainer.grad([y], [x], None, gy)
    with pytest.raises(TypeError, match=r'^grad_outputs must be None, a tuple, or a list, '
                                        r'not'):
        chainer.backward([y], gy)
    with pytest.raises(ValueError, match=r'^grad_outputs must be of the same length as '
                                         r'outputs\.\nlen\(outputs\) = 1, len\(grad_outputs\) '
                                         r'= 2$'):
        chainer.grad([y], [x], [gy, gy])


def test_11_str_of_an_empty_variable_has_no_shape_but_its_repr_does():
    v = chainer.Variable(np.empty((0, 3)))
    assert str(v) == 'variable([])'
    assert repr(v) == 'variable([], shape=(0, 3))'
    assert str(chainer.Variable(np.empty(0))) == 'variable([])'
    assert repr(chainer.Variable(np.ones(1), name='')) == 'variable([1.])'


def test_12_numerical_grad_of_python_scalars_and_eps_zero():
    x = np.array([1.0, 2.0])
    g, = gradient_check.numerical_grad(lambda: (float((x * x).sum()),), (x,), (1.0,))
    np.testing.assert_allclose(g, [2.0, 4.0], rtol=1e-9)
    with pytest.raises(AssertionError):
        gradient_check.numerical_grad(lambda: (x,), (x,), (np.ones(2),), eps=0)


def test_13_grad_with_retain_grad_sets_the_grads_of_its_inputs_on_the_path():
    a = chainer.Variable(np.array(0.5, np.float32))
    x = a * 2  # a non-leaf input
    h = x * 3
    y = h * h
    gx, = chainer.grad([y], [x], retain_grad=True)
    assert x.grad == gx.array == 2 * 3 * 3 * 1.0  # d(9 x^2)/dx at x = 1
    assert h.grad == 2 * h.array and a.grad is None  # below the input: untouched


def test_14_setting_data_updates_the_retained_array_of_the_node():
    x = chainer.Variable(np.ones((3, 2), np.float32))
    F.sin(x)  # sin retains its input
    assert x.node.data is x.array
    x.data = np.ones((2, 4), np.float64)
    assert x.node.shape == (2, 4) and x.node.dtype == np.float64
    assert x.node.data is x.array
    y = chainer.Variable(np.ones(2))
    y.data = np.zeros(3)
    assert y.node.data is None  # nothing retained: nothing to update


def test_15_add_broadcast_and_calling_a_bare_link():
    x = chainer.Variable(np.array([1.0, 2.0]))
    y = F.add(x)
    assert y.array is x.array and y.creator.label == 'MultiAdd'
    F.sum(y * y).backward()
    assert x.grad.tolist() == [2.0, 4.0]
    with pytest.raises(IndexError):
        F.add()
    with pytest.raises(InvalidType, match=r'Expect: in_types.size > 0\nActual: 0 <= 0'):
        F.broadcast()
    with pytest.raises(AttributeError, match="'Link' object has no attribute 'forward'"):
        chainer.Link()(0)


# ---- numerical gradient checks of the differentiable paths this issue added ------------------

def test_gradients_of_add_with_one_input():
    x = np.random.default_rng(0).uniform(-1, 1, (2, 3))
    gy = np.random.default_rng(1).uniform(-1, 1, (2, 3))
    gradient_check.check_backward(lambda v: F.add(v) * v, x, gy)
    gradient_check.check_double_backward(lambda v: F.add(v) * v, x, gy, np.ones((2, 3)))


@pytest.mark.parametrize('da, db', [(np.float32, np.float64), (np.float64, np.float32),
                                    (np.float16, np.float32)])
def test_gradients_of_matmul_with_mixed_dtypes(da, db):
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (2, 3)).astype(da)
    b = rng.uniform(-1, 1, (3, 4)).astype(db)
    out = np.result_type(da, db)
    gy = rng.uniform(-1, 1, (2, 4)).astype(out)
    tol = {'atol': 5e-2, 'rtol': 5e-2} if np.float16 in (da, db) else {'atol': 1e-3,
                                                                      'rtol': 1e-3}
    gradient_check.check_backward(F.matmul, (a, b), gy, dtype=np.float64, **tol)
    gradient_check.check_double_backward(
        lambda u, v: F.matmul(u, v) * F.matmul(u, v), (a, b), gy,
        (np.ones_like(a), np.ones_like(b)), dtype=np.float64, **tol)


def test_gradients_through_a_dropped_retained_output():
    class ExpTwice(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_outputs((0,))
            return np.exp(inputs[0]), np.exp(inputs[0]) * 2

        def backward(self, indexes, grad_outputs):
            y, = self.get_retained_outputs()
            g0, g1 = grad_outputs
            total = 0
            if g0 is not None:
                total = total + g0 * y
            if g1 is not None:
                total = total + g1 * 2 * y
            return total,

    def second(v):
        return ExpTwice().apply((v,))[1]  # the first output is dropped at once

    x = np.array([0.1, -0.3])
    gradient_check.check_backward(second, x, np.ones(2))
    gradient_check.check_double_backward(second, x, np.ones(2), np.ones(2))


# ---- F.arctan2 (found missing by a wider sample of Chainer's function tests) ---------------

def test_arctan2_values_gradients_and_double_backprop():
    rng = np.random.default_rng(3)
    x1 = rng.uniform(-2, 2, (3, 4))
    x2 = rng.uniform(0.5, 2, (3, 4)) * rng.choice([-1, 1], (3, 4))
    y = F.arctan2(x1, x2)
    np.testing.assert_allclose(y.array, np.arctan2(x1, x2))
    assert y.creator.label == 'arctan2'
    gy = rng.uniform(-1, 1, (3, 4))
    gradient_check.check_backward(F.arctan2, (x1, x2), gy)
    gradient_check.check_double_backward(F.arctan2, (x1, x2), gy,
                                         (np.ones((3, 4)), np.ones((3, 4))))
    gradient_check.check_backward(F.arctan2, (x1, x2[:1]), gy)  # broadcast


def test_arctan2_float_dtypes_only_and_mixed_floats():
    with pytest.raises(InvalidType, match=r'Expect: x2.dtype.kind == f\nActual: i != f'):
        F.arctan2(np.ones(2), np.ones(2, np.int32))
    a = chainer.Variable(np.ones(2, np.float32))
    b = chainer.Variable(np.ones(2, np.float64))
    y = F.arctan2(a, b)
    assert y.dtype == np.float64
    F.sum(y).backward()
    assert (a.grad.dtype, b.grad.dtype) == (np.float32, np.float64)
    np.testing.assert_allclose(a.grad, [0.5, 0.5])
