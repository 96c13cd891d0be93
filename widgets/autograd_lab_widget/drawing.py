"""From a graph model and the view's options to what the browser draws.

The browser gets the DOT text, a *structure key* (a hash of the DOT without labels,
colours and classes: when it is unchanged the graph's topology is too), and per node its
SVG classes and label lines.  For a big graph with an unchanged key the browser rewrites
texts and classes in place instead of laying the graph out again, so a backward step
costs no layout.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab.graph import GraphModel
>>> x = chainer.Variable(np.array(2.0), name='x')
>>> frame = draw(GraphModel.from_outputs(x * x), dict(DEFAULT_OPTIONS))
>>> frame.dot.startswith('digraph'), sorted(frame.node_classes)[0].startswith('n')
(True, True)
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass

from autograd_lab import graph

DEFAULT_OPTIONS: dict = {
    'search': '', 'max_depth': 0, 'max_order': None, 'hide_constants': False,
    'show_values': False, 'show_grads': True, 'highlight_direction': 'none', 'rankdir': 'TB',
    'max_nodes': 600, 'auto_collapse': True,
}

_STYLE_ATTRS = re.compile(r'\b(?:fillcolor|fontcolor|color|penwidth|class)=(?:"[^"]*"|[^\s\]]+)')
_LINK_NODE = re.compile(r'\bid="?link:')
_HTML_LABEL = re.compile(r'label=<(?:[^<>]|<[^<>]*>)*>')
_TAG = re.compile(r'<[^>]*>')
_POINT_SIZE = re.compile(r'POINT-SIZE="([\d.]+)"')
DEFAULT_FONT_SIZE = 12.0
_NODE_LINE = re.compile(r'^\s*(n\d+) \[(.*)\]\s*$', re.MULTILINE)
_CLASS = re.compile(r'\bclass=(?:"([^"]*)"|([^\s\]]+))')


def _html_label(attrs: str) -> tuple[int, int] | None:
    """Start and end (exclusive) of the ``label=<...>`` value in a node's attributes.

    User text in labels is escaped (no raw ``<`` or ``>``), so the value is text and
    whole tags; one regular expression finds it.
    """
    m = _HTML_LABEL.search(attrs)
    return None if m is None else (m.start(), m.end())


def label_lines(attrs: str) -> list[list]:
    """The text lines of an HTML-like label as ``[[text, font size], ...]`` (plain text:
    the browser writes them with textContent)."""
    span = _html_label(attrs)
    if span is None:
        return []
    body = attrs[span[0] + len('label=<'):span[1] - 1]
    lines = []
    for part in body.split('<BR/>'):
        size = _POINT_SIZE.search(part)
        lines.append([html.unescape(_TAG.sub('', part)),
                      float(size.group(1)) if size else DEFAULT_FONT_SIZE])
    return lines


def structure_key(dot: str) -> str:
    """A hash of ``dot`` without labels, colours and classes: equal keys, equal layout
    topology (the browser then updates texts and classes in place)."""
    out = []
    for line in dot.splitlines():
        span = _html_label(line)
        if span is not None:
            line = line[:span[0]] + line[span[1]:]
        out.append(' '.join(_STYLE_ATTRS.sub('', line).split()))
    return hashlib.sha1('\n'.join(out).encode('utf-8')).hexdigest()


def node_labels(dot: str) -> dict[str, list]:
    """``{'n<id>': [[text, size], ...]}`` for every engine node drawn in ``dot``."""
    return {ident: label_lines(attrs) for ident, attrs in _NODE_LINE.findall(dot)}


def node_classes(dot: str) -> dict[str, str]:
    """``{'n<id>': 'svg classes'}`` for every engine node drawn in ``dot``."""
    out = {}
    for ident, attrs in _NODE_LINE.findall(dot):
        m = _CLASS.search(attrs)
        out[ident] = (m.group(1) or m.group(2)) if m else ''
    return out


@dataclass
class Frame:
    """What one drawing of the graph sends to the browser."""

    dot: str
    key: str
    node_classes: dict
    node_labels: dict
    shown: int
    total: int
    window: frozenset | None = None  # the node ids drawn when a window was needed
    links: int = 0  # collapsed Link nodes drawn


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


def search_hits(model: graph.GraphModel, text: str) -> set[int]:
    """Ids whose name, label, type or scope contains ``text`` (case-insensitive)."""
    text = text.strip().lower()
    if not text:
        return set()
    return {i for i, n in model.nodes.items()
            if any(text in (v or '').lower() for v in (n.name, n.label, n.type, n.scope))}


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


def draw(model: graph.GraphModel, options: dict, *, roots: list[int] = (),
         roles: dict[int, str] | None = None, expanded: set[str] = frozenset(),
         focus: list[int] = (), keep: frozenset[int] | None = None) -> Frame:
    """DOT, structure key, node classes and labels for ``model`` under ``options``.

    Big graphs are reduced before layout: Link scopes collapsed first; when even that
    leaves more than ``max_nodes`` units, a window of the nodes nearest to
    ``focus`` (the next function, else the outputs) is drawn.
    """
    shown_model = depth_limited(model, list(roots), options['max_depth'])
    budget = options['max_nodes']
    collapse = (collapse_paths(shown_model, budget, expanded)
                if options['auto_collapse'] else [])
    unscoped = sum(1 for n in shown_model.nodes.values() if not n.scope or n.scope == '/')
    win = None
    too_many = not collapse or len(collapse) + unscoped > budget
    if len(shown_model.nodes) > budget and too_many:
        win = window(shown_model, [*focus, *roots] if focus else list(roots), budget, keep)
        shown_model = shown_model.subgraph(win)
        collapse = []
    roles = {i: r for i, r in (roles or {}).items() if i in shown_model.nodes}
    dot = graph.to_dot(shown_model, rankdir=options['rankdir'],
                       show_values=options['show_values'], show_grads=options['show_grads'],
                       collapse=collapse, hide_constants=options['hide_constants'],
                       max_nodes=budget, max_order=options['max_order'],
                       legend=False, highlight=roles)
    classes = node_classes(dot)
    return Frame(dot, structure_key(dot), classes, node_labels(dot), len(classes),
                 len(model.nodes), win, len(_LINK_NODE.findall(dot)))
