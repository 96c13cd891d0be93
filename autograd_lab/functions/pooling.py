"""2-D pooling: max_pooling_2d and average_pooling_2d (NCHW input).

Both read the windows through the im2col view of ``_conv`` and send gradients back
with its adjoint col2im, so there is no Python loop over pixels.  Their gradient
nodes are linear maps whose own gradients are pooling again, so both functions
have gradients of every order.

>>> import numpy as np, autograd_lab.functions as F
>>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
>>> F.max_pooling_2d(x, 2).array
array([[[[ 5.,  7.],
         [13., 15.]]]], dtype=float32)
>>> F.average_pooling_2d(x, 2).array
array([[[[ 2.5,  4.5],
         [10.5, 12.5]]]], dtype=float32)
"""

from __future__ import annotations

from typing import Any

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._nn import require
from autograd_lab.functions._conv import col2im, col2im_shared, get_conv_outsize, im2col, pair
from autograd_lab.utils.type_check import expect_float
from autograd_lab.variable import Variable


class _Pooling2D(FunctionNode):
    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0,
                 cover_all: bool = True) -> None:
        if stride is None:
            stride = ksize
        self.kh, self.kw = pair(ksize)
        self.sy, self.sx = pair(stride)
        self.ph, self.pw = pair(pad)
        self.cover_all = cover_all

    def _check_inputs(self, inputs: tuple) -> None:
        expect_float(self.label, inputs)
        require(self.label, inputs[0].ndim == 4, 'x.ndim == 4', lambda: f'{inputs[0].ndim} != 4')

    def _out_size(self, h: int, w: int) -> tuple:
        out_h = get_conv_outsize(h, self.kh, self.sy, self.ph, self.cover_all)
        out_w = get_conv_outsize(w, self.kw, self.sx, self.pw, self.cover_all)
        if out_h <= 0 or out_w <= 0:
            raise RuntimeError(f'The output of {self.label} would be empty: input {h}x{w}, '
                               f'ksize {self.kh}x{self.kw}, pad {self.ph}x{self.pw}')
        return out_h, out_w

    def _col(self, x: Any, out_h: int, out_w: int, pval: Any) -> Any:
        return im2col(x, self.kh, self.kw, self.sy, self.sx, self.ph, self.pw, out_h, out_w,
                      pval=pval)


# ---- max pooling --------------------------------------------------------------------------


class MaxPooling2D(_Pooling2D):
    """Max over each window; the arg-max positions are kept for backward (``indexes``)."""

    label = 'MaxPoolingND'  # Chainer 7's max_pooling_2d is its N-d node

    def forward(self, inputs: tuple) -> tuple:
        x, = inputs
        n, c, h, w = x.shape
        out_h, out_w = self._out_size(h, w)
        col = self._col(x, out_h, out_w, -float('inf'))
        col = col.reshape(n, c, self.kh * self.kw, out_h, out_w)
        self.indexes = col.argmax(axis=2)
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        return col.max(axis=2),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return MaxPooling2DGrad(self).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _max_pool_grad(self, gys[0]),


def _max_pool_grad(func: MaxPooling2D, gy: Any) -> Any:
    """Each output gradient goes to the input pixel its window's maximum came from."""
    xp = backend.get_array_module(gy)
    n, c, out_h, out_w = gy.shape
    k = func.kh * func.kw
    onehot = xp.arange(k).reshape(1, 1, k, 1, 1) == func.indexes[:, :, None]
    gcol = xp.where(onehot, gy[:, :, None], func._in_dtype.type(0))
    gcol = gcol.reshape(n, c, func.kh, func.kw, out_h, out_w)
    h, w = func._in_shape[2:]
    return col2im(gcol, func.sy, func.sx, func.ph, func.pw, h, w)


def _max_pool_gather(func: MaxPooling2D, x: Any) -> Any:
    """``x`` read at the arg-max positions of ``func`` (the adjoint of _max_pool_grad)."""
    xp = backend.get_array_module(x)
    n, c, out_h, out_w = func.indexes.shape
    col = func._col(x, out_h, out_w, 0)
    col = col.reshape(n, c, func.kh * func.kw, out_h, out_w)
    return xp.take_along_axis(col, func.indexes[:, :, None], axis=2)[:, :, 0]


class MaxPooling2DGrad(FunctionNode):
    """Scatter of the output gradient to the arg-max pixels (linear in its input)."""

    def __init__(self, func: MaxPooling2D) -> None:
        self.func = func

    def forward(self, inputs: tuple) -> tuple:
        return _max_pool_grad(self.func, inputs[0]),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return MaxPooling2DWithIndexes(self.func).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return _max_pool_gather(self.func, ggs[0]),


class MaxPooling2DWithIndexes(FunctionNode):
    """Pooling of its input at the arg-max positions found by an earlier max pooling."""

    def __init__(self, func: MaxPooling2D) -> None:
        self.func = func

    def forward(self, inputs: tuple) -> tuple:
        return _max_pool_gather(self.func, inputs[0]),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return MaxPooling2DGrad(self.func).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return _max_pool_grad(self.func, ggs[0]),


def max_pooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                   cover_all: bool = True, return_indices: bool = False) -> Any:
    """Max over ``ksize`` windows of ``x`` (n, c, h, w), moved by ``stride`` (default ``ksize``).

    Padding counts as ``-inf``.  With ``cover_all=True`` (the default, as in Chainer)
    the windows also cover the last rows/columns that a plain sliding window would
    miss, so the output has ``(size + 2 * pad - ksize + stride - 1) // stride + 1``
    positions.  ``return_indices=True`` also returns the arg-max index inside each
    window (``(y, indexes)``).

    >>> import numpy as np
    >>> x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    >>> max_pooling_2d(x, 2).shape, max_pooling_2d(x, 2, cover_all=False).shape
    ((1, 1, 3, 3), (1, 1, 2, 2))
    """
    if len(x.shape[2:]) != 2:
        raise ValueError("The number of dimensions under channel dimension of the input 'x' "
                         f'should be 2. But the actual ndim was {len(x.shape[2:])}.')
    func = MaxPooling2D(ksize, stride, pad, cover_all)
    y = func.apply((x,))[0]
    if return_indices:
        return y, func.indexes
    return y


# ---- average pooling --------------------------------------------------------------------------


class AveragePooling2D(_Pooling2D):
    """Mean over each window; padding counts as zeros (divisor: always ``kh * kw``)."""

    label = 'AveragePooling2D'

    def forward(self, inputs: tuple) -> tuple:
        x, = inputs
        out_h, out_w = self._out_size(*x.shape[2:])
        self._in_shape = x.shape
        return _avg_pool(self, x, out_h, out_w),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return AveragePooling2DGrad(self).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _avg_pool_grad(self, gys[0]),


def _avg_pool(func: _Pooling2D, x: Any, out_h: int, out_w: int) -> Any:
    return func._col(x, out_h, out_w, 0).mean(axis=(2, 3))


def _avg_pool_grad(func: AveragePooling2D, gy: Any) -> Any:
    h, w = func._in_shape[2:]
    gx = col2im_shared(gy, func.kh, func.kw, func.sy, func.sx, func.ph, func.pw, h, w)
    gx /= gx.dtype.type(func.kh * func.kw)
    return gx


class AveragePooling2DGrad(FunctionNode):
    """Spreads each output gradient evenly over its window (linear in its input)."""

    def __init__(self, func: AveragePooling2D) -> None:
        self.func = func

    def forward(self, inputs: tuple) -> tuple:
        return _avg_pool_grad(self.func, inputs[0]),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        f = self.func
        return AveragePooling2D((f.kh, f.kw), (f.sy, f.sx), (f.ph, f.pw), False).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        gy_shape = self.inputs[0].shape
        return _avg_pool(self.func, ggs[0], gy_shape[2], gy_shape[3]),


def average_pooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0) -> Variable:
    """Mean over ``ksize`` windows of ``x`` (n, c, h, w), moved by ``stride`` (default ``ksize``).

    Padded pixels count as zeros and every window is divided by ``kh * kw``
    (Chainer's behaviour); there is no ``cover_all`` mode.

    >>> import numpy as np
    >>> x = np.ones((1, 1, 2, 2), np.float32)
    >>> average_pooling_2d(x, 2, stride=1, pad=1).array
    array([[[[0.25, 0.5 , 0.25],
             [0.5 , 1.  , 0.5 ],
             [0.25, 0.5 , 0.25]]]], dtype=float32)
    """
    return AveragePooling2D(ksize, stride, pad, False).apply((x,))[0]
