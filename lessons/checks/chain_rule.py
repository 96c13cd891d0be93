"""Lesson 2, the chain rule by hand: a neuron's forward and backward, gates, the view."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any



from .feedback import (
    _checker,
    _compare,
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
                  ({'f': hand['d']}, 'f is 1/d: the last step divides 1 by d.')])


@_checker
def ex02_dz(g_z: Any) -> Feedback:
    """df/dz of the neuron, from the chain of local derivatives."""
    hand = neuron_by_hand()
    return _compare(
        'ex02_dz', 'g_z', g_z, hand['g_z'],
        'Multiply the local derivatives from f down to z: (-1/d**2) * 1 * e * (-1).',
        rtol=1e-3, atol=1e-6, mistakes=[
            (-hand['g_z'], 'The negation u = -z has local derivative -1: it flips the sign '
             'once more.'),
            (hand['f'], 'That is f, the value; the question asks how fast f changes with z.'),
            (hand['g_d'], 'That is df/dd only; keep multiplying by dd/de = 1, de/du = e and '
             'du/dz = -1.'),
            (1 / hand['d']**2, 'The local derivative of exp(u) is exp(u) = e: multiply by '
             'it.')])


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
                   'multiply then scales it, by x0 for w0 and by w0 for x0.')])


#: Steps of the neuron's backward in the view: 1/d, 1+e, exp, negation, the two adds
#: (z = s + w2, s = a + b) and the two multiplies.
NEURON_STEPS = 8

_FRESH_SCORE = ('run the cell that makes the view again (a new view starts a fresh score), '
                'and predict every step')


@_checker
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
    score, status = getattr(view, 'score', None), getattr(view, 'status', None)
    if not all(hasattr(score, k) for k in ('right', 'wrong', 'skipped')) \
            or not isinstance(status, Mapping):
        return _wrong(exercise, f'got {type(view).__name__}, not the graph view.',
                      'Pass the view itself: checks.ex02_view_predictions(view).')
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


#: The gate-pattern graph of lesson 2: f = (x + y) * max(y, z) at these inputs.
GATES = {'x': 4.0, 'y': 2.0, 'z': -1.0}


def gates_by_hand(inputs: Mapping[str, float] = GATES) -> dict[str, float]:
    """Gradients of f = (x + y) * max(y, z) by the four gate patterns.

    >>> gates_by_hand()
    {'x': 2.0, 'y': 8.0, 'z': 0.0}
    """
    x, y, z = inputs['x'], inputs['y'], inputs['z']
    s, m = x + y, max(y, z)
    g_s, g_m = m, s                                   # multiply swaps
    g_y_max, g_z = (g_m, 0.0) if y > z else (0.0, g_m)  # max routes to the larger input
    return {'x': g_s, 'y': g_s + g_y_max, 'z': g_z}     # add distributes; fan-out adds


@_checker
def ex02_gates(grads: Any) -> Feedback:
    """Gradients {'x', 'y', 'z'} of f = (x + y) * max(y, z) at x = 4, y = 2, z = -1."""
    want = gates_by_hand()
    s, m = GATES['x'] + GATES['y'], max(GATES['y'], GATES['z'])
    return _compare_named(
        'ex02_gates', grads, want,
        'Work from f down: multiply swaps, add distributes, max routes, and a variable used '
        'twice adds its gradients.',
        mistakes=[({'y': m}, 'y is used twice (fan-out): add its gradient through max, '
                   f'{s:g}, to the one through x + y.'),
                  ({'y': s}, 'y is used twice (fan-out): add its gradient through x + y, '
                   f'{m:g}, to the one through max.'),
                  ({'z': s}, 'max routes the whole gradient to the larger input only; the '
                   'other gets 0.'),
                  ({'z': s / 2}, 'max routes the whole gradient to the larger input only; the '
                   'other gets 0.'),
                  ({'x': s}, 'A multiply swaps: the gradient of (x + y) is max(y, z), the '
                   'other factor.')])
