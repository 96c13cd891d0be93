"""The kernel side of the graph view: follow the engine, step its backward, grade guesses.

:class:`StepModel` is everything a :class:`~autograd_lab_widget.GraphView` knows and
does, without any widget library: it follows the engine through its events (keeping
those that concern its graph in a :class:`~autograd_lab_widget.follow.timeline.Timeline`),
steps the engine's own :class:`~autograd_lab.BackwardStepper` (there is no second
backward for display), travels in the recorded history, runs to a breakpoint,
grades predictions, and describes what to draw (:meth:`StepModel.scene`).  The
widget adds traits and browser messages on top; the HTML replay is made from the
same model's :meth:`~StepModel.frames`.

StepModel is the hub: it holds the session's parts and gives each request to the module
whose job it is (``engine_steps``, ``travel``, ``guessing``, ``selection``, ``graph_edits``,
``following``, ``showing``, ``roots``: see the ``session`` package).

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

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from autograd_lab import Variable, events, graph

from autograd_lab_widget.follow import bounds
from autograd_lab_widget.present import drawing, ledger, scenes
from autograd_lab_widget.quiz import prediction
from autograd_lab_widget.quiz.predict_mode import PredictMode
from autograd_lab_widget.index import ObjectIndex
from autograd_lab_widget.naming import Names
from autograd_lab_widget.session import engine_steps, graph_edits, guessing, next_step, selection
from autograd_lab_widget.session.backward import Backward
from autograd_lab_widget.session.roots import as_outputs
from autograd_lab_widget.session.following import FOLLOWING, Bounds, start_history, subscribe
from autograd_lab_widget.session.selection import Selection
from autograd_lab_widget.session.showing import Showing
from autograd_lab_widget.session.travel import Travel
from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.follow.filter import EventFilter, shared_input_stays_out
from autograd_lab_widget.follow.timeline import Timeline

logger = logging.getLogger('autograd_lab_widget')


class StepModel:
    """A steppable model of the graph behind ``outputs`` (see the module docstring).

    Args mirror :class:`~autograd_lab_widget.GraphView`'s.  The model follows the
    engine until :meth:`close`; ``on_change`` (a callable, or None) is called after
    events from the engine changed the graph, so that a view can redraw.

    Its parts, one job each: ``timeline`` (the history) and ``travel`` (the position
    shown), ``backward`` (the engine backward stepped), ``quiz`` (predict mode),
    ``selection``, ``showing`` (the live drawing's look), ``bounds`` (memory), and
    ``names``; ``lock`` serialises the student's actions and the engine's events.
    """

    def __init__(self, outputs: Any = None, *, events_log: Sequence | None = None,
                 retain_grad: bool = False, enable_double_backprop: bool = False,
                 links: Any = None, history: int = bounds.HISTORY_EVENTS,
                 code_lines: Any = None) -> None:
        if isinstance(history, bool) or not isinstance(history, int) or history < 100:
            raise ValueError(f'history must be an int of at least 100 events, got {history!r}')
        self.roots = as_outputs(outputs)  # held strongly: the model must be able to step them
        self.retain_grad = bool(retain_grad)
        self.enable_double_backprop = bool(enable_double_backprop)
        self.names = Names()
        self.on_change: Callable[[], None] | None = None
        self.message = ''   # the outcome of the last action (an error, a refusal)
        self.lock = threading.RLock()
        self.index = ObjectIndex()
        self.travel = Travel(start_history(self.roots, self.index, events_log, links))
        self.code_lines = code_lines  # the forward replay's (see present.forward_replay)
        self.timeline.forward_steps = code_lines is not None
        self._filter = EventFilter(lambda ident: ident in self.timeline.live.model.nodes,
                                   shared_input_stays_out(lambda: self.live.model.nodes)
                                   if self.roots else None)
        self.backward = Backward(retain_grad=self.retain_grad,
                                 enable_double_backprop=self.enable_double_backprop)
        self.quiz = PredictMode()
        self.selection = Selection()
        self.expanded: set[str] = set()
        self.showing = Showing(self, grows=self.enable_double_backprop)
        self.bounds = Bounds(self, history)
        for e in self.timeline.entries:
            self.bounds.track(e)
        if len(self.timeline) > history:
            self.bounds.trim(len(self.timeline) - history)
        self.names.learn(self.timeline.live.model)
        self._subscription: events.Subscription | None = subscribe(self)

    @property
    def timeline(self) -> Timeline:
        """The recorded history (a checkpoint and the events after it)."""
        return self.travel.timeline

    @property
    def history(self) -> int:
        """How many events the history keeps."""
        return self.bounds.history

    @property
    def predict(self) -> bool:
        """Predict mode: a step waits for a guess (see :meth:`guess`)."""
        return self.quiz.on

    @predict.setter
    def predict(self, on: bool) -> None:
        self.quiz.on = bool(on)

    @property
    def harder(self) -> bool:
        """The harder predict mode: a guess names each step's local derivatives too
        (``guess(..., local=...)``), which the ledger then does not fill in."""
        return self.quiz.harder

    @harder.setter
    def harder(self, on: bool) -> None:
        self.quiz.harder = bool(on)

    @property
    def score(self) -> prediction.Score:
        """Predict mode's score: steps guessed right, wrong, and run without a guess."""
        return self.quiz.score

    @contextlib.contextmanager
    def action(self) -> Iterator[None]:
        """One action of the student's (Step, Back, Reset...): under the lock, and the
        outcome of the one before no longer shown."""
        with self.lock:
            self.message = ''
            yield

    # ---- following the engine (policy: session/following.py) -------------------------

    @property
    def live(self) -> ViewState:
        """The state at the live end (everything the engine did so far)."""
        return self.timeline.live

    def on_event(self, e: events.Event) -> bool:
        """Take one engine event (the subscription calls this); True if it was kept."""
        with self.lock:  # events may come from any thread
            accepted = self._filter.take(e)
            for event in accepted:
                self.backward.note_run(event, self.root_id())
                self.timeline.append(event)
                self.bounds.track(event)
            if accepted:
                self.bounds.keep()
        if accepted and self.on_change is not None:
            self.on_change()
        return bool(accepted)

    def pinned(self) -> set[int]:
        """Ids that stay however old: the outputs, the selection, the unchain preview."""
        return {events.uid(r) for r in self.roots} | self.selection.pinned()

    def forget_nodes(self, keep: set) -> None:
        """What the session keeps per node goes for nodes outside ``keep`` (pruned)."""
        self.names.forget(keep)
        self.showing.forget(keep)

    def event_log(self) -> list[events.Event]:
        """The recorded entries of the history window (engine events and resets)."""
        return list(self.timeline.entries)

    # ---- where we are ----------------------------------------------------------------

    def root_id(self) -> int | None:
        """The event id of the output backward starts from (None: no output)."""
        return events.uid(self.roots[0]) if self.roots else None

    @property
    def position(self) -> int:
        """The position shown: ``len(timeline)`` at the live end."""
        return self.travel.position

    def state(self) -> ViewState:
        """The state shown (the live one, or a replayed one in history)."""
        return self.travel.state()

    def finished(self, state: ViewState) -> bool:
        """The run shown in ``state`` is a backward from our output that ran to its end
        (a failed one did not: the engine undid it, and Step may try again)."""
        run = state.run
        return run.finished and run.ok and self.root_id() in run.roots

    def idle_reason(self) -> str | None:
        """Why there is nothing to step from the live end, or None."""
        if self._subscription is None:
            return 'Detached: this view no longer follows the engine (make a new view).'
        if not self.roots:
            return 'Nothing to step: this view has no output variable.'
        if self.roots[0].creator is None and self.backward.stepper is None:
            return 'The output has no creator (a leaf): nothing to step.'
        return None

    def upcoming(self, state: ViewState | None = None) -> ledger.Upcoming | None:
        """The function the next step runs (live: the engine's stepper; in history: the
        next step recorded), or None when there is none."""
        return self.upcoming_at(self.travel.pos, state or self.state())

    def upcoming_at(self, pos: int | None, state: ViewState) -> ledger.Upcoming | None:
        """:meth:`upcoming` at position ``pos`` (None: the live end), whose state is
        ``state``."""
        if pos is not None:
            return next_step.recorded(self.timeline, pos, state)
        stepper = self.backward.in_flight(self.root_id())
        if stepper is not None:
            return next_step.from_stepper(stepper, state)
        if self.idle_reason() is not None or self.finished(state):
            return None
        if self.backward.stepper is not None and self.backward.stepper.done:
            return None
        return next_step.first(self.roots[0], state, self.names)

    def next_targets(self) -> list[str]:
        """The names of the variables the next step sends gradients to, one per input
        slot (a variable used twice by the function is named twice): what a guess
        gives values for."""
        with self.lock:
            state = self.state()
            return self.targets(state, self.upcoming(state))

    def targets(self, state: ViewState, up: ledger.Upcoming | None) -> list[str]:
        """The names of the targets of step ``up`` in ``state``."""
        return next_step.target_names(state, up, self.names)

    # ---- stepping --------------------------------------------------------------------

    def graph_variables(self) -> list[Variable]:
        """The live Variables of the graph (walked again from the outputs)."""
        self.index.walk(self.roots)
        return list(self.index.live_variables())

    def step(self, *, confirm: bool = True) -> bool:
        """One step: the next function's backward in the engine (at the live end), or the
        next recorded step (in history).  False when there is nothing to step.
        ``confirm=False`` (the browser's Step button) asks before a backward that would
        add to grads the leaves hold (see :func:`.engine_steps.step`)."""
        return engine_steps.step(self, confirm=confirm)

    def step_engine(self) -> None:
        """Run the next step of the engine's backward (a new one if none is under way)."""
        engine_steps.step_engine(self)

    def run(self, *, confirm: bool = True) -> None:
        """Run every remaining step (the same engine stepper, announced step by step)."""
        engine_steps.run(self, confirm=confirm)

    def run_to(self, target: Any) -> bool:
        """Run backward until ``target`` (a FunctionNode, its id or its drawn name, such
        as ``'f3'``) is the next function; ValueError, and nothing run, when backward
        would never stop there."""
        return engine_steps.run_to(self, target)

    def reset(self) -> None:
        """Back to the picture from before backward (see :func:`.engine_steps.reset`):
        no stepper, the graph's grads cleared, the leaves' earlier grads given back."""
        engine_steps.reset(self)

    def back(self) -> bool:
        """Show the previous step boundary of the recorded history (time travel)."""
        with self.action():
            return self.travel.back()

    def forward(self) -> bool:
        """Show the next recorded step; at the live end, run a new :meth:`step`."""
        with self.lock:
            if self.travel.live:
                return self.step()
            self.message = ''
            return self.travel.forward()

    def show(self, pos: int) -> None:
        """Time travel to a step boundary of the history (ValueError otherwise)."""
        with self.lock:
            self.travel.show(pos)

    # ---- predict first (session/guessing.py) -----------------------------------------

    def guess(self, value: Any = None, *, local: Any = None,
              **by_name: Any) -> prediction.Verdict:
        """Predict the gradients the next step sends to its inputs; the step then runs
        in the engine and the guess is graded (:attr:`score` counts it).

        ``value`` is one number (or array-like) for a step with one target, a list with
        one value per target (see :meth:`next_targets`), a dict by name, or text of
        one of those (``'4'``, ``'cos(1)'``, ``'[1, -1]'``); names can also be keywords
        (``guess(v2=1.0, v3=-1.0)``).  A bad guess raises ValueError and runs nothing.
        In history (after Back) the guess is for the recorded step that comes next,
        and moves one step on: a retry of a step already graded shows its verdict, but
        the score keeps the first try.  In the harder mode (:attr:`harder`) ``local``
        gives the local derivatives too, one per target, in the same forms; the step is
        right only when they and the grads are.
        """
        with self.action():
            return guessing.guess(self, value, local=local, **by_name)

    # ---- selection, unchain, devices (session/graph_edits.py) -------------------------

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
        return selection.lookup(self, ident)

    def select(self, target: Any, shown: graph.GraphModel | None = None) -> None:
        """Select a node by id, by name (``'x'``, ``'f3'``) or by object; None clears."""
        with self.lock:
            selection.select(self, target, shown)

    def unchain_preview(self, var: Any = None, backward: bool = True) -> set[int]:
        """The ids of the functions unchaining ``var`` would cut (highlighted when drawn)."""
        return graph_edits.unchain_preview(self, var, backward)

    def unchain(self, var: Any = None, backward: bool = True) -> None:
        """Cut the graph at ``var`` (default: the selection) with ``unchain_backward()``
        or ``unchain()``; the cut edges turn dashed and a later backward stops there."""
        graph_edits.unchain(self, var, backward)

    def device(self) -> str:
        """The device of the outputs' arrays (``'@numpy'`` when there are none)."""
        return graph_edits.device(self)

    def to_device(self, device: Any) -> None:
        """Move every variable and parameter of the graph to ``device`` with
        ``Variable.to_device``.  RuntimeError (nothing moved) when the GPU is unavailable
        or a backward is half-way."""
        graph_edits.to_device(self, device)

    # ---- what is shown (session/showing.py, drawn by present/) -----------------------

    def scene(self, options: dict, *, replay: bool = False) -> scenes.Scene:
        """Everything to draw at the shown position under ``options`` (``replay``: told
        as the HTML replay tells it, see :class:`~autograd_lab_widget.present.scenes.Shown`)."""
        with self.lock:
            return self.showing.scene(options, replay=replay)

    def still(self, options: dict) -> tuple[drawing.Frame, dict]:
        """The drawing of the shown position, texts included, and its status, made
        without touching what the live view has drawn (its cell sizes, its window, its
        last layout): for :meth:`to_dot` and the static picture.  A smaller
        ``options['max_nodes']`` than the live view's draws the part around the next
        function."""
        with self.lock:
            return self.showing.still(options)

    def to_dot(self, options: dict) -> str:
        """The DOT of the picture shown, texts included (a scene's DOT is the layout the
        browser has: while only texts change it is not made again)."""
        return self.still(options)[0].dot

    def frames(self, options: dict) -> list[dict]:
        """One drawing per step boundary of the history (what the HTML replay steps
        through): ``{'dot', 'key', 'nodes', 'status', 'ledger', 'position', 'focus'}``."""
        with self.lock:
            return self.showing.frames(options)

    def panels(self, limit: int) -> dict[str, dict]:
        """Inspect panels of every node at the end of the history (at most ``limit``)."""
        with self.lock:
            return self.showing.panels(limit)

    # ---- lifetime --------------------------------------------------------------------

    @property
    def following(self) -> bool:
        """True while the model follows the engine."""
        return self._subscription is not None

    def close(self) -> None:
        """Stop following the engine and let go of the graph (it can be freed)."""
        with self.lock:
            sub, self._subscription = self._subscription, None
            if sub is not None:
                sub.unsubscribe()
            FOLLOWING.discard(self)
            self.roots = []
            self.backward.stepper = None
            self.selection.let_go()

    def release(self) -> None:
        """:meth:`close`, and forget the history and what was drawn: for a view closed
        for good (IPython's output history may keep the object itself)."""
        with self.lock:
            self.close()
            self.travel = Travel(Timeline([], ViewState()))
            self.backward.grads_before = None
            self.names, self.index = Names(), ObjectIndex()
            self.showing = Showing(self)

