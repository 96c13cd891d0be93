"""Backward: Chainer's rank-ordered traversal as one resumable object.

:class:`BackwardStepper` is *the* backward algorithm of autograd_lab.
``Variable.backward()``, :func:`grad` and :func:`backward` build one and run it
to the end; a teaching front end builds the same object and calls
:meth:`~BackwardStepper.step` one function at a time.

The traversal, in Chainer's order:

1. The roots' gradients are seeded (ones for a one-element root, times
   ``loss_scale``) into a table of gradients, and their creators pushed on the
   :class:`Frontier`, a max-heap keyed by rank (ties: first pushed, first out).
2. The function with the highest rank is popped.  Every function that used
   its outputs has a higher rank, so its output gradients are complete.  They
   are taken out of the table (intermediate gradients are released unless
   ``retain_grad``), its ``backward`` runs, and each input's gradient is added
   into the table, or straight into ``Variable.grad`` for leaves.
3. A creator is pushed the first time one of its outputs receives a gradient.

There is no recursion, so a 100,000-function chain needs no recursion limit.
A step that raises leaves every gradient as it was before the whole backward.
In debug mode (``chainer.using_config('debug', True)``) what each backward returns
is checked too (:func:`~autograd_lab.backward_checks.check_debug`).  Under double
backprop the functions a backward applies compute gradients of gradients: they are
marked so (:class:`~autograd_lab.function_node.backward_scope`).

Observers are told what happens through ``autograd_lab.events.recorder`` (None
while nobody listens): one call when backward starts, when each step starts and
is done, when a leaf's gradient changes, and when backward finishes.

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

from typing import Any
from collections.abc import Iterable, Sequence

import numpy

from autograd_lab import events as _events
from autograd_lab import function_hook as _function_hook
from autograd_lab.backward_run import BackwardRequest, Ending, SavedGrad
from autograd_lab.backward_checks import (
    backward_seeds, check_debug, check_seed, checked_grad, grad_seeds, root_seed, select_targets,
)
from autograd_lab.configuration import _BackpropModeContext, config
from autograd_lab.debug_mode import add_stack
from autograd_lab.frontier import Frontier, nodes_between
from autograd_lab.function import ARRAY_GRADS, check_old_style_gradient
from autograd_lab.function_node import FunctionNode, backward_scope
from autograd_lab.variable import Variable


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

    def __init__(self, request: BackwardRequest) -> None:
        self._double = request.enable_double_backprop
        self._debug = bool(config.debug)  # debug mode: what each backward returns is checked
        self._arrays_ok = not (self._double or self._debug)  # else gradients are Variables
        self._leaves_get_grads = request.inputs is None  # backward(): leaves' grads are set
        self._required = request.required
        self._input_nodes = {x._node for x in request.inputs or ()}
        self._retain_grad = request.retain_grad
        self._loss_scale = request.loss_scale  # stored on each leaf whose grad it sets
        self._request = request
        self._grads: dict = {}  # VariableNode -> its gradient so far (the grad table)
        self._results: dict = {}  # grad(): the inputs' gradients, taken out of the table
        self._frontier = Frontier()
        self._saved: dict[Any, SavedGrad] = {}  # VariableNode -> its grad before this backward
        self._recorded: Any = None  # what the recorder keeps about this backward, once told
        self._ending: Ending | None = None  # how it ended; None while functions are left
        seeds = request.seeds
        for k, (node, grad) in enumerate(seeds):
            check_seed(k, node, grad)  # a bad seed is the caller's error, not a function's
        if _events.recorder is not None:  # told before anything it makes (seed Variables)
            self._announced(_events.recorder)
        for node, grad in seeds:
            self._grads[node] = self._as_grad(grad)
        for node, _ in seeds:
            self._frontier.push(node._creator_node)

    # ---- construction --------------------------------------------------------------

    @classmethod
    def for_backward(cls, outputs: Sequence[Variable], retain_grad: bool = False,
                     enable_double_backprop: bool = False,
                     loss_scale: float | None = None) -> BackwardStepper:
        """The stepper of ``outputs[0].backward(...)`` (one root: Variable.backward)."""
        root, = outputs
        grad, seeded = root_seed(root, loss_scale)  # its own grad, or ones (times loss_scale)
        stepper = cls(BackwardRequest(((root._node, grad),), retain_grad=retain_grad,
                                      enable_double_backprop=bool(enable_double_backprop),
                                      loss_scale=loss_scale))
        if root._node._creator_node is not None:
            stepper._remember(root)
            root._grad = root._grad_var = None  # the root's own grad is released like others
        else:
            if seeded:  # backward() of a leaf: its gradient is the seed itself
                root._grad, root._grad_var = grad, None
                if _events.recorder is not None:
                    _events.recorder.grad_changed(_events.GradSet, root)
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
        outputs, inputs, seeds = grad_seeds(outputs, inputs, grad_outputs, grad_inputs,
                                            loss_scale, enable_double_backprop)  # ones if none
        required = nodes_between(outputs, [x._node for x in inputs])
        stepper = cls(BackwardRequest(tuple(seeds), inputs=tuple(inputs), required=required,
                                      set_grad=set_grad, retain_grad=retain_grad,
                                      enable_double_backprop=bool(enable_double_backprop),
                                      loss_scale=loss_scale))
        stepper._finish_if_done()
        return stepper

    # ---- what is next --------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True when no function is left to run (or a step failed)."""
        return self._ending is not None

    @property
    def frontier(self) -> list:
        """The functions waiting to run, in the order they will run."""
        return self._frontier.ordered()

    @property
    def next_function(self) -> FunctionNode | None:
        """The function the next :meth:`step` will run, or None when done."""
        return None if self.done else self._frontier.head(1)[0]

    def why_next(self) -> str:
        """A sentence explaining why :attr:`next_function` runs next."""
        func = self.next_function
        if func is None:
            return 'Backward is finished: no function is waiting.'
        return _events.step_reason(func.label, func.rank, len(self._frontier),
                                   self._frontier.ties(func))

    def pending_grad(self, node: Any) -> Any:
        """The gradient accumulated so far for VariableNode ``node`` (None if none yet)."""
        return self._grads.get(node)

    # ---- running --------------------------------------------------------------------

    def step(self) -> BackwardStep | None:
        """Run the next function's backward; return what it did (None when done)."""
        if self.done:
            return None
        return self._steps(all_of_them=False)

    def run(self) -> None:
        """Run every remaining step (the same steps as :meth:`step`, without records)."""
        if not self.done:
            self._steps(all_of_them=True)
        self._finish_if_done()

    def abandon(self, reason: str = 'abandoned') -> None:
        """Undo the steps run so far (every grad as before this backward) and end it,
        as a failed step would (``reason`` is its failure); nothing when it is done."""
        if not self.done:
            self._fail(RuntimeError(reason), _events.recorder)

    def results(self, inputs: Sequence[Variable] | None = None) -> list:
        """The gradients w.r.t. ``inputs`` (default: :meth:`for_grad`'s), as Variables or
        None; None also for an input that does not require grad, as :func:`grad` returns."""
        if inputs is None and self._ending is not None and self._ending.results is not None:
            return list(self._ending.results)  # the same Variables every time, as grad() gave
        out = []
        for x in (self._request.inputs or ()) if inputs is None else inputs:
            node = x._node
            g = self._results[node] if node in self._results else self._grads.get(node)
            out.append(_as_variable(g) if x._requires_grad else None)
        return out

    # ---- one step -------------------------------------------------------------------

    def _steps(self, all_of_them: bool) -> BackwardStep | None:
        """Run the next function's backward (or every one's, without records); a failure
        undoes the whole backward."""
        frontier = self._frontier
        step = recorder = None
        with _BackpropModeContext(self._double):  # grads build a graph only if double
            try:
                while frontier:
                    recorder = _events.recorder  # read at each step: listeners come and go
                    step = self._run_function(frontier.take(), recorder, not all_of_them)
                    if not all_of_them:
                        break
            except BaseException as error:
                self._fail(error, recorder)
                raise
            if not frontier:
                self._finish_if_done()
        return step

    def _run_function(self, func: FunctionNode, recorder: Any,
                      record: bool) -> BackwardStep | None:
        """Run ``func``'s backward (under double backprop in its :class:`backward_scope`: the
        functions applied meanwhile compute gradients of gradients)."""
        if self._double:
            with backward_scope(func):
                return self._run_backward(func, recorder, record)
        return self._run_backward(func, recorder, record)

    def _run_backward(self, func: FunctionNode, recorder: Any,
                      record: bool) -> BackwardStep | None:
        """Run ``func``'s backward: its output gradients in, its inputs' gradients out."""
        # Its outputs' gradients are complete (every function that used them has run):
        # take them out of the table.  grad()'s inputs keep theirs as its results; the
        # recorder is told which others are dropped (unless retain_grad keeps them).
        gys = []
        released = [] if recorder is not None else None
        for ref in func.outputs or ():
            node = ref()
            gy = None
            if node is not None and node._creator_node is not None:
                gy = self._grads.pop(node, None)
                if node in self._input_nodes:
                    self._results[node] = gy
                elif released is not None and gy is not None and not self._retain_grad:
                    released.append(node)
            gys.append(gy)
        gys = tuple(gys)
        if recorder is not None:
            recorder.step_started(self._recorded or self._announced(recorder), func,
                                  self._frontier, gys)
        if self._retain_grad:
            self._retain(func, gys, recorder)
        required = self._required
        targets = () if func.inputs is None or func.outputs is None else tuple(  # unchained
            [i for i, x in enumerate(func.inputs)
             if x._requires_grad and (required is None or x in required)])
        hooks = _function_hook.hooks_of(func) if _function_hook.registered and targets \
            else None
        if hooks is not None:
            in_data = tuple([x.data for x in func.inputs])
            out_grad = tuple([_raw(g) for g in gys])
            _function_hook.backward_preprocess(hooks, func, in_data, out_grad)
        gxs = select_targets(func, self._backward(func, targets, gys, hooks), targets) \
            if targets else ()
        accumulation = self._accumulate(func, targets, gxs, hooks is not None, recorder)
        if hooks is not None:
            _function_hook.backward_postprocess(hooks, func, in_data, out_grad)
        if recorder is not None:
            recorder.step_done(self._recorded, func, targets, gxs, accumulation, released)
        return BackwardStep(func, gys, targets, gxs, tuple(accumulation)) if record else None

    def _accumulate(self, func: FunctionNode, targets: tuple, gxs: tuple, hooked: bool,
                    recorder: Any) -> list:
        """Add each input's gradient into the table (a leaf's into its ``grad``); say per
        target how: ``'set'``, ``'added'``, or None (no gradient)."""
        how = []
        grads = self._grads
        for i, gx in zip(targets, gxs):
            node = func.inputs[i]
            if gx is not None:
                gx = checked_grad(func, i, node, gx, self._double)
            if gx is None:
                how.append(None)
            elif self._leaves_get_grads and node._creator_node is None:
                how.append(self._accumulate_leaf(node, gx, hooked, recorder))
            elif grads.get(node) is None:
                grads[node] = gx
                self._frontier.push(node._creator_node)  # its creator can run after this one
                how.append('set')
            else:
                grads[node] = _add(grads[node], gx, self._double, hooked)
                how.append('added')
        return how

    def _accumulate_leaf(self, node: Any, gx: Any, hooked: bool, recorder: Any) -> str | None:
        if ARRAY_GRADS:  # an old-style Function's grad has no graph: it cannot get one
            check_old_style_gradient(node)
        var = node._variable()
        if var is None:
            return None
        self._remember(var)
        old = var._grad_var if var._grad_var is not None else var._grad
        var._set_grad_unchecked(gx if old is None else _add(old, gx, self._double, hooked))
        var._loss_scale = self._loss_scale
        if recorder is not None:
            recorder.grad_changed(_events.GradSet if old is None else _events.GradAccumulated,
                                  var)
        return 'set' if old is None else 'added'

    def _retain(self, func: FunctionNode, gys: tuple, recorder: Any) -> None:
        """``retain_grad``: the gradients of ``func``'s outputs are kept in their Variables
        (grad()'s inputs too; a root keeps its own grad_var object)."""
        for ref, gy in zip(func.outputs or (), gys):
            node = ref()
            if node is None or node._creator_node is None:
                continue
            var = node._variable()
            if var is not None:
                self._remember(var)
                kept = self._saved[node].grad_var  # a root's own grad_var stays that object
                # (only leaves record _loss_scale)
                var._set_grad_unchecked(kept if kept is not None and kept._data is gy else gy)
                if recorder is not None:
                    recorder.grad_changed(_events.GradSet, var)

    def _backward(self, func: FunctionNode, targets: tuple, gys: tuple, hooks: Any) -> Any:
        """What ``func``'s backward returns for ``targets``: by its array rule where it has
        one, else on Variables (the gradients get a graph of their own, hooks see sums, debug
        mode checks them)."""
        try:
            if hooks is None and self._arrays_ok and hasattr(func, 'backward_arrays'):
                return func.backward_arrays(targets, gys)
            gxs = self._backward_variables(func, targets, gys)
        except Exception as error:
            add_stack(func, error)  # applied in debug mode: where it was applied
            raise
        if self._debug:
            check_debug(func, targets, gxs, self._grads, self._leaves_get_grads)
        return gxs

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

    # ---- bookkeeping ------------------------------------------------------------------

    def _as_grad(self, g: Any) -> Any:
        if g is None:
            return None
        if self._double:
            return g if isinstance(g, Variable) else Variable(g)
        return g._data if isinstance(g, Variable) else g

    def _remember(self, var: Variable) -> None:
        node = var._node
        if node not in self._saved:
            self._saved[node] = SavedGrad(var, var._grad, var._grad_var, var._loss_scale)

    def _announced(self, recorder: Any) -> Any:
        """What ``recorder`` keeps about this backward, telling it first that it started (a
        subscriber may arrive after the stepper was made)."""
        if self._recorded is None:
            request = self._request
            self._recorded = recorder.backward_started(
                request.mode, tuple(node for node, _ in request.seeds), request.retain_grad,
                request.enable_double_backprop, request.loss_scale)
        return self._recorded

    def _fail(self, error: BaseException, recorder: Any) -> None:
        """A step raised: undo the whole backward, and say so."""
        self._ending = Ending(failure=repr(error))  # not the error: its traceback holds us
        for saved in self._saved.values():
            var = saved.variable
            var._grad, var._grad_var, var._loss_scale = saved.grad, saved.grad_var, \
                saved.loss_scale
            if recorder is not None:
                recorder.grad_changed(_events.GradRestored, var)
        self._saved.clear()
        self._grads.clear()
        self._frontier.clear()
        if recorder is not None:  # it was told this step started
            recorder.backward_finished(self._recorded, error)

    def _finish_if_done(self) -> None:
        """Once no function is left: store ``set_grad`` results, then say it finished."""
        if self._ending is not None or self._frontier:
            return
        request = self._request
        results = None if request.inputs is None else tuple(self.results())
        self._ending = Ending(results=results)
        if request.set_grad:
            for x, gx in zip(request.inputs, results):
                x.grad_var = gx
        if self._recorded is not None and _events.recorder is not None:
            _events.recorder.backward_finished(self._recorded)


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
    seeds = backward_seeds(outputs, grad_outputs)  # given or stored; others skipped (warned)
    if not seeds:
        return
    stepper = BackwardStepper(BackwardRequest(
        tuple(seeds), enable_double_backprop=bool(enable_double_backprop)))
    for y in outputs:
        if y._node._creator_node is not None:  # as in Variable.backward: roots' grads released
            stepper._remember(y)
            y._grad = y._grad_var = None
    stepper.run()
