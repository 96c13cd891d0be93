"""GraphView on bigger graphs: Link collapse and expand, cap, depth, constants, orders."""

from __future__ import annotations

import re

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import events

from autograd_lab_widget import GraphView
from widget_helpers import send


class Block(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 3)
            self.l2 = L.Linear(3, 3)

    def forward(self, h):
        return F.tanh(self.l2(F.relu(self.l1(h))))


class Net(chainer.ChainList):
    def __init__(self, n):
        super().__init__(*[Block() for _ in range(n)])

    def forward(self, h):
        for block in self:
            h = block(h)
        return F.sum(h)


@pytest.fixture
def big():
    net = Net(12)
    x = chainer.Variable(np.ones((2, 3), np.float32), name='x')
    with events.recording() as log:  # recorded: every node knows the Link that made it
        y = net(x)
    view = GraphView(y, events_log=list(log), links=net, options={'max_nodes': 60})
    view.net, view.x, view.y = net, x, y
    yield view
    view.close()


def drawn(view):
    return set(re.findall(r'\bid="?((?:n\d+)|(?:link:[^" \]]+)|more)', view.dot))


def test_big_graph_is_collapsed_per_link_before_layout(big):
    total = len(big.model.live.model.nodes)
    assert total > 60
    shown = drawn(big)
    links = {s for s in shown if s.startswith('link:')}
    assert links and len(shown) <= 60 + 1  # the cap, plus the "more" summary at most
    assert all(re.fullmatch(r'link:/\d+', s) for s in links)  # top-level blocks
    assert f'{len(links)} Links collapsed' in big.status['note']  # says what is hidden


def test_click_on_a_collapsed_link_expands_it(big):
    send(big, {'type': 'select', 'id': 'link:/3'})
    shown = drawn(big)
    assert 'link:/3' not in shown
    assert {'link:/3/l1', 'link:/3/l2'} <= shown  # one level deeper, still collapsed


def test_more_node_raises_the_cap(big):
    before = big.options['max_nodes']
    send(big, {'type': 'select', 'id': 'more'})
    assert big.options['max_nodes'] == 2 * before


def test_graph_too_big_even_collapsed_is_drawn_as_a_window_around_the_next_step():
    net = Net(30)
    x = chainer.Variable(np.ones((2, 3), np.float32), name='x')
    y = net(x)
    view = GraphView(y, links=net, options={'max_nodes': 40})  # scopes of parameters only
    try:
        shown = drawn(view)
        assert len(shown) <= 40 and f'n{events.uid(y)}' in shown
        assert 'nodes drawn: the part around the next function' in view.status['note']
        keys = set()
        for _ in range(6):
            view.step()
            keys.add(view.structure_key)
            assert f'n{view.status["next_id"]}' in drawn(view)  # the next step is in sight
        assert len(keys) < 6  # the window stays put while the next function is inside it
    finally:
        view.close()


def test_depth_limit_keeps_nodes_near_the_output(big):
    send(big, {'type': 'options', 'options': {'max_depth': 2, 'auto_collapse': False}})
    shown = drawn(big)
    assert f'n{events.uid(big.y)}' in shown and len(shown) == 3  # y, sum, tanh's output
    assert f'n{events.uid(big.x)}' not in shown


def test_search_highlights_matches(big):
    send(big, {'type': 'options', 'options': {'search': 'relu', 'auto_collapse': False,
                                              'max_nodes': 1000}})
    hits = [k for k, v in big.nodes.items() if 'hl-search' in v['class']]
    assert len(hits) == 12


def test_hide_constants():
    x = chainer.Variable(np.array(2.0), name='x')
    c = chainer.Variable(np.array(5.0), name='c', requires_grad=False)
    y = x * c
    view = GraphView(y)
    try:
        assert f'n{events.uid(c)}' in view.nodes
        send(view, {'type': 'options', 'options': {'hide_constants': True}})
        assert f'n{events.uid(c)}' not in view.nodes
    finally:
        view.close()


def test_higher_order_nodes_and_order_filter():
    x = chainer.Variable(np.array(2.0), name='x')
    y = x ** 3
    view = GraphView(y, enable_double_backprop=True)
    try:
        view.run()
        assert x.grad == 12.0 and x.grad_var.creator is not None
        assert 1 in view.orders  # grad-of-grad functions were recorded
        order1 = {i for i, n in view.model.live.model.nodes.items() if n.order == 1}
        assert order1 and all(f'n{i}' in view.nodes for i in order1)
        assert 'grad-of-grad' in view.dot
        send(view, {'type': 'options', 'options': {'max_order': 0}})
        assert not any(f'n{i}' in view.nodes for i in order1)
        # the panel links x's grad_var to the graph that made it (double backprop)
        view.select(x)
        link = next(k for k in view.panel['links'] if k['label'].startswith('grad_var'))
        gid = int(link['id'][1:])
        assert gid == events.uid(x.grad_var) and gid in view.model.live.model.nodes
    finally:
        view.close()


def test_grad_var_graph_order_from_chainer_grad():
    x = chainer.Variable(np.array(3.0), name='x')
    y = x * x * x
    gx, = chainer.grad([y], [x], enable_double_backprop=True)
    view = GraphView(gx)
    try:
        view.run()
        assert float(x.grad) == pytest.approx(18.0)  # d/dx (3x^2) at 3
    finally:
        view.close()


def test_large_arrays_get_statistics_and_heatmap():
    x = chainer.Variable(np.arange(200.0).reshape(10, 20), name='big')
    y = F.sum(x * 2)
    view = GraphView(y)
    try:
        view.run()
        view.select(x)
        p = view.panel
        main = {row[0]: row[1] for row in p['main']}
        assert main['value'] == 'shape (10, 20) float64: norm 1627 min 0 max 199 mean 99.5'
        assert main['grad'] == 'shape (10, 20) float64: norm 28.28 min 2 max 2 mean 2'
        assert main['shape'] == '(10, 20) float64'
        cells = view.nodes[f'n{events.uid(x)}']['text']  # on the node: shape and norm
        assert cells['data'] == '10×20 norm 1627' and cells['grad'] == '10×20 norm 28.28'
        maps = {m['label']: m for m in p['heatmaps']}
        assert maps['data']['rows'] == 10 and maps['data']['cols'] == 20
        assert maps['data']['values'][0] == 0.0 and maps['data']['values'][-1] == 1.0
    finally:
        view.close()


def test_structure_key_ignores_values_and_highlights_but_not_cuts():
    x = chainer.Variable(np.array(2.0), name='x')
    h = x * 3
    y = h * h
    view = GraphView(y)
    try:
        key = view.structure_key
        view.step()
        view.select(x)
        assert view.structure_key == key  # grads, states, selection: texts/classes in place
        assert view.nodes[f'n{events.uid(h)}']['text']['grad'] == '12.0'  # 2h, h = 6
        view.unchain(h)
        assert view.structure_key != key  # a cut edge is a new drawing
    finally:
        view.close()


def test_cell_texts_are_plain_text():
    x = chainer.Variable(np.array(1.0), name='<b>&amp;"')
    view = GraphView(x * 2)
    try:
        cells = view.nodes[f'n{events.uid(x)}']['text']
        assert cells['name'] == '<b>&amp;"'  # unescaped: the browser writes textContent
        assert '&lt;b&gt;&amp;amp;&quot;' in view.dot and '<b>&amp;' not in view.dot
    finally:
        view.close()
