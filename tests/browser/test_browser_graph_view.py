"""GraphView in a real browser: JupyterLab 4, Notebook 7 and Voila, driven by Chromium.

One notebook (generated in the temp root) builds ``y = x**2 - 2*x + 1`` and a small diamond
and shows ``GraphView`` of each. The same test runs in each front end: it checks the drawn
SVG nodes and labels against the kernel's graph, steps backward with the Step button until
done and compares the grads shown with Python's, clicks nodes and reads ``view.selected`` in
the kernel, unchains a variable and checks the dashed edge and that a fresh backward stops
there, and checks the GPU toggle is disabled with its reason (no CuPy here). Screenshots go
to test-artifacts/browser/.

Kernel state is read through the probe (see kernel_probe.py), so nothing depends on a front
end letting the page run code.
"""

from __future__ import annotations

import re

import jupyter_harness as jh
import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

# The notebook the student would write, plus _nodes(), a test helper that lists the graph as
# the kernel sees it: [uid, 'variable'|'function', name or label] for every node.
GRAPH_CELLS = [
    '''\
import numpy as np
from autograd_lab import Variable
from autograd_lab.events import uid
from autograd_lab_widget import GraphView

def _nodes(out):
    seen, stack, rows = set(), [out.node], []
    while stack:
        var = stack.pop()
        if uid(var) in seen:
            continue
        seen.add(uid(var))
        rows.append([uid(var), 'variable', var.name or ''])
        func = var.creator_node
        if func is not None and uid(func) not in seen:
            seen.add(uid(func))
            rows.append([uid(func), 'function', func.label])
            stack.extend(func.inputs)
    return rows

def _by_label(out, label):
    """The output node of the function labelled ``label`` upstream of ``out``."""
    stack = [out.node]
    while stack:
        var = stack.pop()
        func = var.creator_node
        if func is None:
            continue
        if func.label == label:
            return var
        stack.extend(func.inputs)
    raise LookupError(label)''',
    '''\
x = Variable(np.array(3.0, dtype=np.float32), name='x')
y = x**2 - 2*x + 1
y.name = 'y'
sq = _by_label(y, '_ ** 2')   # the node of x**2, cut later by the unchain test
sq.name = 'sq'
view = GraphView(y)
view''',
    '''\
# A diamond: a is used twice, so its grad accumulates (2 + 2a = 6 at a = 2).
a = Variable(np.array(2.0, dtype=np.float32), name='a')
b = 2 * a
c = a * a
d = b + c
d.name = 'd'
diamond = GraphView(d)
diamond''',
]

FRONT_ENDS = {
    'lab': ('lab_server', jh.open_in_lab),
    'notebook7': ('lab_server', jh.open_in_notebook7),
    'voila': ('voila_server', jh.open_in_voila),
}

_NUMBER = re.compile(r'-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?')


def numbers(text: str) -> list[float]:
    """Every number written in ``text`` ("grad 4." -> [4.0])."""
    return [float(m) for m in _NUMBER.findall(text)]


def node(widget, ident: int):
    return widget.locator(f'svg g.node#n{ident}')


def select_node(widget, probe: jh.Probe, ident: int, view: str = 'view') -> None:
    """Click a node and wait until both the inspect panel and the kernel know it."""
    node(widget, ident).click()
    expect(widget.locator('.agl-inspect')).to_have_attribute('data-node-id', str(ident))
    probe.wait_for(f'uid({view}.selected) == {ident}', timeout=10,
                   what=f'{view}.selected is node {ident}')


def step_until_done(widget, limit: int = 30) -> int:
    """Click Step until the widget disables it; return the number of steps taken."""
    step_button = widget.locator('button[data-action="step"]')
    badge = widget.locator('.agl-step')
    for taken in range(limit):
        if step_button.is_disabled():
            return taken
        before = badge.get_attribute('data-step')
        step_button.click()
        expect(badge).not_to_have_attribute('data-step', before)
    raise AssertionError(f'Step was still enabled after {limit} steps')


def shown_grad(widget, probe: jh.Probe, ident: int, view: str = 'view') -> float:
    """Select node ``ident`` and read the grad the inspect panel shows."""
    select_node(widget, probe, ident, view)
    grad = widget.locator('.agl-inspect .agl-grad')
    expect(grad).to_be_visible()
    values = numbers(grad.inner_text())
    assert len(values) == 1, f'one number expected in the grad panel, got {grad.inner_text()!r}'
    return values[0]


@pytest.fixture(params=list(FRONT_ENDS))
def front_end(request, notebook_root):
    """(name, server, opener) for each front end; the server is started on first use."""
    server_fixture, opener = FRONT_ENDS[request.param]
    return request.param, request.getfixturevalue(server_fixture), opener


def test_graph_view_step_select_unchain_device(front_end, page, notebook_root):
    name, server, opener = front_end
    nb, probe_dir = jh.write_notebook(notebook_root, f'graph_view_{name}', GRAPH_CELLS)
    probe = jh.Probe(probe_dir)
    opener(page, server, nb, probe)
    widget = jh.wait_widget_ready(page, index=0)
    diamond = jh.wait_widget_ready(page, index=1)
    jh.screenshot(page, f'{name}-1-rendered')

    # -- every node of the kernel's graph is drawn, with its label ----------------------------
    graph = probe.eval('_nodes(y)')
    assert len(graph) == 9  # x, sq, 2x, sq-2x, y and their four functions
    for ident, _category, text in graph:
        drawn = node(widget, ident)
        expect(drawn).to_have_count(1)
        if text:
            expect(drawn).to_contain_text(text)
    ids = {text: ident for ident, category, text in graph if text}
    x_id, y_id, sq_id = ids['x'], ids['y'], ids['sq']
    assert widget.locator('svg g.node[id^="n"]').count() == len(graph)
    assert diamond.locator('svg g.node[id^="n"]').count() == len(probe.eval('_nodes(d)'))

    # -- step through backward; the grads shown are Python's ---------------------------------
    assert probe.eval('x.grad is None')
    steps = step_until_done(widget)
    assert steps == 4  # one step per function: + 1, -, ** 2, * 2
    assert probe.eval('float(x.grad)') == 4.0  # 2x - 2 at x = 3
    assert shown_grad(widget, probe, x_id) == probe.eval('float(x.grad)')
    expect(widget.locator('.agl-status')).not_to_be_empty()
    # The node's own label carries the grad too.
    assert 4.0 in numbers(node(widget, x_id).text_content().split('grad', 1)[-1])
    jh.screenshot(page, f'{name}-2-stepped')

    # -- the diamond accumulates: a is used twice ---------------------------------------------
    diamond.locator('button[data-action="run"]').click()
    probe.wait_for('a.grad is not None', timeout=10)
    assert probe.eval('float(a.grad)') == 6.0
    a_id = probe.eval('uid(a)')
    assert shown_grad(diamond, probe, a_id, view='diamond') == 6.0

    # -- clicking a node makes it view.selected in the kernel --------------------------------
    select_node(widget, probe, y_id)
    assert probe.eval('view.selected is y')
    func_id = probe.eval('uid(y.creator)')
    select_node(widget, probe, func_id)
    assert probe.eval('view.selected is y.creator')

    # -- unchain sq: its incoming edge turns dashed, a fresh backward stops there ------------
    select_node(widget, probe, sq_id)
    assert probe.eval('view.selected.name') == 'sq'
    widget.locator('button[data-action="unchain"]').click()
    probe.wait_for('sq.creator is None', timeout=10, what='sq was unchained in the kernel')
    dashed = widget.locator('svg g.edge path[stroke-dasharray]')
    expect(dashed).not_to_have_count(0)
    pow_id = next(i for i, cat, text in graph if cat == 'function' and text == '_ ** 2')
    cut_edge = widget.locator(f'svg g.edge#e_n{pow_id}_n{sq_id} path')
    expect(cut_edge).to_have_attribute('stroke-dasharray', re.compile(r'\d'))
    jh.screenshot(page, f'{name}-3-unchained')

    widget.locator('button[data-action="reset"]').click()
    probe.wait_for('x.grad is None', timeout=10, what='Reset cleared the grads')
    widget.locator('button[data-action="run"]').click()
    probe.wait_for("view.status['done']", timeout=10, what='Run finished the new backward')
    # Only the -2x path reaches x now: backward stopped at sq (2x - 2 would be 4).
    assert probe.eval('float(x.grad)') == -2.0
    assert shown_grad(widget, probe, x_id) == -2.0

    # -- the GPU toggle is disabled and says why ----------------------------------------------
    assert probe.eval('view.gpu_available') is False
    reason = probe.eval('view.gpu_reason')
    assert reason
    device = widget.locator('button[data-action="device"]')
    expect(device).to_be_disabled()
    expect(device).to_have_attribute('title', re.compile(re.escape(reason)))
    expect(device).to_have_attribute('aria-label', re.compile(re.escape(reason)))
    expect(widget.locator('.agl-device-reason')).to_be_visible()
    expect(widget.locator('.agl-device-reason')).to_contain_text(reason)
    jh.screenshot(page, f'{name}-4-final')
    widget.screenshot(path=str(jh.ARTIFACTS / f'{name}-widget.png'))

    # No uncaught exception from the widget's code (two views breaking each other's
    # transitions showed up here first).
    assert not jh.widget_page_errors(page.agl_errors), page.agl_errors
