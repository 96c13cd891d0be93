"""Graph events: the engine announces what it does; observers subscribe.

Every notable thing the engine does is one small, typed, immutable :class:`Event`:
a variable made, a function applied, each backward step, a gradient set or
accumulated or released, a graph cut, a device move.  Observers (a graph view, a
logger, a test) call :func:`subscribe` or use :func:`recording`; nothing else in
the project reaches into the engine.

Events name variables and functions by stable ids (:func:`uid`): small integers
handed out in order of first appearance, never ``id()``, so they are never reused.

With no subscriber the engine pays one boolean test per operation (``active``).

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

import collections
import itertools
import threading
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy

#: True while at least one subscriber listens; the engine tests it before emitting.
active = False

_lock = threading.Lock()
_subscribers: tuple = ()
_ids = itertools.count(1)
_seq = itertools.count(1)

#: Arrays of at most this many elements are copied into events; larger ones are summarised.
SNAPSHOT_MAX_ELEMENTS = 64
#: Default bound of an :class:`EventLog` (a ring buffer: the oldest events are dropped).
DEFAULT_LOG_SIZE = 100_000


class EventSubscriberWarning(UserWarning):
    """A subscriber raised; the computation went on without it noticing."""


def uid(obj: Any) -> int | None:
    """The stable id of a Variable (its node's), a VariableNode or a FunctionNode."""
    if obj is None:
        return None
    node = getattr(obj, '_node', obj)
    ident = node._uid
    if ident is None:
        ident = node._uid = next(_ids)
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
    """Base of all events: ``seq`` orders them, ``thread`` says which thread emitted."""

    kind = 'event'
    seq: int = field(default_factory=lambda: next(_seq), init=False)
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
    """The next function is about to run its backward, and why it is next."""

    kind = 'backward_step_started'
    run_id: int = 0
    func_id: int = 0
    rank: int = 0
    frontier_ids: tuple = ()
    grad_outputs: tuple = ()
    reason: str = ''


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
class VariableCollected(Event):
    """A Variable object was garbage-collected (its node may live on in the graph)."""

    kind = 'variable_collected'
    var_id: int = 0


# ---- subscribing -----------------------------------------------------------------------------

class Subscription:
    """Handle returned by :func:`subscribe`; also a context manager that unsubscribes."""

    def __init__(self, callback: Callable[[Event], Any]) -> None:
        self.callback = callback

    def unsubscribe(self) -> None:
        global _subscribers, active
        with _lock:
            _subscribers = tuple(s for s in _subscribers if s is not self)
            active = bool(_subscribers)

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
    return sub


def emit(event: Event) -> None:
    """Deliver ``event`` to every subscriber (engine-internal, public for extensions)."""
    for sub in _subscribers:
        try:
            sub.callback(event)
        except Exception as error:  # an observer must never break the computation
            warnings.warn(f'event subscriber {sub.callback!r} raised {error!r} on '
                          f'{event.kind}', EventSubscriberWarning, stacklevel=2)


class EventLog(collections.abc.Sequence):
    """A bounded, thread-safe list of events (a ring buffer of ``maxlen`` events)."""

    def __init__(self, maxlen: int = DEFAULT_LOG_SIZE) -> None:
        self._events: collections.deque = collections.deque(maxlen=maxlen)
        self.maxlen = maxlen
        self.dropped = 0

    def __call__(self, event: Event) -> None:
        if len(self._events) == self.maxlen:
            self.dropped += 1
        self._events.append(event)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return list(self._events)[index]
        return self._events[index]

    def __len__(self) -> int:
        return len(self._events)

    def of_kind(self, *kinds: str) -> list:
        """The events whose ``kind`` is one of ``kinds``."""
        return [e for e in self._events if e.kind in kinds]


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

_context = threading.local()


def in_backward_of() -> int | None:
    """The id of the function whose backward is running in this thread, if any."""
    return getattr(_context, 'func_id', None)


def _device_name(array: Any) -> str:
    if array is None or type(array) is numpy.ndarray:
        return '@numpy'
    from autograd_lab import backend  # noqa: PLC0415 - the engine imports this module
    return str(backend.get_device_from_array(array))


def _collected(var_id: int) -> None:
    if active:
        emit(VariableCollected(var_id=var_id))


def variable_created(var: Any, creator: Any = None) -> None:
    node = var._node
    ident = uid(node)
    emit(VariableCreated(var_id=ident, name=node.name, shape=node.shape,
                         dtype=None if node.dtype is None else str(node.dtype),
                         device=_device_name(var._data), requires_grad=var._requires_grad,
                         is_parameter=hasattr(var, 'update_rule'), creator_id=uid(creator),
                         data=snapshot(var._data)))
    weakref.finalize(var, _collected, ident)


def function_applied(func: Any, inputs: Any, outputs: tuple, recorded: bool) -> None:
    creator = func if recorded else None
    for y in outputs:
        variable_created(y, creator)
    emit(FunctionApplied(func_id=uid(func), type=type(func).__name__, label=func.label,
                         rank=func.rank if recorded else 0,
                         input_ids=tuple(uid(x) for x in inputs),
                         output_ids=tuple(uid(y) for y in outputs), recorded=recorded,
                         in_backward_of=in_backward_of()))


def grad_changed(event_type: type, var: Any) -> None:
    emit(event_type(var_id=uid(var), grad=snapshot(var.grad)))
