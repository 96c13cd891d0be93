"""Lesson 1, variables and derivatives: accumulation, a cubic's gradient, a central difference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


from .feedback import (
    _ok,
    _checker,
    _call,
    _check_array,
    _compare,
    Feedback,
)


@_checker
def ex01_accumulate(prediction: Any) -> Feedback:
    """Predicted x.grad after a second y.backward() of y = x**2 - 2x + 1 at x = 5."""
    return _compare('ex01_accumulate', 'x.grad', prediction, [16.0],
                    'x.grad holds 8 before the call. Does backward() replace what '
                    'is there, or combine with it? Decide, then work out the number.',
                    mistakes=[([8.0], 'Gradients accumulate: each backward() adds its 8 to '
                               'x.grad, until x.cleargrad().'),
                              ([0.0], 'Nothing resets x.grad between two backward() calls: '
                               'the second adds its 8 to the 8 already there.'),
                              ([64.0], 'The two gradients are added, not multiplied.'),
                              ([24.0], 'backward() adds into x.grad once per call: two calls, '
                               'two contributions, no more.'),
                              ([10.0], 'The derivative of y = x**2 - 2x + 1 at 5 is the slope '
                               'there, not y + 1; each backward() adds that slope once '
                               'more.')],
                    todo='the number you predict (without running anything)')


@_checker(answer=lambda: 'x.grad = 3 * x**2 - 3 = [0, -3, 9]')
def ex01_cubic(grad: Any) -> Feedback:
    """x = [-1, 0, 2], y = x**3 - 3*x: the elementwise derivative in x.grad."""
    x = np.array([-1.0, 0.0, 2.0])
    return _compare('ex01_cubic', 'x.grad', grad, 3 * x**2 - 3,
                    'Differentiate y term by term (the power rule, then the -3x term) and '
                    'evaluate at each element of x.',
                    mistakes=[(3 * x**2, 'The -3x term is missing: it contributes its own '
                               'constant derivative.'),
                              (x**3 - 3 * x, 'That is y itself: read x.grad after '
                               'y.backward(), not y.array.'),
                              (3 * x**2 - 3 * x, 'The derivative of 3x is a constant; you kept '
                               'the x.'),
                              (3 * x**2 + 3, 'Sign: the -3x term contributes a negative '
                               'constant.'),
                              (x**2 - 3, 'Power rule: the exponent 3 comes down as a factor '
                               '(x**3 gives 3 times x squared).'),
                              (2 * (3 * x**2 - 3), 'Every element is twice the derivative: '
                               'backward ran twice on the same x (the cell was run again), '
                               'and a second backward adds to x.grad. Make x afresh in the '
                               'cell (or call x.cleargrad() first), then run it once.')],
                    todo='the x.grad that backward() computes (run the cell above first)')


def _central(f: Callable[[Any], Any], x: float, h: float) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def _difference_mistakes(f: Callable[[Any], Any], x: float, h: float) -> list[tuple[Any, str]]:
    """The usual slips in a central difference, as the values they give for f at x, h."""
    return [
        ((f(x + h) - f(x - h)) / 2 * h, 'Precedence: / 2*h divides by 2 and then MULTIPLIES '
         'by h. Put the whole denominator in parentheses.'),
        ((f(x + h) - f(x)) / h, 'That is the one-sided (forward) difference: its error '
         'shrinks only like h. Step to both sides of x.'),
        ((f(x + h) - f(x - h)) / h, 'The two points are 2h apart: divide by 2 * h.'),
        (f(x + h) - f(x - h), 'Divide the difference by the distance between the two points.'),
        ((f(x) - f(x - h)) / h, 'That is the one-sided (backward) difference; step to both '
         'sides of x.'),
        ((f(x - h) - f(x + h)) / (2 * h), 'Sign: subtract the value on the left from the '
         'value on the right.'),
    ]


@_checker(answer=lambda: 'central_difference(f, x, h) = (f(x + h) - f(x - h)) / (2 * h)')
def ex01_central_difference(central_difference: Any) -> Feedback:
    """central_difference(f, x, h) = (f(x + h) - f(x - h)) / (2h), tried on two functions
    and steps (a cube at 2 with h = 0.1, sin at 1 with h = 0.001), where every listed slip
    gives a different number."""
    exercise = 'ex01_central_difference'
    hint = ('Evaluate f one step h to each side of x and divide the difference by the distance '
            'between those two points.')

    def cube(v: Any) -> Any:
        return v ** 3

    tries = [(cube, 2.0, 0.1, 'cube'), (np.sin, 1.0, 1e-3, 'np.sin')]
    for f, x, h, name in tries:
        result = _call(exercise, central_difference, f, x, h)
        # rtol 1e-9: float64 rounding of f(x+h) - f(x-h), divided by 2h, is at most
        # eps * |f| / |f(x+h) - f(x-h)| ~ 1e-13 relative here, whatever the order of the
        # operations; every listed slip is off by more than 1e-3 relative.
        _check_array(exercise, f'central_difference({name}, {x}, {h})', result,
                     _central(f, x, h), hint, rtol=1e-9, atol=1e-12,
                     mistakes=_difference_mistakes(f, x, h),
                     todo='the body of your function')
    return _ok(exercise, 'right, on a cube and on sin, each with its own step h.')
