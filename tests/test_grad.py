"""chainer.grad and the module-level chainer.backward (spec section 7, quirks Q4 and Q13).

Expected values come from the spec and were checked against Chainer 7.8.1.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import FunctionNode, Variable


def f32(*values):
    return np.array(values, dtype=np.float32)


def s32(value):
    return np.array(value, dtype=np.float32)


class Counted(FunctionNode):
    """y = 2x that counts its backward calls."""

    def __init__(self, calls):
        self.calls = calls

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, target_input_indexes, grad_outputs):
        self.calls.append(1)
        return grad_outputs[0] * 2,


class TestArguments:
    def test_outputs_and_inputs_must_be_sequences(self):
        x = Variable(f32(1, 2))
        y = x * x
        with pytest.raises(TypeError, match='outputs must be a tuple or a list, not'):
            chainer.grad(y, [x])
        with pytest.raises(TypeError, match='inputs must be a tuple or a list, not'):
            chainer.grad([y], x)

    def test_tuples_are_accepted(self):
        x = Variable(f32(1, 2))
        gx, = chainer.grad((x * x,), (x,))
        np.testing.assert_array_equal(gx.array, f32(2, 4))

    def test_length_mismatches(self):
        x = Variable(f32(1, 2))
        y = x * x
        with pytest.raises(ValueError, match='grad_outputs'):
            chainer.grad([y], [x], grad_outputs=[None, None])
        with pytest.raises(ValueError, match='grad_inputs'):
            chainer.grad([y], [x], grad_inputs=[None, None])


class TestResults:
    def test_returns_a_list_of_variables_without_touching_grad(self):
        x = Variable(f32(1, 2))
        result = chainer.grad([x * x], [x])
        assert type(result) is list and len(result) == 1
        gx, = result
        assert isinstance(gx, Variable)
        np.testing.assert_array_equal(gx.array, f32(2, 4))
        assert x.grad is None
        assert gx.creator is None

    def test_existing_grad_is_left_alone(self):
        x = Variable(f32(1, 2))
        x.grad = f32(5, 5)
        before = x.grad
        gx, = chainer.grad([x * x], [x])
        np.testing.assert_array_equal(gx.array, f32(2, 4))
        assert x.grad is before
        np.testing.assert_array_equal(x.grad, f32(5, 5))

    def test_unreachable_input_gives_none(self):
        x = Variable(f32(1, 2))
        z = Variable(f32(1, 2))
        gx, gz = chainer.grad([x * x], [x, z])
        np.testing.assert_array_equal(gx.array, f32(2, 4))
        assert gz is None

    def test_requires_grad_false_input_gives_none(self):
        # The spec rule (section 7): None for inputs with requires_grad=False.
        x = Variable(f32(1, 2))
        c = Variable(f32(3, 4), requires_grad=False)
        gx, gc = chainer.grad([x * c], [x, c])
        np.testing.assert_array_equal(gx.array, f32(3, 4))
        assert gc is None
        assert chainer.grad([c * 2], [c]) == [None]

    def test_default_seed_is_ones_for_any_shape(self):
        x = Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        gx, = chainer.grad([x * 3], [x])
        np.testing.assert_array_equal(gx.array, np.full((2, 3), 3, np.float32))

    def test_grad_outputs_given(self):
        x = Variable(f32(1, 2))
        gx, = chainer.grad([x * x], [x], grad_outputs=[Variable(f32(1, 10))])
        np.testing.assert_array_equal(gx.array, f32(2, 40))
        gx, = chainer.grad([x * x], [x], grad_outputs=[f32(1, 10)])
        np.testing.assert_array_equal(gx.array, f32(2, 40))

    def test_loss_scale_multiplies_only_default_seeds(self):
        x = Variable(f32(1, 2))
        gx, = chainer.grad([x * x], [x], loss_scale=3.0)
        np.testing.assert_array_equal(gx.array, f32(6, 12))
        gx, = chainer.grad([x * x], [x], grad_outputs=[f32(1, 1)], loss_scale=3.0)
        np.testing.assert_array_equal(gx.array, f32(2, 4))
        w = Variable(f32(1, 2))
        g1, g2 = chainer.grad([x * x, w * 5], [x, w], grad_outputs=[f32(1, 1), None],
                              loss_scale=3.0)
        np.testing.assert_array_equal(g1.array, f32(2, 4))
        np.testing.assert_array_equal(g2.array, f32(15, 15))

    def test_grad_inputs_are_added_not_in_place(self):
        x = Variable(f32(1, 2))
        gi = f32(100, 100)
        gx, = chainer.grad([x * x], [x], grad_inputs=[gi])
        np.testing.assert_array_equal(gx.array, f32(102, 104))
        np.testing.assert_array_equal(gi, f32(100, 100))
        assert x.grad is None

    def test_grad_inputs_for_an_unreached_input(self):
        x = Variable(f32(1, 2))
        z = Variable(f32(1, 2))
        gx, gz = chainer.grad([x * 2], [x, z], grad_inputs=[None, f32(7, 7)])
        np.testing.assert_array_equal(gx.array, f32(2, 2))
        np.testing.assert_array_equal(gz.array, f32(7, 7))

    def test_set_grad_overwrites(self):
        x = Variable(f32(1, 2))
        x.grad = f32(5, 5)
        result = chainer.grad([x * x], [x], set_grad=True)
        np.testing.assert_array_equal(x.grad, f32(2, 4))
        assert result[0] is x.grad_var

    def test_set_grad_none_for_unreachable(self):
        x = Variable(f32(1, 2))
        z = Variable(f32(1, 2))
        z.grad = f32(5, 5)
        chainer.grad([x * 2], [x, z], set_grad=True)
        assert z.grad is None

    def test_retain_grad_keeps_intermediates_but_not_inputs(self):
        x = Variable(f32(1, 2))
        h = x * 3
        y = h * h
        gx, = chainer.grad([y], [x], retain_grad=True)
        np.testing.assert_array_equal(h.grad, f32(6, 12))
        np.testing.assert_array_equal(y.grad, f32(1, 1))
        np.testing.assert_array_equal(gx.array, f32(18, 36))
        assert x.grad is None

    def test_without_retain_grad_intermediates_get_nothing(self):
        x = Variable(f32(1, 2))
        h = x * 3
        y = h * h
        chainer.grad([y], [x])
        assert h.grad is None and y.grad is None and x.grad is None

    def test_input_equal_to_output_gives_ones(self):
        x = Variable(f32(1, 2))
        gx, = chainer.grad([x], [x])
        np.testing.assert_array_equal(gx.array, f32(1, 1))

    def test_intermediate_as_input(self):
        x = Variable(f32(1, 2))
        h = x * 3
        y = h * h
        gh, gx = chainer.grad([y], [h, x])
        np.testing.assert_array_equal(gh.array, f32(6, 12))
        np.testing.assert_array_equal(gx.array, f32(18, 36))

    def test_repeated_output_counts_once(self):  # quirk Q4
        x = Variable(f32(1, 2))
        y = x * x
        twice, = chainer.grad([y, y], [x])
        once, = chainer.grad([y], [x])
        np.testing.assert_array_equal(twice.array, once.array)
        np.testing.assert_array_equal(once.array, f32(2, 4))

    def test_several_outputs_are_summed(self):
        x = Variable(f32(1, 2))
        gx, = chainer.grad([x * 2, x * 3], [x])
        np.testing.assert_array_equal(gx.array, f32(5, 5))

    def test_several_inputs(self):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        gx, gw = chainer.grad([F.sum(x * w)], [x, w])
        np.testing.assert_array_equal(gx.array, f32(3, 4))
        np.testing.assert_array_equal(gw.array, f32(1, 2))

    def test_only_paths_between_outputs_and_inputs_run(self):
        calls = []
        x = Variable(f32(1, 2))
        w = Variable(f32(1, 2))
        a, = Counted(calls).apply((w,))
        y = F.sum(a * x)
        gx, = chainer.grad([y], [x])
        np.testing.assert_array_equal(gx.array, f32(2, 4))
        assert calls == []
        assert w.grad is None

    def test_backward_hooks_fire(self):
        seen = []

        class Hook(chainer.FunctionHook):
            name = 'Hook'

            def backward_preprocess(self, function, in_data, out_grad):
                seen.append(('pre', function.label))

            def backward_postprocess(self, function, in_data, out_grad):
                seen.append(('post', function.label))

        x = Variable(f32(1, 2))
        y = F.sum(x * 3)
        with Hook():
            chainer.grad([y], [x])
        assert seen == [('pre', 'Sum'), ('post', 'Sum'), ('pre', '_ * 3'), ('post', '_ * 3')]


class TestHigherOrder:
    def test_without_double_backprop_results_are_constants(self):
        x = Variable(f32(1, 2))
        gx, = chainer.grad([x ** 3], [x])
        assert gx.creator is None
        assert chainer.grad([gx], [x]) == [None]

    def test_any_order(self):
        x = Variable(f32(1, 2))
        gx, = chainer.grad([x ** 3], [x], enable_double_backprop=True)
        ggx, = chainer.grad([gx], [x], enable_double_backprop=True)
        gggx, = chainer.grad([ggx], [x])
        np.testing.assert_array_equal(gx.array, f32(3, 12))
        np.testing.assert_array_equal(ggx.array, f32(6, 12))
        np.testing.assert_array_equal(gggx.array, f32(6, 6))
        assert x.grad is None

    def test_mixed_second_derivative(self):
        x = Variable(s32(2))
        w = Variable(s32(3))
        gx, = chainer.grad([x * x * w], [x], enable_double_backprop=True)
        gxw, gxx = chainer.grad([gx], [w, x])
        assert gxw.array == 4 and gxx.array == 6


class TestModuleBackward:
    def test_uses_stored_grads_and_warns_for_missing_ones(self):
        x = Variable(f32(1, 2))
        y1 = F.sum(x * 2)
        y2 = F.sum(x * 3)
        y1.grad = s32(1)
        with pytest.warns(RuntimeWarning):
            chainer.backward([y1, y2])
        np.testing.assert_array_equal(x.grad, f32(2, 2))  # y2 was skipped

    def test_grad_outputs(self):
        x = Variable(f32(1, 2))
        y1 = F.sum(x * 2)
        y2 = F.sum(x * 3)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            chainer.backward([y1, y2], [Variable(s32(1)), Variable(s32(2))])
        np.testing.assert_array_equal(x.grad, f32(8, 8))
        assert y1.grad is None and y2.grad is None

    def test_roots_grads_are_released(self):
        x = Variable(f32(1, 2))
        y = F.sum(x * x)
        y.grad = s32(1)
        chainer.backward([y])
        np.testing.assert_array_equal(x.grad, f32(2, 4))
        assert y.grad is None

    def test_root_feeding_another_root(self):
        x = Variable(f32(1, 2))
        y = x * 2
        z = y * 3
        y.grad = f32(1, 1)
        z.grad = f32(1, 1)
        chainer.backward([z, y])
        np.testing.assert_array_equal(x.grad, f32(8, 8))
        assert y.grad is None and z.grad is None

    def test_leaf_output_keeps_grad(self):
        x = Variable(f32(1, 2))
        x.grad = f32(1, 1)
        chainer.backward([x])
        np.testing.assert_array_equal(x.grad, f32(1, 1))

    def test_duplicate_outputs_warn_and_count_once(self):
        x = Variable(f32(1, 2))
        y = F.sum(x * 2)
        y.grad = s32(1)
        with pytest.warns(RuntimeWarning):
            chainer.backward([y, y])
        np.testing.assert_array_equal(x.grad, f32(2, 2))

    def test_no_default_seed_even_for_scalars(self):
        x = Variable(s32(2))
        with pytest.warns(RuntimeWarning):
            chainer.backward([x * 3])
        assert x.grad is None

    def test_outputs_must_be_a_sequence(self):
        x = Variable(f32(1, 2))
        with pytest.raises(TypeError):
            chainer.backward(x * 2)

    def test_accumulates_into_leaves(self):
        x = Variable(f32(1, 2))
        x.grad = f32(10, 10)
        y = x * 2
        y.grad = f32(1, 1)
        chainer.backward([y])
        np.testing.assert_array_equal(x.grad, f32(12, 12))

    def test_double_backprop(self):
        x = Variable(f32(1, 2))
        y = x ** 3
        chainer.backward([y], [Variable(np.ones(2, np.float32))], enable_double_backprop=True)
        np.testing.assert_array_equal(x.grad, f32(3, 12))
        assert x.grad_var.creator is not None
