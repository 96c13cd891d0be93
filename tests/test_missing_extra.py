"""Without the notebook extra, importing the widget says which command installs it.

The child Python has everything this environment has except the named packages, which
are truly absent from its site-packages (tests/without_modules.py), as on a machine where
only ``pip install autograd-lab`` ran.
"""

from __future__ import annotations

import pytest

from without_modules import run_without


@pytest.mark.parametrize('missing', ['anywidget', 'ipywidgets'])
def test_widget_import_names_the_install_command(missing, tmp_path):
    done = run_without({missing}, 'import autograd_lab_widget', tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (f'ModuleNotFoundError: autograd_lab_widget needs {missing}, which comes '
                    'with the notebook extra: pip install "autograd-lab[notebook]"'), done.stderr


def test_the_engine_needs_no_extra(tmp_path):
    done = run_without({'anywidget', 'ipywidgets', 'jupyterlab', 'ipykernel'},
                       'import numpy as np, autograd_lab as chainer\n'
                       'x = chainer.Variable(np.array(3.0)); (x * x).backward()\n'
                       'print(float(x.grad))', tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == '6.0'
