"""Spec section 11: reshape / transpose / sum / broadcast and the other shape functions."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab.utils.type_check import InvalidType

V = chainer.Variable

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def run(f, a=A, seed=0):
    """Apply ``f`` to a fresh Variable of ``a`` and backprop a random gradient."""
    x = V(a.copy())
    y = f(x)
    gy = np.random.default_rng(seed).standard_normal(y.shape).astype(y.dtype)
    y.grad = gy
    y.backward()
    return x, y, gy


def creator_label(v):
    return v.creator.label if v.creator is not None else None


# ---- reshape ----------------------------------------------------------------------------


@pytest.mark.parametrize('shape, expected', [((6, 4), (6, 4)), ((-1, 4), (6, 4)),
                                             ((4, -1), (4, 6)), ((24,), (24,)),
                                             ((2, 3, 2, 2), (2, 3, 2, 2))])
def test_reshape_forward_backward(shape, expected):
    x, y, gy = run(lambda v: F.reshape(v, shape))
    assert creator_label(y) == 'Reshape'
    assert y.shape == expected
    np.testing.assert_array_equal(y.array, A.reshape(shape))
    np.testing.assert_array_equal(x.grad, gy.reshape(A.shape))


def test_reshape_to_same_shape_adds_no_node():
    x = V(A.copy())
    y = F.reshape(x, (2, 3, 4))
    assert y is x


def test_reshape_size_mismatch_is_invalid_type():
    with pytest.raises(InvalidType):
        F.reshape(V(A.copy()), (5, 5))


def test_variable_reshape_method_forms():
    x = V(A.copy())
    assert x.reshape(4, 6).shape == (4, 6)
    assert x.reshape((4, 6)).shape == (4, 6)
    assert x.reshape(-1).shape == (24,)
    assert creator_label(x.reshape(4, 6)) == 'Reshape'


# ---- transpose ---------------------------------------------------------------------------


@pytest.mark.parametrize('axes', [None, (1, 0, 2), (2, 0, 1), (-1, 0, 1), (0, 1, 2)])
def test_transpose_forward_backward(axes):
    x, y, gy = run(lambda v: F.transpose(v, axes))
    assert creator_label(y) == 'Transpose'
    np.testing.assert_array_equal(y.array, A.transpose(axes))
    assert x.grad.shape == A.shape
    # the backward is the inverse permutation
    inv = None if axes is None else np.argsort([a % 3 for a in axes])
    np.testing.assert_array_equal(x.grad, gy.transpose(inv))


def test_transpose_methods():
    x = V(A.copy())
    assert x.T.shape == (4, 3, 2)
    assert creator_label(x.T) == 'Transpose'
    assert x.transpose().shape == (4, 3, 2)
    assert x.transpose(1, 0, 2).shape == (3, 2, 4)
    assert x.transpose((1, 0, 2)).shape == (3, 2, 4)


@pytest.mark.parametrize('axes', [(0, 0), (0,)])
def test_transpose_bad_axes_raise_value_error(axes):
    x = V(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError):
        F.transpose(x, axes)
    with pytest.raises(ValueError):
        x.transpose(*axes)


# ---- sum ---------------------------------------------------------------------------------


@pytest.mark.parametrize('axis', [None, 0, 1, -1, -3, (0, 2), (-1, 0), (0, 1, 2), ()])
@pytest.mark.parametrize('keepdims', [False, True])
def test_sum_forward_backward(axis, keepdims):
    x, y, gy = run(lambda v: F.sum(v, axis=axis, keepdims=keepdims))
    assert creator_label(y) == 'Sum'
    expected = A.sum(axis=axis, keepdims=keepdims)
    assert y.shape == expected.shape
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, expected)
    # backward broadcasts gy back over the summed axes
    kept = A.sum(axis=axis, keepdims=True).shape
    np.testing.assert_allclose(x.grad, np.broadcast_to(gy.reshape(kept), A.shape))


@pytest.mark.parametrize('axis', [3, -4, (0, 3)])
def test_sum_axis_out_of_range_is_invalid_type(axis):
    with pytest.raises(InvalidType):
        F.sum(V(A.copy()), axis=axis)


@pytest.mark.parametrize('axis', [(1, 1), (1, -2)])
def test_sum_duplicate_axis_is_value_error(axis):
    with pytest.raises(ValueError):
        F.sum(V(A.copy()), axis=axis)


def test_sum_of_0dim_and_double_backprop():
    x = V(np.array(3.0))
    y = F.sum(x)
    assert y.shape == ()
    x2 = V(np.array([1.0, 2.0]))
    gx, = chainer.grad([F.sum(x2 ** 3)], [x2], enable_double_backprop=True)
    ggx, = chainer.grad([F.sum(gx)], [x2])
    np.testing.assert_allclose(ggx.array, 6 * x2.array)


# ---- broadcast_to / broadcast / sum_to ----------------------------------------------------


@pytest.mark.parametrize('in_shape, shape', [((2, 3, 4), (5, 2, 3, 4)), ((1, 4), (3, 4)),
                                             ((3, 1), (2, 3, 4)), ((), (2, 2)), ((1,), (3,))])
def test_broadcast_to_forward_backward_sums_back(in_shape, shape):
    a = np.arange(int(np.prod(in_shape)), dtype=np.float32).reshape(in_shape)
    x, y, gy = run(lambda v: F.broadcast_to(v, shape), a)
    assert creator_label(y) == 'BroadcastTo'
    assert y.shape == shape
    np.testing.assert_array_equal(y.array, np.broadcast_to(a, shape))
    assert x.grad.shape == in_shape
    lead = len(shape) - len(in_shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(in_shape)
                                      if n == 1 and shape[lead + i] != 1)
    np.testing.assert_allclose(x.grad, gy.sum(axis=axes).reshape(in_shape), rtol=1e-5)


def test_broadcast_to_same_shape_adds_no_node():
    x = V(A.copy())
    assert F.broadcast_to(x, (2, 3, 4)) is x


@pytest.mark.parametrize('shape', [(3, 3, 4), (3, 4), (2, 3, 5)])
def test_broadcast_to_incompatible_is_invalid_type(shape):
    with pytest.raises(InvalidType):
        F.broadcast_to(V(A.copy()), shape)


def test_broadcast_returns_tuple_and_sums_grads_back():
    x = V(A.copy())
    u = V(np.ones((3, 1), np.float32))
    out = F.broadcast(x, u)
    assert isinstance(out, tuple) and len(out) == 2
    p, q = out
    assert p.shape == q.shape == (2, 3, 4)
    assert creator_label(p) == creator_label(q) == 'Broadcast'
    assert p.creator is q.creator  # a single node with two outputs
    np.testing.assert_array_equal(q.array, np.ones((2, 3, 4)))
    (F.sum(p) + F.sum(q * 2)).backward()
    np.testing.assert_array_equal(x.grad, np.ones(A.shape))
    np.testing.assert_array_equal(u.grad, np.full((3, 1), 16.0))


def test_broadcast_grad_for_unused_output_is_zero_free():
    x = V(A.copy())
    u = V(np.ones((3, 1), np.float32))
    p, _ = F.broadcast(x, u)
    F.sum(p).backward()
    np.testing.assert_array_equal(x.grad, np.ones(A.shape))
    assert u.grad is None


def test_broadcast_single_input_is_a_variable():
    x = V(A.copy())
    y = F.broadcast(x)
    assert isinstance(y, V)
    np.testing.assert_array_equal(y.array, A)


def test_broadcast_three_inputs():
    xs = [V(np.ones(s, np.float64)) for s in ((2, 1, 1), (3, 1), (4,))]
    ys = F.broadcast(*xs)
    assert [y.shape for y in ys] == [(2, 3, 4)] * 3


def test_broadcast_incompatible_is_invalid_type():
    with pytest.raises(InvalidType):
        F.broadcast(V(A.copy()), V(np.ones((2, 1), np.float32)))


@pytest.mark.parametrize('shape', [(3, 1), (1, 4), (3, 4), (1, 1, 1), (), (2, 1, 4)])
def test_sum_to_forward_backward(shape):
    x, y, gy = run(lambda v: F.sum_to(v, shape))
    assert creator_label(y) == 'SumTo'
    assert y.shape == shape
    lead = A.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and A.shape[lead + i] != 1)
    np.testing.assert_allclose(y.array, A.sum(axis=axes, keepdims=True).reshape(shape))
    np.testing.assert_allclose(x.grad, np.broadcast_to(gy, A.shape))


def test_sum_to_same_shape_adds_no_node():
    x = V(A.copy())
    assert F.sum_to(x, (2, 3, 4)) is x


# ---- squeeze / expand_dims ----------------------------------------------------------------

B = np.arange(3, dtype=np.float32).reshape(1, 3, 1)


@pytest.mark.parametrize('axis, shape', [(None, (3,)), (0, (3, 1)), (-1, (1, 3)), (2, (1, 3)),
                                         ((0, 2), (3,))])
def test_squeeze(axis, shape):
    x, y, gy = run(lambda v: F.squeeze(v, axis), B)
    assert creator_label(y) == 'Squeeze'
    assert y.shape == shape
    np.testing.assert_array_equal(y.array, np.squeeze(B, axis))
    np.testing.assert_array_equal(x.grad, gy.reshape(B.shape))


def test_squeeze_non_unit_axis_is_value_error():
    with pytest.raises(ValueError):
        F.squeeze(V(B.copy()), axis=1)


def test_squeeze_without_unit_axes_still_adds_a_node():
    x = V(A.copy())
    y = F.squeeze(x)
    assert y is not x
    assert creator_label(y) == 'Squeeze'
    assert y.shape == A.shape


@pytest.mark.parametrize('axis, shape', [(0, (1, 2, 3, 4)), (1, (2, 1, 3, 4)),
                                         (3, (2, 3, 4, 1)), (-1, (2, 3, 4, 1)),
                                         (-4, (1, 2, 3, 4))])
def test_expand_dims(axis, shape):
    x, y, gy = run(lambda v: F.expand_dims(v, axis))
    assert creator_label(y) == 'ExpandDims'
    assert y.shape == shape
    np.testing.assert_array_equal(y.array, np.expand_dims(A, axis))
    np.testing.assert_array_equal(x.grad, gy.reshape(A.shape))


@pytest.mark.parametrize('axis', [5, -6])
def test_expand_dims_axis_out_of_range_is_invalid_type(axis):
    with pytest.raises(InvalidType):
        F.expand_dims(V(A.copy()), axis)


# ---- cast / identity -------------------------------------------------------------------------


@pytest.mark.parametrize('src, dst', [(np.float32, np.float64), (np.float64, np.float16),
                                      (np.float16, np.float32)])
def test_cast_forward_backward(src, dst):
    a = np.array([1.5, -2.25, 3.0], dtype=src)
    x, y, gy = run(lambda v: F.cast(v, dst), a)
    assert creator_label(y) == 'Cast'
    assert y.dtype == dst
    np.testing.assert_array_equal(y.array, a.astype(dst))
    assert x.grad.dtype == src  # the gradient is cast back
    np.testing.assert_array_equal(x.grad, gy.astype(src))


def test_cast_to_int_forward():
    y = F.cast(V(np.array([1.7, -2.2], np.float32)), np.int32)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y.array, [1, -2])


def test_cast_to_same_dtype():
    x = V(A.copy())
    y = F.cast(x, np.float32)
    assert y is not x
    assert creator_label(y) == 'Cast'
    with chainer.no_backprop_mode():
        assert F.cast(x, 'float32') is x


def test_identity():
    x, y, gy = run(F.identity)
    assert creator_label(y) == 'Identity'
    assert y is not x
    np.testing.assert_array_equal(y.array, A)
    np.testing.assert_array_equal(x.grad, gy)
    a, b = V(A.copy()), V(np.ones(2))
    p, q = F.identity(a, b)
    assert p.creator is q.creator
    assert creator_label(p) == 'Identity'


# ---- raw ndarray inputs and list inputs ----------------------------------------------------

RAW = [
    ('reshape', lambda z: F.reshape(z, (6, 4)), 'Reshape'),
    ('transpose', F.transpose, 'Transpose'),
    ('sum', F.sum, 'Sum'),
    ('sum-axis', lambda z: F.sum(z, axis=(0, -1)), 'Sum'),
    ('broadcast_to', lambda z: F.broadcast_to(z, (2, 2, 3, 4)), 'BroadcastTo'),
    ('broadcast', lambda z: F.broadcast(z, np.ones((3, 1), np.float32))[0], 'Broadcast'),
    ('sum_to', lambda z: F.sum_to(z, (3, 4)), 'SumTo'),
    ('squeeze', lambda z: F.squeeze(z[None]), 'Squeeze'),
    ('expand_dims', lambda z: F.expand_dims(z, 0), 'ExpandDims'),
    ('cast', lambda z: F.cast(z, np.float64), 'Cast'),
    ('identity', F.identity, 'Identity'),
    ('get_item', lambda z: F.get_item(z, 0), 'GetItem'),
]


@pytest.mark.parametrize('f, lbl', [r[1:] for r in RAW], ids=[r[0] for r in RAW])
def test_raw_ndarray_input_gives_non_grad_variable(f, lbl):
    y = f(A.copy())
    assert isinstance(y, V)
    assert y.requires_grad is False
    assert creator_label(y) == lbl


LIST_INPUT = [
    ('reshape', lambda z: F.reshape(z, (6, 4))), ('transpose', F.transpose), ('sum', F.sum),
    ('broadcast_to', lambda z: F.broadcast_to(z, (2, 2, 3, 4))),
    ('broadcast', lambda z: F.broadcast(z, np.ones((3, 1), np.float32))),
    ('sum_to', lambda z: F.sum_to(z, (3, 4))), ('squeeze', F.squeeze),
    ('expand_dims', lambda z: F.expand_dims(z, 0)), ('cast', lambda z: F.cast(z, np.float64)),
    ('identity', F.identity), ('get_item', lambda z: F.get_item(z, 0)), ('exp', F.exp),
]


@pytest.mark.parametrize('f', [r[1] for r in LIST_INPUT], ids=[r[0] for r in LIST_INPUT])
def test_list_input_raises_type_error(f):
    with pytest.raises(TypeError):
        f(A.tolist())


@pytest.mark.parametrize('f', [F.transpose, F.identity, lambda z: F.get_item(z, 0), F.exp],
                         ids=['transpose', 'identity', 'get_item', 'exp'])
def test_list_input_message(f):
    with pytest.raises(TypeError, match='incompatible array types are mixed in the forward input'):
        f(A.tolist())


# ---- double backprop: the backward of each is again the inverse op -----------------------


@pytest.mark.parametrize('f, grad_label', [
    (lambda v: F.reshape(v, (6, 4)), 'Reshape'),
    (lambda v: F.transpose(v, (1, 2, 0)), 'Transpose'),
    (lambda v: F.sum(v, axis=1), 'BroadcastTo'),
    (lambda v: F.broadcast_to(v, (3, 2, 3, 4)), 'SumTo'),
    (lambda v: F.sum_to(v, (3, 1)), 'BroadcastTo'),
])
def test_grad_graph_uses_inverse_op(f, grad_label):
    x = V(A.astype(np.float64))
    y = f(x)
    gx, = chainer.grad([y], [x], grad_outputs=[V(np.ones(y.shape))], enable_double_backprop=True)
    assert gx.shape == A.shape
    assert creator_label(gx) == grad_label
