"""Browser latency of the graph widget: first render and per-step update, in a real JupyterLab.

A JupyterLab server and Debian's Chromium (through Playwright, with the harness of
tests/browser) open a notebook that builds these graphs in the kernel:

- ``50`` and ``500``: chains of ``h = tanh(h) + h_two_blocks_back`` (4 nodes and 5 edges a
  block) with 47 and 499 nodes (variables + functions);
- ``10000``: one training step of a 20 x 80-layer MLP (``Sequential`` of ``Sequential`` of
  ``Linear(4, 4)`` and ``tanh``, mean squared error), 9,604 nodes, built under
  ``events.recording()`` as ``%%autograd_lab`` does, so the view collapses it per Link;
- ``10000-cap``: the same graph built unobserved, so the view's node cap does the work;
- ``500-lens``: ``500`` with the gradient lens on (issue 33: within 10% of ``500``).

For each case a new cell ``GraphView(...)`` is run and timed in the page from the run
command to the widget's ``data-agl-ready="1"`` (first SVG drawn: kernel work, comm, layout
together), and to the first SVG node in the DOM. Then Step is clicked repeatedly and each
step is timed in the page from the click to

- the first widget message from the kernel reaching the page (kernel + transport),
- the step counter (``.agl-counter``) showing the new step,
- the first change of the drawing (the step becomes visible: the figure held to the target),
- the last change of the drawing (end of any transition: quiet for 300 ms).

Each new view's cost on the wire is printed too: the bytes of every websocket frame the
page received from the run command to the view being ready (the widget's state, bundle
included, and its first drawing).

The same GraphView() and step() are also timed in this process without a browser, which
says how much of each figure is kernel-side work; the page's own split of a first drawing
(waiting for the compiled Graphviz, the Graphviz layout, putting the SVG in the page) is
printed too, and any layout the widget reports as failed.

Targets (issue 5): a step updates in at most 100 ms at 500 nodes; first render at most 1 s
at 500 nodes and at most 3 s for the collapsed 10,000. Each figure is printed with its
target and ratio; the exit status is 0 either way (a benchmark reports), unless
``--strict``. Timings depend on the machine's load: the load average is printed too.

Usage: ``python benchmarks/widget_latency.py [--cases 50,500,10000,10000-cap] [--steps 8]
[--repeat 2] [--strict]``. Needs what tests/browser needs: /usr/bin/chromium and the
``[test]`` extra. A screenshot of the page is saved as test-artifacts/browser/widget-latency.png.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'tests' / 'browser'))
sys.path.insert(0, str(ROOT / 'widgets'))
sys.path.insert(0, str(ROOT))

import jupyter_harness as jh  # noqa: E402  (path above)

# The graph builders, run in the kernel and (for the kernel-side figures) in this process.
GRAPHS_SOURCE = '''\
import numpy as np
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import Sequential, Variable, events
from autograd_lab.events import uid


def count_nodes(out):
    """Variables + functions reachable backward from ``out``."""
    seen, stack = set(), [out.node]
    while stack:
        var = stack.pop()
        if uid(var) in seen:
            continue
        seen.add(uid(var))
        func = var.creator_node
        if func is not None and uid(func) not in seen:
            seen.add(uid(func))
            stack.extend(func.inputs)
    return len(seen)


def chain_graph(n_nodes):
    """``h = tanh(h) + h_from_two_blocks_back`` blocks (4 nodes, 5 edges each), a final sum.

    Skips stay short: Graphviz lays long skip edges out slowly (every rank they cross
    gets a virtual node), which would measure a pathological graph, not the widget.
    """
    x = Variable(np.array([0.5, -0.25], dtype=np.float32), name='x')
    values, h = [x], x
    for i in range(max(1, (n_nodes - 3) // 4)):
        h = F.tanh(h) + values[max(0, i - 1)]  # a residual-style skip over one block
        values.append(h)
    loss = F.sum(h)
    loss.name = 'loss'
    return None, loss


def training_graph(blocks=20, layers=80):
    """One training step's graph of a deep MLP: 9,604 nodes for 20 x 80 layers."""
    rng = np.random.default_rng(0)
    model = Sequential(*[Sequential(*[layer for _ in range(layers)
                                      for layer in (L.Linear(4, 4), F.tanh)])
                         for _ in range(blocks)])
    x = rng.standard_normal((8, 4)).astype(np.float32)
    t = rng.standard_normal((8, 4)).astype(np.float32)
    loss = F.mean_squared_error(model(x), t)
    loss.name = 'loss'
    return model, loss


def build(case):
    """(GraphView keyword arguments, output) for a case name."""
    if case == '10000':
        # Recorded while built, as %%autograd_lab does: the view knows every node's Link
        # and collapses the graph per Link before layout.
        with events.recording() as log:
            model, loss = training_graph()
        return {'events_log': log, 'links': model}, loss
    if case == '10000-cap':
        # Built unobserved: only parameters know their Link, so the node cap does the work.
        model, loss = training_graph()
        return {'links': model}, loss
    if case.endswith('-lens'):  # the same graph with the gradient lens on (issue 33)
        kwargs, loss = build(case.removesuffix('-lens'))
        return {**kwargs, 'gradient_lens': True}, loss
    return {}, chain_graph(int(case))[1]
'''

CASES = ('50', '500', '500-lens', '10000', '10000-cap')
#: seconds; (what, case) -> target
TARGETS = {('first_render', '500'): 1.0, ('first_render', '10000'): 3.0,
           ('first_render', '10000-cap'): 3.0, ('step', '500'): 0.1,
           ('first_render', '500-lens'): 1.0, ('step', '500-lens'): 0.1}

# Run ``code`` in a new cell below the last one; resolve with the times (ms from the run
# command) at which the (index)-th widget root shows an SVG node and says it is ready.
_RUN_AND_TIME_RENDER = """async ([code, index]) => {
  const app = window.jupyterapp;
  const nb = app.shell.currentWidget.content;
  nb.activeCellIndex = nb.widgets.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  nb.activeCell.model.sharedModel.setSource(code);
  let tSvg = null;
  const t0 = performance.now();
  const done = new Promise((resolve) => {
    const check = () => {
      const root = document.querySelectorAll('.agl-root')[index];
      if (root && tSvg === null && root.querySelector('svg g.node')) tSvg = performance.now();
      if (root && root.dataset.aglReady === '1') {
        resolve(performance.now());
        return true;
      }
      return false;
    };
    if (check()) return;
    const mo = new MutationObserver(() => { if (check()) mo.disconnect(); });
    mo.observe(document.body, { subtree: true, childList: true, attributes: true,
                                attributeFilter: ['data-agl-ready'] });
    setTimeout(() => { mo.disconnect(); resolve(null); }, 120000);
  });
  app.commands.execute('notebook:run-cell');
  const tReady = await done;
  return { ready: tReady === null ? null : tReady - t0, svg: tSvg === null ? null : tSvg - t0 };
}"""

# Click Step on the (index)-th widget; times (ms from the click) of the counter change and the
# first and last change of the drawing (quiet for quietMs = settled).
_STEP_AND_TIME = """async ([index, quietMs]) => {
  const root = document.querySelectorAll('.agl-root')[index];
  const badge = root.querySelector('.agl-counter');
  const box = root.querySelector('.agl-graph') || root;
  const button = root.querySelector('button[data-action="step"]');
  if (button.disabled) return null;
  const before = badge.dataset.step;
  let tFirst = null, tLast = null, tBadge = null;
  const mo = new MutationObserver(() => {
    const t = performance.now();
    if (tFirst === null) tFirst = t;
    tLast = t;
  });
  mo.observe(box, { subtree: true, childList: true, attributes: true, characterData: true });
  const mb = new MutationObserver(() => {
    if (tBadge === null && badge.dataset.step !== before) tBadge = performance.now();
  });
  mb.observe(badge, { attributes: true, childList: true, characterData: true, subtree: true });
  const t0 = performance.now();
  button.click();
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const last = Math.max(tLast ?? 0, tBadge ?? 0);
      if ((tBadge !== null && now - last > quietMs) || now - t0 > 60000) resolve();
      else setTimeout(tick, 20);
    };
    tick();
  });
  mo.disconnect();
  mb.disconnect();
  const rel = (t) => (t === null ? null : t - t0);
  const reply = (window.aglCommTimes || []).find((t) => t > t0) ?? null;
  return { status: rel(tBadge), graph: rel(tFirst), settled: rel(tLast), reply: rel(reply) };
}"""

# Record when each widget message from the kernel reaches the page (kernel + transport time).
_WATCH_COMM = """() => {
  window.aglCommTimes = [];
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  kernel.anyMessage.connect((_, args) => {
    if (args.direction === 'recv' && args.msg.header.msg_type === 'comm_msg') {
      window.aglCommTimes.push(performance.now());
    }
  });
}"""


def _fmt_ms(seconds: float | None) -> str:
    return 'n/a' if seconds is None else f'{seconds * 1000:.1f} ms'


def _verdict(what: str, case: str, seconds: float | None) -> str:
    target = TARGETS.get((what, case))
    if target is None or seconds is None:
        return ''
    ok = 'ok' if seconds <= target else 'MISSED'
    return f'   [target <= {target * 1000:.0f} ms: {seconds / target:.2f}x, {ok}]'


def _var(case: str) -> str:
    return case.replace('-', '_')


def kernel_side(cases: list[str], steps: int) -> dict[str, dict[str, Any]]:
    """GraphView construction and step() times in this process (no browser, no comm)."""
    from autograd_lab_widget import GraphView

    namespace: dict[str, Any] = {}
    exec(GRAPHS_SOURCE, namespace)
    out = {}
    for case in cases:
        kwargs, loss = namespace['build'](case)
        t0 = time.perf_counter()
        view = GraphView(loss, **kwargs)
        build = time.perf_counter() - t0
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            if not view.step():
                break
            times.append(time.perf_counter() - t0)
        out[case] = {'view': build, 'steps': times}
        view.close()
    return out


def browser_side(cases: list[str], steps: int, repeat: int) -> dict[str, dict[str, Any]]:
    """First render and per-step latencies measured in Chromium on a JupyterLab page."""
    from playwright.sync_api import sync_playwright

    home = Path(tempfile.mkdtemp(prefix='agl-latency-'))
    (home / 'root').mkdir()
    cells = [GRAPHS_SOURCE, 'from autograd_lab_widget import GraphView']
    cells += [f'graph_{_var(c)} = build({c!r})' for c in cases]
    nb, probe_dir = jh.write_notebook(home / 'root', 'latency', cells)
    probe = jh.Probe(probe_dir)
    results: dict[str, dict[str, Any]] = {}
    with jh.JupyterServer('lab', home / 'root', home / 'lab') as server, \
            sync_playwright() as playwright:
        browser = jh.launch_chromium(playwright)
        page = jh.new_page(browser)
        page.set_default_timeout(120_000)
        received = [0]  # bytes of every websocket frame the page received (kernel messages)
        page.on('websocket', lambda ws: ws.on(
            'framereceived', lambda payload: received.__setitem__(0, received[0] + len(
                payload.encode() if isinstance(payload, str) else payload))))
        # the widget reports a failed layout as a console warning: show it with the figures
        page.on('console', lambda m: m.type in ('warning', 'error') and 'autograd_lab' in m.text
                and print('page console:', m.text[:300]))
        jh.open_in_lab(page, server, nb, probe, timeout=180)
        page.evaluate(_WATCH_COMM)
        index = 0
        for case in cases:
            graph = f'graph_{_var(case)}'
            renders, kernel_builds = [], []
            for r in range(repeat):
                name = f'view_{_var(case)}_{r}'
                code = (f'import time as _time\n_t0 = _time.perf_counter()\n'
                        f'{name} = GraphView({graph}[1], **{graph}[0])\n'
                        f'_build_{name} = _time.perf_counter() - _t0\n{name}')
                before = received[0]
                timing = page.evaluate(_RUN_AND_TIME_RENDER, [code, index])
                timing['bytes'] = received[0] - before  # what one more view costs the wire
                if timing['ready'] is None:
                    raise RuntimeError(f'the {case} view never became ready')
                renders.append(timing)
                kernel_builds.append(probe.eval(f'_build_{name}'))
                index += 1
            step_times = []
            # Step the last view of this case (the page is warm by then).
            for _ in range(steps):
                timing = page.evaluate(_STEP_AND_TIME, [index - 1, 300])
                if timing is None:  # Step disabled: backward finished
                    break
                step_times.append(timing)
            last = page.locator('.agl-root').nth(index - 1)
            first_view = page.locator('.agl-root').nth(index - repeat)
            results[case] = {
                'times': first_view.evaluate(
                    "(r) => r.querySelector('.agl-graph').dataset.aglTimes || null"),
                'renders': renders, 'kernel_build': kernel_builds, 'steps': step_times,
                'drawn': last.locator('svg g.node').count(),
                'nodes': probe.eval(f'count_nodes({graph}[1])'),
                'status': probe.eval(f"view_{_var(case)}_0.status.get('text', '')")}
        jh.screenshot(page, 'widget-latency')
        browser.close()
    return results


def _median(values: list[float | None]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _seconds(rows: list[dict], key: str) -> list[float | None]:
    return [None if row[key] is None else row[key] / 1000 for row in rows]


def report(browser: dict, kernel: dict) -> list[str]:
    """Print the figures; return the missed targets."""
    missed = []
    print('Widget latency, JupyterLab 4 + Debian Chromium (Playwright); times from the action.')
    for case, res in browser.items():
        print(f'\n== case {case}: {res["nodes"]} nodes in the kernel, '
              f'{res["drawn"]} SVG nodes drawn')
        if res['drawn'] < res['nodes']:
            print(f'   view status: {res["status"].strip()}')
        ready = _seconds(res['renders'], 'ready')
        first = ready[0]
        print(f'first render (run cell -> data-agl-ready): {_fmt_ms(first)}'
              f'{_verdict("first_render", case, first)}')
        print(f'   in the page, first layout: {res["times"]}')
        print(f'   every run: {", ".join(map(_fmt_ms, ready))}; first SVG node at '
              f'{", ".join(map(_fmt_ms, _seconds(res["renders"], "svg")))}; '
              f'of which kernel GraphView(): {", ".join(map(_fmt_ms, res["kernel_build"]))}')
        sizes = ', '.join(f'{row["bytes"] / 1024:.0f} KB' for row in res['renders'])
        print(f'   bytes the page received per view (run cell -> ready): {sizes}')
        target = TARGETS.get(('first_render', case))
        if target is not None and first > target:
            missed.append(f'first render {case}: {first * 1000:.0f} ms')
        steps = res['steps']
        if not steps:
            print('steps: none (the backward had already finished)')
            continue
        graph = _seconds(steps, 'graph')
        med = _median(graph)
        print(f'step (click -> drawing updated): median {_fmt_ms(med)}, max '
              f'{_fmt_ms(max((g for g in graph if g is not None), default=None))} '
              f'over {len(steps)} steps{_verdict("step", case, med)}')
        print(f'   click -> kernel reply in the page: median '
              f'{_fmt_ms(_median(_seconds(steps, "reply")))}; -> step counter: median '
              f'{_fmt_ms(_median(_seconds(steps, "status")))}; -> drawing settled: median '
              f'{_fmt_ms(_median(_seconds(steps, "settled")))}')
        target = TARGETS.get(('step', case))
        if target is not None and med is not None and med > target:
            missed.append(f'step {case}: {med * 1000:.0f} ms')
        k = kernel.get(case)
        if k:
            print(f'   same graph in this process, no browser: GraphView() {_fmt_ms(k["view"])}, '
                  f'step() median {_fmt_ms(_median(k["steps"]))}')
    return missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--cases', default=','.join(CASES),
                        help=f'comma-separated, from {", ".join(CASES)}')
    parser.add_argument('--steps', type=int, default=8)
    parser.add_argument('--repeat', type=int, default=2, help='first renders per case')
    parser.add_argument('--strict', action='store_true', help='exit 1 if a target is missed')
    args = parser.parse_args(argv)
    cases = args.cases.split(',')
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        parser.error(f'unknown case(s) {", ".join(unknown)}; choose from {", ".join(CASES)}')
    kernel = kernel_side(cases, args.steps)
    browser = browser_side(cases, args.steps, args.repeat)
    missed = report(browser, kernel)
    print('\nmissed targets: ' + ('; '.join(missed) if missed else 'none'))
    try:
        load = ', '.join(f'{v:.1f}' for v in os.getloadavg())
        print(f'(load average during the run: {load} on {os.cpu_count()} CPUs)')
    except OSError:
        pass
    return 1 if missed and args.strict else 0


if __name__ == '__main__':
    sys.exit(main())
