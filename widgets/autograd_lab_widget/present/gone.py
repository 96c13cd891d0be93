"""Leaves whose Variable is gone: the code that built the graph kept no reference to them.

The engine keeps a gradient only on a Variable object that is alive; a leaf made inside
a function that returned only its output (``def f(): x = Variable(...); return x * x``)
is collected, and backward rightly gives it no gradient.  The view says so, on the
node, in the inspect panel, in the ledger and when backward finishes, instead of a
silent "—".

>>> import gc, numpy as np, autograd_lab as chainer
>>> from autograd_lab import events, graph
>>> from autograd_lab_widget.follow.state import ViewState
>>> def f():
...     x = chainer.Variable(np.array(3.0), name='x')
...     return x * x
>>> with events.recording() as log:
...     y = f(); _ = gc.collect(); y.backward()
>>> state = ViewState()
>>> for e in log:
...     state.apply(e)
>>> [state.model.nodes[i].name for i in gone_leaves(state)]
['x']
>>> words('x')
'x is gone: your code kept no reference, so its gradient was not kept'
"""

from __future__ import annotations

from autograd_lab import graph

from autograd_lab_widget.follow.state import ViewState

#: A gone leaf's grad cell (in place of "—", no grad yet).
GONE_TEXT = 'gone'


def is_gone(state: ViewState, node: graph.Node) -> bool:
    """``node`` is a leaf that needs a grad, whose Variable was collected, and that holds
    no grad (neither live nor remembered by the view)."""
    return (node.category == 'variable' and node.creator_id is None
            and node.requires_grad and 'collected' in node.states
            and node.grad is None and state.run.grads.get(node.id) is None)


def gone_leaves(state: ViewState) -> list[int]:
    """Ids of the gone leaves of ``state`` (see :func:`is_gone`), in id order."""
    return sorted(i for i, n in state.model.nodes.items() if is_gone(state, n))


#: Most gone leaves a sentence names (then "and N more").
MAX_NAMED = 6


def words(name: str) -> str:
    """What is said about the gone leaf ``name``."""
    return f'{name} is gone: your code kept no reference, so its gradient was not kept'


def finished(names: list[str]) -> str:
    """The finished status of a backward that left the leaves ``names`` without a grad.

    >>> finished(['x'])  # doctest: +ELLIPSIS
    'Backward finished; no gradient for x: x is gone: your code kept no reference, so...'
    >>> finished([f'W{k}' for k in range(1, 9)])  # doctest: +ELLIPSIS
    'Backward finished; no gradient for W1, W2, W3, W4, W5, W6 and 2 more: they are gone...'
    """
    if len(names) == 1:
        return f'Backward finished; no gradient for {names[0]}: {words(names[0])}.'
    shown = ', '.join(names[:MAX_NAMED])
    more = f' and {len(names) - MAX_NAMED} more' if len(names) > MAX_NAMED else ''
    return (f'Backward finished; no gradient for {shown}{more}: they are gone: your code '
            'kept no reference to them, so their gradients were not kept.')
