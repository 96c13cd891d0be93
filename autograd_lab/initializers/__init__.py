"""Initializers: objects that fill a freshly allocated array in place.

>>> import numpy as np
>>> a = np.empty((2, 2), np.float32)
>>> Constant(3.0)(a)
>>> a
array([[3., 3.],
       [3., 3.]], dtype=float32)
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy

from autograd_lab import backend
from autograd_lab.configuration import config


class Initializer:
    """Base class: ``__call__(array)`` fills ``array`` in place.

    Args:
        dtype: the dtype the initializer produces, or None for ``config.dtype``.
    """

    def __init__(self, dtype: Any = None) -> None:
        self.dtype = dtype

    def __call__(self, array: Any) -> None:
        raise NotImplementedError

    def _check_dtype(self, array: Any) -> None:
        if self.dtype is not None:
            assert array.dtype == numpy.dtype(self.dtype), (
                f'initializer dtype {numpy.dtype(self.dtype)} does not match the array dtype '
                f'{array.dtype}')

    def __repr__(self) -> str:
        return f'{type(self).__name__}()'


class Constant(Initializer):
    """Fills with ``fill_value`` (a scalar, or an array broadcast into the target)."""

    def __init__(self, fill_value: Any, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.fill_value = fill_value

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        xp = backend.get_array_module(array)
        value = self.fill_value
        if isinstance(value, numpy.ndarray) or backend.is_array(value):
            value = backend.get_device_from_array(array).send(value)
        xp.copyto(array, xp.asarray(value, dtype=array.dtype)
                  if not backend.is_array(value) else value.astype(array.dtype, copy=False))

    def __repr__(self) -> str:
        return f'Constant({self.fill_value!r})'


class Zero(Constant):
    """Fills with zeros."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(0.0, dtype)

    def __repr__(self) -> str:
        return 'Zero()'


class One(Constant):
    """Fills with ones."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(1.0, dtype)

    def __repr__(self) -> str:
        return 'One()'


class NaN(Constant):
    """Fills with NaN: the default of Parameters, so a forgotten ``cleargrad`` shows."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(numpy.nan, dtype)

    def __repr__(self) -> str:
        return 'NaN()'


def get_fans(shape: tuple) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of ``shape`` = (out, in, *kernel)."""
    if len(shape) < 2:
        raise ValueError(f'shape must be of length >= 2: shape={shape}')
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Normal(Initializer):
    """Samples from N(0, scale²)."""

    def __init__(self, scale: float = 0.05, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        xp = backend.get_array_module(array)
        array[...] = xp.random.normal(0.0, self.scale, array.shape)


class LeCunNormal(Initializer):
    """Samples from N(0, scale² / fan_in)."""

    def __init__(self, scale: float = 1.0, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        fan_in, _ = get_fans(array.shape)
        Normal(self.scale * math.sqrt(1.0 / fan_in), self.dtype)(array)


def _as_initializer(value: Any) -> Any:
    if value is None:
        return NaN()
    if isinstance(value, (int, float, numpy.number)) and not isinstance(value, bool):
        return Constant(value)
    return value


def generate_array(initializer: Any, shape: Any, xp: Any, dtype: Any = None,
                   device: Optional[Any] = None) -> Any:
    """Allocate an array of ``shape`` on ``device`` and fill it with ``initializer``.

    The dtype is the initializer's own, else ``dtype``, else ``config.dtype``.

    >>> generate_array(One(), (2,), numpy)
    array([1., 1.], dtype=float32)
    """
    init_dtype = getattr(initializer, 'dtype', None)
    dtype = numpy.dtype(init_dtype if init_dtype is not None else
                        dtype if dtype is not None else config.dtype)
    if device is None:
        device = backend.CPU if xp is numpy else backend.get_device(0)
    else:
        device = backend.get_device(device)
    array = device.xp.empty(shape, dtype=dtype) if device.xp is not numpy else numpy.empty(
        shape, dtype=dtype)
    initializer(array)
    return array
