"""Collect the graph behind some outputs and write it in Graphviz's DOT language.

:func:`build_computational_graph` walks backward from the given outputs (through
each variable's ``creator_node`` and each function's ``inputs``) and returns a
:class:`ComputationalGraph`, whose :meth:`~ComputationalGraph.dump` gives the
same DOT text as Chainer 7.8.1: one statement per node, named by ``id(node)``,
then one ``head -> tail;`` per edge.

>>> import re
>>> import numpy as np
>>> import autograd_lab as chainer
>>> from autograd_lab import computational_graph as c
>>> x = chainer.Variable(np.zeros(3, np.float32), name='x')
>>> y = chainer.functions.exp(x)
>>> g = c.build_computational_graph(y)
>>> [type(node).__name__ for node in g.nodes]
['VariableNode', 'Exp', 'VariableNode']
>>> names = {id(y.node): 'y', id(y.creator_node): 'exp', id(x.node): 'x'}
>>> dot = re.sub(r'\\d+', lambda m: names.get(int(m.group()), m.group()), g.dump())
>>> print(dot.replace(';', ';\\n'))
digraph graphname{rankdir=TB;
y [label="(3), float32",shape="octagon",fillcolor="#E0E0E0",style="filled"];
exp [label="exp",shape="record",fillcolor="#6495ED",style="filled"];
x [label="x: (3), float32",shape="octagon",fillcolor="#E0E0E0",style="filled"];
exp -> y;
x -> exp;
}

The DOT text can be given to Graphviz (``dot -Tpng``) or to the ``graphviz``
package (``graphviz.Source(g.dump())``).

Differences from Chainer, none of which changes the DOT of an ordinary graph:

- Chainer collects nodes and edges in sets, so their order changes from run to
  run.  Here it is deterministic: the order in which the walk finds them
  (outputs first, then by decreasing rank, ties in discovery order).
- Labels and style values are escaped, so that a name with quotes, backslashes,
  line breaks or other control characters still gives valid DOT (see
  :func:`_quote`), and in the label of a record-shaped node (functions, by
  default) braces and angle brackets are escaped so Graphviz draws them
  instead of failing (see :func:`_quote_label`).  Text without those
  characters is written unchanged.
- The walk is iterative, so a graph of any depth works at the default recursion
  limit, and it tolerates a function that has been unchained (``inputs`` None).
- ``dump()`` with ``remove_variable=True`` does not overwrite :attr:`ComputationalGraph.edges`
  with the function-to-function edges (Chainer's does), so dumping twice, or
  reading ``edges`` after a dump, gives the same result.
"""

from __future__ import annotations

import heapq
import itertools
import re
from collections.abc import Mapping
from typing import Any

from autograd_lab.function_node import FunctionNode
from autograd_lab.variable import Variable, VariableNode

__all__ = ['ComputationalGraph', 'DotNode', 'build_computational_graph']

# Documented defaults (also in the docstrings below): keep them in sync.
_var_style = {'shape': 'octagon', 'fillcolor': '#E0E0E0', 'style': 'filled'}
_func_style = {'shape': 'record', 'fillcolor': '#6495ED', 'style': 'filled'}

_RANKDIRS = ('TB', 'BT', 'LR', 'RL')
_OUTPUT_TYPES = (Variable, VariableNode, FunctionNode)

# Characters that cannot appear as themselves inside a DOT double-quoted string
# without changing its meaning or validity: the quote and backslash (string
# syntax), line breaks, other C0 controls and DEL (Graphviz's lexer and
# renderers choke on them), and lone surrogates (not encodable as UTF-8).
# ``\r\n`` comes first so that it becomes one line break, not two.
_UNSAFE = re.compile('\r\n|[\\\\"\x00-\x08\x0a-\x1f\x7f\ud800-\udfff]')
# Inside the label of a record-shaped node Graphviz also gives meaning to braces
# and angle brackets (fields and ports); an unbalanced one is an error.
_RECORD_SPECIAL = re.compile('[{}<>]')
_RECORD_SHAPES = ('record', 'mrecord')
_PLAIN_ID = re.compile(r'[A-Za-z_][A-Za-z_0-9]*\Z')
_DOT_KEYWORDS = frozenset(('node', 'edge', 'graph', 'digraph', 'subgraph', 'strict'))


def _escape_char(match: re.Match) -> str:
    char = match.group()
    if char == '\\':
        return '\\\\'
    if char == '"':
        return '\\"'
    if char in ('\r\n', '\n', '\r'):
        return '\\n'  # Graphviz's escape for a (centred) line break
    # Shown literally as Python would write it, e.g. a NUL as the 4 characters \x00.
    code = ord(char)
    return f'\\\\x{code:02x}' if code < 0x100 else f'\\\\u{code:04x}'


def _quote(value: Any) -> str:
    r"""``str(value)`` as a DOT double-quoted string (quotes included).

    A backslash becomes ``\\``, a quote ``\"``, a line break (LF, CR or CRLF)
    Graphviz's ``\n``; other control characters (tab excepted) and lone
    surrogates are written as the visible text ``\xNN``/``\uNNNN`` (with the
    backslash escaped).  Everything else, non-ASCII included, is kept, so
    ordinary text is quoted byte for byte as Chainer quotes it.

    >>> print(_quote('x: (2, 3), float32'))
    "x: (2, 3), float32"
    >>> print(_quote('say "hi"\\'))
    "say \"hi\"\\"
    >>> print(_quote('two\nlines\x00'))
    "two\nlines\\x00"
    """
    text = str(value)
    if _UNSAFE.search(text) is None:
        return f'"{text}"'
    return '"' + _UNSAFE.sub(_escape_char, text) + '"'


def _quote_label(text: Any, record: bool) -> str:
    r"""A node's own label text quoted for DOT; for a record shape ``{}<>`` are escaped too.

    Graphviz reads ``\{``, ``\}``, ``\<`` and ``\>`` in a record label as the
    plain characters, so a name such as ``'<b>'`` draws as itself instead of
    making Graphviz fail.  ``|`` is left alone: it only splits the record into
    fields (which is how Chainer's ``'|_|'`` label is drawn).

    >>> print(_quote_label('f{x}', record=True), _quote_label('f{x}', record=False))
    "f\{x\}" "f{x}"
    """
    quoted = _quote(text)
    if record and _RECORD_SPECIAL.search(quoted) is not None:
        return _RECORD_SPECIAL.sub(r'\\\g<0>', quoted)
    return quoted


def _is_record(shape: Any) -> bool:
    return isinstance(shape, str) and shape.lower() in _RECORD_SHAPES


def _attribute_name(key: Any) -> str:
    """An attribute name as written in DOT: bare when it is a plain identifier, else quoted."""
    text = str(key)
    if _PLAIN_ID.match(text) and text.lower() not in _DOT_KEYWORDS:
        return text
    return _quote(text)


def _resolve_style(style: Any, default: dict, what: str) -> Any:
    if style is None:  # Chainer <= 1.22 look: no style at all
        return {}
    if isinstance(style, str):
        if style == 'default':
            return dict(default)
        raise ValueError(f"{what} must be a dict, None or 'default', not {style!r}")
    if not isinstance(style, Mapping):
        raise TypeError(f"{what} must be a dict, None or 'default', not "
                        f'{type(style).__name__}')
    return style  # kept by reference, as Chainer does


class DotNode:
    """One node of a :class:`ComputationalGraph` as a DOT node statement.

    Args:
        node: a :class:`~autograd_lab.variable.VariableNode` or a
            :class:`~autograd_lab.FunctionNode`.
        attribute (dict): extra DOT attributes; they override the defaults
            ``label`` (``node.label``) and ``shape`` (``'oval'`` for a variable,
            ``'box'`` for a function), and are written after them.
        show_name (bool): prefix a named variable's label with ``'NAME: '``.

    Attributes:
        node: the graph node.
        id_ (int): ``id(node)``, the node's name in the DOT text.
        attribute (dict): the attributes, in the order they are written.

    >>> import numpy as np, autograd_lab as chainer
    >>> v = chainer.Variable(np.zeros((2, 3), np.float32), name='w')
    >>> d = DotNode(v.node)
    >>> d.attribute
    {'label': 'w: (2, 3), float32', 'shape': 'oval'}
    >>> d.label == f'{id(v.node)} [label="w: (2, 3), float32",shape="oval"];'
    True
    """

    def __init__(self, node: Any, attribute: Mapping | None = None,
                 show_name: bool = True) -> None:
        if not isinstance(node, (VariableNode, FunctionNode)):
            raise TypeError('node must be a VariableNode or a FunctionNode, not '
                            f'{type(node).__name__}')
        self.node = node
        self.id_ = id(node)
        label = node.label
        if isinstance(node, VariableNode):
            if show_name and node.name is not None:
                label = f'{node.name}: {label}'
            self.attribute = {'label': label, 'shape': 'oval'}
        else:
            self.attribute = {'label': label, 'shape': 'box'}
        self._own_label = label
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self) -> str:
        """The DOT statement ``ID [key="value",...];`` for this node (values escaped).

        Every value is quoted by :func:`_quote`; the node's own label (not one
        given in ``attribute``) also gets :func:`_quote_label`'s record escaping
        when the shape is ``record`` or ``Mrecord``.
        """
        attribute = self.attribute
        record = _is_record(attribute.get('shape'))
        attrs = ','.join(
            f'{_attribute_name(k)}='
            f"{_quote_label(v, record) if k == 'label' and v is self._own_label else _quote(v)}"
            for k, v in attribute.items())
        return f'{self.id_} [{attrs}];'


class ComputationalGraph:
    """A graph of variable and function nodes, with a DOT writer.

    Usually made by :func:`build_computational_graph`.  The graph is assumed
    to be directed and acyclic.

    Args:
        nodes (list): the nodes, each a :class:`~autograd_lab.variable.VariableNode`
            or a :class:`~autograd_lab.FunctionNode`.
        edges (list): ``(head, tail)`` pairs: ``(input variable node, function)``
            or ``(function, output variable node)``.
        variable_style (dict, None or ``'default'``): DOT attributes of variable
            nodes.  ``'default'`` is ``{'shape': 'octagon', 'fillcolor':
            '#E0E0E0', 'style': 'filled'}``; None means none (the Chainer
            <= 1.22 look, with ``shape="oval"``).
        function_style (dict, None or ``'default'``): the same for function
            nodes; ``'default'`` is ``{'shape': 'record', 'fillcolor':
            '#6495ED', 'style': 'filled'}`` and None gives ``shape="box"``.
        rankdir (str): ``'TB'``, ``'BT'``, ``'LR'`` or ``'RL'``; anything else
            raises ``ValueError``.
        remove_variable (bool): draw only the function nodes, joined by
            function-to-function edges (see :meth:`dump`).
        show_name (bool): prefix a named variable's label with ``'NAME: '``.

    Attributes:
        nodes, edges: as given (not changed by :meth:`dump`).
        variable_style, function_style: the resolved style dicts.
        rankdir, remove_variable, show_name: as given.
    """

    def __init__(self, nodes: list, edges: list, variable_style: Any = 'default',
                 function_style: Any = 'default', rankdir: str = 'TB',
                 remove_variable: bool = False, show_name: bool = True) -> None:
        if not isinstance(rankdir, str) or rankdir not in _RANKDIRS:
            raise ValueError('rankdir must be in TB, BT, LR or RL.')
        self.nodes = nodes
        self.edges = edges
        self.variable_style = _resolve_style(variable_style, _var_style, 'variable_style')
        self.function_style = _resolve_style(function_style, _func_style, 'function_style')
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def dump(self, format: str = 'dot') -> str:
        """The graph as text in ``format``; only ``'dot'`` is supported.

        The DOT text is ``digraph graphname{rankdir=TB;``, then one
        ``ID [label="...",shape="...",...];`` per node (in :attr:`nodes` order,
        ``ID`` being ``id(node)``), then one ``HEAD -> TAIL;`` per distinct edge
        (in :attr:`edges` order), then ``}``, all on one line.

        With ``remove_variable`` the variable nodes are not drawn, an edge
        ``(variable, function)`` is drawn from the variable's creator (and
        dropped for a leaf), and an edge ``(function, variable)`` is drawn to
        the first function in :attr:`nodes` that takes the variable as input
        (and dropped when there is none).

        Raises:
            NotImplementedError: ``format`` is not ``'dot'``.
            TypeError: a node is neither a VariableNode nor a FunctionNode, or
                (without ``remove_variable``) an edge does not join a variable
                and a function.
        """
        if format == 'dot':
            return self._to_dot()
        raise NotImplementedError('Currently, only dot format is supported.')

    def _to_dot(self) -> str:
        parts = [f'digraph graphname{{rankdir={self.rankdir};']
        edges = self.edges
        if self.remove_variable:
            edges = _function_edges(self.nodes, edges)
        # Each style is rendered once: a node statement is then the id, the label
        # and this fixed text (as DotNode(node, style, show_name).label gives it).
        var_label, var_rest, var_record = _render_style(self.variable_style, 'oval')
        func_label, func_rest, func_record = _render_style(self.function_style, 'box')
        show_name = self.show_name
        append = parts.append
        for node in self.nodes:
            if isinstance(node, VariableNode):
                if self.remove_variable:
                    continue
                label, rest = var_label, var_rest
                if label is None:
                    text = node.label
                    if show_name and node.name is not None:
                        text = f'{node.name}: {text}'
                    label = _quote_label(text, var_record)
            elif isinstance(node, FunctionNode):
                label, rest = func_label, func_rest
                if label is None:
                    label = _quote_label(node.label, func_record)
            else:
                raise TypeError('nodes must be VariableNodes or FunctionNodes, not '
                                f'{type(node).__name__}')
            append(f'{id(node)} [label={label}{rest}')
        drawn = set()
        for head, tail in edges:
            if not ((isinstance(head, VariableNode) and isinstance(tail, FunctionNode))
                    or (isinstance(head, FunctionNode) and isinstance(tail, VariableNode))
                    or (self.remove_variable and isinstance(head, FunctionNode)
                        and isinstance(tail, FunctionNode))):
                raise TypeError('head and tail should be the set of VariableNode and Function')
            key = (id(head), id(tail))
            if key not in drawn:
                drawn.add(key)
                append(f'{key[0]} -> {key[1]};')
        append('}')
        return ''.join(parts)


def _render_style(style: Mapping, default_shape: str) -> tuple[str | None, str, bool]:
    """Render ``style`` for node statements: ``(label, ',shape=...,...];', record)``.

    Mirrors DotNode: the attributes are ``label``, ``shape`` (``default_shape``),
    then the style's other keys, a style key ``label``/``shape`` replacing the
    default in place.  ``label`` is the quoted style label, or None when each
    node shows its own; ``record`` tells whether the shape is a record one.
    """
    label = None
    shape_value = style.get('shape', default_shape)
    shape = _quote(default_shape)
    rest = []
    for key, value in style.items():
        if key == 'label':
            label = _quote(value)
        elif key == 'shape':
            shape = _quote(value)
        else:
            rest.append(f',{_attribute_name(key)}={_quote(value)}')
    return label, f",shape={shape}{''.join(rest)}];", _is_record(shape_value)


def _function_edges(nodes: list, edges: list) -> list:
    """Turn variable-function edges into function-to-function edges (see ``dump``)."""
    first_consumer: dict[int, FunctionNode] = {}
    for node in nodes:
        if isinstance(node, FunctionNode):
            for input_node in node.inputs or ():
                first_consumer.setdefault(id(input_node), node)
    result = []
    for head, tail in edges:
        if isinstance(head, VariableNode):
            head = head.creator_node
            if head is None:
                continue
        if isinstance(tail, VariableNode):
            tail = first_consumer.get(id(tail))
            if tail is None:
                continue
        result.append((head, tail))
    return result


def _output_list(outputs: Any) -> list:
    """``outputs`` of :func:`build_computational_graph` as a list, checked."""
    if isinstance(outputs, _OUTPUT_TYPES):
        return [outputs]
    try:
        outputs = list(outputs)
    except TypeError:
        raise TypeError('outputs must be a Variable, VariableNode, FunctionNode or a list '
                        f'of them, not {type(outputs).__name__}') from None
    for o in outputs:
        if not isinstance(o, _OUTPUT_TYPES):
            raise TypeError('element of outputs must be either Variable, VariableNode, '
                            f'or FunctionNode, not {type(o).__name__}')
    return outputs


def build_computational_graph(outputs: Any, remove_split: bool = True,
                              variable_style: Any = 'default', function_style: Any = 'default',
                              rankdir: str = 'TB', remove_variable: bool = False,
                              show_name: bool = True) -> ComputationalGraph:
    """The graph of the functions and variables backward-reachable from ``outputs``.

    Starting from the outputs, the walk follows each variable node to its
    ``creator_node`` and each function to its ``inputs``.  It stops at leaves
    and at unchained variables (``creator_node`` None), and never goes
    forward, so another output of a function is included only if it is
    reachable itself.  For ``x -> f -> y`` and ``x -> g -> z``, the outputs
    ``[y, z]`` give the whole graph and ``[y]`` gives ``x -> f -> y``.

    Args:
        outputs: a :class:`~autograd_lab.Variable`, a
            :class:`~autograd_lab.variable.VariableNode`, a
            :class:`~autograd_lab.FunctionNode`, or a list (any iterable) of them.
        remove_split (bool): must be True (kept for compatibility).
        variable_style, function_style, rankdir, remove_variable, show_name:
            passed to :class:`ComputationalGraph` (drawing options).

    Returns:
        ComputationalGraph: ``nodes`` lists each node once: the outputs first,
        then the nodes in the order the walk finds them (it visits the node of
        highest ``rank`` first, ties in the order found).  ``edges`` lists each
        ``(input variable node, function)`` and ``(function, output variable
        node)`` pair once, in the order found.  A lone leaf gives one node and
        no edge.

    Raises:
        TypeError: ``outputs`` is neither one of those types nor an iterable of
            them (an ndarray is rejected).
        ValueError: ``remove_split`` is false, or ``rankdir`` is not one of
            ``'TB'``, ``'BT'``, ``'LR'``, ``'RL'``.

    The walk is iterative: a chain of any length works at the default
    recursion limit.

    >>> import numpy as np, autograd_lab as chainer
    >>> x = chainer.Variable(np.array(2.0))
    >>> y = x * x
    >>> z = y * 3
    >>> g = build_computational_graph(z)
    >>> [n.label for n in g.nodes]
    ['float64', '_ * 3', 'float64', '_ * _', 'float64']
    >>> len(g.edges), len(build_computational_graph(x).nodes)
    (4, 1)
    >>> build_computational_graph(np.ones(2))
    Traceback (most recent call last):
    ...
    TypeError: element of outputs must be either Variable, VariableNode, or FunctionNode, ...
    """
    if not remove_split:
        raise ValueError('remove_split=False is not supported anymore')
    outputs = _output_list(outputs)
    # Validate the drawing options before the (possibly long) walk.
    graph = ComputationalGraph([], [], variable_style, function_style, rankdir,
                               remove_variable, show_name)

    nodes: dict[int, Any] = {}  # id -> node, in the order found
    edges: dict[tuple[int, int], tuple[Any, Any]] = {}
    heap: list = []
    counter = itertools.count()
    push, pop = heapq.heappush, heapq.heappop

    for o in outputs:
        if isinstance(o, Variable):
            o = o.node
        if id(o) not in nodes:
            nodes[id(o)] = o
            push(heap, (-o.rank, next(counter), o))

    while heap:
        node = pop(heap)[2]
        if isinstance(node, VariableNode):
            creator = node.creator_node
            pairs = () if creator is None else ((creator, node),)
        else:
            pairs = tuple((input_node, node) for input_node in node.inputs or ())
        for head, tail in pairs:
            key = (id(head), id(tail))
            if key in edges:
                continue  # a function that takes the same variable twice
            edges[key] = (head, tail)
            found = head
            if id(found) not in nodes:
                nodes[id(found)] = found
                push(heap, (-found.rank, next(counter), found))

    graph.nodes = list(nodes.values())
    graph.edges = list(edges.values())
    return graph
