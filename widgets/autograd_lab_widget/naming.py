"""One name per thing: the short names a view draws on its nodes and uses everywhere else.

A variable is called by its ``name`` when it has one, else ``v<k>``; a function is
``f<k>``.  ``k`` counts the view's own variables (or functions) in the order the view
first met them, so the tutorial graph reads ``x, v2, v3 ...`` and ``f1 ... f4``
however many objects the session made before.  The status line, the step ledger,
the inspect panel and the Python API (``view.run_to('f3')``) all use these names.

A name that two variables of the graph share (every ``Linear`` has a ``W``) is told
apart by its short number: ``W (v7)``.

>>> from autograd_lab import events
>>> from autograd_lab.graph import GraphModel
>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array(3.0), name='x')
>>> y = x ** 2 - 2 * x + 1
>>> names = Names()
>>> model = GraphModel.from_outputs(y)
>>> names.learn(model)
>>> sorted((names.of(model, i), n.label) for i, n in model.nodes.items())
[('f1', '_ ** 2'), ('f2', '_ * 2'), ('f3', '_ - _'), ('f4', '_ + 1'), ('v2', ''), ('v3', ''),
 ('v4', ''), ('v5', ''), ('x', 'x')]
>>> names.find(model, 'f3') == events.uid(y.creator.inputs[0].creator)
True
"""

from __future__ import annotations

import weakref

from autograd_lab import graph


#: Chainer labels not written like an operator, and how the view draws them instead
#: (the engine's ``label`` stays Chainer's).
_DRAWN = {'__neg__': '-_'}


def drawn_label(node: graph.Node) -> str:
    """The operation a view writes for a function node: its label (``_ * _``), or how the
    view writes a label that is not an operator (Chainer's ``__neg__`` is drawn ``-_``).

    >>> from autograd_lab.graph import GraphModel
    >>> from autograd_lab import events
    >>> import numpy as np, autograd_lab as chainer
    >>> y = -chainer.Variable(np.array(3.0))
    >>> y.creator.label, drawn_label(GraphModel.from_outputs(y).nodes[events.uid(y.creator)])
    ('__neg__', '-_')
    """
    text = node.label or node.type
    return _DRAWN.get(text, text)


class Names:
    """Short per-view numbers for the nodes of the graphs a view shows."""

    def __init__(self) -> None:
        self._numbers: dict[int, int] = {}
        self._counts = {'variable': 0, 'function': 0}
        self._table: tuple | None = None  # (the model and its size then, the table)

    def learn(self, model: graph.GraphModel) -> None:
        """Number the nodes of ``model`` the view has not met yet, inputs first."""
        numbers = self._numbers
        if len(numbers) >= len(model.nodes) and all(i in numbers for i in model.nodes):
            return
        nodes = model.nodes
        for ident in _flow_order(model, [i for i in nodes if i not in numbers]):
            category = nodes[ident].category
            self._counts[category] += 1
            numbers[ident] = self._counts[category]

    def forget(self, keep: set) -> None:
        """Drop the numbers of nodes outside ``keep`` (pruned: no view shows them again);
        the counters go on, so a name is never given twice."""
        self._numbers = {i: k for i, k in self._numbers.items() if i in keep}
        self._table = None

    def number(self, ident: int) -> int | None:
        """The short number of node ``ident`` (None if the view never met it)."""
        return self._numbers.get(ident)

    def short(self, model: graph.GraphModel, ident: int) -> str:
        """``v<k>`` or ``f<k>``: the short id, whatever the node's name."""
        node = model.nodes.get(ident)
        prefix = 'f' if node is not None and node.category == 'function' else 'v'
        k = self._numbers.get(ident)
        return f'{prefix}{k}' if k is not None else f'#{ident}'

    def of(self, model: graph.GraphModel, ident: int | None) -> str:
        """The name drawn on node ``ident``: its own name, else its short id."""
        node = model.nodes.get(ident)
        if node is None or node.category == 'function' or not node.name:
            return self.short(model, ident)
        if _shared(model, node.name):
            return f'{node.name} ({self.short(model, ident)})'
        return node.name

    def table(self, model: graph.GraphModel) -> dict[int, str]:
        """``{id: name drawn}`` for every node of ``model``, in one pass (kept while the
        model has not changed: one drawing asks for it several times)."""
        stamp = (model.events_applied, len(model.nodes), len(self._numbers))
        if self._table is not None and self._table[0]() is model and self._table[1] == stamp:
            return self._table[2]
        counts: dict[str, int] = {}
        for n in model.nodes.values():
            if n.category == 'variable' and n.name:
                counts[n.name] = counts.get(n.name, 0) + 1
        out = {}
        for ident, n in model.nodes.items():
            short = self.short(model, ident)
            if n.category == 'function' or not n.name:
                out[ident] = short
            else:
                out[ident] = n.name if counts[n.name] == 1 else f'{n.name} ({short})'
        self._table = (weakref.ref(model), stamp, out)
        return out

    def described(self, model: graph.GraphModel, ident: int | None) -> str:
        """A function as ``f3 (_ - _)``, a variable as its name."""
        node = model.nodes.get(ident)
        if node is not None and node.category == 'function':
            return f'{self.short(model, ident)} ({drawn_label(node)})'
        return self.of(model, ident)

    def find(self, model: graph.GraphModel, name: str) -> int:
        """The id of the node called ``name`` (a short id or a variable's unique name).

        Raises KeyError when no node, or more than one, has that name.
        """
        text = name.strip()
        found = [i for i in model.nodes
                 if text in (self.short(model, i), self.of(model, i))]
        if len(found) != 1:
            shown = ', '.join(sorted(self.of(model, i) for i in model.nodes)[:12])
            why = 'no node' if not found else f'{len(found)} nodes'
            raise KeyError(f'{why} called {name!r} in the shown graph (names: {shown}'
                           f'{", ..." if len(model.nodes) > 12 else ""})')
        return found[0]


def _flow_order(model: graph.GraphModel, new: list[int]) -> list[int]:
    """``new`` in the order Python evaluated them: a depth-first walk that visits a
    function's inputs left to right and lists each node after what it depends on."""
    nodes = model.nodes
    wanted = set(new)
    seen: set[int] = set()
    out = []
    for start in sorted(new, reverse=True):  # from the outputs (the newest nodes) back
        stack: list[tuple[int, bool]] = [(start, False)]
        while stack:
            ident, ready = stack.pop()
            if ready:
                if ident in wanted:
                    out.append(ident)
                continue
            if ident in seen or ident not in nodes:
                continue
            seen.add(ident)
            stack.append((ident, True))
            n = nodes[ident]
            deps = n.input_ids if n.category == 'function' else \
                (() if n.creator_id is None else (n.creator_id,))
            stack.extend((d, False) for d in reversed(deps) if d not in seen)
    return out


def _shared(model: graph.GraphModel, name: str) -> bool:
    seen = 0
    for n in model.nodes.values():
        if n.category == 'variable' and n.name == name:
            seen += 1
            if seen > 1:
                return True
    return False
