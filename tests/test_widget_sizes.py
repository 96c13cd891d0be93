"""Sizes that read (issue 38, point 4): a large array's value and grad cells give its
shape and norm (a mean hides a gradient whose entries cancel: W2's grad read
"10x16 mean 5.551e-18" while its norm is 1.361), small arrays stay written out, and
the inspect panel writes arrays as an aligned table, large ones as statistics."""

from __future__ import annotations

import re

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events

from autograd_lab_widget import arrays


def zero_mean_grad(seed: int = 0) -> np.ndarray:
    """A 10×16 gradient as softmax or centred data make it: mean 0, norm 1.361."""
    g = np.random.default_rng(seed).standard_normal((10, 16))
    g -= g.mean()
    return g * (1.361 / np.linalg.norm(g))


def w2_graph():
    """loss = sum(W2 * G): W2's grad is G, a zero-mean 10×16 array."""
    g = zero_mean_grad()
    w2 = chainer.Variable(np.full((10, 16), 0.25), name='W2')
    loss = F.sum(w2 * chainer.Variable(g, name='G', requires_grad=False))
    loss.name = 'loss'
    return w2, g, loss


def test_a_zero_mean_gradient_shows_its_norm_not_a_zero(view_of):
    w2, g, loss = w2_graph()
    assert abs(g.mean()) < 1e-15 and abs(np.linalg.norm(g) - 1.361) < 1e-12
    view = view_of(loss)
    view.run()
    np.testing.assert_allclose(w2.grad, g)
    cells = view.nodes[f'n{events.uid(w2)}']['text']
    assert cells['grad'] == '10×16 norm 1.361'
    # the value row likewise: shape and norm (0.25 * sqrt(160) = 3.162)
    assert cells['data'] == '10×16 norm 3.162'
    assert 'mean' not in cells['grad'] and 'mean' not in cells['data']


def test_the_static_picture_writes_the_same_size(view_of):
    _w2, _g, loss = w2_graph()
    view = view_of(loss)
    view.run()
    page = view.snapshot().html()
    assert '10×16 norm 1.361' in page and '10×16 norm 3.162' in page
    assert ' mean ' not in page


def test_small_arrays_are_still_written_out(view_of):
    x = chainer.Variable(np.array([1.5, -2.0, 0.25, 4.0]), name='x')
    y = F.sum(x * x)
    view = view_of(y)
    view.run()
    cells = view.nodes[f'n{events.uid(x)}']['text']
    assert cells['data'] == '[1.5, -2.0, 0.25, 4.0]'
    assert cells['grad'] == '[3.0, -4.0, 0.5, 8.0]'
    assert arrays.text(np.arange(5.0)) == '5 values norm 5.477'


def test_nan_and_inf_stay_readable():
    bad = np.ones((10, 10))
    bad[3, 4] = np.nan
    assert arrays.text(bad) == '10×10 norm nan'
    bad[3, 4] = -np.inf
    assert arrays.text(bad) == '10×10 norm inf'
    # a Summary's statistics leave non-finite entries out: its norm must not look finite
    big = np.ones(100)
    big[0] = np.nan
    summary = events.snapshot(big)
    assert isinstance(summary, events.Summary) and np.isfinite(summary.norm)
    assert arrays.text(summary) == '100 values norm nan'
    assert arrays.as_text(summary).endswith('(1 NaN, 0 inf)')
    assert arrays.table(np.array([1.0, np.nan, -np.inf])) == '1.0  nan  -inf'


def columns_of(line: str) -> list[int]:
    """Where each number of a table's line ends (right-aligned columns end together)."""
    return [m.end() for m in re.finditer(r'\S+', line)]


def test_the_panel_shows_a_small_array_as_an_aligned_table(view_of):
    x = chainer.Variable(np.array([[1.0, -2.5, 1000.0], [0.125, 30.0, -0.001234]]), name='x')
    y = F.sum(x * 3)
    view = view_of(y)
    view.run()
    view.select(x)
    main = {row[0]: row[1] for row in view.panel['main']}
    lines = main['value'].splitlines()
    assert lines == ['       0     1          2',
                     '0    1.0  -2.5     1000.0',
                     '1  0.125  30.0  -0.001234']
    head, *rows = lines
    for row in rows:  # every number ends under its column's index
        assert columns_of(row)[1:] == columns_of(head)
    assert main['grad'].splitlines()[1:] == ['0  3.0  3.0  3.0', '1  3.0  3.0  3.0']
    assert '[' not in main['value'] and '...' not in main['value']


def test_a_long_vector_is_rows_numbered_by_their_first_index():
    lines = arrays.table(np.linspace(0.0, 1.0, 11)).splitlines()
    assert lines[0].split() == ['[0]', '0.0', '0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7']
    assert lines[1].split() == ['[8]', '0.8', '0.9', '1.0']
    assert columns_of(lines[1]) == columns_of(lines[0])[:4]


def test_the_panel_keeps_statistics_and_the_heatmap_for_a_big_array(view_of):
    w2, g, loss = w2_graph()
    view = view_of(loss)
    view.run()
    view.select(w2)
    p = view.panel
    main = {row[0]: row[1] for row in p['main']}
    lo, hi = g.min(), g.max()
    assert main['grad'] == (f'shape (10, 16) float64: norm 1.361 min {lo:.4g} max {hi:.4g} '
                            f'mean {g.mean():.4g}')
    assert {m['label'] for m in p['heatmaps']} == {'grad', 'data'}


def test_a_functions_retained_array_is_a_table_on_its_own_lines(view_of):
    x = chainer.Variable(np.array([[1.0, 2.0], [3.0, 40.0]]), name='x')
    sq = x ** 2
    view = view_of(F.sum(sq))
    view.select(sq.creator)
    details = {row[0]: row[1] for row in view.panel['details']}
    assert details['retained arrays'].splitlines() == ['input:', '     0     1',
                                                       '0  1.0   2.0', '1  3.0  40.0']
