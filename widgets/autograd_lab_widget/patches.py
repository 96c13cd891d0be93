"""Only what changed crosses to the browser: a step sends the cells it changed.

The kernel's ``nodes`` trait is always the whole truth, and ``nodes_version`` numbers
it; both go to the page together, and only when the page needs them whole (a new
layout: the structure changed; a page that asks).  A redraw whose structure is the
one drawn before sends ``nodes_patch`` instead: ``{'version', 'base', 'cells'}``, the
nodes whose cells changed since version ``base``.  Every redraw makes a new version,
so every message of the view says which drawing it belongs to.

The page (``widgets/js/src/cells.js``) applies a patch only onto the version it was
made from.  When one is missing (a lost message) or came after a newer one (out of
order), it hides the numbers it has and sends ``resync``; the kernel answers with
every drawing trait whole, under a new version (:func:`resend`).

>>> p = Patches()
>>> p.next('k', {'n1': {'text': {'data': '1'}}, 'n2': {'text': {'data': '2'}}})   # first: whole
>>> p.next('k', {'n1': {'text': {'data': '1'}}, 'n2': {'text': {'data': '3'}}})
{'version': 2, 'base': 1, 'cells': {'n2': {'text': {'data': '3'}}}}
>>> p.next('k2', {'n1': {'text': {'data': '1'}}}) is None   # the structure changed
True
"""

from __future__ import annotations

from typing import Any

#: The traits of one drawing, sent whole when the page asks (``resync``).
DRAWING_TRAITS = ('dot', 'structure_key', 'nodes', 'nodes_version', 'nodes_patch', 'centre',
                  'focus', 'status', 'ledger', 'panel', 'options', 'orders', 'position',
                  'selected_id')


class Patches:
    """The version of a view's cells and what it last drew (to diff the next against)."""

    def __init__(self) -> None:
        self.version = 0
        self._key: str | None = None
        self._nodes: dict | None = None

    def next(self, key: str, nodes: dict) -> dict | None:
        """A new version for the cells ``nodes`` of structure ``key``: the patch from
        the previous version to it, or None when it must go whole (nothing drawn
        before, or another structure: other nodes, another layout)."""
        self.version += 1
        old, same = self._nodes, key == self._key
        self._key, self._nodes = key, nodes
        if old is None or not same or old.keys() != nodes.keys():
            return None
        cells = {ident: info for ident, info in nodes.items() if old[ident] != info}
        return {'version': self.version, 'base': self.version - 1, 'cells': cells}


def write(view: Any, key: str, nodes: dict) -> None:
    """Set ``view``'s cells to ``nodes`` (inside its ``hold_sync``; ``key``: the layout
    drawn, structure key and DOT): the whole of them go to the page when the layout
    changed, else only the patch."""
    patch = view._patches.next(key, nodes)
    version = view._patches.version
    view.nodes = nodes
    view.nodes_version = version
    view.nodes_patch = patch or {'version': version, 'base': version, 'cells': {}}
    if patch is not None:  # the kernel's traits stay true; the wire carries the patch
        view._states_to_send.difference_update(('nodes', 'nodes_version'))
    else:  # whole, even where equal to the last whole sent (the page may hold patches)
        view._states_to_send.update(('nodes', 'nodes_version'))


def resend(view: Any) -> None:
    """The page missed a patch or got one out of order: every drawing trait goes whole,
    under a new version (so that the page can tell this answer from what it has)."""
    with view._lock:
        version = view._patches.version = view._patches.version + 1
        with view.hold_sync():
            view.nodes_version = version
            view.nodes_patch = {'version': version, 'base': version, 'cells': {}}
        view.send_state(list(DRAWING_TRAITS))
