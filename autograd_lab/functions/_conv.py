"""Helpers of the convolution and pooling functions: output sizes, im2col and col2im.

``im2col`` turns an image batch ``(n, c, h, w)`` into the patches a kernel sees,
``(n, c, kh, kw, out_h, out_w)``, as one strided view of the (padded) image: no
Python loop at all.  ``col2im`` is its adjoint: it adds patches back into an image,
with one vectorised slice-add per *kernel position* (``kh * kw`` of them), never a
loop over pixels.  Both take the array module from their input, so they work on
NumPy and CuPy arrays alike.

>>> import numpy as np
>>> x = np.arange(16.).reshape(1, 1, 4, 4)
>>> col = im2col(x, 2, 2, 2, 2, 0, 0, 2, 2)
>>> col.shape
(1, 1, 2, 2, 2, 2)
>>> col[0, 0, :, :, 0, 0]          # the top-left 2x2 patch
array([[0., 1.],
       [4., 5.]])
>>> col2im(col, 2, 2, 0, 0, 4, 4).astype(int)[0, 0]   # non-overlapping: x back
array([[ 0,  1,  2,  3],
       [ 4,  5,  6,  7],
       [ 8,  9, 10, 11],
       [12, 13, 14, 15]])
"""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend


def pair(value: Any) -> tuple:
    """``(v, v)`` for one int, the two entries for a pair."""
    if isinstance(value, (int, numpy.integer)):
        return int(value), int(value)
    a, b = value
    return int(a), int(b)


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                     d: int = 1) -> int:
    """Output length of a convolution (or pooling) along one axis.

    >>> get_conv_outsize(5, 2, 2, 0), get_conv_outsize(5, 2, 2, 0, cover_all=True)
    (2, 3)
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                       d: int = 1) -> int:
    """Output length of a transposed convolution along one axis (inverse of the above)."""
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def _padded(x: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, out_h: int,
            out_w: int, dy: int, dx: int, pval: Any) -> Any:
    """``x`` padded exactly enough for every patch of the output grid to be in bounds."""
    h, w = x.shape[2:]
    bottom = max(0, (kh - 1) * dy + sy * (out_h - 1) + 1 - h - ph)
    right = max(0, (kw - 1) * dx + sx * (out_w - 1) + 1 - w - pw)
    if ph == pw == bottom == right == 0:
        return x
    xp = backend.get_array_module(x)
    return xp.pad(x, ((0, 0), (0, 0), (ph, bottom), (pw, right)), mode='constant',
                  constant_values=(pval,))


def im2col(x: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, out_h: int,
           out_w: int, dy: int = 1, dx: int = 1, pval: Any = 0) -> Any:
    """Patches of ``x`` (n, c, h, w) as a (read-only) view of shape (n, c, kh, kw, out_h, out_w).

    Pixels outside the image read as ``pval``.  The view shares memory with ``x`` when
    no padding is needed, so callers must not write into it.
    """
    img = _padded(x, kh, kw, sy, sx, ph, pw, out_h, out_w, dy, dx, pval)
    xp = backend.get_array_module(img)
    n, c = img.shape[:2]
    s0, s1, s2, s3 = img.strides
    shape = (n, c, kh, kw, out_h, out_w)
    strides = (s0, s1, s2 * dy, s3 * dx, s2 * sy, s3 * sx)
    stride_tricks = getattr(getattr(xp, 'lib', None), 'stride_tricks', None)
    if stride_tricks is not None and hasattr(stride_tricks, 'as_strided'):
        return stride_tricks.as_strided(img, shape=shape, strides=strides)
    col = xp.empty(shape, dtype=img.dtype)  # array modules without as_strided
    for i in range(kh):
        for j in range(kw):
            col[:, :, i, j] = img[:, :, i * dy:i * dy + sy * out_h:sy,
                                  j * dx:j * dx + sx * out_w:sx]
    return col


def col2im(col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int = 1,
           dx: int = 1, dtype: Any = None) -> Any:
    """Sum patches ``col`` (n, c, kh, kw, out_h, out_w) back into an (n, c, h, w) image.

    The adjoint of :func:`im2col`: overlapping patches add up, parts in the padding
    are dropped.  The result is a view into a slightly larger zero-initialised buffer.
    """
    xp = backend.get_array_module(col)
    n, c, kh, kw, out_h, out_w = col.shape
    return _col2im(xp, col, None, n, c, kh, kw, out_h, out_w, sy, sx, ph, pw, h, w, dy, dx,
                   dtype or col.dtype)


def col2im_shared(patch: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, h: int,
                  w: int, dy: int = 1, dx: int = 1) -> Any:
    """:func:`col2im` of a col whose every kernel position holds ``patch`` (n, c, oh, ow)."""
    xp = backend.get_array_module(patch)
    n, c, out_h, out_w = patch.shape
    return _col2im(xp, None, patch, n, c, kh, kw, out_h, out_w, sy, sx, ph, pw, h, w, dy, dx,
                   patch.dtype)


def _col2im(xp: Any, col: Any, shared: Any, n: int, c: int, kh: int, kw: int, out_h: int,
            out_w: int, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int, dx: int,
            dtype: Any) -> Any:
    full_h = max(h + ph, (kh - 1) * dy + sy * (out_h - 1) + 1)
    full_w = max(w + pw, (kw - 1) * dx + sx * (out_w - 1) + 1)
    img = xp.zeros((n, c, full_h, full_w), dtype=dtype)
    for i in range(kh):
        y0 = i * dy
        for j in range(kw):
            x0 = j * dx
            img[:, :, y0:y0 + sy * out_h:sy, x0:x0 + sx * out_w:sx] += (
                shared if col is None else col[:, :, i, j])
    return img[:, :, ph:ph + h, pw:pw + w]
