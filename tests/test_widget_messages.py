"""Browser messages: validation, selection of live objects, options, malformed input."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events

from autograd_lab_widget import GraphView, WidgetWarning
from autograd_lab_widget import messages
from widget_helpers import polynomial, send


@pytest.fixture
def view():
    x, y = polynomial(3.0)
    v = GraphView(y)
    v.x, v.y = x, y  # keep them alive for the test
    yield v
    v.close()


def test_select_sets_the_live_variable_and_panel(view):
    x = view.x
    send(view, {'type': 'select', 'id': f'n{events.uid(x)}'})
    assert view.selected is x and view.selected_id == events.uid(x)
    p = view.panel
    assert p['id'] == events.uid(x) and p['title'] == 'x'
    # what a student asks first, in that order; the internals below the fold
    assert [row[:2] for row in p['main']] == [['value', '3.0'], ['grad', 'none yet'],
                                              ['shape', '() float64 (a scalar)']]
    details = dict(map(tuple, p['details']))
    assert details['device'] == '@numpy' and details['requires_grad'] == 'True'
    assert details['rank'] == '0' and details['id'] == str(events.uid(x))
    view.run()
    assert view.panel['main'][1][1] == '4.0'  # the panel follows the engine


def test_select_a_function_shows_rule_and_io(view):
    func = view.y.creator
    send(view, {'type': 'select', 'id': events.uid(func)})
    assert view.selected is func
    p = view.panel
    assert p['category'] == 'function' and p['title'] == 'f4  _ + 1'
    main = {row[0]: row[1] for row in p['main']}
    assert main['local derivative'] == '∂v5/∂v4 = 1' and main['outputs'] == 'v5 = 4.0'
    assert {link['id'] for link in p['links']} == {f'n{events.uid(func.inputs[0])}',
                                                  f'n{events.uid(view.y)}'}
    assert p['actions'] == ['run-to']  # backward has not run it yet
    pow_func = view.y.creator.inputs[0].creator.inputs[0].creator
    view.select(pow_func)
    details = dict(map(tuple, view.panel['details']))
    assert 'input: 3.0' in details['retained arrays']  # x ** 2 keeps x for its backward
    main = {row[0]: row[1] for row in view.panel['main']}
    assert main['local derivative'] == '∂v2/∂x = c·x^(c−1)'  # in the graph's names


def test_selected_collected_intermediate_gives_its_node(view):
    inter = next(i for i, n in view.model.live.model.nodes.items()
                 if n.category == 'variable' and 'collected' in n.states)
    send(view, {'type': 'select', 'id': f'n{inter}'})
    assert isinstance(view.selected, chainer.VariableNode)
    assert view.panel['id'] == inter


def test_selection_is_weak():
    import gc

    x = chainer.Variable(np.array(1.0), name='x')
    y = F.exp(x)
    view = GraphView(y)
    view.select(x)
    assert view.selected is x
    del x
    gc.collect()
    # x is an input of exp, its node lives on; the Variable object is gone
    assert view.selected is None
    view.close()


def test_object_created_after_the_view_is_found_in_the_user_namespace(view):
    from IPython.core.interactiveshell import InteractiveShell

    existed = InteractiveShell.initialized()
    shell = InteractiveShell.instance()
    shell.user_ns['view_y'] = view.y
    try:
        shell.run_cell('z = view_y * 2', store_history=False)
        z = shell.user_ns['z']
        send(view, {'type': 'select', 'id': f'n{events.uid(z)}'})
        assert view.selected is z
    finally:
        shell.user_ns.pop('z', None)
        shell.user_ns.pop('view_y', None)
        if not existed:
            InteractiveShell.clear_instance()


@pytest.mark.parametrize('content', [
    None, 'step', 42, [], {}, {'type': 'nope'}, {'type': 'action'},
    {'type': 'action', 'action': '__class__'}, {'type': 'select', 'id': 'n-1'},
    {'type': 'select', 'id': {'a': 1}}, {'type': 'select', 'id': 'x' * 5000},
    {'type': 'select', 'id': True}, {'type': 'options', 'options': {'max_nodes': -5}},
    {'type': 'options', 'options': {'max_nodes': 1_000_000}},  # over the page's cap (5,000)
    {'type': 'options', 'options': {'max_nodes': 5001}},
    {'type': 'options', 'options': {'evil': 1}}, {'type': 'options', 'options': 'x'},
    {'type': 'options', 'options': {'rankdir': 'XX'}}, {'type': 'guess', 'value': 7},
    {'type': 'guess', 'value': 'y' * 20000},
])
def test_malformed_messages_are_ignored_with_a_warning(view, content, caplog):
    before = (view.dot, view.status, view.options, view.selected_id)
    with caplog.at_level(logging.WARNING, logger='autograd_lab_widget'), \
            pytest.warns(WidgetWarning):
        send(view, content)  # never raises
    assert caplog.records and 'malformed' in caplog.records[-1].getMessage()
    assert (view.dot, view.status, view.options, view.selected_id) == before


@pytest.mark.parametrize('content', [
    {'type': 'select', 'id': 'n999999'},             # unknown id
    {'type': 'select', 'id': 'link:/no/such/link'},  # unknown cluster
    {'type': 'guess', 'value': '1'},                 # nothing to guess
    {'type': 'guess', 'value': 'not json'},
    {'type': 'action', 'action': 'unchain'},         # nothing selected
    {'type': 'action', 'action': 'unchain-preview'},
])
def test_well_formed_but_impossible_requests_warn_and_change_nothing(view, content, caplog):
    grads = view.x.grad
    with caplog.at_level(logging.WARNING, logger='autograd_lab_widget'), \
            pytest.warns(WidgetWarning):
        send(view, content)
    assert caplog.records
    assert view.x.grad is grads and view.selected is None
    assert view.status['message']  # the student sees why


def test_actions_from_the_browser_drive_the_view(view):
    send(view, {'type': 'action', 'action': 'step'})
    assert view.status['step'] == 1
    send(view, {'type': 'action', 'action': 'run'})
    assert view.x.grad == 4.0 and view.status['done']
    send(view, {'type': 'action', 'action': 'back'})
    assert not view.status['live']
    send(view, {'type': 'action', 'action': 'forward'})
    assert view.status['live']
    send(view, {'type': 'action', 'action': 'reset'})
    assert view.x.grad is None


def test_options_messages_update_the_drawing(view):
    xid = f'n{events.uid(view.x)}'
    assert view.nodes[xid]['text']['data'] == '3.0'  # values on the nodes by default
    send(view, {'type': 'options', 'options': {'rankdir': 'LR', 'show_values': False}})
    assert view.options['rankdir'] == 'LR' and 'rankdir=LR' in view.dot
    assert 'data' not in view.nodes[xid]['text'] and f'{xid}-data' not in view.dot
    send(view, {'type': 'options', 'options': {'search': 'x'}})
    assert 'hl-search' in view.nodes[xid]['class']
    send(view, {'type': 'select', 'id': events.uid(view.x)})
    send(view, {'type': 'options', 'options': {'highlight_direction': 'down'}})
    down = [k for k, v in view.nodes.items()  # the next function keeps its own outline
            if 'hl-downstream' in v['class'] or 'hl-next' in v['class']]
    assert f'n{events.uid(view.y)}' in down
    assert len(down) == len(view.model.live.model.nodes) - 1


def test_hostile_names_stay_text(view):
    x = chainer.Variable(np.array(1.0), name='<img src=x onerror=alert(1)>"&')
    y = x * 2
    v = GraphView(y)
    try:
        v.select(x)
        assert v.panel['title'] == '<img src=x onerror=alert(1)>"&'  # raw text,
        # written with textContent in the browser; the DOT has it escaped
        assert '<img' not in v.dot and '&lt;img' in v.dot
    finally:
        v.close()


def test_parse_accepts_the_documented_shapes():
    assert messages.parse({'type': 'select', 'id': 12}) == ('select', 12)
    assert messages.parse({'type': 'select', 'id': ''}) == ('select', None)
    assert messages.parse({'type': 'select', 'id': 'more'}) == ('more', None)
    assert messages.parse({'type': 'options', 'options': {'max_order': None}}) == \
        ('options', {'max_order': None})
    for action in messages.ACTIONS:
        assert messages.parse({'type': 'action', 'action': action}) == ('action', action)


def test_a_page_asking_for_the_kernel_gets_an_answer(view):
    """The page sends 'hello' when it draws a view; a view saved with its notebook and
    drawn where no kernel follows it gets no answer, and says so (browser tests)."""
    sent = []
    view.send = sent.append
    send(view, {'type': 'hello'})
    assert sent == [{'type': 'hello'}]
    assert messages.parse({'type': 'hello', 'extra': 'ignored'}) == ('hello', None)


def test_every_message_kind_and_action_the_protocol_allows_has_a_handler():
    """The inbox dispatches by table: each action messages.py lets through has a handler,
    and so does each message kind parse() returns."""
    from autograd_lab_widget import inbox

    assert set(inbox.ON_ACTION) == set(messages.ACTIONS)
    kinds = {messages.parse(m)[0] for m in (
        {'type': 'hello'}, {'type': 'select', 'id': 'n1'}, {'type': 'select', 'id': 'link:l'},
        {'type': 'select', 'id': 'more'}, {'type': 'guess', 'value': '1'},
        {'type': 'run-to', 'id': 'n1'},
        {'type': 'options', 'options': {}}, {'type': 'action', 'action': 'step'},
        {'type': 'find', 'text': 'x'}, {'type': 'resync'})}
    assert kinds == set(inbox.ON_MESSAGE)
    for handler in [*inbox.ON_ACTION.values(), *inbox.ON_MESSAGE.values()]:
        assert callable(handler), handler
