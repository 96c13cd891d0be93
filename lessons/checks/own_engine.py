"""Checkers of lesson 7, build your own engine: the prediction and the learner's scalar
value class.

The class is driven only through what the lesson asks of it, so any design passes: its
name, the names of its inputs and local backwards, and whether it keeps its inputs in a
list or a set are the learner's.  What the checker uses: ``Value(number)`` makes a value,
the operators ``+ * - / **`` (both ways round with plain numbers) and ``.tanh()`` make new
ones, ``.backward()`` fills ``.grad`` of everything behind a value, and the number itself
is in some attribute (found by making ``Value(2.5)``).  Every gradient is compared with
autograd_lab's on the same expression; wrong ones are matched to the slip that gives them
(:mod:`.engine_slips`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import autograd_lab.functions as F
from autograd_lab import Variable

from . import engine_slips
from .feedback import Feedback, _call, _checker, _compare_named, _ok, _todo, _wrong

#: Exercise 7.1: L = (a*b + a)**2 at these points.
PREDICT_AT = {'a': 2.0, 'b': -3.0}


@_checker(answer=lambda: (
    "{'a': 16.0, 'b': -16.0}: d = ab + a = -4, dL/dd = 2d = -8; a reaches d twice "
    '(through ab, factor b, and directly, factor 1): -8 * (b + 1) = 16; b once: -8 * a'))
def ex07_predict(grads: Any) -> Feedback:
    """dL/da and dL/db of L = (a*b + a)**2 at a = 2, b = -3, predicted by hand."""
    a, b = PREDICT_AT['a'], PREDICT_AT['b']
    d = a * b + a
    mistakes = [
        ({'a': 2 * d * b}, 'That is only the path through a*b: a is also added directly, '
         'and the two parts add up (b + 1, not b).'),
        ({'a': 2 * d}, 'That is only the direct path: a also reaches d through a*b, '
         'factor b; the two parts add up.'),
        ({'a': b + 1, 'b': a}, 'Those are the derivatives of d = ab + a; L = d**2 adds the '
         'factor dL/dd = 2d on top.'),
        ({'a': -2 * d * (b + 1), 'b': -2 * d * a}, 'Check the sign of d = ab + a at a = 2, '
         'b = -3.'),
        ({'a': d ** 2}, 'That is L itself, not its derivative.'),
    ]
    return _compare_named('ex07_predict', grads, {'a': 2 * d * (b + 1), 'b': 2 * d * a},
                          'Work from the top: dL/dd = 2d, then each path from d down to a '
                          'and to b; where two paths reach a, add them.', mistakes=mistakes)


# ---- driving the learner's class -------------------------------------------------------

def data_name(exercise: str, cls: Any) -> str:
    """The attribute in which the learner's class keeps its number."""
    probe = _call(exercise, cls, 2.5)
    try:
        found = vars(probe)
    except TypeError:  # __slots__
        found = {k: getattr(probe, k, None) for k in dir(probe) if not k.startswith('__')}
    for name, value in found.items():
        if isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) \
                and float(value) == 2.5:
            return name
    _wrong(exercise, f'{cls.__name__}(2.5) keeps no attribute equal to 2.5.',
           'Keep the number in an attribute (self.data = data).')


def _tanh(v: Any) -> Any:
    if isinstance(v, Variable):
        return F.tanh(v)
    return v.tanh() if not isinstance(v, float) else math.tanh(v)


#: Each operation alone, from leaves (label, expression, points of both signs).
OPS: list[tuple[str, Callable[..., Any], list[tuple[float, ...]]]] = [
    ('a + b', lambda a, b: a + b, [(1.5, -0.5)]),
    ('a * b', lambda a, b: a * b, [(1.5, -0.5)]),
    ('a - b', lambda a, b: a - b, [(1.5, -0.5)]),
    ('a / b', lambda a, b: a / b, [(1.5, -0.5), (-2.0, 4.0)]),
    ('-a', lambda a: -a, [(1.5,)]),
    ('a.tanh()', _tanh, [(0.7,), (-1.2,)]),
    ('a ** 3', lambda a: a ** 3, [(1.5,), (-2.0,)]),
    ('a ** 2', lambda a: a ** 2, [(1.5,), (-1.5,)]),
    ('a ** -1', lambda a: a ** -1, [(2.0,), (-2.0,)]),
    ('a ** 0.5', lambda a: a ** 0.5, [(2.25,)]),
    ('2 + a', lambda a: 2 + a, [(1.5,)]),
    ('3 * a', lambda a: 3 * a, [(1.5,)]),
    ('a - 2', lambda a: a - 2, [(1.5,)]),
    ('2 - a', lambda a: 2 - a, [(1.5,)]),
    ('a / 4', lambda a: a / 4, [(1.5,)]),
    ('2 / a', lambda a: 2 / a, [(1.5,), (-0.5,)]),
]

#: The local derivative each operation's backward needs, for the hint naming it.
RULES = {
    '+': 'a + b sends its gradient to both inputs unchanged',
    '*': "a * b sends out.grad times the *other* input's number to each input",
    '-': 'a - b sends +out.grad to a and -out.grad to b',
    '/': 'a / b sends out.grad / b to a and -out.grad * a / b**2 to b (or write a / b as '
         'a * b**-1)',
    'tanh': 'tanh sends out.grad * (1 - t**2), with t the output tanh(a)',
    '**': 'a ** n sends out.grad * n * a**(n - 1)',
}


def _rule(label: str) -> str:
    if 'tanh' in label:
        return RULES['tanh']
    return next(RULES[op] for op in ('**', '/', '*', '+', '-') if op in label)


def _engine_grads(expr: Callable[..., Any], point: tuple[float, ...]) -> list[float]:
    xs = [Variable(np.array(p)) for p in point]
    y = expr(*xs)
    y.backward()
    return [float(x.grad) for x in xs]


#: A ** whose backward goes through math.log fails at a negative base.
POW_NEGATIVE = ('Your ** backward is wrong for a negative base (right for a positive one?): '
                'n * a**(n - 1) holds for every a; abs(a), or exp and log, do not.')
#: The reflected operator Python calls for each operator with a plain number on the left.
REFLECTED = {'+': '__radd__', '*': '__rmul__', '-': '__rsub__', '/': '__rtruediv__'}


def _learner_run(exercise: str, cls: Any, name: str, expr: Callable[..., Any],
                 point: tuple[float, ...], label: str) -> tuple[Any, list[Any], list[float]]:
    """(y, leaves, their grads) of ``expr`` on the learner's class, backward run."""
    leaves = [_call(exercise, cls, p) for p in point]
    y = _call(exercise, lambda: expr(*leaves), known=[(
        TypeError, 'unsupported operand', f'{label} fails: define the operator (for a plain '
        'number on the left, the reflected one: __radd__, __rmul__, __rsub__, __rtruediv__).'
    )])
    known = [(RecursionError, '', 'Your backward never ends: a value is visited again and '
              'again.'), (ValueError, 'domain', 'math.log of a negative number? ' + POW_NEGATIVE),
             (TypeError, 'complex', POW_NEGATIVE)]
    if y is None:
        _todo(exercise, f'{label} (it returns nothing yet: finish it, and return the result)')
    if not isinstance(y, cls):
        _wrong(exercise, f'{label} gave a {type(y).__name__}, not a {cls.__name__}.',
               'Every operation returns a new value of your class.')
    want = float(expr(*[Variable(np.array(p)) for p in point]).array)
    got = getattr(y, name)
    if not np.isclose(float(got), want, rtol=1e-12, atol=1e-12):
        hint = (f'The forward of {label} is wrong: compute the number from the inputs\' '
                'numbers.')
        if label[0].isdigit():
            hint = (f'For {label} Python runs a.{REFLECTED[label[2]]}({label[0]}): the plain '
                    f'number is the left operand ({label[0]} {label[2]} a, not a {label[2]} '
                    f'{label[0]}).')
        _wrong(exercise, f'{label} at {point} is {got}, not {want:.6g}.', hint)
    _call(exercise, y.backward, known=known)
    grads = []
    for leaf in leaves:
        g = getattr(leaf, 'grad', None)
        if g is None:
            _wrong(exercise, 'a value has no .grad after backward.',
                   'Give every value a grad, 0.0 when it is made; backward fills it.')
        grads.append(float(g))
    return y, leaves, grads


def _seed(exercise: str, cls: Any, name: str) -> None:
    y, _, grads = _learner_run(exercise, cls, name, lambda a, b: a * b, (1.5, -0.5), 'a * b')
    if float(getattr(y, 'grad', 0.0)) != 1.0:
        hint = ('Backward starts with dy/dy = 1: set the output\'s grad to 1.0 before '
                'sending anything down (with 0 everything stays 0).')
        if all(g == 0.0 for g in grads):
            _wrong(exercise, 'after y.backward() every grad is 0.', hint)
        _wrong(exercise, f'after y.backward(), y.grad is {y.grad}, not 1.', hint)


#: The operations the slip graphs are made of: checked alone before the graphs.
PRIMITIVE = ('a + b', 'a * b', 'a.tanh()', '2 + a', '3 * a')


def _each_op(exercise: str, cls: Any, name: str, labels: tuple[str, ...] | None = None,
             skip: tuple[str, ...] = ()) -> None:
    for label, expr, points in OPS:
        if (labels is not None and label not in labels) or label in skip:
            continue
        for point in points:
            _, _, got = _learner_run(exercise, cls, name, expr, point, label)
            want = _engine_grads(expr, point)
            if np.allclose(got, want, rtol=1e-9, atol=1e-12):
                continue
            if '**' in label and point[0] < 0:
                _wrong(exercise, f'the gradient of {label} at a = {point[0]} is {got[0]:.6g}'
                       f", autograd_lab's {want[0]:.6g}.", POW_NEGATIVE)
            where = ', '.join(f'{n} = {v}' for n, v in zip('ab', point))
            _wrong(exercise, f'the gradients of {label} at {where} are '
                   f"{[round(g, 6) for g in got]}, autograd_lab's "
                   f'{[round(w, 6) for w in want]}.', f'The local backward: {_rule(label)}.')


def _same_input_twice(exercise: str, cls: Any, name: str) -> None:
    for label, expr in (('a * a', lambda a: a * a), ('a + a', lambda a: a + a)):
        _, _, got = _learner_run(exercise, cls, name, expr, (1.5,), label)
        want = _engine_grads(expr, (1.5,))
        if not np.isclose(got[0], want[0], rtol=1e-9):
            _wrong(exercise, f'for y = {label} at a = 1.5, a.grad is {got[0]:.6g}, '
                   f"autograd_lab's {want[0]:.6g}.",
                   'a is both inputs here, so it gets two parts: `=` in your local '
                   'backward keeps only the last. Add into the grad: self.grad += ..., '
                   'other.grad += ....')


def _square_of_shared(a: Any, b: Any) -> Any:
    d = a * b + a
    return d * d


def _meeting_paths(x: Any, w: Any) -> Any:
    h = x * w
    return _tanh(_tanh(h)) + h * h + h


def _nested(a: Any) -> Any:
    t = _tanh(a)
    return _tanh(t * t + t) + t


#: Graphs where values are used more than once, over paths of different lengths.
GRAPHS: list[tuple[str, Callable[..., Any], tuple[float, ...]]] = [
    ('(a*b + a) * (a*b + a)', _square_of_shared, (2.0, -3.0)),
    ('h.tanh().tanh() + h*h + h, h = x*w', _meeting_paths, (0.6, -0.9)),
    ('(t*t + t).tanh() + t, t = a.tanh()', _nested, (0.4,)),
]

SLIP_HINTS = {
    'store': 'A value used by two operations gets a part from each: add (+=) every part '
             'into its grad, never set it (=), and do not reset a grad during backward.',
    'reset': 'A value used by two operations gets a part from each, and yours keeps only '
             'the last: do not zero a grad during backward; each part adds (+=) to it.',
    'twice': 'A value reached along two paths ran its backward twice, sending its gradient '
             'again: a recursive backward with no visited set. Sort the values first '
             '(each once), then run each local backward once, in that order reversed.',
    'preorder': 'A value sent its gradient before every use of it had sent its part: '
                'there is no topological sort. List a value only after everything it was '
                'made from (depth-first, then append), and go through the list backwards.',
    'bfs': 'A value sent its gradient before every use of it had sent its part (a '
           'breadth-first walk does that where paths of different lengths meet): sort '
           'topologically and go through the list backwards.',
    'forward': 'Your order runs the first operation first; backward starts at the output: '
               'reverse the topological order.',
}


def _composite(exercise: str, cls: Any, name: str) -> None:
    for label, expr, point in GRAPHS:
        _, _, got = _learner_run(exercise, cls, name, expr, point, label)
        want = _engine_grads(expr, point)
        if np.allclose(got, want, rtol=1e-9, atol=1e-12):
            continue
        leaves = [engine_slips.Node(p) for p in point]
        root = expr(*leaves)
        message = (f'on y = {label} the leaves\' gradients are '
                   f"{[round(g, 6) for g in got]}, autograd_lab's "
                   f'{[round(w, 6) for w in want]}.')
        for slip, hint in SLIP_HINTS.items():
            if any(np.allclose(got, r, rtol=1e-9, atol=1e-12)
                   for r in engine_slips.slip_results(root, leaves, slip)):
                _wrong(exercise, message, hint)
        _wrong(exercise, message, 'Each operation alone is right, so the walk is wrong: '
               'sort the values topologically (each once), set the output\'s grad to 1, '
               'then run every local backward once, from the output down, adding into the '
               'grads.')


@_checker(answer=lambda: (
    'class Value: __init__(data, _prev=()) sets data, grad = 0.0, _prev, _backward = no-op;'
    ' each operator wraps a plain number in a Value, makes out = Value(result, (self, '
    'other)) and sets out._backward to add out.grad times each local derivative into the '
    'inputs\' grad (+=); backward(): build a topological order by depth-first search '
    '(append a value after its inputs), set self.grad = 1.0, call _backward on each value '
    'of the order reversed'))
def ex07_engine(cls: Any) -> Feedback:
    """The learner's value class: each operation's forward and backward, then backward on
    graphs where values are used more than once, all against autograd_lab."""
    exercise = 'ex07_engine'
    if cls is ...:
        _todo(exercise, 'your class')
    if not isinstance(cls, type):
        _wrong(exercise, f'expected a class, got {type(cls).__name__}.',
               'Pass the class itself (Value, not Value(1.0)).')
    name = data_name(exercise, cls)
    if not callable(getattr(cls, 'backward', None)):
        _wrong(exercise, 'your class has no backward method.',
               'Give it a method backward(self) that fills .grad of every value behind it.')
    _seed(exercise, cls, name)
    _each_op(exercise, cls, name, PRIMITIVE)
    _same_input_twice(exercise, cls, name)
    _composite(exercise, cls, name)
    _each_op(exercise, cls, name, skip=PRIMITIVE)
    return _ok(exercise, f"every operation, and graphs where values are used twice: {len(OPS)} "
               f"operations and {len(GRAPHS)} graphs, the same gradients as autograd_lab's.")
