"""TimerHook: wall-clock time spent in each function's forward and backward.

Every forward and every backward of a function is one entry of
:attr:`TimerHook.call_history`: ``(function name, seconds)``.  Functions applied
*inside* another function's backward (e.g. the ``BroadcastTo`` that ``Sum``'s
backward applies) get entries of their own, but :meth:`TimerHook.total_time`
counts only the outermost calls, so no time is counted twice.

A call that raises never reaches its postprocess; its clock is dropped when the
next top-level call starts, so the totals stay right after an error.  (A function
applied inside another one's *forward* is timed as a separate top-level call.)
The hook's methods may also be called by hand, as a profiler or Chainer's own tests
do: a forward between a ``backward_preprocess`` and its ``backward_postprocess`` made
that way is nested in it, as in Chainer, since no engine backward can have failed.

On a GPU the time is read from CUDA events around the call (the device's own
clock), so asynchronous kernels are included.

>>> import io, numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.ones(3, np.float32))
>>> with TimerHook() as timer:
...     y = chainer.functions.exp(x)
>>> [name for name, seconds in timer.call_history]
['Exp']
>>> timer.total_time() == timer.call_history[0][1] > 0
True
>>> out = io.StringIO(); timer.print_report(unit='us', file=out)
>>> out.getvalue().splitlines()[0]
'FunctionName  ElapsedTime  Occurrence'
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

import numpy

from autograd_lab import backend, events
from autograd_lab.function_hook import FunctionHook


def function_name(function: Any) -> str:
    """The name a function is reported under: its class name (Chainer's ``_impl_name``)."""
    return getattr(function, '_impl_name', None) or type(function).__name__


class _Clock:
    """One running measurement: host clock for CPU arrays, CUDA events for GPU arrays."""

    __slots__ = ('function', 'forward', 'by_hand', 'start', 'cuda')

    def __init__(self, function: Any, arrays: tuple, forward: bool) -> None:
        self.function = function
        self.forward = forward
        # a backward begun by calling backward_preprocess by hand, outside the engine's
        # backward: no engine failure can abandon it (see TimerHook.forward_preprocess)
        self.by_hand = not forward and events.in_backward_of() is None
        self.cuda = None
        xp = backend.get_array_module(*[a for a in arrays if a is not None])
        if xp is not numpy:
            event_type = getattr(getattr(xp, 'cuda', None), 'Event', None)
            if event_type is not None:  # real CuPy: time on the device itself
                self.cuda = xp.cuda
                self.start = event_type()
                self.start.record()
                return
        self.start = time.perf_counter()

    def stop(self) -> float:
        if self.cuda is None:
            return time.perf_counter() - self.start
        end = self.cuda.Event()
        end.record()
        end.synchronize()
        return self.cuda.get_elapsed_time(self.start, end) / 1000  # milliseconds -> seconds


class TimerHook(FunctionHook):
    """Measure the time of every function's forward and backward.

    Attributes:
        call_history: ``(function name, elapsed seconds)`` per forward or backward call,
            in the order the calls finished.
    """

    name = 'TimerHook'
    #: seconds -> unit factors accepted by :meth:`print_report`.
    table = {'sec': 1, 'ms': 10 ** 3, 'us': 10 ** 6, 'ns': 10 ** 9}

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._running: list[_Clock] = []
        self._total_time = 0.0

    # ---- callbacks ---------------------------------------------------------------------

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        running = self._running
        if running and events.in_backward_of() is None:
            # Outside any backward a forward is a top-level call: what the engine left
            # running was abandoned by a call that raised (its postprocess never came).  A
            # backward begun by a hand-made backward_preprocess is still open: nest in it.
            while running and not running[-1].by_hand:
                running.pop()
        running.append(_Clock(function, in_data, True))

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        while self._running and self._running[-1].forward:
            self._running.pop()  # a backward step never runs inside a forward: abandoned
        self._running.append(_Clock(function, in_data + out_grad, False))

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        self._finish(function)

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._finish(function)

    def _finish(self, function: Any) -> None:
        # A call whose forward or backward raised never reaches its postprocess; its
        # clock is dropped here so that it cannot be mistaken for this call's.
        while self._running and self._running[-1].function is not function:
            self._running.pop()
        if not self._running:
            return
        elapsed = self._running.pop().stop()
        self.call_history.append((function_name(function), elapsed))
        if not self._running:  # outermost call: nested ones are already inside it
            self._total_time += elapsed

    # ---- results -------------------------------------------------------------------------

    def total_time(self) -> float:
        """Seconds spent in the outermost hooked calls."""
        return self._total_time

    def summary(self) -> dict:
        """``{function name: {'elapsed_time': seconds, 'occurrence': calls}}``, in the order
        the names first appear in :attr:`call_history`."""
        result: dict = {}
        for name, seconds in self.call_history:
            record = result.setdefault(name, {'elapsed_time': 0, 'occurrence': 0})
            record['elapsed_time'] += seconds
            record['occurrence'] += 1
        return result

    @staticmethod
    def _choose_unit(seconds: float) -> tuple[float, str]:
        """The largest of sec/ms/us in which ``seconds`` is at least 1 (else ns)."""
        factor = 1.0
        for unit in ('sec', 'ms', 'us'):
            if seconds * factor >= 1:
                return factor, unit
            factor *= 1000.0
        return factor, 'ns'

    def print_report(self, unit: str = 'auto', file: TextIO | None = None) -> None:
        """Print a table of name, total time and call count per function.

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``; ``'auto'`` (default) picks one
                unit from the largest total; ``'auto_foreach'`` picks one per row.
            file: where to write (default: ``sys.stdout`` at the time of the call).
        """
        if unit not in self.table and unit not in ('auto', 'auto_foreach'):
            raise KeyError(f'unknown unit {unit!r}: use one of '
                           f"{', '.join([*self.table, 'auto', 'auto_foreach'])}")
        out = sys.stdout if file is None else file
        summary = self.summary()
        rows = [('FunctionName', 'ElapsedTime', 'Occurrence')]
        if unit == 'auto':
            largest = max((r['elapsed_time'] for r in summary.values()), default=0)
            factor, unit = self._choose_unit(largest)
        elif unit != 'auto_foreach':
            factor = self.table[unit]
        for name, record in summary.items():
            seconds = record['elapsed_time']
            if unit == 'auto_foreach':
                factor, shown = self._choose_unit(seconds)
            else:
                shown = unit
            rows.append((name, f'{seconds * factor:3.2f}{shown}', str(record['occurrence'])))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            out.write('  '.join(cell.rjust(w) for cell, w in zip(row, widths)) + '\n')
        if hasattr(out, 'flush'):
            out.flush()
