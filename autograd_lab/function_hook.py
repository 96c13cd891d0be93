"""Chainer's FunctionHook: callbacks around every function's forward and backward.

A hook registered globally (``with hook:``) sees every function applied in this
thread; one registered on a node (``node.add_hook(hook)``) sees that node only,
after the global hooks.

>>> import numpy as np, autograd_lab as chainer
>>> class Names(chainer.FunctionHook):
...     name = 'Names'
...     def __init__(self): self.seen = []
...     def forward_preprocess(self, function, in_data): self.seen.append(function.label)
>>> x = chainer.Variable(np.ones(2, np.float32))
>>> with Names() as hook:
...     y = chainer.functions.exp(x * 2)
>>> hook.seen
['_ * 2', 'exp']
"""

from __future__ import annotations

import collections
import threading
from typing import Any

class _HookState(threading.local):
    """Each thread starts with its own empty hook table (read on every apply)."""

    def __init__(self) -> None:
        self.hooks: collections.OrderedDict = collections.OrderedDict()


_state = _HookState()


def get_function_hooks() -> collections.OrderedDict:
    """The thread-local ordered mapping ``name -> FunctionHook`` of global hooks."""
    return _state.hooks


class FunctionHook:
    """Base class of function hooks; every callback is a no-op until overridden."""

    name = 'FunctionHook'

    def __enter__(self) -> FunctionHook:
        hooks = get_function_hooks()
        if self.name in hooks:
            raise KeyError(f'hook {self.name} already exists')
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *exc: object) -> None:
        self.deleted(None)
        del get_function_hooks()[self.name]

    def added(self, function: Any = None) -> None:
        """Called when the hook is registered (``function`` is None for a global hook)."""

    def deleted(self, function: Any = None) -> None:
        """Called when the hook is unregistered."""

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        """Called before ``function.forward`` with the input arrays."""

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        """Called after ``function.forward``, before its outputs are linked into the graph."""

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Called before ``function.backward`` with retained input data and output grads."""

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Called after ``function.backward``."""
