"""Bilinear (and N-linear) up- and down-sampling filters for (de)convolution weights.

``UpsamplingDeconvFilter`` fills a deconvolution weight ``(C, C, k, ..., k)`` (or
``(C, 1, k, ...)``) so that the deconvolution upsamples each channel by linear
interpolation (the filter of the FCN paper's "surgery"); ``DownsamplingConvFilter``
fills a convolution weight with the same tent filter normalised to sum 1, an
area-weighted downsampling.  Channel ``i`` only reads channel ``i``.

The 1-D tent for kernel size ``k`` is ``1 - |t - c| / f`` with ``f = (k + 1) // 2`` and
centre ``c = f - 1`` (odd ``k``) or ``f - 0.5`` (even ``k``); the N-D filter is the
product of the 1-D tents along each kernel axis.

>>> import numpy as np
>>> w = np.empty((1, 1, 4), np.float32)
>>> UpsamplingDeconvFilter()(w); w
array([[[0.25, 0.75, 0.75, 0.25]]], dtype=float32)
>>> DownsamplingConvFilter()(w); w
array([[[0.125, 0.375, 0.375, 0.125]]], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.initializers import Initializer


def linear_filter(size: int, ndim: int, normalize: bool) -> numpy.ndarray:
    """The N-linear tent filter of ``size`` along ``ndim`` axes (sum 1 if ``normalize``)."""
    factor = (size + 1) // 2
    center = factor - 1.0 if size % 2 == 1 else factor - 0.5
    tent = 1.0 - abs(numpy.arange(size) - center) / factor
    filt = numpy.ones((size,) * ndim)
    for axis in range(ndim):
        filt = filt * tent.reshape((size,) + (1,) * (ndim - 1 - axis))
    if normalize:
        filt /= filt.sum()
    return filt


class _SamplingFilter(Initializer):
    _normalize = False

    def __init__(self, interpolation: str = 'linear', dtype: Any = None) -> None:
        if interpolation != 'linear':
            raise ValueError(f'Unsupported interpolation method: {interpolation}')
        super().__init__(dtype)
        self.interpolation = interpolation

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        xp = backend.get_array_module(array)
        in_c, out_c = array.shape[:2]
        assert out_c in (in_c, 1)
        sizes = array.shape[2:]
        if not sizes:  # (Chainer fails here too, with a TypeError about None)
            raise TypeError(f'a sampling filter needs kernel axes: got shape {array.shape}')
        for k in sizes[1:]:
            if k != sizes[0]:
                raise ValueError(f'ksize must be all same: {sizes[0]} != {k}')
        filt = xp.asarray(linear_filter(sizes[0], array.ndim - 2, self._normalize))
        array[...] = 0.0
        channels = xp.arange(in_c)
        array[channels, 0 if out_c == 1 else channels, ...] = filt


class UpsamplingDeconvFilter(_SamplingFilter):
    """Weights of a deconvolution that upsamples each channel by linear interpolation."""


class DownsamplingConvFilter(_SamplingFilter):
    """Weights of a convolution that downsamples each channel (tent filter of sum 1)."""

    _normalize = True
