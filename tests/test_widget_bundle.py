"""The bundle crosses the wire once per page (issue 29): views share one holder of it,
each view's own ``_esm`` is a small loader; marimo, which has no widget manager to ask,
gets the whole bundle per view."""

from __future__ import annotations

import numpy as np

import autograd_lab as chainer

from autograd_lab_widget import GraphView, bundle


def views(n):
    return [GraphView(chainer.Variable(np.array(float(k)), name='x') * 2) for k in range(n)]


def test_views_share_one_holder_and_each_sends_only_the_loader():
    made = views(3)
    try:
        states = [v.get_state() for v in made]
        assert len({s['_agl_bundle'] for s in states}) == 1  # one holder, by reference
        assert states[0]['_agl_bundle'].startswith('IPY_MODEL_')
        assert all(len(s['_esm']) < 2_000 for s in states)  # per view: the loader
        held = made[0]._agl_bundle.get_state()['source']
        assert held == bundle.BUNDLE.read_text(encoding='utf-8')
        assert bundle.VERSION in states[0]['_esm']  # two bundle versions never mix
    finally:
        for v in made:
            v.close()


def test_a_closed_holder_is_made_again():
    first = bundle.holder()
    first.close()
    second = bundle.holder()
    assert second is not first and second.comm is not None


def test_in_marimo_each_view_carries_the_bundle(monkeypatch):
    monkeypatch.setattr(bundle.hosts, 'current', lambda: 'marimo')
    assert bundle.esm() == bundle.BUNDLE.read_text(encoding='utf-8')
    assert bundle.holder() is None
