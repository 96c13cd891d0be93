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

import contextlib
import threading
from types import ModuleType
from typing import Any
from collections.abc import Callable, Iterator

import numpy

_CUDA_SETUP_ERROR = ('CUDA environment is not correctly set up\n'
                     '(see https://github.com/chainer/chainer#installation).'
                     'No module named \'cupy\' or no GPU is available')


def _convert_arrays(arrays: Any, convert: Callable[[Any], Any]) -> Any:
    """``convert`` one array, or each array of a list or tuple (same container type).

    An array that occurs several times in the container is converted once, so the
    results stay one object too; None entries stay None.
    """
    if not isinstance(arrays, (list, tuple)):
        return convert(arrays)
    done: dict = {}
    out = []
    for a in arrays:
        if a is None:
            out.append(None)
            continue
        b = done.get(id(a))
        if b is None:
            b = done[id(a)] = convert(a)
        out.append(b)
    return type(arrays)(out)


class _NoContext:
    """What ``using_device`` enters for a device with no notion of a current device."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class Device:
    """A place arrays live in; subclasses say which ``xp`` and how to send arrays there."""

    xp: ModuleType
    name: str
    supported_array_types: tuple = ()

    def send(self, arrays: Any) -> Any:
        """Return ``arrays`` on this device: one array, or a list/tuple of them (None kept).

        An array already on this device is returned as it is, not copied.

        >>> import numpy as np
        >>> a = np.zeros(2)
        >>> CpuDevice().send((a, None, a))[0] is a
        True
        """
        return _convert_arrays(arrays, self.send_array)

    def send_array(self, array: Any) -> Any:
        """Return one ``array`` on this device (the same object if it is already here)."""
        raise NotImplementedError

    def is_array_supported(self, array: Any) -> bool:
        """True when ``array`` lives on this device."""
        raise NotImplementedError

    def create_context(self) -> Any:
        """A context manager in which this device is current (see :func:`using_device`)."""
        return _NoContext()

    def __enter__(self) -> None:
        raise RuntimeError('Device class does not support runtime context using `with` '
                           'statement. Use chainer.using_device instead.')

    def __exit__(self, *exc: object) -> None:
        return None

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
    supported_array_types = (numpy.ndarray,)

    def __repr__(self) -> str:
        return '<CpuDevice (numpy)>'

    @staticmethod
    def from_array(array: Any) -> CpuDevice | None:
        """A CpuDevice if ``array`` is a NumPy array, else None."""
        return CPU if type(array) is numpy.ndarray or (
            isinstance(array, numpy.ndarray) and not _is_gpu(array)) else None

    def send_array(self, array: Any) -> Any:
        if array is None or type(array) is numpy.ndarray:
            return array
        if isinstance(array, numpy.generic) or numpy.isscalar(array):
            return numpy.asarray(array)
        getter = getattr(array, 'get', None)  # CuPy and GPU-like arrays copy back with .get()
        if getter is not None and is_array(array):
            return getter()
        if isinstance(array, numpy.ndarray):
            return array
        raise TypeError('Array cannot be converted into an numpy.ndarray'
                        f'\nActual type: {type(array)}.')

    def is_array_supported(self, array: Any) -> bool:
        return self.from_array(array) is not None


class GpuBackend:
    """What a GPU array library must provide: its ``xp``, its array type, and copies in and out."""

    def __init__(self, xp: ModuleType, array_type: type, *, to_device: Callable[[Any, int], Any],
                 device_of: Callable[[Any], int], device_count: Callable[[], int],
                 use: Callable[[int], None] = lambda index: None, label: str = 'cupy',
                 context: Callable[[int], Any] | None = None,
                 current: Callable[[], int] | None = None) -> None:
        self.xp = xp
        self.array_type = array_type
        self.to_device = to_device
        self.device_of = device_of
        self.device_count = device_count
        self.use = use
        self.label = label
        self.current = current  # the current device's index, where there is such a notion
        # ``using_device``: a context manager making device N current (and restoring it)
        self.context = context if context is not None else self._use_context

    @contextlib.contextmanager
    def _use_context(self, index: int) -> Iterator[None]:
        previous = None if self.current is None else self.current()
        self.use(index)
        try:
            yield
        finally:
            if previous is not None:
                self.use(previous)


class GpuDevice(Device):
    """A GPU, ``'@cupy:N'``."""

    @staticmethod
    def from_device_id(device_id: int) -> GpuDevice:
        """The GpuDevice of CUDA device ``device_id`` (RuntimeError without a GPU)."""
        gpu = _require_gpu()
        if not (isinstance(device_id, (int, numpy.integer)) and not isinstance(device_id, bool)
                and device_id >= 0):
            raise ValueError(f'Invalid CUDA device ID: {device_id}')
        return GpuDevice(gpu, int(device_id))

    @staticmethod
    def from_array(array: Any) -> GpuDevice | None:
        """The GpuDevice holding ``array``, or None when it is not a GPU array."""
        gpu = _gpu
        if gpu is not None and _is_gpu(array):
            return GpuDevice(gpu, gpu.device_of(array))
        return None

    @property
    def supported_array_types(self) -> tuple:  # type: ignore[override]
        return (self._gpu.array_type,)

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

    def __reduce__(self) -> tuple:
        return get_device, (self.name,)  # the backend holds functions: pickle the name

    def send_array(self, array: Any) -> Any:
        if array is None:
            return None
        if isinstance(array, self._gpu.array_type):
            if self._gpu.device_of(array) == self.device_id:
                return array
            return self._gpu.to_device(array, self.device_id)  # a copy from the other GPU
        if isinstance(array, numpy.generic):
            array = numpy.asarray(array)
        if not isinstance(array, numpy.ndarray):
            raise TypeError('The array sent to gpu must be an array or a NumPy scalar.'
                            f'\nActual type: {type(array)}.')
        return self._gpu.to_device(array, self.device_id)

    def is_array_supported(self, array: Any) -> bool:
        return _is_gpu(array) and self._gpu.device_of(array) == self.device_id

    def create_context(self) -> Any:
        return self._gpu.context(self.device_id)

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
                      use=lambda index: cupy.cuda.Device(index).use(),
                      context=cupy.cuda.Device)


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


_IDEEP_ERROR = ('iDeep is not available.\n'
                'Reason: autograd_lab has no iDeep (@intel64) backend')


def get_device(device_spec: Any) -> Device:
    """Return the :class:`Device` named by ``device_spec``.

    Accepted forms: a Device; ``'@numpy'``, ``-1`` or ``'-1'`` (CPU); ``'@cupy:N'``,
    an int ``N >= 0`` or ``'N'`` (GPU N).  ``'@intel64'`` and ChainerX names (no
    ``'@'``) raise ``RuntimeError``: those backends are not part of autograd_lab.

    >>> get_device('@numpy')
    <CpuDevice (numpy)>
    >>> get_device('@foo')
    Traceback (most recent call last):
    ...
    ValueError: Device specifiers starting with '@' must be followed by a module name and \
depending on the module, module specific precise device specifiers. Actual: @foo
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
        raise TypeError('Device specifier must be a backend.Device, cuda.Device, '
                        'chainerx.Device, integer or a string. '
                        f'Actual: {type(device_spec)}')
    try:
        return get_device(int(device_spec))
    except ValueError:
        pass
    if device_spec.startswith('@'):
        module, colon, index = device_spec[1:].partition(':')
        if module == 'numpy' and not colon:
            return CPU
        if module == 'cupy' and colon:
            return GpuDevice.from_device_id(int(index))
        if module == 'intel64' and not colon:
            raise RuntimeError(_IDEEP_ERROR)
        raise ValueError("Device specifiers starting with '@' must be followed by a module "
                         'name and depending on the module, module specific precise device '
                         f'specifiers. Actual: {device_spec}')
    raise RuntimeError(f"Tried to parse ChainerX device specifier '{device_spec}', but "
                       'ChainerX is not available. Note that device specifiers without '
                       "'@' prefix are assumed to be ChainerX device specifiers.")


def using_device(device_spec: Any) -> Any:
    """Context manager that makes the device named by ``device_spec`` current.

    On the CPU there is no current device, so the block runs unchanged; on a GPU
    it is the CUDA device that new arrays are allocated on.  ``device_spec`` is
    anything :func:`get_device` accepts.

    >>> import numpy as np, autograd_lab as chainer
    >>> with chainer.using_device('@numpy'):
    ...     chainer.Variable(np.ones(2)).device
    <CpuDevice (numpy)>
    """
    return get_device(device_spec).create_context()


def get_device_from_array(*arrays: Any) -> Device:
    """The device that holds the first GPU array among ``arrays``, else the CPU device.

    Variables are not looked into (pass ``v.array``).
    """
    gpu = _gpu
    if gpu is not None:
        for array in arrays:
            if _is_gpu(array):
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


class Intel64Device(Device):
    """Chainer's iDeep device.  autograd_lab has no iDeep backend: making one raises
    ``RuntimeError`` (``from_array`` is always None), so ``isinstance`` checks still work."""

    xp = numpy
    name = '@intel64'
    supported_array_types = (numpy.ndarray,)

    def __init__(self) -> None:
        raise RuntimeError(_IDEEP_ERROR)

    @staticmethod
    def from_array(array: Any) -> None:
        return None


class ChainerxDevice(Device):
    """Chainer's ChainerX device.  autograd_lab has no ChainerX: making one raises
    ``RuntimeError`` (``from_array`` is always None), so ``isinstance`` checks still work."""

    supported_array_types = ()

    def __init__(self, device: Any = None) -> None:
        raise RuntimeError('ChainerX is not available.')

    @staticmethod
    def from_array(array: Any) -> None:
        return None

    @staticmethod
    def from_fallback_device(device: Device) -> ChainerxDevice:
        raise RuntimeError('ChainerX is not available.')


def to_chx(arrays: Any) -> Any:
    """Chainer's conversion to ChainerX arrays: always ``RuntimeError`` (no ChainerX here)."""
    raise RuntimeError('ChainerX is not available.')


def from_chx(arrays: Any) -> Any:
    """Chainer's conversion from ChainerX arrays: no array here is one, so ``arrays`` are
    returned as they are (a list or tuple is rebuilt, as Chainer does)."""
    return _convert_arrays(arrays, lambda a: a)


def _contains_nan(x: Any) -> bool:
    """True when the float or complex array ``x`` has a NaN (other dtypes cannot)."""
    if x.dtype.kind not in 'fc':
        return False
    return bool(get_array_module(x).isnan(x).any())
