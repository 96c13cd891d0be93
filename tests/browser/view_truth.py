"""Kernel-side: does every graph view in this kernel state only what the engine holds?

Imported by the lesson walk through the kernel probe (tests/browser is on the kernel's
path).  For each live view: every node drawn belongs to the view's own graph (walked
again from its outputs, no other graph's nodes), and every variable whose Python object
still lives shows a grad exactly when the engine holds one (or one it released, drawn
as recorded and marked freed), with the engine's number where it is a scalar; a leaf
whose Variable is gone is marked gone.
"""

from __future__ import annotations

import math
import re
from typing import Any


def live_views() -> list[Any]:
    # Not gc.get_objects(): this runs on the probe's thread, and a list of every object
    # takes a reference to a tuple the kernel's main thread may be building, which then
    # fails there with "SystemError: bad argument to internal function" (seen once in
    # lesson 13's status after Run to end).
    from autograd_lab_widget import lifetime
    return lifetime.live_views()


def _graph_ids(view: Any) -> set[int]:
    """The view's own graph walked again from its outputs, and what an unchain cut off
    it (drawn on, marked cut: the lesson shows what was cut)."""
    from autograd_lab import graph
    roots = [r for r in view.model.roots if r is not None]
    own = set(graph.GraphModel.from_outputs(roots).nodes) if roots else set()
    shown = view.model.live.model
    for edge in shown.edges:
        if edge.cut and edge.dst in own | {edge.dst for edge in shown.edges if edge.cut}:
            own |= {edge.src, edge.dst} | set(shown.upstream(edge.src))
    return own


def _number(text: str) -> float | None:
    try:
        return float(text.replace('−', '-'))
    except (TypeError, ValueError):
        return None


def check(view: Any) -> list[str]:
    """What ``view`` shows that the engine does not hold ([] when all is true)."""
    from autograd_lab import events
    wrong = []
    # a click the kernel could not act on says so in the status line (inbox.receive)
    if re.match(r'[A-Z]\w*(Error|Exception): ', view.model.message or ''):
        wrong.append(f'the status reads an error: {view.model.message[:200]}')
    drawn = {int(k[1:]): cell for k, cell in view.nodes.items() if k[1:].isdigit()}
    own = _graph_ids(view)
    if own:
        strangers = sorted(set(drawn) - own)
        if strangers:
            wrong.append(f'nodes of another graph drawn: {strangers[:5]}')
    for variable in view.model.graph_variables():
        cell = drawn.get(events.uid(variable))
        if cell is None or 'grad' not in cell.get('text', {}):
            continue
        text = cell['text']['grad']
        held = variable.grad
        shown = text not in ('—', '', None)
        # an intermediate's grad the engine released once used is drawn as recorded,
        # marked (italic, "freed by the engine" in the legend): true, not a held grad
        freed = cell.get('cell', {}).get('grad') == 'freed'
        if held is None and shown and freed:
            continue
        if (held is not None) != shown and 'gone' not in cell.get('class', ''):
            wrong.append(f'{cell["text"].get("name")}: drawn grad {text!r}, engine holds '
                         f'{None if held is None else "a grad"}')
        elif held is not None and getattr(held, 'size', 0) == 1:
            number = _number(text)
            value = float(held.ravel()[0]) if hasattr(held, 'ravel') else float(held)
            if number is not None and not math.isclose(number, value, rel_tol=2e-3,
                                                       abs_tol=1e-6):
                wrong.append(f'{cell["text"].get("name")}: drawn {text}, engine {value}')
    return wrong


def check_all() -> dict[str, list[str]]:
    """Per live view (by its position in :func:`live_views`), what it gets wrong."""
    return {str(k): check(v) for k, v in enumerate(live_views())}
