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

import numbers
import sys
import weakref
from typing import TYPE_CHECKING, Any

from autograd_lab import FunctionNode, Variable, VariableNode, events, graph

if TYPE_CHECKING:
    from autograd_lab_widget.session.stepping import StepModel


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
        raise KeyError(f'variable {ident} is not in the shown graph: pass a variable '
                       'of this view\'s graph (or select one)')
    if backward:
        return {i for i in model.upstream(ident) if model.nodes[i].category == 'function'}
    creator = model.nodes[ident].creator_id
    return {creator} if creator is not None else set()


def lookup(session: StepModel, ident: int) -> Any:
    """The live object of node ``ident`` in ``session``'s graph (a Variable in
    preference), or None: looked up among the objects seen, then the graph walked
    again, then the notebook's variables (for objects made after the view)."""
    index = session.index
    obj = index.get(ident)
    if obj is None:
        index.walk([*session.roots, *index.live_variables()])
        obj = index.get(ident)
    if obj is None:
        index.walk(_namespace_variables())
        obj = index.get(ident)
    return obj


def ident_of(target: Any, takes: str, hint: str = '') -> int:
    """The node id of ``target``: an id (an int), a Variable, a VariableNode or a
    FunctionNode.  Anything else is a TypeError that says what ``takes`` (the method
    and what it takes), what was given, then ``hint``.

    >>> ident_of(3, 'select()'), ident_of(3.5, 'name_of() takes a Variable')
    Traceback (most recent call last):
    ...
    TypeError: name_of() takes a Variable, got the float 3.5
    """
    if isinstance(target, numbers.Integral) and not isinstance(target, bool):
        return int(target)
    if isinstance(target, Variable | VariableNode | FunctionNode):
        return events.uid(target)
    raise TypeError(f'{takes}, got the {type(target).__name__} {target!r:.60}{hint}')


#: What :func:`select` takes, in words.
SELECT_TAKES = ('select() takes a Variable, a FunctionNode, a node id (an int) or the '
                "name drawn on a node ('x', 'f3'), or None to clear")


def select(session: StepModel, target: Any, shown: graph.GraphModel | None = None) -> None:
    """Select a node of ``session`` by id, by name (``'x'``, ``'f3'``, as drawn in
    ``shown``) or by object; None clears.  KeyError for a node not in the graph."""
    if target is None:
        session.selection.clear()
        return
    model = session.live.model
    if isinstance(target, str):
        ident = session.names.find(shown or model, target)
    else:
        ident = ident_of(target, SELECT_TAKES)
    if ident not in model.nodes and (shown is None or ident not in shown.nodes):
        raise KeyError(f'node {ident} is not in the shown graph')
    obj = lookup(session, ident) if isinstance(target, numbers.Integral | str) else target
    session.selection.choose(ident, obj)
    if obj is None:
        session.message = 'That object is gone (collected); showing recorded values.'


def _namespace_variables() -> list:
    """Variables in the IPython user namespace (to find objects made after the view).
    Only where IPython already runs: importing it here would bring traitlets along."""
    ipython = sys.modules.get('IPython')
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return []
    return [v for v in list(shell.user_ns.values()) if isinstance(v, Variable)]
