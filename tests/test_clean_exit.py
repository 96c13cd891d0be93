"""A plain Python script that made graph views exits cleanly: no traceback, nothing on stderr.

Each script runs in a fresh interpreter.  The hard cases are the ones interpreter
shutdown meets: views never closed, views only a reference cycle keeps (collected by the
last garbage collection, after ``sys.meta_path`` is gone, where any import fails),
variables collected while views still follow the engine, recordings left open, and a
kernel-side model without a widget.  Before the fix a view in a cycle printed a
20-line ``Widget.__del__`` -> ``close`` -> ``refresh`` -> ``ImportError`` traceback.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

PRELUDE = '''\
import numpy as np
import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events
from autograd_lab_widget import GraphView
x = chainer.Variable(np.array(5.0, np.float32), name='x')
a = F.tanh(x)          # intermediates: collected at exit while views follow the engine
b = a * 3
y = b * b - 2 * x + 1
'''

SCRIPTS = {
    'a view': '''
        view = GraphView(y)
        view.step()
        print(view.status['step'])
    ''',
    'a view that records': '''
        from autograd_lab_widget import record_values
        record_values(True)                     # the session log of values
        with events.recording() as log:
            h = F.exp(x) * 2
            h.backward()
        replay = GraphView(events_log=list(log))
        live = GraphView(h, retain_grad=True)
        live.run()
        opened = events.recording().__enter__()  # a recording never closed
        z = live.model.roots[0] * 4
        print(len(log) > 0, replay.status['done'])
    ''',
    'views never closed': '''
        from autograd_lab_widget.session.stepping import StepModel
        views = [GraphView(y) for _ in range(3)]
        views[0].step()
        class Holder:                    # only a reference cycle keeps these: the last
            pass                         # garbage collection of the exit meets them
        holder = Holder()
        holder.me = holder
        holder.views = [GraphView(y * 2), GraphView(b)]
        holder.model = StepModel(a)      # the stepping model alone, following the engine
        holder.views[0].step()
        closed = GraphView(y)
        closed.close()
        late = y * 7                     # an operation on a shown graph: the views follow
        print(len(views))
    ''',
}


@pytest.mark.parametrize('case', list(SCRIPTS))
def test_a_script_with_views_exits_without_a_traceback(tmp_path, case):
    script = tmp_path / 'script.py'
    script.write_text(PRELUDE + textwrap.dedent(SCRIPTS[case]), encoding='utf-8')
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ''
    assert done.stdout.strip()  # the script ran to its end
