"""Variable.backward: seeding, order, accumulation, retain_grad, double backprop, loss_scale.

Spec section 6 and the backward half of section 17 (the FunctionNode contract),
plus three engine guarantees of the BackwardStepper: a step that raises leaves
every gradient as it was, a 100,000-function chain needs no recursion, and
stepping by hand gives exactly what backward()/grad() give.  Expected values come
from the spec and were checked against Chainer 7.8.1.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import BackwardStep, BackwardStepper, FunctionNode, Variable

SCALAR_WARNING = 'Treating a variable with only one element as a scalar'


def f32(*values):
    return np.array(values, dtype=np.float32)


def s32(value):
    return np.array(value, dtype=np.float32)


class Labels(chainer.FunctionHook):
    """Records the label of every function whose backward runs."""

    name = 'Labels'

    def __init__(self):
        self.labels = []

    def backward_preprocess(self, function, in_data, out_grad):
        self.labels.append(function.label)


class Returns(FunctionNode):
    """y = 2x whose backward returns whatever ``make(grad_outputs)`` builds."""

    def __init__(self, make):
        self.make = make

    @property
    def label(self):
        return 'Returns'

    def forward(self, inputs):
        # x + x rather than x * 2: NumPy 1.x turns a 0-d float32 times 2 into float64
        return inputs[0] + inputs[0],

    def backward(self, target_input_indexes, grad_outputs):
        return self.make(grad_outputs)


class Split2(FunctionNode):
    """Splits a length-2 vector into two length-1 outputs; records its grad_outputs."""

    def __init__(self):
        self.seen = None

    def forward(self, inputs):
        x, = inputs
        return x[:1].copy(), x[1:].copy()

    def backward(self, target_input_indexes, grad_outputs):
        self.seen = grad_outputs
        parts = [g.array if g is not None else np.zeros(1, np.float32) for g in grad_outputs]
        return Variable(np.concatenate(parts)),


# ---- 6.1 seeding ----------------------------------------------------------------------------


class TestSeeding:
    def test_zero_dim_root_is_seeded_with_one_without_warning(self):
        x = Variable(s32(3))
        y = x * 2
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            y.backward()
        assert x.grad == 2 and x.grad.dtype == np.float32 and x.grad.shape == ()

    @pytest.mark.parametrize('shape', [(1,), (1, 1), (1, 1, 1)])
    def test_one_element_root_warns_and_is_seeded(self, shape):
        x = Variable(np.full(shape, 3, np.float32))
        y = x * 2
        with pytest.warns(DeprecationWarning, match=SCALAR_WARNING):
            y.backward()
        np.testing.assert_array_equal(x.grad, np.full(shape, 2, np.float32))

    def test_seed_has_root_dtype(self):
        x = Variable(np.array(3.0, np.float16))
        (x * 2).backward(retain_grad=True)
        assert x.grad.dtype == np.float16

    def test_seed_is_scaled_by_loss_scale(self):
        x = Variable(s32(3))
        y = x * 2
        y.backward(retain_grad=True, loss_scale=4)
        assert y.grad == 4 and x.grad == 8

    @pytest.mark.parametrize('make', [lambda x: x * 2, lambda x: x + 1, lambda x: x * x,
                                      F.exp, lambda x: x - x])
    def test_non_scalar_root_without_grad_raises_and_leaves_x_alone(self, make):
        x = Variable(f32(1, 2))
        y = make(x)
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            y.backward()
        assert x.grad is None

    def test_non_scalar_root_with_grad(self):
        x = Variable(f32(1, 2))
        y = x * 3
        y.grad = f32(1, 10)
        y.backward()
        np.testing.assert_array_equal(x.grad, f32(3, 30))

    def test_uninitialized_root_raises_attribute_error(self):
        with pytest.raises(AttributeError):
            Variable().backward()


class TestRootGrad:
    def test_root_grad_is_released(self):
        x = Variable(s32(3))
        y = x * 2
        y.backward()
        assert y.grad is None and y.grad_var is None

    def test_user_set_root_grad_is_released(self):
        x = Variable(f32(1, 2))
        y = x * 2
        y.grad = f32(1, 1)
        y.backward()
        assert y.grad is None

    def test_retain_grad_restores_the_seed(self):
        x = Variable(f32(1, 2))
        y = x * 2
        y.grad = f32(5, 6)
        y.backward(retain_grad=True)
        np.testing.assert_array_equal(y.grad, f32(5, 6))

    def test_leaf_root_keeps_its_grad(self):
        x = Variable(s32(3))
        x.backward()
        assert x.grad == 1
        x.backward()  # already has a grad: nothing is seeded or added
        assert x.grad == 1

    def test_leaf_root_with_loss_scale(self):
        x = Variable(s32(3))
        x.backward(loss_scale=2.0)
        assert x.grad == 2 and x._loss_scale == 2.0


class TestBackpropConfig:
    class Probe(FunctionNode):
        seen = []

        def forward(self, inputs):
            # x + x rather than x * 2: NumPy 1.x turns a 0-d float32 times 2 into float64
            return inputs[0] + inputs[0],

        def backward(self, target_input_indexes, grad_outputs):
            TestBackpropConfig.Probe.seen.append(chainer.config.enable_backprop)
            return grad_outputs[0] * 2,

    def run(self, *, double, mode=None):
        self.Probe.seen = []
        x = Variable(s32(3))
        y, = self.Probe().apply((x,))
        if mode is None:
            y.backward(enable_double_backprop=double)
        else:
            with mode():
                y.backward(enable_double_backprop=double)
        return self.Probe.seen, x

    def test_backprop_is_off_without_double_backprop(self):
        seen, x = self.run(double=False)
        assert seen == [False]
        assert x.grad_var.creator is None

    def test_force_backprop_mode_does_not_record_the_backward_graph(self):
        seen, _ = self.run(double=False, mode=chainer.force_backprop_mode)
        assert seen == [False]

    def test_double_backprop_records_even_under_no_backprop_mode(self):
        seen, x = self.run(double=True, mode=chainer.no_backprop_mode)
        assert seen == [True]
        assert x.grad_var.creator is not None

    def test_config_is_restored_after_backward(self):
        self.run(double=True)
        assert chainer.config.enable_backprop is True
        with chainer.no_backprop_mode():
            x = Variable(s32(3))
            y = x * x
        with chainer.no_backprop_mode():
            (x * 2).backward(enable_double_backprop=True)
            assert chainer.config.enable_backprop is False
        assert y.creator is None


# ---- 6.1 order --------------------------------------------------------------------------------


class TestOrder:
    """Max-heap on rank, ties broken by first push (orders checked against Chainer 7.8.1)."""

    def order(self, build):
        x = Variable(s32(1))
        y = build(x)
        with Labels() as hook:
            y.backward()
        return hook.labels, x.grad

    def test_ties_follow_push_order(self):
        assert self.order(lambda x: x * 2 + x * 3)[0] == ['_ + _', '_ * 2', '_ * 3']
        assert self.order(lambda x: x * 3 + x * 2)[0] == ['_ + _', '_ * 3', '_ * 2']

    def test_higher_rank_first_even_if_pushed_later(self):
        labels, gx = self.order(lambda x: x * 2 + (x * 3) * 4)
        assert labels == ['_ + _', '_ * 4', '_ * 2', '_ * 3']
        assert gx == 14

    def test_nested_sums(self):
        assert self.order(lambda x: (x * 2 + x * 3) + x * 4)[0] == [
            '_ + _', '_ + _', '_ * 4', '_ * 2', '_ * 3']
        labels, gx = self.order(lambda x: x * 2 + (x * 3 + x * 4))
        assert labels == ['_ + _', '_ + _', '_ * 2', '_ * 3', '_ * 4']
        assert gx == 9

    def test_each_function_runs_once_after_all_its_consumers(self):
        seen = []

        class Tracks(chainer.FunctionHook):
            name = 'Tracks'

            def backward_preprocess(self, function, in_data, out_grad):
                seen.append((function, out_grad))

        x = Variable(s32(2))
        h = x * 3
        y = h * h + h * 5 + F.exp(h * 0.1)
        with Tracks():
            y.backward()
        funcs = [f for f, _ in seen]
        assert len(funcs) == len(set(funcs))
        hf = h.creator
        out_grad = dict(seen)[hf]
        # all three uses of h were summed before its creator ran
        expected = 2 * 6 + 5 + 0.1 * np.exp(0.6)
        np.testing.assert_allclose(out_grad[0], expected, rtol=1e-6)
        assert funcs[-1] is hf


# ---- 6.1 / 17: what backward returns --------------------------------------------------------


class TestReturnedGradients:
    def run(self, make):
        x = Variable(f32(1, 2))
        y, = Returns(make).apply((x,))
        y.grad = f32(1, 1)
        y.backward()
        return x

    def test_wrong_shape_is_value_error_with_bug_message(self):
        with pytest.raises(ValueError, match=r'Function `Returns` \(Returns\) has a bug') as e:
            self.run(lambda g: (Variable(f32(1, 2, 3)),))
        assert '(3,)' in str(e.value) and '(2,)' in str(e.value)

    def test_wrong_dtype_is_type_error_with_bug_message(self):
        with pytest.raises(TypeError, match=r'Function `Returns` \(Returns\) has a bug') as e:
            self.run(lambda g: (Variable(np.ones(2, np.float64)),))
        assert 'float64' in str(e.value) and 'float32' in str(e.value)

    def test_non_array_is_type_error_with_bug_message(self):
        with pytest.raises(TypeError, match='has a bug'):
            self.run(lambda g: ([1.0, 1.0],))

    def test_wrong_length_is_value_error_with_chainers_message(self):
        with pytest.raises(ValueError, match=r'number of gradients returned from backward is '
                                             r'incorrect: 2 != expected 1\n  function=Returns '
                                             r'\(Returns\)\n    input 0: shape=\(2,\)'):
            self.run(lambda g: (g[0], g[0]))

    def test_failed_check_leaves_grad_untouched(self):
        x = Variable(f32(1, 2))
        x.grad = f32(7, 7)
        before = x.grad
        y, = Returns(lambda g: (Variable(f32(1, 2, 3)),)).apply((x,))
        y.grad = f32(1, 1)
        with pytest.raises(ValueError):
            y.backward()
        assert x.grad is before
        np.testing.assert_array_equal(x.grad, f32(7, 7))

    def test_list_is_accepted(self):
        x = self.run(lambda g: [g[0] * 3])
        np.testing.assert_array_equal(x.grad, f32(3, 3))

    def test_none_stops_propagation(self):
        assert self.run(lambda g: (None,)).grad is None

    def test_variable_without_array_stops_propagation(self):
        assert self.run(lambda g: (Variable(),)).grad is None

    def test_none_stops_only_that_branch(self):
        x = Variable(f32(1, 2))
        y, = Returns(lambda g: (None,)).apply((x,))
        z = F.sum(y + x * 4)
        z.backward()
        np.testing.assert_array_equal(x.grad, f32(4, 4))


class TestFunctionNodeBackwardContract:
    def test_default_backward_is_not_differentiable(self):
        class NoGrad(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

        x = Variable(f32(1, 2))
        y, = NoGrad().apply((x,))
        F.sum(y * 1).backward()
        assert x.grad is None

    def test_grad_outputs_are_variables_with_none_for_unused_outputs(self):
        x = Variable(f32(1, 2))
        f = Split2()
        a, _ = f.apply((x,))
        F.sum(a * 3).backward()
        ga, gb = f.seen
        assert isinstance(ga, Variable) and gb is None
        np.testing.assert_array_equal(ga.array, f32(3))
        np.testing.assert_array_equal(x.grad, f32(3, 0))

    def test_output_grads_are_summed_before_backward(self):
        x = Variable(f32(1, 2))
        f = Split2()
        a, b = f.apply((x,))
        F.sum(a * 3 + b * 4 + a).backward()
        np.testing.assert_array_equal(f.seen[0].array, f32(4))
        np.testing.assert_array_equal(f.seen[1].array, f32(4))
        np.testing.assert_array_equal(x.grad, f32(4, 4))

    def test_dropped_output_gets_none(self):
        x = Variable(f32(1, 2))
        f = Split2()
        _, b = f.apply((x,))  # output 0 is dropped at once
        F.sum(b * 2).backward()
        assert f.seen[0] is None
        np.testing.assert_array_equal(x.grad, f32(0, 2))

    @pytest.mark.parametrize('full', [True, False])
    def test_targets_and_both_return_lengths(self, full):
        seen = []

        class Two(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * inputs[1],

            def backward(self, target_input_indexes, grad_outputs):
                seen.append(target_input_indexes)
                g = grad_outputs[0]
                return (g * 2, g * 3) if full else (g * 2,)

        x = Variable(f32(1))
        c = Variable(f32(1), requires_grad=False)
        y, = Two().apply((x, c))
        y.grad = f32(1)
        y.backward()
        assert seen == [(0,)]
        np.testing.assert_array_equal(x.grad, f32(2))
        assert c.grad is None

    def test_functions_with_no_grad_inputs_are_skipped(self):
        calls = []

        class Counted(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

            def backward(self, target_input_indexes, grad_outputs):
                calls.append(1)
                return grad_outputs[0] * 2,

        c = Variable(f32(1, 2), requires_grad=False)
        x = Variable(f32(1, 2))
        y, = Counted().apply((c,))
        assert y.creator is not None and not y.requires_grad
        y.grad = f32(1, 1)
        y.backward()  # its creator is reached, but no input wants a gradient
        assert calls == [] and c.grad is None
        y, = Counted().apply((c,))
        F.sum(y * x).backward()  # y has no gradient: its creator is never reached
        assert calls == []
        np.testing.assert_array_equal(x.grad, f32(2, 4))
        assert c.grad is None

    def test_backward_accumulate_gets_current_grads(self):
        seen = []

        class Fused(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

            def backward(self, target_input_indexes, grad_outputs):  # pragma: no cover
                raise AssertionError('backward_accumulate must be used instead')

            def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
                seen.append([None if g is None else g.array.tolist() for g in grad_inputs])
                g = grad_outputs[0] * 2
                return tuple(g if gx is None else g + gx for gx in grad_inputs)

        # a leaf with no grad yet
        x = Variable(f32(1, 2))
        y, = Fused().apply((x,))
        F.sum(y + x * 5).backward()
        assert seen == [[None]]
        np.testing.assert_array_equal(x.grad, f32(7, 7))

        # a leaf whose grad is preset: it is handed over and not added twice
        seen.clear()
        x.grad = f32(100, 100)
        y, = Fused().apply((x,))
        F.sum(y).backward()
        assert seen == [[[100.0, 100.0]]]
        np.testing.assert_array_equal(x.grad, f32(102, 102))

        # an intermediate variable that already received a gradient
        seen.clear()
        x = Variable(f32(1, 2))
        h = x * 1
        d = ((x * 1) * 1) * 1  # rank 3: h * d runs before Fused
        y, = Fused().apply((h,))
        (F.sum(y) + F.sum(h * d)).backward()
        assert seen == [[[1.0, 2.0]]]
        np.testing.assert_array_equal(x.grad, f32(4, 6))


# ---- 6.2 accumulation -------------------------------------------------------------------------


class TestAccumulation:
    def test_backward_twice_doubles(self):
        x = Variable(s32(2))
        y = x * x * x
        y.backward()
        y.backward()
        assert x.grad == 24

    def test_preset_grad_is_added_to(self):
        x = Variable(s32(2))
        x.grad = s32(10)
        (x * x * x).backward()
        assert x.grad == 22

    def test_cleargrad_resets(self):
        x = Variable(s32(2))
        y = x * x * x
        y.backward()
        x.cleargrad()
        y.backward()
        assert x.grad == 12

    def test_accumulation_makes_a_new_array(self):
        x = Variable(f32(1, 2))
        preset = f32(10, 10)
        x.grad = preset
        F.sum(x * 3).backward()
        np.testing.assert_array_equal(preset, f32(10, 10))  # the user's array is not changed
        np.testing.assert_array_equal(x.grad, f32(13, 13))

    def test_square_by_product(self):
        x = Variable(f32(1, 2, 3))
        F.sum(x * x).backward()
        np.testing.assert_array_equal(x.grad, f32(2, 4, 6))

    def test_diamond(self):
        x = Variable(s32(3))
        a = x * 2
        b = x * 5
        (a * b).backward()  # 10 x^2
        assert x.grad == 60

    def test_fan_out_and_fan_in(self):
        x = Variable(s32(2))
        w = Variable(s32(3))
        h = x * w
        y = h * h + h * x + w
        y.backward()  # y = x^2 w^2 + x^2 w + w
        assert x.grad == 2 * 2 * 9 + 2 * 2 * 3
        assert w.grad == 2 * 4 * 3 + 4 + 1

    def test_same_variable_twice_in_one_function(self):
        x = Variable(f32(1, 2))
        F.sum(x + x).backward()
        np.testing.assert_array_equal(x.grad, f32(2, 2))

    def test_broadcasting_is_summed_back(self):
        x = Variable(np.ones((2, 3), np.float32))
        b = Variable(f32(1, 2, 3))
        s = Variable(s32(2))
        F.sum(x * b + s).backward()
        np.testing.assert_array_equal(b.grad, f32(2, 2, 2))
        assert s.grad == 6 and s.grad.shape == ()
        np.testing.assert_array_equal(x.grad, np.array([[1, 2, 3]] * 2, np.float32))

    def test_no_backprop_result_is_its_own_leaf(self):
        x = Variable(s32(2))
        with chainer.no_backprop_mode():
            h = x * 3
        assert h.requires_grad
        z = h * h + x
        z.backward()
        assert x.grad == 1  # only through "+ x"
        assert h.grad == 12

    def test_requires_grad_false_leaf_gets_nothing(self):
        x = Variable(f32(1, 2))
        c = Variable(f32(3, 4), requires_grad=False)
        F.sum(x * c).backward()
        assert c.grad is None
        np.testing.assert_array_equal(x.grad, f32(3, 4))


# ---- 6.3 retain_grad --------------------------------------------------------------------------


class TestRetainGrad:
    def test_default_releases_intermediate_grads(self):
        x = Variable(s32(2))
        h = x * 3
        y = h * h
        y.backward()
        assert h.grad is None and y.grad is None
        assert x.grad == 36

    def test_retain_grad_keeps_every_alive_intermediate(self):
        x = Variable(s32(2))
        h = x * 3
        k = h + 1
        y = k * k
        y.backward(retain_grad=True)
        assert y.grad == 1
        assert k.grad == 14
        assert h.grad == 14
        assert x.grad == 42

    def test_retained_grads_are_complete_sums(self):
        x = Variable(s32(2))
        h = x * 3
        y = h * h + h
        y.backward(retain_grad=True)
        assert h.grad == 13


# ---- 6.4 enable_double_backprop ---------------------------------------------------------------


class TestDoubleBackprop:
    def test_grad_var_has_no_creator_by_default(self):
        x = Variable(s32(2))
        (x ** 3).backward()
        assert x.grad_var.creator is None

    def test_grad_var_has_a_creator_with_double_backprop(self):
        x = Variable(s32(2))
        (x ** 3).backward(enable_double_backprop=True)
        assert x.grad == 12
        assert x.grad_var.creator is not None

    def test_second_backward_adds_to_first_order_grad(self):
        x = Variable(s32(2))
        (x ** 3).backward(enable_double_backprop=True)
        x.grad_var.backward()
        assert x.grad == 12 + 12  # 3x^2 + 6x

    def test_second_backward_after_cleargrad(self):
        x = Variable(f32(0, 2, 3))
        y = x ** 3
        y.grad = np.ones(3, np.float32)
        y.backward(enable_double_backprop=True)
        gx = x.grad_var
        x.cleargrad()
        gx.grad = np.ones(3, np.float32)
        gx.backward()
        np.testing.assert_array_equal(x.grad, f32(0, 12, 18))

    def test_hessian_vector_product_reaches_other_leaves(self):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        F.sum(x * x * w).backward(enable_double_backprop=True)
        gx = x.grad_var  # 2 x w
        x.cleargrad()
        w.cleargrad()
        F.sum(gx * f32(1, 0)).backward()
        np.testing.assert_array_equal(x.grad, f32(6, 0))
        np.testing.assert_array_equal(w.grad, f32(2, 0))

    def test_third_order(self):
        x = Variable(np.array(2.0))
        (x ** 3).backward(enable_double_backprop=True)
        g1 = x.grad_var
        x.cleargrad()
        g1.backward(enable_double_backprop=True)
        g2 = x.grad_var
        assert g2.array == 12
        x.cleargrad()
        g2.backward()
        assert x.grad == 6


# ---- 6.5 loss_scale ----------------------------------------------------------------------------


class TestLossScale:
    def test_scales_every_propagated_grad(self):
        x = Variable(s32(2))
        h = x * 3
        y = h * h
        y.backward(retain_grad=True, loss_scale=10.0)
        assert y.grad == 10 and h.grad == 120 and x.grad == 360

    def test_only_leaves_record_loss_scale(self):
        x = Variable(s32(2))
        h = x * 3
        y = h * h
        y.backward(retain_grad=True, loss_scale=10.0)
        assert x._loss_scale == 10.0
        assert h._loss_scale is None and y._loss_scale is None

    def test_user_set_grad_is_not_scaled_but_recorded(self):  # quirk Q3
        x = Variable(s32(2))
        y = (x * 3) * (x * 3)
        y.grad = s32(1)
        y.backward(loss_scale=10.0)
        assert x.grad == 36
        assert x._loss_scale == 10.0

    def test_next_backward_without_loss_scale_resets_it(self):
        x = Variable(s32(2))
        y = x * 3
        y.backward(loss_scale=10.0)
        assert x._loss_scale == 10.0
        x.cleargrad()
        y.backward()
        assert x._loss_scale is None and x.grad == 3

    def test_unreached_leaf_keeps_its_loss_scale(self):
        x = Variable(s32(2))
        w = Variable(s32(5))
        (w * 2).backward(loss_scale=3.0)
        (x * 2).backward()
        assert w._loss_scale == 3.0 and x._loss_scale is None


# ---- (a) a step that raises changes nothing --------------------------------------------------


class Boom(FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, target_input_indexes, grad_outputs):
        raise ZeroDivisionError('boom')


class Interrupt(chainer.FunctionHook):
    """Raises KeyboardInterrupt in the ``where`` callback of the ``at``-th function."""

    name = 'Interrupt'

    def __init__(self, where, at):
        self.where, self.at, self.count = where, at, 0

    def _maybe(self, where):
        if where == self.where:
            self.count += 1
            if self.count == self.at:
                raise KeyboardInterrupt

    def forward_preprocess(self, function, in_data):  # functions applied inside backward
        self._maybe('fwd')

    def backward_preprocess(self, function, in_data, out_grad):
        self._maybe('pre')

    def backward_postprocess(self, function, in_data, out_grad):
        self._maybe('post')


def _snapshot(variables):
    out = []
    for v in variables:
        g = v.grad
        out.append((v._grad, v._grad_var, g, None if g is None else g.copy(), v._loss_scale))
    return out


def _assert_unchanged(variables, before):
    for v, (raw, var, g, copy, scale) in zip(variables, before):
        assert v._grad is raw and v._grad_var is var
        assert v.grad is g
        if g is not None:
            np.testing.assert_array_equal(v.grad, copy)
        assert v._loss_scale == scale


class TestFailedStepRollsBack:
    def graph(self, boom=True):
        x = Variable(f32(1, 2))
        w = Variable(f32(3, 4))
        F.sum(x * 2).backward(loss_scale=5.0)  # x: grad 10, _loss_scale 5
        h = x * w
        k = h * 1
        tail = Boom().apply((x,))[0] if boom else x * 1
        y = F.sum(k * w + tail)  # the Mul/k steps run before the tail's creator
        return x, w, h, k, y

    def test_user_backward_raising(self):
        x, w, h, k, y = self.graph()
        variables = [x, w, h, k, y]
        before = _snapshot(variables)
        with pytest.raises(ZeroDivisionError, match='boom'):
            y.backward(retain_grad=True, loss_scale=2.0)
        _assert_unchanged(variables, before)
        assert chainer.config.enable_backprop is True

    def test_user_backward_raising_with_root_grad_preset(self):
        x, w, h, k, y = self.graph()
        y.grad = s32(3)
        variables = [x, w, h, k, y]
        before = _snapshot(variables)
        with pytest.raises(ZeroDivisionError):
            y.backward()
        _assert_unchanged(variables, before)

    def test_user_backward_raising_in_double_backprop(self):
        x, w, h, k, y = self.graph()
        variables = [x, w, h, k, y]
        before = _snapshot(variables)
        with pytest.raises(ZeroDivisionError):
            y.backward(enable_double_backprop=True, retain_grad=True)
        _assert_unchanged(variables, before)

    @pytest.mark.parametrize('where', ['pre', 'post', 'fwd'])
    @pytest.mark.parametrize('at', [1, 3, 5])
    def test_keyboard_interrupt_from_a_hook(self, where, at):
        x, w, h, k, y = self.graph(boom=False)
        variables = [x, w, h, k, y]
        before = _snapshot(variables)
        hook = Interrupt(where, at)
        with hook, pytest.raises(KeyboardInterrupt):
            y.backward(retain_grad=True, loss_scale=2.0)
        assert hook.count == at
        _assert_unchanged(variables, before)
        # and the same graph still works afterwards
        y.backward()
        np.testing.assert_array_equal(x.grad, f32(10, 10) + w.array * w.array + 1)

    def test_grad_raising_leaves_everything(self):
        x, w, h, k, y = self.graph()
        variables = [x, w, h, k, y]
        before = _snapshot(variables)
        with pytest.raises(ZeroDivisionError):
            chainer.grad([y], [x, w], retain_grad=True, set_grad=True)
        _assert_unchanged(variables, before)

    def test_module_backward_raising(self):
        x, w, h, k, y = self.graph()
        y.grad = s32(1)
        variables = [x, w, h, k, y]
        before = _snapshot(variables)
        with pytest.raises(ZeroDivisionError):
            chainer.backward([y])
        _assert_unchanged(variables, before)

    def test_failed_stepper_is_done(self):
        x, w, h, _, y = self.graph()
        stepper = BackwardStepper.for_backward([y])
        labels = []
        with pytest.raises(ZeroDivisionError):
            while not stepper.done:
                labels.append(stepper.next_function.label)
                stepper.step()
        assert labels == ['Sum', '_ + _', '_ * _', '_ * 1', 'Boom']
        assert stepper.done
        assert stepper.step() is None
        assert w.grad is None  # set by the third step, then rolled back
        assert y.grad is None and h.grad is None
        np.testing.assert_array_equal(x.grad, f32(10, 10))


# ---- (b) a 100,000-function chain ------------------------------------------------------------


@pytest.mark.slow
def test_backward_and_double_backward_through_a_100000_op_chain():
    n = 100_000
    c = 1.00001
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default
    try:
        x = Variable(np.array(1.5))
        h = x
        for _ in range(n):
            h = h * c
        z = h * h  # z = c^(2n) x^2
        z.backward(enable_double_backprop=True)
        scale = c ** (2 * n)
        np.testing.assert_allclose(x.grad, 2 * scale * 1.5, rtol=1e-9)
        gx = x.grad_var
        assert gx.creator is not None
        x.cleargrad()
        gx.backward()  # back through the 100,000 gradient functions and the chain again
        np.testing.assert_allclose(x.grad, 2 * scale, rtol=1e-9)
        del gx, h, z
        x.cleargrad()
    finally:
        sys.setrecursionlimit(old_limit)


# ---- (c) stepping by hand == backward() / grad() ---------------------------------------------


def _diamond():
    x = Variable(f32(1, 2))
    a = x * 2
    b = x * 3
    return [x], F.sum(a * b)


def _fan():
    x = Variable(f32(1, 2))
    w = Variable(f32(3, 4))
    h = x * w
    k = h + x
    return [x, w], F.sum(k * h + F.exp(h * 0.1) + w)


def _shared():
    x = Variable(s32(2))
    a = x * x
    b = a * x
    c = b + a
    return [x], c * c + a


GRAPHS = {'diamond': _diamond, 'fan': _fan, 'shared': _shared}


def _step_to_end(stepper):
    steps = []
    while not stepper.done:
        steps.append(stepper.step())
    assert stepper.step() is None
    return steps


class TestStepperMatches:
    @pytest.mark.parametrize('name', sorted(GRAPHS))
    @pytest.mark.parametrize('options', [{}, {'retain_grad': True}, {'loss_scale': 8.0},
                                         {'enable_double_backprop': True}])
    def test_for_backward(self, name, options):
        leaves_a, ya = GRAPHS[name]()
        leaves_b, yb = GRAPHS[name]()
        ya.backward(**options)
        steps = _step_to_end(BackwardStepper.for_backward([yb], **options))
        assert all(isinstance(s, BackwardStep) for s in steps)
        for a, b in zip(leaves_a, leaves_b):
            np.testing.assert_array_equal(a.grad, b.grad)
            assert a._loss_scale == b._loss_scale
            assert (a.grad_var.creator is None) == (b.grad_var.creator is None)
        if options.get('retain_grad'):
            np.testing.assert_array_equal(ya.grad, yb.grad)
        else:
            assert ya.grad is None and yb.grad is None

    def test_retained_intermediates_match(self):
        def build():
            x = Variable(s32(2))
            h = x * 3
            k = h * h + h
            return x, h, k, k * 2

        xa, ha, ka, ya = build()
        xb, hb, kb, yb = build()
        ya.backward(retain_grad=True, loss_scale=3.0)
        _step_to_end(BackwardStepper.for_backward([yb], retain_grad=True, loss_scale=3.0))
        for a, b in ((xa, xb), (ha, hb), (ka, kb), (ya, yb)):
            assert a.grad == b.grad
        assert hb.grad == 3 * 2 * (2 * 6 + 1)

    def test_double_backprop_matches(self):
        def build():
            x = Variable(f32(1, 2))
            w = Variable(f32(3, 4))
            return x, w, F.sum(x * x * w + F.sin(x * w))

        xa, wa, ya = build()
        xb, wb, yb = build()
        ya.backward(enable_double_backprop=True)
        _step_to_end(BackwardStepper.for_backward([yb], enable_double_backprop=True))
        ga, gb = xa.grad_var, xb.grad_var
        for v in (xa, wa, xb, wb):
            v.cleargrad()
        F.sum(ga).backward()
        _step_to_end(BackwardStepper.for_backward([F.sum(gb)]))
        np.testing.assert_allclose(xa.grad, xb.grad, rtol=1e-6)
        np.testing.assert_allclose(wa.grad, wb.grad, rtol=1e-6)

    @pytest.mark.parametrize('name', sorted(GRAPHS))
    @pytest.mark.parametrize('options', [{}, {'retain_grad': True}, {'loss_scale': 8.0},
                                         {'enable_double_backprop': True}])
    def test_for_grad(self, name, options):
        inputs, y = GRAPHS[name]()
        expected = chainer.grad([y], inputs, **options)
        stepper = BackwardStepper.for_grad([y], inputs, **options)
        _step_to_end(stepper)
        got = stepper.results(inputs)
        for e, g in zip(expected, got):
            np.testing.assert_array_equal(e.array, g.array)
        assert all(x.grad is None for x in inputs)

    def test_step_records_of_a_diamond(self):
        x = Variable(s32(3))
        a = x * 2
        b = x * 5
        y = a + b
        stepper = BackwardStepper.for_backward([y])
        s1, s2, s3 = _step_to_end(stepper)
        assert s1.function is y.creator and s1.rank == 1
        assert s1.target_input_indexes == (0, 1)
        assert s1.accumulation == ('set', 'set')
        assert s1.grad_outputs[0] == 1
        assert (s2.function, s3.function) == (a.creator, b.creator)
        assert s2.accumulation == ('set',) and s3.accumulation == ('added',)
        assert s2.grad_inputs[0] == 2 and s3.grad_inputs[0] == 5
        assert x.grad == 7

    def test_step_records_same_input_twice(self):
        x = Variable(s32(3))
        y = x * x
        step, = _step_to_end(BackwardStepper.for_backward([y]))
        assert step.function.label == '_ * _'
        assert step.accumulation == ('set', 'added')
        assert x.grad == 6

    def test_step_records_preset_leaf_grad(self):
        x = Variable(s32(3))
        x.grad = s32(1)
        step, = _step_to_end(BackwardStepper.for_backward([x * 4]))
        assert step.accumulation == ('added',)
        assert x.grad == 5

    def test_step_records_a_none_gradient(self):
        x = Variable(s32(2))
        y, = Returns(lambda g: (None,)).apply((x,))
        z = y + x * 3
        steps = _step_to_end(BackwardStepper.for_backward([z]))
        assert [s.function.label for s in steps] == ['_ + _', 'Returns', '_ * 3']
        assert steps[0].accumulation == ('set', 'set')
        assert steps[1].grad_inputs == (None,) and steps[1].accumulation == (None,)
        assert steps[2].accumulation == ('set',)
        assert x.grad == 3

    def test_step_records_a_skipped_function(self):
        c = Variable(s32(3), requires_grad=False)
        z = c * 2
        step, = _step_to_end(BackwardStepper.for_backward([z]))
        assert step.function is z.creator
        assert step.target_input_indexes == () and step.accumulation == ()
        assert c.grad is None

    def test_frontier_next_function_and_why_next(self):
        x = Variable(s32(1))
        a = x * 2
        b = x * 3
        c = (x * 4) * 5
        y = a + b + c
        stepper = BackwardStepper.for_backward([y])
        assert [f.label for f in stepper.frontier] == ['_ + _']
        stepper.step()  # (a + b) + c
        stepper.step()  # a + b
        assert [f.label for f in stepper.frontier] == ['_ * 5', '_ * 2', '_ * 3']
        assert stepper.next_function is c.creator
        assert 'rank 1' in stepper.why_next()
        stepper.step()
        assert [f.label for f in stepper.frontier] == ['_ * 2', '_ * 3', '_ * 4']
        assert 'share rank 0' in stepper.why_next()
        assert stepper.pending_grad(a.node) == 1
        stepper.run()
        assert stepper.done and stepper.next_function is None
        assert 'finished' in stepper.why_next()
        assert x.grad == 2 + 3 + 20
