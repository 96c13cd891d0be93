"""One SGD training step of a 784-512-512-10 ReLU MLP (batch 128, float32).

A step is forward, softmax cross-entropy, backward and the SGD update
(``opt.update(lossfun)`` for the Chainer-style frameworks).  Measured, in the
same run and each in its own single-threaded process (``_peers.py``):

- ``numpy``: a hand-written NumPy forward/backward/update, the floor any
  NumPy-based engine pays for the same arithmetic;
- ``autograd_lab``;
- Chainer 7.8.1 and PyTorch (CPU, one thread) when their side venvs exist.

Printed, in milliseconds per step: the fastest and the median of ``--steps`` x
``--repeat`` individually timed steps after warm-up, with their ratios to the
NumPy floor; for ``numpy`` and the Chainer-style frameworks, the fastest forward
(to the loss), backward and update phases; and the "fixed" cost, the same step
on a tiny 4-4-4-3 MLP (batch 2), i.e. the per-step framework overhead that does
not scale with the arrays.
Target (issue 3): autograd_lab <= 1.10x the NumPy floor (fastest step).
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
TINY = ((4, 4, 4, 3), 2)
LR = 0.01
FRAMEWORKS = ('numpy', 'autograd_lab', 'chainer', 'torch')


def _data(sizes=SIZES, batch=BATCH):
    import numpy as np
    rng = np.random.RandomState(0)
    x = rng.rand(batch, sizes[0]).astype(np.float32)
    t = rng.randint(0, sizes[-1], batch).astype(np.int32)
    return x, t


def _best_per_step(step, n: int) -> dict:
    """Minimum and median of ``n`` individually timed steps.

    The minimum is the figure compared (the least disturbed by other processes on
    a shared machine); the median shows how noisy the run was.
    """
    for _ in range(3):
        step()  # warm-up: allocations, BLAS initialisation, lazy parameter init
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return {'step': times[0], 'median': times[len(times) // 2]}


def _split(phases, n: int) -> dict:
    """Fastest time of each phase; ``phases`` runs one step and returns [(name, seconds)]."""
    for _ in range(3):
        phases()
    best: dict = {}
    for _ in range(n):
        for name, seconds in phases():
            best[name] = min(best.get(name, float('inf')), seconds)
    return best


def measure(build, steps: int, repeat: int) -> dict:
    """The full-size step and its phases, plus the fixed cost (the ``TINY`` step's minimum)."""
    step, phases = build(SIZES, BATCH)
    result = _best_per_step(step, steps * repeat)
    if phases is not None:
        result.update(_split(phases, steps * repeat))
    tiny_step, _ = build(*TINY)
    result['fixed'] = _best_per_step(tiny_step, 10 * steps * repeat)['step']
    return result


def _timed(forward, backward, update):
    """A ``phases`` function timing the three callables (each gets the previous result)."""
    def phases():
        t0 = time.perf_counter()
        out = forward()
        t1 = time.perf_counter()
        out = backward(out)
        t2 = time.perf_counter()
        update(out)
        t3 = time.perf_counter()
        return [('forward', t1 - t0), ('backward', t2 - t1), ('update', t3 - t2)]
    return phases


# ---- the NumPy floor ---------------------------------------------------------------------

def build_numpy(sizes, batch):
    import numpy as np
    x, t = _data(sizes, batch)
    rng = np.random.RandomState(1)
    Ws = [(rng.randn(o, i) * np.sqrt(1.0 / i)).astype(np.float32)
          for i, o in itertools.pairwise(sizes)]
    bs = [np.zeros(o, np.float32) for o in sizes[1:]]
    rows = np.arange(batch)

    def forward():
        h1 = x @ Ws[0].T
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
        return a1, a2, e, s, loss

    def backward(cache):
        a1, a2, e, s, _ = cache
        gy = e / s
        gy[rows, t] -= 1
        gy *= np.float32(1.0 / batch)
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
        update(backward(forward()))

    return step, _timed(forward, backward, update)


# ---- Chainer-style frameworks ---------------------------------------------------------------

def build_chainer_like(chainer, L, F, O, sizes=SIZES, batch=BATCH):  # noqa: E741 - Chainer's names
    x, t = _data(sizes, batch)

    class MLP(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(sizes[0], sizes[1])
                self.l2 = L.Linear(sizes[1], sizes[2])
                self.l3 = L.Linear(sizes[2], sizes[3])

        def forward(self, x):
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    model = MLP()
    opt = O.SGD(lr=LR).setup(model)

    def lossfun():
        return F.softmax_cross_entropy(model(x), t)

    def step():
        opt.update(lossfun)

    def backward(loss):
        model.cleargrads()
        loss.backward()

    return step, _timed(lossfun, backward, lambda _: opt.update())


# ---- PyTorch ----------------------------------------------------------------------------------

def build_torch(sizes, batch):
    import torch
    x, t = _data(sizes, batch)
    x, t = torch.from_numpy(x), torch.from_numpy(t).long()
    layers = []
    for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        layers.append(torch.nn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    lossfun = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        lossfun(model(x), t).backward()
        opt.step()

    return step, None


def child(framework: str, steps: int, repeat: int) -> dict:
    if framework == 'numpy':
        return measure(build_numpy, steps, repeat)
    if framework == 'torch':
        pin_torch_threads()
        return measure(build_torch, steps, repeat)
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
    return measure(lambda sizes, batch: build_chainer_like(chainer, L, F, O, sizes, batch),
                   steps, repeat)


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
    pstats.Stats(prof).sort_stats('tottime').print_stats(25)


def run_floor(*args: str) -> dict | None:
    """The NumPy floor, in a child of this interpreter pinned like the others."""
    env = {**os.environ, **ONE_THREAD, 'PYTHONPATH': str(ROOT)}
    out = subprocess.run([sys.executable, __file__, '--child', 'numpy', *args], env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f'numpy: failed\n{out.stderr[-2000:]}', file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


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


def print_table(results: dict, args: argparse.Namespace) -> None:
    n = args.steps * args.repeat
    print(f'One SGD step, MLP {"-".join(map(str, SIZES))} ReLU, batch {BATCH}, float32, '
          f'1 thread (ms/step: fastest and median of {n} timed steps; phases: fastest)')
    floor = results.get('numpy')
    print(f"{'':14}{'step':>9}{'vs numpy':>10}{'median':>9}{'vs numpy':>10}"
          f"{'forward':>9}{'backward':>9}{'update':>9}{'fixed us':>10}")
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
        cells.append(f"{row['fixed'] * 1e6:>10.0f}")
        print(f"{fw:14}{''.join(cells)}")
    sizes, batch = TINY
    print('(numpy: hand-written forward/backward/update, the floor; target for autograd_lab: '
          'step <= 1.10x)\n'
          f'(fixed us: the same step on a {"-".join(map(str, sizes))} MLP, batch {batch}: '
          'per-step overhead that does not scale with the arrays)')


if __name__ == '__main__':
    main()
