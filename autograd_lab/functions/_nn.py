"""Small helpers shared by the neural-network function modules."""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend


def as_array(value: Any, like: Any, dtype: Any = None) -> Any:
    """``value`` as an array of ``like``'s array module, optionally cast to ``dtype``.

    NumPy turns 0-dim results into scalars; the engine never returns those, and on a
    GPU backend a scalar must become an array of that backend, not a NumPy array.

    >>> as_array(numpy.float32(2) * numpy.float32(3), numpy.zeros(()))
    array(6., dtype=float32)
    """
    if isinstance(value, numpy.generic):
        value = backend.get_array_module(like).asarray(value)
    if dtype is not None and value.dtype != dtype:
        value = value.astype(dtype)
    return value


def require(label: str, ok: bool, expect_text: str, actual: Any) -> None:
    """Raise ``InvalidType`` unless ``ok``; ``actual`` may be a callable building the text.

    Input checks run on every call, so the "actual" message (often an f-string
    of shapes or dtypes, slow to format) is only built when the check fails.
    """
    if not ok:
        from autograd_lab.utils.type_check import expect  # noqa: PLC0415
        expect(label, False, expect_text, actual() if callable(actual) else actual)
