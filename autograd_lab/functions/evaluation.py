"""Evaluation functions: accuracy (not differentiable).

>>> import numpy as np, autograd_lab.functions as F
>>> y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], np.float32)
>>> F.accuracy(y, np.array([1, 0, 0], np.int32)).array
array(0.6666667, dtype=float32)
"""

from __future__ import annotations

from typing import Any

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.functions._nn import require
from autograd_lab.utils.type_check import expect_float
from autograd_lab.variable import Variable


class Accuracy(FunctionNode):
    """Fraction of samples whose arg-max over axis 1 equals the label (no gradient)."""

    label = 'Accuracy'

    def __init__(self, ignore_label: Any = None) -> None:
        self.ignore_label = ignore_label

    def _check_inputs(self, inputs: tuple) -> None:
        y, t = inputs
        expect_float(self.label, (y,))
        require(self.label, t.dtype.kind == 'i', 't.dtype.kind == i',
                lambda: f'{t.dtype.kind} != i')
        require(self.label, y.ndim >= t.ndim and y.ndim >= 2, 'y.ndim >= max(t.ndim, 2)',
                lambda: f'y.ndim {y.ndim}, t.ndim {t.ndim}')
        require(self.label, y.shape[0] == t.shape[0] and y.shape[2:t.ndim + 1] == t.shape[1:],
                'y.shape[0] == t.shape[0] and y.shape[2:t.ndim + 1] == t.shape[1:]',
                lambda: f'y.shape {y.shape}, t.shape {t.shape}')
        extra = y.shape[t.ndim + 1:]
        require(self.label, all(n == 1 for n in extra), 'y.shape[t.ndim + 1:] are all 1',
                lambda: f'{extra}')

    def forward(self, inputs: tuple) -> tuple:
        y, t = inputs
        xp = backend.get_array_module(y)
        pred = y.argmax(axis=1).reshape(t.shape)
        if self.ignore_label is None:
            return xp.asarray((pred == t).mean(dtype=y.dtype)),
        mask = t == self.ignore_label
        ignored = int(mask.sum())
        total = t.size - ignored
        if total == 0:
            return xp.asarray(0.0, dtype=y.dtype),
        correct = int(((pred == t) & ~mask).sum())
        return xp.asarray(correct / total, dtype=y.dtype),


def accuracy(y: Any, t: Any, ignore_label: Any = None) -> Variable:
    """Classification accuracy of scores ``y`` (classes on axis 1) against int labels ``t``.

    Labels equal to ``ignore_label`` count neither as right nor as wrong; when every
    label is ignored the accuracy is 0.  The result has ``y``'s dtype and no gradient.

    >>> import numpy as np
    >>> y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], np.float32)
    >>> accuracy(y, np.array([1, -1, 0], np.int32), ignore_label=-1).array
    array(0.5, dtype=float32)
    """
    return Accuracy(ignore_label).apply((y, t))[0]
