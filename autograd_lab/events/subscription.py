"""Subscribing: who gets the events, and how they reach them.

:func:`subscribe` registers a callback for every event, from every thread;
:func:`recording` subscribes an :class:`~autograd_lab.events.EventLog` for a ``with``
block.  Whenever the subscribers change, this module tells the recorder where its
records go: straight into the log when a log is the only subscriber (the cheapest
way to record), otherwise to each subscriber in turn (a log stores records and
groups as they are, any other callback gets each typed event).  While nobody
subscribes, ``autograd_lab.events.recorder`` builds nothing: it is None, or, while
FunctionHooks are registered, one that only keeps the backward context they read.

>>> import numpy as np, autograd_lab as chainer
>>> seen = []
>>> with subscribe(seen.append):
...     x = chainer.Variable(np.array(1.0), name='x')
>>> [e.kind for e in seen]
['variable_created']
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

from autograd_lab.events import codec, recorders
from autograd_lab.events.log import DEFAULT_LOG_SIZE, EventLog
from autograd_lab.events.types import Event

_lock = threading.RLock()
_subscribers: tuple = ()
_lone_log: EventLog | None = None  # the log the recorder appends to directly, if any
_hooks = False  # whether FunctionHooks are registered (see ``hooks_changed``)


class EventSubscriberWarning(UserWarning):
    """A subscriber raised; the computation went on without it noticing."""


class Subscription:
    """Handle returned by :func:`subscribe`; also a context manager that unsubscribes."""

    def __init__(self, callback: Callable[[Event], Any]) -> None:
        self.callback = callback

    def unsubscribe(self) -> None:
        global _subscribers
        with _lock:
            _subscribers = tuple(s for s in _subscribers if s is not self)
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
    global _subscribers
    sub = Subscription(callback)
    with _lock:
        _subscribers = (*_subscribers, sub)
        _rewire()
    return sub


def hooks_changed(registered: int) -> None:
    """``registered`` FunctionHooks are registered now (told by
    :mod:`autograd_lab.function_hook`).  While any are, the engine has a recorder even
    with no subscriber: one that builds no events but keeps the backward context
    hooks read (:func:`~autograd_lab.events.in_backward_of`)."""
    global _hooks
    with _lock:
        if _hooks != (registered > 0):
            _hooks = registered > 0
            _rewire()


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


def _rewire() -> None:
    """Point the recorder at the current subscribers (under ``_lock``)."""
    global _lone_log
    subs = _subscribers
    log = subs[0].callback if len(subs) == 1 and type(subs[0].callback) is EventLog else None
    if log is not _lone_log:
        if _lone_log is not None:
            _lone_log._alone(False)
        if log is not None:
            log._alone(True)
        _lone_log = log
    if log is not None:
        # records, groups and events all go into its ring buffer, as they are
        recorders.deliver_to(log._append, holds_steps=True)
    elif subs:
        recorders.deliver_to(_to_each)
    else:
        recorders.deliver_to(None)
    from autograd_lab import events  # noqa: PLC0415 - the package, importing this module
    events.recorder = recorders.RECORDER if subs else recorders.HOOKS_ONLY if _hooks else None
    events.active = events.recorder is not None


def _notify(callback: Callable[[Event], Any], event: Event) -> None:
    try:
        callback(event)
    except Exception as error:  # an observer must never break the computation
        warnings.warn(f'event subscriber {callback!r} raised {error!r} on '
                      f'{event.kind}', EventSubscriberWarning, stacklevel=4)


def _to_each(item: Any) -> None:
    """The sink while several subscribers (or one that is not a log) listen: a log stores
    a record or group as it is, any other subscriber gets each of its typed events."""
    if type(item) is not tuple:  # an Event (see ``recorders.emit``)
        for sub in _subscribers:
            _notify(sub.callback, item)
        return
    group = item[codec.CODE] < 0
    events = None
    for sub in _subscribers:
        callback = sub.callback
        if type(callback) is EventLog:
            if group:
                callback._store_group(item)
            else:
                callback(item)
            continue
        if events is None:
            events = [codec.materialise(r) for r in codec.members(item)] if group \
                else [codec.materialise(item)]
        for event in events:
            _notify(callback, event)
