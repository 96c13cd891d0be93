"""autograd_lab_widget: the live graph widget of autograd_lab (an anywidget).

``GraphView(y)`` shows the graph behind ``y`` and steps through the engine's own
backward; ``%load_ext autograd_lab_widget`` adds the ``%%autograd_lab`` cell magic,
which records a cell and shows its live graph.

In a notebook kernel, importing the package starts a bounded session log of the
engine's events, so that a view made after a computation still shows the values of
the intermediates the engine has freed (:func:`record_values` turns it off).

The kernel-side model, :class:`~autograd_lab_widget.session.stepping.StepModel`, needs no
widget library: ``import autograd_lab_widget.session.stepping`` imports neither anywidget nor
ipywidgets nor traitlets (``GraphView`` is imported on first use).

The package's map, lower layers first (each imports only those above it in this list;
``tests/test_layers_widget.py`` checks it):

- leaves, at the top: ``arrays`` (arrays as text), ``naming`` (one name per thing),
  ``expressions`` (a typed guess), ``rules`` (local derivative rules), ``index`` (weak
  references to the shown objects), ``hosts`` (which notebook host runs the kernel),
  ``lens_words`` (the gradient lens's bar, marks and legend);
- ``follow/``: which events a view takes and keeps, and the state it folds them into;
- ``quiz/``: a student's guess, graded and scored;
- ``present/``: what a student sees (drawing, ledger, panel, picture), made from a state;
- ``session/``: stepping the engine's backward, time travel, run to here, reset, selection;
- the widget shell, at the top: ``view`` (``GraphView``: its traits and methods),
  ``arguments`` (its keywords and their values, checked), ``messages`` (what the browser
  may send), ``inbox`` (what it sends, turned into calls on the view), ``redraw`` (when
  engine events redraw a view), ``exports`` (the event log, DOT and replay files),
  ``cell_output`` (a cell's output, a side panel), ``bundle``, ``lifetime`` (closing or
  detaching views nobody needs), ``replay`` and ``magic``.

A new way to look at the graph (a lens) belongs in ``present/``; a new way to move
through a run (a replay) in ``session/``.

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
from autograd_lab_widget.follow.recorder import record_values, recording_values, start_in_kernel

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
