"""The backward stepper's public API, and random graphs showing that stepping to the end
gives exactly what ``backward()`` / ``grad()`` give: the same gradients, bit for bit,
and the same event sequence (ids normalised).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import BackwardStep, BackwardStepper, Variable, events
from test_events import Names


def f32(*values):
    return np.array(values, dtype=np.float32)


# ---- the public API ------------------------------------------------------------------------------


class TestApi:
    def test_steps_report_what_they_did(self):
        x = Variable(f32(1, 2), name='x')
        w = Variable(f32(3, 4), name='w')
        h = x * w
        y = F.sum(h + x)
        stepper = BackwardStepper.for_backward([y])
        assert [f.label for f in stepper.frontier] == ['Sum'] and not stepper.done

        step = stepper.step()
        assert isinstance(step, BackwardStep)
        assert (step.function, step.rank) == (y.creator, 2)
        assert step.target_input_indexes == (0,) and step.accumulation == ('set',)
        assert step.grad_outputs[0] == 1
        np.testing.assert_array_equal(step.grad_inputs[0], f32(1, 1))

        add = stepper.step()
        assert add.function.label == '_ + _' and add.accumulation == ('set', 'set')
        np.testing.assert_array_equal(x.grad, f32(1, 1))  # a leaf: straight into its grad

        mul = stepper.step()
        assert (mul.function, mul.rank) == (h.creator, 0)
        assert mul.target_input_indexes == (0, 1) and mul.accumulation == ('added', 'set')
        np.testing.assert_array_equal(mul.grad_inputs[0], f32(3, 4))
        assert stepper.done and stepper.step() is None and stepper.next_function is None
        np.testing.assert_array_equal(x.grad, f32(4, 5))
        np.testing.assert_array_equal(w.grad, f32(1, 2))

    def test_pending_grads_between_steps(self):
        x = Variable(f32(1, 2))
        h = x * 3
        y = F.sum(h)
        stepper = BackwardStepper.for_backward([y])
        stepper.step()
        np.testing.assert_array_equal(stepper.pending_grad(h.node), f32(1, 1))
        assert h.grad is None  # not retained: it lives only in the stepper
        stepper.run()
        assert stepper.pending_grad(h.node) is None and stepper.done

    def test_frontier_is_ordered_by_rank_then_arrival(self):
        x = Variable(f32(1), name='x')
        a = x * 2        # rank 0
        b = a * 3        # rank 1
        c = x * 4        # rank 0
        y = F.sum(b + c + a)
        stepper = BackwardStepper.for_backward([y])
        stepper.step()  # Sum
        stepper.step()  # (b + c) + a
        stepper.step()  # b + c
        assert [f.rank for f in stepper.frontier] == sorted(
            (f.rank for f in stepper.frontier), reverse=True)
        labels = [f.label for f in stepper.frontier]
        assert labels[0] == '_ * 3' and set(labels[1:]) == {'_ * 2', '_ * 4'}
        assert stepper.next_function is stepper.frontier[0]
        assert 'rank 1' in stepper.why_next() and 'highest rank' in stepper.why_next()
        stepper.step()
        assert labels[1:] == [f.label for f in stepper.frontier]  # first pushed, first out
        assert 'share rank 0' in stepper.why_next()
        stepper.run()
        assert stepper.why_next().startswith('Backward is finished')
        np.testing.assert_array_equal(x.grad, f32(12))  # 2*3 + 4 + 2

    def test_for_backward_takes_backwards_arguments(self):
        x = Variable(np.array(2.0, np.float32))
        h = x * x
        y = h * 3
        stepper = BackwardStepper.for_backward([y], retain_grad=True,
                                               enable_double_backprop=True, loss_scale=4.0)
        stepper.run()
        assert h.grad == 12.0 and x.grad == 48.0  # scaled by 4
        assert x.grad_var.creator is not None  # double backprop: the grad has a graph

    def test_for_grad_takes_grads_arguments(self):
        x = Variable(np.array(2.0, np.float32))
        w = Variable(np.array(5.0, np.float32))
        y = x * w
        stepper = BackwardStepper.for_grad([y], [x, w], grad_outputs=[np.array(2.0, np.float32)],
                                           grad_inputs=[np.array(1.0, np.float32), None],
                                           set_grad=True, loss_scale=None)
        assert x.grad is None
        while not stepper.done:
            stepper.step()
        gx, gw = stepper.results()
        assert (gx.array, gw.array) == (11.0, 4.0)  # 2*5 + preset 1; 2*2
        assert x.grad_var is gx and w.grad_var is gw  # set_grad, once finished
        assert stepper.results()[0] is gx

    def test_run_and_step_agree_on_an_already_finished_stepper(self):
        x = Variable(np.array(2.0, np.float32))
        stepper = BackwardStepper.for_grad([x], [x], set_grad=True)
        assert stepper.done and stepper.frontier == []
        stepper.run()
        assert x.grad == 1.0

    def test_a_failed_step_stops_the_stepper(self):
        class Fails(chainer.FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

            def backward(self, target_input_indexes, grad_outputs):
                raise RuntimeError('boom')

        x = Variable(f32(1))
        y = F.sum(Fails().apply((x,))[0])
        stepper = BackwardStepper.for_backward([y])
        stepper.step()
        with pytest.raises(RuntimeError):
            stepper.step()
        assert stepper.done and stepper.step() is None and x.grad is None


# ---- random graphs: stepping == backward() / grad() ---------------------------------------

UNARY = {'tanh': F.tanh, 'sin': F.sin, 'times3': lambda v: v * 3, 'plus1': lambda v: v + 1,
         'square': lambda v: v * v}
BINARY = {'add': lambda a, b: a + b, 'sub': lambda a, b: a - b, 'mul': lambda a, b: a * b}


@st.composite
def programs(draw):
    """A random DAG over 1-3 leaves: fan-out (reuse), fan-in (binary ops), diamonds."""
    n_leaves = draw(st.integers(1, 3))
    ops = []
    for i in range(draw(st.integers(1, 9))):
        size = n_leaves + i
        if draw(st.booleans()):
            ops.append(('u', draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, size - 1))))
        else:
            ops.append(('b', draw(st.sampled_from(sorted(BINARY))),
                        draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))))
    outputs = draw(st.lists(st.integers(0, n_leaves + len(ops) - 1), min_size=1, max_size=3))
    return {
        'leaves': [draw(st.lists(st.floats(-1, 1, width=32), min_size=3, max_size=3))
                   for _ in range(n_leaves)],
        'constant': draw(st.lists(st.booleans(), min_size=n_leaves, max_size=n_leaves)),
        'preset': draw(st.booleans()),
        'ops': ops, 'outputs': outputs,
        'retain': draw(st.booleans()),
        'retain_grad': draw(st.booleans()),
        'double': draw(st.booleans()),
        'loss_scale': draw(st.sampled_from([None, 2.0])),
        'mode': draw(st.sampled_from(['backward', 'grad'])),
        'set_grad': draw(st.booleans()),
        'second_order': draw(st.booleans()),
    }


def build(p):
    leaves = [Variable(np.array(v, np.float32), name=f'x{i}', requires_grad=not const)
              for i, (v, const) in enumerate(zip(p['leaves'], p['constant']))]
    if p['preset']:
        for x in leaves:
            if x.requires_grad:
                x.grad = np.full(3, 0.5, np.float32)
    nodes = list(leaves)
    for op in p['ops']:
        if op[0] == 'u':
            nodes.append(UNARY[op[1]](nodes[op[2]]))
        else:
            nodes.append(BINARY[op[1]](nodes[op[2]], nodes[op[3]]))
    total = F.sum(nodes[p['outputs'][0]])
    for k in p['outputs'][1:]:
        total = total + F.sum(nodes[k] * 0.5)
    kept = nodes if p['retain'] else leaves  # dropping intermediates exercises released grads
    return leaves, kept, total


def execute(p, stepping):
    """Run the program; with ``stepping`` through the public stepper, one step at a time."""
    steps = []

    def drive(stepper):
        last_rank = None
        while not stepper.done:
            before = stepper.frontier
            assert stepper.next_function is before[0] and stepper.why_next()
            step = stepper.step()
            assert step.function is before[0] and step.rank == step.function.rank
            assert last_rank is None or step.rank <= last_rank  # highest rank first
            last_rank = step.rank
            assert len(step.accumulation) == len(step.target_input_indexes) == \
                len(step.grad_inputs)
            assert set(step.accumulation) <= {'set', 'added', None}
            steps.append(step.function.label)
        assert stepper.step() is None

    with events.recording() as log:
        leaves, kept, y = build(p)
        wanted = [x for x in leaves if x.requires_grad] or leaves
        kwargs = {'retain_grad': p['retain_grad'], 'enable_double_backprop': p['double'],
                  'loss_scale': p['loss_scale']}
        results = None
        if p['mode'] == 'backward':
            if stepping:
                drive(BackwardStepper.for_backward([y], **kwargs))
            else:
                y.backward(**kwargs)
        elif stepping:
            stepper = BackwardStepper.for_grad([y], wanted, set_grad=p['set_grad'], **kwargs)
            drive(stepper)
            results = stepper.results()
        else:
            results = chainer.grad([y], wanted, set_grad=p['set_grad'], **kwargs)
        if p['double'] and p['second_order']:
            # differentiate the gradients themselves (grad-of-grad), stepping again
            gvars = [g for g in (results or [x.grad_var for x in leaves]) if g is not None]
            if gvars:
                z = F.sum(gvars[0] * gvars[0])
                for g in gvars[1:]:
                    z = z + F.sum(g)
                for x in leaves:
                    x.cleargrad()
                if stepping:
                    drive(BackwardStepper.for_backward([z]))
                else:
                    z.backward()
    grads = [None if v.grad is None else v.grad.copy() for v in kept]
    outs = None if results is None else [None if g is None else g.array.copy()
                                         for g in results]
    names = Names()
    story = [names.event(e) for e in log if e.kind != 'variable_collected']
    return grads, outs, story, steps


def assert_same(a, b):
    assert (a is None) == (b is None)
    if a is not None:
        assert len(a) == len(b)
        for u, v in zip(a, b):
            assert (u is None) == (v is None)
            if u is not None:
                np.testing.assert_array_equal(u, v)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_stepping_to_the_end_equals_backward_and_grad(p):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        grads, outs, story, _ = execute(p, stepping=False)
        s_grads, s_outs, s_story, steps = execute(p, stepping=True)
    assert_same(grads, s_grads)
    assert_same(outs, s_outs)
    assert story == s_story  # identical events, field by field (snapshots included)
    ran = [e for kind, e in s_story if kind == 'backward_step_started']
    assert len(ran) == len(steps)


def test_a_diamond_by_hand():
    """x -> a, b -> y: both paths meet; x's grad is set once, then added."""
    p = {'leaves': [[0.5, -0.25, 1.0]], 'constant': [False], 'preset': False,
         'ops': [('u', 'tanh', 0), ('u', 'times3', 0), ('b', 'mul', 1, 2)], 'outputs': [3],
         'retain': True, 'retain_grad': True, 'double': False, 'loss_scale': 2.0,
         'mode': 'backward', 'set_grad': False, 'second_order': False}
    grads, _, story, _ = execute(p, stepping=False)
    s_grads, _, s_story, steps = execute(p, stepping=True)
    assert_same(grads, s_grads)
    assert story == s_story
    assert steps == ['Sum', '_ * _', 'Tanh', '_ * 3']
    x = np.array([0.5, -0.25, 1.0], np.float32)
    expected = 2.0 * (3 * np.tanh(x) + 3 * x * (1 - np.tanh(x) ** 2))
    np.testing.assert_allclose(s_grads[0], expected, rtol=1e-6)
    (x_set,) = [f for k, f in s_story if k == 'grad_set' and f['var_id'] == 'v1']
    (x_added,) = [f for k, f in s_story if k == 'grad_accumulated']
    np.testing.assert_allclose(x_added['grad'], expected, rtol=1e-6)
    assert x_set['grad'] != x_added['grad']
