"""Lesson 10, mixed precision: float16 underflow and loss scaling."""

from __future__ import annotations

from typing import Any

import numpy as np


from .feedback import (
    _checker,
    _as_array,
    _compare,
    _fmt,
    _ok,
    _todo,
    _wrong,
    Feedback,
)


FLOAT16_CANDIDATES = (1e-9, 2e-8, 4e-8, 1e-6)


@_checker
def ex10_zero_in_float16(values: Any) -> Feedback:
    """Predicted: which of 1e-9, 2e-8, 4e-8, 1e-6 become exactly 0 in float16."""
    exercise = 'ex10_zero_in_float16'
    if values is ...:
        return _todo(exercise, 'a set of the values that become 0, e.g. {1e-9}')
    try:
        got = {float(v) for v in values}
    except (TypeError, ValueError):
        return _wrong(exercise, 'give a set of numbers, e.g. {1e-9}.',
                      f'Pick from {list(FLOAT16_CANDIDATES)}.')
    if not got <= set(FLOAT16_CANDIDATES):
        return _wrong(exercise, f'pick among {list(FLOAT16_CANDIDATES)} only.',
                      'Copy the values from the list.')
    want = {v for v in FLOAT16_CANDIDATES if np.float16(v) == 0}
    if got == want:
        return _ok(exercise, f'right: {sorted(want)} round to 0; the others survive (as '
                   'subnormals, with few digits).')
    tiny = float(np.finfo(np.float16).smallest_subnormal)
    if got > want and max(got - want) < tiny:
        hint = (f'float16 rounds to the nearest value it has. The smallest above 0 is {tiny:.3g}:'
                f' anything above half of it ({tiny / 2:.3g}) rounds up to it, not down to 0.')
    elif got > want:
        hint = ('1e-6 is below the smallest normal float16 (6.1e-5) but not 0: it is stored '
                'as a subnormal, with fewer digits.')
    elif not got:
        hint = (f'float16 has nothing between 0 and {tiny:.3g}: smaller values must round to '
                'one of the two.')
    else:
        hint = (f'Values below half the smallest subnormal ({tiny / 2:.3g}) round to 0: '
                f'{sorted(want - got)} too.')
    return _wrong(exercise, f'you said {sorted(got)}.', hint)


@_checker
def ex10_unscaled(grad: Any) -> Feedback:
    """The true float16 gradient of loss = 1e-4 * sum(x * 1e-4) at x = ones(3), via scaling."""
    want = np.full(3, 1e-8)
    hint = 'Backward with loss_scale=S, then divide x.grad (as float32) by S.'
    if grad is ...:
        return _todo('ex10_unscaled', 'the unscaled gradient')
    got = _as_array(grad)
    if got is not None and got.shape == (3,) and np.all(got == 0):
        return _wrong('ex10_unscaled', 'the gradient is all zeros.',
                      "1e-8 is below float16's smallest number: it underflowed. Scale the "
                      'loss, and divide in float32 (in float16 the division underflows '
                      'again).')
    if got is not None and got.shape == (3,) and np.all(got > 1e-6):
        return _wrong('ex10_unscaled', f'x.grad = {_fmt(got)} is still scaled.',
                      'The gradient is multiplied by loss_scale: divide by it.')
    if got is not None and got.shape == (3,) and np.all((got > 0) & (got < 1e-10)):
        return _wrong('ex10_unscaled', f'x.grad = {_fmt(got)} is too small.',
                      'Divide by the scale once: the gradient is S times too large, not S '
                      'squared.')
    return _compare('ex10_unscaled', 'x.grad', grad, want, hint, rtol=0.05, atol=0)


@_checker
def ex10_max_scale(scale: Any) -> Feedback:
    """The largest power of two S such that a gradient of 3.0 times S stays finite in float16."""
    largest = float(np.finfo(np.float16).max)
    want = 2.0 ** np.floor(np.log2(largest / 3.0))
    return _compare('ex10_max_scale', 'S', scale, want,
                    'float16 tops out at 65504: 3 * S must stay at or below that.',
                    mistakes=[(want * 2, f'3 * {want * 2:g} = {3 * want * 2:g} is above '
                               '65504: it overflows to inf.'),
                              (largest / 3, 'S should be a power of two (scaling by one is '
                               'exact in floating point).'),
                              (want * 4, f'{want * 4:g} alone is already above 65504.'),
                              (want / 2, f'There is a larger one: 3 * {want:g} = '
                               f'{3 * want:g} is still finite.')], rtol=0, atol=0)
