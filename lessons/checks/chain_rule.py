"""Lesson 2, the chain rule by hand: a neuron's forward and backward, gates, the view."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from autograd_lab import backend

from .feedback import (
    _numbers,
    _check_named,
    _checker,
    _compare_named,
    _ok,
    _todo,
    _verdict,
    _wrong,
    Feedback,
)


#: The neuron of lesson 2: f = 1 / (1 + exp(-(w0*x0 + w1*x1 + w2))) at these inputs.
NEURON = {'w0': 1.5, 'x0': 2.0, 'w1': -0.5, 'x1': 3.0, 'w2': -1.0}
#: The same neuron at other inputs, predicted step by step in the view (exercise 2.4):
#: a graph the student has not solved yet.  z = 1 here (not -0.5, where the sigmoid's
#: slope would equal the first neuron's), and every input gets a different gradient.
NEURON_VIEW = {'w0': -2.0, 'x0': 0.5, 'w1': 1.5, 'x1': 2.0, 'w2': -1.0}


def neuron_by_hand(inputs: Mapping[str, float] = NEURON) -> dict[str, float]:
    """Every forward value and gradient of the neuron, by the chain rule, in plain floats.

    Forward: ``z = w0*x0 + w1*x1 + w2``, ``u = -z``, ``e = exp(u)``, ``d = 1 + e``,
    ``f = 1/d``.  Backward multiplies each local derivative into the gradient from above
    (``g_d = df/dd`` and so on); the inputs' gradients are keyed by their names.

    >>> hand = neuron_by_hand()
    >>> round(hand['f'], 4), round(hand['g_z'], 4), round(hand['w0'], 4)
    (0.6225, 0.235, 0.47)
    """
    w0, x0, w1, x1, w2 = (inputs[k] for k in ('w0', 'x0', 'w1', 'x1', 'w2'))
    z = w0 * x0 + w1 * x1 + w2
    u = -z
    e = math.exp(u)
    d = 1 + e
    f = 1 / d
    g_d = -1 / d**2      # f = 1/d:       df/dd = -1/d^2
    g_e = g_d * 1        # d = 1 + e:     dd/de = 1
    g_u = g_e * e        # e = exp(u):    de/du = exp(u) = e
    g_z = g_u * -1       # u = -z:        du/dz = -1
    # z = a + b + w2 with a = w0*x0, b = w1*x1: add passes g_z on to a, b and w2 unchanged;
    # each multiply sends to one input the gradient times the *other* input.
    return {'z': z, 'u': u, 'e': e, 'd': d, 'f': f,
            'g_d': g_d, 'g_e': g_e, 'g_u': g_u, 'g_z': g_z,
            'w0': x0 * g_z, 'x0': w0 * g_z, 'w1': x1 * g_z, 'x1': w1 * g_z, 'w2': g_z}


@_checker
def ex02_forward(values: Any) -> Feedback:
    """The neuron's forward values {'z', 'e', 'd', 'f'} (e = exp(-z), d = 1 + e, f = 1/d)."""
    hand = neuron_by_hand()
    p = NEURON
    no_bias = p['w0'] * p['x0'] + p['w1'] * p['x1']
    return _compare_named(
        'ex02_forward', values, {k: hand[k] for k in ('z', 'e', 'd', 'f')},
        'z = w0*x0 + w1*x1 + w2, e = exp(-z), d = 1 + e, f = 1/d: one line each.',
        mistakes=[({'z': no_bias}, 'z also adds the bias w2.'),
                  ({'e': math.exp(hand['z'])}, 'e is exp(-z): mind the minus sign.'),
                  ({'f': hand['d']}, 'f is 1/d: the last step divides 1 by d.'),
                  ({'d': hand['e']}, 'd = 1 + e: the step adds one.'),
                  ({'e': -hand['z']}, 'e = exp(-z): you have -z; apply exp to it.')])


#: The gradients of exercise 2.2, in the order backward computes them.
CHAIN = ('g_d', 'g_e', 'g_u', 'g_z')


def _chain_steps(hand: Mapping[str, float]) -> dict[str, tuple[str, float]]:
    """Each gradient of the chain: the one it is built from and the local derivative."""
    return {'g_e': ('g_d', 1.0), 'g_u': ('g_e', hand['e']), 'g_z': ('g_u', -1.0)}


def _first_link(got: Mapping[str, float], hand: Mapping[str, float], close: Any) -> None:
    """Stops the check at a wrong g_d (the first link, from f = 1/d), naming the slip."""
    d = hand['d']
    slips = [(1 / d**2, 'Sign: f = 1/d falls as d grows, so df/dd = -1/d**2 is negative.'),
             (-1 / d, 'The derivative of 1/d = d**-1 is -1 * d**-2: square d.'),
             (1 / d, 'That is f itself; the derivative of 1/d is -1/d**2.'),
             (-1 / hand['e']**2, 'Wrong variable: f = 1/d, so use d, not e.')]
    for value, hint in slips:
        if close(got['g_d'], value):
            _wrong('ex02_dz', 'g_d is not right.', hint)
    _wrong('ex02_dz', 'g_d is not right.', 'g_d = df/dd, with f = 1/d: the power rule with '
           'exponent -1.')


@_checker(answer=lambda: ', '.join(f'{k} = {neuron_by_hand()[k]:.6g}' for k in CHAIN))
def ex02_dz(grads: Any) -> Feedback:
    """The chain g_d, g_e, g_u, g_z of the neuron, each from the one before.

    Every link is judged on its own, from the student's previous value (an early slip is
    blamed where it happened, and two slips that cancel in g_z do not pass).
    """
    exercise = 'ex02_dz'
    hand = neuron_by_hand()
    if grads is ...:
        _todo(exercise, 'your g_d, g_e, g_u and g_z')
    got = _numbers(exercise, grads, list(CHAIN), 'Each g_ is one number (a float).')

    def close(a: float, b: float) -> bool:
        # rtol 1e-4: values typed from a printout with 5 significant digits pass; the
        # nearest slip is a factor e = 0.61 or a sign away
        return bool(np.isclose(a, b, rtol=1e-4, atol=1e-9))

    if not close(got['g_d'], hand['g_d']):
        _first_link(got, hand, close)
    for key, (above, local) in _chain_steps(hand).items():
        if close(got[key], got[above] * local):
            continue
        slips = [(got[above], {1.0: '', -1.0: 'The negation u = -z has local derivative -1: '
                               'it flips the sign.'}.get(local, 'The local derivative of '
                               'exp(u) is exp(u) = e: multiply by it.')),
                 (-got[above] * local, 'Sign: multiply by the local derivative as it is; '
                  'only the negation step flips the sign.'),
                 (got[above] * hand['u'], 'The local derivative of exp(u) is exp(u) = e, '
                  'not u.'),
                 (local, f'Multiply the local derivative by the gradient from above, '
                  f'{above}.')]
        slips += [(got[other] * local, f'Wrong variable: {key} is built from the gradient '
                   f'just above it, {above}, not {other}.')
                  for other in CHAIN[:CHAIN.index(above)]]
        for value, hint in slips:
            if hint and close(got[key], value):
                _wrong(exercise, f'{key} is not right.', hint)
        _wrong(exercise, f'{key} is not right.', f'{key} = {above} times the local '
               'derivative of the step between them (table above).')
    return _ok(exercise, 'all right: every link of the chain from f down to z.')


@_checker
def ex02_input_grads(grads: Any) -> Feedback:
    """The gradients of w0, x0, w1, x1, w2, from g_z and the gate patterns."""
    hand = neuron_by_hand()
    p, g_z = NEURON, hand['g_z']
    return _compare_named(
        'ex02_input_grads', grads, {k: hand[k] for k in ('w0', 'x0', 'w1', 'x1', 'w2')},
        'Add passes g_z unchanged to w0*x0, w1*x1 and w2; each multiply sends to one input '
        'g_z times the other input.',
        mistakes=[({'w0': p['w0'] * g_z, 'x0': p['x0'] * g_z},
                   'A multiply swaps: the gradient of w0 in w0*x0 is x0 times the gradient '
                   'from above, not w0 times it.'),
                  ({'w0': p['x0'], 'x0': p['w0']},
                   'Multiply by the gradient arriving from above, g_z: the chain rule '
                   'multiplies local derivatives all the way from f.'),
                  ({'w2': g_z / 3}, 'An add does not split its gradient: every input gets '
                   'all of it, g_z.'),
                  ({'w0': g_z, 'x0': g_z}, 'The add passes g_z to the product w0*x0; the '
                   'multiply then scales it, by x0 for w0 and by w0 for x0.'),
                  ({'w2': 1.0}, 'w2 is added into z: it receives the gradient arriving at z '
                   '(times the local derivative 1), not 1 alone.')])


#: Steps of the neuron's backward in the view: 1/d, 1+e, exp, negation, the two adds
#: (z = s + w2, s = a + b) and the two multiplies.
NEURON_STEPS = 8

_FRESH_SCORE = ('run the cell that makes the view again (a new view starts a fresh score), '
                'and predict every step')


def _on_the_named_graph(view: Any) -> bool:
    """Whether the view's graph is the neuron at NEURON_VIEW: its inputs, by name, hold
    those values (2.1's neuron, whose numbers the student already has, does not)."""
    held = {var.name: var for var in view.model.graph_variables() if var.creator is None}
    try:
        return all(name in held and np.allclose(backend.CpuDevice().send(held[name].array),
                                                value)
                   for name, value in NEURON_VIEW.items())
    except (TypeError, ValueError):
        return False


@_checker(answer=lambda: (
                "with Predict on, type each step's gradients (your 2.2 and 2.3 values) "
                'in the boxes under "Next" and press Check, for all 8 steps'))
def ex02_view_predictions(view: Any) -> Feedback:
    """The neuron's whole backward predicted in the graph view's graded predict mode.

    Reads what the view counted: ``view.score`` (steps guessed right, wrong, and revealed
    without a guess) and ``view.status`` (how many steps the graph has, whether backward
    is finished).  Steps run by Run to end or Run to here are not graded, so they do not
    count as predicted.
    """
    exercise = 'ex02_view_predictions'
    if view is ...:
        return _todo(exercise, 'the view')
    try:
        # the widget is the notebook extra's: the other checkers work without it
        from autograd_lab_widget import GraphView  # noqa: PLC0415
    except ImportError:
        return _wrong(exercise, 'the graph view is not installed here.',
                      'Install the notebook extra: pip install "autograd-lab[notebook]".')
    # a real view, not an object that looks like one (nor a subclass that says its score)
    if not isinstance(view, GraphView) or any(
            getattr(type(view), name) is not getattr(GraphView, name)
            for name in ('score', 'status', 'model')):
        return _wrong(exercise, f'got {type(view).__name__}, not the graph view.',
                      'Pass the view itself: checks.ex02_view_predictions(view).')
    if not _on_the_named_graph(view):
        return _wrong(exercise, "this view is not on exercise 2.4's neuron.",
                      "Pass the view made from named['f'] above, the neuron at the new inputs "
                      f'({", ".join(f"{k} = {v:g}" for k, v in NEURON_VIEW.items())}).')
    score, status = view.score, view.status
    steps = status.get('total')
    if steps != NEURON_STEPS:
        return _wrong(exercise, f"this view's backward has {steps} steps; the neuron's has "
                      f'{NEURON_STEPS}.',
                      "Pass the neuron's view: the one made from named['f'] above.")
    if score.skipped:
        return _wrong(exercise, f'{score}: {score.skipped} step(s) ran with Step, which shows '
                      'the answer without asking.',
                      'Guess every step: type the grads in the boxes under "Next" and press '
                      f'Check. To start over, {_FRESH_SCORE}.')
    if score.wrong:
        return _wrong(exercise, f'{score}: {score.wrong} step(s) predicted wrong.',
                      'The ledger showed the true values: find the step where yours went off '
                      '(each step multiplies the grad from above by its local derivative; add '
                      'passes it on unchanged, a multiply swaps, the negation flips the sign). '
                      f'Then {_FRESH_SCORE}.')
    if not status.get('live', True):
        return _verdict(exercise, 'todo', 'not done yet: the view shows an earlier step '
                        '(after Back); press Run to end to come back to now.')
    if not status.get('done'):
        return _verdict(exercise, 'todo', f'not done yet: {score.right} step(s) predicted; '
                        'predict in the view above (the boxes under "Next", then Check) until '
                        'it says backward is finished.')
    if score.right == 0:
        return _wrong(exercise, 'backward ran without a single prediction.',
                      'Step with Predict off, Run to end and Run to here run steps without '
                      'asking. Press Reset, turn Predict on, and answer each step in the '
                      'boxes under "Next".')
    if score.right < NEURON_STEPS:
        return _wrong(exercise, f'only {score.right} of the {NEURON_STEPS} steps were '
                      'predicted; the others ran without a guess.',
                      'Steps run by Run to end, Run to here, or Step with Predict off are not '
                      f'graded. Press Reset and predict all {NEURON_STEPS} steps.')
    return _ok(exercise, f'{score}: you predicted every step of the backward pass.')


#: The gate-pattern graph of lesson 2, f = (x + y) * max(y, z), at two points: at the
#: first max's larger input is y (its first argument), at the second z, so that "max
#: routes to its first argument", "no fan-out" and "max splits" each give a number of
#: their own at one point at least.
GATES = {'x': 4.0, 'y': 2.0, 'z': -1.0}
GATES_B = {'x': 1.0, 'y': -2.0, 'z': 3.0}


def gates_by_hand(inputs: Mapping[str, float] = GATES) -> dict[str, float]:
    """Gradients of f = (x + y) * max(y, z) by the four gate patterns.

    >>> gates_by_hand(), gates_by_hand(GATES_B)
    ({'x': 2.0, 'y': 8.0, 'z': 0.0}, {'x': 3.0, 'y': 3.0, 'z': -1.0})
    """
    x, y, z = inputs['x'], inputs['y'], inputs['z']
    s, m = x + y, max(y, z)
    g_s, g_m = m, s                                   # multiply swaps
    g_y_max, g_z = (g_m, 0.0) if y > z else (0.0, g_m)  # max routes to the larger input
    return {'x': g_s, 'y': g_s + g_y_max, 'z': g_z}     # add distributes; fan-out adds


def _gate_slips(p: Mapping[str, float]) -> list[tuple[dict[str, float], str]]:
    """The usual slips at one point, as the gradients they give."""
    s, m = p['x'] + p['y'], max(p['y'], p['z'])
    y_wins = p['y'] > p['z']
    return [
        ({'y': s if y_wins else 0.0}, 'y is used twice (fan-out): add its gradient through '
         'x + y to the one through max.'),
        ({'y': m}, 'y is used twice (fan-out): add its gradient through max to the one '
         'through x + y.'),
        ({'y': m + s, 'z': 0.0}, 'max routes the gradient to its LARGER input, whichever '
         'argument that is, not to the first one.'),
        ({'y': m + s / 2, 'z': s / 2}, 'max does not split: the whole gradient goes to the '
         'larger input, the other gets 0.'),
        ({'z': s} if y_wins else {'y': m + s}, 'max routes the whole gradient to the larger '
         'input only; the other gets 0.'),
        ({'x': s}, 'A multiply swaps: the gradient of (x + y) is max(y, z), the other '
         'factor.'),
    ]


@_checker(answer=lambda: f'{gates_by_hand(GATES)}, then {gates_by_hand(GATES_B)}')
def ex02_gates(grads: Any) -> Feedback:
    """Gradients {'x', 'y', 'z'} of f = (x + y) * max(y, z), at GATES and at GATES_B."""
    exercise = 'ex02_gates'
    if grads is ...:
        _todo(exercise, 'your two dicts, [gate_grads, gate_grads_b]')
    if isinstance(grads, Mapping) or not isinstance(grads, (list, tuple)) or len(grads) != 2:
        _wrong(exercise, 'give the gradients at both points, as a list of two dicts.',
               'checks.ex02_gates([gate_grads, gate_grads_b]): the first at x = 4, y = 2, '
               'z = -1, the second at x = 1, y = -2, z = 3.')
    hint = ('Work from f down: multiply swaps, add distributes, max routes, and a variable '
            'used twice adds its gradients.')
    for point, answer in zip((GATES, GATES_B), grads):
        where = ', '.join(f'{k} = {v:g}' for k, v in point.items())
        # rtol 1e-6: the gradients are small integers, exact in float64
        _check_named(exercise, answer, gates_by_hand(point), hint, where=where,
                     mistakes=_gate_slips(point), rtol=1e-6, atol=1e-9)
    return _ok(exercise, 'right at both points: max sent the gradient to y at the first, to '
               'z at the second.')
