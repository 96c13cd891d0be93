"""Lesson 5, backward order: ranks, accumulation at fan-out, running to a step."""

from __future__ import annotations

from typing import Any

import numpy as np


from .feedback import (
    _dict_answer,
    _checker,
    _as_array,
    _close,
    _compare,
    _matches,
    _ok,
    _todo,
    _wrong,
    Feedback,
)


#: x of the diamond in the view (exercise 5.3), h = 2x: not exercise 5.2's x = 0.5, so that
#: what sin sends is a number the student has not worked out yet.
DIAMOND_VIEW_X = 0.25


@_checker(answer=lambda: (
                "{'mul': 0, 'exp': 1, 'sin': 1, 'add': 2}"))
def ex05_ranks(ranks: Any) -> Feedback:
    """Predicted function ranks of h = 2x, p = exp(h), q = sin(h), y = p + q."""
    want = {'mul': 0, 'exp': 1, 'sin': 1, 'add': 2}
    ranks = _dict_answer('ex05_ranks', ranks, want,
                         todo='your predicted rank of each function (whole numbers)',
                         unfinished='every rank', hint='One entry per function of the graph.')
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
    if {k: ranks[k] for k in ('mul', 'exp', 'sin')} == {'mul': 0, 'exp': 1, 'sin': 1}:
        if ranks['add'] == 1:
            _wrong('ex05_ranks', 'add is not right.', "add's inputs p and q are outputs of "
                   'exp and sin: they have those functions\' rank + 1.')
        if ranks['add'] == 3:
            _wrong('ex05_ranks', 'add is not right.', 'A function takes the largest rank of '
                   'its inputs, not one more: the + 1 goes to its outputs.')
    bad = [f'{k} = {ranks[k]!r}' for k, v in want.items() if ranks[k] != v]
    if not bad:
        return _ok('ex05_ranks', 'right: backward runs add, then exp and sin, then mul.')
    return _wrong('ex05_ranks', 'not right: ' + ', '.join(bad) + '.',
                  "A function's rank is the largest rank of its inputs; its outputs get rank "
                  '+ 1.')


@_checker
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
                               '2); the question asks for h.grad.'),
                              (np.exp(h) - np.cos(h), 'Sign: sin rises at h = 1, its derivative '
                               'there is positive.'),
                              (np.exp(h) + np.sin(h), 'That is y, the value; predict its '
                               'gradient.')],
                    todo='the h.grad you predict (without running anything)')


@_checker(answer=lambda: (
                f'diamond.guess(np.cos({2 * DIAMOND_VIEW_X:g})): sin sends h only its own part, '
                'cos(h)'))
def ex05_run_to(verdict: Any) -> Feedback:
    """The view's Verdict on a guess for the sin step of the diamond at x = DIAMOND_VIEW_X,
    made after Run to here stopped backward with sin next: sin sends h only its own part,
    cos(h) times 1."""
    exercise = 'ex05_run_to'
    if verdict is ...:
        return _todo(exercise, 'what diamond.guess(your prediction) returns')
    graded = getattr(verdict, 'checks', None)
    if not hasattr(verdict, 'right') or not isinstance(graded, tuple):
        return _wrong(exercise, f'got {type(verdict).__name__}, not the verdict of a guess.',
                      'Keep what the view returns: sin_step = diamond.guess(your prediction).')
    h = 2 * DIAMOND_VIEW_X
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
                (np.exp(h), 'That is what exp sent to h, exp(h); sin sends its own '
                 'part, cos(h) times the incoming 1.'),
                (np.cos(1.0), f"That is cos(1), sin's part at exercise 5.2's h = 1; this "
                 f'diamond has x = {DIAMOND_VIEW_X:g}, so h = {h:g} (read it off the graph).')]
    for wrong_value, hint in mistakes:
        if said is not None and said.size == 1 and _matches(said, wrong_value, 1e-2, 5e-3):
            return _wrong(exercise, str(verdict), hint)
    return _wrong(exercise, str(verdict), 'The sin step sends the incoming gradient (1, from '
                  f'p + q) times its local derivative, cos(h), at h = {h:g}.')
