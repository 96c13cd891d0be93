"""Graph construction and graph surgery.

Spec section 5 (FunctionNode.apply), section 12 (unchain / unchain_backward /
set_creator / retain_data / get_variable, quirks Q10 and Q15) and the forward
half of section 17 (the FunctionNode subclass contract).  Expected values come
from the spec and were checked against Chainer 7.8.1.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import FunctionNode, Variable, VariableNode
from autograd_lab.utils.type_check import InvalidType


def f32(*values):
    return np.array(values, dtype=np.float32)


class Copy(FunctionNode):
    """Returns a copy of every input: n inputs, n outputs, identity gradients."""

    def __init__(self):
        self.forward_calls = 0

    def forward(self, inputs):
        self.forward_calls += 1
        return tuple(a.copy() for a in inputs)

    def backward(self, target_input_indexes, grad_outputs):
        return grad_outputs


class MulAdd(FunctionNode):
    """(x0 * x1, x0 + x1), retaining input 1 and output 0."""

    def forward(self, inputs):
        self.retain_inputs((1,))
        self.retain_outputs((0,))
        x0, x1 = inputs
        return x0 * x1, x0 + x1

    def backward(self, target_input_indexes, grad_outputs):
        x1, = self.get_retained_inputs()
        gp, gq = grad_outputs  # either may be None (multi-output contract)
        g0 = None if gp is None else gp * x1
        if gq is not None:
            g0 = gq if g0 is None else g0 + gq
        return g0, None


# ---- section 5: FunctionNode.apply -------------------------------------------------------


class TestApplyInputs:
    def test_ndarray_inputs_are_wrapped_without_requires_grad(self):
        a = f32(1, 2)
        f = Copy()
        y0, y1 = f.apply((a, a))
        assert isinstance(y0, Variable) and isinstance(y1, Variable)
        assert not y0.requires_grad and not y1.requires_grad
        assert isinstance(f.inputs[0], VariableNode)
        assert f.inputs[0].requires_grad is False
        assert f.inputs[0].shape == (2,) and f.inputs[0].dtype == np.float32

    def test_output_requires_grad_is_any_input(self):
        x = Variable(f32(1, 2))
        c = Variable(f32(1, 2), requires_grad=False)
        assert [y.requires_grad for y in Copy().apply((f32(1, 2), x))] == [True, True]
        assert [y.requires_grad for y in Copy().apply((c, c))] == [False, False]
        assert [y.requires_grad for y in Copy().apply((c, x))] == [True, True]

    def test_apply_returns_a_tuple_even_for_one_output(self):
        ys = Copy().apply((Variable(f32(1, 2)),))
        assert type(ys) is tuple and len(ys) == 1
        np.testing.assert_array_equal(ys[0].array, f32(1, 2))

    def test_apply_accepts_any_iterable_of_inputs(self):
        x = Variable(f32(1))
        y, = Copy().apply([x])
        assert y.creator is not None


class TestApplyRecordsTheGraph:
    def test_node_links_inputs_and_outputs(self):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        f = MulAdd()
        p, q = f.apply((x, w))
        assert type(f.inputs) is tuple
        assert f.inputs[0] is x.node and f.inputs[1] is w.node
        assert type(f.outputs) is tuple
        assert all(isinstance(r, weakref.ref) for r in f.outputs)
        assert f.outputs[0]() is p.node and f.outputs[1]() is q.node
        assert p.creator_node is f and q.creator_node is f
        assert p.creator is f

    def test_outputs_are_held_weakly(self):
        f = MulAdd()
        p, q = f.apply((Variable(f32(1)), Variable(f32(2))))
        del p
        gc.collect()
        assert f.outputs[0]() is None  # nothing else held p's node
        assert f.outputs[1]() is q.node

    def test_retained_inputs_and_outputs_are_kept_on_nodes(self):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        p, q = MulAdd().apply((x, w))
        assert x.node.data is None  # not retained
        assert w.node.data is w.array
        assert p.node.data is p.array
        assert q.node.data is None

    def test_user_variables_have_no_retained_data(self):
        x = Variable(f32(1, 2))
        y = x + x
        assert x.node.data is None and y.node.data is None

    def test_rank_is_max_input_rank_and_outputs_one_more(self):
        # Spec section 3: x(0) -> a=x*2 (1) -> b=a*3 (2) -> c=b+w (3) -> d=c+a (4).
        x = Variable(np.array(1.0, np.float32))
        w = Variable(np.array(1.0, np.float32))
        a = x * 2
        b = a * 3
        c = b + w
        d = c + a
        assert [v.rank for v in (x, w, a, b, c, d)] == [0, 0, 1, 2, 3, 4]
        assert [v.creator.rank for v in (a, b, c, d)] == [0, 1, 2, 3]

    def test_inputs_without_requires_grad_still_get_a_creator(self):
        c = Variable(f32(1, 2), requires_grad=False)
        y = c * 2
        assert y.creator is not None
        assert y.creator.label == '_ * 2'
        assert y.requires_grad is False
        assert y.rank == 1

    def test_no_backprop_mode_records_nothing(self):
        x = Variable(f32(1, 2))
        c = Variable(f32(1, 2), requires_grad=False)
        f = Copy()
        with chainer.no_backprop_mode():
            y0, y1 = f.apply((x, c))
        assert y0.creator is None and y1.creator is None
        assert y0.creator_node is None
        assert y0.rank == 0 and y1.rank == 0
        assert y0.requires_grad and y1.requires_grad  # any input's requires_grad
        assert f.inputs is None and f.outputs is None
        assert f.rank == 0

    def test_no_backprop_mode_does_not_retain_data(self):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        with chainer.no_backprop_mode():
            p, _ = MulAdd().apply((x, w))
        assert w.node.data is None and p.node.data is None


class TestApplyErrors:
    def test_forward_must_return_a_tuple(self):
        class ReturnsArray(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2

        class ReturnsList(FunctionNode):
            def forward(self, inputs):
                return [inputs[0] * 2]

        x = Variable(f32(1, 2))
        with pytest.raises(TypeError, match=r'forward output must be a tuple \(ReturnsArray\)'):
            ReturnsArray().apply((x,))
        with pytest.raises(TypeError, match=r'forward output must be a tuple \(ReturnsList\)'):
            ReturnsList().apply((x,))

    def test_failed_forward_links_nothing(self):
        class ReturnsArray(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2

        x = Variable(f32(1, 2))
        f = ReturnsArray()
        with pytest.raises(TypeError):
            f.apply((x,))
        assert f.inputs is None and f.outputs is None

    def test_calling_a_node_raises_runtime_error(self):
        with pytest.raises(RuntimeError, match=r'called as if it were a callable\. '
                                               r'Use apply\(\) method instead\.'):
            Copy()(Variable(f32(1)))

    def test_type_check_runs_before_forward(self):
        seen = []

        class Seen(chainer.FunctionHook):
            name = 'Seen'

            def forward_preprocess(self, function, in_data):
                seen.append(function.label)

        x = Variable(f32(1, 2))
        y = Variable(np.array([1, 2], np.float64))
        with Seen(), pytest.raises(InvalidType):
            x + y
        assert seen == []  # rejected before forward_preprocess and forward

    def test_type_check_can_be_switched_off(self):
        x = Variable(f32(1, 2))
        y = Variable(np.array([1, 2], np.float64))
        with chainer.using_config('type_check', False):
            z = x + y
        assert z.dtype == np.float64
        with pytest.raises(InvalidType):
            x + y

    def test_invalid_type_is_neither_type_error_nor_value_error(self):
        assert not issubclass(InvalidType, (TypeError, ValueError))
        with pytest.raises(InvalidType):
            Variable(f32(1, 2)) * Variable(f32(1, 2, 3))


class TestZeroDimResults:
    def test_builtin_ops_keep_zero_dim_arrays(self):
        x = Variable(np.array(2.0, np.float32))
        for y in (x * x, x + 1, x - x, x / x, x ** 2, -x, F.sum(x), F.exp(x)):
            assert type(y.array) is np.ndarray, y.creator.label
            assert y.shape == ()

    def test_zero_dim_grads_stay_arrays(self):
        x = Variable(np.array(2.0))
        y = x * x + x
        y.backward()
        assert type(x.grad) is np.ndarray and x.grad.shape == ()
        assert x.grad == 5.0


class TestFunctionNodeAttributes:
    def test_label_defaults_to_class_name(self):
        assert Copy().label == 'Copy'
        assert MulAdd().label == 'MulAdd'

    def test_fresh_node_state(self):
        f = Copy()
        assert f.inputs is None and f.outputs is None and f.rank == 0
        assert dict(f.local_function_hooks) == {}

    def test_nodes_are_hashable(self):
        x = Variable(f32(1))
        y = x * 2
        assert {y.creator_node: 1}[y.creator_node] == 1
        assert len({x.node, y.node}) == 2

    def test_function_node_unchain(self):
        x = Variable(f32(1, 2))
        a, b = Copy().apply((x, x))
        f = a.creator_node
        f.unchain()
        assert f.inputs is None and f.outputs is None
        assert a.creator is None and b.creator is None
        assert a.rank == 1  # ranks are kept

    def test_function_node_unchain_skips_dead_outputs(self):
        x = Variable(f32(1, 2))
        a, b = Copy().apply((x, x))
        f = a.creator_node
        del a
        gc.collect()
        f.unchain()
        assert b.creator is None and f.outputs is None


class TestRetainedForBackward:
    def test_get_retained_returns_variables_linked_to_the_graph(self):
        seen = {}

        class Probe(MulAdd):
            def backward(self, target_input_indexes, grad_outputs):
                seen['inputs'] = self.get_retained_inputs()
                seen['outputs'] = self.get_retained_outputs()
                return super().backward(target_input_indexes, grad_outputs)

        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        p, _ = Probe().apply((x, w))
        F.sum(p).backward()
        (wi,), (po,) = seen['inputs'], seen['outputs']
        assert wi is w and po is p
        np.testing.assert_array_equal(x.grad, f32(3, 4))
        assert w.grad is None  # its backward returned None for input 1

    def test_retained_output_survives_dropping_the_variable(self):
        seen = {}

        class Probe(MulAdd):
            def backward(self, target_input_indexes, grad_outputs):
                out, = self.get_retained_outputs()
                seen['out'] = out.array.copy()
                return super().backward(target_input_indexes, grad_outputs)

        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        p, q = Probe().apply((x, w))
        loss = F.sum(q * 1)
        del p
        gc.collect()
        loss.backward()
        np.testing.assert_array_equal(seen['out'], f32(3, 8))
        np.testing.assert_array_equal(x.grad, f32(1, 1))  # only q had a gradient

    def test_retained_input_is_differentiable_twice(self):
        x = Variable(np.array(3.0))
        w = Variable(np.array(2.0))
        p, _ = MulAdd().apply((x, w))
        gx, = chainer.grad([p], [x], enable_double_backprop=True)
        assert gx.array == 2.0
        gw, = chainer.grad([gx], [w])
        assert gw.array == 1.0


# ---- section 12: unchain / unchain_backward / set_creator -------------------------------


class TestUnchain:
    def test_unchain_makes_the_variable_a_leaf(self):
        x = Variable(f32(1, 2))
        h = x * 2
        fn = h.creator_node
        z = h * 3
        h.unchain()
        assert h.creator is None and h.creator_node is None
        assert fn.inputs[0] is x.node  # the former creator keeps its inputs
        assert fn.outputs[0]() is h.node
        assert h.rank == 1
        F.sum(z).backward()
        assert x.grad is None
        np.testing.assert_array_equal(h.grad, f32(3, 3))

    def test_restoring_creator_node_reconnects(self):
        x = Variable(f32(1, 2))
        h = x * 2
        fn = h.creator_node
        h.unchain()
        h.creator_node = fn
        assert h.rank == fn.rank + 1
        F.sum(h * 3).backward()
        np.testing.assert_array_equal(x.grad, f32(6, 6))
        assert h.grad is None

    def test_creator_node_none_is_unchain(self):
        x = Variable(f32(1, 2))
        h = x * 2
        h.creator_node = None
        F.sum(h).backward()
        assert x.grad is None
        np.testing.assert_array_equal(h.grad, f32(1, 1))

    def test_unchain_backward_cuts_shared_branches(self):
        x = Variable(f32(1, 2))
        h = x * 2
        k = h * 3
        m = h * 5
        fh, fk, fm = h.creator_node, k.creator_node, m.creator_node
        k.unchain_backward()
        assert k.creator is None and h.creator is None
        assert fk.inputs is None and fk.outputs is None
        assert fh.inputs is None and fh.outputs is None
        assert m.creator is fm  # m's own creator is untouched ...
        F.sum(m).backward()
        assert x.grad is None  # ... but the path through h to x is cut
        np.testing.assert_array_equal(h.grad, f32(5, 5))

    def test_unchain_backward_keeps_ranks(self):  # quirk Q10
        x = Variable(f32(1, 2))
        h = x * 2
        k = h * 3
        k.unchain_backward()
        assert (x.rank, h.rank, k.rank) == (0, 1, 2)

    def test_unchain_backward_on_a_leaf_does_nothing(self):
        x = Variable(f32(1, 2))
        y = x * 2
        x.unchain_backward()
        assert x.creator is None and x.rank == 0
        assert y.creator.inputs[0] is x.node

    def test_unchain_backward_reaches_every_ancestor(self):
        x = Variable(f32(1, 2))
        a = x * 2
        b = x * 3
        c = a + b
        d = c * c
        funcs = [v.creator_node for v in (a, b, c, d)]
        d.unchain_backward()
        assert all(f.inputs is None and f.outputs is None for f in funcs)
        assert all(v.creator is None for v in (a, b, c, d))


class TestSetCreator:
    @pytest.mark.parametrize('how', ['set_creator', 'set_creator_node', 'creator',
                                     'creator_node', 'node.set_creator',
                                     'node.set_creator_node'])
    def test_sets_rank_without_validation(self, how):
        x = Variable(f32(1, 2))
        a3 = ((x * 2) * 2) * 2
        fn = a3.creator_node
        assert fn.rank == 2
        v = Variable(f32(7))  # shape differs from fn's output: not validated
        if how == 'set_creator':
            v.set_creator(fn)
        elif how == 'set_creator_node':
            v.set_creator_node(fn)
        elif how == 'creator':
            v.creator = fn
        elif how == 'creator_node':
            v.creator_node = fn
        elif how == 'node.set_creator':
            v.node.set_creator(fn)
        else:
            v.node.set_creator_node(fn)
        assert v.creator is fn and v.creator_node is fn
        assert v.rank == 3
        assert v.node.rank == 3


class TestRetainDataAndGetVariable:
    def test_retain_data(self):
        x = Variable(f32(1, 2))
        assert x.node.data is None
        x.retain_data()
        assert x.node.data is x.array

    def test_get_variable_returns_the_live_variable(self):
        x = Variable(f32(1, 2))
        assert x.node.get_variable() is x
        assert x.node.get_variable_or_none() is x

    def test_get_variable_after_gc_without_data(self):  # quirk Q15
        x = Variable(f32(1, 2))
        node = x.node
        del x
        gc.collect()
        assert node.get_variable_or_none() is None
        v = node.get_variable()
        assert isinstance(v, Variable)
        assert v.array is None
        assert v.node is node
        assert v.requires_grad is True

    def test_get_variable_after_gc_with_retained_data(self):
        x = Variable(f32(1, 2), name='q', requires_grad=False)
        x.retain_data()
        node, array = x.node, x.array
        del x
        gc.collect()
        v = node.get_variable()
        assert v.array is array
        assert v.node is node and v.name == 'q'
        assert v.requires_grad is False

    def test_get_variable_of_a_dropped_function_output(self):
        y = Variable(f32(1, 2)) * 2
        node = y.node
        del y
        gc.collect()
        v = node.get_variable()
        assert v.array is None
        assert v.creator is not None and v.creator.label == '_ * 2'
