"""Normalization: batch_normalization, fixed_batch_normalization, layer_normalization.

``batch_normalization`` always normalizes with the statistics of the batch it is
given (and, when ``running_mean``/``running_var`` arrays are passed, updates them
in place); ``chainer.config.train`` does not change it, exactly as in Chainer.  At
test time use ``fixed_batch_normalization`` with the running statistics
(``L.BatchNormalization`` switches between the two on ``config.train``).

The backward of each node is one formula written for both Variables and arrays:
on Variables the batch statistics are recomputed from ``x`` with differentiable
functions, so gradients of any order are exact; on arrays (the fast path) the
statistics saved by forward, bitwise the same, are reused.

>>> import numpy as np, autograd_lab.functions as F
>>> x = np.array([[1., 10.], [3., 30.]], np.float32)
>>> y = F.batch_normalization(x, np.ones(2, np.float32), np.zeros(2, np.float32))
>>> y.creator.label, y.array.round(3)
('BatchNormalization', array([[-1., -1.],
       [ 1.,  1.]], dtype=float32))
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions.array import reshape as _reshape
from autograd_lab.functions.math import average as _average
from autograd_lab.functions.math import sqrt as _sqrt
from autograd_lab.functions.math import sum as _sum
from autograd_lab.functions._nn import as_array, require
from autograd_lab.utils.type_check import expect_float, expect_same_dtype
from autograd_lab.variable import Variable


class _ArrayOps:
    """The array side of the shared formulas (fast path)."""

    @staticmethod
    def mean(v: Any, axes: tuple) -> Any:
        return v.mean(axis=axes, keepdims=True)

    @staticmethod
    def sum(v: Any, axes: tuple) -> Any:
        return as_array(v.sum(axis=axes), v)

    @staticmethod
    def sqrt(v: Any) -> Any:
        return backend.get_array_module(v).sqrt(v)

    @staticmethod
    def reshape(v: Any, shape: tuple) -> Any:
        return v.reshape(shape)


class _VariableOps:
    """The Variable side: the same operations as differentiable nodes."""

    @staticmethod
    def mean(v: Any, axes: tuple) -> Any:
        return _average(v, axis=axes, keepdims=True)

    @staticmethod
    def sum(v: Any, axes: tuple) -> Any:
        return _sum(v, axis=axes)

    sqrt = staticmethod(_sqrt)
    reshape = staticmethod(_reshape)


def _stats(ops: Any, x: Any, axes: tuple, eps: float) -> tuple:
    """Centered ``x``, biased variance and ``1 / sqrt(var + eps)`` (keepdims shapes)."""
    c = x.dtype.type
    mean = ops.mean(x, axes)
    xc = x - mean
    var = ops.mean(xc * xc, axes)
    inv_std = c(1) / ops.sqrt(var + c(eps))
    return mean, xc, var, inv_std


def _normalize_axis_option(axis: Any) -> Any:
    if isinstance(axis, Sequence):
        axis = tuple(axis)
        for i in range(1, len(axis)):
            if axis[i - 1] >= axis[i]:
                raise RuntimeError('numbers in axis must be sorted in ascending order')
        return axis
    if isinstance(axis, int):
        return (axis,)
    if axis is not None:
        raise RuntimeError('axis must be int, tuple of int or None')
    return None


def _compute_axis(x_ndim: int, gamma_ndim: int, axis: Any) -> tuple:
    if axis is not None:
        return axis
    return (0, *range(gamma_ndim + 1, x_ndim))


def _key_axis(x_ndim: int, axis: tuple) -> tuple:
    return tuple(i for i in range(x_ndim) if i not in axis)


def _check_bn_shapes(label: str, x: Any, gamma: Any, axis_option: Any) -> tuple:
    axis = _compute_axis(x.ndim, gamma.ndim, axis_option)
    require(label, x.ndim >= len(axis), 'x.ndim >= len(axis)', lambda: f'{x.ndim} < {len(axis)}')
    require(label, all(-x.ndim <= a < x.ndim for a in axis), 'every axis < x.ndim',
            lambda: f'axis {axis} for x.ndim {x.ndim}')
    key = _key_axis(x.ndim, axis)
    require(label, gamma.ndim == len(key), 'gamma.ndim == x.ndim - len(axis)',
            lambda: f'{gamma.ndim} != {len(key)}')
    require(label, tuple(x.shape[i] for i in key) == gamma.shape,
            'x.shape[key_axis] == gamma.shape',
            lambda: f'{tuple(x.shape[i] for i in key)} != {gamma.shape}')
    return axis, key


def _expanded_shape(x_shape: tuple, key: tuple) -> tuple:
    """The shape gamma takes to broadcast against x (1 on the reduced axes)."""
    return tuple(n if i in key else 1 for i, n in enumerate(x_shape))


# ---- batch normalization -------------------------------------------------------------------


class BatchNormalization(FunctionNode):
    """``gamma * (x - mean) / sqrt(var + eps) + beta`` with the batch's mean and variance."""

    label = 'BatchNormalization'

    def __init__(self, eps: float = 2e-5, mean: Any = None, var: Any = None,
                 decay: float = 0.9, axis: Any = None) -> None:
        self.running_mean = mean
        self.running_var = var
        self.eps = eps
        self.decay = decay
        self.axis = _normalize_axis_option(axis)

    def _check_inputs(self, inputs: tuple) -> None:
        require(self.label, len(inputs) == 3, 'in_types.size() == 3',
                lambda: f'{len(inputs)} inputs')
        x, gamma, beta = inputs
        expect_float(self.label, (x, gamma))
        expect_same_dtype(self.label, inputs)
        require(self.label, gamma.shape == beta.shape, 'gamma.shape == beta.shape',
                lambda: f'{gamma.shape} != {beta.shape}')
        _check_bn_shapes(self.label, x, gamma, self.axis)

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        self.axis = _compute_axis(x.ndim, gamma.ndim, self.axis)
        self.key_axis = _key_axis(x.ndim, self.axis)
        if all(x.shape[i] == 1 for i in self.axis):
            warnings.warn('A batch with no more than one sample has been given to '
                          'F.batch_normalization: it will output zeros (the batch statistics '
                          'of a single sample are the sample itself). Is chainer.config.train '
                          'True while evaluating?', UserWarning, stacklevel=3)
        expanded = _expanded_shape(x.shape, self.key_axis)
        self.mean, xc, var, self.inv_std = _stats(_ArrayOps, x, self.axis, self.eps)
        y = gamma.reshape(expanded) * (xc * self.inv_std) + beta.reshape(expanded)
        self._update_running(x, gamma, var)
        return y,

    def _update_running(self, x: Any, gamma: Any, var: Any) -> None:
        m = x.size // max(gamma.size, 1)
        adjust = m / max(m - 1., 1.)  # unbiased variance for the running estimate
        decay = self.decay
        if self.running_mean is not None:
            self.running_mean *= decay
            self.running_mean += (1 - decay) * self.mean.reshape(gamma.shape)
        if self.running_var is not None:
            self.running_var *= decay
            self.running_var += (1 - decay) * adjust * var.reshape(gamma.shape)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, gamma = self.get_retained_inputs()
        _, xc, _, inv_std = _stats(_VariableOps, x, self.axis, self.eps)
        return _bn_grads(_VariableOps, indexes, x, gamma, gys[0], xc, inv_std, self.axis,
                         self.key_axis)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x, gamma = self.inputs[0].data, self.inputs[1].data
        return _bn_grads(_ArrayOps, indexes, x, gamma, gys[0], x - self.mean, self.inv_std,
                         self.axis, self.key_axis)


def _bn_grads(ops: Any, indexes: tuple, x: Any, gamma: Any, gy: Any, xc: Any, inv_std: Any,
              axis: tuple, key: tuple) -> tuple:
    expanded = _expanded_shape(x.shape, key)
    x_hat = xc * inv_std
    gbeta = ops.sum(gy, axis)
    ggamma = ops.sum(gy * x_hat, axis)
    ret = []
    for i in indexes:
        if i == 0:
            inv_m = x.dtype.type(1. / (x.size // max(gamma.size, 1)))
            mean_part = x_hat * ops.reshape(ggamma, expanded) + ops.reshape(gbeta, expanded)
            ret.append((ops.reshape(gamma, expanded) * inv_std) * (gy - mean_part * inv_m))
        elif i == 1:
            ret.append(ggamma)
        else:
            ret.append(gbeta)
    return tuple(ret)


def batch_normalization(x: Any, gamma: Any, beta: Any, **kwargs: Any) -> Variable:
    """Batch normalization with the statistics of the given batch.

    Keyword arguments (as in Chainer): ``eps=2e-5``; ``running_mean`` and
    ``running_var`` (arrays updated in place with ``decay=0.9``, the variance
    unbiased); ``axis`` (the axes to normalize over; by default every axis but 1
    and those of ``gamma``: ``(0, 2, 3)`` for images).  ``gamma`` and ``beta`` have
    the shape of the remaining axes.  ``train=`` is rejected.

    >>> import numpy as np
    >>> x = np.array([[1.], [3.]], np.float32)
    >>> rm, rv = np.zeros(1, np.float32), np.ones(1, np.float32)
    >>> batch_normalization(x, np.ones(1, np.float32), np.zeros(1, np.float32),
    ...                     running_mean=rm, running_var=rv).array.round(3)
    array([[-1.],
           [ 1.]], dtype=float32)
    >>> rm, rv    # 0.9 * old + 0.1 * batch (the variance unbiased: 2)
    (array([0.2], dtype=float32), array([1.1], dtype=float32))
    """
    if 'train' in kwargs:
        raise ValueError('train argument is not supported anymore. Use chainer.using_config')
    eps = kwargs.pop('eps', 2e-5)
    running_mean = kwargs.pop('running_mean', None)
    running_var = kwargs.pop('running_var', None)
    decay = kwargs.pop('decay', 0.9)
    axis = kwargs.pop('axis', None)
    if kwargs:
        raise TypeError('got unexpected keyword argument(s) '
                        f"{', '.join(map(repr, kwargs))}")
    return BatchNormalization(eps, running_mean, running_var, decay, axis).apply(
        (x, gamma, beta))[0]


class FixedBatchNormalization(FunctionNode):
    """``gamma * (x - mean) / sqrt(var + eps) + beta`` with given (fixed) ``mean`` and ``var``."""

    label = 'FixedBatchNormalization'

    def __init__(self, eps: float = 2e-5, axis: Any = None) -> None:
        self.eps = eps
        self.axis = _normalize_axis_option(axis)

    def _check_inputs(self, inputs: tuple) -> None:
        require(self.label, len(inputs) == 5, 'in_types.size() == 5',
                lambda: f'{len(inputs)} inputs')
        x, gamma = inputs[:2]
        expect_float(self.label, (x, gamma))
        expect_same_dtype(self.label, inputs)
        for name, a in zip(('beta', 'mean', 'var'), inputs[2:]):
            require(self.label, a.shape == gamma.shape, f'{name}.shape == gamma.shape',
                    f'{a.shape} != {gamma.shape}')
        _check_bn_shapes(self.label, x, gamma, self.axis)

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1, 3, 4))
        x, gamma, beta, mean, var = inputs
        self.axis = _compute_axis(x.ndim, gamma.ndim, self.axis)
        self.key_axis = _key_axis(x.ndim, self.axis)
        expanded = _expanded_shape(x.shape, self.key_axis)
        c = x.dtype.type
        inv_std = c(1) / _ArrayOps.sqrt(var + c(self.eps))
        x_hat = (x - mean.reshape(expanded)) * inv_std.reshape(expanded)
        return gamma.reshape(expanded) * x_hat + beta.reshape(expanded),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, gamma, mean, var = self.get_retained_inputs()
        return _fixed_bn_grads(_VariableOps, indexes, x, gamma, mean, var, gys[0], self.eps,
                               self.axis, self.key_axis)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x, gamma, _, mean, var = (n.data for n in self.inputs)
        return _fixed_bn_grads(_ArrayOps, indexes, x, gamma, mean, var, gys[0], self.eps,
                               self.axis, self.key_axis)


def _fixed_bn_grads(ops: Any, indexes: tuple, x: Any, gamma: Any, mean: Any, var: Any,
                    gy: Any, eps: float, axis: tuple, key: tuple) -> tuple:
    expanded = _expanded_shape(x.shape, key)
    c = x.dtype.type
    inv_std = c(1) / ops.sqrt(var + c(eps))
    x_hat = (x - ops.reshape(mean, expanded)) * ops.reshape(inv_std, expanded)
    gbeta = ops.sum(gy, axis)
    ggamma = ops.sum(gy * x_hat, axis)
    gamma_std = gamma * inv_std
    ret = []
    for i in indexes:
        if i == 0:
            ret.append(gy * ops.reshape(gamma_std, expanded))
        elif i == 1:
            ret.append(ggamma)
        elif i == 2:
            ret.append(gbeta)
        elif i == 3:
            ret.append(-(gamma_std * gbeta))
        else:  # d/dvar of (var + eps) ** -0.5 is -0.5 * inv_std ** 3
            ret.append(gamma * ggamma * (inv_std * inv_std) * c(-0.5))
    return tuple(ret)


def fixed_batch_normalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                              eps: float = 2e-5, axis: Any = None) -> Variable:
    """Batch normalization with given statistics (test mode): differentiable w.r.t. all inputs.

    >>> import numpy as np
    >>> x = np.array([[1.], [3.]], np.float32)
    >>> one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
    >>> fixed_batch_normalization(x, one, zero, one, 4 * one, eps=0).array
    array([[0.],
           [1.]], dtype=float32)
    """
    return FixedBatchNormalization(eps, axis).apply((x, gamma, beta, mean, var))[0]


# ---- layer normalization -----------------------------------------------------------------------


class LayerNormalization(FunctionNode):
    """Per-sample normalization of a 2-D ``x`` over axis 1, then ``* gamma + beta``."""

    label = 'LayerNormalization'

    def __init__(self, eps: float = 1e-5) -> None:
        self.eps = eps

    def _check_inputs(self, inputs: tuple) -> None:
        require(self.label, len(inputs) == 3, 'in_types.size() == 3',
                lambda: f'{len(inputs)} inputs')
        x, gamma, beta = inputs
        expect_float(self.label, (x,))
        expect_same_dtype(self.label, inputs)
        require(self.label, x.ndim == 2, 'x.ndim == 2', lambda: f'{x.ndim} != 2')
        require(self.label, gamma.ndim == 1 and beta.ndim == 1, 'gamma.ndim == beta.ndim == 1',
                lambda: f'{gamma.ndim}, {beta.ndim}')
        require(self.label, gamma.shape == beta.shape == x.shape[1:],
                'gamma.shape == beta.shape == x.shape[1:]',
                lambda: f'{gamma.shape}, {beta.shape}, {x.shape[1:]}')

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        self.mean, xc, _, self.inv_std = _stats(_ArrayOps, x, (1,), self.eps)
        return (xc * self.inv_std) * gamma + beta,

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, gamma = self.get_retained_inputs()
        _, xc, _, inv_std = _stats(_VariableOps, x, (1,), self.eps)
        return _ln_grads(_VariableOps, indexes, gamma, gys[0], xc, inv_std)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x, gamma = self.inputs[0].data, self.inputs[1].data
        return _ln_grads(_ArrayOps, indexes, gamma, gys[0], x - self.mean, self.inv_std)


def _ln_grads(ops: Any, indexes: tuple, gamma: Any, gy: Any, xc: Any, inv_std: Any) -> tuple:
    x_hat = xc * inv_std
    ret = []
    for i in indexes:
        if i == 0:
            g = gy * gamma  # gradient w.r.t. x_hat
            ret.append(inv_std * (g - ops.mean(g, (1,)) - x_hat * ops.mean(g * x_hat, (1,))))
        elif i == 1:
            ret.append(ops.sum(gy * x_hat, (0,)))
        else:
            ret.append(ops.sum(gy, (0,)))
    return tuple(ret)


def layer_normalization(x: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> Variable:
    """Layer normalization of ``x`` (batch, units): each row to zero mean and unit variance,
    then scaled by ``gamma`` and shifted by ``beta`` (both of shape ``(units,)``).

    >>> import numpy as np
    >>> x = np.array([[1., 2., 3.]], np.float32)
    >>> layer_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float32)).array.round(3)
    array([[-1.225,  0.   ,  1.225]], dtype=float32)
    """
    return LayerNormalization(eps).apply((x, gamma, beta))[0]
