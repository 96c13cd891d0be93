"""GraphView: the CPU/GPU toggle (disabled with its reason / fake GPU) and unchain."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import backend, events

from autograd_lab_widget import GraphView, WidgetWarning
from widget_helpers import polynomial, send


def test_toggle_disabled_without_gpu_says_why(no_gpu, caplog):
    x, y = polynomial()
    view = GraphView(y)
    try:
        assert view.gpu_available is False
        assert view.gpu_reason == backend.gpu_unavailable_reason()
        assert 'CuPy' in view.gpu_reason
        with caplog.at_level(logging.WARNING, logger='autograd_lab_widget'), \
                pytest.warns(WidgetWarning, match='GPU unavailable'):
            send(view, {'type': 'action', 'action': 'device'})  # no silent no-op
        assert view.device == '@numpy' and isinstance(x.array, np.ndarray)
        assert 'GPU unavailable' in view.status['message']
        with pytest.raises(RuntimeError, match='CuPy'):
            view.to_device('@cupy:0')
    finally:
        view.close()


def test_toggle_moves_every_variable_and_parameter(fake_gpu):
    from autograd_lab.testing import fake_gpu as fake

    link = chainer.links.Linear(3, 2)
    link.cleargrads()  # Chainer starts parameter grads as NaN until cleared
    x = chainer.Variable(np.ones((1, 3), dtype=np.float32), name='x')
    x2 = chainer.Variable(np.array(3.0, dtype=np.float32), name='x2')
    loss = F.sum(link(x)) + (x2 ** 2 - 2 * x2 + 1)
    view = GraphView(loss)
    try:
        assert view.gpu_available and view.gpu_reason == ''
        send(view, {'type': 'action', 'action': 'device'})
        assert view.device == '@cupy:0'
        for v in (x, x2, link.W, link.b, loss):
            assert isinstance(v.array, fake.FakeGpuArray), v
        on_gpu = [n for n in view.model.live.model.nodes.values() if n.device == '@cupy:0']
        assert {events.uid(v) for v in (x, link.W, link.b)} <= {n.id for n in on_gpu}
        assert 'cupy:0' in view.to_dot()  # the device, in the nodes' tooltips
        assert 'on-device' in view.nodes[f'n{events.uid(x)}']['class']
        view.run()  # backward on the (fake) GPU
        assert isinstance(link.W.grad, fake.FakeGpuArray)
        np.testing.assert_allclose(link.W.grad.get(), np.ones((2, 3)))
        assert float(x2.grad.get()) == 4.0
        send(view, {'type': 'action', 'action': 'device'})  # and back
        assert view.device == '@numpy' and type(link.W.array) is np.ndarray
        assert type(link.W.grad) is np.ndarray
    finally:
        view.close()


def test_no_device_move_half_way_through_backward(fake_gpu):
    x, y = polynomial()
    view = GraphView(y)
    try:
        view.step()
        with pytest.raises(RuntimeError, match='half-way'):
            view.to_device('@cupy:0')
        assert type(x.array) is np.ndarray  # nothing moved
        view.reset()
        view.to_device('@cupy:0')
        assert view.device == '@cupy:0'
    finally:
        view.close()


def test_unchain_preview_then_apply_and_backward_stops_there():
    x = chainer.Variable(np.array(2.0), name='x')
    h = F.exp(x * 3)
    h.name = 'h'
    y = h * h
    view = GraphView(y)
    try:
        view.select(h)
        send(view, {'type': 'action', 'action': 'unchain-preview'})
        live = view.model.live.model
        upstream = {i for i in live.upstream(events.uid(h)) if live.nodes[i].category == 'function'}
        assert len(upstream) == 2
        cut = [k for k, v in view.nodes.items() if 'hl-cut' in v['class']]
        assert sorted(cut) == sorted(f'n{i}' for i in upstream)
        assert h.creator is not None  # a preview changes nothing
        send(view, {'type': 'action', 'action': 'unchain'})
        assert h.creator is None
        assert 'dashed' in view.dot  # the cut edges
        assert any(e.cut for e in view.model.live.model.edges)
        view.run()
        assert x.grad is None  # the gradient stopped at h
        assert float(h.grad) == pytest.approx(2 * np.exp(6.0))
    finally:
        view.close()


def test_unchain_single_edge():
    x = chainer.Variable(np.array(2.0), name='x')
    h = x * 3
    y = h + x
    view = GraphView(y)
    try:
        assert view.unchain_preview(h, backward=False) == {events.uid(h.creator)}
        view.unchain(h, backward=False)
        view.run()
        assert x.grad == 1.0  # only the direct path remains
    finally:
        view.close()


def test_backward_after_a_device_move_with_retained_outputs(fake_gpu):
    from autograd_lab.testing import fake_gpu as fake

    x = chainer.Variable(np.array([1.0, 2.0]), name='x')
    y = F.sum(F.exp(x) * F.tanh(x))  # exp and tanh keep their outputs for backward
    view = GraphView(y)
    try:
        view.to_device('@cupy:0')
        view.run()
        assert isinstance(x.grad, fake.FakeGpuArray)
        t = np.tanh([1.0, 2.0])
        np.testing.assert_allclose(x.grad.get(), np.exp([1.0, 2.0]) * (t + 1 - t ** 2))
    finally:
        view.close()
