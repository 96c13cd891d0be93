"""Weak references to the live engine objects of a shown graph, keyed by event uid.

The browser only knows ids; ``view.selected`` must be the live object.  The index
holds weak references only, so showing a graph never keeps it alive.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> x = chainer.Variable(np.array(2.0), name='x')
>>> y = x * 3
>>> index = ObjectIndex()
>>> index.walk([y])
>>> index.get(events.uid(x)) is x, index.get(events.uid(y.creator)) is y.creator
(True, True)
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from autograd_lab import Variable, VariableNode, events


class ObjectIndex:
    """uid -> weak reference of a Variable, VariableNode or FunctionNode."""

    def __init__(self) -> None:
        self._refs: dict[int, weakref.ref] = {}

    def __len__(self) -> int:
        return len(self._refs)

    def add(self, obj: Any) -> int | None:
        """Remember ``obj`` weakly; a Variable replaces its node's entry."""
        if obj is None:
            return None
        ident = events.uid(obj)
        old = self._refs.get(ident)
        if isinstance(obj, VariableNode) and old is not None and old() is not None:
            return ident  # keep the Variable itself when we already have it
        self._refs[ident] = weakref.ref(obj)
        return ident

    def get(self, ident: int) -> Any:
        """The live object for ``ident`` (a Variable in preference to its node), or None."""
        ref = self._refs.get(ident)
        obj = None if ref is None else ref()
        if obj is None:
            self._refs.pop(ident, None)
            return None
        if isinstance(obj, VariableNode):
            var = obj.get_variable_or_none()
            if var is not None:
                self._refs[ident] = weakref.ref(var)
                return var
        return obj

    def live_variables(self) -> list:
        """Every indexed Variable still alive."""
        out = []
        for ident in list(self._refs):
            obj = self.get(ident)
            if isinstance(obj, Variable):
                out.append(obj)
        return out

    def walk(self, roots: Iterable[Any]) -> None:
        """Index everything reachable backward from ``roots``, grad_var graphs included."""
        stack = [r for r in roots if r is not None]
        seen: set[int] = set()
        while stack:
            var = stack.pop()
            node = var.node if isinstance(var, Variable) else var
            if id(node) in seen:
                continue
            seen.add(id(node))
            self.add(var)
            if isinstance(var, Variable) and var.grad_var is not None:
                stack.append(var.grad_var)  # the graph that computed the grad (double backprop)
            func = node.creator_node
            if func is None:
                continue
            self.add(func)
            for inp in func.inputs or ():
                live = inp.get_variable_or_none()
                stack.append(live if live is not None else inp)
            for ref in func.outputs or ():
                out = ref()
                if out is not None and id(out) not in seen:
                    live = out.get_variable_or_none()
                    self.add(live if live is not None else out)
