"""The graph model: what a view needs to know about a computational graph.

A :class:`GraphModel` holds one :class:`Node` per variable node and per function
node, and the :class:`Edge` s between them (variable -> function for inputs,
function -> variable for outputs, the direction data flows).  It is built one way
only, by replaying events (:meth:`GraphModel.apply`): those a recording kept
(:meth:`GraphModel.from_events`, which also gives the state at any earlier event
index, "time travel"), or those that describe a live graph as it is now
(:meth:`GraphModel.from_outputs`, the replay of :func:`autograd_lab.events.describe`).
It reads the engine through public API only.

Ids are the engine's stable ids (:func:`autograd_lab.events.uid`).

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> with events.recording() as log:
...     x = chainer.Variable(np.array(3.0), name='x')
...     y = x ** 2 - 2 * x + 1
...     y.backward()
>>> live = GraphModel.from_outputs([y])
>>> replayed = GraphModel.from_events(log)
>>> live.compare(replayed) == []
True
>>> [n.kind for n in live.nodes.values() if n.category == 'variable']
['input', 'intermediate', 'intermediate', 'intermediate', 'output']
>>> GraphModel.from_events(log, upto=0).nodes[events.uid(x)].label   # only x existed
'x'
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from autograd_lab import events as _events
from autograd_lab.graph.run import BackwardRun
from autograd_lab.link import Link
from autograd_lab.variable import Variable

#: Every state a node can be in (see :class:`Node`).
STATES = frozenset({'grad_pending', 'grad_computed', 'grad_accumulated', 'grad_released',
                    'grad_stale', 'data_retained', 'unchained', 'collected'})

#: States that both a recording and a description of the live graph give;
#: :meth:`GraphModel.compare` compares only these (the others need the history that only
#: a recording carries, or, for ``data_retained``, the description of a live graph).
OBSERVABLE_STATES = frozenset({'grad_computed', 'unchained', 'collected'})


@dataclass(eq=False)
class Node:
    """One variable node or function node of the graph.

    ``kind`` is ``'input' | 'parameter' | 'intermediate' | 'output' | 'constant'`` for
    variables (an output is a function-made variable nothing consumes yet; a constant
    is a leaf with ``requires_grad=False``) and ``'function'`` for functions.
    ``order`` is 0 for the forward graph and k for nodes made while the k-th nested
    backward ran (grad-of-grad).  ``data`` and ``grad`` are :func:`events.snapshot`
    values.
    """

    id: int
    category: str
    kind: str
    order: int = 0
    label: str = ''
    name: str | None = None
    shape: tuple | None = None
    dtype: str | None = None
    device: str = '@numpy'
    requires_grad: bool = True
    rank: int = 0
    states: set = field(default_factory=set)
    scope: str | None = None
    data: Any = None
    grad: Any = None
    creator_id: int | None = None
    input_ids: tuple = ()
    output_ids: tuple = ()
    is_parameter: bool = False
    type: str = ''

    def __eq__(self, other: object) -> bool:
        # field by field, arrays by value (the dataclass default would ask an array for bool)
        if not isinstance(other, Node):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name)
                   if f.name not in ('data', 'grad') else
                   _same_value(getattr(self, f.name), getattr(other, f.name))
                   and (getattr(self, f.name) is None) == (getattr(other, f.name) is None)
                   for f in dataclasses.fields(self))

    __hash__ = None  # mutable


@dataclass(frozen=True)
class Edge:
    """A data-flow edge: ``src`` feeds ``dst``.  ``cut`` after unchain; ``order`` as nodes."""

    src: int
    dst: int
    cut: bool = False
    order: int = 0


_COMPARED = ('category', 'kind', 'order', 'label', 'name', 'shape', 'dtype', 'device',
             'requires_grad', 'rank', 'scope', 'creator_id', 'input_ids', 'output_ids',
             'is_parameter', 'type')


def _same_value(a: Any, b: Any) -> bool:
    if a is None or b is None:  # one side does not know the value: nothing to compare
        return True
    if isinstance(a, numpy.ndarray) and isinstance(b, numpy.ndarray):
        return a.shape == b.shape and bool(numpy.array_equal(a, b, equal_nan=a.dtype.kind == 'f'))
    return a == b


class GraphModel:
    """Nodes and edges of a computational graph, and the latest backward run over it.

    ``run`` is that run (:class:`~autograd_lab.graph.run.BackwardRun`: where it stands,
    the grads it gave, its last step); ``events_applied`` counts replayed events.
    """

    def __init__(self) -> None:
        self.nodes: dict[int, Node] = {}
        self.edges: list[Edge] = []
        self.run = BackwardRun()
        self.events_applied: int = 0
        self._edge_index: dict[tuple[int, int], int] = {}
        self._succ: dict[int, list[int]] = collections.defaultdict(list)
        self._pred: dict[int, list[int]] = collections.defaultdict(list)
        self._adj_len = 0
        self._adj_list: list | None = self.edges
        self._consumers: dict[int, list[int]] = collections.defaultdict(list)
        self._touched: set = set()   # variables given a grad by Grad* events in this step
        self._pending: set = set()    # variables marked grad_pending by the open run
        self._run_grads: set = set()  # variables given a grad during the open run

    @property
    def next_id(self) -> int | None:
        """The function whose backward step is under way (``run.next_id``)."""
        return self.run.next_id

    @property
    def frontier(self) -> tuple[int, ...]:
        """The function ids waiting as the step under way began (``run.frontier``)."""
        return self.run.frontier

    @property
    def reason(self) -> str:
        """Why the step under way runs next, or why the run failed (``run.reason``)."""
        return self.run.reason

    def forget_backward(self) -> None:
        """Back to the picture from before any backward: no run, no grad on a variable
        (a view's Reset; the engine's own grads were cleared by then)."""
        self.run = BackwardRun()
        self._pending, self._run_grads = set(), set()
        for n in self.nodes.values():
            if n.category == 'variable':
                n.grad = None
                n.states -= {'grad_computed', 'grad_accumulated', 'grad_stale', 'grad_pending'}

    # ---- building from live objects -------------------------------------------------

    @classmethod
    def from_outputs(cls, outputs: Any, *, include_grad_graph: bool = True,
                     links: Any = None, log: Sequence | None = None) -> GraphModel:
        """The graph behind ``outputs`` (a Variable or a sequence of them) as it is now:
        the replay of :func:`autograd_lab.events.describe`, the events that would have
        built it.

        With ``include_grad_graph`` the walk also follows each live variable's
        ``grad_var`` when it has a graph (made under ``enable_double_backprop``); a
        function reached through k such gradient links has ``order`` k.

        Scopes cannot be read from the graph itself.  ``links`` (a Link or several)
        gives every parameter the path of the link that owns it, and a function that
        takes a parameter that parameter's scope.  ``log`` (an event log recorded
        while the graph was built) gives exact scopes and orders from the events.

        >>> import numpy as np, autograd_lab as chainer
        >>> x = chainer.Variable(np.array([1.0, 2.0]), name='x')
        >>> y = chainer.functions.sum(x * x)
        >>> m = GraphModel.from_outputs(y)
        >>> [(n.kind, n.label) for n in m.nodes.values()]  # in topological order
        [('input', 'x'), ('function', '_ * _'), ('intermediate', ''), ('function', 'Sum'),
         ('output', '')]
        """
        if not isinstance(outputs, (list, tuple)):
            outputs = [outputs]
        for out in outputs:
            if not isinstance(out, Variable):
                raise TypeError(f'from_outputs expects Variables, got {type(out).__name__}')
        model = cls.from_events(_events.describe(outputs, include_grad_graph=include_grad_graph))
        model.nodes = dict(sorted(model.nodes.items()))  # creation order, as a replay has
        model.events_applied = 0  # a description, not a history
        if links is not None:
            model._scopes_from_links(links)
        if log is not None:
            model._facts_from_log(log)
        return model.refresh()

    def _scopes_from_links(self, links: Any) -> None:
        if not isinstance(links, (list, tuple)):
            links = [links]
        for link in links:
            if not isinstance(link, Link):
                raise TypeError(f'links must be Links, got {type(link).__name__}')
        owner: dict[int, str] = {}
        for link in links:
            base = link.path.rstrip('/')
            for path, param in link.namedparams():
                owner[_events.uid(param)] = (base + path.rsplit('/', 1)[0]) or '/'
        for ident, scope in owner.items():
            if ident in self.nodes:
                self.nodes[ident].scope = scope
        for f in self.nodes.values():
            if f.category == 'function':
                scopes = [owner[i] for i in f.input_ids if i in owner]
                if scopes:
                    f.scope = max(scopes, key=len)  # the innermost owning link
                    for o in f.output_ids:  # outputs are made in their function's scope
                        self.nodes[o].scope = f.scope

    def _facts_from_log(self, log: Iterable) -> None:
        scopes: dict[int, str | None] = {}
        orders: dict[int, int] = {}
        for e in log:
            if e.kind == 'function_applied' and e.recorded:
                parent = e.in_backward_of
                orders[e.func_id] = 0 if parent is None else 1 + orders.get(parent, 0)
                if e.func_id in self.nodes:
                    self.nodes[e.func_id].order = orders[e.func_id]
                    scopes[e.func_id] = getattr(e, 'scope', None)
            elif e.kind == 'variable_created' and e.var_id in self.nodes:
                scopes[e.var_id] = getattr(e, 'scope', None)
        for ident, scope in scopes.items():
            if scope is not None or self.nodes[ident].category == 'function':
                self.nodes[ident].scope = scope
        self._parameter_scopes()

    # ---- building from events --------------------------------------------------------

    @classmethod
    def from_events(cls, events: Iterable, upto: int | None = None) -> GraphModel:
        """Replay ``events`` (an event log or any iterable of events) into a new model.

        ``upto`` stops after the event at that index (inclusive): the state the graph
        was in at that moment.

        >>> import numpy as np, autograd_lab as chainer
        >>> from autograd_lab import events
        >>> with events.recording() as log:
        ...     x = chainer.Variable(np.array(2.0), name='x')
        ...     y = x * x
        ...     y.backward()
        >>> step = [e.kind for e in log].index('backward_step_started')
        >>> m = GraphModel.from_events(log, upto=step)
        >>> m.nodes[m.next_id].label, sorted(m.nodes[events.uid(x)].states)
        ('_ * _', ['grad_pending'])
        >>> sorted(GraphModel.from_events(log).nodes[events.uid(x)].states)
        ['grad_accumulated', 'grad_computed']
        """
        events = list(events)
        if upto is not None:
            if not isinstance(upto, int) or isinstance(upto, bool):
                raise TypeError(f'upto must be an int index, got {type(upto).__name__}')
            if not -len(events) <= upto < len(events):
                raise IndexError(f'upto={upto} is outside the log of {len(events)} events')
            events = events[:upto % len(events) + 1]
        model = cls()
        for e in events:
            model.apply(e)
        return model

    def apply(self, event: Any) -> None:
        """Update the model with one event (a live view feeds events as they come).

        >>> from autograd_lab import events
        >>> m = GraphModel()
        >>> m.apply(events.VariableCreated(var_id=1, name='w', shape=(2,), dtype='float32'))
        >>> m.nodes[1].kind, m.events_applied
        ('input', 1)
        """
        handler = getattr(self, '_on_' + getattr(event, 'kind', ''), None)
        if not isinstance(event, _events.Event):
            raise TypeError(f'apply expects an autograd_lab.events.Event, got '
                            f'{type(event).__name__}')
        if handler is not None:
            handler(event)
        elif isinstance(event, _events.GradChanged):
            self.run.grad_changing(event.var_id, self._grad_shown)
            self._on_grad(event)
            self.run.grad_changed(event)
        self.events_applied += 1

    # event handlers (one per event kind; unknown kinds are counted and ignored)

    def _on_variable_created(self, e: Any) -> None:
        self.nodes[e.var_id] = Node(
            id=e.var_id, category='variable', kind='', label=e.name or '', name=e.name,
            shape=None if e.shape is None else tuple(e.shape), dtype=e.dtype, device=e.device,
            requires_grad=e.requires_grad, data=e.data, creator_id=e.creator_id,
            is_parameter=e.is_parameter, scope=getattr(e, 'scope', None), rank=e.rank)
        self._kind(self.nodes[e.var_id])

    def _on_function_applied(self, e: Any) -> None:
        if not e.recorded:  # no_backprop_mode: the outputs are leaves, no graph was made
            return
        order = 0
        if e.in_backward_of is not None:
            parent = self.nodes.get(e.in_backward_of)
            order = 1 + (parent.order if parent is not None else 0)
        f = Node(id=e.func_id, category='function', kind='function', order=order,
                 label=e.label, rank=e.rank, input_ids=tuple(e.input_ids),
                 output_ids=tuple(e.output_ids), scope=getattr(e, 'scope', None), type=e.type)
        self.nodes[f.id] = f
        for i in f.input_ids:
            if i not in self.nodes:  # made before the log began: known only by its id
                self.nodes[i] = Node(id=i, category='variable', kind='input', shape=None)
            self._add_edge(i, f.id, order)
            self._consumers[i].append(f.id)
            v = self.nodes.get(i)
            if v is not None:
                if v.is_parameter and v.scope is None:
                    v.scope = f.scope
                self._kind(v, added=f)
        for o in f.output_ids:
            self._add_edge(f.id, o, order)
            v = self.nodes.get(o)
            if v is not None:
                v.rank = f.rank + 1
                v.creator_id = f.id
                self._kind(v)

    def _on_backward_started(self, e: Any) -> None:
        self._run_grads = set()
        roots = set(e.root_ids)
        reached = self.upstream_many(e.root_ids) | roots
        # what the previous run left on intermediates is not this run's (they get theirs)
        stale = {i for i in reached if i in self.nodes
                 and self.nodes[i].category == 'variable' and self.nodes[i].grad is None}
        self.run = BackwardRun.started(e, self.run, stale)
        for ident in reached:
            n = self.nodes.get(ident)
            if n is None or n.category != 'variable':
                continue
            if n.grad is not None and ident not in roots:
                n.states.add('grad_stale')  # left from an earlier run: backward adds to it
            if n.requires_grad and ident not in roots and n.grad is None:
                n.states.add('grad_pending')
                self._pending.add(ident)

    def _on_backward_step_started(self, e: Any) -> None:
        if e.run_id == self.run.run_id:
            f = self.nodes.get(e.func_id)
            self.run.step_started(e, f.output_ids if f is not None else ())
        self._touched = set()
        # the grads flowing into this step (for the root: the seed, announced nowhere else)
        for n, g in zip(self._outputs_of(e.func_id), e.grad_outputs):
            if g is not None:
                n.grad = g
                n.states.discard('grad_pending')
                n.states.add('grad_computed')

    def _outputs_of(self, func_id: int) -> list:
        f = self.nodes.get(func_id)
        return [self.nodes[o] for o in (f.output_ids if f else ()) if o in self.nodes]

    def _on_backward_step_done(self, e: Any) -> None:
        ours = e.run_id == self.run.run_id
        if ours:
            self.run.step_ending(e, self._grad_shown)
        for ident, g, how in zip(e.target_input_ids, e.grad_inputs, e.accumulation):
            n = self.nodes.get(ident)
            if n is None or how is None or ident in self._touched:
                continue  # leaves were told by their own Grad* events
            n.states.discard('grad_pending')
            n.states.discard('grad_released')
            n.states.add('grad_computed')
            if how == 'added':
                n.states.add('grad_accumulated')
                n.grad = _add(n.grad, g)
            else:
                n.grad = g
        self._touched = set()
        if ours:
            self.run.step_done(e, self._grad_after)

    def _on_backward_finished(self, e: Any) -> None:
        for ident in self._pending:
            n = self.nodes.get(ident)
            if n is not None:
                n.states.discard('grad_pending')
        self._pending = set()
        if e.run_id == self.run.run_id:
            self.run.ended(e)

    def _grad_shown(self, ident: int) -> Any:
        """A variable's grad as a view shows it: the model's, else the run's last."""
        node = self.nodes.get(ident)
        if node is not None and node.grad is not None:
            return node.grad
        return self.run.grads.get(ident)

    def _grad_after(self, ident: int) -> Any:
        node = self.nodes.get(ident)
        if node is None:
            return None
        return node.grad if node.grad is not None else self.run.grads.get(ident)

    def _on_grad(self, e: Any) -> None:
        n = self.nodes.get(e.var_id)
        if n is None:
            return
        kind = e.kind
        s = n.states
        self._touched.add(e.var_id)
        first_in_run = self.run.open and e.var_id not in self._run_grads
        if self.run.open:
            self._run_grads.add(e.var_id)
        if kind in ('grad_set', 'grad_zeroed', 'grad_restored'):
            n.grad = e.grad
            s -= {'grad_accumulated', 'grad_stale', 'grad_pending', 'grad_released'}
            if kind == 'grad_restored':  # a failed backward was undone
                s -= {'grad_computed'}
            if e.grad is not None:
                s.add('grad_computed')
        elif kind in ('grad_accumulated', 'grad_added'):
            if kind == 'grad_accumulated' and first_in_run:
                # the first grad of this run was added to one from before (Chainer's
                # NaN-filled grad of a fresh Parameter, or a grad never cleared)
                s.add('grad_stale')
            n.grad = e.grad
            s -= {'grad_pending', 'grad_released'}
            s |= {'grad_computed', 'grad_accumulated'}
        elif kind == 'grad_cleared':
            n.grad = None
            s -= {'grad_computed', 'grad_accumulated', 'grad_stale'}
        elif kind == 'grad_released':
            n.grad = None
            s -= {'grad_computed', 'grad_accumulated', 'grad_pending', 'grad_stale'}
            s.add('grad_released')

    def _on_data_changed(self, e: Any) -> None:
        n = self.nodes.get(e.var_id)
        if n is None:
            return
        n.data = e.data
        if e.data is not None and hasattr(e.data, 'shape'):
            n.shape = tuple(e.data.shape)
            n.dtype = str(e.data.dtype)
        if n.grad is not None:
            n.states.add('grad_stale')  # the grad belongs to the old values

    def _on_parameter_updated(self, e: Any) -> None:
        n = self.nodes.get(e.var_id)
        if n is None:
            return
        if e.data is not None:
            n.data = e.data
        if n.grad is not None:
            n.states.add('grad_stale')

    def _on_parameter_initialized(self, e: Any) -> None:
        n = self.nodes.get(e.var_id)
        if n is not None:
            n.shape, n.dtype = tuple(e.shape), e.dtype

    def _on_device_moved(self, e: Any) -> None:
        n = self.nodes.get(e.var_id)
        if n is not None:
            n.device = e.destination

    def _on_unchained(self, e: Any) -> None:
        for ident in e.func_ids:
            f = self.nodes.get(ident)
            if f is None:
                continue
            f.states.add('unchained')
            for i in f.input_ids:
                self._cut(i, ident)
            for o in f.output_ids:
                self._cut(ident, o)
        for ident in (*e.var_ids, *(() if e.backward else (e.root_id,))):
            v = self.nodes.get(ident)
            if v is None or (v.creator_id is None and v.rank == 0):
                continue  # a leaf: there is nothing to cut
            v.states.add('unchained')
            if v.creator_id is not None:  # (a description may not know the creator)
                self._cut(v.creator_id, ident)
                v.creator_id = None

    def _on_variable_renamed(self, e: Any) -> None:
        n = self.nodes.get(e.var_id)
        if n is not None:
            n.name = e.name
            n.label = e.name or ''

    def _on_variable_collected(self, e: Any) -> None:
        n = self.nodes.get(e.var_id)
        if n is not None:
            n.states.add('collected')

    def _on_data_retained(self, e: Any) -> None:
        n = self.nodes.get(e.var_id)
        if n is not None:
            n.states.add('data_retained')

    # ---- helpers ---------------------------------------------------------------------

    def _add_edge(self, src: int, dst: int, order: int = 0) -> None:
        self._adjacency()  # in step with ``edges`` before this one is added
        key = (src, dst)
        if key in self._edge_index:
            return
        self._edge_index[key] = len(self.edges)
        self.edges.append(Edge(src, dst, False, order))
        self._succ[src].append(dst)
        self._pred[dst].append(src)
        self._adj_len += 1

    def _cut(self, src: int, dst: int) -> None:
        self._adjacency()
        k = self._edge_index.get((src, dst))
        if k is not None:
            self.edges[k] = dataclasses.replace(self.edges[k], cut=True)

    def _kind(self, n: Node, added: Node | None = None) -> None:
        """Variable kind and order, from how it was made and who consumes it.

        ``added`` is a consumer just appended: then the others need not be visited again
        (a leaf used by 10,000 functions would otherwise make a replay quadratic).
        """
        if n.category != 'variable':
            return
        nodes = self.nodes
        ids = self._consumers.get(n.id, ())
        made = n.creator_id is not None or n.rank > 0 or 'unchained' in n.states
        if n.is_parameter:
            n.kind = 'parameter'
        elif made:
            n.kind = 'intermediate' if added is not None or any(c in nodes for c in ids) \
                else 'output'
        else:
            n.kind = 'input' if n.requires_grad else 'constant'
        creator = nodes.get(n.creator_id) if n.creator_id is not None else None
        if creator is not None:
            n.order = creator.order
        elif made:
            pass
        elif added is not None:
            # any() stops at the first earlier consumer still in the model: O(1) in practice
            earlier = any(c in nodes and c != added.id for c in ids)
            n.order = min(n.order, added.order) if earlier else added.order
        else:
            n.order = min((nodes[c].order for c in ids if c in nodes), default=0)

    def _parameter_scopes(self) -> None:
        for f in sorted((n for n in self.nodes.values() if n.category == 'function'),
                        key=lambda n: n.id):
            for i in f.input_ids:
                v = self.nodes.get(i)
                if v is not None and v.is_parameter and v.scope is None:
                    v.scope = f.scope

    def _derive(self) -> None:
        """Recompute consumers, kinds, variable orders and edge orders from the nodes."""
        self._consumers = collections.defaultdict(list)
        for f in sorted((n for n in self.nodes.values() if n.category == 'function'),
                        key=lambda n: n.id):
            for i in f.input_ids:
                self._consumers[i].append(f.id)
        for n in self.nodes.values():
            self._kind(n)
        self._edge_orders()

    def _edge_orders(self) -> list[Edge]:
        nodes = self.nodes
        out = []
        for k, e in enumerate(self.edges):
            f = nodes.get(e.dst) if e.dst in nodes and nodes[e.dst].category == 'function' \
                else nodes.get(e.src)
            order = f.order if f is not None else 0
            if order != e.order:
                self.edges[k] = e = dataclasses.replace(e, order=order)
            out.append(e)
        return out

    def refresh(self) -> GraphModel:
        """Bring derived fields (variable kinds, edge orders) up to date; returns self."""
        self._derive()
        return self

    # ---- queries ---------------------------------------------------------------------

    def _adjacency(self) -> tuple[dict, dict]:
        """Successor and predecessor lists, kept up to date as edges are added.

        Cut edges stay listed (a cut only flips a flag); walks skip them.  If ``edges``
        was changed from outside, the lists are rebuilt.
        """
        edges = self.edges
        if self._adj_len != len(edges) or self._adj_list is not edges:
            succ: dict[int, list[int]] = collections.defaultdict(list)
            pred: dict[int, list[int]] = collections.defaultdict(list)
            for e in edges:
                succ[e.src].append(e.dst)
                pred[e.dst].append(e.src)
            self._succ, self._pred = succ, pred
            self._adj_len, self._adj_list = len(edges), edges
            self._edge_index = {(e.src, e.dst): k for k, e in enumerate(edges)}
        return self._succ, self._pred

    def _walk(self, start: Iterable[int], forward: bool) -> set[int]:
        succ, pred = self._adjacency()
        nxt = succ if forward else pred
        edges, index = self.edges, self._edge_index
        seen: set[int] = set()
        stack = list(start)
        while stack:
            a = stack.pop()
            for b in nxt.get(a, ()):
                if b in seen or edges[index[(a, b) if forward else (b, a)]].cut:
                    continue
                seen.add(b)
                stack.append(b)
        return seen

    def _check_id(self, ident: int) -> None:
        if ident not in self.nodes:
            raise KeyError(f'no node with id {ident!r} in this graph')

    def upstream(self, id: int) -> set[int]:
        """Ids of every node ``id`` depends on (through uncut edges), itself excluded.

        >>> import numpy as np, autograd_lab as chainer
        >>> from autograd_lab import events
        >>> x = chainer.Variable(np.array(1.0)); y = x + 1; z = y * 3
        >>> m = GraphModel.from_outputs(z)
        >>> events.uid(x) in m.upstream(events.uid(z)), events.uid(z) in m.upstream(events.uid(x))
        (True, False)
        """
        self._check_id(id)
        return self._walk([id], forward=False)

    def upstream_many(self, ids: Iterable[int]) -> set[int]:
        """Union of :meth:`upstream` over ``ids`` (ids absent from the model are ignored)."""
        return self._walk([i for i in ids if i in self.nodes], forward=False)

    def downstream(self, id: int) -> set[int]:
        """Ids of every node that depends on ``id`` (through uncut edges), itself excluded.

        >>> import numpy as np, autograd_lab as chainer
        >>> from autograd_lab import events
        >>> x = chainer.Variable(np.array(1.0)); y = x * 2
        >>> m = GraphModel.from_outputs(y)
        >>> m.downstream(events.uid(x)) == {events.uid(y.creator_node), events.uid(y)}
        True
        """
        self._check_id(id)
        return self._walk([id], forward=True)

    def subgraph(self, ids: Iterable[int]) -> GraphModel:
        """A copy holding only the nodes ``ids`` (those present) and the edges among them.

        Kinds and orders are left as they were; :meth:`refresh` recomputes them for
        the smaller graph.

        >>> import numpy as np, autograd_lab as chainer
        >>> from autograd_lab import events
        >>> x = chainer.Variable(np.array(1.0)); h = x * 2; y = h + 1
        >>> m = GraphModel.from_outputs(y).subgraph([events.uid(x), events.uid(h.creator_node)])
        >>> len(m.nodes), len(m.edges)
        (2, 1)
        """
        keep = {i for i in ids if i in self.nodes}
        sub = GraphModel()
        for i in sorted(keep):
            sub.nodes[i] = dataclasses.replace(self.nodes[i], states=set(self.nodes[i].states))
        sub.edges.extend(e for e in self.edges if e.src in keep and e.dst in keep)
        sub.run, sub.events_applied = self.run, self.events_applied
        return sub

    def compare(self, other: GraphModel, *, states: Iterable[str] = OBSERVABLE_STATES,
                values: bool = True) -> list[str]:
        """Differences between two models, as readable lines (empty when they agree).

        Compares the nodes of ``self`` with the same ids in ``other`` (every field in
        ``_COMPARED``, the ``states`` given, and ``data``/``grad`` where both sides know
        them) and the edges among those ids.  ``other`` is first cut down to ``self``'s
        nodes (:meth:`subgraph`), so a model built from some outputs can be compared
        with the replay of a longer log: kinds and orders that depend on the consumers
        present (``'output'``, a leaf's order) are judged on the same set of nodes.
        """
        other = other.subgraph(self.nodes).refresh()
        wanted = frozenset(states)
        out = []
        for i, a in self.nodes.items():
            b = other.nodes.get(i)
            if b is None:
                out.append(f'node {i} ({a.category} {a.label!r}) missing')
                continue
            for name in _COMPARED:
                va, vb = getattr(a, name), getattr(b, name)
                if name == 'output_ids':  # outputs nobody kept are invisible to a walk
                    vb = tuple(o for o in vb if o in self.nodes)
                if va != vb:
                    out.append(f'node {i} {name}: {va!r} != {vb!r}')
            if a.states & wanted != b.states & wanted:
                out.append(f'node {i} states: {sorted(a.states & wanted)} != '
                           f'{sorted(b.states & wanted)}')
            if values:
                for name in ('data', 'grad'):
                    if not _same_value(getattr(a, name), getattr(b, name)):
                        out.append(f'node {i} {name} differs')
        mine = {(e.src, e.dst): e for e in self.edges}
        theirs = {(e.src, e.dst): e for e in other.edges
                  if e.src in self.nodes and e.dst in self.nodes}
        for key in sorted(mine.keys() | theirs.keys()):
            if mine.get(key) != theirs.get(key):
                out.append(f'edge {key}: {mine.get(key)} != {theirs.get(key)}')
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GraphModel):
            return NotImplemented
        return self.nodes.keys() == other.nodes.keys() and not self.compare(other)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        n_f = sum(n.category == 'function' for n in self.nodes.values())
        return (f'<GraphModel {len(self.nodes) - n_f} variables, {n_f} functions, '
                f'{len(self.edges)} edges>')


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, numpy.ndarray) and isinstance(b, numpy.ndarray) and a.shape == b.shape:
        return a + b
    return b if b is not None else a
