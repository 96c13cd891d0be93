"""What each node of the drawing looks like: its cells, their texts and classes, its label.

Every variable is a small table, its name and value on top and its gradient below::

    ┌──────┬───────┐
    │  x   │  5.0  │
    │ grad │  8.0  │
    └──────┴───────┘

and every function a one-row box ``f2 │ _ ** 2 │ ✓`` (its short id, its label, and
a mark once it ran).  Every cell has a fixed size (``FIXEDSIZE``) computed from
the longest text it has had, so Graphviz's layout depends on the graph and on those
sizes only, never on the numbers written: a backward step changes texts and
classes in place, and the graph does not move.

Text is monospace at :data:`FONT_SIZE` points (one SVG unit is one CSS pixel at the
view's default scale), so its width is known: :data:`CHAR_WIDTH` per character.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab.graph import GraphModel
>>> from autograd_lab_widget.follow.state import ViewState
>>> x = chainer.Variable(np.array(2.0), name='x')
>>> y = x * x
>>> state = ViewState(GraphModel.from_outputs(y))
>>> node = state.model.nodes[chainer.events.uid(x)]
>>> variable_cells(state, node.id, 'x', Look())
{'text': {'name': 'x', 'data': '2.0', 'gcap': 'grad', 'grad': '—'}, 'cell': {'grad': 'none'}}
>>> slot_for(node), tooltip(node, 'x')
(8, 'x: input variable, float64, shape ()')
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from autograd_lab import graph
from autograd_lab.graph import palette
from autograd_lab.graph.dot import escape_text

from autograd_lab_widget import arrays, lens_words, naming
from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.present import gone, lens_cells
from autograd_lab_widget.present.shaping import made_by_backward
from autograd_lab_widget.protocol import FONT_SIZE

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
# released) come from the backward run instead, so that Reset clears them.
_SHOWN_STATES = frozenset({'collected', 'unchained', 'data_retained', 'grad_computed',
                           'grad_accumulated', 'grad_stale'})


@dataclass
class Look:
    """How the nodes are written: which grads the last step changed, and the cell widths
    reached so far (they only grow)."""

    fresh: set = field(default_factory=set)
    slots: dict = field(default_factory=dict)
    show_values: bool = True
    show_grads: bool = True
    lens: bool = False  # the gradient lens's row (see lens_cells)
    grows: bool = False  # double backprop: steps add nodes (see shaping.keep_forward_still)
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
    return len(arrays.text_shape(shape)) + 6 + SCALAR_SLOT + 2  # 3×4 norm 0.001234


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
    yet; ``gone``: a leaf whose Variable was collected, so no grad is kept; ``stale``:
    a grad from an earlier backward that this one adds to; ``fresh``: changed by the
    last step)."""
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
        live, kept = node.grad, state.run.grads.get(ident)
        run = state.run
        if live is not None and ident in run.roots and not run.retain_grad:
            # the seed: backward starts from it and releases it, as any output's grad
            text['grad'], cell['grad'] = arrays.text(live), 'freed'
        elif live is not None:
            text['grad'] = arrays.text(live)
            if 'grad_stale' in node.states:
                cell['grad'] = 'stale'
        elif kept is not None:
            text['grad'], cell['grad'] = arrays.text(kept), 'freed'
        elif gone.is_gone(state, node):  # no reference kept: no grad will ever be kept
            text['grad'], cell['grad'] = gone.GONE_TEXT, 'gone'
        else:
            text['grad'], cell['grad'] = NONE_TEXT, 'none'
        if ident in look.fresh:
            cell['grad'] = (cell.get('grad', '') + ' fresh').strip()
    if look.lens:
        grad = node.grad if node.grad is not None else state.run.grads.get(ident)
        seen = lens_cells.reading(state.run, grad)
        text['lcap'], text['lens'] = lens_cells.CAPTION, lens_cells.text(seen)
        cell['lens'] = lens_cells.cell_class(seen)
    return {'text': text, 'cell': cell}


def function_cells(state: ViewState, ident: int, name: str, role: str | None) -> dict:
    """What the cells of a function node say now (the mark: ▶ runs next, ✓ ran)."""
    node = state.model.nodes[ident]
    done = ident in state.run.done
    mark = '▶' if role == 'next' else '✓' if done else ' '
    cell = {'mark': 'next'} if role == 'next' else {'mark': 'done'} if done else {}
    return {'text': {'fid': name, 'op': naming.drawn_label(node), 'mark': mark}, 'cell': cell}


class NodeDrawer:
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
            if self.look.lens and ident == self.state.run.nan_origin:
                info['text']['mark'], info['cell']['mark'] = lens_words.NAN_MARK, 'nan-origin'
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
        if node.category == 'function' and ident in self.state.run.done:
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
