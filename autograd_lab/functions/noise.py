"""Noise functions: dropout.

Dropout is active only while ``chainer.config.train`` is True; in test mode it
returns its input unchanged, with no node.  The mask (already scaled by
``1 / (1 - ratio)``) is kept on the node for backward, as in Chainer.

>>> import numpy as np, autograd_lab as chainer, autograd_lab.functions as F
>>> x = np.ones((2, 4), np.float32)
>>> np.random.seed(0)
>>> F.dropout(x, 0.5).array
array([[2., 2., 2., 2.],
       [0., 2., 0., 2.]], dtype=float32)
>>> with chainer.using_config('train', False):
...     F.dropout(x, 0.5).array is x
True
"""

from __future__ import annotations

from typing import Any

from autograd_lab import backend
from autograd_lab.configuration import config
from autograd_lab.function_node import FunctionNode
from autograd_lab.utils.type_check import expect_float
from autograd_lab.variable import as_variable


class Dropout(FunctionNode):
    """``x * mask`` with ``mask = (rand >= ratio) / (1 - ratio)`` (drawn unless given)."""

    label = 'Dropout'

    def __init__(self, dropout_ratio: float, mask: Any = None, return_mask: bool = False) -> None:
        if not 0.0 <= dropout_ratio < 1.0:
            raise ValueError('dropout_ratio must be in the range [0, 1)')
        self.dropout_ratio = dropout_ratio
        self.mask = mask
        self.return_mask = return_mask

    def _check_inputs(self, inputs: tuple) -> None:
        expect_float(self.label, inputs)

    def forward(self, inputs: tuple) -> tuple:
        x, = inputs
        if self.mask is None:
            xp = backend.get_array_module(x)
            scale = x.dtype.type(1. / (1 - self.dropout_ratio))
            flag = xp.random.rand(*x.shape) >= self.dropout_ratio
            self.mask = scale * flag
        return x * self.mask,

    def backward(self, indexes: tuple, gys: tuple) -> tuple:
        return DropoutGrad(self.mask).apply(gys)

    def backward_arrays(self, indexes: tuple, gys: tuple) -> tuple:
        return gys[0] * self.mask,


class DropoutGrad(FunctionNode):
    """``gy * mask``: linear, so its own gradient is itself."""

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs: tuple) -> tuple:
        return inputs[0] * self.mask,

    def backward(self, indexes: tuple, ggs: tuple) -> tuple:
        return DropoutGrad(self.mask).apply(ggs)

    def backward_arrays(self, indexes: tuple, ggs: tuple) -> tuple:
        return ggs[0] * self.mask,


def dropout(x: Any, ratio: float = .5, **kwargs: Any) -> Any:
    """Drop each element with probability ``ratio`` and scale the rest by ``1 / (1 - ratio)``.

    Keyword arguments (as in Chainer): ``mask`` (an array to use instead of a random
    one) and ``return_mask`` (also return the mask: ``(y, mask)``; the mask is None in
    test mode).  ``train=`` is rejected: use ``chainer.using_config('train', ...)``.

    >>> import numpy as np
    >>> x = np.arange(1, 5, dtype=np.float32)
    >>> y, mask = dropout(x, 0.5, mask=np.array([2, 0, 0, 2], np.float32), return_mask=True)
    >>> y.array, y.creator.label
    (array([2., 0., 0., 8.], dtype=float32), 'Dropout')
    """
    if 'train' in kwargs:
        raise ValueError('train argument is not supported anymore. Use chainer.using_config')
    mask = kwargs.pop('mask', None)
    return_mask = kwargs.pop('return_mask', False)
    if kwargs:
        raise TypeError('got unexpected keyword argument(s) '
                        f"{', '.join(map(repr, kwargs))}")
    if config.train:
        func = Dropout(ratio, mask, return_mask)
        out = func.apply((x,))[0]
        mask = func.mask
    else:
        out = as_variable(x)
        mask = None
    if return_mask:
        return out, mask
    return out
