"""``chainer.backends.intel64``: Chainer's iDeep backend, absent from autograd_lab.

Chainer code that asks whether iDeep can be used gets "no" (``is_ideep_available()``,
``should_use_ideep()`` and ``inputs_all_ready()`` are False), so it takes its NumPy path.
What would need iDeep raises ``RuntimeError: iDeep is not available.`` (making an
``Intel64Device``, ``get_device('@intel64')``, ``to_intel64()``).

>>> from autograd_lab.backends import intel64
>>> intel64.should_use_ideep('>=auto')
False
>>> intel64.Intel64Device()
Traceback (most recent call last):
...
RuntimeError: iDeep is not available.
Reason: autograd_lab has no iDeep (@intel64) backend
"""

from __future__ import annotations

from typing import Any

from autograd_lab.backend import _IDEEP_ERROR, Intel64Device  # noqa: F401  (chainer name)

ideep = None


class mdarray:
    """iDeep's array type: no array is one here (``isinstance`` checks are False)."""


def is_ideep_available() -> bool:
    """False: autograd_lab has no iDeep backend."""
    return False


def check_ideep_available() -> None:
    """Raise ``RuntimeError`` (iDeep is never available here)."""
    raise RuntimeError(_IDEEP_ERROR)


def should_use_ideep(level: str) -> bool:
    """Whether to use iDeep for ``level`` ('==always' or '>=auto'): always False."""
    return False


def inputs_all_ready(inputs: Any, supported_ndim: tuple = (2, 4)) -> bool:
    """Whether ``inputs`` are ready for an iDeep primitive: always False."""
    return False
