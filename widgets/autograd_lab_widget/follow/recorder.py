"""Forward values for views made after the computation.

The engine frees an intermediate Variable as soon as nothing refers to it, and keeps
its values only where a backward needs them.  A view made afterwards
(``y = x**2 - 2*x + 1`` then ``GraphView(y)``) could not show what ``x**2`` was.  So,
in a notebook kernel (Jupyter's or marimo's), importing :mod:`autograd_lab_widget`
starts one bounded :class:`autograd_lab.events.EventLog` for the session (the engine's
cheapest listener: about 1.5-1.7x on forward while it is the only one); a view built from
outputs takes the values of the variables it did not see made from it, and marks them
as freed.

:func:`record_values` turns it on or off (``record_values(False)`` makes the engine
unobserved again, until a view is opened); outside a kernel (scripts, tests) it is off
unless turned on.  The log keeps the latest :data:`MAX_EVENTS` events: values of a
graph made long before its view are then unknown and drawn as ``?``.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> from autograd_lab.graph import GraphModel
>>> record_values(True)
>>> x = chainer.Variable(np.array(5.0), name='x')
>>> y = x ** 2 + 1
>>> model = GraphModel.from_outputs(y)
>>> square = events.uid(y.creator.inputs[0])
>>> model.nodes[square].data is None         # freed, and not kept for backward
True
>>> fill(model)
>>> float(model.nodes[square].data)
25.0
>>> record_values(False)
"""

from __future__ import annotations

from autograd_lab import events, graph

from autograd_lab_widget import hosts

#: Events the session log keeps (enough for the graphs of a lesson; bounded memory).
MAX_EVENTS = 20_000

_VALUE_KINDS = ('variable_created', 'data_changed', 'parameter_updated')
_log: events.EventLog | None = None
_subscription: events.Subscription | None = None


def record_values(on: bool = True, maxlen: int = MAX_EVENTS) -> None:
    """Start (or stop) recording the values of new variables for views made later."""
    global _log, _subscription
    if on and _subscription is None:
        _log = events.EventLog(maxlen)
        _subscription = events.subscribe(_log)
    elif not on and _subscription is not None:
        _subscription.unsubscribe()
        _subscription, _log = None, None


def recording_values() -> bool:
    """True while the session log records values."""
    return _subscription is not None


def start_in_kernel() -> None:
    """Record values when running in a notebook kernel, Jupyter's or marimo's (called on
    import)."""
    if hosts.current() != 'python':
        record_values(True)


def fill(model: graph.GraphModel) -> None:
    """Give the variables of ``model`` whose values it lacks the recorded ones (their
    latest: made, or changed since)."""
    log = _log
    if log is None:
        return
    missing = {i for i, n in model.nodes.items() if n.category == 'variable' and n.data is None}
    if not missing:
        return
    found = {}
    for e in log.of_kind(*_VALUE_KINDS):
        if e.var_id in missing and e.data is not None:
            found[e.var_id] = e.data
    for ident, value in found.items():
        model.nodes[ident].data = value
