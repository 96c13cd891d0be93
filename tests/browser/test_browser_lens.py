"""The gradient lens and the forward replay in JupyterLab at 1280x800 (issue 33).

A 20-layer sigmoid MLP run to the end shows its first layers' parameters flagged
vanishing and its last ones not; an exploding RNN (a linear recurrence of gain 3) its
first state flagged exploding; a NaN born in ``x ** 0.5``'s backward is marked on that
function, its grad reading ``NaN`` beside a crossed-out bar; the lens's legend sits under
the graph, clear of the zoom buttons, in a wide and in a narrow page; the lens is turned
on from the More menu by keyboard alone, its checkbox named for screen readers with its
key (V), which toggles it too, and fills in while stepping.  The forward replay of a
loop, stepped back and forth by button and arrow key, says which function each line of
the loop made, and its nodes keep their places while the graph grows.  Screenshots:
lens-*.png (lens-mlp-dark.png in the dark theme) and forward-replay.png in
test-artifacts/browser/.
"""

from __future__ import annotations

import jupyter_harness as jh

from test_browser_graph_view import click_step, node, open_menu, run_to_end

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

CELLS = [
    '''\
import numpy as np
import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab.events import uid
from autograd_lab_widget import GraphView

rng = np.random.RandomState(0)
mlp = chainer.ChainList(*[L.Linear(4, 4, initialW=rng.normal(0, 0.5, (4, 4)).astype(np.float32))
                          for _ in range(20)])
mlp.cleargrads()
h = np.ones((2, 4), np.float32)
for layer in mlp:
    h = F.sigmoid(layer(h))
mlp_view = GraphView(F.sum(h), gradient_lens=True, height=700)
mlp_view''',
    '''\
h0 = chainer.Variable(np.ones(2), name='h0')
w = np.array([[3.0, 0.0], [0.0, 3.0]])
s = h0
for t in range(10):
    s = F.matmul(s.reshape(1, 2), w).reshape(2)
rnn_view = GraphView(F.sum(s), gradient_lens=True)
rnn_view''',
    '''\
x = chainer.Variable(np.array([0.0, 4.0]), name='x')
root = x ** 0.5
nan_loss = F.sum(root * np.array([0.0, 1.0]))
nan_view = GraphView(nan_loss)
nan_view''',
]


def overlap(a: dict, b: dict) -> bool:
    """Whether two bounding boxes ({x, y, width, height}) intersect."""
    return (a['x'] < b['x'] + b['width'] and b['x'] < a['x'] + a['width']
            and a['y'] < b['y'] + b['height'] and b['y'] < a['y'] + a['height'])


def legend_clear_of_zoom(widget) -> None:
    legend = widget.locator('.agl-lens-legend')
    expect(legend).to_be_visible()
    box, zoom = legend.bounding_box(), widget.locator('.agl-zoom').bounding_box()
    assert box and zoom and box['height'] > 0 and not overlap(box, zoom), (box, zoom)


def pan_to(widget, ident: int) -> None:
    """Look at node ``ident`` by clicking where the overview shows it (as a student would)."""
    graph = widget.locator('.agl-graph svg g.graph').first.bounding_box()
    at = node(widget, ident).bounding_box()
    overview = widget.locator('.agl-overview')
    svg = overview.locator('svg').first
    view = (svg if svg.count() else overview).bounding_box()
    fx = (at['x'] + at['width'] / 2 - graph['x']) / graph['width']
    fy = (at['y'] + at['height'] / 2 - graph['y']) / graph['height']
    overview.click(position={'x': view['x'] - overview.bounding_box()['x'] + fx * view['width'],
                             'y': view['y'] - overview.bounding_box()['y'] + fy * view['height']})
    widget.page.wait_for_timeout(500)


def lens_text(widget, ident: int) -> str:
    return node(widget, ident).locator('text.agl-cell-lens').text_content()


def test_lens_flags_vanishing_exploding_and_nan(page, lab_server, notebook_root):
    nb, probe_dir = jh.write_notebook(notebook_root, 'lens', CELLS)
    probe = jh.Probe(probe_dir)
    jh.open_in_lab(page, lab_server, nb, probe)

    mlp = jh.wait_widget_ready(page, index=0)
    run_to_end(mlp, probe, 'mlp_view')
    first, last = probe.eval('[uid(mlp[0].W), uid(mlp[19].W)]')
    expect(node(mlp, first).locator('text.agl-cell-lens')).to_contain_text('vanishing')
    assert 'vanishing' not in lens_text(mlp, last)
    expect(mlp.locator('.agl-lens-legend')).to_contain_text('vanishing: below 0.0001')
    legend_clear_of_zoom(mlp)
    mlp.scroll_into_view_if_needed()
    pan_to(mlp, first)  # the first layers, where the gradient vanished
    expect(node(mlp, first)).to_be_in_viewport()
    mlp.screenshot(path=str(jh.ARTIFACTS / 'lens-mlp.png'))  # the README's

    rnn = jh.wait_widget_ready(page, index=1)
    run_to_end(rnn, probe, 'rnn_view')
    h0 = probe.eval('uid(h0)')
    expect(node(rnn, h0).locator('text.agl-cell-lens')).to_contain_text('exploding')
    rnn.screenshot(path=str(jh.ARTIFACTS / 'lens-rnn.png'))

    # the lens on from the More menu, by keyboard, on a view opened without it
    nan = jh.wait_widget_ready(page, index=2)
    open_menu(nan)
    box = nan.locator('input.agl-gradient-lens')
    assert box.get_attribute('aria-label').startswith('Gradient lens')
    assert box.get_attribute('aria-keyshortcuts') == 'V' and '(key V)' in box.get_attribute('title')
    expect(nan.locator('.agl-lens-legend')).to_be_hidden()  # no legend while the lens is off
    box.focus()
    page.keyboard.press('Space')
    probe.wait_for("nan_view.options['gradient_lens']", timeout=10, what='the lens on')
    nan.locator('button[data-action="menu"]').click()
    # its key: V toggles it off and on again (focus on the view, not in the menu)
    nan.locator('button[data-action="step"]').focus()
    page.keyboard.press('v')
    probe.wait_for("not nan_view.options['gradient_lens']", timeout=10, what='V: the lens off')
    expect(box).not_to_be_checked()
    expect(nan.locator('.agl-lens-legend')).to_be_hidden()
    page.keyboard.press('v')
    probe.wait_for("nan_view.options['gradient_lens']", timeout=10, what='V: the lens on')
    expect(box).to_be_checked()
    ident = probe.eval('uid(x)')
    expect(node(nan, ident).locator('text.agl-cell-lens')).to_have_text('—')  # not reached
    click_step(nan)  # fills in while stepping
    run_to_end(nan, probe, 'nan_view')
    crossed = '\u2573' * 6  # no size: the bar crossed out, and the word
    expect(node(nan, ident).locator('text.agl-cell-lens')).to_have_text(f'{crossed} NaN')
    origin = probe.eval('uid(root.creator)')
    expect(node(nan, origin).locator('text.agl-cell-mark')).to_have_text('⚠')
    legend_clear_of_zoom(nan)
    nan.screenshot(path=str(jh.ARTIFACTS / 'lens-nan.png'))
    # a narrow page (a projector at a big zoom, a side-by-side window): still clear
    page.set_viewport_size({'width': 720, 'height': 800})
    page.wait_for_timeout(500)
    legend_clear_of_zoom(nan)
    nan.screenshot(path=str(jh.ARTIFACTS / 'lens-nan-narrow.png'))
    page.set_viewport_size({'width': 1280, 'height': 800})
    # the dark theme (what a projector in a dark room shows)
    jh.use_dark_theme(page)
    mlp.scroll_into_view_if_needed()
    mlp.screenshot(path=str(jh.ARTIFACTS / 'lens-mlp-dark.png'))
    nan.scroll_into_view_if_needed()
    nan.screenshot(path=str(jh.ARTIFACTS / 'lens-nan-dark.png'))
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', "
                  "{theme: 'JupyterLab Light'})")  # as the next test expects it


REPLAY = ['''\
import numpy as np
import autograd_lab.functions as F
from autograd_lab import Variable, events
from autograd_lab.events import uid
from autograd_lab.events.code_lines import capturing_code_lines
from autograd_lab_widget import GraphView

with events.recording() as log, capturing_code_lines() as lines:
    x = Variable(np.array(0.5), name='x')
    h = x
    for step in range(3):
        h = F.tanh(h * x)
    loss = h + 1
replay = GraphView(loss, events_log=log, code_lines=lines)
replay''']


def test_forward_replay_steps_through_a_loop_with_its_code_lines(page, lab_server,
                                                                   notebook_root):
    nb, probe_dir = jh.write_notebook(notebook_root, 'forward_replay', REPLAY)
    probe = jh.Probe(probe_dir)
    jh.open_in_lab(page, lab_server, nb, probe)
    widget = jh.wait_widget_ready(page, index=0)
    status = widget.locator('.agl-status-text')
    back = widget.locator('button[data-action="back"]')
    for _ in range(12):  # to the first function of the forward
        if 'function 1 of 7' in (status.text_content() or ''):
            break
        back.click()
        page.wait_for_timeout(300)
    expect(status).to_contain_text('function 1 of 7')
    expect(status).to_contain_text('h = F.tanh(h * x)')
    expect(widget.locator('svg g.node.function')).to_have_count(1)  # the graph so far
    x = probe.eval('uid(x)')
    page.wait_for_timeout(500)  # any transition over
    before = node(widget, x).bounding_box()
    widget.locator('button[data-action="step"]').click()
    expect(status).to_contain_text('function 2 of 7')
    expect(widget.locator('svg g.node.function')).to_have_count(2)
    page.wait_for_timeout(500)
    after = node(widget, x).bounding_box()  # the stage did not move as the graph grew
    assert abs(after['x'] - before['x']) <= 1 and abs(after['y'] - before['y']) <= 1, \
        (before, after)
    widget.locator('button[data-action="step"]').focus()
    for _ in range(10):  # by key (a collected variable's event is a stop of its own)
        if 'function 7 of 7' in (status.text_content() or ''):
            break
        page.keyboard.press('ArrowRight')
        page.wait_for_timeout(300)
    expect(status).to_contain_text('function 7 of 7')
    expect(status).to_contain_text('loss = h + 1')
    expect(status).to_contain_text('Press Step to run backward')  # the live end
    page.keyboard.press('ArrowLeft')
    expect(status).to_contain_text('function 6 of 7')
    widget.screenshot(path=str(jh.ARTIFACTS / 'forward-replay.png'))
