"""GraphView in marimo: ``marimo run`` (headless, 127.0.0.1) driven by Chromium.

One marimo server for this module serves a folder with a test app and a copy of the marimo
lesson 1 (lessons/marimo/).  The app shows a view directly (marimo's anywidget formatter)
and one wrapped in ``mo.ui.anywidget``; the test checks that each draws once (marimo shows
a cell's value as the widget only: no static copy), that Step/Back and click-to-inspect
reach the kernel, that bursts of clicks leave no page error and the page and the kernel
agreeing (the old d3 "transition 1 not found" race), and that ``view.dock()`` says what to
use in marimo.  The lesson is stepped to the end in its page, and its answers wait for
their run buttons: 1.2's second backward and 1.3's measured slopes appear only once pressed.
"""

from __future__ import annotations

import shutil

import jupyter_harness as jh
import page_checks as pc
import pytest
from browser.test_browser_graph_view import (click_step, counter, fast_clicks, numbers,
                                             select_node, step_until_done)

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

LESSON = jh.REPO / 'lessons' / 'marimo' / '01_variables_and_derivatives.py'

CELLS = [
    '''\
import marimo as mo
import numpy as np
import autograd_lab as chainer
from autograd_lab_widget import GraphView
from autograd_lab_widget.hosts import DockUnavailable''',
    '''\
x = chainer.Variable(np.array(5.0, dtype=np.float32), name='x')
y = x**2 - 2*x + 1
view = GraphView(y)
view''',
    '''\
x2 = chainer.Variable(np.array(5.0, dtype=np.float32), name='x')
y2 = x2**2 - 2*x2 + 1
double = GraphView(y2, enable_double_backprop=True)
wrapped = mo.ui.anywidget(double)
wrapped''',
    '''\
try:
    view.dock()
    dock_message = 'docked'
except DockUnavailable as _error:
    dock_message = str(_error)
mo.md(f'<p class="agl-dock-message">{dock_message}</p>')''',
]


@pytest.fixture(scope='module')
def marimo_server(browser_home):
    root = browser_home / 'marimo-apps'
    root.mkdir()
    app, probe_dir = jh.write_marimo_app(root, 'graph_view_marimo', CELLS)
    shutil.copy(LESSON, root / LESSON.name)
    with jh.JupyterServer('marimo', root, browser_home / 'marimo') as server:
        yield server, app, probe_dir


def test_graph_view_in_marimo(page, marimo_server):
    server, app, probe_dir = marimo_server
    probe = jh.Probe(probe_dir)
    jh.open_in_marimo(page, server, app, probe)
    widget = jh.wait_widget_ready(page, index=0)
    double = jh.wait_widget_ready(page, index=1)
    jh.screenshot(page, 'marimo-1-rendered')
    # one graph per view: marimo shows the widget alone (its formatter, not the two
    # outputs a Jupyter kernel gets)
    assert page.locator('.agl-root').count() == 2
    assert page.locator('.agl-static').count() == 0
    assert page.locator('svg.agl-canvas:visible').count() == 2
    for w in (widget, double):  # marimo's kernel answers the page
        expect(w).to_have_attribute('data-agl-kernel', 'live')
    ids = probe.eval('{n: i for i, n in view.model.names.table(view.model.live.model).items()}')
    # the session log of values runs in marimo too: intermediates show their values
    cells = pc.node_texts(widget)
    assert numbers(cells[f'n{ids["v2"]}']['cells']['data']) == [25.0]

    # Step and Back reach the kernel's view
    click_step(widget)
    click_step(widget)
    assert probe.eval("view.status['step']") == 2
    widget.locator('button[data-action="back"]').click()
    expect(counter(widget)).to_have_attribute('data-step', '1')
    probe.wait_for("view.status['step'] == 1", timeout=10)
    # click to inspect: the panel and view.selected are the live x
    select_node(widget, probe, ids['x'])
    assert probe.eval('view.selected is x')
    expect(widget.locator('.agl-inspect')).to_contain_text('x')
    step_until_done(widget)
    assert probe.eval('float(x.grad)') == 8.0
    widget.screenshot(path=str(jh.ARTIFACTS / 'marimo-2-stepped.png'))

    # fast clicking: no page error, the page and the kernel agree after every burst
    fast_clicks(widget, probe, 'view')
    fast_clicks(double, probe, 'double')  # a new layout at every step
    # the wrapped view is marimo's UI element: its value is the widget's state
    assert probe.eval("wrapped.value['status']['step']") == probe.eval(
        "double.status['step']")

    # dock() says plainly that marimo has no side panel, and what to do instead
    message = page.locator('.agl-dock-message')
    expect(message).to_contain_text('view.dock() is not available in marimo')
    expect(message).to_contain_text('last expression of its own cell')
    assert not page.locator('text=Jupyter widgets are not supported').count()
    double.screenshot(path=str(jh.ARTIFACTS / 'marimo-3-double.png'))
    assert not jh.widget_page_errors(page.agl_errors), page.agl_errors
    assert not [e for e in page.agl_errors if e.startswith('pageerror')], page.agl_errors


def test_marimo_lesson_one_steps_to_the_end(page, marimo_server):
    server, _, _ = marimo_server
    page.goto(server.url(f'?file={LESSON.name}'))
    widget = jh.wait_widget_ready(page, timeout=90)
    expect(page.locator('text=not done yet').first).to_be_visible()  # the exercises wait
    assert step_until_done(widget) == 4
    x_cells = next(v['cells'] for v in pc.node_texts(widget).values()
                   if v['cells'].get('name') == 'x')
    assert numbers(x_cells['data']) == [5.0] and numbers(x_cells['grad']) == [8.0]
    page.get_by_role('button', name='Read x.grad now').click()
    expect(page.locator('text=array([8.], dtype=float32)').first).to_be_visible()
    jh.screenshot(page, 'marimo-lesson01-stepped')

    # marimo ran every cell on opening, but the answers wait for their buttons
    waiting = page.locator('text=Predict first (exercise 1.2)')
    expect(waiting).to_be_visible()
    # 16 is shown once already: y's value at x = 5, in the lesson's first cell
    sixteen = page.locator('text=array([16.], dtype=float32)')
    expect(sixteen).to_have_count(1)
    expect(page.locator('text=Do exercise 1.3 first')).to_be_visible()
    waiting.scroll_into_view_if_needed()
    jh.screenshot(page, 'marimo-lesson01-waiting')
    page.get_by_role('button', name='Run ya.backward() once more').click()
    expect(sixteen).to_have_count(2)   # and now xa.grad after the second backward
    expect(waiting).to_have_count(0)
    sixteen.last.scroll_into_view_if_needed()
    jh.screenshot(page, 'marimo-lesson01-answer-shown')
    # (what the measuring cell prints goes to the console, which `marimo run` hides;
    # tests/test_marimo_lesson.py reads it)
    page.get_by_role('button', name='Compare with measured slopes').click()
    expect(page.locator('text=Do exercise 1.3 first')).to_have_count(0)
    assert not [e for e in page.agl_errors if e.startswith('pageerror')], page.agl_errors
