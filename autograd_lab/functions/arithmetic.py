"""The nodes behind Python's arithmetic operators, with Chainer's labels.

Binary operations between Variables need equal dtypes and broadcastable shapes;
their backward sums gradients back to each input's shape.  Constants (Python or
NumPy scalars) are cast to the Variable's dtype before use, so they never
promote it.

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array([1., 2.], np.float32))
>>> (x - 2).creator.label, (2 - x).creator.label, (x / 4).creator.label
('_ + (-2)', '2 - _', '_ * 0.25')
>>> (x * 2.5).dtype
dtype('float32')
"""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._util import constant_label, sum_to_array
from autograd_lab.utils.type_check import expect_broadcastable, expect_float, expect_same_dtype
from autograd_lab.variable import Variable


def _unbroadcast(g: Any, shape: tuple) -> Any:
    """Sum gradient ``g`` (Variable) back to ``shape`` when broadcasting widened it."""
    if g.shape == shape:
        return g
    from autograd_lab.functions.array import sum_to  # noqa: PLC0415 - cycle
    return sum_to(g, shape)


class _Binary(FunctionNode):
    """Var-Var elementwise operation with NumPy broadcasting."""

    float_only = False

    def _check_inputs(self, xs: tuple) -> None:
        expect_same_dtype(self.label, xs)
        if self.float_only:
            expect_float(self.label, xs)
        if xs[0].shape != xs[1].shape:
            expect_broadcastable(self.label, xs)

    def _shapes(self) -> tuple:
        return self.inputs[0].shape, self.inputs[1].shape


class Add(_Binary):
    label = '_ + _'

    def forward(self, xs: tuple) -> tuple:
        return xs[0] + xs[1],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        gy, = gys
        s0, s1 = self._shapes()
        return _unbroadcast(gy, s0), _unbroadcast(gy, s1)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        gy, = gys
        s0, s1 = self._shapes()
        return sum_to_array(gy, s0), sum_to_array(gy, s1)


class Sub(_Binary):
    label = '_ - _'

    def forward(self, xs: tuple) -> tuple:
        return xs[0] - xs[1],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        gy, = gys
        s0, s1 = self._shapes()
        return _unbroadcast(gy, s0), _unbroadcast(-gy, s1)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        gy, = gys
        s0, s1 = self._shapes()
        return sum_to_array(gy, s0), sum_to_array(-gy, s1)


class Mul(_Binary):
    label = '_ * _'
    float_only = True

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        return xs[0] * xs[1],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        gy, = gys
        x0, x1 = self.get_retained_inputs()
        return tuple(_unbroadcast(gy * (x1 if i == 0 else x0), (x0, x1)[i].shape)
                     for i in indexes)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        gy, = gys
        n0, n1 = self.inputs
        return tuple(sum_to_array(gy * (n1.data if i == 0 else n0.data), (n0, n1)[i].shape)
                     for i in indexes)


class Div(_Binary):
    label = '_ / _'
    float_only = True

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        return xs[0] / xs[1],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x0, x1 = self.get_retained_inputs()
        gx0 = gys[0] / x1
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_unbroadcast(gx0, x0.shape))
            else:
                ret.append(_unbroadcast(-gx0 * x0 / x1, x1.shape))
        return tuple(ret)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x0, x1 = self.inputs[0].data, self.inputs[1].data
        gx0 = gys[0] / x1
        return tuple(sum_to_array(gx0, x0.shape) if i == 0 else
                     sum_to_array(-gx0 * x0 / x1, x1.shape) for i in indexes)


class PowVarVar(_Binary):
    label = '_ ** _'
    float_only = True

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        return xs[0] ** xs[1],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        from autograd_lab.functions.math import log  # noqa: PLC0415 - cycle
        x0, x1 = self.get_retained_inputs()
        gy, = gys
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_unbroadcast(x1 * x0 ** (x1 - 1) * gy, x0.shape))
            else:
                ret.append(_unbroadcast(log(x0) * x0 ** x1 * gy, x1.shape))
        return tuple(ret)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x0, x1 = self.inputs[0].data, self.inputs[1].data
        xp = backend.get_array_module(x0)
        gy, = gys
        one = x1.dtype.type(1)
        return tuple(sum_to_array(x1 * x0 ** (x1 - one) * gy, x0.shape) if i == 0 else
                     sum_to_array(xp.log(x0) * x0 ** x1 * gy, x1.shape) for i in indexes)


class MultiAdd(FunctionNode):
    """Sum of any number of Variables but two (``F.add(a, b, c, ...)``; ``F.add(a)`` passes
    ``a``'s array through, as in Chainer)."""

    label = 'MultiAdd'  # Chainer 7.8.1's label (spec section 20)

    def _check_inputs(self, xs: tuple) -> None:
        expect_same_dtype(self.label, xs)
        expect_broadcastable(self.label, xs)

    def forward(self, xs: tuple) -> tuple:
        if len(xs) == 1:
            return xs
        y = xs[0] + xs[1]
        for x in xs[2:]:
            y = y + x
        return y,

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return tuple(_unbroadcast(gys[0], self.inputs[i].shape) for i in indexes)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return tuple(sum_to_array(gys[0], self.inputs[i].shape) for i in indexes)


# ---- one Variable and a constant ---------------------------------------------------

class _WithConstant(FunctionNode):
    """``x OP value``; ``value`` is cast to x's dtype in forward (quirk Q7 for ints)."""

    float_only = False
    _template = ''  # the label, ``{}`` standing for the constant
    _LABELS_KEPT = 256  # per class, the labels of this many float constants are kept

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._float_labels: dict = {}

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        # Asked at every application while the engine is observed: the label of a float
        # constant (the common case: ``x * 0.5``) is made once and kept.
        value = self.value
        if type(value) is not float or not value:  # (0.0 and -0.0 are one key, two labels)
            return self._template.format(constant_label(value))
        label = self._float_labels.get(value)
        if label is None:
            label = self._template.format(constant_label(value))
            if len(self._float_labels) < self._LABELS_KEPT:
                self._float_labels[value] = label
        return label

    def _check_inputs(self, xs: tuple) -> None:
        if self.float_only:
            expect_float(self.label, xs)

    def _const(self, x: Any) -> Any:
        return x.dtype.type(self.value)

    def _const_for(self, node: Any) -> Any:
        return node.dtype.type(self.value)


class AddConstant(_WithConstant):
    _template = '_ + {}'

    def forward(self, xs: tuple) -> tuple:
        return xs[0] + self._const(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return gys

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys


class SubFromConstant(_WithConstant):
    _template = '{} - _'

    def forward(self, xs: tuple) -> tuple:
        return self._const(xs[0]) - xs[0],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return -gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return -gys[0],


class MulConstant(_WithConstant):
    _template = '_ * {}'

    def forward(self, xs: tuple) -> tuple:
        return xs[0] * self._const(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0] * self.value,

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        gy = gys[0]
        return gy * gy.dtype.type(self.value),


class DivFromConstant(_WithConstant):
    float_only = True

    _template = '{} / _'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        return self._const(xs[0]) / xs[0],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, = self.get_retained_inputs()
        return -self.value * gys[0] / (x * x),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        return -self._const(x) * gys[0] / (x * x),


class PowVarConst(_WithConstant):
    float_only = True

    _template = '_ ** {}'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        return xs[0] ** self._const(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, = self.get_retained_inputs()
        c = self._const_for(self.inputs[0])
        return c * x ** (c - c.dtype.type(1)) * gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        c = self._const(x)
        return c * x ** (c - c.dtype.type(1)) * gys[0],


class PowConstVar(_WithConstant):
    float_only = True

    _template = '{} ** _'

    def forward(self, xs: tuple) -> tuple:
        self.retain_outputs((0,))
        return self._const(xs[0]) ** xs[0],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        y, = self.get_retained_outputs()
        return float(numpy.log(self.value)) * y * gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        y = self._retained_output_data[0]
        return y.dtype.type(numpy.log(self.value)) * y * gys[0],


# ---- unary ---------------------------------------------------------------------------

class Neg(FunctionNode):
    label = '__neg__'

    def forward(self, xs: tuple) -> tuple:
        return -xs[0],

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return -gys[0],

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return -gys[0],


class Absolute(FunctionNode):
    label = '|_|'

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        return abs(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        return gys[0] * backend.get_array_module(x).sign(x),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        return gys[0] * backend.get_array_module(x).sign(x),


class Floor(FunctionNode):
    """Elementwise floor; not differentiable (its backward gives no gradient)."""

    label = 'floor'

    def forward(self, xs: tuple) -> tuple:
        # No float check and the dtype is kept, as in Chainer: int `x // 2` works (quirk Q7).
        return backend.get_array_module(xs[0]).floor(xs[0]).astype(xs[0].dtype, copy=False),


# ---- functional forms ------------------------------------------------------------------

def add(*xs: Any) -> Variable:
    """Elementwise sum of Variables (``'_ + _'`` for two, MultiAdd for any other count).

    >>> import numpy as np
    >>> add(np.ones(2), np.ones(2), np.ones(2)).array
    array([3., 3.])
    >>> add(np.ones(2)).creator.label   # one input: passed through a MultiAdd node
    'MultiAdd'
    """
    if len(xs) == 2:
        return Add().apply(xs)[0]
    return MultiAdd().apply(xs)[0]


def sub(x0: Any, x1: Any) -> Variable:
    return Sub().apply((x0, x1))[0]


def mul(x0: Any, x1: Any) -> Variable:
    return Mul().apply((x0, x1))[0]


def div(x0: Any, x1: Any) -> Variable:
    return Div().apply((x0, x1))[0]


def pow(x0: Any, x1: Any) -> Variable:
    return PowVarVar().apply((x0, x1))[0]


def neg(x: Any) -> Variable:
    return Neg().apply((x,))[0]


def absolute(x: Any) -> Variable:
    """Elementwise ``|x|`` (float only)."""
    return Absolute().apply((x,))[0]


def floor(x: Any) -> Variable:
    """Elementwise floor (its gradient is not defined: backward stops here)."""
    return Floor().apply((x,))[0]
