"""Lesson 13, deep nets that stop learning: the gradient through many layers, and the
initialisation that keeps its size."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L

from .feedback import (
    _keyed_by_value,
    _checker,
    _remember,
    _compare_named,
    _dict_answer,
    _ok,
    _wrong,
    Feedback,
)

#: The three starts of lesson 13's 20-layer tanh network: the weights' standard deviation.
INITS = ('small', 'standard normal', 'xavier')
#: What the first layer's gradient does next to the last's, in words.
VERDICTS = ('vanishing', 'even', 'exploding')
#: The network of exercise 13.1 (and of the lesson's table): depth, width, batch.
DEPTH, WIDTH, BATCH = 20, 32, 64


def init_std(init: str, fan_in: int = WIDTH) -> float:
    """The weights' standard deviation for one of :data:`INITS`.

    >>> init_std('xavier', 64)
    0.125
    """
    return {'small': 0.01, 'standard normal': 1.0, 'xavier': 1 / math.sqrt(fan_in)}[init]


def deep_tanh(init: str, depth: int = DEPTH, width: int = WIDTH, seed: int = 0) -> Any:
    """A ``ChainList`` of ``depth`` square ``L.Linear`` layers, weights drawn with
    :func:`init_std`'s deviation (the same draws for every init, scaled)."""
    rng = np.random.default_rng(seed)
    std = init_std(init, width)
    return chainer.ChainList(*[
        L.Linear(width, width,
                 initialW=(rng.standard_normal((width, width)) * std).astype(np.float32))
        for _ in range(depth)])


def layer_grad_norms(init: str, depth: int = DEPTH, width: int = WIDTH) -> list[float]:
    """The norm of the gradient arriving at each layer's input (first layer first), from
    one backward of a mean squared loss through ``depth`` tanh layers: what the gradient
    lens shows on those variables."""
    model = deep_tanh(init, depth, width)
    h = chainer.Variable(np.random.default_rng(1).standard_normal((BATCH, width))
                         .astype(np.float32))
    inputs = []
    for layer in model:
        inputs.append(h)
        h = F.tanh(layer(h))
    loss = F.mean(F.square(h - 0.5))
    grads = chainer.grad([loss], inputs)
    return [float(np.linalg.norm(g.array)) for g in grads]


def verdict(norms: list[float]) -> str:
    """'vanishing', 'even' or 'exploding': the gradient at the first layer's input next to
    the one at the last layer's (a factor of 100 either way counts).

    >>> verdict([1e-9, 0.1]), verdict([0.05, 0.04]), verdict([1e3, 0.05])
    ('vanishing', 'even', 'exploding')
    """
    first, last = norms[0], norms[-1]
    if first < last / 100:
        return 'vanishing'
    return 'exploding' if first > last * 100 else 'even'


@_checker
def ex13_predict(prediction: Any) -> Feedback:
    """Predicted, for each start of :data:`INITS`, whether the gradient arriving at the
    first layer is 'vanishing', 'even' or 'exploding' next to the one at the last layer."""
    got = _dict_answer('ex13_predict', prediction, INITS, todo='your three predictions',
                       unfinished='a prediction for every start',
                       hint=f'Give each start one of {", ".join(map(repr, VERDICTS))}.')
    words = {k: str(v).strip().lower() for k, v in got.items()}
    odd = [k for k, v in words.items() if v not in VERDICTS]
    if odd:
        _wrong('ex13_predict', f'{odd[0]!r}: {got[odd[0]]!r} is not one of the three words.',
               f'Give each start one of {", ".join(map(repr, VERDICTS))}.')
    want = {init: verdict(layer_grad_norms(init)) for init in INITS}
    _remember('ex13_predict', ', '.join(f'{k}: {v}' for k, v in want.items()))
    hints = {
        'small': 'With weights of 0.01 each layer shrinks the signal about 18 times on the '
                 'way forward (0.01 x sqrt(32)) and the gradient as much on the way back.',
        'standard normal': 'Large weights saturate tanh, but they also multiply the '
                           'gradient by about sqrt(32) per layer on the way back: which wins?',
        'xavier': 'A standard deviation of 1/sqrt(fan_in) keeps the variance of what a layer '
                  'passes on (forward and back) about the same.',
    }
    wrong = [init for init in INITS if words[init] != want[init]]
    if wrong:
        _wrong('ex13_predict', f'not right: {", ".join(map(repr, wrong))}.', hints[wrong[0]])
    return _ok('ex13_predict', 'all three right.')


#: Exercise 13.2's depths: two, so that an off-by-one and a sum show as different numbers.
SIGMOID_DEPTHS = (5, 10)


def _sigmoid_chain_max(n: int) -> float:
    """max over x of |dy/dx| for y = sigmoid applied n times: a grid, then a finer one
    around its best point (the product of slopes has one peak)."""
    def slope_product(x: np.ndarray) -> np.ndarray:
        product = np.ones_like(x)
        for _ in range(n):
            x = 1 / (1 + np.exp(-x))
            product *= x * (1 - x)
        return product

    grid = np.linspace(-8.0, 8.0, 16001)
    best = grid[np.argmax(slope_product(grid))]
    return float(slope_product(np.linspace(best - 1e-3, best + 1e-3, 20001)).max())


def _near(answer: Any, values: dict[str, float], rtol: float = 1e-3) -> bool:
    """Whether a dict answer holds these numbers (keys compared as text), to rtol."""
    keyed = _keyed_by_value(answer, list(values)) if isinstance(answer, Mapping) else None
    if keyed is None or len(keyed) != len(values):
        return False
    try:
        return all(np.isclose(float(v), values[k], rtol=rtol, atol=0.0)
                   for k, v in keyed.items())
    except (TypeError, ValueError):
        return False


@_checker
def ex13_sigmoid_bound(bound: Any) -> Feedback:
    """The upper bound that the sigmoid's largest slope, 1/4, puts on the factor by which
    n sigmoids in a chain (weights 1) scale a gradient, for each n of
    :data:`SIGMOID_DEPTHS`, as {n: bound}; the chain's true maximum is told apart."""
    def each(f: Any) -> dict[str, float]:
        return {str(n): f(n) for n in SIGMOID_DEPTHS}

    if _near(bound, each(_sigmoid_chain_max)):
        _wrong('ex13_sigmoid_bound', 'that is the true maximum, not the bound asked for.',
               'Right, and sharper than asked: only the first sigmoid can sit at its '
               'steepest point, since the inner ones output values in (0, 1). The question '
               'asks for the bound that the largest slope of each sigmoid gives.')
    return _compare_named(
        'ex13_sigmoid_bound', bound, each(lambda n: 0.25**n),
        "Each sigmoid multiplies the gradient by its slope sigma'(z) = sigma(z)(1 - sigma(z)); "
        'where is that slope largest, and how large?',
        mistakes=[(each(lambda n: 0.5**n), "0.5 is sigma(0), the value; the slope there is "
                   'sigma(0)(1 - sigma(0)).'),
                  (each(lambda n: 1.0), "tanh's slope reaches 1; the sigmoid's is smaller "
                   'everywhere.'),
                  (each(lambda n: 0.25 * n), 'The chain rule multiplies the slopes: n factors, '
                   'not n terms added.'),
                  (each(lambda n: 0.25**(n - 1)), 'Count the sigmoids: n of them, so n factors.'),
                  (each(lambda n: 4.0**n), "The slope is at most 1/4, so each factor shrinks "
                   'the gradient.')],
        rtol=1e-6, atol=0.0)


#: Exercise 13.3's layer: a fan-in different from the fan-out, so using one for the other
#: gives another number.
FAN_IN, FAN_OUT = 64, 16


@_checker
def ex13_init_std(std: Any) -> Feedback:
    """The standard deviation of the weights of a FAN_IN -> FAN_OUT layer that keeps the
    forward signal's variance: LeCun's Var = 1/fan_in before tanh, He's Var = 2/fan_in
    before ReLU (Glorot's 2/(fan_in + fan_out) is diagnosed: it weighs the backward pass
    too)."""
    want = {'tanh': math.sqrt(1 / FAN_IN), 'relu': math.sqrt(2 / FAN_IN)}
    return _compare_named(
        'ex13_init_std', std, want,
        'The rules give the variance of the weights from the layer\'s fan-in; you need its '
        'standard deviation.',
        mistakes=[({'tanh': 1 / FAN_IN, 'relu': 2 / FAN_IN}, 'Those are the variances: the '
                   'standard deviation is their square root.'),
                  ({'tanh': math.sqrt(1 / FAN_OUT)}, 'Fan-in is the number of inputs each '
                   f'output sums ({FAN_IN} here), not the number of outputs.'),
                  ({'relu': math.sqrt(2 / FAN_OUT)}, 'Fan-in is the number of inputs each '
                   f'output sums ({FAN_IN} here), not the number of outputs.'),
                  ({'relu': math.sqrt(1 / FAN_IN)}, 'ReLU zeroes half of its inputs, so He '
                   'doubles the variance to keep the signal\'s size.'),
                  ({'tanh': math.sqrt(2 / FAN_IN)}, "He's factor 2 makes up for the half "
                   "ReLU zeroes; tanh zeroes nothing."),
                  ({'tanh': math.sqrt(2 / (FAN_IN + FAN_OUT))}, "That is Glorot's "
                   f"2/(fan_in + fan_out) (GlorotNormal's), which also weighs the backward "
                   f"pass's {FAN_OUT} outputs; the question asks for the rule that keeps the "
                   f"forward signal's variance, which counts only the {FAN_IN} inputs.")],
        rtol=1e-3, atol=0.0)
