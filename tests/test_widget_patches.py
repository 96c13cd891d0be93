"""Only what changed crosses to the browser (issue 44 point 2): a step sends a patch of
the cells it changed, and the page's own rule (widgets/js/src/cells.js, run here in
Node) re-syncs after a lost or reordered message and never shows a stale number."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab_widget import GraphView, patches

CELLS_JS = Path(__file__).resolve().parent.parent / 'widgets' / 'js' / 'src' / 'cells.js'

# A page's model for cells.js: state written by messages, change events, what it sends.
_DRIVER = """
import { cellKeeper } from %s;
import { createInterface } from 'node:readline';
const state = {};
let asks = 0;
const model = { get: (k) => state[k], set: (k, v) => { state[k] = v; } };
const keep = cellKeeper(model, () => { asks += 1; });
let shown = keep();
for await (const line of createInterface({ input: process.stdin })) {
  const changed = JSON.parse(line);
  Object.assign(state, changed);
  for (const _ of Object.keys(changed)) shown = keep();  // one change event a trait
  process.stdout.write(JSON.stringify({ ...shown, asks }) + '\\n');
}
"""


def chain(n=12):
    x = chainer.Variable(np.array([0.5, -0.25]), name='x')
    h = x
    for _ in range(n):
        h = F.tanh(h) + x
    return F.sum(h)


class Wire:
    """What the kernel sent the page: each message's state, in the order sent."""

    def __init__(self, view):
        self.sent = []
        view.comm.send = lambda data=None, **_: self.sent.append(
            json.loads(json.dumps(data['state'])) if data and 'state' in data else None)

    def take(self):
        out, self.sent = [m for m in self.sent if m], []
        return out


class Page:
    """cells.js in Node, fed messages one at a time."""

    def __init__(self, tmp_path, initial):
        if shutil.which('node') is None:
            pytest.skip('node is not installed')
        driver = tmp_path / 'driver.mjs'
        driver.write_text(_DRIVER % json.dumps(CELLS_JS.as_uri()))
        self.proc = subprocess.Popen(['node', str(driver)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.shown = self.deliver(initial)

    def deliver(self, state):
        self.proc.stdin.write(json.dumps(state) + '\n')
        self.proc.stdin.flush()
        self.shown = json.loads(self.proc.stdout.readline())
        return self.shown

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def recorded_steps(view, wire, steps):
    """Step ``steps`` times: each step's messages, and the kernel's cells by version."""
    truth = {view.nodes_version: copy.deepcopy(view.nodes)}
    messages = []
    for _ in range(steps):
        view.step()
        truth[view.nodes_version] = copy.deepcopy(view.nodes)
        messages.append(wire.take())
    return messages, truth


def initial_state(view):
    return json.loads(json.dumps({k: getattr(view, k) for k in patches.DRAWING_TRAITS}))


def test_a_step_sends_only_the_cells_it_changed():
    view = GraphView(chain())
    wire = Wire(view)
    before = copy.deepcopy(view.nodes)
    view.step()
    (message,) = wire.take()
    assert 'nodes' not in message and 'nodes_version' not in message
    patch = message['nodes_patch']
    changed = {i for i in view.nodes if view.nodes[i] != before[i]}
    assert changed and set(patch['cells']) == changed
    assert patch['base'] == patch['version'] - 1 == view.nodes_version - 1
    assert {**before, **patch['cells']} == view.nodes  # the kernel's trait stays whole
    # another structure (the graph laid out left to right): the cells go whole
    view.options = {**view.options, 'rankdir': 'LR'}
    view.refresh()
    (message,) = [m for m in wire.take() if 'nodes_patch' in m]  # the options went first
    assert message['nodes'] == view.nodes and message['nodes_version'] == view.nodes_version
    view.close()


@pytest.mark.parametrize('fault', ['none', 'lost', 'reordered', 'duplicated'])
def test_the_page_resyncs_after_a_lost_or_reordered_patch(tmp_path, fault):
    view = GraphView(chain())
    wire = Wire(view)
    page = Page(tmp_path, initial_state(view))
    messages, truth = recorded_steps(view, wire, 6)
    flat = [m for batch in messages for m in batch]
    if fault == 'lost':
        del flat[2]
    elif fault == 'reordered':
        flat[2], flat[3] = flat[3], flat[2]
    elif fault == 'duplicated':
        flat.insert(4, flat[1])
    newest, asks = min(truth), 0
    for message in flat:
        shown = page.deliver(message)
        newest = max(newest, message['nodes_patch']['version'])
        if not shown['stale']:  # a number shown is the kernel's, at the newest version
            assert shown['nodes'] == truth[newest]
        while shown['asks'] > asks:  # the page asked for the cells whole: the kernel answers
            asks += 1
            patches.resend(view)
            for answer in wire.take():
                shown = page.deliver(answer)
                newest = max(newest, answer['nodes_patch']['version'])
    assert not shown['stale'] and shown['nodes'] == view.nodes
    assert (asks > 0) == (fault != 'none')
    page.close()
    view.close()


def test_resync_is_a_message_the_kernel_takes():
    from tests.widget_helpers import send

    view = GraphView(chain(3))
    wire = Wire(view)
    version = view.nodes_version
    send(view, {'type': 'resync'})
    (answer,) = [m for m in wire.take() if 'nodes' in m]
    assert answer['nodes'] == view.nodes and answer['nodes_version'] == version + 1
    assert set(patches.DRAWING_TRAITS) <= set(answer)
    view.close()
