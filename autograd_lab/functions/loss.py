"""Loss functions: mean_squared_error, mean_absolute_error, softmax_cross_entropy,
sigmoid_cross_entropy and huber_loss (Chainer's labels, options and reductions).

>>> import numpy as np, autograd_lab as chainer, autograd_lab.functions as F
>>> x = chainer.Variable(np.array([[2., 0., 0.], [0., 1., 3.]]))
>>> loss = F.softmax_cross_entropy(x, np.array([0, 2], np.int32))
>>> loss.creator.label, loss.array
('SoftmaxCrossEntropy', array(0.20469539))
>>> loss.backward()
>>> x.grad.round(4)
array([[-0.1065,  0.0533,  0.0533],
       [ 0.021 ,  0.0571, -0.0781]])
"""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.configuration import config
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions.activation import _log_softmax, _sigmoid, log_softmax, sigmoid
from autograd_lab.functions.array import broadcast_to, cast, expand_dims, get_item, reshape
from autograd_lab.functions.array import transpose
from autograd_lab.functions.math import sum as _sum
from autograd_lab.functions._nn import as_array, require
from autograd_lab.utils.type_check import expect_float, expect_same_dtype
from autograd_lab.variable import Variable, as_variable


def _check_pair(label: str, inputs: tuple) -> None:
    """Two float inputs of one dtype and one shape (the regression losses)."""
    expect_float(label, inputs[:1])
    expect_same_dtype(label, inputs)
    require(label, inputs[0].shape == inputs[1].shape, 'in_types[0].shape == in_types[1].shape',
            lambda: f'{inputs[0].shape} != {inputs[1].shape}')


def _reduction_dtype(dtype: Any) -> Any:
    """float16 sums are accumulated in float32, as in Chainer."""
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else numpy.dtype(dtype)


# ---- mean squared / absolute error ---------------------------------------------------------------


class MeanSquaredError(FunctionNode):
    label = 'MeanSquaredError'

    def _check_inputs(self, inputs: tuple) -> None:
        _check_pair(self.label, inputs)

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        diff = (inputs[0] - inputs[1]).ravel()
        return as_array(diff.dot(diff) / diff.dtype.type(diff.size), diff, diff.dtype),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x0, x1 = self.get_retained_inputs()
        return _mse_grads(indexes, x0, x1, gys[0], broadcast_to)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        xp = backend.get_array_module(gys[0])
        return _mse_grads(indexes, self.inputs[0].data, self.inputs[1].data, gys[0],
                          xp.broadcast_to)


def _mse_grads(indexes: tuple, x0: Any, x1: Any, gy: Any, broadcast: Any) -> tuple:
    diff = x0 - x1
    gx0 = broadcast(gy, diff.shape) * diff * diff.dtype.type(2. / diff.size)
    return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def mean_squared_error(x0: Any, x1: Any) -> Variable:
    """Mean of ``(x0 - x1) ** 2`` over all elements, a 0-dim Variable.

    >>> import numpy as np
    >>> mean_squared_error(np.array([1., 2., 3.]), np.array([1., 0., 0.])).array
    array(4.33333333)
    """
    return MeanSquaredError().apply((x0, x1))[0]


class MeanAbsoluteError(FunctionNode):
    label = 'MeanAbsoluteError'

    def _check_inputs(self, inputs: tuple) -> None:
        _check_pair(self.label, inputs)

    def forward(self, inputs: tuple) -> tuple:
        x0, x1 = inputs
        self.diff = x0 - x1
        xp = backend.get_array_module(x0)
        diff = self.diff.ravel().astype(_reduction_dtype(x0.dtype), copy=False)
        y = xp.abs(diff).sum() / diff.dtype.type(diff.size)
        return as_array(y, x0, x0.dtype),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return _mae_grads(indexes, self.diff, gys[0], broadcast_to)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        xp = backend.get_array_module(gys[0])
        return _mae_grads(indexes, self.diff, gys[0], xp.broadcast_to)


def _mae_grads(indexes: tuple, diff: Any, gy: Any, broadcast: Any) -> tuple:
    xp = backend.get_array_module(diff)
    coeff = broadcast(gy * diff.dtype.type(1. / diff.size), diff.shape)
    gx0 = coeff * xp.sign(diff)
    return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def mean_absolute_error(x0: Any, x1: Any) -> Variable:
    """Mean of ``|x0 - x1|`` over all elements, a 0-dim Variable.

    >>> import numpy as np
    >>> mean_absolute_error(np.array([1., 2., 3.]), np.array([1., 0., 0.])).array
    array(1.66666667)
    """
    return MeanAbsoluteError().apply((x0, x1))[0]


# ---- softmax cross entropy ----------------------------------------------------------------------


def _check_class_weight(class_weight: Any) -> None:
    if class_weight is None:
        return
    if isinstance(class_weight, Variable):
        raise ValueError('class_weight should be a numpy.ndarray or cupy.ndarray, '
                         'not a chainer.Variable')
    if class_weight.ndim != 1:
        raise ValueError('class_weight.ndim should be 1')
    if class_weight.dtype.kind != 'f':
        raise ValueError("The dtype of class_weight should be 'f'")


def _check_reduce(reduce: str, allowed: tuple = ('mean', 'no')) -> None:
    if reduce not in allowed:
        choices = ' and '.join(repr(a) for a in allowed)
        raise ValueError(f'only {choices} are valid for \'reduce\', but {reduce!r} is given')


def _check_label_values(x: Any, t: Any, ignore_label: int) -> None:
    """Debug mode only: every label is a class index or the ignore label."""
    if not (((0 <= t) & (t < x.shape[1])) | (t == ignore_label)).all():
        raise ValueError(f'Each label `t` need to satisfy `0 <= t < x.shape[1] or '
                         f't == {ignore_label}`')


def _expand_class_axis(a: Any) -> Any:
    """A per-sample array of ``t``'s shape, with a length-1 class axis inserted at axis 1."""
    return a.reshape(a.shape[:1] + (1,) + a.shape[1:])


class SoftmaxCrossEntropy(FunctionNode):
    """Cross entropy of ``softmax(x)`` along axis 1 against integer labels or soft targets."""

    label = 'SoftmaxCrossEntropy'
    eps = 1e-7

    def __init__(self, normalize: bool = True, cache_score: bool = True,
                 class_weight: Any = None, ignore_label: int = -1, reduce: str = 'mean',
                 soft_target_loss: str = 'cross-entropy') -> None:
        _check_class_weight(class_weight)
        _check_reduce(reduce)
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce
        self.soft_target_loss = soft_target_loss
        self.soft_target = False
        self.y = None
        self._coeff = None

    def _check_inputs(self, inputs: tuple) -> None:
        x, t = inputs
        expect_float(self.label, (x,))
        require(self.label, x.ndim >= 2, 'x.ndim >= 2', lambda: f'{x.ndim} < 2')
        if t.dtype.kind == 'i':
            require(self.label, t.ndim == x.ndim - 1, 't.ndim == x.ndim - 1',
                    lambda: f'{t.ndim} != {x.ndim - 1}')
            require(self.label, x.shape[0] == t.shape[0] and x.shape[2:] == t.shape[1:],
                    'x.shape[0] == t.shape[0] and x.shape[2:] == t.shape[1:]',
                    lambda: f'x.shape {x.shape}, t.shape {t.shape}')
        else:
            require(self.label, t.dtype.kind == 'f', 't.dtype.kind == i or f',
                    lambda: f'{t.dtype.kind}')
            require(self.label, x.shape == t.shape, 'x.shape == t.shape (soft target)',
                    lambda: f'{x.shape} != {t.shape}')

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        self.soft_target = t.dtype.kind == 'f'
        if config.debug and not self.soft_target:
            _check_label_values(x, t, self.ignore_label)
        log_y = _log_softmax(x, 1)
        if self.cache_score:
            self.y = xp.exp(log_y)
        if self.soft_target:
            return self._soft_target_loss(xp, x, t, log_y)
        if self.class_weight is not None:
            log_y *= self.class_weight.reshape((1, -1) + (1,) * (x.ndim - 2))
        t_valid = t != self.ignore_label
        n_valid = int(t_valid.sum())
        if n_valid == t.size:  # the common case: nothing to mask
            t0, t_valid = t, None
        else:
            t0 = xp.where(t_valid, t, 0)
        self._labels = t0, t_valid
        log_p = _pick_class(log_y, t0)
        if t_valid is not None:
            log_p *= t_valid
        if self.reduce == 'mean':
            count = n_valid if self.normalize else len(x)
            self._coeff = 1.0 / max(count, 1)
            rdtype = _reduction_dtype(x.dtype)
            y = log_p.sum(dtype=rdtype) * rdtype.type(-self._coeff)
            return as_array(y, x, x.dtype),
        return -log_p,

    def _soft_target_loss(self, xp: Any, x: Any, t: Any, log_y: Any) -> tuple:
        if self.soft_target_loss == 'kl-divergence':
            ret = xp.sum(t * (xp.log(t + t.dtype.type(self.eps)) - log_y), axis=1)
        else:
            ret = -xp.sum(t * log_y, axis=1)
        if self.reduce == 'mean':
            self._coeff = 1.0 / (x.size / x.shape[1])
            return as_array(ret.sum() * ret.dtype.type(self._coeff), x),
        return ret,

    def _grad_args(self) -> tuple:
        return self.y, None if self.soft_target else self._labels, self.class_weight, \
            self._coeff

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, t = self.get_retained_inputs()
        grad = _SoftmaxCrossEntropyGrad_NoDoubleBackprop(*self._grad_args())
        return grad.apply((x, t, gys[0])) + (None,)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x, t = self.inputs[0].data, self.inputs[1].data
        return _sce_grad(x, t, gys[0], *self._grad_args()), None


def _pick_class(a: Any, t0: Any) -> Any:
    """``a[i, t0[i, ...], ...]``: each sample's entry at its label's class (axis 1)."""
    xp = backend.get_array_module(a)
    n = a.shape[0]
    if a.ndim == 2:
        return a[xp.arange(n), t0]
    a3 = a.reshape(n, a.shape[1], -1)
    t2 = t0.reshape(n, -1)
    return a3[xp.arange(n)[:, None], t2, xp.arange(t2.shape[1])].reshape(t0.shape)


def _sce_grad(x: Any, t: Any, gloss: Any, y: Any, labels: Any, class_weight: Any,
              coeff: Any) -> Any:
    """``(softmax(x) - onehot(t)) * weight * gloss`` (weight: class weight, ignore mask, 1/n).

    ``labels`` is ``(t0, valid)`` from forward (``t`` with ignored entries set to 0, and
    the mask of the others, None when all are valid), or None for soft targets ``t``.
    """
    xp = backend.get_array_module(x)
    if y is None:
        y = xp.exp(_log_softmax(x, 1))
    scale = gloss * gloss.dtype.type(coeff) if coeff is not None else None
    if labels is None:  # soft targets
        gx = y - t
        gx *= scale if scale is not None else _expand_class_axis(gloss)
        return gx
    t0, t_valid = labels
    if scale is not None and t_valid is None and class_weight is None:
        w = scale.astype(x.dtype) if hasattr(scale, 'astype') else x.dtype.type(scale)
        gx = y * w  # one weight for all samples
    else:  # a weight per sample
        w = scale if scale is not None else gloss
        if t_valid is not None:
            w = w * t_valid
        if class_weight is not None:
            w = w * class_weight[t0]
        w = xp.asarray(w).astype(x.dtype, copy=False)
        gx = y * _expand_class_axis(w)
    # gx is a new array (y itself, the cache, is never modified); subtract w at the labels.
    gx = xp.ascontiguousarray(gx)
    n = t0.shape[0]
    if gx.ndim == 2:
        gx[xp.arange(n), t0] -= w
    else:
        t2 = t0.reshape(n, -1)
        sub = w.reshape(n, -1) if getattr(w, 'ndim', 0) else w
        gx.reshape(n, x.shape[1], -1)[xp.arange(n)[:, None], t2, xp.arange(t2.shape[1])] -= sub
    return gx


class _SoftmaxCrossEntropyGrad_NoDoubleBackprop(FunctionNode):
    """The gradient of SoftmaxCrossEntropy; it refuses to be differentiated again."""

    def __init__(self, y: Any, labels: Any, class_weight: Any, coeff: Any) -> None:
        self.y = y
        self.labels = labels
        self.class_weight = class_weight
        self.coeff = coeff

    def forward(self, inputs: tuple) -> tuple:
        x, t, gloss = inputs
        return _sce_grad(x, t, gloss, self.y, self.labels, self.class_weight, self.coeff),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        raise RuntimeError("F.softmax_cross_entropy was called with "
                           "'enable_double_backprop=False' argument, but double-backprop is "
                           "actually being performed. Please specify "
                           "'enable_double_backprop=True' explicitly.")


def _softmax_cross_entropy_composite(x: Any, t: Any, normalize: bool, class_weight: Any,
                                     ignore_label: int, reduce: str,
                                     soft_target_loss: str) -> Variable:
    """Softmax cross entropy from differentiable functions (gradients of any order)."""
    x = as_variable(x)
    t = t.array if isinstance(t, Variable) else t
    xp = backend.get_array_module(x.array)
    _check_class_weight(class_weight)
    _check_reduce(reduce)
    rdtype = _reduction_dtype(x.dtype)
    if t.dtype.kind == 'f':  # soft targets
        SoftmaxCrossEntropy()._check_inputs((x.array, t))
        log_y = log_softmax(x)
        if soft_target_loss == 'kl-divergence':
            eps = t.dtype.type(SoftmaxCrossEntropy.eps)
            loss = _sum((xp.log(t + eps) - log_y) * t, axis=1)
        else:
            loss = -_sum(log_y * t, axis=1)
        if reduce == 'mean':
            loss = _sum(loss) * (1.0 / (x.size / x.shape[1]))
        return loss
    SoftmaxCrossEntropy()._check_inputs((x.array, t))
    if config.debug:
        _check_label_values(x.array, t, ignore_label)
    loss = -log_softmax(x)
    if class_weight is not None:
        cw = broadcast_to(class_weight.reshape((1, -1) + (1,) * (x.ndim - 2)), x.shape)
        loss = loss * cast(cw, x.dtype)
    in_use = (t != ignore_label).astype(x.dtype)
    n_class = x.shape[1]
    if x.ndim > 2:
        loss = reshape(transpose(loss, (0, *range(2, x.ndim), 1)), (-1, n_class))
    t0 = t.clip(0, n_class - 1).ravel()
    loss = reshape(get_item(loss, (xp.arange(t0.size), t0)), t.shape) * in_use
    if reduce == 'mean':
        count = float(in_use.astype(rdtype).sum()) if normalize else len(t)
        count = max(count, 1.)
        if rdtype != loss.dtype:
            return cast(_sum(cast(loss, rdtype) / count), x.dtype)
        return _sum(loss / count)
    return loss


def softmax_cross_entropy(x: Any, t: Any, normalize: bool = True, cache_score: bool = True,
                          class_weight: Any = None, ignore_label: int = -1, reduce: str = 'mean',
                          enable_double_backprop: bool = False,
                          soft_target_loss: str = 'cross-entropy') -> Variable:
    """Cross entropy between ``softmax(x)`` (classes on axis 1) and labels ``t``.

    Args:
        x: scores, shape ``(n, c, ...)``.
        t: int labels of shape ``(n, ...)`` (``ignore_label`` entries are skipped), or
            float soft targets of ``x``'s shape.
        normalize: with ``reduce='mean'``, divide by the number of non-ignored labels
            (True) or by the batch size (False).
        cache_score: keep ``softmax(x)`` from forward for backward.
        class_weight: optional 1-D float array of per-class loss weights.
        reduce: ``'mean'`` (a 0-dim loss) or ``'no'`` (one loss per label).
        enable_double_backprop: build the loss from differentiable functions so it
            has gradients of every order (slower); otherwise a single
            ``SoftmaxCrossEntropy`` node whose gradient cannot be differentiated.
        soft_target_loss: ``'cross-entropy'`` or ``'kl-divergence'`` (soft targets).

    >>> import numpy as np
    >>> x = np.array([[-1, 0, 1, 2], [2, 0, 1, -1]], np.float64)
    >>> t = np.array([3, 0], np.int32)
    >>> softmax_cross_entropy(x, t).array
    array(0.4401897)
    >>> softmax_cross_entropy(x, np.array([3, -1], np.int32), reduce='no').array
    array([0.4401897, 0.       ])
    """
    if soft_target_loss not in ('cross-entropy', 'kl-divergence'):
        raise ValueError("soft_target_loss must be 'cross-entropy' or 'kl-divergence'.")
    if enable_double_backprop:
        return _softmax_cross_entropy_composite(x, t, normalize, class_weight, ignore_label,
                                                reduce, soft_target_loss)
    return SoftmaxCrossEntropy(normalize, cache_score, class_weight, ignore_label, reduce,
                               soft_target_loss).apply((x, t))[0]


# ---- sigmoid cross entropy ----------------------------------------------------------------------


class SigmoidCrossEntropy(FunctionNode):
    """Cross entropy of ``sigmoid(x)`` against 0/1 labels; label -1 is ignored."""

    label = 'SigmoidCrossEntropy'
    ignore_label = -1

    def __init__(self, normalize: bool = True, reduce: str = 'mean') -> None:
        _check_reduce(reduce)
        self.normalize = normalize
        self.reduce = reduce
        self.count = None

    def _check_inputs(self, inputs: tuple) -> None:
        x, t = inputs
        expect_float(self.label, (x,))
        require(self.label, t.dtype.kind == 'i', 't.dtype.kind == i',
                lambda: f'{t.dtype.kind} != i')
        require(self.label, x.shape == t.shape, 'x.shape == t.shape',
                lambda: f'{x.shape} != {t.shape}')

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        self.ignore_mask = t != self.ignore_label
        tf = t.astype(x.dtype)
        # -(x*t - log(1 + exp(x))), written without overflow for large |x|
        loss = -(self.ignore_mask * (x * (tf - (x >= 0)) - xp.log1p(xp.exp(-xp.abs(x)))))
        if self.reduce != 'mean':
            return as_array(loss, x, x.dtype),
        if self.normalize:
            count = max(1, int(self.ignore_mask.sum()))
        else:
            count = max(1, len(x))
        self.count = count
        return as_array(loss.sum() / x.dtype.type(count), x, x.dtype),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, t = self.get_retained_inputs()
        grad = SigmoidCrossEntropyGrad(self.reduce, self.count, self.ignore_mask, t.array)
        return grad.apply((x, gys[0])) + (None,)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x, t = self.inputs[0].data, self.inputs[1].data
        return _sigmoid_ce_grad(x, gys[0], t, self.ignore_mask, self.count), None


def _sigmoid_ce_grad(x: Any, gy: Any, t: Any, mask: Any, count: Any) -> Any:
    gx = gy * mask * (_sigmoid(x) - t.astype(x.dtype))
    if count is not None:
        gx = gx / x.dtype.type(count)
    return as_array(gx, x, x.dtype)


class SigmoidCrossEntropyGrad(FunctionNode):
    """``gy * mask * (sigmoid(x) - t) / count`` as a node of ``(x, gy)``."""

    def __init__(self, reduce: str, count: Any, ignore_mask: Any, t: Any) -> None:
        self.reduce = reduce
        self.count = count
        self.ignore_mask = ignore_mask
        self.t = t

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return _sigmoid_ce_grad(x, gy, self.t, self.ignore_mask, self.count),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        x, gy = self.get_retained_inputs()
        ggx, = ggs
        dtype = x.dtype
        mask = self.ignore_mask.astype(dtype)
        y = sigmoid(x)
        ret = []
        for i in indexes:
            if i == 0:
                g = y * (1 - y) * broadcast_to(gy, x.shape) * (ggx * mask)
                ret.append(g / self.count if self.count is not None else g)
            else:
                g = (y - self.t.astype(dtype)) * (ggx * mask)
                ret.append(_sum(g) / self.count if self.count is not None else g)
        return tuple(ret)


def sigmoid_cross_entropy(x: Any, t: Any, normalize: bool = True,
                          reduce: str = 'mean') -> Variable:
    """Cross entropy of ``sigmoid(x)`` against int labels in {0, 1} (-1: ignored).

    With ``reduce='mean'`` the loss is summed and divided by the number of
    non-ignored labels (``normalize=True``) or by the batch size.

    >>> import numpy as np
    >>> x = np.array([[-2.0, 3.0, 0.5]])
    >>> sigmoid_cross_entropy(x, np.array([[0, 1, -1]], np.int32)).array
    array(0.08775768)
    """
    return SigmoidCrossEntropy(normalize, reduce).apply((x, t))[0]


# ---- Huber loss ----------------------------------------------------------------------------------


class _ClipGrad(FunctionNode):
    """``gy`` where ``lo <= x <= hi``, 0 elsewhere; a linear function of ``gy``."""

    def __init__(self, cond: Any) -> None:
        self.cond = cond

    def forward(self, inputs: tuple) -> tuple:
        return as_array(inputs[0] * self.cond, inputs[0], inputs[0].dtype),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return _ClipGrad(self.cond).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return as_array(ggs[0] * self.cond, ggs[0], ggs[0].dtype),


class _Clip(FunctionNode):
    label = 'Clip'

    def __init__(self, lo: float, hi: float) -> None:
        self.lo = lo
        self.hi = hi

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0,))
        return _clip_array(inputs[0], self.lo, self.hi),

    def _cond(self) -> Any:
        x = self.inputs[0].data
        return (self.lo <= x) & (x <= self.hi)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return _ClipGrad(self._cond()).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return as_array(gys[0] * self._cond(), gys[0], gys[0].dtype),


def _clip_array(x: Any, lo: float, hi: float) -> Any:
    c = x.dtype.type
    return as_array(backend.get_array_module(x).clip(x, c(lo), c(hi)), x)


class HuberLoss(FunctionNode):
    label = 'HuberLoss'

    def __init__(self, delta: float, reduce: str = 'sum_along_second_axis') -> None:
        _check_reduce(reduce, ('sum_along_second_axis', 'no'))
        self.delta = delta
        self.reduce = reduce

    def _check_inputs(self, inputs: tuple) -> None:
        _check_pair(self.label, inputs)
        if self.reduce == 'sum_along_second_axis':
            require(self.label, inputs[0].ndim >= 2, 'in_types[0].ndim >= 2',
                    lambda: f'{inputs[0].ndim} < 2')

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        c = x0.dtype.type
        delta = c(self.delta)
        diff = as_array(x0 - x1, x0, x0.dtype)
        a = xp.abs(diff)
        y = xp.where(a <= delta, c(0.5) * diff * diff, delta * (a - c(0.5) * delta))
        y = as_array(y, x0, x0.dtype)
        if self.reduce == 'sum_along_second_axis':
            return y.sum(axis=1),
        return y,

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x0, x1 = self.get_retained_inputs()
        gy, = gys
        gx = _Clip(-self.delta, self.delta).apply((x0 - x1,))[0]
        if self.reduce == 'sum_along_second_axis':
            gy = expand_dims(gy, 1)
        gx = broadcast_to(gy, gx.shape) * gx
        return tuple(gx if i == 0 else -gx for i in indexes)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x0, x1 = self.inputs[0].data, self.inputs[1].data
        xp = backend.get_array_module(x0)
        gy, = gys
        gx = _clip_array(x0 - x1, -self.delta, self.delta)
        if self.reduce == 'sum_along_second_axis':
            gy = xp.expand_dims(gy, 1)
        gx = xp.broadcast_to(gy, gx.shape) * gx
        return tuple(gx if i == 0 else -gx for i in indexes)


def huber_loss(x: Any, t: Any, delta: float,
               reduce: str = 'sum_along_second_axis') -> Variable:
    """Huber loss: ``d**2 / 2`` where ``|d| <= delta``, else ``delta * (|d| - delta / 2)``,
    with ``d = x - t``; summed along axis 1 unless ``reduce='no'``.

    >>> import numpy as np
    >>> huber_loss(np.array([[0.5, 3.0]]), np.zeros((1, 2)), delta=1.0).array
    array([2.625])
    """
    return HuberLoss(delta, reduce).apply((x, t))[0]
