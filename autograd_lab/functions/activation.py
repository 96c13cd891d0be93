"""Activation functions: relu, leaky_relu, elu, selu, sigmoid, hard_sigmoid, softplus,
swish, softmax and log_softmax (Chainer's labels, formulas and gradient structure).

Each backward is built from differentiable nodes, so gradients of gradients work
wherever Chainer has them.  ReLU, leaky ReLU and hard sigmoid are piecewise linear:
their gradient nodes depend on the input only through a constant mask, so their
second derivative w.r.t. the input is ``None`` (Chainer's quirk Q2 for ReLU).

>>> import numpy as np, autograd_lab as chainer, autograd_lab.functions as F
>>> x = chainer.Variable(np.array([-1.0, 0.5, 2.0], np.float32))
>>> y = F.relu(x)
>>> y.creator.label, y.array
('ReLU', array([0. , 0.5, 2. ], dtype=float32))
>>> F.sum(y).backward()
>>> x.grad
array([0., 1., 1.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions.array import reshape as _reshape
from autograd_lab.functions.math import exp as _exp
from autograd_lab.functions.math import sum as _sum
from autograd_lab.functions._nn import as_array, require
from autograd_lab.utils.type_check import expect_float, expect_same_dtype
from autograd_lab.variable import Variable


class _Activation(FunctionNode):
    """Elementwise function of one float input."""

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)


def _mask_like(mask: Any, dtype: Any) -> Any:
    """A boolean mask as 0/1 values of ``dtype`` (what ``Variable * mask`` multiplies by)."""
    return mask.astype(dtype, copy=False)


# ---- ReLU ------------------------------------------------------------------------------


def _relu_grad(y: Any, gy: Any) -> Any:
    """``gy * (y > 0)``, written without a temporary boolean array."""
    gx = backend.get_array_module(gy).empty_like(gy)
    backend.get_array_module(gy).greater(y, 0, out=gx)  # 1.0 where y > 0, else 0.0
    gx *= gy
    return gx


class ReLU(_Activation):
    """``max(x, 0)``; the gradient node sees only a constant mask (2nd derivative: None)."""

    label = 'ReLU'

    def forward(self, xs: tuple) -> tuple:
        x, = xs
        self.retain_outputs((0,))
        return backend.get_array_module(x).maximum(x, x.dtype.type(0)),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return ReLUGrad2(self._retained_output_data[0]).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _relu_grad(self._retained_output_data[0], gys[0]),


class ReLUGrad2(FunctionNode):
    """``gy * (y > 0)`` with ``y`` held as a constant: linear in ``gy`` only."""

    def __init__(self, y: Any) -> None:
        self.y = y

    def forward(self, inputs: tuple) -> tuple:
        return _relu_grad(self.y, inputs[0]),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return ReLUGrad2(self.y).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return _relu_grad(self.y, ggs[0]),


def relu(x: Any) -> Variable:
    """Rectified linear unit, ``max(x, 0)`` elementwise (label ``'ReLU'``).

    >>> import numpy as np
    >>> relu(np.array([[-1., 0.], [2., -3.]], np.float32)).array
    array([[0., 0.],
           [2., 0.]], dtype=float32)
    """
    return ReLU().apply((x,))[0]


# ---- leaky ReLU ------------------------------------------------------------------------


def _leaky_grad(cond: Any, slope: float, gy: Any) -> Any:
    xp = backend.get_array_module(gy)
    return xp.where(cond <= 0, gy * gy.dtype.type(slope), gy)


class LeakyReLU(_Activation):
    label = 'LeakyReLU'

    def __init__(self, slope: float = 0.2) -> None:
        self.slope = slope

    def forward(self, xs: tuple) -> tuple:
        x, = xs
        xp = backend.get_array_module(x)
        # The sign of y is the sign of x when slope >= 0, so y can serve as the mask.
        if self.slope >= 0:
            self.retain_outputs((0,))
        else:
            self.retain_inputs((0,))
        return xp.where(x <= 0, x * x.dtype.type(self.slope), x),

    def _cond(self) -> Any:
        if self.slope >= 0:
            return self._retained_output_data[0]
        return self.inputs[0].data

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return _LeakyReLUGrad(self._cond(), self.slope).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _leaky_grad(self._cond(), self.slope, gys[0]),


class _LeakyReLUGrad(FunctionNode):
    def __init__(self, cond: Any, slope: float) -> None:
        self.cond = cond
        self.slope = slope

    def forward(self, inputs: tuple) -> tuple:
        return _leaky_grad(self.cond, self.slope, inputs[0]),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return _LeakyReLUGrad(self.cond, self.slope).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return _leaky_grad(self.cond, self.slope, ggs[0]),


def leaky_relu(x: Any, slope: float = 0.2) -> Variable:
    """Leaky ReLU: ``x`` where ``x > 0``, ``slope * x`` elsewhere.

    >>> import numpy as np
    >>> leaky_relu(np.array([-1., 0., 2.], np.float32), slope=0.2).array
    array([-0.2,  0. ,  2. ], dtype=float32)
    """
    return LeakyReLU(slope).apply((x,))[0]


# ---- ELU / SELU --------------------------------------------------------------------------


def _elu_slope(y: Any, cond: Any, alpha: float) -> Any:
    """dy/dx of ELU from its output: 1 where ``cond > 0``, ``y + alpha`` elsewhere."""
    xp = backend.get_array_module(y)
    return xp.where(cond > 0, y.dtype.type(1), y + y.dtype.type(alpha))


class ELU(_Activation):
    label = 'ELU'

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = float(alpha)

    def forward(self, xs: tuple) -> tuple:
        x, = xs
        xp = backend.get_array_module(x)
        if self.alpha < 0:
            self.retain_inputs((0,))
        self.retain_outputs((0,))
        # expm1 only sees non-positive values: no overflow warning for large x.
        neg = x.dtype.type(self.alpha) * xp.expm1(xp.minimum(x, x.dtype.type(0)))
        return xp.where(x > 0, x, neg),

    def _cond(self) -> Any:
        return self.inputs[0].data if self.alpha < 0 else self._retained_output_data[0]

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        y, = self.get_retained_outputs()
        return ELUGrad(self.alpha, self._cond()).apply((y,))[0] * gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        y = self._retained_output_data[0]
        return _elu_slope(y, self._cond(), self.alpha) * gys[0],


class ELUGrad(FunctionNode):
    """dy/dx of ELU as a function of its output ``y`` (differentiable w.r.t. ``y``)."""

    def __init__(self, alpha: float, cond: Any) -> None:
        self.alpha = alpha
        self.cond = cond

    def forward(self, inputs: tuple) -> tuple:
        return _elu_slope(inputs[0], self.cond, self.alpha),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return ggs[0] * (self.cond <= 0),

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        g = ggs[0]
        return g * _mask_like(self.cond <= 0, g.dtype),


def elu(x: Any, alpha: float = 1.0) -> Variable:
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.

    >>> import numpy as np
    >>> elu(np.array([[-1., 0.], [2., -3.]])).array
    array([[-0.63212056,  0.        ],
           [ 2.        , -0.95021293]])
    """
    return ELU(alpha).apply((x,))[0]


def selu(x: Any, alpha: float = 1.6732632423543772848170429916717,
         scale: float = 1.0507009873554804934193349852946) -> Variable:
    """Scaled ELU, ``scale * elu(x, alpha)`` (an ELU node followed by ``_ * scale``).

    >>> import numpy as np
    >>> selu(np.array([-1., 0., 1.])).array
    array([-1.11133074,  0.        ,  1.05070099])
    """
    return scale * elu(x, alpha)


# ---- sigmoid family ---------------------------------------------------------------------


def _sigmoid(x: Any) -> Any:
    """``tanh(x/2)/2 + 1/2``: the logistic function without overflow for large ``|x|``."""
    half = x.dtype.type(0.5)
    y = backend.get_array_module(x).tanh(x * half)
    y = y * half
    return y + half


def _sigmoid_grad(y: Any, gy: Any) -> Any:
    return gy * y * (y.dtype.type(1) - y)


class Sigmoid(_Activation):
    label = 'Sigmoid'

    def forward(self, xs: tuple) -> tuple:
        self.retain_outputs((0,))
        return as_array(_sigmoid(xs[0]), xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        y, = self.get_retained_outputs()
        return SigmoidGrad().apply((y, gys[0]))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _sigmoid_grad(self._retained_output_data[0], gys[0]),


class SigmoidGrad(FunctionNode):
    """``gy * y * (1 - y)`` as a node of ``(y, gy)``."""

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return as_array(_sigmoid_grad(y, gy), y),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        y, gy = self.get_retained_inputs()
        return _sigmoid_grad_grads(indexes, y, gy, ggs[0])

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return _sigmoid_grad_grads(indexes, self.inputs[0].data, self.inputs[1].data, ggs[0])


def _sigmoid_grad_grads(indexes: tuple, y: Any, gy: Any, ggx: Any) -> tuple:
    one, two = y.dtype.type(1), y.dtype.type(2)
    return tuple(ggx * gy * (one - two * y) if i == 0 else ggx * y * (one - y)
                 for i in indexes)


def sigmoid(x: Any) -> Variable:
    """Logistic sigmoid ``1 / (1 + exp(-x))`` elementwise (label ``'Sigmoid'``).

    >>> import numpy as np
    >>> sigmoid(np.array([-1., 0., 2.])).array
    array([0.26894142, 0.5       , 0.88079708])
    """
    return Sigmoid().apply((x,))[0]


def _hard_sigmoid_grad(x: Any, gy: Any) -> Any:
    return ((-2.5 < x) & (x < 2.5)) * gy * gy.dtype.type(0.2)


class HardSigmoid(_Activation):
    label = 'HardSigmoid'

    def forward(self, xs: tuple) -> tuple:
        x, = xs
        self.retain_inputs((0,))
        c = x.dtype.type
        y = backend.get_array_module(x).clip(x * c(0.2) + c(0.5), c(0), c(1))
        return as_array(y, x, x.dtype),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return HardSigmoidGrad(self.inputs[0].data).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _hard_sigmoid_grad(self.inputs[0].data, gys[0]),


class HardSigmoidGrad(FunctionNode):
    def __init__(self, x: Any) -> None:
        self.x = x

    def _check_inputs(self, inputs: tuple) -> None:
        expect_float(self.label, inputs)
        expect_same_dtype(self.label, (inputs[0], self.x))

    def forward(self, inputs: tuple) -> tuple:
        return as_array(_hard_sigmoid_grad(self.x, inputs[0]), inputs[0]),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return HardSigmoidGrad(self.x).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return _hard_sigmoid_grad(self.x, ggs[0]),


def hard_sigmoid(x: Any) -> Variable:
    """Piecewise-linear sigmoid: ``clip(0.2 * x + 0.5, 0, 1)``.

    >>> import numpy as np
    >>> hard_sigmoid(np.array([-2.6, -1, 0, 1, 2.6])).array
    array([0. , 0.3, 0.5, 0.7, 1. ])
    """
    return HardSigmoid().apply((x,))[0]


class Softplus(_Activation):
    label = 'Softplus'

    def __init__(self, beta: float = 1.0) -> None:
        self.beta = float(beta)
        self.beta_inv = float(1.0 / beta)

    def forward(self, xs: tuple) -> tuple:
        x, = xs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        c = x.dtype.type
        bx = x * c(self.beta)
        y = (xp.fmax(bx, c(0)) + xp.log1p(xp.exp(-xp.fabs(bx)))) * c(self.beta_inv)
        return as_array(y, x, x.dtype),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, = self.get_retained_inputs()
        return sigmoid(x * self.beta) * gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        return as_array(_sigmoid(x * x.dtype.type(self.beta)), x) * gys[0],


def softplus(x: Any, beta: float = 1.0) -> Variable:
    """Softplus ``log(1 + exp(beta * x)) / beta``, a smooth ReLU.

    >>> import numpy as np
    >>> softplus(np.array([-2., 0., 2.], np.float32)).array
    array([0.126928 , 0.6931472, 2.126928 ], dtype=float32)
    """
    return Softplus(beta).apply((x,))[0]


# ---- swish ------------------------------------------------------------------------------------


def _swish_shapes(x_ndim: int, beta_shape: tuple) -> tuple:
    extended = (1, *beta_shape) + (1,) * (x_ndim - len(beta_shape) - 1)
    reduce_axes = (0, *range(1 + len(beta_shape), x_ndim))
    return extended, reduce_axes


class Swish(FunctionNode):
    """``x * sigmoid(beta * x)`` with a learnable ``beta`` broadcast from axis 1."""

    label = 'Swish'

    def _check_inputs(self, inputs: tuple) -> None:
        x, beta = inputs
        expect_float(self.label, (x,))
        expect_same_dtype(self.label, inputs)
        require(self.label, beta.ndim <= x.ndim - 1, 'beta.ndim <= x.ndim - 1',
                lambda: f'{beta.ndim} > {x.ndim - 1}')
        require(self.label, beta.shape == x.shape[1:1 + beta.ndim],
                'beta.shape == x.shape[1:1 + beta.ndim]', lambda: f'{beta.shape} != {x.shape}')

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        x, beta = inputs
        extended, _ = _swish_shapes(x.ndim, beta.shape)
        return x * _sigmoid(beta.reshape(extended) * x),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, beta = self.get_retained_inputs()
        return _swish_grads(indexes, x, beta, gys[0], sigmoid, _reshape,
                            lambda v, axes: _sum(v, axis=axes))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x, beta = self.inputs[0].data, self.inputs[1].data
        return _swish_grads(indexes, x, beta, gys[0], _sigmoid, lambda v, s: v.reshape(s),
                            lambda v, axes: as_array(v.sum(axis=axes), x))


def _swish_grads(indexes: tuple, x: Any, beta: Any, gy: Any, sig: Any, reshape: Any,
                 total: Any) -> tuple:
    """Gradients of swish, one formula for Variables (differentiable) and for arrays."""
    extended, reduce_axes = _swish_shapes(x.ndim, beta.shape)
    b = reshape(beta, extended)
    s = sig(b * x)
    y = x * s
    ret = []
    for i in indexes:
        if i == 0:  # d/dx = s + beta*y*(1 - s) = by + s*(1 - by)
            by = b * y
            ret.append(gy * (by + s * (x.dtype.type(1) - by)))
        else:  # d/dbeta = x*y*(1 - s) = y*(x - y)
            ret.append(total(gy * y * (x - y), reduce_axes))
    return tuple(ret)


def swish(x: Any, beta: Any) -> Variable:
    """Swish ``x * sigmoid(beta * x)``; ``beta``'s shape is ``x.shape[1:1 + beta.ndim]``.

    >>> import numpy as np
    >>> swish(np.array([[-1., 0., 2.]]), np.ones(3)).array
    array([[-0.26894142,  0.        ,  1.76159416]])
    """
    return Swish().apply((x, beta))[0]


# ---- softmax / log_softmax -----------------------------------------------------------------------


class _AlongAxis(_Activation):
    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)
        ndim = xs[0].ndim
        require(self.label, -ndim <= self.axis < ndim, f'-{ndim} <= axis < {ndim}',
                lambda: f'axis {self.axis}')


def _softmax(x: Any, axis: int) -> Any:
    xp = backend.get_array_module(x)
    y = x - x.max(axis=axis, keepdims=True)
    xp.exp(y, out=y)
    y /= y.sum(axis=axis, keepdims=True)
    return y


def _softmax_grad(y: Any, gy: Any, axis: int) -> Any:
    gx = y * gy
    gx -= y * gx.sum(axis=axis, keepdims=True)
    return gx


class Softmax(_AlongAxis):
    label = 'Softmax'

    def forward(self, xs: tuple) -> tuple:
        self.retain_outputs((0,))
        return _softmax(xs[0], self.axis),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        y, = self.get_retained_outputs()
        return _SoftmaxGrad(self.axis).apply((y, gys[0]))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _softmax_grad(self._retained_output_data[0], gys[0], self.axis),


class _SoftmaxGrad(FunctionNode):
    """``y * gy - y * sum(y * gy)`` as a node of ``(y, gy)``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return _softmax_grad(y, gy, self.axis),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        from autograd_lab.functions.array import broadcast_to  # noqa: PLC0415
        y, gy = self.get_retained_inputs()
        ggx, = ggs
        axis = self.axis
        ga = ggx - broadcast_to(_sum(ggx * y, axis=axis, keepdims=True), gy.shape)
        ret = []
        for i in indexes:
            if i == 0:
                s = broadcast_to(_sum(y * gy, axis=axis, keepdims=True), gy.shape)
                ret.append(ga * gy - ggx * s)
            else:
                ret.append(ga * y)
        return tuple(ret)


def softmax(x: Any, axis: int = 1) -> Variable:
    """Softmax along ``axis``: ``exp(x) / sum(exp(x))``, computed stably.

    >>> import numpy as np
    >>> softmax(np.array([[0., 1., 2.]])).array
    array([[0.09003057, 0.24472847, 0.66524096]])
    """
    return Softmax(axis).apply((x,))[0]


def _log_softmax(x: Any, axis: int) -> Any:
    xp = backend.get_array_module(x)
    m = x.max(axis=axis, keepdims=True)
    t = x - m
    xp.exp(t, out=t)
    s = t.sum(axis=axis, keepdims=True)
    xp.log(s, out=s)
    m += s
    return x - m


def _log_softmax_grad(y: Any, gy: Any, axis: int) -> Any:
    xp = backend.get_array_module(y)
    return gy - xp.exp(y) * gy.sum(axis=axis, keepdims=True)


class LogSoftmax(_AlongAxis):
    label = 'LogSoftmax'

    def forward(self, xs: tuple) -> tuple:
        self.retain_outputs((0,))
        return _log_softmax(xs[0], self.axis),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        y, = self.get_retained_outputs()
        return LogSoftmaxGrad(self.axis).apply((y, gys[0]))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _log_softmax_grad(self._retained_output_data[0], gys[0], self.axis),


class LogSoftmaxGrad(FunctionNode):
    """``gy - exp(y) * sum(gy)`` as a node of ``(y, gy)``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return _log_softmax_grad(y, gy, self.axis),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        from autograd_lab.functions.array import broadcast_to  # noqa: PLC0415
        y, gy = self.get_retained_inputs()
        ggx, = ggs
        exp_y = _exp(y)
        ret = []
        for i in indexes:
            if i == 0:
                gy_sum = broadcast_to(_sum(gy, axis=self.axis, keepdims=True), gy.shape)
                ret.append(-ggx * exp_y * gy_sum)
            else:
                a = broadcast_to(_sum(ggx * exp_y, axis=self.axis, keepdims=True), gy.shape)
                ret.append(ggx - a)
        return tuple(ret)


def log_softmax(x: Any, axis: int = 1) -> Variable:
    """``log(softmax(x))`` along ``axis``, computed stably (no log of a tiny number).

    >>> import numpy as np
    >>> log_softmax(np.array([[0., 1., 2.]])).array
    array([[-2.40760596, -1.40760596, -0.40760596]])
    """
    return LogSoftmax(axis).apply((x,))[0]
