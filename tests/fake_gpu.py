"""A test-only GPU backend: NumPy arrays behind a distinct array type.

``FakeGpuArray`` is an ndarray subclass that remembers which fake device holds
it (``device_id``).  ``xp`` is a module-like namespace that delegates to NumPy
and views every array result as a ``FakeGpuArray`` (as ``cupy`` returns
``cupy.ndarray``), so the engine's device paths (``to_gpu``, ``to_device``,
``get_array_module``, the no-mixing check, ...) all run without a GPU.

Use it through the ``fake_gpu`` fixture of ``tests/conftest.py``, which
registers :func:`make_backend` with ``backend.register_gpu_backend`` and
restores the previous backend afterwards.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy

from autograd_lab import backend

DEVICE_COUNT = 2

_current = {'device': 0}


class FakeGpuArray(numpy.ndarray):
    """A NumPy array that pretends to live on fake GPU ``device_id``."""

    device_id: int

    def __array_finalize__(self, obj: Any) -> None:
        self.device_id = getattr(obj, 'device_id', _current['device'])

    def __getitem__(self, index: Any) -> Any:
        # CuPy returns 0-dim arrays, never NumPy scalars.
        return _wrap(super().__getitem__(index), self.device_id)

    def get(self) -> numpy.ndarray:
        """A NumPy copy on the host (like ``cupy.ndarray.get``)."""
        return numpy.array(self.view(numpy.ndarray), copy=True)

    @property
    def device(self) -> Any:
        return types.SimpleNamespace(id=self.device_id)


def _wrap(result: Any, device_id: int | None = None) -> Any:
    if isinstance(result, numpy.generic):
        result = numpy.asarray(result)
    if isinstance(result, numpy.ndarray) and not isinstance(result, FakeGpuArray):
        result = result.view(FakeGpuArray)
        if device_id is not None:
            result.device_id = device_id
    elif isinstance(result, tuple):
        return tuple(_wrap(r, device_id) for r in result)
    return result


def _device_of_args(args: tuple, kwargs: dict) -> int | None:
    for a in (*args, *kwargs.values()):
        if isinstance(a, FakeGpuArray):
            return a.device_id
    return None


class _Namespace:
    """Module-like wrapper of a NumPy (sub)module whose functions return FakeGpuArrays."""

    def __init__(self, module: Any, name: str) -> None:
        self._module = module
        self.__name__ = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._module, attr)
        if isinstance(value, types.ModuleType):
            return _Namespace(value, f'{self.__name__}.{attr}')
        if isinstance(value, numpy.ufunc):
            return value  # ufuncs keep the subclass of their inputs (and keep .at/.reduce)
        if isinstance(value, type) or not callable(value):
            return value  # dtypes, constants

        @functools.wraps(value)
        def call(*args: Any, **kwargs: Any) -> Any:
            return _wrap(value(*args, **kwargs), _device_of_args(args, kwargs))
        return call

    def __repr__(self) -> str:
        return f'<fake GPU namespace {self.__name__}>'


xp = _Namespace(numpy, 'fake_cupy')
xp.ndarray = FakeGpuArray


def to_device(array: Any, index: int) -> FakeGpuArray:
    """Copy ``array`` (host or fake GPU) onto fake device ``index``."""
    host = array.get() if isinstance(array, FakeGpuArray) else numpy.asarray(array)
    out = numpy.array(host, copy=True).view(FakeGpuArray)
    out.device_id = index
    return out


def device_of(array: FakeGpuArray) -> int:
    return array.device_id


def device_count() -> int:
    return DEVICE_COUNT


def use(index: int) -> None:
    _current['device'] = index


def make_backend() -> backend.GpuBackend:
    return backend.GpuBackend(xp, FakeGpuArray, to_device=to_device, device_of=device_of,
                              device_count=device_count, use=use, label='fake',
                              current=lambda: _current['device'])
