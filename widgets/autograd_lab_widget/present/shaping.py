"""Which nodes a drawing shows, and how its DOT keeps still: the graph-shaping helpers of
:func:`~autograd_lab_widget.present.drawing.draw`.

A big graph is cut down before layout (:func:`depth_limited`, :func:`collapse_paths`,
:func:`window`); :func:`search_hits` finds the nodes a search names; a double backprop's
growing gradient graph leaves the forward graph in place (:func:`keep_forward_still`); and
:func:`structure_key` tells when two drawings have the same layout.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab.graph import GraphModel
>>> x = chainer.Variable(np.array(2.0), name='x')
>>> model = GraphModel.from_outputs(x * x + 1)
>>> len(model.nodes), len(depth_limited(model, [chainer.events.uid(x)], 1).nodes)
(5, 1)
>>> search_hits(model, 'X') == {chainer.events.uid(x)}
True
>>> key = structure_key('n1 [label=<<TD>1.0</TD>> color="red"]')
>>> key == structure_key('n1 [label=<<TD>-2.5</TD>> color="blue"]')
True
>>> key == structure_key('n1 [label=<<TD>1.0</TD><TD>1.0</TD>> color="red"]')
False
"""

from __future__ import annotations

import hashlib
import re

from autograd_lab import graph

_TAG_TEXT = re.compile(r'>[^<>]*<')
_STYLE_ATTRS = re.compile(r'\b(?:fillcolor|fontcolor|color|penwidth|class|tooltip)='
                          r'(?:"[^"]*"|[^\s\]]+)')
_CELL_STYLE = re.compile(r'\s(?:BGCOLOR|COLOR|TOOLTIP|STYLE)="[^"]*"')


def made_by_backward(node: graph.Node) -> bool:
    """A grad-of-grad node: a function a backward applied, or a variable it made (a
    leaf such as the input both graphs use is not)."""
    return bool(node.order) and (node.category == 'function' or node.creator_id is not None)


_NODE_STATEMENT = re.compile(r'^\t(n\d+) \[')
_EDGE_STATEMENT = re.compile(r'^\t(n\d+) -> (n\d+) \[')


def keep_forward_still(dot: str, forward: set[str]) -> str:
    """Double backprop adds grad-of-grad nodes at every step, so each step is a new
    layout.  To keep the forward graph where it was, its nodes form one (invisible)
    cluster, and the edges from it into the gradient graph do not pull on it
    (``weight=0``).  Only for graphs without Link clusters (scalar lessons)."""
    if 'subgraph' in dot:
        return dot
    lines = dot.split('\n')
    kept, inside = [], []
    for line in lines:
        m = _NODE_STATEMENT.match(line)
        if m and m.group(1) in forward:
            inside.append('\t' + line)
            continue
        m = _EDGE_STATEMENT.match(line)
        if m and m.group(1) in forward and m.group(2) not in forward:
            line = line.replace(' [', ' [weight=0 ', 1)
        kept.append(line)
    # first of the statements: Graphviz then places it first (on the left)
    start = next(i for i, line in enumerate(kept)
                 if _NODE_STATEMENT.match(line) or _EDGE_STATEMENT.match(line))
    return '\n'.join([*kept[:start], '\tsubgraph cluster_forward {', '\t\tstyle=invis',
                      *inside, '\t}', *kept[start:]])


def structure_key(dot: str) -> str:
    """A hash of ``dot`` without texts, colours, classes and tooltips: while it is the
    same the layout is too, and the browser rewrites cells in place."""
    out = []
    for line in dot.splitlines():
        line = _CELL_STYLE.sub('', _TAG_TEXT.sub('><', line))
        out.append(' '.join(_STYLE_ATTRS.sub('', line).split()))
    return hashlib.sha1('\n'.join(out).encode('utf-8')).hexdigest()


def depth_limited(model: graph.GraphModel, roots: list[int], depth: int) -> graph.GraphModel:
    """The nodes at most ``depth`` hops upstream of ``roots`` (0: no limit)."""
    if depth <= 0 or not roots:
        return model
    back: dict[int, list[int]] = {}
    for e in model.edges:
        back.setdefault(e.dst, []).append(e.src)
    keep = {r for r in roots if r in model.nodes}
    layer = set(keep)
    for _ in range(depth):
        layer = {s for d in layer for s in back.get(d, ())} - keep
        keep |= layer
    return model.subgraph(keep)


def collapse_paths(model: graph.GraphModel, max_nodes: int, expanded: set[str]) -> list[str]:
    """Link paths to draw as single nodes so that a big graph stays under ``max_nodes``.

    Each node's scope is collapsed at its shallowest level the user has not expanded;
    small graphs are never collapsed.
    """
    if len(model.nodes) <= max_nodes:
        return []
    paths = set()
    for n in model.nodes.values():
        if not n.scope or n.scope == '/':
            continue
        parts = n.scope.strip('/').split('/')
        for k in range(1, len(parts) + 1):
            path = '/' + '/'.join(parts[:k])
            if path not in expanded:
                paths.add(path)
                break
    return sorted(paths)


def search_hits(model: graph.GraphModel, text: str, names: dict[int, str] | None = None) \
        -> set[int]:
    """Ids whose drawn name, label, type or scope contains ``text`` (case-insensitive)."""
    text = text.strip().lower()
    if not text:
        return set()
    names = names or {}
    return {i for i, n in model.nodes.items()
            if any(text in (v or '').lower()
                   for v in (names.get(i), n.name, n.label, n.type, n.scope))}


def window(model: graph.GraphModel, focus: list[int], budget: int,
           keep: frozenset[int] | None = None) -> frozenset[int]:
    """At most ``budget`` node ids around ``focus``: the first ones a breadth-first walk
    (both directions) from the focus nodes reaches.  ``keep``, the previous window, is reused
    while every focus node is still inside it, so that stepping does not re-layout."""
    focus = [f for f in focus if f in model.nodes]
    if keep is not None and focus and all(f in keep for f in focus) and \
            keep <= model.nodes.keys():
        return keep
    near: dict[int, list[int]] = {}
    for e in model.edges:
        near.setdefault(e.src, []).append(e.dst)
        near.setdefault(e.dst, []).append(e.src)
    seen = set(focus)
    layer = list(focus)
    while layer:
        nxt = [m for i in layer for m in near.get(i, ()) if m not in seen]
        nxt = list(dict.fromkeys(nxt))[:budget - len(seen)]  # a hub: part of its layer
        seen.update(nxt)
        layer = nxt
    return frozenset(seen)
