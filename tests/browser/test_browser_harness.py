"""The harness itself: a notebook runs in JupyterLab and the kernel probe reads its state.

If this fails, the widget tests cannot mean anything; if it passes and a widget test fails,
the widget (or that front end) is at fault. Notebook 7 and Voila are exercised by the widget
tests through the same helpers.
"""

from __future__ import annotations

import jupyter_harness as jh

CELLS = ['value = sum(range(10))',
         'print("harness-output", value * 2)']


def test_lab_runs_notebook_and_probe_reads_kernel(page, lab_server, notebook_root):
    nb, probe_dir = jh.write_notebook(notebook_root, 'harness_lab', CELLS)
    probe = jh.Probe(probe_dir)
    jh.open_in_lab(page, lab_server, nb, probe)
    assert probe.eval('value') == 45
    # The page shows the same run: the print output reached the DOM.
    page.get_by_text('harness-output 90').wait_for()
    # A kernel error is reported with its type, not swallowed.
    ok, error = probe.try_eval('undefined_name')
    assert not ok and error.startswith('NameError')

