"""Lesson 12, a FunctionNode of your own: forward and a hand-written backward."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import autograd_lab as chainer
from autograd_lab import Variable, gradient_check

from .feedback import (
    _checker,
    _as_array,
    _call,
    _check_array,
    _compare,
    _devices,
    _ok,
    _same_device,
    _seeded,
    _todo,
    _tried_where,
    _where,
    _wrong,
    Feedback,
)


@_checker
def ex12_slope(prediction: Any) -> Feedback:
    """Predicted dy/dx of softsign y = x / (1 + |x|) at x = -1."""
    return _compare('ex12_slope', 'dy/dx', prediction, 0.25,
                    'dy/dx = 1 / (1 + |x|)**2; put x = -1 in.',
                    mistakes=[(0.5, 'Square the denominator: 1 / (1 + |x|)**2.'),
                              (-0.25, 'The slope of softsign is positive everywhere (it '
                               'always rises); |x| makes the sign of x disappear.'),
                              (-0.5, 'That is y(-1), the value; the question asks for the '
                               'slope.'),
                              (np.inf, 'With |x| the denominator is (1 + 1)**2 = 4, never '
                               '0: keep the absolute value.')])


def _softsign(node_class: type, x: Any) -> Variable:
    y = node_class().apply((x,))
    return y[0] if isinstance(y, tuple) else y


def _is_node_class(exercise: str, node_class: Any, name: str) -> Feedback | None:
    if node_class is ...:
        return _todo(exercise, 'your FunctionNode class')
    if not (isinstance(node_class, type) and issubclass(node_class, chainer.FunctionNode)):
        return _wrong(exercise, f'{name} is a {type(node_class).__name__}, not a '
                      'FunctionNode class.', f'Write class {name}(chainer.FunctionNode): ...')
    return None


_NOT_A_TUPLE = (TypeError, 'must be a tuple', 'forward returns a tuple of arrays: end the '
                'return line with a comma, `return y,`.')


@_checker(gpu=True)
def ex12_forward(node_class: Any) -> Feedback:
    """Softsign.forward: y = x / (1 + |x|), on any device."""
    exercise = 'ex12_forward'
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
            'forward gets a tuple of arrays and returns a tuple: (x / (1 + xp.abs(x)),).',
            mistakes=[(x_host / (1 + x_host), 'Use the absolute value in the denominator: '
                       'xp.abs(x), with xp = backend.get_array_module(x).'),
                      (np.abs(x_host) / (1 + np.abs(x_host)), 'Only the denominator takes '
                       'the absolute value: y keeps the sign of x.')])
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


def _gradient_checks(exercise: str, func: Callable[..., Any], x_data: Any, gy: Any,
                     ggx: Any | None, hint: str, **options: Any) -> Feedback | None:
    """check_backward (and check_double_backward with ggx); the feedback if one fails."""
    checks_to_run = [('check_backward', gradient_check.check_backward, (func, x_data, gy))]
    if ggx is not None:
        checks_to_run.append(('check_double_backward', gradient_check.check_double_backward,
                              (func, x_data, gy, ggx)))
    for name, check, args in checks_to_run:
        try:
            with _seeded():
                check(*args, **options)
        except AssertionError as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else ''
            return _wrong(exercise, f'{name} failed: {first}', hint)
        except Exception as error:  # learner code: any failure becomes feedback
            return _wrong(exercise, f'{name} raised {type(error).__name__}: {error}', hint)
    return None


@_checker(gpu=True)
def ex12_backward(node_class: Any) -> Feedback:
    """Softsign.backward agrees with numerical differentiation, to first and second order,
    at negative and positive points, on any device."""
    exercise = 'ex12_backward'
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
