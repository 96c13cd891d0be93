"""Lesson 1, variables and derivatives: accumulation, a cubic's gradient, a central difference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


from .feedback import (
    _call,
    _check_array,
    _compare,
    Feedback,
)


def ex01_accumulate(prediction: Any) -> Feedback:
    """Predicted x.grad after a second y.backward() of y = x**2 - 2x + 1 at x = 5."""
    return _compare('ex01_accumulate', 'x.grad', prediction, [16.0],
                    'backward() adds into x.grad; it never overwrites it.',
                    mistakes=[([8.0], 'Gradients accumulate: each backward() adds its 8 to '
                               'x.grad, until x.cleargrad().'),
                              ([0.0], 'Nothing resets x.grad between two backward() calls: '
                               'the second adds its 8 to the 8 already there.'),
                              ([64.0], 'The two gradients are added, not multiplied.')])


def ex01_cubic(grad: Any) -> Feedback:
    """x = [-1, 0, 2], y = x**3 - 3*x: the elementwise derivative in x.grad."""
    x = np.array([-1.0, 0.0, 2.0])
    return _compare('ex01_cubic', 'x.grad', grad, 3 * x**2 - 3,
                    'd/dx (x^3 - 3x) = 3x^2 - 3, evaluated at each element of x.',
                    mistakes=[(3 * x**2, 'The -3x term contributes -3 to the derivative.'),
                              (x**3 - 3 * x, 'That is y itself: read x.grad after '
                               'y.backward(), not y.array.'),
                              (3 * x**2 - 3 * x, 'The derivative of 3x is 3, not 3x.')])


def _central(f: Callable[[Any], Any], x: float, h: float) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def ex01_central_difference(central_difference: Any) -> Feedback:
    """central_difference(f, x, h) = (f(x + h) - f(x - h)) / (2h)."""
    exercise = 'ex01_central_difference'

    def cube(v: Any) -> Any:
        return v ** 3

    result, failure = _call(exercise, central_difference, cube, 2.0, 0.1)
    if failure is not None:
        return failure
    hint = 'Step h to each side of x: (f(x + h) - f(x - h)) / (2 * h).'
    failed = _check_array(exercise, 'central_difference(cube, 2.0, 0.1)', result,
                  _central(cube, 2.0, 0.1), hint, rtol=1e-9, atol=1e-12, mistakes=[
                      ((cube(2.1) - cube(2.0)) / 0.1, 'That is the one-sided (forward) '
                       'difference: its error shrinks only like h. Step to both sides of x.'),
                      ((cube(2.1) - cube(1.9)) / 0.1, 'The two points are 2h apart: divide '
                       'by 2 * h.'),
                      (cube(2.1) - cube(1.9), 'Divide the difference by the distance between '
                       'the two points, 2 * h.'),
                      ((cube(2.0) - cube(1.9)) / 0.1, 'That is the one-sided (backward) '
                       'difference; step to both sides of x.')])
    if failed is not None:
        return failed
    # a second function and step, so that no constant can pass
    result, failure = _call(exercise, central_difference, np.sin, 1.0, 1e-3)
    if failure is not None:
        return failure
    return _compare(exercise, 'central_difference(np.sin, 1.0, 0.001)', result,
                    _central(np.sin, 1.0, 1e-3), hint, rtol=1e-9, atol=1e-12)
