"""``chainer.functions.math.trigonometric``: ``sin``, ``cos``, ``tan``, their inverses, and
``arctan2``.

``arctan2(x1, x2)`` is the angle of the point ``(x2, x1)``, in ``(-pi, pi]``; its
gradients are ``x2 / r**2`` and ``-x1 / r**2`` with ``r**2 = x1**2 + x2**2``.

>>> import numpy as np
>>> cos(np.array([0.0])).array
array([1.])
>>> arctan2(np.array([1.0, -1.0]), np.array([1.0, 0.0])).array / np.pi
array([ 0.25, -0.5 ])
"""

from __future__ import annotations

from typing import Any

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._util import sum_to_array
from autograd_lab.functions.array import cast, sum_to
from autograd_lab.functions.math import (  # noqa: F401
    Arccos, Arcsin, Arctan, Cos, Sin, Tan, arccos, arcsin, arctan, cos, sin, tan,
)
from autograd_lab.utils import force_array
from autograd_lab.utils.type_check import expect
from autograd_lab.variable import Variable


class Arctan2(FunctionNode):
    """The angle of ``(x2, x1)``; float inputs (broadcast against each other)."""

    label = 'arctan2'

    def _check_inputs(self, xs: tuple) -> None:
        for name, x in zip(('x1', 'x2'), xs):
            expect(self.label, x.dtype.kind == 'f', f'{name}.dtype.kind == f',
                   f'{x.dtype.kind} != f')

    def forward(self, xs: tuple) -> tuple:
        self.retain_inputs((0, 1))
        return force_array(backend.get_array_module(*xs).arctan2(*xs)),

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        x1, x2 = self.get_retained_inputs()
        scale = gys[0] / (x1 * x1 + x2 * x2)
        parts = {0: x2 * scale, 1: -x1 * scale}
        out = []
        for i in indexes:  # (mixed float dtypes: each gradient in its input's dtype)
            g = sum_to(parts[i], self.inputs[i].shape)
            out.append(g if g.dtype == self.inputs[i].dtype else cast(g, self.inputs[i].dtype))
        return tuple(out)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        x1, x2 = self.inputs[0].data, self.inputs[1].data
        scale = gys[0] / (x1 * x1 + x2 * x2)
        parts = {0: x2 * scale, 1: -x1 * scale}
        return tuple(force_array(sum_to_array(parts[i], self.inputs[i].shape),
                                 self.inputs[i].dtype) for i in indexes)


def arctan2(x1: Any, x2: Any) -> Variable:
    """Elementwise ``arctan(x1 / x2)`` in the quadrant of ``(x2, x1)`` (NumPy's arctan2)."""
    return Arctan2().apply((x1, x2))[0]
