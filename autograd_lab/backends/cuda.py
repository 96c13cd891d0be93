"""``chainer.backends.cuda`` (also ``chainer.cuda``): the GPU helpers Chainer code imports.

Most Chainer code does ``from chainer.backends import cuda`` and calls
``cuda.get_array_module``, ``cuda.to_cpu``, ``cuda.to_gpu`` or tests ``cuda.available``.
This module gives those names their Chainer meaning on top of autograd_lab's GPU
backend (CuPy when it imports and a GPU answers), so the code runs unchanged on a
machine without CuPy: ``available`` is then False, ``to_cpu`` and ``get_array_module``
work, and what needs a GPU (``to_gpu``, ``copy``, kernels) raises Chainer's
``RuntimeError``.  autograd_lab never uses cuDNN: ``cudnn_enabled`` is False and
``should_use_cudnn`` always says no.

``available``, ``cupy``, ``ndarray`` and ``Device`` are looked up when read, so they
follow the GPU backend in use.

>>> import numpy as np
>>> from autograd_lab.backends import cuda
>>> cuda.get_array_module(np.ones(2)).__name__
'numpy'
>>> cuda.to_cpu([np.ones(1), None])
[array([1.]), None]
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.backend import GpuDevice, _convert_arrays  # noqa: F401 (chainer names)
from autograd_lab.configuration import config

cudnn_enabled = False
cudnn = None
libcudnn = None
_integer_types = (int, numpy.integer)


class _PerformanceWarning(Warning):
    """CuPy's PerformanceWarning, for warning filters that name it (as Chainer's alias)."""


class _NoGpuArray:
    """``cuda.ndarray`` when there is no GPU: a class no array is an instance of."""


class _NoGpuDevice:
    """``cuda.Device`` when there is no GPU: constructing one is allowed, using it is not."""

    def __init__(self, device: Any = None) -> None:
        self.id = device

    def __enter__(self) -> _NoGpuDevice:
        check_cuda_available()
        return self

    def __exit__(self, *args: Any) -> None:
        return None


_NOT_CUPY = object()  # ``cuda.cupy`` without a GPU: ``xp is cuda.cupy`` is then always False


def __getattr__(name: str) -> Any:
    gpu = backend.gpu_backend()
    if name == 'available':
        return gpu is not None
    if name == 'cupy':
        return _NOT_CUPY if gpu is None else gpu.xp
    if name == 'ndarray':
        return _NoGpuArray if gpu is None else gpu.array_type
    if name == 'Device':
        cuda = getattr(gpu.xp, 'cuda', None) if gpu is not None else None
        return getattr(cuda, 'Device', _NoGpuDevice)
    if name == 'cuda':  # cupy.cuda
        return None if gpu is None else getattr(gpu.xp, 'cuda', None)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_cuda_available() -> None:
    """Raise ``RuntimeError`` unless a GPU backend (CuPy and a GPU) is usable."""
    backend._require_gpu()


class DummyDeviceType:
    """The "device" of CPU arrays: a context manager and ``use()`` that do nothing."""

    id = -1

    def __int__(self) -> int:
        return -1

    def __enter__(self) -> DummyDeviceType:
        return self

    def __exit__(self, *args: Any) -> None:
        return None

    def use(self) -> None:
        """No-op."""

    def synchronize(self) -> None:
        """No-op."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DummyDeviceType)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = object.__hash__


DummyDevice = DummyDeviceType()


def _device_id(device: Any) -> int:
    """The GPU index named by ``device`` (None or DummyDevice: the current one, 0 here)."""
    if device is None or device is DummyDevice:
        device_class = __getattr__('Device')
        return 0 if device_class is _NoGpuDevice else int(device_class().id)
    if isinstance(device, GpuDevice):
        return device.device_id
    if isinstance(device, _integer_types) and not isinstance(device, bool) and device >= 0:
        return int(device)
    index = getattr(device, 'id', None)
    if isinstance(index, _integer_types) and index >= 0:
        return int(index)
    raise ValueError(f'Invalid CUDA device specifier: {device}')


def get_device_from_id(device_id: int | None) -> Any:
    """The CUDA device ``device_id`` (``DummyDevice`` for None or a negative id)."""
    if device_id is not None and device_id >= 0:
        check_cuda_available()
        return __getattr__('Device')(int(device_id))
    return DummyDevice


def get_device_from_array(*arrays: Any) -> Any:
    """The CUDA device of the first GPU array among ``arrays``, else ``DummyDevice``."""
    for array in arrays:
        device = backend.GpuDevice.from_array(array)
        if device is not None:
            return __getattr__('Device')(device.device_id)
    return DummyDevice


def get_device(*args: Any) -> Any:
    """Deprecated: use :func:`get_device_from_id` or :func:`get_device_from_array`."""
    warnings.warn('get_device is deprecated. Please use get_device_from_id or '
                  'get_device_from_array instead.', DeprecationWarning, stacklevel=2)
    for arg in args:
        if isinstance(arg, _integer_types) and not isinstance(arg, bool):
            return get_device_from_id(arg)
        if backend.GpuDevice.from_array(arg) is not None:
            return get_device_from_array(arg)
    return DummyDevice


def to_gpu(array: Any, device: Any = None, stream: Any = None) -> Any:
    """Copy an array (or a list/tuple of arrays, None kept) to GPU ``device``.

    Arrays already there are returned as they are.  Without a GPU: ``RuntimeError``.
    """
    if stream is not None:
        warnings.warn('The stream option is deprecated in chainer.backends.cuda.to_gpu. '
                      'Please remove it.', DeprecationWarning, stacklevel=2)
    check_cuda_available()
    return backend.GpuDevice.from_device_id(_device_id(device)).send(array)


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Copy a GPU array (or a list/tuple of arrays, None kept) to a NumPy array.

    NumPy arrays are returned as they are; NumPy scalars become 0-dim arrays.
    """
    return backend.CPU.send(array)


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> Any:
    """Copy a GPU array, into ``out`` or onto ``out_device`` (default: its own device)."""
    check_cuda_available()
    if out is None:
        device = backend.get_device_from_array(array) if out_device is None else \
            backend.GpuDevice.from_device_id(_device_id(out_device))
        return device.send(array.copy()) if device.is_array_supported(array) else \
            device.send(backend.CPU.send(array))
    backend.copyto(out, array)
    return out


def memoize(for_each_device: bool = False) -> Any:
    """CuPy's ``memoize`` with a GPU; without one, a decorator that changes nothing."""
    gpu = backend.gpu_backend()
    if gpu is not None and hasattr(gpu.xp, 'memoize'):
        return gpu.xp.memoize(for_each_device)

    def decorator(f: Any) -> Any:
        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            return f(*args, **kwargs)
        return call
    return decorator


def clear_memo() -> None:
    """Clear CuPy's memo (no-op without a GPU)."""
    gpu = backend.gpu_backend()
    if gpu is not None and hasattr(gpu.xp, 'clear_memo'):
        gpu.xp.clear_memo()


def _kernel(kind: str, *args: Any, **kwargs: Any) -> Any:
    check_cuda_available()
    return getattr(backend.gpu_backend().xp, kind)(*args, **kwargs)  # type: ignore[union-attr]


def elementwise(in_params: str, out_params: str, operation: str, name: str,
                **kwargs: Any) -> Any:
    """A CuPy ElementwiseKernel (GPU only)."""
    return _kernel('ElementwiseKernel', in_params, out_params, operation, name, **kwargs)


def reduce(in_params: str, out_params: str, map_expr: str, reduce_expr: str,
           post_map_expr: str, identity: Any, name: str, **kwargs: Any) -> Any:
    """A CuPy ReductionKernel (GPU only)."""
    return _kernel('ReductionKernel', in_params, out_params, map_expr, reduce_expr,
                   post_map_expr, identity, name, **kwargs)


def raw(code: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """A CuPy RawKernel (GPU only)."""
    return _kernel('RawKernel', code, name, *args, **kwargs)


def get_array_module(*args: Any) -> Any:
    """``numpy``, or the GPU ``xp`` when an argument (array or Variable) is on a GPU."""
    return backend.get_array_module(*args)


def get_max_workspace_size() -> int:
    """cuDNN's workspace size: 0 (autograd_lab does not use cuDNN)."""
    return 0


def set_max_workspace_size(size: int) -> None:
    """No-op (autograd_lab does not use cuDNN)."""


def fuse(*args: Any, **kwargs: Any) -> Any:
    """``cupy.fuse`` with a GPU; without one the function itself (or a no-op decorator)."""
    gpu = backend.gpu_backend()
    if gpu is not None and hasattr(gpu.xp, 'fuse'):
        return gpu.xp.fuse(*args, **kwargs)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda f: f


_CUDNN_LEVELS = ('==always', '>=auto')
_FLAGS = ('always', 'auto', 'never')


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Whether to call cuDNN: always False (autograd_lab never uses cuDNN)."""
    return False


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Whether cuDNN may use tensor cores: False (no cuDNN); the setting is still checked."""
    if config.use_cudnn_tensor_core not in _FLAGS:
        raise ValueError('invalid use_cudnn_tensor_core configuration: '
                         f'{config.use_cudnn_tensor_core!r} (must be either of "always", '
                         '"auto", or "never")')
    return False


def get_cudnn_dropout_states() -> Any:
    raise RuntimeError('cuDNN is not enabled.')
