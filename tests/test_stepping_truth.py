"""The view's state stays true where a class meets it: a view made after backward, two
views stepping one graph, a step that fails half-way (issue 29)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer

from autograd_lab_widget.present.drawing import DEFAULT_OPTIONS


def gates():
    """Lesson 2's gates: z = x * y, f = z * z at x = 2, y = 3 (x.grad 36, y.grad 24)."""
    x = chainer.Variable(np.array(2.0), name='x')
    y = chainer.Variable(np.array(3.0), name='y')
    z = x * y
    z.name = 'z'
    f = z * z
    f.name = 'f_gates'
    return x, y, f


def status(model):
    return model.scene(dict(DEFAULT_OPTIONS)).status


def ledger_rows(model):
    return {r['key']: r['value'] for s in model.scene(dict(DEFAULT_OPTIONS)).ledger['sections']
            for r in s['rows']}


# ---- a view made after backward -----------------------------------------------------------

def test_a_view_made_after_backward_says_the_grads_shown_come_from_it(step_models):
    x, y, f = gates()
    f.backward()
    model = step_models(f)
    st = status(model)
    assert not st['text'].startswith('Step 0')
    assert 'x (36.0)' in st['text'] and 'already ran' in st['text']
    assert st['notice'] == 'Reset: clear them. Step: add to them.'
    assert st['counter'] == 'Already ran'  # not "Step 0 of 3" beside the grads shown
    assert float(x.grad) == 36.0 and float(y.grad) == 24.0


def test_run_to_end_button_asks_before_adding_a_second_backward(step_models):
    x, y, f = gates()
    f.backward()
    model = step_models(f)
    model.run(confirm=False)  # the button: the first press only warns
    assert float(x.grad) == 36.0 and float(y.grad) == 24.0
    assert 'Press again to add' in status(model)['notice']


def test_reset_then_stepping_a_view_made_after_backward_gives_the_true_grads(step_models):
    x, y, f = gates()
    f.backward()
    model = step_models(f)
    model.reset()  # keeps the grads of the backward run from code (issue 39)...
    assert float(x.grad) == 36.0 and float(y.grad) == 24.0
    x.cleargrad()  # ...which the user clears for a fresh start
    y.cleargrad()
    model.run()
    assert float(x.grad) == 36.0 and float(y.grad) == 24.0
    assert status(model)['text'].startswith('Backward finished')


def test_adding_to_an_earlier_backward_draws_no_stray_nodes_and_says_why_grads_add(step_models):
    x, _y, f = gates()
    f.backward()
    model = step_models(f)
    before = set(model.live.model.nodes)
    model.run()  # asked for from Python: a second backward, said in the notice
    assert float(x.grad) == 72.0
    assert set(model.live.model.nodes) == before  # the sums made no nodes
    assert set(model.scene(dict(DEFAULT_OPTIONS)).frame.nodes) == {f'n{i}' for i in before}
    rows = ledger_rows(model)
    assert 'x held a grad from an earlier backward' in rows['x.grad']
    assert 'used twice' not in rows['x.grad']
    assert 'Added to the grads held' in status(model)['notice']


# ---- two views on one graph -----------------------------------------------------------------

def test_two_views_stepped_alternately_share_one_backward_and_finish(step_models):
    x, y, f = gates()
    v1, v2 = step_models(f), step_models(f)
    turns = 0
    while v1.step() and v2.step():
        turns += 1
        assert turns < 10, 'the views keep discarding each other\'s backward'
    assert float(x.grad) == 36.0 and float(y.grad) == 24.0
    assert 'Another view of this graph started this backward' in status(v2)['notice']
    assert status(v1)['text'].startswith('Backward finished')
    assert status(v2)['text'].startswith('Backward finished')


def test_the_second_view_shows_the_step_the_first_left_next(step_models):
    x, _y, f = gates()
    v1, v2 = step_models(f), step_models(f)
    v1.step()
    assert v2.upcoming().func_id == v1.upcoming().func_id  # f1: the step under way
    assert status(v2)['step'] == 1
    v2.step()
    assert float(x.grad) == 36.0 and v1.step() is False


def test_reset_in_one_view_drops_the_backward_for_the_other_too(step_models):
    x, _y, f = gates()
    v1, v2 = step_models(f), step_models(f)
    v1.step()
    v1.reset()
    assert v2.upcoming().func_id == v1.upcoming().func_id  # both at the first step again
    v2.run()
    assert float(x.grad) == 36.0  # a fresh backward, whole


# ---- a failed step ----------------------------------------------------------------------------

class Interrupting(chainer.FunctionNode):
    """Doubles its input; its backward raises KeyboardInterrupt while ``armed``."""

    armed = True

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, target_input_indexes, grad_outputs):
        if Interrupting.armed:
            raise KeyboardInterrupt
        return grad_outputs[0] * 2,


def interrupting_graph():
    x = chainer.Variable(np.array([1.0, 2.0, 3.0]), name='x')
    x.grad = np.array([0.1, 0.2, 0.3])  # from an earlier backward: must never be lost
    h = x * 3
    y, = Interrupting().apply((h,))
    loss = chainer.functions.sum(y * y)
    loss.name = 'loss'
    return x, loss


@pytest.fixture
def interrupting():
    Interrupting.armed = True
    yield
    Interrupting.armed = False


def test_a_failed_step_leaves_the_view_usable_and_the_grads_as_before(step_models, interrupting):
    x, loss = interrupting_graph()
    model = step_models(loss)
    with pytest.raises(KeyboardInterrupt):
        model.run()
    np.testing.assert_array_equal(x.grad, [0.1, 0.2, 0.3])
    st = status(model)
    assert st['message'].startswith('The step failed (KeyboardInterrupt')
    assert 'Step tries again' in st['text'] and st['can_step']
    assert model.back()  # Back shows the steps that ran
    assert model.forward()
    Interrupting.armed = False
    assert model.position == len(model.timeline)  # Forward came back to now
    assert model.step() is True  # retry: a fresh backward from the start
    model.run()
    np.testing.assert_array_equal(x.grad, np.array([0.1, 0.2, 0.3]) + 72 * np.array([1, 2, 3]))
    assert status(model)['text'].startswith('Backward finished')


def test_reset_after_a_failed_step_keeps_the_grads_the_leaves_held(step_models, interrupting):
    x, loss = interrupting_graph()
    model = step_models(loss)
    with pytest.raises(KeyboardInterrupt):
        model.run()
    model.reset()
    np.testing.assert_array_equal(x.grad, [0.1, 0.2, 0.3])
    x_id = model.names.find(model.live.model, 'x')
    assert model.scene(dict(DEFAULT_OPTIONS)).frame.nodes[f'n{x_id}']['text']['grad'] != '—'


def test_reset_after_a_whole_backward_gives_back_the_earlier_grads(step_models, interrupting):
    Interrupting.armed = False
    x, loss = interrupting_graph()
    model = step_models(loss)
    model.run()
    assert not np.allclose(x.grad, [0.1, 0.2, 0.3])
    model.reset()  # undoes the view's backward...
    np.testing.assert_array_equal(x.grad, [0.1, 0.2, 0.3])
    model.reset()  # ...and a second Reset loses nothing either (issue 39)
    np.testing.assert_array_equal(x.grad, [0.1, 0.2, 0.3])
