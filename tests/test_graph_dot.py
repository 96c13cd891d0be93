"""autograd_lab.graph.to_dot / render: the picture, its escaping, and export without Graphviz."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import events, graph
from autograd_lab.graph import GraphModel, palette, render, to_dot
from autograd_lab.graph.dot import escape_text
from tiny_models import MLP

uid = events.uid
SVG = '{http://www.w3.org/2000/svg}'

# graphviz-pure always (it is a dependency; CI has no system Graphviz); the system dot too
# when this machine has one
RENDERERS = ['graphviz-pure'] + (['dot'] if shutil.which('dot') else [])

HOSTILE = [
    'a"b', "it's", '{x}', '<b>bold</b>', 'a & b', 'line1\nline2', 'back\\slash\\',
    'ünï©ødé λ 🙂 中文', 'x]; y [label="pwn"]', 'a;b', 'a -- b -> c', 'n1 -> n2',
    '<script>alert(1)</script>', '\\N \\G \\L \\E', ']]>', '<!-- c -->', '&amp;', '&#60;',
    '<<TABLE>>', '"></text><script>x</script>', 'subgraph cluster_x { }', '@cupy:0',
]


def _svg(source: str, program: str) -> ET.Element:
    """Render and parse: a broken DOT or injected markup fails here."""
    return ET.fromstring(render(source, 'svg', program=program))


def _nodes(root: ET.Element) -> dict[str, ET.Element]:
    return {g.get('id'): g for g in root.iter(SVG + 'g')
            if (g.get('class') or '').split()[:1] == ['node']}


def _engine_nodes(root: ET.Element) -> dict[str, ET.Element]:
    return {k: v for k, v in _nodes(root).items() if re.fullmatch(r'n\d+', k)}


def _texts(el: ET.Element) -> list[str]:
    return [t.text or '' for t in el.iter(SVG + 'text')]


# ---- escaping --------------------------------------------------------------------------------

class Hostile(chainer.Chain):
    """Links registered under hostile attribute names, so their paths are hostile too."""

    def __init__(self, names):
        super().__init__()
        self.names = names
        for name in names:
            self.add_link(name, L.Linear(1, 1))

    def forward(self, x):
        out = x
        for name in self.names:
            out = getattr(self, name)(out)
        return out


@pytest.mark.parametrize('program', RENDERERS)
def test_hostile_names_render_as_text_only(program):
    link_names = ['a"b', '{x}', '<script>s</script>', 'back\\slash', 'x]; y', 'ü -- 🙂']
    with events.recording() as log:
        variables = [chainer.Variable(np.ones((1, 1), np.float32), name=h) for h in HOSTILE]
        net = Hostile(link_names)
        y = net(variables[0])
        for v in variables[1:]:
            y = y + v
        F.sum(y).backward()
    model = GraphModel.from_events(log)
    source = to_dot(model, show_values=True, show_grads=True)
    root = _svg(source, program)
    # no element the renderer would not make itself: nothing was injected
    tags = {el.tag.removeprefix(SVG) for el in root.iter()}
    assert tags <= {'svg', 'g', 'title', 'text', 'path', 'polygon', 'ellipse', 'polyline',
                    'a'}, tags
    nodes = _engine_nodes(root)
    assert len(nodes) == len(model.nodes)
    for v, name in zip(variables, HOSTILE):
        texts = _texts(nodes[f'n{uid(v)}'])
        for line in name.split('\n'):
            assert line in texts, (name, texts)
    # the link paths label the clusters, as text
    clusters = {g.get('id'): _texts(g)[0] for g in root.iter(SVG + 'g')
                if g.get('class') == 'cluster'}
    for name in link_names:
        assert clusters['cluster:/' + name] == '/' + name


@pytest.mark.parametrize('program', RENDERERS)
def test_hostile_collapsed_link_and_control_characters(program):
    name = 'a"b</g><script>'
    with events.recording() as log:
        x = chainer.Variable(np.ones((1, 1), np.float32), name='nul\x00 esc\x1b cr\r \ud800')
        y = Hostile([name])(x)
    model = GraphModel.from_events(log)
    root = _svg(to_dot(model, collapse=['/' + name]), program)
    nodes = _nodes(root)
    collapsed = nodes['link:/' + name]
    assert _texts(collapsed)[0] == '/' + name
    # characters XML forbids become U+FFFD, a lone surrogate '?': the SVG still parses
    texts = _texts(nodes[f'n{uid(x)}'])
    assert texts[0] == 'nul\ufffd esc\ufffd cr\ufffd ?'
    assert f'n{uid(y)}' not in nodes   # y was made inside the collapsed link


class Evil(chainer.FunctionNode):
    """A user-defined function whose label is hostile."""

    @property
    def label(self):
        return '</text><script>"}]; -- \\G & <b>'

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, target_input_indexes, grad_outputs):
        return grad_outputs[0] * 2,


@pytest.mark.parametrize('program', RENDERERS)
def test_hostile_function_label(program):
    x = chainer.Variable(np.array(1.0), name='x')
    y, = Evil().apply((x,))
    model = GraphModel.from_outputs([y])
    root = _svg(to_dot(model), program)
    f = _engine_nodes(root)[f'n{uid(y.creator_node)}']
    assert _texts(f)[0] == '</text><script>"}]; -- \\G & <b>'
    assert not [el for el in root.iter() if el.tag in (SVG + 'script', SVG + 'b')]


def test_escape_text_and_long_names():
    assert escape_text('<a href="x">') == '&lt;a href=&quot;x&quot;&gt;'
    assert escape_text('x' * 100).endswith('…') and len(escape_text('x' * 100)) == 48
    assert escape_text('\n'.join('abcdef')).count('<BR/>') == 3   # at most 4 lines
    assert escape_text('a\\b') == 'a\\\\b'


# ---- the 2,000-node graph and the cap --------------------------------------------------------

def _chain(n_functions: int) -> tuple:
    x = chainer.Variable(np.array(1.0), name='x')
    h = x
    for i in range(n_functions):
        h = h + 1 if i % 2 else h * 1.0001
    return x, h


@pytest.mark.parametrize('program', RENDERERS)
def test_two_thousand_nodes_render(program):
    _x, y = _chain(1000)
    model = GraphModel.from_outputs([y])
    assert len(model.nodes) == 2001
    root = _svg(to_dot(model, max_nodes=None), program)
    assert len(_engine_nodes(root)) == 2001
    assert 'more' not in _nodes(root)
    edges = [g for g in root.iter(SVG + 'g') if (g.get('class') or '').startswith('edge')]
    assert len(edges) == len(model.edges) == 2000


def test_node_cap_summarises_the_rest():
    x, y = _chain(30)                      # 61 nodes
    model = GraphModel.from_outputs([y])
    source = to_dot(model, max_nodes=10, highlight={uid(x): 'selected'})
    root = _svg(source, 'graphviz-pure')
    nodes = _engine_nodes(root)
    assert len(nodes) == 10
    assert f'n{uid(x)}' in nodes           # highlighted nodes are always kept
    assert f'n{uid(y)}' in nodes           # then the most recent ones
    more = _nodes(root)['more']
    assert _texts(more)[0] == '51 more nodes'
    # edges between the summary and the kept nodes, never to hidden ones
    ids = {g.get('id') for g in root.iter(SVG + 'g') if g.get('class', '').startswith('edge')}
    assert any(i.startswith('e_more_') or i.endswith('_more') for i in ids)
    assert all(re.fullmatch(r'e_(n\d+|more)_(n\d+|more)', i) for i in ids)
    # the default cap is 400
    big = GraphModel.from_outputs([_chain(300)[1]])
    assert 'id=more' in to_dot(big) and 'id=more' not in to_dot(model)


# ---- options ---------------------------------------------------------------------------------

def _mlp_model() -> tuple:
    with events.recording() as log:
        net = L.Classifier(MLP())
        loss = net(np.ones((2, 3), np.float32), np.array([0, 1], np.int32))
        loss.backward()
    return net, loss, GraphModel.from_events(log)


def test_clusters_per_link_and_collapse():
    net, _loss, model = _mlp_model()
    root = _svg(to_dot(model), 'graphviz-pure')
    clusters = {g.get('id') for g in root.iter(SVG + 'g') if g.get('class') == 'cluster'}
    assert {'cluster:/', 'cluster:/predictor', 'cluster:/predictor/l1',
            'cluster:/predictor/l2'} <= clusters
    w1 = uid(net.predictor.l1.W)
    root = _svg(to_dot(model, collapse=['/predictor/l1']), 'graphviz-pure')
    nodes = _nodes(root)
    inside = [i for i, n in model.nodes.items() if n.scope == '/predictor/l1']
    assert w1 in inside and len(inside) >= 4
    assert not any(f'n{i}' in nodes for i in inside)
    assert _texts(nodes['link:/predictor/l1']) == ['/predictor/l1',
                                                   f'{len(inside)} nodes collapsed']
    # edges into and out of the collapsed link go to its one node
    edge_ids = {g.get('id') for g in root.iter(SVG + 'g') if g.get('class', '').startswith('edge')}
    assert any(i.startswith('e_L0_') for i in edge_ids)
    # collapsing the outer link swallows the inner one
    root = _svg(to_dot(model, collapse=['/predictor', '/predictor/l1']), 'graphviz-pure')
    assert 'link:/predictor' in _nodes(root) and 'link:/predictor/l1' not in _nodes(root)
    with pytest.raises(ValueError, match='no node has that Link scope'):
        to_dot(model, collapse=['/nope'])
    assert 'cluster' not in to_dot(model, clusters=False)


def test_hide_constants_and_remove_variable():
    x = chainer.Variable(np.array(2.0), name='x')
    c = chainer.Variable(np.array(3.0), name='c', requires_grad=False)
    y = F.exp(x * c) + x
    model = GraphModel.from_outputs([y])
    root = _svg(to_dot(model, hide_constants=True), 'graphviz-pure')
    assert f'n{uid(c)}' not in _engine_nodes(root)
    assert f'n{uid(x)}' in _engine_nodes(root)
    root = _svg(to_dot(model, remove_variable=True), 'graphviz-pure')
    nodes = _engine_nodes(root)
    functions = {f'n{i}' for i, n in model.nodes.items() if n.category == 'function'}
    assert set(nodes) == functions
    edges = {g.get('id') for g in root.iter(SVG + 'g') if g.get('class', '').startswith('edge')}
    add = y.creator_node
    exp = add.inputs[0].creator_node
    mul = exp.inputs[0].creator_node
    # Mul -> Exp -> Add: two function-to-function edges (x feeds Add directly: no edge)
    assert edges == {f'e_n{uid(mul)}_n{uid(exp)}', f'e_n{uid(exp)}_n{uid(add)}'}


def test_grad_of_grad_distinct_and_max_order():
    x = chainer.Variable(np.array(3.0), name='x')
    y = x ** 3
    y.backward(enable_double_backprop=True)
    model = GraphModel.from_outputs([y])
    source = to_dot(model)
    grad_funcs = [n for n in model.nodes.values() if n.category == 'function' and n.order == 1]
    assert grad_funcs
    root = _svg(source, 'graphviz-pure')
    nodes = _engine_nodes(root)
    for f in grad_funcs:
        cls = nodes[f'n{f.id}'].get('class').split()
        assert 'grad-of-grad' in cls
        poly = next(nodes[f'n{f.id}'].iter(SVG + 'polygon'))
        assert poly.get('fill').upper() == palette.REDDISH_PURPLE
        assert poly.get('stroke-dasharray')               # dashed outline
    edge_classes = [g.get('class') for g in root.iter(SVG + 'g')
                    if g.get('class', '').startswith('edge')]
    assert 'edge edge-grad' in edge_classes and 'edge edge-forward' in edge_classes
    only_forward = _engine_nodes(_svg(to_dot(model, max_order=0), 'graphviz-pure'))
    assert {f'n{i}' for i, n in model.nodes.items() if n.order == 0} == set(only_forward)


def test_cut_edges_dashed_after_unchain():
    with events.recording() as log:
        x = chainer.Variable(np.array(1.0), name='x')
        h = F.exp(x)
        exp = h.creator_node
        y = h * 2
        h.unchain()
    model = GraphModel.from_events(log)
    root = _svg(to_dot(model), 'graphviz-pure')
    cut = [g for g in root.iter(SVG + 'g') if g.get('class') == 'edge edge-cut']
    assert len(cut) == 1
    assert cut[0].get('id') == f'e_n{uid(exp)}_n{uid(h)}'
    assert next(cut[0].iter(SVG + 'path')).get('stroke-dasharray')
    assert 'unchained' in _texts(_engine_nodes(root)[f'n{uid(h)}'])[-1]
    del y


def test_values_grads_device_badge_and_states_in_labels():
    with events.recording() as log:
        x = chainer.Variable(np.array([1.5, -2.0]), name='x')
        y = F.sum(x * x)
        y.backward()
    model = GraphModel.from_events(log)
    model.apply(events.DeviceMoved(var_id=uid(x), source='@numpy', destination='@cupy:0'))
    root = _svg(to_dot(model, show_values=True), 'graphviz-pure')
    texts = _texts(_engine_nodes(root)[f'n{uid(x)}'])
    assert texts[0] == 'x'
    assert '(2) float64' in texts
    assert '@cupy:0' in texts
    assert '= [ 1.5 -2. ]' in texts
    assert 'grad [ 3. -4.]' in texts
    assert texts[-1] == 'grad +='          # accumulated (x used twice)
    plain = _texts(_engine_nodes(_svg(to_dot(model, show_grads=False), 'graphviz-pure'))
                   [f'n{uid(x)}'])
    assert not any(t.startswith(('= ', 'grad [')) for t in plain)


def test_highlight_attribute_and_rankdir():
    x = chainer.Variable(np.array(2.0), name='x')
    y = F.exp(x)
    model = GraphModel.from_outputs([y])
    f = uid(y.creator_node)
    source = to_dot(model, rankdir='LR', highlight={f: 'next', uid(x): 'upstream',
                                                    uid(y): 'my-role'})
    root = _svg(source, 'graphviz-pure')
    nodes = _engine_nodes(root)
    assert 'hl-next' in nodes[f'n{f}'].get('class').split()
    assert 'hl-upstream' in nodes[f'n{uid(x)}'].get('class').split()
    assert 'hl-my-role' in nodes[f'n{uid(y)}'].get('class').split()
    stroke = next(nodes[f'n{f}'].iter(SVG + 'polygon')).get('stroke')
    assert stroke.upper() == palette.HIGHLIGHT_STYLE['next']['color']
    assert 'rankdir=LR' in source
    for bad in ({f: '<script>'}, {f: 'a b'}, {10 ** 9: 'next'}):
        with pytest.raises(ValueError):
            to_dot(model, highlight=bad)
    with pytest.raises(ValueError, match='rankdir'):
        to_dot(model, rankdir='XX')
    with pytest.raises(ValueError, match='max_nodes'):
        to_dot(model, max_nodes=0)
    with pytest.raises(TypeError):
        to_dot(y)


def test_legend_optional():
    model = GraphModel.from_outputs([chainer.Variable(np.array(1.0)) * 2])
    assert 'legend' in _nodes(_svg(to_dot(model), 'graphviz-pure'))
    assert 'legend' not in _nodes(_svg(to_dot(model, legend=False), 'graphviz-pure'))


# ---- rendering -----------------------------------------------------------------------------

def test_svg_and_png_without_system_graphviz(monkeypatch):
    """The CI path: only the graphviz-pure wheel, no `dot` anywhere on PATH."""
    monkeypatch.setenv('PATH', '/nonexistent')
    assert shutil.which('dot') is None
    exe = graph.renderer()
    assert exe is not None and 'graphviz-pure' in exe
    model = GraphModel.from_outputs([chainer.Variable(np.array(1.0), name='x') * 2])
    svg = render(model)
    assert 'graphviz-pure' in svg.decode()
    assert len(_engine_nodes(ET.fromstring(svg))) == 3
    png = render(to_dot(model), 'png')
    assert png.startswith(b'\x89PNG\r\n\x1a\n')


def test_renderer_choice_and_errors(monkeypatch):
    monkeypatch.setenv('AUTOGRAD_LAB_RENDERER', 'graphviz-pure')
    assert 'graphviz-pure' in graph.renderer()
    monkeypatch.setenv('AUTOGRAD_LAB_RENDERER', '/nonexistent/dot')
    assert graph.renderer() is None
    with pytest.raises(graph.RendererNotFound, match='graphviz-pure'):
        render('digraph { a }')
    monkeypatch.delenv('AUTOGRAD_LAB_RENDERER')
    with pytest.raises(ValueError, match='format'):
        render('digraph { a }', 'pdf')
    with pytest.raises(RuntimeError, match='failed'):
        render('digraph { a -> }', program='graphviz-pure')
    with pytest.raises(TypeError):
        render(42)


def test_a_variable_in_two_slots_gets_two_labelled_edges():
    """``x * x``: one edge per input slot, named, so the picture matches the two
    gradients the function sends back (issue 38, point 6)."""
    import re

    import numpy as np

    import autograd_lab as chainer
    from autograd_lab.graph import GraphModel, to_dot
    x = chainer.Variable(np.array(3.0), name='x')
    w = chainer.Variable(np.array(2.0), name='w')
    y = x * x + w
    dot = to_dot(GraphModel.from_outputs(y))
    edges = [line for line in dot.splitlines() if ' -> ' in line]
    from autograd_lab.events import uid
    square = [line for line in edges if line.startswith(f'\tn{uid(x)} -> ')]
    assert len(square) == 2
    assert sorted(re.search(r'label="([^"]+)"', line).group(1) for line in square) == \
        ['slot 1', 'slot 2']
    ids = [re.search(r'id=(\S+?)[ \]]', line).group(1) for line in edges]
    assert len(ids) == len(set(ids))  # every edge its own id
    assert all('label=' not in line for line in edges if line not in square)
