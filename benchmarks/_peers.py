"""Run one benchmark body under autograd_lab, Chainer 7.8.1 and PyTorch, side by side.

Each framework runs in its own interpreter (Chainer needs NumPy < 2, so it lives in
``.venvs/chainer``; PyTorch in ``.venvs/torch``; ``bash benchmarks/setup_peers.sh``
builds both).  Every child is pinned to one BLAS/OpenMP thread and prints one JSON
object; the parent collects them into one table, so all figures come from the same run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ONE_THREAD = {name: '1' for name in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'OPENBLAS_NUM_THREADS',
                                     'NUMEXPR_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS')}
FRAMEWORKS = ('autograd_lab', 'chainer', 'torch')


def interpreter(framework: str) -> str | None:
    """The Python that has ``framework``, or None when its side venv is missing."""
    if framework == 'autograd_lab':
        return sys.executable
    python = ROOT / '.venvs' / framework / 'bin' / 'python'
    return str(python) if python.exists() else None


def run_child(script: str, framework: str, *args: str) -> dict | None:
    """Run ``script --child FRAMEWORK ARGS`` pinned to one thread; return its JSON (or None)."""
    python = interpreter(framework)
    if python is None:
        return None
    env = {**os.environ, **ONE_THREAD, 'PYTHONPATH': str(ROOT)}
    out = subprocess.run([python, script, '--child', framework, *args], env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f'{framework}: failed\n{out.stderr[-2000:]}', file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def pin_torch_threads() -> None:
    import torch
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
