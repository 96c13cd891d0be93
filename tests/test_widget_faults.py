"""Under faults nothing the user had is lost and nothing wrong is shown (issue 39)."""

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events
from autograd_lab.events import recorders


def test_keyboard_interrupt_from_a_label_arrives_as_keyboard_interrupt():
    x = chainer.Variable(np.array([0.5, -1.0]))
    y = F.sum(F.exp(x))
    func = y.creator
    calls = {'n': 0}
    cls = type(func)

    class Raising(cls):
        @property
        def label(self):
            calls['n'] += 1
            raise KeyboardInterrupt

    with events.recording():
        func.__class__ = Raising
        try:
            with pytest.raises(KeyboardInterrupt):
                y.backward()
        finally:
            func.__class__ = cls
        assert calls['n'] == 1
        assert recorders.in_backward_of() is None
        assert recorders._threads.context.outer == []
        y.backward()  # the recorder still works, and the failed backward left no grad
    np.testing.assert_allclose(x.grad, np.exp([0.5, -1.0]))


def _half_done_unchain_graph():
    x = chainer.Variable(np.array([0.5, -1.0]))
    a = F.tanh(x)
    y = F.sum(F.exp(a) * x)
    return x, a, y


def _plain_engine_grad():
    x, a, y = _half_done_unchain_graph()
    a.unchain_backward()
    y.backward()
    return x.grad


def test_unchain_during_a_half_done_backward_gives_the_plain_engines_grads():
    from autograd_lab_widget import GraphView
    x, a, y = _half_done_unchain_graph()
    v = GraphView(y)
    try:
        v.step()
        v.step()
        v.unchain(a)
        status = v.status
        assert 'partial grads were undone' in status['text']
        assert 'failed' not in status['text']
        assert x.grad is None  # undone at once, before anything runs again
        v.run()
        np.testing.assert_allclose(x.grad, _plain_engine_grad())
        assert v.status['text'] == 'Backward finished: every gradient has arrived.'
        assert 'held before' not in v.status['notice']
    finally:
        v.close()


def test_unchain_refuses_a_variable_of_another_graph():
    from autograd_lab_widget import GraphView
    _, _, y = _half_done_unchain_graph()
    other = F.tanh(chainer.Variable(np.array([1.0])))
    v = GraphView(y)
    try:
        with pytest.raises(KeyError, match="not in the shown graph"):
            v.unchain(other)
        assert other.creator is not None
    finally:
        v.close()


def _square_graph():
    x = chainer.Variable(np.array([1.0, 2.0, 3.0]), name='x')
    return x, F.sum(x * x)


def test_reset_before_any_step_keeps_the_grads_a_cell_computed():
    from autograd_lab_widget import GraphView
    x, y = _square_graph()
    y.backward()
    v = GraphView(y)
    try:
        v.reset()
        np.testing.assert_allclose(x.grad, [2.0, 4.0, 6.0])
    finally:
        v.close()


def test_reset_in_a_second_view_gives_back_the_grad_held_before_the_firsts_backward():
    from autograd_lab_widget import GraphView
    x, y = _square_graph()
    x.grad = np.array([10.0, 20.0, 30.0])
    first, second = GraphView(y), GraphView(y)
    try:
        first.step()
        assert first.status['step'] == 1
        second.reset()
        np.testing.assert_allclose(x.grad, [10.0, 20.0, 30.0])
    finally:
        first.close()
        second.close()


def test_reset_keeps_a_retained_intermediates_grad():
    from autograd_lab_widget import GraphView
    x = chainer.Variable(np.array([1.0, 2.0]), name='x')
    h = x * 3
    y = F.sum(h * h)
    y.backward(retain_grad=True)
    held = h.grad.copy()
    v = GraphView(y)
    try:
        v.reset()
        np.testing.assert_allclose(h.grad, held)
        for _ in range(4):  # add to them (the first press asks), then Reset
            v.step()
        assert not np.allclose(x.grad, 18 * np.array([1.0, 2.0]))
        v.reset()
        np.testing.assert_allclose(h.grad, held)
        np.testing.assert_allclose(x.grad, 18 * np.array([1.0, 2.0]))
    finally:
        v.close()


def test_a_grad_set_by_hand_between_steps_survives_a_failed_steps_rollback():
    from autograd_lab_widget import GraphView

    class Failing(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            raise ValueError('broken backward')

    x = chainer.Variable(np.array([1.0, 2.0]), name='x')
    w = chainer.Variable(np.array([3.0, 4.0]), name='w')
    h = Failing().apply((x,))[0]
    y = F.sum(h + w)
    v = GraphView(y)
    try:
        v.step()  # sum's backward
        v.step()  # add's: w.grad is set
        w.grad = np.array([7.0, 7.0])  # by hand, between steps
        with pytest.raises(ValueError, match='broken backward'):
            v.step()
        np.testing.assert_array_equal(w.grad, [7.0, 7.0])
        assert 'w.grad, set by hand during it and kept' in v.status['message']
        assert x.grad is None
    finally:
        v.close()


def test_unchain_from_the_browser_during_a_half_done_backward_gives_the_plain_engines_grads():
    from autograd_lab_widget import GraphView
    from widget_helpers import send
    x, a, y = _half_done_unchain_graph()
    v = GraphView(y)
    try:
        send(v, {'type': 'action', 'action': 'step'})
        send(v, {'type': 'action', 'action': 'step'})
        assert v.status['step'] == 2
        v.select(a)
        send(v, {'type': 'action', 'action': 'unchain'})
        assert a.creator is None
        assert 'partial grads were undone' in v.status['text']
        send(v, {'type': 'action', 'action': 'run'})
        np.testing.assert_allclose(x.grad, _plain_engine_grad())
        assert v.status['text'] == 'Backward finished: every gradient has arrived.'
    finally:
        v.close()
