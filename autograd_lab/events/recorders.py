"""The recorder: the one object the engine tells what happens while anyone listens.

``autograd_lab.events.recorder`` is a :class:`Recorder` while there is a subscriber
(one that builds no events while only FunctionHooks listen) and None otherwise, so the
engine pays one test per place where something happens::

    if _events.recorder is not None:
        _events.recorder.grad_changed(_events.GradSet, var)

Each method says one thing that happened (a variable made, a function applied, a
backward step started or done, a grad set, ...).  Behind them the recorder names the
engine's objects (:func:`uid`), copies the values events keep, and writes records and
groups to one sink (:func:`deliver_to`); each group's layout is written down once, as
the names of its fields, in :mod:`~autograd_lab.events.groups`, which reads groups back
by those names.  While an :class:`~autograd_lab.events.EventLog` is the only listener the sink is
its ring buffer's ``append``, and a backward step is held back
until it is done, so that the whole step becomes one group; anything else announced in
between sends what is held first, so the order of events never changes.

The recorder reads the engine's variables and function nodes directly (it is the
engine's own announcer and costs as little as Python allows) but sets none of their
fields except the ids it hands out: it hears of a Variable's collection through the
engine's hook, :meth:`~autograd_lab.VariableNode.watch_variable`.  It never imports the
layers above them.  It owns the per-thread context that events need: the function
whose backward is running (:func:`in_backward_of`) and the Links whose ``__call__``
is running (:func:`running_links`, pushed and popped by :class:`~autograd_lab.Link`).

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> events.recorder is None
True
>>> with events.recording() as log:
...     isinstance(events.recorder, Recorder)
True
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from autograd_lab.events import codec
from autograd_lab.events.groups import (
    _APPLY_GROUP, _APPLY_SEQ, _CODE, _COLLECTED, _CREATED, _GRAD_CODES, _GRAD_ROW,
    _N_EVENTS, _REASON, _STEP, _STEP_BEGIN, _STEP_END, _compact, _dtype_name, _grad_records,
    _is_parameter, _rows, _shape, _small, _snap, device_name,
)
from autograd_lab.events.log import snapshot
from autograd_lab.events.types import (
    BackwardFinished, BackwardStarted, DataChanged, DeviceMoved, Event, ParameterInitialized,
    ParameterUpdated, Unchained, VariableRenamed,
)

_seq = codec.seq

#: The most waiting functions a BackwardStepStarted event lists.
FRONTIER_MAX = 16

_ids = itertools.count(1)
_ids_lock = threading.Lock()

#: While :class:`~autograd_lab.events.code_lines.capturing_code_lines` runs: called with
#: the id of each function applied and recorded, to find the user's line that applied it.
code_line_sink: Any = None


def uid(obj: Any) -> int | None:
    """The stable id of a Variable (its node's), a VariableNode or a FunctionNode.

    Ids are small integers handed out in order of first appearance, never reused.

    >>> import numpy as np, autograd_lab as chainer
    >>> x = chainer.Variable(np.array(1.0))
    >>> uid(x) == uid(x.node), uid(None)
    (True, None)
    """
    try:
        ident = obj._uid  # a VariableNode or a FunctionNode
    except AttributeError:  # a Variable: its node's id (or None for None)
        if obj is None:
            return None
        obj = obj._node
        ident = obj._uid
    if ident is None:
        with _ids_lock:  # two threads naming one node must agree on its id
            ident = obj._uid
            if ident is None:
                ident = obj._uid = next(_ids)
    return ident


# ---- the per-thread context ----------------------------------------------------------------

class _Context:
    """Per thread: its ident (read here rather than asked for: ``get_ident()`` makes a new
    int at every call, which a record would keep), the function whose backward runs, the
    running Links, and a backward step held back for a lone log."""

    __slots__ = ('thread', 'func_id', 'held', 'links', 'outer', 'inner')

    def __init__(self) -> None:
        self.thread = threading.get_ident()
        self.func_id: int | None = None
        self.held: list | None = None  # a step-begin group held back until the step is done
        self.links: list = []  # running Links, outermost first
        self.outer: list = []  # func_id of the enclosing steps (nested backward)
        self.inner: list = []  # grad events of the held step, flat (``_GRAD_ROW`` s)


class _PerThread(threading.local):
    """Each thread's :class:`_Context`: one thread-local read, then plain attributes
    (a read of a thread-local's attribute costs several times one of a slot)."""

    def __init__(self) -> None:
        self.context = _Context()


_threads = _PerThread()


def in_backward_of() -> int | None:
    """The id of the function whose backward is running in this thread, if any."""
    return _threads.context.func_id


def running_links() -> list:
    """The Links whose ``__call__`` is running in this thread, outermost first.

    :class:`~autograd_lab.Link` pushes itself here while it runs; events made
    meanwhile carry the innermost one's path as their ``scope``.
    """
    return _threads.context.links


def _scope() -> str | None:
    links = _threads.context.links
    return links[-1].path if links else None


# ---- where records go (set by subscription: see ``deliver_to``) ---------------------------

def _nowhere(item: Any) -> None:
    """Delivery while nobody listens (a step that began observed may end after)."""


#: The one sink: every record, group and Event the recorder makes goes to ``_deliver``.
_deliver = _nowhere
_holds_steps = False
_observed = False


def deliver_to(sink: Any = None, holds_steps: bool = False) -> None:
    """Where records, groups and Events go from now on: ``sink(item)`` (None: nowhere;
    :func:`codec.materialise` and :func:`codec.members` read what it is given).
    ``holds_steps``: the listener cannot tell when it got a step's events (a lone log),
    so a step may be held until it is done and go out as one group."""
    global _deliver, _holds_steps, _observed
    _observed = sink is not None
    _deliver = sink or _nowhere
    _holds_steps = holds_steps and _observed


def emit(event: Event) -> None:
    """Deliver ``event`` to every subscriber (engine-internal, public for extensions).

    It gets its ``seq`` here: seqs number the events delivered, in order.
    """
    context = _threads.context
    if context.held is not None:
        _flush(context)
    codec._object_setattr(event, 'seq', next(_seq))
    _deliver(event)


# ---- collection -------------------------------------------------------------------------------

def _collected(watch: Any) -> None:
    """An announced Variable was collected (its node's watch: see ``watch_variable``)."""
    if _observed:
        context = _threads.context
        if context.held is not None:
            _flush(context)
        _deliver((_COLLECTED, next(_seq), context.thread, watch.token))



def _flush(context: _Context) -> None:
    """Send a held step's begin and its grad events so far, before anything else."""
    group, context.held = context.held, None
    _deliver(tuple(group))
    inner = context.inner
    for record in _grad_records(_rows(inner, 0, _GRAD_ROW, len(inner) // len(_GRAD_ROW)),
                                context.thread):
        _deliver(record)
    inner.clear()




class BackwardRun:
    """What the recorder keeps about one backward while it runs: its id and, per waiting
    gradient, the bytes it was announced with (its creator's step reuses them)."""

    __slots__ = ('id', 'frozen', 'depth')

    def __init__(self, run_id: int) -> None:
        self.id = run_id
        self.frozen: dict = {}
        self.depth: int | None = None  # len(context.outer) while one of its steps is open


def _close_failed_step(context: _Context, run: BackwardRun | None) -> None:
    """Undo what the failed step of ``run`` pushed, if it got to push anything: a step
    pushes the function whose backward ran before anything that can raise, and notes
    how deep, so that a failure anywhere after (even a KeyboardInterrupt) is undone."""
    depth = None if run is None else run.depth
    if depth is not None and len(context.outer) >= depth:
        context.func_id = context.outer[depth - 1]
        del context.outer[depth - 1:]
    if run is not None:
        run.depth = None


# ---- the recorder -------------------------------------------------------------------------------

class Recorder:
    """The engine's side of events: one method per thing that happened.

    The engine calls these only through ``autograd_lab.events.recorder`` (None while
    nobody listens).  Arguments are the engine's own objects; nothing here changes
    what the engine computes.
    """

    __slots__ = ()

    # ---- forward ------------------------------------------------------------------------

    def variable_created(self, var: Any) -> None:
        """``var`` was made by the user (or wrapped around an array a function got)."""
        context = _threads.context
        if context.held is not None:
            _flush(context)
        node = var._node
        ident = node._uid or uid(node)
        data = var._data
        _deliver((_CREATED, next(_seq), context.thread, ident, node.name, node.shape,
                  _dtype_name(node.dtype), device_name(data), var._requires_grad,
                  _is_parameter(type(var)), None, _snap(data), _scope()))
        node.watch_variable(_collected, ident)

    def function_applied(self, func: Any, inputs: Any, outputs: tuple, recorded: bool,
                         wrapped: Any = None) -> None:
        """``func`` ran forward on ``inputs`` (VariableNodes; ``wrapped``: the Variables
        made for raw arrays among them) and made ``outputs`` (Variables); ``recorded``: it
        was linked into the graph."""
        # The hottest announcement (every operation observed): one flat group (see
        # ``_apply_records``), built with plain loops and as few reads as possible.
        context = _threads.context
        if context.held is not None:
            _flush(context)
        if wrapped is not None:
            for var in wrapped:
                self.variable_created(var)
        func_id = func._uid
        if func_id is None:
            # Named by the thread applying it, before anyone else can have seen it.
            func_id = func._uid = next(_ids)
        links = context.links
        group = [_APPLY_GROUP,  # the fields of _APPLY_HEAD, the seq set last (below)
                 len(outputs) + 1, context.thread, 0, func_id,
                 type(func).__name__, func.label, func.rank if recorded else 0, recorded,
                 context.func_id, links[-1].path if links else None, len(inputs)]
        for node in inputs:
            group.append(node._uid or uid(node))
        ids, seq = _ids, _seq
        for y in outputs:
            node = y._node
            # A fresh output, made by apply in this thread: naming it needs no lock.
            ident = node._uid = next(ids)
            data = y._data
            if _small(data):  # as _snap, its shape and dtype the node's
                device, value = '@numpy', data.tobytes()
            else:
                device, value = device_name(data), _snap(data)
            group += (next(seq), ident, _shape(node.shape), node.dtype, y._requires_grad,
                      device, value)  # an _OUTPUT_ROW
            node.watch_variable(_collected, ident)
        group[_APPLY_SEQ] = next(seq)  # FunctionApplied comes after its outputs' VariableCreated
        _deliver(tuple(group))
        if code_line_sink is not None:  # see events.code_lines: a mode of its own
            code_line_sink(func_id)

    # ---- gradients and data -----------------------------------------------------------

    def grad_changed(self, event_type: type, var: Any) -> None:
        """``var``'s gradient changed; ``event_type`` (GradSet, GradCleared, ...) says how."""
        context = _threads.context
        gv = var._grad_var  # not ``var.grad``: a Parameter's getter may refuse to answer
        node = var._node
        ident = node._uid or uid(node)
        grad = gv._data if gv is not None else var._grad
        if context.held is not None:  # during a held step: part of its group
            context.inner += (_GRAD_CODES[event_type], next(_seq), ident, *_compact(grad, node))
            return
        _deliver((_GRAD_CODES[event_type], next(_seq), context.thread, ident, _snap(grad)))

    def data_changed(self, var: Any, how: str) -> None:
        """``var``'s array was replaced (``how='replaced'``) or written (``'copied'``)."""
        emit(DataChanged(var_id=uid(var), how=how, data=snapshot(var._data)))

    def variable_renamed(self, var: Any) -> None:
        emit(VariableRenamed(var_id=uid(var), name=var._node.name))

    def unchained(self, root: Any, backward: bool, nodes: Any = (), funcs: Any = ()) -> None:
        """The graph was cut at ``root``: ``nodes`` lost their creators, ``funcs`` were
        unchained (``backward``: by ``unchain_backward``)."""
        emit(Unchained(root_id=uid(root), backward=backward,
                       var_ids=tuple([uid(n) for n in nodes]),
                       func_ids=tuple([uid(f) for f in funcs])))

    def device_moved(self, var: Any, source: Any, destination: Any) -> None:
        """``var`` moved from device ``source`` to ``destination``."""
        emit(DeviceMoved(var_id=uid(var), source=str(source), destination=str(destination)))

    def parameter_initialized(self, param: Any) -> None:
        data = param._data
        emit(ParameterInitialized(var_id=uid(param), shape=data.shape, dtype=str(data.dtype)))

    def parameter_updated(self, param: Any, rule: Any) -> None:
        """An optimizer's update ``rule`` changed ``param``."""
        emit(ParameterUpdated(var_id=uid(param), optimizer=getattr(rule, 'optimizer_name', ''),
                              rule=type(rule).__name__, step=rule.t,
                              data=snapshot(param._data)))

    # ---- backward -----------------------------------------------------------------------

    def backward_started(self, mode: str, roots: Any, retain_grad: bool, double: bool,
                         loss_scale: Any) -> BackwardRun:
        """A backward from the VariableNodes ``roots`` begins; returns its run, which the
        stepper hands back with each later call about it."""
        run = BackwardRun(next(_ids))
        emit(BackwardStarted(run_id=run.id, mode=mode, root_ids=tuple([uid(n) for n in roots]),
                             retain_grad=retain_grad, enable_double_backprop=double,
                             loss_scale=loss_scale))
        return run

    def step_started(self, run: BackwardRun, func: Any, frontier: Any,
                     grad_outputs: tuple) -> None:
        """``func``'s backward runs next, with ``grad_outputs``; ``frontier`` (in order,
        with ``head(k)`` and ``len``) holds the functions that wait after it."""
        context = _threads.context
        outer = context.outer  # pushed first of all: see _close_failed_step
        outer.append(context.func_id)
        run.depth = len(outer)
        if context.held is not None:  # a backward inside a held step's backward
            _flush(context)
        func_id = func._uid or uid(func)
        waiting = len(frontier) + 1
        if waiting == 1:  # the common case of a chain: no frontier to read
            ids, ties = [func_id], 0
        else:  # the first few in order, without sorting (or even reading) the whole heap
            head = frontier.head(FRONTIER_MAX - 1)
            ids = [func_id, *[f._uid or uid(f) for f in head]]
            ties = 0  # the others of its rank, which come first (they are in rank order)
            for f in head:
                if f.rank != func.rank:
                    break
                ties += 1
        # _STEP_HEAD, _BEGIN_PART, the frontier ids, then the grad outputs' _VALUE_ROW s
        group = [_STEP_BEGIN, 1, context.thread, run.id, func_id, next(_seq), func.rank,
                 func.label, waiting, ties, _REASON, len(ids), *ids, len(grad_outputs)]
        frozen = run.frozen
        for ref, g in zip(func.outputs or (), grad_outputs):
            node = ref()
            taken = frozen.pop(node, None) if frozen else None
            if taken is not None:  # the bytes its step-end group took: the same value
                group += (taken, node.dtype, node.shape)
            elif _small(g) and node is not None and node.shape is not None:  # as _compact
                group += (g.tobytes(), node.dtype, node.shape)  # (checked against the node)
            else:
                group += _compact(g, node)
        context.func_id = func_id  # what its backward applies is tagged with it
        if _holds_steps:
            context.held = group
        else:
            _deliver(tuple(group))

    def step_done(self, run: BackwardRun, func: Any, targets: tuple, grad_inputs: tuple,
                  accumulation: Any, released: Any) -> None:
        """``func``'s backward gave ``grad_inputs`` for its inputs ``targets``, each
        ``'set'``, ``'added'`` or None (``accumulation``); the gradients of its output
        nodes ``released`` were dropped."""
        context = _threads.context
        run.depth = None
        context.func_id = context.outer.pop()
        group = context.held
        if group is None:
            group = [_STEP_END, 0, context.thread, run.id, func._uid or uid(func)]
        else:
            context.held = None
            group[_CODE] = _STEP
        inner = context.inner  # the held step's grad events (empty unless held)
        n_inner = len(inner) // len(_GRAD_ROW)
        n_events = group[_N_EVENTS] + 1 + n_inner + len(released)  # + BackwardStepDone
        done_at = len(group)  # its seq comes after the released grads' (below)
        group += (0, len(targets))  # _END_PART, then the _TARGET_ROW s
        inputs = func.inputs or ()
        frozen = run.frozen
        for k, i in enumerate(targets):
            node, how, g = inputs[i], accumulation[k], grad_inputs[k]
            if _small(g) and node.shape is not None:  # as _compact
                value = g.tobytes()  # (checked against the node)
                group += (node._uid or uid(node), how, value, node.dtype, node.shape)
            else:
                value, dtype, shape = _compact(g, node)
                group += (node._uid or uid(node), how, value, dtype, shape)
            if how is not None and node._creator_node is not None:  # a grad that waits for
                if how == 'set' and type(value) is bytes:  # its creator's step, whose begin
                    frozen[node] = value  # group shares these bytes
                else:
                    frozen.pop(node, None)
        group.append(n_inner)  # the _GRAD_ROW s
        if n_inner:
            group += inner
            inner.clear()
        group.append(len(released))  # the _RELEASED_ROW s
        for node in released:
            group += (next(_seq), node._uid or uid(node))
        group[_N_EVENTS] = n_events
        group[done_at] = next(_seq)
        _deliver(tuple(group))

    def backward_finished(self, run: BackwardRun, error: BaseException | None = None) -> None:
        """The backward ended: every function ran, or the step this recorder was told had
        started raised ``error`` (the gradients were restored first)."""
        context = _threads.context
        if error is not None:  # the failed step did not get to say it was done
            _close_failed_step(context, run)
        if run is None:  # it failed before the recorder was told it started
            return
        if context.held is not None:
            _flush(context)
        run.frozen.clear()
        emit(BackwardFinished(run_id=run.id, ok=error is None,
                              error=None if error is None else repr(error)))


class _HooksOnly(Recorder):
    """The recorder while only FunctionHooks listen: no events are built, but backward
    steps still say which function's backward runs (:func:`in_backward_of`: a
    TimerHook tells nested calls from abandoned ones by it)."""

    __slots__ = ()

    def _nothing(self, *args: Any) -> None:
        """Nothing to record: nobody subscribes."""

    variable_created = function_applied = grad_changed = data_changed = _nothing
    variable_renamed = unchained = device_moved = parameter_initialized = _nothing
    parameter_updated = backward_started = _nothing

    def step_started(self, run: Any, func: Any, frontier: Any, grad_outputs: tuple) -> None:
        context = _threads.context
        context.outer.append(context.func_id)  # first: a failure after it pops it
        context.func_id = func._uid or uid(func)

    def step_done(self, run: Any, func: Any, *args: Any) -> None:
        context = _threads.context
        context.func_id = context.outer.pop()

    def backward_finished(self, run: Any, error: BaseException | None = None) -> None:
        context = _threads.context
        if error is not None and context.outer:  # (empty: it failed before pushing)
            context.func_id = context.outer.pop()


#: The recorder while anyone subscribes, and the one while only FunctionHooks listen.
RECORDER = Recorder()
HOOKS_ONLY = _HooksOnly()
