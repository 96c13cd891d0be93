"""Lesson 3, retain_grad: which gradients backward releases, and keeping one."""

from __future__ import annotations

from typing import Any

import numpy as np

import autograd_lab.functions as F
from autograd_lab import Variable

from .feedback import (
    _checker,
    _compare,
    _names,
    _ok,
    _wrong,
    Feedback,
)


@_checker
def ex03_released(names: Any) -> Feedback:
    """Predicted: which of 'x', 'h', 'loss' have grad None after a plain loss.backward()."""
    got = _names('ex03_released', names, "{'x'}")
    x = Variable(np.array([1.0, 2.0]))
    h = 3 * x + 1
    loss = F.sum(h**2)
    loss.backward()
    want = {n for n, v in (('x', x), ('h', h), ('loss', loss)) if v.grad is None}
    if got == want:
        return _ok('ex03_released', f'{sorted(got)} are released; only leaves keep gradients.')
    if 'x' in got:
        return _wrong('ex03_released', "'x' keeps its gradient.",
                      'Leaves (variables you created) always receive their gradient.')
    if not got:
        return _wrong('ex03_released', 'some gradients are released.',
                      'Without retain_grad every variable made by a function loses its '
                      'gradient once backward has used it.')
    missing = sorted(want - got)
    return _wrong('ex03_released', f'missing: {missing}.',
                  'Without retain_grad every variable made by a function is released, '
                  'the output included.' if 'loss' in missing else
                  'h was made by a function: its gradient is freed once it has been used.')


@_checker
def ex03_h_grad(grad: Any) -> Feedback:
    """h = 3x + 1, loss = sum(h**2), x = [1, 2]: dloss/dh, kept with retain_grad."""
    h = 3 * np.array([1.0, 2.0]) + 1
    return _compare('ex03_h_grad', 'h.grad', grad, 2 * h,
                    'dloss/dh = 2h. Run loss.backward(retain_grad=True) and read h.grad.',
                    mistakes=[(6 * h, 'That is x.grad (the chain rule multiplied by 3); '
                               'the question asks for h.grad.'),
                              (h, 'That is h itself, the value; read h.grad.'),
                              (np.full(2, 3.0), 'That is dh/dx, the local derivative of h; '
                               'the question asks for dloss/dh.')])
