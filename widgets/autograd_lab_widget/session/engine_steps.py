"""Stepping the engine's backward from a session: Step, Run to end, Run to here, Reset.

There is no second backward for display: every step here is a step of the engine's
own :class:`~autograd_lab.BackwardStepper`, which
:class:`~autograd_lab_widget.session.backward.Backward` holds (and shares with the
other views of the graph).  A step that raises was undone by the engine; the session
says so and stays usable.  :class:`~autograd_lab_widget.session.stepping.StepModel`
offers these as its methods.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget.session.stepping import StepModel
>>> x = chainer.Variable(np.array(5.0), name='x')
>>> model = StepModel(x ** 2 - 2 * x + 1)
>>> run_to(model, 'f2'), step(model), step(model)   # f2 (_ * 2) runs last
(True, True, False)
>>> float(x.grad)
8.0
>>> reset(model); x.grad is None
True
>>> model.close()
"""

from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING, Any

import numpy

from autograd_lab import BackwardStepper, FunctionNode, Parameter, events

from autograd_lab_widget import arrays
from autograd_lab_widget.session import guessing
from autograd_lab_widget.session.backward import restore_grads

if TYPE_CHECKING:
    from autograd_lab_widget.session.stepping import StepModel


def leaf_grads(session: StepModel) -> list[str]:
    """Leaves of the graph that already hold a gradient (a new backward adds to it)."""
    graph = session.live.model
    held = []
    for var in session.graph_variables():
        if var.creator is None and var.grad is not None and var.requires_grad:
            ident = events.uid(var)
            if ident in graph.nodes and var is not session.roots[0]:
                held.append(f'{session.names.of(graph, ident)} ({arrays.text(var.grad)})')
    return held


def nan_start_grads(session: StepModel) -> list[str]:
    """Parameters of the graph whose grad is all NaN: how a new Link's parameters start
    (Chainer's way of showing a backward run without ``cleargrads()`` first)."""
    graph = session.live.model
    found = []
    for var in session.graph_variables():
        grad = var.grad
        if var.creator is None and grad is not None and isinstance(var, Parameter):
            host = arrays.to_host(grad)
            if host is not None and host.size and numpy.isnan(host).all():
                found.append(session.names.of(graph, events.uid(var)))
    return found


def ensure_stepper(session: StepModel, *, confirm: bool) -> BackwardStepper | None:
    """The stepper of the backward under way, or a new one (None: the student must
    confirm adding to grads the leaves hold); RuntimeError when there is nothing to
    step."""
    if session.backward.stepper is None or \
            session.backward.stepper is not session.backward.in_flight(session.root_id()):
        reason = session.idle_reason()
        if reason is not None:
            raise RuntimeError(reason)
    return session.backward.ensure(session.roots[0], functools.partial(leaf_grads, session),
                                   functools.partial(leaf_snapshot, session), confirm)


def leaf_snapshot(session: StepModel) -> list:
    """The grads the graph's variables hold now (copies: leaves', and retained
    intermediates'), for :meth:`reset`."""
    return [(weakref.ref(var), None if var.grad is None else var.grad.copy())
            for var in session.graph_variables()
            if var.grad is not None or (var.creator is None and var.requires_grad)]


def stepped(session: StepModel, stepper: BackwardStepper, all_of_them: bool = False) -> None:
    """Run the next step (or every one) of ``stepper``.  A step that raises has been
    undone by the engine (every grad as before this backward): the view says so and
    stays usable (Step tries again, Back, Reset); the error goes on to the caller."""
    now = [(weakref.ref(var), var.grad) for var in session.graph_variables()]
    last = session.backward.after_step
    by_hand = [] if last is None or last[0] is not stepper else [
        (ref, grad) for (ref, grad), (_, was) in zip(now, last[1])
        if ref() is not None and grad is not was]
    try:
        session.backward.advance(stepper, all_of_them)
    except BaseException as error:
        session.quiz.verdict = ''
        kept = _keep_by_hand(by_hand)
        session.message = (f'The step failed ({type(error).__name__}: {error}). Every grad '
                           'is back to what it was before this backward'
                           + (f', except {", ".join(kept)}, set by hand during it and kept'
                              if kept else '')
                           + ': Step tries again, Back shows the steps that ran, '
                           'Reset starts over.')
        session.backward.after_step = None
        raise
    session.backward.after_step = (stepper, [
        (weakref.ref(var), var.grad) for var in session.graph_variables()])


def _keep_by_hand(by_hand: list) -> list[str]:
    """Give back the grads the user set by hand between steps (the rollback undid
    them); their names, as ``x.grad``."""
    kept = []
    for ref, grad in by_hand:
        var = ref()
        if var is not None:
            var.grad = grad
            kept.append(f'{var.name or "a variable"}.grad')
    return kept


def step_engine(session: StepModel) -> None:
    """Run the next step of the engine's backward (a new one if none is under way)."""
    stepped(session, ensure_stepper(session, confirm=True))


def step(session: StepModel, *, confirm: bool = True) -> bool:
    """One step: the next function's backward in the engine (at the live end), or the
    next recorded step (in history).  False when there is nothing to step.

    ``confirm=False`` (the browser's Step button) does not start a backward that
    would add to grads the leaves already hold: the first press says so and the
    second goes on.  In predict mode a step run without a guess counts as skipped.
    """
    with session.action():
        if not session.travel.live:
            return session.travel.forward()
        if session.finished(session.live) and session.backward.in_flight(session.root_id()) is None:
            return False
        stepper = ensure_stepper(session, confirm=confirm)
        if stepper is None or stepper.done:
            return False
        before = session.live.run.steps
        stepped(session, stepper)
        if session.live.run.steps > before:
            session.quiz.revealed(guessing.step_key(session.live))
        else:
            session.quiz.verdict = ''
        return True


def run(session: StepModel, *, confirm: bool = True) -> None:
    """Run every remaining step (the same engine stepper, announced step by step).
    ``confirm=False`` (the Run to end button) asks first, as :meth:`step` does."""
    with session.action():
        session.travel.go_live()
        if session.finished(session.live) and session.backward.in_flight(session.root_id()) is None:
            return
        stepper = ensure_stepper(session, confirm=confirm)
        if stepper is None:  # the first press says the grads would add up
            return
        session.quiz.verdict = ''
        stepped(session, stepper, all_of_them=True)


def run_to(session: StepModel, target: Any) -> bool:
    """Run backward until ``target`` is the next function (a breakpoint).

    ``target`` is a FunctionNode, its id, or the name drawn on it (``'f3'``).
    Raises ValueError when backward would never stop there (it already ran, or
    nothing flows to it) and leaves everything as it was.  Returns True once the
    target is next.
    """
    with session.action():
        session.travel.go_live()
        fid = function_id(session, target)
        graph = session.live.model
        name = session.names.described(graph, fid)
        if fid in session.live.run.done and not session.finished(session.live):
            raise ValueError(f'{name} already ran in this backward (Reset to start over)')
        root = session.root_id()
        if root is None or fid not in graph.upstream(root):
            raise ValueError(f'{name} is not on a path backward takes from the output '
                             '(cut, or not upstream of it)')
        if session.finished(session.live):
            raise ValueError(f'backward is finished; {name} already ran (Reset first)')
        stepper = ensure_stepper(session, confirm=True)
        session.quiz.verdict = ''
        while not stepper.done and events.uid(stepper.next_function) != fid:
            stepped(session, stepper)
        if stepper.done:
            session.message = f'Backward finished before reaching {name}.'
            return False
        return True


def function_id(session: StepModel, target: Any) -> int:
    graph = session.live.model
    if isinstance(target, FunctionNode):
        fid = events.uid(target)
    elif isinstance(target, str):
        fid = session.names.find(graph, target)
    elif isinstance(target, int) and not isinstance(target, bool):
        fid = target
    else:
        raise TypeError(f'run_to takes a FunctionNode, its id or its name, got '
                        f'{type(target).__name__}')
    node = graph.nodes.get(fid)
    if node is None:
        raise KeyError(f'node {target!r} is not in the shown graph')
    if node.category != 'function':
        raise ValueError(f'{session.names.of(graph, fid)} is a variable: run to a function')
    return fid


def reset(session: StepModel) -> None:
    """Back to the picture from before backward: drop the stepper so that the next
    Step starts a fresh backward, give every variable of the graph exactly the grad it
    held before the view's backward began (this view's or another view's of the graph;
    none began since the last Reset: every grad stays as it is), and return to the
    live end.  The event log is kept: Back can still visit what happened before."""
    with session.action():
        session.travel.go_live()
        variables = session.graph_variables()
        before = session.backward.reset(session.root_id())  # other views' Step stops too
        if before is not None:
            for var in variables:
                var.cleargrad()
        session.quiz.verdict = ''
        session.timeline.reset_mark()
        restore_grads(before or [])  # after the mark: the picture shows them again
