"""Graph events: the engine announces what it does; observers subscribe.

Every notable thing the engine does is one small, typed, immutable :class:`Event`:
a variable made, a function applied, each backward step, a gradient set or
accumulated or released, a graph cut, a device move.  Observers (a graph view, a
logger, a test) call :func:`subscribe` or use :func:`recording`; nothing else in
the project reaches into the engine.

Events name variables and functions by stable ids (:func:`uid`): small integers
handed out in order of first appearance, never ``id()``, so they are never reused.
:func:`describe` tells a graph that already exists as the events that would have
built it.

The package, one job per module:

- :mod:`~autograd_lab.events.types`: the event types (the stable, public part);
- :mod:`~autograd_lab.events.log`: :class:`EventLog`, a ring buffer, and the
  :func:`snapshot` policy for the values events keep;
- :mod:`~autograd_lab.events.subscription`: :func:`subscribe`, :func:`recording`,
  and where events go;
- :mod:`~autograd_lab.events.recorders`: the :class:`Recorder` the engine calls (one
  method per thing that happened), which hands what it writes to one sink;
- :mod:`~autograd_lab.events.groups`: the compact values and groups it writes, each
  layout named once and read back by name; :mod:`~autograd_lab.events.codec`: records
  and groups in general;
- :mod:`~autograd_lab.events.describe`: :func:`describe`.

With no subscriber and no FunctionHook, :data:`recorder` is None and the engine pays
one test per place where something happens (``benchmarks/events_overhead.py``
compares it with an engine whose event code is removed).  :data:`active` is true
while anything observes the engine: an event subscriber or a registered FunctionHook.

>>> import numpy as np, autograd_lab as chainer
>>> with recording() as log:
...     x = chainer.Variable(np.array(2.0), name='x')
...     y = x * x
...     y.backward()
>>> [e.kind for e in log]  # doctest: +NORMALIZE_WHITESPACE
['variable_created', 'variable_created', 'function_applied', 'backward_started',
 'backward_step_started', 'grad_set', 'grad_accumulated', 'grad_released',
 'backward_step_done', 'backward_finished']
>>> log[2].label, log[2].input_ids == (log[0].var_id, log[0].var_id)
('_ * _', True)
"""

from __future__ import annotations

from autograd_lab.events.types import (
    BackwardFinished, BackwardStarted, BackwardStepDone, BackwardStepStarted, DataChanged,
    DataRetained, DeviceMoved, Event, FunctionApplied, GradAccumulated, GradAdded,
    GradChanged, GradCleared, GradReleased, GradRestored, GradSet, GradZeroed,
    ParameterInitialized, ParameterUpdated, Summary, Unchained, VariableCollected,
    VariableCreated, VariableRenamed, step_reason,
)
from autograd_lab.events.log import DEFAULT_LOG_SIZE, SNAPSHOT_MAX_ELEMENTS, EventLog, snapshot
from autograd_lab.events.recorders import (
    FRONTIER_MAX, Recorder, emit, in_backward_of, running_links, uid,
)
from autograd_lab.events.subscription import (
    EventSubscriberWarning, Subscription, hooks_changed, recording, subscribe,
)
from autograd_lab.events.describe import describe

#: What the engine tells what happens: a :class:`Recorder` while anyone listens (a
#: subscriber, or a FunctionHook: then one that builds no events), else None.  Kept up
#: to date by :func:`subscribe`, :meth:`Subscription.unsubscribe` and :func:`hooks_changed`.
recorder: Recorder | None = None
#: True while anything observes the engine: an event subscriber or a FunctionHook.
active = False


__all__ = [
    'DEFAULT_LOG_SIZE', 'FRONTIER_MAX', 'SNAPSHOT_MAX_ELEMENTS', 'BackwardFinished',
    'BackwardStarted', 'BackwardStepDone', 'BackwardStepStarted', 'DataChanged',
    'DataRetained', 'DeviceMoved', 'Event', 'EventLog', 'EventSubscriberWarning',
    'FunctionApplied', 'GradAccumulated', 'GradAdded', 'GradChanged', 'GradCleared',
    'GradReleased', 'GradRestored', 'GradSet', 'GradZeroed', 'ParameterInitialized',
    'ParameterUpdated', 'Recorder', 'Subscription', 'Summary', 'Unchained',
    'VariableCollected', 'VariableCreated', 'VariableRenamed', 'active', 'describe', 'emit',
    'hooks_changed', 'in_backward_of', 'recorder', 'recording', 'running_links', 'snapshot',
    'step_reason', 'subscribe', 'uid',
]
