"""Predict mode's book-keeping: on or off, the score, and the verdict shown now.

A step is known by ``(backward run id, function id)``.  A step run in predict mode
without a guess counts as skipped; a second guess at a step already graded is a retry,
shown but not scored.

>>> from autograd_lab_widget.quiz.prediction import check
>>> quiz = PredictMode(on=True)
>>> quiz.grade(check({'x': 2.0}, [('x', 2.0)]), (1, 7)).right
True
>>> quiz.revealed((1, 8)); quiz.score
Score(right=1, wrong=0, skipped=1)
>>> quiz.verdict
'Revealed without a guess.'

The harder mode (``harder``) asks each step's local derivatives too, where the
pre-filled rule would otherwise give them away.
"""

from __future__ import annotations

import dataclasses

from autograd_lab_widget.quiz import prediction


class PredictMode:
    """Whether steps wait for a guess (``on``), whether the guess names the local
    derivatives too (``harder``), the :class:`~.prediction.Score`, and the verdict of
    the step just run (``verdict``, '' when there is none to show)."""

    def __init__(self, on: bool = False, harder: bool = False) -> None:
        self.on = on
        self.harder = harder
        self.score = prediction.Score()
        self.verdict = ''
        self._book = prediction.Gradebook()
        self._answers: dict[tuple, str] = {}
        # per step whose verdict holds its numbers back: the names guessed wrong
        self._held: dict[tuple, frozenset[str]] = {}

    def revealed(self, key: tuple) -> None:
        """Step ``key`` ran: without a guess in predict mode it counts as skipped (once);
        the verdict shown is that step's."""
        if not self.on:
            self.verdict = ''
            return
        if not self._book.graded(key):
            self.score = self.score.add(None)
            self._book.note(key, 'Revealed without a guess.')
        self.verdict = self._book.text(key)

    def grade(self, verdict: prediction.Verdict, key: tuple,
              step: str = '') -> prediction.Verdict:
        """Book ``verdict`` for step ``key`` (``step`` says which, for its text): scored
        the first time, a retry after."""
        retry = self._book.graded(key)
        # a first wrong try hides the right number (a retry is offered); a retry shows it
        verdict = dataclasses.replace(verdict, retry=retry, step=step, shown=retry)
        if not retry:
            self.score = self.score.add(verdict)
        self._held.pop(key, None)
        if not verdict.right and not verdict.shown:
            self._held[key] = frozenset(n for n, _, _, ok in verdict.checks if not ok)
            if len(self._held) > self._book.KEEP:
                del self._held[next(iter(self._held))]
        self.verdict = str(verdict)
        self._book.note(key, self.verdict)
        self._answers[key] = verdict.answer()
        if len(self._answers) > self._book.KEEP:
            del self._answers[next(iter(self._answers))]
        return verdict

    def reveal(self, key: tuple | None) -> str:
        """Show the answer of step ``key`` (the verdict with the right numbers): what
        "Show the answer" does after a wrong guess.  Raises RuntimeError where that step
        has no graded guess."""
        if key not in self._answers:
            raise RuntimeError('no guess to show the answer of: guess a step in predict '
                               'mode first (the answer comes with its verdict)')
        shown = self._book.text(key) == self.verdict
        self._held.pop(key, None)
        self._book.note(key, self._answers[key])
        if shown:
            self.verdict = self._answers[key]
        return self._answers[key]

    def held_back(self, key: tuple | None) -> frozenset[str]:
        """The targets (and local derivatives) whose right numbers step ``key``'s
        verdict holds back, a first wrong try's (empty: none): what "Show the answer"
        would show, and what the view covers until then."""
        return self._held.get(key, frozenset())

    def verdict_of(self, key: tuple) -> str:
        """The verdict booked for step ``key`` ('' if none)."""
        return self._book.text(key)
