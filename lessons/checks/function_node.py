"""Lesson 9, a FunctionNode of your own: forward and a hand-written backward."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from autograd_lab import Variable

from .hand_backward import _NOT_A_TUPLE, _gradient_checks, _is_node_class, _watch_backward
from .feedback import (
    _on_gpu,
    _checker,
    _as_array,
    _call,
    _check_array,
    _compare,
    _devices,
    _ok,
    _same_device,
    _tried_where,
    _where,
    _wrong,
    Feedback,
)


@_checker
def ex09_slope(prediction: Any) -> Feedback:
    """Predicted dy/dx of softsign y = x / (1 + |x|) at x = -1."""
    return _compare('ex09_slope', 'dy/dx', prediction, 0.25,
                    'Differentiate x / (1 + |x|) with the quotient rule (d|x|/dx = '
                    'sign(x)), simplify, then put x = -1 in.',
                    mistakes=[(0.5, 'Square the denominator: 1 / (1 + |x|)**2.'),
                              (-0.25, 'The slope of softsign is positive everywhere (it '
                               'always rises); |x| makes the sign of x disappear.'),
                              (-0.5, 'That is y(-1), the value; the question asks for the '
                               'slope.'),
                              (np.inf, 'With |x| the denominator is never 0: keep the absolute '
                               'value.'),
                              (4.0, 'That is the denominator of the slope; the slope is 1 '
                               'over it.')],
                    todo='the slope you work out (a number)')


def _softsign(node_class: type, x: Any) -> Variable:
    y = node_class().apply((x,))
    return y[0] if isinstance(y, tuple) else y


@_checker(gpu=True, answer=lambda: (
                'return x / (1 + xp.abs(x)),  with xp = backend.get_array_module(x)'))
def ex09_forward(node_class: Any) -> Feedback:
    """Softsign.forward: y = x / (1 + |x|), on any device."""
    exercise = 'ex09_forward'
    _is_node_class(exercise, node_class, 'Softsign')
    x_host = np.array([-3.0, -0.5, 0.0, 2.0])
    for device in _devices():
        x = device.send(x_host)
        result = _call(exercise, _softsign, node_class, x, known=[_NOT_A_TUPLE])
        if not _same_device(result, x):
            return _wrong(exercise, f'{_where(device)} the output is not on the input\'s '
                          'device.', 'Compute with xp = backend.get_array_module(x): no '
                          'np.asarray, no new np.* arrays.')
        _check_array(
            exercise, f'Softsign()(x) {_where(device)}', result, x_host / (1 + np.abs(x_host)),
            'forward gets a tuple of arrays and returns a tuple of arrays, one per '
            'output; y = x / (1 + |x|) elementwise.',
            mistakes=[(x_host / (1 + x_host), 'Use the absolute value in the denominator: '
                       'xp.abs(x), with xp = backend.get_array_module(x).'),
                      (np.abs(x_host) / (1 + np.abs(x_host)), 'Only the denominator takes '
                       'the absolute value: y keeps the sign of x.'),
                      (1 / (1 + np.abs(x_host)), 'The numerator is x itself.'),
                      (x_host / (1 - np.abs(x_host)), 'Sign: the denominator adds |x| to 1.')])
    return _ok(exercise, 'forward is right' + _tried_where() + '.')


def _first_grad(forward: Callable[[Any], Variable], x: Any, gy: Any) -> Any:
    """The gradient backward gives at x for the seed gy (host copy), or None if it fails."""
    try:
        v = Variable(x.copy())
        y = forward(v)
        y.grad = gy
        y.backward()
        return None if v.grad is None else _as_array(v.grad)
    except Exception:  # learner code: any failure just means "no guess"
        return None


@_checker(gpu=True, answer=lambda: (
                'x, = self.get_retained_inputs(); gy, = grad_outputs; return gy / (1 + '
                'F.absolute(x)) ** 2,'))
def ex09_backward(node_class: Any) -> Feedback:
    """Softsign.backward agrees with numerical differentiation, to first and second order,
    at negative and positive points, on any device."""
    exercise = 'ex09_backward'
    _is_node_class(exercise, node_class, 'Softsign')
    rng = np.random.default_rng(0)
    # both signs (a backward that drops |x| is right for x > 0 only), away from the kink at 0
    x_host = rng.uniform(0.5, 2.0, 6) * np.array([-1.0, 1.0, -1.0, 1.0, -1.0, 1.0])
    gy_host, ggx_host = rng.normal(size=6), rng.normal(size=6)
    candidates = [
        (1 / (1 + np.abs(x_host)), 'dy/dx = 1 / (1 + |x|)**2: square the denominator.'),
        (1 / (1 + x_host) ** 2, 'Keep the absolute value: 1 / (1 + |x|)**2 (your backward '
         'is right for x > 0 only).'),
        (1 / (1 + np.abs(x_host)) ** 2 / gy_host, 'Multiply the local derivative by gy, the '
         'gradient arriving from the output.'),
    ]
    for device in _devices():
        x, gy, ggx = (device.send(a) for a in (x_host, gy_host, ggx_host))

        def f(v: Any) -> Any:
            return _softsign(node_class, v)

        _call(exercise, f, x, known=[_NOT_A_TUPLE])
        if not _on_gpu(device):  # how the gradient is obtained: once is enough
            _watch_backward(exercise, node_class, (x,), (gy,), (0,), answer_nodes=(),
                            building_blocks='F.absolute and arithmetic on Variables')
        got = _first_grad(f, x, gy)
        if got is not None:
            for local, hint in candidates:
                if np.allclose(got, local * gy_host, rtol=1e-6, atol=1e-9):
                    return _wrong(exercise, f'{_where(device)} backward gives the wrong '
                                  'gradient.', hint)
        _gradient_checks(
            exercise, f, x, gy, ggx,
            'dy/dx = 1 / (1 + |x|)**2; multiply by gy, and build it from F functions on the '
            'retained input Variable (F.absolute, operators), so that it can be '
            'differentiated again.')
    return _ok(exercise, 'check_backward and check_double_backward both pass, at negative '
               'and positive x' + _tried_where() + '.')
