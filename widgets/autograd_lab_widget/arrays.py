"""Arrays as text for the panel and status line: whole when small (an aligned table),
statistics and a heatmap grid when large.  Works on NumPy arrays, GPU arrays (copied to
the host) and the ``events.Summary`` of arrays too large to copy into events.

>>> import numpy as np
>>> as_text(np.array(6.0))
'6.0'
>>> print(as_text(np.array([[1.0, -2.5], [0.125, 30.0]])))
       0      1
0    1.0   -2.5
1  0.125   30.0
>>> as_text(np.arange(1000.0)).splitlines()[0]
'shape (1000,) float64: norm 1.824e+04 min 0 max 999 mean 499.5'
>>> heatmap(np.arange(4.0).reshape(2, 2))['values']
[0.0, 0.3333, 0.6667, 1.0]

The graph's nodes and the step ledger use :func:`text`: short, and bounded in length
(at most :data:`IN_FULL` numbers written out, else the shape and the norm, a size two
arrays can be compared by: a mean hides a gradient whose entries cancel):

>>> text(np.float32(5.0)), text(np.array([0.5, -0.25])), text(np.ones((3, 4)))
('5.0', '[0.5, -0.25]', '3×4 norm 3.464')
>>> text(np.array([[1.0, -1.0], [2.0, -2.0], [0.0, 0.0]]))
'3×2 norm 3.162'
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
#: Numbers in one row of the panel's table of a 1-D array.
ROW_WIDTH = 8
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
    text = (f'shape {tuple(shape)} {dtype}: norm {norm:.4g} min {lo:.4g} max {hi:.4g} '
            f'mean {mean:.4g}')
    if nans or infs:
        text += f' ({nans} NaN, {infs} inf)'
    return text


def as_text(value: Any) -> str | None:
    """Whole array text (an aligned :func:`table`) when small; one statistics line (the
    norm, min, max and mean of its finite entries, and how many are not) when large."""
    value = to_host(value)
    if value is None:
        return None
    if isinstance(value, events.Summary):
        return _stats_line(value.shape, value.dtype, value.min, value.max, value.mean,
                           value.norm, value.nan_count, value.inf_count)
    if value.ndim == 0:
        return repr(value.item())
    if value.size <= SMALL:
        return table(value)
    s = events.snapshot(value)
    return _stats_line(s.shape, s.dtype, s.min, s.max, s.mean, s.norm, s.nan_count,
                       s.inf_count)


def table(value: Any) -> str:
    """A small array as an aligned table: 4 significant digits (:func:`number`), numbers
    right-aligned in columns; rows and columns numbered (a 1-D array is one row, or rows
    of :data:`ROW_WIDTH` numbered by their first index).

    >>> import numpy as np
    >>> print(table(np.array([1.0, float('nan'), -float('inf')])))
    1.0  nan  -inf
    >>> print(table(np.arange(10)))
    [0]  0  1  2  3  4  5  6  7
    [8]  8  9
    >>> print(table(np.zeros((2, 1, 2))))
           0    1
    0,0  0.0  0.0
    1,0  0.0  0.0
    """
    value = numpy.asarray(to_host(value))
    if value.ndim == 0:
        return _entry(value.item())
    if value.ndim == 1:
        if value.size <= ROW_WIDTH:
            return _aligned([[_entry(v) for v in value.tolist()]])
        rows = [value[i:i + ROW_WIDTH].tolist() for i in range(0, value.size, ROW_WIDTH)]
        return _aligned([[f'[{k * ROW_WIDTH}]'] + [_entry(v) for v in row]
                         for k, row in enumerate(rows)], left=1)
    flat = value.reshape(-1, value.shape[-1])
    labels = [','.join(map(str, i)) for i in numpy.ndindex(*value.shape[:-1])]
    head = [''] + [str(j) for j in range(value.shape[-1])]
    return _aligned([head] + [[label] + [_entry(v) for v in row]
                              for label, row in zip(labels, flat.tolist())], left=1)


def _entry(item: Any) -> str:
    return number(item) if isinstance(item, float) else str(item)


def _aligned(rows: list, left: int = 0) -> str:
    """Rows of texts in columns two spaces apart: the first ``left`` columns flush left,
    the others (the numbers) right-aligned."""
    widths = [max(len(row[k]) for row in rows if k < len(row))
              for k in range(max(map(len, rows)))]
    return '\n'.join('  '.join(cell.ljust(widths[k]) if k < left else cell.rjust(widths[k])
                               for k, cell in enumerate(row)).rstrip() for row in rows)


def number(value: float) -> str:
    """One number, 4 significant digits; a whole number keeps a ``.0`` (it is a float),
    one rounded to a whole number does not (``.0`` would claim digits it lacks).

    >>> number(2.0), number(1626.86), number(-0.001234567)
    ('2.0', '1627', '-0.001235')
    """
    value = float(value)
    out = f'{value:.4g}'
    if math.isfinite(value) and not any(c in out for c in '.en') and float(out) == value:
        out += '.0'
    return out


def text(value: Any) -> str:
    """A recorded value as a short text: the number, a small array in full, else the
    shape and the norm (``None`` is ``'-'``; a NaN or inf entry makes the norm nan or inf,
    as it does to any sum of them)."""
    value = to_host(value)
    if value is None:
        return '-'
    if isinstance(value, events.Summary):
        norm = (math.nan if value.nan_count else math.inf if value.inf_count
                else value.norm)  # a Summary's statistics leave non-finite entries out
        return size_text(value.shape, norm)
    if value.ndim == 0:
        return number(value.item()) if value.dtype.kind in 'fiub' else str(value.item())
    if value.size <= IN_FULL and value.dtype.kind in 'fiub':
        return _nested(value.tolist())
    if value.dtype.kind in 'fiub' and value.size:
        flat = numpy.asarray(value, dtype=numpy.float64).ravel()
        return size_text(value.shape, float(numpy.linalg.norm(flat)))
    return f'{text_shape(value.shape)} {value.dtype}'


def size_text(shape: tuple, norm: float) -> str:
    """How nodes write a large array: its shape and its (Frobenius) norm.

    >>> size_text((10, 16), 1.3612), size_text((5,), float('nan'))
    ('10×16 norm 1.361', '5 values norm nan')
    """
    return f'{text_shape(shape)} norm {number(norm)}'


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
