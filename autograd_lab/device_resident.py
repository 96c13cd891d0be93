"""Chainer's rules for the device methods of Links (``chainer.device_resident``).

- ``to_device``, ``to_chx`` and ``from_chx`` are *final*: a Link subclass that defines
  one raises ``TypeError: method 'to_device' is final.`` when the class is created.
- ``to_cpu``, ``to_gpu`` and ``to_intel64`` are deprecated: calling one warns (use
  ``to_device('@numpy')`` etc.), and so does overriding one (``DeprecationWarning:
  Overriding method 'to_cpu'.``).  An override is still honoured: when a parent link
  moves, a child that overrides the method for the destination (``to_cpu`` for the
  CPU, ``to_gpu`` for a GPU) is moved by calling it.

>>> import warnings, autograd_lab as chainer
>>> class Mine(chainer.Link):
...     def to_device(self, device):
...         return self
Traceback (most recent call last):
...
TypeError: method 'to_device' is final.
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter('always')
...     _ = chainer.Link().to_cpu()
>>> str(caught[0].message)
"to_cpu is deprecated. Please use to_device('@numpy') instead."
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from autograd_lab import backend

FINAL = ('to_device', 'to_chx', 'from_chx')
DEPRECATED_TO_OVERRIDE = ('to_cpu', 'to_gpu', 'to_intel64')
_DEVICE_NAMES = {'to_cpu': '@numpy', 'to_gpu': '@cupy:N', 'to_intel64': '@intel64'}


def check_subclass(cls: type, base: type) -> None:
    """Enforce the rules above on a new subclass ``cls`` of ``base`` (the Link class)."""
    for name in vars(cls):
        if name in FINAL:
            raise TypeError(f'method {name!r} is final.')
        if name in DEPRECATED_TO_OVERRIDE:
            warnings.warn(f'Overriding method {name!r}.', DeprecationWarning, stacklevel=3)


def warn_deprecated_call(method: str) -> None:
    """The warning of a call to ``to_cpu``/``to_gpu``/``to_intel64``."""
    warnings.warn(f'{method} is deprecated. Please use to_device({_DEVICE_NAMES[method]!r}) '
                  'instead.', DeprecationWarning, stacklevel=3)


def overriding_method(link: Any, base: type, device: backend.Device) -> Any:
    """``link``'s own ``to_cpu`` (CPU) or ``to_gpu`` (GPU) if its class overrides it, with
    the arguments to call it with; else None (the link is moved the normal way)."""
    name = 'to_cpu' if device.xp is numpy else 'to_gpu'
    method = getattr(type(link), name, None)
    if method is None or method is getattr(base, name):
        return None
    kwargs = {} if name == 'to_cpu' else {'device': device.device_id}
    return lambda: getattr(link, name)(**kwargs)
