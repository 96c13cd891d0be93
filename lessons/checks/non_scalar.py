"""Lesson 4, non-scalar outputs: the seed of backward."""

from __future__ import annotations

from typing import Any

import numpy as np


from .feedback import (
    _checker,
    _compare,
    Feedback,
)


@_checker
def ex04_sum_sin(grad: Any) -> Feedback:
    """x = linspace(0, pi, 5): gradient of F.sum(F.sin(x))."""
    x = np.linspace(0, np.pi, 5)
    return _compare('ex04_sum_sin', 'x.grad', grad, np.cos(x),
                    'The sum passes a 1 to every element; the derivative of sin is cos.',
                    mistakes=[(np.sin(x), 'That is sin(x), the value; differentiate it.'),
                              (-np.cos(x), 'The derivative of sin is +cos (it is cos whose '
                               'derivative is -sin).'),
                              (np.ones(5), 'The sum passes 1 to every element, and then sin '
                               'multiplies it by its own derivative, cos(x).')])


@_checker
def ex04_weighted(prediction: Any) -> Feedback:
    """Predicted x.grad of y = x**2 at x = [1, 2, 3] with the seed y.grad = [1, 0, 10]."""
    x = np.array([1.0, 2.0, 3.0])
    w = np.array([1.0, 0.0, 10.0])
    return _compare('ex04_weighted', 'x.grad', prediction, w * 2 * x,
                    'Each element of the seed multiplies the matching derivative 2x.',
                    mistakes=[(2 * x, 'That is the gradient for a seed of ones; the seed '
                               '[1, 0, 10] weights each element.'),
                              (w, 'That is the seed alone: multiply each entry by the '
                               'derivative 2x of its element.'),
                              (w * x**2, 'That multiplies the seed by y = x^2, the value; use '
                               'the derivative 2x.'),
                              (w * x, 'The derivative of x^2 is 2x, not x.')])
