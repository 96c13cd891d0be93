"""Following the engine: a session's subscription to its events, kept within bounds.

:func:`subscribe` makes the subscription (a weak one: a dropped session stops
listening by itself); :class:`Bounds` applies the memory policy of
:mod:`~autograd_lab_widget.follow.bounds` to what the session keeps: old events folded
into the history's checkpoint, nodes nothing alive can reach pruned, and with them
what the session keeps per node.  At interpreter exit every session stops following
first (the engine then announces every Variable the shutdown collects, and nothing
should draw for that).

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget.session.stepping import StepModel
>>> model = StepModel(chainer.Variable(np.array(2.0)) * 3)
>>> model.following, model in FOLLOWING
(True, True)
>>> model.close(); model.following, model in FOLLOWING
(False, False)
"""

from __future__ import annotations

import atexit
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from autograd_lab import events, graph

from autograd_lab_widget.follow import bounds, recorder
from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.follow.timeline import Timeline
from autograd_lab_widget.index import ObjectIndex

if TYPE_CHECKING:
    from autograd_lab_widget.session.stepping import StepModel

#: Sessions following the engine (they stop first at interpreter exit).
FOLLOWING: weakref.WeakSet = weakref.WeakSet()


def subscribe(model: StepModel) -> events.Subscription:
    """Subscribe ``model.on_event`` to the engine's events, without keeping ``model``
    alive: once it is collected, it unsubscribes."""
    me = weakref.ref(model, lambda _ref: sub.unsubscribe())

    def listener(event: events.Event) -> None:
        session = me()
        if session is None:  # the session was dropped: stop listening
            sub.unsubscribe()
            return
        session.on_event(event)

    sub = events.subscribe(listener)
    FOLLOWING.add(model)
    return sub


class Bounds:
    """When to fold old events into the checkpoint and prune dead nodes (amortised)."""

    def __init__(self, model: StepModel, history: int) -> None:
        self.model = model
        self.history = history
        self.open_runs: set[int] = set()  # backward runs started and not finished
        self.prune_at = bounds.next_prune_at(len(model.live.model.nodes))

    def track(self, e: events.Event) -> None:
        """Note a run starting or finishing (a graph is not pruned while a run is open)."""
        if e.kind == 'backward_started':
            self.open_runs.add(e.run_id)
        elif e.kind == 'backward_finished':
            self.open_runs.discard(e.run_id)

    def keep(self) -> None:
        """Fold old events into the checkpoint and drop dead nodes, when due."""
        model = self.model
        timeline = model.timeline
        if len(timeline) > bounds.trim_at(self.history):
            self.trim(len(timeline) - self.history)
        size = len(model.live.model.nodes)
        if size > self.prune_at and (not self.open_runs
                                     or size > bounds.PRUNE_FORCE * self.prune_at):
            Timeline.prune(model.live, model.pinned())
            self.prune_at = bounds.next_prune_at(len(model.live.model.nodes))
            # what the session keeps per node goes with the nodes (those of the history
            # window's checkpoint stay too: Back can show them)
            keep = set(model.live.model.nodes)
            if timeline.base is not None:
                keep |= set(timeline.base.model.nodes)
            model.forget_nodes(keep)

    def trim(self, k: int) -> None:
        """Fold the oldest ``k`` events into the checkpoint."""
        self.model.timeline.trim(k, self.model.pinned(), bounds.PRUNE_FORCE * self.prune_at)
        self.model.travel.trimmed(k)


def start_history(roots: list, index: ObjectIndex, events_log: Sequence | None,
                  links: Any) -> Timeline:
    """The history a session starts from: a recording (``events_log``), or the live
    graph behind ``roots`` as it is now (its freed intermediates' values from the
    session log).  ``index`` learns the graph's objects, in data-flow order."""
    scopes: dict[int, str] = {}
    if events_log is not None:
        entries, base = list(events_log), None
        if links is not None and roots:
            # parameters made before the recording have no event: their Link path
            # (and so their place in a collapsed Link) comes from the links
            walked = graph.GraphModel.from_outputs(roots, links=links, log=entries)
            scopes = {i: n.scope for i, n in walked.nodes.items() if n.scope}
    else:
        entries = []
        model = graph.GraphModel.from_outputs(roots, links=links) if roots \
            else graph.GraphModel()
        recorder.fill(model)  # the values of intermediates freed before the view
        base = ViewState(model)
    index.walk(roots)  # after the walk above: ids then follow the data flow
    if base is not None:
        orders_from_objects(base.model, index)

    def patch_scopes(model: graph.GraphModel) -> None:
        for ident, scope in scopes.items():
            node = model.nodes.get(ident)
            if node is not None and not node.scope:
                node.scope = scope
    return Timeline(entries, base, patch=patch_scopes)


def orders_from_objects(model: graph.GraphModel, index: ObjectIndex) -> None:
    """Mark grad-of-grad functions whichever output the view was made from: a graph
    walked from a grad (``GraphView(gx)``) has no events that say its functions were
    made by a backward, but each FunctionNode knows its ``backward_order``."""
    changed = False
    for ident, node in model.nodes.items():
        if node.category == 'function':
            order = getattr(index.get(ident), 'backward_order', 0)
            if order > node.order:
                node.order = order
                changed = True
    if changed:
        model.refresh()


@atexit.register
def _stop_following() -> None:
    for model in list(FOLLOWING):
        model.close()
