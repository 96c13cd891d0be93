"""The IPython extension and the engine/widget layering."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from autograd_lab import events


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    existed = InteractiveShell.initialized()
    sh = InteractiveShell.instance()
    yield sh
    for name in ('x', 'y', 'h', 'v', 'np', 'chainer', 'F'):
        sh.user_ns.pop(name, None)
    if not existed:  # leave no global shell behind for other tests
        InteractiveShell.clear_instance()


def test_load_ext_registers_the_cell_magic(shell):
    shell.run_line_magic('load_ext', 'autograd_lab_widget')
    try:
        assert 'autograd_lab' in shell.magics_manager.magics['cell']
    finally:
        shell.run_line_magic('unload_ext', 'autograd_lab_widget')
    assert 'autograd_lab' not in shell.magics_manager.magics['cell']


def test_the_engine_is_no_extension(shell):
    # The engine never names the widget, so it cannot load it: the widget is the entry.
    assert shell.extension_manager.load_extension('autograd_lab') == 'no load function'
    assert 'autograd_lab' not in shell.magics_manager.magics['cell']


def test_cell_magic_records_the_cell_and_shows_its_graph(shell):
    from autograd_lab_widget import GraphView

    shell.run_line_magic('load_ext', 'autograd_lab_widget')
    try:
        cell = textwrap.dedent("""
            import numpy as np
            import autograd_lab as chainer
            x = chainer.Variable(np.array(3.0), name='x')
            h = x ** 2 - 2 * x
            y = h + 1
        """)
        view = shell.run_cell_magic('autograd_lab', 'v', cell)
        try:
            assert isinstance(view, GraphView) and shell.user_ns['v'] is view
            x, y = shell.user_ns['x'], shell.user_ns['y']
            assert view.model.roots[0] is y  # stepping starts at the cell's output
            kinds = [e.kind for e in view.model.event_log()]
            assert kinds.count('function_applied') == 4
            assert {events.uid(x), events.uid(y)} <= set(view.model.live.model.nodes)
            # every value the cell computed is on the nodes, recorded as it ran
            values = sorted(v['text']['data'] for v in view.nodes.values() if 'data' in v['text'])
            assert values == sorted(['3.0', '9.0', '6.0', '3.0', '4.0'])
            view.run()
            assert x.grad == 4.0
            # time travel reaches back into the cell: the empty graph before it ran
            while view.back():
                pass
            assert view.position == 0 and view.nodes == {}
        finally:
            view.close()
    finally:
        shell.run_line_magic('unload_ext', 'autograd_lab_widget')


def test_cell_magic_rejects_a_bad_name(shell):
    shell.run_line_magic('load_ext', 'autograd_lab_widget')
    try:
        with pytest.raises(ValueError, match='variable name'):
            shell.run_cell_magic('autograd_lab', 'not a name', 'pass')
    finally:
        shell.run_line_magic('unload_ext', 'autograd_lab_widget')


def test_engine_never_imports_the_widget():
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import autograd_lab as chainer
        x = chainer.Variable(np.array(3.0))
        y = x ** 2 - 2 * x + 1
        y.backward()
        from autograd_lab import graph, events
        graph.to_dot(graph.GraphModel.from_outputs(y))
        assert float(x.grad) == 4.0
        bad = [m for m in sys.modules if m.startswith(('autograd_lab_widget', 'anywidget',
                                                      'ipywidgets'))]
        print('IMPORTED', bad)
    """)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert 'IMPORTED []' in out.stdout
