"""The hostile input catalogue: bad inputs, the error each gets, and proof nothing changed.

Every row of :data:`CATALOGUE` is one hostile thing a student might do.  It runs
against a fresh :class:`World` (a small graph ``y = sum(tanh(x) @ W)`` whose leaf
``x`` already holds a gradient, plus an uninitialized Parameter).  A row either

* expects an error: the exception type and a fragment of its message, or
* expects the input to be *accepted*: then the row's own code checks the result
  against NumPy (``expect=None``).

Whatever happens, afterwards the world must be exactly as before (arrays, grads,
creators, ranks, retained data, thread config, hooks, subscribers) and still
work: a fresh ``y.backward()`` adds the right gradients.  Rows that build a
graph of their own (an interrupted backward, a failing user function) check it
in ``check``.

Counts: inputs tried, errors raised as intended, inputs accepted with correct
results, crashes (an unintended exception) and state corruptions.  Both must
be 0.  ``docs/hostile-inputs.md`` holds the same table: regenerate it with
``python tests/test_hostile_inputs.py > docs/hostile-inputs.md``; a test keeps
the two identical.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
import autograd_lab.optimizers as O
from autograd_lab import FunctionHook, FunctionNode, Variable, computational_graph, events
from autograd_lab.utils.type_check import InvalidType

DOC = Path(__file__).resolve().parent.parent / 'docs' / 'hostile-inputs.md'


# ---- the world every row runs against -----------------------------------------------------------

class World:
    """``y = sum(tanh(x) @ W)``; ``x.grad`` holds an earlier gradient that must survive."""

    def __init__(self) -> None:
        self.x = Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), name='x')
        self.x.grad = np.full((2, 3), 0.5, np.float32)
        self.W = chainer.Parameter(np.linspace(0.5, -0.5, 6, dtype=np.float32).reshape(3, 2),
                                   name='W')
        self.h = F.tanh(self.x)
        self.h.name = 'h'
        self.y = F.sum(F.matmul(self.h, self.W))
        self.y.name = 'y'
        self.p = chainer.Parameter(name='p')  # uninitialized
        self.scratch: dict[str, Any] = {}  # what a row builds for its own ``check``

    def variables(self) -> list:
        return [self.x, self.W, self.h, self.y, self.p]

    def functions(self) -> list:
        return [f for f, _ in _creators(self.y)]

    def expected_grads(self) -> tuple[np.ndarray, np.ndarray]:
        """d y / d x and d y / d W by hand, in float64."""
        x, w = self.x.array.astype(np.float64), self.W.array.astype(np.float64)
        h = np.tanh(x)
        dh = np.ones((2, 2)) @ w.T
        return (1 - h * h) * dh, h.T @ np.ones((2, 2))


def _copy(a: Any) -> Any:
    return None if a is None else np.array(a, copy=True)


def fingerprint(world: World) -> list:
    """Everything a bad input could corrupt, as comparable values."""
    state: list = []
    for v in world.variables():
        grad = v._grad_var._data if v._grad_var is not None else v._grad  # p.grad would raise
        state.append((v.name, _copy(v.array), _copy(grad), v.creator_node, v.rank,
                      v.requires_grad, _copy(v.node.data), getattr(v, '_grad_valid', None)))
    for f in world.functions():
        state.append((f, f.inputs, tuple(r() for r in f.outputs or ()), f.rank))
    shown = io.StringIO()
    chainer.config.show(shown)
    state.append((shown.getvalue(), tuple(chainer.get_function_hooks()),
                  events.recorder))  # None unless someone subscribes (or a hook listens)
    return state


def same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == 'f'))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(u, v) for u, v in zip(a, b))
    if isinstance(a, str) or a is None or isinstance(a, (int, bool, float)):
        return a == b
    return a is b


def still_works(world: World) -> bool:
    """A fresh backward from ``y`` adds exactly the right gradients."""
    gx, gw = world.expected_grads()
    before = world.x.grad.astype(np.float64)
    world.W.cleargrad()
    world.y.backward()
    return (np.allclose(world.x.grad, before + gx, rtol=1e-6, atol=1e-6)
            and np.allclose(world.W.grad, gw, rtol=1e-6, atol=1e-6))


# ---- the catalogue ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    id: str
    category: str
    given: str  # the hostile input, in words
    act: Callable[[World], Any]
    expect: type | None = None  # None: accepted, and ``act`` checks the result
    fragment: str = ''  # expected message fragment, or (accepted) what happens
    check: Callable[[World], None] | None = None  # state checks after the act, on its own graph
    warns: type | None = None  # a warning the act must give


def f32(*shape: int) -> np.ndarray:
    return np.linspace(-1, 1, max(1, int(np.prod(shape))), dtype=np.float32)[
        :int(np.prod(shape))].reshape(shape)


def V(a: Any, **kw: Any) -> Variable:
    return Variable(a, **kw)


def _same_grads(fn: Callable[[Variable], Variable], data: np.ndarray) -> None:
    """``fn`` on ``data`` (odd layout/flags) equals ``fn`` on a plain contiguous copy."""
    original = data.copy()
    a, b = V(data), V(np.ascontiguousarray(data).copy())
    ya, yb = fn(a), fn(b)
    np.testing.assert_array_equal(ya.array, yb.array)
    ya.backward()
    yb.backward()
    np.testing.assert_array_equal(a.grad, b.grad)
    np.testing.assert_array_equal(data, original)  # the input array was not written


# -- rows needing a little code --

class Boom(FunctionNode):
    """A user FunctionNode that fails where it is told to (or returns a bad gradient)."""

    def __init__(self, where: str, exc: type[BaseException] = RuntimeError) -> None:
        self.where, self.exc = where, exc

    def forward(self, xs: tuple) -> tuple:
        if self.where == 'forward':
            raise self.exc('boom in forward')
        if self.where == 'forward-list':
            return [xs[0] * 2]
        if self.where == 'forward-float':
            return (1.5,)
        return (xs[0] * 2,)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        if self.where == 'backward':
            raise self.exc('boom in backward')
        gy = gys[0]
        bad = {
            'shape': lambda: (F.reshape(gy, (-1,)),),
            'dtype': lambda: (F.cast(gy, np.float64),),
            'count': lambda: (gy * 2, gy * 2),
            'float': lambda: (2.0,),
            'not-tuple': lambda: gy * 2,
        }
        return bad[self.where]() if self.where in bad else (gy * 2,)


def _boom_forward(where: str, exc: type[BaseException] = RuntimeError) -> Callable:
    def act(w: World) -> Any:
        node = w.scratch['node'] = Boom(where, exc)
        return node.apply((w.h,))
    return act


def _boom_forward_check(w: World) -> None:
    node = w.scratch['node']
    assert node.inputs is None and node.outputs is None  # nothing was linked


def _boom_backward(where: str, double: bool = False) -> Callable:
    def act(w: World) -> None:
        z = F.sum(Boom(where).apply((F.exp(w.h),))[0] * w.h)
        w.scratch['z'] = z
        w.scratch['creators'] = _creators(z)
        z.backward(enable_double_backprop=double)
    return act


def _creators(z: Variable) -> list:
    out, stack = [], [z.creator_node]
    while stack:
        f = stack.pop()
        if f is None or f in out:
            continue
        out.append(f)
        stack.extend(n.creator_node for n in f.inputs or ())
    return [(f, f.inputs) for f in out]


def _boom_backward_check(w: World) -> None:
    z = w.scratch['z']
    assert same(_creators(z), w.scratch['creators'])  # the failed graph is intact too


class StopAt(FunctionHook):
    """Raises ``exc`` from ``backward_preprocess`` at the ``n``-th function."""

    name = 'StopAt'

    def __init__(self, n: int, exc: type[BaseException] = KeyboardInterrupt,
                 where: str = 'pre') -> None:
        self.n, self.exc, self.where, self.seen = n, exc, where, 0

    def _tick(self) -> None:
        self.seen += 1
        if self.seen == self.n:
            raise self.exc()

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        if self.where == 'pre':
            self._tick()

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        if self.where == 'post':
            self._tick()

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        if self.where == 'forward':
            self._tick()


LONG = 2000


def _long_chain(w: World) -> tuple[Variable, Variable]:
    x = w.scratch.get('lx')
    if x is None:
        x = w.scratch['lx'] = V(np.array(0.75))
        x.grad = np.array(0.25)
    h = x
    for i in range(LONG):
        h = F.sin(h) if i % 2 else h * 0.999
    w.scratch['ly'] = h
    w.scratch['lcreators'] = _creators(h)
    return x, h


def _chain_derivative(x0: float) -> float:
    h, d = x0, 1.0
    for i in range(LONG):
        h, d = (np.sin(h), d * np.cos(h)) if i % 2 else (h * 0.999, d * 0.999)
    return d


def _interrupt(double: bool = False, record: bool = False, stepwise: bool = False,
               where: str = 'pre') -> Callable:
    def act(w: World) -> None:
        _, y = _long_chain(w)
        if record:
            w.scratch['log'] = log = events.EventLog()
            sub = events.subscribe(log)
        try:
            with StopAt(LONG // 3, where=where):
                if stepwise:
                    stepper = w.scratch['stepper'] = chainer.BackwardStepper.for_backward([y])
                    while not stepper.done:
                        stepper.step()
                else:
                    y.backward(enable_double_backprop=double)
        finally:
            if record:
                sub.unsubscribe()
    return act


def _interrupt_check(w: World) -> None:
    x, y = w.scratch['lx'], w.scratch['ly']
    assert same(x.grad, np.array(0.25))  # the earlier grad, exactly
    assert same(_creators(y), w.scratch['lcreators'])
    stepper = w.scratch.get('stepper')
    if stepper is not None:
        assert stepper.done and stepper.step() is None
    log = w.scratch.get('log')
    if log is not None:
        finished = log.of_kind('backward_finished')
        assert len(finished) == 1 and not finished[0].ok
        assert 'KeyboardInterrupt' in finished[0].error
        restored = {e.var_id for e in log.of_kind('grad_restored')}
        assert events.uid(y) in restored  # the released root grad was put back
    y.backward()  # a second backward is correct
    np.testing.assert_allclose(x.grad, 0.25 + _chain_derivative(0.75), rtol=1e-10)


def _interrupt_forward(w: World) -> None:
    with StopAt(1, where='forward'):
        w.scratch['z'] = w.h * 3


class Reenter(FunctionHook):
    """Calls ``nested.backward()`` from inside the first backward step it sees."""

    name = 'Reenter'

    def __init__(self, nested: Variable) -> None:
        self.nested, self.calls = nested, 0

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self.calls += 1
        if self.calls == 1:
            self.nested.backward()


def _reenter_other_graph(w: World) -> None:
    a = V(np.array([1.0, 2.0]))
    b = V(np.array([3.0]))
    ya, yb = F.sum(a * a), F.sum(b ** 3)  # both graphs built before backward
    with Reenter(yb):
        ya.backward()
    np.testing.assert_array_equal(a.grad, [2.0, 4.0])
    np.testing.assert_array_equal(b.grad, [27.0])


def _reenter_same_graph(w: World) -> None:
    a = V(np.array([1.0, 2.0]))
    ya = F.sum(a * a)
    with Reenter(ya):  # the nested run finishes; the outer one then adds its share
        ya.backward()
    np.testing.assert_array_equal(a.grad, [4.0, 8.0])  # two backward passes accumulate


def _reenter_from_subscriber(w: World) -> None:
    a, b = V(np.array([1.0, 2.0])), V(np.array([3.0]))
    ya, yb = F.sum(a * a), F.sum(b ** 3)
    runs = []

    def listener(event: events.Event) -> None:
        if event.kind == 'backward_started':
            runs.append(event.run_id)
            if len(runs) == 1:
                yb.backward()

    with events.subscribe(listener):
        ya.backward()
    np.testing.assert_array_equal(a.grad, [2.0, 4.0])
    np.testing.assert_array_equal(b.grad, [27.0])
    assert len(set(runs)) == 2


def _subscriber_raises(w: World) -> None:
    a = V(np.array([1.0, 2.0]))

    def listener(event: events.Event) -> None:
        raise ValueError('observer bug')

    with events.subscribe(listener):
        F.sum(a * a).backward()
    np.testing.assert_array_equal(a.grad, [2.0, 4.0])


def _hook_postprocess_raises(w: World) -> None:
    with StopAt(2, exc=RuntimeError, where='post'):
        w.y.backward()


def _readonly_param_update(w: World) -> None:
    link = L.Linear(3, 2)
    opt = O.SGD(lr=0.1).setup(link)
    loss = F.sum(link(w.x.array))
    loss.backward()
    before = [p.array.copy() for p in link.params()]
    link.b.array.flags.writeable = False
    w.scratch['opt'] = (opt, link, before)
    opt.update()


def _readonly_param_check(w: World) -> None:
    opt, link, before = w.scratch['opt']
    assert opt.t == 0
    for p, b in zip(link.params(), before):
        np.testing.assert_array_equal(p.array, b)
        assert p.update_rule.t == 0


def _names_in_computational_graph(w: World) -> None:
    a = V(f32(2), name=HOSTILE_NAMES[0])
    b = V(f32(2), name=HOSTILE_NAMES[1])
    c = a * b
    c.name = HOSTILE_NAMES[2]
    z = F.sum(c)
    z.name = HOSTILE_NAMES[3]
    dot = computational_graph.build_computational_graph([z]).dump()
    statements = dot_statements(dot)
    nodes = [s for s in statements if len(s) > 1 and s[1] == '[']
    edges = [s for s in statements if '->' in s]
    assert len(nodes) == 6 and len(edges) == 5  # 4 variables, 2 functions; nothing injected
    labels = [dict(_attrs(s))['label'] for s in nodes]
    for name in HOSTILE_NAMES:
        assert any(label.startswith(name) for label in labels), name


def _names_in_graph_dot(w: World) -> None:
    from autograd_lab import graph

    a = V(f32(2), name=HOSTILE_NAMES[0])
    b = V(f32(2), name=HOSTILE_NAMES[1])
    c = a * b
    c.name = HOSTILE_NAMES[2]
    z = F.sum(c)
    z.name = HOSTILE_NAMES[3]
    text = graph.to_dot(graph.GraphModel.from_outputs(z), show_values=True)
    statements = dot_statements(text)
    engine = [s for s in statements if len(s) > 1 and s[1] == '[' and re.fullmatch(r'n\d+', s[0])]
    edges = [s for s in statements if '->' in s]
    assert len(engine) == 6 and len(edges) == 5
    for raw in ('<script>', '"];evil'):
        assert raw not in text  # HTML-like labels: < > & " are entities


def _names_in_widget(w: World) -> None:
    from autograd_lab_widget import GraphView

    a = V(f32(2), name=HOSTILE_NAMES[0])
    b = V(f32(2), name=HOSTILE_NAMES[1])
    z = F.sum(a * b)
    z.name = HOSTILE_NAMES[3]
    view = GraphView(z)
    try:
        statements = dot_statements(view.dot)
        engine = [s for s in statements if len(s) > 1 and s[1] == '['
                  and re.fullmatch(r'n\d+', s[0])]
        assert len(engine) == 6  # a, b, Mul, its output, Sum, z
        assert '<script>' not in view.dot and '"];evil' not in view.dot
    finally:
        view.close()


def _widget_message(content: Any) -> Callable:
    """The browser sends ``content``: the parser rejects it, the view only warns."""
    def act(w: World) -> None:
        from autograd_lab_widget import messages

        w.scratch['content'] = content
        messages.parse(content)
    return act


def _widget_message_check(w: World) -> None:
    from autograd_lab_widget import GraphView, WidgetWarning

    view = GraphView(w.y)
    try:
        before = _view_state(view)
        with pytest.warns(WidgetWarning, match='malformed message'):
            view._handle_custom_msg(w.scratch['content'], [])  # ipywidgets' custom-msg entry
        assert _view_state(view) == before
    finally:
        view.close()


def _view_state(view: Any) -> tuple:
    return (view.dot, dict(view.options), view.selected_id, view.position, view.height)


def _widget_state_update(state: dict) -> Callable:
    """The browser writes synced traits directly (ipywidgets' 'update' message)."""
    def act(w: World) -> None:
        from autograd_lab_widget import GraphView

        view = w.scratch['view'] = GraphView(w.y)
        w.scratch['before'] = _view_state(view)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # a rejected value may be logged as a warning
            view._handle_msg({'content': {'data': {'method': 'update', 'state': state}},
                              'buffers': []})
    return act


def _widget_state_check(w: World) -> None:
    view = w.scratch['view']
    try:
        assert _view_state(view) == w.scratch['before'], 'the view took the bad state'
        view.refresh()  # and still works
    finally:
        view.close()


MALFORMED_MESSAGES = [
    ('not-a-dict', ['step'], 'message must be an object'),
    ('unknown-type', {'type': 'eval', 'code': '__import__("os")'}, 'unknown message type'),
    ('unknown-action', {'type': 'action', 'action': 'rm -rf'}, 'unknown action'),
    ('bad-node-id', {'type': 'select', 'id': 'n1; DROP'}, 'not a node id'),
    ('negative-node-id', {'type': 'select', 'id': -5}, 'not a node id'),
    ('bad-option', {'type': 'options', 'options': {'rankdir': '<svg onload=x>'}}, 'rankdir'),
    ('unknown-option', {'type': 'options', 'options': {'__class__': 1}}, 'unknown option'),
    ('huge-text', {'type': 'guess', 'value': 'x' * 100_001}, 'at most 10000'),
    ('bool-as-count', {'type': 'options', 'options': {'max_depth': True}}, 'integer'),
]


HOSTILE_NAMES = [
    '"];evil[label="x',
    '<script>alert(1)</script>',
    'a\\"b {c|d} <e> \\n\nline',
    'subgraph cluster_x { n1 -> n2 } // comment',
]

# -- accepted rows' checks -------------------------------------------------------------------------

def _nan_inf() -> None:
    a = np.array([np.nan, np.inf, -np.inf, 0.0])
    x = V(a.copy())
    y = F.tanh(x)
    np.testing.assert_array_equal(y.array, np.tanh(a))
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, 1 - np.tanh(a) ** 2)
    x2 = V(a.copy())
    with np.errstate(invalid='ignore', over='ignore'):
        z = F.exp(x2)
        np.testing.assert_array_equal(z.array, np.exp(a))
        F.sum(z).backward()
    np.testing.assert_array_equal(x2.grad, np.exp(a))


def _nan_seed() -> None:
    x = V(np.array([1.0, 2.0]))
    y = x * 3
    y.grad = np.array([np.nan, 1.0])
    y.backward()
    np.testing.assert_array_equal(x.grad, [np.nan, 3.0])


def _inf_loss() -> None:
    logits = V(np.array([[np.inf, 0.0, 1.0], [0.0, 1.0, 2.0]]))
    t = np.array([1, 2], np.int32)
    with np.errstate(invalid='ignore', over='ignore'):
        loss = F.softmax_cross_entropy(logits, t, reduce='no')
        loss_ref = np.log(np.exp([0.0, 1.0, 2.0]).sum()) - 2.0
        assert np.isnan(loss.array[0]) or np.isinf(loss.array[0])
        np.testing.assert_allclose(loss.array[1], loss_ref, rtol=1e-12)
        F.sum(loss).backward()
    assert logits.grad.shape == (2, 3)
    assert np.all(np.isfinite(logits.grad[1]))


def _empty() -> None:
    x = V(np.zeros((0, 3)))
    y = F.sum(F.exp(x))
    assert y.array == 0.0
    y.backward()
    assert x.grad.shape == (0, 3)


def _empty_matmul(w: World) -> None:
    a = V(np.zeros((0, 3), np.float32))
    W = chainer.Parameter(w.W.array.copy())
    y = F.matmul(a, W)
    assert y.shape == (0, 2)
    F.sum(y).backward()
    np.testing.assert_array_equal(W.grad, np.zeros((3, 2), np.float32))
    assert a.grad.shape == (0, 3)


def _zerod() -> None:
    x = V(np.array(0.5))
    y = F.sum(F.broadcast_to(F.square(F.exp(x)), (2,)))
    y.backward()
    assert type(x.grad) is np.ndarray and x.grad.shape == ()
    np.testing.assert_allclose(x.grad, 2 * 2 * np.exp(1.0), rtol=1e-12)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _readonly_grad() -> None:
    x = V(np.array([1.0, 2.0]))
    g = _readonly(np.array([10.0, 10.0]))
    x.grad = g
    F.sum(x * x).backward()
    np.testing.assert_array_equal(x.grad, [12.0, 14.0])
    np.testing.assert_array_equal(g, [10.0, 10.0])


def _huge_slice(w: World) -> None:
    y = w.x[:10 ** 20]
    np.testing.assert_array_equal(y.array, w.x.array[:10 ** 20])


def _on_gpu(a: np.ndarray) -> Variable:
    v = V(a)
    v.to_device('@cupy:0')
    return v


def _gpu_linear() -> L.Linear:
    link = L.Linear(3, 2)
    link.to_device('@cupy:0')
    return link


CATALOGUE: list[Case] = [
    # -- wrong dtypes
    Case('dtype-f32-plus-f64', 'wrong dtype', 'float32 Variable + float64 Variable',
         lambda w: w.x + V(np.ones((2, 3))), InvalidType, 'in_types[0].dtype == in_types[1].dtype'),
    Case('dtype-int-times-float', 'wrong dtype', 'int32 Variable * float32 Variable',
         lambda w: V(np.ones((2, 3), np.int32)) * w.x, InvalidType, 'int32 != float32'),
    Case('dtype-int-exp', 'wrong dtype', 'F.exp of an int32 Variable',
         lambda w: F.exp(V(np.arange(3, dtype=np.int32))), InvalidType, 'dtype.kind == f'),
    Case('dtype-complex', 'wrong dtype', 'F.tanh of a complex Variable',
         lambda w: F.tanh(V(np.array([1j]))), InvalidType, 'c != f'),
    Case('dtype-bool-matmul', 'wrong dtype', 'F.matmul(bool array, float32 Parameter)',
         lambda w: F.matmul(V(np.ones((2, 3), bool)), w.W), InvalidType, 'Actual: b != f'),
    Case('dtype-str', 'wrong dtype', 'F.sum of a unicode-string array',
         lambda w: F.sum(V(np.array(['a', 'b']))), InvalidType, 'U != f'),
    Case('dtype-grad-setter', 'wrong dtype', 'x.grad = float64 array on a float32 x',
         lambda w: setattr(w.x, 'grad', np.ones((2, 3))), TypeError,
         'Dtype of data and grad mismatch'),
    Case('dtype-grad-outputs', 'wrong dtype', 'chainer.grad with a float64 grad_outputs entry',
         lambda w: chainer.grad([w.h], [w.x], [np.ones((2, 3))]), TypeError,
         'initial gradient 0 has dtype float64'),
    # -- wrong shapes
    Case('shape-add', 'wrong shape', '(2, 3) + (3, 2)',
         lambda w: w.x + V(f32(3, 2)), InvalidType, 'broadcastable'),
    Case('shape-matmul', 'wrong shape', 'F.matmul((2, 3), (2, 3))',
         lambda w: F.matmul(w.x, w.x), InvalidType, 'shape[-1] == in_types[1].shape[-2]'),
    Case('shape-reshape', 'wrong shape', 'F.reshape((2, 3) -> (4,))',
         lambda w: F.reshape(w.x, (4,)), InvalidType, '6 != 4'),
    Case('shape-axis', 'wrong shape', 'F.sum(x, axis=5) on a 2-d x',
         lambda w: F.sum(w.x, axis=5), InvalidType, 'axis 5'),
    Case('shape-linear', 'wrong shape', 'L.Linear(4, 2) on a (2, 3) input',
         lambda w: L.Linear(4, 2)(w.x), InvalidType, 'x.shape[1] == W.shape[1]'),
    Case('shape-backward-nonscalar', 'wrong shape', 'backward() from a (2, 3) output, no grad',
         lambda w: w.h.backward(), TypeError, 'needs an initial gradient'),
    # -- NaN / Inf
    Case('nan-inf-forward-backward', 'NaN/Inf', 'tanh and exp of [nan, inf, -inf, 0]',
         lambda w: _nan_inf(), fragment='propagate as in NumPy (no exception)'),
    Case('nan-seed', 'NaN/Inf', 'backward seeded with a NaN gradient',
         lambda w: _nan_seed(), fragment='NaN gradients, no exception'),
    Case('inf-loss', 'NaN/Inf', 'softmax_cross_entropy with +inf logits',
         lambda w: _inf_loss(), fragment='finite where NumPy is; NaN where 0*inf'),
    # -- empty arrays
    Case('empty-forward-backward', 'empty array', 'F.sum(F.exp(x)) for x of shape (0, 3)',
         lambda w: _empty(), fragment='0.0; grad of shape (0, 3)'),
    Case('empty-matmul', 'empty array', 'F.matmul((0, 3), (3, 2)) and backward',
         _empty_matmul, fragment='(0, 2) result; zero grad of W'),
    Case('empty-backward-no-grad', 'empty array', 'backward() from a (0,) output, no grad',
         lambda w: F.exp(V(np.zeros(0))).backward(), TypeError, '0 elements'),
    Case('empty-max', 'empty array', 'F.max of a (0, 3) array',
         lambda w: F.max(V(np.zeros((0, 3)))), ValueError, 'zero-size array'),
    # -- 0-d arrays
    Case('zerod-ops', '0-d array', 'exp, square, broadcast_to, backward on a 0-d Variable',
         lambda w: _zerod(), fragment='grad is a 0-d ndarray, not a NumPy scalar'),
    Case('zerod-index', '0-d array', 'x[0] on a 0-d Variable',
         lambda w: V(np.array(1.0))[0], IndexError, 'too many indices'),
    Case('zerod-iter', '0-d array', 'iter() over a 0-d Variable',
         lambda w: iter(V(np.array(1.0))), TypeError, 'iteration over a 0-d'),
    Case('zerod-len', '0-d array', 'len() of a 0-d Variable',
         lambda w: len(V(np.array(1.0))), TypeError, 'len() of unsized object'),
    # -- memory layout and flags
    Case('non-contiguous', 'layout', 'a strided view x[:, ::2] as data',
         lambda w: _same_grads(lambda v: F.sum(F.exp(v) * v),
                               np.arange(12.0).reshape(3, 4)[:, ::2]),
         fragment='same values and grads as a contiguous copy'),
    Case('fortran-order', 'layout', 'a Fortran-ordered array through matmul',
         lambda w: _same_grads(lambda v: F.sum(F.matmul(v, v.T)),
                               np.asfortranarray(np.arange(6.0).reshape(2, 3))),
         fragment='same values and grads as a C-ordered copy'),
    Case('read-only-data', 'flags', 'a read-only array as data',
         lambda w: _same_grads(lambda v: F.sum(F.tanh(v) ** 2), _readonly(np.linspace(0, 1, 4))),
         fragment='computed; the array is never written'),
    Case('read-only-grad', 'flags', 'a read-only array as the grad a backward accumulates into',
         lambda w: _readonly_grad(), fragment='a new sum; the read-only array is unchanged'),
    Case('read-only-param-update', 'flags', 'optimizer.update() with a read-only bias array',
         _readonly_param_update, ValueError, 'read-only', check=_readonly_param_check),
    # -- object arrays, Python lists and scalars
    Case('object-array-float-function', 'object array', 'F.exp of an object-dtype Variable',
         lambda w: F.exp(V(np.array([1.0, 2.0], dtype=object))), InvalidType, 'O != f'),
    Case('list-as-data', 'Python list', 'Variable([1.0, 2.0])',
         lambda w: V([1.0, 2.0]), TypeError, 'must be an ndarray or None'),
    Case('list-to-function', 'Python list', 'F.exp([1.0, 2.0])',
         lambda w: F.exp([1.0, 2.0]), TypeError, 'got list, expected a Variable or an ndarray'),
    Case('scalar-to-function', 'Python list', 'F.exp(1.0) (a Python float)',
         lambda w: F.exp(1.0), TypeError, 'got float'),
    Case('list-as-grad', 'Python list', 'x.grad = [[0.0] * 3] * 2',
         lambda w: setattr(w.x, 'grad', [[0.0] * 3] * 2), TypeError, 'Type of grad is invalid'),
    Case('list-as-grad-outputs', 'Python list', 'chainer.grad grad_outputs=[[...]] (a list)',
         lambda w: chainer.grad([w.h], [w.x], [[[1.0] * 3] * 2]), TypeError,
         'must be an array or a Variable, not list'),
    Case('variable-not-list', 'Python list', 'chainer.grad(y, [x]) (outputs not a list)',
         lambda w: chainer.grad(w.y, [w.x]), TypeError, 'outputs must be a tuple or a list'),
    Case('ndarray-as-input', 'Python list', 'chainer.grad([y], [ndarray])',
         lambda w: chainer.grad([w.y], [np.ones(3)]), TypeError, 'must contain Variables'),
    # -- huge indices
    Case('huge-int', 'huge index', 'x[10**20]',
         lambda w: w.x[10 ** 20], IndexError, 'valid indices'),
    Case('huge-negative', 'huge index', 'x[-10**6]',
         lambda w: w.x[-10 ** 6], IndexError, 'out of bounds'),
    Case('huge-int-array', 'huge index', 'x[np.array([2**40])]',
         lambda w: w.x[np.array([2 ** 40])], IndexError, 'out of bounds'),
    Case('huge-slice', 'huge index', 'x[:10**20] (NumPy clamps slices)',
         _huge_slice, fragment='same as NumPy: the whole array'),
    Case('huge-reshape', 'huge index', 'F.reshape(x, (2**62, 2))',
         lambda w: F.reshape(w.x, (2 ** 62, 2)), InvalidType, 'prod('),
    Case('huge-axis', 'huge index', 'F.sum(x, axis=10**9)',
         lambda w: F.sum(w.x, axis=10 ** 9), InvalidType, 'axis 1000000000'),
    # -- gradients of the wrong shape
    Case('grad-setter-shape', 'wrong grad', 'x.grad = array of shape (3,) on a (2, 3) x',
         lambda w: setattr(w.x, 'grad', np.ones(3, np.float32)), ValueError,
         'Shape of data and grad mismatch'),
    Case('grad-var-shape', 'wrong grad', 'x.grad_var = Variable of shape (3,)',
         lambda w: setattr(w.x, 'grad_var', V(np.ones(3, np.float32))), ValueError,
         'Shape of data and grad mismatch'),
    Case('grad-outputs-shape', 'wrong grad', 'chainer.grad grad_outputs entry of shape (5,)',
         lambda w: chainer.grad([w.h], [w.x], [np.ones(5, np.float32)]), ValueError,
         'initial gradient 0 has shape (5,)'),
    Case('grad-inputs-shape', 'wrong grad', 'chainer.grad grad_inputs entry of shape (4,)',
         lambda w: chainer.grad([w.y], [w.x], None, [np.ones(4, np.float32)]), ValueError,
         'initial gradient 1 has shape (4,)'),
    Case('grad-outputs-length', 'wrong grad', 'chainer.grad with 2 grad_outputs for 1 output',
         lambda w: chainer.grad([w.y], [w.x], [None, None]), ValueError, 'same length'),
    *[Case(f'user-backward-{where}', 'wrong grad', f"a user node's backward returns {what}",
           _boom_backward(where), error, fragment, check=_boom_backward_check)
      for where, what, error, fragment in [
          ('shape', 'a (6,) grad for a (2, 3) input', ValueError,
           'has shape (6,), but the input has shape'),
          ('dtype', 'a float64 grad for a float32 input', TypeError,
           'has dtype float64, but the input'),
          ('count', '2 grads for 1 input', ValueError,
           'number of gradients returned from backward is incorrect: 2'),
          ('float', 'a Python float', TypeError, 'returned a float as the gradient'),
          ('not-tuple', 'a Variable, not a tuple', TypeError, 'backward must return a tuple'),
      ]],
    # -- uninitialized Parameters
    Case('uninit-op', 'uninitialized Parameter', 'p * 2',
         lambda w: w.p * 2, TypeError, 'uninitialized'),
    Case('uninit-linear', 'uninitialized Parameter', 'F.linear(x, p)',
         lambda w: F.linear(w.x, w.p), TypeError, 'uninitialized'),
    Case('uninit-shape', 'uninitialized Parameter', 'p.shape',
         lambda w: w.p.shape, AttributeError, 'uninitialized'),
    Case('uninit-backward', 'uninitialized Parameter', 'p.backward()',
         lambda w: w.p.backward(), AttributeError, 'uninitialized'),
    Case('uninit-len', 'uninitialized Parameter', 'len(p)',
         lambda w: len(w.p), TypeError, 'uninitialized'),
    # -- mixing devices (the NumPy-backed fake GPU of autograd_lab/testing/fake_gpu.py)
    Case('device-mix-add', 'mixed devices', 'CPU Variable + GPU Variable',
         lambda w: w.x + _on_gpu(f32(2, 3)), TypeError, 'incompatible array types are mixed'),
    Case('device-mix-link', 'mixed devices', 'a Linear on the GPU called with a CPU array',
         lambda w: _gpu_linear()(w.x), TypeError, 'Move every input to one device first'),
    Case('device-mix-grad', 'mixed devices', 'x.grad = a GPU array on a CPU x',
         lambda w: setattr(w.x, 'grad', _on_gpu(f32(2, 3)).array), TypeError,
         'Device of data and grad mismatch'),
    Case('device-mix-grad-outputs', 'mixed devices', 'chainer.grad with a GPU grad_outputs entry',
         lambda w: chainer.grad([w.h], [w.x], [_on_gpu(f32(2, 3)).array]), TypeError,
         'initial gradient 0 is on @cupy:0'),
    # -- re-entrancy
    Case('reenter-hook-other-graph', 're-entrant backward', 'backward of another graph '
         'called from a FunctionHook during backward', _reenter_other_graph,
         fragment='both graphs get correct grads'),
    Case('reenter-hook-same-graph', 're-entrant backward', 'the same y.backward() called from a '
         'FunctionHook during y.backward()', _reenter_same_graph,
         fragment='two complete passes: grads accumulate to 2x (as Chainer)'),
    Case('reenter-subscriber', 're-entrant backward', 'backward of another graph called from an '
         'event subscriber', _reenter_from_subscriber,
         fragment='both correct; two runs with distinct run_ids'),
    Case('subscriber-raises', 're-entrant backward', 'an event subscriber that raises',
         _subscriber_raises, fragment='EventSubscriberWarning; grads correct',
         warns=events.EventSubscriberWarning),
    # -- exceptions in user code
    Case('user-forward-raises', 'user code raises', "a user FunctionNode's forward raises",
         _boom_forward('forward'), RuntimeError, 'boom in forward', check=_boom_forward_check),
    Case('user-forward-returns-list', 'user code raises', "a user forward returns a list",
         _boom_forward('forward-list'), TypeError, 'forward output must be a tuple',
         check=_boom_forward_check),
    Case('user-forward-returns-float', 'user code raises', "a user forward returns (1.5,)",
         _boom_forward('forward-float'), TypeError, 'forward output must be a tuple of ndarrays',
         check=_boom_forward_check),
    Case('user-backward-raises', 'user code raises', "a user FunctionNode's backward raises",
         _boom_backward('backward'), RuntimeError, 'boom in backward',
         check=_boom_backward_check),
    Case('user-backward-raises-double', 'user code raises', 'the same, with '
         'enable_double_backprop=True', _boom_backward('backward', double=True), RuntimeError,
         'boom in backward', check=_boom_backward_check),
    Case('hook-postprocess-raises', 'user code raises', 'a FunctionHook raising in '
         'backward_postprocess (after grads were added)', _hook_postprocess_raises,
         RuntimeError, ''),
    # -- interrupts
    Case('interrupt-backward', 'KeyboardInterrupt', f'KeyboardInterrupt at step {LONG // 3} of '
         f'a {LONG}-op backward', _interrupt(), KeyboardInterrupt, '', check=_interrupt_check),
    Case('interrupt-double-backward', 'KeyboardInterrupt', 'the same, enable_double_backprop',
         _interrupt(double=True), KeyboardInterrupt, '', check=_interrupt_check),
    Case('interrupt-recorded', 'KeyboardInterrupt', 'the same, while events are recorded',
         _interrupt(record=True), KeyboardInterrupt, '', check=_interrupt_check),
    Case('interrupt-stepper', 'KeyboardInterrupt', 'the same, stepping with BackwardStepper',
         _interrupt(stepwise=True), KeyboardInterrupt, '', check=_interrupt_check),
    Case('interrupt-postprocess', 'KeyboardInterrupt', 'KeyboardInterrupt from '
         'backward_postprocess (grads already added)', _interrupt(where='post'),
         KeyboardInterrupt, '', check=_interrupt_check),
    Case('interrupt-forward', 'KeyboardInterrupt', 'KeyboardInterrupt in forward_preprocess',
         _interrupt_forward, KeyboardInterrupt, ''),
    # -- untrusted text
    Case('names-in-graph-dot', 'names with markup', 'the same names through '
         'graph.GraphModel and graph.to_dot (HTML-like labels, values shown)', _names_in_graph_dot,
         fragment='escaped: same 6 nodes and 5 edges, no raw markup'),
    Case('names-in-widget', 'names with markup', 'the same names in a live GraphView',
         _names_in_widget, fragment='escaped in the view\'s DOT: same 6 nodes, no raw markup'),
    *[Case(f'widget-{ident}', 'malformed widget message', f'browser sends {content!r:.60}',
           _widget_message(content), ValueError, fragment, check=_widget_message_check)
      for ident, content, fragment in MALFORMED_MESSAGES],
    *[Case(f'widget-state-{ident}', 'malformed widget message', f'browser sets {state!r:.60}',
           _widget_state_update(state), fragment='rejected; the view keeps its state and works',
           check=_widget_state_check)
      for ident, state in [
          ('options', {'options': {'rankdir': '<svg onload=x>', 'max_nodes': -1}}),
          ('position', {'position': -99}),
          ('selected-id', {'selected_id': 10 ** 30}),
          ('height', {'height': -5}),
      ]],
    Case('names-in-dot', 'names with markup', 'variable names with quotes, brackets, HTML, '
         'newlines, DOT statements; computational_graph dump', _names_in_computational_graph,
         fragment='escaped: DOT parses to the same 6 nodes and 5 edges'),
]


# ---- a tiny DOT reader: checks that hostile names could not inject anything ---------------------

_DOT_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z0-9_.#:]+|->|--|[{}\[\];=,]|\s+|//[^\n]*',
                        re.S)


def dot_tokens(text: str) -> list[str]:
    """DOT's tokens; HTML-like labels ``<...>`` (nested) are one token each."""
    out, pos = [], 0
    while pos < len(text):
        if text[pos] == '<':
            depth, end = 0, pos
            while True:
                depth += {'<': 1, '>': -1}.get(text[end], 0)
                end += 1
                if depth == 0:
                    break
            out.append(text[pos:end])
            pos = end
            continue
        m = _DOT_TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f'not DOT at {pos}: {text[pos:pos + 30]!r}')
        tok = m.group()
        if not tok.isspace() and not tok.startswith('//'):
            out.append(tok)
        pos = m.end()
    return out


def dot_statements(text: str) -> list[list[str]]:
    """The statements inside the (only) graph body, each a token list.

    A statement ends at ``;``, at the ``]`` closing its attribute list, or where a new
    ID follows a complete one (DOT needs no separators between statements).
    """
    tokens = dot_tokens(text)
    start = tokens.index('{')
    assert tokens[-1] == '}', 'the graph body does not close where it should'
    statements, current, depth = [], [], 0
    joins = {'->', '--', '=', '[', ','}
    for tok in tokens[start + 1:-1]:
        if depth == 0 and current and tok not in joins and tok not in (';', ']') \
                and current[-1] not in joins:
            statements.append(current)  # an ID right after a finished statement
            current = []
        if tok == ';' and depth == 0:
            if current:
                statements.append(current)
            current = []
            continue
        current.append(tok)
        depth += {'[': 1, ']': -1}.get(tok, 0)
        if tok == ']' and depth == 0:
            statements.append(current)
            current = []
    if current:
        statements.append(current)
    return statements


def _unquote(tok: str) -> str:
    if tok.startswith('"'):
        # Graphviz escapes: \n \l \r are line breaks, any other \c is c itself.
        return re.sub(r'\\(.)', lambda m: '\n' if m.group(1) in 'nlr' else m.group(1),
                      tok[1:-1])
    return tok


def _attrs(statement: list[str]) -> list[tuple[str, str]]:
    body = statement[statement.index('[') + 1:statement.index(']')]
    pairs, i = [], 0
    while i < len(body):
        if body[i] == ',':
            i += 1
            continue
        assert body[i + 1] == '=', statement
        pairs.append((body[i], _unquote(body[i + 2])))
        i += 3
    return pairs


# ---- running the catalogue ----------------------------------------------------------------------

@dataclass
class Outcome:
    case: Case
    raised: BaseException | None = None
    intended: bool = False
    crash: bool = False
    corrupted: bool = False
    problems: list[str] = field(default_factory=list)


def run_case(case: Case) -> Outcome:
    world = World()
    before = fingerprint(world)
    outcome = Outcome(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            case.act(world)
        except BaseException as error:  # KeyboardInterrupt is one of the inputs
            outcome.raised = error
    if case.expect is None:
        outcome.intended = outcome.raised is None
    else:
        outcome.intended = (type(outcome.raised) is case.expect
                            or (outcome.raised is not None
                                and issubclass(type(outcome.raised), case.expect)
                                and case.expect is not Exception)) \
            and case.fragment in str(outcome.raised)
    if case.warns is not None and not any(issubclass(c.category, case.warns) for c in caught):
        outcome.intended = False
        outcome.problems.append(f'no {case.warns.__name__}')
    outcome.crash = not outcome.intended
    if outcome.crash:
        outcome.problems.append(f'raised {outcome.raised!r}')
    try:  # the row's own checks first: they also close what the row opened (a view)
        if case.check is not None:
            case.check(world)
    except Exception as error:
        outcome.corrupted = True
        outcome.problems.append(f'state check failed: {error!r}')
    if not same(before, fingerprint(world)):
        outcome.corrupted = True
        outcome.problems.append('the world changed')
    try:
        if not still_works(world):
            outcome.corrupted = True
            outcome.problems.append('backward afterwards gives wrong grads')
    except Exception as error:
        outcome.corrupted = True
        outcome.problems.append(f'state check failed: {error!r}')
    return outcome


def counts(outcomes: list[Outcome]) -> dict[str, int]:
    return {
        'inputs tried': len(outcomes),
        'errors raised as intended': sum(o.intended and o.case.expect is not None
                                         for o in outcomes),
        'accepted with correct results': sum(o.intended and o.case.expect is None
                                             and not o.corrupted for o in outcomes),
        'crashes': sum(o.crash for o in outcomes),
        'state corruptions': sum(o.corrupted for o in outcomes),
    }


def markdown(outcomes: list[Outcome]) -> str:
    """The catalogue as docs/hostile-inputs.md (generated; do not edit by hand)."""
    def cell(text: str) -> str:  # the doc shows hostile text too: escape it for Markdown/HTML
        text = text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
        return text.replace('|', '\\|').replace('\n', '\\n')

    lines = [
        '# Hostile input catalogue',
        '',
        'Generated by `python tests/test_hostile_inputs.py > docs/hostile-inputs.md`; '
        '`tests/test_hostile_inputs.py` runs every row and checks this file is up to date.',
        '',
        'Each row runs against a fresh small graph `y = sum(tanh(x) @ W)` whose leaf `x` '
        'already holds a gradient. After the row, everything is compared with before '
        '(arrays, grads, creators, ranks, retained data, thread config, hooks, subscribers), '
        'and a fresh `y.backward()` must add exactly the right gradients. Rows that build a '
        'graph of their own also check it (e.g. an interrupted backward leaves the earlier '
        'grad bit-for-bit and a second backward is correct). *Accepted* rows are inputs the '
        'engine handles like NumPy; their results are checked against NumPy.',
        '',
        '## Counts',
        '',
        '| count | value |',
        '|---|---|',
        *[f'| {k} | {v} |' for k, v in counts(outcomes).items()],
        '',
        '## Catalogue',
        '',
        '| # | id | category | input | expected | nothing changed |',
        '|---|---|---|---|---|---|',
    ]
    for k, o in enumerate(outcomes, 1):
        c = o.case
        if c.expect is None:
            expected = f'accepted: {c.fragment}'
        else:
            expected = f'`{c.expect.__name__}`' + (f': "{c.fragment}"' if c.fragment else '')
        ok = 'yes' if not o.corrupted else 'NO'
        lines.append(f'| {k} | {c.id} | {c.category} | {cell(c.given)} | {cell(expected)} '
                     f'| {ok} |')
    return '\n'.join(lines) + '\n'


@pytest.fixture
def catalogue_devices(fake_gpu: Any) -> Iterator[None]:
    """Every row runs with the fake GPU registered (the device rows need it)."""
    yield


@pytest.mark.parametrize('case', [
    pytest.param(c, id=c.id, marks=[pytest.mark.widget] if 'widget' in c.id else [])
    for c in CATALOGUE])
def test_hostile_input(case: Case, catalogue_devices: None) -> None:
    outcome = run_case(case)
    assert not outcome.problems, outcome.problems
    assert outcome.intended and not outcome.crash and not outcome.corrupted


@pytest.mark.widget  # the catalogue has the widget's cases
def test_catalogue_counts_and_doc(catalogue_devices: None) -> None:
    outcomes = [run_case(c) for c in CATALOGUE]
    n = counts(outcomes)
    assert len({c.id for c in CATALOGUE}) == len(CATALOGUE)
    assert n['crashes'] == 0 and n['state corruptions'] == 0
    assert n['errors raised as intended'] + n['accepted with correct results'] == len(CATALOGUE)
    assert DOC.read_text() == markdown(outcomes), (
        'docs/hostile-inputs.md is out of date: python tests/test_hostile_inputs.py > '
        'docs/hostile-inputs.md')


def test_fingerprint_notices_a_change() -> None:
    # The catalogue's "nothing changed" is only as good as the fingerprint: prove it sees
    # a changed grad, a cut graph, a new hook and a changed config.
    for spoil in (lambda w: setattr(w.x, 'grad', w.x.grad + 1),
                  lambda w: w.h.unchain(),
                  lambda w: w.y.creator_node.inputs[0].creator_node.unchain(),
                  lambda w: chainer.get_function_hooks().__setitem__('spy', FunctionHook()),
                  lambda w: setattr(chainer.config, 'train', False)):
        w = World()
        before = fingerprint(w)
        try:
            spoil(w)
            assert not same(before, fingerprint(w))
        finally:
            chainer.get_function_hooks().pop('spy', None)
            vars(chainer.config).pop('train', None)


def test_dot_reader_catches_an_injection() -> None:
    injected = 'digraph g{1 [label="a"];evil [label="x"];1 -> evil;}'
    assert len([s for s in dot_statements(injected) if '[' in s]) == 2


if __name__ == '__main__':  # regenerate docs/hostile-inputs.md
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from autograd_lab.testing import fake_gpu

    from autograd_lab import backend

    backend.register_gpu_backend(fake_gpu.make_backend())
    sys.stdout.write(markdown([run_case(c) for c in CATALOGUE]))
