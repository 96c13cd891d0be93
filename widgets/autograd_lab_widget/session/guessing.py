"""Predict first: a student's guess of the next step's gradients, then the step, graded.

The guess is checked for form before anything runs (a bad one raises and runs
nothing); then the step runs in the engine (live) or the recorded step comes next
(in history), and :mod:`~autograd_lab_widget.quiz.prediction` grades the guess
against what the step really sent.  :meth:`StepModel.guess
<autograd_lab_widget.session.stepping.StepModel.guess>` is the public face.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget.session.stepping import StepModel
>>> x = chainer.Variable(np.array(3.0), name='x')
>>> model = StepModel(x * x)
>>> verdict = guess(model, '[3, 3]')          # x * x sends 3 to each of x's two slots
>>> verdict.right, model.score.right
(True, 1)
>>> model.close()
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy

from autograd_lab import events

from autograd_lab_widget import expressions
from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.present import ledger
from autograd_lab_widget.quiz import prediction

if TYPE_CHECKING:
    from autograd_lab_widget.session.stepping import StepModel


def guess(model: StepModel, value: Any = None, *, local: Any = None,
          **by_name: Any) -> prediction.Verdict:
    """Grade ``value`` (or the guesses ``by_name``), and in the harder mode the local
    derivatives ``local``, against the next step (see :meth:`StepModel.guess
    <autograd_lab_widget.session.stepping.StepModel.guess>`)."""
    if by_name and value is not None:
        raise TypeError('give the guess either as a value or by name, not both')
    notes: list[str] = []
    known = variables(model)
    given = _read(dict(by_name) if by_name else value, known, notes)
    if given is None:
        raise ValueError('a guess needs a value (a number, a list, or by name)')
    names = model.next_targets()
    if not names:  # closed or detached, a leaf, no output: the reason; else it is done
        raise RuntimeError(model.idle_reason() or 'no step is waiting: backward is '
                           'finished (Reset to start over)')
    asked = local_questions(model)
    local_given = _local_guess(model, asked, _read(local, known, notes))
    prediction.match(given, names, target_sizes(model))  # a bad guess raises here
    if not model.travel.live:
        model.travel.forward()  # the recorded step: graded again, nothing re-run
        state = model.state()
    else:
        before = model.live.run.steps
        model.step_engine()
        state = model.live
        if state.run.last is None or state.run.steps == before:
            raise RuntimeError('the step did not run')
    verdict = _grade(model, given, names, state, tuple(notes), local_given, asked)
    return verdict


def local_questions(model: StepModel) -> list[tuple[str, Any]]:
    """In the harder mode, the local derivatives the next step uses, ``(label,
    value)`` per target (empty otherwise, or where the rule is not tabled)."""
    if not model.quiz.harder:
        return []
    state = model.state()
    up = model.upcoming(state)
    return [] if up is None else ledger.local_questions(state, model.names, up)


def local_labels(model: StepModel, state: ViewState, up: ledger.Upcoming | None) -> list[str]:
    """The labels of the local derivatives the harder mode asks for at ``up``."""
    if not (model.quiz.on and model.quiz.harder) or up is None:
        return []
    return [label for label, _ in ledger.local_questions(state, model.names, up)]


def _local_guess(model: StepModel, asked: list, local: Any) -> Any:
    """The local derivatives guessed, checked for form (a bad one raises, runs nothing)."""
    if not asked:
        if local is not None:
            raise ValueError('local= is for the harder predict mode (view.harder = True) '
                             'at a step whose rule is known: guess the grads only')
        return None
    labels = [label for label, _ in asked]
    if local is None:
        raise ValueError(f'the harder mode asks the local derivatives too: '
                         f'guess(..., local=...) with {len(labels)} value'
                         f'{"s" if len(labels) > 1 else ""} ({", ".join(labels)})')
    prediction.match(local, labels, [numpy.size(v) for _, v in asked])
    return local


def variables(model: StepModel) -> dict[str, float | None]:
    """The graph's named variables by the name drawn, each its number (None where it
    holds more than one): what a name in a typed guess means before any constant (a
    variable ``e`` is not Euler's number)."""
    state = model.state()
    table = model.names.table(state.model)
    out = {}
    for ident, node in state.model.nodes.items():
        data = getattr(node, 'data', None)
        if node.category != 'variable' or not node.name or data is None:
            continue
        if isinstance(data, events.Summary):  # a big array, summarised
            out[table.get(ident, node.name)] = None
            continue
        try:
            array = numpy.asarray(data, dtype=numpy.float64)
        except (TypeError, ValueError):
            continue
        name = table.get(ident, node.name)
        out[name] = float(array.ravel()[0]) if array.size == 1 else None
    return out


def _read(value: Any, names: dict[str, float | None], notes: list[str]) -> Any:
    """``value`` with its typed text evaluated (names read as ``names`` first)."""
    if isinstance(value, str):
        number, read = expressions.read(value.strip(), names)
        notes.extend(n for n in read if n not in notes)
        return number
    if isinstance(value, list | tuple) and any(isinstance(v, prediction.Typed) for v in value):
        return [_read(v, names, notes) for v in value]
    return value


def reveal(model: StepModel) -> str:
    """Show the answer of the step whose verdict is shown (see
    :meth:`PredictMode.reveal <autograd_lab_widget.quiz.predict_mode.PredictMode.reveal>`)."""
    state = model.state()
    return model.quiz.reveal(step_key(state) if state.run.last else None)


def target_sizes(model: StepModel) -> list[int | None]:
    """How many numbers each target of the next step holds (None: unknown)."""
    state = model.state()
    up = model.upcoming(state)
    nodes = state.model.nodes
    ids = nodes[up.func_id].input_ids
    shapes = [getattr(nodes.get(ids[k]), 'shape', None) for k in up.targets]
    return [None if s is None else math.prod(s) for s in shapes]


def step_key(state: ViewState) -> tuple:
    """Which step of which run ``state`` has just run: what a verdict is kept under."""
    return (state.run.run_id, state.run.last.func_id)


def _grade(model: StepModel, given: Any, names: list[str], state: ViewState,
           notes: tuple = (), local: Any = None, asked: list | None = None
           ) -> prediction.Verdict:
    rec = state.run.last
    table = model.names.table(state.model)
    truth = [(table.get(i, f'#{i}'), term) for i, term, _ in rec.targets]
    if [n for n, _ in truth] != names:
        truth = list(zip(names, [t for _, t in truth])) if len(truth) == len(names) \
            else truth
    step = f'step {state.run.steps}, {model.names.described(state.model, rec.func_id)}'
    verdict = prediction.check(given, truth)
    if asked:
        verdict = prediction.joined(prediction.check(local, asked), verdict)
    verdict = dataclasses.replace(verdict, read=notes)
    return model.quiz.grade(verdict, step_key(state), step)
