"""Lesson A4, devices: device-generic code."""

from __future__ import annotations

from typing import Any

import numpy as np

from autograd_lab import Variable

from .feedback import (
    _checker,
    _as_array,
    _call,
    _check_array,
    _devices,
    _names,
    _ok,
    _same_device,
    _tried_where,
    _where,
    _wrong,
    Feedback,
)


GENERIC_LINES = {
    'A': 'np.exp(a)',
    'B': 'a + np.ones(a.shape)',
    'C': 'a + xp.ones(a.shape)',
    'D': 'np.asarray(a) * 2',
}


@_checker(answer=lambda: (
                "{'A', 'C'}"))
def exA4_stays_on_gpu(names: Any) -> Feedback:
    """Predicted: which of the lines A-D give a GPU array when ``a`` is a CuPy array."""
    got = _names('exA4_stays_on_gpu', names, "{'A'}")
    if not got <= set(GENERIC_LINES):
        return _wrong('exA4_stays_on_gpu', f'pick among {sorted(GENERIC_LINES)}.',
                      'Give the letters of the lines.')
    want = {'A', 'C'}
    if got == want:
        return _ok('exA4_stays_on_gpu', 'right: NumPy functions hand CuPy arrays on to CuPy, '
                   'but arrays made by np.* live on the CPU, and CuPy never mixes or converts '
                   'silently.')
    hints = []
    if 'A' not in got:
        hints.append('A: NumPy functions applied to a CuPy array are handed on to CuPy (it '
                     'implements NumPy\'s dispatch protocols), so np.exp(a) stays on the GPU.')
    if 'B' in got:
        hints.append('B: np.ones makes a new array on the CPU, and CuPy refuses to add a CPU '
                     'array to a GPU one (TypeError): make new arrays with xp.')
    if 'C' not in got:
        hints.append('C: xp is cupy here, so xp.ones makes its array on the GPU too.')
    if 'D' in got:
        hints.append('D: np.asarray would copy the data to the CPU, and CuPy refuses '
                     'implicit copies (TypeError); a copy must be asked for by name.')
    return _wrong('exA4_stays_on_gpu', f'you said {sorted(got)}.', ' '.join(hints))


@_checker(gpu=True, answer=lambda: (
                'xp = backend.get_array_module(t); return xp.eye(n)[t]'))
def exA4_one_hot(one_hot: Any) -> Feedback:
    """one_hot(t, n): an array (len(t), n) with 1 at [i, t[i]], on t's device; tried with
    two label vectors whose one-hots differ from those of t + 1, from the identity and
    from the transpose."""
    exercise = 'exA4_one_hot'
    tries = [(np.array([2, 0, 2, 1], dtype=np.int32), 3),
             (np.array([1, 3, 0], dtype=np.int32), 4)]
    for t_host, n in tries:
        want = np.eye(n)[t_host]
        for device in _devices():
            t = device.send(t_host)
            result = _call(exercise, one_hot, t, n)
            if isinstance(result, Variable):
                _wrong(exercise, 'you returned a Variable.', 'Return the array itself.')
            if not _same_device(result, t):
                _wrong(exercise, f'{_where(device)} your function returned a '
                       f'{type(result).__module__}.{type(result).__name__}, not an array on '
                       'the same device as t.', 'Make the new array with xp = '
                       'backend.get_array_module(t): np.* makes a CPU array whatever t is.')
            got = _as_array(result)
            rows = len(t_host)
            if got is not None and got.shape == want.shape and not got.any():
                _wrong(exercise, 'every entry is 0.', 'Row i needs a 1, in column t[i].')
            ignores_t = np.eye(n)[np.arange(rows) % n]  # row i's 1 in column i (mod n)
            if got is not None and got.shape == want.shape and np.allclose(got, ignores_t):
                _wrong(exercise, 'the result ignores t.', "Row i's 1 goes in column t[i], not "
                       'in column i.')
            if got is not None and got.shape == want.T.shape and np.allclose(got, want.T):
                _wrong(exercise, f'the result has shape {got.shape}.', 'Transposed: one row '
                       'per label, one column per class.')
            _check_array(exercise, f'one_hot(t, {n}) {_where(device)}', result, want,
                         'Row i holds a 1 in column t[i] and 0 elsewhere.',
                         mistakes=[(np.eye(n)[(t_host + 1) % n], 'Classes count from 0: '
                                    'label t goes in column t, not t + 1.')],
                         # 0s and 1s: exact in any dtype
                         rtol=0, atol=0)
    return _ok(exercise, 'right' + _tried_where() + '.')


@_checker(gpu=True, answer=lambda: (
                'return backend.CpuDevice().send(v.array)'))
def exA4_to_numpy(to_numpy: Any) -> Feedback:
    """to_numpy(v) -> a NumPy array with v's values, from a Variable on any device."""
    exercise = 'exA4_to_numpy'
    host = np.array([1.0, 2.0, 3.0], np.float32)
    for device in _devices():
        v = Variable(device.send(host))
        result = _call(exercise, to_numpy, v, known=[
            (AttributeError, 'get', '.get() exists only on CuPy arrays; '
             'ask the CPU device (in backend) to send the array to itself: that works '
             'for both.')])
        if isinstance(result, Variable):
            return _wrong(exercise, 'you returned a Variable.',
                          "Return its array, on the CPU (backend's CPU device can send "
                          'an array to itself).')
        if str(v.device) != str(device):
            return _wrong(exercise, f'{_where(device)} your function moved v to {v.device}.',
                          'Leave v where it is: copy its array instead of moving the '
                          'Variable (to_device moves it in place).')
        if type(result) is not np.ndarray:
            return _wrong(exercise, f'{_where(device)} you returned '
                          f'{type(result).__module__}.{type(result).__name__}.',
                          'On a GPU, v.array is a CuPy array: it still has to be sent to '
                          "backend's CPU device.")
        _check_array(exercise, 'to_numpy(v)', result, host,
                              'Keep the values as they are; only the device changes.')
    return _ok(exercise, 'right' + _tried_where() + '.')
