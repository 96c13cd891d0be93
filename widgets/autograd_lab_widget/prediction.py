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
'Not quite: v3 gets -1.0 (you said 1); right for v2: 10.0.'
>>> score = Score().add(verdict).add(check(0.0, targets[:1]))
>>> score, score.total
(Score(right=1, wrong=1, skipped=0), 2)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy

from autograd_lab import events

from autograd_lab_widget import arrays

#: A guess is right when ``|guess - truth| <= ATOL + RTOL * |truth|`` element by element.
RTOL = 1e-2
ATOL = 5e-3


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
    ``(name, guess, truth, right)``."""

    right: bool
    checks: tuple = field(default_factory=tuple)

    def __str__(self) -> str:
        if self.right:
            return 'Right! ' + ', '.join(f'{n}: {arrays.text(t)}' for n, _, t, _ in self.checks)
        wrong = '; '.join(f'{n} gets {arrays.text(t)} (you said {_said(g)})'
                          for n, g, t, ok in self.checks if not ok)
        good = [f'{n}: {arrays.text(t)}' for n, _, t, ok in self.checks if ok]
        return f'Not quite: {wrong}' + (f'; right for {", ".join(good)}' if good else '') + '.'


def _said(guess: Any) -> str:
    if isinstance(guess, numpy.ndarray | numpy.generic):
        return arrays.text(numpy.asarray(guess))
    return json.dumps(guess) if isinstance(guess, list) else str(guess)


def parse_guess(value: Any) -> Any:
    """A guess typed in the browser (text: a number or a JSON list) or given in Python."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ValueError('empty guess: type a number like 4 or a list like [1, 2]')
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f'a guess is a number or a list like [1, 2], got {text!r:.40}') \
                from error
    return value


def close(guess: Any, truth: Any) -> bool:
    """``guess`` matches ``truth`` (a recorded value) within the tolerance."""
    if truth is None or isinstance(truth, events.Summary):
        return False
    try:
        g = numpy.asarray(guess, dtype=numpy.float64)
        t = numpy.asarray(truth, dtype=numpy.float64)
        if g.shape != t.shape and g.size not in (1, t.size):
            return False
        g = numpy.broadcast_to(g.reshape(t.shape) if g.size == t.size else g, t.shape)
        finite = numpy.isfinite(t)
        same_special = bool(numpy.all((g == t) | finite))  # inf must match exactly
        return same_special and bool(numpy.all(numpy.abs(g - t)[finite]
                                                <= ATOL + RTOL * numpy.abs(t)[finite]))
    except (TypeError, ValueError):
        return False


def match(guess: Any, names: Sequence[str]) -> list:
    """One guessed value per target (``names``: the targets, in order).

    ``guess`` is one value (one target, or the same for all), a list with one value
    per target, or a mapping from the names drawn on the variables to values.
    Raises ValueError (or KeyError for an unknown name) when it does not fit.
    """
    if not names:
        raise ValueError('this step sends no gradient to guess')
    names = list(names)
    if isinstance(guess, Mapping):
        unknown = [k for k in guess if k not in names]
        if unknown:
            raise KeyError(f'no target called {unknown[0]!r}: this step sends grads to '
                           f'{", ".join(names)}')
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
    for g in guesses:
        _check_number(g)
    return guesses


def check(guess: Any, targets: Sequence[tuple[str, Any]]) -> Verdict:
    """Grade ``guess`` (see :func:`match`) against ``targets``, ``(name, true value)``
    per input slot that received a gradient."""
    guesses = match(guess, [n for n, _ in targets])
    checks = tuple((n, g, t, close(g, t)) for (n, t), g in zip(targets, guesses))
    return Verdict(all(ok for *_, ok in checks), checks)


def _check_number(value: Any) -> None:
    try:
        array = numpy.asarray(value, dtype=numpy.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f'a guess is a number or a list of numbers, got {value!r:.40}') \
            from error
    if array.size == 0 or not all(math.isfinite(v) or math.isinf(v) for v in array.ravel()):
        raise ValueError(f'a guess is a number or a list of numbers, got {value!r:.40}')
