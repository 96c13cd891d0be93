"""Synced traits written by the browser (ipywidgets 'update' messages) are checked:
good values act like the matching message, bad ones are ignored with a warning."""

from __future__ import annotations

import logging

import pytest
import traitlets

from autograd_lab import events

from autograd_lab_widget import GraphView
from autograd_lab_widget.view import DEFAULT_HEIGHT, WidgetWarning
from widget_helpers import polynomial


@pytest.fixture
def view():
    x, y = polynomial(3.0)
    v = GraphView(y)
    v.x = x
    yield v
    v.close()


def update(view, state):
    """Deliver ``state`` as the browser's 'update' message, through ipywidgets' handler."""
    view._handle_msg({'content': {'data': {'method': 'update', 'state': state}}, 'buffers': []})


def state_of(view):
    return (view.dot, dict(view.options), view.selected_id, view.position, view.height,
            view.predict, dict(view.status), view.device)


BAD = [
    ('options-wholesale', {'options': {'rankdir': '<svg onload=x>', 'max_nodes': -1}}),
    ('options-unknown', {'options': {'__class__': 1}}),
    ('options-not-object', {'options': ['search']}),
    ('position-negative', {'position': -99}),
    ('position-not-a-boundary', {'position': 1}),
    ('position-past-the-end', {'position': 10 ** 6}),
    ('position-text', {'position': '3'}),
    ('selected-huge', {'selected_id': 10 ** 30}),
    ('selected-unknown', {'selected_id': 987654321}),
    ('selected-bool', {'selected_id': True}),
    ('height-negative', {'height': -5}),
    ('height-huge', {'height': 10 ** 9}),
    ('height-float', {'height': 480.5}),
    ('predict-text', {'predict': 'yes'}),
    ('output-trait-dot', {'dot': 'digraph { evil }'}),
    ('output-trait-status', {'status': {}}),
    ('output-trait-device', {'device': '@cupy:0'}),
    ('unknown-trait', {'__dict__': {}}),
    ('not-an-object', ['options']),
]


@pytest.mark.parametrize('state', [s for _, s in BAD], ids=[i for i, _ in BAD])
def test_bad_state_is_ignored_with_a_warning_and_the_view_works(view, state, caplog):
    before = state_of(view)
    with caplog.at_level(logging.WARNING, 'autograd_lab_widget'), \
            pytest.warns(WidgetWarning, match='ignored'):
        update(view, state)
    assert state_of(view) == before
    assert any('ignored' in r.getMessage() for r in caplog.records)
    view.refresh()
    assert view.step() is True and view.status['step'] == 1


def test_one_bad_trait_does_not_block_a_good_one(view):
    with pytest.warns(WidgetWarning):
        update(view, {'height': -5, 'options': {'rankdir': 'LR'}})
    assert view.height == DEFAULT_HEIGHT and view.options['rankdir'] == 'LR'


def test_good_state_acts_like_the_matching_message(view):
    update(view, {'options': {'rankdir': 'LR'}})  # partial: merged over the current options
    assert view.options['rankdir'] == 'LR' and view.options['search'] == ''
    assert 'rankdir=LR' in view.dot.replace('"', '')
    update(view, {'height': 600})
    assert view.height == 600
    ident = events.uid(view.x)
    update(view, {'selected_id': ident})
    assert view.selected is view.x and view.panel['id'] == ident
    update(view, {'selected_id': None})
    assert view.selected is None and view.panel == {}
    view.step()
    view.step()
    update(view, {'position': 0})  # time travel to a step boundary
    assert view.position == 0 and view.status['live'] is False
    update(view, {'position': len(view.model.timeline)})  # and back to the live end
    assert view.status['live'] is True and view.status['step'] == 2
    update(view, {'predict': True})
    assert view.predict is True


def test_python_side_values_are_checked_too(view):
    _, y = polynomial()
    with pytest.raises(traitlets.TraitError, match='height'):
        GraphView(y, height=-5)
    with pytest.raises(traitlets.TraitError, match='rankdir'):
        view.options = {'rankdir': '<svg>'}
    view.options = {'rankdir': 'LR'}  # a partial dict is merged: every option stays set
    assert view.options['max_nodes'] == 600 and view.options['rankdir'] == 'LR'
    view.refresh()
    assert events.recorder is not None  # the fixture's view listens ...
    view.detach()
    assert events.recorder is None  # ... and nothing else: the failed view let go
