"""``chainer.functions.math.basic_math`` (also ``chainer.basic_math``): the nodes behind
Variable's arithmetic operators.

``x + y`` applies :class:`Add`, ``x + 2`` :class:`AddConstant`, ``2 - x``
:class:`SubFromConstant`, ``x ** 2`` :class:`PowVarConst`, and so on; the label of a
node with a constant shows the constant (``'_ + 2.0'``, ``'(-1) * _'`` style).

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array([1.0, 2.0]))
>>> type((x * 2).creator).__name__, (2 - x).creator.label
('MulConstant', '2 - _')
>>> _convert_value_to_string(-1.5)
'(-1.5)'
"""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.functions._util import constant_label
from autograd_lab.functions.arithmetic import (  # noqa: F401
    Absolute, Add, AddConstant, Div, DivFromConstant, Mul, MulConstant, MultiAdd, Neg,
    PowConstVar, PowVarConst, PowVarVar, Sub, SubFromConstant, absolute, add, div, mul, neg,
    pow, sub,
)
from autograd_lab.functions.operators import install as install_variable_arithmetics  # noqa
from autograd_lab.variable import Variable


def _convert_value_to_string(value: Any) -> str:
    """How a constant appears in a label: ``'2.0'``, ``'(-1)'`` or ``'constant array'``."""
    if isinstance(value, Variable):
        value = value.array
    if numpy.isscalar(value) or backend.is_array(value):
        return constant_label(value)
    gpu = backend.gpu_backend()
    types = [numpy.ndarray] if gpu is None else [numpy.ndarray, gpu.array_type]
    listed = ', '.join(['Variable', 'scalar', *map(str, types[:-1])])
    raise ValueError(f'Value must be a {listed} or {types[-1]}. Actual: {type(value)}')
