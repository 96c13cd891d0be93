"""The recorder: the one object the engine tells what happens while anyone listens.

``autograd_lab.events.recorder`` is a :class:`Recorder` while there is a subscriber
(one that builds no events while only FunctionHooks listen) and None otherwise, so the
engine pays one test per place where something happens::

    if _events.recorder is not None:
        _events.recorder.grad_changed(_events.GradSet, var)

Each method says one thing that happened (a variable made, a function applied, a
backward step started or done, a grad set, ...).  Behind them the recorder names the
engine's objects (:func:`uid`), copies the values events keep, and writes records and
groups (see :mod:`~autograd_lab.events.codec`); each group's layout is written and read
in this module only.  While an :class:`~autograd_lab.events.EventLog` is the only
listener the records are appended to it directly, and a backward step is held back
until it is done, so that the whole step becomes one group; anything else announced in
between sends what is held first, so the order of events never changes.

The recorder reads the engine's variables and function nodes directly (it is the
engine's own announcer and costs as little as Python allows); it never imports the
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

import numpy

from autograd_lab import backend
from autograd_lab.events import codec
from autograd_lab.events.log import SNAPSHOT_MAX_ELEMENTS, snapshot
from autograd_lab.events.types import (
    BackwardFinished, BackwardStarted, BackwardStepDone, BackwardStepStarted, DataChanged,
    DeviceMoved, Event, FunctionApplied, GradAccumulated, GradAdded, GradCleared,
    GradReleased, GradRestored, GradSet, GradZeroed, ParameterInitialized, ParameterUpdated,
    Unchained, VariableCollected, VariableCreated, VariableRenamed, step_reason,
)

_ndarray = numpy.ndarray
_seq = codec.seq

#: The most waiting functions a BackwardStepStarted event lists.
FRONTIER_MAX = 16

_ids = itertools.count(1)
_ids_lock = threading.Lock()


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
        self.inner: list = []  # grad events of the held step, flat (see ``_INNER_FIELDS``)


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


_deliver = _deliver_group = _deliver_event = _nowhere
_holds_steps = False
_observed = False


def deliver_to(record: Any = None, group: Any = None, event: Any = None,
               holds_steps: bool = False) -> None:
    """Where records, groups and Events go from now on (None: nowhere).  ``holds_steps``:
    the listener cannot tell when it got a step's events (a lone log), so a step may be
    held until it is done and go out as one group."""
    global _deliver, _deliver_group, _deliver_event, _holds_steps, _observed
    _observed = record is not None
    _deliver = record or _nowhere
    _deliver_group = group or _nowhere
    _deliver_event = event or _nowhere
    _holds_steps = holds_steps and _observed


def emit(event: Event) -> None:
    """Deliver ``event`` to every subscriber (engine-internal, public for extensions).

    It gets its ``seq`` here: seqs number the events delivered, in order.
    """
    context = _threads.context
    if context.held is not None:
        _flush(context)
    codec._object_setattr(event, 'seq', next(_seq))
    _deliver_event(event)


# ---- values ----------------------------------------------------------------------------------

def _thaw(frozen: bytes, dtype: Any, shape: tuple) -> Any:
    """The array :func:`_snap` froze (a new writeable one at each read)."""
    return numpy.frombuffer(frozen, dtype).reshape(shape).copy()


_THAW = codec.lazy(_thaw)[1]


def _snap(array: Any) -> Any:
    """What records hold for :func:`snapshot`: the same value, cheaper to take and keep.

    A small NumPy array is kept as its bytes (one compact object, taken in a fraction
    of the time of a copy), made into an array again when the event is read.
    """
    if type(array) is _ndarray and array.size <= SNAPSHOT_MAX_ELEMENTS \
            and not array.dtype.hasobject:  # object arrays hold references, not values
        return (codec.LAZY, _THAW, array.tobytes(), array.dtype, array.shape)
    return snapshot(array)


_shapes: dict = {}  # one tuple per shape, for groups to share (see ``_shape``)
_SHAPES_KEPT = 4096


def _shape(shape: tuple) -> tuple:
    """The shared tuple equal to ``shape``, which an apply group keeps instead of its
    new output node's own.

    Why: the garbage collector stops tracking a tuple only once nothing in it is tracked,
    and a new node's shape tuple is as young as the group that names it; a collection
    looks at the group first (it meets the shape through the node and moves it behind),
    so each apply group was still tracked in the next generation, about one object in
    six of those its collections walked in a recorded chain.  A shared shape is old and
    untracked, and so is a group after its first collection.  (Step groups name nodes
    made earlier, whose shapes the collector has already let go.)

    >>> _shape((2, 3)) is _shape(tuple([2, 3])), _shape((2, 3)) == (2, 3)
    (True, True)
    """
    kept = _shapes.get(shape)
    if kept is None:
        if len(_shapes) >= _SHAPES_KEPT:  # many shapes: start again rather than grow
            _shapes.clear()
        kept = _shapes[shape] = shape
    return kept


def _compact(array: Any, node: Any) -> tuple:
    """``(value, dtype, shape)``: a value as a group keeps it, flat (see ``_thawed``): a
    small array as its bytes with its node's dtype and shape, anything else as a snapshot."""
    if type(array) is not _ndarray and array is not None:
        array = getattr(array, '_data', array)  # a Variable (double backprop): its array
    if type(array) is _ndarray and array.size <= SNAPSHOT_MAX_ELEMENTS and node is not None \
            and array.shape == node.shape and not array.dtype.hasobject:
        return array.tobytes(), node.dtype, node.shape
    return _snap(array), None, None


def _thawed(value: Any, dtype: Any, shape: tuple) -> Any:
    """A group's ``(value, dtype, shape)`` as a record holds it."""
    if type(value) is bytes:
        return (codec.LAZY, _THAW, value, dtype, shape)
    return value


_dtype_names: dict = {}
_parameter_types: dict = {}


def _dtype_name(dtype: Any) -> str | None:
    if dtype is None:
        return None
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = str(dtype)
    return name


def device_name(array: Any) -> str:
    """The device an array lives on, as events name it (``'@numpy'``, ``'@cupy:0'``)."""
    if array is None or type(array) is _ndarray:
        return '@numpy'
    return str(backend.get_device_from_array(array))


def _is_parameter(cls: type) -> bool:
    known = _parameter_types.get(cls)
    if known is None:
        from autograd_lab.parameter import Parameter  # noqa: PLC0415 - it imports us
        known = _parameter_types[cls] = issubclass(cls, Parameter)
    return known


# ---- collection -------------------------------------------------------------------------------

def _collected(watch: Any) -> None:
    """An announced Variable was collected (its node's watch: see ``watch_variable``)."""
    if _observed:
        context = _threads.context
        if context.held is not None:
            _flush(context)
        _deliver((_COLLECTED, next(_seq), context.thread, watch.token))


# ---- groups: the records of one operation in one flat tuple ---------------------------------
#
# The hottest announcements (a function applied; a backward step) build one *group*: a
# flat tuple of only what could change or vanish later (ids, seqs, frozen values, the
# label), from which the records of its events are written when they are read.
#
# Flat, because the garbage collector stops tracking a tuple only once everything in it is
# untracked: a tuple nested in a record kept it tracked long enough to be promoted to the
# oldest generation, which every full collection then walked.  A group holds ints,
# strings, bytes, dtypes and shape tuples (shared ones: see ``_shape``), nothing deeper.
# ``group[1]`` is the number of its events.  A small array is kept as its bytes next to
# its dtype and shape (three fields, see ``_compact``), anything else as its snapshot.

_CREATED, _APPLIED, _COLLECTED = (codec.code(VariableCreated), codec.code(FunctionApplied),
                                  codec.code(VariableCollected))
_STEP_STARTED, _STEP_DONE = codec.code(BackwardStepStarted), codec.code(BackwardStepDone)
_RELEASED = codec.code(GradReleased)
_GRAD_CODES = {cls: codec.code(cls) for cls in (
    GradSet, GradAccumulated, GradCleared, GradReleased, GradZeroed, GradAdded, GradRestored)}

_APPLY_GROUP = -2  # a function applied: its outputs' VariableCreated, then FunctionApplied
_STEP_BEGIN = -3  # one BackwardStepStarted
_STEP_END = -4  # a step's grad events, its released grads, then BackwardStepDone
_STEP = -5  # a whole step: the two above in one
_OUTPUT_FIELDS = 7  # per output of an apply group: seq, id, shape, dtype, requires_grad,
#                     device, value
_TARGET_FIELDS = 5  # per target of a step end: id, how, value, dtype, shape
_INNER_FIELDS = 6  # per grad event of a step end: code, seq, var_id, value, dtype, shape


# An apply group:
#   (_APPLY_GROUP, n_events, thread, seq, func_id, type, label, rank, recorded,
#    in_backward_of, scope, n_inputs, *input_ids, *outputs' _OUTPUT_FIELDS)

def _apply_records(group: tuple) -> list:
    thread, func_id, rank, recorded, scope = group[2], group[4], group[7], group[8], group[10]
    creator_id, out_rank = (func_id, rank + 1) if recorded else (None, 0)
    start = 12 + group[11]
    records = []
    output_ids = []
    for k in range(start, start + _OUTPUT_FIELDS * (group[1] - 1), _OUTPUT_FIELDS):
        seq, ident, shape, dtype, requires_grad, device, data = group[k:k + _OUTPUT_FIELDS]
        output_ids.append(ident)
        # A function's outputs are fresh plain Variables: no name, not parameters.
        records.append((_CREATED, seq, thread, ident, None, shape, _dtype_name(dtype), device,
                        requires_grad, False, creator_id, _thawed(data, dtype, shape), scope,
                        out_rank))
    records.append((_APPLIED, group[3], thread, func_id, group[5], group[6], rank,
                    group[12:start], tuple(output_ids), recorded, group[9], scope))
    return records


# A backward step's groups share a head, (code, n_events, thread, run_id, func_id); then
# come the begin part, the end part, or both (a step held until it was done):
#   begin: seq, rank, label, waiting, ties, reason (a lazy function's index: the sentence
#          is written only if read), n_frontier, *frontier_ids, n_outputs,
#          *grad_outputs' (value, dtype, shape)
#   end:   seq_done, n_targets, *targets' _TARGET_FIELDS, n_inner, *grad events'
#          _INNER_FIELDS, n_released, *released grads' (seq, var_id)

def _step_records(group: tuple) -> list:
    records: list = []
    at = 5  # after the head
    if group[0] != _STEP_END:
        at = _begin_part(group, at, records)
    if group[0] != _STEP_BEGIN:
        _end_part(group, at, records)
    return records


def _begin_part(group: tuple, at: int, records: list) -> int:
    """Append the BackwardStepStarted of the begin part at ``at``; return where it ends."""
    seq, rank, label, waiting, ties, reason, n_frontier = group[at:at + 7]
    start = at + 7 + n_frontier
    stop = start + 1 + 3 * group[start]
    grads = tuple([_thawed(*group[k:k + 3]) for k in range(start + 1, stop, 3)])
    records.append((_STEP_STARTED, seq, group[2], group[3], group[4], rank,
                    group[at + 7:start], grads, (codec.LAZY, reason, label, rank, waiting, ties),
                    waiting))
    return stop


def _end_part(group: tuple, at: int, records: list) -> None:
    """Append the records of the end part at ``at``."""
    thread = group[2]
    inner_at = at + 2 + _TARGET_FIELDS * group[at + 1]
    targets = [group[k:k + _TARGET_FIELDS] for k in range(at + 2, inner_at, _TARGET_FIELDS)]
    released_at = inner_at + 1 + _INNER_FIELDS * group[inner_at]
    records += _inner_records(group, inner_at + 1, released_at, thread)
    for k in range(released_at + 1, released_at + 1 + 2 * group[released_at], 2):
        records.append((_RELEASED, group[k], thread, group[k + 1], None))
    records.append((_STEP_DONE, group[at], thread, group[3], group[4],
                    tuple([t[0] for t in targets]),
                    tuple([_thawed(t[2], t[3], t[4]) for t in targets]),
                    tuple([t[1] for t in targets])))


def _inner_records(fields: Any, start: int, stop: int, thread: int) -> list:
    """The records of the grad events whose fields are ``fields[start:stop]``."""
    records = []
    for k in range(start, stop, _INNER_FIELDS):
        code, seq, ident, value, dtype, shape = fields[k:k + _INNER_FIELDS]
        records.append((code, seq, thread, ident, _thawed(value, dtype, shape)))
    return records


codec.register_group(_APPLY_GROUP, _apply_records)
for _code in (_STEP_BEGIN, _STEP_END, _STEP):
    codec.register_group(_code, _step_records)


def _flush(context: _Context) -> None:
    """Send a held step's begin and its grad events so far, before anything else."""
    group, context.held = context.held, None
    _deliver_group(tuple(group))
    inner = context.inner
    for record in _inner_records(inner, 0, len(inner), context.thread):
        _deliver(record)
    inner.clear()


_REASON = codec.lazy(step_reason)[1]  # the sentence is written only if read


class BackwardRun:
    """What the recorder keeps about one backward while it runs: its id and, per waiting
    gradient, the bytes it was announced with (its creator's step reuses them)."""

    __slots__ = ('id', 'frozen')

    def __init__(self, run_id: int) -> None:
        self.id = run_id
        self.frozen: dict = {}


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
        group = [_APPLY_GROUP, len(outputs) + 1, context.thread, 0, func_id,
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
            if type(data) is _ndarray and data.size <= SNAPSHOT_MAX_ELEMENTS \
                    and not data.dtype.hasobject:  # as _snap, shape and dtype from the node
                device, value = '@numpy', data.tobytes()
            else:
                device, value = device_name(data), _snap(data)
            group += (next(seq), ident, _shape(node.shape), node.dtype, y._requires_grad,
                      device, value)
            node.watch_variable(_collected, ident)
        group[3] = next(seq)  # FunctionApplied comes after its outputs' VariableCreated
        _deliver_group(tuple(group))

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
        group = [_STEP_BEGIN, 1, context.thread, run.id, func_id, next(_seq), func.rank,
                 func.label, waiting, ties, _REASON, len(ids), *ids, len(grad_outputs)]
        frozen = run.frozen
        for ref, g in zip(func.outputs or (), grad_outputs):
            node = ref()
            taken = frozen.pop(node, None) if frozen else None
            if taken is not None:  # the bytes its step-end group took: the same value
                group += (taken, node.dtype, node.shape)
            elif type(g) is _ndarray and g.size <= SNAPSHOT_MAX_ELEMENTS and node is not None \
                    and node.shape is not None and not g.dtype.hasobject:  # as _compact
                group += (g.tobytes(), node.dtype, node.shape)  # (checked against the node)
            else:
                group += _compact(g, node)
        context.outer.append(context.func_id)  # what its backward applies is tagged with it
        context.func_id = func_id
        if _holds_steps:
            context.held = group
        else:
            _deliver_group(tuple(group))

    def step_done(self, run: BackwardRun, func: Any, targets: tuple, grad_inputs: tuple,
                  accumulation: Any, released: Any) -> None:
        """``func``'s backward gave ``grad_inputs`` for its inputs ``targets``, each
        ``'set'``, ``'added'`` or None (``accumulation``); the gradients of its output
        nodes ``released`` were dropped."""
        context = _threads.context
        context.func_id = context.outer.pop()
        group = context.held
        if group is None:
            group = [_STEP_END, 0, context.thread, run.id, func._uid or uid(func)]
        else:
            context.held = None
            group[0] = _STEP
        inner = context.inner  # the held step's grad events (empty unless held)
        n_inner = len(inner) // _INNER_FIELDS
        n_events = group[1] + 1 + n_inner + len(released)  # + BackwardStepDone
        done_at = len(group)  # its seq comes after the released grads' (below)
        group += (0, len(targets))
        inputs = func.inputs or ()
        frozen = run.frozen
        for k, i in enumerate(targets):
            node, how, g = inputs[i], accumulation[k], grad_inputs[k]
            if type(g) is _ndarray and g.size <= SNAPSHOT_MAX_ELEMENTS \
                    and node.shape is not None and not g.dtype.hasobject:  # as _compact
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
        group.append(n_inner)
        if n_inner:
            group += inner
            inner.clear()
        group.append(len(released))
        for node in released:
            group += (next(_seq), node._uid or uid(node))
        group[1] = n_events
        group[done_at] = next(_seq)
        _deliver_group(tuple(group))

    def backward_finished(self, run: BackwardRun, error: BaseException | None = None) -> None:
        """The backward ended: every function ran, or the step this recorder was told had
        started raised ``error`` (the gradients were restored first)."""
        context = _threads.context
        if context.held is not None:
            _flush(context)
        if error is not None:  # the failed step did not get to say it was done
            context.func_id = context.outer.pop()
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
        context.outer.append(context.func_id)
        context.func_id = func._uid or uid(func)

    def step_done(self, run: Any, func: Any, *args: Any) -> None:
        context = _threads.context
        context.func_id = context.outer.pop()

    def backward_finished(self, run: Any, error: BaseException | None = None) -> None:
        if error is not None:
            context = _threads.context
            context.func_id = context.outer.pop()


#: The recorder while anyone subscribes, and the one while only FunctionHooks listen.
RECORDER = Recorder()
HOOKS_ONLY = _HooksOnly()
