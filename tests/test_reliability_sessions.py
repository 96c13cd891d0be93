"""Long sessions: memory stays flat, graphs are freed without the cycle collector,
and the event log keeps its bound.

The 2,000-step sessions run ``benchmarks/long_session.py`` in a fresh interpreter
each (resident memory is per process, so isolation keeps one session from
inflating another's figure).
"""

from __future__ import annotations

import contextlib
import gc
import sys
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
import autograd_lab.optimizers as O
from autograd_lab import FunctionHook, FunctionNode, Variable, VariableNode, events

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'benchmarks'))
import long_session

MAX_RSS_CHANGE = 0.05


# ---- 2,000 steps, three ways ---------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize('mode', [
    pytest.param(m, marks=[pytest.mark.widget] if m == 'view' else []) for m in long_session.MODES])
def test_long_session_memory_is_flat(mode):
    steps = 2000
    f = long_session.run_child(mode, steps, stop_over=MAX_RSS_CHANGE)  # stops once failed
    done = f['steps_done']
    first, last = f['rss'][str(long_session.CHECKPOINTS[0])], f['rss'][str(done)]
    assert done == steps and abs(last - first) / first <= MAX_RSS_CHANGE, (
        f'{mode}: RSS {first / 2**20:.1f} MiB after step 200, {last / 2**20:.1f} MiB after '
        f'step {done}')
    assert f['loss_last'] < 0.1 * f['loss_first']  # and it really trained
    if mode == 'recording':
        assert f['log_len'] == f['log_maxlen'] == long_session.LOG_SIZE
        assert f['log_dropped'] > 0  # the bound was reached and held


# ---- graphs are freed by reference counting alone ---------------------------------------------

@contextlib.contextmanager
def no_cycle_collector() -> Iterator[None]:
    """Only reference counting frees objects in the block; cycles would survive it."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def graph_refs(*roots: Variable) -> list[weakref.ref]:
    """Weak references to every VariableNode and FunctionNode behind ``roots``."""
    refs, seen, stack = [], set(), [r.node for r in roots]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        refs.append(weakref.ref(node))
        func = node.creator_node
        if func is not None and id(func) not in seen:
            seen.add(id(func))
            refs.append(weakref.ref(func))
            stack.extend(func.inputs or ())
    return refs


def _mlp() -> tuple[Any, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    model = chainer.Sequential(L.Linear(5, 8), F.relu, L.Linear(8, 3))
    x = rng.standard_normal((6, 5)).astype(np.float32)
    t = rng.integers(0, 3, 6).astype(np.int32)
    return model, x, t


def _loss(model: Any, x: np.ndarray, t: np.ndarray) -> Variable:
    return F.softmax_cross_entropy(model(x), t)


class _Boom(FunctionNode):
    def forward(self, xs: tuple) -> tuple:
        return (xs[0] * 2,)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        raise RuntimeError('boom')


def _plain(x: Variable) -> list:
    y = F.sum(F.tanh(x) * x + F.exp(x)[:, [0, 0, 1]])
    y.backward()
    return [y]


def _double(x: Variable) -> list:
    y = F.sum(F.tanh(x) ** 3)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    z = F.sum(gx * gx)
    x.cleargrad()
    z.backward()
    return [y, z, gx]


def _grad(x: Variable) -> list:
    y = F.sum(F.sin(x) * x)
    gx, = chainer.grad([y], [x], enable_double_backprop=True)
    return [y, gx]


def _half_stepped(x: Variable) -> list:
    y = F.sum(F.sin(F.cos(x)) * 2)
    stepper = chainer.BackwardStepper.for_backward([y])
    stepper.step()  # a front end abandons the stepper half-way
    return [y, stepper]


def _failed(x: Variable) -> list:
    y = F.sum(_Boom().apply((F.exp(x),))[0])
    with pytest.raises(RuntimeError):
        y.backward()
    return [y]


def _recorded(x: Variable) -> list:
    with events.recording() as log:
        out = _double(x)
    return [*out, log]


def _hooked(x: Variable) -> list:
    class Seen(FunctionHook):
        name = 'Seen'

        def __init__(self) -> None:
            self.functions: list = []

        def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
            self.functions.append(function.label)

    with Seen() as hook:
        out = _plain(x)
    return [*out, hook]


def _unchained(x: Variable) -> list:
    y = F.sum(F.tanh(x) * 3)
    y.backward()
    y.unchain_backward()
    return [y]


SCENARIOS: dict[str, Callable[[Variable], list]] = {
    'backward': _plain, 'double-backprop': _double, 'grad': _grad,
    'stepper-abandoned': _half_stepped, 'failed-backward': _failed,
    'recorded': _recorded, 'hooked': _hooked, 'unchained': _unchained,
}


@pytest.mark.parametrize('scenario', SCENARIOS)
def test_dropping_the_outputs_frees_the_graph_without_gc(scenario):
    with no_cycle_collector():
        x = Variable(np.linspace(-1, 1, 6).reshape(2, 3))
        held = SCENARIOS[scenario](x)
        roots = [v for v in held if isinstance(v, Variable)]
        refs = graph_refs(*roots)
        assert len(refs) > 1 or scenario == 'unchained'
        held.clear()
        del roots
        x.cleargrad()  # a double-backprop grad_var holds a graph of its own
        alive = [r() for r in refs if r() is not None and r() is not x.node]
        assert alive == [], alive


def test_training_steps_free_every_step_graph_without_gc():
    model, x, t = _mlp()
    opt = O.SGD(lr=0.1).setup(model)
    with no_cycle_collector():
        refs = []
        for _ in range(5):
            loss = F.softmax_cross_entropy(model(x), t)
            refs += graph_refs(loss)
            model.cleargrads()
            loss.backward()
            opt.update()
            del loss
        params = {id(p.node) for p in model.params()}
        alive = [r() for r in refs if r() is not None and id(r()) not in params]
        assert alive == [], alive


ENGINE_TYPES = (Variable, VariableNode, FunctionNode, events.Event, events.EventLog,
                chainer.Link, chainer.Optimizer, FunctionHook)


def test_no_engine_object_is_ever_cyclic_garbage():
    # DEBUG_SAVEALL keeps whatever the cycle collector would free in gc.garbage, so
    # anything of the engine's there was kept alive only by a reference cycle.
    gc.collect()
    old_debug = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.garbage.clear()
        for run in SCENARIOS.values():
            run(Variable(np.linspace(-1, 1, 6).reshape(2, 3)))
        model, x, t = _mlp()
        opt = O.Adam().setup(model)
        with events.recording():
            for _ in range(3):
                opt.update(_loss, model, x, t)
        del model, opt
        gc.collect()
        engine = [type(o).__name__ for o in gc.garbage if isinstance(o, ENGINE_TYPES)]
        assert engine == []
    finally:
        gc.set_debug(old_debug)
        gc.garbage.clear()
        gc.collect()


# ---- the event log's bound -------------------------------------------------------------------

def test_event_log_keeps_its_bound_and_counts_what_it_dropped():
    x = Variable(np.ones(3))
    with events.recording(maxlen=50) as log:
        for _ in range(40):
            F.sum(F.exp(x) * 2).backward()
    total = len(log) + log.dropped
    assert len(log) == log.maxlen == 50
    assert log.dropped == total - 50 > 0
    seqs = [e.seq for e in log]
    assert seqs == sorted(seqs)  # the newest events are the ones kept
    assert log.of_kind('backward_finished')


def test_default_recording_is_bounded():
    with events.recording() as log:
        pass
    assert log.maxlen == events.DEFAULT_LOG_SIZE


def test_collection_watchers_do_not_accumulate():
    # While observed, every Variable's node refers to it through a watch that announces
    # its collection; watches must go with their nodes, or a long recorded session would
    # leak them.
    def watches():  # the watches are weak references of a class of their own
        gc.collect()
        return sum(1 for o in gc.get_objects()
                   if isinstance(o, weakref.ref) and type(o) is not weakref.ref)

    model, x, t = _mlp()
    opt = O.SGD().setup(model)
    baseline = watches()
    with events.recording(maxlen=1000) as log:
        for _ in range(200):
            opt.update(_loss, model, x, t)
        during = watches()
    del model, opt
    assert during - baseline < 50  # the parameters and the last step's few, not 200 steps'
    assert watches() <= baseline
    assert log.of_kind('variable_collected') and log.dropped > 0


def test_each_backward_step_event_stays_small_on_a_wide_graph():
    # A frontier of thousands of functions is summarised, not copied into every step's
    # event: without the cap, recording one wide backward held frontier x steps ids.
    width = 3000
    x = Variable(np.ones(2))
    y = F.sum(F.add(*[x * float(i) for i in range(width)]))
    with events.recording(maxlen=10 * width) as log:
        y.backward()
    steps = log.of_kind('backward_step_started')
    assert len(steps) == width + 2 and log.dropped == 0
    assert max(len(e.frontier_ids) for e in steps) == events.FRONTIER_MAX
    assert max(e.frontier_size for e in steps) == width
    np.testing.assert_array_equal(x.grad, np.full(2, width * (width - 1) / 2))
