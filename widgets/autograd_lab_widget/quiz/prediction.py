"""Predict first, graded: the student's guess for a step's gradients, checked and scored.

In predict mode the student guesses the gradients the next step will send to its
inputs before it runs; the step then runs in the engine and the guess is graded
against what it produced.  A guess names one value
per input slot that received a gradient (the *targets* of the step), in order, or
by the name drawn on the variable.  Each value is checked with a tolerance
(:data:`RTOL`, :data:`ATOL`: two to three significant digits are enough), and the
step counts as right only if every target is right.

>>> import numpy as np
>>> targets = [('v2', np.array(10.0)), ('v3', np.array(-1.0))]
>>> verdict = check(parse_guess('[10, -1]'), targets)
>>> verdict.right, str(verdict)
(True, 'Right! v2: 10.0, v3: -1.0')
>>> str(check({'v2': 9.9, 'v3': 1}, targets))
'Not quite: v3 gets -1.0 (you said 1.0); right for v2: 10.0.'
>>> print(check({'v2': 9.9, 'v3': 1}, targets).hidden())
Not quite: v3 is off (you said 1.0: the sign is wrong); right for v2: 10.0.
>>> score = Score().add(verdict).add(check(0.0, targets[:1]))
>>> score, score.total
(Score(right=1, wrong=1, skipped=0), 2)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy

from autograd_lab import events

from autograd_lab_widget import arrays, expressions

#: A guess is right when ``|guess - truth| <= ATOL + RTOL * |truth|`` element by element.
RTOL = 1e-2
ATOL = 5e-3
#: The most numbers one guessed value may hold where its target's size is unknown.
MAX_VALUES = 10_000


@dataclass(frozen=True)
class Score:
    """How the student did in predict mode: steps guessed right, wrong, or revealed
    without a guess (skipped).

    >>> s = Score(right=3, wrong=1)
    >>> s.total, str(s)
    (4, '3 of 4 right')
    """

    right: int = 0
    wrong: int = 0
    skipped: int = 0

    @property
    def total(self) -> int:
        """Steps that asked for a prediction."""
        return self.right + self.wrong + self.skipped

    def add(self, verdict: Verdict | None) -> Score:
        """This score with one more step: ``verdict`` None means revealed unguessed."""
        if verdict is None:
            return replace(self, skipped=self.skipped + 1)
        if verdict.right:
            return replace(self, right=self.right + 1)
        return replace(self, wrong=self.wrong + 1)

    def as_dict(self) -> dict:
        return {'right': self.right, 'wrong': self.wrong, 'skipped': self.skipped,
                'total': self.total}

    def __str__(self) -> str:
        return f'{self.right} of {self.total} right'


@dataclass(frozen=True)
class Verdict:
    """The outcome of one guess: ``right`` when every target was, and per target
    ``(name, guess, truth, right)``.  ``step`` says which step was guessed (``'step 2,
    f7 (_ + _)'``); ``retry``: a second try at a step already graded, which the score
    does not count.  ``shown``: False while a retry is offered, then a wrong verdict
    says what is off without the right number (:meth:`hidden`); ``read``: how the names
    in a typed guess were read (``'read e as the variable e = 0.37'``)."""

    right: bool
    checks: tuple = field(default_factory=tuple)
    step: str = ''
    retry: bool = False
    shown: bool = True
    read: tuple = field(default_factory=tuple)

    def __str__(self) -> str:
        return self.answer() if self.right or self.shown else self.hidden()

    def answer(self) -> str:
        """The verdict with the right numbers."""
        where = f' at {self.step}' if self.step else ''
        again = ' (a retry: the score keeps your first try)' if self.retry else ''
        if self.right:
            return ('Right! ' + (f'{self.step}: ' if self.step else '')
                    + ', '.join(f'{n}: {arrays.text(t)}' for n, _, t, _ in self.checks)
                    + again + self._reading())
        wrong = '; '.join(f'{n} {_verb(n)} {arrays.text(t)} (you said {_said(g)})'
                          for n, g, t, ok in self.checks if not ok)
        good = [f'{n}: {arrays.text(t)}' for n, _, t, ok in self.checks if ok]
        return (f'Not quite{where}: {wrong}' + (f'; right for {", ".join(good)}' if good else '')
                + f'.{again}{self._reading()}')

    def hidden(self) -> str:
        """A wrong verdict that names what is off but not the right number (the retry
        would be a copy otherwise)."""
        where = f' at {self.step}' if self.step else ''
        wrong = '; '.join(f'{n} is off (you said {_said(g)}: {off(g, t)})'
                          for n, g, t, ok in self.checks if not ok)
        good = [f'{n}: {arrays.text(t)}' for n, _, t, ok in self.checks if ok]
        return (f'Not quite{where}: {wrong}' + (f'; right for {", ".join(good)}' if good else '')
                + f'.{self._reading()}')

    def _reading(self) -> str:
        return f' ({"; ".join(self.read)})' if self.read else ''


def _verb(name: str) -> str:
    """A grad is what a variable *gets*; a local derivative (``∂y/∂x``) *is* a value."""
    return 'is' if name.startswith('∂') else 'gets'


def joined(locals_: Verdict, grads: Verdict) -> Verdict:
    """One verdict for a guess in two parts, the local derivatives then the grads
    (the harder mode): right only when both are.

    >>> v = joined(check(0.5, [('∂y/∂x', 0.5)]), check(2.0, [('x', 1.0)]))
    >>> v.right, str(v)
    (False, 'Not quite: x gets 1.0 (you said 2.0); right for ∂y/∂x: 0.5.')
    >>> str(joined(check(1, [('∂y/∂x', 0.5)]), check(1.0, [('x', 1.0)])))
    'Not quite: ∂y/∂x is 0.5 (you said 1.0); right for x: 1.0.'
    """
    return Verdict(locals_.right and grads.right, locals_.checks + grads.checks)


def off(guess: Any, truth: Any) -> str:
    """What is off in a wrong guess, without the right number.

    >>> off(1.0, -1.0), off(3.0, 1.0), off(0.5, 1.0), off([1, 2], [1, 3])
    ('the sign is wrong', 'too large', 'too small', '1 of 2 values off')
    """
    try:
        g = numpy.asarray(guess, dtype=numpy.float64)
        t = numpy.asarray(truth, dtype=numpy.float64)
    except (TypeError, ValueError):
        return 'not the value this step sends'
    if t.size > 1:
        if g.size not in (1, t.size):
            return f'it holds {t.size} values'
        g = numpy.broadcast_to(g.reshape(t.shape) if g.size == t.size else g, t.shape)
        bad = sum(not close(a, b) for a, b in zip(g.ravel(), t.ravel()))
        return f'{bad} of {t.size} values off'
    g, t = float(g.ravel()[0]), float(t.ravel()[0])
    if not (math.isfinite(g) and math.isfinite(t)):
        return 'not the value this step sends'
    if g * t < 0 or (t != 0 and g == 0) or (g != 0 and t == 0):
        return 'the sign is wrong' if g * t < 0 else 'too large' if abs(g) > abs(t) \
            else 'too small'
    return 'too large' if abs(g) > abs(t) else 'too small'


def _said(guess: Any) -> str:
    return arrays.text(numpy.asarray(guess, dtype=numpy.float64))


class Typed(str):
    """Text typed in a guess box of the page (a list of these is read as text, where a
    list of plain strings given in Python is refused)."""

    __slots__ = ()


def parse_guess(value: Any) -> Any:
    """A guess typed in the browser (text: a number, arithmetic like ``cos(1)``, or a list
    like ``[1, 2]``; see :mod:`~autograd_lab_widget.expressions`) or given in Python
    (returned as it is: :func:`match` checks it)."""
    if isinstance(value, str):
        return expressions.evaluate(value.strip())
    return value


def close(guess: Any, truth: Any) -> bool:
    """``guess`` matches ``truth`` (a recorded value) within the tolerance; inf and NaN
    must be guessed exactly (a NaN gradient is guessed with ``nan``)."""
    if truth is None or isinstance(truth, events.Summary):
        return False
    try:
        g = numpy.asarray(guess, dtype=numpy.float64)
        t = numpy.asarray(truth, dtype=numpy.float64)
        if g.shape != t.shape and g.size not in (1, t.size):
            return False
        g = numpy.broadcast_to(g.reshape(t.shape) if g.size == t.size else g, t.shape)
        finite = numpy.isfinite(t)
        same_special = numpy.all((g == t) | finite | (numpy.isnan(g) & numpy.isnan(t)))
        with numpy.errstate(invalid='ignore'):
            near = numpy.abs(g - t)[finite] <= ATOL + RTOL * numpy.abs(t)[finite]
        return bool(same_special) and bool(numpy.all(near))
    except (TypeError, ValueError):
        return False


def match(guess: Any, names: Sequence[str], sizes: Sequence[int | None] | None = None) -> list:
    """One guessed value per target (``names``: the targets, in order; ``sizes``: how
    many numbers each holds, where known), each a float64 array.

    ``guess`` is one value (one target, or the same for all), a list with one value
    per target, or a mapping from the names drawn on the variables to values.  A value
    is a number or a (nested) list or array of numbers, at most as many as its target
    holds: not a bool, bytes or text.  Raises ValueError (or KeyError for an unknown
    name) when it does not fit.
    """
    if not names:
        raise ValueError('this step sends no gradient to guess')
    names = list(names)
    sizes = list(sizes) if sizes is not None else [None] * len(names)
    if isinstance(guess, Mapping):
        unknown = [k for k in guess if k not in names]
        if unknown:
            raise KeyError(f'no target called {str(unknown[0])[:40]!r}: this step sends '
                           f'grads to {", ".join(names)}')
        missing = [n for n in names if n not in guess]
        if missing:
            raise ValueError(f'guess every target: {", ".join(missing)} missing')
        guesses = [guess[n] for n in names]
    elif isinstance(guess, list | tuple) and len(names) > 1:
        if len(guess) != len(names):
            raise ValueError(f'this step sends {len(names)} grads ({", ".join(names)}): '
                             f'give {len(names)} values, got {len(guess)}')
        guesses = list(guess)
    else:
        guesses = [guess] * len(names)
    return [_numbers(g, n, s) for g, n, s in zip(guesses, names, sizes)]


def check(guess: Any, targets: Sequence[tuple[str, Any]]) -> Verdict:
    """Grade ``guess`` (see :func:`match`) against ``targets``, ``(name, true value)``
    per input slot that received a gradient."""
    sizes = [None if t is None else numpy.size(t) if not isinstance(t, events.Summary)
             else math.prod(t.shape) for _, t in targets]
    guesses = match(guess, [n for n, _ in targets], sizes)
    checks = tuple((n, g, t, close(g, t)) for (n, t), g in zip(targets, guesses))
    return Verdict(all(ok for *_, ok in checks), checks)


def _numbers(value: Any, name: str, size: int | None) -> numpy.ndarray:
    """``value`` as a float64 array, refused (ValueError) unless it is numbers only, at
    most ``size`` of them (or :data:`MAX_VALUES`)."""
    limit = size if size else MAX_VALUES
    count = 0

    def walk(item: Any, depth: int) -> None:
        nonlocal count
        if depth > expressions.MAX_DEPTH:
            raise ValueError(f'the guess for {name} nests more than '
                             f'{expressions.MAX_DEPTH} deep')
        if isinstance(item, list | tuple):
            if count + len(item) > limit:  # before reading them: a huge list costs nothing
                raise ValueError(_too_many(name, size, count + len(item)))
            for one in item:
                walk(one, depth + 1)
            return
        if isinstance(item, numpy.ndarray) and item.dtype.kind in 'iuf':
            count += item.size
        elif isinstance(item, int | float | numpy.integer | numpy.floating) \
                and not isinstance(item, bool):
            count += 1
        else:
            raise ValueError(f'a guess is a number, a list of numbers or text like '
                             f'\'cos(1)\', got {type(item).__name__} {item!r:.40}')
        if count > limit:
            raise ValueError(_too_many(name, size, count))

    walk(value, 0)
    try:
        array = numpy.asarray(value, dtype=numpy.float64)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(f'the guess for {name} is not a number or a regular list of '
                         f'numbers: {error}') from error
    if array.size == 0:
        raise ValueError(f'the guess for {name} is empty: give a number')
    return array


def _too_many(name: str, size: int | None, count: int) -> str:
    if size == 1:
        return f'{name} holds one value: give one number, got {count} values'
    if size:
        return f'{name} holds {size} values: give one number or {size}, got {count}'
    return f'a guess holds at most {MAX_VALUES} numbers, got {count}'


class Gradebook:
    """The verdict of each step guessed (or revealed) in predict mode, by ``(backward
    run id, function id)``: Back shows a step's verdict again, and a second guess at a
    step already in the book is a retry, shown but not scored (the score keeps the
    first try).  Holds the latest :data:`KEEP` steps.

    >>> book = Gradebook()
    >>> book.graded((1, 7)), book.note((1, 7), 'Right! x: 2.0'), book.graded((1, 7))
    (False, None, True)
    >>> book.text((1, 7)), book.text((2, 7))
    ('Right! x: 2.0', '')
    """

    KEEP = 4096

    def __init__(self) -> None:
        self._texts: dict[tuple, str] = {}

    def graded(self, key: tuple) -> bool:
        return key in self._texts

    def note(self, key: tuple, text: str) -> None:
        self._texts.pop(key, None)
        self._texts[key] = text
        if len(self._texts) > self.KEEP:
            del self._texts[next(iter(self._texts))]

    def text(self, key: tuple) -> str:
        return self._texts.get(key, '')
