"""Per-op overhead of the engine on a long chain of small operations.

The chain repeats four small ops on 16-element float32 arrays, so array work is
negligible and the figures measure the engine itself:

    t = h * w; t = t + 0.5; h = tanh(t); h = h * 0.9        (w is a leaf used every block)

Printed, in microseconds per op (best of several repeats), for autograd_lab and, in
the same run, Chainer 7.8.1 and PyTorch (CPU, one thread) when their side venvs exist:

- forward: building the chain;
- forward+backward: the chain, its sum, and ``backward()``;
- double backprop: the chain, ``grad(..., enable_double_backprop=True)`` w.r.t. x and w,
  then ``backward()`` of the sum of those gradients.

Targets (issue 2): forward+backward and double backprop each at most 0.25x Chainer's.
Usage: ``python benchmarks/overhead.py [--ops 4000] [--repeat 5] [--no-events-check]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _peers import FRAMEWORKS, pin_torch_threads, run_child


def _best(fn, repeat: int) -> float:
    fn()  # warm-up
    best = float('inf')
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure_chainer_like(chainer, F, n_ops: int, repeat: int) -> dict:
    return {name: _best(fn, repeat) for name, fn in workloads(chainer, F, n_ops).items()}


def workloads(chainer, F, n_ops: int) -> dict:
    """The three measured bodies, by column, for Chainer or autograd_lab."""
    import numpy as np
    blocks = n_ops // 4
    x0 = np.linspace(-1, 1, 16).astype(np.float32)
    w0 = np.full(16, 0.9, np.float32)

    def chain():
        x = chainer.Variable(x0.copy())
        w = chainer.Variable(w0.copy())
        h = x
        for _ in range(blocks):
            t = h * w
            t = t + 0.5
            h = F.tanh(t)
            h = h * 0.9
        return x, w, h

    def forward_backward():
        _, _, h = chain()
        F.sum(h).backward()

    def double_backprop():
        x, w, h = chain()
        gx, gw = chainer.grad([F.sum(h)], [x, w], enable_double_backprop=True)
        F.sum(gx * gx + gw).backward()

    return {'forward': chain, 'forward+backward': forward_backward,
            'double backprop': double_backprop}


def measure_torch(n_ops: int, repeat: int) -> dict:
    import torch
    pin_torch_threads()
    blocks = n_ops // 4
    x0 = torch.linspace(-1, 1, 16, dtype=torch.float32)
    w0 = torch.full((16,), 0.9, dtype=torch.float32)

    def chain():
        x = x0.clone().requires_grad_()
        w = w0.clone().requires_grad_()
        h = x
        for _ in range(blocks):
            t = h * w
            t = t + 0.5
            h = torch.tanh(t)
            h = h * 0.9
        return x, w, h

    def forward_backward():
        _, _, h = chain()
        h.sum().backward()

    def double_backprop():
        x, w, h = chain()
        gx, gw = torch.autograd.grad(h.sum(), [x, w], create_graph=True)
        (gx * gx + gw).sum().backward()

    return {'forward': _best(chain, repeat), 'forward+backward': _best(forward_backward, repeat),
            'double backprop': _best(double_backprop, repeat)}


def child(framework: str, n_ops: int, repeat: int) -> dict:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * n_ops))  # Chainer needs it
    if framework == 'torch':
        seconds = measure_torch(n_ops, repeat)
    elif framework == 'chainer':
        import chainer
        import chainer.functions as F
        seconds = measure_chainer_like(chainer, F, n_ops, repeat)
    else:
        import autograd_lab
        import autograd_lab.functions as F
        seconds = measure_chainer_like(autograd_lab, F, n_ops, repeat)
    return {k: v / n_ops * 1e6 for k, v in seconds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--ops', type=int, default=4000)
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--child')
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.ops, args.repeat)))
        return
    results = {fw: run_child(__file__, fw, '--ops', str(args.ops), '--repeat', str(args.repeat))
               for fw in FRAMEWORKS}
    print_table(f'Per-op time, chain of {args.ops} small ops (us/op, best of {args.repeat})',
                results)


def print_table(title: str, results: dict) -> None:
    print(title)
    columns = ('forward', 'forward+backward', 'double backprop')
    print(f"{'':14}" + ''.join(f'{c:>20}' for c in columns))
    chainer = results.get('chainer')
    for fw, row in results.items():
        if row is None:
            print(f'{fw:14}  not installed (bash benchmarks/setup_peers.sh)')
            continue
        cells = []
        for c in columns:
            ratio = f' ({row[c] / chainer[c]:.2f}x)' if chainer else ''
            cells.append(f'{row[c]:.2f}{ratio}')
        print(f'{fw:14}' + ''.join(f'{cell:>20}' for cell in cells))
    if chainer:
        print('(ratios are against Chainer 7.8.1 in the same run; target for autograd_lab: '
              'forward+backward and double backprop <= 0.25x)')


if __name__ == '__main__':
    main()
