"""A long classroom session: 2,000 training steps of a small MLP, memory watched.

Three sessions, each in its own process so that one cannot inflate another's
memory: ``plain`` (nothing observing), ``recording`` (an ``events.recording()``
open for the whole session, with a bounded log) and ``view`` (a live
``GraphView`` of the first loss left open, subscribed to the events while the
model trains).  Each reports resident memory (VmRSS from /proc/self/status)
after step 200 and after the last step, the change between them, how many
events the log kept and dropped, and the time per step.

Target (issue 8): memory after step 200 and after step 2,000 differ by at most 5%.

Usage: ``python benchmarks/long_session.py [--steps 2000] [--modes plain,recording,view]``;
``--child MODE`` runs one session in this process and prints its figures as JSON
(the tests use that).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODES = ('plain', 'recording', 'view')
#: The recording's bound: small enough that the log is full long before step 200, so
#: that the measurement shows the bounded log no longer growing.
LOG_SIZE = 5_000
CHECKPOINTS = (200,)


def _trim_free_heap() -> None:
    """glibc's ``malloc_trim(0)``; nothing where the C library is not glibc."""
    try:
        ctypes.CDLL('libc.so.6').malloc_trim(0)
    except (OSError, AttributeError):
        pass


def rss_bytes() -> int:
    """Resident memory of this process (VmRSS), in bytes, once freed memory is let go.

    Collects cycles, then asks glibc to hand its free heap pages back to the
    system (``malloc_trim``).  Without that, RSS counts pages glibc keeps after
    the view's large DOT strings are freed; how many depends on fragmentation,
    so the same session measured 3% on one machine and 5.3% on another while the
    memory Python holds (tracemalloc) did not grow.  What stays is what is held.
    """
    gc.collect()
    _trim_free_heap()
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) * 1024
    raise RuntimeError('no VmRSS in /proc/self/status')


def session(mode: str, steps: int, seed: int = 0, stop_over: float | None = None
            ) -> dict[str, Any]:
    """Train for ``steps`` steps under ``mode``; return the figures.

    ``stop_over``: stop early once memory has grown by more than this fraction since
    step 200 (the session has failed its target; no need to wait for the end).
    """
    import numpy as np

    import autograd_lab as chainer
    import autograd_lab.functions as F
    import autograd_lab.links as L
    import autograd_lab.optimizers as O
    from autograd_lab import events

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 16)).astype(np.float32)
    t = (x[:, :4].argmax(axis=1)).astype(np.int32)  # learnable labels
    model = chainer.Sequential(L.Linear(16, 32), F.relu, L.Linear(32, 32), F.tanh,
                               L.Linear(32, 4))
    opt = O.Adam(alpha=1e-3).setup(model)

    def loss_fn() -> Any:
        return F.softmax_cross_entropy(model(x), t)

    recorder = view = None
    if mode == 'recording':
        recorder = events.recording(maxlen=LOG_SIZE)
        log = recorder.__enter__()
    elif mode == 'view':
        sys.path.insert(0, str(ROOT / 'widgets'))
        from autograd_lab_widget import GraphView

        view = GraphView(loss_fn())

    figures: dict[str, Any] = {'mode': mode, 'steps': steps, 'rss': {}}
    losses = []
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # a widget without a front end may warn
            for step in range(1, steps + 1):
                loss = loss_fn()
                model.cleargrads()
                loss.backward()
                opt.update()
                losses.append(float(loss.array))
                del loss
                if step in CHECKPOINTS or step == steps or (stop_over and step % 100 == 0):
                    figures['rss'][step] = rss_bytes()
                    first = figures['rss'].get(CHECKPOINTS[0])
                    if stop_over and first and figures['rss'][step] > first * (1 + stop_over):
                        break
    finally:
        elapsed = time.perf_counter() - start
        if recorder is not None:
            recorder.__exit__(None, None, None)
            figures['log_len'] = len(log)
            figures['log_maxlen'] = log.maxlen
            figures['log_dropped'] = log.dropped
        if view is not None:
            figures['view_events'] = len(view.event_log())
            figures['view_nodes'] = len(view.model.live.model.nodes)
            view.close()
    figures['steps_done'] = len(losses)
    figures['ms_per_step'] = 1000 * elapsed / len(losses)
    figures['loss_first'], figures['loss_last'] = losses[0], losses[-1]
    first, last = figures['rss'][CHECKPOINTS[0]], figures['rss'][max(figures['rss'])]
    figures['rss_change'] = (last - first) / first
    return figures


def run_child(mode: str, steps: int, stop_over: float | None = None) -> dict[str, Any]:
    """:func:`session` in a fresh interpreter (isolated memory)."""
    cmd = [sys.executable, __file__, '--child', mode, '--steps', str(steps)]
    if stop_over is not None:
        cmd += ['--stop-over', str(stop_over)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**_env(), 'PYTHONPATH': str(ROOT)})
    return json.loads(out.stdout.strip().splitlines()[-1])


def _env() -> dict:
    import os
    return dict(os.environ)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--steps', type=int, default=2000)
    parser.add_argument('--modes', default=','.join(MODES))
    parser.add_argument('--child', choices=MODES)
    parser.add_argument('--stop-over', type=float, default=None)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(session(args.child, args.steps, stop_over=args.stop_over)))
        return
    print(f'{args.steps} training steps of a 16-32-32-4 MLP (batch 64, Adam), one process each')
    print(f'{"session":<10} {"RSS@200 MiB":>12} {"RSS@end MiB":>12} {"change":>8} '
          f'{"ms/step":>8}  events')
    for mode in args.modes.split(','):
        f = run_child(mode, args.steps)
        mib = 1 << 20
        extra = ''
        if 'log_len' in f:
            extra = f'log kept {f["log_len"]} of max {f["log_maxlen"]}, dropped {f["log_dropped"]}'
        if 'view_events' in f:
            extra = f'view holds {f["view_events"]} events, {f["view_nodes"]} nodes'
        first = f['rss'][str(CHECKPOINTS[0])]
        last = f['rss'][str(f['steps_done'])]
        print(f'{mode:<10} {first / mib:>12.1f} {last / mib:>12.1f} '
              f'{100 * f["rss_change"]:>+7.2f}% {f["ms_per_step"]:>8.2f}  {extra}')
        print(f'{"":<10} loss {f["loss_first"]:.4f} -> {f["loss_last"]:.4f}')


if __name__ == '__main__':
    main()
