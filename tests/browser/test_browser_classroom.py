"""Predicting and reading the picture as a class does it, in JupyterLab at 1280x800 (issue 29).

A student predicts through the boxes as they type: click, type, Enter; the boxes of the
next step start empty; Shift+Enter in a box checks the guess as Enter does (the cell is
not run again, issue 38); a wrong
guess names its step, Back brings the question back and a right retry is shown while
the score keeps the first try.  Run to end by the End key keeps the focus in the view,
so Home resets.  Then what the picture shows: a long variable name, GraphView(gx)'s top
row, the 500-node chain's status line and overview, Fit clear of the zoom buttons, and
an inspect panel that is not a clipped box.  Screenshots: classroom-*.png (light and
dark) in test-artifacts/browser/.
"""

from __future__ import annotations

import time

import jupyter_harness as jh
from notebook_cells import CHAIN_CELL, GRAD_VIEW_CELL

from test_browser_graph_view import counter

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

LONG = 'hidden_layer_activation_after_the_second_dense_block'

CELLS = [
    '''\
import numpy as np
import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable
from autograd_lab.events import uid
from autograd_lab_widget import GraphView

x = Variable(np.array(5.0, dtype=np.float32), name='x')
y = x**2 - 2*x + 1
y.name = 'y'
view = GraphView(y, predict=True)''',
    '''\
runs = globals().get('runs', 0) + 1   # Shift+Enter in a guess box runs this cell again
view''',
    f'''\
w = Variable(np.array([0.5, -1.0], dtype=np.float32), name={LONG!r})
a = Variable(np.array([2.0, 3.0], dtype=np.float32), name='a')
b = -(w * a)
b.name = 'b'
long_view = GraphView(F.sum(F.maximum(b, a)))
long_view''',
    GRAD_VIEW_CELL,
    CHAIN_CELL,
]


def score(probe) -> dict:
    return probe.eval('view.score.as_dict()')


def type_in(box, text: str) -> None:
    """Click a guess box and type as a student does (no fill)."""
    box.click()
    box.page.keyboard.type(text)


def test_predict_as_a_student_types(page, lab_server, notebook_root):
    nb, probe_dir = jh.write_notebook(notebook_root, 'classroom_predict', CELLS)
    probe = jh.Probe(probe_dir)
    jh.open_in_lab(page, lab_server, nb, probe)
    widget = jh.wait_widget_ready(page, index=0)
    boxes = widget.locator('.agl-ledger input.agl-guess')
    check = widget.locator('.agl-ledger button[data-action="guess"]')

    # step 1 (_ + 1): click, type, Enter
    expect(boxes).to_have_count(1)
    type_in(boxes.first, '1')
    page.keyboard.press('Enter')
    probe.wait_for("view.score.as_dict()['right'] == 1", timeout=10, what='a right guess')
    expect(widget.locator('.agl-verdict')).to_contain_text('Right! step 1')

    # step 2 (_ - _): the new boxes start empty, the focus in the first
    expect(boxes).to_have_count(2)
    assert [b.input_value() for b in boxes.all()] == ['', '']
    assert boxes.first.evaluate('(b) => b === document.activeElement')
    page.keyboard.type('1')

    # Shift+Enter in a box checks the guess as Enter does; the cell is not run again
    # (an empty second box: the focus goes to it, nothing is graded yet)
    page.keyboard.press('Shift+Enter')
    assert boxes.nth(1).evaluate('(b) => b === document.activeElement')
    time.sleep(1.0)
    assert probe.eval('runs') == 1, 'Shift+Enter in a guess box ran the cell again'
    assert score(probe)['total'] == 1 and probe.eval("view.status['step']") == 1
    boxes.nth(0).fill('')

    # a wrong guess: the verdict names the step and the target; the score counts it
    type_in(boxes.nth(0), '1')
    type_in(boxes.nth(1), '1')
    page.keyboard.press('Enter')
    probe.wait_for("view.score.as_dict()['wrong'] == 1", timeout=10, what='a wrong guess')
    verdict = widget.locator('.agl-verdict')
    expect(verdict).to_contain_text('Not quite at step 2')
    expect(verdict).to_contain_text('is off (you said 1.0: the sign is wrong)')
    expect(widget.locator('.agl-score')).to_have_text('Score 1/2')
    widget.screenshot(path=str(jh.ARTIFACTS / 'classroom-predict-wrong.png'))

    # Try again (Back): the question again, empty boxes; a right retry shows, the score
    # keeps 1/2
    widget.locator('.agl-ledger button[data-action="back"]').click()
    expect(counter(widget)).to_have_attribute('data-step', '1')
    expect(boxes).to_have_count(2)
    assert [b.input_value() for b in boxes.all()] == ['', '']
    expect(boxes.first).to_be_focused()  # the retry is typed straight in (issue 38)
    type_in(boxes.nth(0), '1')
    type_in(boxes.nth(1), '-1/1')
    check.click()
    probe.wait_for("view.status['step'] == 2 and view.status['live']", timeout=10,
                   what='the retry moved on')
    expect(widget.locator('.agl-verdict')).to_contain_text('Right! step 2')
    expect(widget.locator('.agl-verdict')).to_contain_text('keeps your first try')
    expect(widget.locator('.agl-score')).to_have_text('Score 1/2')
    assert score(probe) == {'right': 1, 'wrong': 1, 'skipped': 0, 'total': 2}

    # Back's history shows the verdicts
    widget.locator('button[data-action="back"]').click()
    expect(counter(widget)).to_have_attribute('data-step', '1')
    expect(widget.locator('.agl-verdict')).to_contain_text('Right! step 1')

    # an error is read in full (no ellipsis) and loses the typed text of this question
    type_in(boxes.nth(0), 'sigmoid(1)')
    type_in(boxes.nth(1), '2')
    page.keyboard.press('Enter')
    note = widget.locator('.agl-status-note')
    expect(note).to_contain_text('unknown name')
    expect(note).to_contain_text('tanh, abs')  # the end of the message is on screen
    assert note.evaluate('(n) => n.scrollWidth <= n.clientWidth + 1')
    assert boxes.nth(0).input_value() == 'sigmoid(1)'
    widget.screenshot(path=str(jh.ARTIFACTS / 'classroom-predict-error.png'))


def test_end_then_home_by_keyboard(page, lab_server, notebook_root):
    nb, probe_dir = jh.write_notebook(notebook_root, 'classroom_keys', CELLS[:2])
    probe = jh.Probe(probe_dir)
    jh.open_in_lab(page, lab_server, nb, probe)
    widget = jh.wait_widget_ready(page, index=0)
    widget.locator('button[data-action="step"]').focus()
    page.keyboard.press('End')
    probe.wait_for("view.status['done']", timeout=15, what='End ran to the end')
    expect(widget.locator('button[data-action="step"]')).to_be_disabled()
    focused = widget.evaluate('(root) => { const a = document.activeElement; '
                              'return [root.contains(a), a.disabled === true, '
                              'a.dataset.action || a.className]; }')
    assert focused[0] and not focused[1], f'the focus fell out of the view: {focused}'
    page.keyboard.press('Home')
    probe.wait_for("view.status['step'] == 0 and x.grad is None", timeout=10,
                   what='Home reset the view')


def boxes_of(widget, selector: str) -> list[dict]:
    return widget.evaluate(f"""(root) => Array.from(root.querySelectorAll({selector!r}))
        .map((e) => {{ const r = e.getBoundingClientRect();
          return {{x: r.x, y: r.y, w: r.width, h: r.height, id: e.id || e.className.baseVal
            || e.className, sw: e.scrollWidth, cw: e.clientWidth, sh: e.scrollHeight,
            ch: e.clientHeight, title: e.title || ''}}; }})""")


def overlap(a: dict, b: dict) -> bool:
    return a['x'] < b['x'] + b['w'] and b['x'] < a['x'] + a['w'] \
        and a['y'] < b['y'] + b['h'] and b['y'] < a['y'] + a['h']


def cut_nodes(widget) -> list[str]:
    """Nodes partly inside the stage, partly outside its top or bottom edge."""
    stage, = boxes_of(widget, '.agl-graph')
    top, bottom = stage['y'], stage['y'] + stage['h']
    return [n['id'] for n in boxes_of(widget, 'svg.agl-canvas g.node')
            if (n['y'] < top < n['y'] + n['h']) or (n['y'] < bottom < n['y'] + n['h'])]


def test_reading_the_picture(page, lab_server, notebook_root):
    nb, probe_dir = jh.write_notebook(notebook_root, 'classroom_reading', CELLS)
    probe = jh.Probe(probe_dir)
    jh.open_in_lab(page, lab_server, nb, probe)
    tutorial, long_view, gview, chain = (jh.wait_widget_ready(page, index=i) for i in range(4))

    # a long variable name: one line in the ledger, full name in its tooltip
    step = long_view.locator('button[data-action="step"]')
    step.click()
    expect(counter(long_view)).to_have_attribute('data-step', '1')  # the sum ran
    expect(long_view.locator('.agl-ledger')).to_contain_text('larger')  # max's rule
    step.click()
    step.click()
    expect(counter(long_view)).to_have_attribute('data-step', '3')  # maximum, neg ran
    heads = boxes_of(long_view, '.agl-ledger .agl-rows th')
    cells = boxes_of(long_view, '.agl-ledger .agl-rows td')
    assert max(h['h'] for h in boxes_of(long_view, '.agl-ledger .agl-rows th > *')) < 30
    assert min(c['w'] for c in cells) > 120, 'a value column squeezed by a long name'
    assert any(h['title'].endswith(LONG) or LONG in h['title'] for h in heads)
    # the inspect panel: no box of its own that cuts its content
    long_view.locator('svg g.node.function').first.click()
    expect(long_view.locator('.agl-inspect')).not_to_have_attribute('data-node-id', '')
    panel, = boxes_of(long_view, '.agl-inspect')
    assert panel['sh'] <= panel['ch'] + 1, f'the inspect panel scrolls inside: {panel}'
    long_view.screenshot(path=str(jh.ARTIFACTS / 'classroom-long-name.png'))

    # predict with the inspect panel open: the Check button is not clipped
    tutorial.locator('svg g.node.function').first.click()
    expect(tutorial.locator('.agl-inspect')).not_to_have_attribute('data-node-id', '')
    check = tutorial.locator('.agl-ledger button[data-action="guess"]')
    check.scroll_into_view_if_needed()
    button, = boxes_of(tutorial, '.agl-ledger button[data-action="guess"]')
    side, = boxes_of(tutorial, '.agl-side')
    assert side['y'] <= button['y'] and button['y'] + button['h'] <= side['y'] + side['h'] + 1

    # Fit: no node under the zoom buttons
    for view in (tutorial, gview, chain):
        view.locator('button[data-action="fit"]').click()
        page.wait_for_timeout(300)
        zoom, = boxes_of(view, '.agl-zoom')
        under = [n['id'] for n in boxes_of(view, 'svg.agl-canvas g.node') if overlap(n, zoom)]
        assert not under, f'nodes under the zoom buttons after Fit: {under}'
    tutorial.screenshot(path=str(jh.ARTIFACTS / 'classroom-fit.png'))

    # GraphView(gx) opens with no node cut at the stage's edge
    page.reload()
    jh.open_in_lab(page, lab_server, nb, probe)
    tutorial, long_view, gview, chain = (jh.wait_widget_ready(page, index=i) for i in range(4))
    gview.scroll_into_view_if_needed()
    gview.screenshot(path=str(jh.ARTIFACTS / 'classroom-gx.png'))
    assert not cut_nodes(gview), f'GraphView(gx) opens with nodes cut: {cut_nodes(gview)}'

    # the 500-node chain: the status line whole, an overview one can use
    status, = boxes_of(chain, '.agl-status')
    assert status['sh'] <= status['ch'] + 1
    for note in boxes_of(chain, '.agl-status-note, .agl-status-text'):
        assert note['sw'] <= note['cw'] + 1, note
    overview, = boxes_of(chain, '.agl-overview')
    assert overview['w'] >= 60 and overview['h'] >= 60, f'the overview is a sliver: {overview}'
    chain.screenshot(path=str(jh.ARTIFACTS / 'classroom-chain500.png'))

    jh.use_dark_theme(page)
    long_view.screenshot(path=str(jh.ARTIFACTS / 'classroom-long-name-dark.png'))
    chain.screenshot(path=str(jh.ARTIFACTS / 'classroom-chain500-dark.png'))
