"""Where a view is shown: a cell's output (the live widget and its static picture), or a
JupyterLab side panel.

The picture (:mod:`~autograd_lab_widget.present.picture`) is a second output: notebook
viewers that run no widget code, or give the widget view precedence over any other
representation of the same output (nbconvert's HTML, nbviewer, Jupyter Book), show it.
Where the widget draws, it hides the picture (they share ``static_key``), so the graph
is never shown twice.
"""

from __future__ import annotations

import logging
from typing import Any

from autograd_lab_widget import hosts, lifetime

logger = logging.getLogger('autograd_lab_widget')

#: What a text-only front end shows for the live widget.
LIVE_TEXT = 'GraphView: the live graph (it needs a running kernel); a static picture follows.'


def show(view: Any, live: Any) -> None:
    """Display ``view`` in the running cell: ``live``, the widget's mime bundle (None when
    there is no kernel connection to draw it), then the static picture of the graph."""
    from IPython.display import display  # noqa: PLC0415 - only in IPython

    if live:  # (data, metadata): anywidget's metadata turns on Colab's widget manager
        data, metadata = live if isinstance(live, tuple) else (live, {})
        display({**data, 'text/plain': LIVE_TEXT}, metadata=metadata, raw=True)
        lifetime.shown(view)  # closed once no cell shows it (see lifetime)
    try:
        still = view._picture(view.static_key if live else '')
    except Exception as error:  # the live view matters more than its saved copy
        logger.warning('no static picture of the graph: %s', error)
        return
    display(still.mimebundle(), raw=True)


def dock(view: Any, title: str, anchor: str) -> Any:
    """Show ``view`` in a JupyterLab side panel (see ``GraphView.dock``); the Sidecar."""
    hosts.check_dock()
    try:
        from sidecar import Sidecar  # noqa: PLC0415 - optional
    except ImportError as error:
        raise RuntimeError('docking needs the sidecar package: pip install sidecar '
                           '(included in autograd-lab[notebook])') from error
    from IPython.display import display  # noqa: PLC0415

    side = Sidecar(title=title, anchor=anchor)
    with side:
        display(view)
    return side
