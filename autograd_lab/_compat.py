"""Small top-level helpers of Chainer's namespace: array types, dtypes, ``Fallback``.

>>> import numpy as np, autograd_lab as chainer
>>> chainer.get_array_types()
(<class 'numpy.ndarray'>,)
>>> chainer.get_dtype(), chainer.get_dtype(np.float16)
(dtype('float32'), dtype('float16'))
>>> chainer.is_arrays_compatible([np.ones(1), None, np.zeros(2)])
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.configuration import config


def get_array_types() -> tuple:
    """The array types Variables can hold: NumPy's, plus the GPU's when there is one."""
    gpu = backend.gpu_backend()
    return (numpy.ndarray,) if gpu is None else (numpy.ndarray, gpu.array_type)


def get_cpu_array_types() -> tuple:
    """The CPU array types (NumPy's only: autograd_lab has no iDeep or ChainerX)."""
    return (numpy.ndarray,)


def is_arrays_compatible(arrays: Iterable[Any]) -> bool:
    """True when the non-None ``arrays`` all live on one kind of device (CPU or GPU)."""
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return True
    kinds = {backend.GpuDevice.from_array(a) is not None for a in arrays}
    return len(kinds) == 1 and all(isinstance(a, get_array_types()) for a in arrays)


class _Mixed16:
    """Chainer's ``mixed16`` dtype-like object (16/32-bit mixed precision)."""

    dtype = numpy.dtype(numpy.float16)

    def __repr__(self) -> str:
        return "dtype('mixed16')"


mixed16 = _Mixed16()


def get_dtype(dtype: Any = None, map_mixed16: Any = None) -> numpy.dtype:
    """``numpy.dtype(dtype)``, or ``config.dtype`` when ``dtype`` is None (``mixed16`` maps
    to ``map_mixed16`` when given, else float16)."""
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16:
        dtype = numpy.float16 if map_mixed16 is None else map_mixed16
    return numpy.dtype(dtype)


class _FallbackType:
    def __repr__(self) -> str:
        return 'Fallback'


#: What a ChainerX forward returns to ask for the NumPy/CuPy path (never needed here).
Fallback = _FallbackType()
