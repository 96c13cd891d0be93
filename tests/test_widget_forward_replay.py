"""The forward replay in the view: the stage holds still while the graph grows (issue 33).

A widget test (it needs the notebook extra); the replay's data is tested in
``test_forward_replay.py`` with the engine alone.
"""

from __future__ import annotations

import re

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events
from autograd_lab.events.code_lines import capturing_code_lines


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


def _replay(step_models):
    from autograd_lab_widget.protocol import OPTION_DEFAULTS
    with events.recording() as log, capturing_code_lines() as lines:
        x = chainer.Variable(np.array(0.5), name='x')
        w = chainer.Variable(np.array(2.0), name='w')
        y = x * w
        z = F.sin(y)
    model = step_models(z, events_log=log, code_lines=lines)
    scenes = [model.scene(dict(OPTION_DEFAULTS))]
    while model.back():
        scenes.append(model.scene(dict(OPTION_DEFAULTS)))
    return scenes[::-1]  # from the first position on


def test_the_replays_first_position_shows_the_inputs(step_models):
    first = _replay(step_models)[0]
    names = sorted(c['text'].get('name') for c in first.frame.nodes.values())
    assert names == ['w', 'x'], first.frame.nodes  # not an empty stage
    assert first.status['text'] == ('Building the graph: the inputs x, w (Step makes the '
                                    'first function).')


def test_the_replay_names_outputs_as_the_code_does(step_models):
    made_y = _replay(step_models)[1].status['text']
    assert made_y.startswith('Building the graph: function 1 of 2. The line `y = x * w` made f')
    assert made_y.endswith("and its output v4 (the code's y).") or "(the code's y)" in made_y
