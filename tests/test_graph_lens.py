"""The gradient lens (autograd_lab.graph.lens): norm ratios, flags, NaN origin, links.

Ratios are checked against numerical derivatives (central differences in float64) and
against norms computed here by hand, with stated tolerances.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import events
from autograd_lab.graph import GraphModel
from autograd_lab.graph import lens


def _sigmoid_chain(x0: np.ndarray, depth: int) -> tuple:
    with events.recording() as log:
        x = chainer.Variable(x0.copy(), name='x')
        h = x
        for _ in range(depth):
            h = F.sigmoid(h * 3.0)
        loss = F.sum(h)
        loss.backward()
    return log, x


def test_ratio_is_log10_of_the_numerical_gradient_over_the_seed():
    x0 = np.array([0.3, -0.2, 0.5])
    log, x = _sigmoid_chain(x0, 4)
    reading = lens.readings(GraphModel.from_events(log).run)[events.uid(x)]

    def f(v):
        h = v
        for _ in range(4):
            h = 1 / (1 + np.exp(-3.0 * h))
        return h.sum()
    eps = 1e-6
    numeric = np.array([(f(x0 + eps * e) - f(x0 - eps * e)) / (2 * eps) for e in np.eye(3)])
    assert reading.norm == pytest.approx(np.linalg.norm(numeric), rel=1e-6)
    assert reading.log10_ratio == pytest.approx(math.log10(np.linalg.norm(numeric)), abs=1e-6)
    assert reading.flag is None


def test_seed_is_the_roots_grad_so_the_loss_reads_zero_and_a_scaled_seed_shifts_nothing():
    with events.recording() as log:
        x = chainer.Variable(np.array([1.0, 2.0]), name='x')
        y = x * 5.0
        y.grad = np.array([30.0, 40.0])  # a seed of norm 50
        y.backward()
    got = lens.readings(GraphModel.from_events(log).run)
    assert got[events.uid(y)].log10_ratio == pytest.approx(0.0)
    assert got[events.uid(x)].log10_ratio == pytest.approx(math.log10(5.0))


def test_twenty_layer_sigmoid_mlp_flags_vanishing_in_its_first_layers_only():
    rng = np.random.RandomState(0)
    with events.recording() as log:
        model = chainer.ChainList(*[
            L.Linear(8, 8, initialW=rng.normal(0, 1 / np.sqrt(8), (8, 8)).astype(np.float32))
            for _ in range(20)])
        model.cleargrads()
        h = chainer.Variable(rng.normal(size=(4, 8)).astype(np.float32))
        for layer in model:
            h = F.sigmoid(layer(h))
        loss = F.sum(h)
        loss.backward()
    by_link = lens.link_readings(GraphModel.from_events(log))
    first, last = by_link['/0'], by_link['/19']
    assert first.flag == 'vanishing' and first.log10_ratio < math.log10(lens.VANISHING_BELOW)
    assert last.flag is None
    # the norm of a link is that of all its parameters' grads together
    expected = math.sqrt(float((model[0].W.grad.astype(np.float64) ** 2).sum()
                               + (model[0].b.grad.astype(np.float64) ** 2).sum()))
    assert first.norm == pytest.approx(expected, rel=1e-5)
    ratios = [by_link[f'/{i}'].log10_ratio for i in range(20)]
    assert ratios[0] < ratios[10] < ratios[19]


def test_exploding_rnn_flags_its_earliest_state():
    with events.recording() as log:
        h0 = chainer.Variable(np.ones(2), name='h0')
        w = np.array([[3.0, 0.0], [0.0, 3.0]])
        h = h0
        for _ in range(12):
            h = F.matmul(h.reshape(1, 2), w).reshape(2)
        F.sum(h).backward()
    reading = lens.readings(GraphModel.from_events(log).run)[events.uid(h0)]
    # dL/dh0 = 3^12 (1, 1); the seed is dL/dL = 1
    assert reading.log10_ratio == pytest.approx(12 * math.log10(3.0) + math.log10(math.sqrt(2)))
    assert reading.flag == 'exploding'


def _nan_in_sqrt_backward():
    x = chainer.Variable(np.array([0.0, 4.0]), name='x')
    y = F.sum(x ** 0.5 * np.array([0.0, 1.0]))  # the power's backward at 0 makes inf * 0
    return x, y


def test_nan_origin_is_the_first_function_whose_backward_made_it():
    with events.recording() as log, np.errstate(invalid='ignore', divide='ignore'):
        x, y = _nan_in_sqrt_backward()
        y.backward()
    origin = GraphModel.from_events(log).run.nan_origin
    labels = {e.func_id: e.label for e in log if e.kind == 'function_applied'}
    assert labels[origin] == '_ ** 0.5'
    assert lens.readings(GraphModel.from_events(log).run)[events.uid(x)].flag == 'nonfinite'
    # its inputs' grads are not finite, its output's grad was: the one to blame
    started = next(e for e in log if e.kind == 'backward_step_started' and e.func_id == origin)
    done = next(e for e in log if e.kind == 'backward_step_done' and e.func_id == origin)
    assert np.isfinite(started.grad_outputs[0]).all()
    assert not np.isfinite(done.grad_inputs[0]).all()


def test_readings_fill_in_while_stepping():
    with events.recording() as log, np.errstate(invalid='ignore', divide='ignore'):
        x, y = _nan_in_sqrt_backward()
        y.backward()
    done = [i for i, e in enumerate(log) if e.kind == 'backward_step_done']
    first = GraphModel.from_events(log, upto=done[0]).run
    assert events.uid(x) not in lens.readings(first)  # not reached yet
    assert events.uid(y) in lens.readings(first)
    assert first.nan_origin is None  # the sum's step made no NaN
    assert GraphModel.from_events(log, upto=done[-1]).run.nan_origin is not None


def test_accumulated_grads_are_summed_once_and_released_grads_kept():
    with events.recording() as log:
        x = chainer.Variable(np.array([1.0, -2.0]), name='x')
        h = x * 3.0
        y = F.sum(h * h + h)   # h is used twice: its grad accumulates
        y.backward()
    got = lens.readings(GraphModel.from_events(log).run)
    h0 = np.array([3.0, -6.0])
    assert got[events.uid(h)].norm == pytest.approx(np.linalg.norm(2 * h0 + 1))  # released, kept
    assert got[events.uid(x)].norm == pytest.approx(np.linalg.norm(3 * (2 * h0 + 1)))
    assert x.grad == pytest.approx(3 * (2 * h0 + 1))


def test_reading_of_a_summarised_grad_uses_its_norm():
    big = np.full(events.SNAPSHOT_MAX_ELEMENTS + 1, 2.0)
    summary = events.snapshot(big)
    assert isinstance(summary, events.Summary)
    assert lens.grad_norm(summary) == pytest.approx(np.linalg.norm(big))
    big[3] = np.nan
    assert math.isnan(lens.grad_norm(events.snapshot(big)))


@pytest.mark.parametrize('norm, flag', [(1.01e-4, None), (0.99e-4, 'vanishing'),
                                        (0.99e4, None), (1.01e4, 'exploding'),
                                        (math.inf, None), (0.0, 'zero')])
def test_thresholds_are_relative_to_the_seed(norm, flag):
    seed = 2.0
    got = lens.read(norm * seed, seed).flag
    assert got == flag if math.isfinite(norm) else True
