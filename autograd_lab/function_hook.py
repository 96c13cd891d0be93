"""Chainer's FunctionHook: callbacks around every function's forward and backward.

A hook registered globally (``with hook:``) sees every function applied in this
thread; one registered on a node (``node.add_hook(hook)``) sees that node only,
after the global hooks.

How hooks relate to graph events
--------------------------------
FunctionHooks and event subscribers (:mod:`autograd_lab.events`) both observe the
engine, each behind one test that costs next to nothing while nobody observes:

- every hook table is a :class:`HookTable` that reports how many hooks it holds, so
  :data:`registered` counts the hooks registered anywhere (``with hook:`` in any
  thread, ``add_hook`` on any node, or an edit of :func:`get_function_hooks`); the
  engine looks hooks up only while it is not 0.  Hooks get Chainer's live callbacks
  through the functions below (:func:`forward_preprocess`, :func:`forward_postprocess`,
  :func:`backward_preprocess`, :func:`backward_postprocess`), called at the exact
  points spec section 18 requires;
- subscribers get immutable, snapshot-carrying events from the recorder
  (``autograd_lab.events.recorder``, None while nobody subscribes), called at the
  same places in ``FunctionNode.apply`` and the backward stepper.

So ``with TimerHook():`` and ``events.recording()`` observe one and the same
sequence of engine actions, and neither can see anything the other misses.
:data:`autograd_lab.events.active` is true while either kind listens.

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

from autograd_lab import events as _events

# Reentrant: a hook table's finaliser may run (garbage collection) while this thread holds it.
_lock = threading.RLock()
#: How many FunctionHooks are registered, globally (any thread) or on a node.
registered = 0


def _count(delta: int) -> None:
    global registered
    with _lock:
        registered += delta
        if _events is not None:  # None: the interpreter is shutting down
            _events.hooks_changed(registered)  # hooks need the backward context it keeps


class HookTable(collections.OrderedDict):
    """An ordered ``name -> FunctionHook`` table that keeps :data:`registered` in step.

    Whatever changes the table (``with hook:``, ``add_hook``, or a user editing
    :func:`get_function_hooks` directly) reports the change in size, so the engine
    looks for hooks exactly while some exist.

    >>> from autograd_lab import function_hook
    >>> table = HookTable()
    >>> table['h'] = FunctionHook()
    >>> function_hook.registered
    1
    >>> del table['h']
    >>> function_hook.registered
    0
    """

    _counted = 0  # how many hooks this table has counted in ``registered``

    def _sync(self) -> None:
        size = len(self)
        if size != self._counted:
            _count(size - self._counted)
            self._counted = size

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self._sync()

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        self._sync()

    def pop(self, *args: Any) -> Any:
        try:
            return super().pop(*args)
        finally:
            self._sync()

    def popitem(self, last: bool = True) -> tuple:
        try:
            return super().popitem(last)
        finally:
            self._sync()

    def setdefault(self, key: Any, default: Any = None) -> Any:
        try:
            return super().setdefault(key, default)
        finally:
            self._sync()

    def update(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().update(*args, **kwargs)
        finally:
            self._sync()

    def __ior__(self, other: Any) -> HookTable:
        self.update(other)
        return self

    def clear(self) -> None:
        super().clear()
        self._sync()

    def __reduce__(self) -> tuple:
        # A copy is not a registration: it becomes a plain OrderedDict.
        return collections.OrderedDict, (list(self.items()),)

    def __del__(self) -> None:
        # A node (or a thread) that dies with hooks still registered gives them back.
        if self._counted and _count is not None:  # None: the interpreter is shutting down
            _count(-self._counted)
            self._counted = 0


class _HookState(threading.local):
    """Each thread starts with its own empty hook table (read on every observed apply)."""

    def __init__(self) -> None:
        self.hooks: HookTable = HookTable()


_state = _HookState()


def get_function_hooks() -> collections.OrderedDict:
    """The thread-local ordered mapping ``name -> FunctionHook`` of global hooks.

    >>> get_function_hooks()
    HookTable()
    """
    return _state.hooks


class FunctionHook:
    """Base class of function hooks; every callback is a no-op until overridden.

    >>> class Count(FunctionHook):
    ...     name = 'Count'
    ...     calls = 0
    ...     def forward_postprocess(self, function, in_data):
    ...         self.calls += 1
    >>> import numpy as np, autograd_lab as chainer
    >>> with Count() as hook:
    ...     _ = chainer.Variable(np.ones(1)) * 3
    >>> hook.calls
    1
    """

    name = 'FunctionHook'

    def __enter__(self) -> FunctionHook:
        hooks = get_function_hooks()
        if self.name in hooks:
            raise KeyError(f'hook {self.name} already exists')
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *exc: object) -> None:
        hooks = get_function_hooks()
        hooks[self.name].deleted(None)
        del hooks[self.name]

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


# ---- the engine's side (called only while ``registered``) -----------------------------------

def hooks_of(function: Any) -> list | None:
    """The hooks observing ``function`` in this thread, global ones first; None if none."""
    if not registered:
        return None
    table = _state.hooks
    local = function._local_function_hooks
    if local:
        return [*table.values(), *local.values()]
    return list(table.values()) if table else None


def forward_preprocess(function: Any, in_data: tuple) -> list | None:
    """Call every observing hook's ``forward_preprocess``; return the hooks (or None)."""
    hooks = hooks_of(function)
    if hooks is not None:
        for hook in hooks:
            hook.forward_preprocess(function, in_data)
    return hooks


def forward_postprocess(hooks: list, function: Any, in_data: tuple) -> None:
    """Call ``forward_postprocess`` of the hooks :func:`forward_preprocess` returned."""
    for hook in hooks:
        hook.forward_postprocess(function, in_data)


def backward_preprocess(hooks: list, function: Any, in_data: tuple, out_grad: tuple) -> None:
    """Call every hook's ``backward_preprocess`` (``hooks`` from :func:`hooks_of`)."""
    for hook in hooks:
        hook.backward_preprocess(function, in_data, out_grad)


def backward_postprocess(hooks: list, function: Any, in_data: tuple, out_grad: tuple) -> None:
    """Call every hook's ``backward_postprocess``, in the same order."""
    for hook in hooks:
        hook.backward_postprocess(function, in_data, out_grad)
