"""Shared pieces of the function tests: tolerance tables, the case parametrisation, the
fast-path/Variable-path comparison and the differential runs against Chainer 7.8.1.

Each test file keeps its own cases, input domains and tolerance adjustments; what is
here is the logic they ran identically, so a fix to it reaches every file at once.
"""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import FunctionNode, Variable, gradient_check
from build_tolerance import assert_same_across_builds

FLOATS = (np.float16, np.float32, np.float64)

# Tolerances: float64 is checked tightly (numerical derivative in float64 with a
# small eps); float32/float16 gradients are compared with a float64 numerical
# derivative (dtype=float64) and their own rounding error.
FIRST = {np.float64: dict(eps=1e-4, atol=1e-7, rtol=1e-6),
         np.float32: dict(eps=1e-3, atol=1e-4, rtol=1e-3, dtype=np.float64),
         np.float16: dict(eps=1e-2, atol=5e-2, rtol=5e-2, dtype=np.float64)}
SECOND = {np.float64: dict(eps=1e-4, atol=1e-6, rtol=1e-5),
          np.float32: dict(eps=1e-3, atol=1e-3, rtol=1e-2, dtype=np.float64),
          np.float16: dict(eps=1e-2, atol=1e-1, rtol=1e-1, dtype=np.float64)}


def outputs_of(result: Any) -> tuple:
    """The outputs of a function as a tuple (one Variable or a tuple/list of them)."""
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def dtype_params(cases: list) -> list:
    """One pytest param per case and dtype, with ids ``<case name>-<dtype name>``."""
    return [pytest.param(c, d, id=f'{c.name}-{np.dtype(d).name}')
            for c in cases for d in c.dtypes]


# ---- numerical first and second order ---------------------------------------------------------

def setup_case(case_: Any, dtype: Any, draw_inputs: Callable, seed: int = 0) -> tuple:
    """Inputs ``draw_inputs(case_, dtype, rng)``, output gradients uniform in [-1, 1] and
    the generator, with NumPy's global state seeded for the direction of gradient_check."""
    rng = np.random.default_rng(seed)
    np.random.seed(seed)  # the direction drawn by gradient_check
    xs = draw_inputs(case_, dtype, rng)
    ys = outputs_of(case_.fn(*[Variable(x) for x in xs]))
    gys = tuple(rng.uniform(-1, 1, y.shape).astype(y.dtype) for y in ys)
    return xs, gys, rng


def check_first_order(case_: Any, dtype: Any, setup: Callable, options: Callable) -> None:
    """``check_backward`` of a case with the file's ``setup`` and ``options(FIRST, ...)``."""
    xs, gys, _ = setup(case_, dtype)
    gradient_check.check_backward(case_.fn, xs, gys, **options(FIRST, case_, dtype))


def check_second_order(case_: Any, dtype: Any, setup: Callable, options: Callable) -> None:
    """``check_double_backward`` of a case, with input-gradient gradients uniform in [-1, 1]."""
    xs, gys, rng = setup(case_, dtype)
    ggxs = tuple(rng.uniform(-1, 1, x.shape).astype(dtype) for x in xs)
    gradient_check.check_double_backward(case_.fn, xs, gys, ggxs,
                                         **options(SECOND, case_, dtype))


def assert_closed_form_orders(name: str, fn: Callable, closed: Callable, points: np.ndarray,
                              rtol: float) -> list:
    """The value (rtol 1e-13) and the orders 1 to 3 (``rtol``, by ``chainer.grad``) of ``fn``
    at float64 ``points`` equal ``closed(points)``; returns those expected values."""
    x = Variable(points.copy())
    expected = closed(points)
    g = fn(x)
    np.testing.assert_allclose(g.array, expected[0], rtol=1e-13)
    for order in (1, 2, 3):
        g, = chainer.grad([g], [x], enable_double_backprop=True)
        assert g is not None, order
        np.testing.assert_allclose(g.array, expected[order], rtol=rtol, atol=1e-13,
                                   err_msg=f'order {order} of {name}')
    return expected


# ---- fast path == Variable path ----------------------------------------------------------------

def node_classes() -> list:
    """Every FunctionNode subclass defined in ``autograd_lab.functions``."""
    seen, stack = [], [FunctionNode]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith('autograd_lab.functions') and sub not in seen:
                seen.append(sub)
            stack.append(sub)
    return seen


def count_backward_paths(monkeypatch: pytest.MonkeyPatch) -> dict:
    """Counts the calls of ``backward`` and ``backward_arrays`` of the built-in nodes.

    Returns the live counter dict; the spies go away with ``monkeypatch``.
    """
    calls = {'backward': 0, 'backward_arrays': 0}

    def spy(cls: type, name: str) -> None:
        original = cls.__dict__[name]

        def wrapper(self, *args, **kwargs):
            calls[name] += 1
            return original(self, *args, **kwargs)
        monkeypatch.setattr(cls, name, wrapper)

    for cls in node_classes():
        for name in ('backward', 'backward_arrays'):
            if name in cls.__dict__:
                spy(cls, name)
    return calls


def first_order_vars(fn: Callable, xs: tuple, gys: tuple, double: bool,
                     quiet: bool = False) -> list:
    """Fresh input Variables after one backward pass of ``fn`` seeded with ``gys``.

    ``double`` picks the Variable path (True) or the fast path (False); ``quiet`` silences
    DeprecationWarnings of a single-output backward (functions that warn by design).
    """
    x_vars = [Variable(x.copy()) for x in xs]
    ys = outputs_of(fn(*x_vars))
    if len(ys) == 1:
        ys[0].grad = gys[0].copy()
        with warnings.catch_warnings():
            if quiet:
                warnings.simplefilter('ignore', DeprecationWarning)
            ys[0].backward(enable_double_backprop=double)
    else:
        chainer.backward(list(ys), [g.copy() for g in gys], enable_double_backprop=double)
    return x_vars


def assert_paths_identical(fn: Callable, xs: tuple, gys: tuple, path_counter: dict) -> None:
    """Both backward paths ran (and only their own kind of node method) with equal bits."""
    fast = first_order_vars(fn, xs, gys, double=False)
    n_fast = dict(path_counter)
    slow = first_order_vars(fn, xs, gys, double=True)
    assert n_fast['backward'] == 0 and n_fast['backward_arrays'] > 0
    assert path_counter['backward_arrays'] == n_fast['backward_arrays']  # slow: none
    assert path_counter['backward'] > 0
    for x, a, b in zip(xs, fast, slow, strict=True):
        assert type(a.grad) is np.ndarray and type(b.grad) is np.ndarray
        assert a.grad.dtype == b.grad.dtype == x.dtype and a.grad.shape == x.shape
        assert np.array_equal(a.grad, b.grad, equal_nan=True), (a.grad, b.grad)
        assert a.grad_var.creator is None  # no graph without double backprop


# ---- differential runs against Chainer --------------------------------------------------------

# The start of a differential program: ``u`` draws seeded uniform arrays and ``record`` keeps
# forward values, labels and first- and second-order gradients of one call in ``out``.
RECORDING = r'''
rng = np.random.RandomState(0)


def u(*shape, dtype=np.float64, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(dtype)


def record(name, fn, *arrays):
    """Forward values, labels, first-order and second-order gradients."""
    xs = [chainer.Variable(a) for a in arrays]
    ys = fn(*xs)
    ys = list(ys) if isinstance(ys, (tuple, list)) else [ys]
    gys = [u(*y.shape, dtype=y.dtype) for y in ys]
    for k, y in enumerate(ys):
        out['%s/y%d' % (name, k)] = y.array
        out['%s/label%d' % (name, k)] = y.creator.label
    gxs = chainer.grad(ys, xs, gys, enable_double_backprop=True)
    total = None
    for i, g in enumerate(gxs):
        out['%s/g%d' % (name, i)] = g.array
        total = F.sum(g * g) if total is None else total + F.sum(g * g)
    for i, gg in enumerate(chainer.grad([total], xs)):
        if gg is not None:
            out['%s/gg%d' % (name, i)] = gg.array
'''


def run_here(program: str, quiet: bool = False, **names: Any) -> dict:
    """Runs a Chainer program with ``chainer = autograd_lab``; returns its ``out`` records.

    The program sees ``np``, ``chainer``, ``F``, ``L`` and ``out``, as under
    ``chainer_ref.run``, plus ``names``; ``quiet`` silences DeprecationWarnings while it runs.
    """
    out: dict = {}
    namespace = {'np': np, 'chainer': chainer, 'F': F, 'L': L, 'out': out, **names}
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter('ignore', DeprecationWarning)
        exec(textwrap.dedent(program), namespace)
    return {k: np.asarray(v) for k, v in out.items()}


def assert_records_agree(got: dict, expected: dict) -> None:
    """Same keys; text records equal; arrays by ``build_tolerance``'s rule (same dtype and
    shape; integers exactly).  Each record is a function's value or its first or second
    derivative: ``kind='reduction'`` with ``steps=3`` (value, gradient and gradient of the
    gradient, one elementwise step each) and ``terms`` the size of the largest record, as
    a sum inside one of these functions runs over at most as many products as its largest
    input has elements and every input's gradient is a record."""
    assert sorted(got) == sorted(expected)
    terms = max(want.size for want in expected.values())
    for key, want in expected.items():
        have = got[key]
        if want.dtype.kind == 'U':
            assert str(have) == str(want), key
            continue
        assert_same_across_builds(have, want, kind='reduction', terms=terms, steps=3, what=key)
