"""The backward run a graph model shows: one record, folded from the run's events.

A :class:`BackwardRun` is everything known about the latest backward over a graph:
which run it is and what it was asked (roots, mode, ``retain_grad``), where it stands
(the functions done, the one under way, the frontier and why the next one runs), how
it ended, the last gradient each variable received in it (kept after the engine
releases an intermediate's grad: what backward *gave*), the last finished step told
as a ledger tells it (:class:`StepRecord`: the grads before and after), and the first
function whose backward turned finite gradients into NaN or inf.

It is the one model of a backward run: the :class:`~autograd_lab.graph.GraphModel`
owns it (``model.run``) and folds the events into it; the DOT, the gradient lens and
the widget read it.  Before any backward, ``model.run`` is an empty record
(``run_id`` None, nothing done).

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> from autograd_lab.graph import GraphModel
>>> with events.recording() as log:
...     x = chainer.Variable(np.array(3.0), name='x')
...     h = x * x
...     y = h + 1
...     y.backward()
>>> run = GraphModel.from_events(log).run
>>> run.mode, run.steps, run.finished, run.ok
('backward', 2, True, True)
>>> float(run.grads[events.uid(h)])   # released by the engine, kept here
1.0
>>> [(float(g), how) for _, g, how in run.last.targets]   # x * x: x's two slots
[(3.0, 'set'), (3.0, 'added')]
>>> float(run.last.after[events.uid(x)])
6.0

Where a NaN is born: the first function whose backward made one out of finite grads
(read from the steps; unlike debug mode, the backward runs on and nothing is raised).

>>> with events.recording() as log, np.errstate(divide='ignore'):
...     x = chainer.Variable(np.array([0.0, 1.0]), name='x')
...     y = chainer.functions.sum(chainer.functions.sqrt(x) * 2)
...     y.backward()   # sqrt's derivative at 0 is infinite
>>> run = GraphModel.from_events(log).run
>>> [e.label for e in log if e.kind == 'function_applied' and e.func_id == run.nan_origin]
['sqrt']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograd_lab.graph.lens import finite


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
class BackwardRun:
    """The latest backward run over a graph (see the module docstring)."""

    run_id: int | None = None
    roots: tuple = ()
    mode: str = 'backward'
    retain_grad: bool = False   # the roots keep their grads
    open: bool = False          # started and not finished yet
    ok: bool = True             # False once a step failed (the engine undid the run)
    error: str | None = None
    grads: dict = field(default_factory=dict)  # var id -> last gradient received
    done: set = field(default_factory=set)     # functions whose backward ran
    steps: int = 0
    current: Any = None               # the BackwardStepStarted of the step under way
    frontier: tuple = ()              # function ids waiting, as the last step saw them
    reason: str = ''                  # why the step under way runs next
    last: StepRecord | None = None    # the last finished step
    received: set = field(default_factory=set)  # variables a step sent a grad to
    nan_origin: int | None = None     # the first function whose backward made a NaN/inf
    _before: dict = field(default_factory=dict)  # var id -> grad before the step under way

    @property
    def finished(self) -> bool:
        """True when the run ran to its end (a failed one too: see :attr:`ok`)."""
        return self.run_id is not None and not self.open

    @property
    def next_id(self) -> int | None:
        """The function whose backward is under way (announced, not done), or None."""
        return None if self.current is None else self.current.func_id

    def mark(self, ident: int) -> str | None:
        """``'next'`` for the function under way, ``'done'`` for one that ran, else None."""
        if ident == self.next_id:
            return 'next'
        return 'done' if ident in self.done else None

    def forget(self, keep: set) -> None:
        """Drop what is remembered about nodes outside ``keep`` (after a prune)."""
        self.grads = {i: g for i, g in self.grads.items() if i in keep}
        self.done &= keep
        self.received &= keep

    # ---- folding the run's events (called by GraphModel.apply, in event order) ---------

    @classmethod
    def started(cls, e: Any, previous: BackwardRun, stale: set) -> BackwardRun:
        """The run ``e`` (a BackwardStarted) begins.  The grads ``previous`` kept go on,
        except those of ``stale``: intermediates this run will give grads again."""
        grads = {i: g for i, g in previous.grads.items() if i not in stale}
        return cls(run_id=e.run_id, roots=tuple(e.root_ids), mode=e.mode,
                   retain_grad=e.retain_grad, open=True, grads=grads)

    def grad_changing(self, var_id: int, grad_now: Any) -> None:
        """A Grad* event is about to change ``var_id``'s grad; ``grad_now(id)`` reads a
        variable's grad as it is (asked only while a step is under way)."""
        if self.current is not None and var_id not in self._before:
            self._before[var_id] = grad_now(var_id)

    def grad_changed(self, e: Any) -> None:
        """A Grad* event changed a grad (cleared: forgotten; else remembered)."""
        if e.kind == 'grad_cleared':
            self.grads.pop(e.var_id, None)
        elif e.grad is not None:
            self.grads[e.var_id] = e.grad

    def step_started(self, e: Any, output_ids: tuple) -> None:
        """A step began; ``output_ids`` are its function's outputs (their grads come
        with the event: for the root, the seed, announced nowhere else)."""
        self.current, self.frontier, self.reason = e, tuple(e.frontier_ids), e.reason
        self._before = {}
        for o, g in zip(output_ids, e.grad_outputs):
            if g is not None:
                self.grads[o] = g

    def step_ending(self, e: Any, grad_now: Any) -> None:
        """Before the model applies a BackwardStepDone: keep each target's grad before."""
        for ident in e.target_input_ids:
            if ident not in self._before:
                self._before[ident] = grad_now(ident)

    def step_done(self, e: Any, grad_after: Any) -> None:
        """After the model applied a BackwardStepDone; ``grad_after(id)`` is a variable's
        grad as it is now (None for a node the model does not hold)."""
        started = self.current
        before = {i: self._before.get(i) for i in dict.fromkeys(e.target_input_ids)}
        after = {}
        for ident in before:
            g = grad_after(ident)
            after[ident] = g
            if g is not None:
                self.grads[ident] = g
        targets = tuple((i, g, how) for i, g, how in
                        zip(e.target_input_ids, e.grad_inputs, e.accumulation)
                        if how is not None)
        self.last = StepRecord(
            func_id=e.func_id, targets=targets, before=before, after=after,
            rank=getattr(started, 'rank', 0), reason=getattr(started, 'reason', ''),
            frontier_ids=tuple(getattr(started, 'frontier_ids', ())),
            grad_outputs=tuple(getattr(started, 'grad_outputs', ())),
            earlier=frozenset(i for i, g in before.items()
                              if g is not None and i not in self.received))
        self.received.update(before)
        if self.nan_origin is None and finite(self.last.grad_outputs) \
                and not finite(e.grad_inputs):
            self.nan_origin = e.func_id
        self.done.add(e.func_id)
        self.steps += 1
        self.current, self._before = None, {}

    def ended(self, e: Any) -> None:
        """The run finished (``e.ok``) or a step failed and the engine undid it."""
        self.open, self.ok, self.error = False, e.ok, e.error
        self.current, self.frontier = None, ()
        self.reason = '' if e.ok else f'backward failed: {e.error}'
