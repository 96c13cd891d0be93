"""FunctionNode: one operation of the graph, with its forward and backward.

Applying a node runs its ``forward`` on raw arrays and, while
``config.enable_backprop`` is on, links the result into the graph: the node
keeps its inputs' VariableNodes, its outputs' nodes weakly, and whatever arrays
it asked to retain for backward.

A node's ``backward`` receives and returns Variables, so gradients are
themselves differentiable (double backprop).  Built-in nodes may also define
``backward_arrays``, the same rule on raw arrays, which the engine uses when no
graph of the gradient is wanted; the two are kept equal by the test-suite.

>>> import numpy as np, autograd_lab as chainer
>>> class Square(chainer.FunctionNode):
...     def forward(self, inputs):
...         self.retain_inputs((0,))
...         x, = inputs
...         return x * x,
...     def backward(self, target_input_indexes, grad_outputs):
...         x, = self.get_retained_inputs()
...         return 2 * x * grad_outputs[0],
>>> x = chainer.Variable(np.array(3.0))
>>> y, = Square().apply((x,))
>>> y.backward()
>>> x.grad
array(6.)
"""

from __future__ import annotations

import threading
import weakref
from typing import Any
from collections.abc import Iterable

import numpy

from autograd_lab import backend
from autograd_lab import configuration as _configuration
from autograd_lab import debug_mode as _debug_mode
from autograd_lab import events as _events
from autograd_lab.configuration import config
from autograd_lab import function_hook as _function_hook
from autograd_lab.function_hook import FunctionHook, HookTable
from autograd_lab.variable import Variable, _new_variable

_ndarray = numpy.ndarray
_generic = numpy.generic
_ref = weakref.ref

# Double backprop: functions applied while a backward that builds a graph runs compute
# gradients (grad-of-grad).  The stepper marks that time with ``backward_scope``; apply()
# then records the order.  ``_building`` holds one entry per such scope open in any
# thread, so that plain forward pays one test of a global and no thread-local look-up;
# a list, because its append and pop are atomic (no lock at every step).
_building: list = []


class _BackwardOf(threading.local):
    func = None  # the function whose backward this thread is running, building a graph


_backward_of = _BackwardOf()


class backward_scope:
    """``with backward_scope(func):`` functions applied inside compute ``func``'s
    gradients: their :attr:`FunctionNode.backward_order` is one more than ``func``'s."""

    __slots__ = ('_func', '_outer')

    def __init__(self, func: Any) -> None:
        self._func = func

    def __enter__(self) -> None:
        _building.append(None)
        self._outer = _backward_of.func
        _backward_of.func = self._func

    def __exit__(self, *exc: object) -> None:
        _backward_of.func = self._outer
        _building.pop()


class FunctionNode:
    """Base class of differentiable operations (see the module docstring)."""

    inputs: tuple | None = None
    outputs: tuple | None = None
    rank = 0
    _input_indexes_to_retain: tuple | None = None
    _output_indexes_to_retain: tuple | None = None
    _retained_output_data: tuple | None = None
    _local_function_hooks: dict | None = None
    _uid = None
    #: the stack that applied this node, kept in debug mode (see ``debug_mode``), else None
    stack = None
    #: whether apply calls check_type_forward: set for each class that defines one, and on
    #: a node whose check_type_forward is assigned (see _CheckTypeForward)
    _runs_check_type_forward = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._runs_check_type_forward = any('check_type_forward' in vars(k)
                                           for k in cls.__mro__ if k is not FunctionNode)
    #: set to the FunctionNode whose backward applied this node (None in plain forward).
    _applied_in_backward_of = None
    _backward_order = 0

    @property
    def backward_order(self) -> int:
        """0 for a function applied in forward; ``k + 1`` for one applied by the backward
        of a function of order ``k`` (under ``enable_double_backprop``: the functions
        that compute gradients, grad-of-grad).  Not a Chainer attribute.

        >>> import numpy as np, autograd_lab as chainer
        >>> x = chainer.Variable(np.array(3.0))
        >>> gx, = chainer.grad([x ** 3], [x], enable_double_backprop=True)
        >>> (x ** 3).creator.backward_order, gx.creator.backward_order
        (0, 1)
        """
        return self._backward_order

    @property
    def label(self) -> str:
        """A short name for displays; the class name unless a subclass says otherwise."""
        return type(self).__name__

    @property
    def local_function_hooks(self) -> dict:
        """Ordered mapping of the hooks registered on this node only."""
        if self._local_function_hooks is None:
            self._local_function_hooks = HookTable()  # counted: hooks switch events.active on
        return self._local_function_hooks

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = type(self).__name__
        if type(self).__module__.startswith('autograd_lab.'):
            raise RuntimeError(
                f"Chainer's built-in function class object ({name}) which is derived from "
                'chainer.FunctionNode has been called as if it were a callable. Use '
                "FunctionNode.apply() method instead.\nFurthermore, it's not recommended that "
                'you use built-in function classes directly; use corresponding function '
                'aliases (those with snake_case name, such as F.convolution_nd) instead.')
        raise RuntimeError(f'A function class object ({name}) which is derived from '
                           'chainer.FunctionNode has been called as if it were a callable. '
                           'Use apply() method instead.')

    #: Chainer's flags for its own graph optimisations (read, never acted on, here).
    lazy_grad_sum = False
    is_elementwise = False

    @property
    def _impl_name(self) -> str:
        return type(self).__name__

    @property
    def output_data(self) -> tuple:
        """The retained output arrays, one per output (None for outputs not retained)."""
        if self._retained_output_data is None or self.outputs is None:
            raise RuntimeError('retained output data is gone')
        out = [None] * len(self.outputs)
        for i, data in zip(self._output_indexes_to_retain, self._retained_output_data):
            out[i] = data
        return tuple(out)

    def _get_error_message(self, message: str) -> str:
        return _debug_mode.error_message(self, message)

    # ---- forward ------------------------------------------------------------------

    def apply(self, inputs: Iterable[Any]) -> tuple:
        """Run forward on ``inputs`` (Variables or arrays) and return a tuple of Variables.

        Nothing is linked into the graph until forward has succeeded, so a failing
        call (bad types, an exception in forward or in a hook) changes nothing.
        """
        # The hot path of every operation: plain loops and locals, one helper per stage.
        in_nodes, in_data, requires_grad, rank, wrapped = _gather_inputs(self, inputs)
        if config.type_check:
            self._check_inputs(in_data)
            if self._runs_check_type_forward:  # (a class or instance attribute, see below)
                from autograd_lab.utils import type_check  # noqa: PLC0415
                type_check.check_type_forward_of(self, in_data)
        hooks = _function_hook.forward_preprocess(self, in_data) \
            if _function_hook.registered else None
        outputs = self.forward(in_data)
        if type(outputs) is not tuple:
            raise TypeError(f'forward output must be a tuple ({self.label})\n'
                            f'Actual: {type(outputs)}')
        for y in outputs:
            if type(y) is not _ndarray:
                outputs = _force_arrays(self, outputs)
                break
        if hooks is not None:
            _function_hook.forward_postprocess(hooks, self, in_data)
        if _configuration.debug_used and config.debug:
            _debug_mode.forward_done(self, outputs)
        recorded = config.enable_backprop
        if recorded:
            rets = self._link(in_nodes, in_data, outputs, requires_grad, rank)
        else:
            self._input_indexes_to_retain = self._output_indexes_to_retain = None
            rets = tuple([_new_variable(y, requires_grad) for y in outputs])
        if _events.recorder is not None:
            _events.recorder.function_applied(self, in_nodes, rets, recorded, wrapped)
        return rets

    def _link(self, in_nodes: list, in_data: tuple, outputs: tuple, requires_grad: bool,
              rank: int) -> tuple:
        """Make the output Variables and link them into the graph: this node keeps its
        inputs' nodes, its outputs' nodes weakly, and the arrays it asked to retain."""
        self.rank = rank
        self.inputs = tuple(in_nodes)
        rets = []
        refs = []
        for y in outputs:
            var = _new_variable(y, requires_grad, self)
            rets.append(var)
            refs.append(_ref(var._node))
        self.outputs = tuple(refs)
        if _building:  # a backward that builds a graph is running (in some thread)
            parent = _backward_of.func
            if parent is not None:
                self._backward_order = parent._backward_order + 1
        if self._input_indexes_to_retain is not None:
            for i in self._input_indexes_to_retain:
                self.inputs[i].data = in_data[i]
        if self._output_indexes_to_retain is not None:
            retained = []
            for i in self._output_indexes_to_retain:
                retained.append(outputs[i])
                rets[i]._node.data = outputs[i]
            self._retained_output_data = tuple(retained)
        return tuple(rets)

    def _check_inputs(self, in_data: tuple) -> None:
        """Fast input checks of built-in nodes; raise InvalidType before any work is done."""

    def _check_type_forward(self, in_types: Any) -> None:
        """Chainer-style type check hook; ``in_types`` describes the inputs (see type_check)."""

    def forward(self, inputs: tuple) -> tuple:
        """Compute outputs from input arrays; dispatches to forward_cpu/forward_gpu by default."""
        if backend.get_array_module(*inputs) is numpy:
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs: tuple) -> tuple:
        raise NotImplementedError(f'{type(self).__name__} implements neither forward nor '
                                  'forward_cpu')

    def forward_gpu(self, inputs: tuple) -> tuple:
        raise NotImplementedError(f'{type(self).__name__} implements neither forward nor '
                                  'forward_gpu')

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Inside forward: keep these inputs' arrays for backward."""
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes: Iterable[int]) -> None:
        """Inside forward: keep these outputs' arrays for backward."""
        self._output_indexes_to_retain = tuple(indexes)

    # ---- backward ------------------------------------------------------------------

    def backward(self, target_input_indexes: tuple, grad_outputs: tuple) -> tuple:
        """Return gradients (Variables or None) w.r.t. the inputs; default: not differentiable."""
        return (None,) * len(self.inputs)

    def backward_accumulate(self, target_input_indexes: tuple, grad_outputs: tuple,
                            grad_inputs: tuple) -> tuple:
        """Like :meth:`backward`, but returns the sums with ``grad_inputs`` (one per target)."""
        gxs = self.backward(target_input_indexes, grad_outputs)
        n = len(target_input_indexes)
        if len(gxs) != n:
            gxs = tuple(gxs[i] for i in target_input_indexes)
        return tuple(gx if g_in is None else g_in if gx is None else gx + g_in
                     for gx, g_in in zip(gxs, grad_inputs))

    def get_retained_inputs(self) -> tuple:
        """Inside backward: the retained inputs as Variables (differentiable)."""
        if self._input_indexes_to_retain is None or self.inputs is None:
            return ()
        return tuple(self.inputs[i].get_variable() for i in self._input_indexes_to_retain)

    def get_retained_outputs(self) -> tuple:
        """Inside backward: the retained outputs as Variables (differentiable)."""
        if self._output_indexes_to_retain is None or self.outputs is None:
            return ()
        ret = []
        outputs = list(self.outputs)
        for i, data in zip(self._output_indexes_to_retain, self._retained_output_data):
            node = outputs[i]()
            if node is None:  # the output was dropped: a new one, linked back to this node
                var = Variable(data)
                var.creator_node = self
                outputs[i] = _ref(var._node)
                self.outputs = tuple(outputs)
            else:
                var = node.get_variable()
                if var._data is None:
                    var._data = data
            ret.append(var)
        return tuple(ret)

    # ---- graph surgery and hooks ------------------------------------------------------

    def unchain(self) -> None:
        """Unlink this node's outputs from it and forget its inputs and outputs."""
        for ref in self.outputs or ():
            node = ref()
            if node is not None:
                node.unchain()
        self.inputs = None
        self.outputs = None

    def add_hook(self, hook: FunctionHook, name: str | None = None) -> None:
        """Register ``hook`` on this node only, under ``name`` (default ``hook.name``)."""
        if not isinstance(hook, FunctionHook):
            raise TypeError('Hook must be of type FunctionHook')
        if name is None:
            name = hook.name
        hooks = self.local_function_hooks
        if name in hooks:
            raise KeyError(f'Hook {name} already exists')
        hooks[name] = hook
        hook.added(self)

    def delete_hook(self, name: str) -> None:
        """Unregister the local hook ``name``."""
        if name not in self.local_function_hooks:
            raise KeyError(f'Hook {name} does not exist')
        hook = self._local_function_hooks.pop(name)
        hook.deleted(self)

    def __repr__(self) -> str:
        return f'<{type(self).__name__} {self.label!r} rank={self.rank}>'


class _CheckTypeForward:
    """``FunctionNode.check_type_forward``: the method above, which Chainer code may also
    replace on one node (``f.check_type_forward = fn``); ``apply`` then calls it for that
    node.  (A flag tells ``apply``, so nodes without a check pay one attribute read.)"""

    def __get__(self, node: FunctionNode | None, cls: type | None = None) -> Any:
        if node is None:
            return self
        own = node.__dict__.get('_own_check_type_forward')
        return own if own is not None else FunctionNode._check_type_forward.__get__(node)

    def __set__(self, node: FunctionNode, check: Any) -> None:
        node.__dict__['_own_check_type_forward'] = check
        node.__dict__['_runs_check_type_forward'] = True

    def __delete__(self, node: FunctionNode) -> None:
        node.__dict__.pop('_own_check_type_forward', None)
        node.__dict__.pop('_runs_check_type_forward', None)


FunctionNode.check_type_forward = _CheckTypeForward()  # type: ignore[assignment]


def _gather_inputs(func: FunctionNode, inputs: Iterable[Any]) -> tuple:
    """``(nodes, arrays, requires_grad, rank, wrapped)`` of ``inputs``: raw arrays are
    wrapped in new Variables (``wrapped``, announced only once the function has run)."""
    in_nodes = []
    in_data = []
    requires_grad = False
    rank = 0
    wrapped = None
    on_numpy = True
    for x in inputs:
        if type(x) is Variable or isinstance(x, Variable):  # (the common case first)
            d = x._data
            if d is None:
                raise TypeError(f'{func.label}: an input variable is uninitialized '
                                '(it has no array yet)')
            if x._requires_grad:
                requires_grad = True
            r = x._node.rank
            rank = r if r > rank else rank  # (not max(): a call per input)
            in_nodes.append(x._node)
        elif backend.is_array(x):
            d = x
            x = _new_variable(x, False)
            if wrapped is None:
                wrapped = []
            wrapped.append(x)
            in_nodes.append(x._node)
        else:
            raise TypeError(f'incompatible array types are mixed in the forward input '
                            f'({func.label}): got {type(x).__name__}, expected a Variable '
                            'or an ndarray')
        if type(d) is not _ndarray:
            on_numpy = False
        in_data.append(d)
    in_data = tuple(in_data)
    if not on_numpy:
        _check_same_device(func, in_data)
    return in_nodes, in_data, requires_grad, rank, wrapped


def _check_same_device(func: FunctionNode, in_data: tuple) -> None:
    kinds = {backend.get_device_from_array(d).xp.__name__ for d in in_data}
    if len(kinds) > 1 or any(not backend.is_array(d) for d in in_data):
        names = ', '.join(type(d).__name__ for d in in_data)
        raise TypeError(f'incompatible array types are mixed in the forward input '
                        f'({func.label}): {names}. Move every input to one device first.')


def _force_arrays(func: FunctionNode, outputs: tuple) -> tuple:
    fixed = []
    for y in outputs:
        if isinstance(y, _generic):
            y = numpy.asarray(y)
        elif not backend.is_array(y):
            raise TypeError('forward output must be a tuple of ndarrays.\n'
                            f'Function: {func.label}\n'
                            f'Actual output types: {tuple(type(y) for y in outputs)}')
        fixed.append(y)
    return tuple(fixed)


def unchain_backward(root: Any) -> tuple[list, list]:
    """Call ``unchain()`` on every function reachable backward from VariableNode ``root``.

    Returns the functions unchained and the variable nodes that lost their creator.
    """
    func = root.creator_node
    if func is None:
        return [], []
    seen = {func}
    stack = [func]
    funcs, cut = [], []
    while stack:
        func = stack.pop()
        for node in func.inputs or ():
            creator = node.creator_node
            if creator is not None and creator not in seen:
                seen.add(creator)
                stack.append(creator)
        cut.extend(n for n in (ref() for ref in func.outputs or ()) if n is not None)
        funcs.append(func)
        func.unchain()
    return funcs, cut
