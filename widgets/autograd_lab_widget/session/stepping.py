"""The kernel side of the graph view: follow the engine, step its backward, grade guesses.

:class:`StepModel` is everything a :class:`~autograd_lab_widget.GraphView` knows and
does, without any widget library: it follows the engine through its events (keeping
those that concern its graph in a :class:`~autograd_lab_widget.follow.timeline.Timeline`),
steps the engine's own :class:`~autograd_lab.BackwardStepper` (there is no second
backward for display), travels in the recorded history, runs to a breakpoint,
grades predictions, and describes what to draw (:meth:`StepModel.scene`).  The
widget adds traits and browser messages on top; the HTML replay is made from the
same model's :meth:`~StepModel.frames`.

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array(5.0), name='x')
>>> y = x ** 2 - 2 * x + 1
>>> model = StepModel(y)
>>> model.next_targets()              # the first step (_ + 1) sends a grad to v4
['v4']
>>> model.guess(1.0).right            # predict it: the step runs, the guess is graded
True
>>> model.run_to('f2')                # run until f2 (_ * 2) is the next function
True
>>> model.step(), model.step()        # f2 runs: it was the last one
(True, False)
>>> float(x.grad), model.score
(8.0, Score(right=1, wrong=0, skipped=0))
>>> model.close()
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import logging
import math
import sys
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from autograd_lab import BackwardStepper, FunctionNode, Variable, backend, events, graph

from autograd_lab_widget import arrays
from autograd_lab_widget.follow import bounds, recorder
from autograd_lab_widget.present import drawing, forward_replay, ledger, panel, scenes
from autograd_lab_widget.quiz import prediction
from autograd_lab_widget.quiz.predict_mode import PredictMode
from autograd_lab_widget.index import ObjectIndex
from autograd_lab_widget.naming import Names
from autograd_lab_widget.session import next_step
from autograd_lab_widget.session.backward import Backward, restore_grads
from autograd_lab_widget.session.selection import Selection, cut_by, variable_of
from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.follow.filter import EventFilter
from autograd_lab_widget.follow.timeline import Timeline

logger = logging.getLogger('autograd_lab_widget')

def as_outputs(outputs: Any) -> list:
    """``outputs`` (None, a Variable or Variables) as a list of Variables."""
    if outputs is None:
        return []
    if isinstance(outputs, Variable):
        return [outputs]
    out = list(outputs)
    for v in out:
        if not isinstance(v, Variable):
            raise TypeError(f'a graph view shows Variables, got {type(v).__name__}')
    return out


class StepModel:
    """A steppable model of the graph behind ``outputs`` (see the module docstring).

    Args mirror :class:`~autograd_lab_widget.GraphView`'s.  The model follows the
    engine until :meth:`close`; ``on_change`` (a callable, or None) is called after
    events from the engine changed the graph, so that a view can redraw.
    """

    def __init__(self, outputs: Any = None, *, events_log: Sequence | None = None,
                 retain_grad: bool = False, enable_double_backprop: bool = False,
                 links: Any = None, history: int = bounds.HISTORY_EVENTS,
                 code_lines: Any = None) -> None:
        if isinstance(history, bool) or not isinstance(history, int) or history < 100:
            raise ValueError(f'history must be an int of at least 100 events, got {history!r}')
        self.history = history
        self.roots = as_outputs(outputs)  # held strongly: the model must be able to step them
        self.retain_grad = bool(retain_grad)
        self.enable_double_backprop = bool(enable_double_backprop)
        self.names = Names()
        self.on_change: Callable[[], None] | None = None
        self.message = ''   # the outcome of the last action (an error, a refusal)
        self._lock = threading.RLock()
        self._index = ObjectIndex()
        self._scopes: dict[int, str] = {}
        if events_log is not None:
            entries, base = list(events_log), None
            if links is not None and self.roots:
                # parameters made before the recording have no event: their Link path
                # (and so their place in a collapsed Link) comes from the links
                walked = graph.GraphModel.from_outputs(self.roots, links=links, log=entries)
                self._scopes = {i: n.scope for i, n in walked.nodes.items() if n.scope}
        else:
            entries = []
            model = graph.GraphModel.from_outputs(self.roots, links=links) \
                if self.roots else graph.GraphModel()
            recorder.fill(model)  # the values of intermediates freed before the view
            base = ViewState(model)
        self._index.walk(self.roots)  # after the walk above: ids then follow the data flow
        if base is not None:
            self._orders_from_objects(base.model)
        self.timeline = Timeline(entries, base, patch=self._patch_scopes)
        self.code_lines = code_lines  # the forward replay's (see present.forward_replay)
        self.timeline.forward_steps = code_lines is not None
        self._filter = EventFilter(lambda ident: ident in self.timeline.live.model.nodes)
        self.backward = Backward(retain_grad=self.retain_grad,
                                 enable_double_backprop=self.enable_double_backprop)
        self._open_runs: set[int] = set()
        self._pos: int | None = None  # None: the live end
        self.quiz = PredictMode()
        self.selection = Selection()
        self.expanded: set[str] = set()
        self._window: frozenset | None = None
        self._look = drawing.Look(grows=self.enable_double_backprop)
        self._fresh_at = -1  # the run step count whose grads are drawn as fresh
        for e in self.timeline.entries:
            self._track_run(e)
        self._prune_at = bounds.next_prune_at(len(self.timeline.live.model.nodes))
        if len(self.timeline) > history:
            self._trim(len(self.timeline) - history)
        self.names.learn(self.timeline.live.model)
        me = weakref.ref(self)

        def listener(event: events.Event) -> None:
            model = me()
            if model is None:  # the model was dropped: stop listening
                sub.unsubscribe()
                return
            model.on_event(event)

        sub = events.subscribe(listener)
        self._subscription: events.Subscription | None = sub
        _following.add(self)

    @property
    def predict(self) -> bool:
        """Predict mode: a step waits for a guess (see :meth:`guess`)."""
        return self.quiz.on

    @predict.setter
    def predict(self, on: bool) -> None:
        self.quiz.on = bool(on)

    @property
    def score(self) -> prediction.Score:
        """Predict mode's score: steps guessed right, wrong, and run without a guess."""
        return self.quiz.score

    @contextlib.contextmanager
    def _action(self) -> Iterator[None]:
        """One action of the student's (Step, Back, Reset...): under the lock, and the
        outcome of the one before no longer shown."""
        with self._lock:
            self.message = ''
            yield

    # ---- following the engine --------------------------------------------------------

    @property
    def live(self) -> ViewState:
        """The state at the live end (everything the engine did so far)."""
        return self.timeline.live

    def on_event(self, e: events.Event) -> bool:
        """Take one engine event (the subscription calls this); True if it was kept."""
        with self._lock:  # events may come from any thread
            accepted = self._filter.take(e)
            for event in accepted:
                self.backward.note_run(event, self._root_id())
                self.timeline.append(event)
                self._track_run(event)
            if accepted:
                self._keep_bounds()
        if accepted and self.on_change is not None:
            self.on_change()
        return bool(accepted)

    def _track_run(self, e: events.Event) -> None:
        if e.kind == 'backward_started':
            self._open_runs.add(e.run_id)
        elif e.kind == 'backward_finished':
            self._open_runs.discard(e.run_id)

    # ---- bounded memory (policy: see the ``bounds`` module) ------------------------------

    def pinned(self) -> set[int]:
        """Ids that stay however old: the outputs, the selection, the unchain preview."""
        return {events.uid(r) for r in self.roots} | self.selection.pinned()

    def _keep_bounds(self) -> None:
        """Fold old events into the checkpoint and drop dead nodes when due (amortised)."""
        if len(self.timeline) > bounds.trim_at(self.history):
            self._trim(len(self.timeline) - self.history)
        size = len(self.live.model.nodes)
        if size > self._prune_at and (not self._open_runs
                                      or size > bounds.PRUNE_FORCE * self._prune_at):
            Timeline.prune(self.live, self.pinned())
            self._prune_at = bounds.next_prune_at(len(self.live.model.nodes))
            # what the view keeps per node goes with the nodes (those of the history
            # window's checkpoint stay too: Back can show them)
            keep = set(self.live.model.nodes)
            if self.timeline.base is not None:
                keep |= set(self.timeline.base.model.nodes)
            self.names.forget(keep)
            self._look.slots = {i: k for i, k in self._look.slots.items() if i in keep}

    def _trim(self, k: int) -> None:
        self.timeline.trim(k, self.pinned(), bounds.PRUNE_FORCE * self._prune_at)
        if self._pos is not None:
            self._pos = max(self._pos - k, 0)

    def _orders_from_objects(self, model: graph.GraphModel) -> None:
        """Grad-of-grad functions are marked whichever output the view was made from:
        a graph walked from a grad (``GraphView(gx)``) has no events that say its
        functions were made by a backward, but each FunctionNode knows its
        ``backward_order``."""
        changed = False
        for ident, node in model.nodes.items():
            if node.category == 'function':
                order = getattr(self._index.get(ident), 'backward_order', 0)
                if order > node.order:
                    node.order = order
                    changed = True
        if changed:
            model.refresh()

    def _patch_scopes(self, model: graph.GraphModel) -> None:
        for ident, scope in self._scopes.items():
            node = model.nodes.get(ident)
            if node is not None and not node.scope:
                node.scope = scope

    # ---- where we are ----------------------------------------------------------------

    def _root_id(self) -> int | None:
        return events.uid(self.roots[0]) if self.roots else None

    @property
    def position(self) -> int:
        """The position shown: ``len(timeline)`` at the live end."""
        return len(self.timeline) if self._pos is None else self._pos

    def state(self) -> ViewState:
        """The state shown (the live one, or a replayed one in history)."""
        if self._pos is None:
            return self.live
        return self.timeline.state_at(self._pos)

    def _finished(self, state: ViewState) -> bool:
        """The shown run is a backward from our output that ran to its end (a failed one
        did not: the engine undid it, and Step may try again)."""
        run = state.run
        root = self._root_id()
        return run.finished and run.ok and root in run.roots

    def _idle_reason(self) -> str | None:
        """Why there is nothing to step from the live end, or None."""
        if self._subscription is None:
            return 'Detached: this view no longer follows the engine.'
        if not self.roots:
            return 'Nothing to step: this view has no output variable.'
        if self.roots[0].creator is None and self.backward.stepper is None:
            return 'The output has no creator (a leaf): nothing to step.'
        return None

    def upcoming(self, state: ViewState | None = None) -> ledger.Upcoming | None:
        """The function the next step runs (live: the engine's stepper; in history: the
        next step recorded), or None when there is none."""
        return self._upcoming_at(self._pos, state or self.state())

    def _upcoming_at(self, pos: int | None, state: ViewState) -> ledger.Upcoming | None:
        """:meth:`upcoming` at position ``pos`` (None: the live end), whose state is
        ``state``."""
        if pos is not None:
            return next_step.recorded(self.timeline, pos, state)
        stepper = self.backward.in_flight(self._root_id())
        if stepper is not None:
            return next_step.from_stepper(stepper, state)
        if self._idle_reason() is not None or self._finished(state):
            return None
        if self.backward.stepper is not None and self.backward.stepper.done:
            return None
        return next_step.first(self.roots[0], state, self.names)

    def next_targets(self) -> list[str]:
        """The names of the variables the next step sends gradients to, one per input
        slot (a variable used twice by the function is named twice): what a guess
        gives values for."""
        with self._lock:
            state = self.state()
            return self._targets(state, self.upcoming(state))

    def _targets(self, state: ViewState, up: ledger.Upcoming | None) -> list[str]:
        return next_step.target_names(state, up, self.names)

    # ---- stepping --------------------------------------------------------------------

    def _leaf_grads(self) -> list[str]:
        """Leaves of the graph that already hold a gradient (a new backward adds to it)."""
        self._index.walk(self.roots)
        model = self.live.model
        held = []
        for var in self._index.live_variables():
            if var.creator is None and var.grad is not None and var.requires_grad:
                ident = events.uid(var)
                if ident in model.nodes and var is not self.roots[0]:
                    held.append(f'{self.names.of(model, ident)} ({arrays.text(var.grad)})')
        return held

    def _ensure_stepper(self, *, confirm: bool) -> BackwardStepper | None:
        """The stepper of the backward under way, or a new one (None: the student must
        confirm adding to grads the leaves hold); RuntimeError when there is nothing to
        step."""
        if self.backward.stepper is None or \
                self.backward.stepper is not self.backward.in_flight(self._root_id()):
            reason = self._idle_reason()
            if reason is not None:
                raise RuntimeError(reason)
        return self.backward.ensure(self.roots[0], self._leaf_grads, self._leaf_snapshot,
                                    confirm)

    def _leaf_snapshot(self) -> list:
        """The grads the graph's leaves hold now (copies), for :meth:`reset`."""
        self._index.walk(self.roots)
        return [(weakref.ref(var), None if var.grad is None else var.grad.copy())
                for var in self._index.live_variables()
                if var.creator is None and var.requires_grad]

    def _stepped(self, stepper: BackwardStepper, all_of_them: bool = False) -> None:
        """Run the next step (or every one) of ``stepper``.  A step that raises has been
        undone by the engine (every grad as before this backward): the view says so and
        stays usable (Step tries again, Back, Reset); the error goes on to the caller."""
        try:
            self.backward.advance(stepper, all_of_them)
        except BaseException as error:
            self.quiz.verdict = ''
            self.message = (f'The step failed ({type(error).__name__}: {error}). Every grad '
                            'is back to what it was before this backward: Step tries again, '
                            'Back shows the steps that ran, Reset starts over.')
            raise

    def _go_live(self) -> None:
        self._pos = None

    def step(self, *, confirm: bool = True) -> bool:
        """One step: the next function's backward in the engine (at the live end), or the
        next recorded step (in history).  False when there is nothing to step.

        ``confirm=False`` (the browser's Step button) does not start a backward that
        would add to grads the leaves already hold: the first press says so and the
        second goes on.  In predict mode a step run without a guess counts as skipped.
        """
        with self._action():
            if self._pos is not None:
                return self._forward_one()
            if self._finished(self.live) and self.backward.in_flight(self._root_id()) is None:
                return False
            stepper = self._ensure_stepper(confirm=confirm)
            if stepper is None or stepper.done:
                return False
            before = self.live.run.steps
            self._stepped(stepper)
            if self.live.run.steps > before:
                self.quiz.revealed(self._step_key(self.live))
            else:
                self.quiz.verdict = ''
            return True

    def run(self, *, confirm: bool = True) -> None:
        """Run every remaining step (the same engine stepper, announced step by step).
        ``confirm=False`` (the Run to end button) asks first, as :meth:`step` does."""
        with self._action():
            self._go_live()
            if self._finished(self.live) and self.backward.in_flight(self._root_id()) is None:
                return
            stepper = self._ensure_stepper(confirm=confirm)
            if stepper is None:  # the first press says the grads would add up
                return
            self.quiz.verdict = ''
            self._stepped(stepper, all_of_them=True)

    def run_to(self, target: Any) -> bool:
        """Run backward until ``target`` is the next function (a breakpoint).

        ``target`` is a FunctionNode, its id, or the name drawn on it (``'f3'``).
        Raises ValueError when backward would never stop there (it already ran, or
        nothing flows to it) and leaves everything as it was.  Returns True once the
        target is next.
        """
        with self._action():
            self._go_live()
            fid = self._function_id(target)
            model = self.live.model
            name = self.names.described(model, fid)
            if fid in self.live.run.done and not self._finished(self.live):
                raise ValueError(f'{name} already ran in this backward (Reset to start over)')
            root = self._root_id()
            if root is None or fid not in model.upstream(root):
                raise ValueError(f'{name} is not on a path backward takes from the output '
                                 '(cut, or not upstream of it)')
            if self._finished(self.live):
                raise ValueError(f'backward is finished; {name} already ran (Reset first)')
            stepper = self._ensure_stepper(confirm=True)
            self.quiz.verdict = ''
            while not stepper.done and events.uid(stepper.next_function) != fid:
                self._stepped(stepper)
            if stepper.done:
                self.message = f'Backward finished before reaching {name}.'
                return False
            return True

    def _function_id(self, target: Any) -> int:
        model = self.live.model
        if isinstance(target, FunctionNode):
            fid = events.uid(target)
        elif isinstance(target, str):
            fid = self.names.find(model, target)
        elif isinstance(target, int) and not isinstance(target, bool):
            fid = target
        else:
            raise TypeError(f'run_to takes a FunctionNode, its id or its name, got '
                            f'{type(target).__name__}')
        node = model.nodes.get(fid)
        if node is None:
            raise KeyError(f'node {target!r} is not in the shown graph')
        if node.category != 'function':
            raise ValueError(f'{self.names.of(model, fid)} is a variable: run to a function')
        return fid

    def back(self) -> bool:
        """Show the previous step boundary of the recorded history (time travel)."""
        with self._action():
            pos = self.position
            earlier = [b for b in self.timeline.boundaries() if b < pos]
            if not earlier:
                return False
            self._pos = earlier[-1]
            return True

    def _forward_one(self) -> bool:
        later = [b for b in self.timeline.boundaries() if b > self._pos]
        self._pos = None if not later or later[0] >= len(self.timeline) else later[0]
        return True

    def forward(self) -> bool:
        """Show the next recorded step; at the live end, run a new :meth:`step`."""
        with self._lock:
            if self._pos is None:
                return self.step()
            self.message = ''
            return self._forward_one()

    def show(self, pos: int) -> None:
        """Time travel to a step boundary of the history (ValueError otherwise)."""
        with self._lock:
            if pos == self.position:
                return
            if pos not in self.timeline.boundaries():
                raise ValueError(f'position {pos} is not a step boundary of the history '
                                 f'(0 to {len(self.timeline)})')
            self._pos = None if pos == len(self.timeline) else pos

    def reset(self) -> None:
        """Back to the picture from before backward: drop the stepper so that the next
        Step starts a fresh backward, clear the grads of every live variable of the graph,
        give the leaves back the grads they held before this view's backward began (none
        began since the last Reset: they stay cleared, a fresh start), and return to the
        live end.  The event log is kept: Back can still visit what happened before."""
        with self._action():
            self._go_live()
            self._index.walk(self.roots)
            before = self.backward.reset(self._root_id())  # other views' Step stops too
            for var in self._index.live_variables():
                var.cleargrad()
            self.quiz.verdict = ''
            self.timeline.reset_mark()
            restore_grads(before)  # after the mark: the picture shows them again

    # ---- predict first ---------------------------------------------------------------

    def guess(self, value: Any = None, **by_name: Any) -> prediction.Verdict:
        """Predict the gradients the next step sends to its inputs; the step then runs
        in the engine and the guess is graded (:attr:`score` counts it).

        ``value`` is one number (or array-like) for a step with one target, a list with
        one value per target (see :meth:`next_targets`), a dict by name, or text of
        one of those (``'4'``, ``'cos(1)'``, ``'[1, -1]'``); names can also be keywords
        (``guess(v2=1.0, v3=-1.0)``).  A bad guess raises ValueError and runs nothing.
        In history (after Back) the guess is for the recorded step that comes next,
        and moves one step on: a retry of a step already graded shows its verdict, but
        the score keeps the first try.
        """
        with self._action():
            if by_name and value is not None:
                raise TypeError('give the guess either as a value or by name, not both')
            guess = dict(by_name) if by_name else prediction.parse_guess(value)
            if guess is None:
                raise ValueError('a guess needs a value (a number, a list, or by name)')
            names = self.next_targets()
            if not names:
                raise RuntimeError('no step is waiting: backward is finished or has no '
                                   'output (Reset to start over)')
            # a bad guess raises here, before anything runs
            prediction.match(guess, names, self._target_sizes())
            if self._pos is not None:
                self._forward_one()  # the recorded step: graded again, nothing re-run
                state = self.state()
            else:
                stepper = self._ensure_stepper(confirm=True)
                before = self.live.run.steps
                self._stepped(stepper)
                state = self.live
                if state.run.last is None or state.run.steps == before:
                    raise RuntimeError('the step did not run')
            return self._grade(guess, names, state)

    def _target_sizes(self) -> list[int | None]:
        """How many numbers each target of the next step holds (None: unknown)."""
        state = self.state()
        up = self.upcoming(state)
        model = state.model
        ids = model.nodes[up.func_id].input_ids
        shapes = [getattr(model.nodes.get(ids[k]), 'shape', None) for k in up.targets]
        return [None if s is None else math.prod(s) for s in shapes]

    def _step_key(self, state: ViewState) -> tuple:
        return (state.run.run_id, state.run.last.func_id)

    def _grade(self, guess: Any, names: list[str], state: ViewState) -> prediction.Verdict:
        rec = state.run.last
        table = self.names.table(state.model)
        truth = [(table.get(i, f'#{i}'), term) for i, term, _ in rec.targets]
        if [n for n, _ in truth] != names:
            truth = list(zip(names, [t for _, t in truth])) if len(truth) == len(names) \
                else truth
        step = f'step {state.run.steps}, {self.names.described(state.model, rec.func_id)}'
        return self.quiz.grade(prediction.check(guess, truth), self._step_key(state), step)

    # ---- selection, unchain, devices ---------------------------------------------------

    @property
    def selected(self) -> Any:
        """The live Variable (or FunctionNode) selected, or None (a VariableNode when
        the Variable object was collected but its node lives on)."""
        return self.selection.obj

    @property
    def selected_id(self) -> int | None:
        """The id of the node selected, or None."""
        return self.selection.id

    def lookup(self, ident: int) -> Any:
        """The live object of node ``ident`` (a Variable in preference), or None."""
        obj = self._index.get(ident)
        if obj is None:
            self._index.walk([*self.roots, *self._index.live_variables()])
            obj = self._index.get(ident)
        if obj is None:
            self._index.walk(_namespace_variables())
            obj = self._index.get(ident)
        return obj

    def select(self, target: Any, shown: graph.GraphModel | None = None) -> None:
        """Select a node by id, by name (``'x'``, ``'f3'``) or by object; None clears."""
        with self._lock:
            if target is None:
                self.selection.clear()
                return
            model = self.live.model
            if isinstance(target, str):
                ident = self.names.find(shown or model, target)
            else:
                ident = target if isinstance(target, int) else events.uid(target)
            if ident not in model.nodes and (shown is None or ident not in shown.nodes):
                raise KeyError(f'node {ident} is not in the shown graph')
            obj = target if not isinstance(target, int | str) else self.lookup(ident)
            self.selection.choose(ident, obj)
            if obj is None:
                self.message = 'That object is gone (collected); showing recorded values.'

    def unchain_preview(self, var: Any = None, backward: bool = True) -> set[int]:
        """The ids of the functions unchaining ``var`` would cut (highlighted when drawn)."""
        with self._lock:
            var = variable_of(self.selected if var is None else var)
            cut = cut_by(self.live.model, events.uid(var), backward)
            self.selection.preview = cut
            self.message = (f'unchain{"_backward" if backward else ""}() would cut '
                            f'{len(cut)} function(s), highlighted.')
            return cut

    def unchain(self, var: Any = None, backward: bool = True) -> None:
        """Cut the graph at ``var`` (default: the selection) with ``unchain_backward()``
        or ``unchain()``; the cut edges turn dashed and a later backward stops there."""
        with self._lock:
            var = variable_of(self.selected if var is None else var)
            self.message = ''
            self.selection.preview = set()
            if backward:
                var.unchain_backward()
            else:
                var.unchain()
            self.backward.drop(self._root_id())  # a new backward must see the cut graph

    def device(self) -> str:
        """The device of the outputs' arrays (``'@numpy'`` when there are none)."""
        for v in self.roots:
            if v.array is not None:
                return str(v.device)
        return '@numpy'

    def to_device(self, device: Any) -> None:
        """Move every variable and parameter of the graph to ``device`` with
        ``Variable.to_device``.  RuntimeError (nothing moved) when the GPU is unavailable
        or a backward is half-way."""
        with self._lock:
            try:
                dev = backend.get_device(device)
            except RuntimeError as error:
                reason = backend.gpu_unavailable_reason()
                if reason is None:
                    raise
                raise RuntimeError(f'cannot move to {device}: {reason}') from error
            if self.backward.in_flight(self._root_id()) is not None and self.live.run.steps:
                raise RuntimeError('a backward is half-way: Run it to the end or Reset first')
            self.message = ''
            self._index.walk(self.roots)
            for var in self._index.live_variables():
                if var.array is not None:
                    var.to_device(dev)
            self.backward.drop(self._root_id())

    # ---- what is shown (made into a drawing by present/scenes.py) -------------------

    def _shown(self, pos: int | None, *, replay: bool = False) -> scenes.Shown:
        """What is shown at position ``pos`` (None: the live end).  A frame of the HTML
        replay (``replay``) shows no selection and no unchain preview."""
        state = self.live if pos is None else self.timeline.state_at(pos)
        state.model.refresh()
        self.names.learn(state.model)
        up = self._upcoming_at(pos, state)
        live, marks = pos is None, not replay
        return scenes.Shown(
            state=state, upcoming=up, names=self.names, root=self._root_id(),
            roots=[events.uid(r) for r in self.roots],
            position=len(self.timeline) if live else pos, length=len(self.timeline),
            live=live, replay=replay, finished=self._finished(state),
            own_run=state.run.run_id in self.backward.own_runs,
            targets=[] if replay else self._targets(state, up),
            idle=self._idle_reason() if live else None, held=self._leaf_grads,
            selected_id=self.selection.id if marks else None,
            selected=self.selection.obj if marks and live else None,
            preview=frozenset(self.selection.preview) if marks else frozenset(),
            expanded=self.expanded, predict=self.quiz.on, score=self.quiz.score.as_dict(),
            verdict=self.quiz.verdict, shown_verdict=self._shown_verdict(state),
            message=self.message, notice=self.backward.notice,
            building='' if self.code_lines is None else forward_replay.caption(
                state, self.code_lines, self.names,
                self.timeline.entries if live else self.timeline.entries[:pos]))

    def scene(self, options: dict, *, replay: bool = False) -> scenes.Scene:
        """Everything to draw at the shown position under ``options`` (``replay``: told
        as the HTML replay tells it, see :class:`~autograd_lab_widget.present.scenes.Shown`)."""
        with self._lock:
            made = scenes.scene(self._shown(self._pos, replay=replay), options, self._look,
                                self._window)
            self._window = made.frame.window
            return made

    def _shown_verdict(self, state: ViewState) -> str:
        """The verdict of the step just run in ``state`` (live or in history), if any."""
        return self.quiz.verdict_of(self._step_key(state)) if state.run.last else ''

    def _look_copy(self) -> drawing.Look:
        """The live view's look (its cell widths), copied: drawings made for elsewhere
        leave what the live view has drawn untouched."""
        return dataclasses.replace(self._look, slots=dict(self._look.slots), last=None)

    def still(self, options: dict) -> tuple[drawing.Frame, dict]:
        """The drawing of the shown position, texts included, and its status, made
        without touching what the live view has drawn (its cell sizes, its window, its
        last layout): for :meth:`to_dot` and the static picture.  A smaller
        ``options['max_nodes']`` than the live view's draws the part around the next
        function."""
        with self._lock:
            shown = self._shown(self._pos)
            window = self._window
            keep = window if window is not None and len(window) <= options['max_nodes'] \
                else None
            return scenes.draw(shown, options, self._look_copy(), keep), scenes.status(shown)

    def to_dot(self, options: dict) -> str:
        """The DOT of the picture shown, texts included (a scene's DOT is the layout the
        browser has: while only texts change it is not made again)."""
        return self.still(options)[0].dot

    def frames(self, options: dict) -> list[dict]:
        """One drawing per step boundary of the history (what the HTML replay steps
        through): ``{'dot', 'key', 'nodes', 'status', 'ledger', 'position', 'focus'}``."""
        with self._lock:
            look, end = self._look_copy(), len(self.timeline)
            made = (scenes.replay_frame(self._shown(None if pos == end else pos, replay=True),
                                        options, look)
                    for pos in self.timeline.boundaries())
            return [frame for frame in made if frame is not None]

    def panels(self, limit: int) -> dict[str, dict]:
        """Inspect panels of every node at the end of the history (at most ``limit``)."""
        with self._lock:
            state = self.timeline.state_at(len(self.timeline))
            if len(state.model.nodes) > limit:
                return {}
            state.model.refresh()
            self.names.learn(state.model)
            return {str(i): panel.payload(state, i, None, self.names) for i in state.model.nodes}

    def event_log(self) -> list[events.Event]:
        """The recorded entries of the history window (engine events and resets)."""
        return list(self.timeline.entries)

    # ---- lifetime --------------------------------------------------------------------

    @property
    def following(self) -> bool:
        """True while the model follows the engine."""
        return self._subscription is not None

    def close(self) -> None:
        """Stop following the engine and let go of the graph (it can be freed)."""
        with self._lock:
            sub, self._subscription = self._subscription, None
            if sub is not None:
                sub.unsubscribe()
            _following.discard(self)
            self.roots = []
            self.backward.stepper = None
            self.selection.let_go()

    def release(self) -> None:
        """:meth:`close`, and forget the history and what was drawn: for a view closed
        for good (IPython's output history may keep the object itself)."""
        with self._lock:
            self.close()
            self.timeline = Timeline([], ViewState())
            self._pos, self._window, self.backward.grads_before = None, None, None
            self.names, self._index = Names(), ObjectIndex()
            self._look = drawing.Look()


#: Models following the engine.  At interpreter exit they stop first: the engine then
#: announces every Variable the shutdown collects, and nothing should draw for that.
_following: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _stop_following() -> None:
    for model in list(_following):
        model.close()


def _namespace_variables() -> list:
    """Variables in the IPython user namespace (to find objects made after the view).
    Only where IPython already runs: importing it here would bring traitlets along."""
    ipython = sys.modules.get('IPython')
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return []
    return [v for v in list(shell.user_ns.values()) if isinstance(v, Variable)]
