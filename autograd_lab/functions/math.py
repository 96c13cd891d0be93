"""Elementwise math, reductions and matrix products.

>>> import numpy as np, autograd_lab as chainer
>>> import autograd_lab.functions as F
>>> x = chainer.Variable(np.array([0.0, 1.0]))
>>> y = F.sum(F.exp(x))
>>> y.backward()
>>> x.grad
array([1.        , 2.71828183])
"""

from __future__ import annotations

from typing import Any, Optional

import numpy

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._util import sum_to_array
from autograd_lab.utils.type_check import expect, expect_float, expect_same_dtype
from autograd_lab.variable import Variable


class _FloatUnary(FunctionNode):
    """Elementwise function of one float input."""

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)


class Exp(_FloatUnary):
    label = 'exp'

    def forward(self, xs: tuple) -> tuple:
        self.retain_outputs((0,))
        return backend.get_array_module(xs[0]).exp(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return self.get_retained_outputs()[0] * gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return self._retained_output_data[0] * gys[0],


class Log(_FloatUnary):
    label = 'log'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        return backend.get_array_module(xs[0]).log(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0] / self.get_retained_inputs()[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0] / self.inputs[0].data,


class Sin(_FloatUnary):
    label = 'sin'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        return backend.get_array_module(xs[0]).sin(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return cos(self.get_retained_inputs()[0]) * gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        return backend.get_array_module(x).cos(x) * gys[0],


class Cos(_FloatUnary):
    label = 'cos'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        return backend.get_array_module(xs[0]).cos(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return -sin(self.get_retained_inputs()[0]) * gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        return -backend.get_array_module(x).sin(x) * gys[0],


class Tanh(_FloatUnary):
    label = 'Tanh'

    def forward(self, xs: tuple) -> tuple:
        self.retain_outputs((0,))
        return backend.get_array_module(xs[0]).tanh(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        y, = self.get_retained_outputs()
        return TanhGrad().apply((y, gys[0]))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _tanh_grad(self._retained_output_data[0], gys[0]),


def _tanh_grad(y: Any, gy: Any) -> Any:
    # gy * (1 - y²), written to allocate a single temporary.
    g = y * y
    xp = backend.get_array_module(g)
    xp.subtract(y.dtype.type(1), g, out=g)
    g *= gy
    return g


class TanhGrad(FunctionNode):
    """``gy * (1 - y²)`` as a node of its own, so tanh has gradients of every order."""

    label = 'TanhGrad'

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return _tanh_grad(y, gy),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        y, gy = self.get_retained_inputs()
        ggx, = ggs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(-2.0 * y * gy * ggx)
            else:
                ret.append(ggx * (1.0 - y * y))
        return tuple(ret)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        y, gy = self.inputs[0].data, self.inputs[1].data
        ggx, = ggs
        return tuple(y.dtype.type(-2) * y * gy * ggx if i == 0 else _tanh_grad(y, ggx)
                     for i in indexes)


class Sqrt(_FloatUnary):
    label = 'sqrt'

    def forward(self, xs: tuple) -> tuple:
        self.retain_outputs((0,))
        return backend.get_array_module(xs[0]).sqrt(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        y, = self.get_retained_outputs()
        return gys[0] / (2.0 * y),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        y = self._retained_output_data[0]
        return gys[0] / (y.dtype.type(2) * y),


class Square(_FloatUnary):
    label = 'square'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        return backend.get_array_module(xs[0]).square(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return 2.0 * self.get_retained_inputs()[0] * gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        return x.dtype.type(2) * x * gys[0],


def exp(x: Any) -> Variable:
    """Elementwise ``e**x``."""
    return Exp().apply((x,))[0]


def log(x: Any) -> Variable:
    """Elementwise natural logarithm."""
    return Log().apply((x,))[0]


def sin(x: Any) -> Variable:
    """Elementwise sine."""
    return Sin().apply((x,))[0]


def cos(x: Any) -> Variable:
    """Elementwise cosine."""
    return Cos().apply((x,))[0]


def tanh(x: Any) -> Variable:
    """Elementwise hyperbolic tangent."""
    return Tanh().apply((x,))[0]


def sqrt(x: Any) -> Variable:
    """Elementwise square root."""
    return Sqrt().apply((x,))[0]


def square(x: Any) -> Variable:
    """Elementwise ``x**2``."""
    return Square().apply((x,))[0]


# ---- reductions ------------------------------------------------------------------------------


def _normalize_axis(axis: Any, ndim: int, label: str) -> Optional[tuple]:
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    for a in axes:
        expect(label, -ndim <= a < ndim, f'-{ndim} <= axis < {ndim}', f'axis {a}')
    axes = tuple(sorted(a % ndim for a in axes))
    expect(label, len(set(axes)) == len(axes), 'axes are unique', f'{axis}')
    return axes


def _keepdims_shape(in_shape: tuple, axes: Optional[tuple]) -> tuple:
    if axes is None:
        return (1,) * len(in_shape)
    return tuple(1 if i in axes else n for i, n in enumerate(in_shape))


class Sum(FunctionNode):
    label = 'Sum'

    def __init__(self, axis: Optional[tuple] = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)

    def forward(self, xs: tuple) -> tuple:
        return xs[0].sum(axis=self.axis, keepdims=self.keepdims),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        from autograd_lab.functions.array import broadcast_to, reshape  # noqa: PLC0415
        shape = self.inputs[0].shape
        gy = reshape(gys[0], _keepdims_shape(shape, self.axis))
        return broadcast_to(gy, shape),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        shape = self.inputs[0].shape
        gy = gys[0].reshape(_keepdims_shape(shape, self.axis))
        return backend.get_array_module(gy).broadcast_to(gy, shape),


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Sum over ``axis`` (all axes when None); negative axes count from the end."""
    from autograd_lab.variable import as_variable  # noqa: PLC0415
    x = as_variable(x)
    return Sum(_normalize_axis(axis, x.ndim, 'Sum'), keepdims).apply((x,))[0]


class Mean(FunctionNode):
    label = 'Mean'

    def __init__(self, axis: Optional[tuple], keepdims: bool) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)

    def _count(self) -> int:
        shape = self.inputs[0].shape
        if self.axis is None:
            return int(numpy.prod(shape))
        return int(numpy.prod([shape[a] for a in self.axis]))

    def forward(self, xs: tuple) -> tuple:
        return xs[0].mean(axis=self.axis, keepdims=self.keepdims),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        from autograd_lab.functions.array import broadcast_to, reshape  # noqa: PLC0415
        shape = self.inputs[0].shape
        gy = reshape(gys[0], _keepdims_shape(shape, self.axis))
        return broadcast_to(gy * (1.0 / self._count()), shape),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        shape = self.inputs[0].shape
        gy = gys[0].reshape(_keepdims_shape(shape, self.axis))
        gy = gy * gy.dtype.type(1.0 / self._count())
        return backend.get_array_module(gy).broadcast_to(gy, shape),


def average(x: Any, axis: Any = None, weights: Any = None, keepdims: bool = False) -> Variable:
    """Mean over ``axis``, optionally weighted by ``weights`` (along one axis)."""
    from autograd_lab.functions.array import broadcast_to, reshape  # noqa: PLC0415
    from autograd_lab.variable import as_variable  # noqa: PLC0415
    x = as_variable(x)
    axes = _normalize_axis(axis, x.ndim, 'Mean')
    if weights is None:
        return Mean(axes, keepdims).apply((x,))[0]
    weights = as_variable(weights)
    if axes is not None and len(axes) == 1 and weights.ndim == 1:
        shape = [1] * x.ndim
        shape[axes[0]] = weights.shape[0]
        weights = broadcast_to(reshape(weights, tuple(shape)), x.shape)
    return sum(x * weights, axis, keepdims) / sum(weights, axis, keepdims)


mean = average


# ---- matrix product ---------------------------------------------------------------------------


def _swap_last(a: Any) -> Any:
    return a.swapaxes(-1, -2) if a.ndim >= 2 else a


class MatMul(FunctionNode):
    """``numpy.matmul`` semantics (1-D, 2-D, batched and broadcast batch shapes)."""

    label = 'MatMul'

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def _check_inputs(self, xs: tuple) -> None:
        a, b = xs
        expect_same_dtype(self.label, xs)
        expect_float(self.label, xs)
        expect(self.label, a.ndim >= 1 and b.ndim >= 1, 'in_types[i].ndim >= 1',
               f'{a.ndim}, {b.ndim}')
        ka = a.shape[-2] if self.transa and a.ndim >= 2 else a.shape[-1]
        kb = b.shape[-1] if self.transb and b.ndim >= 2 else b.shape[-2] if b.ndim >= 2 \
            else b.shape[0]
        expect(self.label, ka == kb, 'in_types[0].shape[-1] == in_types[1].shape[-2]',
               f'{ka} != {kb}')

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        a, b = xs
        if self.transa:
            a = _swap_last(a)
        if self.transb:
            b = _swap_last(b)
        return backend.get_array_module(a).matmul(a, b),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        from autograd_lab.functions.array import reshape, sum_to  # noqa: PLC0415
        a, b = self.get_retained_inputs()
        return _matmul_grads(self, indexes, a, b, gys[0], matmul, reshape, sum_to)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        a, b = self.inputs[0].data, self.inputs[1].data
        xp = backend.get_array_module(a)

        def mm(p: Any, q: Any, transa: bool = False, transb: bool = False) -> Any:
            return xp.matmul(_swap_last(p) if transa else p, _swap_last(q) if transb else q)

        return _matmul_grads(self, indexes, a, b, gys[0], mm,
                             lambda v, s: v.reshape(s), sum_to_array)


def _matmul_grads(node: MatMul, indexes: tuple, a: Any, b: Any, gy: Any, mm: Any,
                  reshape: Any, sum_to: Any) -> tuple:
    """Gradients of ``matmul(op(a), op(b))`` written once for Variables and for arrays."""
    a_shape, b_shape = a.shape, b.shape
    if a.ndim == 1:
        a = reshape(a, (1,) + a_shape)
    if b.ndim == 1:
        b = reshape(b, b_shape + (1,))
    at, bt = node.transa and len(a_shape) >= 2, node.transb and len(b_shape) >= 2
    m = a.shape[-1] if at else a.shape[-2]
    p = b.shape[-2] if bt else b.shape[-1]
    batch = numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    gy = reshape(gy, batch + (m, p))
    ret = []
    for i in indexes:
        if i == 0:  # d/d op(a) = gy @ op(b)^T
            g = mm(b, gy, transa=bt, transb=True) if at else mm(gy, b, transb=not bt)
            ret.append(reshape(sum_to(g, a.shape), a_shape))
        else:  # d/d op(b) = op(a)^T @ gy
            g = mm(gy, a, transa=True, transb=at) if bt else mm(a, gy, transa=not at)
            ret.append(reshape(sum_to(g, b.shape), b_shape))
    return tuple(ret)


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Matrix product with ``numpy.matmul`` rules; ``transa``/``transb`` swap the last two axes.

    >>> import numpy as np
    >>> matmul(np.ones((2, 3)), np.ones((3,))).shape
    (2,)
    """
    return MatMul(transa, transb).apply((a, b))[0]
