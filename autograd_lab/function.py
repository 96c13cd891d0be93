"""The old-style ``chainer.Function``: forward and backward on arrays, called like a function.

A :class:`Function` subclass defines ``forward(inputs)`` and ``backward(inputs,
grad_outputs)`` on tuples of arrays (NumPy or CuPy), never on Variables.  Calling an
instance applies it: the engine wraps it in a :class:`FunctionAdapter`, a
:class:`~autograd_lab.FunctionNode` that delegates to it, and that adapter is what the
graph holds.  So ``y.creator`` is the Function itself while ``y.creator_node`` is its
adapter, exactly as in Chainer.

What an old-style Function cannot do, as in Chainer:

- its backward works on arrays, so its gradients have no graph: differentiating them
  again (double backprop through it) raises ``RuntimeError: cannot twice-differentiate an
  old style Function "<label>"``;
- it always computes gradients for all its inputs (``backward`` is not told which).

All inputs are retained for backward unless ``forward`` calls ``retain_inputs`` (then
the others reach ``backward`` as None); ``retain_outputs`` keeps outputs, which backward
reads as ``self.output_data``.

>>> import numpy as np, autograd_lab as chainer
>>> class Square(chainer.Function):
...     def forward(self, inputs):
...         x, = inputs
...         return x * x,
...     def backward(self, inputs, grad_outputs):
...         x, = inputs
...         gy, = grad_outputs
...         return 2 * x * gy,
>>> x = chainer.Variable(np.array([1.0, 2.0]))
>>> f = Square()
>>> y = f(x)
>>> y.creator is f, type(y.creator_node).__name__
(True, 'FunctionAdapter')
>>> y.grad = np.ones(2)
>>> y.backward()
>>> x.grad
array([2., 4.])
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Iterable
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.configuration import force_backprop_mode, no_backprop_mode  # noqa: F401
from autograd_lab.function_hook import FunctionHook
from autograd_lab.function_node import FunctionNode
from autograd_lab.variable import Variable, _check_grad

# Gradients made by old-style backward, by id of their VariableNode and of their array:
# id -> (weak ref, the Function's label).  They have no graph, so differentiating them again
# is an error (see the module doc).  The array is marked too because backward without
# double backprop stores gradients as arrays: ``x.grad_var`` then wraps that same array.
# A plain dict, so that the engine's "is there any?" test costs next to nothing.
ARRAY_GRADS: dict = {}


def _mark_array_grad(g: Variable, label: str) -> None:
    for obj in (g._node, g._data):
        key = id(obj)
        ARRAY_GRADS[key] = (weakref.ref(obj, lambda _, key=key: ARRAY_GRADS.pop(key, None)),
                            label)


class FunctionAdapter(FunctionNode):
    """The FunctionNode that puts an old-style :class:`Function` into the graph.

    Until the Function is first called, the Function owns its adapter and the adapter
    refers to it weakly; once called, the adapter (held by the graph) owns the Function,
    and the Function refers to the adapter weakly.

    >>> import autograd_lab as chainer
    >>> f = chainer.Function()
    >>> type(f.node).__name__, f.node.function is f
    ('FunctionAdapter', True)
    """

    _function: Function | None = None
    _weak_function: Any = None

    def __init__(self, function: Function) -> None:
        self._weak_function = weakref.ref(function)
        function._owned_node = self

    @property
    def function(self) -> Function | None:
        """The wrapped :class:`Function`."""
        if self._function is not None:
            return self._function
        ref = self._weak_function
        return ref() if ref is not None else None

    @property
    def label(self) -> str:
        return self._function.label  # type: ignore[union-attr]  (as Chainer: set once called)

    @property
    def _impl_name(self) -> str:
        return type(self._function).__name__

    def __repr__(self) -> str:
        function = self.function
        label = 'not applied yet' if function is None else repr(function.label)
        return f'<FunctionAdapter {label} rank={self.rank}>'

    def check_type_forward(self, in_types: Any) -> None:
        self._function.check_type_forward(in_types)  # type: ignore[union-attr]

    def apply(self, inputs: Iterable[Any]) -> tuple:
        outputs = super().apply(inputs)
        if self.outputs is not None:  # linked into the graph: creator is the Function
            for y in outputs:
                y._node._old_style_creator = self._function
        return outputs

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs(range(len(inputs)))  # old-style functions see every input
        return self._function.forward(inputs)  # type: ignore[union-attr]

    def backward(self, target_input_indexes: tuple, grad_outputs: tuple) -> tuple:
        in_data: list = [None] * len(self.inputs)
        for i, x in zip(self._input_indexes_to_retain or (), self.get_retained_inputs()):
            in_data[i] = None if x is None else x.array
        gy_data = tuple(None if g is None else g.array for g in grad_outputs)
        function = self._function
        with backend.using_device(backend.get_device_from_array(*in_data, *gy_data)):
            gxs = function.backward(tuple(in_data), gy_data)  # type: ignore[union-attr]
        for node, gx in zip(self.inputs, gxs):
            if gx is not None:
                _check_array_grad(self, node, gx)
        out = []
        for i in target_input_indexes:
            gx = gxs[i]
            if gx is None:
                out.append(None)
                continue
            g = Variable(gx)
            _mark_array_grad(g, function.label)  # type: ignore[union-attr]
            out.append(g)
        return tuple(out)


def _check_array_grad(func: FunctionAdapter, node: Any, gx: Any) -> None:
    """Check a gradient an old-style backward returned for input ``node`` (type, dtype, shape
    and device, with Variable.grad's messages), blaming the Function."""
    if node.dtype is None or node.shape is None:
        return
    like = node.data
    if like is None and backend.is_array(gx):  # not retained: a stand-in of its shape/dtype
        xp = backend.get_array_module(gx)
        like = xp.broadcast_to(xp.zeros((), node.dtype), node.shape)
    try:
        _check_grad(gx, like if like is not None else numpy.empty(0))  # (gx: not an array)
    except (TypeError, ValueError) as error:
        raise type(error)(f'{_bug(func)}{error}') from None


def _bug(func: FunctionAdapter) -> str:
    return (f'Function `{func._impl_name}` ({func.label}) has a bug.\n\n'
            'Please report this error to the issue tracker with the stack trace,\n'
            'the information of your environment, and your script.\n')


def check_old_style_gradient(node: Any) -> None:
    """Raise if ``node`` is a gradient made by an old-style backward (it has no graph).

    The engine calls this only while :data:`ARRAY_GRADS` is not empty.
    """
    var = node._variable()
    for obj in (node, node.data if var is None else var._data):
        entry = ARRAY_GRADS.get(id(obj))
        if entry is not None and entry[0]() is obj:
            raise RuntimeError(f'cannot twice-differentiate an old style Function "{entry[1]}"')


def check_old_style_graph(outputs: Iterable[Any]) -> None:
    """:func:`check_old_style_gradient` on ``outputs`` and every input of their graph
    (what ``chainer.grad`` checks before differentiating)."""
    seen: set = set()
    stack = []
    for y in outputs:
        node = getattr(y, '_node', None)  # (not a Variable: the caller's checks say so)
        if node is not None:
            check_old_style_gradient(node)
            stack.append(node._creator_node)
    while stack:
        func = stack.pop()
        if func is None or func in seen or func.inputs is None:
            continue
        seen.add(func)
        for x in func.inputs:
            check_old_style_gradient(x)
            if x._requires_grad:
                stack.append(x._creator_node)


class Function:
    """Old-style differentiable function: ``forward``/``backward`` on tuples of arrays.

    Subclass it and implement ``forward`` (or ``forward_cpu``/``forward_gpu``) and
    ``backward`` (or ``backward_cpu``/``backward_gpu``); both take and return tuples
    of arrays.  Call an instance on Variables or arrays: it returns one Variable, or a
    tuple when forward returns several arrays.  See the module docstring.
    """

    _node: Any = None
    _owned_node: FunctionAdapter | None = None

    def __call__(self, *inputs: Any) -> Any:
        node = self.node
        node._function = self  # the graph now owns this Function through its adapter
        node._weak_function = None
        self._node = weakref.ref(node)
        self._owned_node = None
        ret = node.apply(inputs)
        return ret[0] if len(ret) == 1 else ret

    @property
    def node(self) -> FunctionAdapter:
        """The :class:`FunctionAdapter` wrapping this Function (made on first use)."""
        ref = self._node
        node = (ref() if ref is not None else None) or self._owned_node
        if node is None:
            node = FunctionAdapter(self)
            self._owned_node = node
        return node

    @property
    def inputs(self) -> tuple | None:
        """The input VariableNodes (None before the first call)."""
        return self.node.inputs

    @property
    def outputs(self) -> tuple | None:
        """Weak references to the output VariableNodes."""
        return self.node.outputs

    @property
    def local_function_hooks(self) -> dict:
        """The hooks registered on this function only."""
        return self.node.local_function_hooks

    @property
    def label(self) -> str:
        """A short name for displays: the class name unless a subclass says otherwise."""
        return type(self).__name__

    @property
    def output_data(self) -> tuple:
        """The retained output arrays (None for outputs not retained)."""
        return self.node.output_data

    @property
    def rank(self) -> int:
        return self.node.rank

    @property
    def stack(self) -> Any:
        """The stack that applied this function, kept in debug mode (else None)."""
        return self.node.stack

    def check_type_forward(self, in_types: Any) -> None:
        """Check the input types before forward (see ``utils.type_check``); default: none."""

    def forward(self, inputs: tuple) -> tuple:
        """Compute the output arrays; dispatches to ``forward_cpu``/``forward_gpu``."""
        if backend.get_array_module(*inputs) is numpy:
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs: tuple) -> tuple:
        raise NotImplementedError()

    def forward_gpu(self, inputs: tuple) -> tuple:
        raise NotImplementedError()

    def backward(self, inputs: tuple, grad_outputs: tuple) -> tuple:
        """Gradient arrays w.r.t. every input (None where not differentiable); dispatches
        to ``backward_cpu``/``backward_gpu``."""
        if backend.get_array_module(*inputs, *grad_outputs) is numpy:
            return self.backward_cpu(inputs, grad_outputs)
        return self.backward_gpu(inputs, grad_outputs)

    def backward_cpu(self, inputs: tuple, grad_outputs: tuple) -> tuple:
        return tuple(None for _ in inputs)

    def backward_gpu(self, inputs: tuple, grad_outputs: tuple) -> tuple:
        return tuple(None for _ in inputs)

    def unchain(self) -> None:
        """Cut this function out of the graph (see ``FunctionNode.unchain``)."""
        self.node.unchain()

    def add_hook(self, hook: FunctionHook, name: str | None = None) -> None:
        """Register a function hook on this function only."""
        self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        """Unregister the local hook ``name``."""
        self.node.delete_hook(name)

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Inside forward: keep only these inputs for backward (the others arrive as None)."""
        self.node.retain_inputs(indexes)

    def retain_outputs(self, indexes: Iterable[int], retain_after_backward: bool = False) -> None:
        """Inside forward: keep these outputs for backward (read them as ``output_data``)."""
        if retain_after_backward:
            warnings.warn('retain_after_backward option has no effect', DeprecationWarning,
                          stacklevel=2)
        self.node.retain_outputs(indexes)
