"""Small helpers shared by the engine and the functions."""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab.utils import type_check  # noqa: F401  (chainer.utils.type_check)


def force_array(x: Any, dtype: Any = None) -> Any:
    """Return ``x`` as an ndarray: NumPy turns 0-dim results into scalars, the engine never does.

    >>> force_array(numpy.float32(2.0))
    array(2., dtype=float32)
    """
    if isinstance(x, numpy.generic):
        return numpy.asarray(x, dtype) if dtype is not None else numpy.asarray(x)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def size_of_shape(shape: tuple) -> int:
    """Number of elements of an array of ``shape``."""
    size = 1
    for n in shape:
        size *= n
    return size
