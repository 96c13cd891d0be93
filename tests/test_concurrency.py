"""Concurrency: thread-local configuration, concurrent graphs, events tagged per thread.

Python threads interleave at bytecode boundaries; the tests shrink the switch
interval so that threads really do interleave inside forward and backward
(otherwise one thread would usually finish its whole graph in one time slice).
Barriers put the threads in the interesting state at the same moment, so the
checks do not depend on timing luck.
"""

from __future__ import annotations

import contextlib
import itertools
import sys
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import FunctionHook, Variable, events


@contextlib.contextmanager
def fast_switching() -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_threads(n: int, target: Callable[[int], Any]) -> list:
    """Run ``target(k)`` in ``n`` threads; return the results, re-raise the first error."""
    results: list = [None] * n
    errors: list = []

    def body(k: int) -> None:
        try:
            results[k] = target(k)
        except BaseException as error:  # reported in the main thread
            errors.append(error)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), 'a thread hung'
    if errors:
        raise errors[0]
    return results


# ---- configuration and modes are per thread ----------------------------------------------------

def test_no_backprop_mode_in_one_thread_does_not_affect_another():
    barrier = threading.Barrier(2, timeout=30)

    def quiet(k: int) -> tuple:
        x = Variable(np.ones(2))
        with chainer.no_backprop_mode():
            barrier.wait()  # the other thread now builds a graph while we are in the mode
            y = x * 2
            barrier.wait()
            return chainer.config.enable_backprop, y.creator is None

    def loud(k: int) -> tuple:
        x = Variable(np.ones(2))
        barrier.wait()
        y = x * 2
        flag = chainer.config.enable_backprop
        barrier.wait()
        return flag, y.creator is not None

    results = run_threads(2, lambda k: (quiet, loud)[k](k))
    assert results == [(False, True), (True, True)]
    assert chainer.config.enable_backprop is True


def test_using_config_and_force_backprop_are_per_thread_and_global_config_is_shared():
    barrier = threading.Barrier(3, timeout=30)
    seen: dict = {}

    def body(k: int) -> None:
        if k == 0:
            with chainer.using_config('train', False), chainer.no_backprop_mode(), \
                    chainer.force_backprop_mode():
                barrier.wait()
                seen[k] = (chainer.config.train, chainer.config.enable_backprop)
                barrier.wait()
        elif k == 1:
            with chainer.using_config('train', 'thread-1'):
                barrier.wait()
                seen[k] = (chainer.config.train, chainer.config.enable_backprop)
                barrier.wait()
        else:
            barrier.wait()
            seen[k] = (chainer.config.train, chainer.config.enable_backprop)
            barrier.wait()

    run_threads(3, body)
    assert seen == {0: (False, True), 1: ('thread-1', True), 2: (True, True)}

    # A global default is seen by a thread that has no value of its own.
    old = chainer.global_config.type_check
    try:
        chainer.global_config.type_check = False
        assert run_threads(1, lambda k: chainer.config.type_check) == [False]
    finally:
        chainer.global_config.type_check = old


def test_function_hooks_are_per_thread():
    class Labels(FunctionHook):
        name = 'Labels'

        def __init__(self) -> None:
            self.seen: list = []

        def forward_preprocess(self, function: Any, in_data: tuple) -> None:
            self.seen.append(function.label)

    barrier = threading.Barrier(2, timeout=30)

    def body(k: int) -> list:
        x = Variable(np.ones(2))
        if k == 0:
            with Labels() as hook:
                barrier.wait()
                F.exp(x)
                barrier.wait()  # thread 1 has applied its functions meanwhile
            return hook.seen
        barrier.wait()
        F.sin(x) + F.cos(x)
        barrier.wait()
        return list(chainer.get_function_hooks())

    hooked, other = run_threads(2, body)
    assert hooked == ['exp']
    assert other == []


# ---- separate graphs built and backpropagated at once ------------------------------------------

def _workload(seed: int, double: bool) -> tuple[Variable, Variable, Callable[[], Variable]]:
    rng = np.random.default_rng(seed)
    x = Variable(rng.normal(size=(4, 3)))
    w = Variable(rng.normal(size=(3, 5)))

    def loss() -> Variable:
        h = F.tanh(F.matmul(x, w))
        return F.sum(F.sigmoid(h) * h + F.exp(-h * h)) + F.sum(x[[0, 0, 3]] ** 2)

    return x, w, loss


def _reference(seed: int, double: bool) -> list:
    x, w, loss = _workload(seed, double)
    y = loss()
    y.backward(enable_double_backprop=double)
    out = [x.grad.copy(), w.grad.copy()]
    if double:
        gw = w.grad_var
        x.cleargrad()
        w.cleargrad()
        F.sum(gw * gw).backward()
        out += [x.grad.copy(), w.grad.copy()]
    return out


@pytest.mark.parametrize('n_threads', [2, 4])
@pytest.mark.parametrize('double', [False, True], ids=['backward', 'double-backward'])
def test_concurrent_graphs_give_the_same_grads_as_alone(n_threads, double):
    repeats = 200
    expected = [_reference(seed, double) for seed in range(n_threads)]
    barrier = threading.Barrier(n_threads, timeout=60)

    def body(k: int) -> int:
        barrier.wait()
        mismatches = 0
        for _ in range(repeats):
            got = _reference(k, double)
            mismatches += not all(np.array_equal(g, e) for g, e in zip(got, expected[k]))
        return mismatches

    with fast_switching():
        assert run_threads(n_threads, body) == [0] * n_threads


def test_concurrent_steppers_and_grad():
    # The stepper path (one step per call, as a front end drives it) and chainer.grad.
    n = 4
    expected = [_reference(seed, False) for seed in range(n)]
    barrier = threading.Barrier(n, timeout=60)

    def body(k: int) -> bool:
        barrier.wait()
        ok = True
        for _ in range(100):
            x, w, loss = _workload(k, False)
            y = loss()
            if k % 2:
                stepper = chainer.BackwardStepper.for_backward([y])
                while not stepper.done:
                    stepper.step()
                got = [x.grad, w.grad]
            else:
                got = [g.array for g in chainer.grad([y], [x, w])]
            ok &= all(np.array_equal(g, e) for g, e in zip(got, expected[k]))
        return ok

    with fast_switching():
        assert run_threads(n, body) == [True] * n


# ---- events from several threads ----------------------------------------------------------------

def _kinds_of_one_run(seed: int) -> Counter:
    with events.recording() as log:
        _reference(seed, False)
    return Counter(e.kind for e in log if e.kind != 'variable_collected')


def test_subscribers_see_every_threads_events_tagged_and_none_lost():
    n, repeats = 4, 50
    alone = [_kinds_of_one_run(k) for k in range(n)]
    barrier = threading.Barrier(n, timeout=60)
    idents: dict = {}

    def body(k: int) -> None:
        idents[threading.get_ident()] = k
        barrier.wait()
        for _ in range(repeats):
            _reference(k, False)

    log = events.EventLog(maxlen=10_000_000)
    with events.subscribe(log), fast_switching():
        run_threads(n, body)
    assert log.dropped == 0
    per_thread: dict = defaultdict(list)
    for e in log:
        per_thread[e.thread].append(e)
    assert set(per_thread) == set(idents)  # no event from anywhere else, none untagged

    switches = sum(a.thread != b.thread for a, b in itertools.pairwise(log))
    assert switches > 2 * n  # interleaved (threads run one after another switch n - 1 times)
    seqs = [e.seq for e in log]
    assert len(set(seqs)) == len(seqs)  # every event numbered once
    for ident, evs in per_thread.items():
        k = idents[ident]
        kinds = Counter(e.kind for e in evs if e.kind != 'variable_collected')
        assert kinds == Counter({kind: c * repeats for kind, c in alone[k].items()}), k
        # Within a thread, each backward is one well-formed run: started, steps, finished.
        runs: dict = defaultdict(list)
        for e in evs:
            if hasattr(e, 'run_id'):
                runs[e.run_id].append(e.kind)
        assert len(runs) == repeats
        for kinds_of_run in runs.values():
            assert kinds_of_run[0] == 'backward_started'
            assert kinds_of_run[-1] == 'backward_finished'
            assert kinds_of_run.count('backward_step_started') == \
                kinds_of_run.count('backward_step_done')
        # ids named by this thread's events belong to this thread's variables only
        made = {e.var_id for e in evs if e.kind == 'variable_created'}
        used = {i for e in evs if e.kind == 'function_applied' for i in e.input_ids}
        assert used <= made


def test_in_backward_of_is_per_thread():
    # While thread A is inside a function's backward (double backprop applies new
    # functions), functions thread B applies must not be attributed to A's backward.
    n = 2
    barrier = threading.Barrier(n, timeout=60)

    def body(k: int) -> None:
        barrier.wait()
        for _ in range(10):
            if k == 0:
                x = Variable(np.linspace(0.1, 1, 6).reshape(2, 3))
                F.sum(F.tanh(x) ** 3).backward(enable_double_backprop=True)
            else:
                x = Variable(np.ones(3))
                F.sum(F.exp(x))

    log = events.EventLog(maxlen=10_000_000)
    with events.subscribe(log), fast_switching():
        idents = {}
        run_threads(n, lambda k: (idents.__setitem__(k, threading.get_ident()), body(k)))
    applied = [e for e in log if e.kind == 'function_applied']
    forward_only = [e for e in applied if e.thread == idents[1]]
    assert forward_only and all(e.in_backward_of is None for e in forward_only)
    assert any(e.in_backward_of is not None for e in applied if e.thread == idents[0])


def test_hooks_registered_and_removed_in_many_threads_leave_no_trace():
    class Count(FunctionHook):
        name = 'Count'

        def __init__(self) -> None:
            self.n = 0

        def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
            self.n += 1

    expected = [_reference(k, False) for k in range(4)]

    def body(k: int) -> bool:
        ok = True
        for _ in range(50):
            with Count() as hook:
                got = _reference(k, False)
            ok &= hook.n > 0 and all(np.array_equal(g, e) for g, e in zip(got, expected[k]))
        return ok

    active_before = events.active
    with fast_switching():
        assert run_threads(4, body) == [True] * 4
    assert events.active == active_before
    assert list(chainer.get_function_hooks()) == []
