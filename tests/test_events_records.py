"""The compact forms the event layer stores (records, groups, frozen snapshots) give
readers exactly the events they stand for.

Applying a function is announced as one group record (its outputs' VariableCreated,
then FunctionApplied), and small arrays are kept as bytes; both are expanded when the
log is read.  These tests compare what a log gives with what a plain callback got at
the time, including when the ring buffer has cut a group in two.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable, events


def fields(e):
    """An event's fields, arrays as lists (comparable with ==)."""
    out = {}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, np.ndarray):
            v = (v.tolist(), v.dtype.str, v.shape)
        elif isinstance(v, tuple):
            v = tuple((x.tolist(), x.dtype.str, x.shape) if isinstance(x, np.ndarray) else x
                      for x in v)
        out[f.name] = v
    return type(e), out


def program():
    x = Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name='x')
    a, b, c = F.split_axis(x, 3, axis=1)  # one function, three outputs
    y = F.sum(a * b + c)
    y.backward()
    with chainer.no_backprop_mode():
        halves = F.split_axis(x, [1], axis=0)  # not recorded: no creator
    return x, y, halves


_IDS = ('var_id', 'func_id', 'creator_id', 'in_backward_of', 'root_id', 'run_id')
_ID_TUPLES = ('input_ids', 'output_ids', 'target_input_ids', 'root_ids', 'frontier_ids')


def story(evs):
    """Fields of each event, ids renamed in order of appearance, seq/thread left out."""
    names: dict = {}

    def name(i):
        return None if i is None else names.setdefault(i, len(names))

    out = []
    for e in evs:
        cls, f = fields(e)
        del f['seq'], f['thread']
        for key in _IDS:
            if key in f:
                f[key] = name(f[key])
        for key in _ID_TUPLES:
            if key in f:
                f[key] = tuple(name(i) for i in f[key])
        out.append((cls, f))
    return out


def test_a_lone_log_gives_the_events_a_callback_gets_field_by_field():
    seen = []
    with events.subscribe(seen.append):  # events made at once
        program()
    with events.recording() as log:  # a lone log: group records, expanded when read
        keep = program()  # noqa: F841 - nothing collected while comparing
    assert story(log) == story(seen[:len(log)])
    kinds = [e.kind for e in log]
    applied = log.of_kind('function_applied')[0]
    assert applied.type == 'SplitAxis' and len(applied.output_ids) == 3
    start = kinds.index('function_applied') - 3
    created = [log[start + k] for k in range(3)]
    assert [e.var_id for e in created] == list(applied.output_ids)
    assert [e.data.tolist() for e in created] == [[[0.], [3.]], [[1.], [4.]], [[2.], [5.]]]
    assert all(e.creator_id == applied.func_id and e.shape == (2, 1) and e.dtype == 'float32'
               and e.name is None and not e.is_parameter and e.scope is None for e in created)
    assert [e.seq for e in log] == sorted(e.seq for e in log)
    at = len(kinds) - 1 - kinds[::-1].index('function_applied')
    assert not log[at].recorded and log[at].rank == 0
    assert [e.kind for e in log[at - 2:at]] == ['variable_created'] * 2
    assert [e.creator_id for e in log[at - 2:at]] == [None, None]


def test_a_ring_buffer_that_cut_a_group_still_gives_its_later_events():
    x = Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name='x')
    kept = []
    with events.recording() as full:  # a lone log: the group is stored as one record
        kept.append(F.split_axis(x, 3, axis=1))
    assert len(full) == 4
    for maxlen in (1, 2, 3):  # keep only the last 1, 2 or 3 events of the 4 of a group
        with events.recording(maxlen=maxlen) as log:
            kept.append(F.split_axis(x, 3, axis=1))
        assert len(log) == maxlen and log.dropped == 4 - maxlen
        assert log[-1].kind == 'function_applied'
        assert log[-1].output_ids == tuple(events.uid(o) for o in kept[-1])
        expected = [fields(e) for e in full][-maxlen:]
        got = [fields(e) for e in log]
        for (cls, want), (got_cls, have) in zip(expected, got):  # other ids, same story
            assert got_cls is cls
            for key in ('seq', 'thread', 'var_id', 'func_id', 'creator_id', 'output_ids'):
                want.pop(key, None), have.pop(key, None)
            assert have == want


def test_snapshots_hold_the_values_of_the_moment_and_each_read_is_a_fresh_array():
    with events.recording() as log:
        x = Variable(np.array([1.0, 2.0], np.float32), name='x')
        y = x * 3
        y.array[...] = -1  # written in place after the event: the event keeps 3, 6
        y.grad = np.array([5.0, 5.0], np.float32)
        y.grad[...] = 0
    created = log.of_kind('variable_created')
    assert created[1].data.tolist() == [3.0, 6.0] and created[1].data.dtype == np.float32
    assert log.of_kind('grad_set')[0].grad.tolist() == [5.0, 5.0]
    first, second = log[1].data, log[1].data
    assert first is not second and first.flags.writeable
    first[0] = 100  # a reader writing into its copy changes nothing for the next reader
    assert log[1].data.tolist() == [3.0, 6.0]


class Copy(chainer.FunctionNode):
    """Its output is a copy of its input, whatever the array."""

    def forward(self, inputs):
        return inputs[0].copy(),


def test_snapshot_forms_for_odd_arrays():
    """Each way a value reaches a log (a record, an apply group, a grad event) reads back as
    :func:`events.snapshot` of it."""
    arrays = [np.zeros((0, 3), np.float32), np.array(7, np.int64),
              np.arange(8, dtype='>f8')[::2],  # non-native byte order, not contiguous
              np.array([{'a': 1}, None], dtype=object), np.ones(100, np.float32)]
    for array in arrays:
        with events.recording() as log:
            x = Variable(array)  # a record
            y, = Copy().apply((x,))  # an apply group
            x.grad = array.copy()  # a grad event
        values = [log[0].data, log.of_kind('variable_created')[1].data,
                  log.of_kind('grad_set')[0].grad]
        expected = events.snapshot(array)
        for value in values:
            if isinstance(expected, events.Summary):
                assert value == expected
            else:
                assert value.shape == array.shape and value.dtype == array.dtype
                assert value.tolist() == array.tolist()
        assert y.array.tolist() == array.tolist()


def test_step_frontiers_list_the_first_waiting_functions_in_order():
    """The frontier kept between steps (double backprop keeps hundreds waiting) equals a
    fresh sort of the waiting functions at every step, also when stepping is mixed with
    unobserved steps and the subscriber comes and goes."""
    x = Variable(np.linspace(-1, 1, 4).astype(np.float32), name='x')
    w = Variable(np.full(4, 0.9, np.float32), name='w')
    h = x
    for _ in range(30):
        h = F.tanh(h * w) + h * 0.5  # fan-out: w and h are used twice per block
    gx, gw = chainer.grad([F.sum(h)], [x, w], enable_double_backprop=True)
    loss = F.sum(gx * gx + gw)
    stepper = chainer.BackwardStepper.for_backward([loss])
    checked = widest = 0
    for k in range(10_000):
        if stepper.done:
            break
        expected = tuple(events.uid(f) for f in stepper.frontier[:events.FRONTIER_MAX])
        waiting = len(stepper.frontier)
        widest = max(widest, waiting)
        if k % 7 == 3:  # now and then a step nobody watches
            stepper.step()
            continue
        with events.recording() as log:
            stepper.step()
        started = log.of_kind('backward_step_started')[0]
        assert started.frontier_ids == expected and started.frontier_size == waiting
        checked += 1
    assert stepper.done and checked > 100 and widest > 2 * events.FRONTIER_MAX


def backward_program():
    """Backward steps in each form a lone log stores: whole steps held as one group
    (array backwards), begin and end apart (a backward that builds Variables), leaf grads
    set and accumulated, retain_grad, a leaf whose stored grad is a Variable (its sum is a
    function, announced between the step's events), and a step that fails."""
    x = Variable(np.array([1.0, 2.0], np.float32), name='x')
    w = Variable(np.array([0.5, -1.0], np.float32), name='w')
    h = F.tanh(x * w) * w + x * 0.5  # x and w fan out: grads set, then added
    F.sum(h).backward(retain_grad=True)
    F.sum(Twice().apply((x * w,))[0]).backward()  # its backward applies functions
    v = Variable(np.array([3.0, 4.0], np.float32), name='v')
    v.grad_var = Variable(np.array([1.0, 1.0], np.float32))
    F.sum(v * v).backward()  # v's stored grad is a Variable: the sum is applied
    bad = BadBackward().apply((x,))[0]
    try:
        F.sum(bad * 2).backward()
    except ValueError:
        pass
    return x, w, v


class Twice(chainer.FunctionNode):
    """A function with only a Variable backward: events come between its step's begin
    and end."""

    label = 'twice'

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


class BadBackward(chainer.FunctionNode):
    label = 'bad'

    def forward(self, inputs):
        return inputs[0] * 1,

    def backward_arrays(self, indexes, gys):
        raise ValueError('this backward fails on purpose')


def test_backward_groups_give_the_events_a_callback_gets_field_by_field():
    seen = []
    with events.subscribe(seen.append):
        backward_program()
    with events.recording() as log:
        keep = backward_program()  # noqa: F841
    got, want = story(log), story(seen[:len(log)])
    assert [cls.kind for cls, _ in got] == [cls.kind for cls, _ in want]
    assert got == want
    kinds = [e.kind for e in log]
    assert 'grad_accumulated' in kinds and 'grad_restored' in kinds
    inside = [e for e in log.of_kind('function_applied') if e.in_backward_of is not None]
    assert {e.label for e in inside} >= {'_ * 2', '_ + _'}  # Twice's, and v's grad sum
    finished = log.of_kind('backward_finished')
    assert [e.ok for e in finished] == [True, True, True, False]
    assert [e.seq for e in log] == sorted(e.seq for e in log)


def test_a_ring_buffer_that_cut_a_step_gives_its_later_events():
    def program():
        x = Variable(np.array([1.0, 2.0], np.float32))
        F.sum(F.tanh(x * x) * x).backward()
        return x

    kept = []  # nothing collected while recording: each run tells the same story
    with events.recording() as full:
        kept.append(program())
    expected = story(full)
    for maxlen in range(1, len(full)):
        with events.recording(maxlen=maxlen) as log:
            kept.append(program())
        assert len(log) == maxlen and log.dropped == len(full) - maxlen
        tail = story(log)  # ids renamed from the first kept event on: compare kinds+values
        assert [cls for cls, _ in tail] == [cls for cls, _ in expected[-maxlen:]]
        assert [e.kind for e in log[maxlen // 2:]] == \
            [e.kind for e in full[len(full) - maxlen + maxlen // 2:]]
        assert [fields(e)[1].get('grad_inputs') for e in log] == \
            [fields(e)[1].get('grad_inputs') for e in full[-maxlen:]]


def test_an_announced_variable_still_copies_and_reports_its_collection():
    import copy
    import gc

    with events.recording() as log:
        x = Variable(np.array([1.0], np.float32), name='x')
        y = x * 2
        twin, deep = copy.copy(y), copy.deepcopy(y)  # the node's watch copies as a weakref
        assert deep.array.tolist() == [2.0] and twin.array is y.array
        ident = events.uid(y)
        del y, twin, deep
        gc.collect()
    assert ident in [e.var_id for e in log.of_kind('variable_collected')]


def dying_program():
    """Variables dropped as a chain grows, during backward, and at the end."""
    x = Variable(np.array([1.0, 2.0], np.float32), name='x')
    h = x
    for _ in range(3):
        h = F.tanh(h * 2)  # the previous h and h * 2 are let go
    loss = F.sum(Twice().apply((h,))[0])  # Twice's backward applies (and drops) functions
    del h
    loss.backward()
    return x, loss


def test_collections_come_in_the_order_and_place_a_callback_sees_them():
    """The other comparisons leave collections out; here Variables go as a chain grows,
    during backward and at the end, and a lone log still gives what a callback gets."""
    seen = []
    with events.subscribe(seen.append):
        kept = dying_program()
        del kept  # collected last of all
    with events.recording() as log:
        kept = dying_program()
        del kept
        collected = log.of_kind('variable_collected')
        assert collected and collected[-1].var_id == log.of_kind('variable_created')[0].var_id
    assert story(log) == story(seen)
    assert [e.seq for e in log] == list(range(log[0].seq, log[0].seq + len(log)))  # in order
    assert len([e for e in seen if e.kind == 'variable_collected']) == len(collected) > 6


def test_a_collection_is_told_only_to_those_listening_when_it_happened():
    x = Variable(np.ones(2, np.float32))
    with events.recording() as first:
        a, b = x * 2, x * 3
        a_id = events.uid(a)
        del a
    del b  # while nobody listens
    with events.recording() as second:
        pass
    assert [e.var_id for e in first.of_kind('variable_collected')] == [a_id]
    assert [e.kind for e in second] == [] and second.dropped == 0


def test_dropped_stays_exact_as_listeners_come_and_go():
    """A lone log is appended to directly and counts what it got by seqs; with another
    listener it counts each store.  Either way ``len + dropped`` is every event."""
    x = Variable(np.array([1.0, 2.0], np.float32))
    kept = []

    def work():
        kept.append(F.sum(F.tanh(x * x) + x))  # kept: no collection events in between
        kept[-1].backward()

    with events.recording() as everything:  # a lone log: the reference count
        for _ in range(3):
            work()
    per_round = len(everything) // 3
    assert per_round > 10 and len(everything) == 3 * per_round
    with events.recording(maxlen=7) as log:
        work()  # alone
        with events.subscribe(lambda e: None):
            work()  # with a plain callback: counted store by store
        events.VariableCreated(var_id=0, shape=None, dtype=None)  # made, not emitted: no seq
        work()  # alone again
    assert events.VariableCreated(var_id=0, shape=None, dtype=None).seq == 0
    assert len(log) == 7 and log.dropped == 3 * per_round - 7
    assert [e.kind for e in log] == [e.kind for e in everything][-7:]


class HalfBad(chainer.FunctionNode):
    """Its backward gives a good gradient for input 0 and a wrong-shaped one for input 1."""

    def forward(self, inputs):
        return inputs[0] + inputs[1],

    def backward_arrays(self, indexes, gys):
        return gys[0], np.ones(3, np.float32)


def test_a_step_that_fails_half_way_says_what_it_set_and_undid():
    """The first input's grad was set before the second one's failed the step: observers
    see it set and then restored, a log as a callback does, and nothing is left set."""
    a = Variable(np.ones(2, np.float32), name='a')
    b = Variable(np.ones(2, np.float32), name='b')
    y, = HalfBad().apply((a, b))
    stories, logged = [], None
    for listen in ('log', 'callback'):
        seen = []
        with (events.recording() if listen == 'log' else events.subscribe(seen.append)) as log:
            with pytest.raises(ValueError, match='shape'):
                F.sum(y).backward()
        evs = [e for e in (log if listen == 'log' else seen) if e.kind != 'variable_collected']
        logged = logged or evs
        stories.append(story(evs))
    assert stories[0] == stories[1]
    kinds = [e.kind for e in logged]
    at = kinds.index('grad_set')
    assert logged[at].var_id == events.uid(a)
    assert kinds[at + 1:] == ['grad_restored', 'grad_restored', 'backward_finished']
    assert events.uid(a) in {e.var_id for e in logged[at + 1:at + 3]}  # and the loss
    assert a.grad is None and b.grad is None and not logged[-1].ok
