"""Spec section 9: Python operators on Variables (labels, constants, quirks, matmul)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab.utils.type_check import InvalidType

V = chainer.Variable


def f32(*values):
    return np.array(values, dtype=np.float32)


def backward(y, gy=None):
    """Backward from ``y`` seeded with ``gy`` (ones by default)."""
    y.grad = np.ones_like(y.array) if gy is None else gy
    y.backward()


def label(v):
    return v.creator.label


# ---- Var-Var operators --------------------------------------------------------------------

VAR_VAR = [
    # op, class name, label, forward, d/dx, d/dy
    (operator.add, 'Add', '_ + _', lambda a, b: a + b, lambda a, b: 1 + 0 * a,
     lambda a, b: 1 + 0 * b),
    (operator.sub, 'Sub', '_ - _', lambda a, b: a - b, lambda a, b: 1 + 0 * a,
     lambda a, b: -1 + 0 * b),
    (operator.mul, 'Mul', '_ * _', lambda a, b: a * b, lambda a, b: b, lambda a, b: a),
    (operator.truediv, 'Div', '_ / _', lambda a, b: a / b, lambda a, b: 1 / b,
     lambda a, b: -a / b ** 2),
    (operator.pow, 'PowVarVar', '_ ** _', lambda a, b: a ** b,
     lambda a, b: b * a ** (b - 1), lambda a, b: a ** b * np.log(a)),
]


@pytest.mark.parametrize('op, cls, lbl, fwd, dx, dy', VAR_VAR,
                         ids=[row[1] for row in VAR_VAR])
def test_var_var_label_forward_backward(op, cls, lbl, fwd, dx, dy):
    a, b = f32(1.5, 2.0, 3.0), f32(0.5, -1.0, 2.0)
    x, y = V(a), V(b)
    z = op(x, y)
    assert type(z.creator).__name__ == cls
    assert label(z) == lbl
    assert z.dtype == np.float32
    np.testing.assert_allclose(z.array, fwd(a, b), rtol=1e-6)
    gy = f32(1.0, 2.0, -1.0)
    backward(z, gy)
    np.testing.assert_allclose(x.grad, gy * dx(a, b), rtol=1e-5)
    np.testing.assert_allclose(y.grad, gy * dy(a, b), rtol=1e-5)
    assert x.grad.dtype == y.grad.dtype == np.float32


@pytest.mark.parametrize('op', [row[0] for row in VAR_VAR], ids=[row[1] for row in VAR_VAR])
def test_var_var_broadcast_grads_summed_back(op):
    a = np.arange(1, 7, dtype=np.float64).reshape(2, 3)
    b = np.array([[1.5], [2.5]])
    x, y = V(a), V(b)
    z = op(x, y)
    assert z.shape == (2, 3)
    np.testing.assert_allclose(z.array, op(a, b))
    backward(z)
    assert x.grad.shape == (2, 3)
    assert y.grad.shape == (2, 1)


@pytest.mark.parametrize('op', [row[0] for row in VAR_VAR], ids=[row[1] for row in VAR_VAR])
@pytest.mark.parametrize('other', [np.float64, np.float16])
def test_var_var_requires_same_dtype(op, other):
    x = V(f32(1, 2))
    y = V(np.array([1, 2], dtype=other))
    with pytest.raises(InvalidType):
        op(x, y)
    with pytest.raises(InvalidType):
        op(y, x)


@pytest.mark.parametrize('op', [row[0] for row in VAR_VAR], ids=[row[1] for row in VAR_VAR])
def test_var_var_unbroadcastable_shapes(op):
    with pytest.raises(InvalidType, match='cannot broadcast inputs'):
        op(V(f32(1, 2, 3)), V(f32(1, 2)))


def test_invalid_type_is_not_type_or_value_error():
    with pytest.raises(InvalidType) as info:
        V(f32(1, 2)) + V(np.array([1., 2.]))
    assert not isinstance(info.value, (TypeError, ValueError))


# ---- one Variable and a constant ----------------------------------------------------------

CONST_CASES = [
    # expression, class, label, expected forward for x = [1, 2, 4]
    (lambda x: x + 2, 'AddConstant', '_ + 2', lambda a: a + 2),
    (lambda x: 2 + x, 'AddConstant', '_ + 2', lambda a: a + 2),
    (lambda x: x - 2, 'AddConstant', '_ + (-2)', lambda a: a - 2),
    (lambda x: x - (-2), 'AddConstant', '_ + 2', lambda a: a + 2),
    (lambda x: x + (-2.5), 'AddConstant', '_ + (-2.5)', lambda a: a - 2.5),
    (lambda x: x + np.float32(2), 'AddConstant', '_ + 2.0', lambda a: a + 2),
    (lambda x: np.float32(2) + x, 'AddConstant', '_ + 2.0', lambda a: a + 2),
    (lambda x: x - np.float32(2), 'AddConstant', '_ + (-2.0)', lambda a: a - 2),
    (lambda x: 2 - x, 'SubFromConstant', '2 - _', lambda a: 2 - a),
    (lambda x: -2 - x, 'SubFromConstant', '(-2) - _', lambda a: -2 - a),
    (lambda x: x * 3, 'MulConstant', '_ * 3', lambda a: a * 3),
    (lambda x: 3 * x, 'MulConstant', '_ * 3', lambda a: a * 3),
    (lambda x: x * (-1), 'MulConstant', '_ * (-1)', lambda a: -a),
    (lambda x: np.float64(2) * x, 'MulConstant', '_ * 2.0', lambda a: a * 2),
    (lambda x: x / 4, 'MulConstant', '_ * 0.25', lambda a: a / 4),
    (lambda x: x / (-4), 'MulConstant', '_ * (-0.25)', lambda a: a / -4),
    (lambda x: 4 / x, 'DivFromConstant', '4 / _', lambda a: 4 / a),
    (lambda x: -4 / x, 'DivFromConstant', '(-4) / _', lambda a: -4 / a),
    (lambda x: x ** 3, 'PowVarConst', '_ ** 3', lambda a: a ** 3),
    (lambda x: x ** -1, 'PowVarConst', '_ ** (-1)', lambda a: 1 / a),
    (lambda x: x ** 0.5, 'PowVarConst', '_ ** 0.5', np.sqrt),
    (lambda x: 2 ** x, 'PowConstVar', '2 ** _', lambda a: 2 ** a),
    (lambda x: 1.5 ** x, 'PowConstVar', '1.5 ** _', lambda a: 1.5 ** a),
    (lambda x: -x, 'Neg', '__neg__', lambda a: -a),
    (abs, 'Absolute', '|_|', np.abs),
]


@pytest.mark.parametrize('expr, cls, lbl, fwd', CONST_CASES, ids=[c[2] for c in CONST_CASES])
def test_constant_labels_and_forward(expr, cls, lbl, fwd):
    a = f32(1, 2, 4)
    y = expr(V(a))
    assert type(y.creator).__name__ == cls
    assert label(y) == lbl
    assert y.dtype == np.float32
    assert y.requires_grad
    np.testing.assert_allclose(y.array, fwd(a.astype(np.float64)), rtol=1e-6)


def test_division_by_constant_label_uses_reciprocal():
    y = V(f32(1, 2, 3)) / 3
    assert label(y) == f'_ * {1.0 / 3}'


CONST_GRADS = [
    (lambda x: x + 2, np.ones_like),
    (lambda x: 2 - x, lambda a: -np.ones_like(a)),
    (lambda x: x * 3, lambda a: 3 * np.ones_like(a)),
    (lambda x: x / 4, lambda a: 0.25 * np.ones_like(a)),
    (lambda x: 4 / x, lambda a: -4 / a ** 2),
    (lambda x: x ** 3, lambda a: 3 * a ** 2),
    (lambda x: x ** 0.5, lambda a: 0.5 / np.sqrt(a)),
    (lambda x: x ** -1, lambda a: -1 / a ** 2),
    (lambda x: 2 ** x, lambda a: 2 ** a * np.log(2)),
    (lambda x: 1.5 ** x, lambda a: 1.5 ** a * np.log(1.5)),
    (lambda x: -x, lambda a: -np.ones_like(a)),
    (lambda x: abs(x - 1), lambda a: np.sign(a - 1)),
]


@pytest.mark.parametrize('expr, grad', CONST_GRADS)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_constant_op_gradients(expr, grad, dtype):
    a = np.array([0.5, 2.0, 3.0], dtype=dtype)
    x = V(a)
    y = expr(x)
    gy = np.array([1.0, -2.0, 0.5], dtype=dtype)
    backward(y, gy)
    assert x.grad.dtype == dtype
    np.testing.assert_allclose(x.grad, gy * grad(a.astype(np.float64)), rtol=1e-5)


def test_pos_returns_the_same_variable():
    x = V(f32(1, 2))
    assert (+x) is x


def test_in_place_operator_rebinds_without_touching_original():
    x = V(f32(1, 2, 3))
    original = x
    x += 1
    assert x is not original
    np.testing.assert_array_equal(original.array, [1, 2, 3])
    np.testing.assert_array_equal(x.array, [2, 3, 4])
    assert label(x) == '_ + 1'
    x *= 2
    np.testing.assert_array_equal(x.array, [4, 6, 8])


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_constants_are_cast_to_variable_dtype(dtype):
    x = V(np.array([1, 2], dtype=dtype))
    for y in (x * 2.5, 2.5 * x, x + 1e-3, x - np.float64(1), 3 - x, x / 7, 7 / x, x ** 2.0,
              2.0 ** x, x + np.float64(1.5), np.float64(1.5) * x):
        assert y.dtype == dtype


def test_float16_constant_overflows_in_float16():
    with np.errstate(over='ignore'):
        y = V(np.ones(2, np.float16)) + 1e5
    assert y.dtype == np.float16
    assert np.isinf(y.array).all()


# ---- operands that are ndarrays ---------------------------------------------------------

ARRAY_OPS = [
    (operator.add, '_ + _'), (operator.sub, '_ - _'), (operator.mul, '_ * _'),
    (operator.truediv, '_ / _'), (operator.pow, '_ ** _'),
]


@pytest.mark.parametrize('op, lbl', ARRAY_OPS, ids=[o[1] for o in ARRAY_OPS])
@pytest.mark.parametrize('array_dtype', [np.float64, np.float16, np.int32])
def test_variable_op_ndarray_casts_array_to_variable_dtype(op, lbl, array_dtype):
    a = f32(1, 2, 3)
    b = np.array([2, 1, 2], dtype=array_dtype)
    x = V(a)
    y = op(x, b)
    assert isinstance(y, V)
    assert label(y) == lbl
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, op(a, b.astype(np.float32)), rtol=1e-6)
    backward(y)
    assert x.grad.dtype == np.float32


@pytest.mark.parametrize('op, lbl', ARRAY_OPS, ids=[o[1] for o in ARRAY_OPS])
@pytest.mark.parametrize('array_dtype', [np.float64, np.int32])
def test_ndarray_op_variable_reflected(op, lbl, array_dtype):
    a = f32(1, 2, 3)
    b = np.array([2, 1, 2], dtype=array_dtype)
    x = V(a)
    y = op(b, x)  # NumPy must defer to the Variable's reflected operator
    assert isinstance(y, V)
    assert label(y) == lbl
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, op(b.astype(np.float32), a), rtol=1e-6)
    gy = f32(1, 1, 1)
    backward(y, gy)
    # d/dx of the reflected form, against NumPy
    bb = b.astype(np.float64)
    aa = a.astype(np.float64)
    expected = {'_ + _': np.ones(3), '_ - _': -np.ones(3), '_ * _': bb,
                '_ / _': -bb / aa ** 2, '_ ** _': bb ** aa * np.log(bb)}[lbl]
    np.testing.assert_allclose(x.grad, expected, rtol=1e-5)


def test_ndarray_operand_is_not_differentiated():
    b = np.array([1.0, 2.0])
    y = V(f32(1, 2)) * b
    backward(y)
    other = y.creator.inputs[1]
    assert other.requires_grad is False


def test_zero_dim_array_operands():
    x = V(f32(1, 2, 3))
    for y in (x + np.array(2.0), np.array(2.0) + x):
        assert label(y) == '_ + _'
        assert y.dtype == np.float32
        np.testing.assert_array_equal(y.array, [3, 4, 5])


def test_numpy_scalar_on_the_left_defers_to_variable():
    x = V(f32(1, 2))
    y = np.float32(2) * x
    assert isinstance(y, V)
    assert label(y) == '_ * 2.0'
    y = np.float64(1) - x
    assert isinstance(y, V)
    assert label(y) == '1.0 - _'


BAD_OPERANDS = [[1, 2, 3], (1, 2, 3), 'a', None, object()]


@pytest.mark.parametrize('op', [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.pow, operator.matmul, operator.floordiv])
@pytest.mark.parametrize('bad', BAD_OPERANDS, ids=['list', 'tuple', 'str', 'None', 'object'])
def test_non_array_operands_raise_type_error(op, bad):
    x = V(f32(1, 2, 3))
    with pytest.raises(TypeError):
        op(x, bad)
    with pytest.raises(TypeError):
        op(bad, x)


@pytest.mark.parametrize('op', [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.pow, operator.matmul])
def test_list_operand_message(op):
    with pytest.raises(TypeError, match=r'Value must be a scalar, `numpy\.ndarray`, '
                                        r'`cupy\.ndarray` or a `Variable`'):
        op(V(f32(1, 2, 3)), [1.0, 2.0, 3.0])


def test_modulo_is_not_supported():
    x = V(f32(1, 2))
    with pytest.raises(TypeError):
        x % 2
    with pytest.raises(TypeError):
        2 % x
    with pytest.raises(TypeError):
        x % x
    assert not hasattr(V, '__mod__')


# ---- floor division (quirk Q6) -------------------------------------------------------------

FLOORDIV = [
    ('x // y', lambda x, y, a: x // y, lambda a, b: np.floor(a / b)),
    ('x // c', lambda x, y, a: x // -3, lambda a, b: np.floor(a / -3)),
    ('c // x', lambda x, y, a: 7 // x, lambda a, b: np.floor(7 / a)),
    ('ndarray // x', lambda x, y, a: a // x, lambda a, b: np.floor(a / a)),
    ('x // ndarray', lambda x, y, a: x // a, lambda a, b: np.floor(a / a)),
]


@pytest.mark.parametrize('name, expr, ref', FLOORDIV, ids=[f[0] for f in FLOORDIV])
def test_floor_division_is_not_differentiable(name, expr, ref):
    a = f32(7, -7, 5.5)
    b = f32(-3, 2, 2)
    x, y = V(a), V(b)
    z = expr(x, y, a.astype(np.float64))
    assert isinstance(z, V)
    assert z.creator is None
    assert z.creator_node is None
    assert z.requires_grad is False
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z.array, ref(a, b).astype(np.float32))


def test_floor_division_follows_numpy_floor():
    z = V(f32(7, -7)) // -3
    np.testing.assert_array_equal(z.array, [-3, 2])
    z = V(f32(7.0)) // V(f32(-3.0))
    np.testing.assert_array_equal(z.array, [-3])


def test_floor_division_result_is_a_leaf_for_later_graphs():
    x = V(f32(3, 4))
    z = (x // 2) * x
    backward(z)
    # only the direct path through x counts: the floor-divided factor is a constant
    np.testing.assert_array_equal(x.grad, [1, 2])


# ---- integer Variables (quirk Q7) -----------------------------------------------------------


def i32(*values):
    return V(np.array(values, dtype=np.int32))


def test_int_variable_constants_are_cast_to_int():
    x = i32(1, 2, 3)
    y = x / 2  # x * int32(0.5) == x * 0
    assert label(y) == '_ * 0.5'
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y.array, [0, 0, 0])
    y = x + 1.5
    assert label(y) == '_ + 1.5'
    np.testing.assert_array_equal(y.array, [2, 3, 4])
    np.testing.assert_array_equal((x - 1.5).array, [0, 1, 2])
    np.testing.assert_array_equal((1.5 - x).array, [0, -1, -2])
    np.testing.assert_array_equal((x * 2.5).array, [2, 4, 6])
    assert (x * 2.5).dtype == np.int32


def test_int_floor_division_by_constant():
    y = i32(1, 2, 3) // 2
    assert y.dtype == np.int32
    assert y.creator is None and not y.requires_grad
    np.testing.assert_array_equal(y.array, [0, 0, 0])


@pytest.mark.parametrize('expr, expected', [
    (lambda x, y: x + y, [5, 7, 9]),
    (lambda x, y: x - y, [-3, -3, -3]),
    (lambda x, y: x + 2, [3, 4, 5]),
    (lambda x, y: x * 3, [3, 6, 9]),
    (lambda x, y: -x, [-1, -2, -3]),
    (lambda x, y: 1 - x, [0, -1, -2]),
])
def test_int_variable_ops_that_work(expr, expected):
    y = expr(i32(1, 2, 3), i32(4, 5, 6))
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y.array, expected)


def test_int_backward_through_add():
    a, b = i32(1, 2, 3), i32(4, 5, 6)
    y = -(a * 3 - 2) + b
    backward(y, np.ones(3, np.int32))
    assert a.grad.dtype == np.int32 and b.grad.dtype == np.int32
    np.testing.assert_array_equal(a.grad, [-3, -3, -3])
    np.testing.assert_array_equal(b.grad, [1, 1, 1])


@pytest.mark.parametrize('expr', [
    lambda x: x * x, abs, lambda x: x ** 2, lambda x: 2 ** x, lambda x: 2 / x,
    lambda x: x / x, lambda x: x ** x, F.exp, F.sum, F.tanh, lambda x: F.matmul(x, x),
    lambda x: x * np.array([1.0, 2.0, 3.0]),
], ids=['x*x', 'abs', 'x**2', '2**x', '2/x', 'x/x', 'x**x', 'exp', 'sum', 'tanh', 'matmul',
        'x*f64array'])
def test_int_variable_float_only_ops_raise_invalid_type(expr):
    with pytest.raises(InvalidType):
        expr(i32(1, 2, 3))


def test_int_variable_plus_float_array_is_cast_to_int():
    y = i32(1, 2, 3) + np.array([1.7, 2.2, 3.9])
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y.array, [2, 4, 6])


# ---- pow gradients ---------------------------------------------------------------------------


def test_pow_var_var_gradient_wrt_exponent():
    a, b = np.array([1.5, 2.0, 3.0]), np.array([2.0, 0.5, -1.0])
    x, y = V(a), V(b)
    z = x ** y
    backward(z)
    np.testing.assert_allclose(y.grad, a ** b * np.log(a))
    np.testing.assert_allclose(x.grad, b * a ** (b - 1))


def test_pow_double_backprop():
    x = V(np.array([2.0, 3.0]))
    y = x ** 3
    gx, = chainer.grad([y], [x], grad_outputs=[V(np.ones(2))], enable_double_backprop=True)
    np.testing.assert_allclose(gx.array, 3 * x.array ** 2)
    ggx, = chainer.grad([gx], [x], grad_outputs=[V(np.ones(2))])
    np.testing.assert_allclose(ggx.array, 6 * x.array)


# ---- matmul --------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,), ()),
    ((3,), (3, 2), (2,)),
    ((2, 3), (3,), (2,)),
    ((2, 3), (3, 4), (2, 4)),
    ((2, 2, 3), (3, 2), (2, 2, 2)),
    ((2, 3), (2, 3, 2), (2, 2, 2)),
    ((1, 2, 3), (2, 3, 2), (2, 2, 2)),
    ((4, 1, 2, 3), (5, 3, 2), (4, 5, 2, 2)),
    ((2, 2, 3), (3,), (2, 2)),
    ((3,), (2, 3, 4), (2, 4)),
]


@pytest.mark.parametrize('sa, sb, sy', MATMUL_SHAPES, ids=[f'{a}@{b}' for a, b, _ in MATMUL_SHAPES])
def test_matmul_shapes_and_gradients_against_numpy(sa, sb, sy):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(sa)
    b = rng.standard_normal(sb)
    x, w = V(a), V(b)
    y = x @ w
    assert label(y) == 'MatMul'
    assert type(y.creator).__name__ == 'MatMul'
    assert y.shape == sy
    np.testing.assert_allclose(y.array, np.matmul(a, b))
    gy = rng.standard_normal(sy)
    backward(y, gy)
    assert x.grad.shape == sa
    assert w.grad.shape == sb
    # reference: d/da sum(gy * (a @ b)) by finite differences of a linear map (exact here)
    eps = 1.0
    for arr, grad, which in ((a, x.grad, 0), (b, w.grad, 1)):
        flat = np.zeros(arr.size)
        for k in range(arr.size):
            e = np.zeros(arr.size)
            e[k] = eps
            da = e.reshape(arr.shape)
            out = np.matmul(da, b) if which == 0 else np.matmul(a, da)
            flat[k] = np.sum(gy * out)
        np.testing.assert_allclose(grad, flat.reshape(arr.shape), atol=1e-10)


def test_matmul_function_and_reflected_ndarray():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = V(f32(1, 2, 3))
    y = a @ x  # ndarray @ Variable
    assert isinstance(y, V)
    assert label(y) == 'MatMul'
    np.testing.assert_allclose(y.array, a @ x.array)
    backward(y)
    np.testing.assert_allclose(x.grad, a.sum(axis=0))
    z = x @ np.ones((3, 2))  # f64 array cast to f32
    assert z.dtype == np.float32
    z = x @ np.ones((3, 2), np.int32)
    assert z.dtype == np.float32
    np.testing.assert_allclose(z.array, [6, 6])
    y2 = F.matmul(a, x)
    np.testing.assert_allclose(y2.array, y.array)


def test_matmul_transa_transb():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    x, w = V(a), V(b)
    y = F.matmul(x, w, transa=True, transb=True)
    np.testing.assert_allclose(y.array, a.T @ b.T)
    gy = rng.standard_normal((2, 4))
    backward(y, gy)
    np.testing.assert_allclose(x.grad, (gy @ b).T)
    np.testing.assert_allclose(w.grad, (a @ gy).T)


@pytest.mark.parametrize('sa, sb', [((2, 3), (2, 3)), ((3,), (4,)), ((2, 3, 4), (2, 5, 6)),
                                    ((2, 3), (4,))])
def test_matmul_inner_dimension_mismatch_is_invalid_type(sa, sb):
    with pytest.raises(InvalidType):
        V(np.ones(sa, np.float32)) @ V(np.ones(sb, np.float32))


def test_matmul_rejects_int_and_0dim_and_promotes_mixed_floats():
    with pytest.raises(InvalidType):
        V(np.ones((2, 2), np.int32)) @ V(np.ones((2, 2), np.int32))
    # Mixed float dtypes promote as in NumPy (and Chainer 7.8.1); each gradient keeps the
    # dtype of its input.
    a, b = V(np.ones((2, 2), np.float32)), V(np.ones((2, 2), np.float64))
    y = a @ b
    assert y.dtype == np.float64
    F.sum(y).backward()
    assert (a.grad.dtype, b.grad.dtype) == (np.float32, np.float64)
    with pytest.raises(InvalidType):
        F.matmul(V(np.array(1.0)), V(np.array(1.0)))
