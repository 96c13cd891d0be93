"""What a student picked out: the selected node, and the functions an unchain would cut.

The selection is kept by id (the node outlives its Variable object: a collected
variable stays selectable with its recorded values) and, while it lives, by a weak
reference to the object, so that selecting never keeps a graph alive.

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array(1.0))
>>> picked = Selection()
>>> picked.choose(7, x); picked.obj is x, picked.pinned()
(True, {7})
>>> picked.clear(); picked.id, picked.obj
(None, None)
"""

from __future__ import annotations

import weakref
from typing import Any

from autograd_lab import Variable, graph


class Selection:
    """The selected node's ``id``, its live object (:attr:`obj`), and ``preview``: the
    ids of the functions an unchain of it would cut (drawn as cut until the next
    selection or the unchain itself)."""

    def __init__(self) -> None:
        self.id: int | None = None
        self.preview: set[int] = set()
        self._ref: weakref.ref | None = None

    @property
    def obj(self) -> Any:
        """The live object selected, or None (collected, or nothing selected)."""
        return None if self._ref is None else self._ref()

    def choose(self, ident: int, obj: Any) -> None:
        """Select node ``ident`` (``obj``: its live object, or None); the preview goes."""
        self.id, self.preview = ident, set()
        self._ref = None if obj is None else weakref.ref(obj)

    def clear(self) -> None:
        self.id, self.preview, self._ref = None, set(), None

    def let_go(self) -> None:
        """Keep the selection by id only (a closed view holds no engine object)."""
        self._ref = None

    def pinned(self) -> set[int]:
        """The ids the view keeps however old: the selection and the preview."""
        return self.preview | ({self.id} if self.id is not None else set())


def variable_of(var: Any) -> Variable:
    """The Variable to unchain for ``var`` (a Variable, or a VariableNode)."""
    if var is None:
        raise ValueError('select a variable first (click one, or pass it)')
    if isinstance(var, Variable):
        return var
    getter = getattr(var, 'get_variable', None)
    if getter is None:
        raise TypeError(f'unchain works on a variable, not a {type(var).__name__}')
    return getter()


def cut_by(model: graph.GraphModel, ident: int, backward: bool) -> set[int]:
    """The functions that ``unchain_backward()`` (``backward``) or ``unchain()`` of
    variable ``ident`` cuts."""
    if ident not in model.nodes:
        raise KeyError(f'variable {ident} is not in the shown graph')
    if backward:
        return {i for i in model.upstream(ident) if model.nodes[i].category == 'function'}
    creator = model.nodes[ident].creator_id
    return {creator} if creator is not None else set()
