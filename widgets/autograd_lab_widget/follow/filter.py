"""Which engine events a view takes: those that concern its graph.

The engine announces everything it does, for every graph.  A view keeps the events of
its own graph: a variable or function joins it when it touches a node already in it, a
backward run when it starts from one of its nodes.  A new variable is held back until
a function links it to the graph (most variables of a notebook never join it).

Another graph that merely shares an input is not the view's: a new forward joins only
through a node ``joins(ident)`` allows (a view of outputs allows Parameters, so that a
model training shows up, and intermediates, not a plain input), and the grads a
backward of another graph gives the shared nodes are not the view's to show.

>>> from autograd_lab import events
>>> take = EventFilter(lambda ident: ident == 1)
>>> take.take(events.VariableCollected(var_id=2))
[]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autograd_lab import events

#: Most VariableCreated events held while waiting to learn whether they join the graph.
MAX_PENDING = 10_000


class EventFilter:
    """Decides, event by event, what a view records; ``known(ident)`` says whether a node
    is in the view's graph now."""

    def __init__(self, known: Callable[[Any], bool],
                 joins: Callable[[Any], bool] | None = None) -> None:
        self._known = known
        self._joins = joins if joins is not None else known
        self._runs: set[int] = set()  # runs over this graph whose events we take
        self._current: int | None = None  # the backward run whose events come now
        # the latest grad another graph's backward gave each shared node: shown only once
        # this graph's own backward starts (it adds to them), else never
        self._foreign: dict[int, events.Event] = {}
        self._pending: dict[int, events.Event] = {}  # variables not (yet) in the graph

    def take(self, e: events.Event) -> list:
        """The events to record for ``e`` (held variables it links come first): [] when
        it does not concern this graph."""
        kind = e.kind
        if kind == 'variable_collected':  # a variable we were waiting on is gone
            self._pending.pop(e.var_id, None)
        if kind == 'variable_created':
            return self._created(e)
        if kind == 'function_applied':
            return self._applied(e)
        if kind in ('backward_started', 'backward_step_started', 'backward_step_done',
                    'backward_finished'):
            return self._backward(e)
        if kind == 'unchained':
            ids = (e.root_id, *e.var_ids, *e.func_ids)
            return [e] if any(self._known(i) for i in ids) else []
        ident = getattr(e, 'var_id', None)
        if kind.startswith('grad_'):
            if self._current is not None and self._current not in self._runs:
                if self._known(ident):  # a backward of another graph gave a shared node it
                    self._foreign[ident] = e
                return []
            self._foreign.pop(ident, None)  # superseded (a cleargrad, our own backward)
        return [e] if ident is not None and self._known(ident) else []

    def _created(self, e: events.Event) -> list:
        if self._known(e.var_id):
            return [e]
        self._pending[e.var_id] = e
        if len(self._pending) > MAX_PENDING:
            self._pending.pop(next(iter(self._pending)))
        return []

    def _applied(self, e: events.Event) -> list:
        if not e.recorded:  # no graph was made (a grad summed outside double backprop)
            return []
        if e.in_backward_of is None:  # a forward: it joins only where joins() allows
            if not any(self._joins(i) for i in e.input_ids):
                return []
        elif not (any(self._known(i) for i in e.input_ids) or self._known(e.in_backward_of)):
            return []
        ids = (*e.input_ids, *e.output_ids)
        held = [self._pending.pop(i) for i in dict.fromkeys(ids)
                if i in self._pending and not self._known(i)]
        return sorted(held, key=lambda v: v.seq) + [e]

    def _backward(self, e: events.Event) -> list:
        self._current = None if e.kind == 'backward_finished' else e.run_id
        if e.kind == 'backward_started':
            if any(self._known(i) for i in e.root_ids):
                self._runs.add(e.run_id)
                held = sorted(self._foreign.values(), key=lambda g: g.seq)
                self._foreign.clear()
                return [*held, e]  # the grads it adds to, then the run
            return []
        if e.run_id not in self._runs:
            return []
        if e.kind == 'backward_finished':
            self._runs.discard(e.run_id)  # no more events of this run will come
        return [e]


def shared_input_stays_out(nodes: Callable[[], dict]) -> Callable[[Any], bool]:
    """The ``joins`` of a view of outputs (``nodes()``: its graph's nodes now): a new
    forward joins through a Parameter (a model training) or an intermediate, not through
    a plain input that another graph shares."""
    def joins(ident: Any) -> bool:
        node = nodes().get(ident)
        return node is not None and (node.is_parameter or node.creator_id is not None)
    return joins
