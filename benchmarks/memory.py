"""Peak memory of forward+backward, in units of one array.

Workload (issue 2): ``y = tanh(y * 0.5 + 0.1)`` forty times on a 4M-element float32
array, then backward of the sum.  Peak resident memory above the state just before
the forward (the input already allocated) is divided by the size of one array.
Every framework runs in its own process with glibc's mmap threshold fixed, so freed
arrays really leave the process and the kernel's peak-RSS counter (VmHWM, reset
through /proc/self/clear_refs) measures what was alive at once.

Target: autograd_lab at most 44 arrays (only what backward needs is retained).
Usage: ``python benchmarks/memory.py [--n 4194304] [--depth 40]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _peers


def _status(field: str) -> int:
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def _reset_peak() -> None:
    with open('/proc/self/clear_refs', 'w') as f:
        f.write('5')


def child(framework: str, n: int, depth: int) -> dict:
    import numpy as np
    x0 = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    if framework == 'torch':
        import torch
        _peers.pin_torch_threads()
        x = torch.from_numpy(x0).requires_grad_()

        def run():
            y = x
            for _ in range(depth):
                y = torch.tanh(y * 0.5 + 0.1)
            y.sum().backward()
    else:
        if framework == 'chainer':
            import chainer
            import chainer.functions as F
        else:
            import autograd_lab as chainer
            import autograd_lab.functions as F
        x = chainer.Variable(x0)

        def run():
            y = x
            for _ in range(depth):
                y = F.tanh(y * 0.5 + 0.1)
            F.sum(y).backward()

    run()  # warm-up: imports and lazy initialisation inside the frameworks
    if framework == 'torch':
        x.grad = None
    else:
        x.cleargrad()
    _reset_peak()
    base = _status('VmRSS')
    run()
    peak = _status('VmHWM')
    return {'arrays': (peak - base) / x0.nbytes, 'peak_mb': (peak - base) / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=4 * 1024 * 1024)
    parser.add_argument('--depth', type=int, default=40)
    parser.add_argument('--child')
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.n, args.depth)))
        return
    os.environ['MALLOC_MMAP_THRESHOLD_'] = str(1 << 20)
    print(f'Peak memory of forward+backward, {args.depth} x tanh(y*0.5+0.1) on '
          f'{args.n}-element float32 arrays ({args.n * 4 / 2**20:.0f} MiB each)')
    for fw in _peers.FRAMEWORKS:
        row = _peers.run_child(__file__, fw, '--n', str(args.n), '--depth', str(args.depth))
        if row is None:
            print(f'{fw:14}  not installed (bash benchmarks/setup_peers.sh)')
            continue
        print(f"{fw:14}{row['arrays']:8.1f} arrays  ({row['peak_mb']:.0f} MiB)")
    print('(target for autograd_lab: at most 44 arrays)')


if __name__ == '__main__':
    main()
