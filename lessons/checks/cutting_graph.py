"""Lesson 7, cutting the graph: truncated backprop through time, vanishing gradients."""

from __future__ import annotations

from typing import Any

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable

from .feedback import (
    _checker,
    _call,
    _compare,
    _compare_named,
    _todo,
    _wrong,
    Feedback,
)


@_checker
def ex07_predict(prediction: Any) -> Feedback:
    """a = 3x, b = a*a, a.unchain(), b.backward(): prediction {'x': ..., 'a': ...} at x=0.5."""
    if prediction is ... or not isinstance(prediction, dict):
        return _todo('ex07_predict', "a dict {'x': ..., 'a': ...}")
    if set(prediction) != {'x', 'a'}:
        return _wrong('ex07_predict', "use exactly the keys 'x' and 'a'.",
                      'Predict x.grad and a.grad.')
    if prediction['x'] is ... or prediction['a'] is ...:
        return _todo('ex07_predict', 'both predictions')
    if prediction['x'] is not None:
        return _wrong('ex07_predict', f"x.grad: predicted {prediction['x']!r}, but it stays "
                      'None.', 'After a.unchain() nothing links b back to x.')
    a = 1.5
    return _compare('ex07_predict', "prediction['a']", prediction['a'], 2 * a,
                    'a is now a leaf: it receives db/da = 2a, with a = 1.5.',
                    mistakes=[(a, 'db/da for b = a*a is 2a: a is used twice (fan-out), '
                               'and each use contributes a.'),
                              (3 * 2 * a, 'That would be x.grad; a itself receives db/da = '
                               '2a.')])


def rnn_grad(xs: np.ndarray, targets: np.ndarray, w0: float, k: int, *, cut: bool = True,
             keep_h: bool = True, clear: bool = False) -> float:
    """d(sum of step losses)/dw for h_t = tanh(w h_{t-1} + x_t), backward every k steps.

    The reference of exercise 7.2 (``cut=True, keep_h=True, clear=False``); the other
    settings are the usual mistakes: never cutting, restarting h at 0 after each cut,
    clearing w.grad before each backward.
    """
    w = chainer.Parameter(np.array(w0))
    h = Variable(np.array(0.0))
    loss = 0
    for t, (x_t, y_t) in enumerate(zip(xs, targets), start=1):
        h = F.tanh(w * h + x_t)
        loss += (h - y_t) ** 2
        if t % k == 0:
            if clear:
                w.cleargrad()
            loss.backward()
            if cut:
                loss.unchain_backward()
            if not keep_h:
                h = Variable(np.array(0.0))
            loss = 0
    return float(w.grad)


RNN_XS = np.array([0.5, -1.0, 0.25, 1.0, -0.5, 0.75])
RNN_TARGETS = np.array([0.2, -0.4, 0.1, 0.5, -0.3, 0.4])


@_checker
def ex07_truncated(train: Any) -> Feedback:
    """train(xs, targets, w0, k) -> accumulated w.grad of truncated BPTT."""
    result = _call('ex07_truncated', train, RNN_XS, RNN_TARGETS, 0.8, 2)

    def grad(**kw: bool) -> float:
        return rnn_grad(RNN_XS, RNN_TARGETS, 0.8, 2, **kw)

    return _compare('ex07_truncated', 'w.grad', result, grad(),
                    'Every k steps: loss.backward(), then loss.unchain_backward(), then start '
                    'a new loss sum (h keeps its value).',
                    mistakes=[(grad(cut=False), 'That is the full BPTT gradient: you never '
                               'cut. Call loss.unchain_backward() after each backward.'),
                              (grad(keep_h=False), 'h keeps its value across a cut: '
                               'unchain_backward() drops only its history. Do not restart h '
                               'at 0.'),
                              (grad(clear=True), 'That is only the last chunk: do not clear '
                               'w.grad, let the chunks accumulate.')])


@_checker
def ex07_vanishing(ratios: Any) -> Feedback:
    """Predicted |dL/dh_{T-10}| / |dL/dh_T| for h_t = w h_{t-1} + u x_t, w = 0.5 and 1.5."""
    want = {'0.5': 0.5**10, '1.5': 1.5**10}
    return _compare_named(
        'ex07_vanishing', ratios, want,
        'Each step back multiplies the gradient by dh_t/dh_{t-1} = w.',
        mistakes=[({'0.5': 0.5 * 10, '1.5': 1.5 * 10}, 'Ten steps back multiply ten factors '
                   'w together: w**10, not 10 * w.'),
                  ({'0.5': 0.5**9, '1.5': 1.5**9}, 'From h_T back to h_{T-10} is ten steps, '
                   'so ten factors of w.'),
                  ({'0.5': 0.5**11, '1.5': 1.5**11}, 'From h_T back to h_{T-10} is ten steps, '
                   'so ten factors of w.'),
                  ({'0.5': 2.0**10, '1.5': (1 / 1.5)**10}, 'With |w| < 1 the gradient shrinks '
                   'going back, with |w| > 1 it grows: the factor is w, not 1/w.')],
        rtol=1e-3, atol=1e-9)


@_checker
def ex07_clip_step(step: Any) -> Feedback:
    """Predicted: the longest step one SGD(lr=0.1) update can take with GradientClipping(1.0)."""
    lr, threshold = 0.1, 1.0
    return _compare('ex07_clip_step', 'step', step, lr * threshold,
                    'SGD moves the parameters by lr times the gradient, and clipping caps '
                    "the gradient's norm at the threshold.",
                    mistakes=[(threshold, 'The threshold caps the gradient; the update is lr '
                               'times that gradient.'),
                              (threshold / lr, 'The update is lr times the (clipped) gradient: '
                               'multiply, do not divide.'),
                              (0.0, 'Clipping scales a long gradient down to the threshold; '
                               'it never makes it zero.')], rtol=1e-6, atol=1e-9)
