"""What a view knows at one moment: the graph model plus what it remembers of backward.

:class:`ViewState` folds events, one at a time, into a
:class:`~autograd_lab.graph.GraphModel` (the graph as the engine made it) and a
:class:`Trace` (what the picture needs beyond it):

* the last gradient each variable received, kept after the engine released it, so an
  intermediate's grad stays on screen, marked as freed;
* the backward run shown (the latest one over the graph): which functions it ran,
  which step is under way, and for the last step the grads before and after, so the
  step ledger can write "old + term = sum";
* resets: a :class:`ViewReset` mark in the log puts the picture back to before
  backward (no function done, no grad remembered).

Folding is the only way state changes, so a state at any position of the history is
the checkpoint replayed to it, and the live state is the same fold kept up to date.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> with events.recording() as log:
...     x = chainer.Variable(np.array(3.0), name='x')
...     y = x * x
...     y.backward()
>>> state = ViewState()
>>> for e in log:
...     state.apply(e)
>>> y_id = events.uid(y)
>>> state.model.nodes[y_id].grad is None, float(state.trace.grads[y_id])  # released, remembered
(True, 1.0)
>>> state.trace.steps, state.trace.finished
(1, True)
>>> state.apply(ViewReset())
>>> state.trace.steps, state.trace.grads
(0, {})
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any

from autograd_lab import events, graph
from autograd_lab.graph import lens


@dataclass(frozen=True)
class ViewReset(events.Event):
    """A mark the view puts in its own log when the student presses Reset: from here the
    picture is the graph before backward.  The graph model ignores it (an unknown kind)."""

    kind = 'view_reset'


@dataclass
class StepRecord:
    """One finished backward step, as the ledger tells it.

    ``targets`` are the input slots that received a gradient: ``(var id, term, how)``
    with ``how`` ``'set'`` or ``'added'``; ``before`` and ``after`` map each of those
    variables to its gradient just before and just after the step.
    """

    func_id: int
    rank: int = 0
    reason: str = ''
    frontier_ids: tuple = ()
    grad_outputs: tuple = ()
    targets: tuple = ()
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    #: the variables whose grad before the step came from an earlier backward
    earlier: frozenset = frozenset()


@dataclass
class Trace:
    """The backward side of the picture (see the module docstring)."""

    grads: dict = field(default_factory=dict)   # var id -> last gradient received
    done: set = field(default_factory=set)      # functions run by the shown run
    run_id: int | None = None
    run_roots: tuple = ()
    run_mode: str = 'backward'
    run_retains: bool = False  # retain_grad: the roots keep their grads
    run_open: bool = False
    run_ok: bool = True
    run_error: str | None = None
    steps: int = 0
    current: Any = None                # the BackwardStepStarted of a step under way
    last: StepRecord | None = None     # the last finished step of the shown run
    received: set = field(default_factory=set)  # variables the shown run sent a grad to
    nan_origin: int | None = None  # the first function whose backward made a NaN/inf
    _olds: dict = field(default_factory=dict)  # var id -> grad before the step under way

    @property
    def finished(self) -> bool:
        """True when the shown run ran to its end."""
        return self.run_id is not None and not self.run_open

    def forget(self, keep: set) -> None:
        """Drop what is remembered about nodes outside ``keep`` (after a prune)."""
        self.grads = {i: g for i, g in self.grads.items() if i in keep}
        self.done &= keep
        self.received &= keep


class ViewState:
    """A graph model and its trace, updated together by :meth:`apply`."""

    def __init__(self, model: graph.GraphModel | None = None, trace: Trace | None = None):
        self.model = model if model is not None else graph.GraphModel()
        self.trace = trace if trace is not None else Trace()

    def copy(self) -> ViewState:
        """An independent copy (a pickled round trip: twice as fast as deepcopy)."""
        return pickle.loads(self.dumps())

    def dumps(self) -> bytes:
        return pickle.dumps((self.model, self.trace), pickle.HIGHEST_PROTOCOL)

    @classmethod
    def loads(cls, blob: bytes) -> ViewState:
        model, trace = pickle.loads(blob)  # our own bytes (see dumps), never external data
        return cls(model, trace)

    def apply(self, e: events.Event) -> None:
        """Fold one event (or a :class:`ViewReset`) into the model and the trace."""
        kind = e.kind
        t = self.trace
        nodes = self.model.nodes
        if kind == 'view_reset':
            self._reset()
            self.model.apply(e)
            return
        if isinstance(e, events.GradChanged) and t.current is not None \
                and e.var_id not in t._olds:
            t._olds[e.var_id] = self._grad(e.var_id)
        if kind == 'backward_step_done' and e.run_id == t.run_id:
            for ident in e.target_input_ids:
                if ident not in t._olds:
                    t._olds[ident] = self._grad(ident)
        self.model.apply(e)
        if isinstance(e, events.GradChanged):
            if kind == 'grad_cleared':
                t.grads.pop(e.var_id, None)
            elif e.grad is not None:
                t.grads[e.var_id] = e.grad
        elif kind == 'backward_started':
            self._run_started(e)
        elif kind == 'backward_step_started' and e.run_id == t.run_id:
            t.current = e
            t._olds = {}
            f = nodes.get(e.func_id)
            for o, g in zip(f.output_ids if f is not None else (), e.grad_outputs):
                if g is not None:
                    t.grads[o] = g
        elif kind == 'backward_step_done' and e.run_id == t.run_id:
            self._step_done(e)
        elif kind == 'backward_finished' and e.run_id == t.run_id:
            t.run_open, t.run_ok, t.run_error = False, e.ok, e.error
            t.current = None

    def _reset(self) -> None:
        """Back to before backward.  The live variables' grads were cleared by the
        engine (their events came first); the grads the graph model still holds belong to
        a backward that is gone (a stepper dropped half-way, a collected variable)."""
        self.trace = Trace()
        for n in self.model.nodes.values():
            if n.category == 'variable':
                n.grad = None
                n.states -= {'grad_computed', 'grad_accumulated', 'grad_stale', 'grad_pending'}

    def _grad(self, ident: int) -> Any:
        node = self.model.nodes.get(ident)
        if node is not None and node.grad is not None:
            return node.grad
        return self.trace.grads.get(ident)

    def _run_started(self, e: Any) -> None:
        t = Trace(grads=self.trace.grads, run_id=e.run_id, run_roots=tuple(e.root_ids),
                  run_mode=e.mode, run_retains=e.retain_grad, run_open=True)
        # what an earlier run left on the intermediates is not this run's: forget it
        for ident in self.model.upstream_many(e.root_ids) | set(e.root_ids):
            node = self.model.nodes.get(ident)
            if node is not None and node.category == 'variable' and node.grad is None:
                t.grads.pop(ident, None)
        self.trace = t

    def _step_done(self, e: Any) -> None:
        t = self.trace
        started = t.current
        before = {i: t._olds.get(i) for i in dict.fromkeys(e.target_input_ids)}
        after = {}
        for ident in before:
            g = self._grad_after(ident)
            after[ident] = g
            if g is not None:
                t.grads[ident] = g
        targets = tuple((i, g, how) for i, g, how in
                        zip(e.target_input_ids, e.grad_inputs, e.accumulation)
                        if how is not None)
        t.last = StepRecord(
            func_id=e.func_id, targets=targets, before=before, after=after,
            rank=getattr(started, 'rank', 0), reason=getattr(started, 'reason', ''),
            frontier_ids=tuple(getattr(started, 'frontier_ids', ())),
            grad_outputs=tuple(getattr(started, 'grad_outputs', ())),
            earlier=frozenset(i for i, g in before.items()
                              if g is not None and i not in t.received))
        t.received.update(before)
        if t.nan_origin is None and lens.finite(t.last.grad_outputs) \
                and not lens.finite(e.grad_inputs):
            t.nan_origin = e.func_id
        t.done.add(e.func_id)
        t.steps += 1
        t.current = None
        t._olds = {}

    def _grad_after(self, ident: int) -> Any:
        node = self.model.nodes.get(ident)
        if node is None:
            return None
        return node.grad if node.grad is not None else self.trace.grads.get(ident)

