"""One SGD training step of a 784-512-512-10 ReLU MLP (batch 128, float32).

A step is forward, softmax cross-entropy, backward and the SGD update
(``opt.update(lossfun)`` for the Chainer-style frameworks).  Measured, in the
same run and each in its own single-threaded process (``_peers.py``):

- ``numpy``: a hand-written NumPy forward/backward/update, the floor any
  NumPy-based engine pays for the same arithmetic;
- ``autograd_lab``;
- Chainer 7.8.1 and PyTorch (CPU, one thread) when their side venvs exist.

Printed: milliseconds per step, the fastest and the median of ``--steps`` x
``--repeat`` individually timed steps after warm-up, with their ratios to the
NumPy floor, plus, for ``numpy`` and the Chainer-style frameworks, the fastest
forward (to the loss), backward and update phases.
Target (issue 3): autograd_lab <= 1.10x the NumPy floor.
``--profile`` prints a cProfile summary of autograd_lab's steps instead.

Usage: ``python benchmarks/mlp.py [--steps 20] [--repeat 5] [--profile]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _peers import ONE_THREAD, ROOT, pin_torch_threads, run_child

SIZES = (784, 512, 512, 10)
BATCH = 128
LR = 0.01
FRAMEWORKS = ('numpy', 'autograd_lab', 'chainer', 'torch')


def _data():
    import numpy as np
    rng = np.random.RandomState(0)
    x = rng.rand(BATCH, SIZES[0]).astype(np.float32)
    t = rng.randint(0, SIZES[-1], BATCH).astype(np.int32)
    return x, t


def _best_per_step(step, steps: int, repeat: int) -> dict:
    """Minimum and median of ``steps * repeat`` individually timed steps.

    The minimum is the figure compared (the least disturbed by other processes on
    a shared machine); the median shows how noisy the run was.
    """
    for _ in range(3):
        step()  # warm-up: allocations, BLAS initialisation, lazy parameter init
    times = []
    for _ in range(repeat * steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return {'step': times[0], 'median': times[len(times) // 2]}


def _split(phases, steps: int, repeat: int) -> dict:
    """Best per-phase time: ``phases`` returns a list of (name, seconds) for one step."""
    for _ in range(3):
        phases()
    best: dict = {}
    for _ in range(repeat * steps):
        for name, seconds in phases():
            best[name] = min(best.get(name, float('inf')), seconds)
    return best


# ---- the NumPy floor ---------------------------------------------------------------------

def measure_numpy(steps: int, repeat: int) -> dict:
    import numpy as np
    x, t = _data()
    rng = np.random.RandomState(1)
    Ws = [(rng.randn(o, i) * np.sqrt(1.0 / i)).astype(np.float32)
          for i, o in itertools.pairwise(SIZES)]
    bs = [np.zeros(o, np.float32) for o in SIZES[1:]]
    rows = np.arange(BATCH)

    def forward():
        a0 = x
        h1 = a0 @ Ws[0].T
        h1 += bs[0]
        a1 = np.maximum(h1, 0, out=h1)
        h2 = a1 @ Ws[1].T
        h2 += bs[1]
        a2 = np.maximum(h2, 0, out=h2)
        y = a2 @ Ws[2].T
        y += bs[2]
        m = y.max(axis=1, keepdims=True)
        e = np.exp(y - m)
        s = e.sum(axis=1, keepdims=True)
        loss = -(y[rows, t] - m[:, 0] - np.log(s[:, 0])).mean()
        return (a1, a2, e, s), loss

    def backward(cache):
        a1, a2, e, s = cache
        gy = e / s
        gy[rows, t] -= 1
        gy *= np.float32(1.0 / BATCH)
        gW3, gb3 = gy.T @ a2, gy.sum(axis=0)
        ga2 = gy @ Ws[2]
        ga2 *= a2 > 0
        gW2, gb2 = ga2.T @ a1, ga2.sum(axis=0)
        ga1 = ga2 @ Ws[1]
        ga1 *= a1 > 0
        gW1, gb1 = ga1.T @ x, ga1.sum(axis=0)
        return (gW1, gW2, gW3), (gb1, gb2, gb3)

    def update(grads):
        for W, gW in zip(Ws, grads[0]):
            W -= LR * gW
        for b, gb in zip(bs, grads[1]):
            b -= LR * gb

    def step():
        cache, _ = forward()
        update(backward(cache))

    def phases():
        t0 = time.perf_counter()
        cache, _ = forward()
        t1 = time.perf_counter()
        grads = backward(cache)
        t2 = time.perf_counter()
        update(grads)
        t3 = time.perf_counter()
        return [('forward', t1 - t0), ('backward', t2 - t1), ('update', t3 - t2)]

    return {**_best_per_step(step, steps, repeat), **_split(phases, steps, repeat)}


# ---- Chainer-style frameworks ---------------------------------------------------------------

def build_chainer_like(chainer, L, F, O):  # noqa: E741 - Chainer's customary names
    x, t = _data()

    class MLP(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(SIZES[0], SIZES[1])
                self.l2 = L.Linear(SIZES[1], SIZES[2])
                self.l3 = L.Linear(SIZES[2], SIZES[3])

        def forward(self, x):
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    model = MLP()
    opt = O.SGD(lr=LR).setup(model)

    def lossfun():
        return F.softmax_cross_entropy(model(x), t)

    def step():
        opt.update(lossfun)

    def phases():
        t0 = time.perf_counter()
        loss = lossfun()
        t1 = time.perf_counter()
        model.cleargrads()
        loss.backward()
        t2 = time.perf_counter()
        opt.update()
        t3 = time.perf_counter()
        return [('forward', t1 - t0), ('backward', t2 - t1), ('update', t3 - t2)]

    return step, phases


def measure_chainer_like(chainer, L, F, O, steps: int, repeat: int) -> dict:  # noqa: E741
    step, phases = build_chainer_like(chainer, L, F, O)
    return {**_best_per_step(step, steps, repeat), **_split(phases, steps, repeat)}


def measure_torch(steps: int, repeat: int) -> dict:
    import torch
    pin_torch_threads()
    x, t = _data()
    x, t = torch.from_numpy(x), torch.from_numpy(t).long()
    layers = []
    for i, (n_in, n_out) in enumerate(itertools.pairwise(SIZES)):
        layers.append(torch.nn.Linear(n_in, n_out))
        if i < len(SIZES) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    lossfun = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        lossfun(model(x), t).backward()
        opt.step()

    return _best_per_step(step, steps, repeat)


def child(framework: str, steps: int, repeat: int) -> dict:
    if framework == 'numpy':
        return measure_numpy(steps, repeat)
    if framework == 'torch':
        return measure_torch(steps, repeat)
    if framework == 'chainer':
        import chainer
        import chainer.functions as F
        import chainer.links as L
        import chainer.optimizers as O
    else:
        import autograd_lab as chainer
        import autograd_lab.functions as F
        import autograd_lab.links as L
        import autograd_lab.optimizers as O
    return measure_chainer_like(chainer, L, F, O, steps, repeat)


def profile(steps: int) -> None:
    """cProfile of autograd_lab's steps, in this process (pin BLAS threads yourself)."""
    import cProfile
    import pstats

    sys.path.insert(0, str(ROOT))
    import autograd_lab as chainer
    import autograd_lab.functions as F
    import autograd_lab.links as L
    import autograd_lab.optimizers as O
    step, _ = build_chainer_like(chainer, L, F, O)
    for _ in range(3):
        step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        step()
    prof.disable()
    stats = pstats.Stats(prof).sort_stats('tottime')
    stats.print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=20)
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--profile', action='store_true')
    parser.add_argument('--child')
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.steps, args.repeat)))
        return
    if args.profile:
        missing = [f'{k}={v}' for k, v in ONE_THREAD.items() if os.environ.get(k) != v]
        if missing:
            print(f"note: run with {' '.join(missing)} for single-threaded BLAS", file=sys.stderr)
        profile(args.steps)
        return
    common = ('--steps', str(args.steps), '--repeat', str(args.repeat))
    results = {'numpy': run_floor(*common)}
    for fw in FRAMEWORKS[1:]:
        results[fw] = run_child(__file__, fw, *common)
    print_table(results, args)


def run_floor(*args: str) -> dict | None:
    """The NumPy floor, in a child of this interpreter pinned like the others."""
    env = {**os.environ, **ONE_THREAD, 'PYTHONPATH': str(ROOT)}
    out = subprocess.run([sys.executable, __file__, '--child', 'numpy', *args], env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f'numpy: failed\n{out.stderr[-2000:]}', file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_table(results: dict, args: argparse.Namespace) -> None:
    n = args.steps * args.repeat
    print(f'One SGD step, MLP {"-".join(map(str, SIZES))} ReLU, batch {BATCH}, float32, '
          f'1 thread (ms/step: fastest and median of {n} timed steps; phases: fastest)')
    floor = results.get('numpy')
    print(f"{'':14}{'step':>9}{'vs numpy':>10}{'median':>9}{'vs numpy':>10}"
          f"{'forward':>9}{'backward':>9}{'update':>9}")
    for fw, row in results.items():
        if row is None:
            print(f'{fw:14}  not installed (bash benchmarks/setup_peers.sh)')
            continue
        cells = [f"{row['step'] * 1e3:>9.2f}",
                 f"{row['step'] / floor['step']:>9.2f}x" if floor else f"{'-':>10}",
                 f"{row['median'] * 1e3:>9.2f}",
                 f"{row['median'] / floor['median']:>9.2f}x" if floor else f"{'-':>10}"]
        cells += [f"{row[k] * 1e3:>9.2f}" if k in row else f"{'':>9}"
                  for k in ('forward', 'backward', 'update')]
        print(f"{fw:14}{''.join(cells)}")
    print('(numpy: hand-written forward/backward/update, the floor; target for autograd_lab: '
          'step <= 1.10x)')


if __name__ == '__main__':
    main()
