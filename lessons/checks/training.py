"""Lesson 9, links, optimizers and training."""

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
    _compare,
    _ok,
    _todo,
    _wrong,
    Feedback,
)


@_checker
def ex09_param_count(count: Any) -> Feedback:
    """The number of scalars in an MLP 64 -> 32 -> 10 (weights and biases)."""
    return _compare('ex09_param_count', 'count', count, 64 * 32 + 32 + 32 * 10 + 10,
                    'Linear(n_in, n_out) has n_out * n_in weights and n_out biases.',
                    mistakes=[(64 * 32 + 32 * 10, 'You counted the weights only; each '
                               'Linear also has one bias per output.'),
                              (64 * 32 + 32, 'That is the first layer only; add the second, '
                               'Linear(32, 10).'),
                              (64 * 32 + 64 + 32 * 10 + 32, 'A bias belongs to each output '
                               'of a layer, not to each input.'),
                              (64 * 32 * 10, 'Layers do not multiply: add up the count of '
                               'each Linear.')])


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


@_checker
def ex09_train_step(train_step: Any) -> Feedback:
    """train_step(model, optimizer, x, t) -> loss as a float, after one SGD update."""
    if train_step is ...:
        return _todo('ex09_train_step', 'your function')
    model, x, t = _small_problem()
    opt = chainer.optimizers.SGD(lr=0.5).setup(model)
    first_loss = float(F.softmax_cross_entropy(model(x), t).array)
    losses = []
    for _ in range(3):
        result = _call('ex09_train_step', train_step, model, opt, x, t)
        losses.append(result)
    returned = _as_array(losses[0])
    if returned is None or returned.size != 1 or not np.isclose(returned.item(), first_loss,
                                                                rtol=1e-4):
        return _wrong('ex09_train_step', f'the first call returned {losses[0]!r}, expected '
                      f'the loss {first_loss:.5g}.',
                      'Return float(loss.array), the loss of this batch before the update.')
    if np.allclose(model.W.array, _small_problem()[0].W.array):
        return _wrong('ex09_train_step', 'the weights did not change.',
                      'Call optimizer.update() after loss.backward(), and cleargrads() '
                      'before backward() (not between backward and update).')
    if np.allclose(model.W.array, _reference_steps(3), atol=1e-5):
        return _ok('ex09_train_step', 'three steps match the reference SGD run.')
    if not np.allclose(model.W.array, _reference_steps(1), atol=1e-5):
        return _wrong('ex09_train_step', 'after three calls the weights differ from '
                      'three SGD steps.',
                      'Call model.cleargrads() before loss.backward(): otherwise the '
                      'gradients of earlier steps are added in.')
    return _wrong('ex09_train_step', 'only the first step matches.',
                  'Call model.cleargrads() before loss.backward().')


#: The learning rates of lesson 9's experiment, and their order by final validation loss.
LEARNING_RATES = (0.01, 0.3, 3.0)
LR_RANKING = [0.3, 0.01, 3.0]


@_checker
def ex09_lr_ranking(ranking: Any) -> Feedback:
    """Predicted: the learning rates 0.01, 0.3, 3.0 ordered by final validation loss."""
    if ranking is ...:
        return _todo('ex09_lr_ranking', 'a list of the three learning rates, best first')
    got = _as_array(ranking)
    if got is None or got.shape != (3,) or sorted(got.tolist()) != sorted(LEARNING_RATES):
        return _wrong('ex09_lr_ranking', f'give the three learning rates {list(LEARNING_RATES)}'
                      ' in a list, best first.', 'Each learning rate once, e.g. [0.3, ...].')
    got_list = got.tolist()
    if got_list == LR_RANKING:
        return _ok('ex09_lr_ranking', 'right: 0.3 learns, 0.01 crawls, and 3.0 is knocked out '
                   'of learning altogether.')
    if got_list[0] != 0.3:
        hint = ('0.01 is safe but slow: after 10 epochs it has barely moved.'
                if got_list[0] == 0.01 else
                'Too large a step overshoots: the loss jumps instead of falling.')
        return _wrong('ex09_lr_ranking', f'{got_list[0]} is not the best.', hint)
    return _wrong('ex09_lr_ranking', '3.0 is not better than 0.01.',
                  'Too large a step overshoots and can leave the network stuck guessing '
                  '(a loss near ln 10 = 2.30); a small step at least goes downhill.')
