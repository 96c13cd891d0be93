"""Spec section 21: dtype rules (float16/32/64 throughout; gradients keep the dtype)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab.utils.type_check import InvalidType

V = chainer.Variable
FLOATS = [np.float16, np.float32, np.float64]
TOL = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-12}

X = np.array([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]])

# name, function of one Variable, the same on float64 NumPy arrays
ONE_INPUT = [
    ('add-const', lambda x: x + 2.5, lambda a: a + 2.5),
    ('sub-const', lambda x: 1.5 - x, lambda a: 1.5 - a),
    ('mul-const', lambda x: x * np.float64(3), lambda a: a * 3),
    ('div-const', lambda x: x / 4, lambda a: a / 4),
    ('rdiv-const', lambda x: 2 / x, lambda a: 2 / a),
    ('pow-const', lambda x: x ** 2, lambda a: a ** 2),
    ('rpow-const', lambda x: 2 ** x, lambda a: 2 ** a),
    ('var-var', lambda x: x * x + x - x / (x + 1) + x ** x, lambda a: a * a + a - a / (a + 1)
     + a ** a),
    ('neg-abs', lambda x: -abs(x - 1.25), lambda a: -np.abs(a - 1.25)),
    ('exp', F.exp, np.exp),
    ('log', F.log, np.log),
    ('sin-cos', lambda x: F.sin(x) + F.cos(x), lambda a: np.sin(a) + np.cos(a)),
    ('tanh', F.tanh, np.tanh),
    ('sqrt', F.sqrt, np.sqrt),
    ('square', F.square, np.square),
    ('sum', F.sum, np.sum),
    ('sum-axis', lambda x: F.sum(x, axis=0), lambda a: a.sum(axis=0)),
    ('mean', F.mean, np.mean),
    ('matmul', lambda x: x @ x.T, lambda a: a @ a.T),
    ('matmul-1d', lambda x: F.matmul(x[0], x[1]), lambda a: a[0] @ a[1]),
    ('get_item', lambda x: x[[0, 0, 1], 1:], lambda a: a[[0, 0, 1], 1:]),
    ('get_item-mask', lambda x: x[X > 1], lambda a: a[X > 1]),
    ('reshape', lambda x: F.reshape(x, (3, 2)), lambda a: a.reshape(3, 2)),
    ('transpose', F.transpose, np.transpose),
    ('broadcast_to', lambda x: F.broadcast_to(x, (2, 2, 3)),
     lambda a: np.broadcast_to(a, (2, 2, 3))),
    ('broadcast', lambda x: F.broadcast(x, x[:1])[1], lambda a: np.broadcast_to(a[:1], (2, 3))),
    ('sum_to', lambda x: F.sum_to(x, (1, 3)), lambda a: a.sum(axis=0, keepdims=True)),
    ('squeeze-expand_dims', lambda x: F.squeeze(F.expand_dims(x, 0)), lambda a: a),
    ('identity', F.identity, lambda a: a),
    ('floordiv', lambda x: x // 0.75 + x, lambda a: np.floor(a / 0.75) + a),
]


@pytest.mark.parametrize('dtype', FLOATS, ids=['f16', 'f32', 'f64'])
@pytest.mark.parametrize('f, ref', [c[1:] for c in ONE_INPUT], ids=[c[0] for c in ONE_INPUT])
def test_forward_and_grad_keep_the_dtype(f, ref, dtype):
    x = V(X.astype(dtype))
    y = f(x)
    assert y.dtype == dtype
    expected = ref(X.astype(dtype).astype(np.float64))
    np.testing.assert_allclose(y.array.astype(np.float64), expected, rtol=TOL[dtype])
    y.grad = np.ones(y.shape, dtype)
    y.backward()
    assert x.grad is not None
    assert x.grad.dtype == dtype
    assert x.grad.shape == X.shape


@pytest.mark.parametrize('dtype', FLOATS, ids=['f16', 'f32', 'f64'])
def test_scalar_seed_and_accumulation_keep_the_dtype(dtype):
    x = V(X.astype(dtype))
    for _ in range(2):
        y = F.sum(x * x)
        y.backward()  # 0-dim root: seeded with ones of its dtype
    assert x.grad.dtype == dtype
    np.testing.assert_allclose(x.grad.astype(np.float64), 4 * X, rtol=TOL[dtype])


@pytest.mark.parametrize('dtype', FLOATS, ids=['f16', 'f32', 'f64'])
def test_double_backprop_keeps_the_dtype(dtype):
    x = V(np.array([0.5, 1.0], dtype))
    gx, = chainer.grad([F.sum(F.tanh(x) * x ** 3)], [x], enable_double_backprop=True)
    assert gx.dtype == dtype
    ggx, = chainer.grad([F.sum(gx)], [x])
    assert ggx.dtype == dtype
    x.cleargrad()
    y = F.sum(F.exp(x))
    y.backward(enable_double_backprop=True)
    assert x.grad_var.dtype == dtype


@pytest.mark.parametrize('dtype', FLOATS, ids=['f16', 'f32', 'f64'])
@pytest.mark.parametrize('scalar', [2, 2.5, np.float64(2.5), np.float32(2.5), np.int64(2),
                                    np.float16(2.5), True],
                         ids=['int', 'float', 'np.f64', 'np.f32', 'np.i64', 'np.f16', 'bool'])
def test_scalars_never_promote(dtype, scalar):
    x = V(np.array([1.0, 2.0], dtype))
    for y in (x + scalar, scalar + x, x - scalar, scalar - x, x * scalar, scalar * x,
              x / scalar, scalar / x, x ** scalar, scalar ** x):
        assert y.dtype == dtype
        y.grad = np.ones(2, dtype)
        x.cleargrad()
        y.backward()
        assert x.grad.dtype == dtype


def test_float16_stays_float16_even_when_inexact():
    x = V(np.array([1.0, 3.0], np.float16))
    y = x * 0.1
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.array, np.array([1.0, 3.0], np.float16) * np.float16(0.1))


@pytest.mark.parametrize('d1, d2', [(a, b) for a in FLOATS for b in FLOATS if a is not b])
@pytest.mark.parametrize('op', [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
    lambda a, b: a ** b, lambda a, b: F.add(a, b, a),
], ids=['add', 'sub', 'mul', 'div', 'pow', 'add3'])
def test_var_var_ops_need_identical_dtypes(op, d1, d2):
    a = V(np.ones(3, d1))
    b = V(np.ones(3, d2))
    with pytest.raises(InvalidType):
        op(a, b)


@pytest.mark.parametrize('d1, d2', [(a, b) for a in FLOATS for b in FLOATS if a is not b])
def test_matmul_promotes_mixed_float_dtypes_as_chainer(d1, d2):
    a = V(np.ones((2, 3), d1))
    b = V(np.ones((3, 2), d2))
    y = a @ b
    assert y.dtype == np.result_type(d1, d2)
    F.sum(y).backward()
    assert (a.grad.dtype, b.grad.dtype) == (np.dtype(d1), np.dtype(d2))
    np.testing.assert_array_equal(a.grad, np.full((2, 3), 2, d1))


@pytest.mark.parametrize('dtype', FLOATS, ids=['f16', 'f32', 'f64'])
def test_ndarray_operand_takes_the_variable_dtype(dtype):
    x = V(np.array([1.0, 2.0], dtype))
    for other in (np.array([1.0, 2.0]), np.array([1, 2], np.int32),
                  np.array([1.0, 2.0], np.float16)):
        assert (x + other).dtype == dtype
        assert (other * x).dtype == dtype
        assert (other - x).dtype == dtype


@pytest.mark.parametrize('dtype', [np.int8, np.int32, np.int64, np.uint8, np.bool_])
def test_int_and_bool_arrays_can_be_wrapped(dtype):
    a = np.array([1, 0, 1], dtype)
    x = V(a)
    assert x.array is a
    assert x.dtype == dtype
    assert x.requires_grad
    assert x[1:].dtype == dtype
    assert F.reshape(x, (3, 1)).dtype == dtype


@pytest.mark.parametrize('dtype', [np.int32, np.int64, np.bool_])
@pytest.mark.parametrize('f', [
    F.exp, F.log, F.sin, F.cos, F.tanh, F.sqrt, F.square, F.sum, F.mean, abs,
    lambda x: x * x, lambda x: x ** 2, lambda x: x / x, lambda x: F.matmul(x, x),
], ids=['exp', 'log', 'sin', 'cos', 'tanh', 'sqrt', 'square', 'sum', 'mean', 'abs', 'x*x',
        'x**2', 'x/x', 'matmul'])
def test_float_only_functions_reject_int_and_bool(f, dtype):
    with pytest.raises(InvalidType):
        f(V(np.array([1, 1, 0], dtype)))


def test_cast_changes_dtype_and_grad_comes_back_in_the_input_dtype():
    x = V(np.array([1.0, 2.0], np.float16))
    y = F.cast(x, np.float64) * 3
    assert y.dtype == np.float64
    y.grad = np.ones(2)
    y.backward()
    assert x.grad.dtype == np.float16
    np.testing.assert_array_equal(x.grad, [3, 3])


def test_grad_of_another_dtype_is_rejected():
    x = V(np.ones(2, np.float32))
    with pytest.raises(TypeError):
        x.grad = np.ones(2, np.float64)
    with pytest.raises(TypeError):
        x.grad = np.ones(2, np.float16)


def test_default_parameter_dtype_is_config_dtype():
    assert chainer.config.dtype == np.float32
    p = chainer.Parameter(1.0, (2,))
    assert p.dtype == np.float32
    assert p.grad.dtype == np.float32
    with chainer.using_config('dtype', np.float64):
        q = chainer.Parameter(1.0, (2,))
        r = chainer.Parameter(chainer.initializers.One(), (2,))
    assert q.dtype == np.float64
    assert r.dtype == np.float64
    with chainer.using_config('dtype', np.float16):
        h = chainer.Parameter(None, (2,))
    assert h.dtype == np.float16
    assert np.isnan(h.array).all()


@pytest.mark.parametrize('dtype', FLOATS, ids=['f16', 'f32', 'f64'])
def test_parameter_from_array_keeps_its_dtype(dtype):
    p = chainer.Parameter(np.ones(2, dtype))
    assert p.dtype == dtype
    loss = F.sum(p * p)
    p.cleargrad()
    loss.backward()
    assert p.grad.dtype == dtype
