"""Checkers of lesson 7's second half: a neuron and a small network on the learner's own
engine, and the training run on the moons.

The network is read through the lesson's contract only: ``MLP(n_in, sizes)``, calling it
on a list of numbers gives one value (or a list of one), and ``parameters()`` lists its
values layer by layer, neuron by neuron, each neuron's weights then its bias; hidden
layers end in tanh, the last one is linear.  Its output and every gradient are compared
with the same network built from those numbers in autograd_lab.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

import autograd_lab.functions as F
from autograd_lab import Variable

from .feedback import Feedback, _call, _checker, _check_named, _ok, _todo, _wrong
from .own_engine import data_name

#: Exercise 7.3: the network the lesson trains.
N_IN, SIZES = 2, [8, 8, 1]
#: The network the MLP checker builds (a fan-in different from the widths).
CHECK_IN, CHECK_SIZES = 3, [4, 2, 1]


def param_count(n_in: int, sizes: list[int]) -> int:
    """How many numbers MLP(n_in, sizes) learns: each neuron one weight per input, and a
    bias.

    >>> param_count(2, [8, 8, 1])
    105
    """
    widths = [n_in, *sizes]
    return sum((a + 1) * b for a, b in pairwise(widths))


@_checker(answer=lambda: '105: (2 + 1) * 8 + (8 + 1) * 8 + (8 + 1) * 1')
def ex07_param_count(count: Any) -> Feedback:
    """How many numbers MLP(2, [8, 8, 1]) learns, predicted before building it."""
    widths = [N_IN, *SIZES]
    weights = sum(a * b for a, b in pairwise(widths))
    mistakes = [
        ({'count': weights}, 'Those are the weights only: every neuron has a bias too.'),
        ({'count': sum(SIZES)}, 'That is one number per neuron: a neuron also has one '
         'weight per input.'),
        ({'count': weights + N_IN + sum(SIZES)}, 'The inputs are data, not parameters: '
         'only neurons have biases.'),
        ({'count': (N_IN + 1) * sum(SIZES)}, 'A neuron of the second layer has one weight '
         "per neuron of the first layer (8), not per input of the network."),
    ]
    if count is ...:
        _todo('ex07_param_count', 'a number')
    got = _check_named('ex07_param_count', {'count': count},
                       {'count': float(param_count(N_IN, SIZES))},
                       'Count per neuron: one weight per input it gets, plus one bias; then '
                       'add up the neurons of all three layers.', mistakes=mistakes)
    return _ok('ex07_param_count', f'{got["count"]:.0f} numbers to learn.')


def engine_rows(params: list[float], n_in: int, sizes: list[int], *,
                bias_first: bool = False) -> list[Variable]:
    """One Variable per neuron, its weights then its bias, from the parameters in the
    lesson's order (``bias_first``: read each neuron's bias first)."""
    flat, rows = iter(params), []
    widths = [n_in, *sizes]
    for a, b in pairwise(widths):
        for _ in range(b):
            row = [next(flat) for _ in range(a + 1)]
            rows.append(Variable(np.array(row[1:] + row[:1] if bias_first else row,
                                          dtype=np.float64)))
    return rows


def engine_forward(rows: list[Variable], x: Any, n_in: int, sizes: list[int], *,
                   last_tanh: bool = False) -> Variable:
    """The score of the network of ``rows`` for one point ``x``, in autograd_lab."""
    h, rest = Variable(np.asarray(x, dtype=np.float64)), iter(rows)
    widths = [n_in, *sizes]
    for layer, (a, b) in enumerate(pairwise(widths)):
        h = F.stack([F.sum(v[:a] * h) + v[a] for v in (next(rest) for _ in range(b))])
        if layer < len(sizes) - 1 or last_tanh:
            h = F.tanh(h)
    return h[0]


def engine_net(params: list[float], x: Any, n_in: int, sizes: list[int], *,
               last_tanh: bool = False, bias_first: bool = False) -> tuple[Variable, list]:
    """(score, neuron Variables) of the lesson's network in autograd_lab.

    >>> score, rows = engine_net([0.5, -0.75], [2.0], 1, [1])
    >>> float(score.array), len(rows)
    (0.25, 1)
    """
    rows = engine_rows(params, n_in, sizes, bias_first=bias_first)
    return engine_forward(rows, x, n_in, sizes, last_tanh=last_tanh), rows


def engine_loss(params: list[float], xs: Any, ys: Any, n_in: int,
                sizes: list[int]) -> tuple[Variable, list]:
    """(mean squared error over the points, neuron Variables) in autograd_lab: the
    lesson's loss, for comparing the learner's gradients with the engine's."""
    rows = engine_rows(params, n_in, sizes)
    total = sum((engine_forward(rows, x, n_in, sizes) - y) ** 2 for x, y in zip(xs, ys))
    return total / len(ys), rows


def _output(exercise: str, model: Any, x: list[float]) -> Any:
    out = _call(exercise, model, x)
    if out is None:
        _todo(exercise, 'calling the network (it returns nothing yet)')
    if isinstance(out, (list, tuple)):
        if len(out) != 1:
            _wrong(exercise, f'the network gave {len(out)} outputs, not 1.',
                   'The last layer of MLP(n_in, [..., 1]) has one neuron: return its value '
                   '(or a list of one).')
        out = out[0]
    return out


@_checker(answer=lambda: (
    'Neuron(n_in): weights [Value(random.uniform(-1, 1)) ...], bias Value(0); __call__(x): '
    'act = sum(w*xi) + b, tanh unless linear; parameters() = weights + [bias]. Layer: a list '
    'of neurons; MLP(n_in, sizes): layers, the last one linear; parameters() concatenated'))
def ex07_mlp(mlp: Any) -> Feedback:
    """``MLP(n_in, sizes)`` on the learner's engine: its parameters, its output and its
    gradients against the same network in autograd_lab."""
    exercise = 'ex07_mlp'
    if mlp is ...:
        _todo(exercise, 'your MLP class')
    model = _call(exercise, mlp, CHECK_IN, list(CHECK_SIZES))
    params = _call(exercise, model.parameters)
    if params is None:
        _todo(exercise, 'parameters() (it returns nothing yet)')
    params = list(params)
    want = param_count(CHECK_IN, CHECK_SIZES)
    if len(params) != want:
        _wrong(exercise, f'MLP({CHECK_IN}, {CHECK_SIZES}) has {len(params)} parameters, '
               f'not {want}.', 'Each neuron: one weight per input, and a bias; parameters() '
               'lists every layer\'s neurons\' parameters.')
    name = data_name(exercise, type(params[0]))
    values = np.random.default_rng(7).uniform(-1, 1, size=want).round(3).tolist()
    for p, v in zip(params, values):
        setattr(p, name, v)
    x = [0.5, -1.0, 2.0]
    out = _output(exercise, model, x)
    y, variables = engine_net(values, x, CHECK_IN, CHECK_SIZES)
    got = float(getattr(out, name))
    if not np.isclose(got, float(y.array), rtol=1e-9):
        for options, hint in [
            ({'last_tanh': True}, 'Your last layer ends in tanh; the lesson\'s is linear '
             '(its output is any number, the loss compares it with the label).'),
            ({'bias_first': True}, 'parameters() lists each neuron\'s bias first; the lesson '
             'lists its weights, then its bias.'),
        ]:
            if np.isclose(got, float(engine_net(values, x, CHECK_IN, CHECK_SIZES,
                                                **options)[0].array), rtol=1e-9):
                _wrong(exercise, 'the output differs from the lesson\'s network.', hint)
        _wrong(exercise, f'the output is {got:.6g}, the same network in autograd_lab gives '
               f'{float(y.array):.6g}.', 'A neuron computes tanh(w . x + b) (the last layer '
               'without tanh), each layer on the previous layer\'s outputs.')
    _call(exercise, out.backward)
    y.backward()
    mine = np.array([float(p.grad) for p in params])
    theirs = np.concatenate([v.grad for v in variables])
    if not np.allclose(mine, theirs, rtol=1e-9, atol=1e-12):
        worst = int(np.argmax(np.abs(mine - theirs)))
        _wrong(exercise, f'parameter {worst}\'s gradient is {mine[worst]:.6g}, '
               f"autograd_lab's {theirs[worst]:.6g}.",
               'The forward is right, so the backward is not: run checks.ex07_engine(Value) '
               'again, and give every neuron fresh values (not one shared list).')
    return _ok(exercise, f'{want} parameters; the output and every gradient are '
               "autograd_lab's.")


@_checker(answer=lambda: 'the losses of your training run: at least 20 numbers, the last '
          'well under half the first')
def ex07_train(losses: Any) -> Feedback:
    """The losses of the learner's training run on the moons: they fall."""
    exercise = 'ex07_train'
    if losses is ... or (isinstance(losses, (list, tuple)) and not losses):
        _todo(exercise, 'the list of losses, one per step')
    try:
        seq = np.array([float(getattr(v, 'data', v)) for v in losses])
    except (TypeError, ValueError):
        _wrong(exercise, 'the losses are not numbers.',
               'Append the loss\'s number (loss.data) at each step.')
    if len(seq) < 20:
        _wrong(exercise, f'{len(seq)} steps.', 'Train for at least 20 steps.')
    if not np.all(np.isfinite(seq)):
        _wrong(exercise, 'a loss is not finite.', 'The steps are too big: lower lr.')
    if seq[-1] > seq[0]:
        _wrong(exercise, f'the loss rose, from {seq[0]:.3g} to {seq[-1]:.3g}.',
               'A step goes against the gradient: p.data -= lr * p.grad.')
    if seq[-1] > 0.5 * seq[0]:
        _wrong(exercise, f'the loss fell only from {seq[0]:.3g} to {seq[-1]:.3g}.',
               'Set every grad to 0 before each backward (grads add up across steps), '
               'then step each parameter; a larger lr or more steps may help.')
    return _ok(exercise, f'the loss fell from {seq[0]:.3g} to {seq[-1]:.3g}.')
