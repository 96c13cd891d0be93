"""Gradients of every differentiable function and operator, checked numerically.

For each case (a function of the library or an operator form, at several
shapes including 0-dim, in float16/float32/float64):

* ``check_backward``: first-order gradients from backward vs finite differences;
* ``check_double_backward``: gradients of the gradients vs finite differences;
* the fast path (``backward_arrays``, used when no gradient graph is wanted) and
  the Variable path (``backward``, used with ``enable_double_backprop=True``)
  give bitwise identical first-order gradients.

Also: ``floor`` has no gradient; orders 1-3 of a set of elementary functions
match their closed forms (spec section 20, last bullet); and the gradient
checkers themselves catch wrong gradients (tests of ``autograd_lab.gradient_check``).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import FunctionNode, Variable, gradient_check
from autograd_lab.gradient_check import NondifferentiableError
from function_harness import (FLOATS, assert_closed_form_orders, check_first_order,
                              check_second_order, count_backward_paths, dtype_params,
                              first_order_vars, outputs_of, setup_case)


@dataclass
class Case:
    """One function under test: ``fn`` takes one Variable per entry of ``inputs``.

    ``inputs`` are ``(shape, domain)`` with domain ``'any'`` (uniform in [-1, 1]),
    ``'pos'`` ([0.5, 2]) or ``'away'`` (|x| in [0.3, 1], random sign: away from a kink).
    """

    name: str
    fn: Callable[..., Any]
    inputs: list
    dtypes: tuple = FLOATS
    eps: dict = field(default_factory=dict)   # dtype -> eps override (linear functions)
    tol: dict = field(default_factory=dict)   # overrides of the tolerance options

    def __repr__(self) -> str:
        return self.name


def make_inputs(case: Case, dtype: Any, rng: np.random.Generator) -> tuple:
    arrays = []
    for shape, domain in case.inputs:
        if domain == 'pos':
            a = rng.uniform(0.5, 2.0, shape)
        elif domain == 'away':
            a = rng.uniform(0.3, 1.0, shape) * rng.choice([-1.0, 1.0], shape)
        else:
            a = rng.uniform(-1.0, 1.0, shape)
        arrays.append(np.asarray(a, dtype=dtype))
    return tuple(arrays)


# ---- the cases ------------------------------------------------------------------------

MASK_2x3 = np.array([[True, False, True], [False, False, True]])
CASES: list = []


def case(name: str, fn: Callable, *inputs: Any, **options: Any) -> None:
    CASES.append(Case(name, fn, list(inputs), **options))


A, P, W = 'any', 'pos', 'away'

# arithmetic (functional forms)
case('add', F.add, ((2, 3), A), ((2, 3), A))
case('add_0dim', F.add, ((), A), ((), A))
case('add_broadcast', F.add, ((2, 3), A), ((3,), A))
case('add_multi3', F.add, ((2, 3), A), ((2, 3), A), ((2, 3), A))
case('add_multi3_broadcast', F.add, ((2, 3), A), ((1, 3), A), ((), A))
case('add_multi4', F.add, ((3,), A), ((3,), A), ((3,), A), ((3,), A))
case('sub', F.sub, ((2, 3), A), ((2, 3), A))
case('sub_broadcast', F.sub, ((2, 1), A), ((1, 3), A))
case('mul', F.mul, ((2, 3), A), ((2, 3), A))
case('mul_0dim', F.mul, ((), A), ((), A))
case('mul_broadcast', F.mul, ((4, 1, 3), A), ((2, 1), A))
case('div', F.div, ((2, 3), A), ((2, 3), P))
case('div_broadcast', F.div, ((3,), A), ((2, 3), P))
case('pow', F.pow, ((2, 3), P), ((2, 3), A))
case('pow_0dim', F.pow, ((), P), ((), A))
case('pow_broadcast', F.pow, ((2, 3), P), ((3,), A))
case('neg', F.neg, ((2, 3), A))
case('neg_0dim', F.neg, ((), A))
case('absolute', F.absolute, ((2, 3), W))
case('absolute_0dim', F.absolute, ((), W))

# matmul
case('matmul_2d', F.matmul, ((2, 3), A), ((3, 4), A))
case('matmul_transa', lambda a, b: F.matmul(a, b, transa=True), ((3, 2), A), ((3, 4), A))
case('matmul_transb', lambda a, b: F.matmul(a, b, transb=True), ((2, 3), A), ((4, 3), A))
case('matmul_transab', lambda a, b: F.matmul(a, b, transa=True, transb=True),
     ((3, 2), A), ((4, 3), A))
case('matmul_1d_1d', F.matmul, ((3,), A), ((3,), A))
case('matmul_1d_2d', F.matmul, ((3,), A), ((3, 2), A))
case('matmul_2d_1d', F.matmul, ((2, 3), A), ((3,), A))
case('matmul_batched', F.matmul, ((2, 2, 3), A), ((2, 3, 2), A))
case('matmul_batch_broadcast_a', F.matmul, ((2, 2, 3), A), ((3, 2), A))
case('matmul_batch_broadcast_b', F.matmul, ((2, 3), A), ((2, 3, 2), A))
case('matmul_batch_broadcast_1', F.matmul, ((1, 2, 3), A), ((2, 3, 2), A))
case('matmul_batched_transa', lambda a, b: F.matmul(a, b, transa=True),
     ((2, 3, 2), A), ((2, 3, 4), A))
case('matmul_batched_1d', F.matmul, ((2, 2, 3), A), ((3,), A))

# get_item
for label, index, shape in [
        ('int', 1, (4, 5)), ('negative_int', -1, (4,)), ('slice', slice(1, 3), (4, 5)),
        ('step', (slice(None, None, 2), 1), (4, 5)), ('ellipsis', (Ellipsis, 1), (2, 3, 4)),
        ('newaxis', (None, slice(1, None)), (4, 5)), ('0dim_newaxis', None, ()),
        ('0dim_empty_tuple', (), ()), ('int_array', np.array([3, 0, 2]), (4, 5)),
        ('repeated_list', [0, 0, 2, 0, 3, 3], (4,)),
        ('list_of_lists', [[0, 1], [1, 1]], (3, 2)),
        ('tuple_of_arrays', (np.array([0, 2, 0]), np.array([1, 1, 1])), (3, 4)),
        ('mixed_list', [0, slice(None), 1], (2, 3, 4)),
        ('full_mask', MASK_2x3, (2, 3)), ('partial_mask', np.array([True, False, True]), (3, 2)),
        ('bool_true', True, (2, 3)), ('empty_selection', slice(2, 2), (4,)),
        ('empty_list', [], (3,)), ('array_and_slice', (np.array([1, 1]), slice(0, 2)), (3, 4))]:
    case(f'get_item_{label}', lambda x, index=index: F.get_item(x, index), (shape, A))
case('getitem_operator', lambda x: x[1:, [0, 0, 1]], ((3, 2), A))

# shapes
case('reshape', lambda x: F.reshape(x, (3, 2)), ((2, 3), A))
case('reshape_minus1', lambda x: F.reshape(x, (2, -1)), ((6,), A))
case('reshape_0dim_up', lambda x: F.reshape(x, (1, 1)), ((), A))
case('reshape_to_0dim', lambda x: F.reshape(x, ()), ((1,), A))
case('reshape_method', lambda x: x.reshape(4, 3), ((2, 6), A))
case('transpose', F.transpose, ((2, 3), A))
case('transpose_axes', lambda x: F.transpose(x, (1, 2, 0)), ((2, 3, 4), A))
case('transpose_0dim', F.transpose, ((), A))
case('transpose_T', lambda x: x.T, ((2, 3, 4), A))
case('transpose_method', lambda x: x.transpose(2, 0, 1), ((2, 3, 4), A))
case('swapaxes', lambda x: F.swapaxes(x, 0, 2), ((2, 3, 4), A))
case('broadcast_to', lambda x: F.broadcast_to(x, (2, 3)), ((3,), A))
case('broadcast_to_0dim', lambda x: F.broadcast_to(x, (2, 2)), ((), A))
case('broadcast_to_middle', lambda x: F.broadcast_to(x, (4, 2, 3)), ((2, 1), A))
case('broadcast_two', F.broadcast, ((2, 1), A), ((3,), A))
case('broadcast_three', F.broadcast, ((2, 1), A), ((), A), ((3,), A))
case('broadcast_one', F.broadcast, ((2, 3), A))
case('sum_to', lambda x: F.sum_to(x, (1, 3)), ((2, 3), A))
case('sum_to_lead', lambda x: F.sum_to(x, (3,)), ((2, 3), A))
case('sum_to_0dim', lambda x: F.sum_to(x, ()), ((2, 3), A))
case('sum_to_inner', lambda x: F.sum_to(x, (2, 1)), ((4, 2, 3), A))
case('squeeze', F.squeeze, ((1, 3, 1), A))
case('squeeze_axis', lambda x: F.squeeze(x, 0), ((1, 3, 1), A))
case('squeeze_to_0dim', F.squeeze, ((1,), A))
case('expand_dims', lambda x: F.expand_dims(x, 1), ((2, 3), A))
case('expand_dims_0dim', lambda x: F.expand_dims(x, 0), ((), A))
case('flatten', F.flatten, ((2, 3), A))
case('flatten_0dim', F.flatten, ((), A))
case('identity', F.identity, ((2, 3), A))
case('identity_two', F.identity, ((2,), A), ((), A))
case('copy', lambda x: F.copy(x, '@numpy'), ((2, 3), A))
case('copy_minus1', lambda x: F.copy(x, -1), ((), A))
for src in FLOATS:
    for dst in FLOATS:
        if src is not dst:
            # Casting is linear: a large eps keeps low-precision rounding out of the difference.
            # Tolerances follow the less precise of the two dtypes.
            tol = (dict(atol=2e-2, rtol=2e-2, dtype=np.float64) if np.float16 in (src, dst)
                   else dict(atol=1e-5, rtol=1e-5, dtype=np.float64))
            case(f'cast_{np.dtype(src).name}_to_{np.dtype(dst).name}',
                 lambda x, dst=dst: F.cast(x, dst), ((2, 3), A), dtypes=(src,),
                 eps={src: 0.25}, tol=tol)

# reductions
case('sum', F.sum, ((2, 3), A))
case('sum_0dim', F.sum, ((), A))
case('sum_axis', lambda x: F.sum(x, axis=1), ((2, 3, 4), A))
case('sum_negative_axis', lambda x: F.sum(x, axis=-1), ((2, 3), A))
case('sum_tuple_axis', lambda x: F.sum(x, axis=(0, 2)), ((2, 3, 4), A))
case('sum_keepdims', lambda x: F.sum(x, axis=(0, -1), keepdims=True), ((2, 3, 4), A))
case('sum_all_keepdims', lambda x: F.sum(x, keepdims=True), ((2, 3), A))
case('average', F.average, ((2, 3), A))
case('average_axis', lambda x: F.average(x, axis=1), ((2, 3, 4), A))
case('average_tuple_axis_keepdims', lambda x: F.average(x, axis=(0, 2), keepdims=True),
     ((2, 3, 4), A))
case('average_weights_axis', lambda x, w: F.average(x, axis=1, weights=w), ((2, 3), A),
     ((3,), P))
case('average_weights_axis0_keepdims',
     lambda x, w: F.average(x, axis=0, weights=w, keepdims=True), ((2, 3), A), ((2,), P))
case('average_weights_full', lambda x, w: F.average(x, weights=w), ((2, 3), A), ((2, 3), P))
case('mean', F.mean, ((3, 2), A))
case('mean_0dim', F.mean, ((), A))
case('mean_method_weights', lambda x, w: x.mean(axis=-1, weights=w), ((2, 3), A), ((3,), P))

# elementwise math
for fname, domain in [('exp', A), ('log', P), ('sin', A), ('cos', A), ('tanh', A),
                      ('sqrt', P), ('square', A)]:
    for shape in [(), (3,), (2, 3)]:
        case(f'{fname}_{len(shape)}d', getattr(F, fname), (shape, domain))

# operators (constants on both sides, arrays on both sides, Var-Var broadcasting)
CONST = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
POS = np.linspace(0.5, 2.0, 6).reshape(2, 3)
for label, fn, domain in [
        ('x_plus_c', lambda x: x + 2.5, A), ('c_plus_x', lambda x: 2.5 + x, A),
        ('x_minus_c', lambda x: x - 2, A), ('c_minus_x', lambda x: 2 - x, A),
        ('x_times_c', lambda x: x * 3, A), ('c_times_x', lambda x: -1.5 * x, A),
        ('np_scalar_times_x', lambda x: np.float32(2) * x, A),
        ('x_div_c', lambda x: x / 4, A), ('c_div_x', lambda x: 4 / x, P),
        ('x_pow_3', lambda x: x ** 3, A), ('x_pow_half', lambda x: x ** 0.5, P),
        ('x_pow_minus1', lambda x: x ** -1, P), ('x_pow_2_5', lambda x: x ** 2.5, P),
        ('two_pow_x', lambda x: 2 ** x, A), ('c_pow_x', lambda x: 1.5 ** x, A),
        ('neg_op', lambda x: -x, A), ('abs_op', abs, W), ('pos_op', lambda x: +x * 1, A),
        ('x_plus_array', lambda x: x + CONST, A), ('array_plus_x', lambda x: CONST + x, A),
        ('array_minus_x', lambda x: CONST - x, A), ('x_minus_array', lambda x: x - CONST, A),
        ('array_times_x', lambda x: CONST * x, A), ('x_div_array', lambda x: x / POS, A),
        ('array_div_x', lambda x: CONST / x, P), ('x_pow_array', lambda x: x ** CONST, P),
        ('array_pow_x', lambda x: POS ** x, A)]:
    case(f'op_{label}', fn, ((2, 3), domain))
for label, fn, domain in [('x_plus_c', lambda x: x + 1, A), ('c_div_x', lambda x: 2 / x, P),
                          ('two_pow_x', lambda x: 2 ** x, A), ('x_pow_3', lambda x: x ** 3, A)]:
    case(f'op_{label}_0dim', fn, ((), domain))
for label, fn, dom0, dom1 in [('add', lambda a, b: a + b, A, A),
                              ('sub', lambda a, b: a - b, A, A),
                              ('mul', lambda a, b: a * b, A, A),
                              ('div', lambda a, b: a / b, A, P),
                              ('pow', lambda a, b: a ** b, P, A)]:
    case(f'op_{label}_var_var', fn, ((2, 3), dom0), ((2, 3), dom1))
    case(f'op_{label}_var_var_broadcast', fn, ((2, 1), dom0), ((3,), dom1))
    case(f'op_{label}_var_var_0dim', fn, ((), dom0), ((2, 3), dom1))
case('op_matmul', lambda a, b: a @ b, ((2, 3), A), ((3, 2), A))
case('op_rmatmul_array', lambda b: CONST @ b, ((3, 2), A))
case('op_matmul_array', lambda a: a @ CONST.T, ((4, 3), A))
case('op_x_pow_x', lambda x: x ** x, ((2, 3), P))
case('op_x_times_x', lambda x: x * x, ((2, 3), A))

CASE_IDS = [c.name for c in CASES]
assert len(set(CASE_IDS)) == len(CASE_IDS)


def options(table: dict, case_: Case, dtype: Any) -> dict:
    opts = dict(table[dtype])
    opts['eps'] = case_.eps.get(dtype, opts['eps'])
    opts.update(case_.tol)
    return opts


def setup(case_: Case, dtype: Any, seed: int = 0) -> tuple:
    return setup_case(case_, dtype, make_inputs, seed)


# ---- coverage: every function of the library has cases ----------------------------------

# The functions this file is responsible for (other function families have their own files).
FUNCTIONS = {
    'add', 'sub', 'mul', 'div', 'pow', 'neg', 'absolute', 'floor', 'matmul', 'get_item',
    'reshape', 'transpose', 'broadcast_to', 'broadcast', 'sum_to', 'sum', 'average', 'mean',
    'squeeze', 'expand_dims', 'flatten', 'identity', 'cast', 'copy', 'exp', 'log', 'sin',
    'cos', 'tanh', 'sqrt', 'square', 'swapaxes',
}


def test_every_function_has_a_case():
    """Each function of the list exists in F and is exercised by some case (floor: below)."""
    covered = {'floor'}
    for c in CASES:
        names = getattr(getattr(c.fn, '__code__', None), 'co_names', ())
        covered |= {n for n in FUNCTIONS if c.fn is getattr(F, n) or n in names}
    assert all(inspect.isfunction(getattr(F, n, None)) for n in FUNCTIONS)
    assert FUNCTIONS - covered == set()


# ---- first and second order, numerically --------------------------------------------------

@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_check_backward(case_, dtype):
    check_first_order(case_, dtype, setup, options)


@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_check_double_backward(case_, dtype):
    check_second_order(case_, dtype, setup, options)


# ---- fast path == Variable path, bitwise ------------------------------------------------

def _first_order_grads(case_: Case, xs: tuple, gys: tuple, double: bool) -> list:
    x_vars = first_order_vars(case_.fn, xs, gys, double, quiet=True)
    return [x.grad for x in x_vars], [x.grad_var for x in x_vars]


def _graph_node_classes(y: Variable) -> set:
    """Classes of the FunctionNodes reachable backward from ``y``."""
    found, stack, seen = set(), [y.creator_node], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        found.add(type(node))
        stack.extend(x.creator_node for x in node.inputs or ())
    return found


def test_every_node_used_has_both_backward_paths():
    """The nodes of every case, and of its gradient graphs, define backward_arrays."""
    classes = set()
    for c in CASES:
        xs, gys, _ = setup(c, c.dtypes[-1])
        x_vars = [Variable(x) for x in xs]
        ys = outputs_of(c.fn(*x_vars))
        for y in ys:
            classes |= _graph_node_classes(y)
        grads = chainer.grad(list(ys), x_vars, [Variable(g) for g in gys],
                             enable_double_backprop=True)
        for g in grads:
            if g is not None:
                classes |= _graph_node_classes(g)
    classes = {cls for cls in classes if cls.__module__.startswith('autograd_lab.functions')}
    assert len(classes) > 25
    for cls in classes:
        assert cls.backward is not FunctionNode.backward, cls
        assert callable(getattr(cls, 'backward_arrays', None)), cls


@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_fast_and_variable_paths_identical(case_, dtype, monkeypatch):
    path_counter = count_backward_paths(monkeypatch)
    xs, gys, _ = setup(case_, dtype)
    fast, fast_vars = _first_order_grads(case_, xs, gys, double=False)
    n_fast = dict(path_counter)
    slow, _ = _first_order_grads(case_, xs, gys, double=True)
    n_slow = {k: path_counter[k] - n_fast[k] for k in path_counter}
    # The two runs really took different paths.
    assert n_fast['backward'] == 0
    assert n_slow['backward_arrays'] == 0
    assert n_fast['backward_arrays'] > 0 or _is_leaf_identity(case_, xs)
    for i, (a, b) in enumerate(zip(fast, slow, strict=True)):
        assert (a is None) == (b is None), i
        if a is not None:
            assert type(a) is np.ndarray and type(b) is np.ndarray
            assert a.dtype == b.dtype == xs[i].dtype and a.shape == xs[i].shape
            assert np.array_equal(a, b, equal_nan=True), (i, a, b)
    # Without double backprop the grads have no graph.
    assert all(v is None or v.creator is None for v in fast_vars)


def _is_leaf_identity(case_: Case, xs: tuple) -> bool:
    """Functions that return their input itself when nothing changes (no node at all)."""
    x_vars = [Variable(x) for x in xs]
    return any(y is x for y in outputs_of(case_.fn(*x_vars)) for x in x_vars)


# ---- non-differentiable floor -----------------------------------------------------------

@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('double', [False, True])
def test_floor_has_no_gradient(dtype, double):
    x = Variable(np.array([-1.5, 0.25, 2.75], dtype))
    y = F.floor(x)
    np.testing.assert_array_equal(y.array, [-2.0, 0.0, 2.0])
    y.grad = np.ones(3, dtype)
    y.backward(enable_double_backprop=double)
    assert x.grad is None
    assert chainer.grad([F.floor(x)], [x], enable_double_backprop=double) == [None]
    # Downstream of floor nothing flows either, while a parallel branch still does.
    z = F.sum(F.floor(x) * 3.0 + x)
    z.backward(enable_double_backprop=double)
    np.testing.assert_array_equal(x.grad, np.ones(3, dtype))


def test_floor_division_operator_is_detached():
    x = Variable(np.array([7.0, -7.0]))
    y = x // 3
    np.testing.assert_array_equal(y.array, [2.0, -3.0])
    assert y.creator is None and not y.requires_grad


# ---- higher orders against closed forms (spec section 20, last bullet) -----------------------

L2 = math.log(2.0)


def _tanh_orders(x):
    t = np.tanh(x)
    return [t, 1 - t ** 2, -2 * t * (1 - t ** 2), (1 - t ** 2) * (6 * t ** 2 - 2)]


def _x_pow_x_orders(x):
    p, lg = x ** x, np.log(x) + 1
    return [p, p * lg, p * (lg ** 2 + 1 / x), p * (lg ** 3 + 3 * lg / x - 1 / x ** 2)]


def _exp_sin_orders(x):
    e, s, c = np.exp(np.sin(x)), np.sin(x), np.cos(x)
    return [e, c * e, (c ** 2 - s) * e, c * (c ** 2 - 3 * s - 1) * e]


HIGHER = {
    'x**3': (lambda x: x ** 3, lambda x: [x ** 3, 3 * x ** 2, 6 * x, 6 + 0 * x]),
    'tanh': (F.tanh, _tanh_orders),
    'sin': (F.sin, lambda x: [np.sin(x), np.cos(x), -np.sin(x), -np.cos(x)]),
    'cos': (F.cos, lambda x: [np.cos(x), -np.sin(x), -np.cos(x), np.sin(x)]),
    'exp': (F.exp, lambda x: [np.exp(x)] * 4),
    'log': (F.log, lambda x: [np.log(x), 1 / x, -1 / x ** 2, 2 / x ** 3]),
    'sqrt': (F.sqrt, lambda x: [np.sqrt(x), 0.5 * x ** -0.5, -0.25 * x ** -1.5,
                                0.375 * x ** -2.5]),
    '1/x': (lambda x: 1 / x, lambda x: [1 / x, -1 / x ** 2, 2 / x ** 3, -6 / x ** 4]),
    'x**x': (lambda x: x ** x, _x_pow_x_orders),
    '2**x': (lambda x: 2 ** x, lambda x: [2 ** x * L2 ** k for k in range(4)]),
    'exp(sin x)': (lambda x: F.exp(F.sin(x)), _exp_sin_orders),
    'x*sin(x)': (lambda x: x * F.sin(x),
                 lambda x: [x * np.sin(x), np.sin(x) + x * np.cos(x),
                            2 * np.cos(x) - x * np.sin(x), -3 * np.sin(x) - x * np.cos(x)]),
}
POINTS = np.array([0.3, 0.7, 1.1, 1.9, 2.6])


@pytest.mark.parametrize('name', sorted(HIGHER))
def test_higher_order_closed_forms(name):
    fn, closed = HIGHER[name]
    expected = assert_closed_form_orders(name, fn, closed, POINTS, rtol=1e-12)
    # backward() gives the same first and second orders
    x2 = Variable(POINTS.copy())
    F.sum(fn(x2)).backward(enable_double_backprop=True)
    np.testing.assert_allclose(x2.grad, expected[1], rtol=1e-12)
    gx = x2.grad_var
    x2.cleargrad()
    F.sum(gx).backward()
    np.testing.assert_allclose(x2.grad, expected[2], rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize('dtype', [np.float32, np.float16])
def test_higher_orders_keep_dtype(dtype):
    x = Variable(np.array([0.5, 1.5], dtype))
    g = F.tanh(x) * x ** 3
    for _ in range(3):
        g, = chainer.grad([g], [x], enable_double_backprop=True)
        assert g.dtype == dtype


def test_second_backward_adds_into_first_order_grad():
    """Spec 6.4: without cleargrad the second-order grad adds to x.grad (x**3: 3x^2 + 6x)."""
    x = Variable(np.array(2.0))
    y = x ** 3
    y.backward(enable_double_backprop=True)
    assert x.grad == 12.0
    x.grad_var.backward()
    assert x.grad == 12.0 + 12.0


def test_mixed_second_derivative_hessian_vector_product():
    a = Variable(np.array([1.0, 2.0]))
    b = Variable(np.array([0.5, -1.0]))
    y = F.sum(a * a * b + F.sin(a * b))
    ga, = chainer.grad([y], [a], enable_double_backprop=True)
    gb_of_ga, = chainer.grad([ga], [b], grad_outputs=[np.array([1.0, 1.0])])
    av, bv = a.array, b.array
    expected = 2 * av + np.cos(av * bv) - av * bv * np.sin(av * bv)
    np.testing.assert_allclose(gb_of_ga.array, expected, rtol=1e-13)


# ---- the checkers themselves --------------------------------------------------------------

class _BadSquare(FunctionNode):
    """x*x whose backward forgets the factor 2 (a first-order bug)."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] * inputs[0],

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return x * grad_outputs[0],


class _NoDoubleSquare(FunctionNode):
    """x*x with a correct first derivative that is a constant for double backprop."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] * inputs[0],

    def backward(self, indexes, grad_outputs):
        x = self.inputs[0].data  # raw array: the graph through x is lost
        return 2.0 * x * grad_outputs[0],


class TestGradientCheck:

    def test_numerical_grad_values_and_restores_inputs(self):
        x = np.array([[0.5, -1.0], [2.0, 0.25]])
        w = np.array([1.0, -2.0, 3.0])
        before = x.copy()
        gx, gw = gradient_check.numerical_grad(
            lambda: (np.sin(x), x.sum() * w), (x, w), (np.ones((2, 2)), 2.0), eps=1e-5)
        np.testing.assert_allclose(gx, np.cos(x) + 2.0 * w.sum(), rtol=1e-8)
        np.testing.assert_allclose(gw, 2.0 * x.sum(), rtol=1e-8)
        np.testing.assert_array_equal(x, before)
        assert gx.dtype == np.float64

    def test_numerical_grad_none_output_and_dtype(self):
        x = np.array([1.0, 2.0], np.float32)
        gx, = gradient_check.numerical_grad(lambda: (x * 5, None, x ** 2), (x,),
                                            (None, None, np.ones(2)), eps=1e-2)
        assert gx.dtype == np.float32
        np.testing.assert_allclose(gx, 2 * x, rtol=1e-3)

    def test_numerical_grad_five_point_is_more_accurate(self):
        x = np.array([0.7])
        two, = gradient_check.numerical_grad(lambda: np.exp(3 * x), (x,), (1.0,), eps=1e-2)
        five, = gradient_check.numerical_grad(lambda: np.exp(3 * x), (x,), (1.0,), eps=1e-2,
                                              detect_nondifferentiable=True)
        exact = 3 * np.exp(2.1)
        assert abs(five - exact) < abs(two - exact) / 100

    def test_numerical_grad_rejects_bad_arguments(self):
        x = np.array([1.0])
        with pytest.raises(TypeError):
            gradient_check.numerical_grad(lambda: x, (np.array([1]),), (1.0,))
        with pytest.raises(AssertionError):  # Chainer asserts eps > 0
            gradient_check.numerical_grad(lambda: x, (x,), (1.0,), eps=0)
        with pytest.raises(ValueError):
            gradient_check.numerical_grad(lambda: x, (x,), (np.ones(2),))

    @pytest.mark.parametrize('fn, point', [(np.abs, 0.0), (lambda v: np.maximum(v, 0), 0.0),
                                           (np.floor, 2.0), (np.sqrt, 0.0),
                                           (lambda v: np.maximum(v, 0), 3e-4)])
    def test_detects_nondifferentiable_points(self, fn, point):
        x = np.array([1.3, point])
        with pytest.raises(NondifferentiableError, match=r'inputs\[0\]\[1\]'), \
                np.errstate(invalid='ignore'):
            gradient_check.numerical_grad(lambda: fn(x), (x,), (np.ones(2),),
                                          detect_nondifferentiable=True)
        # The same functions away from the kink pass.
        x = np.array([1.3, point + 0.5])
        gradient_check.numerical_grad(lambda: fn(x) + 0.0, (x,), (np.ones(2),),
                                      detect_nondifferentiable=True)

    @pytest.mark.parametrize('fn', [np.sin, np.cos, np.exp, np.tanh, lambda v: v ** 3 + v,
                                    lambda v: np.log(v + 2), lambda v: 0 * v + 4.0])
    def test_no_false_alarm_on_smooth_functions(self, fn):
        x = np.random.default_rng(3).uniform(-1, 1, 40)
        x[:3] = 0.0  # extremum of cos, inflection points of sin/tanh
        gradient_check.numerical_grad(lambda: fn(x), (x,), (np.ones(40),),
                                      detect_nondifferentiable=True)

    def test_center_outputs_are_ignored_as_in_chainer(self):
        x = np.array([0.0])
        # Chainer 7.8.1 evaluates f at the centre itself: a wrong value given is not used.
        gx, = gradient_check.numerical_grad(lambda: 2 * x, (x,), (1.0,),
                                            detect_nondifferentiable=True,
                                            center_outputs=(np.array([0.5]),))
        np.testing.assert_allclose(gx, [2.0])

    @pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
    def test_smooth_points_in_low_precision_are_differentiable(self, dtype):
        # Behaviour difference 4 of issue 18: float32 rounding noise is no kink.
        x = np.array([0.0], dtype)
        two_outputs = gradient_check.numerical_grad(
            lambda: (-3 * x ** 3 + 2 * x ** 2 + 1, -3 * x ** 3 + 2 * x ** 2 + 1), (x,),
            (np.ones(1, dtype), np.ones(1, dtype)), detect_nondifferentiable=True)
        assert abs(float(two_outputs[0][0])) < 1e-6
        x = np.array([100.0], dtype)
        g, = gradient_check.numerical_grad(lambda: (np.log(x),), (x,), (np.ones(1, dtype),),
                                           detect_nondifferentiable=True)
        if dtype is not np.float16:  # float16 cannot resolve log(100 +- 0.001)
            np.testing.assert_allclose(g, [0.01], rtol=2e-3)

    def test_python_scalar_outputs(self):
        # Behaviour difference 12 of issue 18: f may return Python floats.
        x = np.array([1.0, 2.0])
        gx, = gradient_check.numerical_grad(lambda: (float((x ** 2).sum()),), (x,), (1.0,))
        np.testing.assert_allclose(gx, [2.0, 4.0], rtol=1e-9)

    def test_check_backward_catches_wrong_first_order(self):
        x = np.array([0.5, 1.0, 2.0])
        with pytest.raises(AssertionError, match='backward') as info:
            gradient_check.check_backward(lambda v: _BadSquare().apply((v,))[0], x,
                                          np.ones(3))
        message = str(info.value)
        assert 'numerical' in message and 'inputs[0] backward gradient' in message

    def test_check_backward_catches_one_wrong_component(self):
        class Bad(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

            def backward(self, indexes, gys):
                g = gys[0].array * 2
                g[3] = 0.0  # a single wrong element among many
                return Variable(g),

        x = np.random.default_rng(0).uniform(-1, 1, 200)
        for seed in range(5):
            np.random.seed(seed)
            with pytest.raises(AssertionError):
                gradient_check.check_backward(lambda v: Bad().apply((v,))[0], x,
                                              np.ones(200))

    def test_check_double_backward_catches_missing_second_order(self):
        x = np.array([0.5, 1.0, 2.0])
        fn = lambda v: _NoDoubleSquare().apply((v,))[0]
        gradient_check.check_backward(fn, x, np.ones(3))  # first order is right
        with pytest.raises(AssertionError, match='check_double_backward failed'):
            gradient_check.check_double_backward(fn, x, np.ones(3), np.ones(3))

    def test_check_double_backward_catches_a_buggy_backward_inside_the_graph(self):
        x = np.array([0.5, 1.0, 2.0])
        with pytest.raises(AssertionError):
            gradient_check.check_double_backward(lambda v: _BadSquare().apply((v,))[0] * v,
                                                 x, np.ones(3), np.ones(3))

    def test_params_are_checked_and_restored(self):
        w = chainer.Parameter(np.array([1.0, -2.0]))
        w.cleargrad()
        array = w.array
        x = np.array([0.3, 0.4])
        gradient_check.check_backward(lambda v: v * w * w, x, np.ones(2), params=(w,))
        assert w.array is array and w.grad is None

        class BadParamGrad(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * inputs[1],

            def backward(self, indexes, gys):
                return gys[0] * self.inputs[1].data, gys[0] * 0.0

        with pytest.raises(AssertionError, match=r'params\[0\]'):
            gradient_check.check_backward(lambda v: BadParamGrad().apply((v, w))[0], x,
                                          np.ones(2), params=w)
        assert w.array is array

    def test_params_double_backward(self):
        w = chainer.Parameter(np.array([1.5, -0.5]))
        x = np.array([0.3, 0.4])
        gradient_check.check_double_backward(lambda v: F.sin(v * w), x, np.ones(2),
                                             np.ones(2), params=w,
                                             params_grad_grad=np.ones(2))

    def test_no_grads(self):
        x = np.array([0.3, 0.4])
        c = np.array([2.0, 3.0])
        # Not differentiated w.r.t. c: fine when backward gives c no gradient.
        gradient_check.check_backward(lambda a, b: a * b.array, (x, c), np.ones(2),
                                      no_grads=[False, True])
        # Chainer 7.8.1 raises RuntimeError here (issue 18, difference 6).
        with pytest.raises(RuntimeError, match='gradient of int variable must be None: input 1'):
            gradient_check.check_backward(lambda a, b: a * b, (x, c), np.ones(2),
                                          no_grads=[False, True])
        with pytest.raises(ValueError):
            gradient_check.check_backward(lambda a, b: a * b, (x, c), np.ones(2),
                                          no_grads=[False])
        # Integer inputs are skipped by default.
        gradient_check.check_backward(lambda a, i: F.get_item(a, i.array), (x, np.array([1, 1])),
                                      np.ones(2))
        gradient_check.check_double_backward(lambda a, b: a * b.array * a, (x, c), np.ones(2),
                                             np.ones(2), no_grads=[False, True])

    def test_loss_function_with_y_grad_none(self):
        x = np.array([0.3, 0.4])
        gradient_check.check_backward(lambda v: F.sum(v ** 2), x, None)
        with pytest.raises(ValueError):
            gradient_check.check_backward(lambda v: v ** 2, x, None)
        with pytest.raises(ValueError):
            gradient_check.check_backward(lambda v: v ** 2, x, np.ones(3))

    def test_dtype_option_makes_float16_checkable(self):
        x = np.array([0.5, 0.75, 1.0], np.float16)
        gy = np.ones(3, np.float16)
        gradient_check.check_backward(F.exp, x, gy, dtype=np.float64, atol=1e-2, rtol=1e-2)
        with pytest.raises(ValueError):
            gradient_check.check_backward(F.exp, x, gy, dtype=np.int32)

    def test_inputs_are_not_modified(self):
        x = np.array([0.5, 1.5])
        gy = np.array([1.0, -1.0])
        before, gy_before = x.copy(), gy.copy()
        gradient_check.check_double_backward(F.tanh, x, gy, np.ones(2))
        np.testing.assert_array_equal(x, before)
        np.testing.assert_array_equal(gy, gy_before)

    def test_detect_nondifferentiable_in_check_backward(self):
        x = np.array([0.0, 1.0])
        with pytest.raises(NondifferentiableError):
            gradient_check.check_backward(F.absolute, x, np.ones(2),
                                          detect_nondifferentiable=True)
        gradient_check.check_backward(F.absolute, x + 0.5, np.ones(2),
                                      detect_nondifferentiable=True)
