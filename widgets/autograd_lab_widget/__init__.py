"""autograd_lab_widget: the live graph widget of autograd_lab (an anywidget).

``GraphView(y)`` shows the graph behind ``y`` and steps through the engine's own
backward; ``%load_ext autograd_lab`` (or ``%load_ext autograd_lab_widget``) adds the
``%%autograd_lab`` cell magic, which records a cell and shows its live graph.

The engine never imports this package; it depends only on the public engine, event
and graph APIs.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget import GraphView
>>> view = GraphView(chainer.Variable(np.array(2.0)) * 3)
>>> view.dot.startswith('digraph')
True
>>> view.close()
"""

try:
    import anywidget as _anywidget  # noqa: F401 - the one extra this package needs
except ModuleNotFoundError as missing:
    if missing.name not in ('anywidget', 'ipywidgets'):
        raise
    raise ModuleNotFoundError(
        f'autograd_lab_widget needs {missing.name}, which comes with the notebook extra: '
        'pip install "autograd-lab[notebook]"', name=missing.name) from missing

from autograd_lab_widget.view import GraphView, WidgetWarning
from autograd_lab_widget.magic import load_ipython_extension, unload_ipython_extension

__version__ = '0.1.0'
__all__ = ['GraphView', 'WidgetWarning', 'load_ipython_extension', 'unload_ipython_extension']
