"""A GPU backend without a GPU: NumPy arrays behind a distinct array type.

``FakeGpuArray`` is an ndarray subclass that remembers which fake device holds
it (``device_id``).  ``xp`` is a module-like namespace that delegates to NumPy
and views every array result as a ``FakeGpuArray`` (as ``cupy`` returns
``cupy.ndarray``), so the engine's device paths (``to_gpu``, ``to_device``,
``get_array_module``, the no-mixing check, ...) all run without a GPU.  Like CuPy, an
arithmetic operation refuses a NumPy array next to a GPU one (TypeError), and an array
that ``np.*`` made, or indexed, is a NumPy array, not a GPU one.

:func:`installed` puts it in place as the engine's GPU backend for a block (the tests'
``fake_gpu`` fixture, and the lessons' checkers where there is no real GPU):

>>> import numpy as np
>>> from autograd_lab import backend
>>> with installed():
...     a = backend.GpuDevice.from_device_id(0).send(np.arange(3.0))
...     print(type(a).__name__, type(np.eye(3)[a.astype(int)]).__name__)
...     a + np.ones(3)
Traceback (most recent call last):
...
TypeError: ...
>>> FakeGpuArray.__name__
'FakeGpuArray'
"""

from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Iterator
from typing import Any

import numpy

from autograd_lab import backend

DEVICE_COUNT = 2

_current = {'device': 0}
#: Whether a NumPy array next to a GPU one raises, as in CuPy (:func:`installed`'s strict).
_refuse_mixing = {'on': False}


class FakeGpuArray(numpy.ndarray):
    """A NumPy array that pretends to live on fake GPU ``device_id``."""

    device_id: int

    def __array_finalize__(self, obj: Any) -> None:
        self.device_id = getattr(obj, 'device_id', _current['device'])

    def __getitem__(self, index: Any) -> Any:
        # CuPy returns 0-dim arrays, never NumPy scalars.
        return _wrap(super().__getitem__(index), self.device_id)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        # CuPy refuses a NumPy array as an operand (TypeError): no silent host-device mix.
        operands = (*inputs, *kwargs.get('out', ()))
        if _refuse_mixing['on'] and any(type(a) is numpy.ndarray for a in operands):
            raise TypeError(f'Unsupported type {numpy.ndarray!r} next to a GPU array '
                            f'(fake GPU, as CuPy): {ufunc.__name__}')
        plain = [a.view(numpy.ndarray) if isinstance(a, FakeGpuArray) else a for a in inputs]
        if 'out' in kwargs:
            kwargs['out'] = tuple(o.view(numpy.ndarray) for o in kwargs['out'])
        result = getattr(ufunc, method)(*plain, **kwargs)
        if method == 'at':
            return None
        return _wrap(result, self.device_id)

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


@contextlib.contextmanager
def installed(*, strict: bool = True) -> Iterator[backend.GpuBackend]:
    """The fake GPU as the engine's GPU backend inside the block; afterwards the registry
    is exactly as it was (a real CuPy not probed yet is still probed on first use).

    ``strict=False`` lets a NumPy array and a GPU one mix in arithmetic, for tests that
    compare GPU results with ``np.testing`` (which CuPy itself would refuse).
    """
    with backend._lock:
        saved = backend._gpu, backend._gpu_probed
    saved_device, saved_strict = _current['device'], _refuse_mixing['on']
    _refuse_mixing['on'] = strict
    use(0)
    backend.register_gpu_backend(make_backend())
    try:
        yield backend.gpu_backend()
    finally:
        with backend._lock:
            backend._gpu, backend._gpu_probed = saved
        _refuse_mixing['on'] = saved_strict
        use(saved_device)
