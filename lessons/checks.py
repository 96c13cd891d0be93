"""Exercise checkers for the autograd_lab lessons: one function per exercise.

Every checker takes the learner's answer, works out the expected answer on its
own (closed forms, or the engine run on inputs the checker chooses), and
returns a :class:`Feedback`: correct, wrong (which value is off, and a hint
aimed at the usual mistake), or "not done yet" while the cell still holds the
``...`` placeholder.  A notebook therefore always runs top to bottom.

Checkers that take code meant to run on any device (lessons 11 to 13) try it
on the CPU and, where the engine has a GPU backend, on the GPU as well, so code
that only works with NumPy arrays is caught wherever a GPU is there to catch it.

Under nbgrader (``NBGRADER_EXECUTION`` is ``autograde`` or ``validate``), or
after ``checks.STRICT = True``, anything but a correct answer raises
``AssertionError`` so that the graded cell scores zero.

>>> fb = ex01_accumulate(...)
>>> fb.status
'todo'
>>> ex01_accumulate([16.0]).status
'correct'
>>> ex01_accumulate([8.0]).hint
'Gradients accumulate: each backward() adds its 8 to x.grad, until x.cleargrad().'
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import Variable, backend, events, gradient_check

#: True while nbgrader validates or autogrades (it sets NBGRADER_EXECUTION).
GRADING = os.environ.get('NBGRADER_EXECUTION', '').lower() in {'autograde', 'validate'}
#: Raise on anything but a correct answer (on while grading; the solutions set it too).
STRICT = GRADING

_ICONS = {'correct': '\u2705', 'wrong': '\u274c', 'todo': '\u270f\ufe0f'}
_COLOURS = {'correct': '#1b7f3b', 'wrong': '#b3261e', 'todo': '#6b5d00'}


class Feedback:
    """The verdict on one answer; shown as a coloured box in Jupyter, as text elsewhere."""

    def __init__(self, exercise: str, status: str, message: str, hint: str = '') -> None:
        self.exercise = exercise
        self.status = status      # 'correct' | 'wrong' | 'todo'
        self.message = message
        self.hint = hint

    def __bool__(self) -> bool:
        return self.status == 'correct'

    def __repr__(self) -> str:
        text = f'{_ICONS[self.status]} [{self.exercise}] {self.message}'
        return f'{text}\n   Hint: {self.hint}' if self.hint else text

    def _repr_html_(self) -> str:
        # Answers are learner text: escape everything that goes into markup.
        colour = _COLOURS[self.status]
        hint = (f'<div style="margin-top:4px"><b>Hint:</b> {html.escape(self.hint)}</div>'
                if self.hint else '')
        return (f'<div style="border-left:4px solid {colour};padding:6px 10px;margin:4px 0">'
                f'{_ICONS[self.status]} <b>{html.escape(self.exercise)}</b>: '
                f'{html.escape(self.message)}{hint}</div>')


def _verdict(exercise: str, status: str, message: str, hint: str = '') -> Feedback:
    fb = Feedback(exercise, status, message, hint)
    if STRICT and status != 'correct':
        raise AssertionError(repr(fb))
    if GRADING:
        # nbgrader reads a graded cell's result as a partial score: print the verdict
        # instead, so a correct answer gets the cell's full points.
        print(repr(fb))
        return None  # type: ignore[return-value]
    return fb


def _todo(exercise: str, what: str) -> Feedback:
    return _verdict(exercise, 'todo', f'not done yet: replace the ... with {what}.')


def _ok(exercise: str, message: str = 'correct!') -> Feedback:
    return _verdict(exercise, 'correct', message)


def _wrong(exercise: str, message: str, hint: str) -> Feedback:
    return _verdict(exercise, 'wrong', message, hint)


def _as_array(value: Any) -> np.ndarray | None:
    """A float64 NumPy copy of a number, list, array or Variable (on any device); None if
    it is not numeric."""
    if isinstance(value, Variable):
        value = value.array
    elif isinstance(value, (list, tuple)):  # e.g. [g1, g2, g3] of Variables
        value = [_host(v.array if isinstance(v, Variable) else v) for v in value]
    try:
        return np.asarray(_host(value), dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _host(value: Any) -> Any:
    """``value`` as a NumPy array if it is an array on a GPU; anything else as it is."""
    if backend.is_array(value) and type(value) is not np.ndarray:
        return backend.CpuDevice().send(value)
    return value


def _fmt(a: np.ndarray) -> str:
    a = np.asarray(a)
    if a.size and np.all(np.isfinite(a)) and np.all(a == np.round(a)) and np.all(abs(a) < 1e15):
        a = a.astype(np.int64)  # 2410, not 2410.
    return np.array2string(a, precision=4, separator=', ')


def _close(got: np.ndarray, want: Any, rtol: float, atol: float) -> bool:
    want = np.asarray(want, dtype=np.float64)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=rtol, atol=atol))


def _matches(got: np.ndarray, wrong: Any, rtol: float, atol: float) -> bool:
    """Whether ``got`` is the wrong answer ``wrong`` ([8.] and 8.0 alike)."""
    wrong = np.asarray(wrong, dtype=np.float64)
    if got.size == wrong.size:
        got = got.reshape(wrong.shape)
    return _close(got, wrong, rtol, atol)


def _compare(exercise: str, name: str, value: Any, expected: Any, hint: str, *,
             mistakes: Iterable[tuple[Any, str]] = (), rtol: float = 1e-4,
             atol: float = 1e-5) -> Feedback:
    """Compare an array answer element by element; known wrong answers get their own hint."""
    failed = _check_array(exercise, name, value, expected, hint, mistakes=mistakes,
                          rtol=rtol, atol=atol)
    if failed is not None:
        return failed
    return _ok(exercise, f'{name} = {_fmt(_as_array(value))} is right.')


def _check_array(exercise: str, name: str, value: Any, expected: Any, hint: str, *,
                 mistakes: Iterable[tuple[Any, str]] = (), rtol: float = 1e-4,
                 atol: float = 1e-5) -> Feedback | None:
    """The feedback on a wrong (or missing) array answer; None when it is right.

    A right answer gets no verdict here, so a checker can go on checking (another
    input, another device) before it says "correct".
    """
    if value is ...:
        return _todo(exercise, name)
    if value is None:
        return _wrong(exercise, f'{name} is None.', hint)
    got = _as_array(value)
    if got is None:
        return _wrong(exercise, f'{name} should be a number or an array, got '
                      f'{type(value).__name__}.', hint)
    want = np.asarray(expected, dtype=np.float64)
    if got.size == want.size and got.shape != want.shape:
        got = got.reshape(want.shape)  # [8.] and 8.0 mean the same answer here
    if _close(got, want, rtol, atol):
        return None
    for wrong_value, mistake_hint in mistakes:
        if _matches(got, wrong_value, rtol, atol):
            return _wrong(exercise, f'{name} = {_fmt(got)} is not right.', mistake_hint)
    if got.shape != want.shape:
        return _wrong(exercise, f'{name} has shape {got.shape}, expected shape {want.shape}.',
                      hint)
    bad = np.argwhere(~np.isclose(got, want, rtol=rtol, atol=atol))
    where = ', '.join(f'{name}{_index(i) if got.ndim else ""}: got {got[tuple(i)]:.5g}, '
                      f'expected {want[tuple(i)]:.5g}' for i in bad[:3])
    more = f' (and {len(bad) - 3} more)' if len(bad) > 3 else ''
    return _wrong(exercise, f'wrong value(s): {where}{more}.', hint)


def _compare_named(exercise: str, answer: Any, expected: Mapping[str, float], hint: str, *,
                   mistakes: Iterable[tuple[Mapping[str, float], str]] = (),
                   rtol: float = 1e-3, atol: float = 1e-6) -> Feedback:
    """Compare a dict of numbers (keys are compared as text: 0.5 and '0.5' alike).

    A mistake is a dict of some of the keys: it matches when all of those values do.
    """
    keys = ', '.join(repr(k) for k in expected)
    if answer is ...:
        return _todo(exercise, f'a dict with the keys {keys}')
    if not isinstance(answer, Mapping) or {str(k) for k in answer} != set(expected):
        return _wrong(exercise, f'give a dict with exactly the keys {keys}.',
                      'One entry per name, e.g. {' + f'{next(iter(expected))!r}: 1.0, ...' + '}.')
    got: dict[str, float] = {}
    for key, value in answer.items():
        if value is ...:
            return _todo(exercise, f'a value for {key!r} (and every other ...)')
        number = _as_array(value)
        if number is None or number.size != 1:
            return _wrong(exercise, f'{key!r} should be one number, got {value!r}.', hint)
        got[str(key)] = float(number.reshape(()))

    def close(key: str, want: float) -> bool:
        return bool(np.isclose(got[key], want, rtol=rtol, atol=atol))

    if all(close(k, v) for k, v in expected.items()):
        return _ok(exercise, 'all right: ' + ', '.join(f'{k} = {got[k]:.6g}' for k in expected))
    for partial, mistake_hint in mistakes:
        if all(close(str(k), v) for k, v in partial.items()):
            bad = [k for k in expected if not close(k, expected[k])]
            return _wrong(exercise, f'not right: {", ".join(bad)}.', mistake_hint)
    bad = [f'{k}: got {got[k]:.5g}, expected {v:.5g}' for k, v in expected.items()
           if not close(k, v)]
    return _wrong(exercise, 'wrong value(s): ' + '; '.join(bad) + '.', hint)


def _index(i: Iterable[int]) -> str:
    return '[' + ', '.join(str(int(k)) for k in i) + ']'


def _call(exercise: str, func: Any, *args: Any,
          known: Iterable[tuple[type, str, str]] = ()) -> tuple[Any, Feedback | None]:
    """Run learner code; an exception becomes feedback instead of a crash.

    ``known`` lists failures with a hint of their own: (exception type, text in its
    message, hint).
    """
    if func is ...:
        return None, _todo(exercise, 'your function')
    if not callable(func):
        return None, _wrong(exercise, f'expected a function, got {type(func).__name__}.',
                            'Define it with def ...(...): and pass the function itself.')
    try:
        result = func(*args)
    except Exception as error:  # learner code: report any failure as feedback
        hint = next((h for kind, text, h in known
                     if isinstance(error, kind) and text in str(error)),
                    'Run it on a small input in a cell of its own to see where.')
        first = str(error).strip().splitlines()[0] if str(error).strip() else ''
        return None, _wrong(exercise, f'your code raised {type(error).__name__}: {first}',
                            hint)
    if result is ...:
        return None, _todo(exercise, 'the body of your function')
    return result, None


class _seeded:
    """NumPy's global random state fixed inside (gradient_check draws from it), and the
    learner's own state given back afterwards."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def __enter__(self) -> None:
        self.saved = np.random.get_state()
        np.random.seed(self.seed)

    def __exit__(self, *exc: object) -> None:
        np.random.set_state(self.saved)


def _names(exercise: str, names: Any, example: str) -> set[str] | Feedback:
    """A learner's set of names as a set of strings, or the feedback that it is not one."""
    if names is ...:
        return _todo(exercise, f'a set of names, e.g. {example}')
    if isinstance(names, str):
        names = {names}
    try:
        return {str(n) for n in names}
    except TypeError:
        return _wrong(exercise, f'give a set of names such as {example}.',
                      'Write the names as strings inside { }.')


# ---- devices: where device-generic code is tried ----------------------------------------

def _devices() -> list[Any]:
    """The CPU, and the first GPU when the engine has a GPU backend (CuPy, or in the
    project's tests a stand-in)."""
    found = [backend.CpuDevice()]
    if backend.cuda_available():
        found.append(chainer.get_device('@cupy:0'))
    return found


def _on_gpu(device: Any) -> bool:
    return not isinstance(device, backend.CpuDevice)


def _where(device: Any) -> str:
    return f'on the GPU ({device})' if _on_gpu(device) else 'on the CPU'


def _tried_where() -> str:
    if len(_devices()) > 1:
        return ' (tried on the CPU and on the GPU)'
    return (' (tried on the CPU: there is no GPU here; on a machine with one, the checker '
            'tries the GPU too)')


def _same_device(result: Any, like: Any) -> bool:
    """Whether ``result`` is an array of the same kind (NumPy or GPU) as ``like``."""
    result = result.array if isinstance(result, Variable) else result
    like = like.array if isinstance(like, Variable) else like
    return backend.is_array(result) and (
        backend.get_array_module(result) is backend.get_array_module(like))


# ---- lesson 1: variables and derivatives ---------------------------------------------

def ex01_accumulate(prediction: Any) -> Feedback:
    """Predicted x.grad after a second y.backward() of y = x**2 - 2x + 1 at x = 5."""
    return _compare('ex01_accumulate', 'x.grad', prediction, [16.0],
                    'backward() adds into x.grad; it never overwrites it.',
                    mistakes=[([8.0], 'Gradients accumulate: each backward() adds its 8 to '
                               'x.grad, until x.cleargrad().'),
                              ([0.0], 'Nothing resets x.grad between two backward() calls: '
                               'the second adds its 8 to the 8 already there.'),
                              ([64.0], 'The two gradients are added, not multiplied.')])


def ex01_cubic(grad: Any) -> Feedback:
    """x = [-1, 0, 2], y = x**3 - 3*x: the elementwise derivative in x.grad."""
    x = np.array([-1.0, 0.0, 2.0])
    return _compare('ex01_cubic', 'x.grad', grad, 3 * x**2 - 3,
                    'd/dx (x^3 - 3x) = 3x^2 - 3, evaluated at each element of x.',
                    mistakes=[(3 * x**2, 'The -3x term contributes -3 to the derivative.'),
                              (x**3 - 3 * x, 'That is y itself: read x.grad after '
                               'y.backward(), not y.array.'),
                              (3 * x**2 - 3 * x, 'The derivative of 3x is 3, not 3x.')])


def _central(f: Callable[[Any], Any], x: float, h: float) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def ex01_central_difference(central_difference: Any) -> Feedback:
    """central_difference(f, x, h) = (f(x + h) - f(x - h)) / (2h)."""
    exercise = 'ex01_central_difference'

    def cube(v: Any) -> Any:
        return v ** 3

    result, failure = _call(exercise, central_difference, cube, 2.0, 0.1)
    if failure is not None:
        return failure
    hint = 'Step h to each side of x: (f(x + h) - f(x - h)) / (2 * h).'
    failed = _check_array(exercise, 'central_difference(cube, 2.0, 0.1)', result,
                  _central(cube, 2.0, 0.1), hint, rtol=1e-9, atol=1e-12, mistakes=[
                      ((cube(2.1) - cube(2.0)) / 0.1, 'That is the one-sided (forward) '
                       'difference: its error shrinks only like h. Step to both sides of x.'),
                      ((cube(2.1) - cube(1.9)) / 0.1, 'The two points are 2h apart: divide '
                       'by 2 * h.'),
                      (cube(2.1) - cube(1.9), 'Divide the difference by the distance between '
                       'the two points, 2 * h.'),
                      ((cube(2.0) - cube(1.9)) / 0.1, 'That is the one-sided (backward) '
                       'difference; step to both sides of x.')])
    if failed is not None:
        return failed
    # a second function and step, so that no constant can pass
    result, failure = _call(exercise, central_difference, np.sin, 1.0, 1e-3)
    if failure is not None:
        return failure
    return _compare(exercise, 'central_difference(np.sin, 1.0, 0.001)', result,
                    _central(np.sin, 1.0, 1e-3), hint, rtol=1e-9, atol=1e-12)


# ---- lesson 2: the chain rule by hand ------------------------------------------------

#: The neuron of lesson 2: f = 1 / (1 + exp(-(w0*x0 + w1*x1 + w2))) at these inputs.
NEURON = {'w0': 1.5, 'x0': 2.0, 'w1': -0.5, 'x1': 3.0, 'w2': -1.0}


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
                      'The ledger showed the true values: compare them with your answers to '
                      '2.2 and 2.3 (add passes its gradient on unchanged, a multiply swaps, '
                      f'the negation flips the sign). Then {_FRESH_SCORE}.')
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


# ---- lesson 3: retain_grad -------------------------------------------------------------

def ex03_released(names: Any) -> Feedback:
    """Predicted: which of 'x', 'h', 'loss' have grad None after a plain loss.backward()."""
    got = _names('ex03_released', names, "{'x'}")
    if isinstance(got, Feedback) or got is None:
        return got
    x = Variable(np.array([1.0, 2.0]))
    h = 3 * x + 1
    loss = F.sum(h**2)
    loss.backward()
    want = {n for n, v in (('x', x), ('h', h), ('loss', loss)) if v.grad is None}
    if got == want:
        return _ok('ex03_released', f'{sorted(got)} are released; only leaves keep gradients.')
    if 'x' in got:
        return _wrong('ex03_released', "'x' keeps its gradient.",
                      'Leaves (variables you created) always receive their gradient.')
    if not got:
        return _wrong('ex03_released', 'some gradients are released.',
                      'Without retain_grad every variable made by a function loses its '
                      'gradient once backward has used it.')
    missing = sorted(want - got)
    return _wrong('ex03_released', f'missing: {missing}.',
                  'Without retain_grad every variable made by a function is released, '
                  'the output included.' if 'loss' in missing else
                  'h was made by a function: its gradient is freed once it has been used.')


def ex03_h_grad(grad: Any) -> Feedback:
    """h = 3x + 1, loss = sum(h**2), x = [1, 2]: dloss/dh, kept with retain_grad."""
    h = 3 * np.array([1.0, 2.0]) + 1
    return _compare('ex03_h_grad', 'h.grad', grad, 2 * h,
                    'dloss/dh = 2h. Run loss.backward(retain_grad=True) and read h.grad.',
                    mistakes=[(6 * h, 'That is x.grad (the chain rule multiplied by 3); '
                               'the question asks for h.grad.'),
                              (h, 'That is h itself, the value; read h.grad.'),
                              (np.full(2, 3.0), 'That is dh/dx, the local derivative of h; '
                               'the question asks for dloss/dh.')])


# ---- lesson 4: non-scalar outputs ------------------------------------------------------

def ex04_sum_sin(grad: Any) -> Feedback:
    """x = linspace(0, pi, 5): gradient of F.sum(F.sin(x))."""
    x = np.linspace(0, np.pi, 5)
    return _compare('ex04_sum_sin', 'x.grad', grad, np.cos(x),
                    'The sum passes a 1 to every element; the derivative of sin is cos.',
                    mistakes=[(np.sin(x), 'That is sin(x), the value; differentiate it.'),
                              (-np.cos(x), 'The derivative of sin is +cos (it is cos whose '
                               'derivative is -sin).'),
                              (np.ones(5), 'The sum passes 1 to every element, and then sin '
                               'multiplies it by its own derivative, cos(x).')])


def ex04_weighted(prediction: Any) -> Feedback:
    """Predicted x.grad of y = x**2 at x = [1, 2, 3] with the seed y.grad = [1, 0, 10]."""
    x = np.array([1.0, 2.0, 3.0])
    w = np.array([1.0, 0.0, 10.0])
    return _compare('ex04_weighted', 'x.grad', prediction, w * 2 * x,
                    'Each element of the seed multiplies the matching derivative 2x.',
                    mistakes=[(2 * x, 'That is the gradient for a seed of ones; the seed '
                               '[1, 0, 10] weights each element.'),
                              (w, 'That is the seed alone: multiply each entry by the '
                               'derivative 2x of its element.'),
                              (w * x**2, 'That multiplies the seed by y = x^2, the value; use '
                               'the derivative 2x.'),
                              (w * x, 'The derivative of x^2 is 2x, not x.')])


# ---- lesson 5: backward order ----------------------------------------------------------

def ex05_ranks(ranks: Any) -> Feedback:
    """Predicted function ranks of h = 2x, p = exp(h), q = sin(h), y = p + q."""
    if ranks is ...:
        return _todo('ex05_ranks', "a dict like {'mul': 0, ...}")
    want = {'mul': 0, 'exp': 1, 'sin': 1, 'add': 2}
    if not isinstance(ranks, dict) or set(ranks) != set(want):
        return _wrong('ex05_ranks', f'give a dict with the keys {sorted(want)}.',
                      'One entry per function of the graph.')
    if any(v is ... for v in ranks.values()):
        return _todo('ex05_ranks', 'every rank')
    if ranks == {'mul': 2, 'exp': 1, 'sin': 1, 'add': 0}:
        return _wrong('ex05_ranks', 'you counted from the output.',
                      'Ranks count from the inputs: a leaf has rank 0 and a function has the '
                      'largest rank of its inputs.')
    if ranks == {'mul': 0, 'exp': 1, 'sin': 2, 'add': 3}:
        return _wrong('ex05_ranks', 'you numbered the functions in the order they ran.',
                      'exp and sin both take h as input: they have the same rank, the rank '
                      'of h.')
    if ranks == {'mul': 1, 'exp': 2, 'sin': 2, 'add': 3}:
        return _wrong('ex05_ranks', 'every rank is one too high.',
                      'x is a leaf of rank 0, and a function takes the largest rank of its '
                      'inputs (its outputs get that + 1): the first function has rank 0.')
    bad = [f'{k}: got {ranks[k]!r}, expected {v}' for k, v in want.items() if ranks[k] != v]
    if not bad:
        return _ok('ex05_ranks', 'right: backward runs add, then exp and sin, then mul.')
    return _wrong('ex05_ranks', '; '.join(bad) + '.',
                  "A function's rank is the largest rank of its inputs; its outputs get rank "
                  '+ 1.')


def ex05_accumulated(grad: Any) -> Feedback:
    """Predicted gradient of y = exp(h) + sin(h) in h, at x = 0.5 (h = 2x = 1)."""
    h = 1.0
    return _compare('ex05_accumulated', 'h.grad', grad, np.exp(h) + np.cos(h),
                    'h feeds two functions: its gradient is the sum over both paths.',
                    mistakes=[(np.exp(h), 'That is only the path through exp; the path '
                               'through sin adds cos(h).'),
                              (np.cos(h), 'That is only the path through sin; the path '
                               'through exp adds exp(h).'),
                              (np.exp(h) * np.cos(h), 'Two paths into one variable add up; '
                               'multiplying is for steps along one path.'),
                              (2 * (np.exp(h) + np.cos(h)), 'That is x.grad (times dh/dx = '
                               '2); the question asks for h.grad.')])


def ex05_run_to(verdict: Any) -> Feedback:
    """The view's Verdict on a guess for the sin step of the diamond, made after Run to
    here stopped backward with sin next: sin sends h only its own part, cos(h) times 1."""
    exercise = 'ex05_run_to'
    if verdict is ...:
        return _todo(exercise, 'what diamond.guess(your prediction) returns')
    graded = getattr(verdict, 'checks', None)
    if not hasattr(verdict, 'right') or not isinstance(graded, tuple):
        return _wrong(exercise, f'got {type(verdict).__name__}, not the verdict of a guess.',
                      'Keep what the view returns: sin_step = diamond.guess(your prediction).')
    h = 1.0
    targets = [name for name, *_ in graded]
    truth = _as_array(graded[0][2]) if len(graded) == 1 else None
    if targets != ['h'] or truth is None or not _close(truth.ravel(), [np.cos(h)], 1e-3, 1e-6):
        return _wrong(exercise, f'this guess graded a step that sends grads to '
                      f'{", ".join(targets) or "nothing"}, not the sin step.',
                      'Each guess runs one step. Run the cell that makes the diamond again '
                      '(it stops with sin next), then this cell once.')
    if verdict.right:
        return _ok(exercise, f'{verdict} (sin sends cos(h) times the 1 that came from p + q).')
    said = _as_array(graded[0][1])
    mistakes = [(np.exp(h) + np.cos(h), 'That is h.grad once both steps have run; the sin '
                 'step sends only its own part, cos(h) times the incoming 1.'),
                (np.sin(h), 'That is sin(h), the value; the step sends the derivative, '
                 'cos(h), times the incoming 1.'),
                (np.exp(h), 'That is what exp sent to h (exp(h) = e); sin sends its own '
                 'part, cos(h) times the incoming 1.')]
    for wrong_value, hint in mistakes:
        if said is not None and said.size == 1 and _matches(said, wrong_value, 1e-2, 5e-3):
            return _wrong(exercise, str(verdict), hint)
    return _wrong(exercise, str(verdict), 'The sin step sends the incoming gradient (1, from '
                  'p + q) times its local derivative, cos(h), at h = 1.')


# ---- lesson 6: higher-order derivatives ------------------------------------------------

def ex06_no_double(prediction: Any) -> Feedback:
    """Predicted g2 of g1, = grad([x**3], [x]) (no double backprop), g2, = grad([g1], [x])."""
    if prediction is ...:
        return _todo('ex06_no_double', 'your prediction (a number, or None)')
    if prediction is None:
        return _ok('ex06_no_double', 'right: g1 was computed without a graph, so there is '
                   'nothing to differentiate and chainer.grad gives None.')
    mistakes = [(18.0, 'That is d2/dx2 x^3 = 6x at x = 3, what you get WITH '
                 'enable_double_backprop=True. Without it g1 has no graph: the answer is None.'),
                (0.0, 'None, not 0: g1 has no graph behind it, so the engine cannot say '
                 'anything about its derivative, not even that it is zero.'),
                (27.0, 'That is g1 = 3x^2 itself; differentiating it again needs its graph, '
                 'which was not recorded.')]
    got = _as_array(prediction)
    for value, hint in mistakes:
        if got is not None and got.size == 1 and _matches(got, value, 1e-4, 1e-5):
            return _wrong('ex06_no_double', f'g2 = {_fmt(got)} is not right.', hint)
    return _wrong('ex06_no_double', f'g2 = {prediction!r} is not right.',
                  'Without enable_double_backprop=True, g1 has no creator: there is no graph '
                  'to differentiate, and chainer.grad says so with None.')


def ex06_tanh(derivatives: Any) -> Feedback:
    """[1st, 2nd, 3rd] derivative of tanh at x = 0.5."""
    if derivatives is ...:
        return _todo('ex06_tanh', '[g1, g2, g3]')
    if (isinstance(derivatives, (list, tuple)) and len(derivatives) == 3
            and any(d is None for d in derivatives)):
        return _wrong('ex06_tanh', 'one of the derivatives is None.',
                      'chainer.grad returns None when the gradient was not recorded: pass '
                      'enable_double_backprop=True for every order but the last.')
    t = np.tanh(0.5)
    g1 = 1 - t**2
    want = [g1, -2 * t * (1 - t**2), -2 * (1 - t**2) * (1 - 3 * t**2)]
    return _compare('ex06_tanh', 'derivatives', derivatives, want,
                    'Differentiate each result again with chainer.grad([g], [x], '
                    'enable_double_backprop=True).', mistakes=[
                        ([g1, g1, g1], 'Each order differentiates the previous derivative: '
                         'g2 = grad of g1, not of tanh(x) again.'),
                        ([g1, 2 * g1, 3 * g1], 'Those are x.grad after repeated backward() '
                         'calls: they accumulate. Use chainer.grad on the previous derivative '
                         'instead.')])


def ex06_hvp(hv: Any) -> Feedback:
    """H v for f(x) = x0**2 * x1 + x1**3 at x = [1, 2], v = [1, 0]."""
    x0, x1 = 1.0, 2.0
    hess = np.array([[2 * x1, 2 * x0], [2 * x0, 6 * x1]])
    gradient = np.array([2 * x0 * x1, x0**2 + 3 * x1**2])
    v = np.array([1.0, 0.0])
    return _compare('ex06_hvp', 'Hv', hv, hess @ v,
                    'Take g = grad(f), form F.sum(g * v), and differentiate that once more.',
                    mistakes=[(gradient, 'That is the gradient of f; the Hessian-vector '
                               'product differentiates g . v once more.'),
                              (gradient @ v, 'That is g . v, a number; differentiate it once '
                               'more in x to get the vector Hv.'),
                              (hess @ v[::-1], 'That is H times [0, 1]; use v = [1, 0].'),
                              (hess, 'That is the whole Hessian; Hv is one vector, its '
                               'product with v.')])


def ex06_newton(x_final: Any) -> Feedback:
    """Newton's method for the minimum of f(x) = x**4 - 3x**2 + x from x = 2."""
    # f'(x) = 4x^3 - 6x + 1; the stationary point Newton reaches from 2 is the largest root.
    roots = np.roots([4.0, 0.0, -6.0, 1.0]).real
    root_of_f = np.roots([1.0, 0.0, -3.0, 1.0, 0.0]).real
    return _compare('ex06_newton', 'x', x_final, roots.max(),
                    "The minimisation step is x - f'(x) / f''(x); repeat it 10 times.",
                    mistakes=[(root_of_f.max(), "That is a root of f itself (x - f/f'); "
                               "a minimum needs f'/f''."),
                              (1.5, "That is after one step; run the step 10 times, each "
                               "from the previous position."),
                              (_newton_ascent(), "The step subtracts f'/f''; adding it "
                               'walks the wrong way.')], rtol=1e-3, atol=1e-4)


def _newton_ascent() -> float:
    x = 2.0
    for _ in range(10):
        x += (4 * x**3 - 6 * x + 1) / (12 * x**2 - 6)
    return x


# ---- lesson 7: cutting the graph, gradients through time -------------------------------

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


def ex07_truncated(train: Any) -> Feedback:
    """train(xs, targets, w0, k) -> accumulated w.grad of truncated BPTT."""
    result, failure = _call('ex07_truncated', train, RNN_XS, RNN_TARGETS, 0.8, 2)
    if failure is not None:
        return failure

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


# ---- lesson 8: no_backprop_mode / force_backprop_mode -----------------------------------

def ex08_recorded(names: Any) -> Feedback:
    """Predicted: which of y1..y4 in the lesson's snippet have a creator."""
    got = _names('ex08_recorded', names, "{'y1'}")
    if isinstance(got, Feedback) or got is None:
        return got
    x = Variable(np.array([1.0, 2.0]))
    y1 = x * 2
    with chainer.no_backprop_mode():
        y2 = x * 2
        with chainer.force_backprop_mode():
            y3 = x * 2
    y4 = y2 * 2
    want = {n for n, v in (('y1', y1), ('y2', y2), ('y3', y3), ('y4', y4))
            if v.creator is not None}
    if got == want:
        return _ok('ex08_recorded', f'{sorted(want)} were recorded.')
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
    return _wrong('ex08_recorded', f'you said {sorted(got)}.', ' '.join(hints))


def ex08_predict(predict: Any) -> Feedback:
    """predict(model, x) -> Variable computed by the model without recording the graph."""
    model = L.Linear(3, 2, initialW=np.arange(6.0).reshape(2, 3) / 10, initial_bias=0.5)
    x = np.array([[1.0, -1.0, 2.0]], dtype=np.float32)
    with events.recording() as log:  # which functions ran, and whether they were recorded
        result, failure = _call('ex08_predict', predict, model, x)
    if failure is not None:
        return failure
    applied = [e for e in log if e.kind == 'function_applied']
    want = x @ model.W.array.T + model.b.array
    hint = 'Return model(x), computed inside `with chainer.no_backprop_mode():`.'
    if any(e.recorded for e in applied):
        return _wrong('ex08_predict', 'the graph was recorded while your function ran '
                      '(whatever happened to it afterwards).',
                      'Call the model inside `with chainer.no_backprop_mode():`; copying or '
                      'unchaining the result afterwards does not undo the recording.')
    if not applied:
        return _wrong('ex08_predict', 'no function of the engine ran: the model was not '
                      'called.', 'Call the model itself, model(x): plain NumPy would not '
                      'follow a change of the model (another Link, another device).')
    if not isinstance(result, Variable):
        return _wrong('ex08_predict', f'you returned {type(result).__name__}, not a '
                      'Variable.', hint)
    return _compare('ex08_predict', 'predict(model, x)', result, want, hint)


# ---- lesson 9: links, optimizers, training ---------------------------------------------

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


def ex09_train_step(train_step: Any) -> Feedback:
    """train_step(model, optimizer, x, t) -> loss as a float, after one SGD update."""
    if train_step is ...:
        return _todo('ex09_train_step', 'your function')
    model, x, t = _small_problem()
    opt = chainer.optimizers.SGD(lr=0.5).setup(model)
    first_loss = float(F.softmax_cross_entropy(model(x), t).array)
    losses = []
    for _ in range(3):
        result, failure = _call('ex09_train_step', train_step, model, opt, x, t)
        if failure is not None:
            return failure
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


# ---- lesson 10: mixed precision ---------------------------------------------------------

FLOAT16_CANDIDATES = (1e-9, 2e-8, 4e-8, 1e-6)


def ex10_zero_in_float16(values: Any) -> Feedback:
    """Predicted: which of 1e-9, 2e-8, 4e-8, 1e-6 become exactly 0 in float16."""
    exercise = 'ex10_zero_in_float16'
    if values is ...:
        return _todo(exercise, 'a set of the values that become 0, e.g. {1e-9}')
    try:
        got = {float(v) for v in values}
    except (TypeError, ValueError):
        return _wrong(exercise, 'give a set of numbers, e.g. {1e-9}.',
                      f'Pick from {list(FLOAT16_CANDIDATES)}.')
    if not got <= set(FLOAT16_CANDIDATES):
        return _wrong(exercise, f'pick among {list(FLOAT16_CANDIDATES)} only.',
                      'Copy the values from the list.')
    want = {v for v in FLOAT16_CANDIDATES if np.float16(v) == 0}
    if got == want:
        return _ok(exercise, f'right: {sorted(want)} round to 0; the others survive (as '
                   'subnormals, with few digits).')
    tiny = float(np.finfo(np.float16).smallest_subnormal)
    if got > want and max(got - want) < tiny:
        hint = (f'float16 rounds to the nearest value it has. The smallest above 0 is {tiny:.3g}:'
                f' anything above half of it ({tiny / 2:.3g}) rounds up to it, not down to 0.')
    elif got > want:
        hint = ('1e-6 is below the smallest normal float16 (6.1e-5) but not 0: it is stored '
                'as a subnormal, with fewer digits.')
    elif not got:
        hint = (f'float16 has nothing between 0 and {tiny:.3g}: smaller values must round to '
                'one of the two.')
    else:
        hint = (f'Values below half the smallest subnormal ({tiny / 2:.3g}) round to 0: '
                f'{sorted(want - got)} too.')
    return _wrong(exercise, f'you said {sorted(got)}.', hint)


def ex10_unscaled(grad: Any) -> Feedback:
    """The true float16 gradient of loss = 1e-4 * sum(x * 1e-4) at x = ones(3), via scaling."""
    want = np.full(3, 1e-8)
    hint = 'Backward with loss_scale=S, then divide x.grad (as float32) by S.'
    if grad is ...:
        return _todo('ex10_unscaled', 'the unscaled gradient')
    got = _as_array(grad)
    if got is not None and got.shape == (3,) and np.all(got == 0):
        return _wrong('ex10_unscaled', 'the gradient is all zeros.',
                      "1e-8 is below float16's smallest number: it underflowed. Scale the "
                      'loss, and divide in float32 (in float16 the division underflows '
                      'again).')
    if got is not None and got.shape == (3,) and np.all(got > 1e-6):
        return _wrong('ex10_unscaled', f'x.grad = {_fmt(got)} is still scaled.',
                      'The gradient is multiplied by loss_scale: divide by it.')
    if got is not None and got.shape == (3,) and np.all((got > 0) & (got < 1e-10)):
        return _wrong('ex10_unscaled', f'x.grad = {_fmt(got)} is too small.',
                      'Divide by the scale once: the gradient is S times too large, not S '
                      'squared.')
    return _compare('ex10_unscaled', 'x.grad', grad, want, hint, rtol=0.05, atol=0)


def ex10_max_scale(scale: Any) -> Feedback:
    """The largest power of two S such that a gradient of 3.0 times S stays finite in float16."""
    largest = float(np.finfo(np.float16).max)
    want = 2.0 ** np.floor(np.log2(largest / 3.0))
    return _compare('ex10_max_scale', 'S', scale, want,
                    'float16 tops out at 65504: 3 * S must stay at or below that.',
                    mistakes=[(want * 2, f'3 * {want * 2:g} = {3 * want * 2:g} is above '
                               '65504: it overflows to inf.'),
                              (largest / 3, 'S should be a power of two (scaling by one is '
                               'exact in floating point).'),
                              (want * 4, f'{want * 4:g} alone is already above 65504.'),
                              (want / 2, f'There is a larger one: 3 * {want:g} = '
                               f'{3 * want:g} is still finite.')], rtol=0, atol=0)


# ---- lesson 11: devices -----------------------------------------------------------------

GENERIC_LINES = {
    'A': 'np.exp(a)',
    'B': 'a + np.ones(a.shape)',
    'C': 'a + xp.ones(a.shape)',
    'D': 'np.asarray(a) * 2',
}


def ex11_stays_on_gpu(names: Any) -> Feedback:
    """Predicted: which of the lines A-D give a GPU array when ``a`` is a CuPy array."""
    got = _names('ex11_stays_on_gpu', names, "{'A'}")
    if isinstance(got, Feedback) or got is None:
        return got
    if not got <= set(GENERIC_LINES):
        return _wrong('ex11_stays_on_gpu', f'pick among {sorted(GENERIC_LINES)}.',
                      'Give the letters of the lines.')
    want = {'A', 'C'}
    if got == want:
        return _ok('ex11_stays_on_gpu', 'right: NumPy functions hand CuPy arrays on to CuPy, '
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
    return _wrong('ex11_stays_on_gpu', f'you said {sorted(got)}.', ' '.join(hints))


def ex11_one_hot(one_hot: Any) -> Feedback:
    """one_hot(t, n): an array (len(t), n) with 1 at [i, t[i]], on t's device."""
    exercise = 'ex11_one_hot'
    t_host = np.array([2, 0, 1, 2], dtype=np.int32)
    want = np.eye(3)[t_host]
    for device in _devices():
        t = device.send(t_host)
        result, failure = _call(exercise, one_hot, t, 3)
        if failure is not None:
            return failure
        if isinstance(result, Variable):
            return _wrong(exercise, 'you returned a Variable.', 'Return the array itself.')
        if not _same_device(result, t):
            return _wrong(exercise, f'{_where(device)} your function returned a '
                          f'{type(result).__module__}.{type(result).__name__}, not an array '
                          'on the same device as t.',
                          'Make the new array with xp = backend.get_array_module(t), e.g. '
                          'xp.eye(n)[t]: np.eye makes a CPU array whatever t is.')
        got = _as_array(result)
        if got is not None and got.shape == want.T.shape and np.allclose(got, want.T):
            return _wrong(exercise, f'the result has shape {got.shape}, expected {want.shape}.',
                          'One row per label, one column per class: shape (len(t), n).')
        failed = _check_array(exercise, f'one_hot(t, 3) {_where(device)}', result, want,
                      'Row i holds a 1 in column t[i] and 0 elsewhere: xp.eye(n)[t].',
                      mistakes=[(np.eye(3)[(t_host + 1) % 3], 'Classes count from 0: label t '
                                 'goes in column t, not t + 1.')])
        if failed is not None:
            return failed
    return _ok(exercise, 'right' + _tried_where() + '.')


def ex11_to_numpy(to_numpy: Any) -> Feedback:
    """to_numpy(v) -> a NumPy array with v's values, from a Variable on any device."""
    exercise = 'ex11_to_numpy'
    host = np.array([1.0, 2.0, 3.0], np.float32)
    for device in _devices():
        v = Variable(device.send(host))
        result, failure = _call(exercise, to_numpy, v, known=[
            (AttributeError, 'get', '.get() exists only on CuPy arrays; '
             'backend.CpuDevice().send(v.array) works for both.')])
        if failure is not None:
            return failure
        if isinstance(result, Variable):
            return _wrong(exercise, 'you returned a Variable.',
                          'Return its array, copied to the CPU: '
                          'backend.CpuDevice().send(v.array).')
        if str(v.device) != str(device):
            return _wrong(exercise, f'{_where(device)} your function moved v to {v.device}.',
                          'Leave v where it is: copy its array instead of moving the '
                          'Variable (to_device moves it in place).')
        if type(result) is not np.ndarray:
            return _wrong(exercise, f'{_where(device)} you returned '
                          f'{type(result).__module__}.{type(result).__name__}.',
                          'On a GPU, v.array is a CuPy array: copy it to the CPU with '
                          'backend.CpuDevice().send(v.array).')
        failed = _check_array(exercise, 'to_numpy(v)', result, host,
                              'Keep the values as they are; only the device changes.')
        if failed is not None:
            return failed
    return _ok(exercise, 'right' + _tried_where() + '.')


# ---- lesson 12: a FunctionNode of your own ----------------------------------------------

def ex12_slope(prediction: Any) -> Feedback:
    """Predicted dy/dx of softsign y = x / (1 + |x|) at x = -1."""
    return _compare('ex12_slope', 'dy/dx', prediction, 0.25,
                    'dy/dx = 1 / (1 + |x|)**2; put x = -1 in.',
                    mistakes=[(0.5, 'Square the denominator: 1 / (1 + |x|)**2.'),
                              (-0.25, 'The slope of softsign is positive everywhere (it '
                               'always rises); |x| makes the sign of x disappear.'),
                              (-0.5, 'That is y(-1), the value; the question asks for the '
                               'slope.'),
                              (np.inf, 'With |x| the denominator is (1 + 1)**2 = 4, never '
                               '0: keep the absolute value.')])


def _softsign(node_class: type, x: Any) -> Variable:
    y = node_class().apply((x,))
    return y[0] if isinstance(y, tuple) else y


def _is_node_class(exercise: str, node_class: Any, name: str) -> Feedback | None:
    if node_class is ...:
        return _todo(exercise, 'your FunctionNode class')
    if not (isinstance(node_class, type) and issubclass(node_class, chainer.FunctionNode)):
        return _wrong(exercise, f'{name} is a {type(node_class).__name__}, not a '
                      'FunctionNode class.', f'Write class {name}(chainer.FunctionNode): ...')
    return None


_NOT_A_TUPLE = (TypeError, 'must be a tuple', 'forward returns a tuple of arrays: end the '
                'return line with a comma, `return y,`.')


def ex12_forward(node_class: Any) -> Feedback:
    """Softsign.forward: y = x / (1 + |x|), on any device."""
    exercise = 'ex12_forward'
    failed = _is_node_class(exercise, node_class, 'Softsign')
    if failed is not None:
        return failed
    x_host = np.array([-3.0, -0.5, 0.0, 2.0])
    for device in _devices():
        x = device.send(x_host)
        result, failure = _call(exercise, _softsign, node_class, x, known=[_NOT_A_TUPLE])
        if failure is not None:
            return failure
        if not _same_device(result, x):
            return _wrong(exercise, f'{_where(device)} the output is not on the input\'s '
                          'device.', 'Compute with xp = backend.get_array_module(x): no '
                          'np.asarray, no new np.* arrays.')
        failed = _check_array(
            exercise, f'Softsign()(x) {_where(device)}', result, x_host / (1 + np.abs(x_host)),
            'forward gets a tuple of arrays and returns a tuple: (x / (1 + xp.abs(x)),).',
            mistakes=[(x_host / (1 + x_host), 'Use the absolute value in the denominator: '
                       'xp.abs(x), with xp = backend.get_array_module(x).'),
                      (np.abs(x_host) / (1 + np.abs(x_host)), 'Only the denominator takes '
                       'the absolute value: y keeps the sign of x.')])
        if failed is not None:
            return failed
    return _ok(exercise, 'forward is right' + _tried_where() + '.')


def _first_grad(forward: Callable[[Any], Variable], x: Any, gy: Any) -> Any:
    """The gradient backward gives at x for the seed gy (host copy), or None if it fails."""
    try:
        v = Variable(x.copy())
        y = forward(v)
        y.grad = gy
        y.backward()
        return None if v.grad is None else _as_array(v.grad)
    except Exception:  # learner code: any failure just means "no guess"
        return None


def _gradient_checks(exercise: str, func: Callable[..., Any], x_data: Any, gy: Any,
                     ggx: Any | None, hint: str, **options: Any) -> Feedback | None:
    """check_backward (and check_double_backward with ggx); the feedback if one fails."""
    checks_to_run = [('check_backward', gradient_check.check_backward, (func, x_data, gy))]
    if ggx is not None:
        checks_to_run.append(('check_double_backward', gradient_check.check_double_backward,
                              (func, x_data, gy, ggx)))
    for name, check, args in checks_to_run:
        try:
            with _seeded():
                check(*args, **options)
        except AssertionError as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else ''
            return _wrong(exercise, f'{name} failed: {first}', hint)
        except Exception as error:  # learner code: any failure becomes feedback
            return _wrong(exercise, f'{name} raised {type(error).__name__}: {error}', hint)
    return None


def ex12_backward(node_class: Any) -> Feedback:
    """Softsign.backward agrees with numerical differentiation, to first and second order,
    at negative and positive points, on any device."""
    exercise = 'ex12_backward'
    failed = _is_node_class(exercise, node_class, 'Softsign')
    if failed is not None:
        return failed
    rng = np.random.default_rng(0)
    # both signs (a backward that drops |x| is right for x > 0 only), away from the kink at 0
    x_host = rng.uniform(0.5, 2.0, 6) * np.array([-1.0, 1.0, -1.0, 1.0, -1.0, 1.0])
    gy_host, ggx_host = rng.normal(size=6), rng.normal(size=6)
    candidates = [
        (1 / (1 + np.abs(x_host)), 'dy/dx = 1 / (1 + |x|)**2: square the denominator.'),
        (1 / (1 + x_host) ** 2, 'Keep the absolute value: 1 / (1 + |x|)**2 (your backward '
         'is right for x > 0 only).'),
        (1 / (1 + np.abs(x_host)) ** 2 / gy_host, 'Multiply the local derivative by gy, the '
         'gradient arriving from the output.'),
    ]
    for device in _devices():
        x, gy, ggx = (device.send(a) for a in (x_host, gy_host, ggx_host))

        def f(v: Any) -> Any:
            return _softsign(node_class, v)

        _, failure = _call(exercise, f, x, known=[_NOT_A_TUPLE])
        if failure is not None:
            return failure
        got = _first_grad(f, x, gy)
        if got is not None:
            for local, hint in candidates:
                if np.allclose(got, local * gy_host, rtol=1e-6, atol=1e-9):
                    return _wrong(exercise, f'{_where(device)} backward gives the wrong '
                                  'gradient.', hint)
        failed = _gradient_checks(
            exercise, f, x, gy, ggx,
            'dy/dx = 1 / (1 + |x|)**2; multiply by gy, and build it from F functions on the '
            'retained input Variable (F.absolute, operators), so that it can be '
            'differentiated again.')
        if failed is not None:
            return failed
    return _ok(exercise, 'check_backward and check_double_backward both pass, at negative '
               'and positive x' + _tried_where() + '.')


# ---- lesson 13: a matrix backward --------------------------------------------------------

#: The shapes of lesson 13: a batch of N rows, n_in features in, n_out out.
LINEAR_SHAPES = {'N': 4, 'n_in': 3, 'n_out': 2}


def ex13_shapes(shapes: Any) -> Feedback:
    """Predicted shapes of gx, gW, gb for y = x W^T + b, x (4, 3), W (2, 3), b (2,)."""
    exercise = 'ex13_shapes'
    n, n_in, n_out = LINEAR_SHAPES['N'], LINEAR_SHAPES['n_in'], LINEAR_SHAPES['n_out']
    want = {'gx': (n, n_in), 'gW': (n_out, n_in), 'gb': (n_out,)}
    if shapes is ...:
        return _todo(exercise, "a dict {'gx': (..), 'gW': (..), 'gb': (..)}")
    if not isinstance(shapes, Mapping) or set(shapes) != set(want):
        return _wrong(exercise, "give a dict with the keys 'gx', 'gW' and 'gb'.",
                      'One shape (a tuple) per gradient.')
    if any(v is ... for v in shapes.values()):
        return _todo(exercise, 'every shape')
    try:
        got = {k: tuple(int(d) for d in (v if isinstance(v, Iterable) else (v,)))
               for k, v in shapes.items()}
    except (TypeError, ValueError):
        return _wrong(exercise, 'each shape should be a tuple of numbers, like (4, 3).',
                      'Write shapes as tuples: (n_out,) for a vector.')
    if got == want:
        return _ok(exercise, 'right: every gradient has the shape of what it is the gradient '
                   'of.')
    if got['gW'] == (n_in, n_out):
        hint = ('W has shape (n_out, n_in) = (2, 3), and a gradient has the shape of its '
                'variable: gW = gy^T x is (2, 4) @ (4, 3).')
    elif got['gb'] == (n, n_out):
        hint = ('b is one vector shared by every row of the batch: its gradient sums the rows '
                'of gy, shape (n_out,).')
    elif got['gx'] == (n, n_out):
        hint = 'That is the shape of gy; gx has the shape of x, (N, n_in).'
    else:
        hint = 'A gradient always has the shape of its variable.'
    bad = [f'{k}: got {got[k]}, expected {v}' for k, v in want.items() if got[k] != v]
    return _wrong(exercise, '; '.join(bad) + '.', hint)


def _linear_problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(1)
    n, n_in, n_out = LINEAR_SHAPES['N'], LINEAR_SHAPES['n_in'], LINEAR_SHAPES['n_out']
    x = rng.normal(size=(n, n_in))          # values of both signs
    w = rng.normal(size=(n_out, n_in))
    b = rng.normal(size=n_out)
    gy = rng.normal(size=(n, n_out))
    return x, w, b, gy


_GRAD_SHAPE_HINTS = [
    (ValueError, 'input 0 has shape', 'gx has the shape of x, (N, n_in): gx = gy W.'),
    (ValueError, 'input 1 has shape', 'gW has the shape of W, (n_out, n_in): gW = gy^T x.'),
    (ValueError, 'input 2 has shape', 'gb has the shape of b, (n_out,): sum gy over the '
     'batch axis, F.sum(gy, axis=0).'),
]


def _backward_is_stub(node_class: type, inputs: tuple, grad_outputs: tuple,
                      targets: tuple[int, ...]) -> bool:
    """Whether the class's backward still returns the ``...`` placeholder."""
    try:
        node = node_class()
        node.apply(inputs)
        return node.backward(targets, tuple(Variable(g) for g in grad_outputs)) is ...
    except Exception:  # learner code: a failure is reported by the real checks
        return False


def ex13_linear(node_class: Any) -> Feedback:
    """LinearFunction: y = x W^T + b and its backward gx = gy W, gW = gy^T x, gb = sum gy."""
    exercise = 'ex13_linear'
    failed = _is_node_class(exercise, node_class, 'LinearFunction')
    if failed is not None:
        return failed
    x_h, w_h, b_h, gy_h = _linear_problem()
    want = {'gx': gy_h @ w_h, 'gW': gy_h.T @ x_h, 'gb': gy_h.sum(axis=0)}
    for device in _devices():
        x, w, b, gy = (device.send(a) for a in (x_h, w_h, b_h, gy_h))

        def f(*args: Any) -> Any:
            y = node_class().apply(args)
            return y[0] if isinstance(y, tuple) else y

        result, failure = _call(exercise, f, x, w, b, known=[_NOT_A_TUPLE])
        if failure is not None:
            return failure
        if _backward_is_stub(node_class, (x, w, b), (gy,), (0, 1, 2)):
            return _todo(exercise, 'the gradients in backward')
        failed = _check_array(exercise, f'y {_where(device)}', result, x_h @ w_h.T + b_h,
                              'forward returns (x @ W.T + b,): W has shape (n_out, n_in).')
        if failed is not None:
            return failed

        def grads(x: Any = x, w: Any = w, b: Any = b, gy: Any = gy) -> dict[str, Any]:
            xv, wv, bv = Variable(x), Variable(w), Variable(b)
            y = f(xv, wv, bv)
            y.grad = gy
            y.backward()
            return {'gx': xv.grad, 'gW': wv.grad, 'gb': bv.grad}

        got, failure = _call(exercise, grads, known=_GRAD_SHAPE_HINTS)
        if failure is not None:
            return failure
        mistakes = {
            'gx': [],
            'gW': [(np.ones_like(gy_h).T @ x_h, 'Multiply in gy: gW = gy^T x.')],
            'gb': [(gy_h.mean(axis=0), 'Sum over the batch, not the mean: every row adds its '
                    'own contribution to b.')],
        }
        for name, value in want.items():
            failed = _check_array(exercise, f'{name} {_where(device)}', got[name], value,
                                  {'gx': 'gx = gy W', 'gW': 'gW = gy^T x',
                                   'gb': 'gb = sum of gy over the batch axis'}[name] + '.',
                                  mistakes=mistakes[name])
            if failed is not None:
                return failed
        failed = _gradient_checks(exercise, f, (x, w, b), gy, None,
                                  'Build each gradient from the grad_outputs Variable gy and '
                                  'the retained inputs, with F.matmul and F.sum.')
        if failed is not None:
            return failed
    return _ok(exercise, 'forward, the three gradients and check_backward are right, at '
               'negative and positive values' + _tried_where() + '.')


def _softmax_problem() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 3)) * 2
    t = np.array([0, 2, 1, 2], dtype=np.int32)
    return x, t


def ex13_softmax_ce(node_class: Any) -> Feedback:
    """SoftmaxCrossEntropy: the mean of -log softmax(x)[i, t[i]], and gx = (p - onehot) / N."""
    exercise = 'ex13_softmax_ce'
    failed = _is_node_class(exercise, node_class, 'SoftmaxCrossEntropy')
    if failed is not None:
        return failed
    x_h, t_h = _softmax_problem()
    n = len(t_h)
    p_h = np.exp(x_h - x_h.max(axis=1, keepdims=True))
    p_h /= p_h.sum(axis=1, keepdims=True)
    onehot = np.eye(x_h.shape[1])[t_h]
    g_loss = 0.7  # not 1, so that a backward which ignores grad_outputs is caught
    want_gx = g_loss * (p_h - onehot) / n
    for device in _devices():
        x, t = device.send(x_h), device.send(t_h)

        def loss_of(v: Any, t: Any = t) -> Any:
            y = node_class().apply((v, t))
            return y[0] if isinstance(y, tuple) else y

        result, failure = _call(exercise, loss_of, x, known=[_NOT_A_TUPLE])
        if failure is not None:
            return failure
        if _backward_is_stub(node_class, (x, t), (device.send(np.array(g_loss)),), (0,)):
            return _todo(exercise, 'the gradient in backward')
        failed = _check_array(exercise, f'loss {_where(device)}', result,
                              -np.log(p_h[np.arange(n), t_h]).mean(),
                              'loss = the mean over the batch of -log p[i, t[i]], with p = '
                              'softmax(x) row by row.')
        if failed is not None:
            return failed
        big, failure = _call(exercise, loss_of, x + 1000)
        if failure is not None:
            return failure
        big_value = _as_array(big)
        if big_value is None or not np.all(np.isfinite(big_value)):
            return _wrong(exercise, f'with logits near 1000 the loss is {big_value}.',
                          'exp(1000) overflows: subtract the largest logit of each row before '
                          'exp (softmax does not change).')

        def gx_of(x: Any = x) -> Any:
            xv = Variable(x)
            loss = loss_of(xv)
            loss.grad = backend.get_array_module(x).asarray(g_loss, dtype=x.dtype)
            loss.backward()
            return xv.grad

        got, failure = _call(exercise, gx_of, known=[
            (TypeError, 'mixed', 'The one-hot must be on the same device as x: make it with '
             'xp = backend.get_array_module(...) (lesson 11), not np.')])
        if failure is not None:
            return failure
        failed = _check_array(
            exercise, f'gx {_where(device)}', got, want_gx,
            'gx = (softmax(x) - onehot(t)) / N, times the incoming gradient gy.',
            mistakes=[(want_gx * n, 'The loss is a mean over the N rows: divide by N.'),
                      (-want_gx, 'The sign is p - onehot: raising the right class\'s logit '
                       'lowers the loss.'),
                      (want_gx / g_loss, 'Multiply by the incoming gradient gy (grad_outputs): '
                       'the loss may itself be used further on.')])
        if failed is not None:
            return failed
        failed = _gradient_checks(exercise, loss_of, x, device.send(np.array(g_loss)), None,
                                  'gx = (p - onehot) / N * gy, built from Variables.')
        if failed is not None:
            return failed
    return _ok(exercise, 'loss, gradient and check_backward are right' + _tried_where() + '.')


#: Lesson 13's operation count: D layers of m x m Jacobians and a scalar at the end.
COUNT = {'m': 100, 'D': 3}


def ex13_count(counts: Any) -> Feedback:
    """Predicted multiply-adds for dL/dx through D m-by-m layers: reverse and forward mode."""
    m, depth = COUNT['m'], COUNT['D']
    reverse = depth * m * m               # D vector-matrix products, from the 1 x m row
    forward = depth * m * m * m + m * m   # m directions, each pushed through D layers
    return _compare_named(
        'ex13_count', counts, {'reverse': reverse, 'forward': forward},
        'Reverse mode: one row vector pushed back through D matrices (m*m each). Forward '
        'mode: one pass per input direction, m of them.',
        mistakes=[({'reverse': forward, 'forward': reverse}, 'It is the other way round: '
                   'reverse mode starts from the single output, forward mode from each of '
                   'the m inputs.'),
                  ({'forward': reverse}, 'One forward-mode pass gives the derivative along '
                   'ONE input direction; the gradient needs m of them.'),
                  ({'reverse': depth * m**3}, 'Reverse mode starts from the 1 x m row dL/dh: '
                   'every product is a vector times a matrix, m*m multiply-adds, never a '
                   'matrix times a matrix.')],
        rtol=0.01, atol=0)


#: Every checker, for tests and for instructors who grade outside the notebooks.
ALL: dict[str, Callable[[Any], Feedback]] = {
    name: value for name, value in sorted(globals().items())
    if name.startswith('ex') and name[2:4].isdigit() and callable(value)
}
