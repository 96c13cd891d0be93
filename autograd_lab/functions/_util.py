"""Helpers shared by the function modules: array-level sum_to and constant handling."""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend


def sum_to_array(x: Any, shape: tuple) -> Any:
    """Sum ``x`` down to ``shape`` (the inverse of broadcasting) on raw arrays."""
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and x.shape[lead + i] != 1)
    y = x.sum(axis=axes, keepdims=True)
    if lead:
        y = y.reshape(shape)
    return numpy.asarray(y) if isinstance(y, numpy.generic) else y


def is_scalar(value: Any) -> bool:
    """Python or NumPy numbers (bools included) count as constants."""
    return isinstance(value, (int, float, numpy.number, numpy.bool_))


def constant_label(value: Any) -> str:
    """How a constant shows in a label: negatives in parentheses, arrays summarised."""
    if backend.is_array(value):
        return 'constant array'
    return f'({value})' if value < 0 else str(value)


def check_constant(value: Any) -> None:
    if not is_scalar(value) and not backend.is_array(value):
        raise TypeError('Value must be a scalar, `numpy.ndarray`, `cupy.ndarray` or a '
                        f'`Variable`.\nActual: {type(value)}')
