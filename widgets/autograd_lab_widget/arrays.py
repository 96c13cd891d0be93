"""Arrays as text for the panel and status line: whole when small, statistics and a
heatmap grid when large.  Works on NumPy arrays, GPU arrays (copied to the host) and
the ``events.Summary`` of arrays too large to copy into events.

>>> import numpy as np
>>> as_text(np.array(6.0))
'6.0'
>>> as_text(np.array([1.0, 2.0]))
'[1. 2.]'
>>> as_text(np.arange(1000.0)).splitlines()[0]
'shape (1000,) float64: min 0 max 999 mean 499.5 norm 1.824e+04'
>>> heatmap(np.arange(4.0).reshape(2, 2))['values']
[0.0, 0.3333, 0.6667, 1.0]

The graph's nodes and the step ledger use :func:`text`: short, and bounded in length
(at most :data:`IN_FULL` numbers written out, else the shape and the mean):

>>> text(np.float32(5.0)), text(np.array([0.5, -0.25])), text(np.ones((3, 4)))
('5.0', '[0.5, -0.25]', '3×4 mean 1.0')
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from autograd_lab import events

#: Arrays with at most this many elements are shown whole.
SMALL = 64
#: Arrays with at most this many elements are written out in full on a node.
IN_FULL = 4
#: The largest heatmap grid sent to the browser (rows and columns).
HEATMAP_CELLS = 32


def to_host(array: Any) -> Any:
    """A NumPy view/copy of ``array`` (a Variable's data, a GPU array, ...), or it unchanged."""
    array = getattr(array, 'array', array) if hasattr(array, '_node') else array
    if array is None or isinstance(array, events.Summary | numpy.ndarray):
        return array
    getter = getattr(array, 'get', None)
    if callable(getter):
        return numpy.asarray(getter())
    return numpy.asarray(array)


def _stats_line(shape: tuple, dtype: str, lo: float, hi: float, mean: float, norm: float,
                nans: int, infs: int) -> str:
    text = (f'shape {tuple(shape)} {dtype}: min {lo:.4g} max {hi:.4g} mean {mean:.4g} '
            f'norm {norm:.4g}')
    if nans or infs:
        text += f' ({nans} NaN, {infs} inf)'
    return text


def as_text(value: Any) -> str | None:
    """Whole array text when small; one statistics line (plus a corner) when large."""
    value = to_host(value)
    if value is None:
        return None
    if isinstance(value, events.Summary):
        return _stats_line(value.shape, value.dtype, value.min, value.max, value.mean,
                           value.norm, value.nan_count, value.inf_count)
    if value.ndim == 0:
        return repr(value.item())
    if value.size <= SMALL:
        return numpy.array2string(value, precision=5, separator=' ', threshold=SMALL)
    s = events.snapshot(value)
    corner = numpy.array2string(value, precision=4, threshold=20, edgeitems=2)
    return _stats_line(s.shape, s.dtype, s.min, s.max, s.mean, s.norm, s.nan_count,
                       s.inf_count) + '\n' + corner


def number(value: float) -> str:
    """One number, 4 significant digits; a whole number keeps a ``.0`` (it is a float)."""
    value = float(value)
    out = f'{value:.4g}'
    if math.isfinite(value) and not any(c in out for c in '.en'):
        out += '.0'
    return out


def text(value: Any) -> str:
    """A recorded value as a short text: the number, a small array in full, else the
    shape and the mean (``None`` is ``'-'``)."""
    value = to_host(value)
    if value is None:
        return '-'
    if isinstance(value, events.Summary):
        return f'{text_shape(value.shape)} mean {number(value.mean)}'
    if value.ndim == 0:
        return number(value.item()) if value.dtype.kind in 'fiub' else str(value.item())
    if value.size <= IN_FULL and value.dtype.kind in 'fiub':
        return _nested(value.tolist())
    if value.dtype.kind in 'fiub' and value.size:
        return f'{text_shape(value.shape)} mean {number(numpy.mean(value, dtype=numpy.float64))}'
    return f'{text_shape(value.shape)} {value.dtype}'


def text_shape(shape: tuple) -> str:
    """A shape as the nodes write it: ``'10 values'``, ``'3×4'``."""
    return f'{shape[0]} values' if len(shape) == 1 else '×'.join(map(str, shape))


def _nested(items: Any) -> str:
    if isinstance(items, list):
        return '[' + ', '.join(_nested(i) for i in items) + ']'
    return number(items)


def heatmap(value: Any, label: str = '') -> dict | None:
    """A downsampled grid of ``value`` scaled to [0, 1] (NaN/inf kept as None), or None."""
    value = to_host(value)
    if value is None or isinstance(value, events.Summary) or value.size < 2:
        return None
    grid = numpy.asarray(value, dtype=numpy.float64)
    grid = grid.reshape(1, -1) if grid.ndim < 2 else grid.reshape(-1, grid.shape[-1])
    row_step = -(-grid.shape[0] // HEATMAP_CELLS)
    col_step = -(-grid.shape[1] // HEATMAP_CELLS)
    grid = grid[::row_step, ::col_step]
    finite = numpy.isfinite(grid)
    lo = float(grid[finite].min()) if finite.any() else 0.0
    hi = float(grid[finite].max()) if finite.any() else 0.0
    span = hi - lo if hi > lo else 1.0
    scaled = numpy.where(finite, (grid - lo) / span, numpy.nan)
    values = [None if numpy.isnan(v) else round(float(v), 4) for v in scaled.ravel()]
    return {'rows': int(grid.shape[0]), 'cols': int(grid.shape[1]), 'values': values,
            'min': lo, 'max': hi, 'label': label}
