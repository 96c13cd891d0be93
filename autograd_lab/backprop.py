"""Backward: Chainer's rank-ordered traversal as one resumable object.

:class:`BackwardStepper` is *the* backward algorithm of autograd_lab.
``Variable.backward()``, :func:`grad` and :func:`backward` build one and run it
to the end; a teaching front end builds the same object and calls
:meth:`~BackwardStepper.step` one function at a time.

The traversal, in Chainer's order:

1. The roots' gradients are seeded (ones for a one-element root, times
   ``loss_scale``) and their creators pushed on a max-heap keyed by rank (ties:
   first pushed, first out).
2. The function with the highest rank is popped.  Every function that used
   its outputs has a higher rank, so its output gradients are complete.  They
   are taken out of the table (intermediate gradients are released unless
   ``retain_grad``), its ``backward`` runs, and each input's gradient is added
   into the table, or straight into ``Variable.grad`` for leaves.
3. A creator is pushed the first time one of its outputs receives a gradient.

There is no recursion, so a 100,000-function chain needs no recursion limit.
A step that raises leaves every gradient as it was before the whole backward.

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array(2.0))
>>> y = x * x + x
>>> stepper = BackwardStepper.for_backward([y])
>>> [f.label for f in stepper.frontier]
['_ + _']
>>> stepper.step().function.label
'_ + _'
>>> stepper.step().function.label, stepper.done
('_ * _', True)
>>> x.grad
array(5.)
"""

from __future__ import annotations

import bisect
import heapq
import warnings
from typing import Any
from collections.abc import Iterable, Sequence

import numpy

from autograd_lab import backend
from autograd_lab import debug_mode as _debug_mode
from autograd_lab import function as _old_style
from autograd_lab.function import ARRAY_GRADS as _ARRAY_GRADS
from autograd_lab import events as _events
from autograd_lab.configuration import _BackpropModeContext, config
from autograd_lab import function_hook as _function_hook
from autograd_lab.function_node import FunctionNode, backward_scope
from autograd_lab.variable import Variable

_ndarray = numpy.ndarray
_SMALL = _events.SNAPSHOT_MAX_ELEMENTS  # arrays a group keeps as bytes (see events: groups)
_STEP_BEGIN, _STEP_END, _STEP = _events._STEP_BEGIN, _events._STEP_END, _events._STEP
_GRAD_SET, _GRAD_ACCUMULATED = _events._GRAD_SET, _events._GRAD_ACCUMULATED


class BackwardStep:
    """What one :meth:`BackwardStepper.step` did.

    Attributes:
        function: the FunctionNode whose backward ran.
        rank: its rank.
        grad_outputs: the gradients w.r.t. its outputs (arrays or Variables, None
            for outputs without a gradient).
        target_input_indexes: the inputs a gradient was computed for.
        grad_inputs: the gradients it produced, one per target (None: no gradient).
        accumulation: per target, ``'set'`` (first gradient of that variable),
            ``'added'`` (summed into an existing gradient), or None.
    """

    __slots__ = ('function', 'rank', 'grad_outputs', 'target_input_indexes', 'grad_inputs',
                 'accumulation')

    def __init__(self, function: FunctionNode, grad_outputs: tuple, targets: tuple,
                 grad_inputs: tuple, accumulation: tuple) -> None:
        self.function = function
        self.rank = function.rank
        self.grad_outputs = grad_outputs
        self.target_input_indexes = targets
        self.grad_inputs = grad_inputs
        self.accumulation = accumulation

    def __repr__(self) -> str:
        return (f'<BackwardStep {self.function.label!r} rank={self.rank} '
                f'targets={self.target_input_indexes} accumulation={self.accumulation}>')


class BackwardStepper:
    """Runs backward one FunctionNode at a time.  Build it with :meth:`for_backward`
    or :meth:`for_grad`; then call :meth:`step` until :attr:`done`, or :meth:`run`.
    """

    def __init__(self, seeds: Sequence[tuple], *, leaves_get_grads: bool,
                 required: set | None = None, input_nodes: Sequence = (),
                 retain_grad: bool = False, enable_double_backprop: bool = False,
                 loss_scale: float | None = None) -> None:
        self._double = bool(enable_double_backprop)
        self._debug = bool(config.debug)  # debug mode checks every backward (debug_mode)
        # Built-in nodes' array rule (backward_arrays) serves unless gradients must be
        # Variables: for double backprop, and for debug mode's checks.
        self._arrays_ok = not (self._double or self._debug)
        self._leaves_get_grads = leaves_get_grads
        self._required = required
        self._input_nodes = set(input_nodes)
        self._retain_grad = retain_grad
        self._loss_scale = loss_scale
        self._grads: dict = {}
        self._results: dict = {}
        self._heap: list = []
        # The smallest heap entries, sorted, for the frontier that step events list (see
        # ``_frontier_top``); None when not kept up to date.
        self._top: list | None = None
        self._seen: set = set()
        self._undo: dict = {}
        self._failed: str | None = None  # why a step failed (then the stepper is done)
        self._run_id: int | None = None  # set when observers are told about this backward
        # A step-begin group held back to go out with its step's end as one (see
        # ``_announce_step``), else None.
        self._pending: list | None = None
        # The bytes announced for a waiting grad as its step-end group stored it (see
        # ``_announce_done``), until its creator's step begins.
        self._frozen: dict = {}
        self._finished = False
        self._inputs: tuple = ()  # grad(): the variables whose gradients are asked for
        self._set_grad = False
        self._final: list | None = None  # grad()'s results, fixed when the stepper finishes
        self._mode = 'backward' if leaves_get_grads else 'grad'
        self._roots = tuple(node for node, _ in seeds)
        for k, (node, grad) in enumerate(seeds):
            _check_seed(k, node, grad)  # a bad seed is the caller's error, not a function's
        self._begin()  # announced before anything it makes (e.g. seed Variables)
        for node, grad in seeds:
            self._grads[node] = self._as_grad(grad)
        for node, _ in seeds:
            self._push(node._creator_node)

    # ---- construction --------------------------------------------------------------

    @classmethod
    def for_backward(cls, outputs: Sequence[Variable], retain_grad: bool = False,
                     enable_double_backprop: bool = False,
                     loss_scale: float | None = None) -> BackwardStepper:
        """The stepper of ``outputs[0].backward(...)`` (one root: Variable.backward)."""
        root, = outputs
        if _ARRAY_GRADS:  # an old-style Function's grad cannot be differentiated
            _old_style.check_old_style_gradient(root._node)
        data = root._data
        if data is None:
            raise AttributeError('cannot run backward from an uninitialized variable '
                                 '(it has no array)')
        grad = root._grad_var if root._grad_var is not None else root._grad
        if grad is None and data.size != 1 and not _computes_anything(root):
            seeded = False  # nothing requires a gradient: nothing to do (as Chainer)
        elif grad is None:
            if data.size != 1:
                raise TypeError(
                    f'backward() from a variable with {data.size} elements (shape {data.shape}) '
                    'needs an initial gradient: set y.grad to an array of that shape first, '
                    'or reduce y to one element (e.g. F.sum(y))')
            if data.ndim != 0:
                warnings.warn('Treating a variable with only one element as a scalar in '
                              'Variable.backward is deprecated. One element variable should '
                              'have 0-dimensional shape.', DeprecationWarning, stacklevel=3)
            grad = backend.get_array_module(data).ones_like(data)
            if loss_scale is not None:
                grad *= loss_scale
            seeded = True
        else:
            seeded = False
        stepper = cls([(root._node, grad)], leaves_get_grads=True, retain_grad=retain_grad,
                      enable_double_backprop=enable_double_backprop, loss_scale=loss_scale)
        if root._node._creator_node is not None:
            stepper._remember(root)
            root._grad = root._grad_var = None  # the root's own grad is released like others
        else:
            if seeded:  # backward() of a leaf: its gradient is the seed itself
                root._grad, root._grad_var = grad, None
                if _events.active:
                    _events.grad_changed(_events.GradSet, root)
            root._loss_scale = loss_scale
        stepper._finish_if_done()
        return stepper

    @classmethod
    def for_grad(cls, outputs: Sequence[Variable], inputs: Sequence[Variable],
                 grad_outputs: Sequence[Any] | None = None,
                 grad_inputs: Sequence[Any] | None = None, set_grad: bool = False,
                 retain_grad: bool = False, enable_double_backprop: bool = False,
                 loss_scale: float | None = None) -> BackwardStepper:
        """The stepper of :func:`grad` (same arguments): only the paths from ``inputs`` to
        ``outputs``.  When it finishes, :meth:`results` holds the gradients and, with
        ``set_grad``, they are stored in ``inputs[i].grad_var``, as :func:`grad` does.

        >>> import numpy as np, autograd_lab as chainer
        >>> x = chainer.Variable(np.array(3.0))
        >>> stepper = BackwardStepper.for_grad([x * x], [x], set_grad=True)
        >>> stepper.run()
        >>> stepper.results()[0].array, x.grad
        (array(6.), array(6.))
        """
        if _ARRAY_GRADS and isinstance(outputs, (tuple, list)):
            _old_style.check_old_style_graph(outputs)  # their grads cannot be differentiated
        outputs, inputs = _check_sequence('outputs', outputs), _check_sequence('inputs', inputs)
        grad_outputs = _check_lengths('grad_outputs', grad_outputs, outputs)
        grad_inputs = _check_lengths('grad_inputs', grad_inputs, inputs)
        seeds = []
        for y, gy in zip(outputs, grad_outputs):
            if gy is None:
                gy = backend.get_array_module(y._data).ones_like(y._data)
                if loss_scale is not None:
                    gy *= loss_scale
                if enable_double_backprop:  # a constant, as Chainer's: nothing flows into it
                    gy = Variable(gy, requires_grad=False)
            seeds.append((y._node, gy))
        seeds += [(x._node, gx) for x, gx in zip(inputs, grad_inputs) if gx is not None]
        input_nodes = [x._node for x in inputs]
        required = _nodes_between(outputs, input_nodes)
        stepper = cls(seeds, leaves_get_grads=False, required=required, input_nodes=input_nodes,
                      retain_grad=retain_grad, enable_double_backprop=enable_double_backprop,
                      loss_scale=loss_scale)
        stepper._inputs = tuple(inputs)
        stepper._set_grad = set_grad
        stepper._finish_if_done()
        return stepper

    # ---- what is next --------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True when no function is left to run (or a step failed)."""
        return not self._heap or self._failed is not None

    @property
    def frontier(self) -> list:
        """The functions waiting to run, in the order they will run."""
        return [entry[2] for entry in sorted(self._heap)]

    @property
    def next_function(self) -> FunctionNode | None:
        """The function the next :meth:`step` will run, or None when done."""
        return None if self.done else self._heap[0][2]

    def why_next(self) -> str:
        """A sentence explaining why :attr:`next_function` runs next."""
        func = self.next_function
        if func is None:
            return 'Backward is finished: no function is waiting.'
        return _reason(func.label, func.rank, len(self._heap), self._ties(func))

    def _ties(self, func: FunctionNode) -> int:
        key = -func.rank
        return sum(1 for entry in self._heap if entry[0] == key) - 1

    def pending_grad(self, node: Any) -> Any:
        """The gradient accumulated so far for VariableNode ``node`` (None if none yet)."""
        return self._grads.get(node)

    # ---- running --------------------------------------------------------------------

    def step(self) -> BackwardStep | None:
        """Run the next function's backward; return what it did (None when done)."""
        return self._step(record=True)

    def run(self) -> None:
        """Run every remaining step (the same steps as :meth:`step`, without records)."""
        if self.done:
            self._finish_if_done()
            return
        with _BackpropModeContext(self._double):  # grads build a graph only if double
            heap, pop, run_function = self._heap, heapq.heappop, self._run_function
            if _events.active:  # observed: the steps of _advance, announced one by one
                context, uid, announce = _events._context, _events.uid, self._announce_step
                outer = context.func_id
                try:
                    while heap:
                        announce(heap[0][2])
                        func = self._pop()
                        context.func_id = func._uid or uid(func)
                        run_function(func, False, True)
                except BaseException as error:
                    self._fail(error, True)
                    raise
                finally:
                    context.func_id = outer
                self._finish_if_done()
                return
            self._top = None  # these pops do not keep it
            try:
                while heap:
                    run_function(pop(heap)[2], False)
            except BaseException as error:
                self._fail(error, False)
                raise
        self._finish_if_done()

    def results(self, inputs: Sequence[Variable] | None = None) -> list:
        """The gradients w.r.t. ``inputs`` (default: :meth:`for_grad`'s), as Variables or
        None; None also for an input that does not require grad, as :func:`grad` returns."""
        if inputs is None and self._final is not None:
            return list(self._final)  # the same Variables every time, as grad() returned them
        out = []
        for x in self._inputs if inputs is None else inputs:
            node = x._node
            g = self._results[node] if node in self._results else self._grads.get(node)
            out.append(_as_variable(g) if x._requires_grad else None)
        return out

    def _step(self, record: bool) -> BackwardStep | None:
        if not self._heap or self._failed is not None:
            return None
        with _BackpropModeContext(self._double):
            return self._advance(record, _events.active)

    def _advance(self, record: bool, observed: bool) -> BackwardStep | None:
        """One step, with ``config.enable_backprop`` already set by the caller."""
        heap = self._heap
        if observed:
            self._announce_step(heap[0][2])
        func = self._pop()
        try:
            if observed:  # functions applied by this backward are tagged with it
                context = _events._context
                outer = context.func_id
                context.func_id = func._uid or _events.uid(func)
                try:
                    result = self._run_function(func, record, True)
                finally:
                    context.func_id = outer
            else:
                result = self._run_function(func, record)
        except BaseException as error:
            self._fail(error, observed)
            raise
        if not heap:
            self._finish_if_done()
        return result

    def _pop(self) -> FunctionNode:
        """Take the next function off the heap, keeping ``_top`` in step."""
        entry = heapq.heappop(self._heap)
        top = self._top
        if top is not None:  # the heap's smallest entry is the first of the sorted top
            if top and top[0] is entry:
                del top[0]
            else:
                self._top = None
        return entry[2]

    def _fail(self, error: BaseException, observed: bool) -> None:
        """A step raised: undo the whole backward, and say so."""
        self._failed = repr(error)  # not the error: its traceback holds this stepper
        if self._pending is not None:  # the step began: say so before undoing it
            self._flush_pending()
        self._rollback()
        if observed and self._run_id is not None:
            _events.emit(_events.BackwardFinished(run_id=self._run_id, ok=False,
                                                  error=repr(error)))

    def _finish_if_done(self) -> None:
        """Once no function is left: store ``set_grad`` results, then say it finished."""
        if self._finished or self._heap or self._failed is not None:
            return
        self._finished = True
        if self._inputs:
            self._final = self.results()
        if self._set_grad:
            for x, gx in zip(self._inputs, self._final):
                x.grad_var = gx
        if self._run_id is not None and _events._subscribers:
            _events.emit(_events.BackwardFinished(run_id=self._run_id, ok=True))

    # ---- telling observers (only while someone listens) ----------------------------------

    def _begin(self) -> None:
        """Tell subscribers this backward started (at most once per stepper)."""
        if self._run_id is not None or not (_events.active and _events._subscribers):
            return
        uid = _events.uid
        self._run_id = next(_events._ids)
        _events.emit(_events.BackwardStarted(
            run_id=self._run_id, mode=self._mode, root_ids=tuple(uid(n) for n in self._roots),
            retain_grad=self._retain_grad, enable_double_backprop=self._double,
            loss_scale=self._loss_scale))

    def _announce_step(self, func: FunctionNode) -> None:
        if not _events._subscribers:  # only FunctionHooks listen: no events to build
            return
        uid = _events.uid
        if self._run_id is None:
            self._begin()  # a subscriber may have arrived after the stepper was made
        heap = self._heap
        func_id = func._uid or uid(func)
        # One flat group (see events: groups); the sentence of ``reason`` is written only
        # if it is read.
        if len(heap) == 1:  # the common case of a chain: no sorting, no ties
            frontier, ties = [func_id], 0
        else:  # the first few in order, without sorting (or even reading) the whole heap
            first = self._frontier_top(_events.FRONTIER_MAX)
            frontier = [entry[2]._uid or uid(entry[2]) for entry in first]
            ties = sum(1 for entry in first if entry[0] == first[0][0]) - 1
        group = [_STEP_BEGIN, 1, _events._context.thread, self._run_id, func_id,
                 next(_events._seq), func.rank, func.label, len(heap), ties, _REASON_INDEX,
                 len(frontier), *frontier]
        outputs = func.outputs or ()
        group.append(len(outputs))
        extend, grads, frozen = group.extend, self._grads, self._frozen
        for ref in outputs:
            node = ref()
            g = None if node is None else grads.get(node)
            taken = frozen.pop(node, None) if frozen else None
            if type(g) is not _ndarray and g is not None:
                g = _raw(g)  # double backprop: kept flat as bytes like an array grad
            if taken is not None:  # the bytes its step-end group took: the same value
                extend((taken, node.dtype, node.shape))
            elif type(g) is _ndarray and g.size <= _SMALL and node.shape is not None \
                    and not g.dtype.hasobject:  # checked against the node when it was stored
                extend((g.tobytes(), node.dtype, node.shape))
            else:
                extend((_events._snap(g), None, None))
        # Held back when nothing can be announced before the step ends (arrays only: no
        # function applied, no hook) and a log is the only listener, which cannot tell:
        # the step then goes out as one group.
        if _events._deliver_group is not _events._emit_group and not self._double \
                and not _events._hook_count and hasattr(func, 'backward_arrays'):
            self._pending = group
        else:
            _events._deliver_group(tuple(group))

    def _flush_pending(self) -> None:
        """Send the held step-begin group on its own."""
        group, self._pending = self._pending, None
        _events._deliver_group(tuple(group))

    def _flush(self, inner: list) -> None:
        """Send the held step begin and the leaf-grad events noted so far (see
        ``_note_grad``), one by one, before something else is announced; None."""
        if self._pending is not None:
            self._flush_pending()
        for record in _events._inner_records(inner, 0, len(inner), _events._context.thread):
            _events._deliver(record)

    def _announce_done(self, func: FunctionNode, gys: tuple, targets: tuple, gxs: tuple,
                       accumulation: list | None, inner: list | None) -> None:
        """The step-end group: ``inner`` leaf-grad events, released grads, BackwardStepDone;
        with the held step-begin group in front, if any (see ``_announce_step``)."""
        uid = _events.uid
        inputs = func.inputs or ()
        group = self._pending
        if group is None:
            group = [_STEP_END, 0, _events._context.thread, self._run_id,
                     func._uid or uid(func)]
        else:
            self._pending = None
            group[0] = _STEP
        events = group[1] + 1  # the held begin's, and BackwardStepDone
        done_at = len(group)  # its seq comes after the released grads' (below)
        group += (0, len(targets))
        extend, frozen = group.extend, self._frozen
        for k, i in enumerate(targets):
            node, g = inputs[i], gxs[k]
            how = accumulation[k] if accumulation else None
            if type(g) is not _ndarray and g is not None:
                g = _raw(g)  # double backprop: kept flat as bytes like an array grad
            if type(g) is _ndarray and g.size <= _SMALL and node.shape is not None \
                    and not g.dtype.hasobject:  # checked against the node (_check_grad)
                value = g.tobytes()
                extend((node._uid or uid(node), how, value, node.dtype, node.shape))
            else:
                value = _events._snap(g)
                extend((node._uid or uid(node), how, value, None, None))
            if how is not None and node._creator_node is not None:  # a grad that waits for
                if how == 'set' and type(value) is bytes:  # its creator's step, whose begin
                    frozen[node] = value  # group shares these bytes
                else:
                    frozen.pop(node, None)
        n_inner = len(inner) // _events._INNER_FIELDS if inner else 0
        group.append(n_inner)
        if n_inner:
            extend(inner)
        at = len(group)
        group.append(0)
        if func.outputs is not None and not self._retain_grad:
            seq = _events._seq
            for ref, gy in zip(func.outputs, gys):
                node = ref()
                if node is not None and gy is not None and node not in self._input_nodes:
                    extend((next(seq), node._uid or uid(node)))
        released = (len(group) - at - 1) // 2
        group[at] = released
        group[1] = events + n_inner + released
        group[done_at] = next(_events._seq)
        _events._deliver_group(tuple(group))

    def _run_function(self, func: FunctionNode, record: bool,
                      observed: bool = False) -> BackwardStep | None:
        """Run ``func``'s backward; ``record``: return what it did; ``observed``: announce
        it (the step-begin group is the caller's)."""
        if self._double:  # the functions applied now compute gradients (grad-of-grad)
            with backward_scope(func):
                return self._run_backward(func, record, observed)
        return self._run_backward(func, record, observed)

    def _run_backward(self, func: FunctionNode, record: bool,
                      observed: bool) -> BackwardStep | None:
        announce = observed and self._run_id is not None and bool(_events._subscribers)
        # Announced leaf grads join the step-end group, unless the sums below are functions
        # (double backprop, hooks) whose events must come between them: then each goes out
        # at once.
        inner = [] if announce and not self._double and not _events._hook_count else None
        grads = self._grads
        out_refs = func.outputs
        in_nodes = func.inputs
        if out_refs is None or in_nodes is None:  # unchained after it was pushed
            if announce:
                self._announce_done(func, (), (), (), None, None)
            return BackwardStep(func, (), (), (), ()) if record else None
        gys = []
        for ref in out_refs:
            node = ref()
            gy = None
            if node is not None and node._creator_node is not None:
                gy = grads.pop(node, None)
                if node in self._input_nodes:
                    self._results[node] = gy
                if self._retain_grad:  # inputs too: grad(retain_grad=True) sets their grad
                    var = node._variable()
                    if var is not None:
                        self._remember(var)
                        kept = self._undo[node][2]  # a root's own grad_var stays that object
                        var._set_grad_unchecked(  # (only leaves record _loss_scale)
                            kept if kept is not None and kept._data is gy else gy)
                        if self._pending is not None:  # held: nothing comes between
                            _note_grad(inner, var, 'set')
                        elif _events.active:
                            _events.grad_changed(_events.GradSet, var)
            gys.append(gy)
        gys = tuple(gys)

        required = self._required
        targets = tuple([i for i, x in enumerate(in_nodes)
                         if x._requires_grad and (required is None or x in required)])
        if not targets:
            if announce:
                self._announce_done(func, gys, (), (), None, None)
            return BackwardStep(func, gys, (), (), ()) if record else None

        # The same observation switch as events: hooks are looked up only while it is on.
        hooks = (_function_hook.hooks_of(func) if _events._hook_count else None) \
            if _events.active else None
        if hooks is not None:
            in_data = tuple([x.data for x in in_nodes])
            out_grad = tuple([_raw(g) for g in gys])
            _function_hook.backward_preprocess(hooks, func, in_data, out_grad)

        try:
            if hooks is None and self._arrays_ok and hasattr(func, 'backward_arrays'):
                gxs = func.backward_arrays(targets, gys)
            else:
                gxs = self._backward_variables(func, targets, gys)
        except Exception as error:
            if func.stack is not None:  # applied in debug mode: say where it was applied
                _debug_mode.add_stack(func, error)
            raise
        if self._debug:
            _debug_mode.check_backward(func, targets, gxs, self._grad_so_far)

        gxs = _select_targets(func, gxs, targets)
        hooked = hooks is not None  # Chainer sums with F.add before backward_postprocess
        accumulation = [None] * len(targets) if record or announce else None
        for k, i in enumerate(targets):
            gx = gxs[k]
            if gx is None:
                continue
            node = in_nodes[i]
            gx = self._check_grad(func, i, node, gx)
            if gx is None:
                continue
            if self._leaves_get_grads and node._creator_node is None:
                if _ARRAY_GRADS:  # an old-style Function's grad cannot get one
                    _old_style.check_old_style_gradient(node)
                var = node._variable()
                if var is None:
                    continue
                self._remember(var)
                old = var._grad_var if var._grad_var is not None else var._grad
                if old is None:
                    var._set_grad_unchecked(gx)
                    how = 'set'
                else:
                    if inner is not None and old is var._grad_var:  # a Variable: the sum
                        inner = self._flush(inner)  # is a function, announced at once
                    var._set_grad_unchecked(_add(old, gx, self._double, hooked))
                    how = 'added'
                var._loss_scale = self._loss_scale
                if inner is not None:
                    _note_grad(inner, var, how)
                elif _events.active:
                    _events.grad_changed(_events.GradSet if how == 'set'
                                         else _events.GradAccumulated, var)
            else:
                old = grads.get(node)
                if old is None:
                    grads[node] = gx
                    how = 'set'
                    self._push(node._creator_node)
                else:
                    grads[node] = _add(old, gx, self._double, hooked)
                    how = 'added'
            if accumulation is not None:
                accumulation[k] = how
        if hooked:
            _function_hook.backward_postprocess(hooks, func, in_data, out_grad)
        if announce:
            self._announce_done(func, gys, targets, gxs, accumulation, inner)
        if record:
            return BackwardStep(func, gys, targets, tuple(gxs), tuple(accumulation))
        return None

    def _backward_variables(self, func: FunctionNode, targets: tuple, gys: tuple) -> tuple:
        gy_vars = tuple([_as_variable(g) for g in gys])
        if type(func).backward_accumulate is not FunctionNode.backward_accumulate:
            current = []
            for i in targets:
                node = func.inputs[i]
                var = node._variable() if self._leaves_get_grads and \
                    node._creator_node is None else None
                if var is not None:  # a leaf's stored grad is handed over too (as Chainer)
                    self._remember(var)
                    g = var._grad_var if var._grad_var is not None else var._grad
                    var._grad = var._grad_var = None
                else:
                    g = self._grads.pop(node, None)
                current.append(_as_variable(g))
            return func.backward_accumulate(targets, gy_vars, tuple(current))
        return func.backward(targets, gy_vars)

    def _grad_so_far(self, node: Any) -> Any:
        """The gradient accumulated for input ``node`` before this step, as an array or None."""
        if self._leaves_get_grads and node._creator_node is None:
            var = node._variable()
            g = None if var is None else var._grad_var if var._grad_var is not None \
                else var._grad
        else:
            g = self._grads.get(node)
        return _raw(g)

    def _check_grad(self, func: FunctionNode, i: int, node: Any, gx: Any) -> Any:
        """Validate one returned gradient; return it in this stepper's storage form."""
        if isinstance(gx, Variable):
            array = gx._data
            if array is None:
                return None
        elif type(gx) is _ndarray or backend.is_array(gx):
            array = gx
        elif isinstance(gx, numpy.generic):  # NumPy turns 0-d results into scalars
            array = gx = numpy.asarray(gx)
        else:
            raise TypeError(f'{_bug(func)}\nIts backward returned a {type(gx).__name__} as the '
                            f'gradient of input {i}; expected a Variable, an array or None.')
        if (array.dtype != node.dtype and node.dtype is not None) or \
                (array.shape != node.shape and node.shape is not None):  # message made only then
            _check_like(array, node, f'{_bug(func)}\nThe gradient of input {i}', 'the input',
                        '.')
        if self._double:
            return gx if isinstance(gx, Variable) else Variable(gx)
        return array

    # ---- bookkeeping ------------------------------------------------------------------

    def _push(self, func: FunctionNode | None) -> None:
        if func is not None and func not in self._seen:
            self._seen.add(func)
            entry = (-func.rank, len(self._seen), func)
            heapq.heappush(self._heap, entry)
            if self._top is not None:
                self._top_add(entry)

    # The frontier of a step event lists the first FRONTIER_MAX waiting functions.  With
    # many waiting (double backprop: hundreds), finding them at every step cost more than
    # the step itself, so the smallest entries are kept sorted between steps in ``_top``:
    # every heap entry not in it is larger than its last one.  A pop takes its first
    # entry, a push goes in only if it is smaller than its last (or it holds the whole
    # heap); it is refilled from the heap when it runs short.

    def _frontier_top(self, k: int) -> list:
        """The ``k`` smallest heap entries, in order (``_heap_top``, kept between steps)."""
        top, heap = self._top, self._heap
        if top is None or (len(top) < k and len(top) < len(heap)):
            top = self._top = _heap_top(heap, 2 * k)
        return top[:k]

    def _top_add(self, entry: tuple) -> None:
        top = self._top
        if len(top) == len(self._heap) - 1 or (top and entry < top[-1]):
            bisect.insort(top, entry)
            if len(top) > 2 * _events.FRONTIER_MAX:
                del top[-1]

    def _as_grad(self, g: Any) -> Any:
        if g is None:
            return None
        if self._double:
            return g if isinstance(g, Variable) else Variable(g)
        return g._data if isinstance(g, Variable) else g

    def _remember(self, var: Variable) -> None:
        node = var._node
        if node not in self._undo:
            self._undo[node] = (var, var._grad, var._grad_var, var._loss_scale)

    def _rollback(self) -> None:
        for var, grad, grad_var, loss_scale in self._undo.values():
            var._grad, var._grad_var, var._loss_scale = grad, grad_var, loss_scale
            if _events.active:
                _events.grad_changed(_events.GradRestored, var)
        self._undo.clear()
        self._grads.clear()
        self._frozen.clear()
        self._heap.clear()
        self._top = None


def _computes_anything(root: Variable) -> bool:
    """Whether a backward from ``root`` would compute any gradient (its creator has an input
    that requires one)."""
    creator = root._node._creator_node
    return creator is not None and any(x._requires_grad for x in creator.inputs or ())


def _check_like(array: Any, node: Any, what: str, owner: str, end: str = '') -> None:
    """Raise unless ``array`` has ``node``'s dtype and shape (where the node knows them)."""
    if node.dtype is not None and array.dtype != node.dtype:
        raise TypeError(f'{what} has dtype {array.dtype}, but {owner} has dtype '
                        f'{node.dtype}{end}')
    if node.shape is not None and array.shape != node.shape:
        raise ValueError(f'{what} has shape {array.shape}, but {owner} has shape '
                         f'{node.shape}{end}')


def _check_seed(k: int, node: Any, grad: Any) -> None:
    """Reject an initial gradient that cannot belong to ``node`` before any work is done.

    Without this a wrong ``grad_outputs`` entry surfaced later as an obscure error
    blaming a built-in function's backward.
    """
    if grad is None:
        return
    array = grad._data if isinstance(grad, Variable) else grad
    if not backend.is_array(array):
        raise TypeError(f'the initial gradient {k} must be an array or a Variable, '
                        f'not {type(array).__name__}')
    _check_like(array, node, f'the initial gradient {k}', 'its variable')
    var = node._variable()
    data = var._data if var is not None else node.data
    if data is not None and backend.get_array_module(data) is not \
            backend.get_array_module(array):
        raise TypeError(f'the initial gradient {k} is on '
                        f'{backend.get_device_from_array(array)}, but its variable is on '
                        f'{backend.get_device_from_array(data)}')


def _heap_top(heap: list, k: int) -> list:
    """The ``k`` smallest entries of a binary heap, in order, in O(k log k)."""
    size = len(heap)
    if size <= k:
        return sorted(heap)
    push, pop = heapq.heappush, heapq.heappop
    out: list = []
    append = out.append
    candidates = [(heap[0], 0)]  # entries whose parents are already out, by heap position
    while len(out) < k:
        entry, i = pop(candidates)
        append(entry)
        child = 2 * i + 1
        if child < size:
            push(candidates, (heap[child], child))
            if child + 1 < size:
                push(candidates, (heap[child + 1], child + 1))
    return out


def _reason(label: str, rank: int, waiting: int, ties: int) -> str:
    text = (f'{label} (rank {rank}) has the highest rank of the {waiting} waiting '
            'function(s). Every function that used its outputs has a higher rank and has '
            'already run, so the gradients of its outputs are complete.')
    if ties:
        text += (f' {ties} other function(s) share rank {rank}; among equals the one that '
                 'entered the frontier first goes first.')
    return text


# BackwardStepStarted.reason is written only if read: a step-begin group names this
# lazy function, which the reader calls with (label, rank, waiting, ties).
_REASON_INDEX = _events.lazy(_reason)[1]


def _bug(func: FunctionNode) -> str:
    return f'Function `{type(func).__name__}` ({func.label}) has a bug.'


def _raw(g: Any) -> Any:
    return g._data if isinstance(g, Variable) else g


def _note_grad(inner: list, var: Variable, how: str) -> None:
    """Add a leaf's GradSet/GradAccumulated to a step-end group's fields (see events)."""
    node, g = var._node, var._grad  # not double backprop: the grad is an array
    if type(g) is _ndarray and g.size <= _SMALL and g.shape == node.shape \
            and not g.dtype.hasobject:
        value, dtype, shape = g.tobytes(), node.dtype, node.shape
    else:
        value, dtype, shape = _events._snap(g if g is not None else var._grad_var), \
            None, None
    inner.extend((_GRAD_SET if how == 'set' else _GRAD_ACCUMULATED, next(_events._seq),
                  node._uid or _events.uid(node), value, dtype, shape))


def _as_variable(g: Any) -> Variable | None:
    if g is None or isinstance(g, Variable):
        return g
    return Variable(g)


def _add(a: Any, b: Any, double: bool, hooked: bool = False) -> Any:
    if double or hooked:  # hooked: the sum is an F.add the hooks see, as in Chainer
        from autograd_lab.functions.arithmetic import add  # noqa: PLC0415 - cycle
        s = add(a, b)
        return s if double else s._data
    s = a + b
    return numpy.asarray(s) if isinstance(s, numpy.generic) else s  # 0-d stays an array


def _select_targets(func: FunctionNode, gxs: Any, targets: tuple) -> tuple:
    if not isinstance(gxs, (tuple, list)):
        raise TypeError(f'{_bug(func)}\nbackward must return a tuple, not {type(gxs).__name__}.')
    n_in = len(func.inputs)
    if len(gxs) == len(targets):
        return tuple(gxs)
    if len(gxs) == n_in:
        return tuple([gxs[i] for i in targets])
    raise ValueError(_debug_mode.error_message(
        func, _debug_mode.wrong_count_message(func, len(gxs), targets)))


def _check_sequence(what: str, value: Any) -> list:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f'{what} must be a tuple or a list, not {type(value)}.')
    for v in value:
        if not isinstance(v, Variable):
            raise TypeError(f'{what} must contain Variables, not {type(v).__name__}')
    return list(value)


def _check_lengths(what: str, values: Sequence[Any] | None, against: list,
                   kinds: str = 'a tuple or a list or None') -> list:
    if values is None:
        return [None] * len(against)
    if not isinstance(values, (tuple, list)):
        raise TypeError(f'{what} must be {kinds}, not {type(values)}.')
    if len(values) != len(against):
        of = 'outputs' if what == 'grad_outputs' else 'inputs'
        raise ValueError(f'{what} must be of the same length as {of}.\n'
                         f'len({of}) = {len(against)}, len({what}) = {len(values)}')
    return list(values)


def _nodes_between(outputs: Sequence[Variable], input_nodes: Sequence[Any]) -> set:
    """VariableNodes that lie on a path from an input node to an output."""
    funcs = []
    seen = set()
    stack = [y._node._creator_node for y in outputs]
    while stack:
        func = stack.pop()
        if func is None or func in seen or func.inputs is None:
            continue
        seen.add(func)
        funcs.append(func)
        stack.extend(x._creator_node for x in func.inputs)
    required = set(input_nodes)
    funcs.sort(key=lambda f: f.rank)
    for func in funcs:
        if any(x in required for x in func.inputs):
            for ref in func.outputs:
                node = ref()
                if node is not None:
                    required.add(node)
    return required


def grad(outputs: Sequence[Variable], inputs: Sequence[Variable],
         grad_outputs: Sequence[Any] | None = None,
         grad_inputs: Sequence[Any] | None = None, set_grad: bool = False,
         retain_grad: bool = False, enable_double_backprop: bool = False,
         loss_scale: float | None = None) -> list:
    """Gradients of ``outputs`` w.r.t. ``inputs``, without touching ``inputs[i].grad``.

    Every missing ``grad_outputs`` entry is seeded with ones, whatever the shape.
    Returns a list with one Variable (or None when unreachable) per input.
    ``set_grad=True`` also stores them in ``inputs[i].grad_var`` (overwriting).

    >>> import numpy as np, autograd_lab as chainer
    >>> x = chainer.Variable(np.array(3.0))
    >>> gx, = chainer.grad([x ** 3], [x], enable_double_backprop=True)
    >>> gx.array, chainer.grad([gx], [x])[0].array
    (array(27.), array(18.))
    """
    stepper = BackwardStepper.for_grad(outputs, inputs, grad_outputs, grad_inputs,
                                       set_grad=set_grad, retain_grad=retain_grad,
                                       enable_double_backprop=enable_double_backprop,
                                       loss_scale=loss_scale)
    stepper.run()
    return stepper.results()


def backward(outputs: Iterable[Variable], grad_outputs: Sequence[Any] | None = None, *,
             enable_double_backprop: bool = False) -> None:
    """Backpropagate from several outputs at once, using their ``grad`` (experimental API).

    Outputs with no gradient (given or stored), and repeats, are skipped with a
    ``RuntimeWarning``. The non-leaf outputs' grads are released, as in ``Variable.backward``.
    """
    outputs = _check_sequence('outputs', outputs)
    grad_outputs = _check_lengths('grad_outputs', grad_outputs, outputs,
                                  'None, a tuple, or a list')  # (Chainer's words here)
    seeds = []
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            gy = y._grad_var if y._grad_var is not None else y._grad
        if gy is None or any(y._node is node for node, _ in seeds):
            warnings.warn(f'backward: output {y.summary()} has no gradient or is repeated, '
                          'and is skipped', RuntimeWarning, stacklevel=2)
            continue
        seeds.append((y._node, gy))
    if not seeds:
        return
    stepper = BackwardStepper(seeds, leaves_get_grads=True,
                              enable_double_backprop=enable_double_backprop)
    for y in outputs:
        if y._node._creator_node is not None:  # as in Variable.backward: roots' grads released
            stepper._remember(y)
            y._grad = y._grad_var = None
    stepper.run()
