"""Small helpers shared by the neural-network function modules."""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend


def as_array(value: Any, like: Any, dtype: Any = None) -> Any:
    """``value`` as an array of ``like``'s array module, optionally cast to ``dtype``.

    NumPy turns 0-dim results into scalars; the engine never returns those, and on a
    GPU backend a scalar must become an array of that backend, not a NumPy array.

    >>> as_array(numpy.float32(2) * numpy.float32(3), numpy.zeros(()))
    array(6., dtype=float32)
    """
    if isinstance(value, numpy.generic):
        value = backend.get_array_module(like).asarray(value)
    if dtype is not None and value.dtype != dtype:
        value = value.astype(dtype)
    return value
