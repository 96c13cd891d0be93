"""Reliability, depth and size: a 100,000-op chain and a 10,000-branch wide graph.

Every traversal of the engine (forward, backward, double backprop, ``grad``,
``unchain_backward``, freeing a graph) must work at Python's default recursion
limit: the tests below run with the limit pinned to CPython's default of 1000,
so any recursive walk over the graph would raise ``RecursionError``.

Gradients are compared with the same derivative computed by a plain NumPy loop
in float64, not with hard-coded numbers.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import weakref
from collections.abc import Iterator

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable

CHAIN = 100_000
WIDE = 10_000
DEFAULT_RECURSION_LIMIT = 1000  # CPython's default (sys.getrecursionlimit() of a fresh interpreter)


@contextlib.contextmanager
def default_recursion_limit() -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


# ---- the long chain: x -> (*0.999 -> sin) repeated -------------------------------------------

SCALE = 0.999


def build_chain(x: Variable, n_ops: int) -> tuple[Variable, list]:
    """``n_ops`` functions alternating ``h * SCALE`` and ``sin(h)``; also weakrefs to a few."""
    h = x
    probes = []
    for i in range(n_ops):
        h = h * SCALE if i % 2 == 0 else F.sin(h)
        if i % (n_ops // 4) == 1:
            probes.append(weakref.ref(h.creator))
    return h, probes


def chain_value_and_derivative(x0: float, n_ops: int) -> tuple[float, float]:
    """The chain's value and first derivative by the chain rule, in a NumPy float64 loop."""
    h, d = np.float64(x0), np.float64(1.0)
    for i in range(n_ops):
        if i % 2 == 0:
            h, d = h * SCALE, d * SCALE
        else:
            h, d = np.sin(h), d * np.cos(h)
    return float(h), float(d)


@pytest.mark.slow
def test_chain_forward_backward_and_grad_at_default_recursion_limit():
    x0 = 1.0
    value, derivative = chain_value_and_derivative(x0, CHAIN)
    with default_recursion_limit():
        x = Variable(np.array(x0))
        y, _ = build_chain(x, CHAIN)
        assert y.rank == CHAIN
        np.testing.assert_allclose(y.array, value, rtol=1e-10)
        y.backward()
        np.testing.assert_allclose(x.grad, derivative, rtol=1e-9)
        gx, = chainer.grad([y], [x])
        np.testing.assert_allclose(gx.array, derivative, rtol=1e-9)
        # A second backward accumulates, as for any graph.
        y.backward()
        np.testing.assert_allclose(x.grad, 2 * derivative, rtol=1e-9)


@pytest.mark.slow
def test_chain_double_backprop_matches_finite_difference_of_the_derivative():
    x0, eps = 1.0, 1e-5
    second = (chain_value_and_derivative(x0 + eps, CHAIN)[1]
              - chain_value_and_derivative(x0 - eps, CHAIN)[1]) / (2 * eps)
    with default_recursion_limit():
        x = Variable(np.array(x0))
        y, _ = build_chain(x, CHAIN)
        y.backward(enable_double_backprop=True)
        gx = x.grad_var
        assert gx.creator is not None and gx.rank > CHAIN  # a graph of the gradient
        x.cleargrad()
        gx.backward()
        np.testing.assert_allclose(x.grad, second, rtol=1e-5)


@pytest.mark.slow
def test_chain_unchain_backward_and_freeing_at_default_recursion_limit():
    with default_recursion_limit():
        x = Variable(np.array(0.5))
        y, probes = build_chain(x, CHAIN)
        assert all(p() is not None for p in probes)
        y.unchain_backward()
        assert y.creator is None
        gc.collect()
        assert all(p() is None for p in probes)  # the cut graph is freed
        # y is now a leaf: backward from it reaches nothing else.
        y.backward()
        assert x.grad is None
        # Dropping a whole uncut chain frees it without deep recursion too.
        z, probes = build_chain(x, CHAIN)
        del z
        gc.collect()
        assert all(p() is None for p in probes)


@pytest.mark.slow
def test_chain_stepper_runs_one_step_at_a_time():
    n = CHAIN // 10  # the stepper path in Python, one call per function
    with default_recursion_limit():
        x = Variable(np.array(0.3))
        y, _ = build_chain(x, n)
        stepper = chainer.BackwardStepper.for_backward([y])
        steps = 0
        while not stepper.done:
            stepper.step()
            steps += 1
        assert steps == n
        np.testing.assert_allclose(x.grad, chain_value_and_derivative(0.3, n)[1], rtol=1e-9)


# ---- the wide graph: x fans out to 10,000 branches that join in one add ----------------------

def build_wide(x: Variable) -> tuple[Variable, np.ndarray]:
    coefs = np.linspace(-1.0, 1.0, WIDE)
    branches = [F.square(x * float(c)) for c in coefs]
    return F.sum(F.add(*branches)), coefs


def test_wide_graph_forward_backward_double_backprop_and_unchain():
    with default_recursion_limit():
        a = np.array([0.5, -1.5, 2.0])
        x = Variable(a.copy())
        y, coefs = build_wide(x)
        c2 = float(np.sum(coefs ** 2))
        np.testing.assert_allclose(y.array, c2 * np.sum(a ** 2), rtol=1e-12)
        y.backward(enable_double_backprop=True)
        np.testing.assert_allclose(x.grad, 2 * c2 * a, rtol=1e-12)
        gx = x.grad_var
        x.cleargrad()
        F.sum(gx).backward()
        np.testing.assert_allclose(x.grad, np.full(3, 2 * c2), rtol=1e-12)

        mid = weakref.ref(y.creator.inputs[0].creator_node.inputs[WIDE // 2].creator_node)
        assert mid() is not None
        y.unchain_backward()
        gc.collect()
        assert mid() is None
        assert y.creator is None


def test_wide_graph_ties_run_in_first_pushed_order():
    # 10,000 functions share one rank: the stepper runs them in the order they entered
    # the frontier, whatever the heap does with equal keys.
    x = Variable(np.ones(2))
    branches = [x * float(i) for i in range(WIDE)]
    y = F.sum(F.add(*branches))
    stepper = chainer.BackwardStepper.for_backward([y])
    stepper.step(), stepper.step()  # Sum, then the add
    ran = []
    while not stepper.done:
        ran.append(stepper.step().function)
    assert ran == [b.creator for b in branches]
    np.testing.assert_allclose(x.grad, np.full(2, WIDE * (WIDE - 1) / 2))


# ---- the graph model and its DOT export on the same graphs ---------------------------------------

DOT_CAP = 400


def _check_capped_dot(model, keep: set, **options) -> None:
    """``to_dot`` under its node cap: well-formed DOT, at most the cap of engine nodes, the
    remainder summarised in one ``more`` node, and the nodes in ``keep`` shown."""
    from autograd_lab import graph
    from test_hostile_inputs import dot_statements

    text = graph.to_dot(model, max_nodes=DOT_CAP, **options)
    statements = dot_statements(text)
    shown = {int(s[0][1:]) for s in statements
             if len(s) > 1 and s[1] == '[' and s[0][0] == 'n' and s[0][1:].isdigit()}
    assert 0 < len(shown) <= DOT_CAP
    assert shown <= set(model.nodes)
    assert keep <= shown
    assert any(s[0] == 'more' for s in statements)


@pytest.mark.slow
def test_chain_graph_model_from_outputs_and_capped_dot():
    from autograd_lab import events, graph

    with default_recursion_limit():
        x = Variable(np.array(0.5), name='x')
        y, _ = build_chain(x, CHAIN)
        model = graph.GraphModel.from_outputs(y)
        assert len(model.nodes) == 2 * CHAIN + 1 and len(model.edges) == 2 * CHAIN
        out = events.uid(y)
        assert model.nodes[out].kind == 'output'
        assert model.nodes[events.uid(x)].kind == 'input'
        assert len(model.upstream(out)) == 2 * CHAIN
        assert model.downstream(events.uid(x)) == set(model.nodes) - {events.uid(x)}
        _check_capped_dot(model, {out})


@pytest.mark.slow
def test_chain_graph_model_from_events_replays_the_same_graph():
    from autograd_lab import events, graph

    with default_recursion_limit():
        x = Variable(np.array(0.5), name='x')
        with events.recording(maxlen=4 * CHAIN) as log:
            y, _ = build_chain(x, CHAIN)
        assert log.dropped == 0
        replayed = graph.GraphModel.from_events(log)
        ids = {events.uid(y)}
        func = y.creator_node
        while func is not None:  # the chain's ids, walked without recursion
            ids.add(events.uid(func))
            ids.add(events.uid(func.inputs[0]))
            func = func.inputs[0].creator_node
        assert set(replayed.nodes) == ids
        assert len(replayed.edges) == 2 * CHAIN
        half = graph.GraphModel.from_events(log, upto=len(log) // 2)  # time travel
        assert 0 < len(half.nodes) < len(replayed.nodes)


def test_wide_graph_model_with_grad_graph_and_capped_dot():
    from autograd_lab import events, graph

    with default_recursion_limit():
        x = Variable(np.array([0.5, -1.5, 2.0]), name='x')
        with events.recording(maxlen=60 * WIDE) as log:
            y, _ = build_wide(x)
            y.backward(enable_double_backprop=True)
        model = graph.GraphModel.from_outputs(y)  # follows x.grad_var into its graph
        forward = {i for i, n in model.nodes.items() if n.order == 0}
        # x; per branch: MulConstant, its output, Square, its output; add, out, Sum, out
        assert len(forward) == 4 * WIDE + 5
        assert sum(n.order == 1 for n in model.nodes.values()) > 2 * WIDE  # grad-of-grad
        assert len(model.downstream(events.uid(x))) >= 4 * WIDE + 4
        _check_capped_dot(model, set())
        _check_capped_dot(model, {events.uid(y)}, max_order=0)  # the forward graph only
        assert log.dropped == 0
        replayed = graph.GraphModel.from_events(log)  # the forward and the whole backward
        assert {i for i, n in replayed.nodes.items() if n.order == 0} == forward
        assert set(model.nodes) <= set(replayed.nodes)
        # unchain_backward as one event: the live model cuts all 4 * WIDE + 4 edges at once
        with events.recording() as cut_log:
            y.unchain_backward()
        for e in cut_log:
            replayed.apply(e)
        assert all(e.cut for e in replayed.edges if e.order == 0)
        functions = [n for n in replayed.nodes.values()
                     if n.category == 'function' and n.order == 0]
        assert len(functions) == 2 * WIDE + 2
        assert all('unchained' in f.states for f in functions)
