"""The event log (a bounded ring buffer) and the snapshot policy for values in events.

An :class:`EventLog` keeps the last ``maxlen`` events it was given and counts the ones
it had to drop; :func:`~autograd_lab.events.recording` subscribes one for a ``with``
block.  Events hold :func:`snapshot` s of arrays, never the arrays themselves: a copy
of a small array (at most :data:`SNAPSHOT_MAX_ELEMENTS` elements), a
:class:`~autograd_lab.events.Summary` of a larger one, so a log never keeps a
graph's memory alive and never changes when the engine writes an array in place.

>>> import numpy as np
>>> snapshot(np.arange(3.0))
array([0., 1., 2.])
>>> s = snapshot(np.ones(1000, np.float32))
>>> s.shape, s.dtype, s.mean
((1000,), 'float32', 1.0)
>>> from autograd_lab.events.types import VariableRenamed
>>> log = EventLog(maxlen=2)
>>> for k in range(3):
...     log(VariableRenamed(var_id=k, name=f'v{k}'))
>>> [e.var_id for e in log], log.dropped
([1, 2], 1)
"""

from __future__ import annotations

import collections
import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy

from autograd_lab.events import codec
from autograd_lab.events.types import Event, Summary

#: Arrays of at most this many elements are copied into events; larger ones are summarised.
SNAPSHOT_MAX_ELEMENTS = 64
#: Default bound of an :class:`EventLog` (a ring buffer: the oldest events are dropped).
DEFAULT_LOG_SIZE = 100_000


def snapshot(array: Any) -> Any:
    """A CPU copy of a small array, a :class:`Summary` of a large one, None for None."""
    if array is None:
        return None
    if type(array) is numpy.ndarray and array.size <= SNAPSHOT_MAX_ELEMENTS:
        return array.copy()  # the common case, first
    array = getattr(array, 'array', array)  # a Variable's array
    if not isinstance(array, numpy.ndarray):
        getter = getattr(array, 'get', None)  # a GPU array
        array = getter() if getter is not None else numpy.asarray(array)
    if array.size <= SNAPSHOT_MAX_ELEMENTS:
        return numpy.array(array, copy=True)
    finite = numpy.isfinite(array)
    values = array[finite] if not finite.all() else array
    stats = values.astype(numpy.float64) if values.size else numpy.zeros(1)
    return Summary(array.shape, str(array.dtype), float(stats.min()), float(stats.max()),
                   float(stats.mean()), float(numpy.linalg.norm(stats.ravel())),
                   int(numpy.isnan(array).sum()), int(numpy.isinf(array).sum()))


class EventLog(collections.abc.Sequence):
    """A bounded, thread-safe list of events (a ring buffer of ``maxlen`` events).

    ``dropped`` counts the oldest events pushed out.  Events are made from their
    records when read, so two reads of one position give equal, not identical, events.
    Reading changes nothing: ``len``, ``dropped`` and every read are worked out from
    what is stored, and no read keeps an event the ring buffer has let go.
    """

    def __init__(self, maxlen: int = DEFAULT_LOG_SIZE) -> None:
        # One slot per stored item: an event, a record, or a group of several events
        # (see codec).  Every item holds at least one event, so ``maxlen`` items hold
        # enough for readers to see the last ``maxlen`` events, and memory stays bounded.
        self._items: collections.deque = collections.deque(maxlen=maxlen)
        self.maxlen = maxlen
        self._append = self._items.append
        # Counting what was stored, for ``dropped``.  While the engine's only listener the
        # recorder appends to ``_items`` itself and counts nothing: every seq handed out
        # in that span is one event stored here.  Otherwise counters count stores:
        # ``_tallies[n]`` those of n events at once, a counter that is read without
        # being advanced (see ``codec.counter``) and advanced by one C call, which no
        # other thread can interrupt.
        self._lone_since: int | None = None  # seq at which it became the only listener
        self._lone_events = 0  # events of earlier spans as the only listener
        self._tallies: dict = {}  # n -> its counter
        self._tally = self._counter(1)
        self._lock = threading.Lock()

    # ---- storing -----------------------------------------------------------------------

    def __call__(self, event: Event) -> None:
        """Store one event (or record): the log is a subscriber callback."""
        self._append(event)
        self._tally()

    def _store_group(self, group: tuple) -> None:
        """Store a group of events (see codec) when not the only listener."""
        self._append(group)
        self._counter(group[codec.N_EVENTS])()

    def _alone(self, alone: bool) -> None:
        """Start or end a span as the engine's only listener, in which the recorder appends
        to ``_append`` itself (subscription's lock held)."""
        with self._lock:
            if alone:
                self._lone_since = codec.seq_now()
            elif self._lone_since is not None:
                self._lone_events += codec.seq_now() - self._lone_since
                self._lone_since = None

    def _counter(self, n: int) -> Callable:
        """The function that counts one store of ``n`` events."""
        counter = self._tallies.get(n)
        if counter is None:  # setdefault: two threads making one agree on it
            counter = self._tallies.setdefault(n, codec.counter())
        return counter.__next__

    @property
    def dropped(self) -> int:
        """How many of the oldest events were pushed out (exact once emitters are done, and
        no subscriber came or went while they ran)."""
        with self._lock:
            stored = self._lone_events
            if self._lone_since is not None:
                stored += codec.seq_now() - self._lone_since
        stored += sum([n * codec.count(counter) for n, counter in list(self._tallies.items())])
        return max(0, stored - len(self))

    # ---- reading -----------------------------------------------------------------------

    def _view(self) -> tuple:
        """(items, starts, skip): the stored items (a snapshot: other threads may go on
        emitting), where each one's events start, and how many first events are past
        ``maxlen``."""
        kept = list(self._items)
        starts = list(itertools.accumulate(map(codec.size, kept), initial=0))
        return kept, starts, max(0, starts[-1] - self.maxlen)

    def __getitem__(self, index: Any) -> Any:
        items, starts, skip = self._view()
        size = starts[-1] - skip
        if isinstance(index, slice):
            start, stop, step = index.indices(size)
            if step == 1:
                return [codec.materialise(r) for r in
                        codec.records(items, starts, skip + start, skip + max(start, stop))]
            return [self[i] for i in range(start, stop, step)]
        i = index + size if index < 0 else index
        if not 0 <= i < size:
            raise IndexError('event log index out of range')
        return codec.materialise(next(codec.records(items, starts, skip + i, skip + i + 1)))

    def __iter__(self) -> Any:
        items, starts, skip = self._view()
        for record in codec.records(items, starts, skip, starts[-1]):
            yield codec.materialise(record)

    def __reversed__(self) -> Any:
        return reversed(list(self))  # one snapshot, not a copy per position

    def __len__(self) -> int:
        # Every item holds at least one event, so a full ring buffer holds ``maxlen``.
        return min(sum(map(codec.size, list(self._items))), self.maxlen)

    def of_kind(self, *kinds: str) -> list:
        """The events whose ``kind`` is one of ``kinds``."""
        items, starts, skip = self._view()
        return [codec.materialise(r) for r in codec.records(items, starts, skip, starts[-1])
                if codec.kind_of(r) in kinds]
