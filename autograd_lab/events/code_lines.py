"""Which line of the user's code made each function node: the forward replay's captions.

:class:`capturing_code_lines` is a mode of its own, on only inside its ``with`` block
and only while events are recorded: as the recorder announces a function applied, it
walks up the call stack to the first frame outside the engine (the user's line, or the
``forward`` of the user's Link) and keeps its file and line number under the function's
:func:`~autograd_lab.events.uid`.  The text is read from :mod:`linecache` only when
asked for (notebook cells are there too).  It costs one stack walk per function while
on (``benchmarks/events_overhead.py``, variant d); off, one test per function recorded
and nothing at all while nothing is recorded.

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
from autograd_lab.events import recorders

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


class capturing_code_lines:
    """Inside ``with``: remember the user's code line for every function applied.

    :meth:`line` and :meth:`text` read what was kept; it grows by one small tuple per
    function applied in the block, so keep the block to what a replay shows.
    """

    def __init__(self) -> None:
        self.lines: dict[int, tuple] = {}  # function id -> (filename, lineno, function)
        self._outer: Any = None

    def __enter__(self) -> capturing_code_lines:
        self._outer, recorders.code_line_sink = recorders.code_line_sink, self._capture
        return self

    def __exit__(self, *exc: object) -> None:
        recorders.code_line_sink = self._outer

    def _capture(self, func_id: int) -> None:
        frame = sys._getframe(2)
        while frame is not None and _in_engine(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is not None:
            code = frame.f_code  # a tuple now, a CodeLine when read: cheaper while recording
            self.lines[func_id] = (code.co_filename, frame.f_lineno, code.co_name)
        if self._outer is not None:
            self._outer(func_id)

    def line(self, func_id: int) -> CodeLine | None:
        """The :class:`CodeLine` that made function ``func_id``, or None."""
        found = self.lines.get(func_id)
        return CodeLine(*found) if found is not None else None

    def text(self, func_id: int) -> str:
        """The source text of that line ('' when unknown)."""
        found = self.line(func_id)
        return found.text if found is not None else ''
