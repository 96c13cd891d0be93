"""autograd_lab.graph.GraphModel: built from outputs, replayed from events, time travel."""

from __future__ import annotations

import dataclasses
import gc

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import events, graph
from autograd_lab.graph import GraphModel
from tiny_models import MLP

uid = events.uid


def _round_trip(outputs, recorded, **kwargs) -> tuple[GraphModel, GraphModel]:
    """from_outputs and from_events agree on every node the walk reaches, and vice versa."""
    live = GraphModel.from_outputs(outputs, **kwargs)
    replayed = GraphModel.from_events(recorded)
    assert live.compare(replayed) == []
    # every replayed node upstream of the outputs is in the walked model too
    out_ids = [uid(o) for o in outputs]
    assert replayed.upstream_many(out_ids) <= set(live.nodes)
    assert live.nodes, 'the walk found nothing'
    return live, replayed


def _kinds(model: GraphModel, ids) -> list[str]:
    return [model.nodes[i].kind for i in ids]


# ---- round trips -------------------------------------------------------------------------

def test_round_trip_tutorial():
    with events.recording() as log:
        x = chainer.Variable(np.array(5.0), name='x')
        y = x ** 2 - 2 * x + 1
        y.backward()
    live, replayed = _round_trip([y], log)
    assert live.nodes[uid(x)].kind == 'input'
    assert live.nodes[uid(y)].kind == 'output'
    assert live.nodes[uid(x)].label == 'x'
    funcs = [n for n in live.nodes.values() if n.category == 'function']
    assert sorted(f.label for f in funcs) == sorted(['_ ** 2', '_ * 2', '_ - _', '_ + 1'])
    assert np.array_equal(replayed.nodes[uid(x)].grad, x.grad)  # 2x - 2 = 8
    assert float(replayed.nodes[uid(x)].grad) == 8.0
    # every edge joins a variable and a function, data flowing forward
    for e in live.edges:
        a, b = live.nodes[e.src], live.nodes[e.dst]
        assert {a.category, b.category} == {'variable', 'function'}
        assert not e.cut and e.order == 0


def test_round_trip_diamond():
    with events.recording() as log:
        x = chainer.Variable(np.array([1.0, 2.0]), name='x')
        a = x * 2
        b = F.exp(x)
        y = F.sum(a * b)
        y.backward()
    live, _ = _round_trip([y], log)
    fx = live.downstream(uid(x))
    assert uid(y) in fx
    # x feeds two functions (the diamond's two arms)
    assert sum(e.src == uid(x) for e in live.edges) == 2
    assert _kinds(live, [uid(x), uid(a), uid(b), uid(y)]) == \
        ['input', 'intermediate', 'intermediate', 'output']


def test_round_trip_mlp_through_links():
    x = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    t = np.array([0, 1, 1, 0, 1], dtype=np.int32)
    with events.recording() as log:
        model = L.Classifier(MLP())
        loss = model(x, t)
        loss.backward()
    # with the log, scopes and orders are exact: the walk equals the replay, Parameter
    # names included (a Link names each Parameter after making it: VariableRenamed)
    live = GraphModel.from_outputs([loss], log=log)
    replayed = GraphModel.from_events(log)
    assert live.compare(replayed) == []
    assert replayed.nodes[uid(model.predictor.l1.W)].name == 'W'
    assert replayed.upstream(uid(loss)) <= set(live.nodes)
    l1 = model.predictor.l1
    w1 = replayed.nodes[uid(l1.W)]
    assert w1.kind == 'parameter' and w1.scope == '/predictor/l1'
    linear1 = next(n for n in replayed.nodes.values()
               if n.category == 'function' and uid(l1.W) in n.input_ids)
    assert linear1.scope == '/predictor/l1'
    relu = next(n for n in replayed.nodes.values() if n.label.lower() == 'relu')
    assert relu.scope == '/predictor'            # called in MLP.forward
    loss_fn = replayed.nodes[live.nodes[uid(loss)].creator_id]
    assert loss_fn.scope == '/'                  # called in Classifier.forward
    # the events carry the scope themselves
    made = next(e for e in log.of_kind('function_applied') if e.func_id == linear1.id)
    assert made.scope == '/predictor/l1'
    # links= gives parameters their owning link, and functions that take them that scope
    by_links = GraphModel.from_outputs([loss], links=model)
    for path, p in model.namedparams():
        assert by_links.nodes[uid(p)].scope == path.rsplit('/', 1)[0]
    assert by_links.nodes[linear1.id].scope == '/predictor/l1'
    diffs = [d for d in by_links.compare(replayed) if d.split()[2] not in ('name:', 'label:')]
    # only scopes of parameter-free functions and their outputs differ (unknowable from links)
    assert diffs and all(d.split()[2] == 'scope:' for d in diffs)
    # parameters got gradients
    assert 'grad_computed' in w1.states
    np.testing.assert_array_equal(w1.grad, l1.W.grad)


def test_round_trip_double_backprop_orders():
    with events.recording() as log:
        x = chainer.Variable(np.array(3.0), name='x')
        y = x * 2 * F.exp(x)
        y.backward(enable_double_backprop=True)
        gx = x.grad_var
    live, _replayed = _round_trip([y], log)
    assert gx.creator is not None
    assert live.nodes[uid(gx)].order == 1
    grad_funcs = [n for n in live.nodes.values() if n.category == 'function' and n.order == 1]
    forward_funcs = [n for n in live.nodes.values() if n.category == 'function' and n.order == 0]
    assert len(forward_funcs) == 3 and len(grad_funcs) >= 3
    # edges into/out of grad-of-grad functions carry their order
    assert {e.order for e in live.edges if e.dst in {f.id for f in grad_funcs}} == {1}
    # the forward variables a grad function reads stay order 0
    assert live.nodes[uid(y)].order == 0 and live.nodes[uid(x)].order == 0
    # without the grad graph the walk stops at the forward graph
    plain = GraphModel.from_outputs([y], include_grad_graph=False)
    assert max(n.order for n in plain.nodes.values()) == 0


def test_second_order_backward_nested_orders():
    with events.recording() as log:
        x = chainer.Variable(np.array(2.0), name='x')
        y = x ** 3
        y.backward(enable_double_backprop=True)
        gx = x.grad_var                 # 3 x^2, a graph of order 1
        x.cleargrad()
        gx.backward(enable_double_backprop=True)
        ggx = x.grad_var                # 6 x, made while backpropagating order-1 functions
    replayed = GraphModel.from_events(log)
    assert float(ggx.array) == 12.0
    assert replayed.nodes[uid(ggx)].order == 2
    applied = {e.func_id: e for e in log.of_kind('function_applied')}
    for n in replayed.nodes.values():
        if n.category == 'function' and n.order == 2:
            assert replayed.nodes[applied[n.id].in_backward_of].order == 1
    # the walk from ggx alone cannot see the nesting; given the log it is exact
    live = GraphModel.from_outputs([ggx], log=log)
    assert live.compare(replayed) == []


def test_round_trip_after_unchain_backward():
    with events.recording() as log:
        x = chainer.Variable(np.array(1.5), name='x')
        h = F.exp(x)
        y = h * 3
        y.unchain_backward()
    live, replayed = _round_trip([y], log)
    assert set(live.nodes) == {uid(y)}          # nothing is reachable any more
    assert 'unchained' in live.nodes[uid(y)].states
    assert live.nodes[uid(y)].kind == 'output'  # it was made by a function
    # the replay keeps the cut graph, with every edge marked cut
    assert replayed.edges and all(e.cut for e in replayed.edges)
    assert all('unchained' in n.states for n in replayed.nodes.values()
               if n.category == 'function')
    assert replayed.upstream(uid(y)) == set()
    assert replayed.nodes[uid(h)].creator_id is None


def test_unchain_one_variable_cuts_only_its_creator_edge():
    with events.recording() as log:
        x = chainer.Variable(np.array(1.5), name='x')
        h = F.exp(x)
        y = h * 3
        h.unchain()
    m = GraphModel.from_events(log)
    cut = [e for e in m.edges if e.cut]
    assert len(cut) == 1 and cut[0].dst == uid(h)
    assert uid(x) not in m.upstream(uid(y))
    assert uid(h) in m.upstream(uid(y))
    assert 'unchained' in m.nodes[uid(h)].states
    assert GraphModel.from_outputs([y]).compare(m) == []


# ---- node kinds, devices, scopes -------------------------------------------------------------

def test_constant_and_no_backprop_mode():
    with events.recording() as log:
        x = chainer.Variable(np.array(1.0), name='x')
        c = chainer.Variable(np.array(2.0), name='c', requires_grad=False)
        y = x * c
        with chainer.no_backprop_mode():
            z = F.exp(x)
    m = GraphModel.from_events(log)
    assert m.nodes[uid(c)].kind == 'constant'
    assert m.nodes[uid(c)].requires_grad is False
    # no graph under no_backprop_mode: z is a leaf, its function is not a node
    assert m.nodes[uid(z)].creator_id is None and m.nodes[uid(z)].kind == 'input'
    assert not [n for n in m.nodes.values() if n.label == 'exp']
    assert GraphModel.from_outputs([y]).compare(m) == []


def test_device_from_events(fake_gpu):
    with events.recording() as log:
        x = chainer.Variable(np.array([1.0, 2.0]), name='x')
        x.to_gpu(1)
        y = x * 2
    m = GraphModel.from_events(log)
    moved = log.of_kind('device_moved')
    assert moved and m.nodes[uid(x)].device == moved[0].destination != '@numpy'
    assert m.nodes[uid(y)].device == m.nodes[uid(x)].device
    assert GraphModel.from_events(log, upto=0).nodes[uid(x)].device == '@numpy'
    assert GraphModel.from_outputs([y]).compare(m, values=False) == []


def test_event_scope_is_the_innermost_link():
    class Inner(chainer.Link):
        def forward(self, x):
            return x * 2

    class Outer(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.inner = Inner()

        def forward(self, x):
            return self.inner(x) + 1

    x = chainer.Variable(np.array(1.0))
    with events.recording() as log:
        Outer()(x)
        x * 3
    applied = log.of_kind('function_applied')
    assert [e.scope for e in applied] == ['/inner', '/', None]
    created = log.of_kind('variable_created')
    assert [e.scope for e in created] == ['/inner', '/', None]


# ---- states --------------------------------------------------------------------------------

@pytest.mark.parametrize('retain_grad', [False, True])
def test_states_after_backward(retain_grad):
    with events.recording() as log:
        x = chainer.Variable(np.array([1.0, -2.0]), name='x')
        h = F.exp(x)
        y = F.sum(h)
        y.backward(retain_grad=retain_grad)
    m = GraphModel.from_events(log)
    hs = m.nodes[uid(h)].states
    if retain_grad:
        assert 'grad_computed' in hs and 'grad_released' not in hs
        np.testing.assert_allclose(m.nodes[uid(h)].grad, h.grad)
    else:
        assert 'grad_released' in hs and 'grad_computed' not in hs
        assert h.grad is None and m.nodes[uid(h)].grad is None
    assert 'grad_computed' in m.nodes[uid(x)].states
    np.testing.assert_allclose(m.nodes[uid(x)].grad, np.exp([1.0, -2.0]))
    assert all(m.run.mark(i) == 'done' for i, n in m.nodes.items() if n.category == 'function')
    assert not any('grad_pending' in n.states for n in m.nodes.values())
    assert m.frontier == () and m.next_id is None and m.run.finished and m.run.ok
    assert GraphModel.from_outputs([y]).compare(m) == []


def test_states_while_stepping_time_travel():
    with events.recording() as log:
        x = chainer.Variable(np.array(2.0), name='x')
        h = x * 3
        y = h * h
        y.backward()
    kinds = [e.kind for e in log]
    first_step = kinds.index('backward_step_started')
    m = GraphModel.from_events(log, upto=first_step)
    assert m.next_id == uid(y.creator_node)
    assert m.run.mark(m.next_id) == 'next' and m.run.done == set()
    assert m.frontier == (uid(y.creator_node),)
    assert m.reason
    assert {'grad_pending'} <= m.nodes[uid(x)].states
    assert 'grad_pending' in m.nodes[uid(h)].states
    # before the backward: no gradient states at all
    before = GraphModel.from_events(log, upto=kinds.index('backward_started') - 1)
    assert not any(n.states for n in before.nodes.values())
    # after the first step h has its (accumulated: used twice) gradient
    done = kinds.index('backward_step_done')
    m = GraphModel.from_events(log, upto=done)
    assert {'grad_computed', 'grad_accumulated'} <= m.nodes[uid(h)].states
    assert float(m.nodes[uid(h)].grad) == 2 * 6.0
    assert m.run.mark(uid(y.creator_node)) == 'done' and m.next_id is None
    # replaying event by event is the same as rebuilding at each index
    live = GraphModel()
    for i, e in enumerate(log):
        live.apply(e)
        again = GraphModel.from_events(log, upto=i)
        assert live.compare(again, states=graph.STATES) == [] and live.nodes.keys() == \
            again.nodes.keys()
    assert live.events_applied == len(log)


def test_accumulation_on_variable_used_twice():
    with events.recording() as log:
        x = chainer.Variable(np.array(3.0), name='x')
        y = x * x + x
        y.backward()
    m = GraphModel.from_events(log)
    assert {'grad_computed', 'grad_accumulated'} <= m.nodes[uid(x)].states
    assert float(m.nodes[uid(x)].grad) == float(x.grad) == 7.0


def test_stale_grads():
    with events.recording() as log:
        x = chainer.Variable(np.array(3.0), name='x')
        (x * 2).backward()
        y = x * 5                         # a new iteration, but x.grad was not cleared
        y.backward()
    m = GraphModel.from_events(log)
    assert float(x.grad) == 7.0           # 2 (stale) + 5
    assert {'grad_stale', 'grad_accumulated'} <= m.nodes[uid(x)].states
    second = [i for i, e in enumerate(log) if e.kind == 'backward_started'][1]
    assert 'grad_stale' in GraphModel.from_events(log, upto=second).nodes[uid(x)].states
    with events.recording() as log2:
        x.cleargrad()
    for e in log2:
        m.apply(e)
    assert not m.nodes[uid(x)].states & {'grad_stale', 'grad_computed'}


def test_stale_when_a_fresh_parameter_was_not_cleared():
    with events.recording() as log:
        link = L.Linear(2, 1)           # Chainer fills a new Parameter's grad with NaN
        F.sum(link(np.ones((1, 2), np.float32))).backward()
    m = GraphModel.from_events(log)
    assert np.isnan(link.W.grad).all()
    assert {'grad_stale', 'grad_accumulated'} <= m.nodes[uid(link.W)].states
    with events.recording() as log:
        link.cleargrads()
        F.sum(link(np.ones((1, 2), np.float32))).backward()
    for e in log:
        m.apply(e)
    assert not m.nodes[uid(link.W)].states & {'grad_stale', 'grad_accumulated'}
    assert 'grad_computed' in m.nodes[uid(link.W)].states


def test_stale_after_optimizer_update():
    link = L.Linear(2, 1)
    opt = chainer.optimizers.SGD(lr=0.1)
    opt.setup(link)
    x = np.ones((1, 2), dtype=np.float32)
    with events.recording() as log:
        loss = F.sum(link(x))
        link.cleargrads()
        loss.backward()
        opt.update()
    m = GraphModel.from_events(log)
    w = m.nodes[uid(link.W)]
    assert log.of_kind('parameter_updated')
    assert 'grad_stale' in w.states     # the grad belongs to the weights before the step
    np.testing.assert_array_equal(w.data, link.W.array)


def test_collected_variable():
    with events.recording() as log:
        x = chainer.Variable(np.array(2.0), name='x')
        h = F.exp(x)
        y = h * 2
        h_id = uid(h)
        del h
        gc.collect()
    collected = [e.var_id for e in log.of_kind('variable_collected')]
    assert h_id in collected and uid(x) not in collected and uid(y) not in collected
    m = GraphModel.from_events(log)
    assert 'collected' in m.nodes[h_id].states
    live = GraphModel.from_outputs([y])
    assert 'collected' in live.nodes[h_id].states    # its node lives on in the graph
    assert live.compare(m) == []


# ---- queries and bad input ---------------------------------------------------------------------

def test_upstream_downstream_and_errors():
    x = chainer.Variable(np.array(1.0), name='x')
    w = chainer.Variable(np.array(2.0), name='w')
    y = x * w
    z = F.exp(x)
    m = GraphModel.from_outputs([y, z])
    assert m.upstream(uid(y)) == {uid(x), uid(w), uid(y.creator_node)}
    assert m.downstream(uid(w)) == {uid(y.creator_node), uid(y)}
    assert uid(z) in m.downstream(uid(x))
    with pytest.raises(KeyError, match='no node'):
        m.upstream(10 ** 9)
    with pytest.raises(TypeError, match='Variables'):
        GraphModel.from_outputs([np.ones(2)])
    before = len(m.nodes), m.events_applied
    with pytest.raises(TypeError, match='Event'):
        m.apply({'kind': 'variable_created'})
    assert (len(m.nodes), m.events_applied) == before
    with pytest.raises(IndexError):
        GraphModel.from_events([], upto=0)
    with pytest.raises(TypeError):
        GraphModel.from_events([], upto=True)


def test_replay_of_a_log_started_late_has_placeholders():
    link = L.Linear(2, 1)           # made before anyone listened
    with events.recording() as log:
        y = link(np.ones((1, 2), dtype=np.float32))
    m = GraphModel.from_events(log)
    w = m.nodes[uid(link.W)]
    assert w.category == 'variable' and w.kind == 'input' and w.name is None
    assert uid(link.W) in m.upstream(uid(y))


@pytest.mark.parametrize('keep_other', [True, False])
def test_round_trip_multi_output_function(keep_other):
    with events.recording() as log:
        x = chainer.Variable(np.arange(4.0), name='x')
        a, b = F.split_axis(x, 2, 0)
        y = F.sum(a * 3)
        if not keep_other:
            del b
            gc.collect()
        y.backward()
    live, replayed = _round_trip([y], log)
    split = live.nodes[live.nodes[uid(a)].creator_id]
    # a sibling output nobody used is still the function's output while it lives
    assert len(split.output_ids) == (2 if keep_other else 1)
    assert len(replayed.nodes[split.id].output_ids) == 2


def test_links_argument_is_checked():
    x = chainer.Variable(np.array(1.0))
    with pytest.raises(TypeError, match='Links'):
        GraphModel.from_outputs([x * 2], links=[object()])


def test_subgraph_and_equality():
    with events.recording() as log:
        x = chainer.Variable(np.array(1.0), name='x')
        y = F.exp(x)
    a = GraphModel.from_events(log)
    b = GraphModel.from_outputs([y])
    assert a == b
    sub = a.subgraph([uid(x), uid(y)])
    assert set(sub.nodes) == {uid(x), uid(y)} and sub.edges == []
    assert 'GraphModel 2 variables, 1 functions' in repr(a)
    # nodes compare field by field, arrays by value
    node = b.nodes[uid(y)]
    twin = dataclasses.replace(node, states=set(node.states), data=np.array(node.data))
    assert twin == node
    twin.data = twin.data + 1
    assert twin != node
