"""Which notebook host runs this kernel, for what only some hosts can do (``view.dock()``).

The view draws the same everywhere anywidget runs; only docking into a side panel
needs JupyterLab (the ``sidecar`` extension).  marimo, VS Code and Colab have no such
panel, and there ``sidecar`` would show the host's own "widgets are not supported"
or nothing at all, so :func:`check_dock` says plainly what to do instead.

>>> current() in ('marimo', 'vscode', 'colab', 'jupyter', 'python')
True
"""

from __future__ import annotations

import sys

__all__ = ['DockUnavailable', 'check_dock', 'current']

_INSTEAD = {
    'marimo': ("marimo has no side panels for widgets (sidecar is a JupyterLab extension). "
               "Show the view as the last expression of its own cell (`view`); marimo "
               "keeps it live there, and mo.hstack([view, ...]) puts it beside other output."),
    'vscode': ("VS Code has no side panels for notebook widgets (sidecar is a JupyterLab "
               "extension). Show the view as a cell's output (`view`); the output stays "
               "live while you work in other cells."),
    'colab': ("Colab has no side panels for widgets (sidecar is a JupyterLab extension). "
              "Show the view as a cell's output (`view`); the output stays live while you "
              "work in other cells."),
}


class DockUnavailable(RuntimeError):
    """``view.dock()`` was called where there is no side panel to dock into."""


def current() -> str:
    """The host: ``'marimo'``, ``'vscode'``, ``'colab'``, ``'jupyter'`` (any other
    IPython kernel: JupyterLab, Notebook 7, Voila) or ``'python'`` (no kernel)."""
    marimo = sys.modules.get('marimo')
    if marimo is not None:
        try:
            if marimo.running_in_notebook():
                return 'marimo'
        except Exception:  # an older or partial marimo: it cannot be the host then
            pass
    if 'google.colab' in sys.modules:
        return 'colab'
    ipython = sys.modules.get('IPython')
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, 'kernel', None) is None:
        return 'python'
    # VS Code's Jupyter extension names the notebook in the kernel's namespace (its
    # environment variables are no sign: a JupyterLab started in its terminal has them)
    if '__vsc_ipynb_file__' in shell.user_ns:
        return 'vscode'
    return 'jupyter'


def check_dock() -> None:
    """Raise :class:`DockUnavailable`, saying what to use instead, where the host has no
    side panel for widgets.

    >>> check_dock() is None   # plain Python: sidecar decides (and needs a kernel)
    True
    """
    host = current()
    if host in _INSTEAD:
        raise DockUnavailable(f'view.dock() is not available in {_NAMES[host]}: '
                              f'{_INSTEAD[host]}')


_NAMES = {'marimo': 'marimo', 'vscode': 'VS Code', 'colab': 'Colab'}
