"""GraphView: the live graph widget (anywidget).

The view follows the engine through events (``autograd_lab.events``), keeps the
events that concern its graph in a log, and draws the graph model
(``autograd_lab.graph``) as DOT that the browser lays out with Graphviz/WASM.
Stepping is the engine's own backward, paused: :meth:`GraphView.step` calls
:meth:`autograd_lab.BackwardStepper.step`, and the view learns what happened from the
events that step emits (there is no second backward implementation here).

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array(3.0), name='x')
>>> y = x ** 2 - 2 * x + 1
>>> view = GraphView(y)
>>> view.step()            # the first function's backward ran
True
>>> view.run()             # and the rest
>>> x.grad, view.status['done']
(array(4.), True)
>>> view.close()
"""

from __future__ import annotations

import asyncio
import json
import logging
import pathlib
import pickle
import threading
import time
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import anywidget
import numpy
import traitlets

from autograd_lab import BackwardStepper, Variable, backend, events, graph

from autograd_lab_widget import arrays, bounds, drawing, history, messages, panel
from autograd_lab_widget.index import ObjectIndex

logger = logging.getLogger('autograd_lab_widget')

BUNDLE = pathlib.Path(__file__).parent / 'static' / 'graph_view.js'

#: Seconds between two redraws caused by engine events (explicit actions redraw at once).
THROTTLE_S = 0.1
#: A redraw caused by events waits at least this many times as long as the last one took,
#: so that a view following a training loop costs it at most about 1/(1+REDRAW_SPACING).
REDRAW_SPACING = 4
#: Most VariableCreated events held while waiting to learn whether they join the graph.
MAX_PENDING = 10_000


class WidgetWarning(UserWarning):
    """A message from the browser was malformed or could not be acted on."""


def _warn(text: str) -> None:
    logger.warning(text)
    warnings.warn(text, WidgetWarning, stacklevel=3)


def _as_list(outputs: Any) -> list:
    if outputs is None:
        return []
    if isinstance(outputs, Variable):
        return [outputs]
    out = list(outputs)
    for v in out:
        if not isinstance(v, Variable):
            raise TypeError(f'GraphView shows Variables, got {type(v).__name__}')
    return out


class GraphView(anywidget.AnyWidget):
    """A live, steppable view of the computational graph behind ``outputs``.

    Args:
        outputs: a Variable or a list of Variables; backward is stepped from the first.
        events_log: events recorded earlier (the ``%%autograd_lab`` magic passes the
            cell's events); the graph is then replayed from them.
        retain_grad / enable_double_backprop: passed to the engine's backward.
        height: pixel height of the drawing area (fixed; zoom and pan inside).
        options: initial drawing options (see ``drawing.DEFAULT_OPTIONS``).
        links: the model (a Link or several) that built the graph: its Link paths group
            the nodes, and big graphs are collapsed per Link before layout.
        history: how many recent events the view keeps for Back/Forward (default
            ``bounds.HISTORY_EVENTS``, 10,000); older ones are folded into a checkpoint.

    Memory stays bounded however long the view stays open (see ``bounds``): the event
    history is a window of the latest ``history`` events, time travel reaches back to
    its start, and nodes no live variable can reach any more (an old training step's
    graph once its loss is gone) are dropped; the outputs shown and Parameters stay.
    """

    # The bundle's text, not its path: anywidget watches a path for changes and the
    # watcher's callback keeps every instance (and so its graph) alive forever.
    _esm = BUNDLE.read_text(encoding='utf-8')

    dot = traitlets.Unicode('').tag(sync=True)
    structure_key = traitlets.Unicode('').tag(sync=True)
    node_info = traitlets.Dict().tag(sync=True)
    node_labels = traitlets.Dict().tag(sync=True)
    status = traitlets.Dict().tag(sync=True)
    panel = traitlets.Dict().tag(sync=True)
    options = traitlets.Dict().tag(sync=True)
    orders = traitlets.List().tag(sync=True)
    predict = traitlets.Bool(False).tag(sync=True)
    height = traitlets.Int(480, min=messages.MIN_HEIGHT, max=messages.MAX_HEIGHT).tag(sync=True)
    device = traitlets.Unicode('@numpy').tag(sync=True)
    gpu_available = traitlets.Bool(False).tag(sync=True)
    gpu_reason = traitlets.Unicode('').tag(sync=True)
    selected_id = traitlets.Int(None, allow_none=True, min=1).tag(sync=True)
    position = traitlets.Int(0, min=0).tag(sync=True)

    def __init__(self, outputs: Any = None, *, events_log: Sequence | None = None,
                 retain_grad: bool = False, enable_double_backprop: bool = False,
                 height: int = 480, options: dict | None = None, links: Any = None,
                 history: int = bounds.HISTORY_EVENTS, **kwargs: Any) -> None:
        if isinstance(history, bool) or not isinstance(history, int) or history < 100:
            raise ValueError(f'history must be an int of at least 100 events, got {history!r}')
        super().__init__(**kwargs)
        self._history = history
        self._open_runs: set[int] = set()  # backward runs begun and not finished (live end)
        self._base_runs: set[int] = set()  # the same, at the checkpoint (the window start)
        self._roots = _as_list(outputs)  # held strongly: the view must be able to step them
        self._retain_grad = bool(retain_grad)
        self._double = bool(enable_double_backprop)
        self._index = ObjectIndex()
        self._index.walk(self._roots)
        self._scopes: dict[int, str] = {}
        if events_log is not None:
            self._base: graph.GraphModel | None = None  # replay from an empty graph
            self._log: list = list(events_log)
            self._live = graph.GraphModel.from_events(self._log)
            if links is not None and self._roots:
                # parameters made before the recording have no event: their Link path
                # (and so their place in a collapsed Link) comes from the links
                walked = graph.GraphModel.from_outputs(self._roots, links=links, log=self._log)
                self._scopes = {i: n.scope for i, n in walked.nodes.items() if n.scope}
                self._patch_scopes(self._live)
        else:
            self._base = graph.GraphModel.from_outputs(self._roots, links=links) \
                if self._roots else graph.GraphModel()
            self._log = []
            self._live = pickle.loads(pickle.dumps(self._base, pickle.HIGHEST_PROTOCOL))
        self._base_blob: bytes | None = None
        self._pending_vars: dict[int, Any] = {}
        self._runs: set[int] = set()
        self._stepper: BackwardStepper | None = None
        self._stepped = False
        self._resets: list[int] = []
        self._pos: int | None = None  # None: the live end
        self._pending_guess: tuple | None = None  # (started event, done event)
        self._feedback = ''
        self._message = ''
        self._selected_ref: Any = None
        self._preview: set[int] = set()
        self._expanded: set[str] = set()
        self._window: frozenset | None = None  # the drawn part of a graph too big to draw
        self._timer = False
        self._last_draw = 0.0
        self._dirty = False
        self._busy = False
        self._lock = threading.RLock()
        self._redraw_cost = 0.0
        self._appended = 0  # events ever added to the log (positions shift when it is trimmed)
        self._prune_at = bounds.next_prune_at(len(self._live.nodes))
        for e in self._log:
            self._track_run(e, self._open_runs)
        if len(self._log) > self._history:
            self._trim(len(self._log) - self._history)
        try:  # the kernel's loop, to which engine threads hand redraws
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self.height = int(height)
        opts = dict(drawing.DEFAULT_OPTIONS)
        opts.update(messages.parse_options(options or {}))
        self.options = opts
        reason = backend.gpu_unavailable_reason()
        self.gpu_available = reason is None
        self.gpu_reason = reason or ''
        self.device = self._current_device()
        me = weakref.ref(self)

        def listener(event: events.Event) -> None:
            view = me()
            if view is None:  # the view was dropped: stop listening
                sub.unsubscribe()
                return
            view._on_event(event)

        sub = events.subscribe(listener)
        self._subscription = sub
        self.on_msg(self._on_browser_msg)
        self.refresh()
        _remember_live(self)

    # ---- following the engine --------------------------------------------------------

    def _known(self, ident: Any) -> bool:
        return ident in self._live.nodes

    def _accept(self, e: events.Event) -> list:
        """The events to record for ``e``: [] when it does not concern this graph."""
        kind = e.kind
        if kind == 'variable_collected':  # a variable we were waiting on is gone
            self._pending_vars.pop(e.var_id, None)
        if kind == 'variable_created':
            if not self._known(e.var_id):
                self._pending_vars[e.var_id] = e
                if len(self._pending_vars) > MAX_PENDING:
                    self._pending_vars.pop(next(iter(self._pending_vars)))
                return []
            return [e]
        if kind == 'function_applied':
            if not (any(self._known(i) for i in e.input_ids) or self._known(e.in_backward_of)):
                return []
            ids = (*e.input_ids, *e.output_ids)
            held = [self._pending_vars.pop(i) for i in dict.fromkeys(ids)
                    if i in self._pending_vars and not self._known(i)]
            return sorted(held, key=lambda v: v.seq) + [e]
        if kind == 'backward_started':
            if any(self._known(i) for i in e.root_ids):
                self._runs.add(e.run_id)
                return [e]
            return []
        if kind in ('backward_step_started', 'backward_step_done'):
            return [e] if e.run_id in self._runs else []
        if kind == 'backward_finished':
            if e.run_id in self._runs:
                self._runs.discard(e.run_id)  # no more events of this run will come
                return [e]
            return []
        if kind == 'unchained':
            ids = (e.root_id, *e.var_ids, *e.func_ids)
            return [e] if any(self._known(i) for i in ids) else []
        ident = getattr(e, 'var_id', None)
        return [e] if ident is not None and self._known(ident) else []

    def _on_event(self, e: events.Event) -> None:
        with self._lock:  # events may come from any thread
            accepted = self._accept(e)
            self._appended += len(accepted)
            for event in accepted:
                self._log.append(event)
                self._live.apply(event)
                self._track_run(event, self._open_runs)
            if accepted:
                self._keep_bounds()
        if accepted and not self._busy:
            self._schedule()

    # ---- bounded memory (policy: see the ``bounds`` module) ------------------------------

    @staticmethod
    def _track_run(e: events.Event, runs: set[int]) -> None:
        if e.kind == 'backward_started':
            runs.add(e.run_id)
        elif e.kind == 'backward_finished':
            runs.discard(e.run_id)

    def _pinned(self) -> set[int]:
        pinned = {events.uid(r) for r in self._roots} | self._preview
        if self.selected_id is not None:
            pinned.add(self.selected_id)
        return pinned

    def _keep_bounds(self) -> None:
        """Fold old events into the checkpoint and drop dead nodes when due (amortised)."""
        if len(self._log) > bounds.trim_at(self._history):
            self._trim(len(self._log) - self._history)
        size = len(self._live.nodes)
        if size > self._prune_at and (not self._open_runs
                                      or size > bounds.PRUNE_FORCE * self._prune_at):
            self._live = bounds.prune(self._live, self._pinned())
            self._prune_at = bounds.next_prune_at(len(self._live.nodes))

    def _trim(self, k: int) -> None:
        """Drop the oldest ``k`` events: they move into the checkpoint model."""
        dropped = self._log[:k]
        del self._log[:k]
        base = self._base if self._base is not None else graph.GraphModel()
        for e in dropped:
            base.apply(e)
            self._track_run(e, self._base_runs)
        # the checkpoint is bounded like the live model (a run left half-way for good, an
        # abandoned stepper, must not stop that for ever)
        if not self._base_runs or len(base.nodes) > bounds.PRUNE_FORCE * self._prune_at:
            base = bounds.prune(base, self._pinned())
        self._base = base
        self._base_blob = None
        if self._pos is not None:
            self._pos = max(self._pos - k, 0)
        self._resets = [max(r - k, 0) for r in self._resets]
        if self._pending_guess is not None and any(e is self._pending_guess[0] for e in dropped):
            self._feedback = 'Revealed without a guess (that step left the history window).'
            self._finish_guess()

    def _schedule(self) -> None:
        """Redraw soon: at most every THROTTLE_S (or REDRAW_SPACING times the last redraw's
        cost, if longer), after the running cell when in a kernel."""
        if self._timer:
            return
        delay = max(THROTTLE_S, REDRAW_SPACING * self._redraw_cost)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        loop = running or self._loop
        if loop is not None and not loop.is_closed():
            self._timer = True
            if running is not None:
                loop.call_later(delay, self._timer_fired)
            else:  # an engine thread: hand the redraw to the kernel's loop
                loop.call_soon_threadsafe(loop.call_later, delay, self._timer_fired)
        elif time.monotonic() - self._last_draw >= delay:
            self.refresh()
        else:
            self._dirty = True

    def _timer_fired(self) -> None:
        self._timer = False
        self.refresh()

    # ---- drawing -------------------------------------------------------------------------

    def _patch_scopes(self, model: graph.GraphModel) -> graph.GraphModel:
        for ident, scope in self._scopes.items():
            node = model.nodes.get(ident)
            if node is not None and not node.scope:
                node.scope = scope
        return model

    def _frame_model(self, pos: int) -> graph.GraphModel:
        """The graph at position ``pos`` of the window: the checkpoint replayed up to it."""
        if self._base is None:  # a replayed log not trimmed yet: from an empty graph
            model = graph.GraphModel()
        else:
            if self._base_blob is None:  # a pickled copy restores ~twice as fast as deepcopy
                self._base_blob = pickle.dumps(self._base, protocol=pickle.HIGHEST_PROTOCOL)
            model = pickle.loads(self._base_blob)  # our own bytes, never external data
        for e in self._log[:pos]:
            model.apply(e)
        return self._patch_scopes(model)

    def _shown_position(self) -> int:
        if self._pending_guess is not None:
            return self._log.index(self._pending_guess[0]) + 1
        return len(self._log) if self._pos is None else self._pos

    def _live_info(self) -> dict | None:
        if self._pos is not None or self._pending_guess is not None:
            return None
        stepper = self._stepper
        info = {'started': self._stepped, 'done': False, 'next_id': None}
        if not self._roots:
            info.update(done=True, idle='Nothing to step: this view has no output variable.')
            return info
        if self._roots[0].creator is None and stepper is None:
            info.update(done=True, idle='The output has no creator (a leaf): nothing to step.')
            return info
        if stepper is None:
            return info
        if stepper.done:
            info['done'] = True
            return info
        func = stepper.next_function
        outputs = [ref() for ref in func.outputs or ()]
        info.update(next_id=events.uid(func), reason=stepper.why_next(),
                    frontier_ids=[events.uid(f) for f in stepper.frontier],
                    grad_outputs=[None if n is None else events.snapshot(
                        _raw(stepper.pending_grad(n))) for n in outputs])
        return info

    def _roles(self, model: graph.GraphModel, st: dict) -> dict[int, str]:
        opts = self.options
        roles: dict[int, str] = {}
        for i in drawing.search_hits(model, opts['search']):
            roles[i] = 'search'
        sel = self.selected_id
        if sel is not None and sel in model.nodes and opts['highlight_direction'] != 'none':
            up = opts['highlight_direction'] == 'up'
            for i in (model.upstream(sel) if up else model.downstream(sel)):
                roles[i] = 'upstream' if up else 'downstream'
        for i in self._preview:
            roles[i] = 'cut'
        if sel is not None:
            roles[sel] = 'selected'
        nxt = st.get('next_id')
        if nxt is not None:
            roles[nxt] = 'next'
        return {i: r for i, r in roles.items() if i in model.nodes}

    def refresh(self) -> None:
        """Redraw now: DOT, node classes, status and panel traits from the shown position."""
        with self._lock:
            self._refresh()

    def _refresh(self) -> None:
        began = time.monotonic()
        self._timer = self._dirty = False
        pos = self._shown_position()
        live = pos == len(self._log)
        model = self._live if live else self._frame_model(pos)
        model.refresh()
        st = history.status(model, self._log, pos, live=self._live_info(), resets=self._resets,
                            pending=self._pending_guess)
        st['feedback'] = self._feedback
        st['message'] = self._message
        st['predict'] = self.predict
        st['live'] = live
        roots = [events.uid(r) for r in self._roots if events.uid(r) in model.nodes]
        focus = [i for i in (st.get('next_id'), self.selected_id) if i is not None]
        frame = drawing.draw(model, self.options, roots=roots, roles=self._roles(model, st),
                             expanded=self._expanded, focus=focus, keep=self._window)
        self._window = frame.window
        if frame.window is not None:
            st['text'] += (f'  [{frame.shown} of {frame.total} nodes drawn: the part around '
                           'the next function; use depth/search/select to look elsewhere]')
        elif frame.shown < frame.total:
            st['text'] += (f'  [{frame.shown} of {frame.total} nodes drawn one by one'
                           + (f', {frame.links} Links collapsed (click one to expand)'
                              if frame.links else '') + ']')
        self.orders = sorted({n.order for n in model.nodes.values()} | {0})
        with self.hold_sync():
            self.position = pos
            self.status = st
            self.node_info = frame.node_classes
            self.node_labels = frame.node_labels
            self.structure_key = frame.key
            self.dot = frame.dot
            self._update_panel(model)
        self._model_shown = model
        self._last_draw = time.monotonic()
        self._redraw_cost = self._last_draw - began

    def _update_panel(self, model: graph.GraphModel) -> None:
        sel = self.selected_id
        if sel is None or sel not in model.nodes:
            self.panel = {} if sel is None else {
                'id': sel, 'title': f'#{sel}', 'rows': [],
                'note': 'This node is not part of the graph at this point in the history.'}
            return
        hidden = (self._pending_guess is not None
                  and sel in self._pending_guess[1].target_input_ids)
        if model is self._live:
            self.panel = panel.payload(model, sel, self.selected, hidden=hidden)
        else:
            body = panel.payload(model, sel, None, hidden=hidden)
            body['note'] = 'History: values as recorded at this step (Forward to return).'
            self.panel = body

    # ---- stepping --------------------------------------------------------------------

    def _ensure_stepper(self) -> BackwardStepper | None:
        if self._stepper is None:
            if not self._roots:
                raise RuntimeError('this view has no output variable to run backward from')
            self._stepper = BackwardStepper.for_backward(
                [self._roots[0]], retain_grad=self._retain_grad,
                enable_double_backprop=self._double)
        return self._stepper

    def _act(self, fn: Any) -> Any:
        """Run an engine action with redraws held until it is over, then redraw once."""
        self._busy = True
        self._message = ''
        try:
            return fn()
        finally:
            self._busy = False
            self.refresh()

    def _finish_guess(self) -> None:
        self._pending_guess = None

    def step(self) -> bool:
        """Run the next function's backward (the engine's stepper); False when finished.

        In "predict first" mode the result is recorded but hidden until :meth:`guess`.
        """
        def do() -> bool:
            self._pos = None
            if self._pending_guess is not None:
                self._feedback = 'Revealed without a guess.'
                self._finish_guess()
                return True
            stepper = self._ensure_stepper()
            if stepper.done:
                return False
            before = self._appended
            stepper.step()
            self._stepped = True
            if self.predict:
                new = self._log[max(len(self._log) - (self._appended - before), 0):]
                started = next((e for e in new if e.kind == 'backward_step_started'), None)
                done = next((e for e in new if e.kind == 'backward_step_done'), None)
                if started is not None and done is not None and done.target_input_ids:
                    self._pending_guess = (started, done)
                    self._feedback = ''
            return True
        return self._act(do)

    def run(self) -> None:
        """Run every remaining step (the engine's stepper again, announced step by step)."""
        def do() -> None:
            self._pos = None
            self._finish_guess()
            stepper = self._ensure_stepper()
            stepper.run()
            self._stepped = True
        self._act(do)

    def back(self) -> bool:
        """Show the previous step boundary of the recorded history (time travel)."""
        def do() -> bool:
            self._finish_guess()
            pos = self._shown_position()
            earlier = [b for b in history.boundaries(self._log) if b < pos]
            if not earlier:
                return False
            self._pos = earlier[-1]
            return True
        return self._act(do)

    def forward(self) -> bool:
        """Show the next recorded step; at the live end, run a new :meth:`step`."""
        if self._pos is None and self._pending_guess is None:
            return self.step()

        def do() -> bool:
            if self._pending_guess is not None:
                self._finish_guess()
                return True
            later = [b for b in history.boundaries(self._log) if b > self._pos]
            self._pos = None if not later or later[0] >= len(self._log) else later[0]
            return True
        return self._act(do)

    def reset(self) -> None:
        """Start over: clear the grads of every live variable of the shown graph (the
        leaves' accumulated grads included), drop the stepper so that the next step starts
        a fresh backward, and return to the live end.  The event log is kept, so Back can
        still visit the history from before the reset.
        """
        def do() -> None:
            self._pos = None
            self._finish_guess()
            self._feedback = ''
            self._index.walk(self._roots)
            for var in self._index.live_variables():
                var.cleargrad()
            self._stepper = None
            self._stepped = False
            self._resets.append(len(self._log))
        self._act(do)

    def guess(self, value: Any) -> str:
        """Check a guess for the hidden step's gradient(s); returns the feedback text.

        ``value`` is a number, a nested list, or text of one (``'4'``, ``'[1, 2]'``), or a
        list with one entry per input that receives a gradient.
        """
        if self._pending_guess is None:
            raise RuntimeError('no gradient is waiting for a guess (turn on predict mode '
                               'and Step)')
        _, done = self._pending_guess
        guesses = _parse_guess(value)
        actual = [g for g in done.grad_inputs]
        if len(actual) > 1 and isinstance(guesses, list) and len(guesses) == len(actual):
            pairs = list(zip(guesses, actual))
        else:
            pairs = [(guesses, actual[0])] if len(actual) == 1 else \
                [(guesses, a) for a in actual]
        ok = all(_close(g, a) for g, a in pairs)
        names = [history.name_of(self._live, i) for i in done.target_input_ids]
        truth = '; '.join(f'{n}: {arrays.as_text(a)}' for n, a in zip(names, actual))
        self._feedback = (f'Correct! {truth}' if ok else f'Not quite. The engine computed {truth}')

        def do() -> None:
            self._finish_guess()
        self._act(do)
        return self._feedback

    # ---- selection, unchain, devices ---------------------------------------------------

    @property
    def selected(self) -> Any:
        """The live Variable (or FunctionNode) clicked in the browser, or None.

        When the Variable object was garbage-collected but its node lives on in the graph,
        this is its VariableNode.
        """
        return None if self._selected_ref is None else self._selected_ref()

    def _lookup(self, ident: int) -> Any:
        obj = self._index.get(ident)
        if obj is None:
            self._index.walk([*self._roots, *self._index.live_variables()])
            obj = self._index.get(ident)
        if obj is None:
            self._index.walk(_namespace_variables())
            obj = self._index.get(ident)
        return obj

    def select(self, target: Any) -> None:
        """Select a node by id (int) or by object (Variable / FunctionNode), or None."""
        if target is None:
            self._selected_ref = None
            self.selected_id = None
            self._preview = set()
            self.refresh()
            return
        ident = target if isinstance(target, int) else events.uid(target)
        shown = getattr(self, '_model_shown', self._live)
        if ident not in shown.nodes and ident not in self._live.nodes:
            raise KeyError(f'node {ident} is not in the shown graph')
        obj = target if not isinstance(target, int) else self._lookup(ident)
        self._selected_ref = None if obj is None else weakref.ref(obj)
        self.selected_id = ident
        self._preview = set()
        if obj is None:
            self._message = 'That object is gone (collected); showing recorded values.'
        self.refresh()

    def _selected_variable(self, var: Any) -> Variable:
        var = self.selected if var is None else var
        if var is None:
            raise ValueError('select a variable first (click one, or pass it)')
        if not isinstance(var, Variable):
            getter = getattr(var, 'get_variable', None)
            if getter is None:
                raise TypeError(f'unchain works on a variable, not a {type(var).__name__}')
            var = getter()
        return var

    def unchain_preview(self, var: Any = None, backward: bool = True) -> set[int]:
        """Highlight (and return the ids of) what unchaining ``var`` would cut."""
        var = self._selected_variable(var)
        ident = events.uid(var)
        model = self._live
        if ident not in model.nodes:
            raise KeyError(f'variable {ident} is not in the shown graph')
        if backward:
            cut = {i for i in model.upstream(ident) if model.nodes[i].category == 'function'}
        else:
            creator = model.nodes[ident].creator_id
            cut = {creator} if creator is not None else set()
        self._preview = cut
        self._message = (f'unchain{"_backward" if backward else ""}() would cut '
                         f'{len(cut)} function(s), highlighted.')
        self.refresh()
        return cut

    def unchain(self, var: Any = None, backward: bool = True) -> None:
        """Cut the graph at ``var`` (default: the selection) with ``unchain_backward()``
        (``backward=True``) or ``unchain()``; the cut edges turn dashed and a later
        backward stops there.
        """
        var = self._selected_variable(var)

        def do() -> None:
            self._preview = set()
            if backward:
                var.unchain_backward()
            else:
                var.unchain()
            self._stepper = None  # a new backward must see the cut graph
        self._act(do)

    def _current_device(self) -> str:
        for v in self._roots:
            if v.array is not None:
                return str(v.device)
        return '@numpy'

    def to_device(self, device: Any) -> None:
        """Move every variable and parameter of the shown graph to ``device``
        (``'@numpy'``, ``'@cupy:0'``, ...) with ``Variable.to_device``.

        Raises RuntimeError (and changes nothing) when the GPU is unavailable or a
        backward is half-way (finish or reset it first).
        """
        try:
            dev = backend.get_device(device)
        except RuntimeError as error:
            reason = backend.gpu_unavailable_reason()
            if reason is None:
                raise
            raise RuntimeError(f'cannot move to {device}: {reason}') from error
        if self._stepper is not None and not self._stepper.done and self._stepped:
            raise RuntimeError('a backward is half-way: Run it to the end or Reset first')

        def do() -> None:
            self._index.walk(self._roots)
            for var in self._index.live_variables():
                if var.array is not None:
                    var.to_device(dev)
            self._stepper = None
            self.device = str(dev)
        self._act(do)

    # ---- messages from the browser -----------------------------------------------------

    def _on_browser_msg(self, _widget: Any, content: Any, _buffers: Any = None) -> None:
        """Validate and act on one browser message; problems become logged warnings."""
        try:
            kind, payload = messages.parse(content)
        except messages.BadMessage as error:
            _warn(f'ignored a malformed message from the browser: {error}')
            return
        try:
            self._dispatch(kind, payload)
        except Exception as error:  # never let a click raise into the kernel
            self._message = f'{type(error).__name__}: {error}'
            _warn(f'could not do {kind} {payload!r:.80}: {error}')
            self.refresh()

    def _dispatch(self, kind: str, payload: Any) -> None:
        if kind == 'select':
            self.select(payload)
        elif kind == 'expand':
            shown = getattr(self, '_model_shown', self._live)
            scopes = {n.scope for n in shown.nodes.values() if n.scope}
            if not any(s == payload or s.startswith(payload + '/') for s in scopes):
                raise KeyError(f'no Link {payload!r} in the graph')
            self._expanded.add(payload)
            self.refresh()
        elif kind == 'more':
            opts = dict(self.options)
            opts['max_nodes'] = min(opts['max_nodes'] * 2, 5000)
            self.options = opts
            self.refresh()
        elif kind == 'guess':
            self.guess(payload)
        elif kind == 'options':
            opts = dict(self.options)
            opts.update(payload)
            self.options = opts
            self.refresh()
        elif kind == 'action':
            self._do_action(payload)

    def _do_action(self, action: str) -> None:
        simple = {'step': self.step, 'run': self.run, 'back': self.back,
                  'forward': self.forward, 'reset': self.reset}
        if action in simple:
            simple[action]()
        elif action == 'predict':
            self.predict = not self.predict
            if not self.predict:
                self._finish_guess()
            self.refresh()
        elif action == 'unchain':
            self.unchain()
        elif action == 'unchain-preview':
            self.unchain_preview()
        elif action == 'device':
            if not self.gpu_available and self.device == '@numpy':
                raise RuntimeError(f'GPU unavailable: {self.gpu_reason}')
            self.to_device('@numpy' if self.device != '@numpy' else '@cupy:0')
        elif action == 'export-log':
            self.send({'type': 'download', 'filename': 'autograd_lab_events.json',
                       'mime': 'application/json', 'content': self.event_log_json()})
        elif action == 'export-html':
            from autograd_lab_widget.replay import replay_html  # noqa: PLC0415 - on demand
            self.send({'type': 'download', 'filename': 'autograd_lab_replay.html',
                       'mime': 'text/html', 'content': replay_html(self)})

    @traitlets.validate('options')
    def _check_options(self, proposal: Any) -> dict:
        """Options are checked, and merged over the current ones (every key stays set)."""
        try:
            checked = messages.parse_options(proposal['value'])
        except messages.BadMessage as error:
            raise traitlets.TraitError(f'bad drawing options: {error}') from error
        return {**drawing.DEFAULT_OPTIONS, **self.options, **checked}

    def set_state(self, sync_data: Any) -> None:
        """Synced traits written by the browser (ipywidgets' 'update' message), checked.

        Our front end only sends messages, but a stale or hostile one can write traits.
        Only ``messages.BROWSER_WRITABLE`` traits are taken, each checked like the
        corresponding message and acted on the same way (options merged and redrawn, a
        selection selected, a position shown); anything else is ignored with a logged
        warning, the previous value kept and the browser's copy set back to it.  Nothing
        raises into the kernel's comm handler.
        """
        if not isinstance(sync_data, dict):
            _warn(f'ignored a state update from the browser that is not an object: '
                  f'{type(sync_data).__name__}')
            return
        for name, value in sync_data.items():
            try:
                self._set_from_browser(name, messages.parse_state(name, value))
            except Exception as error:  # never let the browser raise into the kernel
                _warn(f'ignored the browser setting {name!r:.40} to {value!r:.60}: {error}')
                if name in self.keys:
                    try:
                        self.send_state(name)  # put the browser's copy back in line
                    except Exception as resend:  # a closed comm: nothing to correct
                        logger.debug('could not resend %s: %s', name, resend)

    def _set_from_browser(self, name: str, value: Any) -> None:
        if name == 'options':
            self._dispatch('options', value)
        elif name == 'height':
            self.height = value
        elif name == 'selected_id':
            if value != self.selected_id:
                self.select(value)  # KeyError when the node is not in the graph
        elif name == 'position':
            self._show_position(value)
        elif name == 'predict' and value != self.predict:
            self._do_action('predict')

    def _show_position(self, pos: int) -> None:
        """Time travel to a step boundary of the history window (ValueError otherwise)."""
        if pos == self._shown_position():
            return
        if pos not in history.boundaries(self._log):
            raise ValueError(f'position {pos} is not a step boundary of the history '
                             f'(0 to {len(self._log)})')

        def do() -> None:
            self._finish_guess()
            self._pos = None if pos == len(self._log) else pos
        self._act(do)

    # ---- export, docking, lifetime ------------------------------------------------------

    def event_log(self) -> list[dict]:
        """The recorded events as JSON-ready dicts (arrays as lists, summaries as dicts)."""
        return [_event_dict(e) for e in self._log]

    def event_log_json(self) -> str:
        """:meth:`event_log` as JSON text."""
        return json.dumps(self.event_log(), indent=1)

    def to_html(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write a self-contained HTML replay (bundle inlined, one DOT frame per step)."""
        from autograd_lab_widget.replay import replay_html  # noqa: PLC0415 - on demand
        path = pathlib.Path(path)
        path.write_text(replay_html(self), encoding='utf-8')
        return path

    def frames(self) -> list[dict]:
        """One drawing per step boundary of the history: ``{'dot', 'status', 'position'}``."""
        out = []
        keep = None
        for pos in history.boundaries(self._log):
            model = self._frame_model(pos)
            if not model.nodes and pos < len(self._log):
                continue  # before a recorded cell ran: nothing to draw yet
            model.refresh()
            st = history.status(model, self._log, pos, live=None, resets=self._resets)
            roots = [events.uid(r) for r in self._roots if events.uid(r) in model.nodes]
            nxt = st.get('next_id')
            roles = {nxt: 'next'} if nxt in model.nodes else {}
            frame = drawing.draw(model, self.options, roots=roots, roles=roles,
                                 focus=[nxt] if nxt is not None else [], keep=keep)
            keep = frame.window
            out.append({'dot': frame.dot, 'key': frame.key, 'node_info': frame.node_classes,
                        'node_labels': frame.node_labels, 'status': st, 'position': pos})
        return out

    def dock(self, title: str = 'autograd_lab graph', anchor: str = 'split-right') -> Any:
        """Show the view in a JupyterLab side panel (needs the ``sidecar`` package)."""
        try:
            from sidecar import Sidecar  # noqa: PLC0415 - optional
        except ImportError as error:
            raise RuntimeError('docking needs the sidecar package: pip install sidecar '
                               '(included in autograd-lab[notebook])') from error
        from IPython.display import display  # noqa: PLC0415

        side = Sidecar(title=title, anchor=anchor)
        with side:
            display(self)
        return side

    def detach(self) -> None:
        """Stop following the engine and let go of the graph (the drawing stays as it is).

        Views hold their outputs so that they can step them; in a notebook whose cells are
        re-run, the oldest views beyond ``MAX_LIVE_VIEWS`` are detached automatically so
        that old graphs can be freed.
        """
        sub = getattr(self, '_subscription', None)
        if sub is not None:
            sub.unsubscribe()
            self._subscription = None
        self._roots = []
        self._stepper = None
        self._selected_ref = None
        if getattr(self, 'comm', None) is not None:
            self._message = 'Detached: this view no longer follows the engine.'
            self.refresh()

    def close(self) -> None:
        """Stop following the engine, let go of the graph and close the widget."""
        self.detach()
        super().close()


#: Views following the engine at once; older ones are detached (see GraphView.detach).
MAX_LIVE_VIEWS = 32
_live_views: list = []


def _remember_live(view: GraphView) -> None:
    _live_views[:] = [r for r in _live_views if r() is not None and r()._subscription]
    _live_views.append(weakref.ref(view))
    while len(_live_views) > MAX_LIVE_VIEWS:
        old = _live_views.pop(0)()
        if old is not None:
            old.detach()


def _raw(g: Any) -> Any:
    return g.array if isinstance(g, Variable) else g


def _close(guess: Any, actual: Any) -> bool:
    if actual is None:
        return guess is None
    if isinstance(actual, events.Summary):
        return False
    try:
        return bool(numpy.allclose(numpy.asarray(guess, dtype=numpy.float64),
                                   numpy.asarray(actual, dtype=numpy.float64),
                                   rtol=1e-3, atol=1e-6))
    except (TypeError, ValueError):
        return False


def _parse_guess(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ValueError('empty guess')
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f'a guess is a number or a list like [1, 2], got {text!r:.40}') \
                from error
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, numpy.ndarray):
        return value.tolist()
    if isinstance(value, numpy.generic):
        return value.item()
    if isinstance(value, events.Summary):
        return {'summary': {k: _jsonable(getattr(value, k)) for k in value.__dataclass_fields__}}
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, float | int | str | bool) or value is None:
        return value
    return repr(value)


def _event_dict(e: events.Event) -> dict:
    out = {'kind': e.kind}
    for name in e.__dataclass_fields__:
        out[name] = _jsonable(getattr(e, name))
    return out


def _namespace_variables() -> list:
    """Variables in the IPython user namespace (to find objects made after the view)."""
    try:
        from IPython import get_ipython  # noqa: PLC0415 - optional
    except ImportError:
        return []
    shell = get_ipython()
    if shell is None:
        return []
    return [v for v in list(shell.user_ns.values()) if isinstance(v, Variable)]
