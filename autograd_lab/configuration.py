"""Thread-local configuration: ``config``, ``global_config`` and ``using_config``.

Every thread sees the process-wide defaults held by ``global_config`` until it
sets a value of its own on ``config``.  Reading ``config.enable_backprop`` is on
the hot path of every operation, so ``config`` is a ``threading.local`` whose
class attributes are the global defaults: a read is one C-level lookup.

>>> import autograd_lab as chainer
>>> chainer.config.train
True
>>> with chainer.using_config('train', False):
...     chainer.config.train
False
>>> chainer.config.train
True
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any
from collections.abc import Iterator

import numpy

_DEFAULTS = {
    'enable_backprop': True,
    'dtype': numpy.dtype(numpy.float32),
    'type_check': True,
    'debug': False,
    'train': True,
    'lazy_grad_sum': False,
    'keep_graph_on_report': False,
    'use_cudnn': 'auto',
}


class _LocalConfig(threading.local):
    """Per-thread values; a name not set in this thread falls back to the class (global)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"configuration {name!r} is not set")

    def show(self) -> str:
        """Return ``name value`` lines for every visible entry, sorted by name."""
        keys = set(_DEFAULTS) | set(vars(type(self))) | set(vars(self))
        keys = sorted(k for k in keys if not k.startswith('_') and k != 'show')
        return '\n'.join(f'{k:<20}{getattr(self, k)!r}' for k in keys)


for _name, _value in _DEFAULTS.items():
    setattr(_LocalConfig, _name, _value)


class _GlobalConfig:
    """Writes go to the defaults that every thread falls back to."""

    def __getattr__(self, name: str) -> Any:
        try:
            return vars(_LocalConfig)[name]
        except KeyError:
            raise AttributeError(f"configuration {name!r} is not set") from None

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(_LocalConfig, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(_LocalConfig, name)


config = _LocalConfig()
global_config = _GlobalConfig()

_UNSET = object()


@contextlib.contextmanager
def using_config(name: str, value: Any, config: _LocalConfig = config) -> Iterator[None]:
    """Set ``config.<name>`` to ``value`` in this thread for the ``with`` block.

    The previous value (or its absence) is restored on exit, exceptions included.
    """
    old = vars(config).get(name, _UNSET)
    setattr(config, name, value)
    try:
        yield
    finally:
        if old is _UNSET:
            delattr(config, name)
        else:
            setattr(config, name, old)


class _BackpropModeContext:
    """``with`` block that sets ``config.enable_backprop``; deliberately not a decorator."""

    __slots__ = ('_value', '_old')

    def __init__(self, value: bool) -> None:
        self._value = value
        self._old: Any = _UNSET

    def __enter__(self) -> None:
        self._old = vars(config).get('enable_backprop', _UNSET)
        config.enable_backprop = self._value

    def __exit__(self, *exc: object) -> None:
        if self._old is _UNSET:
            del config.enable_backprop
        else:
            config.enable_backprop = self._old

    def __call__(self, func: Any) -> Any:
        # Chainer 7.8.1 raises here too (quirk Q11); say why instead of a bare "not callable".
        raise TypeError('no_backprop_mode()/force_backprop_mode() are context managers, '
                        'not decorators: use them in a `with` statement')


def no_backprop_mode() -> _BackpropModeContext:
    """Inside the ``with`` block no graph is recorded (``config.enable_backprop = False``).

    >>> import numpy as np, autograd_lab as chainer
    >>> x = chainer.Variable(np.array([1.0], np.float32))
    >>> with chainer.no_backprop_mode():
    ...     y = x + 1
    >>> y.creator is None
    True
    """
    return _BackpropModeContext(False)


def force_backprop_mode() -> _BackpropModeContext:
    """Inside the ``with`` block the graph is recorded even within ``no_backprop_mode``.

    >>> import numpy as np, autograd_lab as chainer
    >>> x = chainer.Variable(np.array([1.0], np.float32))
    >>> with chainer.no_backprop_mode(), chainer.force_backprop_mode():
    ...     y = x + 1
    >>> y.creator.label
    '_ + 1'
    """
    return _BackpropModeContext(True)
