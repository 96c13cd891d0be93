"""The gradient lens in the widget (lens_cells): the row it adds, filled while stepping
from the real backward's grads, the NaN's origin marked, the static picture, the option."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events
from autograd_lab.graph import lens
from autograd_lab_widget import lens_words, messages, protocol
from autograd_lab_widget.present import drawing, lens_cells, picture

LENS = {**drawing.DEFAULT_OPTIONS, 'gradient_lens': True}


def _chain(depth=8):
    h = chainer.Variable(np.array([0.5, -0.25]), name='x')
    x = h
    for _ in range(depth):
        h = F.sigmoid(h * 0.3)
    return x, F.sum(h)


def test_lens_is_off_by_default_and_adds_a_row_when_on(step_models):
    x, loss = _chain()
    model = step_models(loss)
    off = model.scene(dict(drawing.DEFAULT_OPTIONS)).frame
    assert 'lens' not in off.nodes[f'n{events.uid(x)}']['text']
    on = model.scene(LENS).frame
    assert on.nodes[f'n{events.uid(x)}']['text']['lens'] == '—'  # not reached yet
    # the legend is the page's, under the graph (no zoom button covers it), not a node
    assert 'gradient size' not in on.dot
    assert protocol.LENS_LEGEND == lens_words.legend_lines()
    assert 'gradient size' in protocol.js_module()


def test_lens_fills_in_while_stepping_from_the_real_grads(step_models):
    x, loss = _chain()
    model = step_models(loss)
    while model.step():
        pass
    frame = model.scene(LENS).frame
    reading = lens.read(float(np.linalg.norm(x.grad)), 1.0)
    assert frame.nodes[f'n{events.uid(x)}']['text']['lens'] == lens_cells.text(reading)
    assert reading.flag == 'vanishing'  # 8 sigmoids of slope 0.3 * 0.25: 0.075^8
    assert 'lens-vanishing' in frame.nodes[f'n{events.uid(x)}']['cell']['lens']


def test_the_function_that_made_the_nan_is_marked(step_models):
    x = chainer.Variable(np.array([0.0, 4.0]), name='x')
    loss = F.sum(x ** 0.5 * np.array([0.0, 1.0]))
    model = step_models(loss)
    with np.errstate(invalid='ignore', divide='ignore'):
        while model.step():
            pass
        frame = model.scene(LENS).frame
    pow_id = events.uid(loss.creator.inputs[0].creator.inputs[0].creator)
    assert frame.nodes[f'n{pow_id}']['text']['mark'] == lens_words.NAN_MARK
    assert 'NaN' in frame.nodes[f'n{events.uid(x)}']['text']['lens']
    marks = [n['text'].get('mark') for n in frame.nodes.values()]
    assert marks.count(lens_words.NAN_MARK) == 1


@pytest.mark.parametrize('weights, word', [([0.0, 1.0], 'NaN'), ([1.0, 1.0], 'inf')])
def test_a_nan_or_inf_gradient_reads_as_a_word_with_its_bar_crossed_out(step_models,
                                                                          weights, word):
    # d/dx sqrt(x) at 0 is inf; times a weight of 0 it is NaN (0 * inf)
    x = chainer.Variable(np.array([0.0, 4.0]), name='x')
    model = step_models(F.sum(x ** 0.5 * np.array(weights)))
    with np.errstate(invalid='ignore', divide='ignore'):
        while model.step():
            pass
        frame = model.scene(LENS).frame
        svg = picture.picture(model, LENS).svg
    assert (np.isnan(x.grad[0]), np.isinf(x.grad[0])) == (word == 'NaN', word == 'inf')
    shown = frame.nodes[f'n{events.uid(x)}']['text']['lens']
    crossed = '\u2573' * 6  # a crossed-out bar, not a size
    assert shown == f'{crossed} {word}' and '?' not in shown
    assert f'{crossed} {word}' in svg and '??' not in svg


def test_static_picture_shows_the_lens(step_models):
    _, loss = _chain()
    model = step_models(loss)
    while model.step():
        pass
    svg = picture.picture(model, LENS).svg
    assert 'vanishing' in svg and 'gradient size' in svg
    assert 'vanishing' not in picture.picture(model).svg


def test_the_option_is_checked_like_the_others():
    assert messages.parse_options({'gradient_lens': True}) == {'gradient_lens': True}
    with pytest.raises(messages.BadMessage):
        messages.parse_options({'gradient_lens': 'yes'})


def test_lens_off_draws_the_two_rows_it_drew_before(step_models):
    x, loss = _chain(2)
    frame = step_models(loss).scene(dict(drawing.DEFAULT_OPTIONS)).frame
    statement = next(line for line in frame.dot.splitlines()
                     if line.strip().startswith(f'n{events.uid(x)} '))
    assert statement.count('<TR>') == 2 and 'size' not in statement
    on = step_models(loss).scene(LENS).frame
    statement = next(line for line in on.dot.splitlines()
                     if line.strip().startswith(f'n{events.uid(x)} '))
    assert statement.count('<TR>') == 3 and '>size<' in statement


def test_collapsed_links_summarise_their_parameters_grads():
    import autograd_lab.links as L
    from autograd_lab import graph
    from autograd_lab_widget.follow.state import ViewState
    rng = np.random.RandomState(0)
    with events.recording() as log:  # as %%autograd_lab does: every node knows its Link
        mlp = chainer.ChainList(*[
            L.Linear(4, 4, initialW=rng.normal(0, 0.5, (4, 4)).astype(np.float32))
            for _ in range(20)])
        mlp.cleargrads()
        h = np.ones((2, 4), np.float32)
        for layer in mlp:
            h = F.sigmoid(layer(h))
        F.sum(h).backward()
    state = ViewState()
    for e in log:
        state.apply(e)
    dot = graph.to_dot(state.model, collapse=['/0', '/19'],
                       link_note=lens_cells.link_note(state))
    first = next(line for line in dot.splitlines() if 'link:/0"' in line)
    last = next(line for line in dot.splitlines() if 'link:/19"' in line)
    norm = np.sqrt(sum(float((p.grad.astype(np.float64) ** 2).sum()) for p in mlp[0].params()))
    assert 'params ' + lens_cells.text(lens.read(norm, 1.0)) in first
    assert 'vanishing' in first and 'vanishing' not in last


def test_the_legends_scale_covers_what_the_rows_show():
    """Deep tanh chains reach 10^-13 and 10^-15: the legend's smallest bar is what such
    rows show, and the sizes a row can show lie within the legend's ends (issue 38)."""
    from autograd_lab.graph import lens
    from autograd_lab_widget import lens_words
    from autograd_lab_widget.present import lens_cells
    legend = lens_words.legend_lines()[1]
    low_bar, high_bar = lens_words.bar(0.0), lens_words.bar(1.0)
    assert low_bar in legend and high_bar in legend and '10^-16 or less' in legend
    for k in (-15, -13):
        cell = lens_cells.text(lens.Reading(10.0 ** k, float(k), 'vanishing'))
        assert cell.startswith(low_bar) and f'10^{k}' in cell
    bars = {lens_cells.text(lens.Reading(10.0 ** k, float(k), None)).split()[0]
            for k in range(-30, 10)}
    assert low_bar in bars and high_bar in bars and len(bars) == lens_words.BAR
