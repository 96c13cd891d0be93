"""What the recorder stores: values made compact, and groups, each layout written and read here.

A **group** holds the records of several events in one flat tuple (see
:mod:`~autograd_lab.events.codec`): a function applied (its outputs'
``VariableCreated``, then ``FunctionApplied``) or a backward step (its start, its grad
events, the grads it released, its end).  The :class:`~autograd_lab.events.Recorder`
writes them, in plain loops, in the order of the layouts below; this module reads them
back, by the layouts' field names, and registers the readers with the codec.  A value
an event keeps is stored as compactly as it can be read back the same: a small NumPy
array as its bytes (:func:`_small`), anything else as its
:func:`~autograd_lab.events.snapshot`.
"""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.events import codec
from autograd_lab.events.log import SNAPSHOT_MAX_ELEMENTS, snapshot
from autograd_lab.events.types import (
    BackwardStepDone, BackwardStepStarted, FunctionApplied, GradAccumulated, GradAdded,
    GradCleared, GradReleased, GradRestored, GradSet, GradZeroed, VariableCollected,
    VariableCreated, step_reason,
)

_ndarray = numpy.ndarray

# ---- values ----------------------------------------------------------------------------------

def _thaw(frozen: bytes, dtype: Any, shape: tuple) -> Any:
    """The array :func:`_snap` froze (a new writeable one at each read)."""
    return numpy.frombuffer(frozen, dtype).reshape(shape).copy()


_THAW = codec.lazy(_thaw)[1]


def _small(array: Any) -> bool:
    """Whether ``array`` is kept as its bytes: a NumPy array that :func:`snapshot` would
    copy whole, of values (an object array holds references).  Its bytes are one compact
    object, taken in a fraction of the time of a copy, made into an array again when
    the event is read."""
    return type(array) is _ndarray and array.size <= SNAPSHOT_MAX_ELEMENTS \
        and not array.dtype.hasobject


def _snap(array: Any) -> Any:
    """What records hold for :func:`snapshot`: the same value, cheaper to take and keep."""
    if _small(array):
        return (codec.LAZY, _THAW, array.tobytes(), array.dtype, array.shape)
    return snapshot(array)


_shapes: dict = {}  # one tuple per shape, for groups to share (see ``_shape``)
_SHAPES_KEPT = 4096


def _shape(shape: tuple) -> tuple:
    """The shared tuple equal to ``shape``, which an apply group keeps instead of its
    new output node's own.

    Why: the garbage collector stops tracking a tuple only once nothing in it is tracked,
    and a new node's shape tuple is as young as the group that names it; a collection
    looks at the group first (it meets the shape through the node and moves it behind),
    so each apply group was still tracked in the next generation, about one object in
    six of those its collections walked in a recorded chain.  A shared shape is old and
    untracked, and so is a group after its first collection.  (Step groups name nodes
    made earlier, whose shapes the collector has already let go.)

    >>> _shape((2, 3)) is _shape(tuple([2, 3])), _shape((2, 3)) == (2, 3)
    (True, True)
    """
    kept = _shapes.get(shape)
    if kept is None:
        if len(_shapes) >= _SHAPES_KEPT:  # many shapes: start again rather than grow
            _shapes.clear()
        kept = _shapes[shape] = shape
    return kept


def _compact(array: Any, node: Any) -> tuple:
    """``(value, dtype, shape)``: a value as a group keeps it, flat (see ``_thawed``): a
    small array as its bytes with its node's dtype and shape, anything else as a snapshot."""
    if type(array) is not _ndarray and array is not None:
        array = getattr(array, '_data', array)  # a Variable (double backprop): its array
    if _small(array) and node is not None and array.shape == node.shape:
        return array.tobytes(), node.dtype, node.shape
    return _snap(array), None, None


def _thawed(value: Any, dtype: Any, shape: tuple) -> Any:
    """A group's ``(value, dtype, shape)`` as a record holds it."""
    if type(value) is bytes:
        return (codec.LAZY, _THAW, value, dtype, shape)
    return value


_dtype_names: dict = {}
_parameter_types: dict = {}


def _dtype_name(dtype: Any) -> str | None:
    if dtype is None:
        return None
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = str(dtype)
    return name


def device_name(array: Any) -> str:
    """The device an array lives on, as events name it (``'@numpy'``, ``'@cupy:0'``)."""
    if array is None or type(array) is _ndarray:
        return '@numpy'
    return str(backend.get_device_from_array(array))


def _is_parameter(cls: type) -> bool:
    known = _parameter_types.get(cls)
    if known is None:
        from autograd_lab.parameter import Parameter  # noqa: PLC0415 - it imports us
        known = _parameter_types[cls] = issubclass(cls, Parameter)
    return known


# ---- groups: the records of one operation in one flat tuple ---------------------------------
#
# The hottest announcements (a function applied; a backward step) build one *group*: a
# flat tuple of only what could change or vanish later (ids, seqs, frozen values, the
# label), from which the records of its events are written when they are read.
#
# Flat, because the garbage collector stops tracking a tuple only once everything in it is
# untracked: a tuple nested in a record kept it tracked long enough to be promoted to the
# oldest generation, which every full collection then walked.  A group holds ints,
# strings, bytes, dtypes and shape tuples (shared ones: see ``_shape``), nothing deeper.
# A small array is kept as its bytes next to its dtype and shape (three fields, see
# ``_compact``), anything else as its snapshot.
#
# Each layout is written down once below, as the names of its fields in order: a *head*
# of single fields, then *rows* (a count, then that many rows of a few fields each).  The
# readers unpack heads and rows into those names; the writers (the Recorder's methods)
# append the fields in the same order, in plain loops, because they run for every
# operation observed.  ``tests/test_events_records.py`` checks, field by field, that what
# is read back is what a callback is given when nothing is grouped.

_CREATED, _APPLIED, _COLLECTED = (codec.code(VariableCreated), codec.code(FunctionApplied),
                                  codec.code(VariableCollected))
_STEP_STARTED, _STEP_DONE = codec.code(BackwardStepStarted), codec.code(BackwardStepDone)
_RELEASED = codec.code(GradReleased)
_GRAD_CODES = {cls: codec.code(cls) for cls in (
    GradSet, GradAccumulated, GradCleared, GradReleased, GradZeroed, GradAdded, GradRestored)}

_APPLY_GROUP = -2  # a function applied: its outputs' VariableCreated, then FunctionApplied
_STEP_BEGIN = -3  # one BackwardStepStarted
_STEP_END = -4  # a step's grad events, its released grads, then BackwardStepDone
_STEP = -5  # a whole step: the two above in one

_CODE, _N_EVENTS = codec.CODE, codec.N_EVENTS

#: An apply group: this head, the ``n_inputs`` input ids, then one ``_OUTPUT_ROW`` per
#: output (``n_events - 1`` of them); ``seq`` is FunctionApplied's, after its outputs'.
_APPLY_HEAD = ('code', 'n_events', 'thread', 'seq', 'func_id', 'type', 'label', 'rank',
               'recorded', 'in_backward_of', 'scope', 'n_inputs')
_OUTPUT_ROW = ('seq', 'var_id', 'shape', 'dtype', 'requires_grad', 'device', 'value')
_APPLY_SEQ = _APPLY_HEAD.index('seq')

#: A backward step's groups: this head, then the begin part (a BackwardStepStarted), the
#: end part (its grad events, the grads it released, BackwardStepDone) or both (a step
#: held until it was done: ``_STEP``).
_STEP_HEAD = ('code', 'n_events', 'thread', 'run_id', 'func_id')
#: The begin part: this, the ``n_frontier`` frontier ids, then counted ``_VALUE_ROW`` s
#: (the grad outputs).  ``reason`` is a lazy function's index: the sentence is written
#: only if read.
_BEGIN_PART = ('seq', 'rank', 'label', 'waiting', 'ties', 'reason', 'n_frontier')
#: The end part: this, then counted rows of three kinds: ``_TARGET_ROW`` (per target
#: input), ``_GRAD_ROW`` (the grad events of a held step) and ``_RELEASED_ROW``.
_END_PART = ('seq_done',)
_VALUE_ROW = ('value', 'dtype', 'shape')
_TARGET_ROW = ('var_id', 'how', 'value', 'dtype', 'shape')
_GRAD_ROW = ('code', 'seq', 'var_id', 'value', 'dtype', 'shape')
_RELEASED_ROW = ('seq', 'var_id')


def _rows(fields: Any, at: int, row: tuple, n: int) -> list:
    """The ``n`` rows of layout ``row`` at ``fields[at:]``, each a tuple of its fields."""
    width = len(row)
    return [fields[k:k + width] for k in range(at, at + n * width, width)]


def _counted(group: tuple, at: int, row: tuple) -> tuple:
    """``(rows, end)``: the counted rows of layout ``row`` at ``at``, and where they end."""
    n, width = group[at], len(row)
    start, end = at + 1, at + 1 + n * width
    # (no _rows call: a step's group holds four counted parts, most often empty)
    return ([group[k:k + width] for k in range(start, end, width)] if n else []), end


def _apply_records(group: tuple) -> list:
    (_, n_events, thread, seq, func_id, type_name, label, rank, recorded, in_backward_of,
     scope, n_inputs) = group[:len(_APPLY_HEAD)]
    creator_id, out_rank = (func_id, rank + 1) if recorded else (None, 0)
    outputs_at = len(_APPLY_HEAD) + n_inputs
    records = []
    output_ids = []
    for out_seq, ident, shape, dtype, requires_grad, device, value in _rows(
            group, outputs_at, _OUTPUT_ROW, n_events - 1):
        output_ids.append(ident)
        # A function's outputs are fresh plain Variables: no name, not parameters.
        records.append((_CREATED, out_seq, thread, ident, None, shape, _dtype_name(dtype),
                        device, requires_grad, False, creator_id, _thawed(value, dtype, shape),
                        scope, out_rank))
    records.append((_APPLIED, seq, thread, func_id, type_name, label, rank,
                    group[len(_APPLY_HEAD):outputs_at], tuple(output_ids), recorded,
                    in_backward_of, scope))
    return records


def _step_records(group: tuple) -> list:
    code, _, thread, run_id, func_id = group[:len(_STEP_HEAD)]
    records: list = []
    at = len(_STEP_HEAD)
    if code != _STEP_END:
        at = _begin_part(group, at, records, thread, run_id, func_id)
    if code != _STEP_BEGIN:
        _end_part(group, at, records, thread, run_id, func_id)
    return records


def _begin_part(group: tuple, at: int, records: list, thread: int, run_id: int,
                func_id: int) -> int:
    """Append the BackwardStepStarted of the begin part at ``at``; return where it ends."""
    seq, rank, label, waiting, ties, reason, n_frontier = group[at:at + len(_BEGIN_PART)]
    frontier_at = at + len(_BEGIN_PART)
    grads, end = _counted(group, frontier_at + n_frontier, _VALUE_ROW)
    records.append((_STEP_STARTED, seq, thread, run_id, func_id, rank,
                    group[frontier_at:frontier_at + n_frontier],
                    tuple([_thawed(*value) for value in grads]),
                    (codec.LAZY, reason, label, rank, waiting, ties), waiting))
    return end


def _end_part(group: tuple, at: int, records: list, thread: int, run_id: int,
              func_id: int) -> None:
    """Append the records of the end part at ``at``."""
    (seq_done,) = group[at:at + len(_END_PART)]
    targets, at = _counted(group, at + len(_END_PART), _TARGET_ROW)
    grad_events, at = _counted(group, at, _GRAD_ROW)
    released, _ = _counted(group, at, _RELEASED_ROW)
    records += _grad_records(grad_events, thread)
    for seq, ident in released:
        records.append((_RELEASED, seq, thread, ident, None))
    records.append((_STEP_DONE, seq_done, thread, run_id, func_id,
                    tuple([ident for ident, _, _, _, _ in targets]),
                    tuple([_thawed(value, dtype, shape) for _, _, value, dtype, shape in targets]),
                    tuple([how for _, how, _, _, _ in targets])))


def _grad_records(rows: list, thread: int) -> list:
    """The records of grad events from their ``_GRAD_ROW`` s."""
    return [(code, seq, thread, ident, _thawed(value, dtype, shape))
            for code, seq, ident, value, dtype, shape in rows]


codec.register_group(_APPLY_GROUP, _apply_records)
for _code in (_STEP_BEGIN, _STEP_END, _STEP):
    codec.register_group(_code, _step_records)

_REASON = codec.lazy(step_reason)[1]  # the sentence is written only if read
