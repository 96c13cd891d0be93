"""Lesson 11, training: one training step, and the learning rate's effect."""

from __future__ import annotations

from typing import Any

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L

from .feedback import (
    _checker,
    _as_array,
    _call,
    _ok,
    _todo,
    _wrong,
    Feedback,
)


def _small_problem() -> tuple[chainer.Chain, np.ndarray, np.ndarray]:
    model = L.Linear(4, 3, initialW=np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32))
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    t = np.array([0, 2], dtype=np.int32)
    return model, x, t


def _reference_steps(n: int) -> np.ndarray:
    model, x, t = _small_problem()
    opt = chainer.optimizers.SGD(lr=0.5).setup(model)
    for _ in range(n):
        model.cleargrads()
        F.softmax_cross_entropy(model(x), t).backward()
        opt.update()
    return model.W.array.copy()


@_checker(answer=lambda: (
                'model.cleargrads(); loss = F.softmax_cross_entropy(model(x), t); '
                'loss.backward(); optimizer.update(); return float(loss.array)'))
def ex11_train_step(train_step: Any) -> Feedback:
    """train_step(model, optimizer, x, t) -> loss as a float, after one SGD update."""
    if train_step is ...:
        return _todo('ex11_train_step', 'your function')
    model, x, t = _small_problem()
    opt = chainer.optimizers.SGD(lr=0.5).setup(model)
    first_loss = float(F.softmax_cross_entropy(model(x), t).array)
    losses, weights = [], []
    for _ in range(3):
        result = _call('ex11_train_step', train_step, model, opt, x, t)
        losses.append(result)
        weights.append(model.W.array.copy())
    returned = _as_array(losses[0])
    if returned is not None and returned.size == 1 and np.isnan(returned.item()):
        _wrong('ex11_train_step', 'the first call returned nan.', 'The weights became NaN: '
               'optimizer.update() ran before any backward (a new parameter\'s grad is NaN '
               'until backward fills it). Update after loss.backward(), not before.')
    if returned is None or returned.size != 1 or not np.isclose(returned.item(), first_loss,
                                                                rtol=1e-4):
        return _wrong('ex11_train_step', f'the first call returned {losses[0]!r}, expected '
                      f'the loss {first_loss:.5g}.',
                      'Return float(loss.array), the loss of this batch before the update.')
    if np.allclose(model.W.array, _small_problem()[0].W.array):
        return _wrong('ex11_train_step', 'the weights did not change.',
                      'Call optimizer.update() after loss.backward(), and cleargrads() '
                      'before backward() (not between backward and update).')
    if np.allclose(model.W.array, _reference_steps(3), atol=1e-5):
        return _ok('ex11_train_step', 'three steps match the reference SGD run.')
    if np.allclose(model.W.array, _reference_steps(2), atol=1e-5):
        return _wrong('ex11_train_step', 'after three calls the weights are two SGD steps '
                      'along.', 'optimizer.update() uses the gradients that backward has just '
                      'computed: call it after loss.backward(), not before.')
    if np.isfinite(weights[0]).all() and not np.allclose(weights[0], _reference_steps(1),
                                                         atol=1e-5):
        # wrong from the first step on, before any earlier gradient could be added in
        return _wrong('ex11_train_step', 'the first call already moved the weights '
                      'differently from one SGD step.',
                      'The update follows the gradient of the loss you call backward on: '
                      'train on this batch\'s F.softmax_cross_entropy(model(x), t), the '
                      'loss you return, with the optimizer you were given.')
    if not np.allclose(model.W.array, _reference_steps(1), atol=1e-5):
        return _wrong('ex11_train_step', 'after three calls the weights differ from '
                      'three SGD steps.',
                      'Call model.cleargrads() before loss.backward(): otherwise the '
                      'gradients of earlier steps are added in.')
    return _wrong('ex11_train_step', 'only the first step matches.',
                  'Call model.cleargrads() before loss.backward().')


#: The learning rates of lesson 11's experiment, and their order by final validation loss.
LEARNING_RATES = (0.01, 0.3, 3.0)
LR_RANKING = [0.3, 0.01, 3.0]


@_checker(answer=lambda: (
                '[0.3, 0.01, 3.0]'))
def ex11_lr_ranking(ranking: Any) -> Feedback:
    """Predicted: the learning rates 0.01, 0.3, 3.0 ordered by final validation loss."""
    if ranking is ...:
        return _todo('ex11_lr_ranking', 'a list of the three learning rates, best first')
    got = _as_array(ranking)
    if got is None or got.shape != (3,) or sorted(got.tolist()) != sorted(LEARNING_RATES):
        return _wrong('ex11_lr_ranking', f'give the three learning rates {list(LEARNING_RATES)}'
                      ' in a list, best first.', 'Each learning rate once, e.g. [0.3, ...].')
    got_list = got.tolist()
    if got_list == LR_RANKING:
        return _ok('ex11_lr_ranking', 'right: 0.3 learns, 0.01 crawls, and 3.0 is knocked out '
                   'of learning altogether.')
    if got_list[0] != 0.3:
        hint = ('0.01 is safe but slow: after 10 epochs it has barely moved.'
                if got_list[0] == 0.01 else
                'Too large a step overshoots: the loss jumps instead of falling.')
        return _wrong('ex11_lr_ranking', f'{got_list[0]} is not the best.', hint)
    return _wrong('ex11_lr_ranking', '3.0 is not better than 0.01.',
                  'Too large a step overshoots and can leave the network stuck guessing '
                  '(a loss near ln 10 = 2.30); a small step at least goes downhill.')
