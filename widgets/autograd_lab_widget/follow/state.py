"""What a view knows at one moment: the graph model, with the backward run it holds.

:class:`ViewState` folds events, one at a time, into a
:class:`~autograd_lab.graph.GraphModel` (the graph as the engine made it).  The model
owns the one record of the backward shown, ``model.run`` (a
:class:`~autograd_lab.graph.run.BackwardRun`: which functions ran, the step under way,
the last step's grads before and after for the ledger, the last gradient each variable
received, kept after the engine released it so that an intermediate's grad stays on
screen).  ``state.run`` is that record.  What the view adds is the reset: a
:class:`ViewReset` mark in the log puts the picture back to before backward (no
function done, no grad remembered).

Folding is the only way state changes, so a state at any position of the history is
the checkpoint replayed to it, and the live state is the same fold kept up to date.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> with events.recording() as log:
...     x = chainer.Variable(np.array(3.0), name='x')
...     y = x * x
...     y.backward()
>>> state = ViewState()
>>> for e in log:
...     state.apply(e)
>>> y_id = events.uid(y)
>>> state.model.nodes[y_id].grad is None, float(state.run.grads[y_id])  # released, remembered
(True, 1.0)
>>> state.run.steps, state.run.finished
(1, True)
>>> state.apply(ViewReset())
>>> state.run.steps, state.run.grads
(0, {})
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from autograd_lab import events, graph
from autograd_lab.graph.run import BackwardRun, StepRecord

__all__ = ['BackwardRun', 'StepRecord', 'ViewReset', 'ViewState']


@dataclass(frozen=True)
class ViewReset(events.Event):
    """A mark the view puts in its own log when the student presses Reset: from here the
    picture is the graph before backward.  The graph model ignores it (an unknown kind)."""

    kind = 'view_reset'


class ViewState:
    """A graph model as a view folds it (:meth:`apply`), resets included."""

    def __init__(self, model: graph.GraphModel | None = None):
        self.model = model if model is not None else graph.GraphModel()

    @property
    def run(self) -> BackwardRun:
        """The backward run shown: the model's (see the module docstring)."""
        return self.model.run

    def copy(self) -> ViewState:
        """An independent copy (a pickled round trip: twice as fast as deepcopy)."""
        return pickle.loads(self.dumps())

    def dumps(self) -> bytes:
        return pickle.dumps(self.model, pickle.HIGHEST_PROTOCOL)

    @classmethod
    def loads(cls, blob: bytes) -> ViewState:
        return cls(pickle.loads(blob))  # our own bytes (see dumps), never external data

    def apply(self, e: events.Event) -> None:
        """Fold one event (or a :class:`ViewReset`) into the model."""
        if e.kind == 'view_reset':
            # back to before backward.  The live variables' grads were cleared by the
            # engine (their events came first); the grads the model still holds belong
            # to a backward that is gone (a stepper dropped half-way, a collected variable)
            self.model.forget_backward()
        self.model.apply(e)
