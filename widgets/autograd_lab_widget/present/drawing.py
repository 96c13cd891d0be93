"""What the browser draws: the DOT of a view's state, and per node the texts and classes
the browser writes into its cells.

Each node is a record of fixed-size cells (:mod:`.node_cells`), so a backward step changes
texts and classes in place and the graph does not move; a big graph is cut down first
(:mod:`.shaping`).  The *structure key* is a hash of the DOT without texts and colours;
while it stays the same, the browser rewrites the cells it is sent (:attr:`Frame.nodes`)
instead of laying the graph out again.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> from autograd_lab.graph import GraphModel
>>> from autograd_lab_widget.naming import Names
>>> from autograd_lab_widget.follow.state import ViewState
>>> x = chainer.Variable(np.array(2.0), name='x')
>>> state = ViewState(GraphModel.from_outputs(x * x))
>>> frame = draw(state, dict(DEFAULT_OPTIONS), names=Names())
>>> frame.dot.startswith('digraph'), frame.nodes[f'n{events.uid(x)}']['text']
(True, {'name': 'x', 'data': '2.0', 'gcap': 'grad', 'grad': '—'})
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from autograd_lab import graph

from autograd_lab_widget import protocol
from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.naming import Names
from autograd_lab_widget.present import lens_cells
from autograd_lab_widget.present.node_cells import Look, NodeDrawer
from autograd_lab_widget.present.shaping import (
    collapse_paths, depth_limited, keep_forward_still, made_by_backward, structure_key, window)
from autograd_lab_widget.protocol import FONT_SIZE

DEFAULT_OPTIONS = protocol.OPTION_DEFAULTS

_LINK_NODE = re.compile(r'\bid="?link:')


@dataclass
class Frame:
    """One drawing: the DOT, its structure key, and per engine node what the browser
    writes in place (``{'n<id>': {'class': ..., 'text': {cell: text},
    'cell': {cell: classes}}}``; cells in order)."""

    dot: str
    key: str
    nodes: dict
    shown: int
    total: int
    window: frozenset | None = None  # the node ids drawn when a window was needed
    links: int = 0  # collapsed Link nodes drawn
    focus: int | None = None  # the node the browser centres on when the graph is big


#: Graph attributes: compact ranks, transparent background (the host's shows through).
GRAPH_ATTRS = {'nodesep': '0.25', 'ranksep': '0.3', 'bgcolor': 'transparent', 'pad': '0.1'}
#: Graphs with more nodes than this are laid out with fewer crossing-reduction passes
#: (``mclimit``): about half the layout time at 500 nodes, hardly a different picture.
BIG_GRAPH = 150
BIG_ATTRS = {'mclimit': '0.2'}


def draw(state: ViewState, options: dict, *, names: Names, roots: Iterable[int] = (),
         roles: dict[int, str] | None = None, expanded: set[str] = frozenset(),
         focus: list[int] = (), keep: frozenset[int] | None = None,
         look: Look | None = None) -> Frame:
    """The drawing of ``state`` under ``options`` (see the module docstring).

    Big graphs are reduced before layout: Link scopes collapsed first; when even that
    leaves more than ``max_nodes`` units, a window of the nodes nearest to ``focus``
    (the next function, else the outputs) is drawn.
    """
    model = state.model
    roots = list(roots)
    focus = list(focus)
    names.learn(model)
    look = look or Look()
    look.show_values, look.show_grads = options['show_values'], options['show_grads']
    look.lens = bool(options.get(lens_cells.OPTION))
    shown_model = depth_limited(model, roots, options['max_depth'])
    budget = options['max_nodes']
    collapse = (collapse_paths(shown_model, budget, expanded)
                if options['auto_collapse'] else [])
    unscoped = sum(1 for n in shown_model.nodes.values() if not n.scope or n.scope == '/')
    win = None
    too_many = not collapse or len(collapse) + unscoped > budget
    if len(shown_model.nodes) > budget and too_many:
        win = window(shown_model, [*focus, *roots] if focus else roots, budget, keep)
        shown_model = shown_model.subgraph(win)
        collapse = []
    roles = {i: r for i, r in (roles or {}).items() if i in shown_model.nodes}
    drawer = NodeDrawer(state, names.table(model), look, roles)
    signature = None
    if not collapse and len(shown_model.nodes) <= budget:
        # every node is drawn as itself: the cells first, and the layout only if it changed
        drawn = {i: n for i, n in shown_model.nodes.items()
                 if (options['max_order'] is None or n.order <= options['max_order'])
                 and not (options['hide_constants'] and n.kind == 'constant')}
        signature = (options['rankdir'], look.grows, win,
                     tuple((i, drawer.layout(n)) for i, n in drawn.items()),
                     tuple((e.src, e.dst, e.cut, e.order) for e in shown_model.edges
                           if e.src in drawn and e.dst in drawn))
        if look.last is not None and look.last[0] == signature:
            _, dot, key, links = look.last
            center = next((f for f in [*focus, *roots] if f'n{f}' in drawer.nodes), None)
            return Frame(dot, key, drawer.nodes, len(drawer.nodes), len(model.nodes), win,
                         links, center)
    attrs = GRAPH_ATTRS if len(shown_model.nodes) <= BIG_GRAPH else {**GRAPH_ATTRS, **BIG_ATTRS}
    dot = graph.to_dot(shown_model, rankdir=options['rankdir'], collapse=collapse,
                       hide_constants=options['hide_constants'], max_nodes=budget,
                       max_order=options['max_order'], legend=False, highlight=roles,
                       draw_node=drawer, font_size=FONT_SIZE, font_name='Courier',
                       graph_attrs=attrs,
                       link_note=lens_cells.link_note(state) if look.lens else None)
    if look.grows or any(made_by_backward(n) for n in shown_model.nodes.values()):
        dot = keep_forward_still(dot, {f'n{i}' for i, n in shown_model.nodes.items()
                                       if not n.order})
    center = next((f for f in [*focus, *roots] if f'n{f}' in drawer.nodes), None)
    key = structure_key(dot)
    links = len(_LINK_NODE.findall(dot))
    look.last = None if signature is None else (signature, dot, key, links)
    return Frame(dot, key, drawer.nodes, len(drawer.nodes), len(model.nodes), win, links,
                 center)
