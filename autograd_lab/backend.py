"""Devices: where arrays live and which array module (``xp``) computes on them.

The CPU (NumPy) device always exists.  GPU devices come from a *GPU backend*:
CuPy when it imports and a GPU answers, or any backend registered with
:func:`register_gpu_backend` (the test suite registers a NumPy-backed stand-in,
so every transfer path runs on machines without a GPU).

>>> from autograd_lab import backend
>>> dev = backend.get_device('@numpy')
>>> dev
<CpuDevice (numpy)>
>>> str(dev), dev.xp.__name__
('@numpy', 'numpy')
>>> backend.get_device(-1) == dev
True
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any
from collections.abc import Callable

import numpy

_CUDA_SETUP_ERROR = ('CUDA environment is not correctly set up\n'
                     '(see https://github.com/chainer/chainer#installation).'
                     'No module named \'cupy\' or no GPU is available')


class Device:
    """A place arrays live in; subclasses say which ``xp`` and how to send arrays there."""

    xp: ModuleType
    name: str

    def send(self, array: Any) -> Any:
        """Return ``array`` on this device (the same object if it is already here)."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and str(self) == str(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(str(self))

    def __str__(self) -> str:
        return self.name

    def use(self) -> None:
        """Make this device current (no-op where there is no notion of a current device)."""


class CpuDevice(Device):
    """The NumPy device, ``'@numpy'``."""

    xp = numpy
    name = '@numpy'

    def __repr__(self) -> str:
        return '<CpuDevice (numpy)>'

    def send(self, array: Any) -> Any:
        if array is None or (isinstance(array, numpy.ndarray) and type(array) is numpy.ndarray):
            return array
        if isinstance(array, numpy.generic):
            return numpy.asarray(array)
        getter = getattr(array, 'get', None)  # CuPy and GPU-like arrays copy back with .get()
        if getter is not None:
            return getter()
        return numpy.asarray(array)


class GpuBackend:
    """What a GPU array library must provide: its ``xp``, its array type, and copies in and out."""

    def __init__(self, xp: ModuleType, array_type: type, *, to_device: Callable[[Any, int], Any],
                 device_of: Callable[[Any], int], device_count: Callable[[], int],
                 use: Callable[[int], None] = lambda index: None, label: str = 'cupy') -> None:
        self.xp = xp
        self.array_type = array_type
        self.to_device = to_device
        self.device_of = device_of
        self.device_count = device_count
        self.use = use
        self.label = label


class GpuDevice(Device):
    """A GPU, ``'@cupy:N'``."""

    def __init__(self, gpu: GpuBackend, index: int) -> None:
        if not 0 <= index < gpu.device_count():
            raise ValueError(f'GPU device @cupy:{index} does not exist '
                             f'({gpu.device_count()} device(s) available)')
        self._gpu = gpu
        self.xp = gpu.xp
        self.device_id = index
        self.name = f'@cupy:{index}'

    def __repr__(self) -> str:
        return f'<GpuDevice (cupy):{self.device_id}>'

    def send(self, array: Any) -> Any:
        if array is None:
            return None
        if isinstance(array, self._gpu.array_type) and self._gpu.device_of(array) == self.device_id:
            return array
        if isinstance(array, numpy.generic):
            array = numpy.asarray(array)
        return self._gpu.to_device(array, self.device_id)

    def use(self) -> None:
        self._gpu.use(self.device_id)


_lock = threading.Lock()
_gpu: GpuBackend | None = None
_gpu_probed = False


def _probe_cupy() -> GpuBackend | None:
    try:
        import cupy  # noqa: PLC0415 - optional dependency, imported on first GPU use
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
    except Exception:  # ImportError, or a CUDA runtime error when no GPU answers
        return None

    def to_device(array: Any, index: int) -> Any:
        with cupy.cuda.Device(index):
            return cupy.asarray(array)

    return GpuBackend(cupy, cupy.ndarray, to_device=to_device,
                      device_of=lambda a: a.device.id,
                      device_count=cupy.cuda.runtime.getDeviceCount,
                      use=lambda index: cupy.cuda.Device(index).use())


def gpu_backend() -> GpuBackend | None:
    """The GPU backend in use, or None when there is no usable GPU (CuPy is probed once)."""
    global _gpu, _gpu_probed
    if not _gpu_probed:
        with _lock:
            if not _gpu_probed:
                _gpu = _probe_cupy()
                _gpu_probed = True
    return _gpu


def register_gpu_backend(gpu: GpuBackend | None) -> GpuBackend | None:
    """Install ``gpu`` as the GPU backend (None: no GPU); return the previous one."""
    global _gpu, _gpu_probed
    with _lock:
        previous = _gpu if _gpu_probed else None
        _gpu, _gpu_probed = gpu, True
    return previous


def cuda_available() -> bool:
    """True when ``to_gpu()`` can work."""
    return gpu_backend() is not None


def gpu_unavailable_reason() -> str | None:
    """Why there is no GPU device (None when there is one); shown by the widget's toggle."""
    if gpu_backend() is not None:
        return None
    try:
        import cupy  # noqa: F401, PLC0415
    except ImportError:
        return 'CuPy is not installed (pip install "autograd-lab[gpu]")'
    return 'CuPy is installed but no CUDA GPU is available'


def _require_gpu() -> GpuBackend:
    gpu = gpu_backend()
    if gpu is None:
        raise RuntimeError(_CUDA_SETUP_ERROR)
    return gpu


CPU = CpuDevice()


def get_device(device_spec: Any) -> Device:
    """Return the :class:`Device` named by ``device_spec``.

    Accepted forms: a Device; ``'@numpy'`` or ``-1`` (CPU); ``'@cupy:N'`` or an
    int ``N >= 0`` (GPU N).  ``'@intel64'`` and ChainerX names (no ``'@'``) raise
    ``RuntimeError`` because those backends are not part of autograd_lab.

    >>> get_device('@numpy')
    <CpuDevice (numpy)>
    >>> get_device('@foo')
    Traceback (most recent call last):
    ...
    ValueError: Invalid device specifier: '@foo'
    """
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, (int, numpy.integer)) and not isinstance(device_spec, bool):
        if device_spec < 0:
            return CPU
        return GpuDevice(_require_gpu(), int(device_spec))
    if (isinstance(device_spec, tuple) and len(device_spec) == 2
            and device_spec[0] in ('@cupy', 'cupy')):
        return get_device(f'@cupy:{device_spec[1]}')
    if not isinstance(device_spec, str):
        raise TypeError(f'Invalid device specifier: {device_spec!r}')
    if device_spec == '@numpy':
        return CPU
    if device_spec.startswith('@cupy:'):
        index = device_spec[len('@cupy:'):]
        if not index.isdigit():
            raise ValueError(f'Invalid device specifier: {device_spec!r}')
        return GpuDevice(_require_gpu(), int(index))
    if device_spec == '@intel64':
        raise RuntimeError('iDeep (the @intel64 backend) is not available in autograd_lab')
    if device_spec.startswith('@'):
        raise ValueError(f'Invalid device specifier: {device_spec!r}')
    raise RuntimeError(f'ChainerX is not available (device specifier {device_spec!r} names a '
                       'ChainerX device)')


def get_device_from_array(array: Any) -> Device:
    """The device that holds ``array`` (CPU for NumPy arrays, scalars and None)."""
    if array is None or (isinstance(array, (numpy.ndarray, numpy.generic)) and not _is_gpu(array)):
        return CPU
    gpu = gpu_backend()
    if gpu is not None and isinstance(array, gpu.array_type):
        return GpuDevice(gpu, gpu.device_of(array))
    return CPU


def _is_gpu(array: Any) -> bool:
    gpu = _gpu
    return (gpu is not None and type(array) is not numpy.ndarray
            and isinstance(array, gpu.array_type))


def get_array_module(*arrays: Any) -> ModuleType:
    """``numpy``, or the GPU ``xp`` when any argument (array or Variable) lives on a GPU."""
    gpu = _gpu
    if gpu is not None:
        for a in arrays:
            a = getattr(a, 'array', a)
            if isinstance(a, gpu.array_type) and type(a) is not numpy.ndarray:
                return gpu.xp
    return numpy


def is_array(obj: Any) -> bool:
    """True for the array types the engine accepts as Variable data."""
    if isinstance(obj, numpy.ndarray):
        return True
    gpu = _gpu
    return gpu is not None and isinstance(obj, gpu.array_type)


def copyto(dst: Any, src: Any) -> None:
    """Copy ``src`` into ``dst`` in place, across devices, with NumPy casting/broadcasting."""
    xp = get_array_module(dst)
    src = get_device_from_array(dst).send(src) if get_array_module(src) is not xp else src
    xp.copyto(dst, src)
