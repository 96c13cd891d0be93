"""The IPython extension: ``%load_ext autograd_lab_widget`` adds the ``%%autograd_lab`` cell
magic.  (The engine, ``autograd_lab``, is no IPython extension: it never names the widget.)

``%%autograd_lab [name]`` runs the cell while recording the engine's events, then
shows a :class:`~autograd_lab_widget.GraphView` of everything the cell computed; the
view is the cell's result and, with ``name``, also stored as that variable.  Backward
is stepped from the cell's output variable (a one-element variable nothing else in
the cell used, preferring the one created last).
"""

from __future__ import annotations

from typing import Any

from autograd_lab import Variable, events

MAGIC = 'autograd_lab'


def _roots(log: list, namespace: dict) -> list:
    created = {e.var_id for e in log if e.kind == 'variable_created'}
    used = {i for e in log if e.kind == 'function_applied' for i in e.input_ids}
    found = {}
    for value in list(namespace.values()):
        if isinstance(value, Variable):
            ident = events.uid(value)
            if ident in created and ident not in used and value.creator is not None:
                found[ident] = value
    # losses first (one element), then the most recent
    return sorted(found.values(),
                  key=lambda v: (v.array is None or v.array.size != 1, -events.uid(v)))


def record_cell(shell: Any, line: str, cell: str) -> Any:
    """Run ``cell`` in ``shell`` while recording events; return its GraphView."""
    from autograd_lab_widget.view import GraphView  # noqa: PLC0415 - avoid an import cycle

    name = line.strip()
    if name and not name.isidentifier():
        raise ValueError(f'%%autograd_lab takes an optional variable name, got {name!r}')
    with events.recording() as log:
        result = shell.run_cell(cell, store_history=False)
    view = GraphView(_roots(list(log), shell.user_ns), events_log=list(log))
    if name:
        shell.user_ns[name] = view
    if result is not None and not result.success:
        view.model.message = 'The cell raised; the graph shows what ran before the error.'
        view.refresh()
    return view


def load_ipython_extension(ipython: Any) -> None:
    """Register the ``%%autograd_lab`` cell magic (``%load_ext autograd_lab_widget``)."""
    def autograd_lab(line: str, cell: str) -> Any:
        return record_cell(ipython, line, cell)
    autograd_lab.__doc__ = __doc__
    ipython.register_magic_function(autograd_lab, magic_kind='cell', magic_name=MAGIC)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the cell magic again (``%unload_ext``)."""
    ipython.magics_manager.magics['cell'].pop(MAGIC, None)
