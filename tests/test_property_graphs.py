"""Property tests: random expression graphs built from the function library.

Hypothesis draws small programs: a few leaves whose shapes broadcast against
(2, 3), then a sequence of operations whose operands are drawn from *every*
earlier value, so variables are reused (fan-out), paths split and join again
(diamonds) and operands of different shapes broadcast.  The output joins the last
value with an earlier one, which closes one more diamond.  For each program:

* backward agrees with finite differences (``check_backward``), and so does
  double backward (``check_double_backward``);
* ``Variable.backward`` and ``chainer.grad`` give the same gradients, bitwise, on
  the fast path and on the Variable path (``enable_double_backprop=True``), and a
  second ``backward`` accumulates into the leaves' grads.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable, gradient_check

SHAPES = [(), (3,), (1, 3), (2, 1), (2, 3), (1,)]
FULL = (2, 3)
W_SHAPE = (3, 3)  # the right operand of matmul, always the last leaf


def _last_axis_repeat(x):
    if x.ndim == 0:
        return x[None]                              # newaxis: shape (1,)
    index = [x.shape[-1] - 1, 0, 0]                 # repeated advanced index (scatter-add)
    return F.get_item(x, (Ellipsis, index))


def _squeeze_or_expand(x):
    if x.ndim < 2:
        return F.expand_dims(x, 0)
    return F.squeeze(x, 0) if x.shape[0] == 1 else x.reshape(x.shape)


UNARY = {
    'sin': F.sin,
    'cos': F.cos,
    'tanh': F.tanh,
    'neg': lambda x: -x,
    'scale': lambda x: 0.5 * x,
    'shift': lambda x: x - 0.25,
    'rsub': lambda x: 1.0 - x,
    'square': F.square,
    'exp_tanh': lambda x: F.exp(F.tanh(x)),
    'log_pos': lambda x: F.log(x * x + 1.0),
    'sqrt_pos': lambda x: F.sqrt(F.square(x) + 0.5),
    'recip': lambda x: 2.0 / (x * x + 1.0),
    'pow_const': lambda x: (x * x + 0.5) ** 1.5,
    'const_pow': lambda x: 2.0 ** x,
    'sum_all': F.sum,
    'sum_first': lambda x: F.sum(x, axis=0, keepdims=True) if x.ndim else x,
    'mean_last': lambda x: F.mean(x, axis=-1, keepdims=True) if x.ndim else F.mean(x),
    'broadcast_to': lambda x: F.broadcast_to(x, FULL),
    'repeat_index': _last_axis_repeat,
    'transpose_sum': lambda x: F.sum(F.transpose(F.broadcast_to(x, FULL)), axis=1),
    'reshape_sum': lambda x: F.sum(F.reshape(F.broadcast_to(x, FULL), (3, 2)), axis=1),
    'sum_to': lambda x: F.sum_to(F.broadcast_to(x, FULL), (1, 3)),
    'squeeze_expand': _squeeze_or_expand,
    'identity': F.identity,
    'slice_reverse': lambda x: x[..., ::-1] if x.ndim else x,
}
BINARY = {
    'add': lambda a, b: a + b,
    'sub': F.sub,
    'mul': lambda a, b: a * b,
    'div_safe': lambda a, b: a / (b * b + 1.0),
    'pow_safe': lambda a, b: (a * a + 0.5) ** b,
    'weighted_mean': lambda a, b: F.average(F.broadcast_to(a, FULL), axis=1,
                                            weights=F.sum(F.broadcast_to(b * b + 1.0, FULL),
                                                          axis=0), keepdims=True),
}
TERNARY = {'multi_add': F.add}
MATMUL = 'matmul'
ARITY = {**dict.fromkeys(UNARY, 1), **dict.fromkeys(BINARY, 2),
         **dict.fromkeys(TERNARY, 3), MATMUL: 1}


@st.composite
def programs(draw):
    n_leaves = draw(st.integers(1, 3))
    shapes = [draw(st.sampled_from(SHAPES)) for _ in range(n_leaves)]
    ops = []
    for k in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(sorted(ARITY)))
        pool = n_leaves + k
        # Prefer recent values (deeper graphs) but allow any earlier one (reuse).
        args = tuple(draw(st.one_of(st.integers(max(0, pool - 2), pool - 1),
                                    st.integers(0, pool - 1)))
                     for _ in range(ARITY[name]))
        ops.append((name, args))
    join = draw(st.integers(0, n_leaves + len(ops) - 1))
    seed = draw(st.integers(0, 2 ** 16))
    return shapes, ops, join, seed


def build(program):
    """The program as a function of Variables (leaves..., W) and its input arrays."""
    shapes, ops, join, seed = program
    rng = np.random.default_rng(seed)
    leaves = [rng.uniform(-1, 1, s) for s in shapes] + [rng.uniform(-1, 1, W_SHAPE)]

    def fn(*xs):
        *values, w = xs
        values = list(values)
        for name, args in ops:
            operands = [values[i] for i in args]
            if name == MATMUL:
                out = F.matmul(F.broadcast_to(operands[0], FULL), w)
            elif name in UNARY:
                out = UNARY[name](*operands)
            elif name in BINARY:
                out = BINARY[name](*operands)
            else:
                out = TERNARY[name](*operands)
            values.append(out)
        return values[-1] + values[join]

    return fn, leaves, rng


def _prepare(program):
    fn, leaves, rng = build(program)
    y = fn(*[Variable(x) for x in leaves])
    assume(np.all(np.abs(y.array) < 1e4))
    gy = rng.uniform(-1, 1, y.shape)
    np.random.seed(program[3])  # gradient_check's random direction
    return fn, leaves, gy, rng


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=200, **SETTINGS)
@given(programs())
def test_backward_matches_finite_differences(program):
    fn, leaves, gy, _ = _prepare(program)
    gradient_check.check_backward(fn, leaves, gy, eps=1e-4, atol=1e-6, rtol=1e-5)


@settings(max_examples=100, **SETTINGS)
@given(programs())
def test_double_backward_matches_finite_differences(program):
    fn, leaves, gy, rng = _prepare(program)
    ggx = [rng.uniform(-1, 1, x.shape) for x in leaves]
    gradient_check.check_double_backward(fn, leaves, gy, ggx, eps=1e-4, atol=1e-5, rtol=1e-4)


@settings(max_examples=200, **SETTINGS)
@given(programs())
def test_backward_grad_and_both_paths_agree_bitwise(program):
    fn, leaves, gy, _ = _prepare(program)
    results = []
    for double in (False, True):
        xs = [Variable(x.copy()) for x in leaves]
        y = fn(*xs)
        y.grad = gy.copy()
        y.backward(enable_double_backprop=double)
        results.append([x.grad for x in xs])
        # grad() reaches the same values without touching x.grad
        by_grad = chainer.grad([fn(*xs)], xs, [gy.copy()], enable_double_backprop=double)
        for g, x in zip(by_grad, xs, strict=True):
            assert (g is None) == (x.grad is None)
            if g is not None:
                assert np.array_equal(g.array, x.grad)
        # A second backward adds into the leaves' grads: twice the first (up to the
        # order in which a leaf's several contributions are summed).
        first = [None if x.grad is None else x.grad.copy() for x in xs]
        y2 = fn(*xs)
        y2.grad = gy.copy()
        y2.backward(enable_double_backprop=double)
        for g, x in zip(first, xs, strict=True):
            if g is not None:
                np.testing.assert_allclose(x.grad, g + g, rtol=1e-12, atol=1e-14)
    for fast, slow in zip(*results, strict=True):
        assert (fast is None) == (slow is None)
        if fast is not None:
            assert np.array_equal(fast, slow)
