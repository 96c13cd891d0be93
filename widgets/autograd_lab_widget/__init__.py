"""autograd_lab_widget: the live graph widget of autograd_lab (an anywidget).

``GraphView(y)`` shows the graph behind ``y`` and steps through the engine's own
backward; ``%load_ext autograd_lab_widget`` adds the ``%%autograd_lab`` cell magic,
which records a cell and shows its live graph.

In a notebook kernel, importing the package starts a bounded session log of the
engine's events, so that a view made after a computation still shows the values of
the intermediates the engine has freed (:func:`record_values` turns it off).

The kernel-side model, :class:`~autograd_lab_widget.stepping.StepModel`, needs no
widget library: ``import autograd_lab_widget.stepping`` imports neither anywidget nor
ipywidgets nor traitlets (``GraphView`` is imported on first use).

The engine never imports this package; it depends only on the public engine, event
and graph APIs.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget import GraphView
>>> view = GraphView(chainer.Variable(np.array(2.0)) * 3)
>>> view.dot.startswith('digraph')
True
>>> view.close()
"""

from importlib.util import find_spec
from typing import Any

from autograd_lab_widget.magic import load_ipython_extension, unload_ipython_extension
from autograd_lab_widget.recorder import record_values, recording_values, start_in_kernel

# The one extra this package needs, looked up without importing it (the stepping model
# must load no widget library): a missing one is named with the command that installs it.
for _extra in ('anywidget', 'ipywidgets'):
    if find_spec(_extra) is None:
        raise ModuleNotFoundError(
            f'autograd_lab_widget needs {_extra}, which comes with the notebook extra: '
            'pip install "autograd-lab[notebook]"', name=_extra)


__version__ = '0.1.0'
__all__ = ['GraphView', 'WidgetWarning', 'load_ipython_extension', 'record_values',
           'recording_values', 'unload_ipython_extension']

start_in_kernel()  # in a notebook, views made after a computation still show its values


def __getattr__(name: str) -> Any:
    if name in ('GraphView', 'WidgetWarning'):
        from autograd_lab_widget import view  # noqa: PLC0415 - the widget library, on demand

        return getattr(view, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
