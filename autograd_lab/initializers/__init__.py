"""Initializers: objects that fill a freshly allocated array in place.

Every initializer is a callable ``init(array)`` that overwrites ``array``; its
``dtype`` attribute (None: any) is asserted against the array.  Random ones draw
from the array's own device (``numpy.random`` for CPU arrays, ``cupy.random`` on
a GPU), or from ``rng`` when one is given, so seeding ``numpy.random`` gives the
same weights as Chainer 7.8.1 with the same seed.

>>> import numpy as np
>>> a = np.empty((2, 2), np.float32)
>>> Constant(3.0)(a)
>>> a
array([[3., 3.],
       [3., 3.]], dtype=float32)
>>> w = generate_array(HeNormal(), (256, 128), np)
>>> w.dtype, round(float(w.std()) * (128 / 2) ** 0.5, 1)
(dtype('float32'), 1.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.configuration import config


class Initializer:
    """Base class: ``__call__(array)`` fills ``array`` in place.

    Args:
        dtype: the dtype the initializer produces, or None for ``config.dtype``.
            When set, calling the initializer on an array of another dtype
            fails with ``AssertionError`` (as in Chainer).

    >>> class Twos(Initializer):
    ...     def __call__(self, array):
    ...         self._check_dtype(array)
    ...         array[...] = 2
    >>> generate_array(Twos(), (3,), numpy)
    array([2., 2., 2.], dtype=float32)
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


def _is_scalar(value: Any) -> bool:
    return bool(numpy.isscalar(value))


class Constant(Initializer):
    """Fills with ``fill_value``: a scalar, or an array broadcast into the target.

    >>> a = numpy.empty((2, 3), numpy.float32)
    >>> Constant(numpy.arange(3))(a)
    >>> a
    array([[0., 1., 2.],
           [0., 1., 2.]], dtype=float32)
    """

    def __init__(self, fill_value: Any, dtype: Any = None) -> None:
        if not (_is_scalar(fill_value) or backend.is_array(fill_value)):
            raise ValueError('fill_value must be either scalar, numpy.ndarray or cupy.ndarray, '
                             f'not {type(fill_value).__name__}')
        super().__init__(dtype)
        self.fill_value = fill_value

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        xp = backend.get_array_module(array)
        value = self.fill_value
        if backend.is_array(value):
            value = backend.get_device_from_array(array).send(value)
            xp.copyto(array, value.astype(array.dtype, copy=False))
        else:
            array[...] = xp.asarray(value)

    def __repr__(self) -> str:
        return f'Constant({self.fill_value!r})'


class Zero(Constant):
    """Fills with zeros.

    >>> generate_array(Zero(), (2,), numpy)
    array([0., 0.], dtype=float32)
    """

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(0.0, dtype)

    def __repr__(self) -> str:
        return 'Zero()'


class One(Constant):
    """Fills with ones.

    >>> generate_array(One(numpy.float64), (2,), numpy)
    array([1., 1.])
    """

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(1.0, dtype)

    def __repr__(self) -> str:
        return 'One()'


class NaN(Constant):
    """Fills with NaN: the default of Parameters, so a forgotten ``cleargrad`` shows.

    >>> generate_array(NaN(), (2,), numpy)
    array([nan, nan], dtype=float32)
    """

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(numpy.nan, dtype)

    def __repr__(self) -> str:
        return 'NaN()'


def get_fans(shape: tuple) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of ``shape`` = (out, in, *kernel).

    >>> get_fans((64, 3, 5, 5))
    (75, 1600)
    """
    if not isinstance(shape, tuple):
        raise ValueError(f'shape must be tuple. Actual type: {type(shape)}')
    if len(shape) < 2:
        raise ValueError(f'shape must be of length >= 2: shape={shape}')
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fill_random(array: Any, rng: Any, method: str, **kwargs: Any) -> None:
    """Fill ``array`` with ``xp.random.<method>(**kwargs, size=array.shape)``."""
    if rng is None:
        xp = backend.get_array_module(array)
        array[...] = getattr(xp.random, method)(size=array.shape, **kwargs)
    else:
        sample = getattr(rng, method)(size=array.shape, **kwargs)
        backend.copyto(array, sample.astype(array.dtype, copy=False))


class _Random(Initializer):
    def __init__(self, scale: float, dtype: Any = None, *, rng: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __repr__(self) -> str:
        return f'{type(self).__name__}(scale={self.scale})'


class Normal(_Random):
    """Samples from N(0, scale²).

    Args:
        scale: the standard deviation (default 0.05).
        dtype: see :class:`Initializer`.
        rng: optional random state with a ``normal(loc, scale, size)`` method.

    >>> a = numpy.empty((1000, 100), numpy.float32)
    >>> Normal(2.0)(a)
    >>> round(float(a.std()), 1)
    2.0
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, *, rng: Any = None) -> None:
        super().__init__(scale, dtype, rng=rng)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        _fill_random(array, self.rng, 'normal', loc=0.0, scale=self.scale)


class Uniform(_Random):
    """Samples from U(-scale, scale).

    >>> a = numpy.empty((1000,), numpy.float32)
    >>> Uniform(0.5)(a)
    >>> bool(a.min() >= -0.5 and a.max() <= 0.5)
    True
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, *, rng: Any = None) -> None:
        super().__init__(scale, dtype, rng=rng)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        _fill_random(array, self.rng, 'uniform', low=-self.scale, high=self.scale)


class _Scaled(_Random):
    """An initializer that derives a Normal/Uniform scale from the fans of the array."""

    _base: type = Normal

    def __init__(self, scale: float = 1.0, dtype: Any = None, *, rng: Any = None) -> None:
        super().__init__(scale, dtype, rng=rng)

    def _std(self, fan_in: int, fan_out: int) -> float:
        raise NotImplementedError

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        fan_in, fan_out = get_fans(array.shape)
        self._base(self._std(fan_in, fan_out), rng=self.rng)(array)


class LeCunNormal(_Scaled):
    """N(0, s²) with ``s = scale * sqrt(1 / fan_in)`` (the default weight of ``L.Linear``).

    >>> a = numpy.empty((400, 100), numpy.float32)
    >>> LeCunNormal()(a)
    >>> round(float(a.std()) * 10, 1)
    1.0
    """

    def _std(self, fan_in: int, fan_out: int) -> float:
        return self.scale * math.sqrt(1.0 / fan_in)


class GlorotNormal(_Scaled):
    """N(0, s²) with ``s = scale * sqrt(2 / (fan_in + fan_out))``.

    >>> a = numpy.empty((100, 100), numpy.float32)
    >>> GlorotNormal()(a)
    >>> round(float(a.std()) * 10, 1)
    1.0
    """

    def _std(self, fan_in: int, fan_out: int) -> float:
        return self.scale * math.sqrt(2.0 / (fan_in + fan_out))


class HeNormal(_Scaled):
    """N(0, s²) with ``s = scale * sqrt(2 / fan)``, ``fan`` chosen by ``fan_option``.

    Args:
        scale: multiplier of the standard deviation.
        dtype: see :class:`Initializer`.
        fan_option: ``'fan_in'`` (default) or ``'fan_out'``; anything else raises
            ``ValueError`` when the initializer is used.
        rng: optional random state.

    >>> a = numpy.empty((50, 200), numpy.float32)
    >>> HeNormal(fan_option='fan_out')(a)
    >>> round(float(a.std()) * 5, 1)
    1.0
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None, fan_option: str = 'fan_in', *,
                 rng: Any = None) -> None:
        super().__init__(scale, dtype, rng=rng)
        self.fan_option = fan_option

    def _std(self, fan_in: int, fan_out: int) -> float:
        if self.fan_option == 'fan_in':
            return self.scale * math.sqrt(2.0 / fan_in)
        if self.fan_option == 'fan_out':
            return self.scale * math.sqrt(2.0 / fan_out)
        raise ValueError("fan_option should be either 'fan_in' or 'fan_out'.")


class LeCunUniform(_Scaled):
    """U(-s, s) with ``s = scale * sqrt(3 / fan_in)``.

    >>> a = numpy.empty((10, 3), numpy.float32)
    >>> LeCunUniform()(a)
    >>> bool(abs(a).max() <= 1.0)
    True
    """

    _base = Uniform

    def _std(self, fan_in: int, fan_out: int) -> float:
        return self.scale * math.sqrt(3.0 / fan_in)


class GlorotUniform(_Scaled):
    """U(-s, s) with ``s = scale * sqrt(6 / (fan_in + fan_out))``.

    >>> a = numpy.empty((3, 3), numpy.float32)
    >>> GlorotUniform()(a)
    >>> bool(abs(a).max() <= 1.0)
    True
    """

    _base = Uniform

    def _std(self, fan_in: int, fan_out: int) -> float:
        return self.scale * math.sqrt(6.0 / (fan_in + fan_out))


class HeUniform(_Scaled):
    """U(-s, s) with ``s = scale * sqrt(6 / fan_in)``.

    >>> a = numpy.empty((4, 6), numpy.float32)
    >>> HeUniform()(a)
    >>> bool(abs(a).max() <= 1.0)
    True
    """

    _base = Uniform

    def _std(self, fan_in: int, fan_out: int) -> float:
        return self.scale * math.sqrt(6.0 / fan_in)


class Identity(Initializer):
    """``scale`` times the identity matrix; the array must be 2-D and square.

    >>> generate_array(Identity(2.0), (2, 2), numpy)
    array([[2., 0.],
           [0., 2.]], dtype=float32)
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        shape = array.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError('Identity matrix initialization can only be used for 2D squared '
                             f'matrices, not shape {shape}')
        xp = backend.get_array_module(array)
        array[...] = xp.identity(shape[0]) * self.scale


_ORTHOGONAL_MODES = {  # mode: (must not be over-complete, must not be under-complete)
    'auto': (False, False),
    'projection': (False, True),
    'embedding': (True, False),
    'basis': (True, True),
}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``scale`` (default 1.1).

    A standard-normal matrix of shape ``(len(array), prod(shape[1:]))`` is
    QR-decomposed (transposed first when it is wide); ``Q`` with the signs of
    ``diag(R)`` is the result, so rows (or columns) are orthonormal.  A 0-dim
    array gets ``±scale``.  ``mode`` ('auto', 'projection', 'embedding',
    'basis') restricts which shapes are allowed.

    >>> w = generate_array(Orthogonal(scale=1.0), (3, 5), numpy, dtype=numpy.float64)
    >>> numpy.allclose(w @ w.T, numpy.eye(3))
    True
    """

    def __init__(self, scale: float = 1.1, dtype: Any = None, mode: str = 'auto', *,
                 rng: Any = None) -> None:
        if mode not in _ORTHOGONAL_MODES:
            raise ValueError(f'Invalid mode: {mode!r}. Choose from '
                             f"{', '.join(map(repr, _ORTHOGONAL_MODES))}.")
        super().__init__(dtype)
        self.scale = scale
        self.mode = mode
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        random = numpy.random if self.rng is None else self.rng
        if array.ndim == 0:
            array[...] = self.scale * (2 * int(random.randint(2)) - 1)
            return
        if array.size == 0:
            raise ValueError('Array to be initialized must be non-empty.')
        out_dim = array.shape[0]
        in_dim = math.prod(array.shape[1:])
        no_wide, no_tall = _ORTHOGONAL_MODES[self.mode]
        if (in_dim > out_dim and no_wide) or (in_dim < out_dim and no_tall):
            raise ValueError(f'Cannot make orthogonal {self.mode}. shape = {array.shape}, '
                             f'interpreted as {in_dim}-dim input and {out_dim}-dim output.')
        a = backend.CPU.send(random.normal(size=(out_dim, in_dim)))
        transpose = in_dim > out_dim
        if transpose:
            a = a.T
        q, r = numpy.linalg.qr(a)
        q *= numpy.copysign(self.scale, numpy.diag(r))
        if transpose:
            q = q.T
        backend.copyto(array, q.reshape(array.shape).astype(array.dtype, copy=False))

    def __repr__(self) -> str:
        return f'Orthogonal(scale={self.scale})'


def _as_initializer(value: Any) -> Any:
    """Parameter's rule: None → NaN, a scalar → Constant, anything else as is."""
    if value is None:
        return NaN()
    if isinstance(value, (int, float, numpy.number)) and not isinstance(value, bool):
        return Constant(value)
    return value


def _get_initializer(value: Any) -> Any:
    """Links' rule: None → LeCunNormal(), an array or scalar → Constant, else a callable."""
    if value is None:
        return LeCunNormal()
    if backend.is_array(value) or _is_scalar(value):
        return Constant(value)
    if not callable(value):
        raise TypeError(f'invalid type of initializer: {type(value)}')
    return value


def generate_array(initializer: Any, shape: Any, xp: Any, dtype: Any = None,
                   device: Any | None = None) -> Any:
    """Allocate an array of ``shape`` on ``device`` and fill it with ``initializer``.

    The dtype is the initializer's own, else ``dtype``, else ``config.dtype``;
    giving both with different values raises ``ValueError``.  Without ``device``
    the array goes to the CPU for NumPy and to GPU 0 otherwise; ``xp`` must
    agree with ``device``.

    >>> generate_array(One(), (2,), numpy)
    array([1., 1.], dtype=float32)
    >>> generate_array(One(numpy.float16), 2, numpy, dtype=numpy.float32)
    Traceback (most recent call last):
    ...
    ValueError: dtype mismatch: <class 'numpy.float32'> != <class 'numpy.float16'>
    """
    init_dtype = getattr(initializer, 'dtype', None)
    if dtype is not None and init_dtype is not None and \
            numpy.dtype(dtype) != numpy.dtype(init_dtype):
        raise ValueError(f'dtype mismatch: {dtype} != {init_dtype}')
    dtype = numpy.dtype(init_dtype if init_dtype is not None else
                        dtype if dtype is not None else config.dtype)
    if device is None:
        device = backend.CPU if xp is numpy else backend.get_device(0)
    else:
        device = backend.get_device(device)
        if (xp is numpy) != (device.xp is numpy):
            raise ValueError('xp and device arguments are inconsistent.')
    array = device.xp.empty(shape, dtype=dtype) if device.xp is not numpy else numpy.empty(
        shape, dtype=dtype)
    array = device.send(array)  # xp.empty allocates on the current GPU, maybe not `device`
    initializer(array)
    return array


from autograd_lab.initializers.sampling import (  # noqa: E402
    DownsamplingConvFilter, UpsamplingDeconvFilter,
)

__all__ = [
    'Constant',
    'DownsamplingConvFilter',
    'GlorotNormal',
    'GlorotUniform',
    'HeNormal',
    'HeUniform',
    'Identity',
    'Initializer',
    'LeCunNormal',
    'LeCunUniform',
    'NaN',
    'Normal',
    'One',
    'Orthogonal',
    'Uniform',
    'UpsamplingDeconvFilter',
    'Zero',
    'generate_array',
    'get_fans',
]
