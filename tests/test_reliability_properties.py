"""Property tests (hypothesis) for gradients, indexing and broadcasting, in float64.

* Random expression graphs over the parts of the function library that
  ``tests/test_property_graphs.py`` does not draw from (activations, normalisations,
  reductions that broadcast back, array manipulation, linear algebra): backward
  and double backward agree with finite differences.
* ``get_item`` for random indexing expressions (ints, slices, None, Ellipsis,
  integer arrays with repeats, boolean masks, lists) matches NumPy forward; its
  backward is NumPy's ``add.at`` scatter-add (repeated positions accumulate), and
  its double backward gathers again.  An index NumPy rejects is rejected too.
* Every binary operation broadcasts exactly as NumPy does: result shape and
  values, and each gradient summed back to its input's shape.  Shapes that do not
  broadcast raise ``InvalidType`` and build nothing.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd_lab as chainer
import autograd_lab
import autograd_lab.functions as F
from autograd_lab import Variable, gradient_check
from autograd_lab.utils.type_check import InvalidType
from test_get_item import add_at_reference

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
FULL = (2, 3)
GAMMA, BETA = np.linspace(0.5, 1.5, 3), np.linspace(-0.2, 0.2, 3)
MASK = np.array([[True, False, True], [False, True, True]])


# Every entry maps (2, 3) Variables to a (2, 3) Variable and is smooth for any finite
# input (arguments are squashed into each function's domain first).
UNARY = {
    'sigmoid': F.sigmoid,
    'softplus': F.softplus,
    'swish': lambda x: F.swish(x, np.full(3, 0.7)),
    'softmax': lambda x: F.softmax(x, axis=1),
    'log_softmax': lambda x: F.log_softmax(x, axis=1),
    'logsumexp': lambda x: F.broadcast_to(F.expand_dims(F.logsumexp(x, axis=1), 1), FULL),
    'prod': lambda x: F.broadcast_to(F.prod(x, axis=0, keepdims=True), FULL),
    'cumsum': lambda x: F.cumsum(x, axis=1),
    'arctan': F.arctan,
    'sinh': lambda x: F.sinh(F.tanh(x)),
    'cosh': lambda x: F.cosh(F.tanh(x)),
    'tan': lambda x: F.tan(F.tanh(x)),
    'arcsin': lambda x: F.arcsin(0.5 * F.tanh(x)),
    'arccos': lambda x: F.arccos(0.5 * F.tanh(x)),
    'log1p': lambda x: F.log1p(x * x),
    'expm1': lambda x: F.expm1(F.tanh(x)),
    'log2': lambda x: F.log2(x * x + 1.0),
    'log10': lambda x: F.log10(x * x + 1.0),
    'rsqrt': lambda x: F.rsqrt(x * x + 1.0),
    'flip': lambda x: F.flip(x, 1),
    'repeat': lambda x: F.repeat(x, 2, axis=1)[:, 1::2],
    'tile': lambda x: F.tile(x, (1, 2))[:, 2:5],
    'pad': lambda x: F.pad(x, ((0, 0), (1, 1)), 'constant')[:, 1:4] * 2,
    'split_concat': lambda x: F.concat(F.split_axis(x, [1], axis=1)[::-1], axis=1),
    'separate_stack': lambda x: F.stack(F.separate(x, axis=0)[::-1], axis=0),
    'vstack_hstack': lambda x: F.hstack((x, x))[:, :3] + F.vstack((x, x))[2:],
    'transpose_matmul': lambda x: F.matmul(F.matmul(x, x, transb=True), x),
    'linear': lambda x: F.linear(x, F.matmul(x, x, transa=True), F.sum(x, axis=0)),
    'batched_matmul': lambda x: F.sum(F.matmul(F.reshape(x, (2, 3, 1)),
                                               F.reshape(x, (2, 1, 3))), axis=2),
    'batch_norm': lambda x: F.batch_normalization(x * 3, GAMMA, BETA),
    'layer_norm': lambda x: F.layer_normalization(x * 3, GAMMA, BETA),
    'where': lambda x: F.where(MASK, x, F.square(x)),
    'average': lambda x: F.broadcast_to(F.average(x, axis=1, weights=np.arange(1.0, 4.0),
                                                  keepdims=True), FULL),
    'mse': lambda x: x * F.mean_squared_error(x, np.zeros(FULL)),
    'swapaxes': lambda x: F.swapaxes(F.reshape(x, (3, 2)), 0, 1),
}
BINARY = {
    'hypot': lambda a, b: F.sqrt(a * a + b * b + 0.1),
    'div_exp': lambda a, b: a / F.exp(b),
    'pow_var_var': lambda a, b: F.exp(F.tanh(b)) ** a,
    'stack_mean': lambda a, b: F.mean(F.stack((a, b)), axis=0),
    'concat_even': lambda a, b: F.concat((a, b), axis=1)[:, ::2] * 1.5,
    'matmul_t': lambda a, b: F.matmul(F.matmul(a, b, transb=True), a),
    'huber': lambda a, b: a * F.huber_loss(a, b * 3, 10.0, reduce='no'),
    'bilinear_sum': lambda a, b: F.broadcast_to(F.sum(a * b, axis=1, keepdims=True), FULL),
}
NAMES = sorted(UNARY) + sorted(BINARY)


@st.composite
def library_programs(draw):
    """``(n_leaves, [(name, arg indexes)], seed)``: operands are any earlier value."""
    n_leaves = draw(st.integers(1, 3))
    ops = []
    for k in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from(NAMES))
        pool = n_leaves + k
        arity = 1 if name in UNARY else 2
        ops.append((name, tuple(draw(st.integers(0, pool - 1)) for _ in range(arity))))
    return n_leaves, ops, draw(st.integers(0, 2 ** 16))


def build(program):
    n_leaves, ops, seed = program
    rng = np.random.default_rng(seed)
    leaves = [rng.uniform(-1, 1, FULL) for _ in range(n_leaves)]

    def fn(*xs):
        values = list(xs)
        for name, args in ops:
            f = UNARY.get(name) or BINARY[name]
            values.append(f(*[values[i] for i in args]))
        return values[-1]

    return fn, leaves, rng


def _prepare(program):
    fn, leaves, rng = build(program)
    xs = [Variable(x) for x in leaves]
    y = fn(*xs)
    assume(np.all(np.isfinite(y.array)) and np.all(np.abs(y.array) < 1e3))
    gy = rng.uniform(-1, 1, y.shape)
    # Finite differences cannot check a slope this steep at their eps (batch_norm over two
    # nearly equal rows divides by a tiny deviation): such points are left out, not the ops.
    y.grad = gy
    y.backward()
    assume(all(x.grad is None or np.all(np.abs(x.grad) < 1e3) for x in xs))
    np.random.seed(program[2])  # gradient_check's random direction
    return fn, leaves, gy, rng


def _second_order_slope(fn, leaves, gy, ggx) -> float:
    """The largest entry of the gradient of the gradient (along ggx): at 1e4 and more,
    finite differences at eps = 1e-4 no longer resolve it (batch_norm over two nearly
    equal rows, then a curved function)."""
    xs = [Variable(x) for x in leaves]
    gxs = autograd_lab.grad([fn(*xs)], xs, grad_outputs=[Variable(gy)],
                            enable_double_backprop=True)
    along = [F.sum(g * gg) for g, gg in zip(gxs, ggx) if g is not None]
    if not along:
        return 0.0
    total = along[0]
    for term in along[1:]:
        total = total + term
    ggs = autograd_lab.grad([total], xs)
    return max((float(np.max(np.abs(g.array))) for g in ggs if g is not None), default=0.0)


def test_every_library_entry_is_drawn_and_keeps_the_shape():
    x = Variable(np.random.default_rng(0).uniform(-1, 1, FULL))
    for name in NAMES:
        out = UNARY[name](x) if name in UNARY else BINARY[name](x, x * 0.5)
        assert out.shape == FULL, name


@settings(max_examples=250, **SETTINGS)
@given(library_programs(), st.booleans())
def test_library_gradients_match_finite_differences(program, double):
    """First order on every example; second order (double backward) on half of them."""
    fn, leaves, gy, rng = _prepare(program)
    if not double:
        gradient_check.check_backward(fn, leaves, gy, eps=1e-5, atol=1e-6, rtol=1e-5)
        return
    ggx = [rng.uniform(-1, 1, x.shape) for x in leaves]
    assume(_second_order_slope(fn, leaves, gy, ggx) < 1e3)
    gradient_check.check_double_backward(fn, leaves, gy, ggx, eps=1e-4, atol=1e-5, rtol=1e-4)


# ---- get_item against NumPy ---------------------------------------------------------------------

@st.composite
def index_expressions(draw):
    """An array shape and an index for it: mostly valid, sometimes not (as users write)."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    parts: list = []
    dim = 0
    used_ellipsis = False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        size = shape[dim] if dim < len(shape) else 3  # past the end: NumPy will object
        kind = draw(st.sampled_from(['int', 'slice', 'none', 'ellipsis', 'ints', 'ints2d',
                                     'mask', 'list']))
        if kind == 'int':
            parts.append(draw(st.integers(-size - 1, size)))  # one beyond on each side
        elif kind == 'slice':
            parts.append(draw(st.slices(size)))
        elif kind == 'none':
            parts.append(None)
            continue  # a new axis consumes no dimension
        elif kind == 'ellipsis':
            if used_ellipsis:
                continue
            used_ellipsis = True
            parts.append(Ellipsis)
            dim = len(shape) - sum(1 for p in parts[:-1] if p is not None)
            continue
        elif kind in ('ints', 'ints2d'):
            n = draw(st.integers(0, 4))
            values = draw(st.lists(st.integers(-size, size - 1), min_size=n, max_size=n))
            arr = np.array(values, dtype=np.intp)
            parts.append(arr.reshape(2, n // 2) if kind == 'ints2d' and n % 2 == 0 else arr)
        elif kind == 'mask':
            parts.append(np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size))))
        else:  # a Python list of ints: an integer array (Chainer's rule)
            parts.append(draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3)))
        dim += 1
    single = len(parts) == 1 and draw(st.booleans())
    return shape, parts[0] if single else tuple(parts)


def _numpy_index(index):
    """The NumPy meaning of a Chainer index: a list of ints is an integer array."""
    if isinstance(index, list):
        return np.array(index, dtype=np.intp)
    if isinstance(index, tuple):
        return tuple(np.array(p, dtype=np.intp) if isinstance(p, list) else p for p in index)
    return index


@settings(max_examples=300, **SETTINGS)
@given(index_expressions(), st.integers(0, 2 ** 16))
def test_get_item_matches_numpy_forward_backward_and_double_backward(case, seed):
    shape, index = case
    np_index = _numpy_index(index)
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, shape)
    try:
        expected = a[np_index]
    except IndexError:
        x = Variable(a.copy())
        with pytest.raises(IndexError):
            x[index]
        assert x.grad is None
        return
    x = Variable(a.copy())
    y = x[index]
    assert y.creator.label == 'GetItem'
    np.testing.assert_array_equal(y.array, expected)
    gy = rng.uniform(-1, 1, y.shape)
    gx, = chainer.grad([y], [x], [Variable(gy)], enable_double_backprop=True)
    np.testing.assert_allclose(gx.array, add_at_reference(shape, np_index, gy), rtol=1e-12)
    # The backward of the scatter-add is a gather with the same index.
    gg = rng.uniform(-1, 1, shape)
    x.cleargrad()
    ggy = Variable(gy)
    gx2, = chainer.grad([x[index]], [x], [ggy], enable_double_backprop=True)
    back, = chainer.grad([gx2], [ggy], [Variable(gg)])
    np.testing.assert_array_equal(back.array, gg[np_index])


# ---- broadcasting of every binary operation -----------------------------------------------

def sum_to(g, shape):
    """NumPy reference of undoing broadcasting: sum ``g`` down to ``shape``."""
    g = g.sum(axis=tuple(range(g.ndim - len(shape)))) if g.ndim > len(shape) else g
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


# name -> (engine op, value, (grad a, grad b) from the broadcast operands A, B and gy)
BINARY_OPS = {
    'add': (lambda a, b: a + b, np.add, lambda A, B, g: (g, g)),
    'sub': (lambda a, b: a - b, np.subtract, lambda A, B, g: (g, -g)),
    'mul': (lambda a, b: a * b, np.multiply, lambda A, B, g: (g * B, g * A)),
    'div': (lambda a, b: a / b, np.divide, lambda A, B, g: (g / B, -g * A / B ** 2)),
    'pow': (lambda a, b: a ** b, np.power,
            lambda A, B, g: (g * B * A ** (B - 1), g * np.log(A) * A ** B)),
    'F.add': (F.add, np.add, lambda A, B, g: (g, g)),
    'F.sub': (F.sub, np.subtract, lambda A, B, g: (g, -g)),
    'F.mul': (F.mul, np.multiply, lambda A, B, g: (g * B, g * A)),
    'F.div': (F.div, np.divide, lambda A, B, g: (g / B, -g * A / B ** 2)),
    'F.pow': (F.pow, np.power, lambda A, B, g: (g * B * A ** (B - 1), g * np.log(A) * A ** B)),
    'maximum': (F.maximum, np.maximum, lambda A, B, g: (g * (A > B), g * (A < B))),
    'minimum': (F.minimum, np.minimum, lambda A, B, g: (g * (A < B), g * (A > B))),
    'where': (lambda a, b: F.where(np.ones((), bool), a, b), lambda A, B: np.where(True, A, B),
              lambda A, B, g: (g, np.zeros_like(g))),
    'ndarray+var': (lambda a, b: a.array + b, np.add, lambda A, B, g: (None, g)),
    'var*ndarray': (lambda a, b: a * b.array, np.multiply, lambda A, B, g: (g * B, None)),
    'ndarray**var': (lambda a, b: a.array ** b, np.power,
                     lambda A, B, g: (None, g * np.log(A) * A ** B)),
}

shape_pairs = st.one_of(
    hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3)
    .map(lambda s: s.input_shapes),
    st.tuples(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3),
              hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)),
)


@settings(max_examples=300, **SETTINGS)
@given(st.sampled_from(sorted(BINARY_OPS)), shape_pairs, st.integers(0, 2 ** 16))
def test_binary_ops_broadcast_like_numpy_and_grads_reduce_back(name, shapes, seed):
    op, np_op, grads = BINARY_OPS[name]
    sa, sb = shapes
    rng = np.random.default_rng(seed)
    a_data = rng.uniform(0.5, 1.5, sa)  # positive: valid for every op, pow included
    b_data = rng.uniform(0.5, 1.5, sb)
    a, b = Variable(a_data.copy()), Variable(b_data.copy())
    try:
        out_shape = np.broadcast_shapes(sa, sb)
    except ValueError:
        with pytest.raises(InvalidType, match='broadcast'):
            op(a, b)
        assert a.grad is None and b.grad is None
        return
    y = op(a, b)
    assert y.shape == out_shape
    A, B = np.broadcast_to(a_data, out_shape), np.broadcast_to(b_data, out_shape)
    np.testing.assert_allclose(y.array, np_op(A, B), rtol=1e-13)
    gy = rng.uniform(-1, 1, out_shape)
    y.grad = gy
    y.backward()
    for var, g, shape in zip((a, b), grads(A, B, gy), (sa, sb)):
        if g is None:  # a plain ndarray operand: no gradient
            assert var.grad is None
            continue
        assert var.grad.shape == shape
        np.testing.assert_allclose(var.grad, sum_to(np.asarray(g, np.float64), shape),
                                   rtol=1e-12, atol=1e-14)


@settings(max_examples=40, **SETTINGS)
@given(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
       st.integers(0, 2 ** 16))
def test_multi_add_broadcasts_three_operands(shapes, seed):
    rng = np.random.default_rng(seed)
    xs = [Variable(rng.uniform(-1, 1, s)) for s in shapes.input_shapes]
    y = F.add(*xs)
    assert y.shape == shapes.result_shape
    gy = rng.uniform(-1, 1, y.shape)
    y.grad = gy
    y.backward()
    for x in xs:
        assert x.grad.shape == x.shape
        np.testing.assert_allclose(x.grad, sum_to(gy, x.shape), rtol=1e-12)


@settings(max_examples=40, **SETTINGS)
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2 ** 16))
def test_matmul_broadcasts_batch_dimensions(batch, m, k, n, seed):
    rng = np.random.default_rng(seed)
    sa, sb = (*batch.input_shapes[0], m, k), (*batch.input_shapes[1], k, n)
    a, b = Variable(rng.uniform(-1, 1, sa)), Variable(rng.uniform(-1, 1, sb))
    y = F.matmul(a, b)
    expected = np.matmul(a.array, b.array)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.array, expected, rtol=1e-12)
    gy = rng.uniform(-1, 1, y.shape)
    y.grad = gy
    y.backward()
    A = np.broadcast_to(a.array, (*y.shape[:-2], m, k))
    B = np.broadcast_to(b.array, (*y.shape[:-2], k, n))
    np.testing.assert_allclose(a.grad, sum_to(gy @ np.swapaxes(B, -1, -2), sa), rtol=1e-12)
    np.testing.assert_allclose(b.grad, sum_to(np.swapaxes(A, -1, -2) @ gy, sb), rtol=1e-12)
