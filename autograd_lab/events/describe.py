"""A graph that already exists, told as the events that would have built it.

:func:`describe` walks back from some output Variables and returns, in an order a
replay accepts, one :class:`~autograd_lab.events.VariableCreated` per variable node
and one :class:`~autograd_lab.events.FunctionApplied` per function node, followed by
what is true of them now: a gradient (``GradSet``), an array kept for backward
(``DataRetained``), a cut (``Unchained``), a Variable gone (``VariableCollected``).
Replaying it (:meth:`autograd_lab.graph.GraphModel.from_outputs`) gives the same graph
state a recording would have given, so observers need only one way of building it.

Ids are the engine's stable ids; nodes that never had one are named here in
topological order (a variable before its consumers).  The events carry no ``seq``
(they were not delivered) and no ``scope`` (a graph does not remember which Link
made it).

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array(3.0), name='x')
>>> y = x * x
>>> [e.kind for e in describe([y])]
['variable_created', 'data_retained', 'variable_created', 'function_applied']
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from autograd_lab.events.log import snapshot
from autograd_lab.events.groups import _is_parameter, device_name
from autograd_lab.events.recorders import uid
from autograd_lab.events.types import (
    DataRetained, Event, FunctionApplied, GradSet, Unchained, VariableCollected,
    VariableCreated,
)


def describe(outputs: Sequence[Any], *, include_grad_graph: bool = True) -> list[Event]:
    """The events that would have built the graph behind ``outputs`` (Variables) as it is.

    With ``include_grad_graph`` the walk also follows each live variable's gradient
    when it has a graph of its own (made under ``enable_double_backprop``); a function
    reached through k such gradient links is described as applied in the backward of
    one reached through k - 1 (``in_backward_of``), so replays give it ``order`` k.
    """
    funcs, nodes = _walk(outputs, include_grad_graph)
    fresh = [o for o in (*nodes, *funcs) if o._uid is None]  # never named: name them now
    fresh.sort(key=lambda o: 2 * o.rank + (1 if o in funcs else 0))
    for o in fresh:
        uid(o)
    described: list[Event] = []
    for node in sorted(nodes, key=uid):
        described += _variable_events(node)
    first_of_level: dict[int, int] = {}
    for func in sorted(funcs, key=lambda f: (funcs[f], uid(f))):
        level = funcs[func]
        first_of_level.setdefault(level, uid(func))
        described += _function_events(func, first_of_level.get(level - 1), nodes)
    return described


def _walk(outputs: Sequence[Any], include_grad_graph: bool) -> tuple[dict, dict]:
    """Function nodes and variable nodes reachable from ``outputs``, each with the fewest
    gradient links on a path to it (a 0-1 breadth-first walk: creator and input steps
    cost 0, a gradient link costs 1)."""
    queue: collections.deque = collections.deque()
    for out in outputs:
        node = getattr(out, 'node', None)
        if node is None or not hasattr(node, 'creator_node'):
            raise TypeError(f'describe expects Variables, got {type(out).__name__}')
        queue.append((node, 0, False))
    funcs: dict[Any, int] = {}
    nodes: dict[Any, int] = {}
    while queue:
        obj, level, is_func = queue.popleft()
        seen = funcs if is_func else nodes
        if obj in seen and seen[obj] <= level:
            continue
        seen[obj] = level
        if is_func:
            for node in obj.inputs or ():
                queue.appendleft((node, level, False))
            for ref in obj.outputs or ():  # siblings of the output we came from
                if ref() is not None:
                    queue.appendleft((ref(), level, False))
            continue
        if obj.creator_node is not None:
            queue.appendleft((obj.creator_node, level, True))
        var = obj.get_variable_or_none()
        # The stored grad Variable, not ``grad_var``: that would make (and announce) one.
        grad_var = var._grad_var if var is not None else None
        if include_grad_graph and grad_var is not None and \
                grad_var._node.creator_node is not None:
            queue.append((grad_var._node, level + 1, False))
    return funcs, nodes


def _variable_events(node: Any) -> list[Event]:
    ident = uid(node)
    var = node.get_variable_or_none()
    creator = node.creator_node
    if var is None:
        array = grad = None
        is_parameter = False
    else:
        array = var._data
        grad = var._grad if var._grad_var is None else var._grad_var._data
        is_parameter = _is_parameter(type(var))
    events: list[Event] = [VariableCreated(
        var_id=ident, name=node.name, shape=None if node.shape is None else tuple(node.shape),
        dtype=None if node.dtype is None else str(node.dtype),
        device=device_name(array if var is not None else node.data),
        requires_grad=node.requires_grad, is_parameter=is_parameter,
        creator_id=None if creator is None else uid(creator),
        data=snapshot(array if var is not None else node.data), rank=node.rank)]
    if grad is not None:
        events.append(GradSet(var_id=ident, grad=snapshot(grad)))
    if node.data is not None:
        events.append(DataRetained(var_id=ident))
    if creator is None and node.rank > 0:  # made by a function, since cut from it
        events.append(Unchained(root_id=ident, backward=False, var_ids=(ident,)))
    if var is None:
        events.append(VariableCollected(var_id=ident))
    return events


def _function_events(func: Any, parent: int | None, nodes: dict) -> list[Event]:
    ident = uid(func)
    outputs = [ref() for ref in func.outputs or ()]
    events: list[Event] = [FunctionApplied(
        func_id=ident, type=type(func).__name__, label=str(func.label), rank=func.rank,
        input_ids=tuple([uid(n) for n in func.inputs or ()]),
        output_ids=tuple([uid(n) for n in outputs if n is not None and n in nodes]),
        in_backward_of=parent)]
    if func.inputs is None:  # unchained after it was reached
        events.append(Unchained(root_id=ident, backward=True, func_ids=(ident,)))
    return events
