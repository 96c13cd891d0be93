"""A GPU backend without a GPU: NumPy arrays behind an array type of their own.

``FakeGpuArray`` holds a NumPy array and the fake device it lives on (``device_id``),
and, like ``cupy.ndarray``, it is *not* a NumPy array: ``isinstance(a, numpy.ndarray)``
is false, and NumPy refuses to take it implicitly (``np.asarray(a)``, ``np.array(a)``
raise ``TypeError``; ``a.get()`` is the explicit copy to the host).  ``xp`` is a
module-like namespace that delegates to NumPy and returns ``FakeGpuArray`` results (as
``cupy`` returns ``cupy.ndarray``), so the engine's device paths (``to_gpu``,
``to_device``, ``get_array_module``, the no-mixing check, ...) all run without a GPU.
Like CuPy, an arithmetic operation refuses a NumPy array next to a GPU one
(``TypeError``), and an array that ``np.*`` made, or indexed, is a NumPy array.

:func:`installed` puts it in place as the engine's GPU backend for a block (the tests'
``fake_gpu`` fixture, and the lessons' checkers where there is no real GPU):

>>> import numpy as np
>>> from autograd_lab import backend
>>> with installed():
...     a = backend.GpuDevice.from_device_id(0).send(np.arange(3.0))
...     print(type(a).__name__, type(np.eye(3)[a.get().astype(int)]).__name__)
...     print(type(a * 2).__name__, a.sum(), a.get())
...     np.asarray(a)
Traceback (most recent call last):
...
TypeError: Implicit conversion to a NumPy array is not allowed. ...
>>> FakeGpuArray.__name__
'FakeGpuArray'
"""

from __future__ import annotations

import contextlib
import functools
import operator
import types
from collections.abc import Iterator
from typing import Any

import numpy

from autograd_lab import backend

DEVICE_COUNT = 2

_current = {'device': 0}
#: Whether the fake is as strict as CuPy (:func:`installed`'s ``strict``): a NumPy array
#: next to a GPU one raises, and so does an implicit conversion to NumPy.
_strict = {'on': False}

#: The start of CuPy's refusal of ``np.asarray(gpu_array)``, in CuPy's own words, so a
#: hint keyed to it answers the real GPU and this stand-in alike.
IMPLICIT_CONVERSION = 'Implicit conversion to a NumPy array is not allowed'
_IMPLICIT = (f'{IMPLICIT_CONVERSION}. Please use `.get()` to construct a NumPy array '
             'explicitly. (fake GPU, as CuPy)')


def _refuse_host(operands: Any, what: str) -> None:
    if _strict['on'] and any(type(a) is numpy.ndarray for a in operands):
        raise TypeError(f'Unsupported type {numpy.ndarray!r} next to a GPU array '
                        f'(fake GPU, as CuPy): {what}')


def _host(value: Any) -> Any:
    """``value`` with every FakeGpuArray in it (lists, tuples, dicts too) as its NumPy array."""
    if isinstance(value, FakeGpuArray):
        return value._array
    if isinstance(value, (list, tuple)):
        return type(value)(_host(v) for v in value)
    if isinstance(value, dict):
        return {k: _host(v) for k, v in value.items()}
    return value


def _wrap(result: Any, device_id: int | None = None) -> Any:
    """A NumPy result as a FakeGpuArray on ``device_id`` (a scalar as a 0-dim array, as
    CuPy never returns NumPy scalars)."""
    if isinstance(result, numpy.generic):
        result = numpy.asarray(result)
    if type(result) is numpy.ndarray:
        return FakeGpuArray(result, _current['device'] if device_id is None else device_id)
    if isinstance(result, tuple):
        return tuple(_wrap(r, device_id) for r in result)
    if isinstance(result, list):
        return [_wrap(r, device_id) for r in result]
    return result


def _device_of_args(args: Any, kwargs: dict) -> int | None:
    for a in (*args, *kwargs.values()):
        if isinstance(a, FakeGpuArray):
            return a.device_id
        if isinstance(a, (list, tuple)):
            found = _device_of_args(a, {})
            if found is not None:
                return found
    return None


def _binary(name: str, *, reflected: bool = False) -> Any:
    op = getattr(operator, name)

    def method(self: FakeGpuArray, other: Any) -> Any:
        _refuse_host((other,), name)
        a, b = (_host(other), self._array) if reflected else (self._array, _host(other))
        return _wrap(op(a, b), self.device_id)
    method.__name__ = f'__r{name}__' if reflected else f'__{name}__'
    return method


def _in_place(name: str) -> Any:
    op = getattr(operator, f"i{name.rstrip('_')}")

    def method(self: FakeGpuArray, other: Any) -> FakeGpuArray:
        _refuse_host((other,), name)
        op(self._array, _host(other))  # NumPy's in-place operators write into the array
        return self
    method.__name__ = f'__i{name}__'
    return method


def _unary(name: str) -> Any:
    op = getattr(operator, name)

    def method(self: FakeGpuArray) -> Any:
        return _wrap(op(self._array), self.device_id)
    method.__name__ = f'__{name}__'
    return method


class FakeGpuArray:
    """A NumPy array that pretends to live on fake GPU ``device_id`` (not an ndarray)."""

    __slots__ = ('_array', 'device_id')
    __array_priority__ = 100.0  # NumPy defers its operators to ours, as it does to CuPy's
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, array: numpy.ndarray, device_id: int) -> None:
        self._array = array
        self.device_id = device_id

    # -- what NumPy may and may not do with it -------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> numpy.ndarray:
        if _strict['on']:
            raise TypeError(_IMPLICIT)
        return self._array if dtype is None else self._array.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        _refuse_host((*inputs, *kwargs.get('out', ())), ufunc.__name__)
        result = getattr(ufunc, method)(*_host(inputs), **_host(kwargs))
        if method == 'at':
            return None
        if 'out' in kwargs:  # written in place: hand back the GPU arrays given
            outs = kwargs['out']
            return outs[0] if len(outs) == 1 else outs
        return _wrap(result, self.device_id)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        _refuse_host((*args, *kwargs.values()), func.__name__)
        return _wrap(func(*_host(args), **_host(kwargs)), self.device_id)

    # -- the ndarray interface, on the array it holds ---------------------------------
    def __getattr__(self, name: str) -> Any:
        if name.startswith('__'):
            # NumPy looks for __array_interface__ / __array_struct__ before __array__:
            # handing it the host array's would convert silently, which CuPy never does.
            raise AttributeError(name)
        value = getattr(self._array, name)
        if callable(value):
            @functools.wraps(value)
            def call(*args: Any, **kwargs: Any) -> Any:
                return _wrap(value(*_host(args), **_host(kwargs)), self.device_id)
            return call
        return _wrap(value, self.device_id)

    @property
    def shape(self) -> tuple:
        return self._array.shape

    @shape.setter
    def shape(self, shape: tuple) -> None:
        self._array.shape = shape

    @property
    def dtype(self) -> numpy.dtype:
        return self._array.dtype

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def size(self) -> int:
        return self._array.size

    @property
    def T(self) -> FakeGpuArray:
        return FakeGpuArray(self._array.T, self.device_id)

    @property
    def device(self) -> Any:
        return types.SimpleNamespace(id=self.device_id)

    def get(self) -> numpy.ndarray:
        """A NumPy copy on the host (like ``cupy.ndarray.get``)."""
        return numpy.array(self._array, copy=True)

    def __getitem__(self, index: Any) -> Any:
        # CuPy returns 0-dim arrays, never NumPy scalars.
        return _wrap(self._array[_host(index)], self.device_id)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._array[_host(index)] = _host(value)

    def __len__(self) -> int:
        return len(self._array)

    def __iter__(self) -> Iterator[Any]:
        return (_wrap(row, self.device_id) for row in self._array)

    def __bool__(self) -> bool:
        return bool(self._array)

    def __float__(self) -> float:
        return float(self._array)

    def __int__(self) -> int:
        return int(self._array)

    def __complex__(self) -> complex:
        return complex(self._array)

    def __index__(self) -> int:
        return operator.index(self._array)

    def __copy__(self) -> FakeGpuArray:
        return FakeGpuArray(self._array.copy(), self.device_id)

    def __deepcopy__(self, memo: dict) -> FakeGpuArray:
        return self.__copy__()

    def __reduce__(self) -> tuple:
        return FakeGpuArray, (self._array, self.device_id)

    def __repr__(self) -> str:
        return repr(self._array)

    def __str__(self) -> str:
        return str(self._array)

    def __format__(self, spec: str) -> str:
        return format(self._array, spec)



# The operators, each through NumPy's on the array held (and refusing a host operand).
for _name in ('add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow', 'matmul',
              'and_', 'or_', 'xor', 'lshift', 'rshift'):
    _dunder = _name.rstrip('_')
    setattr(FakeGpuArray, f'__{_dunder}__', _binary(_name))
    setattr(FakeGpuArray, f'__r{_dunder}__', _binary(_name, reflected=True))
    setattr(FakeGpuArray, f'__i{_dunder}__', _in_place(_name))
for _name in ('lt', 'le', 'eq', 'ne', 'gt', 'ge'):
    setattr(FakeGpuArray, f'__{_name}__', _binary(_name))
for _name in ('neg', 'pos', 'abs', 'invert'):
    setattr(FakeGpuArray, f'__{_name}__', _unary(_name))
del _name, _dunder


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
            return value  # a ufunc on a FakeGpuArray answers through its __array_ufunc__
        if isinstance(value, type) or not callable(value):
            return value  # dtypes, constants

        @functools.wraps(value)
        def call(*args: Any, **kwargs: Any) -> Any:
            # cupy.* takes host arrays and GPU arrays alike (cupy.asarray is the way on)
            return _wrap(value(*_host(args), **_host(kwargs)), _device_of_args(args, kwargs))
        return call

    def __repr__(self) -> str:
        return f'<fake GPU namespace {self.__name__}>'


xp = _Namespace(numpy, 'fake_cupy')
xp.ndarray = FakeGpuArray


def to_device(array: Any, index: int) -> FakeGpuArray:
    """Copy ``array`` (host or fake GPU) onto fake device ``index``."""
    host = array.get() if isinstance(array, FakeGpuArray) else numpy.array(array, copy=True)
    return FakeGpuArray(host, index)


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

    ``strict=False`` lets a NumPy array and a GPU one mix in arithmetic and lets NumPy
    take a GPU array implicitly, for tests that compare GPU results with ``np.testing``
    (which CuPy itself would refuse).
    """
    with backend._lock:
        saved = backend._gpu, backend._gpu_probed
    saved_device, saved_strict = _current['device'], _strict['on']
    _strict['on'] = strict
    use(0)
    backend.register_gpu_backend(make_backend())
    try:
        yield backend.gpu_backend()
    finally:
        with backend._lock:
            backend._gpu, backend._gpu_probed = saved
        _strict['on'] = saved_strict
        use(saved_device)
