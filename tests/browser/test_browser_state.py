"""State that stays true on the page (issue 29), in JupyterLab 4: a view made after
``backward()`` had run (lesson 2's gates) says that the grads it shows came from that
backward, draws no stray node, and the Run to end button asks before adding a second
backward; pressed again it adds one, the notice and the ledger saying why grads add up."""

from __future__ import annotations

import jupyter_harness as jh
import page_checks as pc

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

CELLS = [
    '''\
import numpy as np
import autograd_lab.functions as F
from autograd_lab import Variable
from autograd_lab_widget import GraphView''',
    '''\
x, y, z = (Variable(np.array(v), name=k) for k, v in (('x', 4.0), ('y', 2.0), ('z', -1.0)))
f_gates = (x + y) * F.maximum(y, z)
f_gates.backward()
view = GraphView(f_gates)
view''',
]


def test_a_view_made_after_backward_shows_true_state(page, lab_server, notebook_root):
    nb, probe_dir = jh.write_notebook(notebook_root, 'after_backward', CELLS)
    probe = jh.Probe(probe_dir)
    jh.open_in_lab(page, lab_server, nb, probe, timeout=120)
    widget = jh.wait_widget_ready(page)
    status = widget.locator('.agl-status')
    expect(status).to_contain_text('grads from a backward that already ran')
    expect(status).to_contain_text('x (2.0)')
    expect(widget.locator('.agl-counter')).to_have_text('Already ran')  # not "Step 0 of 3"
    note = widget.locator('.agl-status-note')
    expect(note).to_have_text('Reset: clear them. Step: add to them.')
    assert note.evaluate('(n) => n.scrollWidth <= n.clientWidth')  # whole, not cut off
    nodes = probe.eval('len(view.model.live.model.nodes)')
    assert widget.locator('svg g.node').count() == nodes == 9  # 3 inputs, 3 ops, 3 results
    widget.scroll_into_view_if_needed()
    jh.screenshot(page, 'after-backward-opened')

    widget.locator('button[data-action="run"]').click()  # the first press only asks
    expect(note).to_have_text('Press again to add to these grads.')
    assert note.evaluate('(n) => n.scrollWidth <= n.clientWidth')
    assert probe.eval('[float(x.grad), float(y.grad)]') == [2.0, 8.0]

    widget.locator('button[data-action="run"]').click()  # asked for: a second backward
    expect(status).to_contain_text('Backward finished', timeout=20_000)
    assert probe.wait_for('float(x.grad) == 4.0 or None', timeout=20) is True
    expect(note).to_have_text('Added to the grads held before.')
    assert note.evaluate('(n) => n.scrollWidth <= n.clientWidth')
    assert widget.locator('svg g.node').count() == 9  # the sums drew no stray node
    ledger = widget.locator('.agl-ledger')
    # z is used once: its grad adds to the earlier backward's; y is used twice (+ and max)
    expect(ledger).to_contain_text('z held a grad from an earlier backward')
    expect(ledger).not_to_contain_text('z is used twice')
    expect(ledger).to_contain_text('y is used twice')
    texts = {v['cells'].get('name'): v['cells'] for v in pc.node_texts(widget).values()}
    assert texts['x']['grad'] == '4.0', texts['x']
    jh.screenshot(page, 'after-backward-second-run')
