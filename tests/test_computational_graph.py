"""chainer.computational_graph: build_computational_graph, ComputationalGraph, dump.

Spec section 19 (and the computational_graph rows of section 22).  Expected
values were checked against Chainer 7.8.1; ``TestAgainstChainer`` re-checks
them by running the same script under the real Chainer in ``.venvs/chainer``.

Chainer keeps nodes and edges in sets, so its order changes from run to run;
those comparisons therefore canonicalise the ids and compare statements as
multisets, except where Chainer's order is fixed (one node, or none).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import FunctionNode, Variable, VariableNode
from autograd_lab.computational_graph import (
    ComputationalGraph, DotNode, build_computational_graph,
)

VAR_STYLE = 'shape="octagon",fillcolor="#E0E0E0",style="filled"'
FUNC_STYLE = 'shape="record",fillcolor="#6495ED",style="filled"'
REPO = Path(__file__).resolve().parents[1]


def f32(*shape):
    return np.arange(np.prod(shape, dtype=int), dtype=np.float32).reshape(shape)


class Two(FunctionNode):
    """One input, two outputs (2x, 3x)."""

    def forward(self, inputs):
        x, = inputs
        return x * 2, x * 3


class Labelled(FunctionNode):
    """A function whose label is chosen by the test."""

    def __init__(self, label):
        self._label = label

    @property
    def label(self):
        return self._label

    def forward(self, inputs):
        return inputs[0].copy(),


def named(dump, names):
    """Replace the node ids in ``dump`` by readable names ({node: name})."""
    by_id = {str(id(n)): name for n, name in names.items()}
    return re.sub(r'(?<=[;{])\d+(?= \[| -> )|(?<=-> )\d+(?=;)',
                  lambda m: by_id[m.group()], dump)


def id_set(items):
    return {id(i) for i in items}


def edge_ids(edges):
    return {(id(h), id(t)) for h, t in edges}


@pytest.fixture
def graph():
    """x, w -> (*) -> h ; h, x -> (+) -> a -> Sum -> y ; h -> exp -> e -> (*2) -> z."""
    x = Variable(f32(2, 3), name='x')
    w = Variable(np.ones((2, 3), np.float32))
    h = x * w
    h.name = 'h'
    a = h + x
    y = F.sum(a)
    e = F.exp(h)
    z = e * 2
    return dict(x=x, w=w, h=h, a=a, y=y, e=e, z=z)


# ---- structure: nodes and edges ----------------------------------------------------------


class TestStructure:
    def test_nodes_and_edges_of_a_small_graph(self, graph):
        g = build_computational_graph([graph['y'], graph['z']])
        assert isinstance(g, ComputationalGraph)
        assert isinstance(g.nodes, list) and isinstance(g.edges, list)
        v = {k: graph[k].node for k in graph}
        mul, add, sm = v['h'].creator_node, v['a'].creator_node, v['y'].creator_node
        exp, mul2 = v['e'].creator_node, v['z'].creator_node
        assert id_set(g.nodes) == id_set([*v.values(), mul, add, sm, exp, mul2])
        assert len(g.nodes) == 12
        assert edge_ids(g.edges) == edge_ids([
            (v['x'], mul), (v['w'], mul), (mul, v['h']), (v['h'], add), (v['x'], add),
            (add, v['a']), (v['a'], sm), (sm, v['y']), (v['h'], exp), (exp, v['e']),
            (v['e'], mul2), (mul2, v['z'])])
        assert len(g.edges) == 12
        for head, tail in g.edges:  # (input VariableNode, FunctionNode) or the reverse
            assert (isinstance(head, VariableNode) and isinstance(tail, FunctionNode)) or (
                isinstance(head, FunctionNode) and isinstance(tail, VariableNode))

    def test_only_backward_reachable_nodes(self, graph):
        # x -> f -> y and x -> g -> z: [y] leaves out g and z.
        g = build_computational_graph(graph['y'])
        ids = id_set(g.nodes)
        assert id(graph['z'].node) not in ids
        assert id(graph['e'].creator_node) not in ids
        assert id(graph['z'].creator_node) not in ids
        assert len(g.nodes) == 8 and len(g.edges) == 8

    def test_lone_leaf_is_one_node_and_no_edge(self):
        x = Variable(f32(3))
        g = build_computational_graph(x)
        assert g.nodes == [x.node] and g.edges == []

    def test_uninitialized_leaf(self):
        g = build_computational_graph(Variable())
        assert len(g.nodes) == 1 and g.edges == []
        with pytest.raises(TypeError):  # as in Chainer: its label is undefined
            g.dump()

    def test_traversal_stops_at_unchained_variable(self):
        x = Variable(f32(2))
        y = x * 2
        z = y + 1
        y.unchain()
        g = build_computational_graph(z)
        assert id_set(g.nodes) == id_set([z.node, z.creator_node, y.node])
        assert len(g.edges) == 2

    def test_traversal_stops_after_unchain_backward(self):
        x = Variable(f32(2))
        s1 = F.exp(x)
        s2 = F.sin(s1)
        s3 = s2 * 2
        s2.unchain_backward()
        g = build_computational_graph(s3)
        assert id_set(g.nodes) == id_set([s3.node, s3.creator_node, s2.node])

    def test_unreachable_outputs_of_a_function_are_left_out(self):
        x = Variable(f32(2))
        p, q = Two().apply((x,))
        g = build_computational_graph(p)
        assert id_set(g.nodes) == id_set([p.node, p.creator_node, x.node])
        assert id(q.node) not in id_set(g.nodes)
        both = build_computational_graph([p, q])
        assert id_set(both.nodes) == id_set([p.node, q.node, p.creator_node, x.node])
        assert len(both.edges) == 3

    def test_same_input_twice_gives_one_edge(self):
        x = Variable(f32(2))
        y = x * x
        g = build_computational_graph(y)
        assert len(g.nodes) == 3
        assert edge_ids(g.edges) == edge_ids([(x.node, y.creator_node), (y.creator_node, y.node)])
        assert len(g.edges) == 2

    def test_duplicate_outputs_collapse(self, graph):
        y = graph['y']
        assert len(build_computational_graph([y, y, y.node]).nodes) == 8

    def test_parameter_output(self):
        w = chainer.Parameter(np.ones(3, np.float16), name='W')
        loss = F.sum(w * w)
        g = build_computational_graph(loss)
        assert len(g.nodes) == 5
        assert '[label="W: (3), float16",' in g.dump()

    def test_a_cycle_made_by_set_creator_terminates(self):
        x = Variable(f32(2))
        y = x * 2
        x.set_creator(y.creator_node)  # x <- mul <- x: not a DAG, must still end
        g = build_computational_graph(y)
        assert id_set(g.nodes) == id_set([y.node, y.creator_node, x.node])


# ---- outputs argument --------------------------------------------------------------------


class TestOutputs:
    def test_variable_node_and_function_node_outputs(self, graph):
        y = graph['y']
        by_var = build_computational_graph(y)
        by_node = build_computational_graph(y.node)
        assert id_set(by_var.nodes) == id_set(by_node.nodes)
        assert edge_ids(by_var.edges) == edge_ids(by_node.edges)
        # A FunctionNode output: the function and what it reads, not its output.
        by_func = build_computational_graph(y.creator_node)
        assert id_set(by_func.nodes) == id_set(by_var.nodes) - {id(y.node)}
        assert len(by_func.edges) == len(by_var.edges) - 1

    @pytest.mark.parametrize('kind', [list, tuple, iter])
    def test_sequences_of_outputs(self, graph, kind):
        g = build_computational_graph(kind([graph['y'], graph['z'].node]))
        assert len(g.nodes) == 12 and len(g.edges) == 12

    def test_empty_list(self):
        g = build_computational_graph([])
        assert g.nodes == [] and g.edges == []
        assert g.dump() == 'digraph graphname{rankdir=TB;}'

    @pytest.mark.parametrize('bad', [
        np.ones(3), np.array(1.0), [np.ones(2)], 3, None, 'abc', np.float32(1),
        [Variable(f32(2)), 1.0], [[Variable(f32(2))]],
    ], ids=['ndarray', '0d-ndarray', 'list-of-ndarray', 'int', 'None', 'str',
            'numpy-scalar', 'mixed-list', 'nested-list'])
    def test_bad_outputs_raise_type_error(self, bad):
        with pytest.raises(TypeError):
            build_computational_graph(bad)

    def test_unchained_function_node_as_output(self):
        x = Variable(f32(2))
        y = x * 2
        fn = y.creator_node
        fn.unchain()  # inputs is None now; the node alone remains
        g = build_computational_graph(fn)
        assert g.nodes == [fn] and g.edges == []


# ---- argument checks ---------------------------------------------------------------------


class TestArguments:
    def test_remove_split_false_raises_value_error(self):
        with pytest.raises(ValueError, match='remove_split'):
            build_computational_graph(Variable(f32(2)), remove_split=False)

    @pytest.mark.parametrize('rankdir', ['tb', 'XX', '', None, 'TB;}'])
    def test_bad_rankdir_raises_value_error(self, rankdir):
        with pytest.raises(ValueError, match='rankdir'):
            build_computational_graph(Variable(f32(2)), rankdir=rankdir)
        with pytest.raises(ValueError, match='rankdir'):
            ComputationalGraph([], [], rankdir=rankdir)

    @pytest.mark.parametrize('rankdir', ['TB', 'BT', 'LR', 'RL'])
    def test_rankdir_is_written(self, rankdir):
        g = build_computational_graph(Variable(f32(2)), rankdir=rankdir)
        assert g.dump().startswith(f'digraph graphname{{rankdir={rankdir};')

    @pytest.mark.parametrize('fmt', ['png', 'svg', 'DOT', 'json'])
    def test_other_formats_raise_not_implemented(self, fmt):
        g = build_computational_graph(Variable(f32(2)))
        with pytest.raises(NotImplementedError):
            g.dump(fmt)

    def test_dump_defaults_to_dot(self, graph):
        g = build_computational_graph(graph['y'])
        assert g.dump() == g.dump('dot') == g.dump(format='dot')

    def test_bad_style_values(self):
        with pytest.raises(ValueError):
            build_computational_graph(Variable(f32(2)), variable_style='fancy')
        with pytest.raises(TypeError):
            build_computational_graph(Variable(f32(2)), function_style=3)

    def test_styles_are_resolved_on_the_graph(self):
        g = build_computational_graph(Variable(f32(2)))
        assert g.variable_style == {'shape': 'octagon', 'fillcolor': '#E0E0E0',
                                    'style': 'filled'}
        assert g.function_style == {'shape': 'record', 'fillcolor': '#6495ED',
                                    'style': 'filled'}
        g = build_computational_graph(Variable(f32(2)), variable_style=None,
                                      function_style=None)
        assert g.variable_style == {} and g.function_style == {}
        assert (g.rankdir, g.remove_variable, g.show_name) == ('TB', False, True)


# ---- the DOT text ------------------------------------------------------------------------


class TestDump:
    def test_exact_layout(self, graph):
        x, h, y = graph['x'], graph['h'], graph['y']
        a, w = graph['a'], graph['w']
        names = {y.node: 'y', y.creator_node: 'sum', a.node: 'a', a.creator_node: 'add',
                 h.node: 'h', x.node: 'x', h.creator_node: 'mul', w.node: 'w'}
        dump = named(build_computational_graph(y).dump(), names)
        # Nodes: outputs first, then by decreasing rank (ties in discovery order).
        assert dump == (
            'digraph graphname{rankdir=TB;'
            f'y [label="float32",{VAR_STYLE}];'
            f'sum [label="Sum",{FUNC_STYLE}];'
            f'a [label="(2, 3), float32",{VAR_STYLE}];'
            f'add [label="_ + _",{FUNC_STYLE}];'
            f'h [label="h: (2, 3), float32",{VAR_STYLE}];'
            f'x [label="x: (2, 3), float32",{VAR_STYLE}];'
            f'mul [label="_ * _",{FUNC_STYLE}];'
            f'w [label="(2, 3), float32",{VAR_STYLE}];'
            'sum -> y;a -> sum;add -> a;h -> add;x -> add;mul -> h;x -> mul;w -> mul;'
            '}')

    def test_ids_are_python_ids(self, graph):
        g = build_computational_graph(graph['y'])
        dump = g.dump()
        stated = re.findall(r'(?<=[;{])(\d+) \[', dump)
        assert stated == [str(id(n)) for n in g.nodes]
        edges = re.findall(r'(\d+) -> (\d+);', dump)
        assert edges == [(str(id(h)), str(id(t))) for h, t in g.edges]

    def test_leaf_dump_is_exactly_chainers(self):
        x = Variable(f32(2, 3), name='x')
        assert build_computational_graph(x).dump() == (
            f'digraph graphname{{rankdir=TB;{id(x.node)} '
            f'[label="x: (2, 3), float32",{VAR_STYLE}];}}')

    def test_show_name(self, graph):
        x = graph['x']
        assert f'[label="x: (2, 3), float32",{VAR_STYLE}]' in build_computational_graph(x).dump()
        assert f'[label="(2, 3), float32",{VAR_STYLE}]' in build_computational_graph(
            x, show_name=False).dump()

    def test_empty_name_still_prefixes(self):
        v = Variable(np.array(2.0), name='')  # 'name is not None', as in Chainer
        assert '[label=": float64",' in build_computational_graph(v).dump()

    def test_function_label_has_no_name_prefix(self, graph):
        fn = graph['y'].creator_node
        fn.name = 'ignored'  # functions have no name in the label even if given one
        assert f'[label="Sum",{FUNC_STYLE}]' in build_computational_graph(fn).dump()

    def test_default_styles(self, graph):
        dump = build_computational_graph(graph['z']).dump()
        assert dump.count(VAR_STYLE) == 5 and dump.count(FUNC_STYLE) == 3  # z e h x w; mul exp mul

    def test_no_style(self, graph):
        g = build_computational_graph(graph['z'], variable_style=None, function_style=None)
        dump = g.dump()
        assert 'fillcolor' not in dump
        assert dump.count(',shape="oval"];') == 5 and dump.count(',shape="box"];') == 3

    def test_custom_styles_are_written_as_attributes(self, graph):
        z = graph['z']
        g = build_computational_graph(
            z, variable_style={'color': 'red', 'shape': 'box', 'penwidth': 2},
            function_style={'label': 'F', 'fontsize': 9.5})
        dump = g.dump()
        # label, shape, then the style's keys in order; a style key replaces in place.
        assert f'{id(z.node)} [label="(2, 3), float32",shape="box",color="red",penwidth="2"];' \
            in dump
        assert f'{id(z.creator_node)} [label="F",shape="box",fontsize="9.5"];' in dump

    def test_style_dict_is_used_by_reference(self):
        style = {'color': 'red'}
        x = Variable(f32(2))
        g = build_computational_graph(x, variable_style=style)
        style['color'] = 'blue'  # as in Chainer, the graph keeps the caller's dict
        assert 'color="blue"' in g.dump()

    def test_dot_node_agrees_with_dump(self, graph):
        for kwargs in ({}, {'show_name': False},
                       {'variable_style': {'label': 'V', 'k': 1}, 'function_style': None}):
            g = build_computational_graph([graph['y'], graph['z']], **kwargs)
            dump = g.dump()
            for node in g.nodes:
                style = g.variable_style if isinstance(node, VariableNode) else g.function_style
                assert DotNode(node, style, g.show_name).label in dump

    def test_dot_node_attributes(self, graph):
        d = DotNode(graph['h'].node)
        assert d.id_ == id(graph['h'].node) and d.node is graph['h'].node
        assert d.attribute == {'label': 'h: (2, 3), float32', 'shape': 'oval'}
        assert DotNode(graph['h'].creator_node).attribute == {'label': '_ * _', 'shape': 'box'}
        with pytest.raises(TypeError):
            DotNode(graph['h'])  # a Variable, not a node

    def test_order_is_deterministic(self):
        def build():
            x = Variable(f32(2), name='x')
            b = x + 1
            y = F.sum(b * b + F.exp(b) * x)
            g = build_computational_graph([y, b])
            order = {n: str(i) for i, n in enumerate(g.nodes)}
            return named(g.dump(), order)
        assert len({build() for _ in range(5)}) == 1

    def test_nodes_come_in_decreasing_rank(self, graph):
        g = build_computational_graph([graph['y'], graph['z']])
        ranks = [n.rank for n in g.nodes[2:]]  # after the two outputs
        assert ranks == sorted(ranks, reverse=True)

    def test_dump_does_not_change_the_graph(self, graph):
        g = build_computational_graph(graph['y'], remove_variable=True)
        nodes, edges = list(g.nodes), list(g.edges)
        first = g.dump()
        assert g.dump() == first
        assert g.nodes == nodes and g.edges == edges

    def test_manual_graph_with_bad_edge(self, graph):
        y = graph['y']
        fn = y.creator_node
        with pytest.raises(TypeError, match='head and tail'):
            ComputationalGraph([fn], [(fn, fn)]).dump()
        with pytest.raises(TypeError):
            ComputationalGraph([y], []).dump()  # a Variable is not a node

    def test_manual_graph_draws_each_edge_once(self, graph):
        y = graph['y']
        fn = y.creator_node
        g = ComputationalGraph([fn, y.node], [(fn, y.node), (fn, y.node)])
        assert g.dump().count(' -> ') == 1


class TestRemoveVariable:
    def test_only_functions_and_function_edges(self, graph):
        y, z = graph['y'], graph['z']
        g = build_computational_graph([y, z], remove_variable=True)
        mul = graph['h'].creator_node
        names = {mul: 'mul', graph['a'].creator_node: 'add', y.creator_node: 'sum',
                 graph['e'].creator_node: 'exp', z.creator_node: 'mul2'}
        dump = named(g.dump(), names)
        statements = dump[len('digraph graphname{rankdir=TB;'):-1].split(';')[:-1]
        nodes = [s for s in statements if ' [' in s]
        edges = [s for s in statements if ' -> ' in s]
        assert len(statements) == len(nodes) + len(edges)
        assert Counter(s.split(' ')[0] for s in nodes) == Counter(names.values())
        assert all(FUNC_STYLE in s for s in nodes) and VAR_STYLE not in dump
        assert Counter(edges) == Counter(
            ['mul -> add', 'mul -> exp', 'add -> sum', 'exp -> mul2'])

    def test_variable_used_by_two_functions(self):
        x = Variable(np.array(1.5), name='x')
        d1 = x + 1
        d2 = d1 * d1
        d3 = d1 * 2
        d4 = d2 + d3
        g = build_computational_graph(d4, remove_variable=True)
        names = {d1.creator_node: 'add1', d2.creator_node: 'sq', d3.creator_node: 'twice',
                 d4.creator_node: 'add'}
        edges = re.findall(r'\w+ -> \w+', named(g.dump(), names))
        assert Counter(edges) == Counter(['add1 -> sq', 'add1 -> twice', 'sq -> add',
                                          'twice -> add'])

    def test_single_function(self):
        x = Variable(f32(2))
        y = F.exp(x)
        g = build_computational_graph(y, remove_variable=True)
        assert g.dump() == (f'digraph graphname{{rankdir=TB;{id(y.creator_node)} '
                            f'[label="exp",{FUNC_STYLE}];}}')

    def test_leaf_only(self):
        assert build_computational_graph(Variable(f32(2)), remove_variable=True).dump() == \
            'digraph graphname{rankdir=TB;}'


# ---- hostile names: the DOT must stay valid ------------------------------------------------

# name -> the text Graphviz shows for it
HOSTILE = {
    'say "hi"': 'say "hi"',
    '"': '"',
    'trailing\\': 'trailing\\',
    '\\"': '\\"',
    '\\n is not a newline': '\\n is not a newline',
    '\\N': '\\N',
    'brace{}[];,= -> } digraph x {': 'brace{}[];,= -> } digraph x {',
    '<b>bold</b> & co <<html>>': '<b>bold</b> & co <<html>>',
    'new\nline': 'new\nline',
    'cr\r\nlf\rend': 'cr\nlf\nend',
    'tab\there': 'tab\there',
    'nul\x00bel\x07del\x7f': 'nul\\x00bel\\x07del\\x7f',
    'ünïcödé 漢字 🚀 αβγ': 'ünïcödé 漢字 🚀 αβγ',
    'sep\u2028nel\u0085': 'sep\u2028nel\u0085',
    'lone \ud800 surrogate': 'lone \\ud800 surrogate',
    '': '',
}

_DOT_KEYWORDS = {'node', 'edge', 'graph', 'digraph', 'subgraph', 'strict'}
_TOKEN = re.compile(r'''
    (?P<ws>[ \t]+)
  | (?P<string>"(?:\\[\\"n{}<>]|[^"\\\x00-\x08\x0a-\x1f\x7f])*")
  | (?P<id>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<num>[0-9]+)
  | (?P<arrow>->)
  | (?P<punct>[{}\[\];,=])
''', re.X)


def _unquote(token):
    """The text Graphviz shows for a quoted string of ours (\\n is a line break, \\X is X)."""
    return re.sub(r'\\(.)', lambda m: {'n': '\n'}.get(m.group(1), m.group(1)), token[1:-1])


def parse_dot(text):
    """Strict parser for the DOT subset dump() writes; raises ValueError on anything else.

    Returns (rankdir, {node id: {attribute: text}}, [(head id, tail id)]).
    """
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f'bad character at {pos}: {text[pos:pos + 20]!r}')
        if m.lastgroup != 'ws':
            tokens.append((m.lastgroup, m.group()))
        pos = m.end()
    it = iter(tokens + [('end', '')] * 2)
    tok = next(it)

    def expect(kind, value=None):
        nonlocal tok
        if tok[0] != kind or (value is not None and tok[1] != value):
            raise ValueError(f'expected {value or kind}, got {tok}')
        got = tok[1]
        tok = next(it)
        return got

    expect('id', 'digraph')
    expect('id', 'graphname')
    expect('punct', '{')
    expect('id', 'rankdir')
    expect('punct', '=')
    rankdir = expect('id')
    expect('punct', ';')
    nodes, edges = {}, []
    while tok != ('punct', '}'):
        head = expect('num')
        if tok[0] == 'arrow':
            expect('arrow')
            edges.append((head, expect('num')))
        else:
            if edges:
                raise ValueError('node statement after an edge')
            if head in nodes:
                raise ValueError(f'node {head} stated twice')
            expect('punct', '[')
            attrs = {}
            while True:
                if tok[0] == 'id':
                    key = expect('id')
                    if key.lower() in _DOT_KEYWORDS:  # keywords are not IDs in DOT
                        raise ValueError(f'bare keyword {key!r} as an attribute name')
                else:
                    key = _unquote(expect('string'))
                expect('punct', '=')
                attrs[key] = _unquote(expect('string'))
                if tok == ('punct', ']'):
                    break
                expect('punct', ',')
            expect('punct', ']')
            nodes[head] = attrs
        expect('punct', ';')
    expect('punct', '}')
    expect('end')
    for head, tail in edges:
        if head not in nodes or tail not in nodes:
            raise ValueError(f'edge {head} -> {tail} to an undeclared node')
    return rankdir, nodes, edges


def graphviz_labels(text):
    """Ask Graphviz itself (``dot -Tplain``) for each node's label; None if unavailable."""
    try:
        import graphviz  # the PyPI package, which runs the same dot binary
        plain = graphviz.Source(text).pipe(format='plain', encoding='utf-8')
    except ImportError:
        if shutil.which('dot') is None:
            return None
        proc = subprocess.run(['dot', '-Tplain'], input=text.encode(), capture_output=True,
                              check=False, timeout=60)
        assert proc.returncode == 0, proc.stderr.decode(errors='replace')
        plain = proc.stdout.decode()
    except Exception as exc:  # graphviz package present but no dot binary
        if type(exc).__name__ == 'ExecutableNotFound':
            return None
        raise
    labels = {}
    # Node records are "node NAME x y width height LABEL style shape color fillcolor".
    # An unquoted label is a DOT ID: split on ASCII spaces only (it may hold U+2028).
    for m in re.finditer(r'^node (\d+) \S+ \S+ \S+ \S+ ("(?:\\.|[^"\\])*"|[^ \n]+)', plain, re.M):
        label = m.group(2)
        labels[m.group(1)] = _unquote(label) if label.startswith('"') else label
    return labels


class TestHostileNames:
    @pytest.fixture
    def hostile_graph(self):
        variables = [Variable(f32(2), name=name) for name in HOSTILE]
        outputs = [Labelled(name).apply((v,))[0] for name, v in zip(HOSTILE, variables)]
        return variables, outputs, build_computational_graph(outputs)

    def test_dump_parses_and_keeps_every_label(self, hostile_graph):
        variables, outputs, g = hostile_graph
        dump = g.dump()
        assert '\n' not in dump and '\r' not in dump
        dump.encode('utf-8')  # no lone surrogate left
        rankdir, nodes, edges = parse_dot(dump)
        assert rankdir == 'TB'
        assert len(nodes) == 3 * len(HOSTILE) and len(edges) == 2 * len(HOSTILE)
        for shown, v, y in zip(HOSTILE.values(), variables, outputs):
            assert nodes[str(id(v.node))]['label'] == f'{shown}: (2), float32'
            assert nodes[str(id(y.creator_node))]['label'] == shown

    def test_graphviz_accepts_it(self, hostile_graph):
        variables, outputs, g = hostile_graph
        labels = graphviz_labels(g.dump())
        if labels is None:
            pytest.skip('Graphviz (dot) is not installed; the strict parser test still ran')
        assert len(labels) == 3 * len(HOSTILE)
        for (name, shown), v, y in zip(HOSTILE.items(), variables, outputs):
            assert labels[str(id(v.node))] == f'{shown}: (2), float32', name
            assert labels[str(id(y.creator_node))] == shown, name

    def test_hostile_styles_and_remove_variable(self, hostile_graph):
        _, _, g = hostile_graph
        style = {'label': 'a "b" \\', 'weird key': 'v\n', 'node': '}', 'color': '"'}
        g2 = ComputationalGraph(g.nodes, g.edges, variable_style=style,
                                function_style={'tooltip': '\\"'}, rankdir='LR')
        _, nodes, _ = parse_dot(g2.dump())
        attrs = next(a for a in nodes.values() if 'weird key' in a)
        assert attrs == {'label': 'a "b" \\', 'shape': 'oval', 'weird key': 'v\n',
                         'node': '}', 'color': '"'}
        if graphviz_labels(g2.dump()) is not None:
            assert set(graphviz_labels(g2.dump()).values()) >= {'a "b" \\'}
        g3 = ComputationalGraph(g.nodes, g.edges, remove_variable=True)
        _, nodes, edges = parse_dot(g3.dump())
        assert len(nodes) == len(HOSTILE) and edges == []

    def test_ordinary_names_are_not_escaped(self):
        name = "layer1/W (scaled) 'q' {ok} <b> & #1 漢字 -> x;y=z, [t]"
        v = Variable(f32(2), name=name)
        assert f'[label="{name}: (2), float32",' in build_computational_graph(v).dump()

    def test_record_labels_escape_braces_and_angle_brackets(self):
        x = Variable(f32(2), name='{<x>}')
        y, = Labelled('f{<|>}').apply((x,))
        dump = build_computational_graph(y, variable_style={'shape': 'Mrecord'}).dump()
        # Graphviz reads \{ \} \< \> in a record label as the plain characters.
        assert f'{id(y.creator_node)} [label="f\\{{\\<|\\>\\}}",shape="record",' in dump
        assert f'{id(x.node)} [label="\\{{\\<x\\>\\}}: (2), float32",shape="Mrecord"];' in dump
        # Not for other shapes, nor for a label given in a style (that one is the user's DOT).
        style = {'label': '{a|b}', 'shape': 'record'}
        dump = build_computational_graph(y, function_style=style).dump()
        assert f'{id(x.node)} [label="{{<x>}}: (2), float32",shape="octagon",' in dump
        assert f'{id(y.creator_node)} [label="{{a|b}}",shape="record"];' in dump

    def test_bar_in_a_record_label_is_kept(self):
        y = abs(Variable(f32(2)))  # Chainer's '|_|' label draws as three record fields
        label = y.creator_node.label
        assert f'[label="{label}",{FUNC_STYLE}]' in build_computational_graph(y).dump()

    @pytest.mark.parametrize('text', ['a"b', 'trail\\', 'x\ny', '\x01'])
    def test_parser_rejects_unescaped_text(self, text):
        # The checker itself is strict: raw hostile text would not pass it.
        with pytest.raises(ValueError):
            parse_dot(f'digraph graphname{{rankdir=TB;1 [label="{text}"];}}')


# ---- scale ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_100000_op_chain_at_the_default_recursion_limit():
    x = Variable(np.array(1.0, np.float32), name='x')
    y = x
    for _ in range(100_000):
        y = y * 1.0
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # CPython's default; the walk must not recurse
    try:
        g = build_computational_graph(y)
        dump = g.dump()
        functions_only = build_computational_graph(y, remove_variable=True).dump()
    finally:
        sys.setrecursionlimit(old)
    assert len(g.nodes) == 200_001 and len(g.edges) == 200_000
    assert g.nodes[0] is y.node and g.nodes[-1] is x.node
    assert dump.count(' -> ') == 200_000
    assert functions_only.count(' -> ') == 99_999
    assert dump.endswith(f'{id(x.node)} -> {id(g.nodes[-2])};}}')


# ---- differential test against the real Chainer 7.8.1 ---------------------------------------

CHAINER_PYTHON = REPO / '.venvs' / 'chainer' / 'bin' / 'python'

# Runs under either engine (argv[1] = 'chainer' or 'autograd_lab'); prints
# {scenario: dump with ids replaced by a canonical numbering}.  The numbering is
# a breadth-first walk from the outputs through the public graph API, so it is
# the same in both engines whatever order their dumps use.
SCENARIOS = r'''
import importlib, json, re, sys
import numpy as np
chainer = importlib.import_module(sys.argv[1])
F = importlib.import_module(sys.argv[1] + '.functions')
c = importlib.import_module(sys.argv[1] + '.computational_graph')
VariableNode = chainer.variable.VariableNode


def canonical(outputs):
    if not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    queue = [o.node if isinstance(o, chainer.Variable) else o for o in outputs]
    ids, i = {}, 0
    while i < len(queue):
        node = queue[i]
        i += 1
        if id(node) in ids:
            continue
        ids[id(node)] = 'N%d' % len(ids)
        if isinstance(node, VariableNode):
            if node.creator_node is not None:
                queue.append(node.creator_node)
        else:
            queue.extend(node.inputs or ())
    return ids


results = {}


def run(name, outputs, **kwargs):
    ids = canonical(outputs)
    dump = c.build_computational_graph(outputs, **kwargs).dump()
    results[name] = re.sub(r'(?<=[;{])\d+(?= \[| -> )|(?<=-> )\d+(?=;)',
                           lambda m: ids[int(m.group())], dump)


class Two(chainer.FunctionNode):
    def forward(self, inputs):
        x, = inputs
        return x * 2, x * 3


f32 = np.float32
x = chainer.Variable(np.arange(6, dtype=f32).reshape(2, 3), name='x')
w = chainer.Variable(np.ones((2, 3), f32))
h = x * w
h.name = 'h'
a = h + x
y = F.sum(a)
z = F.exp(h) * 2
run('both', [y, z])
run('y_only', y)
run('tuple', (z, y))
run('remove_variable', [y, z], remove_variable=True)
run('styles', [y, z], variable_style=None, rankdir='LR', show_name=False,
    function_style={'color': 'red', 'label': 'L', 'penwidth': 2})
run('custom_variable_style', y, rankdir='BT',
    variable_style={'shape': 'box', 'fontsize': 9, 'label': 'V'})
run('node_outputs', [y.node, z.creator_node])
p, q = Two().apply((x,))
run('multi_one', p)
run('multi_both', [p, q])
run('multi_remove_variable', [F.exp(p), q * q], remove_variable=True)
u = x * 3
v = u + 1
u.unchain()
run('unchained', v)
s1 = F.exp(x)
s2 = F.sin(s1)
s3 = s2 * 2
s2.unchain_backward()
run('unchain_backward', s3)
d0 = chainer.Variable(np.array(1.5), name='d0')
d1 = d0 + 1
d2 = d1 * d1
d3 = d1 * 2
d4 = d2 - d3
run('diamond', d4)
run('diamond_remove_variable', d4, remove_variable=True)
W = chainer.Parameter(np.ones((3,), np.float16), name='W')
run('parameter', F.sum(W * W))
run('matmul', F.matmul(x, F.transpose(w)) / 4, show_name=False)
# Chainer's order is fixed only for these (at most one node):
run('leaf', x)
run('unnamed_int_leaf', chainer.Variable(np.zeros((0, 2), np.int32)))
run('unicode_name', chainer.Variable(np.zeros(1, f32), name='αβ 漢字 {x} <y>'))
run('single_function', F.exp(x), remove_variable=True)
run('empty', [])
print(json.dumps(results))
'''

DETERMINISTIC_IN_CHAINER = {'leaf', 'unnamed_int_leaf', 'unicode_name', 'single_function',
                            'empty'}


def _run_scenarios(python, module, tmp_path):
    script = tmp_path / 'scenarios.py'
    script.write_text(SCENARIOS, encoding='utf-8')
    proc = subprocess.run([str(python), str(script), module], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, 'PYTHONPATH': str(REPO)},
                          check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope='module')
def both_dumps(tmp_path_factory):
    if not CHAINER_PYTHON.exists():
        pytest.skip(f'Chainer 7.8.1 is not installed in {CHAINER_PYTHON.parent.parent}')
    tmp = tmp_path_factory.mktemp('cg')
    return (_run_scenarios(sys.executable, 'autograd_lab', tmp),
            _run_scenarios(CHAINER_PYTHON, 'chainer', tmp))


def _split(dump):
    header, body = dump.split(';', 1)
    assert body.endswith('}')
    statements = body[:-1].split(';')
    assert statements[-1] == ''
    statements = statements[:-1]
    nodes = [s for s in statements if ' -> ' not in s]
    edges = [s for s in statements if ' -> ' in s]
    assert statements == nodes + edges  # every node statement before every edge
    return header, Counter(nodes), Counter(edges)


@pytest.mark.chainer
class TestAgainstChainer:
    @pytest.mark.parametrize('scenario', [
        'both', 'y_only', 'tuple', 'remove_variable', 'styles', 'custom_variable_style',
        'node_outputs', 'multi_one', 'multi_both', 'multi_remove_variable', 'unchained',
        'unchain_backward', 'diamond', 'diamond_remove_variable', 'parameter', 'matmul',
        *sorted(DETERMINISTIC_IN_CHAINER)])
    def test_same_dump_as_chainer(self, both_dumps, scenario):
        ours, theirs = both_dumps
        assert set(ours) == set(theirs)
        assert _split(ours[scenario]) == _split(theirs[scenario])
        if scenario in DETERMINISTIC_IN_CHAINER:
            assert ours[scenario] == theirs[scenario]
