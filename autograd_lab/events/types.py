"""The public event types: one small, typed, immutable dataclass per thing that happens.

Every event has a ``kind`` (a string naming its type), a ``seq`` (the order in which
events were delivered) and a ``thread``; the rest of its fields say what happened,
naming variables and functions by their stable ids (:func:`autograd_lab.events.uid`).
Array values are :func:`~autograd_lab.events.snapshot` s: a copy of a small array, a
:class:`Summary` of a large one.

These types are the stable part of :mod:`autograd_lab.events`: observers (the graph
model, the widget, tests) rely on their names, fields and meaning.

>>> e = VariableCreated(var_id=3, name='x', shape=(2,), dtype='float32')
>>> e.kind, e.var_id, e.creator_id, e.seq
('variable_created', 3, None, 0)
>>> GradSet(var_id=3, grad=None)
GradSet(seq=0, thread=..., var_id=3, grad=None)
>>> GradSet.kind, issubclass(GradSet, GradChanged)
('grad_set', True)

Fields are keyword-only, and those that say what happened have no default:

>>> FunctionApplied(func_id=1)
Traceback (most recent call last):
...
TypeError: FunctionApplied.__init__() missing 5 required keyword-only arguments: ...
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Summary:
    """Statistics of an array too large to copy into an event."""

    shape: tuple
    dtype: str
    min: float
    max: float
    mean: float
    norm: float
    nan_count: int
    inf_count: int


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of all events: ``seq`` orders them (given when emitted: an Event made but not
    emitted has 0), ``thread`` says which thread made it."""

    kind = 'event'
    seq: int = field(default=0, init=False)  # given when emitted
    thread: int = field(default_factory=threading.get_ident, init=False)


@dataclass(frozen=True, kw_only=True)
class VariableCreated(Event):
    """A Variable came into being: made by the user or as a function's output."""

    kind = 'variable_created'
    var_id: int
    name: str | None = None
    shape: tuple | None
    dtype: str | None
    device: str = '@numpy'
    requires_grad: bool = True
    is_parameter: bool = False
    creator_id: int | None = None
    data: Any = None
    #: Path of the innermost Link whose ``__call__`` was running (``'/predictor/l1'``), or None.
    scope: str | None = None
    #: The node's rank: its creator's rank + 1, or 0 for a variable no function made.
    rank: int = 0


@dataclass(frozen=True, kw_only=True)
class FunctionApplied(Event):
    """A function ran forward.  ``recorded`` is False under ``no_backprop_mode``;
    ``in_backward_of`` names the function whose backward applied it, if any."""

    kind = 'function_applied'
    func_id: int
    type: str
    label: str
    rank: int
    input_ids: tuple
    output_ids: tuple
    recorded: bool = True
    in_backward_of: int | None = None
    #: Path of the innermost Link whose ``__call__`` was running, or None.
    scope: str | None = None


@dataclass(frozen=True, kw_only=True)
class BackwardStarted(Event):
    kind = 'backward_started'
    run_id: int
    mode: str
    root_ids: tuple
    retain_grad: bool = False
    enable_double_backprop: bool = False
    loss_scale: float | None = None


@dataclass(frozen=True, kw_only=True)
class BackwardStepStarted(Event):
    """The next function is about to run its backward, and why it is next.

    ``frontier_ids`` are the waiting functions in the order they will run, this one
    first: at most :data:`~autograd_lab.events.FRONTIER_MAX` of them (``frontier_size``
    says how many wait), so that a wide graph does not make every step cost as much as
    the whole frontier.
    """

    kind = 'backward_step_started'
    run_id: int
    func_id: int
    rank: int
    frontier_ids: tuple
    grad_outputs: tuple
    reason: str
    frontier_size: int


def step_reason(label: str, rank: int, waiting: int, ties: int) -> str:
    """Why a function runs next, in words: the ``reason`` of a :class:`BackwardStepStarted`
    (``waiting`` functions wait, this one first; ``ties`` others share its rank).

    >>> step_reason('_ * _', 1, 2, 0)  # doctest: +ELLIPSIS
    '_ * _ (rank 1) has the highest rank of the 2 waiting function(s). Every function...'
    """
    text = (f'{label} (rank {rank}) has the highest rank of the {waiting} waiting '
            'function(s). Every function that used its outputs has a higher rank and has '
            'already run, so the gradients of its outputs are complete.')
    if ties:
        text += (f' {ties} other function(s) share rank {rank}; among equals the one that '
                 'entered the frontier first goes first.')
    return text


@dataclass(frozen=True, kw_only=True)
class BackwardStepDone(Event):
    """A function's backward ran: what it produced and, per target input, set or added."""

    kind = 'backward_step_done'
    run_id: int
    func_id: int
    target_input_ids: tuple
    grad_inputs: tuple
    accumulation: tuple


@dataclass(frozen=True, kw_only=True)
class BackwardFinished(Event):
    kind = 'backward_finished'
    run_id: int
    ok: bool
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class GradChanged(Event):
    """A variable's gradient changed.  ``kind`` tells how: set, accumulated (``+=``),
    cleared (``cleargrad``), released (an intermediate's grad dropped after use),
    zeroed (``zerograd``), added (``addgrad``), or restored (a failed backward undone)."""

    kind = 'grad_changed'
    var_id: int
    grad: Any


@dataclass(frozen=True, kw_only=True)
class GradSet(GradChanged):
    """The gradient was set: by backward (the first gradient a variable gets), by
    ``grad = ...`` or by ``grad_var = ...``."""

    kind = 'grad_set'


@dataclass(frozen=True, kw_only=True)
class GradAccumulated(GradChanged):
    """Backward added a further gradient to one the variable had (``+=``)."""

    kind = 'grad_accumulated'


@dataclass(frozen=True, kw_only=True)
class GradCleared(GradChanged):
    """``cleargrad()``: the gradient is gone (``grad`` is None)."""

    kind = 'grad_cleared'


@dataclass(frozen=True, kw_only=True)
class GradReleased(GradChanged):
    """Backward dropped an intermediate variable's gradient once its creator had used
    it (``grad`` is None; ``retain_grad=True`` keeps them)."""

    kind = 'grad_released'


@dataclass(frozen=True, kw_only=True)
class GradZeroed(GradChanged):
    """``zerograd()``: the gradient is an array of zeros."""

    kind = 'grad_zeroed'


@dataclass(frozen=True, kw_only=True)
class GradAdded(GradChanged):
    """``addgrad(other)``: another variable's gradient was added to this one's."""

    kind = 'grad_added'


@dataclass(frozen=True, kw_only=True)
class GradRestored(GradChanged):
    """A backward that failed put back the gradient the variable had before it."""

    kind = 'grad_restored'


@dataclass(frozen=True, kw_only=True)
class DataChanged(Event):
    """A variable's array was replaced (``array = ...``) or written (``copydata``)."""

    kind = 'data_changed'
    var_id: int
    how: str
    data: Any


@dataclass(frozen=True, kw_only=True)
class Unchained(Event):
    """The graph was cut: ``var_ids`` lost their creators, ``func_ids`` were unchained."""

    kind = 'unchained'
    root_id: int
    backward: bool
    var_ids: tuple = ()
    func_ids: tuple = ()


@dataclass(frozen=True, kw_only=True)
class DeviceMoved(Event):
    kind = 'device_moved'
    var_id: int
    source: str
    destination: str


@dataclass(frozen=True, kw_only=True)
class ParameterInitialized(Event):
    kind = 'parameter_initialized'
    var_id: int
    shape: tuple
    dtype: str


@dataclass(frozen=True, kw_only=True)
class ParameterUpdated(Event):
    kind = 'parameter_updated'
    var_id: int
    optimizer: str
    rule: str
    step: int
    data: Any


@dataclass(frozen=True, kw_only=True)
class VariableRenamed(Event):
    """A variable's ``name`` was set (a Link names each Parameter after making it)."""

    kind = 'variable_renamed'
    var_id: int
    name: str | None


@dataclass(frozen=True, kw_only=True)
class VariableCollected(Event):
    """A Variable object was garbage-collected (its node may live on in the graph)."""

    kind = 'variable_collected'
    var_id: int


@dataclass(frozen=True, kw_only=True)
class DataRetained(Event):
    """A variable node keeps its array for a function's backward (``retain_inputs`` or
    ``retain_outputs``).  Only :func:`~autograd_lab.events.describe` reports it: the
    engine does not announce retention as it happens."""

    kind = 'data_retained'
    var_id: int
