"""Lesson A3, mixed precision: float16 underflow and loss scaling."""

from __future__ import annotations

from typing import Any

import numpy as np

from autograd_lab import events


from .feedback import (
    _call,
    _check_array,
    _checker,
    _as_array,
    _compare,
    _ok,
    _todo,
    _wrong,
    Feedback,
)


FLOAT16_CANDIDATES = (1e-9, 2e-8, 4e-8, 1e-6)


@_checker(answer=lambda: (
                '{1e-09, 2e-08}: below half the smallest float16 subnormal'))
def exA3_zero_in_float16(values: Any) -> Feedback:
    """Predicted: which of 1e-9, 2e-8, 4e-8, 1e-6 become exactly 0 in float16."""
    exercise = 'exA3_zero_in_float16'
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
    elif 1e-6 in got:
        hint = ('1e-6 is below the smallest normal float16 (6.1e-5) but not 0: it is stored '
                'as a subnormal, with fewer digits.')
    elif not got:
        hint = (f'float16 has nothing between 0 and {tiny:.3g}: smaller values must round to '
                'one of the two.')
    else:
        hint = (f'float16 rounds to the nearest value it has: compare each value with half '
                f'the smallest subnormal, {tiny / 2:.3g}.')
    return _wrong(exercise, f'you said {sorted(got)}.', hint)


#: The loss scales exercise A3.2's function is tried with: at 1024 the scaled gradient,
#: 1.02e-5, is a float16 subnormal; at 8192, 8.2e-5, a normal number.
LOSS_SCALES = (8192, 1024)


@_checker(answer=lambda: 'x = Variable(np.ones(3, dtype=np.float16)); loss = 1e-4 * '
          'F.sum(x * 1e-4); loss.backward(loss_scale=scale); return '
          'x.grad.astype(np.float32) / scale  (about 1e-8 each)')
def exA3_unscaled(true_grad: Any) -> Feedback:
    """true_grad(scale): the float16 gradient of loss = 1e-4 * sum(x * 1e-4) at x = ones(3),
    by backward(loss_scale=scale), unscaled; tried at two scales, watched through events."""
    exercise = 'exA3_unscaled'
    want = np.full(3, 1e-8)
    for scale in LOSS_SCALES:
        with events.recording() as log:
            grad = _call(exercise, true_grad, scale)
        got = _as_array(grad)
        if got is not None and got.shape == (3,) and np.all(got == 0):
            _wrong(exercise, f'true_grad({scale}) is all zeros.',
                   "1e-8 is below float16's smallest number: it underflowed. Scale the loss, "
                   'and divide in float32 (in float16 the division underflows again).')
        if got is not None and got.shape == (3,) and np.all(got > 1e-6):
            _wrong(exercise, f'true_grad({scale}) is still scaled.',
                   'The gradient is multiplied by loss_scale: divide by it.')
        if got is not None and got.shape == (3,) and np.all((got > 0) & (got < 1e-10)):
            _wrong(exercise, f'true_grad({scale}) is too small.',
                   'Divide by the scale once: the gradient is S times too large, not S '
                   'squared.')
        # rtol 2e-2: at scale 1024 the float16 gradient is a subnormal (spacing 6e-8, 0.6%
        # of it), after up to three float16 roundings of 0.05% each; every slip above is off
        # by a factor of 1000 or more
        _check_array(exercise, f'true_grad({scale})', grad, want,
                     'Backward with loss_scale=scale, then divide x.grad (as float32) by the '
                     'scale.', rtol=2e-2, atol=0, todo='the body of true_grad')
        dtypes = {e.dtype for e in log if e.kind == 'variable_created'}
        if 'float16' not in dtypes:
            _wrong(exercise, f'true_grad({scale}) never computed in float16.',
                   'The point is the float16 route: x = Variable(np.ones(3, '
                   'dtype=np.float16)), where the gradient underflows without a scale.')
        scales = [e.loss_scale for e in log if e.kind == 'backward_started']
        if scale not in scales:
            _wrong(exercise, f'true_grad({scale}) ran backward without loss_scale={scale}.',
                   'Let backward scale the gradients: loss.backward(loss_scale=scale) (not '
                   'the loss multiplied by hand, nor another scale).')
    return _ok(exercise, 'right at both scales: scaled in float16, unscaled in float32.')


@_checker
def exA3_max_scale(scale: Any) -> Feedback:
    """The largest power of two S such that a gradient of 3.0 times S stays finite in float16."""
    largest = float(np.finfo(np.float16).max)
    want = 2.0 ** np.floor(np.log2(largest / 3.0))
    return _compare('exA3_max_scale', 'S', scale, want,
                    'float16 tops out at 65504: 3 * S must stay at or below that.',
                    mistakes=[(want * 2, f'3 * {want * 2:g} = {3 * want * 2:g} is above '
                               '65504: it overflows to inf.'),
                              (largest / 3, 'S should be a power of two (scaling by one is '
                               'exact in floating point).'),
                              (want * 4, f'{want * 4:g} alone is already above 65504.'),
                              (want / 2, 'There is a larger power of two whose product with '
                               '3 is still finite.'),
                              (largest, '65504 is the largest float16 itself: 3 * S must stay '
                               'at or below it.')],
                    # powers of two and 65504 are exact in float64: compare exactly
                    rtol=0, atol=0, todo='the S you work out')
