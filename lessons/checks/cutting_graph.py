"""Lesson 12, cutting the graph: truncated backprop through time, vanishing gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable

from .feedback import (
    _dict_answer,
    _check_array,
    _ok,
    _checker,
    _call,
    _compare,
    _compare_named,
    _wrong,
    Feedback,
)


#: Exercise 12.1's x: a = 3x = 0.75, so that 2a (1.5, right), a (no fan-out), da/dx = 3,
#: x.grad's 6a = 4.5 and b = a*a = 0.5625 are five different numbers (at x = 0.5, 2a and
#: da/dx were both 3).
UNCHAIN_X = 0.25


@_checker(answer=lambda: f"{{'x': None, 'a': {2 * 3 * UNCHAIN_X:g}}}")
def ex12_predict(prediction: Any) -> Feedback:
    """a = 3x, b = a*a, a.unchain(), b.backward(): prediction {'x': ..., 'a': ...}."""
    exercise = 'ex12_predict'
    prediction = _dict_answer(exercise, prediction, ('x', 'a'),
                              todo="a dict {'x': ..., 'a': ...}", unfinished='both predictions',
                              hint='Predict x.grad and a.grad.')
    if prediction['x'] is not None:
        _wrong(exercise, f"x.grad: predicted {prediction['x']!r}, but it stays None.",
               'After a.unchain() nothing links b back to x.')
    if prediction['a'] is None:
        _wrong(exercise, 'a.grad: predicted None.', 'unchain() makes a a leaf, and backward '
               'stops at a leaf AND gives it its gradient.')
    a = 3 * UNCHAIN_X
    return _compare(exercise, "prediction['a']", prediction['a'], 2 * a,
                    'a is now a leaf: it receives db/da, with b = a*a.',
                    mistakes=[(a, 'b = a*a uses a twice (fan-out): each use contributes a.'),
                              (3.0, 'That is da/dx, the link that unchain() cut; a receives '
                               'db/da.'),
                              (3 * 2 * a, 'That would be x.grad; a itself receives db/da.'),
                              (a * a, 'That is b, the value; predict the gradient db/da.'),
                              (0.0, 'unchain() cuts what is BEHIND a; a itself still receives '
                               'its gradient from b.')],
                    # rtol 1e-3: a prediction worked out by hand; the slips are >= 30% away
                    rtol=1e-3, atol=1e-6)


def rnn_grad(xs: np.ndarray, targets: np.ndarray, w0: float, k: int, *, cut: bool = True,
             keep_h: bool = True, clear: bool = False) -> float:
    """d(sum of step losses)/dw for h_t = tanh(w h_{t-1} + x_t), backward every k steps.

    The reference of exercise 12.2 (``cut=True, keep_h=True, clear=False``); the other
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


#: Where exercise 12.2's train is tried: (w0, k), two, so that no constant passes; each k
#: divides the six steps (a last, shorter chunk would leave its handling open).
TRUNCATION_TRIES = ((0.8, 2), (0.5, 3))


@_checker(answer=lambda: (
                'every k steps: loss.backward(), loss.unchain_backward(), loss = 0 (h '
                'keeps its value); at the end return float(w.grad)'))
def ex12_truncated(train: Any) -> Feedback:
    """train(xs, targets, w0, k) -> accumulated w.grad of truncated BPTT, tried at two
    (w0, k)."""
    exercise = 'ex12_truncated'
    for w0, k in TRUNCATION_TRIES:
        result = _call(exercise, train, RNN_XS, RNN_TARGETS, w0, k)

        def grad(k: int = k, w0: float = w0, **kw: bool) -> float:
            return rnn_grad(RNN_XS, RNN_TARGETS, w0, k, **kw)

        _check_array(exercise, f'w.grad for w0 = {w0}, k = {k}', result, grad(),
                     'Every k steps: loss.backward(), then loss.unchain_backward(), then start '
                     'a new loss sum (h keeps its value).',
                     mistakes=[(grad(cut=False), 'That is the full BPTT gradient: you never '
                                'cut. Call loss.unchain_backward() after each backward.'),
                               (grad(keep_h=False), 'h keeps its value across a cut: '
                                'unchain_backward() drops only its history. Do not restart h '
                                'at 0.'),
                               (grad(clear=True), 'That is only the last chunk: do not clear '
                                'w.grad, let the chunks accumulate.'),
                               (grad(k=1), 'That cuts after every step: cut every k steps.'),
                               (0.0, 'Nothing reached w: call loss.backward() first, then '
                                'loss.unchain_backward().')],
                     todo='the body of train')
    return _ok(exercise, 'right, for two starting weights and two chunk lengths.')


@_checker
def ex12_vanishing(ratios: Any) -> Feedback:
    """Predicted |dL/dh_{T-10}| / |dL/dh_T| for h_t = w h_{t-1} + u x_t, w = 0.5 and 1.5."""
    want = {'0.5': 0.5**10, '1.5': 1.5**10}
    return _compare_named(
        'ex12_vanishing', ratios, want,
        'Each step back multiplies the gradient by dh_t/dh_{t-1} = w.',
        mistakes=[({'0.5': 0.5 * 10, '1.5': 1.5 * 10}, 'Ten steps back multiply ten factors '
                   'w together: w**10, not 10 * w.'),
                  ({'0.5': 0.5**9, '1.5': 1.5**9}, 'From h_T back to h_{T-10} is ten steps, '
                   'so ten factors of w.'),
                  ({'0.5': 0.5**11, '1.5': 1.5**11}, 'From h_T back to h_{T-10} is ten steps, '
                   'so ten factors of w.'),
                  ({'0.5': 2.0**10, '1.5': (1 / 1.5)**10}, 'With |w| < 1 the gradient shrinks '
                   'going back, with |w| > 1 it grows: the factor is w, not 1/w.'),
                  ({'0.5': 1.0, '1.5': 1.0}, 'Going back one step multiplies the gradient by '
                   'dh_t/dh_(t-1) = w: ten steps change it.')],
        rtol=1e-3, atol=1e-9)


#: Exercise 12.4's thresholds: two, since at 1.0 alone "the step is lr" gives the right
#: number.
CLIP_THRESHOLDS = (1.0, 5.0)


@_checker
def ex12_clip_step(step: Any) -> Feedback:
    """Predicted: the longest step one SGD(lr=0.1) update can take with GradientClipping
    at each threshold of CLIP_THRESHOLDS, as {threshold: step}."""
    lr = 0.1
    thresholds = [str(t) for t in CLIP_THRESHOLDS]

    def each(f: Callable[[float], float]) -> dict[str, float]:
        return {str(t): f(t) for t in CLIP_THRESHOLDS}

    return _compare_named(
        'ex12_clip_step', step, each(lambda c: lr * c),
        'SGD moves the parameters by lr times the gradient, and clipping caps the '
        "gradient's norm at the threshold.",
        mistakes=[(each(lambda c: c), 'The threshold caps the gradient; the update is lr '
                   'times that gradient.'),
                  (each(lambda c: c / lr), 'The update is lr times the (clipped) gradient: '
                   'multiply, do not divide.'),
                  (each(lambda c: 0.0), 'Clipping scales a long gradient down to the '
                   'threshold; it never makes it zero.'),
                  ({thresholds[1]: lr}, 'The threshold matters: the longest gradient left '
                   'after clipping has the threshold as its norm, and lr scales that.'),
                  (each(lambda c: lr * c * c), 'Clipping caps the norm at the threshold, '
                   'not at its square.')],
        # rtol 1e-6: lr * c is a product of two short decimals
        rtol=1e-6, atol=1e-9)
