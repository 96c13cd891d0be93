"""``chainer.types``: the type aliases Chainer's annotations use.

>>> TYPE_CHECKING
False
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from typing import Any

import numpy

TYPE_CHECKING = typing.TYPE_CHECKING

Shape = tuple[int, ...]
ShapeSpec = int | Sequence[int]
DTypeSpec = Any
NdArray = numpy.ndarray
Xp = Any
ScalarValue = numpy.generic | bytes | str | memoryview | float | int | bool
InitializerSpec = Callable[..., Any] | ScalarValue | numpy.ndarray | None
DeviceSpec = Any
CudaDeviceSpec = Any
