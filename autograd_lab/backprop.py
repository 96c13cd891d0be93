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

import heapq
import warnings
from typing import Any
from collections.abc import Iterable, Sequence

import numpy

from autograd_lab import backend
from autograd_lab import events as _events
from autograd_lab.configuration import config
from autograd_lab.function_hook import _state as _hook_state
from autograd_lab.function_node import FunctionNode
from autograd_lab.variable import Variable

_ndarray = numpy.ndarray


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
        self._leaves_get_grads = leaves_get_grads
        self._required = required
        self._input_nodes = set(input_nodes)
        self._retain_grad = retain_grad
        self._loss_scale = loss_scale
        self._grads: dict = {}
        self._results: dict = {}
        self._heap: list = []
        self._seen: set = set()
        self._undo: dict = {}
        self._failed: BaseException | None = None
        self._run_id: int | None = None  # set when observers are told about this backward
        self._mode = 'backward' if leaves_get_grads else 'grad'
        self._roots = tuple(node for node, _ in seeds)
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
        data = root._data
        if data is None:
            raise AttributeError('cannot run backward from an uninitialized variable '
                                 '(it has no array)')
        grad = root._grad_var if root._grad_var is not None else root._grad
        if grad is None:
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
            if root._node._creator_node is None:
                root._grad, root._grad_var = grad, None
        stepper = cls([(root._node, grad)], leaves_get_grads=True, retain_grad=retain_grad,
                      enable_double_backprop=enable_double_backprop, loss_scale=loss_scale)
        if root._node._creator_node is not None:
            stepper._remember(root)
            root._grad = root._grad_var = None  # the root's own grad is released like others
        else:
            root._loss_scale = loss_scale
        return stepper

    @classmethod
    def for_grad(cls, outputs: Sequence[Variable], inputs: Sequence[Variable],
                 grad_outputs: Sequence[Any] | None = None,
                 grad_inputs: Sequence[Any] | None = None, retain_grad: bool = False,
                 enable_double_backprop: bool = False,
                 loss_scale: float | None = None) -> BackwardStepper:
        """The stepper of :func:`grad`: only the paths from ``inputs`` to ``outputs``."""
        outputs, inputs = _check_sequence('outputs', outputs), _check_sequence('inputs', inputs)
        grad_outputs = _check_lengths('grad_outputs', grad_outputs, outputs)
        grad_inputs = _check_lengths('grad_inputs', grad_inputs, inputs)
        seeds = []
        for y, gy in zip(outputs, grad_outputs):
            if gy is None:
                gy = backend.get_array_module(y._data).ones_like(y._data)
                if loss_scale is not None:
                    gy *= loss_scale
            seeds.append((y._node, gy))
        seeds += [(x._node, gx) for x, gx in zip(inputs, grad_inputs) if gx is not None]
        input_nodes = [x._node for x in inputs]
        required = _nodes_between(outputs, input_nodes)
        return cls(seeds, leaves_get_grads=False, required=required, input_nodes=input_nodes,
                   retain_grad=retain_grad, enable_double_backprop=enable_double_backprop,
                   loss_scale=loss_scale)

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
        others = len(self._heap) - 1
        tie = [e for e in self._heap if e[2] is not func and e[2].rank == func.rank]
        text = (f'{func.label} (rank {func.rank}) has the highest rank of the '
                f'{others + 1} waiting function(s). Every function that used its outputs has a '
                'higher rank and has already run, so the gradients of its outputs are complete.')
        if tie:
            text += (f' {len(tie)} other function(s) share rank {func.rank}; among equals the '
                     'one that entered the frontier first goes first.')
        return text

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
            return
        if _events.active:  # observed: the same steps, announced one by one
            while not self.done:
                self._step(record=False)
            return
        heap, pop, run_function = self._heap, heapq.heappop, self._run_function
        old = config.enable_backprop
        config.enable_backprop = self._double
        try:
            while heap:
                run_function(pop(heap)[2], False)
        except BaseException as error:
            self._failed = error
            self._rollback()
            raise
        finally:
            config.enable_backprop = old

    def results(self, inputs: Sequence[Variable]) -> list:
        """The gradients w.r.t. ``inputs`` (for :func:`grad`), as Variables or None."""
        out = []
        for x in inputs:
            node = x._node
            g = self._results[node] if node in self._results else self._grads.get(node)
            out.append(_as_variable(g))
        return out

    def _step(self, record: bool) -> BackwardStep | None:
        if not self._heap or self._failed is not None:
            return None
        observed = _events.active
        if observed:
            self._announce_step(self._heap[0][2])
        func = heapq.heappop(self._heap)[2]
        try:
            old = config.enable_backprop
            config.enable_backprop = self._double
            if observed:
                _events._context.func_id = _events.uid(func)
            try:
                result = self._run_function(func, record or observed)
            finally:
                config.enable_backprop = old
                if observed:
                    _events._context.func_id = None
        except BaseException as error:
            self._failed = error
            self._rollback()
            if observed:
                _events.emit(_events.BackwardFinished(run_id=self._run_id, ok=False,
                                                      error=repr(error)))
            raise
        if observed:
            self._announce_done(result)
        return result

    # ---- telling observers (only while someone listens) ----------------------------------

    def _announce_step(self, func: FunctionNode) -> None:
        uid = _events.uid
        if self._run_id is None:
            self._run_id = next(_events._ids)
            _events.emit(_events.BackwardStarted(
                run_id=self._run_id, mode=self._mode, root_ids=tuple(uid(n) for n in self._roots),
                retain_grad=self._retain_grad, enable_double_backprop=self._double,
                loss_scale=self._loss_scale))
        outputs = [ref() for ref in func.outputs or ()]
        _events.emit(_events.BackwardStepStarted(
            run_id=self._run_id, func_id=uid(func), rank=func.rank,
            frontier_ids=tuple(uid(f) for f in self.frontier),
            grad_outputs=tuple(_events.snapshot(_raw(self._grads.get(n))) if n is not None
                               else None for n in outputs),
            reason=self.why_next()))

    def _announce_done(self, step: BackwardStep) -> None:
        uid = _events.uid
        func = step.function
        if func.outputs is not None and not self._retain_grad:
            for ref, gy in zip(func.outputs, step.grad_outputs):
                node = ref()
                if node is not None and gy is not None and node not in self._input_nodes:
                    _events.emit(_events.GradReleased(var_id=uid(node)))
        inputs = func.inputs or ()
        _events.emit(_events.BackwardStepDone(
            run_id=self._run_id, func_id=uid(func),
            target_input_ids=tuple(uid(inputs[i]) for i in step.target_input_indexes),
            grad_inputs=tuple(_events.snapshot(_raw(g)) for g in step.grad_inputs),
            accumulation=step.accumulation))
        if not self._heap:
            _events.emit(_events.BackwardFinished(run_id=self._run_id, ok=True))

    def _run_function(self, func: FunctionNode, record: bool) -> BackwardStep | None:
        grads = self._grads
        out_refs = func.outputs
        in_nodes = func.inputs
        if out_refs is None or in_nodes is None:  # unchained after it was pushed
            return BackwardStep(func, (), (), (), ()) if record else None
        gys = []
        for ref in out_refs:
            node = ref()
            gy = None
            if node is not None and node._creator_node is not None:
                gy = grads.pop(node, None)
                if node in self._input_nodes:
                    self._results[node] = gy
                elif self._retain_grad:
                    var = node._variable()
                    if var is not None:
                        self._remember(var)
                        var._set_grad_unchecked(gy)  # only leaves record _loss_scale
                        if _events.active:
                            _events.grad_changed(_events.GradSet, var)
            gys.append(gy)
        gys = tuple(gys)

        required = self._required
        targets = tuple([i for i, x in enumerate(in_nodes)
                         if x._requires_grad and (required is None or x in required)])
        if not targets:
            return BackwardStep(func, gys, (), (), ()) if record else None

        hooks = _hook_state.hooks
        if hooks or func._local_function_hooks:
            hooks = [*hooks.values(), *func.local_function_hooks.values()]
            in_data = tuple([x.data for x in in_nodes])
            out_grad = tuple([_raw(g) for g in gys])
            for hook in hooks:
                hook.backward_preprocess(func, in_data, out_grad)
        else:
            hooks = None

        if hooks is None and not self._double and hasattr(func, 'backward_arrays'):
            gxs = func.backward_arrays(targets, gys)
        else:
            gxs = self._backward_variables(func, targets, gys)

        gxs = _select_targets(func, gxs, targets)
        hooked = hooks is not None  # Chainer sums with F.add before backward_postprocess
        accumulation = [None] * len(targets) if record else None
        for k, i in enumerate(targets):
            gx = gxs[k]
            if gx is None:
                continue
            node = in_nodes[i]
            gx = self._check_grad(func, i, node, gx)
            if gx is None:
                continue
            if self._leaves_get_grads and node._creator_node is None:
                var = node._variable()
                if var is None:
                    continue
                self._remember(var)
                old = var._grad_var if var._grad_var is not None else var._grad
                if old is None:
                    var._set_grad_unchecked(gx)
                    how = 'set'
                else:
                    var._set_grad_unchecked(_add(old, gx, self._double, hooked))
                    how = 'added'
                var._loss_scale = self._loss_scale
                if _events.active:
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
            if record:
                accumulation[k] = how
        if hooked:
            for hook in hooks:
                hook.backward_postprocess(func, in_data, out_grad)
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
        if node.dtype is not None and array.dtype != node.dtype:
            raise TypeError(f'{_bug(func)}\nThe gradient of input {i} has dtype {array.dtype}, '
                            f'but the input has dtype {node.dtype}.')
        if node.shape is not None and array.shape != node.shape:
            raise ValueError(f'{_bug(func)}\nThe gradient of input {i} has shape {array.shape}, '
                             f'but the input has shape {node.shape}.')
        if self._double:
            return gx if isinstance(gx, Variable) else Variable(gx)
        return array

    # ---- bookkeeping ------------------------------------------------------------------

    def _push(self, func: FunctionNode | None) -> None:
        if func is not None and func not in self._seen:
            self._seen.add(func)
            heapq.heappush(self._heap, (-func.rank, len(self._seen), func))

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
        self._heap.clear()


def _bug(func: FunctionNode) -> str:
    return f'Function `{type(func).__name__}` ({func.label}) has a bug.'


def _raw(g: Any) -> Any:
    return g._data if isinstance(g, Variable) else g


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
    raise ValueError(f'{_bug(func)}\nbackward returned {len(gxs)} gradients; expected '
                     f'{n_in} (one per input) or {len(targets)} (one per target input).')


def _check_sequence(what: str, value: Any) -> list:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f'{what} must be a tuple or a list, not {type(value)}.')
    for v in value:
        if not isinstance(v, Variable):
            raise TypeError(f'{what} must contain Variables, not {type(v).__name__}')
    return list(value)


def _check_lengths(what: str, values: Sequence[Any] | None, against: list) -> list:
    if values is None:
        return [None] * len(against)
    if len(values) != len(against):
        raise ValueError(f'{what} must be of the same length as '
                         f"{'outputs' if what == 'grad_outputs' else 'inputs'}: "
                         f'{len(values)} != {len(against)}')
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
                                       retain_grad=retain_grad,
                                       enable_double_backprop=enable_double_backprop,
                                       loss_scale=loss_scale)
    stepper.run()
    gxs = stepper.results(inputs)
    for i, x in enumerate(inputs):
        if not x._requires_grad:
            gxs[i] = None
    if set_grad:
        for x, gx in zip(inputs, gxs):
            x.grad_var = gx
    return gxs


def backward(outputs: Iterable[Variable], grad_outputs: Sequence[Any] | None = None, *,
             enable_double_backprop: bool = False) -> None:
    """Backpropagate from several outputs at once, using their ``grad`` (experimental API).

    Outputs with no gradient (given or stored), and repeats, are skipped with a
    ``RuntimeWarning``. The non-leaf outputs' grads are released, as in ``Variable.backward``.
    """
    outputs = _check_sequence('outputs', outputs)
    grad_outputs = _check_lengths('grad_outputs', grad_outputs, outputs)
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
