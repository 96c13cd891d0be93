"""Connections: linear, convolution_2d (and its transpose, deconvolution_2d), embed_id.

``linear`` is the hot path of a multi-layer perceptron: its forward is one matrix
product (``x @ W.T``, plus the bias added in place) and its backward one product
per gradient (``gy @ W``, ``gy.T @ x``) and a column sum (``gy.sum(0)``).

Convolutions use im2col (see ``_conv``): a strided view of the padded image that
one ``tensordot`` with the filters turns into the output; gradients use its
adjoint col2im.  Each gradient is itself a node (the transposed convolution, the
filter gradient), so convolutions have gradients of every order.

>>> import numpy as np, autograd_lab as chainer, autograd_lab.functions as F
>>> x = chainer.Variable(np.array([[1., 2., 3.]], np.float32))
>>> W = chainer.Variable(np.array([[1., 0., -1.], [0.5, 0.5, 0.5]], np.float32))
>>> y = F.linear(x, W, np.zeros(2, np.float32))
>>> y.creator.label, y.array
('LinearFunction', array([[-2.,  3.]], dtype=float32))
>>> F.sum(y).backward()
>>> W.grad
array([[1., 2., 3.],
       [1., 2., 3.]], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.configuration import config
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._nn import require
from autograd_lab.functions._conv import (
    col2im, get_conv_outsize, get_deconv_outsize, im2col, pair,
)
from autograd_lab.functions.array import cast
from autograd_lab.functions.math import sum as _sum
from autograd_lab.utils import size_of_shape
from autograd_lab.utils.type_check import expect_float
from autograd_lab.variable import Variable


def _check_bias(label: str, inputs: tuple, out_size: int) -> None:
    if len(inputs) == 3:
        x, b = inputs[0], inputs[2]
        require(label, b.dtype == x.dtype, 'b.dtype == x.dtype', lambda: f'{b.dtype} != {x.dtype}')
        require(label, b.ndim == 1, 'b.ndim == 1', lambda: f'{b.ndim} != 1')
        require(label, b.shape[0] == out_size, 'b.shape[0] == W.shape[0]',
                lambda: f'{b.shape[0]} != {out_size}')


# ---- linear -------------------------------------------------------------------------------


class LinearFunction(FunctionNode):
    """``y = x @ W.T + b`` on a 2-D ``x``."""

    label = 'LinearFunction'

    def _check_inputs(self, inputs: tuple) -> None:
        # The common case in one expression (this runs for every layer of every step);
        # the detailed checks below only run to explain a failure.
        if len(inputs) in (2, 3):
            x, W = inputs[0], inputs[1]
            if x.ndim == 2 and W.ndim == 2 and x.shape[1] == W.shape[1] and \
                    x.dtype.kind == 'f' and W.dtype.kind == 'f':
                if len(inputs) == 2:
                    return
                b = inputs[2]
                if b.ndim == 1 and b.shape[0] == W.shape[0] and b.dtype == x.dtype:
                    return
        n = len(inputs)
        require(self.label, 2 <= n <= 3, '2 <= in_types.size() <= 3', lambda: f'{n} inputs')
        x, W = inputs[0], inputs[1]
        expect_float(self.label, (x, W))
        require(self.label, x.ndim == 2, 'x.ndim == 2', lambda: f'{x.ndim} != 2')
        require(self.label, W.ndim == 2, 'W.ndim == 2', lambda: f'{W.ndim} != 2')
        require(self.label, x.shape[1] == W.shape[1], 'x.shape[1] == W.shape[1]',
                lambda: f'{x.shape[1]} != {W.shape[1]}')
        _check_bias(self.label, inputs, W.shape[0])

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))  # b is not needed for backward
        x, W = inputs[0], inputs[1]
        y = x @ W.T
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, W = self.get_retained_inputs()
        gy, = gys
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(cast(LinearGradData().apply((W, gy))[0], x.dtype))
            elif i == 1:
                ret.append(cast(LinearGradWeight(W.dtype).apply((x, gy))[0], W.dtype))
            else:
                ret.append(_sum(gy, axis=0))
        return tuple(ret)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x, W = self.inputs[0].data, self.inputs[1].data
        gy, = gys
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_as_dtype(gy @ W, x.dtype))
            elif i == 1:
                ret.append(_as_dtype(gy.T @ x, W.dtype))
            else:
                ret.append(gy.sum(axis=0))
        return tuple(ret)


def _as_dtype(a: Any, dtype: Any) -> Any:
    return a if a.dtype == dtype else a.astype(dtype)


class LinearGradData(FunctionNode):
    """``gx = gy @ W`` as a node of ``(W, gy)``."""

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        W, gy = inputs
        return _as_dtype(gy @ W, gy.dtype),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        W, gy = self.get_retained_inputs()
        ggx, = ggs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(cast(LinearGradWeight(W.dtype).apply((ggx, gy))[0], W.dtype))
            else:
                ret.append(cast(linear(ggx, W), gy.dtype))
        return tuple(ret)


class LinearGradWeight(FunctionNode):
    """``gW = gy.T @ x`` as a node of ``(x, gy)``."""

    def __init__(self, w_dtype: Any) -> None:
        self._w_dtype = w_dtype

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return _as_dtype(gy.T @ x, self._w_dtype),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        x, gy = self.get_retained_inputs()
        ggW, = ggs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(cast(LinearGradData().apply((ggW, gy))[0], x.dtype))
            else:
                ret.append(cast(linear(x, ggW), gy.dtype))
        return tuple(ret)


def linear(x: Any, W: Any, b: Any = None, n_batch_axes: int = 1) -> Variable:
    """Fully connected layer ``y = x W^T + b``.

    Args:
        x: input, ``(batch..., in)``; axes after the first ``n_batch_axes`` are
            flattened into one (a Reshape node in front of the product).
        W: weights, ``(out, in)``.
        b: optional bias, ``(out,)``.
        n_batch_axes: how many leading axes of ``x`` are batch axes (kept in ``y``).

    >>> import numpy as np
    >>> x = np.ones((2, 3, 4), np.float32)
    >>> linear(x, np.ones((5, 12), np.float32)).shape
    (2, 5)
    >>> linear(x, np.ones((5, 4), np.float32), n_batch_axes=2).shape
    (2, 3, 5)
    """
    if n_batch_axes <= 0:
        raise ValueError('n_batch_axes should be greater than 0.')
    batch_shape = None
    if n_batch_axes > 1:
        batch_shape = x.shape[:n_batch_axes]
        x = x.reshape(size_of_shape(batch_shape), -1)
    elif x.ndim > 2:
        x = x.reshape(x.shape[0], -1)
    args = (x, W) if b is None else (x, W, b)
    y = LinearFunction().apply(args)[0]
    if batch_shape is not None:
        y = y.reshape(batch_shape + (-1,))
    return y


# ---- convolution ------------------------------------------------------------------------------


class _Geometry:
    """Strides, paddings, dilations and groups of a convolution (shared by its gradients)."""

    __slots__ = ('sy', 'sx', 'ph', 'pw', 'dy', 'dx', 'groups')

    def __init__(self, stride: Any, pad: Any, dilate: Any, groups: int) -> None:
        self.sy, self.sx = pair(stride)
        self.ph, self.pw = pair(pad)
        self.dy, self.dx = pair(dilate)
        self.groups = int(groups)
        if self.dy < 1 or self.dx < 1:
            raise ValueError(f'Dilate should be positive, but {dilate} is supplied.')
        if self.groups < 1:
            raise ValueError(f'groups should be positive, but {groups} is supplied.')

    def outsize(self, h: int, w: int, kh: int, kw: int, cover_all: bool) -> tuple:
        return (get_conv_outsize(h, kh, self.sy, self.ph, cover_all, self.dy),
                get_conv_outsize(w, kw, self.sx, self.pw, cover_all, self.dx))

    def col(self, x: Any, kh: int, kw: int, out_h: int, out_w: int) -> Any:
        return im2col(x, kh, kw, self.sy, self.sx, self.ph, self.pw, out_h, out_w, self.dy,
                      self.dx)


def _groups_split(a: Any, axis: int, groups: int) -> list:
    if groups == 1:
        return [a]
    n = a.shape[axis] // groups
    index = [slice(None)] * a.ndim
    parts = []
    for g in range(groups):
        index[axis] = slice(g * n, (g + 1) * n)
        parts.append(a[tuple(index)])
    return parts


def _concat(xp: Any, parts: list, axis: int) -> Any:
    return parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=axis)


def _conv_forward(geo: _Geometry, x: Any, W: Any, b: Any, out_h: int, out_w: int) -> Any:
    """``(n, c, h, w) * (oc, c/g, kh, kw) -> (n, oc, out_h, out_w)``."""
    xp = backend.get_array_module(x)
    kh, kw = W.shape[2:]
    ys = []
    for xg, Wg in zip(_groups_split(x, 1, geo.groups), _groups_split(W, 0, geo.groups)):
        col = geo.col(xg, kh, kw, out_h, out_w)
        ys.append(xp.tensordot(col, Wg, ((1, 2, 3), (1, 2, 3))))  # (n, oh, ow, oc/g)
    y = _concat(xp, ys, 3)
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    if b is not None:
        y += b
    return xp.moveaxis(y, 3, 1)


def _conv_grad_w(geo: _Geometry, x: Any, gy: Any, kh: int, kw: int, w_dtype: Any) -> Any:
    """Filter gradient ``(oc, c/g, kh, kw)`` of a convolution of ``x`` with output grad ``gy``."""
    xp = backend.get_array_module(x)
    out_h, out_w = gy.shape[2:]
    gws = []
    for xg, gyg in zip(_groups_split(x, 1, geo.groups), _groups_split(gy, 1, geo.groups)):
        col = geo.col(xg, kh, kw, out_h, out_w)
        gws.append(xp.tensordot(gyg, col, ((0, 2, 3), (0, 4, 5))))
    return _as_dtype(_concat(xp, gws, 0), w_dtype)


def _deconv_forward(geo: _Geometry, x: Any, W: Any, b: Any, h: int, w: int) -> Any:
    """Transposed convolution ``(n, c, oh, ow) * (c, oc/g, kh, kw) -> (n, oc, h, w)``."""
    xp = backend.get_array_module(x)
    ys = []
    for xg, Wg in zip(_groups_split(x, 1, geo.groups), _groups_split(W, 0, geo.groups)):
        gcol = xp.tensordot(Wg, xg, (0, 1))  # (oc/g, kh, kw, n, oh, ow)
        gcol = xp.moveaxis(gcol, 3, 0)
        ys.append(col2im(gcol, geo.sy, geo.sx, geo.ph, geo.pw, h, w, geo.dy, geo.dx))
    y = _as_dtype(_concat(xp, ys, 1), x.dtype)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def _check_conv(label: str, inputs: tuple, groups: int, w_in_axis: int) -> None:
    n = len(inputs)
    require(label, 2 <= n <= 3, '2 <= in_types.size() <= 3', lambda: f'{n} inputs')
    x, W = inputs[0], inputs[1]
    expect_float(label, (x, W))
    require(label, x.ndim == 4, 'x.ndim == 4', lambda: f'{x.ndim} != 4')
    require(label, W.ndim == 4, 'W.ndim == 4', lambda: f'{W.ndim} != 4')
    if w_in_axis == 1:  # convolution: W is (out, in/groups, kh, kw)
        require(label, x.shape[1] == W.shape[1] * groups, 'x.shape[1] == W.shape[1] * groups',
                lambda: f'{x.shape[1]} != {W.shape[1]} * {groups}')
        require(label, W.shape[0] % groups == 0, 'W.shape[0] % groups == 0',
                lambda: f'{W.shape[0]} % {groups} != 0')
        _check_bias(label, inputs, W.shape[0])
    else:  # transposed convolution: W is (in, out/groups, kh, kw)
        require(label, x.shape[1] == W.shape[0], 'x.shape[1] == W.shape[0]',
                lambda: f'{x.shape[1]} != {W.shape[0]}')
        require(label, W.shape[0] % groups == 0, 'W.shape[0] % groups == 0',
                lambda: f'{W.shape[0]} % {groups} != 0')
        _check_bias(label, inputs, W.shape[1] * groups)


def _convolve(geo: _Geometry, transposed: bool, a: Any, W: Any, hw: tuple, arrays: bool
              ) -> Any:
    """``a`` convolved (or, ``transposed``, transposed-convolved) with ``W`` to spatial size
    ``hw``: the gradients of the three convolution nodes are all such products.

    With ``arrays`` it is computed on raw arrays; otherwise it is a node on Variables, so
    that the gradient has gradients of its own.
    """
    if arrays:
        return (_deconv_forward if transposed else _conv_forward)(geo, a, W, None, *hw)
    if transposed:
        return Deconvolution2DFunction(geo, hw).apply((a, W))[0]
    return Convolution2DFunction(geo, outsize=tuple(hw)).apply((a, W))[0]


class _ConvolutionBase(FunctionNode):
    """The backward shared by a convolution and its transpose, which are each other's adjoint.

    The input gradient of either is the *other* one applied to ``(gy, W)``; the filter
    gradient is :class:`Convolution2DGradW` of (image, gradient of the convolution's output),
    i.e. ``(x, gy)`` for a convolution and ``(gy, x)`` for its transpose; the bias gradient
    sums ``gy`` over batch and space.  Written once for both backward paths (``arrays``).
    """

    geo: _Geometry
    _transposed = False

    def _grads(self, indexes: tuple, x: Any, W: Any, gy: Any, arrays: bool) -> tuple:
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_convolve(self.geo, not self._transposed, gy, W, x.shape[2:], arrays))
            elif i == 1:
                image, grad = (gy, x) if self._transposed else (x, gy)
                if arrays:
                    ret.append(_conv_grad_w(self.geo, image, grad, W.shape[2], W.shape[3],
                                            W.dtype))
                else:
                    ret.append(Convolution2DGradW(self.geo, W.shape, W.dtype)
                               .apply((image, grad))[0])
            else:
                ret.append(gy.sum(axis=(0, 2, 3)) if arrays else _sum(gy, axis=(0, 2, 3)))
        return tuple(ret)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, W = self.get_retained_inputs()
        return self._grads(indexes, x, W, gys[0], arrays=False)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return self._grads(indexes, self.inputs[0].data, self.inputs[1].data, gys[0],
                           arrays=True)


class Convolution2DFunction(_ConvolutionBase):
    """2-D convolution (cross-correlation, as in Chainer) of ``x`` with filters ``W``."""

    label = 'Convolution2DFunction'

    def __init__(self, geometry: _Geometry, cover_all: bool = False,
                 outsize: Any = None) -> None:
        self.geo = geometry
        self.cover_all = cover_all
        self.outsize = outsize  # forced (out_h, out_w): used by the gradients only

    def _check_inputs(self, inputs: tuple) -> None:
        _check_conv(self.label, inputs, self.geo.groups, 1)

    def _out_size(self, x: Any, W: Any) -> tuple:
        if self.outsize is not None:
            return self.outsize
        out_h, out_w = self.geo.outsize(x.shape[2], x.shape[3], W.shape[2], W.shape[3],
                                        self.cover_all)
        if out_h <= 0:
            raise RuntimeError('Height in the output should be positive.')
        if out_w <= 0:
            raise RuntimeError('Width in the output should be positive.')
        return out_h, out_w

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        out_h, out_w = self._out_size(x, W)
        return _conv_forward(self.geo, x, W, b, out_h, out_w),


class Deconvolution2DFunction(_ConvolutionBase):
    """Transposed 2-D convolution; ``outsize`` is the (h, w) of its output."""

    label = 'Deconvolution2DFunction'
    _transposed = True

    def __init__(self, geometry: _Geometry, outsize: tuple) -> None:
        self.geo = geometry
        self.outsize = tuple(outsize)

    def _check_inputs(self, inputs: tuple) -> None:
        _check_conv(self.label, inputs, self.geo.groups, 0)
        x, W = inputs[0], inputs[1]
        geo = self.geo
        kh, kw = W.shape[2:]
        h, w = self.outsize
        for size, out, k, s, p, d, name in ((x.shape[2], h, kh, geo.sy, geo.ph, geo.dy, 'h'),
                                            (x.shape[3], w, kw, geo.sx, geo.pw, geo.dx, 'w')):
            lo = get_conv_outsize(out, k, s, p, False, d)
            hi = get_conv_outsize(out, k, s, p, True, d)
            require(self.label, lo <= size <= hi,
                    f'outsize {name} is consistent with the input size',
                    f'input {size} not in [{lo}, {hi}] for outsize {out}')

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        return _deconv_forward(self.geo, x, W, b, *self.outsize),


class Convolution2DGradW(FunctionNode):
    """The filter gradient of a convolution, as a node of ``(x, gy)``."""

    def __init__(self, geometry: _Geometry, w_shape: tuple, w_dtype: Any) -> None:
        self.geo = geometry
        self.kh, self.kw = w_shape[2:]
        self.w_dtype = w_dtype

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return _conv_grad_w(self.geo, x, gy, self.kh, self.kw, self.w_dtype),

    def _grads(self, indexes: tuple, x: Any, gy: Any, ggW: Any, arrays: bool) -> tuple:
        # gW is bilinear in (x, gy): each one's gradient is the product of ggW with the other.
        return tuple(_convolve(self.geo, True, gy, ggW, x.shape[2:], arrays) if i == 0
                     else _convolve(self.geo, False, x, ggW, gy.shape[2:], arrays)
                     for i in indexes)

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        x, gy = self.get_retained_inputs()
        return self._grads(indexes, x, gy, ggs[0], arrays=False)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return self._grads(indexes, self.inputs[0].data, self.inputs[1].data, ggs[0],
                           arrays=True)


def _conv_kwargs(kwargs: dict) -> tuple:
    if 'deterministic' in kwargs:
        raise ValueError("'deterministic' argument is not supported anymore. Use "
                         "chainer.using_config('cudnn_deterministic', value) context where "
                         'value is either `True` or `False`.')
    dilate = kwargs.pop('dilate', 1)
    groups = kwargs.pop('groups', 1)
    if kwargs:
        raise TypeError('got unexpected keyword argument(s) '
                        f"{', '.join(map(repr, kwargs))}")
    return dilate, groups


def convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                   cover_all: bool = False, **kwargs: Any) -> Variable:
    """Two-dimensional convolution of ``x`` (n, c, h, w) with filters ``W`` (oc, c/groups, kh, kw).

    ``stride``, ``pad`` and the keyword-only ``dilate`` take an int or an (y, x) pair;
    ``groups`` splits the channels into independent convolutions.  ``cover_all``
    adds output positions so that every input pixel is covered.  The output has
    ``out = (size + 2 * pad - (k - 1) * dilate - 1) // stride + 1`` rows/columns
    (plus ``stride - 1`` before the division with ``cover_all``).

    >>> import numpy as np
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> W = np.ones((1, 1, 2, 2), np.float32)
    >>> convolution_2d(x, W, stride=2).array
    array([[[[10., 18.],
             [42., 50.]]]], dtype=float32)
    >>> convolution_2d(x, W, pad=1).shape
    (1, 1, 5, 5)
    """
    dilate, groups = _conv_kwargs(dict(kwargs))
    geo = _Geometry(stride, pad, dilate, groups)
    args = (x, W) if b is None else (x, W, b)
    return Convolution2DFunction(geo, cover_all).apply(args)[0]


def deconvolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                     outsize: Any = None, **kwargs: Any) -> Variable:
    """Transposed convolution (the gradient of :func:`convolution_2d` w.r.t. its input).

    ``W`` is (in_channels, out_channels / groups, kh, kw).  ``outsize`` is the (h, w)
    of the result; by default ``stride * (in - 1) + (k - 1) * dilate + 1 - 2 * pad``.

    >>> import numpy as np
    >>> x = np.ones((1, 1, 2, 2), np.float32)
    >>> deconvolution_2d(x, np.ones((1, 1, 2, 2), np.float32), stride=2).array[0, 0]
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.],
           [1., 1., 1., 1.],
           [1., 1., 1., 1.]], dtype=float32)
    """
    dilate, groups = _conv_kwargs(dict(kwargs))
    geo = _Geometry(stride, pad, dilate, groups)
    if outsize is None:
        kh, kw = W.shape[2:]
        h, w = x.shape[2:]
        outsize = (get_deconv_outsize(h, kh, geo.sy, geo.ph, d=geo.dy),
                   get_deconv_outsize(w, kw, geo.sx, geo.pw, d=geo.dx))
        if outsize[0] <= 0 or outsize[1] <= 0:
            raise RuntimeError('Output size of the deconvolution should be positive.')
    args = (x, W) if b is None else (x, W, b)
    return Deconvolution2DFunction(geo, pair(outsize)).apply(args)[0]


# ---- embed_id ---------------------------------------------------------------------------------


def _embed(x: Any, W: Any, ignore_label: Any) -> Any:
    if ignore_label is None:
        return W[x]
    xp = backend.get_array_module(W)
    mask = x == ignore_label
    return xp.where(mask[..., None], W.dtype.type(0), W[xp.where(mask, 0, x)])


def _embed_grad(x: Any, gy: Any, w_shape: tuple, ignore_label: Any) -> Any:
    """Scatter-add the rows of ``gy`` into a zero ``gW`` at the ids ``x`` (ignored ids skipped)."""
    xp = backend.get_array_module(gy)
    gW = xp.zeros(w_shape, dtype=gy.dtype)
    ids = x.reshape(-1)
    rows = gy.reshape(ids.size, -1)
    if ignore_label is not None:
        keep = ids != ignore_label
        ids, rows = ids[keep], rows[keep]
    if xp is numpy or hasattr(xp.add, 'at'):
        xp.add.at(gW, ids, rows)
    else:  # CuPy versions without ufunc.at
        import cupyx  # noqa: PLC0415
        cupyx.scatter_add(gW, ids, rows)
    return gW


class EmbedIDFunction(FunctionNode):
    """Row lookup ``W[x]``; rows of ``ignore_label`` ids are zeros."""

    label = 'EmbedIDFunction'

    def __init__(self, ignore_label: Any = None) -> None:
        self.ignore_label = ignore_label

    def _check_inputs(self, inputs: tuple) -> None:
        x, W = inputs
        require(self.label, x.dtype.kind == 'i', 'x.dtype.kind == i',
                lambda: f'{x.dtype.kind} != i')
        require(self.label, x.ndim >= 1, 'x.ndim >= 1', lambda: f'{x.ndim} < 1')
        expect_float(self.label, (W,))
        require(self.label, W.ndim == 2, 'W.ndim == 2', lambda: f'{W.ndim} != 2')

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0,))
        x, W = inputs
        self._w_shape = W.shape
        if config.debug:
            valid = (0 <= x) & (x < len(W))
            if self.ignore_label is not None:
                valid |= x == self.ignore_label
            if not valid.all():
                raise ValueError('Each not ignored `x` value need to satisfy `0 <= x < len(W)`')
        return _embed(x, W, self.ignore_label),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, = self.get_retained_inputs()
        gW = EmbedIDGrad(self._w_shape, self.ignore_label).apply((x, gys[0]))[0]
        return None, gW

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return None, _embed_grad(self.inputs[0].data, gys[0], self._w_shape, self.ignore_label)


class EmbedIDGrad(FunctionNode):
    """The gradient of embed_id w.r.t. ``W``, as a node of ``(x, gy)``."""

    def __init__(self, w_shape: tuple, ignore_label: Any = None) -> None:
        self.w_shape = w_shape
        self.ignore_label = ignore_label

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0,))
        x, gy = inputs
        return _embed_grad(x, gy, self.w_shape, self.ignore_label),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        x, = self.get_retained_inputs()
        return None, embed_id(x, ggs[0], self.ignore_label)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return None, _embed(self.inputs[0].data, ggs[0], self.ignore_label)


def embed_id(x: Any, W: Any, ignore_label: Any = None) -> Variable:
    """Look up rows of the embedding matrix ``W`` (vocab, dim) for the int ids ``x``.

    The result has shape ``x.shape + (dim,)``; ids equal to ``ignore_label`` give
    zero vectors and no gradient.

    >>> import numpy as np
    >>> W = np.array([[0., 0.], [1., 1.], [2., 2.]], np.float32)
    >>> embed_id(np.array([2, -1, 1], np.int32), W, ignore_label=-1).array
    array([[2., 2.],
           [0., 0.],
           [1., 1.]], dtype=float32)
    """
    return EmbedIDFunction(ignore_label).apply((x, W))[0]
