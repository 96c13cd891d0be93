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

import itertools
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab import configuration as _configuration
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._util import sum_to_array
from autograd_lab.utils import force_array, size_of_shape
from autograd_lab.configuration import config
from autograd_lab.utils.type_check import expect, expect_broadcastable
from autograd_lab.variable import Variable, as_variable

# ---- get_item ------------------------------------------------------------------------


def _normalize_index(slices: Any) -> Any:
    """Chainer's index rules on top of NumPy's: a list of ints is an advanced index,
    any other list is a tuple, and a Variable is never an index."""
    if isinstance(slices, list):
        # Python ints only (bools too: [True, False] is a mask; NumPy ints make a tuple).
        if all(isinstance(s, int) for s in slices):
            return numpy.asarray(slices) if slices else numpy.zeros(0, numpy.intp)
        slices = tuple(slices)
    parts = slices if isinstance(slices, tuple) else (slices,)
    for s in parts:
        if isinstance(s, Variable):
            raise IndexError('a Variable cannot be used as an index: use its .array '
                             '(indices are not differentiable)')
    if _configuration.debug_used and config.debug and sum(s is Ellipsis for s in parts) > 1:
        # Chainer's debug mode checks this itself; otherwise NumPy's IndexError says it
        raise ValueError('Only one Ellipsis is allowed')
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
    gx = xp.zeros_like(gy, dtype=dtype, order='C', shape=shape)  # on gy's device
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

    def __init__(self, axes: tuple | None = None) -> None:
        self.axes = axes

    def forward(self, xs: tuple) -> tuple:
        return xs[0].transpose(self.axes),

    def _inverse_axes(self) -> tuple | None:
        if self.axes is None:
            return None
        n = len(self.axes)
        return tuple(numpy.argsort([a % n for a in self.axes]).tolist())

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return transpose(gys[0], self._inverse_axes()),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0].transpose(self._inverse_axes()),


def transpose(x: Any, axes: Any | None = None) -> Variable:
    """Permute the axes (reverse them when ``axes`` is None)."""
    return Transpose(None if axes is None else tuple(axes)).apply((x,))[0]


class Swapaxes(FunctionNode):
    label = 'Swapaxes'

    def __init__(self, axis1: int, axis2: int) -> None:
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, xs: tuple) -> tuple:
        return xs[0].swapaxes(self.axis1, self.axis2),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return swapaxes(gys[0], self.axis1, self.axis2),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0].swapaxes(self.axis1, self.axis2),


def swapaxes(x: Any, axis1: int, axis2: int) -> Variable:
    """Exchange two axes (one ``'Swapaxes'`` node, as in Chainer).

    >>> import numpy as np
    >>> swapaxes(np.zeros((2, 3, 4)), 0, 2).shape
    (4, 3, 2)
    """
    return Swapaxes(axis1, axis2).apply((x,))[0]


# ---- broadcasting and summing back -------------------------------------------------------


class BroadcastTo(FunctionNode):
    label = 'BroadcastTo'

    def __init__(self, shape: tuple) -> None:
        self.shape = shape

    def _check_inputs(self, xs: tuple) -> None:
        x = xs[0]
        ok = x.ndim <= len(self.shape) and all(
            a in (b, 1) for a, b in zip(x.shape[::-1], self.shape[::-1]))
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
    if as_variable(x).shape == shape:
        return as_variable(x)  # as in Chainer: no node when nothing changes
    return BroadcastTo(shape).apply((x,))[0]


class Broadcast(FunctionNode):
    """Several inputs broadcast against each other (one node, one output per input)."""

    label = 'Broadcast'

    def _check_inputs(self, xs: tuple) -> None:
        expect(self.label, len(xs) > 0, 'in_types.size > 0', f'{len(xs)} <= 0')
        expect_broadcastable(self.label, xs)

    def forward(self, xs: tuple) -> tuple:
        shape = numpy.broadcast_shapes(*[x.shape for x in xs])
        return tuple(backend.get_array_module(x).broadcast_to(x, shape) for x in xs)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return tuple(None if gys[i] is None else sum_to(gys[i], self.inputs[i].shape)
                     for i in indexes)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return tuple(None if gys[i] is None else sum_to_array(gys[i], self.inputs[i].shape)
                     for i in indexes)


def broadcast(*xs: Any) -> Any:
    """Broadcast the inputs against each other: a tuple of Variables (one input: a Variable)."""
    if len(xs) == 1:
        return as_variable(xs[0])
    return Broadcast().apply(xs)


class SumTo(FunctionNode):
    label = 'SumTo'

    def __init__(self, shape: tuple) -> None:
        self.shape = shape

    def _check_inputs(self, xs: tuple) -> None:
        x = xs[0]
        lead = x.ndim - len(self.shape)
        ok = lead >= 0 and all(b in (1, a) for a, b in zip(x.shape[lead:], self.shape))
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


class Squeeze(Reshape):
    label = 'Squeeze'


class ExpandDims(Reshape):
    label = 'ExpandDims'


def squeeze(x: Any, axis: Any = None) -> Variable:
    """Remove length-1 axes (all of them, or those in ``axis``)."""
    x = as_variable(x)
    return Squeeze(numpy.squeeze(numpy.empty(x.shape, dtype=numpy.bool_), axis).shape).apply(
        (x,))[0]


def expand_dims(x: Any, axis: int) -> Variable:
    """Insert a length-1 axis at ``axis``."""
    x = as_variable(x)
    expect('ExpandDims', -x.ndim - 1 <= axis <= x.ndim, f'{-x.ndim - 1} <= axis <= {x.ndim}',
           f'axis {axis}')
    return ExpandDims(numpy.expand_dims(numpy.empty(x.shape, dtype=numpy.bool_),
                                        axis).shape).apply((x,))[0]


def flatten(x: Any) -> Variable:
    """``x`` as a 1-D Variable."""
    return reshape(x, (as_variable(x).size,))


# ---- identity, cast, copy --------------------------------------------------------------------


class Identity(FunctionNode):
    """Passes its inputs through (its label is its class name, as every node's)."""

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
    if as_variable(x).dtype == numpy.dtype(typ) and not config.enable_backprop:
        return as_variable(x)  # as Chainer: a (no-op) Cast node while backprop is enabled
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


# ---- joining and splitting ----------------------------------------------------------------------
#
# As elsewhere, each backward exists on Variables (differentiable) and on raw arrays, doing
# the same array operations, so the two give bitwise identical gradients.


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, (bool, numpy.bool_))


def _int_axis(axis: Any) -> int:
    if not _is_int(axis):
        raise TypeError('axis must be int')
    return int(axis)


def _expect_axis(label: str, axis: int, ndim: int, name: str = 'x') -> None:
    """``-ndim <= axis < ndim`` (InvalidType otherwise)."""
    expect(label, axis < ndim, f'{name}.ndim > {axis}', f'{ndim} <= {axis}')
    expect(label, -ndim <= axis, f'{name}.ndim >= {-axis}', f'{ndim} < {-axis}')


def _expect_same(label: str, xs: tuple, skip_dim: int | None = None) -> None:
    """Same ndim and dtype for all inputs, and the same shape except along ``skip_dim``."""
    expect(label, len(xs) > 0, 'in_types.size > 0', f'{len(xs)} <= 0')
    x0 = xs[0]
    for i, x in enumerate(xs[1:], 1):
        expect(label, x.ndim == x0.ndim, f'in_types[0].ndim == in_types[{i}].ndim',
               f'{x0.ndim} != {x.ndim}')
        expect(label, x.dtype == x0.dtype, f'in_types[0].dtype == in_types[{i}].dtype',
               f'{x0.dtype} != {x.dtype}')
        for d in range(x0.ndim):
            if d != skip_dim:
                expect(label, x.shape[d] == x0.shape[d],
                       f'in_types[0].shape[{d}] == in_types[{i}].shape[{d}]',
                       f'{x0.shape[d]} != {x.shape[d]}')


def _split_points(sizes: list) -> list:
    """Where to cut a concatenation of pieces of these sizes (cumulative, last one left out)."""
    points, total = [], 0
    for n in sizes[:-1]:
        total += n
        points.append(total)
    return points


def _fill_none(gys: tuple, shapes: list, dtype: Any) -> list:
    """Output gradients with zeros in place of None (outputs nobody differentiated)."""
    ref = next(g for g in gys if g is not None)
    xp = backend.get_array_module(ref)
    return [xp.zeros_like(ref, dtype=dtype, shape=s) if g is None else g  # on ref's device
            for g, s in zip(gys, shapes)]


def _raw(g: Any) -> Any:
    return g.array if isinstance(g, Variable) else g


class Concat(FunctionNode):
    label = 'Concat'

    def __init__(self, axis: int = 1) -> None:
        self.axis = _int_axis(axis)

    def _check_inputs(self, xs: tuple) -> None:
        expect(self.label, len(xs) > 0, 'in_types.size > 0', f'{len(xs)} <= 0')
        ndim = xs[0].ndim
        expect(self.label, self.axis < ndim, 'in_types[0].ndim > axis', f'{ndim} <= {self.axis}')
        expect(self.label, -ndim <= self.axis, f'-in_types[0].ndim <= {self.axis}',
               f'{-ndim} > {self.axis}')
        _expect_same(self.label, xs, self.axis % ndim)

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(*xs).concatenate(xs, axis=self.axis),

    def _points(self) -> list:
        return _split_points([x.shape[self.axis] for x in self.inputs])

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return split_axis(gys[0], self._points(), self.axis)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return tuple(backend.get_array_module(gys[0]).split(gys[0], self._points(), self.axis))


def concat(xs: Any, axis: int = 1) -> Variable:
    """Join the arrays ``xs`` along an existing ``axis`` (default 1, as in Chainer).

    >>> import numpy as np
    >>> concat([np.zeros((2, 1)), np.ones((2, 2))]).array
    array([[0., 1., 1.],
           [0., 1., 1.]])
    """
    return Concat(axis).apply(xs)[0]


def _separate_arrays(x: Any, axis: int) -> tuple:
    """The slices of ``x`` along ``axis``, each without that axis (views where possible)."""
    lead = (slice(None),) * axis
    return tuple(force_array(x[lead + (i,)]) for i in range(x.shape[axis]))


class Stack(FunctionNode):
    label = 'Stack'

    def __init__(self, axis: int = 0) -> None:
        self.axis = _int_axis(axis)

    def _check_inputs(self, xs: tuple) -> None:
        _expect_same(self.label, xs)
        ndim = xs[0].ndim
        expect(self.label, self.axis <= ndim, f'in_types[0].ndim >= {self.axis}',
               f'{ndim} < {self.axis}')
        expect(self.label, -ndim - 1 <= self.axis, f'-in_types[0].ndim - 1 <= {self.axis}',
               f'{-ndim - 1} > {self.axis}')

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(*xs).stack(xs, axis=self.axis),

    def _out_axis(self) -> int:
        return self.axis % (len(self.inputs[0].shape) + 1)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return separate(gys[0], self._out_axis())

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _separate_arrays(gys[0], self._out_axis())


def stack(xs: Any, axis: int = 0) -> Variable:
    """Join arrays of one shape along a new ``axis``.

    >>> import numpy as np
    >>> stack([np.zeros(2), np.ones(2)], axis=1).array
    array([[0., 1.],
           [0., 1.]])
    """
    return Stack(axis).apply(xs)[0]


class _StackAlong(FunctionNode):
    """hstack/vstack: inputs of one ndim joined along a fixed axis (NumPy's rules)."""

    def _axis(self, ndim: int) -> int:
        raise NotImplementedError

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        shapes = [x.shape for x in self.inputs]
        ndim = len(shapes[0])
        if ndim == 0 or (ndim == 1 and type(self) is Vstack):
            pieces = split_axis(gys[0], list(range(1, len(shapes))), 0)
            return tuple(reshape(p, s) for p, s in zip(pieces, shapes))
        axis = self._axis(ndim)
        return split_axis(gys[0], _split_points([s[axis] for s in shapes]), axis)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        shapes = [x.shape for x in self.inputs]
        ndim = len(shapes[0])
        xp = backend.get_array_module(gys[0])
        if ndim == 0 or (ndim == 1 and type(self) is Vstack):
            pieces = xp.split(gys[0], list(range(1, len(shapes))), 0)
            return tuple(p.reshape(s) for p, s in zip(pieces, shapes))
        axis = self._axis(ndim)
        return tuple(xp.split(gys[0], _split_points([s[axis] for s in shapes]), axis))


class Hstack(_StackAlong):
    label = 'Hstack'

    def _axis(self, ndim: int) -> int:
        return 0 if ndim <= 1 else 1

    def _check_inputs(self, xs: tuple) -> None:
        expect(self.label, len(xs) > 0, 'in_types.size > 0', f'{len(xs)} <= 0')
        ndim = xs[0].ndim
        _expect_same(self.label, xs, self._axis(ndim) if ndim >= 1 else None)

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(*xs).hstack(xs),


class Vstack(_StackAlong):
    label = 'Vstack'

    def _axis(self, ndim: int) -> int:
        return 0

    def _check_inputs(self, xs: tuple) -> None:
        expect(self.label, len(xs) > 0, 'in_types.size > 0', f'{len(xs)} <= 0')
        ndim = xs[0].ndim
        _expect_same(self.label, xs, 0 if ndim >= 2 else None)

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(*xs).vstack(xs),


def hstack(xs: Any) -> Variable:
    """Join arrays horizontally: along axis 1, or axis 0 for 1-D (and 0-dim) inputs.

    >>> import numpy as np
    >>> hstack([np.zeros(2), np.ones(1)]).array
    array([0., 0., 1.])
    """
    return Hstack().apply(xs)[0]


def vstack(xs: Any) -> Variable:
    """Join arrays vertically: along axis 0, 1-D inputs becoming rows.

    >>> import numpy as np
    >>> vstack([np.zeros(2), np.ones(2)]).array
    array([[0., 0.],
           [1., 1.]])
    """
    return Vstack().apply(xs)[0]


class SplitAxis(FunctionNode):
    label = 'SplitAxis'

    def __init__(self, indices_or_sections: Any, axis: int) -> None:
        ios = indices_or_sections
        if _is_int(ios):
            if ios <= 0:
                raise ValueError('number sections must be larger than 0.')
            self.sections, self.indices = int(ios), None
        elif isinstance(ios, (list, tuple)) or (backend.is_array(ios) and ios.ndim == 1):
            self.sections, self.indices = None, [int(i) for i in ios]
        else:
            raise TypeError('indices_or_sections must be integer or 1-D array.\n'
                            f'Actual: {type(ios)}')
        if self.indices is not None and config.debug and self.indices != sorted(self.indices):
            raise ValueError('indices_or_sections must be sorted')  # debug mode, as Chainer
        self.axis = _int_axis(axis)

    def _check_inputs(self, xs: tuple) -> None:
        x, = xs
        _expect_axis(self.label, self.axis, x.ndim, 'in_types[0]')
        size = x.shape[self.axis]
        if self.sections is not None:
            expect(self.label, size % self.sections == 0,
                   f'in_types[0].shape[{self.axis}] % sections == 0',
                   f'{size % self.sections} != 0')
        elif self.indices:
            top = max(self.indices)
            expect(self.label, size >= top, f'in_types[0].shape[{self.axis}] >= max_index',
                   f'{size} < {top}')

    def forward(self, xs: tuple) -> tuple:
        x, = xs
        xp = backend.get_array_module(x)
        ys = xp.split(x, self.sections if self.indices is None else self.indices, self.axis)
        self._shapes = [y.shape for y in ys]
        return tuple(ys)

    def _overlapping(self) -> bool:
        """True when unsorted indices made pieces overlap (NumPy slices them as given)."""
        axis = self.axis % len(self.inputs[0].shape)
        return sum(s[axis] for s in self._shapes) != self.inputs[0].shape[axis]

    def _piece_slices(self) -> list:
        node = self.inputs[0]
        bounds = [0, *self.indices, node.shape[self.axis]]
        lead = (slice(None),) * (self.axis % len(node.shape))
        return [lead + (slice(a, b),) for a, b in itertools.pairwise(bounds)]

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        raws = _fill_none(tuple(_raw(g) for g in gys), self._shapes, self.inputs[0].dtype)
        grads = [g if g is not None else r for g, r in zip(gys, raws)]
        if not self._overlapping():
            return concat(grads, self.axis),
        node = self.inputs[0]
        parts = [GetItemGrad(sl, node.shape, node.dtype).apply((g,))[0]
                 for sl, g in zip(self._piece_slices(), grads)]
        gx = parts[0]
        for part in parts[1:]:
            gx = gx + part
        return gx,

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        grads = _fill_none(gys, self._shapes, self.inputs[0].dtype)
        if not self._overlapping():
            return backend.get_array_module(*grads).concatenate(grads, axis=self.axis),
        node = self.inputs[0]
        parts = [_get_item_grad(sl, node.shape, node.dtype, g)
                 for sl, g in zip(self._piece_slices(), grads)]
        gx = parts[0]
        for part in parts[1:]:
            gx = gx + part
        return gx,


def split_axis(x: Any, indices_or_sections: Any, axis: int, force_tuple: bool = True) -> Any:
    """Split ``x`` along ``axis`` into equal sections (an int) or at indices (a 1-D sequence).

    Returns a tuple of Variables; with ``force_tuple=False`` a single piece is returned
    as a Variable.

    >>> import numpy as np
    >>> [y.shape for y in split_axis(np.zeros((2, 6)), [1, 4], axis=1)]
    [(2, 1), (2, 3), (2, 2)]
    """
    ys = SplitAxis(indices_or_sections, axis).apply((x,))
    if not force_tuple and len(ys) == 1:
        return ys[0]
    return ys


class Separate(FunctionNode):
    label = 'Separate'

    def __init__(self, axis: int = 0) -> None:
        self.axis = _int_axis(axis)

    def _check_inputs(self, xs: tuple) -> None:
        _expect_axis(self.label, self.axis, xs[0].ndim)

    def forward(self, xs: tuple) -> tuple:
        return _separate_arrays(xs[0], self.axis % xs[0].ndim)

    def _shapes_axis(self) -> tuple:
        shape = self.inputs[0].shape
        axis = self.axis % len(shape)
        return [shape[:axis] + shape[axis + 1:]] * shape[axis], axis

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        shapes, axis = self._shapes_axis()
        raws = _fill_none(tuple(_raw(g) for g in gys), shapes, self.inputs[0].dtype)
        return stack([g if g is not None else r for g, r in zip(gys, raws)], axis),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        shapes, axis = self._shapes_axis()
        grads = _fill_none(gys, shapes, self.inputs[0].dtype)
        return backend.get_array_module(*grads).stack(grads, axis=axis),


def separate(x: Any, axis: int = 0) -> tuple:
    """The slices of ``x`` along ``axis`` (that axis removed), as a tuple of Variables.

    >>> import numpy as np
    >>> [y.array for y in separate(np.array([[1., 2.], [3., 4.]]), axis=1)]
    [array([1., 3.]), array([2., 4.])]
    """
    return Separate(axis).apply((x,))


# ---- where, select_item ---------------------------------------------------------------------


class Where(FunctionNode):
    """``condition ? x : y`` elementwise (broadcasting); ``condition`` is a constant mask."""

    label = 'Where'

    def __init__(self, condition: Any) -> None:
        self.condition = condition

    def _check_inputs(self, xs: tuple) -> None:
        c = self.condition
        expect(self.label, backend.is_array(c) and c.dtype == numpy.bool_,
               'condition.dtype == bool_', f'{getattr(c, "dtype", type(c).__name__)} != bool')
        x, y = xs
        expect(self.label, x.dtype == y.dtype, 'x.dtype == y.dtype', f'{x.dtype} != {y.dtype}')
        expect_broadcastable(self.label, (c, x, y))

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(*xs).where(self.condition, xs[0], xs[1]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        gy = gys[0]
        zero = backend.get_array_module(gy.array).zeros_like(gy.array, shape=())
        ret = []
        for i in indexes:
            g = where(self.condition, gy, zero) if i == 0 else where(self.condition, zero, gy)
            ret.append(sum_to(g, self.inputs[i].shape))
        return tuple(ret)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        gy = gys[0]
        xp = backend.get_array_module(gy)
        zero = xp.zeros_like(gy, shape=())
        ret = []
        for i in indexes:
            g = xp.where(self.condition, gy, zero) if i == 0 else \
                xp.where(self.condition, zero, gy)
            ret.append(sum_to_array(g, self.inputs[i].shape))
        return tuple(ret)


def where(condition: Any, x: Any, y: Any) -> Variable:
    """Choose elements from ``x`` where the boolean ``condition`` holds, else from ``y``.

    ``condition`` (an array, or a Variable whose array is used) is not differentiated;
    ``x`` and ``y`` share a dtype; all three broadcast.

    >>> import numpy as np
    >>> where(np.array([True, False]), np.array([1., 2.]), np.array([3., 4.])).array
    array([1., 4.])
    """
    if isinstance(condition, Variable):
        condition = condition.array
    return Where(condition).apply((x, y))[0]


class SelectItem(FunctionNode):
    """``x[i, t[i]]`` for each row ``i`` of a 2-D ``x``; ``t`` (integers) gets no gradient."""

    label = 'SelectItem'

    def _check_inputs(self, xs: tuple) -> None:
        x, t = xs
        expect(self.label, t.dtype.kind == 'i', 't.dtype.kind == i', f'{t.dtype.kind} != i')
        expect(self.label, x.ndim == 2, 'x.ndim == 2', f'{x.ndim} != 2')
        expect(self.label, t.ndim == 1, 't.ndim == 1', f'{t.ndim} != 1')
        expect(self.label, x.shape[0] == t.shape[0], 'x.shape[0] == t.shape[0]',
               f'{x.shape[0]} != {t.shape[0]}')

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((1,))
        x, t = xs
        return x[backend.get_array_module(x).arange(len(t)), t],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        node, t = self.inputs[0], self.inputs[1].data
        gx = SelectItemGrad(t, node.shape, node.dtype).apply(gys)[0]
        return tuple(gx if i == 0 else None for i in indexes)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        node, t = self.inputs[0], self.inputs[1].data
        gx = _select_item_grad(t, node.shape, node.dtype, gys[0])
        return tuple(gx if i == 0 else None for i in indexes)


def _select_item_grad(t: Any, shape: tuple, dtype: Any, gy: Any) -> Any:
    xp = backend.get_array_module(gy)
    gx = xp.zeros_like(gy, dtype=dtype, shape=shape)
    gx[xp.arange(len(t)), t] = gy
    return gx


class SelectItemGrad(FunctionNode):
    """Put each row's gradient at column ``t[i]`` of zeros (the backward of SelectItem)."""

    label = 'SelectItemGrad'

    def __init__(self, t: Any, in_shape: tuple, in_dtype: Any) -> None:
        self.t = t
        self._in_shape = in_shape
        self._in_dtype = in_dtype

    def forward(self, gys: tuple) -> tuple:
        return _select_item_grad(self.t, self._in_shape, self._in_dtype, gys[0]),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return select_item(ggs[0], self.t),

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        gg = ggs[0]
        return gg[backend.get_array_module(gg).arange(len(self.t)), self.t],


def select_item(x: Any, t: Any) -> Variable:
    """For each row ``i`` of the 2-D ``x``, the element at column ``t[i]``.

    >>> import numpy as np
    >>> select_item(np.array([[1., 2., 3.], [4., 5., 6.]]), np.array([2, 0])).array
    array([3., 4.])
    """
    return SelectItem().apply((x, t))[0]


# ---- repeat, tile, pad, flip ------------------------------------------------------------------


def _int_tuple(value: Any, message: str, negative_message: str) -> tuple:
    if _is_int(value):
        value = (value,)
    elif not (isinstance(value, tuple) and all(_is_int(v) for v in value)):
        raise TypeError(message)
    if any(v < 0 for v in value):
        raise ValueError(negative_message)
    return tuple(int(v) for v in value)


def _repeat_grad(gy: Any, repeats: Any, axis: int | None, in_shape: tuple) -> Any:
    """Sum each group of repeated copies of ``gy`` back into one element."""
    xp = backend.get_array_module(gy)
    flat = axis is None or len(in_shape) == 0
    work_shape = (size_of_shape(in_shape),) if flat else in_shape
    axis = 0 if flat else axis % len(in_shape)
    n = work_shape[axis]
    if isinstance(repeats, int):
        grouped = gy.reshape(work_shape[:axis] + (n, repeats) + work_shape[axis + 1:])
        gx = grouped.sum(axis=axis + 1, dtype=gy.dtype)
    elif n == 0:
        gx = xp.zeros_like(gy, shape=work_shape)
    else:
        lead = (slice(None),) * axis
        parts, start = [], 0
        for r in repeats:
            parts.append(gy[lead + (slice(start, start + r),)].sum(axis=axis, keepdims=True,
                                                                  dtype=gy.dtype))
            start += r
        gx = xp.concatenate(parts, axis=axis)
    return force_array(gx).reshape(in_shape)


class Repeat(FunctionNode):
    label = 'Repeat'

    def __init__(self, repeats: Any, axis: int | None = None) -> None:
        reps = _int_tuple(repeats, 'repeats must be int or tuple of ints',
                          'all elements in repeats must be zero or larger')
        self.repeats = reps[0] if len(reps) == 1 else reps
        self.axis = None if axis is None else _int_axis(axis)

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(xs[0]).repeat(xs[0], self.repeats, self.axis),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return RepeatGrad(self.repeats, self.axis, self.inputs[0].shape).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _repeat_grad(gys[0], self.repeats, self.axis, self.inputs[0].shape),


class RepeatGrad(FunctionNode):
    """Sums repeated copies (the backward of Repeat); its own gradient repeats again."""

    label = 'RepeatGrad'

    def __init__(self, repeats: Any, axis: int | None, in_shape: tuple) -> None:
        self.repeats = repeats
        self.axis = axis
        self.in_shape = in_shape

    def forward(self, gys: tuple) -> tuple:
        return _repeat_grad(gys[0], self.repeats, self.axis, self.in_shape),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return repeat(ggs[0], self.repeats, self.axis),

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return backend.get_array_module(ggs[0]).repeat(ggs[0], self.repeats, self.axis),


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """Repeat each element ``repeats`` times (an int, or a tuple: one count per element)
    along ``axis`` (None: over the flattened input), like ``numpy.repeat``.

    >>> import numpy as np
    >>> repeat(np.array([1., 2.]), (1, 3)).array
    array([1., 2., 2., 2.])
    """
    return Repeat(repeats, axis).apply((x,))[0]


def _tile_grad(gy: Any, reps: tuple, in_shape: tuple) -> Any:
    """Sum the tiled copies of ``gy`` back onto one copy of shape ``in_shape``."""
    ndim = gy.ndim
    shape = (1,) * (ndim - len(in_shape)) + in_shape
    counts = (1,) * (ndim - len(reps)) + reps
    paired = tuple(v for pair in zip(counts, shape) for v in pair)
    gx = gy.reshape(paired).sum(axis=tuple(range(0, 2 * ndim, 2)), dtype=gy.dtype)
    return force_array(gx).reshape(in_shape)


class Tile(FunctionNode):
    label = 'Tile'

    def __init__(self, reps: Any) -> None:
        self.reps = _int_tuple(reps, f'reps must be int or tuple of ints.\nActual: {type(reps)}',
                               'All elements in reps must be zero or larger')

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(xs[0]).tile(xs[0], self.reps),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return TileGrad(self.reps, self.inputs[0].shape).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _tile_grad(gys[0], self.reps, self.inputs[0].shape),


class TileGrad(FunctionNode):
    """Sums tiled copies (the backward of Tile); its own gradient tiles again."""

    label = 'TileGrad'

    def __init__(self, reps: tuple, in_shape: tuple) -> None:
        self.reps = reps
        self.in_shape = in_shape

    def forward(self, gys: tuple) -> tuple:
        return _tile_grad(gys[0], self.reps, self.in_shape),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return tile(ggs[0], self.reps),

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return backend.get_array_module(ggs[0]).tile(ggs[0], self.reps),


def tile(x: Any, reps: Any) -> Variable:
    """Repeat the whole array ``reps`` times (an int or a tuple), like ``numpy.tile``.

    >>> import numpy as np
    >>> tile(np.array([1., 2.]), 2).array
    array([1., 2., 1., 2.])
    """
    return Tile(reps).apply((x,))[0]


def _pad_pairs(pad_width: Any, ndim: int) -> tuple:
    widths = numpy.asarray(pad_width)
    if widths.dtype.kind not in 'iu':
        raise TypeError('`pad_width` must be of integral type.')
    widths = numpy.broadcast_to(widths, (ndim, 2))
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    return tuple((int(b), int(a)) for b, a in widths)


class Pad(FunctionNode):
    """``numpy.pad``.  Only the ``'constant'`` mode is differentiable (the gradient is the
    central part).  Other NumPy modes run forward, but their backward raises
    NotImplementedError (Chainer 7.8.1 silently returns the central part, which is wrong
    for modes that copy input values into the border)."""

    label = 'Pad'

    def __init__(self, pad_width: Any, mode: str, **keywords: Any) -> None:
        self.pad_width = pad_width
        self.mode = mode
        self.keywords = keywords

    def _check_inputs(self, xs: tuple) -> None:
        expect(self.label, xs[0].dtype.kind == 'f', 'x.dtype.kind == f',
               f'{xs[0].dtype.kind} != f')

    def forward(self, xs: tuple) -> tuple:
        x, = xs
        self._pairs = _pad_pairs(self.pad_width, x.ndim)
        return backend.get_array_module(x).pad(x, self._pairs, mode=self.mode,
                                                **self.keywords),

    def _center(self) -> tuple:
        return tuple(slice(b, b + n) for (b, _), n in zip(self._pairs, self.inputs[0].shape))

    def _check_mode(self) -> None:
        if self.mode != 'constant':
            raise NotImplementedError(f"pad: only mode='constant' is differentiable, not "
                                      f'{self.mode!r}')

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        self._check_mode()
        return get_item(gys[0], self._center()),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        self._check_mode()
        return gys[0][self._center()],


def pad(x: Any, pad_width: Any, mode: str, **keywords: Any) -> Variable:
    """Pad ``x`` as ``numpy.pad(x, pad_width, mode, **keywords)`` (float inputs only).

    Only ``mode='constant'`` (with optional ``constant_values``) is differentiable; the
    other modes work forward only (backward raises NotImplementedError).

    >>> import numpy as np
    >>> pad(np.array([1., 2.]), (1, 2), 'constant', constant_values=9).array
    array([9., 1., 2., 9., 9.])
    """
    return Pad(pad_width, mode, **keywords).apply((x,))[0]


class Flip(FunctionNode):
    label = 'Flip'

    def __init__(self, axis: int) -> None:
        self.axis = _int_axis(axis)

    def _check_inputs(self, xs: tuple) -> None:
        ndim = xs[0].ndim
        expect(self.label, ndim > 0, 'x.ndim > 0', f'{ndim} <= 0')
        _expect_axis(self.label, self.axis, ndim)

    def forward(self, xs: tuple) -> tuple:
        return backend.get_array_module(xs[0]).flip(xs[0], self.axis),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return flip(gys[0], self.axis),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return backend.get_array_module(gys[0]).flip(gys[0], self.axis),


def flip(x: Any, axis: int) -> Variable:
    """Reverse the order of the elements along ``axis``.

    >>> import numpy as np
    >>> flip(np.array([[1., 2.], [3., 4.]]), 1).array
    array([[2., 1.],
           [4., 3.]])
    """
    return Flip(axis).apply((x,))[0]
