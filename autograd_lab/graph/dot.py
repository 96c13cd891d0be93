"""DOT source for a :class:`~autograd_lab.graph.GraphModel`, built with the ``graphviz`` package.

Every engine node is the DOT node ``n<id>`` with ``id="n<id>"`` (so the SVG group has
that id and the classes ``variable``/``function``, its kind and ``hl-<role>`` when
highlighted).  A collapsed Link is one node with ``id="link:<path>"``; the nodes over
the cap are summarised by one node with ``id="more"``.

All user text (names, labels, link paths, values) goes into HTML-like labels after
escaping, so it can never end the label, the DOT statement or inject SVG markup.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab.graph import GraphModel
>>> x = chainer.Variable(np.array(1.0), name='<b>"x"</b>')
>>> source = to_dot(GraphModel.from_outputs(x * 2), legend=False)
>>> '&lt;b&gt;&quot;x&quot;&lt;/b&gt;' in source and '<b>' not in source
True
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from typing import Any

import graphviz
import numpy

from autograd_lab import events as _events
from autograd_lab.graph import palette as P
from autograd_lab.graph.model import GraphModel, Node

RANKDIRS = ('TB', 'LR', 'BT', 'RL')
#: ``draw_node(node, role) -> (label, attributes)``: see :func:`to_dot`.
NodeDrawer = Callable[[Node, 'str | None'], tuple[str, dict]]
#: Characters of a single label line kept before it is shortened with an ellipsis.
MAX_LINE = 48
MAX_LINES = 4
_ROLE = re.compile(r'[A-Za-z][A-Za-z0-9_-]{0,39}')
# characters XML 1.0 forbids (and tabs/CR that would shift the layout), shown as U+FFFD
_BAD_CHARS = re.compile('[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]')


# ---- escaping ------------------------------------------------------------------------------

def _clean(text: Any) -> str:
    """A str without lone surrogates or XML-illegal characters."""
    text = str(text).replace('\t', ' ')
    text = text.encode('utf-8', 'replace').decode('utf-8')  # lone surrogates -> '?'
    return _BAD_CHARS.sub('\ufffd', text)


def escape_text(text: Any, max_line: int = MAX_LINE, max_lines: int = MAX_LINES) -> str:
    r"""``text`` as the content of an HTML-like DOT label: escaped, lines joined by ``<BR/>``.

    >>> escape_text('a<b>&"c"\nd')
    'a&lt;b&gt;&amp;&quot;c&quot;<BR/>d'
    >>> escape_text('\\N')   # a literal backslash, not Graphviz's node-name escape
    '\\\\N'
    """
    lines = _clean(text).split('\n')
    if len(lines) > max_lines:
        lines = [*lines[:max_lines - 1], '…']
    out = []
    for line in lines:
        if len(line) > max_line:
            line = line[:max_line - 1] + '…'
        # quote=False and explicit '"': Graphviz's HTML parser knows &quot; but the
        # apostrophe needs no escaping inside element text
        # Graphviz expands \N, \G, \L ... even in HTML labels: a doubled backslash is literal
        line = line.replace('\\', '\\\\')
        out.append(html.escape(line, quote=False).replace('"', '&quot;'))
    return '<BR/>'.join(out)


def _attr_text(text: str) -> str:
    """A plain (non-label) attribute value: one line, backslashes literal."""
    return graphviz.escape(_clean(text).replace('\n', ' '))


# ---- labels --------------------------------------------------------------------------------

def _format_value(value: Any) -> str:
    if isinstance(value, _events.Summary):
        return (f'{value.shape} {value.dtype} min {value.min:.4g} max {value.max:.4g} '
                f'mean {value.mean:.4g}')
    if isinstance(value, numpy.ndarray):
        return numpy.array2string(value, precision=4, threshold=6, edgeitems=2,
                                  max_line_width=MAX_LINE).replace('\n', ' ')
    return str(value)


def _small(text: str, color: str | None = None, size: float = 10) -> str:
    attrs = f' POINT-SIZE="{size:g}"' + (f' COLOR="{color}"' if color else '')
    return f'<FONT{attrs}>{text}</FONT>'


def _label(n: Node, states: set, show_values: bool, show_grads: bool) -> str:
    lines = []
    if n.category == 'function':
        lines.append(escape_text(n.label or n.type or 'function'))
        if n.order:
            lines.append(_small(f'grad-of-grad, order {n.order}'))
    else:
        lines.append(escape_text(n.name) if n.name else '')
        if n.shape is not None:
            shape = ', '.join(map(str, n.shape)) or 'scalar'
            lines.append(_small(escape_text(f'({shape}) {n.dtype}')))
        if n.device != '@numpy':
            lines.append(_small(escape_text(n.device), P.DEVICE_COLOR))
        if show_values and n.data is not None:
            lines.append(_small(escape_text('= ' + _format_value(n.data))))
        if show_grads and n.grad is not None:
            lines.append(_small(escape_text('grad ' + _format_value(n.grad))))
    if 'grad_accumulated' in states:
        states = states - {'grad_computed'}
    badges = [P.STATE_BADGES[s] for s in sorted(states) if s in P.STATE_BADGES]
    if badges:
        lines.append(_small(escape_text(', '.join(badges))))
    lines = [line for line in lines if line] or [' ']
    return '<' + '<BR/>'.join(lines) + '>'


def _node_attrs(n: Node, states: set, role: str | None) -> dict[str, str]:
    if n.category == 'function':
        attrs = dict(P.GRAD_OF_GRAD_FUNCTION_STYLE if n.order else P.FUNCTION_STYLE)
    else:
        attrs = dict(P.VARIABLE_STYLE.get(n.kind, P.VARIABLE_STYLE['intermediate']))
        if n.order:
            attrs['color'] = P.GRAD_OF_GRAD_OUTLINE
            attrs['style'] += ',dashed'
        if 'grad_stale' in n.states:
            attrs['color'] = P.STALE_COLOR
            attrs['penwidth'] = '2.5'
    if 'collected' in n.states:
        attrs['fontcolor'] = P.COLLECTED_FONT
    classes = [n.category, *([n.kind] if n.kind != n.category else []),
               *(f'state-{s}' for s in sorted(states))]
    if n.order:
        classes.append('grad-of-grad')
    if role is not None:
        attrs.update(P.HIGHLIGHT_STYLE.get(role, P.DEFAULT_HIGHLIGHT))
        classes.append(f'hl-{role}')
    attrs['id'] = f'n{n.id}'
    attrs['class'] = ' '.join(c.replace('_', '-') for c in classes)
    return attrs


def _legend() -> str:
    rows = ['<TR><TD COLSPAN="2"><B>legend</B></TD></TR>']
    shapes = {'input': 'ellipse', 'parameter': 'cylinder', 'intermediate': 'ellipse',
              'output': 'double ellipse', 'constant': 'rounded box'}
    for kind, style in P.VARIABLE_STYLE.items():
        rows.append(f'<TR><TD BGCOLOR="{style["fillcolor"]}" WIDTH="18"> </TD>'
                    f'<TD ALIGN="LEFT">{kind} variable ({shapes[kind]})</TD></TR>')
    rows.append(f'<TR><TD BGCOLOR="{P.FUNCTION_STYLE["fillcolor"]}"> </TD>'
                '<TD ALIGN="LEFT">function (box)</TD></TR>')
    rows.append(f'<TR><TD BGCOLOR="{P.REDDISH_PURPLE}"> </TD>'
                '<TD ALIGN="LEFT">grad-of-grad node/edge (dashed outline)</TD></TR>')
    rows.append(f'<TR><TD BGCOLOR="{P.GREY}"> </TD>'
                '<TD ALIGN="LEFT">cut edge, after unchain (dashed, flat head)</TD></TR>')
    rows.append(f'<TR><TD BGCOLOR="{P.STALE_COLOR}"> </TD>'
                '<TD ALIGN="LEFT">device badge / stale grad outline</TD></TR>')
    rows.append(f'<TR><TD BGCOLOR="{P.COLLAPSED_STYLE["fillcolor"]}"> </TD>'
                '<TD ALIGN="LEFT">collapsed Link (folder)</TD></TR>')
    return ('<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
            + ''.join(rows) + '</TABLE>>')


# ---- selecting what is drawn ----------------------------------------------------------------

def _ancestors(path: str) -> list[str]:
    """``'/a/b'`` -> ``['/', '/a', '/a/b']``."""
    if path == '/':
        return ['/']
    parts = path.strip('/').split('/')
    return ['/'] + ['/' + '/'.join(parts[:k]) for k in range(1, len(parts) + 1)]


def _check_args(model: Any, rankdir: str, max_nodes: Any, max_order: Any,
                highlight: Any, collapse: Any) -> tuple[dict[int, str], list[str]]:
    if not isinstance(model, GraphModel):
        raise TypeError(f'to_dot expects a GraphModel, got {type(model).__name__}')
    if rankdir not in RANKDIRS:
        raise ValueError(f'rankdir must be one of {RANKDIRS}, got {rankdir!r}')
    if max_nodes is not None and (not isinstance(max_nodes, int) or isinstance(max_nodes, bool)
                                  or max_nodes < 1):
        raise ValueError(f'max_nodes must be a positive int or None, got {max_nodes!r}')
    if max_order is not None and (not isinstance(max_order, int) or max_order < 0):
        raise ValueError(f'max_order must be a non-negative int or None, got {max_order!r}')
    roles = {}
    for ident, role in (highlight or {}).items():
        if ident not in model.nodes:
            raise ValueError(f'highlight names node {ident!r}, which is not in the graph')
        if not isinstance(role, str) or not _ROLE.fullmatch(role):
            raise ValueError(f'highlight role must be a word (letters, digits, - or _), '
                             f'got {role!r}')
        roles[ident] = role
    if isinstance(collapse, str):
        collapse = [collapse]
    paths = list(collapse)
    scopes = {a for n in model.nodes.values() if n.scope for a in _ancestors(n.scope)}
    for p in paths:
        if p not in scopes:
            raise ValueError(f'cannot collapse {p!r}: no node has that Link scope '
                             f'(scopes: {sorted(scopes)})')
    return roles, paths


def to_dot(model: GraphModel, *, rankdir: str = 'TB', show_values: bool = False,
           show_grads: bool = True, collapse: Iterable[str] = (), hide_constants: bool = False,
           remove_variable: bool = False, max_nodes: int | None = 400,
           max_order: int | None = None, legend: bool = True,
           highlight: dict[int, str] | None = None, clusters: bool = True,
           draw_node: NodeDrawer | None = None, font_size: float | None = None,
           font_name: str = 'Helvetica', graph_attrs: dict[str, str] | None = None,
           link_note: Callable[[str], str] | None = None) -> str:
    """DOT source drawing ``model``.

    ``collapse`` lists Link paths drawn as one node each; ``hide_constants`` drops
    leaves with ``requires_grad=False``; ``remove_variable`` (Chainer's option) keeps
    only function nodes, linked where a variable connected them; ``max_order`` hides
    grad-of-grad nodes of higher order; over ``max_nodes`` nodes, the most recent ones
    are kept (highlighted ones always) and the rest summarised in one node.
    ``highlight`` maps node ids to roles (``'next'``, ``'selected'``, ``'upstream'``, ...):
    an outline and an SVG class ``hl-<role>``.  ``clusters`` groups nodes by Link.
    ``link_note(path)`` adds a line to a collapsed Link's node (the gradient lens's
    summary of its parameters' grads).

    ``draw_node(node, role)`` draws engine nodes another way: it returns the HTML-like
    label (with its ``<...>``) and the attributes of node ``n<id>`` (its ``id`` is set
    here).  ``font_size`` sets every text's size, the small notes included, and
    ``font_name`` the font;
    ``graph_attrs`` are added to the graph's attributes.

    >>> import numpy as np, autograd_lab as chainer
    >>> from autograd_lab import events
    >>> from autograd_lab.graph import GraphModel
    >>> x = chainer.Variable(np.array(2.0), name='x')
    >>> y = chainer.functions.exp(x)
    >>> src = to_dot(GraphModel.from_outputs(y), rankdir='LR', highlight={events.uid(x): 'next'})
    >>> 'rankdir=LR' in src, 'class="variable input hl-next"' in src
    (True, True)
    """
    roles, collapse_paths = _check_args(model, rankdir, max_nodes, max_order, highlight,
                                        collapse)
    nodes = model.nodes
    shown = {i: n for i, n in nodes.items()
             if (max_order is None or n.order <= max_order)
             and not (hide_constants and n.kind == 'constant')}
    edges = [e for e in model.edges if e.src in shown and e.dst in shown]
    if remove_variable:
        edges = _function_edges(shown, edges)
        shown = {i: n for i, n in shown.items() if n.category == 'function'}

    rep, collapsed, newest = _collapse(shown, collapse_paths)
    hidden_units = _over_the_cap(rep, newest, roles, max_nodes)
    hidden_count = sum(1 for r in rep.values() if r in hidden_units)

    def unit(i: int) -> str:
        r = rep[i]
        return 'more' if r in hidden_units else r

    size = font_size or 12
    small = font_size or 10
    g = graphviz.Digraph('autograd_lab', graph_attr={'rankdir': rankdir, 'id': 'graph',
                                                     **(graph_attrs or {})},
                         node_attr={'fontname': font_name, 'fontsize': f'{size:g}'},
                         edge_attr={'fontname': font_name})
    # nodes, inside nested Link clusters
    groups: dict[str | None, list[tuple]] = {}
    for i, n in sorted(shown.items()):
        if unit(i) != f'n{i}':
            continue
        key = _ancestors(n.scope)[-1] if clusters and n.scope else None
        if draw_node is not None:
            label, attrs = draw_node(n, roles.get(i))
            attrs = {**attrs, 'id': f'n{i}'}
        else:
            marked = model.run.mark(i)  # 'next' / 'done' in the latest backward run
            states = n.states | {marked} if marked else n.states
            label = _label(n, states, show_values, show_grads)
            attrs = _node_attrs(n, states, roles.get(i))
        groups.setdefault(key, []).append((f'n{i}', label, attrs))
    for name, (path, count) in collapsed.items():
        if name in hidden_units:
            continue
        parent = _ancestors(path)[-2] if path != '/' else None
        note = link_note(path) if link_note is not None else ''
        label = (f'<{escape_text(path)}<BR/>'
                 f'{_small(escape_text(f"{count} nodes collapsed"), size=small)}'
                 + (f'<BR/>{escape_text(note)}' if note else '') + '>')
        attrs = {'id': _attr_text('link:' + path), 'class': 'collapsed-link',
                 **P.COLLAPSED_STYLE}
        groups.setdefault(parent if clusters else None, []).append((name, label, attrs))
    _emit_groups(g, groups)
    if hidden_units:
        label = (f'<{hidden_count} more nodes<BR/>'
                 f'{_small(f"over the cap of {max_nodes}", size=small)}>')
        g.node('more', label=label, _attributes={'id': 'more', 'class': 'more',
                                                 **P.MORE_STYLE})
    _draw_edges(g, edges, unit, nodes, size)
    if legend:
        g.node('legend', label=_legend(), _attributes={'shape': 'plaintext', 'id': 'legend',
                                                       'class': 'legend'})
    return g.source


def _collapse(shown: dict[int, Node], collapse_paths: list) -> tuple[dict, dict, dict]:
    """Collapsed links: every node in the link (or below it) is drawn as the link's node.

    Returns ``rep`` (node id -> the name of the unit it is drawn as), the collapsed
    links (name -> (path, how many nodes)) and each link's newest member id.
    """
    rep: dict[int, str] = {i: f'n{i}' for i in shown}
    # One pass over the nodes: each joins its outermost collapsed ancestor (outer wins).
    names = {path: f'L{k}' for k, path in enumerate(sorted(set(collapse_paths), key=len))}
    counts: dict[str, int] = {}
    newest: dict[str, int] = {}  # a unit's place in the cap order: its newest member's id
    for i, n in shown.items():
        for path in _ancestors(n.scope) if names and n.scope else ():
            name = names.get(path)
            if name is not None:
                rep[i] = name
                counts[name] = counts.get(name, 0) + 1
                newest[name] = max(newest.get(name, i), i)
                break
    collapsed = {names[p]: (p, counts[names[p]]) for p in names if names[p] in counts}
    return rep, collapsed, newest


def _over_the_cap(rep: dict, newest: dict, roles: dict, max_nodes: int | None) -> set[str]:
    """The units not drawn: over ``max_nodes``, highlighted ones are kept, then the most
    recent ones."""
    units = sorted(set(rep.values()), key=lambda r: int(r[1:]) if r[0] == 'n' else newest[r])
    if max_nodes is None or len(units) <= max_nodes:
        return set()
    must = {rep[i] for i in roles if i in rep}
    rest = [u for u in reversed(units) if u not in must]
    keep = must | set(rest[:max(0, max_nodes - len(must))])
    return set(units) - keep


def _draw_edges(g: Any, edges: list, unit: Callable[[int], str],
                nodes: dict[int, Node] | None = None, size: float = 10) -> None:
    """The edges between drawn units, merged where collapsing or the cap joins their ends
    (a cut edge gives way to an uncut one).  A variable that fills several input slots
    of one function (``x * x``) gets an edge per slot, each labelled with its slot."""
    seen: dict[tuple[str, str], Any] = {}
    for e in edges:
        a, b = unit(e.src), unit(e.dst)
        if a == b:
            continue
        old = seen.get((a, b))
        if old is None or (old.cut and not e.cut):
            seen[(a, b)] = e
    for (a, b), e in seen.items():
        attrs = dict(P.CUT_EDGE_STYLE if e.cut else
                     P.GRAD_OF_GRAD_EDGE_STYLE if e.order else P.EDGE_STYLE)
        attrs['class'] = 'edge-cut' if e.cut else 'edge-grad' if e.order else 'edge-forward'
        slots = _slots(nodes, e, a, b)
        for k, slot in enumerate(slots):
            extra = {'label': f'slot {slot + 1}', 'fontsize': f'{size:g}'} if len(slots) > 1 \
                else {}
            g.edge(a, b, _attributes={**attrs, **extra,
                                      'id': f'e_{a}_{b}' + (f'_{k + 1}' if k else '')})


def _slots(nodes: dict[int, Node] | None, e: Any, a: str, b: str) -> list[int]:
    """The input slots of function ``e.dst`` that variable ``e.src`` fills (one edge
    each), where both are drawn as themselves; else one edge."""
    f = nodes.get(e.dst) if nodes is not None else None
    if f is None or f.category != 'function' or (a, b) != (f'n{e.src}', f'n{e.dst}'):
        return [0]
    return [k for k, i in enumerate(f.input_ids) if i == e.src] or [0]


def _function_edges(shown: dict[int, Node], edges: list) -> list:
    """Edges function -> function through each variable (for ``remove_variable``)."""
    from autograd_lab.graph.model import Edge  # noqa: PLC0415 - tiny helper import

    into: dict[int, list] = {}
    out_of: dict[int, list] = {}
    for e in edges:
        if shown[e.src].category == 'function':
            into.setdefault(e.dst, []).append(e)
        else:
            out_of.setdefault(e.src, []).append(e)
    result = []
    for var, made in into.items():
        for a in made:
            for b in out_of.get(var, ()):
                result.append(Edge(a.src, b.dst, a.cut or b.cut, max(a.order, b.order)))
    return result


def _emit_groups(g: graphviz.Digraph, groups: dict[str | None, list[tuple]]) -> None:
    """Add the nodes, nesting one ``cluster`` subgraph per Link path."""
    for name, label, attrs in groups.pop(None, []):
        g.node(name, label=label, _attributes=attrs)
    if not groups:
        return
    paths = sorted({a for p in groups for a in _ancestors(p)})
    names = {p: f'cluster_{k}' for k, p in enumerate(paths)}

    def emit(path: str, into: graphviz.Digraph) -> None:
        with into.subgraph(name=names[path]) as sub:
            sub.attr(label=f'<{escape_text(path)}>', id=_attr_text('cluster:' + path),
                     style='rounded,dashed', color=P.GREY, fontname='Helvetica')
            for name, label, attrs in groups.get(path, []):
                sub.node(name, label=label, _attributes=attrs)
            for child in paths:
                if child != '/' and _ancestors(child)[-2] == path:
                    emit(child, sub)

    emit('/', g)
