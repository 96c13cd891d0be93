"""Variable construction, attributes, grad setters and grad bookkeeping.

Spec sections 2 (construction), 3 (attributes), 4 (grad / grad_var setters),
13 (cleargrad / zerograd / addgrad / copydata) and the matching rows of the
section 22 error table.  Expected values come from the spec or from running
Chainer 7.8.1.
"""

from __future__ import annotations

import operator
import re
import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable, backend
from autograd_lab.utils.type_check import InvalidType

ZEROGRAD_WARNING = 'Variable.zerograd is deprecated. Use Variable.cleargrad instead.'


def f32(*values, shape=None):
    a = np.array(values, dtype=np.float32)
    return a if shape is None else a.reshape(shape)


def arange(*shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def zerograd(var):
    """Call the deprecated zerograd(), checking that it warns as Chainer does."""
    with pytest.warns(DeprecationWarning, match=ZEROGRAD_WARNING):
        var.zerograd()


# ---------------------------------------------------------------------------
# Section 2: construction
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('data', 'type_name'),
    [
        ([1, 2], "<class 'list'>"),
        (3.0, "<class 'float'>"),
        (np.float32(1), "<class 'numpy.float32'>"),
        (Variable(np.zeros(2, np.float32)), 'Variable'),
    ],
    ids=['list', 'float', 'numpy-scalar', 'variable'],
)
def test_data_must_be_an_ndarray_or_none(data, type_name):
    with pytest.raises(TypeError, match=r'are expected\. Actual: ') as info:
        Variable(data)
    assert "<class 'numpy.ndarray'>" in str(info.value)
    assert type_name in str(info.value)


def test_data_is_not_copied():
    a = arange(2, 3)
    x = Variable(a)
    assert x.array is a
    assert x.data is a


@pytest.mark.parametrize('dtype', [np.float16, np.float64, np.int32, np.bool_])
def test_any_ndarray_dtype_is_wrapped(dtype):
    a = np.zeros((2,), dtype=dtype)
    assert Variable(a).dtype == dtype


def test_name_is_keyword_only():
    with pytest.raises(TypeError):
        Variable(arange(2), 'x')


def test_unknown_keyword_is_rejected():
    with pytest.raises(TypeError, match="got unexpected keyword argument\\(s\\) 'foo'"):
        Variable(arange(2), foo=1)


def test_volatile_keyword_is_rejected_with_value_error():
    with pytest.raises(ValueError, match='volatile argument is not supported anymore'):
        Variable(arange(2), volatile=True)


@pytest.mark.parametrize('flag', [1, 0, None, 'yes', np.bool_(True)])
def test_requires_grad_must_be_a_real_bool(flag):
    # 7.8.1 asserts (AssertionError); the spec allows a clearer TypeError, which we raise.
    with pytest.raises(TypeError, match='requires_grad'):
        Variable(arange(2), requires_grad=flag)


@pytest.mark.parametrize('flag', [True, False])
def test_requires_grad_keyword(flag):
    assert Variable(arange(2), requires_grad=flag).requires_grad is flag


def test_name_keyword_sets_the_name():
    assert Variable(arange(2), name='x').name == 'x'


def test_grad_keyword_is_stored_without_validation():
    g = np.zeros(5)  # wrong shape and dtype for a (2, 3) float32 variable
    x = Variable(arange(2, 3), grad=g)
    assert x.grad is g


class TestUninitializedVariable:
    def test_basic_attributes(self):
        v = Variable()
        assert v.array is None
        assert v.data is None
        assert v.grad is None
        assert v.grad_var is None
        assert v.requires_grad is True
        assert v.rank == 0
        assert v.creator is None
        assert v.creator_node is None

    def test_xp_and_device_are_cpu(self):
        v = Variable()
        assert v.xp is np
        assert isinstance(v.device, backend.CpuDevice)

    def test_repr(self):
        assert repr(Variable()) == 'variable(None)'
        assert repr(Variable(name='w')) == 'variable w(None)'
        assert str(Variable(name='w')) == 'variable w(None)'

    @pytest.mark.parametrize('attr', ['shape', 'dtype', 'ndim', 'size'])
    def test_shape_information_raises_attribute_error(self, attr):
        with pytest.raises(AttributeError, match='uninitialized'):
            getattr(Variable(), attr)

    def test_len_raises_type_error(self):
        with pytest.raises(TypeError, match='len'):
            len(Variable())

    def test_label_raises_type_error(self):
        with pytest.raises(TypeError, match='uninitialized'):
            Variable().label

    def test_backward_raises_attribute_error(self):
        with pytest.raises(AttributeError, match='uninitialized'):
            Variable().backward()

    def test_cleargrad_is_fine(self):
        v = Variable()
        v.grad = np.ones(3)
        v.cleargrad()
        assert v.grad is None

    def test_zerograd_is_a_no_op(self):
        v = Variable()
        zerograd(v)
        assert v.grad is None
        assert v.array is None


def test_variables_are_unhashable():
    x = Variable(arange(2))
    assert Variable.__hash__ is None
    with pytest.raises(TypeError, match='unhashable'):
        hash(x)
    with pytest.raises(TypeError):
        {x}


@pytest.mark.parametrize(
    ('op', 'func'),
    [('==', operator.eq), ('!=', operator.ne), ('<', operator.lt), ('<=', operator.le),
     ('>', operator.gt), ('>=', operator.ge)],
)
def test_comparisons_raise_type_error(op, func):
    x, y = Variable(arange(2)), Variable(arange(2))
    expected = f'Variables do not support {op} operator. You could use `array` attribute instead.'
    with pytest.raises(TypeError) as info:
        func(x, y)
    assert str(info.value) == expected
    with pytest.raises(TypeError, match=f'support {re.escape(op)} operator'):
        func(x, arange(2))


@pytest.mark.parametrize('shape', [(), (1,), (3,)])
def test_bool_raises_type_error_even_for_one_element(shape):
    with pytest.raises(TypeError, match='bool'):
        bool(Variable(np.ones(shape, np.float32)))


def test_graph_nodes_are_hashable():
    x = Variable(f32(1, 2))
    y = x * 2
    table = {x.node: 'x', y.node: 'y', y.creator_node: 'f'}
    assert table[x.node] == 'x'
    assert table[y.node] == 'y'
    assert table[y.creator_node] == 'f'
    assert len({x.node, y.node, x.node}) == 2


def test_ndarray_operator_variable_dispatches_to_the_variable():
    a = f32(1, 2)
    x = Variable(f32(3, 4))
    assert Variable.__array_priority__ == 200 or getattr(Variable, '__array_ufunc__', 0) is None
    y = a * x
    assert type(y) is Variable
    np.testing.assert_array_equal(y.array, f32(3, 8))
    z = a - x
    assert type(z) is Variable
    np.testing.assert_array_equal(z.array, f32(-2, -2))


# ---------------------------------------------------------------------------
# Section 3: attributes
# ---------------------------------------------------------------------------


class TestArrayAttribute:
    def test_array_and_data_are_the_same_object(self):
        y = Variable(arange(2)) * 2
        assert y.data is y.array

    def test_setter_replaces_without_check_and_updates_the_node(self):
        x = Variable(arange(2, 3))
        g = np.ones((2, 3), np.float32)
        x.grad = g
        new = np.zeros(4, np.float64)
        x.array = new
        assert x.array is new
        assert x.data is new
        assert x.shape == (4,)
        assert x.node.shape == (4,)
        assert x.node.dtype == np.float64
        assert x.label == '(4), float64'
        assert x.grad is g  # a stale grad is left in place

    def test_data_setter_is_the_array_setter(self):
        x = Variable(arange(2))
        new = arange(3)
        x.data = new
        assert x.array is new
        assert x.node.shape == (3,)

    def test_setting_a_list_stores_it_and_shape_then_fails(self):
        x = Variable(arange(2))
        x.array = [1, 2]
        assert x.array == [1, 2]
        with pytest.raises(AttributeError):
            x.shape

    def test_setting_none_uninitializes(self):
        x = Variable(arange(2))
        x.array = None
        assert x.node.shape is None
        with pytest.raises(AttributeError):
            x.shape


class TestGradVar:
    def test_grad_var_wraps_grad_and_is_cached(self):
        x = Variable(arange(2, 3))
        x.grad = np.ones((2, 3), np.float32)
        gv = x.grad_var
        assert isinstance(gv, Variable)
        assert x.grad_var is gv
        assert gv.array is x.grad
        assert gv.requires_grad is True
        assert gv.creator is None

    def test_grad_is_never_a_variable(self):
        x = Variable(arange(2))
        x.grad_var = Variable(np.ones(2, np.float32))
        assert isinstance(x.grad, np.ndarray)

    def test_grad_var_is_none_without_grad(self):
        assert Variable(arange(2)).grad_var is None

    def test_grad_var_has_a_creator_after_double_backprop(self):
        x = Variable(np.array(2.0, np.float32))
        y = x**3
        y.backward(enable_double_backprop=True)
        assert x.grad_var.creator is not None
        assert float(x.grad) == pytest.approx(12.0)


class TestCreatorAndRank:
    def test_creator_is_creator_node_for_new_style_functions(self):
        x = Variable(f32(1, 2))
        y = x * 2
        assert isinstance(y.creator_node, chainer.FunctionNode)
        assert y.creator is y.creator_node

    def test_user_variables_are_leaves_of_rank_zero(self):
        x = Variable(f32(1, 2))
        assert x.creator is None
        assert x.creator_node is None
        assert x.rank == 0

    def test_rank_example_from_the_spec(self):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        a = x * 2
        b = a * 3
        c = b + w
        d = c + a
        assert [v.rank for v in (x, a, b, c, d)] == [0, 1, 2, 3, 4]
        assert d.creator.rank == 3  # max of the input ranks (c: 3, a: 1)
        assert c.creator.rank == 2

    def test_creator_node_setter_none_makes_a_leaf(self):
        x = Variable(f32(1, 2))
        y = x * 2
        y.creator_node = None
        assert y.creator is None
        assert y.creator_node is None

    def test_creator_node_setter_sets_rank(self):
        x = Variable(f32(1, 2))
        y = (x * 2) * 3
        fn = y.creator_node
        z = Variable(f32(5, 6))
        z.creator_node = fn
        assert z.creator_node is fn
        assert z.creator is fn
        assert z.rank == fn.rank + 1 == 2
        assert z.node.creator_node is fn

    def test_creator_setter(self):
        x = Variable(f32(1, 2))
        fn = (x * 2).creator_node
        z = Variable(f32(5, 6))
        z.creator = fn
        assert z.creator is fn
        assert z.creator_node is fn
        assert z.rank == fn.rank + 1


class TestNode:
    def test_node_is_a_variable_node_with_the_spec_attributes(self):
        x = Variable(arange(2, 3), name='x')
        node = x.node
        assert isinstance(node, chainer.variable.VariableNode)
        assert x.node is node
        assert node.name == 'x'
        assert node.shape == (2, 3)
        assert node.dtype == np.float32
        assert node.rank == 0
        assert node.creator is None
        assert node.creator_node is None
        assert node.data is None
        assert node.requires_grad is True
        assert node.grad is None
        assert node.grad_var is None
        assert node.label == '(2, 3), float32'
        for method in ('get_variable', 'get_variable_or_none', 'retain_data', 'set_creator',
                       'set_creator_node', 'unchain'):
            assert callable(getattr(node, method))

    def test_node_grad_follows_the_variable(self):
        x = Variable(arange(2))
        x.grad = np.ones(2, np.float32)
        assert x.node.grad is x.grad
        assert x.node.grad_var is x.grad_var

    def test_node_get_variable_and_retain_data(self):
        x = Variable(arange(2))
        assert x.node.get_variable() is x
        assert x.node.get_variable_or_none() is x
        x.node.retain_data()
        assert x.node.data is x.array

    def test_node_of_a_function_output_has_its_creator(self):
        x = Variable(arange(2))
        y = x * 2
        assert y.node.creator is y.creator
        assert y.node.rank == 1


@pytest.mark.parametrize(
    ('shape', 'dtype', 'label'),
    [
        ((2, 3), np.float32, '(2, 3), float32'),
        ((2,), np.float32, '(2), float32'),
        ((), np.float64, 'float64'),
        ((3,), np.int32, '(3), int32'),
    ],
)
def test_label(shape, dtype, label):
    assert Variable(np.zeros(shape, dtype)).label == label


class TestName:
    def test_name_and_node_name_stay_in_sync(self):
        x = Variable(arange(2))
        assert x.name is None
        x.name = 'foo'
        assert x.node.name == 'foo'
        x.node.name = 'bar'
        assert x.name == 'bar'

    def test_function_results_are_unnamed(self):
        x = Variable(arange(2), name='x')
        assert (x * 2).name is None


def test_shape_ndim_size_dtype_come_from_the_array():
    a = arange(2, 3, 4, dtype=np.float64)
    x = Variable(a)
    assert (x.shape, x.ndim, x.size, x.dtype) == (a.shape, a.ndim, a.size, a.dtype)


def test_xp_and_device():
    x = Variable(arange(2))
    assert x.xp is np
    assert isinstance(x.device, backend.CpuDevice)
    assert str(x.device) == '@numpy'
    assert x.device == chainer.get_device('@numpy')
    assert x.device.xp is np


def test_requires_grad_is_read_only():
    x = Variable(arange(2))
    with pytest.raises(AttributeError):
        x.requires_grad = False
    assert x.requires_grad is True


class TestTranspose:
    def test_T_reverses_all_axes(self):
        x = Variable(arange(2, 3, 4))
        t = x.T
        assert t.shape == (4, 3, 2)
        np.testing.assert_array_equal(t.array, x.array.T)
        assert t.creator.label == 'Transpose'

    @pytest.mark.parametrize('shape', [(), (3,)])
    def test_T_of_0d_and_1d_is_still_a_new_node(self, shape):
        x = Variable(np.ones(shape, np.float32))
        t = x.T
        assert t is not x
        assert t.shape == shape
        assert t.creator is not None
        assert t.creator.label == 'Transpose'

    @pytest.mark.parametrize('axes', [(), (None,)], ids=['no-args', 'None'])
    def test_transpose_without_axes_reverses(self, axes):
        assert Variable(arange(2, 3)).transpose(*axes).shape == (3, 2)

    @pytest.mark.parametrize('axes', [(1, 0, 2), ((1, 0, 2),)], ids=['varargs', 'tuple'])
    def test_transpose_with_axes(self, axes):
        x = Variable(arange(2, 3, 4))
        y = x.transpose(*axes)
        assert y.shape == (3, 2, 4)
        np.testing.assert_array_equal(y.array, x.array.transpose(1, 0, 2))

    @pytest.mark.parametrize('axes', [(0, 0), (0,)], ids=['repeated', 'wrong-count'])
    def test_bad_axes_raise_value_error(self, axes):
        with pytest.raises(ValueError):
            Variable(arange(2, 3)).transpose(*axes)


class TestReshape:
    @pytest.mark.parametrize('args', [(3, 2), ((3, 2),), ([3, 2],), (-1, 2), (3, -1)])
    def test_accepted_forms(self, args):
        x = Variable(arange(2, 3))
        y = x.reshape(*args)
        assert y.shape == (3, 2)
        np.testing.assert_array_equal(y.array, x.array.reshape(3, 2))

    def test_minus_one_alone(self):
        assert Variable(arange(2, 3)).reshape(-1).shape == (6,)

    def test_size_mismatch_is_invalid_type(self):
        with pytest.raises(InvalidType):
            Variable(arange(2, 3)).reshape(4, 2)

    def test_two_minus_ones_is_an_assertion_error(self):
        with pytest.raises(AssertionError):
            Variable(arange(2, 3)).reshape(-1, -1)


class TestLenAndItem:
    def test_len_is_len_of_the_array(self):
        assert len(Variable(arange(4, 3))) == 4

    def test_len_of_0d_raises(self):
        with pytest.raises(TypeError, match='len\\(\\) of unsized object'):
            len(Variable(np.array(1.0, np.float32)))

    @pytest.mark.parametrize('shape', [(), (1,), (1, 1)])
    def test_item_returns_a_python_float(self, shape):
        value = Variable(np.full(shape, 2.5, np.float32)).item()
        assert type(value) is float
        assert value == 2.5

    def test_item_of_an_int_variable_is_a_python_int(self):
        value = Variable(np.array(3, np.int32)).item()
        assert type(value) is int
        assert value == 3

    def test_item_with_size_not_one_raises_value_error(self):
        with pytest.raises(ValueError, match='size 1'):
            Variable(arange(2)).item()


def test_mean_is_f_average():
    x = Variable(arange(2, 3))
    m = x.mean()
    assert m.creator.label == 'Mean'
    assert float(m.array) == pytest.approx(2.5)
    m1 = x.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(m1.array, x.array.mean(axis=1, keepdims=True))
    mw = x.mean(axis=1, weights=Variable(f32(1, 0, 1)))
    np.testing.assert_allclose(mw.array, np.average(x.array, axis=1, weights=f32(1, 0, 1)))


class TestSummaryAndDebugPrint:
    def test_summary(self):
        assert Variable(arange(2), name='x').summary() == '<variable x>'
        x = Variable(arange(2))
        assert x.summary() == f'<variable at 0x{id(x):x}>'

    def test_debug_print_with_grad_none(self):
        a = arange(2, 3)
        x = Variable(a, name='x')
        expected = '\n'.join([
            '<variable x>',
            '- device: CPU',
            "- backend: <class 'numpy.ndarray'>",
            '- shape: (2, 3)',
            '- dtype: float32',
            f'- statistics: mean={a.mean():.8f}, std={a.std():.8f}',
            '- grad: None',
        ])
        assert x.debug_print() == expected
        assert expected.splitlines()[5] == '- statistics: mean=2.50000000, std=1.70782518'

    def test_debug_print_grad_lines(self):
        x = Variable(arange(2))
        x.grad = np.zeros(2, np.float32)
        assert x.debug_print().splitlines()[-1] == '- grad: 0'
        g = f32(1, 3)
        x.grad = g
        assert x.debug_print().splitlines()[-1] == (
            f'- grad: mean={g.mean():.8f}, std={g.std():.8f}')

    def test_debug_print_uninitialized(self):
        assert Variable(name='x').debug_print() == '\n'.join([
            '<variable x>', '- device: None', '- backend: None', '- shape: None',
            '- dtype: None', '- statistics: None', '- grad: None'])


class TestReprAndStr:
    def test_repr_and_str_of_a_matrix(self):
        x = Variable(arange(2, 3), name='x')
        assert repr(x) == 'variable x([[0., 1., 2.],\n            [3., 4., 5.]])'
        assert str(x) == 'variable x([[0. 1. 2.]\n            [3. 4. 5.]])'

    def test_repr_of_a_scalar(self):
        assert repr(Variable(np.array(2.5, np.float32))) == 'variable(2.5)'

    def test_zero_size_arrays(self):
        assert repr(Variable(np.zeros((0, 3), np.float32))) == 'variable([], shape=(0, 3))'
        assert repr(Variable(np.zeros((0,), np.float32))) == 'variable([])'

    def test_parameters_print_like_variables(self):
        a = arange(3)
        assert repr(chainer.Parameter(a, name='w')) == repr(Variable(a, name='w'))
        assert str(chainer.Parameter(a)) == str(Variable(a))


def test_unary_plus_returns_self():
    x = Variable(arange(2))
    assert +x is x


# ---------------------------------------------------------------------------
# Section 4: grad / grad_var setters
# ---------------------------------------------------------------------------


class TestGradSetter:
    def test_accepts_a_matching_ndarray_without_copy(self):
        x = Variable(np.zeros((2, 2), np.float32))
        g = np.ones((2, 2), np.float32)
        x.grad = g
        assert x.grad is g

    def test_accepts_none(self):
        x = Variable(np.zeros(2, np.float32))
        x.grad = np.ones(2, np.float32)
        x.grad = None
        assert x.grad is None
        assert x.grad_var is None

    @pytest.mark.parametrize('bad', [[1, 2], 1.0, np.float32(1)],
                             ids=['list', 'float', 'numpy-scalar'])
    def test_rejects_non_arrays(self, bad):
        x = Variable(np.zeros(2, np.float32))
        with pytest.raises(TypeError, match='Type of grad is invalid'):
            x.grad = bad
        assert x.grad is None

    def test_rejects_a_dtype_mismatch(self):
        x = Variable(np.zeros((2, 2), np.float32))
        with pytest.raises(TypeError) as info:
            x.grad = np.zeros((2, 2), np.float64)
        assert str(info.value) == 'Dtype of data and grad mismatch\ngrad: float64 != data: float32'

    def test_rejects_a_shape_mismatch(self):
        x = Variable(np.zeros((2, 2), np.float32))
        with pytest.raises(ValueError) as info:
            x.grad = np.zeros((2, 3), np.float32)
        assert str(info.value) == (
            'Shape of data and grad mismatch\ngrad: (2, 3) != data: (2, 2)')

    def test_shape_1_against_0d_is_a_mismatch(self):
        x = Variable(np.array(1.0, np.float32))
        with pytest.raises(ValueError, match=r'grad: \(1,\) != data: \(\)'):
            x.grad = np.zeros((1,), np.float32)

    def test_checks_are_skipped_without_data(self):
        v = Variable()
        g = np.zeros(7)
        v.grad = g
        assert v.grad is g

    def test_integer_grads_on_integer_variables(self):
        x = Variable(np.arange(3, dtype=np.int32))
        g = np.ones(3, np.int32)
        x.grad = g
        assert x.grad is g

    def test_setting_grad_drops_the_cached_grad_var(self):
        x = Variable(np.zeros(2, np.float32))
        x.grad = np.ones(2, np.float32)
        old = x.grad_var
        g = np.full(2, 2, np.float32)
        x.grad = g
        assert x.grad_var is not old
        assert x.grad_var.array is g

    def test_requires_grad_false_still_allows_grad(self):
        x = Variable(np.zeros(2, np.float32), requires_grad=False)
        g = np.ones(2, np.float32)
        x.grad = g
        assert x.grad is g
        assert x.grad_var.array is g


class TestGradVarSetter:
    def test_accepts_a_variable(self):
        x = Variable(np.zeros(2, np.float32))
        gv = Variable(np.ones(2, np.float32))
        x.grad_var = gv
        assert x.grad_var is gv
        assert x.grad is gv.array

    def test_none_clears_the_grad(self):
        x = Variable(np.zeros(2, np.float32))
        x.grad = np.ones(2, np.float32)
        x.grad_var = None
        assert x.grad is None
        assert x.grad_var is None

    def test_an_ndarray_raises_attribute_error(self):
        x = Variable(np.zeros((2, 2), np.float32))
        with pytest.raises(AttributeError):
            x.grad_var = np.zeros((2, 2), np.float32)
        assert x.grad is None

    def test_shape_mismatch(self):
        x = Variable(np.zeros((2, 2), np.float32))
        with pytest.raises(ValueError, match='Shape of data and grad mismatch'):
            x.grad_var = Variable(np.zeros((2, 3), np.float32))

    def test_dtype_mismatch(self):
        x = Variable(np.zeros((2, 2), np.float32))
        with pytest.raises(TypeError, match='Dtype of data and grad mismatch'):
            x.grad_var = Variable(np.zeros((2, 2), np.float64))


# ---------------------------------------------------------------------------
# Section 13: cleargrad / zerograd / addgrad / copydata
# ---------------------------------------------------------------------------


def test_cleargrad():
    x = Variable(f32(1, 2))
    x.grad = f32(3, 4)
    x.cleargrad()
    assert x.grad is None
    assert x.grad_var is None


class TestZerograd:
    def test_warns(self):
        x = Variable(f32(1, 2))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            x.zerograd()
        assert [(w.category, str(w.message)) for w in caught] == [
            (DeprecationWarning, ZEROGRAD_WARNING)]

    def test_no_grad_yet_gives_zeros_like_data(self):
        x = Variable(np.ones((2, 3), np.float64))
        zerograd(x)
        np.testing.assert_array_equal(x.grad, np.zeros((2, 3)))
        assert x.grad.dtype == np.float64

    def test_existing_grad_is_filled_in_place(self):
        x = Variable(f32(1, 2, 3))
        g = f32(4, 5, 6)
        x.grad = g
        zerograd(x)
        assert x.grad is g
        np.testing.assert_array_equal(g, np.zeros(3))

    def test_grad_var_is_unchained(self):
        x = Variable(np.array(2.0, np.float32))
        (x**3).backward(enable_double_backprop=True)
        gv = x.grad_var
        arr = gv.array
        assert gv.creator is not None
        zerograd(x)
        assert x.grad_var is gv
        assert gv.creator is None
        assert x.grad is arr
        assert float(arr) == 0.0


class TestAddgrad:
    def test_adds_as_a_new_graph_node(self):
        a = Variable(f32(1, 1))
        b = Variable(f32(1, 1))
        a.grad = f32(2, 2)
        b.grad = f32(3, 3)
        old = a.grad
        a.addgrad(b)
        np.testing.assert_array_equal(a.grad, f32(5, 5))
        assert a.grad is not old
        np.testing.assert_array_equal(old, f32(2, 2))  # not in place
        assert a.grad_var.creator is not None
        assert a.grad_var.creator.label == '_ + _'
        np.testing.assert_array_equal(b.grad, f32(3, 3))

    def test_src_without_grad_is_a_no_op(self):
        a = Variable(f32(1, 1))
        g = f32(2, 2)
        a.grad = g
        a.addgrad(Variable(f32(1, 1)))
        assert a.grad is g
        c = Variable(f32(1, 1))
        c.addgrad(Variable(f32(1, 1)))
        assert c.grad is None

    def test_self_without_grad_aliases_src_grad(self):
        # Quirk Q5.
        a = Variable(f32(1, 1))
        b = Variable(f32(1, 1))
        b.grad = f32(3, 3)
        a.addgrad(b)
        assert a.grad is b.grad
        assert a.grad_var is b.grad_var

    def test_shape_mismatch_is_invalid_type(self):
        a = Variable(f32(1, 1, 1))
        a.grad = f32(1, 1, 1)
        b = Variable(f32(1, 1))
        b.grad = f32(3, 3)
        with pytest.raises(InvalidType):
            a.addgrad(b)

    def test_into_uninitialized_variable_raises_attribute_error(self):
        b = Variable(f32(1, 1))
        b.grad = f32(3, 3)
        with pytest.raises(AttributeError):
            Variable().addgrad(b)


class TestCopydata:
    def test_copies_in_place(self):
        dst = Variable(np.zeros(3, np.float32))
        arr = dst.array
        src = Variable(f32(1, 2, 3))
        dst.copydata(src)
        assert dst.array is arr
        np.testing.assert_array_equal(arr, f32(1, 2, 3))
        assert dst.array is not src.array

    def test_casts_and_broadcasts(self):
        # Quirk Q8: f64 into f32 and (2,) into (2, 2) are fine.
        dst = Variable(np.zeros((2, 2), np.float32))
        arr = dst.array
        dst.copydata(Variable(np.array([1.5, 2.5])))
        assert dst.array is arr
        assert dst.dtype == np.float32
        np.testing.assert_array_equal(arr, f32(1.5, 2.5, 1.5, 2.5, shape=(2, 2)))

    def test_shapes_that_cannot_broadcast_raise_value_error(self):
        dst = Variable(np.zeros((2, 2), np.float32))
        with pytest.raises(ValueError, match='broadcast'):
            dst.copydata(Variable(np.ones(3)))

    def test_into_uninitialized_variable_raises_attribute_error(self):
        with pytest.raises(AttributeError):
            Variable().copydata(Variable(f32(1, 2)))

    def test_from_uninitialized_variable_raises_attribute_error(self):
        with pytest.raises(AttributeError):
            Variable(f32(1, 2)).copydata(Variable())

    def test_both_uninitialized_is_a_no_op(self):
        a, b = Variable(), Variable()
        a.copydata(b)
        assert a.array is None
        assert b.array is None


def test_grad_of_a_function_output_flows_to_leaf_after_cleargrad():
    # cleargrad is what makes accumulation start from zero: backward adds into grad.
    x = Variable(f32(1, 2))
    x.grad = f32(10, 10)
    F.sum(x * 3).backward()
    np.testing.assert_array_equal(x.grad, f32(13, 13))
    x.cleargrad()
    F.sum(x * 3).backward()
    np.testing.assert_array_equal(x.grad, f32(3, 3))
