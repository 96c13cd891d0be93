"""Checkers of lesson 10's two-layer network by hand: the gradients' shapes, the
broadcasting rule (``unbroadcast``) and the whole backward in NumPy.

``mlp_grads`` must be NumPy only: the checker runs it inside ``events.recording()`` and
rejects it when the engine made a Variable, applied a function or ran a backward meanwhile
(``F.linear``, ``F.softmax_cross_entropy``, the library's FunctionNodes, ``chainer.grad``
all show there).  Its numbers are compared with the engine's gradients on two problems,
and a wrong one with what the usual mistakes give.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import autograd_lab.functions as F
from autograd_lab import Variable, events

from .feedback import Feedback, _call, _checker, _dict_answer, _ok, _todo, _wrong

#: the lesson's network: a batch of N digits of D pixels, H hidden units, C classes
MLP = {'N': 8, 'D': 64, 'H': 16, 'C': 10}


def mlp_shapes(N: int = MLP['N'], D: int = MLP['D'], H: int = MLP['H'],
               C: int = MLP['C']) -> dict[str, tuple]:
    """The shapes of the gradients of the lesson's network: each its variable's shape.

    >>> mlp_shapes(N=2, D=3, H=4, C=5)['gW1']
    (4, 3)
    """
    return {'gW1': (H, D), 'gb1': (H,), 'gh': (N, H), 'gW2': (C, H), 'gs': (N, C)}


@_checker(answer=lambda: str(mlp_shapes()))
def ex10_mlp_shapes(shapes: Any) -> Feedback:
    """The predicted shapes of gW1, gb1, gh, gW2 and gs."""
    exercise = 'ex10_mlp_shapes'
    want = mlp_shapes()
    shapes = _dict_answer(exercise, shapes, want, todo='a shape for each gradient',
                          unfinished='a shape for each gradient',
                          hint='One shape (a tuple) per gradient.')
    try:
        got = {k: tuple(int(n) for n in v) for k, v in shapes.items()}
    except TypeError:
        return _wrong(exercise, 'each shape is a tuple of ints, e.g. (2, 3) or (3,).',
                      'Write a 1-D shape with a comma: (3,).')
    bad = [k for k in want if got[k] != want[k]]
    if not bad:
        return _ok(exercise, 'right: every gradient has the shape of its variable.')
    n, d, h, c = (MLP[k] for k in 'NDHC')
    hints = {  # (key, a wrong shape) -> what that shape says about the reasoning
        ('gW1', (d, h)): 'gW1 is transposed: a gradient has the shape of its variable, and '
                         'W1 is (hidden, inputs), Chainer\'s layout.',
        ('gW2', (h, c)): 'gW2 is transposed: a gradient has the shape of its variable, and '
                         'W2 is (classes, hidden).',
        ('gb1', (n, h)): 'b1 is shared by every example of the batch: its gradient is summed '
                         'over the batch (the broadcasting rule), back to b1\'s shape.',
        ('gs', (n,)): 'gs is the gradient of the scores s, one per class per example, not '
                      'of the loss per example.',
        ('gh', (h,)): 'gh is the gradient of h, one value per hidden unit per example.',
    }
    for key in bad:
        hint = hints.get((key, got[key]))
        if hint:
            return _wrong(exercise, f'not right: {", ".join(bad)}.', hint)
    return _wrong(exercise, f'not right: {", ".join(bad)}.',
                  'A gradient has the shape of its variable: read the variable\'s shape in '
                  'the view.')


#: (gradient shape, array shape) pairs NumPy broadcasts; every variant below fails one
UNBROADCAST_CASES = [((4, 3), (3,)), ((4, 3), (4, 1)), ((4, 3), ()), ((2, 4, 3), (4, 1)),
                     ((4, 3), (4, 3)), ((5, 4, 3), (1, 3))]


def unbroadcast(g: np.ndarray, shape: tuple) -> np.ndarray:
    """``g`` summed over the axes along which an array of ``shape`` was broadcast.

    >>> unbroadcast(np.ones((4, 3)), (4, 1)).tolist()
    [[3.0], [3.0], [3.0], [3.0]]
    """
    g = np.asarray(g)
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=stretched, keepdims=True) if stretched else g


def _unbroadcast_variants() -> list[tuple[Callable[[np.ndarray, tuple], Any], str]]:
    def mean(g: np.ndarray, shape: tuple) -> np.ndarray:
        return unbroadcast(g, shape) * (np.prod(shape) / g.size if g.size else 1)

    def no_keepdims(g: np.ndarray, shape: tuple) -> np.ndarray:
        return unbroadcast(g, shape).reshape(tuple(n for n in shape if n != 1))

    def leading_only(g: np.ndarray, shape: tuple) -> np.ndarray:
        return g.sum(axis=tuple(range(g.ndim - len(shape))))

    return [
        (mean, 'That is the mean: each broadcast copy sends its whole gradient back, and '
               'the copies add up (fan-out), so sum.'),
        (lambda g, shape: g, 'Unchanged: the gradient has the shape of the array, so sum '
                             'over the axes that were broadcast.'),
        (lambda g, shape: g.sum(), 'Summed over every axis: only the broadcast ones.'),
        (no_keepdims, 'A stretched axis of length 1 stays in the shape: keepdims=True.'),
        (leading_only, 'Axes of length 1 that were stretched need summing too (keepdims), '
                       'not only the axes added in front.'),
    ]


@_checker(answer=lambda: (
    'sum over the leading axes g has more than shape, then over each axis where shape'
    ' has 1 and g has more, with keepdims=True'))
def ex10_unbroadcast(func: Any) -> Feedback:
    """``unbroadcast(g, shape)`` on several broadcasts, shapes exact, sums to roundoff."""
    exercise = 'ex10_unbroadcast'
    rng = np.random.default_rng(13)
    cases = [(rng.normal(size=gs), shape) for gs, shape in UNBROADCAST_CASES]
    got = []
    for g, shape in cases:
        result = _call(exercise, func, g.copy(), shape)
        try:
            got.append(np.asarray(result, dtype=np.float64))
        except (TypeError, ValueError):
            return _wrong(exercise, f'got {type(result).__name__}, not an array.',
                          'Return a NumPy array of the given shape.')

    def same(values: list, other: list) -> bool:
        # sums of at most 20 float64 numbers in any order: 1e-12 is roundoff
        return all(np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-12, atol=1e-12)
                   for a, b in zip(values, other))

    if same(got, [unbroadcast(g, s) for g, s in cases]):
        return _ok(exercise, 'right: axes added in front and stretched axes of length 1, '
                   'summed.')
    for variant, hint in _unbroadcast_variants():
        if same(got, [np.asarray(variant(g, s)) for g, s in cases]):
            return _wrong(exercise, 'not the broadcasting rule.', hint)
    bad = next(s for (g, s), a in zip(cases, got) if not same([a], [unbroadcast(g, s)]))
    return _wrong(exercise, f'wrong for a gradient summed back to shape {bad}.',
                  'Sum over the axes NumPy added in front, then over the axes of length 1 '
                  'with keepdims=True.')


def _problem(seed: int, N: int, D: int, H: int, C: int) -> tuple[np.ndarray, ...]:
    """x, t, W1, b1, W2, b2 of a random problem of the given sizes."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, D))
    t = rng.integers(0, C, size=N).astype(np.int32)
    W1, b1 = rng.normal(scale=0.5, size=(H, D)), rng.normal(scale=0.1, size=H)
    W2, b2 = rng.normal(scale=0.5, size=(C, H)), rng.normal(scale=0.1, size=C)
    return x, t, W1, b1, W2, b2


PROBLEMS = [(0, 5, 7, 6, 4), (1, 8, 3, 5, 3)]


def _engine(x: np.ndarray, t: np.ndarray, *params: np.ndarray) -> dict[str, np.ndarray]:
    W1, b1, W2, b2 = (Variable(p.copy()) for p in params)
    loss = F.softmax_cross_entropy(F.linear(F.relu(F.linear(x, W1, b1)), W2, b2), t)
    loss.backward()
    return {'W1': W1.grad, 'b1': b1.grad, 'W2': W2.grad, 'b2': b2.grad}


def _by_hand(x: np.ndarray, t: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray,
             b2: np.ndarray, *, mask: bool = True, mean: bool = True,
             softmax: bool = True) -> dict[str, np.ndarray]:
    """The reference in NumPy, with a chosen mistake switched on."""
    n = len(t)
    h = x @ W1.T + b1
    r = np.maximum(h, 0)
    s = r @ W2.T + b2
    e = np.exp(s - s.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True) if softmax else s
    gs = p - np.eye(s.shape[1])[t]
    if mean:
        gs = gs / n
    gh = gs @ W2 * ((h > 0) if mask else 1)
    return {'W1': gh.T @ x, 'b1': gh.sum(axis=0), 'W2': gs.T @ r, 'b2': gs.sum(axis=0)}


_MLP_MISTAKES = [
    ({'mask': False}, 'The ReLU is a gate: it passes the gradient where h > 0 and stops it '
                      'elsewhere.'),
    ({'mean': False}, 'The loss is the mean over the batch: the gradient of the scores is '
                      'divided by N.'),
    ({'softmax': False}, 'The gradient of the scores is the probabilities (softmax of the '
                         'scores) minus the one-hot labels, not the scores minus them.'),
]


@_checker(answer=lambda: (
    'gs = (softmax(s) - onehot) / N; gW2 = gs.T @ r; gb2 = gs.sum(0); gh = (gs @ W2) '
    '* (h > 0); gW1 = gh.T @ x; gb1 = gh.sum(0)'))
def ex10_mlp(func: Any) -> Feedback:
    """``mlp_grads(x, t, W1, b1, W2, b2)``: the gradients by hand, NumPy only, equal to
    the engine's on two problems."""
    exercise = 'ex10_mlp'
    names = ('W1', 'b1', 'W2', 'b2')
    for seed, *sizes in PROBLEMS:
        problem = _problem(seed, *sizes)
        with events.recording() as log:
            grads = _call(exercise, func, *(a.copy() for a in problem))
        if any(e.kind in ('variable_created', 'function_applied', 'backward_started')
               for e in log):
            return _wrong(exercise, 'the engine ran inside your function.',
                          'This is the backward by hand: NumPy arrays and operations only, '
                          'no Variable, no F function, no library FunctionNode, no backward.')
        if not isinstance(grads, Mapping) or set(grads) != set(names):
            return _wrong(exercise, f"return a dict with the keys {', '.join(names)}.",
                          'One gradient per parameter.')
        if any(v is ... for v in grads.values()):
            return _todo(exercise, 'every gradient')
        got = {k: np.asarray(grads[k], dtype=np.float64) for k in names}
        params = dict(zip(names, problem[2:]))
        wrong_shape = [k for k in names if got[k].shape != params[k].shape]
        if wrong_shape:
            return _wrong(exercise, f'{", ".join(wrong_shape)}: not the shape of the '
                          'parameter.', f'{", ".join(wrong_shape)}: a gradient has its '
                          "variable's shape; a W is (out, in), and a bias's gradient is "
                          'summed back over the batch.')
        want = _engine(*problem)

        def same(values: Mapping[str, np.ndarray], other: Mapping[str, np.ndarray]) -> bool:
            # float64, the same sums in another order: roundoff is below 1e-12 relative
            return all(np.allclose(values[k], other[k], rtol=1e-9, atol=1e-12) for k in names)

        if same(got, want):
            continue
        for kwargs, hint in _MLP_MISTAKES:
            if same(got, _by_hand(*problem, **kwargs)):
                return _wrong(exercise, "not the engine's gradients.", hint)
        bad = [k for k in names if not np.allclose(got[k], want[k], rtol=1e-9, atol=1e-12)]
        return _wrong(exercise, f"not the engine's gradients: {', '.join(bad)}.",
                      'Walk back from the loss: gs, then the second linear, the ReLU, the '
                      'first linear; check each against the pieces in the lesson.')
    return _ok(exercise, "the engine's gradients, by hand, on two networks of other sizes.")
