"""Exercise checkers for the autograd_lab lessons: one function per exercise.

Every checker takes the learner's answer, works out the expected answer on its
own (closed forms, or the engine run on inputs the checker chooses), and
returns a :class:`Feedback`: correct, wrong (which value is off, and a hint
aimed at the usual mistake), or "not done yet" while the cell still holds the
``...`` placeholder.  A notebook therefore always runs top to bottom.

Under nbgrader (``NBGRADER_EXECUTION`` is ``autograde`` or ``validate``), or
after ``checks.STRICT = True``, anything but a correct answer raises
``AssertionError`` so that the graded cell scores zero.

>>> fb = ex01_accumulate(...)
>>> fb.status
'todo'
>>> ex01_accumulate([16.0]).status
'correct'
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import Variable, gradient_check

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
    """A float64 NumPy copy of a number, list, array or Variable; None if not numeric."""
    if isinstance(value, Variable):
        value = value.array
    elif isinstance(value, (list, tuple)):  # e.g. [g1, g2, g3] of Variables
        value = [v.array if isinstance(v, Variable) else v for v in value]
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _fmt(a: np.ndarray) -> str:
    a = np.asarray(a)
    if a.size and np.all(np.isfinite(a)) and np.all(a == np.round(a)) and np.all(abs(a) < 1e15):
        a = a.astype(np.int64)  # 2410, not 2410.
    return np.array2string(a, precision=4, separator=', ')


def _close(got: np.ndarray, want: Any, rtol: float, atol: float) -> bool:
    want = np.asarray(want, dtype=np.float64)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=rtol, atol=atol))


def _compare(exercise: str, name: str, value: Any, expected: Any, hint: str, *,
             mistakes: Iterable[tuple[Any, str]] = (), rtol: float = 1e-4,
             atol: float = 1e-5) -> Feedback:
    """Compare an array answer element by element; known wrong answers get their own hint."""
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
    if got.shape != want.shape:
        return _wrong(exercise, f'{name} has shape {got.shape}, expected shape {want.shape}.',
                      hint)
    if _close(got, want, rtol, atol):
        return _ok(exercise, f'{name} = {_fmt(got)} is right.')
    for wrong_value, mistake_hint in mistakes:
        if _close(got, wrong_value, rtol, atol):
            return _wrong(exercise, f'{name} = {_fmt(got)} is not right.', mistake_hint)
    bad = np.argwhere(~np.isclose(got, want, rtol=rtol, atol=atol))
    where = ', '.join(f'{name}{_index(i) if got.ndim else ""}: got {got[tuple(i)]:.5g}, '
                      f'expected {want[tuple(i)]:.5g}' for i in bad[:3])
    more = f' (and {len(bad) - 3} more)' if len(bad) > 3 else ''
    return _wrong(exercise, f'wrong value(s): {where}{more}.', hint)


def _index(i: Iterable[int]) -> str:
    return '[' + ', '.join(str(int(k)) for k in i) + ']'


def _call(exercise: str, func: Any, *args: Any) -> tuple[Any, Feedback | None]:
    """Run learner code; an exception becomes feedback instead of a crash."""
    if func is ...:
        return None, _todo(exercise, 'your function')
    if not callable(func):
        return None, _wrong(exercise, f'expected a function, got {type(func).__name__}.',
                            'Define it with def ...(...): and pass the function itself.')
    try:
        result = func(*args)
    except Exception as error:  # learner code: report any failure as feedback
        return None, _wrong(exercise, f'your code raised {type(error).__name__}: {error}',
                            'Run it on a small input in a cell of its own to see where.')
    if result is ...:
        return None, _todo(exercise, 'the body of your function')
    return result, None


# ---- lesson 1: variables and derivatives ---------------------------------------------

def ex01_cubic(grad: Any) -> Feedback:
    """x = [-1, 0, 2], y = x**3 - 3*x: the elementwise derivative in x.grad."""
    x = np.array([-1.0, 0.0, 2.0])
    return _compare('ex01_cubic', 'x.grad', grad, 3 * x**2 - 3,
                    'd/dx (x^3 - 3x) = 3x^2 - 3, evaluated at each element of x.',
                    mistakes=[(3 * x**2, 'The -3x term contributes -3 to the derivative.'),
                              (x**3 - 3 * x, 'That is y itself: read x.grad after '
                               'y.backward(), not y.array.')])


def ex01_accumulate(grad: Any) -> Feedback:
    """x.grad after calling backward of y = x**2 - 2x + 1 twice at x = 5, no cleargrad."""
    return _compare('ex01_accumulate', 'x.grad', grad, [16.0],
                    'backward() adds into x.grad; it never overwrites it.',
                    mistakes=[([8.0], 'Each backward adds 8 to x.grad: gradients accumulate '
                               'until you call x.cleargrad().')])


# ---- lesson 2: retain_grad -------------------------------------------------------------

def ex02_h_grad(grad: Any) -> Feedback:
    """h = 3x + 1, loss = sum(h**2), x = [1, 2]: dloss/dh, kept with retain_grad."""
    h = 3 * np.array([1.0, 2.0]) + 1
    return _compare('ex02_h_grad', 'h.grad', grad, 2 * h,
                    'dloss/dh = 2h. Run loss.backward(retain_grad=True) and read h.grad.',
                    mistakes=[(6 * h, 'That is x.grad (the chain rule multiplied by 3); '
                               'the question asks for h.grad.')])


def ex02_released(names: Any) -> Feedback:
    """Which of 'x', 'h', 'loss' have grad None after a plain loss.backward()."""
    if names is ...:
        return _todo('ex02_released', "a set of names, e.g. {'x'}")
    try:
        got = {str(n) for n in names}
    except TypeError:
        return _wrong('ex02_released', 'give a set of names such as {"h"}.',
                      'Write the names as strings inside { }.')
    x = Variable(np.array([1.0, 2.0]))
    h = 3 * x + 1
    loss = F.sum(h**2)
    loss.backward()
    want = {n for n, v in (('x', x), ('h', h), ('loss', loss)) if v.grad is None}
    if got == want:
        return _ok('ex02_released', f'{sorted(got)} are released; only leaves keep gradients.')
    if 'x' in got:
        return _wrong('ex02_released', "'x' keeps its gradient.",
                      'Leaves (variables you created) always receive their gradient.')
    missing = sorted(want - got)
    return _wrong('ex02_released', f'missing: {missing}.',
                  'Without retain_grad every variable made by a function is released, '
                  'the output included.')


# ---- lesson 3: non-scalar outputs ------------------------------------------------------

def ex03_weighted(grad: Any) -> Feedback:
    """y = x**2 at x = [1, 2, 3] with y.grad = [1, 0, 10]: x.grad."""
    x = np.array([1.0, 2.0, 3.0])
    w = np.array([1.0, 0.0, 10.0])
    return _compare('ex03_weighted', 'x.grad', grad, w * 2 * x,
                    'Each element of the seed multiplies the matching derivative 2x.',
                    mistakes=[(2 * x, 'That is the gradient for a seed of ones; use '
                               'y.grad = np.array([1, 0, 10], ...).')])


def ex03_sum_sin(grad: Any) -> Feedback:
    """x = linspace(0, pi, 5): gradient of F.sum(F.sin(x))."""
    x = np.linspace(0, np.pi, 5)
    return _compare('ex03_sum_sin', 'x.grad', grad, np.cos(x),
                    'The sum passes a 1 to every element; the derivative of sin is cos.',
                    mistakes=[(np.sin(x), 'That is sin(x), the value; differentiate it.')])


# ---- lesson 4: backward order ----------------------------------------------------------

def ex04_ranks(ranks: Any) -> Feedback:
    """Function ranks of h = 2x, p = exp(h), q = sin(h), y = p + q."""
    if ranks is ...:
        return _todo('ex04_ranks', "a dict like {'mul': 0, ...}")
    want = {'mul': 0, 'exp': 1, 'sin': 1, 'add': 2}
    if not isinstance(ranks, dict) or set(ranks) != set(want):
        return _wrong('ex04_ranks', f'give a dict with the keys {sorted(want)}.',
                      'One entry per function of the graph.')
    if ranks == {'mul': 2, 'exp': 1, 'sin': 1, 'add': 0}:
        return _wrong('ex04_ranks', 'you counted from the output.',
                      'Ranks count from the inputs: a leaf has rank 0 and a function has the '
                      'largest rank of its inputs.')
    bad = [f'{k}: got {ranks[k]!r}, expected {v}' for k, v in want.items() if ranks[k] != v]
    if not bad:
        return _ok('ex04_ranks', 'right: backward runs add, then exp and sin, then mul.')
    return _wrong('ex04_ranks', '; '.join(bad) + '.',
                  "A function's rank is the largest rank of its inputs; its outputs get rank "
                  '+ 1.')


def ex04_accumulated(grad: Any) -> Feedback:
    """The gradient of y = exp(h) + sin(h) in h, at x = 0.5 (h = 1)."""
    h = 1.0
    return _compare('ex04_accumulated', 'h.grad', grad, np.exp(h) + np.cos(h),
                    'h feeds two functions: its gradient is the sum over both paths.',
                    mistakes=[(np.exp(h), 'That is only the path through exp; the path '
                               'through sin adds cos(h).'),
                              (np.cos(h), 'That is only the path through sin; the path '
                               'through exp adds exp(h).')])


# ---- lesson 5: higher-order derivatives ------------------------------------------------

def ex05_tanh(derivatives: Any) -> Feedback:
    """[1st, 2nd, 3rd] derivative of tanh at x = 0.5."""
    if derivatives is ...:
        return _todo('ex05_tanh', '[g1, g2, g3]')
    if (isinstance(derivatives, (list, tuple)) and len(derivatives) == 3
            and any(d is None for d in derivatives)):
        return _wrong('ex05_tanh', 'one of the derivatives is None.',
                      'chainer.grad returns None when the gradient was not recorded: pass '
                      'enable_double_backprop=True for every order but the last.')
    t = np.tanh(0.5)
    want = [1 - t**2, -2 * t * (1 - t**2), -2 * (1 - t**2) * (1 - 3 * t**2)]
    return _compare('ex05_tanh', 'derivatives', derivatives, want,
                    "Differentiate each result again with chainer.grad([g], [x], "
                    'enable_double_backprop=True).')


def ex05_hvp(hv: Any) -> Feedback:
    """H v for f(x) = x0**2 * x1 + x1**3 at x = [1, 2], v = [1, 0]."""
    x0, x1 = 1.0, 2.0
    hess = np.array([[2 * x1, 2 * x0], [2 * x0, 6 * x1]])
    gradient = np.array([2 * x0 * x1, x0**2 + 3 * x1**2])
    return _compare('ex05_hvp', 'Hv', hv, hess @ np.array([1.0, 0.0]),
                    'Take g = grad(f), form F.sum(g * v), and differentiate that once more.',
                    mistakes=[(gradient, 'That is the gradient of f; the Hessian-vector '
                               'product differentiates g . v once more.')])


def ex05_newton(x_final: Any) -> Feedback:
    """Newton's method for the minimum of f(x) = x**4 - 3x**2 + x from x = 2."""
    # f'(x) = 4x^3 - 6x + 1; the stationary point Newton reaches from 2 is the largest root.
    roots = np.roots([4.0, 0.0, -6.0, 1.0]).real
    root_of_f = np.roots([1.0, 0.0, -3.0, 1.0, 0.0]).real
    return _compare('ex05_newton', 'x', x_final, roots.max(),
                    "The minimisation step is x - f'(x) / f''(x); repeat it ~10 times.",
                    mistakes=[(root_of_f.max(), "That is a root of f itself (x - f/f'); "
                               "a minimum needs f'/f''.")], rtol=1e-3, atol=1e-4)


# ---- lesson 6: cutting the graph -------------------------------------------------------

def ex06_predict(prediction: Any) -> Feedback:
    """a = 3x, b = a*a, a.unchain(), b.backward(): prediction {'x': ..., 'a': ...} at x=0.5."""
    if prediction is ... or not isinstance(prediction, dict):
        return _todo('ex06_predict', "a dict {'x': ..., 'a': ...}")
    if set(prediction) != {'x', 'a'}:
        return _wrong('ex06_predict', "use exactly the keys 'x' and 'a'.",
                      'Predict x.grad and a.grad.')
    if prediction['x'] is ... or prediction['a'] is ...:
        return _todo('ex06_predict', 'both predictions')
    if prediction['x'] is not None:
        return _wrong('ex06_predict', f"x.grad: predicted {prediction['x']!r}, but it stays "
                      'None.', 'After a.unchain() nothing links b back to x.')
    return _compare('ex06_predict', "prediction['a']", prediction['a'], 2 * 1.5,
                    'a is now a leaf: it receives db/da = 2a, with a = 1.5.')


def _rnn_grad(xs: np.ndarray, targets: np.ndarray, w0: float, k: int | None) -> float:
    """d(sum of step losses)/dw for h_t = tanh(w h_{t-1} + x_t), cut every k steps."""
    w = chainer.Parameter(np.array(w0))
    h = Variable(np.array(0.0))
    loss = 0
    for t, (x_t, y_t) in enumerate(zip(xs, targets), start=1):
        h = F.tanh(w * h + x_t)
        loss += (h - y_t) ** 2
        if k is not None and t % k == 0:
            loss.backward()
            loss.unchain_backward()
            loss = 0
    if not isinstance(loss, int):
        loss.backward()
    return float(w.grad)


RNN_XS = np.array([0.5, -1.0, 0.25, 1.0, -0.5, 0.75])
RNN_TARGETS = np.array([0.2, -0.4, 0.1, 0.5, -0.3, 0.4])


def ex06_truncated(train: Any) -> Feedback:
    """train(xs, targets, w0, k) -> accumulated w.grad of truncated BPTT."""
    result, failure = _call('ex06_truncated', train, RNN_XS, RNN_TARGETS, 0.8, 2)
    if failure is not None:
        return failure
    return _compare('ex06_truncated', 'w.grad', result, _rnn_grad(RNN_XS, RNN_TARGETS, 0.8, 2),
                    'Every k steps: loss.backward(), then loss.unchain_backward(), then start '
                    'a new loss sum (h keeps its value).',
                    mistakes=[(_rnn_grad(RNN_XS, RNN_TARGETS, 0.8, None),
                               'That is the full BPTT gradient: you never cut. Call '
                               'loss.unchain_backward() after each backward.')])


# ---- lesson 7: no_backprop_mode / force_backprop_mode -----------------------------------

def ex07_recorded(names: Any) -> Feedback:
    """Which of y1..y4 in the lesson's snippet have a creator."""
    if names is ...:
        return _todo('ex07_recorded', "a set like {'y1'}")
    x = Variable(np.array([1.0, 2.0]))
    y1 = x * 2
    with chainer.no_backprop_mode():
        y2 = x * 2
        with chainer.force_backprop_mode():
            y3 = x * 2
    y4 = y2 * 2
    want = {n for n, v in (('y1', y1), ('y2', y2), ('y3', y3), ('y4', y4))
            if v.creator is not None}
    got = {str(n) for n in names}
    if got == want:
        return _ok('ex07_recorded', f'{sorted(want)} were recorded.')
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
    return _wrong('ex07_recorded', f'you said {sorted(got)}.', ' '.join(hints))


def ex07_predict(predict: Any) -> Feedback:
    """predict(model, x) -> Variable computed without recording the graph."""
    model = L.Linear(3, 2, initialW=np.arange(6.0).reshape(2, 3) / 10, initial_bias=0.5)
    x = np.array([[1.0, -1.0, 2.0]], dtype=np.float32)
    result, failure = _call('ex07_predict', predict, model, x)
    if failure is not None:
        return failure
    want = x @ model.W.array.T + model.b.array
    if isinstance(result, Variable) and result.creator is not None:
        return _wrong('ex07_predict', 'the result has a creator: the graph was recorded.',
                      'Compute inside `with chainer.no_backprop_mode():`.')
    return _compare('ex07_predict', 'predict(model, x)', result, want,
                    'Return model(x) computed inside no_backprop_mode().')


# ---- lesson 8: links and optimizers -----------------------------------------------------

def ex08_param_count(count: Any) -> Feedback:
    """The number of scalars in an MLP 64 -> 32 -> 10 (weights and biases)."""
    return _compare('ex08_param_count', 'count', count, 64 * 32 + 32 + 32 * 10 + 10,
                    'Linear(n_in, n_out) has n_out * n_in weights and n_out biases.',
                    mistakes=[(64 * 32 + 32 * 10, 'You counted the weights only; each '
                               'Linear also has one bias per output.')])


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


def ex08_train_step(train_step: Any) -> Feedback:
    """train_step(model, optimizer, x, t) -> loss as a float, after one SGD update."""
    if train_step is ...:
        return _todo('ex08_train_step', 'your function')
    model, x, t = _small_problem()
    opt = chainer.optimizers.SGD(lr=0.5).setup(model)
    first_loss = float(F.softmax_cross_entropy(model(x), t).array)
    losses = []
    for _ in range(3):
        result, failure = _call('ex08_train_step', train_step, model, opt, x, t)
        if failure is not None:
            return failure
        losses.append(result)
    returned = _as_array(losses[0])
    if returned is None or returned.size != 1 or not np.isclose(returned.item(), first_loss,
                                                                rtol=1e-4):
        return _wrong('ex08_train_step', f'the first call returned {losses[0]!r}, expected '
                      f'the loss {first_loss:.5g}.',
                      'Return float(loss.array), the loss of this batch before the update.')
    if np.allclose(model.W.array, _small_problem()[0].W.array):
        return _wrong('ex08_train_step', 'the weights did not change.',
                      'Call optimizer.update() after loss.backward().')
    if np.allclose(model.W.array, _reference_steps(3), atol=1e-5):
        return _ok('ex08_train_step', 'three steps match the reference SGD run.')
    if not np.allclose(model.W.array, _reference_steps(1), atol=1e-5):
        return _wrong('ex08_train_step', 'after three calls the weights differ from '
                      'three SGD steps.',
                      'Call model.cleargrads() before loss.backward(): otherwise the '
                      'gradients of earlier steps are added in.')
    return _wrong('ex08_train_step', 'only the first step matches.',
                  'Call model.cleargrads() before loss.backward().')


# ---- lesson 9: mixed precision ----------------------------------------------------------

def ex09_unscaled(grad: Any) -> Feedback:
    """The true float16 gradient of loss = 1e-4 * sum(x * 1e-4) at x = ones(3), via scaling."""
    want = np.full(3, 1e-8)
    hint = 'Backward with loss_scale=S, then divide x.grad (as float32) by S.'
    if grad is ...:
        return _todo('ex09_unscaled', 'the unscaled gradient')
    got = _as_array(grad)
    if got is not None and got.shape == (3,) and np.all(got == 0):
        return _wrong('ex09_unscaled', 'the gradient is all zeros.',
                      '1e-8 is below float16\'s smallest number: it underflowed. ' + hint)
    if got is not None and got.shape == (3,) and np.all(got > 1e-6):
        return _wrong('ex09_unscaled', f'x.grad = {_fmt(got)} is still scaled.',
                      'The gradient is multiplied by loss_scale: divide by it.')
    return _compare('ex09_unscaled', 'x.grad', grad, want, hint, rtol=0.05, atol=0)


def ex09_max_scale(scale: Any) -> Feedback:
    """The largest power of two S such that a gradient of 3.0 times S stays finite in float16."""
    largest = float(np.finfo(np.float16).max)
    want = 2.0 ** np.floor(np.log2(largest / 3.0))
    return _compare('ex09_max_scale', 'S', scale, want,
                    'float16 tops out at 65504: 3 * S must stay at or below that.',
                    mistakes=[(want * 2, f'3 * {want * 2:g} = {3 * want * 2:g} is above '
                               '65504: it overflows to inf.')], rtol=0, atol=0)


# ---- lesson 10: devices -----------------------------------------------------------------

def ex10_to_numpy(to_numpy: Any) -> Feedback:
    """to_numpy(v) -> a NumPy array with v's values, from a Variable on any device."""
    v = Variable(np.array([1.0, 2.0, 3.0], np.float32))
    result, failure = _call('ex10_to_numpy', to_numpy, v)
    if failure is not None:
        return failure
    if isinstance(result, Variable):
        return _wrong('ex10_to_numpy', 'you returned a Variable.',
                      'Return the array: move the variable to "@numpy", then take .array.')
    if not isinstance(result, np.ndarray):
        return _wrong('ex10_to_numpy', f'you returned {type(result).__name__}.',
                      'Return a numpy.ndarray (chainer.backend.CpuDevice().send can help).')
    return _compare('ex10_to_numpy', 'to_numpy(v)', result, v.array, 'Keep the values as '
                    'they are; only the device changes.')


def ex10_softplus(softplus: Any) -> Feedback:
    """softplus(a) = log(1 + exp(a)) for NumPy or CuPy arrays (via get_array_module)."""
    a = np.array([-2.0, 0.0, 3.0])
    result, failure = _call('ex10_softplus', softplus, a)
    if failure is not None:
        return failure
    return _compare('ex10_softplus', 'softplus(a)', result, np.log1p(np.exp(a)),
                    'xp = chainer.backend.get_array_module(a); return xp.log(1 + xp.exp(a)).',
                    mistakes=[(np.exp(a), 'Take the log of 1 + exp(a).')])


# ---- lesson 11: a FunctionNode of your own ----------------------------------------------

def _softsign(node_class: type, x: np.ndarray) -> Variable:
    y = node_class().apply((x,))
    return y[0] if isinstance(y, tuple) else y


def ex11_forward(node_class: Any) -> Feedback:
    """Softsign.forward: y = x / (1 + |x|)."""
    if node_class is ...:
        return _todo('ex11_forward', 'your FunctionNode class')
    if not (isinstance(node_class, type) and issubclass(node_class, chainer.FunctionNode)):
        return _wrong('ex11_forward', f'Softsign is a {type(node_class).__name__}, not a '
                      'FunctionNode class.', 'Write class Softsign(chainer.FunctionNode): ...')
    x = np.array([-3.0, -0.5, 0.0, 2.0])
    result, failure = _call('ex11_forward', _softsign, node_class, x)
    if failure is not None:
        return failure
    return _compare('ex11_forward', 'Softsign()(x)', result, x / (1 + np.abs(x)),
                    'forward gets a tuple of arrays and returns a tuple: (x / (1 + abs(x)),).',
                    mistakes=[(x / (1 + x), 'Use the absolute value in the denominator: '
                               'xp.abs(x), with xp = backend.get_array_module(x).')])


def ex11_backward(node_class: Any) -> Feedback:
    """Softsign.backward agrees with numerical differentiation, to first and second order."""
    if node_class is ...:
        return _todo('ex11_backward', 'your FunctionNode class')
    if not (isinstance(node_class, type) and issubclass(node_class, chainer.FunctionNode)):
        return _wrong('ex11_backward', 'Softsign is not a FunctionNode class.',
                      'Write class Softsign(chainer.FunctionNode): ...')
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 2.0, 5) * rng.choice([-1.0, 1.0], 5)  # away from the kink at 0
    gy, ggx = rng.normal(size=5), rng.normal(size=5)

    def f(v: Any) -> Any:
        return _softsign(node_class, v)

    _, failure = _call('ex11_backward', f, x)
    if failure is not None:
        return failure
    for name, check, args in (
            ('check_backward', gradient_check.check_backward, (f, x, gy)),
            ('check_double_backward', gradient_check.check_double_backward, (f, x, gy, ggx))):
        try:
            check(*args)
        except AssertionError as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else ''
            g = _softsign_grad_guess(node_class, x)
            if g is not None and np.allclose(g, 1 / (1 + np.abs(x))):
                return _wrong('ex11_backward', f'{name} failed: backward gives 1 / (1 + |x|).',
                              'The derivative is 1 / (1 + |x|)**2: square the denominator.')
            return _wrong('ex11_backward', f'{name} failed: {first}',
                          'dy/dx = 1 / (1 + |x|)**2; multiply by gy, and build it from '
                          'F functions on the retained input Variable so it can be '
                          'differentiated again.')
        except Exception as error:  # learner code: any failure becomes feedback
            return _wrong('ex11_backward', f'{name} raised {type(error).__name__}: {error}',
                          'backward gets (target_input_indexes, grad_outputs) and returns a '
                          'tuple of Variables, one per input.')
    return _ok('ex11_backward', 'check_backward and check_double_backward both pass.')


def _softsign_grad_guess(node_class: type, x: np.ndarray) -> np.ndarray | None:
    """The learner's first derivative at x (a seed of ones), or None if it fails."""
    try:
        v = Variable(x.copy())
        y = _softsign(node_class, v)
        y.grad = np.ones_like(x)
        y.backward()
        return None if v.grad is None else np.asarray(v.grad)
    except Exception:  # learner code: any failure just means "no guess"
        return None


#: Every checker, for tests and for instructors who grade outside the notebooks.
ALL: dict[str, Callable[[Any], Feedback]] = {
    name: value for name, value in sorted(globals().items())
    if name.startswith('ex') and name[2:4].isdigit() and callable(value)
}
