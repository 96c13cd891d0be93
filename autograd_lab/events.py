"""Graph events: the engine announces what it does; observers subscribe.

Every notable thing the engine does is one small, typed, immutable :class:`Event`:
a variable made, a function applied, each backward step, a gradient set or
accumulated or released, a graph cut, a device move.  Observers (a graph view, a
logger, a test) call :func:`subscribe` or use :func:`recording`; nothing else in
the project reaches into the engine.

Events name variables and functions by stable ids (:func:`uid`): small integers
handed out in order of first appearance, never ``id()``, so they are never reused.

With no subscriber the engine pays one boolean test per operation (``active``);
``benchmarks/events_overhead.py`` compares it with an engine whose event code is
removed.  While observed, the frequent announcements are built as compact records
and groups (flat tuples: a function applied, a whole backward step) that an
:class:`EventLog` stores as they are and turns into events when they are read; while
a log is the only listener the engine appends to it directly.  A log left open
during training so costs as little as we could make it in Python (about 1.5x on
forward, 1.9x on forward+backward of the engine alone: see the benchmark).
The same test guards Chainer's FunctionHooks (:mod:`autograd_lab.function_hook`):
``active`` is true while anything observes the engine, an event subscriber or a
registered hook, and the engine's announce points then serve both.

>>> import numpy as np, autograd_lab as chainer
>>> with recording() as log:
...     x = chainer.Variable(np.array(2.0), name='x')
...     y = x * x
...     y.backward()
>>> [e.kind for e in log]  # doctest: +NORMALIZE_WHITESPACE
['variable_created', 'variable_created', 'function_applied', 'backward_started',
 'backward_step_started', 'grad_set', 'grad_accumulated', 'grad_released',
 'backward_step_done', 'backward_finished']
>>> log[2].label, log[2].input_ids == (log[0].var_id, log[0].var_id)
('_ * _', True)
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
import itertools
import threading
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy

_ndarray = numpy.ndarray

#: True while anything observes the engine (an event subscriber or a FunctionHook);
#: the engine tests it, and only it, before announcing anything.
active = False

# Reentrant: a hook table's finaliser may run (garbage collection) while this thread holds it.
_lock = threading.RLock()
_subscribers: tuple = ()
_hook_count = 0  # FunctionHook registrations alive, global (any thread) or on a node
_ids = itertools.count(1)
_seq = itertools.count(1)

#: Arrays of at most this many elements are copied into events; larger ones are summarised.
SNAPSHOT_MAX_ELEMENTS = 64
#: Default bound of an :class:`EventLog` (a ring buffer: the oldest events are dropped).
DEFAULT_LOG_SIZE = 100_000
#: The most waiting functions a BackwardStepStarted event lists.
FRONTIER_MAX = 16


class EventSubscriberWarning(UserWarning):
    """A subscriber raised; the computation went on without it noticing."""


def uid(obj: Any) -> int | None:
    """The stable id of a Variable (its node's), a VariableNode or a FunctionNode."""
    try:
        ident = obj._uid  # a VariableNode or a FunctionNode
    except AttributeError:  # a Variable: its node's id (or None for None)
        if obj is None:
            return None
        obj = obj._node
        ident = obj._uid
    if ident is None:
        with _lock:  # two threads naming one node must agree on its id
            ident = obj._uid
            if ident is None:
                ident = obj._uid = next(_ids)
    return ident


# ---- value snapshots ---------------------------------------------------------------------

@dataclass(frozen=True)
class Summary:
    """Statistics of an array too large to copy into an event."""

    shape: tuple
    dtype: str
    min: float
    max: float
    mean: float
    norm: float
    nan_count: int
    inf_count: int


def snapshot(array: Any) -> Any:
    """A CPU copy of a small array, a :class:`Summary` of a large one, None for None."""
    if array is None:
        return None
    if type(array) is numpy.ndarray and array.size <= SNAPSHOT_MAX_ELEMENTS:
        return array.copy()  # the common case, first
    array = getattr(array, '_data', array)  # a Variable's array
    if not isinstance(array, numpy.ndarray):
        getter = getattr(array, 'get', None)
        array = getter() if getter is not None else numpy.asarray(array)
    if array.size <= SNAPSHOT_MAX_ELEMENTS:
        return numpy.array(array, copy=True)
    finite = numpy.isfinite(array)
    values = array[finite] if not finite.all() else array
    stats = values.astype(numpy.float64) if values.size else numpy.zeros(1)
    return Summary(array.shape, str(array.dtype), float(stats.min()), float(stats.max()),
                   float(stats.mean()), float(numpy.linalg.norm(stats.ravel())),
                   int(numpy.isnan(array).sum()), int(numpy.isinf(array).sum()))


# ---- the events ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Event:
    """Base of all events: ``seq`` orders them (given when emitted: an Event made but not
    emitted has 0), ``thread`` says which thread made it."""

    kind = 'event'
    seq: int = field(default=0, init=False)  # given when emitted
    thread: int = field(default_factory=threading.get_ident, init=False)


@dataclass(frozen=True)
class VariableCreated(Event):
    """A Variable came into being: made by the user or as a function's output."""

    kind = 'variable_created'
    var_id: int = 0
    name: str | None = None
    shape: tuple | None = None
    dtype: str | None = None
    device: str = '@numpy'
    requires_grad: bool = True
    is_parameter: bool = False
    creator_id: int | None = None
    data: Any = None
    #: Path of the innermost Link whose ``__call__`` was running (``'/predictor/l1'``), or None.
    scope: str | None = None


@dataclass(frozen=True)
class FunctionApplied(Event):
    """A function ran forward.  ``recorded`` is False under ``no_backprop_mode``;
    ``in_backward_of`` names the function whose backward applied it, if any."""

    kind = 'function_applied'
    func_id: int = 0
    type: str = ''
    label: str = ''
    rank: int = 0
    input_ids: tuple = ()
    output_ids: tuple = ()
    recorded: bool = True
    in_backward_of: int | None = None
    #: Path of the innermost Link whose ``__call__`` was running, or None.
    scope: str | None = None


@dataclass(frozen=True)
class BackwardStarted(Event):
    kind = 'backward_started'
    run_id: int = 0
    mode: str = 'backward'
    root_ids: tuple = ()
    retain_grad: bool = False
    enable_double_backprop: bool = False
    loss_scale: float | None = None


@dataclass(frozen=True)
class BackwardStepStarted(Event):
    """The next function is about to run its backward, and why it is next.

    ``frontier_ids`` are the waiting functions in the order they will run, this one
    first: at most :data:`FRONTIER_MAX` of them (``frontier_size`` says how many wait),
    so that a wide graph does not make every step cost as much as the whole frontier.
    """

    kind = 'backward_step_started'
    run_id: int = 0
    func_id: int = 0
    rank: int = 0
    frontier_ids: tuple = ()
    grad_outputs: tuple = ()
    reason: str = ''
    frontier_size: int = 0


@dataclass(frozen=True)
class BackwardStepDone(Event):
    """A function's backward ran: what it produced and, per target input, set or added."""

    kind = 'backward_step_done'
    run_id: int = 0
    func_id: int = 0
    target_input_ids: tuple = ()
    grad_inputs: tuple = ()
    accumulation: tuple = ()


@dataclass(frozen=True)
class BackwardFinished(Event):
    kind = 'backward_finished'
    run_id: int = 0
    ok: bool = True
    error: str | None = None


@dataclass(frozen=True)
class GradChanged(Event):
    """A variable's gradient changed.  ``kind`` tells how: set, accumulated (``+=``),
    cleared (``cleargrad``), released (an intermediate's grad dropped after use),
    zeroed (``zerograd``), added (``addgrad``), or restored (a failed backward undone)."""

    kind = 'grad_changed'
    var_id: int = 0
    grad: Any = None


def _grad_event(kind: str) -> type:
    return dataclass(frozen=True)(type(f'Grad_{kind}', (GradChanged,), {'kind': kind,
                                                                        '__doc__': None}))


GradSet = _grad_event('grad_set')
GradAccumulated = _grad_event('grad_accumulated')
GradCleared = _grad_event('grad_cleared')
GradReleased = _grad_event('grad_released')
GradZeroed = _grad_event('grad_zeroed')
GradAdded = _grad_event('grad_added')
GradRestored = _grad_event('grad_restored')


@dataclass(frozen=True)
class DataChanged(Event):
    """A variable's array was replaced (``array = ...``) or written (``copydata``)."""

    kind = 'data_changed'
    var_id: int = 0
    how: str = 'replaced'
    data: Any = None


@dataclass(frozen=True)
class Unchained(Event):
    """The graph was cut: ``var_ids`` lost their creators, ``func_ids`` were unchained."""

    kind = 'unchained'
    root_id: int = 0
    backward: bool = False
    var_ids: tuple = ()
    func_ids: tuple = ()


@dataclass(frozen=True)
class DeviceMoved(Event):
    kind = 'device_moved'
    var_id: int = 0
    source: str = ''
    destination: str = ''


@dataclass(frozen=True)
class ParameterInitialized(Event):
    kind = 'parameter_initialized'
    var_id: int = 0
    shape: tuple = ()
    dtype: str = ''


@dataclass(frozen=True)
class ParameterUpdated(Event):
    kind = 'parameter_updated'
    var_id: int = 0
    optimizer: str = ''
    rule: str = ''
    step: int = 0
    data: Any = None


@dataclass(frozen=True)
class VariableRenamed(Event):
    """A variable's ``name`` was set (a Link names each Parameter after making it)."""

    kind = 'variable_renamed'
    var_id: int = 0
    name: str | None = None


@dataclass(frozen=True)
class VariableCollected(Event):
    """A Variable object was garbage-collected (its node may live on in the graph)."""

    kind = 'variable_collected'
    var_id: int = 0


# ---- records: what the hot announce points build ------------------------------------------
#
# The engine's frequent announcements (variables, functions, backward steps, grads) are
# built as plain tuples ``(EventClass, seq, thread, field values in declaration order)``:
# a tuple costs a fraction of a frozen dataclass.  An EventLog stores them as they are
# and makes the Event when it is read; any other subscriber gets the Event at once.
# Either way every observer sees the same typed, immutable events.

_object_new = object.__new__
_object_setattr = object.__setattr__


_LAZY = '<lazy record value>'  # marks a value written only when the event is made
_lazy_functions: list = []


def lazy(fn: Callable, *args: Any) -> tuple:
    """A record value computed only when the event is made: ``fn(*args)``.

    It is a plain tuple (the function by index): with atomic ``args`` the garbage
    collector stops tracking it, as it does the record.
    """
    try:
        index = _lazy_functions.index(fn)
    except ValueError:
        with _lock:
            _lazy_functions.append(fn)
            index = len(_lazy_functions) - 1
    return (_LAZY, index, *args)


def _value(v: Any) -> Any:
    if type(v) is tuple and v:
        if v[0] is _LAZY:
            return _lazy_functions[v[1]](*v[2:])
        for item in v:  # a tuple of values (grads of a step): each may be lazy
            if type(item) is tuple and item and item[0] is _LAZY:
                return tuple([_value(x) for x in v])
    return v


def _thaw(frozen: bytes, dtype: Any, shape: tuple) -> Any:
    """The array :func:`_snap` froze (a new writeable one at each read)."""
    return numpy.frombuffer(frozen, dtype).reshape(shape).copy()


def _snap(array: Any) -> Any:
    """What records hold for :func:`snapshot`: the same value, cheaper to take and keep.

    A small NumPy array is kept as its bytes (one compact object, taken in a fraction
    of the time of a copy; a full log frees one per new event), made into an array
    again when the event is read.  Anything else is :func:`snapshot`'s.
    """
    if type(array) is _ndarray and array.size <= SNAPSHOT_MAX_ELEMENTS \
            and not array.dtype.hasobject:  # object arrays hold references, not values
        return (_LAZY, _THAW, array.tobytes(), array.dtype, array.shape)
    return snapshot(array)


_THAW = lazy(_thaw)[1]  # the lazy function index of _snap's values

_layouts: dict = {}  # Event class -> (field names in order, defaults)


def _layout(cls: type) -> tuple:
    layout = _layouts.get(cls)
    if layout is None:
        fields = dataclasses.fields(cls)
        layout = _layouts[cls] = (
            tuple(f.name for f in fields),
            {f.name: f.default for f in fields if f.default is not dataclasses.MISSING})
    return layout


# A record names its class by a small int code, not by the class itself: a tuple of ints,
# strings and arrays is one the garbage collector stops tracking, so a full log costs no
# collection time.
_classes: list = []
_codes: dict = {}


def code(cls: type) -> int:
    """The record code of Event class ``cls`` (registered on first use)."""
    number = _codes.get(cls)
    if number is None:
        with _lock:
            number = _codes.get(cls)
            if number is None:
                number = _codes[cls] = len(_classes)
                _classes.append(cls)
    return number


def materialise(record: Any) -> Event:
    """The Event of a record (an Event is returned as it is)."""
    if type(record) is not tuple:
        return record
    if record[0] < 0:  # a group stands for its first event (see below)
        record = _members(record)[0]
    cls = _classes[record[0]]
    names, defaults = _layout(cls)
    values = {name: _value(v) for name, v in zip(names, record[1:])}
    if len(values) < len(names):  # a field added after this record's emitter was written
        for name in names[len(values):]:
            values[name] = defaults.get(name)
    event = _object_new(cls)
    _object_setattr(event, '__dict__', values)
    return event


def _kind(item: Any) -> str:
    if type(item) is not tuple:
        return item.kind
    return _classes[item[0]].kind


# ---- groups: the records of one operation in one flat tuple ---------------------------------
#
# The hottest announce points (a function applied; a backward step begun, and ended with
# its gradients) build one *group*: a flat tuple of only what could change or vanish later
# (ids, seqs, frozen values, the label), from which the records of its events are written
# when they are read, field for field what separate records would have held.  A log
# stores a group in one slot and counts its events when it is read (see EventLog), so no
# object is made per event.
#
# Flat, because the garbage collector stops tracking a tuple only once everything in it is
# untracked: a tuple nested in a record kept a record tracked long enough to be promoted to
# the oldest generation, which every full collection then walked.  A group holds ints,
# strings, bytes, dtypes and shape tuples (the node's, already made), nothing deeper.
#
# Group codes are negative, which tells them from the records above; ``group[1]`` is the
# number of events.  A small array's value is kept as its bytes next to its dtype and
# shape (``value, dtype, shape``: three fields), anything else as its snapshot.

_APPLY_GROUP = -2  # a function applied: its outputs' VariableCreated, then FunctionApplied
_STEP_BEGIN = -3  # one BackwardStepStarted
_STEP_END = -4  # a step's leaf-grad events, its released grads, then BackwardStepDone
_STEP = -5  # a whole step: the two above in one
_OUTPUT_FIELDS = 7  # per output of an apply group: seq, id, shape, dtype, requires_grad,
#                     device, value
_TARGET_FIELDS = 5  # per target of a step end: id, how, value, dtype, shape
_INNER_FIELDS = 6  # per leaf-grad event of a step end: code, seq, var_id, value, dtype, shape


def _thawed(value: Any, dtype: Any, shape: tuple) -> Any:
    """A group's value field as a record holds it (see ``_snap``)."""
    if type(value) is bytes:
        return (_LAZY, _THAW, value, dtype, shape)
    return value


def _members(group: tuple) -> list:
    """The records of the events of ``group``, in order."""
    return _EXPANDERS[-group[0]](group)


def _apply_members(group: tuple) -> list:
    # (_APPLY_GROUP, n_events, thread, seq, func_id, type, label, rank, recorded,
    #  in_backward_of, scope, n_inputs, *input_ids, *outputs' fields)
    thread, func_id, recorded, scope = group[2], group[4], group[8], group[10]
    creator_id = func_id if recorded else None
    start = 12 + group[11]
    records = []
    output_ids = []
    for k in range(start, start + _OUTPUT_FIELDS * (group[1] - 1), _OUTPUT_FIELDS):
        seq, ident, shape, dtype, requires_grad, device, data = group[k:k + _OUTPUT_FIELDS]
        output_ids.append(ident)
        # A function's outputs are fresh plain Variables: no name, not parameters.
        records.append((_CREATED, seq, thread, ident, None, shape, _dtype_name(dtype), device,
                        requires_grad, False, creator_id, _thawed(data, dtype, shape), scope))
    records.append((_APPLIED, group[3], thread, func_id, group[5], group[6], group[7],
                    group[12:start], tuple(output_ids), recorded, group[9], scope))
    return records


# A backward step's groups share a head, (code, n_events, thread, run_id, func_id); then
# come the begin part, the end part, or both (when the begin was held back: see
# BackwardStepper._announce_step):
#   begin: seq, rank, label, waiting, ties, reason (a lazy function's index: the sentence
#          is written only if read), n_frontier, *frontier_ids, n_outputs,
#          *grad_outputs' (value, dtype, shape)
#   end:   seq_done, n_targets, *targets' fields, n_inner, *leaf-grad events' fields,
#          n_released, *released grads' (seq, var_id)

def _begin_part(group: tuple, at: int, records: list) -> int:
    """Append the BackwardStepStarted of the begin part at ``at``; return where it ends."""
    seq, rank, label, waiting, ties, reason, n_frontier = group[at:at + 7]
    start = at + 7 + n_frontier
    stop = start + 1 + 3 * group[start]
    grads = tuple([_thawed(*group[k:k + 3]) for k in range(start + 1, stop, 3)])
    records.append((_STEP_STARTED, seq, group[2], group[3], group[4], rank,
                    group[at + 7:start], grads, (_LAZY, reason, label, rank, waiting, ties),
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
    """The records of the leaf-grad events whose fields are ``fields[start:stop]``."""
    records = []
    for k in range(start, stop, _INNER_FIELDS):
        code, seq, ident, value, dtype, shape = fields[k:k + _INNER_FIELDS]
        records.append((code, seq, thread, ident, _thawed(value, dtype, shape)))
    return records


def _step_members(group: tuple) -> list:
    """The records of a step's group: its begin part, its end part, or both."""
    records: list = []
    at = 5  # after the head
    if group[0] != _STEP_END:
        at = _begin_part(group, at, records)
    if group[0] != _STEP_BEGIN:
        _end_part(group, at, records)
    return records


_EXPANDERS = (None, None, _apply_members, _step_members, _step_members, _step_members)


def _size(item: Any) -> int:
    """How many events a stored item stands for (a group: several)."""
    return item[1] if type(item) is tuple and item[0] < 0 else 1


def _records(items: list, starts: list, start: int, stop: int) -> Any:
    """The records of events ``start`` to ``stop`` of ``items``, whose events begin at
    ``starts`` (a running sum of their sizes)."""
    k = bisect.bisect_right(starts, start) - 1
    at = start
    while at < stop:
        item = items[k]
        if type(item) is tuple and item[0] < 0:
            members = _members(item)
            first = at - starts[k]
            take = min(len(members) - first, stop - at)
            yield from members[first:first + take]
            at += take
        else:
            yield item
            at += 1
        k += 1


# ---- subscribing -----------------------------------------------------------------------------

class Subscription:
    """Handle returned by :func:`subscribe`; also a context manager that unsubscribes."""

    def __init__(self, callback: Callable[[Event], Any]) -> None:
        self.callback = callback

    def unsubscribe(self) -> None:
        global _subscribers, active
        with _lock:
            _subscribers = tuple(s for s in _subscribers if s is not self)
            active = bool(_subscribers) or _hook_count > 0
            _rewire()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unsubscribe()


def subscribe(callback: Callable[[Event], Any]) -> Subscription:
    """Call ``callback(event)`` for every event, from every thread, until unsubscribed.

    A callback that raises is reported with an :class:`EventSubscriberWarning`; the
    computation that emitted the event is not affected.
    """
    global _subscribers, active
    sub = Subscription(callback)
    with _lock:
        _subscribers = (*_subscribers, sub)
        active = True
        _rewire()
    return sub


def _rewire() -> None:
    """Pick the delivery of records (under ``_lock``): when a log is the only listener,
    the announce points append straight to it."""
    global _deliver, _deliver_group, _lone_log
    subs = _subscribers
    log = subs[0].callback if len(subs) == 1 and type(subs[0].callback) is EventLog else None
    if log is not _lone_log:
        if _lone_log is not None:
            _lone_log._lone(False)
        if log is not None:
            log._lone(True)
        _lone_log = log
    if log is not None:
        _deliver = _deliver_group = log._events.append
    else:
        _deliver = emit_record
        _deliver_group = _emit_group


_lone_log: EventLog | None = None


def _hooks_changed(delta: int) -> None:
    """Count FunctionHook registrations (engine-internal): they keep ``active`` on too."""
    global _hook_count, active
    with _lock:
        _hook_count += delta
        active = bool(_subscribers) or _hook_count > 0


def _notify(callback: Callable[[Event], Any], event: Event) -> None:
    try:
        callback(event)
    except Exception as error:  # an observer must never break the computation
        warnings.warn(f'event subscriber {callback!r} raised {error!r} on '
                      f'{event.kind}', EventSubscriberWarning, stacklevel=3)


def emit(event: Event) -> None:
    """Deliver ``event`` to every subscriber (engine-internal, public for extensions).

    It gets its ``seq`` here: seqs number the events delivered, in order.
    """
    _object_setattr(event, 'seq', next(_seq))
    if _lone_log is not None:  # stored as the announce points store (see _rewire)
        _deliver(event)
        return
    for sub in _subscribers:
        _notify(sub.callback, event)


def emit_record(record: tuple) -> None:
    """Deliver a record (see above): stored as is by logs, as an Event to the others."""
    event = None
    for sub in _subscribers:
        callback = sub.callback
        if type(callback) is EventLog:
            callback(record)
            continue
        if event is None:
            event = materialise(record)
        _notify(callback, event)


def _emit_group(group: tuple) -> None:
    """Deliver the events of a group (see ``_members``), in order: a log stores the group
    itself, any other subscriber gets each event."""
    events = None
    for sub in _subscribers:
        callback = sub.callback
        if type(callback) is EventLog:
            callback._add_group(group)
            continue
        if events is None:
            events = [materialise(r) for r in _members(group)]
        for event in events:
            _notify(callback, event)


# What the hot announce points call: with one record, with a group.
_deliver = emit_record
_deliver_group = _emit_group
_CREATED, _APPLIED, _COLLECTED = (code(VariableCreated), code(FunctionApplied),
                                  code(VariableCollected))
_STEP_STARTED, _STEP_DONE = code(BackwardStepStarted), code(BackwardStepDone)
_GRAD_SET, _GRAD_ACCUMULATED, _RELEASED = code(GradSet), code(GradAccumulated), \
    code(GradReleased)
for _cls in (GradSet, GradAccumulated, GradCleared, GradReleased, GradZeroed, GradAdded,
             GradRestored):
    code(_cls)


def _seq_now() -> int:
    """The seq the next event will get (read without taking it)."""
    return int(repr(_seq)[6:-1])  # 'count(N)'


class EventLog(collections.abc.Sequence):
    """A bounded, thread-safe list of events (a ring buffer of ``maxlen`` events).

    ``dropped`` counts the oldest events pushed out.  Events are made from their
    records when read, so two reads of one position give equal, not identical, events.
    """

    def __init__(self, maxlen: int = DEFAULT_LOG_SIZE) -> None:
        # One slot per stored item: an event, a record, or a group of several events.
        # While the log is the engine's only listener the announce points append to it
        # directly (a C call: see ``_rewire``); readers see the last ``maxlen`` events.
        # Every item holds at least one event, so ``maxlen`` items hold enough, and the
        # memory stays bounded by ``maxlen`` items.
        self._events: collections.deque = collections.deque(maxlen=maxlen)
        self.maxlen = maxlen
        self._append = self._events.append
        # Counting what was stored, for ``dropped``.  While the only listener, every seq
        # handed out is one event stored here, so a span of seqs counts them (the announce
        # points do no counting); otherwise counters count stores: ``_tallies[n]``, those
        # of n events at once.
        self._lone_since: int | None = None  # seq at which it became the only listener
        self._lone_events = 0  # events of earlier spans as the only listener
        self._tallies: dict = {}  # n -> [the counter's next, how often ``dropped`` read it]
        self._tally = self._counter(1)
        self._lock = threading.Lock()  # serialises the reads of ``dropped``
        self._view_cache: tuple | None = None

    def _counter(self, n: int) -> Callable:
        entry = self._tallies.get(n)
        if entry is None:  # setdefault: two threads making one agree on it
            entry = self._tallies.setdefault(n, [itertools.count().__next__, 0])
        return entry[0]

    def _lone(self, alone: bool) -> None:
        """Start or end a span as the only listener (``_rewire``, under the module lock)."""
        if alone:
            self._lone_since = _seq_now()
        elif self._lone_since is not None:
            self._lone_events += _seq_now() - self._lone_since
            self._lone_since = None

    @property
    def dropped(self) -> int:
        """How many of the oldest events were pushed out (exact once emitters are done, and
        no subscriber came or went while they ran)."""
        stored = 0
        with self._lock:
            for n, entry in list(self._tallies.items()):
                stored += n * (entry[0]() - entry[1])  # next() counts this read too
                entry[1] += 1
        with _lock:
            stored += self._lone_events
            if self._lone_since is not None:
                stored += _seq_now() - self._lone_since
        return max(0, stored - len(self))

    def __call__(self, event: Event) -> None:
        self._append(event)
        self._tally()

    def _add_group(self, group: tuple) -> None:
        """Store a group (see ``_members``) when not the only listener."""
        self._append(group)
        self._counter(group[1])()

    def _view(self) -> tuple:
        """(items, starts, skip): the stored items (a snapshot), where each one's events
        start, and how many first events are past ``maxlen``.  Kept until items change."""
        items = self._events
        cached = self._view_cache
        if cached is not None and len(items) == len(cached[0]) and \
                (not items or (items[-1] is cached[0][-1] and items[0] is cached[0][0])):
            return cached
        snapshot = list(items)  # other threads may go on emitting
        starts = list(itertools.accumulate(map(_size, snapshot), initial=0))
        view = self._view_cache = (snapshot, starts, max(0, starts[-1] - self.maxlen))
        return view

    def __getitem__(self, index: Any) -> Any:
        items, starts, skip = self._view()
        size = starts[-1] - skip
        if isinstance(index, slice):
            start, stop, step = index.indices(size)
            if step == 1:
                return [materialise(r)
                        for r in _records(items, starts, skip + start, skip + max(start, stop))]
            return [materialise(next(_records(items, starts, skip + i, skip + i + 1)))
                    for i in range(start, stop, step)]
        i = index + size if index < 0 else index
        if not 0 <= i < size:
            raise IndexError('event log index out of range')
        return materialise(next(_records(items, starts, skip + i, skip + i + 1)))

    def __iter__(self) -> Any:
        items, starts, skip = self._view()
        for record in _records(items, starts, skip, starts[-1]):
            yield materialise(record)

    def __len__(self) -> int:
        _, starts, skip = self._view()
        return starts[-1] - skip

    def of_kind(self, *kinds: str) -> list:
        """The events whose ``kind`` is one of ``kinds``."""
        items, starts, skip = self._view()
        return [materialise(r) for r in _records(items, starts, skip, starts[-1])
                if _kind(r) in kinds]


class recording:
    """Record every event of the ``with`` block into an :class:`EventLog`."""

    def __init__(self, maxlen: int = DEFAULT_LOG_SIZE) -> None:
        self.log = EventLog(maxlen)
        self._sub: Subscription | None = None

    def __enter__(self) -> EventLog:
        self._sub = subscribe(self.log)
        return self.log

    def __exit__(self, *exc: object) -> None:
        self._sub.unsubscribe()


# ---- emitters called by the engine (only while ``active``) ---------------------------------

class _Context(threading.local):
    """Per thread: the function whose backward is running, and the thread's ident (read
    here rather than asked for: ``get_ident()`` makes a new int at every call, which a
    record would keep)."""

    func_id = None  # a class default: reading it needs no getattr fallback

    def __init__(self) -> None:
        self.thread = threading.get_ident()


_context = _Context()


def in_backward_of() -> int | None:
    """The id of the function whose backward is running in this thread, if any."""
    return _context.func_id


_dtype_names: dict = {}
_parameter_types: dict = {}


def _is_parameter(cls: type) -> bool:
    known = _parameter_types.get(cls)
    if known is None:
        known = _parameter_types[cls] = hasattr(cls, 'update_rule')
    return known


def _dtype_name(dtype: Any) -> str | None:
    if dtype is None:
        return None
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = str(dtype)
    return name


def _device_name(array: Any) -> str:
    if array is None or type(array) is numpy.ndarray:
        return '@numpy'
    from autograd_lab import backend  # noqa: PLC0415 - the engine imports this module
    return str(backend.get_device_from_array(array))


class _Watch(weakref.ref):
    """The weak reference from an announced Variable's node to it, with a callback that
    announces its collection; ``ident`` is the Variable's id.  Replacing the node's plain
    ``_variable`` reference costs no more than that one did, and nothing else keeps it:
    the node lives as long as its Variable (which holds it), so the callback still runs.
    """

    __slots__ = ('ident',)

    def __copy__(self) -> _Watch:  # copied like the plain weak reference it stands for
        return self

    def __deepcopy__(self, memo: dict) -> _Watch:
        return self


def _collected(ref: _Watch) -> None:
    if _subscribers:
        _deliver((_COLLECTED, next(_seq), _context.thread, ref.ident))


_current_links: Any = None


def _links_stack() -> Any:
    """link's thread-local Link stack (imported late: link imports the engine, which
    imports us)."""
    global _current_links
    from autograd_lab import link  # noqa: PLC0415
    _current_links = link._scope  # the thread-local that link.current_links() reads
    return _current_links


def _scope() -> str | None:
    """The path of the innermost running Link (only computed while observed)."""
    links = _current_links or _links_stack()
    try:
        stack = links.stack
    except AttributeError:  # first time in this thread: an empty stack, so later reads are fast
        stack = links.stack = []
    return stack[-1].path if stack else None


def variable_created(var: Any, creator: Any = None, scope: Any = False) -> None:
    if not _subscribers:  # only FunctionHooks observe: no event to build
        return
    node = var._node
    ident = node._uid or uid(node)
    data = var._data
    _deliver((_CREATED, next(_seq), _context.thread, ident, node.name, node.shape,
              _dtype_name(node.dtype), _device_name(data), var._requires_grad,
              _is_parameter(type(var)), None if creator is None else creator._uid or uid(creator),
              _snap(data), _scope() if scope is False else scope))
    watch = node._variable = _Watch(var, _collected)
    watch.ident = ident


def function_applied(func: Any, inputs: Any, outputs: tuple, recorded: bool) -> None:
    if not _subscribers:
        return
    # The hottest announce point (every operation observed): one flat group (see
    # ``_apply_members``), built with plain loops and as few reads as possible.
    func_id = func._uid
    if func_id is None:
        # Named by the thread applying it, before anyone else can have seen it in a graph.
        func_id = func._uid = next(_ids)
    try:  # _scope(), inlined: this runs for every operation observed
        stack = _current_links.stack
    except AttributeError:  # link's thread-local not looked up yet, or a new thread
        scope = _scope()
    else:
        scope = stack[-1].path if stack else None
    context = _context
    group = [_APPLY_GROUP, len(outputs) + 1, context.thread, 0, func_id, type(func).__name__,
             func.label, func.rank if recorded else 0, recorded, context.func_id, scope,
             len(inputs)]
    for x in inputs:
        node = x._node
        group.append(node._uid or uid(node))
    ids, seq = _ids, _seq
    for y in outputs:
        node = y._node
        # A fresh output, made by apply in this thread: naming it needs no lock.
        ident = node._uid = next(ids)
        data = y._data
        if type(data) is _ndarray and data.size <= SNAPSHOT_MAX_ELEMENTS \
                and not data.dtype.hasobject:  # as _snap, with shape and dtype from the node
            group += (next(seq), ident, node.shape, node.dtype, y._requires_grad, '@numpy',
                      data.tobytes())
        else:
            group += (next(seq), ident, node.shape, node.dtype, y._requires_grad,
                      _device_name(data), _snap(data))
        watch = node._variable = _Watch(y, _collected)
        watch.ident = ident
    group[3] = next(seq)  # FunctionApplied comes after its outputs' VariableCreated
    _deliver_group(tuple(group))


def grad_changed(event_type: type, var: Any) -> None:
    if not _subscribers:
        return
    gv = var._grad_var  # not ``var.grad``: a Parameter's getter may refuse to answer
    node = var._node
    _deliver((_codes[event_type], next(_seq), _context.thread, node._uid or uid(node),
                 _snap(gv._data if gv is not None else var._grad)))


def variable_renamed(var: Any) -> None:
    if not _subscribers:
        return
    emit(VariableRenamed(var_id=uid(var), name=var._node.name))


def parameter_updated(param: Any, rule: Any) -> None:
    if not _subscribers:
        return
    emit(ParameterUpdated(var_id=uid(param), optimizer=getattr(rule, 'optimizer_name', ''),
                          rule=type(rule).__name__, step=rule.t, data=snapshot(param._data)))
