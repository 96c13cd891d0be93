"""Lesson A1, no_backprop_mode and force_backprop_mode: what is recorded."""

from __future__ import annotations

from typing import Any

import numpy as np

import autograd_lab as chainer
import autograd_lab.links as L
from autograd_lab import Variable, events

from .feedback import (
    _checker,
    _call,
    _compare,
    _names,
    _ok,
    _wrong,
    Feedback,
)


@_checker(answer=lambda: (
                "{'y1', 'y3', 'y4'}"))
def exA1_recorded(names: Any) -> Feedback:
    """Predicted: which of y1..y4 in the lesson's snippet have a creator."""
    got = _names('exA1_recorded', names, "{'y1'}")
    x = Variable(np.array([1.0, 2.0]))
    y1 = x * 2
    with chainer.no_backprop_mode():
        y2 = x * 2
        with chainer.force_backprop_mode():
            y3 = x * 2
    y4 = y2 * 2
    want = {n for n, v in (('y1', y1), ('y2', y2), ('y3', y3), ('y4', y4))
            if v.creator is not None}
    if not got <= {'y1', 'y2', 'y3', 'y4'}:
        _wrong('exA1_recorded', f'{sorted(got - {"y1", "y2", "y3", "y4"})}: not one of the '
               'outputs.', 'Pick among y1, y2, y3 and y4 (x is a variable you made: it never '
               'has a creator).')
    if got == want:
        return _ok('exA1_recorded', f'{sorted(want)} were recorded.')
    hints = []
    if 'y2' in got:
        hints.append('y2 was computed inside no_backprop_mode: nothing is recorded there.')
    if 'y3' not in got:
        hints.append('force_backprop_mode switches recording back on inside it.')
    if 'y4' not in got:
        hints.append('y4 is computed outside the block, so it is recorded (its input y2 '
                     'is a leaf).')
    if 'y1' not in got:
        hints.append('y1 is ordinary code: recorded.')
    return _wrong('exA1_recorded', f'you said {sorted(got)}.', ' '.join(hints))


@_checker(answer=lambda: (
                'with chainer.no_backprop_mode(): return model(x)'))
def exA1_predict(predict: Any) -> Feedback:
    """predict(model, x) -> Variable computed by the model without recording the graph."""
    model = L.Linear(3, 2, initialW=np.arange(6.0).reshape(2, 3) / 10, initial_bias=0.5)
    x = np.array([[1.0, -1.0, 2.0]], dtype=np.float32)
    with events.recording() as log:  # which functions ran, and whether they were recorded
        result = _call('exA1_predict', predict, model, x)
    applied = [e for e in log if e.kind == 'function_applied']
    want = x @ model.W.array.T + model.b.array
    hint = ("Return the model's output for x as a Variable, computed with recording "
            'switched off.')
    if any(e.recorded for e in applied):
        return _wrong('exA1_predict', 'the graph was recorded while your function ran '
                      '(whatever happened to it afterwards).',
                      'The engine records while the functions run: run the model with '
                      "recording switched off (this lesson's mode for it). Copying or "
                      'unchaining the result afterwards does not undo the recording.')
    if not applied:
        return _wrong('exA1_predict', 'no function of the engine ran: the model was not '
                      'called.', 'Call the model itself, model(x): plain NumPy would not '
                      'follow a change of the model (another Link, another device).')
    if not isinstance(result, Variable):
        return _wrong('exA1_predict', f'you returned {type(result).__name__}, not a '
                      'Variable.', hint)
    return _compare('exA1_predict', 'predict(model, x)', result, want, hint)
