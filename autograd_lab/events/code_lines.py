"""Which line of the user's code made each function node: the forward replay's captions.

:class:`capturing_code_lines` is a separate mode, on only inside its ``with`` block: a
:class:`~autograd_lab.FunctionHook` that, after each function's forward, walks up the
call stack to the first frame outside the engine (the user's line, or the ``forward``
of the user's Link) and keeps its file and line number under the function's
:func:`~autograd_lab.events.uid`.  The text is read from :mod:`linecache` only when
asked for (notebook cells are there too), so a capture costs one stack walk per
function and nothing at all outside the block (no hook, no test in the engine).

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> with events.recording() as log, capturing_code_lines() as lines:
...     x = chainer.Variable(np.array(2.0), name='x')
...     for _ in range(2):
...         x = x * x
>>> [lines.text(e.func_id) for e in log if e.kind == 'function_applied']
['x = x * x', 'x = x * x']
"""

from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass
from typing import Any

import autograd_lab
from autograd_lab.events.recorders import uid
from autograd_lab.function_hook import FunctionHook

_ENGINE_DIR = os.path.dirname(os.path.abspath(autograd_lab.__file__)) + os.sep


@dataclass(frozen=True)
class CodeLine:
    """Where a function node was made: ``filename``, ``lineno`` and the enclosing
    ``function``'s name (``'<module>'`` for a script or a notebook cell)."""

    filename: str
    lineno: int
    function: str

    @property
    def text(self) -> str:
        """The line's source, stripped ('' when the source cannot be read)."""
        return linecache.getline(self.filename, self.lineno).strip()


def _in_engine(filename: str, cache: dict = {}) -> bool:  # noqa: B006 (a memo)
    inside = cache.get(filename)
    if inside is None:
        inside = cache[filename] = os.path.abspath(filename).startswith(_ENGINE_DIR) \
            if not filename.startswith('<') else False
    return inside


class capturing_code_lines(FunctionHook):
    """Inside ``with``: remember the user's code line for every function applied.

    ``lines`` maps function ids to :class:`CodeLine`; :meth:`text` reads one.
    """

    name = 'CodeLines'

    def __init__(self) -> None:
        self.lines: dict[int, CodeLine] = {}

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        frame = sys._getframe(1)
        while frame is not None and _in_engine(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is not None:
            code = frame.f_code
            self.lines[uid(function)] = CodeLine(code.co_filename, frame.f_lineno, code.co_name)

    def line(self, func_id: int) -> CodeLine | None:
        """The :class:`CodeLine` that made function ``func_id``, or None."""
        return self.lines.get(func_id)

    def text(self, func_id: int) -> str:
        """The source text of that line ('' when unknown)."""
        found = self.lines.get(func_id)
        return found.text if found is not None else ''
