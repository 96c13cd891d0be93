"""Framing, kernel side (issue 38 point 5): ``GraphView(y, focus=x)`` and the ``find``
message ('/' search, then Enter); the page's part is tests/browser/test_browser_framing.py."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab.events import uid
from autograd_lab_widget import GraphView, inbox, protocol


@pytest.fixture
def graph():
    x = chainer.Variable(np.array(0.5), name='x')
    h = F.sin(x)
    h.name = 'h'
    y = F.tanh(h)
    y.name = 'y'
    return x, h, y


def test_focus_takes_a_node_of_the_graph_in_any_form(graph):
    x, h, y = graph
    for target in (x, x.node, 'x'):
        view = GraphView(y, focus=target)
        assert view.focus == uid(x)
        view.close()
    view = GraphView(y, focus=h.creator)
    assert view.focus == uid(h.creator)
    assert view.get_state()['focus'] == uid(h.creator)  # what the page is sent
    view.focus = 'f2'  # set again: the page frames it
    assert view.focus == uid(y.creator)
    view.close()


def test_without_focus_the_view_frames_the_next_function(graph):
    _, _, y = graph
    view = GraphView(y)
    assert view.focus is None and view.centre == uid(y.creator)
    view.close()


def test_focus_outside_the_graph_is_a_value_error_and_a_wrong_type_a_type_error(graph):
    _, _, y = graph
    with pytest.raises(ValueError, match="not in this view's graph"):
        GraphView(y, focus=chainer.Variable(np.array(1.0)))
    with pytest.raises(ValueError, match="no node called 'nope'"):
        GraphView(y, focus='nope')
    for bad in (1.5, [y], True, object()):
        with pytest.raises(TypeError, match='focus takes a Variable'):
            GraphView(y, focus=bad)


def test_find_selects_each_match_in_turn_and_says_when_none(graph):
    x, h, y = graph
    view = GraphView(y)
    inbox.receive(view, {'type': 'find', 'text': 'x'})
    assert view.selected is x and view.options['search'] == 'x'
    assert view.panel  # inspected, as a click does
    inbox.receive(view, {'type': 'find', 'text': 'f'})
    first = view.selected_id
    inbox.receive(view, {'type': 'find', 'text': 'f'})
    assert {first, view.selected_id} == {uid(h.creator), uid(y.creator)}
    inbox.receive(view, {'type': 'find', 'text': 'zzz'})
    assert 'No node matches' in view.model.message
    view.close()


def test_pan_keys_and_fit_width_are_in_the_protocol():
    assert set(protocol.PAN_KEYS) == {'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'}
    assert protocol.KEYS['w'] == 'fit-width' and 'find' in protocol.BROWSER_MESSAGES
    assert 'PAN_KEYS' in protocol.js_module()
