"""Small helpers shared by the engine and the functions."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import numpy

from autograd_lab.utils import argument  # noqa: F401  (chainer.utils.argument)
from autograd_lab.utils import type_check  # noqa: F401  (chainer.utils.type_check)


def force_array(x: Any, dtype: Any = None) -> Any:
    """Return ``x`` as an ndarray: NumPy turns 0-dim results into scalars, the engine never does.

    >>> force_array(numpy.float32(2.0))
    array(2., dtype=float32)
    """
    if isinstance(x, numpy.generic):
        return numpy.asarray(x, dtype) if dtype is not None else numpy.asarray(x)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def size_of_shape(shape: tuple) -> int:
    """Number of elements of an array of ``shape``."""
    size = 1
    for n in shape:
        size *= n
    return size


def force_type(dtype: Any, value: Any) -> Any:
    """``value`` as ``dtype``: a scalar becomes a NumPy scalar, an array is cast if needed.

    >>> v = force_type(numpy.dtype(numpy.float32), 1.5)
    >>> type(v).__name__, float(v)
    ('float32', 1.5)
    """
    if numpy.isscalar(value):
        return dtype.type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


@contextlib.contextmanager
def tempdir(**kwargs: Any) -> Iterator[str]:
    """A temporary directory (``tempfile.mkdtemp(**kwargs)``), removed on exit.

    >>> import os
    >>> with tempdir() as d:
    ...     os.path.isdir(d)
    True
    """
    ignore_errors = kwargs.pop('ignore_errors', False)
    path = tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=ignore_errors)


def _raise_from(exc_type: type, message: str, orig_exc: BaseException) -> None:
    """Raise ``exc_type`` whose message ends with the original error, keeping its traceback.

    (Chainer's private helper; ``chainer.testing`` uses it to re-raise assertion failures.)
    """
    message = f'{message}\n\n(caused by)\n{type(orig_exc).__name__}: {orig_exc}\n'
    raise exc_type(message).with_traceback(orig_exc.__traceback__) from None
