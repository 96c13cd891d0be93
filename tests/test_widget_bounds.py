"""GraphView's memory bounds: a window of events, dead step graphs dropped, time travel
within the window exact (replayed from the checkpoint at its start)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
import autograd_lab.optimizers as O
from autograd_lab import events

from autograd_lab_widget import GraphView
from autograd_lab_widget.follow import bounds
from widget_helpers import polynomial


@pytest.fixture
def views():
    made = []
    yield made
    for view in made:
        view.close()


def _trainer():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    t = x[:, :3].argmax(axis=1).astype(np.int32)
    model = chainer.Sequential(L.Linear(4, 6), F.relu, L.Linear(6, 3))
    opt = O.SGD(lr=0.1).setup(model)

    def loss_fn():
        return F.softmax_cross_entropy(model(x), t)

    def train_step():
        loss = loss_fn()
        model.cleargrads()
        loss.backward()
        opt.update()
        return float(loss.array)
    return model, loss_fn, train_step


def test_a_view_open_during_training_stays_bounded_and_follows(views, monkeypatch):
    monkeypatch.setattr(bounds, 'PRUNE_MIN', 60)  # prune often, so that a few steps show it
    model, loss_fn, train_step = _trainer()
    first = loss_fn()
    view = GraphView(first, history=300)
    views.append(view)
    step_model = view.model
    shown = set(step_model.live.model.nodes)  # the first loss's graph and the parameters
    params = {events.uid(p) for p in model.params()}
    sizes, lengths = [], []
    losses = [train_step() for _ in range(40)]
    for _ in range(160):
        losses.append(train_step())
        sizes.append(len(step_model.live.model.nodes))
        lengths.append(len(step_model.timeline))
    assert losses[-1] < losses[0]  # it trained
    # every step adds ~14 nodes and ~40 events; 200 steps would hold 2,800 and 8,000
    assert max(lengths) <= bounds.trim_at(300) and len(view.event_log()) == lengths[-1]
    assert max(sizes) <= bounds.next_prune_at(len(shown)) + 30, max(sizes)
    assert max(sizes[80:]) <= max(sizes[:80])  # no growth from the first half to the second
    assert shown <= set(step_model.live.model.nodes) and params <= shown  # they stay
    # and it still follows: a new step's graph (it uses the parameters) shows up live
    loss = loss_fn()
    assert events.uid(loss) in step_model.live.model.nodes
    view.refresh()
    assert view.dot.startswith('digraph') and f'n{events.uid(loss)}' in view.nodes
    # once that loss is dropped, its graph goes at the next prune; the first loss stays
    del loss
    gc.collect()
    kept = bounds.prune(step_model.live.model, step_model.pinned())
    assert set(kept.nodes) - shown == set()
    assert view.step() and view.run() is None and view.status['done']  # still steppable


def test_time_travel_within_the_window_replays_from_the_checkpoint(views):
    _x, y = polynomial(3.0)
    small = GraphView(y, history=100)
    full = GraphView(y)  # the default window holds everything this test makes
    views += [small, full]
    # steps that go on from y: new graphs, backwards, collected variables (a graph that
    # only shares the input x is another graph: the views do not take it, issue 38)
    for i in range(15):
        z = F.sum(y * float(i) + F.exp(y))
        z.backward()
        del z
    while small.step():
        pass
    full.refresh()
    mine, ref = small.model.timeline, full.model.timeline
    assert bounds.trim_at(100) >= len(mine) >= 100 and len(ref) > 300
    offset = len(ref) - len(mine)
    assert [e.seq for e in mine.entries] == [e.seq for e in ref.entries[offset:]]
    marks = mine.boundaries()
    assert len(marks) > 3
    for pos in marks:
        at, full_at = mine.state_at(pos).model, ref.state_at(pos + offset).model
        assert set(at.nodes) <= set(full_at.nodes)
        assert at.compare(full_at) == [], pos
        assert set(mine.base.model.nodes) >= small.model.pinned() & set(full_at.nodes)
    # Back walks down to the window's start and no further; Forward comes back to live
    while small.back():
        assert small.position in marks
    assert small.position == 0 and small.status['can_back'] is False
    while not small.status['live']:
        small.forward()
    assert small.status['live'] and small.status['done']
    assert len(small.frames()) == len(marks)


def test_history_must_be_a_sensible_size():
    _, y = polynomial()
    for bad in (5, -1, 2.5, True):
        with pytest.raises(ValueError, match='history'):
            GraphView(y, history=bad)
