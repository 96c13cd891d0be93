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
import sys
import threading
from typing import Any, TextIO
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
    # Chainer's other entries: GPU/iDeep/static-graph switches autograd_lab reads nowhere,
    # kept so that code setting or reading them (``using_config('use_ideep', ...)``) runs.
    'autotune': False,
    'compute_mode': None,
    'cudnn_deterministic': False,
    'cudnn_fast_batch_normalization': False,
    'in_recomputing': False,
    'schedule_func': None,
    'use_cudnn_tensor_core': 'auto',
    'use_ideep': 'never',
    'use_static_graph': True,
    'warn_nondeterministic': False,
    '_will_recompute': False,
}


def _print_attrs(obj: Any, keys: list, file: TextIO) -> None:
    width = max((len(k) for k in keys), default=0)
    for k in keys:
        file.write(f'{k:<{width}} {getattr(obj, k)}\n')


class GlobalConfig:
    """A plain object holding configuration values (Chainer's ``configuration.GlobalConfig``).

    ``chainer.global_config`` is one (it writes the defaults every thread falls back
    to); others can be made to back a :class:`LocalConfig`.

    >>> import io
    >>> g = GlobalConfig()
    >>> g.train = True
    >>> out = io.StringIO(); g.show(out); out.getvalue()
    'train True\\n'
    """

    def show(self, file: TextIO | None = None) -> None:
        """Print ``name value`` lines, sorted by name, to ``file`` (default: stdout)."""
        _print_attrs(self, sorted(vars(self)), sys.stdout if file is None else file)


class LocalConfig:
    """Per-thread values over a :class:`GlobalConfig` (Chainer's ``configuration.LocalConfig``).

    A value set here is seen only by the thread that set it; a name not set in this
    thread is read from the global object.

    >>> g = GlobalConfig(); g.x = 'global'
    >>> c = LocalConfig(g)
    >>> c.x
    'global'
    >>> c.x = 'local'; (c.x, g.x)
    ('local', 'global')
    """

    def __init__(self, global_config: Any) -> None:
        object.__setattr__(self, '_global', global_config)
        object.__setattr__(self, '_local', threading.local())

    def __getattr__(self, name: str) -> Any:
        local = self._local.__dict__
        if name in local:
            return local[name]
        return getattr(self._global, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._local, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._local, name)

    def show(self, file: TextIO | None = None) -> None:
        """Print ``name value`` lines of every visible entry, sorted by name."""
        keys = sorted(set(vars(self._global)) | set(vars(self._local)))
        _print_attrs(self, keys, sys.stdout if file is None else file)


class _LocalConfig(threading.local, LocalConfig):
    """``chainer.config``: per-thread values; a name not set in this thread falls back to the
    class attributes, which ``global_config`` writes (one C-level lookup on the hot path)."""

    def __init__(self) -> None:  # threading.local keeps the values; no _global/_local
        pass

    def __setattr__(self, name: str, value: Any) -> None:
        if name == 'debug' and value:
            _debug_switched_on()
        threading.local.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"configuration {name!r} is not set")

    def show(self, file: TextIO | None = None) -> None:
        """Print ``name value`` lines for every visible entry, sorted by name (as Chainer)."""
        keys = sorted(set(_global_names()) | set(vars(self)))
        _print_attrs(self, keys, sys.stdout if file is None else file)


#: False until debug mode is first switched on, in any thread (``config.debug = True``,
#: ``using_config('debug', True)``, ``global_config.debug = True``).  The engine reads
#: ``config.debug`` only once this is true, so debug mode costs nothing until it is used.
debug_used = False


def _debug_switched_on() -> None:
    global debug_used
    debug_used = True


_global_keys = set(_DEFAULTS)  # the names global_config holds (class attributes above)


def _global_names() -> set:
    return _global_keys


for _name, _value in _DEFAULTS.items():
    setattr(_LocalConfig, _name, _value)


class _GlobalConfig(GlobalConfig):
    """``chainer.global_config``: writes go to the defaults that every thread falls back to."""

    def show(self, file: TextIO | None = None) -> None:
        """Print ``name value`` lines of the global entries, sorted by name."""
        _print_attrs(self, sorted(_global_names()), sys.stdout if file is None else file)

    def __getattr__(self, name: str) -> Any:
        try:
            return vars(_LocalConfig)[name]
        except KeyError:
            raise AttributeError(f"configuration {name!r} is not set") from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name == 'debug' and value:
            _debug_switched_on()
        setattr(_LocalConfig, name, value)
        _global_keys.add(name)

    def __delattr__(self, name: str) -> None:
        if name not in _global_keys:
            raise AttributeError(name)
        delattr(_LocalConfig, name)
        _global_keys.discard(name)


config = _LocalConfig()
global_config = _GlobalConfig()

_UNSET = object()


@contextlib.contextmanager
def using_config(name: str, value: Any, config: _LocalConfig = config) -> Iterator[None]:
    """Set ``config.<name>`` to ``value`` in this thread for the ``with`` block.

    The previous value (or its absence) is restored on exit, exceptions included.
    ``config`` may also be a :class:`LocalConfig` of one's own.
    """
    local = vars(config) if type(config) is _LocalConfig else vars(config._local)
    old = local.get(name, _UNSET)
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
