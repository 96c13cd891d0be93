"""Where a view opens: the node a caller names with ``GraphView(y, focus=x)``.

``focus`` may be a Variable, a VariableNode or a FunctionNode of the view's graph, the
name drawn on a node (``'x'``, ``'f3'``: names are unique in a drawing, or the view says
which nodes share one), a node id, or None (the view opens on the next function to run).
Anything else is a TypeError; an object or name that is not in the graph a ValueError
that says so.  The browser frames the node at a scale where text is at least 12 px.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab.graph import GraphModel
>>> from autograd_lab_widget.naming import Names
>>> x = chainer.Variable(np.array(2.0), name='x')
>>> y = x * x
>>> model, names = GraphModel.from_outputs([y]), Names()
>>> names.learn(model)
>>> focus_id(x, model, names) == chainer.events.uid(x)
True
>>> focus_id('x', model, names) == focus_id(x.node, model, names)
True
>>> focus_id(chainer.Variable(np.array(1.0)), model, names)
Traceback (most recent call last):
ValueError: focus: the Variable is not in this view's graph (give a node of the graph ...)
>>> focus_id(3.5, model, names)
Traceback (most recent call last):
TypeError: focus takes a Variable, VariableNode or FunctionNode of the graph (or ...), not float
"""

from __future__ import annotations

from typing import Any

from autograd_lab import Variable, events, graph
from autograd_lab.function_node import FunctionNode
from autograd_lab.variable import VariableNode


def focus_id(target: Any, model: graph.GraphModel, names: Any) -> int | None:
    """The id of the node ``target`` names in ``model`` (``names``: the view's
    :class:`~autograd_lab_widget.naming.Names`), or None for None."""
    if target is None:
        return None
    if isinstance(target, str):
        try:
            return names.find(model, target)
        except KeyError as error:
            raise ValueError(f'focus: {error.args[0]}') from None
    if isinstance(target, bool) or not isinstance(target, int | Variable | VariableNode
                                                  | FunctionNode):
        raise TypeError('focus takes a Variable, VariableNode or FunctionNode of the graph '
                        f'(or the name drawn on one), not {type(target).__name__}')
    ident = target if isinstance(target, int) else events.uid(target)
    if ident not in model.nodes:
        what = 'node id' if isinstance(target, int) else type(target).__name__
        raise ValueError(f"focus: the {what} is not in this view's graph (give a node of "
                         'the graph behind the outputs)')
    return ident


def check_focus(view: Any, proposal: Any) -> int | None:
    """The ``focus`` trait's validator: whatever names the node becomes its id."""
    if proposal['value'] is None:
        return None
    model = view._model
    return focus_id(proposal['value'], view._shown or model.live.model, model.names)
