"""FunctionNode.backward_order: functions applied by a backward that builds a graph
(double backprop) say so, whichever way the backward was started."""

from __future__ import annotations

import threading

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events


def _functions(var):
    seen, stack, out = set(), [var.creator_node], []
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f)
        stack.extend(n.creator_node for n in f.inputs)
    return out


def test_forward_functions_are_order_zero():
    x = chainer.Variable(np.array(2.0))
    y = F.exp(x) * x
    y.backward()  # no graph of the gradient: nothing is applied in backward
    assert {f.backward_order for f in _functions(y)} == {0}


def test_grad_and_backward_mark_the_gradient_graph():
    x = chainer.Variable(np.array(3.0))
    y = x ** 3 - 2 * x
    gx, = chainer.grad([y], [x], enable_double_backprop=True)
    assert {f.backward_order for f in _functions(gx)} == {1}
    ggx, = chainer.grad([gx], [x], enable_double_backprop=True)
    assert max(f.backward_order for f in _functions(ggx)) == 2
    assert float(ggx.array) == 18.0  # d2/dx2 (x^3 - 2x) = 6x
    z = chainer.Variable(np.array(3.0))
    (z ** 3).backward(enable_double_backprop=True)
    assert {f.backward_order for f in _functions(z.grad_var)} == {1}


def test_the_order_matches_the_events_and_threads_do_not_mix():
    with events.recording() as log:
        x = chainer.Variable(np.array(3.0))
        gx, = chainer.grad([F.sin(x) * x], [x], enable_double_backprop=True)
    applied = {e.func_id: e.in_backward_of for e in log if e.kind == 'function_applied'}
    for f in _functions(gx):
        assert (applied[events.uid(f)] is not None) == (f.backward_order == 1)

    plain = []

    def forward_only():
        for _ in range(200):
            v = chainer.Variable(np.array(1.0))
            plain.append((v * 2 + 1).creator.backward_order)

    worker = threading.Thread(target=forward_only)
    worker.start()
    for _ in range(50):  # double backprop in this thread while the other runs forward
        a = chainer.Variable(np.array(2.0))
        chainer.grad([a ** 2], [a], enable_double_backprop=True)
    worker.join()
    assert set(plain) == {0}
