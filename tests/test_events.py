"""Graph events: the exact sequence the engine announces for the tutorial programs, double
backprop, grad(), unchain_backward, no_backprop_mode, a Link + optimizer step and failed
operations; plus the log's bounds, the snapshot policy, failing subscribers and threads.

Events are compared as short tuples (see :class:`Names`): ids become the user's names
for known variables, else ``v1, v2, ...`` for variables and ``f1, f2, ...`` for
functions in order of first appearance, so the sequences read like the story they tell.
"""

from __future__ import annotations

import dataclasses
import threading
import warnings
import weakref

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
import autograd_lab.optimizers as O
from autograd_lab import Variable, events

_VAR_FIELDS = ('var_id', 'root_id')
_VAR_TUPLES = ('input_ids', 'output_ids', 'target_input_ids', 'root_ids', 'var_ids')
_FUNC_FIELDS = ('func_id', 'in_backward_of', 'creator_id')
_FUNC_TUPLES = ('frontier_ids', 'func_ids')


def plain(v):
    """Arrays as nested lists, so that events compare with ``==``."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, tuple):
        return tuple(plain(x) for x in v)
    return v


class Names:
    """Symbolic names for event ids (shared with test_stepper for normalised comparisons)."""

    def __init__(self, **known):
        self.names = {events.uid(obj): name for name, obj in known.items()}
        self.counts = {'v': 0, 'f': 0, 'r': 0}

    def __call__(self, ident, prefix):
        if ident is None:
            return None
        if ident not in self.names:
            self.counts[prefix] += 1
            self.names[ident] = f'{prefix}{self.counts[prefix]}'
        return self.names[ident]

    def event(self, e):
        """``(kind, fields)`` with ids renamed and ``seq``/``thread``/``reason`` left out."""
        out = {}
        for key, v in vars(e).items():
            if key in ('seq', 'thread', 'reason'):
                continue
            if key in _VAR_FIELDS:
                v = self(v, 'v')
            elif key in _FUNC_FIELDS:
                v = self(v, 'f')
            elif key == 'run_id':
                v = self(v, 'r')
            elif key in _VAR_TUPLES:
                v = tuple(self(i, 'v') for i in v)
            elif key in _FUNC_TUPLES:
                v = tuple(self(i, 'f') for i in v)
            else:
                v = plain(v)
            out[key] = v
        return e.kind, out

    def compact(self, e):
        kind, f = self.event(e)
        if kind == 'variable_created':
            return ('new', f['var_id'], f['creator_id'])
        if kind == 'function_applied':
            extra = () if f['recorded'] else ('unrecorded',)
            if f['in_backward_of'] is not None:
                extra += ('in_backward_of', f['in_backward_of'])
            return ('apply', f['func_id'], f['label'], f['input_ids'], f['output_ids'], *extra)
        if kind == 'backward_started':
            return ('start', f['mode'], f['root_ids'])
        if kind == 'backward_step_started':
            return ('step', f['func_id'], f['frontier_ids'], f['grad_outputs'])
        if kind == 'backward_step_done':
            return ('done', f['func_id'], f['target_input_ids'], f['grad_inputs'],
                    f['accumulation'])
        if kind == 'backward_finished':
            return ('finished', f['ok'])
        if kind.startswith('grad_'):
            return (kind[5:], f['var_id'], f['grad'])
        if kind == 'unchained':
            return ('unchained', f['root_id'], f['backward'], f['var_ids'], f['func_ids'])
        if kind == 'parameter_updated':
            return ('updated', f['var_id'], f['optimizer'], f['rule'], f['step'], f['data'])
        return (kind, *f.values())

    def story(self, log, keep_collected=False):
        return [self.compact(e) for e in log if keep_collected or e.kind != 'variable_collected']


def f32(*values):
    return np.array(values, dtype=np.float32)


ONES = [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


# ---- the tutorial --------------------------------------------------------------------------------


class TestTutorial:
    def test_scalar_polynomial(self):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)  # one-element backward
            with events.recording() as log:
                x = Variable(np.array([5], dtype=np.float32), name='x')
                y = x**2 - 2*x + 1
                y.backward()
        assert Names(x=x, y=y).story(log) == [
            ('new', 'x', None),
            ('new', 'v1', 'f1'), ('apply', 'f1', '_ ** 2', ('x',), ('v1',)),
            ('new', 'v2', 'f2'), ('apply', 'f2', '_ * 2', ('x',), ('v2',)),
            ('new', 'v3', 'f3'), ('apply', 'f3', '_ - _', ('v1', 'v2'), ('v3',)),
            ('new', 'y', 'f4'), ('apply', 'f4', '_ + 1', ('v3',), ('y',)),
            ('start', 'backward', ('y',)),
            ('step', 'f4', ('f4',), ([1.0],)),
            ('released', 'y', None),
            ('done', 'f4', ('v3',), ([1.0],), ('set',)),
            ('step', 'f3', ('f3',), ([1.0],)),
            ('released', 'v3', None),
            ('done', 'f3', ('v1', 'v2'), ([1.0], [-1.0]), ('set', 'set')),
            # both x-functions wait at rank 0: the first pushed goes first
            ('step', 'f1', ('f1', 'f2'), ([1.0],)),
            ('set', 'x', [10.0]),
            ('released', 'v1', None),
            ('done', 'f1', ('x',), ([10.0],), ('set',)),
            ('step', 'f2', ('f2',), ([-1.0],)),
            ('accumulated', 'x', [8.0]),
            ('released', 'v2', None),
            ('done', 'f2', ('x',), ([-2.0],), ('added',)),
            ('finished', True)]
        assert x.grad.tolist() == [8.0]

    def test_the_first_event_fields(self):
        with events.recording() as log:
            x = Variable(np.array([5], dtype=np.float32), name='x')
            y = x ** 2
        created, out, applied = log
        assert (created.var_id, created.name, created.shape, created.dtype, created.device,
                created.requires_grad, created.is_parameter, created.creator_id) == (
            events.uid(x), 'x', (1,), 'float32', '@numpy', True, False, None)
        np.testing.assert_array_equal(created.data, f32(5))
        assert (out.var_id, out.creator_id) == (events.uid(y), events.uid(y.creator))
        assert (applied.type, applied.label, applied.rank, applied.recorded) == (
            'PowVarConst', '_ ** 2', 0, True)
        assert created.seq < out.seq < applied.seq

    def test_retain_grad(self):
        x = Variable(np.array([5], dtype=np.float32), name='x')
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            with events.recording() as log:
                z = 2*x
                y = x**2 - z + 1
                y.backward(retain_grad=True)
        assert Names(x=x, y=y, z=z).story(log) == [
            ('new', 'z', 'f1'), ('apply', 'f1', '_ * 2', ('x',), ('z',)),
            ('new', 'v1', 'f2'), ('apply', 'f2', '_ ** 2', ('x',), ('v1',)),
            ('new', 'v2', 'f3'), ('apply', 'f3', '_ - _', ('v1', 'z'), ('v2',)),
            ('new', 'y', 'f4'), ('apply', 'f4', '_ + 1', ('v2',), ('y',)),
            ('start', 'backward', ('y',)),
            ('step', 'f4', ('f4',), ([1.0],)),
            ('set', 'y', [1.0]),  # retained instead of released
            ('done', 'f4', ('v2',), ([1.0],), ('set',)),
            ('step', 'f3', ('f3',), ([1.0],)),
            ('done', 'f3', ('v1', 'z'), ([1.0], [-1.0]), ('set', 'set')),
            ('step', 'f2', ('f2', 'f1'), ([1.0],)),
            ('set', 'x', [10.0]),
            ('done', 'f2', ('x',), ([10.0],), ('set',)),
            ('step', 'f1', ('f1',), ([-1.0],)),
            ('set', 'z', [-1.0]),
            ('accumulated', 'x', [8.0]),
            ('done', 'f1', ('x',), ([-2.0],), ('added',)),
            ('finished', True)]
        assert (z.grad.tolist(), y.grad.tolist(), x.grad.tolist()) == ([-1.0], [1.0], [8.0])

    def test_vector_with_initial_grad(self):
        x = Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32), name='x')
        with events.recording() as log:
            y = x**2 - 2*x + 1
            y.grad = np.ones((2, 3), dtype=np.float32)
            y.backward()
        minus = [[-1.0] * 3] * 2
        assert Names(x=x, y=y).story(log) == [
            ('new', 'v1', 'f1'), ('apply', 'f1', '_ ** 2', ('x',), ('v1',)),
            ('new', 'v2', 'f2'), ('apply', 'f2', '_ * 2', ('x',), ('v2',)),
            ('new', 'v3', 'f3'), ('apply', 'f3', '_ - _', ('v1', 'v2'), ('v3',)),
            ('new', 'y', 'f4'), ('apply', 'f4', '_ + 1', ('v3',), ('y',)),
            ('set', 'y', ONES),
            ('start', 'backward', ('y',)),
            ('step', 'f4', ('f4',), (ONES,)),
            ('released', 'y', None),
            ('done', 'f4', ('v3',), (ONES,), ('set',)),
            ('step', 'f3', ('f3',), (ONES,)),
            ('released', 'v3', None),
            ('done', 'f3', ('v1', 'v2'), (ONES, minus), ('set', 'set')),
            ('step', 'f1', ('f1', 'f2'), (ONES,)),
            ('set', 'x', [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]),
            ('released', 'v1', None),
            ('done', 'f1', ('x',), ([[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]],), ('set',)),
            ('step', 'f2', ('f2',), (minus,)),
            ('accumulated', 'x', [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]),
            ('released', 'v2', None),
            ('done', 'f2', ('x',), ([[-2.0] * 3] * 2,), ('added',)),
            ('finished', True)]

    def test_cleargrad(self):
        x = Variable(f32(1), name='x')
        x.grad = f32(3)
        with events.recording() as log:
            x.cleargrad()
        assert Names(x=x).story(log) == [('cleared', 'x', None)]

    def test_backward_of_a_leaf_sets_its_grad(self):
        x = Variable(np.array(2.0, np.float32), name='x')
        with events.recording() as log:
            x.backward()
        assert Names(x=x).story(log) == [
            ('start', 'backward', ('x',)), ('set', 'x', 1.0), ('finished', True)]


# ---- double backprop and grad() ----------------------------------------------------------------


class TestHigherOrder:
    def test_double_backprop(self):
        x = Variable(f32(2), name='x')
        with events.recording() as log:
            y = x ** 3
            y.grad = f32(1)
            y.backward(enable_double_backprop=True)
            gx = x.grad_var
            x.cleargrad()
            gx.grad = f32(1)
            gx.backward()
        assert Names(x=x, y=y, gx=gx).story(log) == [
            ('new', 'y', 'f1'), ('apply', 'f1', '_ ** 3', ('x',), ('y',)),
            ('set', 'y', [1.0]),
            ('start', 'backward', ('y',)),
            ('new', 'v1', None),  # the seed, as a Variable: gradients are differentiable
            ('step', 'f1', ('f1',), ([1.0],)),
            # the gradient's own graph, applied inside f1's backward
            ('new', 'v2', 'f2'), ('apply', 'f2', '_ ** 2.0', ('x',), ('v2',),
                                  'in_backward_of', 'f1'),
            ('new', 'v3', 'f3'), ('apply', 'f3', '_ * 3.0', ('v2',), ('v3',),
                                  'in_backward_of', 'f1'),
            ('new', 'gx', 'f4'), ('apply', 'f4', '_ * _', ('v3', 'v1'), ('gx',),
                                  'in_backward_of', 'f1'),
            ('set', 'x', [12.0]),
            ('released', 'y', None),
            ('done', 'f1', ('x',), ([12.0],), ('set',)),
            ('finished', True),
            ('cleared', 'x', None),
            ('set', 'gx', [1.0]),
            ('start', 'backward', ('gx',)),
            ('step', 'f4', ('f4',), ([1.0],)),
            ('released', 'gx', None),
            # the seed's gradient is computed, but its Variable is gone: nobody receives it
            ('done', 'f4', ('v3', 'v1'), ([1.0], [12.0]), ('set', None)),
            ('step', 'f3', ('f3',), ([1.0],)),
            ('released', 'v3', None),
            ('done', 'f3', ('v2',), ([3.0],), ('set',)),
            ('step', 'f2', ('f2',), ([3.0],)),
            ('set', 'x', [12.0]),
            ('released', 'v2', None),
            ('done', 'f2', ('x',), ([12.0],), ('set',)),
            ('finished', True)]
        assert x.grad.tolist() == [12.0]  # d(3x^2)/dx at 2

    def test_grad_with_set_grad(self):
        x = Variable(np.array(2.0, np.float32), name='x')
        w = Variable(np.array(3.0, np.float32), name='w')
        with events.recording() as log:
            y = x * w
            gx, = chainer.grad([y], [x], set_grad=True)
        assert Names(x=x, w=w, y=y, gx=gx).story(log) == [
            ('new', 'y', 'f1'), ('apply', 'f1', '_ * _', ('x', 'w'), ('y',)),
            ('start', 'grad', ('y',)),
            ('step', 'f1', ('f1',), (1.0,)),
            ('released', 'y', None),
            ('done', 'f1', ('x',), (3.0,), ('set',)),  # only the asked-for input: not w
            ('new', 'gx', None),
            ('set', 'x', 3.0),  # set_grad, before the run says it finished
            ('finished', True)]
        assert w.grad is None and x.grad_var is gx

    def test_grad_leaves_grads_alone(self):
        x = Variable(np.array(2.0, np.float32), name='x')
        y = x * x
        with events.recording() as log:
            chainer.grad([y], [x])
        kinds = [e.kind for e in log if e.kind != 'variable_collected']
        assert 'grad_set' not in kinds and 'grad_accumulated' not in kinds
        assert kinds[0] == 'backward_started' and kinds[-1] == 'backward_finished'
        assert log[0].mode == 'grad'

    def test_nested_grad_is_tagged_with_each_backward(self):
        x = Variable(np.array(2.0, np.float32), name='x')
        with events.recording() as log:
            g1, = chainer.grad([x ** 3], [x], enable_double_backprop=True)
            g2, = chainer.grad([g1], [x], enable_double_backprop=True)
        tags = [(e.label, e.in_backward_of is not None) for e in log.of_kind('function_applied')]
        assert tags[0] == ('_ ** 3', False)
        assert all(inside for _, inside in tags[1:])
        assert g2.array == 12.0
        runs = log.of_kind('backward_started')
        assert len(runs) == 2 and runs[0].run_id != runs[1].run_id
        assert [e.ok for e in log.of_kind('backward_finished')] == [True, True]


# ---- graph surgery and modes -------------------------------------------------------------------


class TestGraphChanges:
    def test_unchain_backward_names_what_it_cut(self):
        x = Variable(f32(2), name='x')
        with events.recording() as log:
            h = x * x
            y = F.exp(h) + h
            y.unchain_backward()
        assert Names(x=x, y=y, h=h).story(log) == [
            ('new', 'h', 'f1'), ('apply', 'f1', '_ * _', ('x', 'x'), ('h',)),
            ('new', 'v1', 'f2'), ('apply', 'f2', 'exp', ('h',), ('v1',)),
            ('new', 'y', 'f3'), ('apply', 'f3', '_ + _', ('v1', 'h'), ('y',)),
            # exp's output died with the graph: only live nodes are reported cut
            ('unchained', 'y', True, ('y', 'h'), ('f3', 'f1', 'f2'))]
        assert y.creator is None and h.creator is None

    def test_unchain(self):
        x = Variable(f32(2), name='x')
        y = x * 2
        z = x * 3
        with events.recording() as log:
            y.unchain()
            x.unchain()  # a leaf: nothing to cut
        assert Names(x=x, y=y).story(log) == [
            ('unchained', 'y', False, ('y',), ()), ('unchained', 'x', False, (), ())]
        assert z.creator is not None

    def test_no_backprop_mode_records_nothing(self):
        x = Variable(f32(2), name='x')
        with events.recording() as log:
            with chainer.no_backprop_mode():
                z = x * 3
        assert Names(x=x, z=z).story(log) == [
            ('new', 'z', None), ('apply', 'f1', '_ * 3', ('x',), ('z',), 'unrecorded')]
        assert log[1].rank == 0 and z.creator is None

    def test_data_and_device_events(self):
        x = Variable(f32(1, 2), name='x')
        y = Variable(f32(5, 6), name='y')
        with events.recording() as log:
            x.array = f32(3, 4)
            x.copydata(y)
            x.to_cpu()
        assert [(e.kind, getattr(e, 'how', None)) for e in log] == [
            ('data_changed', 'replaced'), ('data_changed', 'copied'), ('device_moved', None)]
        assert log[1].data.tolist() == [5.0, 6.0]
        assert (log[2].source, log[2].destination) == ('@numpy', '@numpy')


# ---- a Link and an optimizer -------------------------------------------------------------------


class TestOptimizerStep:
    def test_linear_and_sgd(self):
        model = L.Linear(2, 1, initialW=np.array([[1.0, 2.0]], np.float32),
                         initial_bias=np.zeros(1, np.float32))
        opt = O.SGD(lr=0.1).setup(model)
        x = np.array([[1.0, 1.0]], np.float32)
        with events.recording() as log:
            opt.update(lambda: F.sum(model(x)))
        story = Names(W=model.W, b=model.b).story(log)
        assert story == [
            ('new', 'v1', None),  # the input array, wrapped once the call succeeded
            ('new', 'v2', 'f1'), ('apply', 'f1', 'LinearFunction', ('v1', 'W', 'b'), ('v2',)),
            ('new', 'v3', 'f2'), ('apply', 'f2', 'Sum', ('v2',), ('v3',)),
            ('cleared', 'W', None), ('cleared', 'b', None),  # target.cleargrads()
            ('start', 'backward', ('v3',)),
            ('step', 'f2', ('f2',), (1.0,)),
            ('released', 'v3', None),
            ('done', 'f2', ('v2',), ([[1.0]],), ('set',)),
            ('step', 'f1', ('f1',), ([[1.0]],)),
            ('set', 'W', [[1.0, 1.0]]), ('set', 'b', [1.0]),
            ('released', 'v2', None),
            ('done', 'f1', ('W', 'b'), ([[1.0, 1.0]], [1.0]), ('set', 'set')),
            ('finished', True),
            ('updated', 'W', 'SGD', 'SGDRule', 1, f32(0.9, 1.9)[None].tolist()),
            ('updated', 'b', 'SGD', 'SGDRule', 1, f32(-0.1).tolist())]
        np.testing.assert_allclose(model.W.array, [[0.9, 1.9]])
        assert log[-1].step == opt.t == 1

    def test_update_events_count_steps(self):
        model = L.Linear(3, 2)
        opt = O.Adam().setup(model)
        x = np.ones((4, 3), np.float32)
        with events.recording() as log:
            for _ in range(3):
                opt.update(lambda: F.sum(model(x) ** 2))
        updates = log.of_kind('parameter_updated')
        assert [(e.rule, e.optimizer, e.step) for e in updates] == [
            ('AdamRule', 'Adam', t) for t in (1, 2, 3) for _ in range(2)]
        np.testing.assert_array_equal(updates[-2].data, model.W.array)

    def test_a_rule_made_by_hand_has_no_optimizer(self):
        class Halve(chainer.UpdateRule):
            def update_core(self, param):
                param.array[...] *= 0.5

        p = chainer.Parameter(np.array([4.0], np.float32))
        p.update_rule = Halve()
        with events.recording() as log:
            p.update()
        (e,) = log
        assert (e.optimizer, e.rule, e.step, e.data.tolist()) == ('', 'Halve', 1, [2.0])

    def test_unobserved_updates_build_no_events(self, monkeypatch):
        built = []
        monkeypatch.setattr(events, 'ParameterUpdated',
                            lambda **kw: built.append(kw))  # would record any construction
        model = L.Linear(2, 1)
        opt = O.SGD().setup(model)
        opt.update(lambda: F.sum(model(np.ones((1, 2), np.float32))))
        assert built == []


# ---- failed operations -------------------------------------------------------------------------


class Fails(chainer.FunctionNode):
    """Doubles forward; its backward raises."""

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, target_input_indexes, grad_outputs):
        raise RuntimeError('boom')


class TestFailures:
    @pytest.mark.parametrize('operation', [
        lambda a, b: a + b,
        lambda a, b: a * b.array,  # a raw array operand is wrapped only on success
        F.matmul,
        lambda a, b: F.concat([a, b.array.reshape(1, 3)], axis=1),
    ])
    def test_forward_shape_mismatch_emits_nothing(self, operation):
        a = Variable(np.ones(2, np.float32), name='a')
        b = Variable(np.ones(3, np.float32), name='b')
        with events.recording() as log:
            with pytest.raises(Exception):  # noqa: B017 - InvalidType/ValueError
                operation(a, b)
        assert list(log) == []

    def test_exception_in_forward_emits_nothing(self):
        class Raises(chainer.FunctionNode):
            def forward(self, inputs):
                raise ValueError('bad forward')

        x = Variable(f32(1))
        with events.recording() as log:
            with pytest.raises(ValueError):
                Raises().apply((x, np.ones(1, np.float32)))
        assert list(log) == []

    def test_exception_in_backward_restores_and_says_so(self):
        x = Variable(f32(1, 2), name='x')
        x.grad = f32(10, 10)
        with events.recording() as log:
            h, = Fails().apply((x,))
            y = F.sum(h * x)
            with pytest.raises(RuntimeError, match='boom'):
                y.backward(retain_grad=True)
        story = Names(x=x, y=y, h=h).story(log)
        assert story == [
            ('new', 'h', 'f1'), ('apply', 'f1', 'Fails', ('x',), ('h',)),
            ('new', 'v1', 'f2'), ('apply', 'f2', '_ * _', ('h', 'x'), ('v1',)),
            ('new', 'y', 'f3'), ('apply', 'f3', 'Sum', ('v1',), ('y',)),
            ('start', 'backward', ('y',)),
            ('step', 'f3', ('f3',), (1.0,)),
            ('set', 'y', 1.0),
            ('done', 'f3', ('v1',), ([1.0, 1.0],), ('set',)),
            ('step', 'f2', ('f2',), ([1.0, 1.0],)),
            ('accumulated', 'x', [12.0, 14.0]),
            ('done', 'f2', ('h', 'x'), ([1.0, 2.0], [2.0, 4.0]), ('set', 'added')),
            ('step', 'f1', ('f1',), ([1.0, 2.0],)),
            ('set', 'h', [1.0, 2.0]),
            ('new', 'v2', None),  # h's gradient handed to the user's backward as a Variable
            # ... which raised: every gradient goes back to what it was before backward()
            ('restored', 'y', None), ('restored', 'x', [10.0, 10.0]), ('restored', 'h', None),
            ('finished', False)]
        (finished,) = log.of_kind('backward_finished')
        assert 'boom' in finished.error
        assert x.grad.tolist() == [10.0, 10.0] and y.grad is None and h.grad is None
        assert not [e for e in log if e.kind == 'backward_step_done' and
                    e.func_id == events.uid(h.creator)]

    def test_failed_grad_restores_set_grad_targets_untouched(self):
        x = Variable(f32(1, 2), name='x')
        x.grad = f32(7, 7)
        h, = Fails().apply((x,))
        with events.recording() as log:
            with pytest.raises(RuntimeError):
                chainer.grad([F.sum(h)], [x], set_grad=True)
        kinds = [e.kind for e in log if e.kind != 'variable_collected']
        assert kinds[-1] == 'backward_finished' and not log.of_kind('backward_finished')[0].ok
        assert 'grad_set' not in kinds
        assert x.grad.tolist() == [7.0, 7.0]


# ---- the event types ----------------------------------------------------------------------------


_GRAD_EVENTS = ('GradSet', 'GradAccumulated', 'GradCleared', 'GradReleased', 'GradZeroed',
                'GradAdded', 'GradRestored')


@pytest.mark.parametrize('name', [n for n in events.__all__ if isinstance(
    getattr(events, n), type) and issubclass(getattr(events, n), events.Event)
    and n not in ('Event', 'GradChanged')])
def test_an_event_needs_the_fields_that_say_what_happened(name):
    cls = getattr(events, name)
    with pytest.raises(TypeError, match=r'missing \d+ required keyword-only'):
        cls()
    required = [f.name for f in dataclasses.fields(cls) if f.init and
                f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    with pytest.raises(TypeError, match='positional'):
        cls(*range(len(required)))
    event = cls(**dict.fromkeys(required, 7))
    assert repr(event).startswith(f'{name}(seq=0, ') and event.kind in _kinds()


def _kinds() -> set:
    return {getattr(events, n).kind for n in events.__all__ if isinstance(
        getattr(events, n), type) and issubclass(getattr(events, n), events.Event)}


def test_each_grad_event_is_a_class_of_its_own_named_for_what_happened():
    kinds = [getattr(events, n).kind for n in _GRAD_EVENTS]
    assert kinds == ['grad_set', 'grad_accumulated', 'grad_cleared', 'grad_released',
                     'grad_zeroed', 'grad_added', 'grad_restored']
    for name in _GRAD_EVENTS:
        cls = getattr(events, name)
        assert cls.__name__ == name and issubclass(cls, events.GradChanged) and cls.__doc__
        assert repr(cls(var_id=3, grad=None)).startswith(f'{name}(')


# ---- the log, snapshots, subscribers, threads ---------------------------------------------------


class TestLogAndSnapshots:
    def test_ring_buffer_keeps_the_newest_and_counts_the_dropped(self):
        chain = [Variable(f32(1), name='x')]
        with events.recording(maxlen=5) as log:
            for _ in range(4):
                chain.append(chain[-1] * 2)  # two events each
        assert len(log) == 5 and log.maxlen == 5 and log.dropped == 3
        seqs = [e.seq for e in log]
        assert seqs == sorted(seqs) and log[-1].kind == 'function_applied'

    def test_reading_changes_nothing_and_keeps_no_event_the_ring_let_go(self):
        log = events.EventLog(maxlen=2)
        first = events.VariableRenamed(var_id=1, name='a')
        log(first)
        gone = weakref.ref(first)
        del first
        with events.subscribe(log), events.subscribe(lambda e: None):  # counted store by store
            x = Variable(f32(1))
            reads = [(len(log), log.dropped, [e.kind for e in log]) for _ in range(3)]
            assert reads == [(2, 0, ['variable_renamed', 'variable_created'])] * 3
            y = x * 2  # one stored group of two events: pushes the first event out
        assert gone() is None  # no earlier read holds on to it
        reads = [(len(log), log.dropped, [e.kind for e in log]) for _ in range(3)]
        assert reads == [(2, 2, ['variable_created', 'function_applied'])] * 3
        assert log[-1].output_ids == (events.uid(y),)

    def test_default_bound(self):
        with events.recording() as log:
            pass
        assert log.maxlen == events.DEFAULT_LOG_SIZE == 100_000 and log.dropped == 0

    def test_log_slices_and_kinds(self):
        with events.recording() as log:
            x = Variable(f32(1))
            y = x * 2
        assert y.creator is not None
        assert [e.kind for e in log[1:]] == ['variable_created', 'function_applied']
        assert len(log.of_kind('variable_created')) == 2

    def test_small_arrays_are_copied(self):
        a = np.arange(events.SNAPSHOT_MAX_ELEMENTS, dtype=np.float32)
        snap = events.snapshot(a)
        a[0] = 99
        assert type(snap) is np.ndarray and snap[0] == 0 and snap.shape == a.shape

    def test_large_arrays_are_summarised_with_nan_and_inf_counts(self):
        a = np.arange(100, dtype=np.float32)
        a[:3] = np.nan
        a[3] = np.inf
        a[4] = -np.inf
        s = events.snapshot(a)
        assert isinstance(s, events.Summary)
        finite = np.arange(5, 100, dtype=np.float64)
        assert (s.shape, s.dtype, s.nan_count, s.inf_count) == ((100,), 'float32', 3, 2)
        assert (s.min, s.max) == (5.0, 99.0)
        assert s.mean == pytest.approx(finite.mean())
        assert s.norm == pytest.approx(np.linalg.norm(finite))

    def test_all_nan_summary(self):
        s = events.snapshot(np.full(100, np.nan, np.float32))
        assert s.nan_count == 100 and s.inf_count == 0

    def test_events_carry_snapshots_not_live_arrays(self):
        x = Variable(f32(1, 2), name='x')
        with events.recording() as log:
            x.grad = f32(3, 4)
        x.grad[...] = 0
        assert log[0].grad.tolist() == [3.0, 4.0]

    def test_big_grads_are_summarised_in_events(self):
        x = Variable(np.ones(1000, np.float32))
        with events.recording() as log:
            F.sum(x * 2).backward()
        (set_event,) = log.of_kind('grad_set')
        assert isinstance(set_event.grad, events.Summary) and set_event.grad.max == 2.0

    def test_ids_are_stable_and_never_reused(self):
        a = Variable(f32(1))
        first = events.uid(a)
        assert events.uid(a) == first == events.uid(a.node)
        del a
        b = Variable(f32(1))
        assert events.uid(b) > first


class TestSubscribers:
    def test_a_log_and_a_plain_callback_see_the_same_events(self):
        # The log keeps compact records and makes the events when read; a callback gets
        # them at once.  Both must be the same typed events, field by field.
        seen = []
        x = Variable(f32(1, 2), name='x')
        with events.subscribe(seen.append), events.recording() as log:
            y = F.sum(F.tanh(x * x) + x)
            y.backward(retain_grad=True)
            x.cleargrad()
            del y
        assert len(seen) == len(log) > 10
        for direct, stored in zip(seen, log):
            assert type(direct) is type(stored)
            assert {k: plain(v) for k, v in vars(direct).items()} == \
                {k: plain(v) for k, v in vars(stored).items()}
            assert set(vars(stored)) == {f.name for f in dataclasses.fields(stored)}
        step = log.of_kind('backward_step_started')[0]
        assert step.reason.startswith('Sum (rank 3) has the highest rank')
        assert step.frontier_size == 1

    def test_the_frontier_listed_is_bounded(self):
        x = Variable(f32(1), name='x')
        parts = [x * float(k) for k in range(events.FRONTIER_MAX + 5)]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        with events.recording() as log:
            F.sum(total).backward()
        widest = max(log.of_kind('backward_step_started'), key=lambda e: e.frontier_size)
        assert widest.frontier_size == events.FRONTIER_MAX + 5
        assert len(widest.frontier_ids) == events.FRONTIER_MAX
        assert widest.frontier_ids[0] == widest.func_id
        assert f'of the {events.FRONTIER_MAX + 5} waiting' in widest.reason

    def test_a_raising_subscriber_warns_and_changes_nothing(self):
        def broken(event):
            raise ValueError('observer bug')

        seen = []
        x = Variable(f32(1, 2))
        with events.subscribe(broken), events.subscribe(seen.append):
            with pytest.warns(events.EventSubscriberWarning, match='observer bug'):
                y = F.sum(x * x)
                y.backward()
        np.testing.assert_array_equal(x.grad, f32(2, 4))
        assert [e.kind for e in seen][-1] == 'backward_finished'  # the others still got all

    def test_unsubscribe_stops_delivery_and_clears_the_switch(self):
        seen = []
        sub = events.subscribe(seen.append)
        a = Variable(f32(1))
        sub.unsubscribe()
        b = Variable(f32(1))
        assert [e.kind for e in seen] == ['variable_created'] and events.active is False
        assert seen[0].var_id == events.uid(a) != events.uid(b)

    def test_nothing_is_built_without_subscribers(self, monkeypatch):
        def forbidden(*args, **kwargs):
            raise AssertionError('an event was built with nobody listening')

        monkeypatch.setattr(events, 'snapshot', forbidden)
        x = Variable(f32(1, 2))
        F.sum(x * x).backward()
        x.cleargrad()
        assert events.active is False


class TestThreads:
    def test_two_threads_each_get_their_own_tagged_story(self):
        barrier = threading.Barrier(2)
        results = {}

        def work(k):
            barrier.wait()
            x = Variable(np.full(3, k + 1.0, np.float32))
            for _ in range(30):
                y = F.sum(x * x + x)
                y.backward()
                x.cleargrad()
            results[k] = threading.get_ident()

        with events.recording() as log:
            threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        by_thread = {ident: [e for e in log if e.thread == ident] for ident in results.values()}
        assert sum(len(v) for v in by_thread.values()) == len(log)
        stories = [Names().story(evs) for evs in by_thread.values()]
        # the same program in each thread: the same story, apart from the values
        strip = [[s[:3] if s[0] in ('done', 'step') else s[:2] for s in story]
                 for story in stories]
        assert strip[0] == strip[1]
        assert len([e for e in by_thread[results[0]] if e.kind == 'backward_finished']) == 30
        seqs = [e.seq for e in log]
        assert len(set(seqs)) == len(seqs)
        ids = [e.var_id for e in log.of_kind('variable_created')]
        assert len(set(ids)) == len(ids)  # no id handed out twice across threads

    def test_backward_context_is_per_thread(self):
        inside = []
        go = threading.Event()

        class Slow(chainer.FunctionNode):
            def forward(self, inputs):
                # x + x rather than x * 2: NumPy 1.x turns a 0-d float32 times 2 into float64
                return inputs[0] + inputs[0],

            def backward(self, target_input_indexes, grad_outputs):
                go.set()
                inside.append(events.in_backward_of())
                return grad_outputs[0] * 2,

        def other():
            go.wait(10)
            inside.append(events.in_backward_of())

        with events.recording():
            x = Variable(np.array(1.0, np.float32))
            y, = Slow().apply((x,))
            t = threading.Thread(target=other)
            t.start()
            y.backward()
            t.join()
        assert inside[0] == events.uid(y.creator) and None in inside
