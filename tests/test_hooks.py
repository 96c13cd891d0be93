"""FunctionHook: global and local registration and the exact callback order (spec section 18).

The event sequences below were recorded by running the same code on Chainer 7.8.1.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import FunctionHook, Variable


def f32(*values):
    return np.array(values, dtype=np.float32)


class Recorder(FunctionHook):
    """Logs (event, label) pairs, into a shared list when one is given."""

    def __init__(self, name='Recorder', log=None, tagged=False):
        self.name = name
        self.log = [] if log is None else log
        self.tagged = tagged

    def _add(self, event, function):
        label = None if function is None else function.label
        self.log.append((self.name, event, label) if self.tagged else (event, label))

    def added(self, function):
        self._add('added', function)

    def deleted(self, function):
        self._add('deleted', function)

    def forward_preprocess(self, function, in_data):
        self._add('fpre', function)

    def forward_postprocess(self, function, in_data):
        self._add('fpost', function)

    def backward_preprocess(self, function, in_data, out_grad):
        self._add('bpre', function)

    def backward_postprocess(self, function, in_data, out_grad):
        self._add('bpost', function)


def fwd(label):
    return [('fpre', label), ('fpost', label)]


# ---- the base class ---------------------------------------------------------------------------


class TestBaseClass:
    def test_name_and_no_op_callbacks(self):
        hook = FunctionHook()
        assert FunctionHook.name == 'FunctionHook' and hook.name == 'FunctionHook'
        x = Variable(f32(1))
        fn = (x * 2).creator
        assert hook.added(None) is None and hook.deleted(fn) is None
        assert hook.forward_preprocess(fn, (x.array,)) is None
        assert hook.forward_postprocess(fn, (x.array,)) is None
        assert hook.backward_preprocess(fn, (None,), (None,)) is None
        assert hook.backward_postprocess(fn, (None,), (None,)) is None

    def test_a_plain_hook_changes_nothing(self):
        x = Variable(f32(1, 2))
        with FunctionHook():
            F.sum(x * x).backward()
        np.testing.assert_array_equal(x.grad, f32(2, 4))


# ---- global registration --------------------------------------------------------------------


class TestGlobalRegistration:
    def test_with_registers_and_unregisters(self):
        hook = Recorder('G')
        assert 'G' not in chainer.get_function_hooks()
        with hook as entered:
            hooks = chainer.get_function_hooks()
            assert entered is hook
            assert list(hooks) == ['G'] and hooks['G'] is hook
            assert hook.log == [('added', None)]
        assert 'G' not in chainer.get_function_hooks()
        assert hook.log == [('added', None), ('deleted', None)]

    def test_registry_is_ordered_by_registration(self):
        with Recorder('B'), Recorder('A'), Recorder('C'):
            assert list(chainer.get_function_hooks()) == ['B', 'A', 'C']
        assert list(chainer.get_function_hooks()) == []

    def test_exception_still_unregisters(self):
        hook = Recorder('G')
        with pytest.raises(ValueError), hook:
            raise ValueError
        assert list(chainer.get_function_hooks()) == []
        assert hook.log[-1] == ('deleted', None)

    def test_duplicate_name_raises_key_error(self):
        first = Recorder('Same')
        with first:
            with pytest.raises(KeyError, match='hook Same already exists'):
                with Recorder('Same'):
                    pass  # pragma: no cover
            assert chainer.get_function_hooks()['Same'] is first
        assert list(chainer.get_function_hooks()) == []

    def test_registry_is_thread_local(self):
        seen = {}

        def worker():
            seen['hooks'] = list(chainer.get_function_hooks())
            Variable(f32(1)) * 2  # must not reach the other thread's hook

        hook = Recorder('G')
        with hook:
            t = threading.Thread(target=worker)
            t.start()
            t.join()
        assert seen['hooks'] == []
        assert hook.log == [('added', None), ('deleted', None)]


# ---- local registration ---------------------------------------------------------------------


class TestLocalRegistration:
    def test_add_and_delete(self):
        fn = (Variable(f32(1)) * 2).creator
        hook = Recorder('L')
        fn.add_hook(hook)
        assert list(fn.local_function_hooks) == ['L'] and fn.local_function_hooks['L'] is hook
        fn.add_hook(Recorder('L'), name='Other')
        assert list(fn.local_function_hooks) == ['L', 'Other']
        assert hook.log == [('added', '_ * 2')]
        fn.delete_hook('L')
        assert list(fn.local_function_hooks) == ['Other']
        assert hook.log == [('added', '_ * 2'), ('deleted', '_ * 2')]

    def test_errors(self):
        fn = (Variable(f32(1)) * 2).creator
        with pytest.raises(TypeError):
            fn.add_hook(object())
        fn.add_hook(Recorder('L'))
        with pytest.raises(KeyError):
            fn.add_hook(Recorder('L'))
        with pytest.raises(KeyError):
            fn.add_hook(Recorder('M'), name='L')
        with pytest.raises(KeyError):
            fn.delete_hook('missing')
        assert list(fn.local_function_hooks) == ['L']

    def test_local_hook_sees_only_its_node(self):
        x = Variable(f32(1, 2))
        h = x * 2
        y = h * 3
        hook = Recorder('L')
        y.creator.add_hook(hook)
        F.sum(y).backward()
        assert hook.log == [('added', '_ * 3'), ('bpre', '_ * 3'), ('bpost', '_ * 3')]


# ---- exact call order --------------------------------------------------------------------------


class TestCallOrder:
    def run(self, body):
        hook = Recorder()
        with hook:
            body()
        return hook.log

    def test_sum_of_product(self):
        x = Variable(f32(1, 2))
        log = self.run(lambda: F.sum(x * x).backward())
        assert log == [
            ('added', None), *fwd('_ * _'), *fwd('Sum'),
            ('bpre', 'Sum'), *fwd('BroadcastTo'), ('bpost', 'Sum'),
            # Mul.backward multiplies twice, then the two grads of x are summed
            ('bpre', '_ * _'), *fwd('_ * _'), *fwd('_ * _'), *fwd('_ + _'), ('bpost', '_ * _'),
            ('deleted', None)]
        np.testing.assert_array_equal(x.grad, f32(2, 4))

    def test_distinct_inputs_need_no_sum(self):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        log = self.run(lambda: F.sum(x * w).backward())
        assert log[-7:] == [('bpre', '_ * _'), *fwd('_ * _'), *fwd('_ * _'), ('bpost', '_ * _'),
                            ('deleted', None)]

    def test_fan_out(self):
        x = Variable(f32(1, 2))

        def body():
            a = x * 2
            F.sum(a + a * x).backward()

        assert self.run(body) == [
            ('added', None), *fwd('_ * 2'), *fwd('_ * _'), *fwd('_ + _'), *fwd('Sum'),
            ('bpre', 'Sum'), *fwd('BroadcastTo'), ('bpost', 'Sum'),
            ('bpre', '_ + _'), ('bpost', '_ + _'),
            ('bpre', '_ * _'), *fwd('_ * _'), *fwd('_ * _'), *fwd('_ + _'), ('bpost', '_ * _'),
            ('bpre', '_ * 2'), *fwd('_ * 2'), *fwd('_ + _'), ('bpost', '_ * 2'),
            ('deleted', None)]
        np.testing.assert_array_equal(x.grad, f32(6, 10))

    def test_double_backprop_has_the_same_order(self):
        x = Variable(f32(1, 2))
        log = self.run(lambda: F.sum(x * x).backward(enable_double_backprop=True))
        assert log == [
            ('added', None), *fwd('_ * _'), *fwd('Sum'),
            ('bpre', 'Sum'), *fwd('BroadcastTo'), ('bpost', 'Sum'),
            ('bpre', '_ * _'), *fwd('_ * _'), *fwd('_ * _'), *fwd('_ + _'), ('bpost', '_ * _'),
            ('deleted', None)]

    def test_adding_to_a_preset_grad_happens_inside_the_step(self):
        x = Variable(f32(1, 2))
        x.grad = f32(1, 1)
        log = self.run(lambda: F.sum(x * 3).backward())
        assert log[-7:] == [('bpre', '_ * 3'), *fwd('_ * 3'), *fwd('_ + _'), ('bpost', '_ * 3'),
                            ('deleted', None)]
        np.testing.assert_array_equal(x.grad, f32(4, 4))

    def test_grad_inputs_are_added_inside_the_step(self):
        x = Variable(f32(1, 2))
        log = self.run(lambda: chainer.grad([F.sum(x * 3)], [x], grad_inputs=[f32(1, 1)]))
        assert log[-7:] == [('bpre', '_ * 3'), *fwd('_ * 3'), *fwd('_ + _'), ('bpost', '_ * 3'),
                            ('deleted', None)]

    @pytest.mark.parametrize('kwargs, expected', [
        ({'axis': 1}, ['Reshape', 'BroadcastTo']),
        ({'axis': 1, 'keepdims': True}, ['BroadcastTo']),
        ({'axis': None, 'keepdims': True}, ['BroadcastTo']),
        ({}, ['BroadcastTo']),
    ])
    def test_sum_backward_applies_what_chainer_applies(self, kwargs, expected):
        x = Variable(np.ones((2, 3), np.float32))
        y = F.sum(x, **kwargs)
        hook = Recorder()
        with hook:
            y.grad = np.ones(y.shape, np.float32)
            y.backward()
        inner = hook.log[hook.log.index(('bpre', 'Sum')) + 1:hook.log.index(('bpost', 'Sum'))]
        assert [label for event, label in inner if event == 'fpre'] == expected

    def test_forward_events_during_backward_lie_between_pre_and_post(self):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))

        def body():
            h = x * w
            y = F.sum(h * h + F.exp(h) + x)
            y.backward(enable_double_backprop=True)

        log = self.run(body)
        start = log.index(('bpre', 'Sum'))
        assert all(event.startswith('f') for event, _ in log[1:start])
        depth = 0
        for event, _ in log[start:-1]:
            if event == 'bpre':
                assert depth == 0
                depth = 1
            elif event == 'bpost':
                assert depth == 1
                depth = 0
            else:
                assert depth == 1, 'a forward event outside any backward step'

    def test_global_hooks_then_local_hooks(self):
        log = []
        x = Variable(f32(1, 2))
        with Recorder('G1', log, tagged=True), Recorder('G2', log, tagged=True):
            y = x * 3
            y.creator.add_hook(Recorder('L1', log, tagged=True))
            y.creator.add_hook(Recorder('L0', log, tagged=True), name='Lx')
            F.sum(y).backward()
        glob = ('G1', 'G2')
        every = ('G1', 'G2', 'L1', 'L0')  # local hooks run after the global ones
        expected = [('G1', 'added', None), ('G2', 'added', None)]
        expected += [(g, e, '_ * 3') for e in ('fpre', 'fpost') for g in glob]
        expected += [('L1', 'added', '_ * 3'), ('L0', 'added', '_ * 3')]
        expected += [(g, e, 'Sum') for e in ('fpre', 'fpost') for g in glob]
        expected += [(g, 'bpre', 'Sum') for g in glob]
        expected += [(g, e, 'BroadcastTo') for e in ('fpre', 'fpost') for g in glob]
        expected += [(g, 'bpost', 'Sum') for g in glob]
        expected += [(g, 'bpre', '_ * 3') for g in every]
        expected += [(g, e, '_ * 3') for e in ('fpre', 'fpost') for g in glob]
        expected += [(g, 'bpost', '_ * 3') for g in every]
        expected += [('G2', 'deleted', None), ('G1', 'deleted', None)]
        assert log == expected

    def test_grad_fires_the_same_backward_hooks(self):
        x = Variable(f32(1, 2))
        y = F.sum(x * x)
        hook = Recorder()
        with hook:
            chainer.grad([y], [x])
        assert hook.log == [
            ('added', None), ('bpre', 'Sum'), *fwd('BroadcastTo'), ('bpost', 'Sum'),
            ('bpre', '_ * _'), *fwd('_ * _'), *fwd('_ * _'), *fwd('_ + _'), ('bpost', '_ * _'),
            ('deleted', None)]

    def test_no_backprop_mode_fires_forward_hooks_only(self):
        x = Variable(f32(1, 2))

        def body():
            with chainer.no_backprop_mode():
                x * 2

        assert self.run(body) == [('added', None), *fwd('_ * 2'), ('deleted', None)]


# ---- what the callbacks receive -----------------------------------------------------------------


class TestCallbackArguments:
    def test_forward_arguments_and_outputs_not_yet_linked(self):
        seen = []

        class Hook(FunctionHook):
            name = 'Args'

            def forward_preprocess(self, function, in_data):
                seen.append(('pre', function, in_data, function.outputs))

            def forward_postprocess(self, function, in_data):
                seen.append(('post', function, in_data, function.outputs))

        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        with Hook():
            y = x * w
        (_, f1, d1, o1), (_, f2, d2, o2) = seen
        assert f1 is f2 is y.creator
        assert type(d1) is tuple and d1[0] is x.array and d1[1] is w.array
        assert d2[0] is x.array and d2[1] is w.array
        assert o1 is None and o2 is None
        assert y.creator.outputs is not None

    def test_backward_arguments(self):
        seen = []

        class Hook(FunctionHook):
            name = 'Args'

            def backward_preprocess(self, function, in_data, out_grad):
                seen.append((function.label, in_data, out_grad))

        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        y = x * w + x  # Mul retains x and w; Add retains nothing
        with Hook():
            F.sum(y).backward()
        (l0, d0, g0), (l1, d1, g1), (l2, d2, g2) = seen
        assert (l0, l1, l2) == ('Sum', '_ + _', '_ * _')
        assert d0 == (None,)  # Sum's input was not retained
        assert type(g0[0]) is np.ndarray and g0[0] == 1
        assert d1[0] is None and d1[1] is x.array  # x's node data was retained by Mul
        np.testing.assert_array_equal(g1[0], f32(1, 1))
        assert d2[0] is x.array and d2[1] is w.array
        np.testing.assert_array_equal(g2[0], f32(1, 1))

    def test_out_grad_none_for_outputs_without_grad(self):
        seen = []

        class Split(chainer.FunctionNode):
            def forward(self, inputs):
                return inputs[0][:1].copy(), inputs[0][1:].copy()

            def backward(self, target_input_indexes, grad_outputs):
                ga, _ = grad_outputs
                return Variable(np.concatenate([ga.array, np.zeros(1, np.float32)])),

        class Hook(FunctionHook):
            name = 'Args'

            def backward_preprocess(self, function, in_data, out_grad):
                if function.label == 'Split':
                    seen.append(out_grad)

        x = Variable(f32(1, 2))
        a, _ = Split().apply((x,))
        with Hook():
            F.sum(a * 3).backward()
        (ga, gb), = seen
        np.testing.assert_array_equal(ga, f32(3))
        assert gb is None
        np.testing.assert_array_equal(x.grad, f32(3, 0))
