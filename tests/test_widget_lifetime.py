"""Views nobody shows any more are closed (issue 29): a notebook cell that shows a view
and runs again clears its output, and the kernel then closes the old view (both widget
connections: the view and its layout) unless the new run shows it again."""

from __future__ import annotations

import gc
import weakref

import pytest
from ipywidgets.widgets import widget as ipywidget

IPython = pytest.importorskip('IPython')
GraphView = pytest.importorskip('autograd_lab_widget').GraphView


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell
    existed = InteractiveShell.initialized()
    sh = InteractiveShell.instance()
    sh.run_cell('import numpy as np, autograd_lab as chainer\n'
                'from autograd_lab_widget import GraphView, lifetime\n'
                'lifetime.hook()')  # as importing it first in this shell does
    yield sh
    # close every view the shell made, also those only its output history still holds
    # (a console closes nothing on a re-run): a view left open keeps following the engine
    hook = sh.displayhook  # keeps the last three results as _, __ and ___
    made = [*sh.user_ns.values(), *sh.history_manager.output_hist.values(),
            *(getattr(hook, name, None) for name in ('_', '__', '___'))]
    for view in {id(v): v for v in made if isinstance(v, GraphView)}.values():
        view.close()
    sh.history_manager.output_hist.clear()
    if hook.do_full_cache:
        hook.flush()  # drops the displayhook's own references to the results
    for name in ('v', 'w', 'x', '_v', '_', '__', '___'):
        sh.user_ns.pop(name, None)
    if not existed:
        InteractiveShell.clear_instance()


VIEW_CELL = 'x = chainer.Variable(np.array(2.0)); v = GraphView(x * x); v'


def test_rerunning_a_view_cell_closes_the_views_it_showed_before(shell):
    from autograd_lab_widget import bundle
    bundle.holder()  # the kernel's one bundle holder, made by the first view ever shown
    opened = len(ipywidget._instances)
    views, graphs = [], []
    for _ in range(5):
        shell.run_cell(VIEW_CELL, cell_id='cell-1')
        views.append(shell.user_ns['v'])
        graphs.append(weakref.ref(shell.user_ns['x']))
    gc.collect()
    assert [v.comm is not None for v in views] == [False] * 4 + [True]
    assert len(ipywidget._instances) - opened == 2  # the last view and its layout, only
    assert [g() is None for g in graphs] == [True] * 4 + [False]  # their graphs are freed


def test_a_view_shown_again_by_its_cell_stays_open(shell):
    shell.run_cell(VIEW_CELL, cell_id='cell-1')
    view = shell.user_ns['v']
    shell.run_cell('v', cell_id='cell-1')  # the cell shows the same view again
    assert view.comm is not None and view.model.following


def test_a_view_shown_by_two_cells_closes_when_neither_shows_it(shell):
    shell.run_cell(VIEW_CELL, cell_id='cell-1')
    view = shell.user_ns['v']
    shell.run_cell('display(v)', cell_id='cell-2')
    shell.run_cell('1', cell_id='cell-1')
    assert view.comm is not None  # cell 2 still shows it
    shell.run_cell('2', cell_id='cell-2')
    assert view.comm is None and not view.model.following


def test_without_cell_ids_nothing_is_closed(shell):
    shell.run_cell(VIEW_CELL)
    view = shell.user_ns['v']
    shell.run_cell(VIEW_CELL)
    assert view.comm is not None  # a console: only MAX_LIVE_VIEWS bounds what follows
