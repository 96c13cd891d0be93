"""A view states only what is true (issue 38, point 2): a leaf whose Variable is gone is
said to be gone, not drawn as a grad still to come; a view follows only its own graph,
and says so plainly when the grads its leaves hold came from another view's backward."""

from __future__ import annotations

import gc
import json

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events

from autograd_lab_widget.present.drawing import DEFAULT_OPTIONS

GONE_WORDS = 'x is gone: your code kept no reference, so its gradient was not kept'


def scene(model):
    return model.scene(dict(DEFAULT_OPTIONS))


def ledger_rows(made):
    return {r['key']: r['value'] for s in made.ledger['sections'] for r in s['rows']}


def texts(made):
    return {k: n['text'] for k, n in made.frame.nodes.items()}


def lost_input():
    """Lesson 6's pattern: a function makes x and returns only what it needs (w, y)."""
    def example():
        x = chainer.Variable(np.array(3.0), name='x')
        w = chainer.Variable(np.array(2.0), name='w')
        y = x * x * w
        y.name = 'y'
        return w, y
    w, y = example()
    gc.collect()
    return w, y


# ---- a leaf whose Variable is gone ---------------------------------------------------------

def test_a_gone_leaf_is_marked_on_its_node_and_in_the_dot(step_models):
    w, y = lost_input()
    model = step_models(y)
    x_id = next(i for i, n in model.live.model.nodes.items() if n.name == 'x')
    model.run()
    made = scene(model)
    cells = made.frame.nodes[f'n{x_id}']
    assert cells['text']['grad'] == 'gone' and cells['cell']['grad'] == 'gone'
    assert float(w.grad) == 9.0  # the kept leaf got its gradient, and shows it
    assert made.frame.nodes[f'n{events.uid(w)}']['text']['grad'] == '9.0'
    dot_x = next(line for line in model.to_dot(dict(DEFAULT_OPTIONS)).splitlines()
                 if line.lstrip().startswith(f'n{x_id} '))
    assert '>gone<' in dot_x and '—' not in dot_x


def test_a_gone_leaf_is_explained_in_the_panel_the_ledger_and_the_finished_status(step_models):
    _w, y = lost_input()
    model = step_models(y)
    model.run()
    model.select('x')
    made = scene(model)
    panel = json.dumps(made.panel, ensure_ascii=False)
    assert GONE_WORDS in panel and 'its grad is kept' not in panel and 'none yet' not in panel
    assert ledger_rows(made)['x.grad'] == GONE_WORDS + '.'  # the step into x says why
    text = made.status['text']
    assert 'every gradient has arrived' not in text
    assert text.startswith('Backward finished; no gradient for x:') and GONE_WORDS in text


def test_a_kept_leaf_still_shows_its_grad_and_the_plain_finished_status(step_models):
    x = chainer.Variable(np.array(3.0), name='x')
    y = x * x
    model = step_models(y)
    model.run()
    made = scene(model)
    assert made.frame.nodes[f'n{events.uid(x)}']['text']['grad'] == '6.0'
    assert made.status['text'] == 'Backward finished: every gradient has arrived.'
    assert not any('gone' in v for v in ledger_rows(made).values())


# ---- two graphs on one input -----------------------------------------------------------------

def test_a_backward_of_another_graph_sharing_the_input_leaves_the_view_as_it_was(step_models):
    x = chainer.Variable(np.array(3.0), name='x')
    y1 = x * 2
    y2 = F.sin(x) * x
    view1 = step_models(y1)
    before = scene(view1)
    nodes = set(view1.live.model.nodes)
    view2 = step_models(y2)
    view2.run()
    assert x.grad is not None  # the engine gave x the other graph's gradient
    after = scene(view1)
    assert set(view1.live.model.nodes) == nodes
    assert texts(after) == texts(before)  # x's grad cell still says "—"
    assert after.ledger == before.ledger


def test_a_forward_of_another_network_on_the_same_input_does_not_join_the_view(step_models):
    x = chainer.Variable(np.array(3.0), name='x')
    y1 = F.tanh(x * 2)
    view1 = step_models(y1)
    before = scene(view1)
    nodes = set(view1.live.model.nodes)
    y2 = F.sum(F.exp(x * 3) + x)  # made after view1, from the same x
    view2 = step_models(y2)
    view2.run()
    after = scene(view1)
    assert set(view1.live.model.nodes) == nodes
    assert set(after.frame.nodes) == set(before.frame.nodes)
    assert texts(after) == texts(before)
    # view1's status says plainly where x's grad came from (Step would add to it)
    assert 'grads from the backward of another graph that shares x (another view ran it)' \
        in after.status['text']


def test_a_view_made_after_another_view_ran_the_backward_says_so(step_models):
    x = chainer.Variable(np.array(2.0), name='x')
    f = x * x * 3
    first = step_models(f)
    first.run()
    second = step_models(f)
    st = scene(second).status
    assert st['counter'] == 'Already ran'
    assert st['text'] == 'x (12.0): grads from the backward another view of this graph ran.'


def test_stepping_after_another_graphs_backward_says_the_grad_it_adds_to(step_models):
    x = chainer.Variable(np.array(3.0), name='x')
    y1 = x * 2
    y2 = F.sin(x) * x
    view1 = step_models(y1)
    view2 = step_models(y2)
    view2.run()
    other = float(x.grad)
    view1.run()
    assert float(x.grad) == other + 2.0  # the engine adds, as Chainer does
    made = scene(view1)
    x_cell = made.frame.nodes[f'n{events.uid(x)}']['text']['grad']
    assert x_cell == '-0.8289'  # the grad x holds now, the ledger says how it came
    row = ledger_rows(made)['x.grad']
    assert row.startswith('−2.829 + 2.0 = −0.8289') and 'held a grad from an earlier' in row


def test_predict_does_not_ask_for_the_grad_of_a_gone_leaf(step_models):
    def example():
        x = chainer.Variable(np.array(3.0), name='x')
        w = chainer.Variable(np.array(2.0), name='w')
        return w, x * w
    w, y = example()
    gc.collect()
    model = step_models(y)
    assert model.next_targets() == ['w']  # x gets no gradient: nothing to guess for it
    rows = ledger_rows(scene(model))
    assert rows['x.grad'] == GONE_WORDS + '.' and 'x' not in rows
    model.predict = True
    assert model.guess(3.0).right and float(w.grad) == 3.0


def test_a_new_links_nan_grads_are_not_called_a_backward_that_ran(view_of):
    """A new Link's parameters start with NaN grads (Chainer's way of showing a missing
    cleargrads()); no backward ran, and the view says what they are (issue 41's walk of
    lesson 13 found "grads from a backward that already ran")."""
    import autograd_lab.links as L
    layer = L.Linear(3, 2)
    x = chainer.Variable(np.ones((1, 3), dtype=np.float32), name='x')
    view = view_of(F.sum(layer(x)))
    text = view.status['text']
    assert 'NaN grads, as a new Link' in text and 'cleargrads()' in text
    assert 'already ran' not in text
    layer.cleargrads()
    view.reset()
    assert 'NaN' not in view.status['text']


def test_a_long_list_of_held_grads_is_cut_to_a_line(view_of):
    import autograd_lab.links as L
    model = chainer.ChainList(*[L.Linear(2, 2) for _ in range(6)])
    model.cleargrads()
    h = chainer.Variable(np.ones((1, 2), dtype=np.float32), name='x')
    for layer in model:
        h = layer(h)
    loss = F.sum(h)
    loss.backward()
    view = view_of(loss)
    assert ' and 8 more: grads from' in view.status['text'], view.status['text']
