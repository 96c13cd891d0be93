"""Shape and index functions: get_item, reshape, transpose, broadcasting, sum_to, cast, ...

Each backward is the inverse operation, built from these same differentiable
functions, so gradients of any order work.

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.arange(5, dtype=np.float32))
>>> y = x[[0, 0, 2, 0, 4, 4]]
>>> y.grad = np.arange(1, 7, dtype=np.float32)
>>> y.backward()
>>> x.grad   # repeated indices accumulate
array([ 7.,  0.,  3.,  0., 11.], dtype=float32)
"""

from __future__ import annotations

from typing import Any, Optional

import numpy

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._util import sum_to_array
from autograd_lab.utils import size_of_shape
from autograd_lab.utils.type_check import expect
from autograd_lab.variable import Variable, as_variable

# ---- get_item ------------------------------------------------------------------------


def _normalize_index(slices: Any) -> Any:
    """Chainer's index rules on top of NumPy's: a list of ints is an advanced index,
    any other list is a tuple, and a Variable is never an index."""
    if isinstance(slices, list):
        if all(isinstance(s, (int, numpy.integer)) and not isinstance(s, (bool, numpy.bool_))
               for s in slices):
            return numpy.asarray(slices, dtype=numpy.intp) if slices else numpy.zeros(
                0, numpy.intp)
        slices = tuple(slices)
    parts = slices if isinstance(slices, tuple) else (slices,)
    for s in parts:
        if isinstance(s, Variable):
            raise IndexError('a Variable cannot be used as an index: use its .array '
                             '(indices are not differentiable)')
    return slices


def _is_basic(slices: Any) -> bool:
    parts = slices if isinstance(slices, tuple) else (slices,)
    return all(s is None or s is Ellipsis or isinstance(s, slice) or
               (isinstance(s, (int, numpy.integer)) and not isinstance(s, (bool, numpy.bool_)))
               for s in parts)


def _scatter_add(gx: Any, slices: Any, gy: Any) -> None:
    """``gx[slices] += gy`` with repeated positions accumulating (NumPy's indexing rules)."""
    xp = backend.get_array_module(gx)
    # Index an array of flat positions with the very same index: whatever NumPy's
    # indexing does (masks, broadcasting index arrays, newaxis), positions follow.
    positions = xp.arange(gx.size).reshape(gx.shape)[slices]
    flat = gx.reshape(-1)
    if xp is numpy or hasattr(xp.add, 'at'):
        xp.add.at(flat, positions.reshape(-1), gy.reshape(-1))
    else:  # CuPy versions without ufunc.at
        import cupyx  # noqa: PLC0415
        cupyx.scatter_add(flat, positions.reshape(-1), gy.reshape(-1))


class GetItem(FunctionNode):
    label = 'GetItem'

    def __init__(self, slices: Any) -> None:
        self.slices = slices

    def forward(self, xs: tuple) -> tuple:
        return xs[0][self.slices],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        node = self.inputs[0]
        return GetItemGrad(self.slices, node.shape, node.dtype).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        node = self.inputs[0]
        return _get_item_grad(self.slices, node.shape, node.dtype, gys[0]),


def _get_item_grad(slices: Any, shape: tuple, dtype: Any, gy: Any) -> Any:
    xp = backend.get_array_module(gy)
    gx = xp.zeros(shape, dtype)
    if _is_basic(slices):
        gx[slices] = gy
    else:
        _scatter_add(gx, slices, gy)
    return gx


class GetItemGrad(FunctionNode):
    """Scatter-add of a gradient into zeros of the input shape (the backward of GetItem)."""

    label = 'GetItemGrad'

    def __init__(self, slices: Any, in_shape: tuple, in_dtype: Any) -> None:
        self.slices = slices
        self._in_shape = in_shape
        self._in_dtype = in_dtype

    def forward(self, gys: tuple) -> tuple:
        return _get_item_grad(self.slices, self._in_shape, self._in_dtype, gys[0]),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return get_item(ggs[0], self.slices),

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return ggs[0][self.slices],


def get_item(x: Any, slices: Any) -> Variable:
    """``x[slices]`` with NumPy's semantics; backward scatter-adds (repeats accumulate).

    >>> import numpy as np
    >>> get_item(np.arange(6.).reshape(2, 3), (0, slice(1, None))).array
    array([1., 2.])
    """
    return GetItem(_normalize_index(slices)).apply((x,))[0]


# ---- reshape / transpose ----------------------------------------------------------------


def _resolve_shape(shape: tuple, size: int) -> tuple:
    unknown = [i for i, n in enumerate(shape) if n < 0]
    assert len(unknown) <= 1, f'only one dimension can be -1 in a reshape: {shape}'
    if unknown:
        known = size_of_shape(tuple(n for n in shape if n >= 0))
        shape = tuple(size // known if n < 0 and known else n for n in shape)
    return shape


class Reshape(FunctionNode):
    label = 'Reshape'

    def __init__(self, shape: tuple) -> None:
        self.shape = shape

    def _check_inputs(self, xs: tuple) -> None:
        x = xs[0]
        shape = _resolve_shape(self.shape, x.size)
        expect(self.label, size_of_shape(shape) == x.size,
               f'prod(in_types[0].shape) == prod({self.shape})',
               f'{x.size} != {size_of_shape(shape)}')

    def forward(self, xs: tuple) -> tuple:
        return xs[0].reshape(self.shape),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return reshape(gys[0], self.inputs[0].shape),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0].reshape(self.inputs[0].shape),


def reshape(x: Any, shape: Any) -> Variable:
    """``x`` with a new shape (one entry may be -1).

    >>> import numpy as np
    >>> reshape(np.arange(6.), (2, -1)).shape
    (2, 3)
    """
    shape = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
    if as_variable(x).shape == shape:
        return as_variable(x)  # as in Chainer: no node when nothing changes
    return Reshape(shape).apply((x,))[0]


class Transpose(FunctionNode):
    label = 'Transpose'

    def __init__(self, axes: Optional[tuple] = None) -> None:
        self.axes = axes

    def forward(self, xs: tuple) -> tuple:
        return xs[0].transpose(self.axes),

    def _inverse_axes(self) -> Optional[tuple]:
        if self.axes is None:
            return None
        n = len(self.axes)
        return tuple(numpy.argsort([a % n for a in self.axes]).tolist())

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return transpose(gys[0], self._inverse_axes()),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0].transpose(self._inverse_axes()),


def transpose(x: Any, axes: Optional[Any] = None) -> Variable:
    """Permute the axes (reverse them when ``axes`` is None)."""
    return Transpose(None if axes is None else tuple(axes)).apply((x,))[0]


def swapaxes(x: Any, axis1: int, axis2: int) -> Variable:
    """Exchange two axes."""
    ndim = as_variable(x).ndim
    axes = list(range(ndim))
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return transpose(x, axes)


# ---- broadcasting and summing back -------------------------------------------------------


class BroadcastTo(FunctionNode):
    label = 'BroadcastTo'

    def __init__(self, shape: tuple) -> None:
        self.shape = shape

    def _check_inputs(self, xs: tuple) -> None:
        x = xs[0]
        ok = x.ndim <= len(self.shape) and all(
            a == b or a == 1 for a, b in zip(x.shape[::-1], self.shape[::-1]))
        expect(self.label, ok, f'in_types[0].shape can broadcast to {self.shape}',
               f'{x.shape} cannot')

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(xs[0]).broadcast_to(xs[0], self.shape),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return sum_to(gys[0], self.inputs[0].shape),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return sum_to_array(gys[0], self.inputs[0].shape),


def broadcast_to(x: Any, shape: Any) -> Variable:
    """Broadcast ``x`` to ``shape``; backward sums the gradient back."""
    shape = tuple(shape)
    return BroadcastTo(shape).apply((x,))[0]


def broadcast(*xs: Any) -> Any:
    """Broadcast the inputs against each other: a tuple of Variables (one input: a Variable)."""
    shape = numpy.broadcast_shapes(*[as_variable(x).shape for x in xs])
    out = tuple(broadcast_to(x, shape) for x in xs)
    return out[0] if len(out) == 1 else out


class SumTo(FunctionNode):
    label = 'SumTo'

    def __init__(self, shape: tuple) -> None:
        self.shape = shape

    def _check_inputs(self, xs: tuple) -> None:
        x = xs[0]
        lead = x.ndim - len(self.shape)
        ok = lead >= 0 and all(b == 1 or a == b for a, b in zip(x.shape[lead:], self.shape))
        expect(self.label, ok, f'in_types[0].shape can be summed to {self.shape}',
               f'{x.shape} cannot')

    def forward(self, xs: tuple) -> tuple:
        return sum_to_array(xs[0], self.shape),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return broadcast_to(gys[0], self.inputs[0].shape),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        gy = gys[0]
        return backend.get_array_module(gy).broadcast_to(gy, self.inputs[0].shape),


def sum_to(x: Any, shape: Any) -> Variable:
    """Sum ``x`` along broadcast axes so that it gets ``shape``."""
    shape = tuple(shape)
    if isinstance(x, Variable) and x.shape == shape:
        return x
    return SumTo(shape).apply((x,))[0]


# ---- dims ----------------------------------------------------------------------------------


def squeeze(x: Any, axis: Any = None) -> Variable:
    """Remove length-1 axes (all of them, or those in ``axis``)."""
    x = as_variable(x)
    return reshape(x, numpy.squeeze(numpy.empty(x.shape, dtype=numpy.bool_), axis).shape)


def expand_dims(x: Any, axis: int) -> Variable:
    """Insert a length-1 axis at ``axis``."""
    x = as_variable(x)
    return reshape(x, numpy.expand_dims(numpy.empty(x.shape, dtype=numpy.bool_), axis).shape)


def flatten(x: Any) -> Variable:
    """``x`` as a 1-D Variable."""
    return reshape(x, (as_variable(x).size,))


# ---- identity, cast, copy --------------------------------------------------------------------


class Identity(FunctionNode):
    label = 'Identity'

    def forward(self, xs: tuple) -> tuple:
        return xs

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return gys

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys


def identity(*xs: Any) -> Any:
    """The inputs unchanged, through one node (one input: a Variable, else a tuple)."""
    ys = Identity().apply(xs)
    return ys[0] if len(ys) == 1 else ys


class Cast(FunctionNode):
    label = 'Cast'

    def __init__(self, dtype: Any) -> None:
        self.dtype = numpy.dtype(dtype)

    def forward(self, xs: tuple) -> tuple:
        return xs[0].astype(self.dtype, copy=False),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return cast(gys[0], self.inputs[0].dtype),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0].astype(self.inputs[0].dtype, copy=False),


def cast(x: Any, typ: Any) -> Variable:
    """``x`` converted to dtype ``typ`` (``x`` itself, as a Variable, if already of it)."""
    if as_variable(x).dtype == numpy.dtype(typ):
        return as_variable(x)
    return Cast(typ).apply((x,))[0]


class Copy(FunctionNode):
    label = 'Copy'

    def __init__(self, device: Any) -> None:
        self.device = backend.get_device(device)

    def forward(self, xs: tuple) -> tuple:
        self._in_device = backend.get_device_from_array(xs[0])
        y = self.device.send(xs[0])
        return (y.copy() if y is xs[0] else y),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return copy(gys[0], self._in_device),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return self._in_device.send(gys[0]),


def copy(x: Any, dst: Any) -> Variable:
    """A copy of ``x`` on device ``dst`` (``'@numpy'``, ``'@cupy:0'``, -1, 0, ...)."""
    return Copy(dst).apply((x,))[0]
