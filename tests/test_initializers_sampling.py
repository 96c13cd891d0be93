"""UpsamplingDeconvFilter and DownsamplingConvFilter (issue 18)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import initializers
from autograd_lab.initializers.sampling import linear_filter


def test_one_dimensional_tents():
    assert linear_filter(3, 1, False).tolist() == [0.5, 1.0, 0.5]
    assert linear_filter(4, 1, False).tolist() == [0.25, 0.75, 0.75, 0.25]
    np.testing.assert_allclose(linear_filter(5, 1, False), [1 / 3, 2 / 3, 1, 2 / 3, 1 / 3])
    assert linear_filter(4, 1, True).tolist() == [0.125, 0.375, 0.375, 0.125]


def test_the_filter_is_separable_and_normalised_when_downsampling():
    tent = linear_filter(4, 1, False)
    np.testing.assert_array_equal(linear_filter(4, 2, False), np.outer(tent, tent))
    np.testing.assert_array_equal(linear_filter(3, 3, False),
                                  np.einsum('i,j,k->ijk', *[linear_filter(3, 1, False)] * 3))
    for ndim in (1, 2, 3):
        assert np.isclose(linear_filter(5, ndim, True).sum(), 1.0)


@pytest.mark.parametrize('cls, normalize', [(initializers.UpsamplingDeconvFilter, False),
                                            (initializers.DownsamplingConvFilter, True)])
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_each_channel_reads_only_itself(cls, normalize, dtype):
    w = np.full((3, 3, 4, 4), 7.0, dtype)
    cls()(w)
    expected = linear_filter(4, 2, normalize).astype(dtype)
    for i in range(3):
        for j in range(3):
            np.testing.assert_array_equal(w[i, j], expected if i == j else 0)
    w = np.empty((2, 1, 3, 3), dtype)  # one output channel: every input feeds it
    cls()(w)
    np.testing.assert_array_equal(w[:, 0], [linear_filter(3, 2, normalize)] * 2)


def test_errors():
    with pytest.raises(ValueError, match='Unsupported interpolation method: cubic'):
        initializers.UpsamplingDeconvFilter(interpolation='cubic')
    with pytest.raises(ValueError, match='ksize must be all same: 2 != 3'):
        initializers.DownsamplingConvFilter()(np.empty((2, 2, 2, 3)))
    with pytest.raises(AssertionError):
        initializers.UpsamplingDeconvFilter()(np.empty((3, 2, 2, 2)))  # 2 out of 3 channels
    with pytest.raises(AssertionError):
        initializers.UpsamplingDeconvFilter(dtype=np.float64)(np.empty((1, 1, 2), np.float32))
    with pytest.raises(TypeError, match='needs kernel axes'):
        initializers.UpsamplingDeconvFilter()(np.empty((2, 2)))


def test_as_a_parameter_initializer():
    p = chainer.Parameter(initializers.UpsamplingDeconvFilter(), (2, 2, 4, 4))
    assert p.dtype == np.float32
    np.testing.assert_array_equal(p.array[1, 1], linear_filter(4, 2, False))


def test_an_upsampling_deconvolution_interpolates_linearly():
    # With stride 2, kernel 4 and pad 1 the filter doubles an image by bilinear
    # interpolation: a linear ramp stays a linear ramp away from the borders.
    w = np.empty((1, 1, 4, 4), np.float32)
    initializers.UpsamplingDeconvFilter()(w)
    ramp = np.tile(np.arange(6, dtype=np.float32), (6, 1))[None, None]
    y = F.deconvolution_2d(ramp, w, stride=2, pad=1).array[0, 0]
    assert y.shape == (12, 12)
    row = y[5, 2:-2]
    np.testing.assert_allclose(np.diff(row), 0.5, rtol=1e-6)
    down = np.empty((1, 1, 4, 4), np.float32)
    initializers.DownsamplingConvFilter()(down)
    z = F.convolution_2d(np.ones((1, 1, 8, 8), np.float32), down, stride=2, pad=1).array
    np.testing.assert_allclose(z[0, 0, 1:-1, 1:-1], 1.0, rtol=1e-6)  # it averages
