"""Lesson 8, higher-order derivatives: double backprop, tanh's derivatives, Newton."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from autograd_lab import events

from .feedback import (
    _call,
    _check_array,
    _checker,
    _as_array,
    _compare,
    _fmt,
    _matches,
    _ok,
    _todo,
    _wrong,
    Feedback,
)


@_checker(answer=lambda: (
                'None: g1 was computed without a graph, so chainer.grad has nothing to '
                'differentiate'))
def ex08_no_double(prediction: Any) -> Feedback:
    """Predicted g2 of g1, = grad([x**3], [x]) (no double backprop), g2, = grad([g1], [x])."""
    if prediction is ...:
        return _todo('ex08_no_double', 'your prediction (a number, or None)')
    if isinstance(prediction, str):
        _wrong('ex08_no_double', f'you predicted {prediction!r}.', 'Nothing raises: '
               'chainer.grad answers, with None, when there is no graph to differentiate.')
    if prediction is None:
        return _ok('ex08_no_double', 'right: g1 was computed without a graph, so there is '
                   'nothing to differentiate and chainer.grad gives None.')
    mistakes = [(18.0, 'That is d2/dx2 x^3 = 6x at x = 3, what you get WITH '
                 'enable_double_backprop=True. Without it g1 has no graph: the answer is None.'),
                (0.0, 'None, not 0: g1 has no graph behind it, so the engine cannot say '
                 'anything about its derivative, not even that it is zero.'),
                (27.0, 'That is g1 = 3x^2 itself; differentiating it again needs its graph, '
                 'which was not recorded.'),
                (6.0, 'That is the factor of 6x without x; and without enable_double_backprop '
                 'g1 has no graph to differentiate at all.')]
    got = _as_array(prediction)
    for value, hint in mistakes:
        if got is not None and got.size == 1 and _matches(got, value, 1e-4, 1e-5):
            return _wrong('ex08_no_double', f'g2 = {_fmt(got)} is not right.', hint)
    return _wrong('ex08_no_double', f'g2 = {prediction!r} is not right.',
                  'Without enable_double_backprop=True, g1 has no creator: there is no graph '
                  'to differentiate, and chainer.grad says so with None.')


@_checker(answer=lambda: (
                '[1 - t**2, -2t(1 - t**2), -2(1 - t**2)(1 - 3t**2)] with t = tanh(0.5), '
                'each chainer.grad of the one before'))
def ex08_tanh(derivatives: Any) -> Feedback:
    """[1st, 2nd, 3rd] derivative of tanh at x = 0.5."""
    if derivatives is ...:
        return _todo('ex08_tanh', '[g1, g2, g3]')
    if (isinstance(derivatives, (list, tuple)) and len(derivatives) == 3
            and any(d is None for d in derivatives)):
        return _wrong('ex08_tanh', 'one of the derivatives is None.',
                      'chainer.grad returns None when the gradient was not recorded: pass '
                      'enable_double_backprop=True for every order but the last.')
    t = np.tanh(0.5)
    g1 = 1 - t**2
    want = [g1, -2 * t * (1 - t**2), -2 * (1 - t**2) * (1 - 3 * t**2)]
    if isinstance(derivatives, (list, tuple)) and len(derivatives) != 3:
        _wrong('ex08_tanh', f'you gave {len(derivatives)} derivative(s).',
               'Three: the first, second and third derivative, each the grad of the one '
               'before.')
    return _compare('ex08_tanh', 'derivatives', derivatives, want,
                    'Differentiate each result again with chainer.grad([g], [x], '
                    'enable_double_backprop=True).', mistakes=[
                        ([g1, g1, g1], 'Each order differentiates the previous derivative: '
                         'g2 = grad of g1, not of tanh(x) again.'),
                        ([g1, 2 * g1, 3 * g1], 'Those are x.grad after repeated backward() '
                         'calls: they accumulate. Use chainer.grad on the previous derivative '
                         'instead.'),
                        ([t, want[0], want[1]], 'The list starts with tanh(x) itself, the '
                         'value; start from its first derivative.'),
                        ([g1, -want[1], -want[2]], 'Sign: differentiate g1 as it is (1 - '
                         'tanh**2 falls for x > 0).')])


@_checker
def ex08_hvp(hv: Any) -> Feedback:
    """H v for f(x) = x0**2 * x1 + x1**3 at x = [1, 2], v = [1, 0]."""
    x0, x1 = 1.0, 2.0
    hess = np.array([[2 * x1, 2 * x0], [2 * x0, 6 * x1]])
    gradient = np.array([2 * x0 * x1, x0**2 + 3 * x1**2])
    v = np.array([1.0, 0.0])
    return _compare('ex08_hvp', 'Hv', hv, hess @ v,
                    'Take g = grad(f), form F.sum(g * v), and differentiate that once more.',
                    mistakes=[(gradient, 'That is the gradient of f; the Hessian-vector '
                               'product differentiates g . v once more.'),
                              (gradient @ v, 'That is g . v, a number; differentiate it once '
                               'more in x to get the vector Hv.'),
                              (hess @ v[::-1], 'That is H times [0, 1]; use v = [1, 0].'),
                              (hess, 'That is the whole Hessian; Hv is one vector, its '
                               'product with v.'),
                              (np.array([2 * x1, 0.0]), 'The term x0**2 * x1 depends on both '
                               'x0 and x1: its mixed derivative is not 0.')])


def _quartic(x: float) -> tuple[float, float, float]:
    """f(x) = x**4 - 3x**2 + x and its first two derivatives."""
    return x**4 - 3 * x**2 + x, 4 * x**3 - 6 * x + 1, 12 * x**2 - 6


def _iterate(step: Callable[[float], float], x0: float, steps: int = 10) -> list[float]:
    out, x = [], x0
    for _ in range(steps):
        x = step(x)
        out.append(x)
    return out


def _newton_slips() -> list[tuple[Callable[[float], float], str]]:
    """The usual wrong steps, as functions of the position."""
    def d(x: float, i: int) -> float:
        return _quartic(x)[i]
    return [
        (lambda x: x + d(x, 1) / d(x, 2), "Sign: the step subtracts f'/f''; adding it walks "
         'uphill.'),
        (lambda x: x - d(x, 0) / d(x, 1), "That step (f/f') looks for a root of f itself; a "
         "minimum is a root of f', so divide f' by f''."),
        (lambda x: x - d(x, 2) / d(x, 1), "The ratio is upside down: f' over f''."),
        (lambda x: x - d(x, 1), "That is a gradient-descent step; Newton divides f' by the "
         "curvature f''."),
    ]


#: Where the student's Newton iteration is started: from 2 it reaches the local minimum
#: near 1.13, from -2 the global one near -1.30.
NEWTON_STARTS = (2.0, -2.0)


@_checker(answer=lambda: 'x <- x - f\'(x) / f\'\'(x), ten times; from 2.0: '
          + ', '.join(f'{v:.6g}' for v in _iterate(lambda x: x - _quartic(x)[1]
                                                   / _quartic(x)[2], 2.0)))
def ex08_newton(newton: Any) -> Feedback:
    """newton(x0) returns the 10 Newton iterates for the minimum of f(x) = x**4 - 3x**2 + x,
    with f' and f'' from the engine; tried from two starts, every iterate compared."""
    exercise = 'ex08_newton'

    def right(x: float) -> float:
        return x - _quartic(x)[1] / _quartic(x)[2]

    for x0 in NEWTON_STARTS:
        with events.recording() as log:
            iterates = _call(exercise, newton, x0)
        got = _as_array(iterates)
        if got is None or got.ndim != 1:
            _wrong(exercise, f'newton({x0}) should return the list of positions, got '
                   f'{type(iterates).__name__}.', 'Append the position after each step to a '
                   'list and return the list.')
        want = _iterate(right, x0)
        if got.size == len(want) + 1 and np.isclose(got[0], x0):
            _wrong(exercise, f'newton({x0}) has {got.size} positions.', 'List the position '
                   'after each of the 10 steps, not the start.')
        if got.size != len(want):
            _wrong(exercise, f'newton({x0}) has {got.size} positions.', 'One position per '
                   'step, 10 steps.')
        # rtol 1e-6: f', f'' and the step in float32 agree to ~1e-7 relative; every listed
        # slip is off by more than 1e-2 at the first step already, which is where a wrong
        # rule shows (later steps of a wrong rule may diverge)
        for step, hint in _newton_slips():
            if not np.isclose(got[0], want[0], rtol=1e-6) and np.isclose(got[0], step(x0),
                                                                          rtol=1e-6):
                _wrong(exercise, f'newton({x0}): the first step is not right.', hint)
        restarted = [right(x0)] * len(want)
        _check_array(exercise, f'newton({x0})', got, want,
                     "x <- x - f'(x) / f''(x), each step from the previous position.",
                     mistakes=[(restarted, 'Each step starts from the position the previous '
                                'one reached, not from the start again.')],
                     rtol=1e-6, atol=1e-9, todo='the body of newton')
        runs = sum(e.kind == 'backward_started' for e in log)
        if runs < 2 * len(want):
            _wrong(exercise, f'newton({x0}) ran {runs} backward pass(es) for {len(want)} '
                   'steps.', "Take f' and f'' from the engine at every step: chainer.grad "
                   'twice (the first with enable_double_backprop=True), not written by hand.')
    return _ok(exercise, 'every iterate is right, from both starts; from 2 Newton settles at '
               'the local minimum near 1.13, from -2 at the global one near -1.30.')
