"""Checkers of lesson 9's gradient-checking part: the relative error, finding a planted
bug, fixing it, and what a central difference says next to a kink.

The relative error is tried on pairs chosen so that each usual variant of the formula
(no scale, scaled by one side only, by the sum, by one scale for all elements, the mean
instead of the largest, a denominator without absolute values, no ``tiny``) gives
another number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import autograd_lab as chainer
from autograd_lab import Variable, events, gradient_check

from .feedback import Feedback, _call, _checker, _ok, _todo, _wrong, _dict_answer

TINY = 1e-12

#: (a, b) pairs: every variant of the formula below misses at least one of them.
REL_ERROR_CASES = [
    (np.array([1.0, 2.0]), np.array([1.1, 2.0])),
    (np.array([3.0, 100.0]), np.array([3.3, 101.0])),
    (np.array([0.0, 0.0]), np.array([0.0, 0.0])),
    (np.array([1e-8]), np.array([2e-8])),
    (np.array([0.0]), np.array([1.0])),
    (np.array([-2.0, 5.0]), np.array([-1.0, 5.0])),
]


def rel_error(a: Any, b: Any, tiny: float = TINY) -> float:
    """max_i |a_i - b_i| / max(|a_i|, |b_i|, tiny): the lesson's relative error.

    >>> round(rel_error([1.0, 2.0], [1.1, 2.0]), 4)     # 0.1 / 1.1: the larger of the two
    0.0909
    >>> rel_error([0.0], [0.0])
    0.0
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), tiny)
    return float(np.max(np.abs(a - b) / scale))


def _variants() -> list[tuple[Callable[[np.ndarray, np.ndarray], float], str]]:
    """The usual wrong formulas, each with the hint that names it."""
    return [
        (lambda a, b: np.max(np.abs(a - b)), 'That is the absolute difference: divide each '
         'element\'s difference by the larger of |a| and |b| (and tiny).'),
        (lambda a, b: np.max(np.abs(a - b) / np.maximum(np.abs(a), TINY)), 'You divide by '
         '|a| only: the error must not depend on which argument comes first (try a = 0).'),
        (lambda a, b: np.max(np.abs(a - b) / np.maximum(np.abs(a) + np.abs(b), TINY)),
         'You divide by |a| + |b|: the lesson\'s scale is the larger of the two.'),
        (lambda a, b: np.max(np.abs(a - b)) / max(np.max(np.abs(a)), np.max(np.abs(b)), TINY),
         'One scale for all elements hides an error on a small element next to a large '
         'one: divide element by element.'),
        (lambda a, b: np.mean(np.abs(a - b) / np.maximum(np.maximum(np.abs(a), np.abs(b)),
                                                           TINY)),
         'That is the mean over the elements: take the largest, one wrong element is '
         'enough.'),
        (lambda a, b: np.max(np.abs(a - b) / np.maximum(np.maximum(a, b), TINY)),
         'Negative values: the scale is the larger of |a| and |b|, absolute values.'),
    ]


def _value(got: Any) -> float | None:
    try:
        return float(np.asarray(got, dtype=np.float64).reshape(()))
    except (TypeError, ValueError):
        return None


@_checker(answer=lambda: (
    'float(np.max(np.abs(a - b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), '
    'tiny)))'))
def ex09_rel_error(func: Any) -> Feedback:
    """``rel_error(a, b, tiny=1e-12)`` on pairs where its usual variants differ."""
    exercise = 'ex09_rel_error'
    got = []
    for a, b in REL_ERROR_CASES:
        result = _call(exercise, func, a.copy(), b.copy())
        value = _value(result)
        if value is None:
            return _wrong(exercise, f'got {type(result).__name__}, not one number.',
                          'Return one number: the largest element-wise error, a float.')
        got.append(value)
    if any(np.isnan(v) for v in got):
        return _wrong(exercise, 'got nan where both arrays are 0.',
                      '0 / 0 is nan: the tiny in the denominator keeps it away '
                      '(max(|a|, |b|, tiny)).')
    want = [rel_error(a, b) for a, b in REL_ERROR_CASES]
    # the answers are ratios of the same few float64 numbers: any order of operations
    # agrees to 1e-12; the variants miss by 10% or more on some case
    if np.allclose(got, want, rtol=1e-9, atol=0):
        return _ok(exercise, 'right, also for zeros, tiny values, negative values and a '
                   'small element next to a large one.')
    with np.errstate(divide='ignore', invalid='ignore'):
        for variant, hint in _variants():
            wrong = [float(variant(a, b)) for a, b in REL_ERROR_CASES]
            if np.allclose(got, wrong, rtol=1e-9, atol=0, equal_nan=True):
                return _wrong(exercise, 'not the relative error of the lesson.', hint)
    bad = sum(not np.isclose(g, w, rtol=1e-9, atol=0) for g, w in zip(got, want))
    return _wrong(exercise, f'wrong on {bad} of {len(want)} test pairs.',
                  'Element by element |a - b| / max(|a|, |b|, tiny), then the largest.')


#: where the planted bug of LogAbs is: gx lacks sign(x), so it is wrong for x < 0 only
BUG = {'input': 'x', 'where': 'x < 0'}
_WHERE = {'x<0': 'x < 0', 'negative': 'x < 0', 'x>0': 'x > 0', 'positive': 'x > 0',
          'everywhere': 'everywhere', 'both': 'everywhere'}


@_checker(answer=lambda: "{'input': 'x', 'where': 'x < 0'}")
def ex09_bug_where(bug: Any) -> Feedback:
    """Which input's gradient of the planted LogAbs is wrong, and for which sign of x."""
    exercise = 'ex09_bug_where'
    todo = "the input ('x' or 'w') and where ('x > 0', 'x < 0' or 'everywhere')"
    bug = _dict_answer(exercise, bug, ('input', 'where'), todo=todo, unfinished=todo,
                       hint="E.g. {'input': 'w', 'where': 'everywhere'}.")
    what = str(bug['input']).strip()
    where = _WHERE.get(str(bug['where']).replace(' ', '').lower())
    if what not in ('x', 'w') or where is None:
        return _wrong(exercise, "'input' is 'x' or 'w'; 'where' is 'x > 0', 'x < 0' or "
                      "'everywhere'.", 'Read the names off the table\'s columns and rows.')
    if what != BUG['input']:
        return _wrong(exercise, 'not that input.', "Read the table column by column: a "
                      'right gradient has a relative error below 1e-4 in both rows.')
    if where != BUG['where']:
        return _wrong(exercise, 'the right input, not the right place.',
                      'Read its column row by row: a relative error below 1e-4 means '
                      'right there.')
    return _ok(exercise, 'right: gx is wrong where x < 0, and right where x > 0. What is '
               'different about |x| there?')


def _log_abs(node_class: type, x: Any, w: Any) -> Variable:
    y, = node_class().apply((x, w))
    return y


def _analytic(node_class: type, x: np.ndarray, w: np.ndarray, gy: np.ndarray) -> tuple:
    """(gx, gw, how many backward passes ran): one is ours; more means the learner's
    backward started one of its own (chainer.grad, y.backward) to get the answer."""
    xv, wv = Variable(x.copy()), Variable(w.copy())
    y = _log_abs(node_class, xv, wv)
    y.grad = gy.copy()
    with events.recording() as log:
        y.backward()
    return xv.grad, wv.grad, sum(e.kind == 'backward_started' for e in log)


def _expected(x: np.ndarray, w: np.ndarray, gy: np.ndarray) -> tuple:
    return gy * w * np.sign(x) / (1 + np.abs(x)), gy * np.log1p(np.abs(x))


@_checker(answer=lambda: (
    'gx = gy * w * F.sign(x) / (1 + F.absolute(x)); gw = gy * F.log1p(F.absolute(x))'))
def ex09_fixed(node_class: Any) -> Feedback:
    """``FixedLogAbs``: y = w log(1 + |x|) with a right backward, checked at points of
    both signs of x (kept 0.5 away from the kink at 0) with gradient_check and against
    the closed form, for each input on its own."""
    exercise = 'ex09_fixed'
    if node_class is ...:
        return _todo(exercise, 'your class')
    if not (isinstance(node_class, type) and issubclass(node_class, chainer.FunctionNode)):
        return _wrong(exercise, f'expected a FunctionNode class, got {node_class!r}.',
                      'A FunctionNode class: subclass LogAbs and write its backward.')
    rng = np.random.default_rng(12)
    for sign in (1.0, -1.0):
        x = sign * rng.uniform(0.5, 2.0, size=4)
        w, gy = rng.normal(size=4), rng.normal(size=4)
        result = _call(exercise, _analytic, node_class, x, w, gy)
        *grads, passes = result
        if passes > 1:
            return _wrong(exercise, 'your backward ran a backward of its own.',
                          'A backward by hand writes the local derivatives (F functions of '
                          'the retained inputs times gy), not chainer.grad of the forward.')
        want = _expected(x, w, gy)
        for name, got, right in zip(('gx', 'gw'), grads, want):
            if got is None or np.shape(got) != right.shape:
                return _wrong(exercise, f'{name} is missing or has the wrong shape.',
                              'Return (gx, gw), each of its input\'s shape.')
            # the closed form and the backward compute the same float64 expression: 1e-9
            if not np.allclose(got, right, rtol=1e-9, atol=1e-12):
                where = 'x > 0' if sign > 0 else 'x < 0'
                hint = ('gx: d|x|/dx is sign(x), -1 where x < 0.' if name == 'gx' and sign < 0
                        and np.allclose(got, -right, rtol=1e-9) else
                        f'{name}: each gradient is gy times the local derivative in its own '
                        'input.')
                return _wrong(exercise, f'{name} is still wrong where {where}.', hint)
        try:
            gradient_check.check_backward(lambda a, b: _log_abs(node_class, a, b), (x, w), gy)
        except AssertionError:
            return _wrong(exercise, 'check_backward fails.', 'Build backward from Variables '
                          'and F functions of the retained inputs.')
        ggx = (rng.normal(size=4), rng.normal(size=4))
        try:
            gradient_check.check_double_backward(
                lambda a, b: _log_abs(node_class, a, b), (x, w), gy, ggx)
        except Exception as error:  # learner code: an AssertionError or any failure
            return _wrong(exercise, f'check_double_backward fails ({type(error).__name__}).',
                          'Build backward from Variables and F functions of the retained '
                          'inputs, as the exercise says: check_double_backward '
                          'differentiates your backward, and one computed in NumPy on '
                          '.array is a constant to the engine, with no gradient of its own.')
    return _ok(exercise, 'right for x of both signs, for both inputs.')


#: exercise 9.6: relu's central difference with eps = 1e-3 at 0.0004 and -0.0004
KINK_EPS = 1e-3
KINK_AT = (0.0004, -0.0004)


def _central_relu(x: float, eps: float = KINK_EPS) -> float:
    return (max(0.0, x + eps) - max(0.0, x - eps)) / (2 * eps)


@_checker(answer=lambda: (
    '{0.0004: (0.0014 - 0) / 0.002 = 0.7, -0.0004: (0.0006 - 0) / 0.002 = 0.3}'))
def ex09_kink(numeric: Any) -> Feedback:
    """The predicted central differences of relu next to its kink."""
    exercise = 'ex09_kink'
    numeric = _dict_answer(exercise, numeric, KINK_AT, key=float,
                           todo='a number for each point', unfinished='a number for each point',
                           hint='A dict: one number per point, {0.0004: ..., -0.0004: ...}.')
    try:
        got = {x: float(v) for x, v in numeric.items()}
    except (TypeError, ValueError):
        return _wrong(exercise, 'give a dict {0.0004: ..., -0.0004: ...} of numbers.',
                      'A dict: one number per point.')
    want = {x: _central_relu(x) for x in KINK_AT}

    def matches(values: Mapping[float, float]) -> bool:
        # one-digit decimals by hand: 1e-6 separates them from every mistake
        return all(abs(got[x] - values[x]) < 1e-6 for x in KINK_AT)

    if matches(want):
        return _ok(exercise, 'right: each difference straddles the kink and averages the two '
                   'slopes, weighted by how much of the step lies on each side.')
    a, b = KINK_AT
    mistakes = [
        ({a: 1.0, b: 0.0}, 'That is the exact slope, what backward gives. x + eps and x - eps '
         'lie on both sides of 0: work out relu at both.'),
        ({a: 0.5, b: 0.5}, 'Not half and half: the point is not at 0, so more of the step lies '
         'on one side.'),
        ({a: 2 * want[a], b: 2 * want[b]}, 'The central difference divides by 2 eps, the '
         'width of the step.'),
        ({a: want[b], b: want[a]}, 'Swapped: at x = +0.0004 more of the step lies where '
         'relu has slope 1.'),
        ({a: 1.0, b: 1.0}, 'relu(x - eps) is 0 where x - eps < 0.'),
    ]
    for values, hint in mistakes:
        if matches(values):
            return _wrong(exercise, 'not what the central difference gives.', hint)
    return _wrong(exercise, 'not what the central difference gives.',
                  'Compute relu(x + eps) and relu(x - eps) (max(0, .)), subtract, divide by '
                  '2 eps.')

