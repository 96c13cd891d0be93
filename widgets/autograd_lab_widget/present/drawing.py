"""What the browser draws: DOT with micrograd-style record nodes, and their texts.

Every variable is a small table, its name and value on top and its gradient below::

    ┌──────┬───────┐
    │  x   │  5.0  │
    │ grad │  8.0  │
    └──────┴───────┘

and every function a one-row box ``f2 │ _ ** 2 │ ✓`` (its short id, its label, and
a mark once it ran).  Every cell has a fixed size (``FIXEDSIZE``) computed from
the longest text it has had, so Graphviz's layout depends on the graph and on those
sizes only, never on the numbers written: a backward step changes texts and
classes in place, and the graph does not move.  The *structure key* is a hash of
the DOT without texts and colours; while it stays the same, the browser rewrites
the cells it is sent (:attr:`Frame.nodes`) instead of laying the graph out again.

Text is monospace at :data:`FONT_SIZE` points (one SVG unit is one CSS pixel at the
view's default scale), so its width is known: :data:`CHAR_WIDTH` per character.

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

import hashlib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from autograd_lab import graph
from autograd_lab.graph import palette
from autograd_lab.graph.dot import escape_text

from autograd_lab_widget import arrays, naming, protocol
from autograd_lab_widget.present import lens_cells
from autograd_lab_widget.naming import Names
from autograd_lab_widget.protocol import FONT_SIZE
from autograd_lab_widget.follow.state import ViewState

DEFAULT_OPTIONS = protocol.OPTION_DEFAULTS

#: Width budget of one monospace character (DejaVu Sans Mono, Menlo: 0.60 em; Consolas 0.55).
CHAR_WIDTH = 0.63 * FONT_SIZE
#: Height of one row of a node, and the room left around a cell's text.
ROW_HEIGHT = 24
PAD = 6
#: Characters reserved for one number: 4 significant digits and a sign ("-0.4199", "-123.4");
#: longer ones ("1.235e-05") widen their cell once (a new layout).
SCALAR_SLOT = 8
#: Longest name written on a node (longer ones end with an ellipsis).
MAX_NAME = 16
NONE_TEXT = '—'  # no grad yet (a zero grad is written 0.0)

# Colours of the static picture (the widget's CSS themes them with the host's colours).
_BORDER, _FILL, _GRAD_FILL = palette.PICTURE_BORDER, palette.PICTURE_FILL, palette.PICTURE_GRAD_FILL
_FUNCTION_FILL, _FUNCTION_BORDER = palette.PICTURE_FUNCTION_FILL, palette.PICTURE_FUNCTION_BORDER
_HIGHER_FILL, _HIGHER_BORDER = palette.PICTURE_HIGHER_FILL, palette.PICTURE_HIGHER_BORDER
_NEXT_BORDER = palette.HIGHLIGHT_STYLE['next']['color']
_SELECTED_BORDER = palette.HIGHLIGHT_STYLE['selected']['color']

# Graph-model states drawn as classes; those of a backward run (next, done, pending,
# released) come from the view's trace instead, so that Reset clears them.
_SHOWN_STATES = frozenset({'collected', 'unchained', 'data_retained', 'grad_computed',
                           'grad_accumulated', 'grad_stale'})
_TAG_TEXT = re.compile(r'>[^<>]*<')
_STYLE_ATTRS = re.compile(r'\b(?:fillcolor|fontcolor|color|penwidth|class|tooltip)='
                          r'(?:"[^"]*"|[^\s\]]+)')
_CELL_STYLE = re.compile(r'\s(?:BGCOLOR|COLOR|TOOLTIP|STYLE)="[^"]*"')
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


@dataclass
class Look:
    """How the nodes are written: which grads the last step changed, and the cell widths
    reached so far (they only grow)."""

    fresh: set = field(default_factory=set)
    slots: dict = field(default_factory=dict)
    show_values: bool = True
    show_grads: bool = True
    lens: bool = False  # the gradient lens's row (see lens_cells)
    grows: bool = False  # double backprop: steps add nodes (see keep_forward_still)
    #: (layout signature, dot, key, links) of the last drawing: a step that changes only
    #: texts reuses its DOT (the browser rewrites the cells in place)
    last: tuple | None = None
    #: the forward replay's whole graph (DOT, node ids), see present.forward_replay.steady
    whole: tuple | None = None


def _width(chars: int) -> int:
    return math.ceil(chars * CHAR_WIDTH + 2 * PAD)


def _cell(text: str, width: int, fill: str, *, bold: bool = False, span: int = 1) -> str:
    """One cell (the browser finds cells in order: each is a filled box and its text)."""
    body = escape_text(text, max_line=64, max_lines=1) or '&#160;'
    if bold:
        body = f'<B>{body}</B>'
    span_attr = f' COLSPAN="{span}"' if span > 1 else ''
    return (f'<TD BGCOLOR="{fill}" WIDTH="{width}" HEIGHT="{ROW_HEIGHT}" FIXEDSIZE="TRUE"'
            f'{span_attr}>{body}</TD>')


def slot_for(node: graph.Node) -> int:
    """Characters a node's value cells hold, from its shape alone: room for the values and
    grads of that shape, so that steps change texts and never the layout."""
    shape = node.shape
    if shape is None or len(shape) == 0:
        return SCALAR_SLOT
    size = math.prod(shape)
    if size <= arrays.IN_FULL:
        return 2 + size * SCALAR_SLOT + 2 * (size - 1)  # [a, b, c]
    return len(arrays.text_shape(shape)) + 6 + SCALAR_SLOT + 2  # 3×4 mean -0.001234


def tooltip(node: graph.Node, name: str) -> str:
    """A node's tooltip: what does not change while stepping (kind, dtype, shape, device;
    a function's class and rank).  What the cells mean is in the legend."""
    if node.category == 'function':
        made = ', made by a backward (grad-of-grad)' if node.order else ''
        kind = node.type or 'function'
        return f'{name} = {naming.drawn_label(node)} ({kind}, rank {node.rank}{made})'
    shape = node.shape if node.shape is not None else '?'
    device = f', on {node.device}' if node.device != '@numpy' else ''
    return f'{name}: {node.kind} variable, {node.dtype or "?"}, shape {shape}{device}'


def variable_cells(state: ViewState, ident: int, name: str, look: Look) -> dict:
    """What the cells of a variable node say now: texts and classes (``freed``: a value
    the engine no longer holds, as the view recorded it; ``none``: no value, no grad
    yet; ``stale``: a grad from an earlier backward that this one adds to; ``fresh``:
    changed by the last step)."""
    node = state.model.nodes[ident]
    text = {'name': name}
    cell: dict[str, str] = {}
    if look.show_values:
        if node.data is None:
            text['data'], cell['data'] = '?', 'none'
        else:
            text['data'] = arrays.text(node.data)
            if 'collected' in node.states:
                cell['data'] = 'freed'
    if look.show_grads:
        text['gcap'] = 'grad'
        live, kept = node.grad, state.trace.grads.get(ident)
        trace = state.trace
        if live is not None and ident in trace.run_roots and not trace.run_retains:
            # the seed: backward starts from it and releases it, as any output's grad
            text['grad'], cell['grad'] = arrays.text(live), 'freed'
        elif live is not None:
            text['grad'] = arrays.text(live)
            if 'grad_stale' in node.states:
                cell['grad'] = 'stale'
        elif kept is not None:
            text['grad'], cell['grad'] = arrays.text(kept), 'freed'
        else:
            text['grad'], cell['grad'] = NONE_TEXT, 'none'
        if ident in look.fresh:
            cell['grad'] = (cell.get('grad', '') + ' fresh').strip()
    if look.lens:
        grad = node.grad if node.grad is not None else state.trace.grads.get(ident)
        seen = lens_cells.reading(state.trace, grad)
        text['lcap'], text['lens'] = lens_cells.CAPTION, lens_cells.text(seen)
        cell['lens'] = lens_cells.cell_class(seen)
    return {'text': text, 'cell': cell}


def function_cells(state: ViewState, ident: int, name: str, role: str | None) -> dict:
    """What the cells of a function node say now (the mark: ▶ runs next, ✓ ran)."""
    node = state.model.nodes[ident]
    done = ident in state.trace.done
    mark = '▶' if role == 'next' else '✓' if done else ' '
    cell = {'mark': 'next'} if role == 'next' else {'mark': 'done'} if done else {}
    return {'text': {'fid': name, 'op': naming.drawn_label(node), 'mark': mark}, 'cell': cell}


class _Drawer:
    """Cells and labels of one drawing; ``__call__`` is ``graph.to_dot``'s ``draw_node``."""

    def __init__(self, state: ViewState, names: dict[int, str], look: Look,
                 roles: dict[int, str]) -> None:
        self.state, self.names, self.look, self.roles = state, names, look, roles
        self.nodes: dict[str, dict] = {}

    def info(self, node: graph.Node) -> dict:
        """The cells of ``node`` now (texts, classes, tooltips), kept in :attr:`nodes`."""
        ident = node.id
        key = f'n{ident}'
        if key in self.nodes:
            return self.nodes[key]
        role = self.roles.get(ident)
        name = self.names.get(ident, f'#{ident}')
        if len(name) > MAX_NAME:
            name = name[:MAX_NAME - 1] + '…'
        if node.category == 'function':
            info = function_cells(self.state, ident, name, role)
            if self.look.lens and ident == self.state.trace.nan_origin:
                info['text']['mark'], info['cell']['mark'] = lens_cells.NAN_MARK, 'nan-origin'
        else:
            info = variable_cells(self.state, ident, name, self.look)
            values = [info['text'][k] for k in ('data', 'grad') if k in info['text']]
            if values:
                self._slot(node, values)
        classes = [node.category, *([node.kind] if node.kind != node.category else []),
                   *(f'state-{s}'.replace('_', '-') for s in sorted(node.states & _SHOWN_STATES))]
        if made_by_backward(node):
            classes.append('grad-of-grad')
        if node.category == 'variable' and node.device != '@numpy':
            classes.append('on-device')
        if node.category == 'function' and ident in self.state.trace.done:
            classes.append('ran')
        if role is not None:
            classes.append(f'hl-{role}')
        info['class'] = ' '.join(classes)
        self.nodes[key] = info
        return info

    def layout(self, node: graph.Node) -> tuple:
        """What of ``node``'s label decides its size: equal tuples, equal layout."""
        text = self.info(node)['text']
        if node.category == 'function':
            return (text['fid'], len(text['op']), node.order > 0)
        return (len(text['name']), tuple(text), self.look.slots.get(node.id, 0),
                made_by_backward(node), node.kind == 'output', node.device)

    def __call__(self, node: graph.Node, role: str | None) -> tuple[str, dict]:
        info = self.info(node)
        label = self._function(node, info) if node.category == 'function' \
            else self._variable(node, info)
        border = (_NEXT_BORDER if role == 'next' else _SELECTED_BORDER if role == 'selected'
                  else None)
        name = info['text'].get('name', info['text'].get('fid', ''))
        attrs = {'shape': 'plain', 'class': info['class'],
                 'tooltip': escape_text(tooltip(node, name), 300, 1)}
        if border is not None:
            attrs['color'] = border
        return label, attrs

    def _slot(self, node: graph.Node, texts: Iterable[str]) -> int:
        ident = node.id
        chars = self.look.slots.get(ident) or slot_for(node)
        chars = max([chars, *(len(t) for t in texts)])
        self.look.slots[ident] = chars
        return chars

    def _variable(self, node: graph.Node, info: dict) -> str:
        text = info['text']
        kind = node.kind if node.kind in _FILL else 'intermediate'
        higher = made_by_backward(node)
        fill = _HIGHER_FILL if higher else _FILL[kind]
        border = _HIGHER_BORDER if higher else _BORDER[kind]
        left = _width(max(len(text['name']), 4 if 'gcap' in text else 1))
        rows = []
        if 'data' in text or 'grad' in text:
            right = _width(self.look.slots[node.id])
            if 'data' in text:
                rows.append(_cell(text['name'], left, fill, bold=True)
                            + _cell(text['data'], right, fill))
            else:
                rows.append(_cell(text['name'], left + right, fill, bold=True, span=2))
            if 'grad' in text:
                rows.append(_cell('grad', left, _GRAD_FILL)
                            + _cell(text['grad'], right, _GRAD_FILL))
        else:
            rows.append(_cell(text['name'], left, fill, bold=True))
        if 'lens' in text:
            rows.append(_cell(text['lcap'], left, _GRAD_FILL)
                        + _cell(text['lens'], _width(lens_cells.CHARS), _GRAD_FILL))
        style = ' STYLE="dashed"' if higher else ''
        thick = '2' if kind == 'output' else '1'
        return (f'<<TABLE BORDER="{thick}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" '
                f'COLOR="{border}"{style}>' + ''.join(f'<TR>{r}</TR>' for r in rows)
                + '</TABLE>>')

    def _function(self, node: graph.Node, info: dict) -> str:
        text = info['text']
        fill = _HIGHER_FILL if node.order else _FUNCTION_FILL
        border = _HIGHER_BORDER if node.order else _FUNCTION_BORDER
        cells = (_cell(text['fid'], _width(len(text['fid'])), fill)
                 + _cell(text['op'], _width(min(len(text['op']), 40)), fill, bold=True)
                 + _cell(text['mark'], _width(1), fill))
        style = ' STYLE="dashed"' if node.order else ''
        return (f'<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" '
                f'COLOR="{border}"{style}><TR>{cells}</TR></TABLE>>')


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
    drawer = _Drawer(state, names.table(model), look, roles)
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
