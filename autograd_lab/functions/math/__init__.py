"""Elementwise math, reductions and matrix products.

Chainer's module paths under ``chainer.functions.math`` that ported code imports are
submodules here: ``basic_math`` (the arithmetic operators' nodes), ``exponential``,
``identity``, ``trigonometric``, ``hyperbolic`` and ``minmax``.  (Chainer's ``sum``,
``sqrt`` and ``matmul`` modules would shadow the functions of the same names, which
live in this package: use ``F.sum`` etc.)

>>> import numpy as np, autograd_lab as chainer
>>> import autograd_lab.functions as F
>>> x = chainer.Variable(np.array([0.0, 1.0]))
>>> y = F.sum(F.exp(x))
>>> y.backward()
>>> x.grad
array([1.        , 2.71828183])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._util import sum_to_array
from autograd_lab.functions.array import broadcast_to, get_item, reshape, sum_to, transpose
from autograd_lab.utils import force_array
from autograd_lab.utils.type_check import (
    expect, expect_broadcastable, expect_float, expect_same_dtype,
)
from autograd_lab.variable import Variable


class _FloatUnary(FunctionNode):
    """Elementwise function of one float input."""

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)


class _Elementwise(_FloatUnary):
    """An elementwise function stated once: its ufunc (named by ``label``) and its derivative.

    ``_derivative(f, c, v, gy)`` returns the input gradient from ``v`` (the input ``x``, or
    the output ``y`` when ``_uses_output``) and ``gy``.  It is written once and runs on both
    backward paths: on Variables ``f`` holds this module's differentiable functions and ``c``
    is ``float`` (constants stay Python floats, as Chainer writes them, so double backprop
    records the same nodes); on raw arrays ``f`` is the array module and ``c`` casts
    constants to the array's dtype.  Both paths thus perform the very same array operations
    in the same order and give bitwise identical gradients.
    """

    _uses_output = False
    _ufunc = ''

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._ufunc = cls.label.lower()  # 'Tanh' is the one label Chainer capitalizes

    @staticmethod
    def _derivative(f: Any, c: Any, v: Any, gy: Any) -> Any:
        raise NotImplementedError

    def forward(self, xs: tuple) -> tuple:
        if self._uses_output:
            self.retain_outputs((0,))
        else:
            self.retain_inputs((0,))
        return getattr(backend.get_array_module(xs[0]), self._ufunc)(xs[0]),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        v = (self.get_retained_outputs() if self._uses_output else self.get_retained_inputs())
        return self._derivative(_DIFFERENTIABLE, float, v[0], gys[0]),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        v = self._retained_output_data[0] if self._uses_output else self.inputs[0].data
        return self._derivative(backend.get_array_module(v), v.dtype.type, v, gys[0]),


_LN2 = float(numpy.log(2.0))
_LN10 = float(numpy.log(10.0))

# Each node: its label (= the ufunc's name) and d/dx; ``_uses_output`` where the derivative
# is cheaper from the retained output.


class Exp(_Elementwise):
    label, _uses_output = 'exp', True
    _derivative = staticmethod(lambda f, c, y, gy: y * gy)


class Log(_Elementwise):
    label = 'log'
    _derivative = staticmethod(lambda f, c, x, gy: gy / x)


class Sin(_Elementwise):
    label = 'sin'
    _derivative = staticmethod(lambda f, c, x, gy: f.cos(x) * gy)


class Cos(_Elementwise):
    label = 'cos'
    _derivative = staticmethod(lambda f, c, x, gy: -f.sin(x) * gy)


class Sqrt(_Elementwise):
    label, _uses_output = 'sqrt', True
    _derivative = staticmethod(lambda f, c, y, gy: gy / (c(2.0) * y))


class Square(_Elementwise):
    label = 'square'
    _derivative = staticmethod(lambda f, c, x, gy: c(2.0) * x * gy)


class Log1p(_Elementwise):
    label = 'log1p'
    _derivative = staticmethod(lambda f, c, x, gy: gy / (x + c(1.0)))


class Expm1(_Elementwise):
    label, _uses_output = 'expm1', True
    _derivative = staticmethod(lambda f, c, y, gy: (y + c(1.0)) * gy)


class Log2(_Elementwise):
    label = 'log2'
    _derivative = staticmethod(lambda f, c, x, gy: gy / (x * c(_LN2)))


class Log10(_Elementwise):
    label = 'log10'
    _derivative = staticmethod(lambda f, c, x, gy: gy / (x * c(_LN10)))


class Tan(_Elementwise):
    label = 'tan'
    _derivative = staticmethod(lambda f, c, x, gy: gy / f.square(f.cos(x)))


class Arcsin(_Elementwise):
    label = 'arcsin'
    _derivative = staticmethod(lambda f, c, x, gy: gy / f.sqrt(c(1.0) - f.square(x)))


class Arccos(_Elementwise):
    label = 'arccos'
    _derivative = staticmethod(lambda f, c, x, gy: -gy / f.sqrt(c(1.0) - f.square(x)))


class Arctan(_Elementwise):
    label = 'arctan'
    _derivative = staticmethod(lambda f, c, x, gy: gy / (f.square(x) + c(1.0)))


class Sinh(_Elementwise):
    label = 'sinh'
    _derivative = staticmethod(lambda f, c, x, gy: gy * f.cosh(x))


class Cosh(_Elementwise):
    label = 'cosh'
    _derivative = staticmethod(lambda f, c, x, gy: gy * f.sinh(x))


class Tanh(_Elementwise):
    """The one whose gradient is a node of its own (:class:`TanhGrad`), as in Chainer."""

    label, _uses_output = 'Tanh', True

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        y, = self.get_retained_outputs()
        return TanhGrad().apply((y, gys[0]))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _tanh_grad(self._retained_output_data[0], gys[0]),


def _tanh_grad(y: Any, gy: Any) -> Any:
    # gy * (1 - y²), written to allocate a single temporary.
    xp = backend.get_array_module(y)
    g = xp.multiply(y, y, out=xp.empty_like(y))  # an array even when y is 0-dim; y's device
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


def _public(node: type[_Elementwise], doc: str, given: str,
            shows: str) -> Callable[[Any], Variable]:
    """The public function ``f(x)`` of an elementwise node (named after its ufunc).

    ``given`` and ``shows`` make its docstring's example: ``f(np.array(given)).array``
    prints ``shows``.
    """
    name = node._ufunc

    def function(x: Any) -> Variable:
        return node().apply((x,))[0]

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f'{doc}\n\n    >>> import numpy as np\n'
                        f'    >>> {name}(np.array({given})).array\n    {shows}\n    ')
    return function


exp = _public(Exp, 'Elementwise ``e**x``.', '[0.0, 1.0]', 'array([1.        , 2.71828183])')
log = _public(Log, 'Elementwise natural logarithm.', '[1.0, np.e]', 'array([0., 1.])')
sin = _public(Sin, 'Elementwise sine.', '[0.0, np.pi / 2]', 'array([0., 1.])')
cos = _public(Cos, 'Elementwise cosine.', '[0.0]', 'array([1.])')
tanh = _public(Tanh, 'Elementwise hyperbolic tangent.', '[0.0, 1.0]',
               'array([0.        , 0.76159416])')
sqrt = _public(Sqrt, 'Elementwise square root.', '[4.0, 0.25]', 'array([2. , 0.5])')
square = _public(Square, 'Elementwise ``x**2``.', '[3.0, -0.5]', 'array([9.  , 0.25])')
log1p = _public(Log1p, 'Elementwise ``log(1 + x)``, accurate for small ``x``.',
                '[0.0, 1e-10]', 'array([0.e+00, 1.e-10])')
expm1 = _public(Expm1, 'Elementwise ``exp(x) - 1``, accurate for small ``x``.',
                '[0.0, 1e-10]', 'array([0.e+00, 1.e-10])')
log2 = _public(Log2, 'Elementwise base-2 logarithm.', '[1.0, 8.0]', 'array([0., 3.])')
log10 = _public(Log10, 'Elementwise base-10 logarithm.', '[1.0, 1000.0]', 'array([0., 3.])')
tan = _public(Tan, 'Elementwise tangent.', '[0.0]', 'array([0.])')
arcsin = _public(Arcsin, 'Elementwise inverse sine (gradient ``1 / sqrt(1 - x**2)``).',
                 '[0.0, 1.0]', 'array([0.        , 1.57079633])')
arccos = _public(Arccos, 'Elementwise inverse cosine (gradient ``-1 / sqrt(1 - x**2)``).',
                 '[1.0, 0.0]', 'array([0.        , 1.57079633])')
arctan = _public(Arctan, 'Elementwise inverse tangent (gradient ``1 / (1 + x**2)``).',
                 '[0.0, 1.0]', 'array([0.        , 0.78539816])')
sinh = _public(Sinh, 'Elementwise hyperbolic sine.', '[0.0]', 'array([0.])')
cosh = _public(Cosh, 'Elementwise hyperbolic cosine.', '[0.0]', 'array([1.])')

# What ``_derivative`` calls on the Variable path: the differentiable versions of the ufuncs.
_DIFFERENTIABLE = SimpleNamespace(cos=cos, sin=sin, sqrt=sqrt, square=square, sinh=sinh,
                                  cosh=cosh)


# ---- reductions ------------------------------------------------------------------------------


def _normalize_axis(axis: Any, ndim: int, label: str) -> tuple | None:
    if axis is None:
        return None
    if not (isinstance(axis, int) or (isinstance(axis, tuple) and
                                      all(isinstance(a, int) for a in axis))):
        raise TypeError('None, int or tuple of int are required')  # (as Chainer: no lists)
    axes = (axis,) if isinstance(axis, int) else axis
    for a in axes:
        expect(label, -ndim <= a < ndim, f'-{ndim} <= axis < {ndim}', f'axis {a}')
    axes = tuple(sorted(a % ndim for a in axes))
    if len(set(axes)) != len(axes):  # ValueError, as Chainer
        raise ValueError(f'duplicate value in axis: {axis}')
    return axes


def _keepdims_shape(in_shape: tuple, axes: tuple | None) -> tuple:
    if axes is None:
        return (1,) * len(in_shape)
    return tuple(1 if i in axes else n for i, n in enumerate(in_shape))


class Sum(FunctionNode):
    label = 'Sum'

    def __init__(self, axis: tuple | None = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)

    def forward(self, xs: tuple) -> tuple:
        return xs[0].sum(axis=self.axis, keepdims=self.keepdims),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        from autograd_lab.functions.array import broadcast_to, reshape  # noqa: PLC0415
        shape = self.inputs[0].shape
        gy = gys[0]
        if self.axis is not None and not self.keepdims:  # as Chainer: no Reshape node else
            gy = reshape(gy, _keepdims_shape(shape, self.axis))
        return broadcast_to(gy, shape),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        shape = self.inputs[0].shape
        gy = gys[0].reshape(_keepdims_shape(shape, self.axis))
        return backend.get_array_module(gy).broadcast_to(gy, shape),


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Sum over ``axis`` (all axes when None); negative axes count from the end."""
    from autograd_lab.variable import as_variable  # noqa: PLC0415
    x = as_variable(x)
    return Sum(_normalize_axis(axis, x.ndim, 'Sum'), keepdims).apply((x,))[0]


class Mean(FunctionNode):
    label = 'Mean'

    def __init__(self, axis: tuple | None, keepdims: bool) -> None:
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
        expect_float(self.label, xs)  # mixed float dtypes are fine: NumPy's promotion
        expect(self.label, a.ndim >= 1 and b.ndim >= 1, 'in_types[i].ndim >= 1',
               f'{a.ndim}, {b.ndim}')
        ka = a.shape[-2] if self.transa and a.ndim >= 2 else a.shape[-1]
        kb = b.shape[-1] if self.transb and b.ndim >= 2 else b.shape[-2] if b.ndim >= 2 \
            else b.shape[0]
        expect(self.label, ka == kb, 'in_types[0].shape[-1] == in_types[1].shape[-2]',
               f'{ka} != {kb}')
        if a.ndim > 2 and b.ndim > 2:
            try:
                numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
            except ValueError:
                expect(self.label, False, 'in_types[0].shape[:-2] and in_types[1].shape[:-2] '
                       'are broadcastable', f'{a.shape[:-2]}, {b.shape[:-2]}')

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        a, b = xs
        if self.transa:
            a = _swap_last(a)
        if self.transb:
            b = _swap_last(b)
        return backend.get_array_module(a).matmul(a, b),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        from autograd_lab.functions.array import cast, reshape, sum_to  # noqa: PLC0415
        a, b = self.get_retained_inputs()
        gs = _matmul_grads(self, indexes, a, b, gys[0], matmul, reshape, sum_to)
        return tuple(g if g.dtype == self.inputs[i].dtype else cast(g, self.inputs[i].dtype)
                     for g, i in zip(gs, indexes))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        gs = _matmul_grads_arrays(self, indexes, self.inputs[0].data, self.inputs[1].data,
                                  gys[0])
        return tuple(g.astype(self.inputs[i].dtype, copy=False) for g, i in zip(gs, indexes))


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


def _matmul_grads_arrays(node: MatMul, indexes: tuple, a: Any, b: Any, gy: Any) -> tuple:
    """:func:`_matmul_grads` on raw arrays: the array module's products and reshapes."""
    xp = backend.get_array_module(a)

    def mm(p: Any, q: Any, transa: bool = False, transb: bool = False) -> Any:
        return xp.matmul(_swap_last(p) if transa else p, _swap_last(q) if transb else q)

    return _matmul_grads(node, indexes, a, b, gy, mm, lambda v, s: v.reshape(s), sum_to_array)


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Matrix product with ``numpy.matmul`` rules; ``transa``/``transb`` swap the last two axes.

    >>> import numpy as np
    >>> matmul(np.ones((2, 3)), np.ones((3,))).shape
    (2,)
    """
    return MatMul(transa, transb).apply((a, b))[0]


# ---- more elementwise functions ---------------------------------------------------------------


def rsqrt(x: Any) -> Variable:
    """Elementwise ``1 / sqrt(x)``; as in Chainer it is ``1.0 / sqrt(x)`` (two nodes).

    >>> import numpy as np
    >>> y = rsqrt(np.array([4.0, 0.25]))
    >>> y.array, y.creator.label
    (array([0.5, 2. ]), '1.0 / _')
    """
    return 1.0 / sqrt(x)


def sign(x: Any) -> Variable:
    """Elementwise sign (-1, 0 or 1) in ``x``'s dtype; not differentiable.

    As in Chainer the result is a new leaf Variable with ``requires_grad=False``
    (no node is recorded), and integer inputs are accepted.

    >>> import numpy as np, autograd_lab as chainer
    >>> y = sign(chainer.Variable(np.array([-2.0, 0.0, 3.0], np.float32)))
    >>> y.array, y.creator, y.requires_grad
    (array([-1.,  0.,  1.], dtype=float32), None, False)
    """
    if isinstance(x, Variable):
        x = x.array
    if not backend.is_array(x):
        raise TypeError(f'sign expects a Variable or an ndarray, got {type(x).__name__}')
    return Variable(force_array(backend.get_array_module(x).sign(x)), requires_grad=False)


# ---- gradients that keep only some positions ---------------------------------------------------


def _masked(g: Any, mask: Any) -> Any:
    """``g`` where ``mask`` holds, 0 elsewhere (as a product, like Chainer)."""
    return g * mask


class _MaskGrad(FunctionNode):
    """``gy * mask`` for a constant boolean ``mask``: a linear map, so its gradient is itself."""

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs: tuple) -> tuple:
        return _masked(inputs[0], self.mask),

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return type(self)(self.mask).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return _masked(ggs[0], self.mask),


class ClipGrad(_MaskGrad):
    label = 'ClipGrad'


class MaximumGrad(_MaskGrad):
    label = 'MaximumGrad'


class SelectorGrad(_MaskGrad):
    label = 'SelectorGrad'


class Clip(FunctionNode):
    """Limit the values to ``[x_min, x_max]``; the gradient passes where
    ``x_min <= x <= x_max`` (bounds included), as in Chainer."""

    label = 'Clip'

    def __init__(self, x_min: Any, x_max: Any) -> None:
        if x_min is None and x_max is None:
            raise ValueError('must set either max or min')
        if x_min is not None and x_max is not None and x_min >= x_max:
            raise ValueError('x_min must be less than x_max.')
        self.x_min = x_min
        self.x_max = x_max

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)

    def _bounds(self, x: Any) -> tuple:
        t = x.dtype.type
        return (None if self.x_min is None else t(self.x_min),
                None if self.x_max is None else t(self.x_max))

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        x, = xs
        lo, hi = self._bounds(x)
        return backend.get_array_module(x).clip(x, lo, hi),

    def _mask(self) -> Any:
        x = self.inputs[0].data
        lo, hi = self._bounds(x)
        if lo is None:
            return x <= hi
        if hi is None:
            return x >= lo
        return (x >= lo) & (x <= hi)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return ClipGrad(self._mask()).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return _masked(gys[0], self._mask()),


def clip(x: Any, x_min: Any, x_max: Any) -> Variable:
    """Clip ``x`` to ``[x_min, x_max]`` (one bound may be None); float inputs only.

    >>> import numpy as np
    >>> clip(np.array([-2.0, 0.5, 3.0]), -1.0, 1.0).array
    array([-1. ,  0.5,  1. ])
    """
    return Clip(x_min, x_max).apply((x,))[0]


class Maximum(FunctionNode):
    """Elementwise maximum of two float arrays (broadcasting); ties send the gradient to x1."""

    label = 'Maximum'

    def _check_inputs(self, xs: tuple) -> None:
        expect(self.label, xs[0].dtype.kind == 'f', 'x1.dtype.kind == f',
               f'{xs[0].dtype.kind} != f')
        expect_same_dtype(self.label, xs)
        if xs[0].shape != xs[1].shape:
            expect_broadcastable(self.label, xs)

    def _compute(self, xp: Any, x1: Any, x2: Any) -> Any:
        return xp.maximum(x1, x2)

    def _first_wins(self, x1: Any, x2: Any) -> Any:
        return x1 >= x2

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        return self._compute(backend.get_array_module(xs[0]), xs[0], xs[1]),

    def _masks(self, indexes: tuple) -> list:
        first = self._first_wins(self.inputs[0].data, self.inputs[1].data)
        return [first if i == 0 else ~first for i in indexes]

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return tuple(sum_to(MaximumGrad(m).apply(gys)[0], self.inputs[i].shape)
                     for i, m in zip(indexes, self._masks(indexes)))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return tuple(sum_to_array(_masked(gys[0], m), self.inputs[i].shape)
                     for i, m in zip(indexes, self._masks(indexes)))


class Minimum(Maximum):
    """Elementwise minimum of two float arrays (broadcasting); ties send the gradient to x1."""

    label = 'Minimum'

    def _compute(self, xp: Any, x1: Any, x2: Any) -> Any:
        return xp.minimum(x1, x2)

    def _first_wins(self, x1: Any, x2: Any) -> Any:
        return x1 <= x2


def maximum(x1: Any, x2: Any) -> Variable:
    """Elementwise maximum; same float dtype, broadcastable shapes.

    >>> import numpy as np
    >>> maximum(np.array([1.0, 5.0]), np.array([3.0, 2.0])).array
    array([3., 5.])
    """
    return Maximum().apply((x1, x2))[0]


def minimum(x1: Any, x2: Any) -> Variable:
    """Elementwise minimum; same float dtype, broadcastable shapes.

    >>> import numpy as np
    >>> minimum(np.array([1.0, 5.0]), np.array([3.0, 2.0])).array
    array([1., 2.])
    """
    return Minimum().apply((x1, x2))[0]


# ---- batch_matmul -------------------------------------------------------------------------------


def _as_batch_shape(shape: tuple) -> tuple:
    """BatchMatMul sees a 2-D ``(B, n)`` operand as a batch of column vectors ``(B, n, 1)``."""
    return shape + (1,) if len(shape) == 2 else shape


class BatchMatMul(FunctionNode):
    """Chainer's deprecated batched product: float32 operands of 2 or 3 dimensions."""

    label = 'BatchMatMul'

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def _check_inputs(self, xs: tuple) -> None:
        for name, x in zip('ab', xs):
            expect(self.label, x.dtype == numpy.float32, f'{name}.dtype == float32',
                   f'{x.dtype} != float32')
            expect(self.label, x.ndim >= 2, f'{name}.ndim >= 2', f'{x.ndim} < 2')
            expect(self.label, x.ndim <= 3, f'{name}.ndim <= 3', f'{x.ndim} > 3')
        a, b = (_as_batch_shape(x.shape) for x in xs)
        ka = a[1] if self.transa else a[2]
        kb = b[2] if self.transb else b[1]
        expect(self.label, ka == kb, 'a.shape[2] == b.shape[1] (after transa/transb)',
               f'{ka} != {kb}')
        expect(self.label, a[0] == b[0] or 1 in (a[0], b[0]), 'a.shape[0] == b.shape[0]',
               f'{a[0]} != {b[0]}')

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        a, b = (x.reshape(_as_batch_shape(x.shape)) for x in xs)
        if self.transa:
            a = _swap_last(a)
        if self.transb:
            b = _swap_last(b)
        return backend.get_array_module(a).matmul(a, b),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        a, b = self.get_retained_inputs()
        a3 = reshape(a, _as_batch_shape(a.shape))
        b3 = reshape(b, _as_batch_shape(b.shape))
        gs = _matmul_grads(self, indexes, a3, b3, gys[0], matmul, reshape, sum_to)
        return tuple(reshape(g, self.inputs[i].shape) for g, i in zip(gs, indexes))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        a, b = self.inputs[0].data, self.inputs[1].data
        a3 = a.reshape(_as_batch_shape(a.shape))
        b3 = b.reshape(_as_batch_shape(b.shape))
        gs = _matmul_grads_arrays(self, indexes, a3, b3, gys[0])
        return tuple(g.reshape(self.inputs[i].shape) for g, i in zip(gs, indexes))


def batch_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Batched matrix product of float32 arrays (deprecated in Chainer: use :func:`matmul`).

    ``a`` and ``b`` are ``(B, m, k)`` and ``(B, k, n)``; a 2-D operand ``(B, n)`` is a
    batch of column vectors ``(B, n, 1)``.  Emits a ``DeprecationWarning``.

    >>> import numpy as np, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter('ignore', DeprecationWarning)
    ...     y = batch_matmul(np.ones((2, 3, 4), np.float32), np.ones((2, 4, 5), np.float32))
    >>> y.shape, y.creator.label
    ((2, 3, 5), 'BatchMatMul')
    """
    warnings.warn('batch_matmul is deprecated. Use matmul instead.', DeprecationWarning,
                  stacklevel=2)
    return BatchMatMul(transa, transb).apply((a, b))[0]


# ---- reductions along axes: prod, logsumexp, max, min ---------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, (bool, numpy.bool_))


def _axis_tuple(axis: Any) -> tuple | None:
    """Chainer's axis argument of reductions: None, an int or a tuple of distinct ints."""
    if axis is None:
        return None
    if _is_int(axis):
        return (int(axis),)
    if isinstance(axis, tuple) and all(_is_int(a) for a in axis):
        if len(set(axis)) != len(axis):
            raise ValueError(f"duplicate value in axis: ({', '.join(map(str, axis))})")
        return tuple(int(a) for a in axis)
    raise TypeError('None, int or tuple of int are required')


def _check_axes(label: str, axes: tuple | None, ndim: int) -> None:
    for a in axes or ():
        expect(label, -ndim <= a < ndim, f'x.ndim > {a if a >= 0 else -a - 1}',
               f'{ndim} <= {a if a >= 0 else -a - 1}')


class _AxisReduction(FunctionNode):
    """A float reduction over ``axis`` (None: all axes)."""

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = _axis_tuple(axis)
        self.keepdims = keepdims

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)
        _check_axes(self.label, self.axis, xs[0].ndim)

    def _axes(self, ndim: int) -> tuple | None:
        """The reduced axes, sorted and non-negative (None for all)."""
        return None if self.axis is None else tuple(sorted(a % ndim for a in self.axis))

    def _kept_shape(self) -> tuple:
        """The input shape with reduced axes set to 1 (the ``keepdims`` output shape)."""
        shape = self.inputs[0].shape
        return _keepdims_shape(shape, self._axes(len(shape)))


class Prod(_AxisReduction):
    """Product over axes.  The gradient of each element is the product of all the *others*,
    computed with exclusive cumulative products, so zeros in ``x`` are handled exactly."""

    label = 'Prod'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        x, = xs
        return x.prod(axis=self._axes(x.ndim), keepdims=self.keepdims),

    def _layout(self) -> tuple:
        """(permutation bringing the reduced axes first, its inverse, n, rest shape)."""
        shape = self.inputs[0].shape
        ndim = len(shape)
        axes = self._axes(ndim)
        axes = tuple(range(ndim)) if axes is None else axes
        rest = tuple(i for i in range(ndim) if i not in axes)
        perm = axes + rest
        n = 1
        for a in axes:
            n *= shape[a]
        inverse = tuple(int(i) for i in numpy.argsort(perm))
        return perm, inverse, n, tuple(shape[i] for i in rest)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        from autograd_lab.functions.array import concat  # noqa: PLC0415 - cycle
        x, = self.get_retained_inputs()
        perm, inverse, n, rest = self._layout()
        xp = backend.get_array_module(x.array)
        if n == 0:
            return Variable(xp.zeros_like(x.array)),
        xt = reshape(transpose(x, perm), (n,) + rest)
        ones = xp.ones_like(x.array, shape=(1,) + rest)
        rows = [get_item(xt, slice(k, k + 1)) for k in range(n)]
        left, right = [ones], [ones]
        for k in range(1, n):
            left.append(rows[0] if k == 1 else left[-1] * rows[k - 1])
            right.append(rows[n - 1] if k == 1 else right[-1] * rows[n - k])
        others = concat(left, axis=0) * concat(right[::-1], axis=0)
        gy = broadcast_to(reshape(gys[0], rest), (n,) + rest)
        gx = reshape(gy * others, tuple(x.shape[i] for i in perm))
        return transpose(gx, inverse),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        perm, inverse, n, rest = self._layout()
        xp = backend.get_array_module(x)
        if n == 0:
            return xp.zeros_like(x),
        xt = x.transpose(perm).reshape((n,) + rest)
        ones = xp.ones_like(x, shape=(1,) + rest)
        # Exclusive products from the left and from the right, one multiplication per
        # step in the same order as the Variable path (a cumulative product is exactly that).
        if xp is numpy:
            left = xp.concatenate([ones, xp.cumprod(xt[:-1], axis=0)], axis=0)
            right = xp.concatenate([xp.cumprod(xt[:0:-1], axis=0)[::-1], ones], axis=0)
        else:
            rows = [xt[k:k + 1] for k in range(n)]
            lefts, rights = [ones], [ones]
            for k in range(1, n):
                lefts.append(rows[0] if k == 1 else lefts[-1] * rows[k - 1])
                rights.append(rows[n - 1] if k == 1 else rights[-1] * rows[n - k])
            left = xp.concatenate(lefts, axis=0)
            right = xp.concatenate(rights[::-1], axis=0)
        others = left * right
        gy = xp.broadcast_to(gys[0].reshape(rest), (n,) + rest)
        gx = (gy * others).reshape(tuple(x.shape[i] for i in perm))
        return gx.transpose(inverse),


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Product of the elements over ``axis`` (None, an int or a tuple of ints).

    >>> import numpy as np
    >>> prod(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1).array
    array([ 2., 12.])
    """
    return Prod(axis, keepdims).apply((x,))[0]


class LogSumExp(_AxisReduction):
    """``log(sum(exp(x)))`` over axes, computed stably (shifted by the maximum)."""

    label = 'LogSumExp'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = xs
        xp = backend.get_array_module(x)
        axes = self._axes(x.ndim)
        m = x.max(axis=axes, keepdims=True)
        s = xp.exp(x - m).sum(axis=axes)
        return xp.log(s) + m.reshape(s.shape),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        kept = self._kept_shape()
        gy = broadcast_to(reshape(gys[0], kept), x.shape)
        return gy * exp(x - broadcast_to(reshape(y, kept), x.shape)),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x = self.inputs[0].data
        y = self._retained_output_data[0]
        xp = backend.get_array_module(x)
        kept = self._kept_shape()
        gy = xp.broadcast_to(gys[0].reshape(kept), x.shape)
        return gy * xp.exp(x - xp.broadcast_to(y.reshape(kept), x.shape)),


def logsumexp(x: Any, axis: Any = None) -> Variable:
    """``log(sum(exp(x), axis))``, stable for large values; axis None, an int or a tuple.

    >>> import numpy as np
    >>> logsumexp(np.array([1000.0, 1000.0])).array
    array(1000.69314718)
    """
    return LogSumExp(axis).apply((x,))[0]


class Max(_AxisReduction):
    """Maximum over axes.  Every position equal to the result receives the whole gradient
    (ties included), as in Chainer."""

    label = 'Max'
    _method = 'max'

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = xs
        return getattr(x, self._method)(axis=self._axes(x.ndim), keepdims=self.keepdims),

    def _mask(self) -> Any:
        x = self.inputs[0].data
        return x == self._retained_output_data[0].reshape(self._kept_shape())

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        shape = self.inputs[0].shape
        gy = broadcast_to(reshape(gys[0], self._kept_shape()), shape)
        return SelectorGrad(self._mask()).apply((gy,))

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        shape = self.inputs[0].shape
        gy = backend.get_array_module(gys[0]).broadcast_to(
            gys[0].reshape(self._kept_shape()), shape)
        return _masked(gy, self._mask()),


class Min(Max):
    """Minimum over axes; ties as in :class:`Max`."""

    label = 'Min'
    _method = 'min'


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Maximum over ``axis`` (None, an int or a tuple of ints).

    The gradient goes to every position holding the maximum (each tie gets all of it).

    >>> import numpy as np, autograd_lab as chainer
    >>> x = chainer.Variable(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]))
    >>> y = max(x, axis=1)
    >>> y.array
    array([3., 2.])
    >>> y.grad = np.ones(2)
    >>> y.backward()
    >>> x.grad
    array([[0., 1., 1.],
           [1., 0., 0.]])
    """
    return Max(axis, keepdims).apply((x,))[0]


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Minimum over ``axis`` (None, an int or a tuple of ints); ties as in :func:`max`.

    >>> import numpy as np
    >>> min(np.array([[1.0, 3.0], [2.0, 0.0]]), axis=0).array
    array([1., 0.])
    """
    return Min(axis, keepdims).apply((x,))[0]


# ---- cumsum -------------------------------------------------------------------------------------


class Cumsum(FunctionNode):
    """Cumulative sum along ``axis`` (None: over the flattened input).  Its gradient is the
    cumulative sum taken from the other end."""

    label = 'Cumsum'

    def __init__(self, axis: Any = None) -> None:
        if axis is not None and not _is_int(axis):
            raise TypeError('axis must be int or None')
        self.axis = None if axis is None else int(axis)

    def _check_inputs(self, xs: tuple) -> None:
        expect_float(self.label, xs)
        _check_axes(self.label, None if self.axis is None else (self.axis,), xs[0].ndim)

    def forward(self, xs: tuple) -> tuple:
        x, = xs
        xp = backend.get_array_module(x)
        if self.axis is None:
            return xp.cumsum(x.reshape(-1), axis=0),
        return xp.cumsum(x, axis=self.axis),

    def _grad_axis(self) -> int:
        return 0 if self.axis is None else self.axis % len(self.inputs[0].shape)

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        from autograd_lab.functions.array import flip  # noqa: PLC0415 - cycle
        axis = self._grad_axis()
        gx = flip(cumsum(flip(gys[0], axis), axis), axis)
        return reshape(gx, self.inputs[0].shape),

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        axis = self._grad_axis()
        xp = backend.get_array_module(gys[0])
        gx = xp.flip(xp.cumsum(xp.flip(gys[0], axis), axis=axis), axis)
        return gx.reshape(self.inputs[0].shape),


def cumsum(x: Any, axis: Any = None) -> Variable:
    """Cumulative sum along ``axis``; with None the input is flattened first.

    >>> import numpy as np
    >>> cumsum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1).array
    array([[1., 3.],
           [3., 7.]])
    """
    return Cumsum(axis).apply((x,))[0]
