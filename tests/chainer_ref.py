"""Run a snippet under the real Chainer 7.8.1 (``.venvs/chainer``) and get arrays back.

Differential tests call :func:`run` with code that fills a dict named ``out``
with arrays or numbers; they come back as NumPy arrays through an NPZ archive
(the side venv has NumPy < 2, so pickles are avoided).  Tests using it are marked
``chainer`` and skipped when the venv is absent (``bash benchmarks/setup_peers.sh``).
"""

from __future__ import annotations

import base64
import io
import os
import subprocess
import textwrap
from pathlib import Path

import numpy
import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / '.venvs' / 'chainer' / 'bin' / 'python'

available = PYTHON.exists()
_skip = pytest.mark.skipif(not available, reason='Chainer 7.8.1 venv (.venvs/chainer) not found: '
                           'bash benchmarks/setup_peers.sh chainer')


def requires_chainer(test):
    """Mark ``test`` as a differential test against Chainer (skipped without its venv)."""
    return pytest.mark.chainer(_skip(test))

_PRELUDE = """
import base64, io, sys, warnings
import numpy as np
import chainer
import chainer.functions as F
import chainer.links as L
import chainer.optimizers as O
warnings.simplefilter('ignore')
out = {}
"""

_EPILOGUE = """
buf = io.BytesIO()
np.savez(buf, **{k: np.asarray(v) for k, v in out.items()})
sys.stdout.write(base64.b64encode(buf.getvalue()).decode())
"""


# NumPy 1.26 names its CPU targets otherwise than ours: the run with AVX-512 turned off
# (tests/test_lowered_dispatch.py) gives Chainer's list in this variable.
PEER_FEATURES_OFF = 'AGL_CHAINER_NPY_DISABLE_CPU_FEATURES'


def environment(base=None) -> dict:
    """The environment of a Chainer run: ``base`` (``os.environ``) without PYTHONPATH,
    BLAS on one thread, and ``NPY_DISABLE_CPU_FEATURES`` taken from
    ``AGL_CHAINER_NPY_DISABLE_CPU_FEATURES`` (absent when that is)."""
    env = {**(os.environ if base is None else base), 'OMP_NUM_THREADS': '1',
           'OPENBLAS_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1'}
    env.pop('PYTHONPATH', None)
    env.pop('NPY_DISABLE_CPU_FEATURES', None)
    if env.get(PEER_FEATURES_OFF):
        env['NPY_DISABLE_CPU_FEATURES'] = env[PEER_FEATURES_OFF]
    return env


def run(code: str, timeout: float = 120) -> dict:
    """Execute ``code`` under Chainer; return the ``out`` dict as NumPy arrays."""
    env = environment()
    script = _PRELUDE + textwrap.dedent(code) + _EPILOGUE
    proc = subprocess.run([str(PYTHON), '-c', script], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd='/', check=False)
    if proc.returncode != 0:
        raise RuntimeError(f'Chainer snippet failed:\n{proc.stderr[-3000:]}')
    with numpy.load(io.BytesIO(base64.b64decode(proc.stdout))) as f:
        return {k: f[k] for k in f.files}
