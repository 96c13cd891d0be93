"""A class re-running a view cell: kernel memory, open widgets and bytes per view.

A real IPython kernel (jupyter_client, this interpreter) runs the same notebook cell
``GraphView(lesson graph)`` ``--runs`` times (300), each execute request carrying the same
``cellId`` as JupyterLab and Notebook 7 send.  For each mode, in a fresh kernel:

- ``kept``: views are never closed (the behaviour before issue 29: closing turned off);
- ``closed``: the default: when a cell runs again, the views it showed are closed.

Reported per mode: the kernel's resident memory (VmRSS) after the first run and after
the last one; the growth of what Python objects hold (tracemalloc: RSS also counts memory
the allocator keeps after objects are freed); the widgets still open (``ipywidgets``
instances: a view and its layout each); the GraphViews open and those still following
the engine; the events in the session's value log (``recorder``: bounded, it grows with
any computation); and the bytes the kernel sent for one additional view (every
``comm_open`` and ``comm_msg`` of one run, JSON content plus binary buffers: what crosses
the websocket).

Usage: ``python benchmarks/rerun_session.py [--runs 300] [--modes kept,closed]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from jupyter_client.manager import start_new_kernel

SETUP = """
import tracemalloc; tracemalloc.start()
import gc, numpy as np, autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab_widget import GraphView, lifetime
from autograd_lab_widget.follow import recorder
from ipywidgets.widgets import widget as _ipw
def _rss():
    with open('/proc/self/status') as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith('VmRSS:'))
"""
#: Lesson 2's gates, the cell a class re-runs most.
VIEW_CELL = """
x, y, z = (chainer.Variable(np.array(v), name=k) for k, v in (('x', 4.0), ('y', 2.0), ('z', -1.0)))
f_gates = (x + y) * F.maximum(y, z)
f_gates.backward()
GraphView(f_gates)
"""
PROBE = """
gc.collect()
print(__import__('json').dumps({'rss': _rss(), 'widgets': len(_ipw._instances),
    'views': sum(isinstance(w, GraphView) for w in _ipw._instances.values()),
    'following': sum(isinstance(o, GraphView) and o.model.following for o in gc.get_objects()),
    'log': len(recorder._log) if recorder._log is not None else 0,
    'traced': tracemalloc.get_traced_memory()[0]}))
"""
KEEP = 'lifetime.shown = lambda view: None  # as before issue 29: nothing is closed'


def execute(kc: Any, code: str, cell_id: str | None = None) -> dict:
    """Run ``code``; return its stdout and the bytes of the widget messages it sent."""
    content = {'code': code, 'silent': False, 'store_history': True,
               'user_expressions': {}, 'allow_stdin': False, 'stop_on_error': True}
    msg = kc.session.msg('execute_request', content,
                         metadata={'cellId': cell_id} if cell_id else {})
    kc.shell_channel.send(msg)
    out, sent, error = [], 0, None
    while True:
        reply = kc.get_iopub_msg(timeout=120)
        if reply['parent_header'].get('msg_id') != msg['header']['msg_id']:
            continue
        kind = reply['msg_type']
        if kind in ('comm_open', 'comm_msg'):
            sent += len(json.dumps(reply['content'])) + sum(len(b) for b in reply['buffers'])
        elif kind == 'stream':
            out.append(reply['content']['text'])
        elif kind == 'error':
            error = '\n'.join(reply['content']['traceback'])
        elif kind == 'status' and reply['content']['execution_state'] == 'idle':
            break
    if error:
        raise RuntimeError(error)
    return {'stdout': ''.join(out), 'bytes': sent}


def session(mode: str, runs: int) -> dict:
    km, kc = start_new_kernel(kernel_name='python3')
    try:
        execute(kc, SETUP)
        if mode == 'kept':
            execute(kc, KEEP)
        sizes = [execute(kc, VIEW_CELL, 'view-cell')['bytes']]
        first = json.loads(execute(kc, PROBE)['stdout'])
        began = time.perf_counter()
        for _ in range(runs - 1):
            sizes.append(execute(kc, VIEW_CELL, 'view-cell')['bytes'])
        per_run = (time.perf_counter() - began) / max(runs - 1, 1)
        last = json.loads(execute(kc, PROBE)['stdout'])
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return {'mode': mode, 'runs': runs, 'rss_first_mb': first['rss'] / 2**20,
            'rss_last_mb': last['rss'] / 2**20,
            'rss_growth_mb': (last['rss'] - first['rss']) / 2**20,
            'held_growth_mb': (last['traced'] - first['traced']) / 2**20,
            'widgets_open': last['widgets'], 'views_alive': last['views'],
            'following': last['following'], 'log_events': last['log'],
            'bytes_per_view': statistics.median(sizes[1:] or sizes), 's_per_run': per_run}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=300)
    parser.add_argument('--modes', default='kept,closed')
    args = parser.parse_args(argv)
    for mode in args.modes.split(','):
        r = session(mode, args.runs)
        print(f"{mode:>6}: {r['runs']} runs of one view cell: kernel "
              f"{r['rss_first_mb']:.1f} -> {r['rss_last_mb']:.1f} MB "
              f"({r['rss_growth_mb']:+.1f} MB; Python objects held "
              f"{r['held_growth_mb']:+.1f} MB), {r['widgets_open']} widgets open, "
              f"{r['views_alive']} GraphViews open ({r['following']} following the engine), "
              f"session value log {r['log_events']} events (bounded at 20,000), "
              f"{r['bytes_per_view'] / 1024:.0f} KB "
              f"sent per additional view, {r['s_per_run'] * 1000:.0f} ms per run")
    return 0


if __name__ == '__main__':
    sys.exit(main())
