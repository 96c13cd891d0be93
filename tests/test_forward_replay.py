"""Code lines captured while recording, and the forward replay built from them."""

from __future__ import annotations

import re

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import events
from autograd_lab.events.code_lines import capturing_code_lines
from autograd_lab.graph import GraphModel
from autograd_lab.graph.replay import forward_steps


class _Twice(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.fc = L.Linear(2, 2)

    def forward(self, x):
        return F.tanh(self.fc(x))


def test_a_loop_gives_one_step_per_iteration_each_with_its_line():
    with events.recording() as log, capturing_code_lines() as lines:
        h = chainer.Variable(np.array([0.5, -0.5]), name='h')
        for _ in range(3):
            h = F.tanh(h * 2.0)
        loss = F.sum(h)
        loss.backward()  # backward's functions are not forward steps
    steps = forward_steps(log, lines)
    assert [s.label for s in steps] == ['_ * 2.0', 'Tanh'] * 3 + ['Sum']
    assert [s.code for s in steps] == ['h = F.tanh(h * 2.0)'] * 6 + ['loss = F.sum(h)']
    # step k's graph holds exactly the first k + 1 functions
    for k, s in enumerate(steps):
        model = GraphModel.from_events(log, upto=s.index)
        functions = [n for n in model.nodes.values() if n.category == 'function']
        assert len(functions) == k + 1 and s.func_id in model.nodes


def test_an_if_gives_two_inputs_two_graphs():
    def run(x0):
        with events.recording() as log, capturing_code_lines() as lines:
            x = chainer.Variable(np.array(x0), name='x')
            if x0 > 0:
                y = F.exp(x)
            else:
                y = x * x * x
            assert y.creator is not None
        return [(s.label, s.code) for s in forward_steps(log, lines)]
    assert run(1.0) == [('exp', 'y = F.exp(x)')]
    assert run(-1.0) == [('_ * _', 'y = x * x * x'), ('_ * _', 'y = x * x * x')]


def test_a_links_functions_point_at_its_forward_in_the_users_code():
    with events.recording() as log, capturing_code_lines() as lines:
        net = _Twice()
        net(np.ones((1, 2), np.float32))
    steps = forward_steps(log, lines)
    assert [s.code for s in steps] == ['return F.tanh(self.fc(x))'] * 2
    assert {lines.line(s.func_id).function for s in steps} == {'forward'}


def test_capture_is_off_outside_its_block_and_without_a_recording():
    before = events.recorders.code_line_sink
    with events.recording():
        with capturing_code_lines() as lines:
            x = chainer.Variable(np.array(1.0))
            y = x + 1
        assert events.recorders.code_line_sink is before
        z = y * 3
    with capturing_code_lines() as unrecorded:
        w = z * 2  # nothing records: nothing is announced, nothing captured
    assert lines.line(events.uid(y.creator)).text == 'y = x + 1'
    assert lines.line(events.uid(z.creator)) is None and lines.text(events.uid(z.creator)) == ''
    assert unrecorded.lines == {} and w.creator is not None


def test_nested_captures_both_see_the_inner_lines():
    with events.recording(), capturing_code_lines() as outer:
        x = chainer.Variable(np.array(1.0))
        with capturing_code_lines() as inner:
            y = x * 2
    ident = events.uid(y.creator)
    assert inner.text(ident) == outer.text(ident) == 'y = x * 2'


def test_without_captured_lines_the_replay_has_no_captions():
    with events.recording() as log:
        x = chainer.Variable(np.array(1.0))
        _ = x * 2
    assert [s.code for s in forward_steps(log)] == ['']


def _node_boxes(svg: bytes) -> dict:
    """{node id: the points of its first polygon} in a rendered SVG."""
    import xml.etree.ElementTree as ET
    ns = '{http://www.w3.org/2000/svg}'
    boxes = {}
    for g in ET.fromstring(svg).iter(f'{ns}g'):
        if 'node' in (g.get('class') or '').split():
            polygon = next(g.iter(f'{ns}polygon'), None)
            boxes[g.get('id')] = polygon.get('points') if polygon is not None else None
    return boxes


def test_the_stage_holds_still_while_the_graph_grows(step_models):
    from autograd_lab import graph
    from autograd_lab_widget.protocol import OPTION_DEFAULTS
    with events.recording() as log, capturing_code_lines() as lines:
        x = chainer.Variable(np.array(0.5), name='x')
        h = x
        for _ in range(3):
            h = F.tanh(h * x)
        loss = h + 1
    model = step_models(loss, events_log=log, code_lines=lines)
    drawn = [model.scene(dict(OPTION_DEFAULTS))]  # the view opens at the end of the forward
    while len(drawn) < 4 and model.back():
        drawn.append(model.scene(dict(OPTION_DEFAULTS)))
    assert all('Building the graph' in s.status['text'] for s in drawn)
    end, early = _node_boxes(graph.render(drawn[0].frame.dot)), drawn[-1]
    made = set(early.frame.nodes)
    assert len(made) < len(drawn[0].frame.nodes)  # fewer nodes made so far ...
    placed = _node_boxes(graph.render(early.frame.dot))
    for ident in made:  # ... each where the whole graph has it
        assert placed[ident] == end[ident]
    ghosts = [line for line in early.frame.dot.splitlines() if 'style=invis' in line]
    assert ghosts and all('class="ghost"' in line for line in ghosts)
    visible = [line.split()[0] for line in early.frame.dot.splitlines()
               if re.match(r'\tn\d+ \[', line) and 'class="ghost"' not in line]
    assert sorted(visible) == sorted(made)  # the nodes made so far, and only those
