"""Lesson 6, higher-order derivatives: double backprop, tanh's derivatives, Newton."""

from __future__ import annotations

from typing import Any

import numpy as np


from .feedback import (
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


@_checker
def ex06_no_double(prediction: Any) -> Feedback:
    """Predicted g2 of g1, = grad([x**3], [x]) (no double backprop), g2, = grad([g1], [x])."""
    if prediction is ...:
        return _todo('ex06_no_double', 'your prediction (a number, or None)')
    if prediction is None:
        return _ok('ex06_no_double', 'right: g1 was computed without a graph, so there is '
                   'nothing to differentiate and chainer.grad gives None.')
    mistakes = [(18.0, 'That is d2/dx2 x^3 = 6x at x = 3, what you get WITH '
                 'enable_double_backprop=True. Without it g1 has no graph: the answer is None.'),
                (0.0, 'None, not 0: g1 has no graph behind it, so the engine cannot say '
                 'anything about its derivative, not even that it is zero.'),
                (27.0, 'That is g1 = 3x^2 itself; differentiating it again needs its graph, '
                 'which was not recorded.')]
    got = _as_array(prediction)
    for value, hint in mistakes:
        if got is not None and got.size == 1 and _matches(got, value, 1e-4, 1e-5):
            return _wrong('ex06_no_double', f'g2 = {_fmt(got)} is not right.', hint)
    return _wrong('ex06_no_double', f'g2 = {prediction!r} is not right.',
                  'Without enable_double_backprop=True, g1 has no creator: there is no graph '
                  'to differentiate, and chainer.grad says so with None.')


@_checker
def ex06_tanh(derivatives: Any) -> Feedback:
    """[1st, 2nd, 3rd] derivative of tanh at x = 0.5."""
    if derivatives is ...:
        return _todo('ex06_tanh', '[g1, g2, g3]')
    if (isinstance(derivatives, (list, tuple)) and len(derivatives) == 3
            and any(d is None for d in derivatives)):
        return _wrong('ex06_tanh', 'one of the derivatives is None.',
                      'chainer.grad returns None when the gradient was not recorded: pass '
                      'enable_double_backprop=True for every order but the last.')
    t = np.tanh(0.5)
    g1 = 1 - t**2
    want = [g1, -2 * t * (1 - t**2), -2 * (1 - t**2) * (1 - 3 * t**2)]
    return _compare('ex06_tanh', 'derivatives', derivatives, want,
                    'Differentiate each result again with chainer.grad([g], [x], '
                    'enable_double_backprop=True).', mistakes=[
                        ([g1, g1, g1], 'Each order differentiates the previous derivative: '
                         'g2 = grad of g1, not of tanh(x) again.'),
                        ([g1, 2 * g1, 3 * g1], 'Those are x.grad after repeated backward() '
                         'calls: they accumulate. Use chainer.grad on the previous derivative '
                         'instead.')])


@_checker
def ex06_hvp(hv: Any) -> Feedback:
    """H v for f(x) = x0**2 * x1 + x1**3 at x = [1, 2], v = [1, 0]."""
    x0, x1 = 1.0, 2.0
    hess = np.array([[2 * x1, 2 * x0], [2 * x0, 6 * x1]])
    gradient = np.array([2 * x0 * x1, x0**2 + 3 * x1**2])
    v = np.array([1.0, 0.0])
    return _compare('ex06_hvp', 'Hv', hv, hess @ v,
                    'Take g = grad(f), form F.sum(g * v), and differentiate that once more.',
                    mistakes=[(gradient, 'That is the gradient of f; the Hessian-vector '
                               'product differentiates g . v once more.'),
                              (gradient @ v, 'That is g . v, a number; differentiate it once '
                               'more in x to get the vector Hv.'),
                              (hess @ v[::-1], 'That is H times [0, 1]; use v = [1, 0].'),
                              (hess, 'That is the whole Hessian; Hv is one vector, its '
                               'product with v.')])


@_checker
def ex06_newton(x_final: Any) -> Feedback:
    """Newton's method for the minimum of f(x) = x**4 - 3x**2 + x from x = 2."""
    # f'(x) = 4x^3 - 6x + 1; the stationary point Newton reaches from 2 is the largest root.
    roots = np.roots([4.0, 0.0, -6.0, 1.0]).real
    root_of_f = np.roots([1.0, 0.0, -3.0, 1.0, 0.0]).real
    return _compare('ex06_newton', 'x', x_final, roots.max(),
                    "The minimisation step is x - f'(x) / f''(x); repeat it 10 times.",
                    mistakes=[(root_of_f.max(), "That is a root of f itself (x - f/f'); "
                               "a minimum needs f'/f''."),
                              (1.5, "That is after one step; run the step 10 times, each "
                               "from the previous position."),
                              (_newton_ascent(), "The step subtracts f'/f''; adding it "
                               'walks the wrong way.')], rtol=1e-3, atol=1e-4)


def _newton_ascent() -> float:
    x = 2.0
    for _ in range(10):
        x += (4 * x**3 - 6 * x + 1) / (12 * x**2 - 6)
    return x
