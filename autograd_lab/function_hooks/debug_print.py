"""PrintHook: print what each function receives, just before its forward and backward.

For every call it prints the function's label, then each input array as
:meth:`Variable.debug_print <autograd_lab.Variable.debug_print>` describes it
(``(removed)`` for an input whose array was not retained for backward) and, before
a backward, each output gradient (shown as the ``grad`` of a zero-filled variable,
or an empty variable where there is no gradient).

The variables made for printing are not announced as graph events: a recording
taken with a PrintHook on shows the user's graph, not the printer's helpers.

>>> import io, numpy as np, autograd_lab as chainer
>>> out = io.StringIO()
>>> x = chainer.Variable(np.array([1.0, 3.0], np.float32), name='x')
>>> with PrintHook(file=out):
...     y = x * 2
>>> print(out.getvalue())  # doctest: +ELLIPSIS
function	_ * 2
input data
<variable at 0x...>
- device: CPU
- backend: <class 'numpy.ndarray'>
- shape: (2,)
- dtype: float32
- statistics: mean=2.00000000, std=1.00000000
- grad: None
<BLANKLINE>
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, TextIO

from autograd_lab import backend
from autograd_lab.function_hook import FunctionHook
from autograd_lab.variable import _new_variable


def _describe(data: Any, grad: Any = None) -> str:
    """``Variable(data, grad).debug_print()`` for a variable that is never announced."""
    if data is None:
        var = _new_variable(backend.CPU.xp.empty(0), False)
        var._data = None
    else:
        var = _new_variable(data, False)
    var._grad = grad
    return var.debug_print()


class PrintHook(FunctionHook):
    """Print each function's inputs (and output gradients) before it runs.

    Args:
        sep: deprecated and ignored (kept for Chainer compatibility; warns).
        end: appended to every printed block.
        file: where to write (default: ``sys.stdout`` at the time of printing).
        flush: flush ``file`` after each function.
    """

    name = 'PrintHook'

    def __init__(self, sep: str | None = None, end: str = '\n', file: TextIO | None = None,
                 flush: bool = True) -> None:
        if sep is not None:
            warnings.warn('sep argument in chainer.function_hooks.PrintHook is deprecated.',
                          DeprecationWarning, stacklevel=2)
        self.sep = sep
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, text: str) -> None:
        (sys.stdout if self.file is None else self.file).write(text + self.end)

    def _process(self, function: Any, in_data: tuple, out_grad: tuple | None = None) -> None:
        self._print(f'function\t{function.label}')
        self._print('input data')
        for data in in_data:
            self._print('(removed)' if data is None else _describe(data))
        if out_grad is not None:
            self._print('output gradient')
            for grad in out_grad:
                if grad is None:
                    self._print(_describe(None))
                else:
                    zeros = backend.get_array_module(grad).zeros_like(grad)
                    self._print(_describe(zeros, grad))
        out = sys.stdout if self.file is None else self.file
        if self.flush and hasattr(out, 'flush'):
            out.flush()

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self._process(function, in_data)

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._process(function, in_data, out_grad)
