"""Graph model and picture export: how long building, replaying, DOT and rendering take.

Prints, for a 2,001-node chain and for the event log of 200 MLP training steps:
``from_outputs``, ``from_events`` (and per event), ``to_dot`` and ``render`` to SVG
with each renderer available (the system ``dot`` and the ``graphviz-pure`` wheel).

Usage: ``python benchmarks/graph_export.py [--chain 1000] [--steps 200]``
"""

from __future__ import annotations

import argparse
import shutil
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import events, graph


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def chain(n: int) -> Any:
    h = chainer.Variable(np.array(1.0), name='x')
    for i in range(n):
        h = h + 1 if i % 2 else h * 1.0001
    return h


class MLP(chainer.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 16)
            self.l2 = L.Linear(16, 2)

    def forward(self, x: Any) -> Any:
        return self.l2(F.relu(self.l1(x)))


def training_log(steps: int) -> Any:
    rng = np.random.RandomState(0)
    x = rng.randn(8, 3).astype(np.float32)
    t = rng.randint(0, 2, 8).astype(np.int32)
    with events.recording() as log:
        model = L.Classifier(MLP())
        opt = chainer.optimizers.SGD()
        opt.setup(model)
        for _ in range(steps):
            model.cleargrads()
            model(x, t).backward()
            opt.update()
    return log


def report(title: str, model: graph.GraphModel) -> None:
    t_dot, source = timed(lambda: graph.to_dot(model, max_nodes=None))
    print(f'  to_dot (no cap): {t_dot * 1e3:8.1f} ms  ({len(source) / 1e3:.0f} kB of DOT)')
    for program in ('dot', 'graphviz-pure'):
        if program == 'dot' and not shutil.which('dot'):
            print('  render svg with dot: (no system Graphviz)')
            continue
        t_svg, svg = timed(lambda p=program: graph.render(source, 'svg', program=p))
        print(f'  render svg with {program}: {t_svg * 1e3:8.1f} ms  ({len(svg) / 1e3:.0f} kB)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--chain', type=int, default=1000, help='functions in the chain')
    parser.add_argument('--steps', type=int, default=200, help='training steps recorded')
    args = parser.parse_args()

    y = chain(args.chain)
    t_walk, model = timed(lambda: graph.GraphModel.from_outputs([y]))
    print(f'chain: {model}')
    print(f'  from_outputs: {t_walk * 1e3:8.1f} ms')
    report('chain', model)

    log = training_log(args.steps)
    t_replay, model = timed(lambda: graph.GraphModel.from_events(log))
    print(f'training log: {len(log)} events -> {model}')
    print(f'  from_events: {t_replay * 1e3:8.1f} ms  ({t_replay / len(log) * 1e6:.1f} us/event)')
    t_half, _ = timed(lambda: graph.GraphModel.from_events(log, upto=len(log) // 2))
    print(f'  time travel to the middle: {t_half * 1e3:8.1f} ms')
    report('training', model)


if __name__ == '__main__':
    main()
