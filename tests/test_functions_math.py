"""Math functions of issue 3: elementwise (log1p ... cosh, rsqrt, sign), clip, maximum/minimum,
batch_matmul, prod, cumsum, logsumexp, max and min.

Forward values against NumPy, Chainer's labels and dtype rules, input errors, and for
every differentiable function at several shapes and float16/32/64:

* ``check_backward`` and ``check_double_backward`` (numerical first and second orders);
* the fast path (``backward_arrays``) and the Variable path (``backward``, taken with
  ``enable_double_backprop=True``) give bitwise identical gradients.

Expected values marked "Chainer 7.8.1" were produced by running Chainer 7.8.1.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import FunctionNode, Variable
from autograd_lab.utils.type_check import InvalidType
from chainer_ref import requires_chainer, run as run_chainer
from function_harness import (FLOATS, RECORDING, assert_closed_form_orders,
                              assert_paths_identical, assert_records_agree,
                              check_first_order, check_second_order, count_backward_paths,
                              dtype_params, first_order_vars, run_here as run_program,
                              setup_case)


def V(a: Any) -> Variable:
    return Variable(np.asarray(a))


def label_of(y: Variable) -> str:
    return y.creator.label


# ---- input domains ---------------------------------------------------------------------------

def _grid(offset: float) -> Callable:
    # Multiples of 0.2 (+ offset): two grids with offsets 0 and 0.1 never come closer than
    # 0.1, so max/min/maximum have no kink within the finite-difference step.
    return lambda rng, shape: rng.integers(-4, 5, shape) * 0.2 + offset


def _distinct(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.15).reshape(shape)


def _with_zeros(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    a = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    flat = a.reshape(-1)
    flat[::3] = 0.0  # zeros in the product: the gradient must not divide by x
    return a


def _away_from_half(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    # [-1, -0.6] U [-0.4, 0.4] U [0.6, 1]: away from the clip bounds +-0.5.
    region, u = rng.integers(0, 3, shape), rng.uniform(0, 1, shape)
    return np.where(region == 0, -1 + 0.4 * u, np.where(region == 1, -0.4 + 0.8 * u, 0.6 + 0.4 * u))


DOMAINS = {
    'any': lambda rng, shape: rng.uniform(-1.0, 1.0, shape),
    'pos': lambda rng, shape: rng.uniform(0.5, 2.0, shape),
    'unit': lambda rng, shape: rng.uniform(-0.8, 0.8, shape),
    'grid0': _grid(0.0), 'grid1': _grid(0.1), 'distinct': _distinct,
    'zeros': _with_zeros, 'clip': _away_from_half,
}


# ---- gradient cases ---------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    fn: Callable[..., Any]
    inputs: list                     # (shape, domain) per input
    dtypes: tuple = FLOATS
    loose: float = 1.0               # tolerance multiplier
    tol: dict = field(default_factory=dict)  # overrides of the checkers' options

    def __repr__(self) -> str:
        return self.name


CASES: list = []


def case(name: str, fn: Callable, *inputs: Any, **options: Any) -> None:
    CASES.append(Case(name, fn, list(inputs), **options))


for fname, domain in [('log1p', 'unit'), ('expm1', 'any'), ('log2', 'pos'), ('log10', 'pos'),
                      ('tan', 'any'), ('arcsin', 'unit'), ('arccos', 'unit'),
                      ('arctan', 'any'), ('sinh', 'any'), ('cosh', 'any'), ('rsqrt', 'pos')]:
    for shape in [(), (3,), (2, 3)]:
        case(f'{fname}_{len(shape)}d', getattr(F, fname), (shape, domain))

case('clip', lambda x: F.clip(x, -0.5, 0.5), ((2, 3), 'clip'))
case('clip_0dim', lambda x: F.clip(x, -0.5, 0.5), ((), 'clip'))
case('clip_no_min', lambda x: F.clip(x, None, 0.5), ((3, 4), 'clip'))
case('clip_no_max', lambda x: F.clip(x, -0.5, None), ((3, 4), 'clip'))
for fname in ('maximum', 'minimum'):
    fn = getattr(F, fname)
    case(fname, fn, ((2, 3), 'grid0'), ((2, 3), 'grid1'))
    case(f'{fname}_broadcast', fn, ((2, 3), 'grid1'), ((3,), 'grid0'))
    case(f'{fname}_0dim_broadcast', fn, ((), 'grid0'), ((2, 3), 'grid1'))


def _bmm(**kw: Any) -> Callable:
    def fn(a: Variable, b: Variable) -> Variable:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            return F.batch_matmul(a, b, **kw)
    return fn


# float32 only (as Chainer): the numerical derivative runs in float32 too (bilinear: exact
# up to rounding with a large step).
F32 = dict(dtypes=(np.float32,), tol=dict(dtype=None, eps=0.1, atol=2e-3, rtol=2e-3))
case('batch_matmul', _bmm(), ((2, 2, 3), 'any'), ((2, 3, 4), 'any'), **F32)
case('batch_matmul_transa', _bmm(transa=True), ((2, 3, 2), 'any'), ((2, 3, 4), 'any'),
     **F32)
case('batch_matmul_transb', _bmm(transb=True), ((2, 2, 3), 'any'), ((2, 4, 3), 'any'),
     **F32)
case('batch_matmul_2d_a', _bmm(), ((2, 3), 'any'), ((2, 1, 4), 'any'), **F32)
case('batch_matmul_2d_b', _bmm(), ((2, 2, 3), 'any'), ((2, 3), 'any'), **F32)
case('batch_matmul_2d_transb', _bmm(transb=True), ((2, 3), 'any'), ((2, 3), 'any'),
     **F32)
case('batch_matmul_batch_broadcast', _bmm(), ((1, 2, 3), 'any'), ((2, 3, 4), 'any'),
     **F32)

case('prod', F.prod, ((2, 3), 'pos'))
case('prod_0dim', F.prod, ((), 'any'))
case('prod_axis', lambda x: F.prod(x, axis=1), ((3, 4), 'any'))
case('prod_negative_axis', lambda x: F.prod(x, axis=-1), ((2, 3, 2), 'any'))
case('prod_tuple_axis_keepdims', lambda x: F.prod(x, axis=(0, 2), keepdims=True),
     ((2, 3, 2), 'any'))
case('prod_single_element_axis', lambda x: F.prod(x, axis=1), ((3, 1), 'any'))
case('prod_with_zeros', lambda x: F.prod(x, axis=0), ((4, 3), 'zeros'))
case('prod_with_zeros_all', F.prod, ((2, 2), 'zeros'))
case('cumsum', F.cumsum, ((2, 3), 'any'))
case('cumsum_0dim', F.cumsum, ((), 'any'))
case('cumsum_axis0', lambda x: F.cumsum(x, 0), ((3, 2), 'any'))
case('cumsum_negative_axis', lambda x: F.cumsum(x, -1), ((2, 3, 4), 'any'))
case('logsumexp', F.logsumexp, ((2, 3), 'any'))
case('logsumexp_0dim', F.logsumexp, ((), 'any'))
case('logsumexp_axis', lambda x: F.logsumexp(x, axis=1), ((3, 4), 'any'))
case('logsumexp_tuple_axis', lambda x: F.logsumexp(x, axis=(0, 2)), ((2, 3, 2), 'any'))
for fname in ('max', 'min'):
    fn = getattr(F, fname)
    case(fname, fn, ((2, 3), 'distinct'))
    case(f'{fname}_0dim', fn, ((), 'any'))
    case(f'{fname}_axis', lambda x, fn=fn: fn(x, axis=1), ((3, 4), 'distinct'))
    case(f'{fname}_negative_axis', lambda x, fn=fn: fn(x, axis=-1), ((2, 3, 2), 'distinct'))
    case(f'{fname}_tuple_axis_keepdims', lambda x, fn=fn: fn(x, axis=(0, 2), keepdims=True),
         ((2, 3, 2), 'distinct'))


def draw_inputs(case_: Case, dtype: Any, rng: np.random.Generator) -> tuple:
    return tuple(np.asarray(DOMAINS[domain](rng, shape), dtype=dtype)
                 for shape, domain in case_.inputs)


def setup(case_: Case, dtype: Any, seed: int = 0) -> tuple:
    return setup_case(case_, dtype, draw_inputs, seed)


def options(table: dict, case_: Case, dtype: Any) -> dict:
    opts = dict(table[dtype])
    opts['atol'] *= case_.loose
    opts['rtol'] *= case_.loose
    opts.update(case_.tol)
    return opts


@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_check_backward(case_, dtype):
    check_first_order(case_, dtype, setup, options)


@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_check_double_backward(case_, dtype):
    check_second_order(case_, dtype, setup, options)


# ---- fast path == Variable path, bitwise ---------------------------------------------------

@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_fast_and_variable_paths_identical(case_, dtype, monkeypatch):
    path_counter = count_backward_paths(monkeypatch)
    xs, gys, _ = setup(case_, dtype)
    assert_paths_identical(case_.fn, xs, gys, path_counter)


def test_every_new_node_has_both_backward_paths():
    import autograd_lab.functions.math as M
    names = ['Log1p', 'Expm1', 'Log2', 'Log10', 'Tan', 'Arcsin', 'Arccos', 'Arctan', 'Sinh',
             'Cosh', 'Clip', 'ClipGrad', 'Maximum', 'Minimum', 'MaximumGrad', 'BatchMatMul',
             'Prod', 'Cumsum', 'LogSumExp', 'Max', 'Min', 'SelectorGrad']
    for name in names:
        cls = getattr(M, name)
        assert cls.backward is not FunctionNode.backward, name
        assert callable(getattr(cls, 'backward_arrays', None)), name


# ---- elementwise: forward, labels, dtypes, errors ---------------------------------------------

UNARY = [('log1p', np.log1p, 'log1p', 'unit'), ('expm1', np.expm1, 'expm1', 'any'),
         ('log2', np.log2, 'log2', 'pos'), ('log10', np.log10, 'log10', 'pos'),
         ('tan', np.tan, 'tan', 'any'), ('arcsin', np.arcsin, 'arcsin', 'unit'),
         ('arccos', np.arccos, 'arccos', 'unit'), ('arctan', np.arctan, 'arctan', 'any'),
         ('sinh', np.sinh, 'sinh', 'any'), ('cosh', np.cosh, 'cosh', 'any')]


@pytest.mark.parametrize('name, ref, label, domain', UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('shape', [(), (4,), (2, 3)])
def test_unary_forward(name, ref, label, domain, dtype, shape):
    x = np.asarray(DOMAINS[domain](np.random.default_rng(1), shape), dtype=dtype)
    y = getattr(F, name)(Variable(x))
    assert label_of(y) == label
    assert type(y.array) is np.ndarray and y.dtype == dtype and y.shape == shape
    np.testing.assert_array_equal(y.array, ref(x))


@pytest.mark.parametrize('name', [u[0] for u in UNARY] + ['rsqrt', 'clip_', 'prod', 'cumsum',
                                                          'logsumexp', 'max', 'min'])
def test_float_only_functions_reject_int(name):
    x = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    fn = (lambda v: F.clip(v, 1, 3)) if name == 'clip_' else getattr(F, name)
    with pytest.raises(InvalidType):
        fn(x)


def test_unary_accepts_ndarray_and_gives_non_grad_variable():
    y = F.arctan(np.array([0.0, 1.0]))
    assert isinstance(y, Variable) and not y.requires_grad
    np.testing.assert_allclose(y.array, [0.0, math.pi / 4])


def test_rsqrt_is_one_over_sqrt_like_chainer():
    x = Variable(np.array([4.0, 0.25, 9.0], np.float32))
    y = F.rsqrt(x)
    np.testing.assert_allclose(y.array, [0.5, 2.0, 1 / 3], rtol=1e-6)
    assert y.dtype == np.float32
    assert label_of(y) == '1.0 / _'  # Chainer 7.8.1: DivFromConstant over sqrt
    assert y.creator.inputs[0].creator.label == 'sqrt'
    with pytest.raises(InvalidType):
        F.rsqrt(np.array([4], np.int32))


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64, np.int32])
def test_sign_values_and_no_graph(dtype):
    x = Variable(np.array([-2, 0, 3], dtype))
    y = F.sign(x)
    np.testing.assert_array_equal(y.array, [-1, 0, 1])
    assert y.dtype == dtype and type(y.array) is np.ndarray
    assert y.creator is None and not y.requires_grad
    z = F.sign(np.array(-0.5, np.float32))  # 0-dim stays an ndarray
    assert type(z.array) is np.ndarray and z.shape == () and z.array == -1


def test_sign_passes_no_gradient():
    x = Variable(np.array([-2.0, 0.5, 3.0]))
    y = F.sum(x * F.sign(x))  # |x|, with sign(x) a constant
    y.backward()
    np.testing.assert_array_equal(x.grad, [-1.0, 1.0, 1.0])
    with pytest.raises(TypeError):
        F.sign([1.0, -1.0])


# ---- higher orders against closed forms -------------------------------------------------------

L2, L10 = math.log(2.0), math.log(10.0)


def _tan_orders(x):
    t = np.tan(x)
    return [t, 1 + t ** 2, 2 * t * (1 + t ** 2), (1 + t ** 2) * (2 + 6 * t ** 2)]


def _arcsin_orders(x):
    s = 1 - x ** 2
    return [np.arcsin(x), s ** -0.5, x * s ** -1.5, (1 + 2 * x ** 2) * s ** -2.5]


HIGHER = {
    'log1p': (F.log1p, lambda x: [np.log1p(x), 1 / (1 + x), -1 / (1 + x) ** 2,
                                  2 / (1 + x) ** 3]),
    'expm1': (F.expm1, lambda x: [np.expm1(x)] + [np.exp(x)] * 3),
    'log2': (F.log2, lambda x: [np.log2(x), 1 / (x * L2), -1 / (x ** 2 * L2),
                                2 / (x ** 3 * L2)]),
    'log10': (F.log10, lambda x: [np.log10(x), 1 / (x * L10), -1 / (x ** 2 * L10),
                                  2 / (x ** 3 * L10)]),
    'tan': (F.tan, _tan_orders),
    'arcsin': (F.arcsin, _arcsin_orders),
    'arccos': (F.arccos, lambda x: [np.arccos(x)] + [-d for d in _arcsin_orders(x)[1:]]),
    'arctan': (F.arctan, lambda x: [np.arctan(x), 1 / (1 + x ** 2), -2 * x / (1 + x ** 2) ** 2,
                                    (6 * x ** 2 - 2) / (1 + x ** 2) ** 3]),
    'sinh': (F.sinh, lambda x: [np.sinh(x), np.cosh(x), np.sinh(x), np.cosh(x)]),
    'cosh': (F.cosh, lambda x: [np.cosh(x), np.sinh(x), np.cosh(x), np.sinh(x)]),
    'rsqrt': (F.rsqrt, lambda x: [x ** -0.5, -0.5 * x ** -1.5, 0.75 * x ** -2.5,
                                  -1.875 * x ** -3.5]),
}
POINTS = np.array([0.15, 0.35, 0.55, 0.75, 0.9])


@pytest.mark.parametrize('name', sorted(HIGHER))
def test_higher_order_closed_forms(name):
    fn, closed = HIGHER[name]
    assert_closed_form_orders(name, fn, closed, POINTS, rtol=1e-11)


# ---- clip ------------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', FLOATS)
def test_clip_forward_and_gradient_includes_bounds(dtype):
    x = Variable(np.array([0.1, 0.5, 0.2, 0.9, -1.0], dtype))
    y = F.clip(x, 0.2, 0.5)
    assert label_of(y) == 'Clip' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.clip(x.array, dtype(0.2), dtype(0.5)))
    y.grad = np.full(5, 3.0, dtype)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0.0, 3.0, 3.0, 0.0, 0.0])  # Chainer 7.8.1


def test_clip_one_sided_and_0dim():
    x = np.array([-2.0, 0.0, 2.0], np.float32)
    np.testing.assert_array_equal(F.clip(x, None, 1.0).array, [-2.0, 0.0, 1.0])
    np.testing.assert_array_equal(F.clip(x, -1.0, None).array, [-1.0, 0.0, 2.0])
    y = F.clip(np.array(0.3, np.float16), 0.1, 0.2)
    assert y.shape == () and y.dtype == np.float16 and type(y.array) is np.ndarray
    assert y.array == np.float16(0.2)


@pytest.mark.parametrize('bounds', [(None, None), (0.5, 0.2), (0.2, 0.2)])
def test_clip_bad_bounds_are_value_errors(bounds):
    with pytest.raises(ValueError):
        F.clip(np.zeros(2, np.float32), *bounds)


def test_clip_double_backward_passes_through_mask():
    x = Variable(np.array([-1.0, 0.0, 1.0]))
    gx, = chainer.grad([F.clip(x, -0.5, 0.5)], [x], enable_double_backprop=True)
    assert gx.creator.label == 'ClipGrad'
    np.testing.assert_array_equal(gx.array, [0.0, 1.0, 0.0])


# ---- maximum / minimum ----------------------------------------------------------------------

@pytest.mark.parametrize('fname, ref', [('maximum', np.maximum), ('minimum', np.minimum)])
@pytest.mark.parametrize('dtype', FLOATS)
def test_maximum_minimum_forward(fname, ref, dtype):
    a = np.array([[1.0, 5.0, -2.0], [0.5, 0.5, 3.0]], dtype)
    b = np.array([2.0, 0.5, -3.0], dtype)
    y = getattr(F, fname)(Variable(a), Variable(b))
    assert label_of(y) == fname.capitalize() and y.dtype == dtype and y.shape == (2, 3)
    np.testing.assert_array_equal(y.array, ref(a, b))


def test_maximum_minimum_ties_go_to_the_first_input():
    # Chainer 7.8.1: maximum -> x1 [1, 10, 100], x2 [0, 0, 0];
    #                minimum -> x1 [1, 0, 100], x2 [0, 10, 0].
    for fname, g1, g2 in [('maximum', [1, 10, 100], [0, 0, 0]),
                          ('minimum', [1, 0, 100], [0, 10, 0])]:
        x1 = Variable(np.array([1.0, 3.0, 2.0], np.float32))
        x2 = Variable(np.array([1.0, 2.0, 2.0], np.float32))
        y = getattr(F, fname)(x1, x2)
        y.grad = np.array([1, 10, 100], np.float32)
        y.backward()
        np.testing.assert_array_equal(x1.grad, g1)
        np.testing.assert_array_equal(x2.grad, g2)


def test_maximum_broadcast_gradient_is_summed_back():
    a = Variable(np.array([[1.0, 5.0], [3.0, 0.0]]))
    b = Variable(np.array([2.0, 2.0]))
    F.sum(F.maximum(a, b)).backward()
    np.testing.assert_array_equal(a.grad, [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(b.grad, [1.0, 1.0])


@pytest.mark.parametrize('a, b', [
    (np.zeros(3, np.float32), np.zeros(3, np.float64)),      # dtype mismatch
    (np.zeros(3, np.int32), np.zeros(3, np.int32)),          # not float
    (np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32)),  # cannot broadcast
])
@pytest.mark.parametrize('fname', ['maximum', 'minimum'])
def test_maximum_minimum_invalid_types(fname, a, b):
    with pytest.raises(InvalidType):
        getattr(F, fname)(a, b)


# ---- batch_matmul ----------------------------------------------------------------------------

def bmm(*args: Any, **kw: Any) -> Variable:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return F.batch_matmul(*args, **kw)


def test_batch_matmul_is_deprecated():
    a, b = np.ones((2, 2, 3), np.float32), np.ones((2, 3, 4), np.float32)
    with pytest.warns(DeprecationWarning, match='batch_matmul is deprecated. Use matmul'):
        y = F.batch_matmul(a, b)
    assert label_of(y) == 'BatchMatMul'


@pytest.mark.parametrize('sa, sb, kw, expected', [
    ((2, 2, 3), (2, 3, 4), {}, lambda a, b: a @ b),
    ((2, 3, 2), (2, 3, 4), dict(transa=True), lambda a, b: a.swapaxes(1, 2) @ b),
    ((2, 2, 3), (2, 4, 3), dict(transb=True), lambda a, b: a @ b.swapaxes(1, 2)),
    ((2, 3), (2, 1, 4), {}, lambda a, b: a[:, :, None] @ b),            # 2-D: column vectors
    ((2, 2, 3), (2, 3), {}, lambda a, b: a @ b[:, :, None]),
    ((2, 3), (2, 3), dict(transb=True), lambda a, b: a[:, :, None] @ b[:, None, :]),
    ((2, 3), (2, 3, 4), dict(transa=True), lambda a, b: a[:, None, :] @ b),
    ((1, 2, 3), (2, 3, 4), {}, lambda a, b: a @ b),                     # batch broadcast
])
def test_batch_matmul_forward(sa, sb, kw, expected):
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, sa).astype(np.float32)
    b = rng.uniform(-1, 1, sb).astype(np.float32)
    y = bmm(a, b, **kw)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, expected(a, b), rtol=1e-6)


@pytest.mark.parametrize('a, b', [
    (np.ones((2, 2, 3), np.float64), np.ones((2, 3, 4), np.float64)),  # float32 only
    (np.ones((2, 2, 3), np.float16), np.ones((2, 3, 4), np.float16)),
    (np.ones((2, 2, 3), np.int32), np.ones((2, 3, 4), np.int32)),
    (np.ones((2, 2, 3), np.float32), np.ones((2, 4, 4), np.float32)),  # inner mismatch
    (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)),        # (3,1) @ (3,1)
    (np.ones((2,), np.float32), np.ones((2,), np.float32)),            # ndim < 2
    (np.ones((2, 2, 2, 3), np.float32), np.ones((2, 2, 3, 4), np.float32)),  # ndim > 3
    (np.ones((2, 2, 3), np.float32), np.ones((3, 3, 4), np.float32)),  # batch mismatch
])
def test_batch_matmul_invalid_types(a, b):
    with pytest.raises(InvalidType):
        bmm(a, b)


# ---- prod ------------------------------------------------------------------------------------

X23 = np.array([[0.5, -2.0, 1.5], [3.0, 0.25, -1.0]])


@pytest.mark.parametrize('axis, keepdims', [(None, False), (None, True), (0, False), (1, True),
                                            (-1, False), ((0, 1), False), ((1, 0), True)])
@pytest.mark.parametrize('dtype', FLOATS)
def test_prod_forward(axis, keepdims, dtype):
    x = X23.astype(dtype)
    y = F.prod(Variable(x), axis=axis, keepdims=keepdims)
    assert label_of(y) == 'Prod' and y.dtype == dtype and type(y.array) is np.ndarray
    np.testing.assert_array_equal(y.array, x.prod(axis=axis, keepdims=keepdims))


def test_prod_gradient_with_zeros_is_exact():
    # Chainer 7.8.1 gives [[6, 0, 0], [0, 0, 0]] and, for the sum of the gradient,
    # second derivatives [[5, 3, 2], [4, 4, 0]].
    x = Variable(np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0]], np.float32))
    y = F.prod(x, axis=1)
    y.grad = np.ones(2, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    gx, = chainer.grad([F.sum(F.prod(x, axis=1))], [x], enable_double_backprop=True)
    ggx, = chainer.grad([F.sum(gx)], [x])
    np.testing.assert_array_equal(ggx.array, [[5.0, 3.0, 2.0], [4.0, 4.0, 0.0]])


def test_prod_gradient_is_product_of_the_others():
    x = Variable(X23.copy())
    F.prod(x).backward()
    total = X23.prod()
    np.testing.assert_allclose(x.grad, total / X23, rtol=1e-14)


@pytest.mark.parametrize('fname', ['prod', 'logsumexp', 'max', 'min'])
def test_axis_argument_errors(fname):
    fn, x = getattr(F, fname), np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match='duplicate value in axis'):
        fn(x, axis=(0, 0))
    with pytest.raises(TypeError):
        fn(x, axis=[0])
    with pytest.raises(TypeError):
        fn(x, axis=0.5)
    for axis in (2, -3, (0, 2)):
        with pytest.raises(InvalidType):
            fn(x, axis=axis)


# ---- cumsum ----------------------------------------------------------------------------------

@pytest.mark.parametrize('shape, axis', [((2, 3), None), ((2, 3), 0), ((2, 3), 1),
                                         ((2, 3, 4), -1), ((4,), 0), ((), None)])
@pytest.mark.parametrize('dtype', FLOATS)
def test_cumsum_forward(shape, axis, dtype):
    x = np.random.default_rng(2).uniform(-1, 1, shape).astype(dtype)
    y = F.cumsum(Variable(x), axis)
    assert label_of(y) == 'Cumsum' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.cumsum(x, axis=axis))


def test_cumsum_gradient_is_reverse_cumsum():
    x = Variable(np.zeros((2, 4)))
    y = F.cumsum(x, axis=1)
    y.grad = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 1.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[10.0, 9.0, 7.0, 4.0], [1.0, 1.0, 1.0, 1.0]])
    z = Variable(np.zeros((2, 2)))
    w = F.cumsum(z)  # None: over the flattened input
    assert w.shape == (4,)
    w.grad = np.array([1.0, 2.0, 3.0, 4.0])
    w.backward()
    np.testing.assert_array_equal(z.grad, [[10.0, 9.0], [7.0, 4.0]])


def test_cumsum_axis_errors():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError):
        F.cumsum(x, (0,))
    with pytest.raises(InvalidType):
        F.cumsum(x, 2)
    with pytest.raises(InvalidType):
        F.cumsum(x, -3)


# ---- logsumexp -------------------------------------------------------------------------------

@pytest.mark.parametrize('axis', [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize('dtype', FLOATS)
def test_logsumexp_forward(axis, dtype):
    x = X23.astype(dtype)
    y = F.logsumexp(Variable(x), axis=axis)
    assert label_of(y) == 'LogSumExp' and y.dtype == dtype and type(y.array) is np.ndarray
    expected = np.log(np.exp(X23).sum(axis=axis))
    rtol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(y.array, expected, rtol=rtol)


def test_logsumexp_is_stable_and_its_gradient_is_softmax():
    x = Variable(np.array([[1000.0, 1000.0, 999.0], [-1000.0, -1001.0, -1000.0]]))
    y = F.logsumexp(x, axis=1)
    shifted = np.log(np.exp([0.0, 0.0, -1.0]).sum())
    np.testing.assert_allclose(y.array, [1000.0 + shifted, -1000.0 + shifted], rtol=1e-14)
    y.grad = np.ones(2)
    y.backward()
    e = np.exp(x.array - x.array.max(axis=1, keepdims=True))
    np.testing.assert_allclose(x.grad, e / e.sum(axis=1, keepdims=True), rtol=1e-12)


# ---- max / min -------------------------------------------------------------------------------

@pytest.mark.parametrize('fname', ['max', 'min'])
@pytest.mark.parametrize('axis, keepdims', [(None, False), (None, True), (0, False), (1, True),
                                            (-1, False), ((0, 1), False)])
@pytest.mark.parametrize('dtype', FLOATS)
def test_max_min_forward(fname, axis, keepdims, dtype):
    x = X23.astype(dtype)
    y = getattr(F, fname)(Variable(x), axis=axis, keepdims=keepdims)
    assert label_of(y) == fname.capitalize() and y.dtype == dtype
    assert type(y.array) is np.ndarray
    np.testing.assert_array_equal(y.array, getattr(x, fname)(axis=axis, keepdims=keepdims))


def test_max_ties_give_the_whole_gradient_to_every_maximum():
    # Chainer 7.8.1: [[0, 1, 1], [10, 10, 10]].
    x = Variable(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], np.float32))
    y = F.max(x, axis=1)
    y.grad = np.array([1.0, 10.0], np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0.0, 1.0, 1.0], [10.0, 10.0, 10.0]])
    z = Variable(np.array([4.0, -1.0, -1.0, 2.0]))
    F.min(z).backward()
    np.testing.assert_array_equal(z.grad, [0.0, 1.0, 1.0, 0.0])


def test_max_of_0dim_and_double_backward():
    x = Variable(np.array(2.5))
    gx, = chainer.grad([F.max(x)], [x], enable_double_backprop=True)
    assert gx.array == 1.0 and gx.creator is not None
    assert gx.creator.label == 'SelectorGrad'


# ---- on a GPU backend (the NumPy-backed fake of autograd_lab.testing.fake_gpu) ---------------

@pytest.mark.parametrize('case_', CASES, ids=[c.name for c in CASES])
def test_device_arrays_stay_on_the_device(case_, fake_gpu):
    """With device arrays every function runs its non-NumPy branches (``xp`` is not numpy);
    outputs and gradients stay device arrays and equal the CPU results bitwise."""
    from autograd_lab.testing import fake_gpu as fake
    dtype = case_.dtypes[-1]
    xs, gys, _ = setup(case_, dtype)
    cpu = first_order_vars(case_.fn, xs, gys, double=False)
    for double in (False, True):
        on_device = first_order_vars(case_.fn, tuple(fake.to_device(x, 1) for x in xs),
                                     tuple(fake.to_device(g, 1) for g in gys), double)
        for c, d in zip(cpu, on_device, strict=True):
            assert isinstance(d.grad, fake.FakeGpuArray) and d.grad.device_id == 1
            assert np.array_equal(d.grad.get(), c.grad, equal_nan=True)


# ---- differential test against the real Chainer 7.8.1 -------------------------------------------

PROGRAM = RECORDING + r'''

for dtype in (np.float32, np.float64):
    n = np.dtype(dtype).name
    x, pos, unit = u(2, 3, dtype=dtype), u(2, 3, dtype=dtype, lo=0.5, hi=2), u(4, dtype=dtype,
                                                                               lo=-0.8, hi=0.8)
    for f in ('log1p', 'arcsin', 'arccos'):
        record(n + '/' + f, getattr(F, f), unit)
    for f in ('expm1', 'tan', 'arctan', 'sinh', 'cosh'):
        record(n + '/' + f, getattr(F, f), x)
    for f in ('log2', 'log10', 'rsqrt'):
        record(n + '/' + f, getattr(F, f), pos)
    out[n + '/sign'] = F.sign(np.array([-2.0, 0.0, 3.0], dtype)).array
    grid = (rng.randint(-4, 5, (2, 3)) * 0.2).astype(dtype)
    record(n + '/clip', lambda v: F.clip(v, -0.5, 0.5), grid + dtype(0.1))
    record(n + '/clip_bounds', lambda v: F.clip(v, -0.4, 0.4), grid)  # values on the bounds
    record(n + '/maximum', F.maximum, grid, (rng.randint(-4, 5, 3) * 0.2).astype(dtype))
    record(n + '/minimum_ties', F.minimum, grid, grid[::-1].copy())
    record(n + '/prod', lambda v: F.prod(v, axis=1), u(3, 4, dtype=dtype))
    record(n + '/prod_keepdims', lambda v: F.prod(v, axis=(0, 2), keepdims=True),
           u(2, 3, 2, dtype=dtype))
    zeros = u(3, 3, dtype=dtype)
    zeros[0, 1] = zeros[1, 0] = zeros[1, 2] = 0
    record(n + '/prod_zeros', lambda v: F.prod(v, axis=1), zeros)
    record(n + '/prod_all', F.prod, u(2, 2, dtype=dtype))
    record(n + '/cumsum', lambda v: F.cumsum(v, -1), u(2, 3, 2, dtype=dtype))
    record(n + '/cumsum_flat', F.cumsum, x)
    record(n + '/logsumexp', lambda v: F.logsumexp(v, axis=(0, 2)), u(2, 3, 2, dtype=dtype))
    record(n + '/logsumexp_all', F.logsumexp, x)
    ties = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], dtype)
    record(n + '/max_ties', lambda v: F.max(v, axis=1), ties)
    record(n + '/min_keepdims', lambda v: F.min(v, axis=0, keepdims=True), ties)
    record(n + '/max_all', F.max, x)

a, b = u(2, 2, 3, dtype=np.float32), u(2, 4, 3, dtype=np.float32)
record('bmm_transb', lambda p, q: F.batch_matmul(p, q, transb=True), a, b)
record('bmm_2d', F.batch_matmul, u(2, 3, dtype=np.float32), u(2, 1, 4, dtype=np.float32))
'''


def run_here() -> dict:
    return run_program(PROGRAM, quiet=True)


@requires_chainer
def test_agrees_with_chainer() -> None:
    assert_records_agree(run_here(), run_chainer(PROGRAM))


def test_differential_program_runs_without_chainer() -> None:
    got = run_here()
    assert str(got['float64/rsqrt/label0']) == '1.0 / _'
    np.testing.assert_array_equal(got['float32/max_ties/g0'] != 0,
                                  [[False, True, True], [True, True, True]])
