"""What a live view keeps: a window of recent events, and the nodes still alive.

A view left open while a model trains sees every step's graph (each one uses the
Parameters it already shows).  Without bounds it would keep every event and every
node forever.  The policy:

* **History.**  The view keeps the latest ``history`` events (default
  :data:`HISTORY_EVENTS`).  When it holds 10% more, the oldest are folded into a
  checkpoint graph model (the graph as it was at the start of the window), so Back /
  Forward replay from the checkpoint and are exact within the window; positions
  before the window are gone.
* **Nodes.**  A node stays while it can still matter: a variable whose Variable object
  is alive (no ``VariableCollected`` yet), a Parameter, a pinned id (the view's
  outputs, the selection), and everything upstream of those.  The graph of an old
  training step goes once its loss Variable is collected; Parameters persist.
  Pruning costs one walk of the model, so it runs only when the model has doubled
  (at least :data:`PRUNE_MIN` more nodes) since the last prune: amortised O(1) per
  node.  A backward run's bookkeeping is private to the graph model and a copy loses
  it, so pruning waits until no backward is half-way, unless the model is
  :data:`PRUNE_FORCE` times over its mark.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events, graph
>>> with events.recording() as log:
...     w = chainer.Parameter(np.ones(2, np.float32))
...     for _ in range(3):                 # three "training steps", each graph dropped
...         loss = chainer.functions.sum(w * 2)
...     del loss
>>> model = graph.GraphModel.from_events(list(log))
>>> kept = prune(model, pinned=())
>>> len(model.nodes), [n.kind for n in kept.nodes.values()]   # only the Parameter is left
(13, ['parameter'])
"""

from __future__ import annotations

from collections.abc import Iterable

from autograd_lab import graph

#: Events a view keeps for time travel (Back/Forward), unless ``GraphView(history=...)``.
HISTORY_EVENTS = 10_000
#: The smallest growth (in nodes) that triggers a prune of the live graph model.
PRUNE_MIN = 500
#: A model this many times over its mark is pruned even while a backward is half-way.
PRUNE_FORCE = 4


def trim_at(history: int) -> int:
    """Log length at which the oldest events are folded away (10% slack: trims are rare)."""
    return history + max(history // 10, 1)


def next_prune_at(kept: int) -> int:
    """Node count at which a model of ``kept`` nodes is pruned next."""
    return max(2 * kept, kept + PRUNE_MIN)


def alive(model: graph.GraphModel, pinned: Iterable[int]) -> set[int]:
    """Ids of the nodes that can still matter (see the module docstring)."""
    nodes = model.nodes
    anchors = {i for i in pinned if i in nodes}
    anchors.update(i for i, n in nodes.items() if n.category == 'variable'
                   and (n.is_parameter or 'collected' not in n.states))
    return anchors | model.upstream_many(anchors)


def prune(model: graph.GraphModel, pinned: Iterable[int]) -> graph.GraphModel:
    """``model`` without the nodes nothing alive can reach (``model`` itself if none)."""
    keep = alive(model, pinned)
    if len(keep) == len(model.nodes):
        return model
    return model.subgraph(keep).refresh()
