"""The old-style ``chainer.Function`` (issue 18): its contract and its place in the graph.

A Function computes on tuples of arrays; calling it wraps it in a FunctionAdapter, the
FunctionNode the graph holds.  What the adapter supports and what it does not (double
backprop through it) is Chainer 7.8.1's; tests/test_differential_chainer.py compares the
same programs with Chainer itself.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import gradient_check
from autograd_lab.utils import type_check


class Square(chainer.Function):
    def forward(self, inputs):
        x, = inputs
        return x * x,

    def backward(self, inputs, grad_outputs):
        x, = inputs
        gy, = grad_outputs
        return 2 * x * gy,


class ExpOut(chainer.Function):
    """exp(x), keeping only its output for backward."""

    def forward(self, inputs):
        self.retain_inputs(())
        self.retain_outputs((0,))
        return np.exp(inputs[0]),

    def backward(self, inputs, grad_outputs):
        self.seen_inputs = inputs
        y, = self.output_data
        return grad_outputs[0] * y,


class SumAndProduct(chainer.Function):
    """Two outputs: a + b and a * b."""

    def forward(self, inputs):
        a, b = inputs
        return a + b, a * b

    def backward(self, inputs, grad_outputs):
        a, b = inputs
        g_sum, g_prod = grad_outputs
        ga = np.zeros_like(a) if g_sum is None else g_sum.copy()
        gb = np.zeros_like(b) if g_sum is None else g_sum.copy()
        if g_prod is not None:
            ga += g_prod * b
            gb += g_prod * a
        return ga, gb


def test_forward_and_backward_work_on_arrays():
    seen = {}

    class Probe(Square):
        def forward(self, inputs):
            seen['forward'] = [type(x) for x in inputs]
            return super().forward(inputs)

        def backward(self, inputs, grad_outputs):
            seen['backward'] = [type(a) for a in inputs + grad_outputs]
            return super().backward(inputs, grad_outputs)

    x = chainer.Variable(np.array([1.0, -2.0, 3.0]))
    y = Probe()(x)
    assert isinstance(y, chainer.Variable)
    np.testing.assert_array_equal(y.array, [1.0, 4.0, 9.0])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [2.0, -4.0, 6.0])
    assert seen == {'forward': [np.ndarray], 'backward': [np.ndarray, np.ndarray]}


def test_creator_is_the_function_and_creator_node_its_adapter():
    x = chainer.Variable(np.ones(2))
    f = Square()
    y = f(x)
    assert y.creator is f
    assert isinstance(y.creator_node, chainer.FunctionAdapter)
    assert y.creator_node is f.node and f.node.function is f
    assert f.inputs == (x.node,) and f.outputs[0]() is y.node
    assert f.rank == 0 and y.rank == 1
    assert f.label == f.node.label == 'Square'


def test_array_inputs_are_wrapped_and_several_outputs_come_as_a_tuple():
    a, b = SumAndProduct()(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    np.testing.assert_array_equal(a.array, [4.0, 6.0])
    np.testing.assert_array_equal(b.array, [3.0, 8.0])
    assert not a.requires_grad  # no input required a gradient


def test_all_inputs_are_retained_by_default_and_outputs_on_request():
    x = chainer.Variable(np.array([0.0, 1.0]))
    f = ExpOut()
    y = f(x)
    assert f.node._input_indexes_to_retain == () and x.node.data is None
    y.grad = np.ones(2)
    y.backward()
    assert f.seen_inputs == (None,)  # inputs not retained reach backward as None
    np.testing.assert_allclose(x.grad, np.exp([0.0, 1.0]))
    g = Square()
    z = g(x)  # (kept: the graph, through z, is what keeps g's adapter alive)
    assert g.node._input_indexes_to_retain == (0,) and x.node.data is x.array
    assert z.creator is g


def test_output_data_and_retain_after_backward_is_deprecated():
    class Keep(chainer.Function):
        def forward(self, inputs):
            with pytest.warns(DeprecationWarning, match='retain_after_backward'):
                self.retain_outputs((1,), retain_after_backward=True)
            return inputs[0] + 1, inputs[0] * 2

    f = Keep()
    x = chainer.Variable(np.array([1.0]))
    ys = f(x)
    assert len(ys) == 2
    assert f.output_data[0] is None
    np.testing.assert_array_equal(f.output_data[1], [2.0])


def test_unused_output_gradient_is_none():
    a = chainer.Variable(np.array([1.0, 2.0]))
    b = chainer.Variable(np.array([3.0, 4.0]))
    _, prod = SumAndProduct()(a, b)
    F.sum(prod).backward()
    np.testing.assert_array_equal(a.grad, [3.0, 4.0])
    np.testing.assert_array_equal(b.grad, [1.0, 2.0])


def test_numerical_gradient_check_of_a_function():
    x = np.random.default_rng(0).uniform(-1, 1, (3, 2))
    gradient_check.check_backward(Square(), x, np.ones((3, 2)))
    a, b = np.array([0.5, -1.0]), np.array([2.0, 0.25])
    gradient_check.check_backward(SumAndProduct(), (a, b),
                                  (np.ones(2), np.array([1.0, -1.0])))


def test_forward_cpu_and_backward_cpu_dispatch():
    class Twice(chainer.Function):
        def forward_cpu(self, inputs):
            return inputs[0] * 2,

        def backward_cpu(self, inputs, grad_outputs):
            return grad_outputs[0] * 2,

    x = chainer.Variable(np.array([1.0, 2.0]))
    y = Twice()(x)
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [2.0, 2.0])
    with pytest.raises(NotImplementedError):
        chainer.Function()(x)


def test_default_backward_returns_no_gradient():
    class Forward(chainer.Function):
        def forward(self, inputs):
            return inputs[0] + 1,

    x = chainer.Variable(np.ones(2))
    F.sum(Forward()(x)).backward()
    assert x.grad is None


def test_check_type_forward_is_called_with_the_function_label():
    class Float32Only(Square):
        def check_type_forward(self, in_types):
            x_type, = in_types
            type_check.expect(x_type.dtype == np.float32)

    Float32Only()(chainer.Variable(np.ones(2, np.float32)))
    with pytest.raises(type_check.InvalidType,
                       match=r"performed in: Float32Only \(Forward\)[\s\S]*Actual: float64 != "
                             r"<class 'numpy.float32'>"):
        Float32Only()(chainer.Variable(np.ones(2)))


def test_function_hooks_see_the_adapter():
    class Names(chainer.FunctionHook):
        name = 'Names'

        def __init__(self):
            self.calls = []

        def forward_preprocess(self, function, in_data):
            self.calls.append(('forward', function.label, type(function).__name__))

        def backward_preprocess(self, function, in_data, out_grad):
            self.calls.append(('backward', function.label, type(function).__name__))

    x = chainer.Variable(np.ones(2))
    with Names() as hook:
        y = Square()(x)
        F.sum(y).backward()
    assert ('forward', 'Square', 'FunctionAdapter') in hook.calls
    assert ('backward', 'Square', 'FunctionAdapter') in hook.calls
    local = Names()
    f = Square()
    f.add_hook(local)
    assert 'Names' in f.local_function_hooks
    y = f(x)
    F.sum(y).backward()
    assert [c[0] for c in local.calls] == ['forward', 'backward']
    f.delete_hook('Names')
    assert 'Names' not in f.local_function_hooks


def test_unchain_cuts_the_graph():
    x = chainer.Variable(np.ones(2))
    f = Square()
    y = f(x)
    f.unchain()
    assert y.creator is None and y.creator_node is None
    assert f.inputs is None and f.outputs is None
    F.sum(y).backward()
    assert x.grad is None


def test_the_graph_owns_the_function_after_the_call():
    x = chainer.Variable(np.ones(2))
    f = Square()
    node_ref = weakref.ref(f.node)
    assert node_ref() is not None  # before the call the Function owns its adapter
    y = f(x)
    ref = weakref.ref(f)
    del f
    gc.collect()
    assert ref() is y.creator  # the adapter (held by the graph) keeps the Function alive


def test_calling_one_function_twice_reuses_its_adapter_like_chainer():
    f = Square()
    x = chainer.Variable(np.ones(1))
    y1, y2 = f(x), f(x)
    assert y1.creator_node is y2.creator_node is f.node


def test_wrong_gradients_from_backward_blame_the_function():
    class BadShape(Square):
        def backward(self, inputs, grad_outputs):
            return np.ones(5),

    class BadDtype(Square):
        def backward(self, inputs, grad_outputs):
            return grad_outputs[0].astype(np.float32),

    class NotAnArray(Square):
        def backward(self, inputs, grad_outputs):
            return [1.0, 1.0],

    x = chainer.Variable(np.ones(2))
    for cls, error, text in [(BadShape, ValueError, 'Shape of data and grad mismatch'),
                             (BadDtype, TypeError, 'Dtype of data and grad mismatch'),
                             (NotAnArray, TypeError, 'Type of grad is invalid')]:
        y = cls()(x)
        with pytest.raises(error, match=rf'Function `{cls.__name__}` \({cls.__name__}\) has a '
                                        rf'bug\.[\s\S]*{text}'):
            F.sum(y).backward()
        assert x.grad is None  # a failed backward changes nothing


def test_its_gradients_cannot_be_differentiated_again():
    message = 'cannot twice-differentiate an old style Function "Square"'
    for double in (False, True):
        x = chainer.Variable(np.array([1.0, 2.0]))
        y = Square()(x)
        F.sum(y).backward(enable_double_backprop=double)
        np.testing.assert_array_equal(x.grad, [2.0, 4.0])
        with pytest.raises(RuntimeError, match=message):
            x.grad_var.backward()
    x = chainer.Variable(np.array([1.0, 2.0]))
    F.sum(Square()(x)).backward(enable_double_backprop=True)
    with pytest.raises(RuntimeError, match=message):
        F.sum(x.grad_var * 2).backward()  # the gradient, as a leaf of a new graph
    with pytest.raises(RuntimeError, match=message):
        chainer.grad([x.grad_var], [x])
    with pytest.raises(RuntimeError, match=message):
        chainer.grad([F.sum(x.grad_var)], [None])  # checked before the other arguments


def test_new_style_gradients_stay_differentiable():
    x = chainer.Variable(np.array([1.0, 2.0]))
    F.sum(x ** 2).backward(enable_double_backprop=True)
    x.grad_var.grad = np.ones(2)
    x.grad_var.backward()  # no old-style Function involved: fine


def test_debug_mode_appends_the_stack_of_the_call():
    class BadShape(Square):
        def backward(self, inputs, grad_outputs):
            return np.ones(5),

    x = chainer.Variable(np.ones(2))
    with chainer.using_config('debug', True):
        y = BadShape()(x)  # the line the message must point at
        with pytest.raises(ValueError, match='Stacktrace of the function is below') as info:
            F.sum(y).backward()
    assert 'test_debug_mode_appends_the_stack_of_the_call' in str(info.value)
    assert 'y = BadShape()(x)' in str(info.value)
