"""Python operators, indexing and shape methods of :class:`~autograd_lab.Variable`.

They live here rather than in ``variable.py`` because they create FunctionNodes,
and the function modules themselves import ``variable``.  :func:`install`
attaches them once, when the package is imported.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

import numpy

from autograd_lab import backend
from autograd_lab.configuration import no_backprop_mode
from autograd_lab.functions import arithmetic as A
from autograd_lab.functions import array as AR
from autograd_lab.functions import math as M
from autograd_lab.functions._util import check_constant, is_scalar
from autograd_lab.variable import Variable


def _as_operand(self: Variable, other: Any) -> Any:
    """``other`` as a Var-Var operand (arrays are cast to self's dtype), or None for scalars."""
    if isinstance(other, Variable):
        return other
    check_constant(other)
    if is_scalar(other):
        return None
    # A raw array: apply() wraps it, and announces it only if the operation succeeds.
    return other.astype(self.dtype, copy=False)


def _binary(node: type, const_node: Callable[[Any], Any], reflected: bool = False) -> Callable:
    def op(self: Variable, other: Any) -> Variable:
        operand = _as_operand(self, other)
        if operand is None:
            return const_node(other).apply((self,))[0]
        pair = (operand, self) if reflected else (self, operand)
        return node().apply(pair)[0]
    return op


def _add(self: Variable, other: Any) -> Variable:
    operand = _as_operand(self, other)
    if operand is None:
        return A.AddConstant(other).apply((self,))[0]
    return A.Add().apply((self, operand))[0]


def _mul(self: Variable, other: Any) -> Variable:
    operand = _as_operand(self, other)
    if operand is None:
        return A.MulConstant(other).apply((self,))[0]
    return A.Mul().apply((self, operand))[0]


def _sub(self: Variable, other: Any) -> Variable:
    operand = _as_operand(self, other)
    if operand is None:
        return A.AddConstant(-other).apply((self,))[0]
    return A.Sub().apply((self, operand))[0]


def _truediv(self: Variable, other: Any) -> Variable:
    operand = _as_operand(self, other)
    if operand is None:
        return A.MulConstant(1.0 / other).apply((self,))[0]
    return A.Div().apply((self, operand))[0]


def _floordiv(self: Variable, other: Any, reflected: bool = False) -> Variable:
    # Quirk Q6: floor division is not differentiable; the result is a detached leaf.
    operand = _as_operand(self, other)
    with no_backprop_mode():
        if operand is None:
            quotient = (other / self) if reflected else (self / other)
        else:
            quotient = A.div(operand, self) if reflected else A.div(self, operand)
        result = A.floor(quotient)
    return Variable(result.array, requires_grad=False)


def _matmul(self: Variable, other: Any) -> Variable:
    return M.matmul(self, _as_array_operand(self, other))


def _rmatmul(self: Variable, other: Any) -> Variable:
    return M.matmul(_as_array_operand(self, other), self)


def _as_array_operand(self: Variable, other: Any) -> Any:
    if isinstance(other, Variable):
        return other
    if not backend.is_array(other):
        raise TypeError('Value must be a scalar, `numpy.ndarray`, `cupy.ndarray` or a '
                        f'`Variable`.\nActual: {type(other)}')
    return other.astype(self.dtype, copy=False)


def _reshape(self: Variable, *shape: Any) -> Variable:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return AR.reshape(self, shape)


def _transpose(self: Variable, *axes: Any) -> Variable:
    if not axes or axes == (None,):
        return AR.transpose(self)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return AR.transpose(self, axes)


def _mean(self: Variable, axis: Any = None, *, weights: Any = None,
          keepdims: bool = False) -> Variable:
    return M.average(self, axis=axis, weights=weights, keepdims=keepdims)


def install(cls: type = Variable) -> None:
    """Attach the operators to ``cls``."""
    cls.__add__ = cls.__radd__ = _add
    cls.__mul__ = cls.__rmul__ = _mul
    cls.__sub__ = _sub
    cls.__rsub__ = _binary(A.Sub, A.SubFromConstant, reflected=True)
    cls.__truediv__ = _truediv
    cls.__rtruediv__ = _binary(A.Div, A.DivFromConstant, reflected=True)
    cls.__pow__ = _binary(A.PowVarVar, A.PowVarConst)
    cls.__rpow__ = _binary(A.PowVarVar, A.PowConstVar, reflected=True)
    cls.__floordiv__ = _floordiv
    cls.__rfloordiv__ = lambda self, other: _floordiv(self, other, reflected=True)
    cls.__matmul__ = _matmul
    cls.__rmatmul__ = _rmatmul
    cls.__neg__ = A.neg
    cls.__abs__ = A.absolute
    cls.__getitem__ = AR.get_item
    cls.reshape = _reshape
    cls.transpose = _transpose
    cls.T = property(AR.transpose, doc='The transpose (axes reversed).')
    cls.mean = _mean
    cls.__array_ufunc__ = None  # make NumPy defer `ndarray OP Variable` to our reflected ops


# numpy.generic must defer too: `numpy.float32(2) * x` should reach x.__rmul__.
assert numpy.float32(1).__array_priority__ < Variable.__array_priority__
