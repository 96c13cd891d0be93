"""What views cost: many views on graphs that share a leaf, and a training loop with views open.

Two workloads, each in its own process (one cannot inflate another's memory), with no
front end (a script: the kernel's event loop does not run, redraws happen inline):

- ``views``: ``--views`` (1,000) views made in a loop as a notebook cell would, one per
  graph, every graph built on one shared Parameter (``y = sum(tanh(x * w))``), none
  held (``GraphView(y)`` as a statement).  Reported: the total time, the time per view
  over the first and the last tenth (equal when the cost is linear in the views), what
  Python objects hold afterwards (tracemalloc) and resident memory (VmRSS, after
  ``gc.collect`` and ``malloc_trim``), and the views still alive and still following
  the engine.
- ``train``: ``--steps`` (100) training steps of a small MLP (Adam) with 0, 1 and 10
  views of the first loss open (held, following the model as it trains); the time per
  step (median of per-step times) and the redraws the views made.

Target (issue 39 point 3): views nobody holds are released (none alive, memory that
does not grow with them) and the time per view stays flat; a training step pays at most
a small constant per open view.

Usage: ``python benchmarks/views_cost.py [--views 1000] [--steps 100] [--runs 3]``;
``--child WORKLOAD`` runs one in this process and prints its figures as JSON.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'widgets'))


def rss_mib() -> float:
    """Resident memory once cycles are collected and glibc's free heap is handed back."""
    gc.collect()
    try:
        ctypes.CDLL('libc.so.6').malloc_trim(0)
    except (OSError, AttributeError):
        pass
    with open('/proc/self/status') as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith('VmRSS:'))


def alive_views() -> tuple[int, int]:
    """GraphViews still alive, and those of them still following the engine."""
    from autograd_lab_widget import GraphView
    gc.collect()
    views = [o for o in gc.get_objects() if isinstance(o, GraphView)]
    return len(views), sum(v.model.following for v in views)


def many_views(n: int) -> dict[str, Any]:
    """``n`` views made in a loop on graphs sharing one Parameter, none held."""
    import numpy as np

    import autograd_lab as chainer
    import autograd_lab.functions as F
    from autograd_lab_widget import GraphView

    rng = np.random.default_rng(0)
    w = chainer.Parameter(rng.standard_normal(8).astype(np.float32), name='w')

    def one() -> None:
        x = chainer.Variable(rng.standard_normal(8).astype(np.float32), name='x')
        GraphView(F.sum(F.tanh(x * w)))  # a cell's statement: nobody holds the view

    one()  # warm-up: imports, the bundle's holder
    gc.collect()
    tracemalloc.start()
    held0, rss0 = tracemalloc.get_traced_memory()[0], rss_mib()
    times = []
    began = time.perf_counter()
    for _ in range(n):
        t = time.perf_counter()
        one()
        times.append(time.perf_counter() - t)
    total = time.perf_counter() - began
    alive, following = alive_views()
    held = (tracemalloc.get_traced_memory()[0] - held0) / 2**20
    tenth = max(n // 10, 1)
    return {'workload': 'views', 'views': n, 'total_s': total,
            'first_ms': 1000 * statistics.mean(times[:tenth]),
            'last_ms': 1000 * statistics.mean(times[-tenth:]),
            'held_mib': held, 'rss_mib': rss_mib() - rss0,
            'alive': alive, 'following': following}


def training(views: int, steps: int, shown: bool = True) -> dict[str, Any]:
    """``steps`` steps of a small MLP with ``views`` views of its first loss open
    (``shown``: as a page showing each would, which makes the engine's events redraw it)."""
    import numpy as np

    import autograd_lab as chainer
    import autograd_lab.functions as F
    import autograd_lab.links as L
    import autograd_lab.optimizers as O
    from autograd_lab_widget import GraphView, lifetime, redraw

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 16)).astype(np.float32)
    t = x[:, :4].argmax(axis=1).astype(np.int32)
    model = chainer.Sequential(L.Linear(16, 32), F.relu, L.Linear(32, 4))
    opt = O.Adam(alpha=1e-3).setup(model)

    def loss_fn() -> Any:
        return F.softmax_cross_entropy(model(x), t)

    open_views = [GraphView(loss_fn(), links=model) for _ in range(views)]
    for view in open_views if shown else ():
        lifetime.hold(view)  # what a page drawing it does (its 'hello' message)
    drawn = [0]
    refresh = GraphView.refresh

    def counted(view: Any) -> None:
        drawn[0] += 1
        refresh(view)

    GraphView.refresh = counted  # count the redraws the steps cause
    per_step = []
    for _ in range(steps):
        began = time.perf_counter()
        loss = loss_fn()
        model.cleargrads()
        loss.backward()
        opt.update()
        per_step.append(time.perf_counter() - began)
    GraphView.refresh = refresh
    for view in open_views:
        view.close()
    return {'workload': 'train', 'open_views': views, 'shown': shown, 'steps': steps,
            'ms_per_step': 1000 * statistics.median(per_step),
            'ms_mean': 1000 * statistics.mean(per_step), 'redraws': drawn[0],
            'throttle_s': redraw.THROTTLE_S}


def run_child(args: list[str]) -> dict[str, Any]:
    """One workload in a fresh interpreter (isolated memory)."""
    out = subprocess.run([sys.executable, __file__, '--child', *args], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--views', type=int, default=1000)
    parser.add_argument('--steps', type=int, default=100)
    parser.add_argument('--runs', type=int, default=3, help='runs of each workload')
    parser.add_argument('--open', default='0,1,10,10h',
                        help='views open while training (h: no page shows them)')
    parser.add_argument('--child', help=argparse.SUPPRESS)
    parser.add_argument('--n', type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument('--hidden', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # a widget without a front end may warn
            figures = many_views(args.views) if args.child == 'views' \
                else training(args.n, args.steps, not args.hidden)
        print(json.dumps(figures))
        return 0
    print(f'{args.views} views on graphs sharing one Parameter, none held '
          f'({args.runs} runs):')
    print('| run | total s | ms/view first 10% | last 10% | Python heap MiB | RSS MiB '
          '| alive | following |')
    print('|---|---|---|---|---|---|---|---|')
    for run in range(args.runs):
        r = run_child(['views', '--views', str(args.views)])
        print(f"| {run + 1} | {r['total_s']:.1f} | {r['first_ms']:.1f} | {r['last_ms']:.1f} "
              f"| {r['held_mib']:+.1f} | {r['rss_mib']:+.1f} | {r['alive']} "
              f"| {r['following']} |")
    print(f'\n{args.steps} training steps of a small MLP, views of its loss open '
          f'(ms per step: the loop\'s time over its steps, {args.runs} runs; the median step '
          f'leaves out the steps that redraw):')
    print('| views open | shown | ms/step (runs) | median | median step | redraws |')
    print('|---|---|---|---|---|---|')
    for spec in args.open.split(','):
        hidden = spec.endswith('h')
        k = spec.rstrip('h')
        child = ['train', '--n', k, '--steps', str(args.steps)] + (['--hidden'] if hidden else [])
        rs = [run_child(child) for _ in range(args.runs)]
        ms = [r['ms_mean'] for r in rs]
        print(f"| {k} | {'no' if hidden else 'yes'} | {', '.join(f'{m:.1f}' for m in ms)} "
              f"| {statistics.median(ms):.1f} "
              f"| {statistics.median(r['ms_per_step'] for r in rs):.1f} "
              f"| {statistics.median(r['redraws'] for r in rs)} |")
    return 0


if __name__ == '__main__':
    sys.exit(main())
