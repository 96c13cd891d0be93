"""Code lines captured while recording, and the forward replay built from them."""

from __future__ import annotations


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
