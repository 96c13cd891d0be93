"""The numeric differential tests once more, with AVX-512 turned off in both builds.

NumPy picks its SIMD kernels at import from the CPU (``__cpu_dispatch__``: AVX-512 ones
on a CPU that has it) and OpenBLAS picks its own; so the differential tests against
Chainer 7.8.1 exercise whichever path this machine's CPU takes.  Here they run again in
a subprocess where ``NPY_DISABLE_CPU_FEATURES`` names every AVX-512 target that each
build can dispatch (asked of that build: NumPy 2.x says ``X86_V4 AVX512_ICL
AVX512_SPR``, Chainer's NumPy 1.26 ``AVX512F ... AVX512_ICL``; a name a build does not
dispatch only earns a warning, a baseline one an error) and ``OPENBLAS_CORETYPE=Haswell``
keeps OpenBLAS on its AVX2 kernels; the child reports what it really had.  With both
paths green, ``build_tolerance``'s rule holds whichever CPU runs CI.  On a CPU without
AVX-512 the suite's own run already is the lowered path, and this test skips saying so.
It adds about 20 s to CI (40 tests and Chainer's runs of the same programs).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import chainer_ref

pytestmark = [pytest.mark.chainer, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent
# The tests that compare numbers with Chainer's (-m chainer picks them in each file); the
# text-only ones (computational_graph's dot files, the hooks' reports) take no SIMD path.
NUMERIC_DIFFERENTIAL = ['test_differential_chainer.py', 'test_functions_nn_chainer.py',
                        'test_functions_math.py', 'test_functions_array.py',
                        'test_serializers.py', 'test_links.py', 'test_optimizers.py',
                        'test_initializers.py']

# Run by each Python: its AVX-512 dispatch targets, and those its CPU turned on.
PROBE = '''
import json
try:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
except ImportError:  # NumPy < 2
    from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
targets = [t for t in __cpu_dispatch__ if t.startswith('AVX512') or t == 'X86_V4']
print(json.dumps({'targets': targets, 'on': [t for t in targets if __cpu_features__.get(t)]}))
'''

CHILD = '''
import json, subprocess, sys
sys.path.insert(0, 'tests')
import chainer_ref
{probe}
mine = {{'targets': targets, 'on': [t for t in targets if __cpu_features__.get(t)]}}
peer = json.loads(subprocess.run([str(chainer_ref.PYTHON), '-c', {probe!r}], check=True,
                                 capture_output=True, text=True,
                                 env=chainer_ref.environment()).stdout)
try:
    from threadpoolctl import threadpool_info
    blas = sorted({{i.get('architecture', '?') for i in threadpool_info()
                   if i.get('internal_api') == 'openblas'}})
except ImportError:  # (scikit-learn, a test extra, brings it)
    blas = None
print('LOWERED ' + json.dumps({{'ours': mine, 'chainer': peer, 'openblas': blas}}), flush=True)
import pytest
sys.exit(pytest.main(sys.argv[1:]))
'''


def probe(python, env=None) -> dict:
    """``{'targets': AVX-512 targets the build dispatches, 'on': those turned on}``."""
    done = subprocess.run([str(python), '-c', PROBE], capture_output=True, text=True,
                          check=True, env=env)
    return json.loads(done.stdout)


@pytest.mark.skipif(not chainer_ref.available, reason='Chainer 7.8.1 venv (.venvs/chainer) '
                    'not found: bash benchmarks/setup_peers.sh chainer')
def test_differential_tests_pass_without_avx512():
    ours, theirs = probe(sys.executable), probe(chainer_ref.PYTHON, chainer_ref.environment({}))
    if not ours['on'] and not theirs['on']:
        pytest.skip('no AVX-512 kernel that NumPy dispatches is on with this CPU: the '
                    "suite's own differential run took the lowered path already")
    env = {**os.environ, 'NPY_DISABLE_CPU_FEATURES': ' '.join(ours['targets']),
           chainer_ref.PEER_FEATURES_OFF: ' '.join(theirs['targets']),
           'OPENBLAS_CORETYPE': 'Haswell'}
    env.pop('PYTHONPATH', None)
    command = [sys.executable, '-c', CHILD.format(probe=PROBE), '-q', '-p', 'no:cacheprovider',
               '-o', 'addopts=', '-m', 'chainer', *('tests/' + f for f in NUMERIC_DIFFERENTIAL)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env,
                          timeout=900, check=False)
    output = done.stdout + done.stderr
    report = json.loads(re.search(r'^LOWERED (.*)$', output, re.MULTILINE).group(1))
    summary = output.strip().splitlines()[-1]
    print(f"AVX-512 off: ours {ours['on']} -> {report['ours']['on']}, Chainer's "
          f"{theirs['on']} -> {report['chainer']['on']}, OpenBLAS {report['openblas']}: "
          f'{summary}')
    assert report['ours']['on'] == [] and report['chainer']['on'] == [], report
    assert report['openblas'] is None or set(report['openblas']) <= {'Haswell'}, report
    assert done.returncode == 0, output[-4000:]
    passed = int(re.search(r'(\d+) passed', summary).group(1))
    assert passed >= 30 and 'failed' not in summary, summary
