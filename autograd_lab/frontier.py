"""The frontier of backward: the functions waiting to run, highest rank first.

Chainer's backward takes functions off a max-heap keyed by rank: every function that
used a variable has a higher rank than the one that made it, so by the time a function
is taken every gradient of its outputs has arrived.  :class:`Frontier` is that heap;
:func:`nodes_between` is the part of the graph a backward for :func:`autograd_lab.grad`
visits.
"""

from __future__ import annotations

import bisect
import heapq
import operator
from collections.abc import Sequence
from typing import Any


class Frontier(list):
    """The functions waiting to run backward: highest rank first, and among equal ranks
    the first to arrive.  The list itself is a binary heap of ``(-rank, arrival,
    function)`` entries (``len`` says how many wait); each function enters once.

    :meth:`head` gives the first few in order without sorting the whole heap (observers
    list them at every step, and double backprop keeps hundreds waiting): the smallest
    entries are kept sorted between calls, every entry not kept being larger than the
    last kept one.  :meth:`take` takes the first, :meth:`push` adds one to them only if
    it is smaller than the last (or all are kept), and they are refilled when short.

    >>> import numpy as np, autograd_lab as chainer
    >>> x = chainer.Variable(np.array(1.0))
    >>> a, b = x * 2, x * 3
    >>> c = a * b
    >>> frontier = Frontier()
    >>> for f in (a.creator, c.creator, b.creator, a.creator):
    ...     frontier.push(f)
    >>> [f.label for f in frontier.head(3)], len(frontier)
    (['_ * _', '_ * 2', '_ * 3'], 3)
    >>> frontier.take().label, len(frontier)
    ('_ * _', 2)
    """

    __slots__ = ('_arrived', '_kept', '_keep')

    def __init__(self) -> None:
        super().__init__()
        self._arrived: set = set()
        self._kept: list | None = None  # the smallest entries, sorted (None: not kept)
        self._keep = 0

    def push(self, func: Any) -> None:
        """Let ``func`` wait, unless it is None or has waited before."""
        if func is None or func in self._arrived:
            return
        self._arrived.add(func)
        entry = (-func.rank, len(self._arrived), func)
        heapq.heappush(self, entry)
        kept = self._kept
        if kept is not None and (len(kept) == len(self) - 1 or entry < kept[-1]):
            bisect.insort(kept, entry)
            if len(kept) > self._keep:
                del kept[-1]

    def take(self) -> Any:
        """Take the first waiting function."""
        entry = heapq.heappop(self)
        kept = self._kept
        if kept is not None:  # the heap's smallest entry is the first kept one
            if kept and kept[0] is entry:
                del kept[0]
            else:
                self._kept = None
        return entry[2]

    def head(self, k: int) -> list:
        """The first ``k`` waiting functions, in order."""
        kept = self._kept
        if kept is None or (len(kept) < k and len(kept) < len(self)):
            self._keep = 2 * k
            kept = self._kept = _smallest(self, self._keep)
        return list(map(_function_of, kept[:k]))

    def ordered(self) -> list:
        """Every waiting function, in the order they will run."""
        return [entry[2] for entry in sorted(self)]

    def ties(self, func: Any) -> int:
        """How many other waiting functions have ``func``'s rank."""
        return sum(1 for entry in self if entry[0] == -func.rank) - 1

    def clear(self) -> None:
        super().clear()
        self._kept = None


_function_of = operator.itemgetter(2)  # an entry's function


def _smallest(heap: list, k: int) -> list:
    """The ``k`` smallest entries of a binary heap, in order, in O(k log k)."""
    if len(heap) <= k:
        return sorted(heap)
    out: list = []
    candidates = [(heap[0], 0)]  # entries whose parents are already out, by heap position
    while len(out) < k:
        entry, i = heapq.heappop(candidates)
        out.append(entry)
        for child in (2 * i + 1, 2 * i + 2):
            if child < len(heap):
                heapq.heappush(candidates, (heap[child], child))
    return out


def nodes_between(outputs: Sequence[Any], input_nodes: Sequence[Any]) -> set:
    """VariableNodes that lie on a path from an input node to an output Variable: the part
    of the graph :func:`autograd_lab.grad` computes gradients for."""
    funcs = []
    seen = set()
    stack = [y._node._creator_node for y in outputs]
    while stack:
        func = stack.pop()
        if func is None or func in seen or func.inputs is None:
            continue
        seen.add(func)
        funcs.append(func)
        stack.extend(x._creator_node for x in func.inputs)
    required = set(input_nodes)
    funcs.sort(key=lambda f: f.rank)
    for func in funcs:
        if any(x in required for x in func.inputs):
            for ref in func.outputs:
                node = ref()
                if node is not None:
                    required.add(node)
    return required
