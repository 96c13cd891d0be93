"""Debug mode: extra checks that find the function behind a NaN or a wrong gradient.

Debug mode is the configuration entry ``debug`` (per thread, like every entry), switched
with ``chainer.using_config('debug', True)`` or :func:`set_debug`.  While it is on:

- every function application remembers the Python stack that applied it, and an error
  raised by that function's backward later has this stack appended (``Stacktrace of the
  function is below``), so it points at the line of *your* code that built the node;
- a forward output with a NaN raises ``RuntimeError: NaN is detected on forward
  computation of <label>``;
- backward checks what each function's backward returned: the gradients must be
  Variables, as many as the inputs, of the inputs' shapes (else ``ValueError``), and free
  of NaN (else ``RuntimeError: NaN is detected on backward computation of <label>``);
- an index with several Ellipses (``x[..., 0, ...]``) raises ``ValueError: Only one
  Ellipsis is allowed`` (without debug mode, NumPy's ``IndexError``), as in Chainer.

Without debug mode none of this runs: the engine reads one flag that stays false until
debug mode is first switched on (see ``configuration``).

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array([-1.0, 4.0], np.float32))
>>> x * np.nan   # without debug mode the NaN goes unnoticed
variable([nan, nan])
>>> with chainer.using_config('debug', True):
...     x * np.nan
Traceback (most recent call last):
...
RuntimeError: NaN is detected on forward computation of _ * nan
"""

from __future__ import annotations

import shutil
import sys
import traceback
import warnings
from typing import Any

from autograd_lab import backend
from autograd_lab.configuration import config, using_config


def is_debug() -> bool:
    """True when debug mode is on in this thread.

    >>> import autograd_lab as chainer
    >>> chainer.is_debug()
    False
    >>> with chainer.using_config('debug', True):
    ...     chainer.is_debug()
    True
    """
    return bool(config.debug)


def set_debug(debug: bool) -> None:
    """Switch debug mode on or off in this thread (same as ``chainer.config.debug = debug``).

    >>> import autograd_lab as chainer
    >>> chainer.set_debug(True); chainer.is_debug()
    True
    >>> chainer.set_debug(False); chainer.is_debug()
    False
    """
    config.debug = debug


class DebugMode:
    """Deprecated context manager for debug mode; use ``using_config('debug', ...)``.

    >>> import warnings, autograd_lab as chainer
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     with chainer.DebugMode(True):
    ...         chainer.is_debug()
    True
    >>> caught[0].category.__name__
    'DeprecationWarning'
    """

    def __init__(self, debug: bool) -> None:
        warnings.warn('chainer.DebugMode is deprecated. '
                      'Use chainer.using_config("debug", ...) instead.',
                      DeprecationWarning, stacklevel=2)
        self._using = using_config('debug', debug)

    def __enter__(self) -> None:
        self._using.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._using.__exit__(*exc)


# ---- the checks the engine calls while debug mode is on --------------------------------

def forward_done(func: Any, outputs: tuple) -> None:
    """After ``func``'s forward in debug mode: keep the caller's stack, reject NaN outputs."""
    func.stack = traceback.extract_stack(sys._getframe(2))  # the frame that called apply
    for y in outputs:
        if y is not None and backend._contains_nan(y):
            raise RuntimeError(f'NaN is detected on forward computation of {func.label}')


def add_stack(func: Any, error: BaseException) -> None:
    """Append the stack that applied ``func`` to ``error``'s message, if it was kept (``func``
    was applied in debug mode); else leave ``error`` as it is."""
    if func.stack is None:
        return
    extra = ('\n' + '-' * shutil.get_terminal_size().columns +
             '\nStacktrace of the function is below:\n' +
             ''.join(traceback.format_list(func.stack)))
    if error.args:
        error.args = (f'{error.args[0]}{extra}',) + error.args[1:]
    else:
        error.args = (extra,)


def error_message(func: Any, message: str) -> str:
    """``message`` followed by the function and the shapes and dtypes of its inputs/outputs."""
    lines = [message, f'  function={_impl_name(func)} ({func.label})']
    for i, node in enumerate(func.inputs or ()):
        lines.append(f'    input {i}: shape={node.shape} dtype={node.dtype}')
    for i, ref in enumerate(func.outputs or ()):
        node = ref()
        if node is None:
            lines.append('    output {}: not available')  # sic: Chainer 7.8.1 prints '{}'
        else:
            lines.append(f'    output {i}: shape={node.shape} dtype={node.dtype}')
    return '\n'.join(lines)


def check_backward(func: Any, targets: tuple, gxs: Any, current_grad: Any) -> None:
    """Check the gradients ``func.backward`` returned for ``targets`` (debug mode).

    ``current_grad(node)`` is the gradient accumulated so far for an input node (or None).
    """
    from autograd_lab.variable import Variable  # noqa: PLC0415 - variable imports us

    if not isinstance(gxs, (tuple, list)) and not backend.is_array(gxs):
        return  # not even a sequence: the engine's own check says so
    for gx in gxs:
        if gx is not None and not isinstance(gx, Variable):
            raise ValueError(error_message(
                func, 'type of gradients returned from backward is incorrect: '
                      f'{type(gx)} != expected {Variable}'))
    n_in = len(func.inputs)
    if len(gxs) not in (n_in, len(targets)):
        raise ValueError(error_message(func, wrong_count_message(func, len(gxs), targets)))
    if len(gxs) != len(targets):
        gxs = [gxs[i] for i in targets]
    for i, gx in zip(targets, gxs):
        if gx is not None and gx.array is not None:
            _check_gradient(func, i, gx, current_grad(func.inputs[i]))


def _check_gradient(func: Any, i: int, gx: Any, current: Any) -> None:
    """Check the gradient ``gx`` of ``func``'s input ``i`` against the input and against
    ``current``, the gradient accumulated for it so far (an array or None)."""
    node = func.inputs[i]
    for expected in (node.shape, None if current is None else current.shape):
        if expected is not None and gx.shape != expected:
            raise ValueError(error_message(
                func, 'shape of gradients returned from backward is incorrect: '
                      f'input-index={i}, actual {gx.shape} != expected {expected}'))
    if current is not None and gx.dtype != current.dtype:
        raise ValueError(error_message(
            func, 'dtype of gradients returned from backward is incorrect: '
                  f'input-index={i}, actual {gx.dtype} != expected {current.dtype}'))
    for g in (gx.array, None if current is None else current):
        if g is not None and backend._contains_nan(g):
            raise RuntimeError(f'NaN is detected on backward computation of {func.label}')


def wrong_count_message(func: Any, count: int, targets: tuple) -> str:
    """Chainer's message for a backward that returned ``count`` gradients."""
    n_in = len(func.inputs)
    message = 'number of gradients returned from backward is incorrect: '
    if n_in == len(targets):
        return message + f'{count} != expected {n_in}'
    return message + f'{count} != expected {n_in} or {len(targets)}'


def _impl_name(func: Any) -> str:
    return getattr(func, '_impl_name', type(func).__name__)
