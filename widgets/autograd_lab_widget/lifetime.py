"""Views nobody shows any more are closed.

A notebook cell that shows a view and is run again clears its output: the page no
longer shows the old view, but the kernel would keep it (and its graph, its two widget
connections: the view and its layout) until the kernel stops.  Front ends that say
which cell runs (JupyterLab, Notebook 7: the ``cellId`` of each execute request, which
IPython hands to ``pre_run_cell`` as ``info.cell_id``) let the kernel know: when a cell
runs again, the views its last run showed are no longer on the page; those that the
new run does not show again (``display(v)`` of the same object) are closed when it
ends.  A view shown by several cells stays until none of them shows it.

Without a cell id (a console, a script, marimo, which closes widgets itself) nothing
is closed here; :data:`MAX_LIVE_VIEWS` still bounds the views following the engine: the
oldest beyond it are detached (they stop following it and let go of their graphs).

A view no page shows is not held by the kernel either (:func:`release`): ipywidgets keeps
every widget in its registry, and its connection's message handler keeps it too, so that
views made in a loop (``for ...: GraphView(y)``, none displayed) would all live, and all
follow the engine, until the kernel stops.  Until it is displayed or a page writes to it,
a view is out of that registry and its connection holds it weakly: once the user drops it
too, it is collected and stops following the engine.  Displaying it, or any message from
a page (the ``hello`` each page drawing a view sends first), holds it again (:func:`hold`).
"""

from __future__ import annotations

import logging
import sys
import weakref
from typing import Any

import ipywidgets

from autograd_lab_widget import hosts

logger = logging.getLogger('autograd_lab_widget')

#: cell id -> the views its latest run showed
_shown: dict[str, list[weakref.ref]] = {}
#: views whose cell runs again: closed at the end of that run unless shown again
_leaving: list[weakref.ref] = []
_running: list[str | None] = [None]  # the cell running now
_hooked: list[Any] = []  # the shell whose events we listen to

#: Views following the engine at once; older ones are detached (see GraphView.detach).
MAX_LIVE_VIEWS = 32
_live_views: list[weakref.ref] = []


def following(view: Any) -> None:
    """``view`` was just made: it follows the engine, and the oldest views beyond
    :data:`MAX_LIVE_VIEWS` stop following it.  No page shows it yet: see :func:`release`."""
    release(view)
    _live_views[:] = [r for r in _live_views if r() is not None and r().model.following]
    _live_views.append(weakref.ref(view))
    while len(_live_views) > MAX_LIVE_VIEWS:
        old = _live_views.pop(0)()
        if old is not None:
            old.detach()


def live_views() -> list[Any]:
    """The views following the engine now, oldest first (a copy: safe to read from another
    thread, unlike ``gc.get_objects()``, which can hand out a tuple another thread is still
    building and make that thread's ``tuple()`` raise SystemError)."""
    views = [r() for r in list(_live_views)]
    return [v for v in views if v is not None and v.model.following]


def release(view: Any) -> None:
    """``view`` was just made and no page shows it yet: out of ipywidgets' registry, and
    its connection calls it through a weak reference (see the module docstring).  In
    marimo, which shows a view without displaying it and closes widgets itself, it
    stays held (and drawn)."""
    comm = getattr(view, 'comm', None)
    if hosts.current() == 'marimo' or comm is None:
        hold(view)
        return
    ipywidgets.widgets.widget._instances.pop(view.model_id, None)
    ref = weakref.ref(view)

    def on_msg(msg: Any) -> None:  # a page writes to the view: it shows it
        target = ref()
        if target is not None:
            hold(target)
            target._handle_msg(msg)

    comm.on_msg(on_msg)


def hold(view: Any) -> None:
    """A page shows ``view`` (displayed, or a message from it): the kernel holds it again,
    and it is drawn if engine events came while it was not shown."""
    redraws = view.__dict__.get('_redraws')
    if redraws is None or redraws.shown:
        return
    redraws.shown = True
    comm = getattr(view, 'comm', None)
    if comm is None:
        return
    ipywidgets.widgets.widget._instances[view.model_id] = view
    comm.on_msg(view._handle_msg)
    if redraws.stale:
        view.refresh()


def detach(view: Any, redraw: bool = True) -> None:
    """``view`` stops following the engine and lets go of its graph; it is drawn once
    more (as detached) unless ``redraw`` is False (it is being closed)."""
    model = getattr(view, '_model', None)
    if model is None:
        return
    model.close()
    # at interpreter exit there is no page to redraw for (and nothing left to import)
    if redraw and getattr(view, 'comm', None) is not None and not sys.is_finalizing():
        try:
            view.refresh()
        except Exception as error:  # e.g. at interpreter exit: nothing left to show
            logger.debug('no redraw after detach: %s', error)


def let_go(view: Any) -> None:
    """A closed ``view``: nothing draws it again, so its history and drawing go."""
    model = getattr(view, '_model', None)
    if model is not None:
        model.release()
        view.dot, view.nodes, view.ledger, view.panel = '', {}, {}, {}
        view._shown = None


def shown(view: Any) -> None:
    """``view`` was just displayed by the cell running now (if a front end named it)."""
    hold(view)
    hook()
    cell = _running[0]
    if cell is None:
        return
    cells = view.__dict__.setdefault('_agl_cells', set())
    if cell not in cells:
        cells.add(cell)
        _shown.setdefault(cell, []).append(weakref.ref(view))


def _pre_run_cell(info: Any) -> None:
    cell = getattr(info, 'cell_id', None)
    _running[0] = cell
    for ref in _shown.pop(cell, []) if cell is not None else []:
        view = ref()
        if view is not None:
            view.__dict__.get('_agl_cells', set()).discard(cell)
            _leaving.append(ref)


def _post_run_cell(_result: Any = None) -> None:
    _running[0] = None
    leaving, _leaving[:] = list(_leaving), []
    for ref in leaving:
        view = ref()
        if view is not None and not view.__dict__.get('_agl_cells') and \
                getattr(view, 'comm', None) is not None:
            view.close()


def hook() -> None:
    """Listen to the IPython shell's cell runs (once; only where IPython runs)."""
    ipython = sys.modules.get('IPython')
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or any(s is shell for s in _hooked):
        return
    shell.events.register('pre_run_cell', _pre_run_cell)
    shell.events.register('post_run_cell', _post_run_cell)
    _hooked.append(shell)
    get_parent = getattr(getattr(shell, 'kernel', None), 'get_parent', None)
    if get_parent is not None:  # hooked while a cell runs: its id from its request
        parent = get_parent('shell') or {}
        _running[0] = parent.get('metadata', {}).get('cellId')
