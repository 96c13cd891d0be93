"""Records and groups: the compact forms a log stores events in, and how they are read.

A **record** is a plain tuple ``(code, seq, thread, *field values)``: ``code`` names the
event's class (:func:`code`), the values follow the class's fields in declaration order.
A tuple of ints, strings and bytes costs a fraction of a frozen dataclass to build, and
the garbage collector stops tracking it, so a full log costs no collection time.  An
:class:`~autograd_lab.events.EventLog` stores records as they are and turns them into
events when they are read (:func:`materialise`); every reader gets the same typed,
immutable events a callback gets at once.

A value that is costly to make and seldom read (the sentence of a step's ``reason``, the
array of frozen bytes) is stored **lazily**: ``(LAZY, function index, *arguments)`` (see
:func:`lazy`), computed only when the event is made.

A **group** stands for the records of several events in one flat tuple; its code is
negative and ``group[N_EVENTS]`` says how many events it holds.  The recorder defines each
kind of group next to the function that reads it back (:func:`register_group`).

>>> from autograd_lab.events.types import VariableRenamed
>>> record = (code(VariableRenamed), 7, 1, 3, 'w')
>>> materialise(record)
VariableRenamed(seq=7, thread=1, var_id=3, name='w')
"""

from __future__ import annotations

import bisect
import dataclasses
import threading
from collections.abc import Callable, Iterator
from typing import Any

from autograd_lab.events.types import Event

_object_new = object.__new__
_object_setattr = object.__setattr__
_lock = threading.Lock()


# ---- sequence numbers --------------------------------------------------------------------------

_END = 1 << 62


def counter(start: int = 0) -> Any:
    """A counter advanced by ``next`` (one C call: threads cannot interleave inside it)
    and read by :func:`count` without being advanced: a range iterator, which can say
    how many numbers it has left.

    >>> c = counter(); next(c), next(c), count(c), count(c)
    (0, 1, 2, 2)
    """
    return iter(range(start, _END))


def count(counter: Any) -> int:
    """The number ``next(counter)`` gives next, read without taking it (for a counter
    from 0: how many it gave)."""
    return _END - counter.__length_hint__()


#: Numbers the events in the order they are delivered: ``next(seq)`` takes one.
seq = counter(1)


def seq_now() -> int:
    """The seq the next event will get, read without taking it."""
    return count(seq)


# ---- lazy values -------------------------------------------------------------------------------

LAZY = '<lazy record value>'  # marks a value written only when the event is made
_lazy_functions: list = []


def lazy(fn: Callable, *args: Any) -> tuple:
    """A record value computed only when the event is made: ``fn(*args)``.

    It is a plain tuple (the function by index): with atomic ``args`` the garbage
    collector stops tracking it, as it does the record.
    """
    with _lock:
        if fn not in _lazy_functions:
            _lazy_functions.append(fn)
        index = _lazy_functions.index(fn)
    return (LAZY, index, *args)


def value(v: Any) -> Any:
    """A record value as the event holds it (lazy values computed)."""
    if type(v) is tuple and v:
        if v[0] is LAZY:
            return _lazy_functions[v[1]](*v[2:])
        for item in v:  # a tuple of values (grads of a step): each may be lazy
            if type(item) is tuple and item and item[0] is LAZY:
                return tuple([value(x) for x in v])
    return v


# ---- records -----------------------------------------------------------------------------------

#: Where a record or a group keeps its code (a group's is negative), and where a group
#: keeps the number of its events: all that is read of a group outside the module that
#: defines its layout.
CODE, N_EVENTS = 0, 1

_classes: list = []
_codes: dict = {}
_layouts: dict = {}  # Event class -> (field names in order, defaults)


def code(cls: type) -> int:
    """The record code of Event class ``cls`` (registered on first use).

    A record names its class by a small int, not by the class itself: a tuple of ints,
    strings and arrays is one the garbage collector stops tracking.
    """
    number = _codes.get(cls)
    if number is None:
        with _lock:
            number = _codes.get(cls)
            if number is None:
                number = _codes[cls] = len(_classes)
                _classes.append(cls)
    return number


def _layout(cls: type) -> tuple:
    layout = _layouts.get(cls)
    if layout is None:
        fields = dataclasses.fields(cls)
        layout = _layouts[cls] = (
            tuple(f.name for f in fields),
            {f.name: f.default for f in fields if f.default is not dataclasses.MISSING})
    return layout


def materialise(record: Any) -> Event:
    """The Event of a record (an Event is returned as it is; a group gives its first)."""
    if type(record) is not tuple:
        return record
    if record[CODE] < 0:
        record = members(record)[0]
    cls = _classes[record[CODE]]
    names, defaults = _layout(cls)
    values = {name: value(v) for name, v in zip(names, record[1:])}
    for name in names[len(values):]:  # trailing fields the record leaves at their default
        values[name] = defaults.get(name)
    event = _object_new(cls)
    _object_setattr(event, '__dict__', values)
    return event


def kind_of(item: Any) -> str:
    """The ``kind`` of a stored event or record (without making the event)."""
    if type(item) is not tuple:
        return item.kind
    return _classes[item[CODE]].kind


# ---- groups ------------------------------------------------------------------------------------

_readers: dict = {}  # group code -> function(group) -> its records, in order


def register_group(group_code: int, reader: Callable[[tuple], list]) -> None:
    """Say how groups with the (negative) code ``group_code`` are read back."""
    assert group_code < 0, 'group codes are negative: records use the others'
    _readers[group_code] = reader


def members(group: tuple) -> list:
    """The records of the events of ``group``, in order."""
    return _readers[group[CODE]](group)


def size(item: Any) -> int:
    """How many events a stored item stands for (a group: several)."""
    return item[N_EVENTS] if type(item) is tuple and item[CODE] < 0 else 1


def records(items: list, starts: list, start: int, stop: int) -> Iterator:
    """The records of events ``start`` to ``stop`` of ``items``, whose events begin at
    ``starts`` (a running sum of their sizes)."""
    k = bisect.bisect_right(starts, start) - 1
    at = start
    while at < stop:
        item = items[k]
        if type(item) is tuple and item[CODE] < 0:
            group = members(item)
            first = at - starts[k]
            take = min(len(group) - first, stop - at)
            yield from group[first:first + take]
            at += take
        else:
            yield item
            at += 1
        k += 1
