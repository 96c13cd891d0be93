"""What the usual slips of a hand-built scalar engine give: a tiny engine of the checker's
own, whose backward can be run the right way or with one slip, so a learner's wrong
gradients can be matched to the slip that makes them (lesson 7, build your own engine).

The slips: ``store`` (``=`` instead of ``+=``: a value used twice keeps one part),
``reset`` (each operation's inputs zeroed before its backward: the same, across operations),
``twice`` (a recursive backward with no visited set: a shared value sends its gradient
once per path), ``preorder`` and ``bfs`` (no topological sort: a value sends its gradient
before every use has sent its part), ``forward`` (the sort not reversed).  What a slip
gives can depend on the order a learner's class keeps a value's inputs in (a list, or a
set), so :func:`slip_results` tries each order.

>>> a, b = Node(2.0), Node(-3.0)
>>> d = a * b + a
>>> y = d * d
>>> right = slip_results(y, [a, b], 'right')
>>> [tuple(map(float, r)) for r in right]
[(16.0, -16.0)]
>>> [tuple(map(float, r)) for r in slip_results(y, [a, b], 'store')]
[(12.0, -8.0)]
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from typing import Any

#: The slips :func:`slip_results` can run.
SLIPS = ('right', 'store', 'reset', 'twice', 'preorder', 'bfs', 'forward')


class Node:
    """A number that remembers the values it was made from and the local derivative
    towards each (only +, * and tanh: the graphs the slips are tried on)."""

    def __init__(self, data: float, parents: tuple = (), local: tuple = ()) -> None:
        self.data, self.parents, self.local, self.grad = float(data), parents, local, 0.0

    @staticmethod
    def _wrap(other: Any) -> Node:
        return other if isinstance(other, Node) else Node(other)

    def __add__(self, other: Any) -> Node:
        other = self._wrap(other)
        return Node(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other: Any) -> Node:
        other = self._wrap(other)
        return Node(self.data * other.data, (self, other), (other.data, self.data))

    __radd__, __rmul__ = __add__, __mul__

    def tanh(self) -> Node:
        t = math.tanh(self.data)
        return Node(t, (self,), (1 - t * t,))


def _inputs(node: Node, unique: bool, flip: bool) -> list[Node]:
    seq = list(node.parents)
    if unique:  # a set of inputs: each once
        seq = list({id(p): p for p in seq}.values())
    return seq[::-1] if flip else seq


def _sorted(root: Node, unique: bool, flip: bool) -> list[Node]:
    order, seen = [], set()

    def visit(node: Node) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        for p in _inputs(node, unique, flip):
            visit(p)
        order.append(node)

    visit(root)
    return order


def _send(node: Node, store: bool = False) -> None:
    for p, local in zip(node.parents, node.local):
        p.grad = node.grad * local if store else p.grad + node.grad * local


def _run(root: Node, slip: str, unique: bool, flip: bool) -> None:
    order = _sorted(root, unique, flip)
    for node in order:
        node.grad = 0.0
    root.grad = 1.0
    if slip in ('right', 'store', 'reset', 'forward'):
        for node in order if slip == 'forward' else order[::-1]:
            if slip == 'reset':
                for p in node.parents:
                    p.grad = 0.0
            _send(node, store=slip == 'store')
    elif slip == 'twice':
        def again(node: Node) -> None:
            _send(node)
            for p in _inputs(node, unique, flip):
                again(p)
        again(root)
    elif slip == 'preorder':
        seen: set = set()

        def once(node: Node) -> None:
            if id(node) in seen:
                return
            seen.add(id(node))
            _send(node)
            for p in _inputs(node, unique, flip):
                once(p)
        once(root)
    else:  # bfs
        queue, seen = deque([root]), {id(root)}
        while queue:
            node = queue.popleft()
            _send(node)
            for p in _inputs(node, unique, flip):
                if id(p) not in seen:
                    seen.add(id(p))
                    queue.append(p)


def slip_results(root: Node, leaves: list[Node], slip: str) -> list[tuple[float, ...]]:
    """The leaves' gradients ``slip`` gives, one tuple per order of the inputs that gives
    a different result."""
    results: list[tuple[float, ...]] = []
    for unique, flip in itertools.product((False, True), repeat=2):
        _run(root, slip, unique, flip)
        got = tuple(leaf.grad for leaf in leaves)
        if not any(all(math.isclose(g, r, rel_tol=1e-9, abs_tol=1e-12)
                       for g, r in zip(got, seen)) for seen in results):
            results.append(got)
    return results
