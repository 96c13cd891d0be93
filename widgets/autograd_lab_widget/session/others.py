"""Who ran the backward whose grads a graph's leaves hold: another view, of this graph or
of another graph that shares a leaf.

A view made on a graph whose leaves already hold grads says where they came from: a
grad another view put there is not one the student's code made, and a grad from a
graph that merely shares the input is not this graph's gradient at all.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget.session.stepping import StepModel
>>> x = chainer.Variable(np.array(3.0), name='x')
>>> first = StepModel(x * x)
>>> first.run()
>>> second = StepModel(x * 2)
>>> ran_by(second)
'the backward of another graph that shares x (another view ran it)'
>>> first.close(); second.close()
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autograd_lab import events

from autograd_lab_widget.session.following import FOLLOWING

if TYPE_CHECKING:
    from autograd_lab_widget.session.stepping import StepModel


def holding(session: StepModel) -> list[int]:
    """Ids of the leaves of ``session``'s graph (the output aside) that hold a grad."""
    nodes, root = session.live.model.nodes, session.root_id()
    return [i for var in session.graph_variables()
            if var.creator is None and var.grad is not None and var.requires_grad
            and (i := events.uid(var)) in nodes and i != root]


def ran_by(session: StepModel) -> str:
    """Which backward, run by another view, gave the leaves of ``session``'s graph their
    grads, in words ('' when none did: the student's code ran it, or nothing did)."""
    held = holding(session)
    if not held:
        return ''
    root = session.root_id()
    for other in list(FOLLOWING):
        run = other.live.run
        if other is session or run.run_id is None or run.run_id not in other.backward.own_runs:
            continue
        if other.root_id() == root:
            return 'the backward another view of this graph ran'
        shared = [i for i in held if i in other.live.model.nodes]
        if shared:
            table = session.names.table(session.live.model)
            names = ', '.join(table.get(i, f'#{i}') for i in shared)
            return f'the backward of another graph that shares {names} (another view ran it)'
    return ''
