"""When a view redraws: at once after a student's action, throttled while the engine runs.

A view that follows a training loop is told of every new node.  Drawing after each one
would cost the loop more than its own work, so a redraw caused by engine events waits:
at least ``THROTTLE_S``, and at least ``REDRAW_SPACING`` times as long as the last
redraw took, until the running cell is over (the kernel's event loop runs the timer).

>>> import time
>>> drawn = []
>>> redraws = Redraws()
>>> with redraws.drawing():        # a redraw: its cost sets how long the next one waits
...     time.sleep(0.03)
>>> redraws.cost >= 0.03, redraws.delay() >= REDRAW_SPACING * 0.03
(True, True)
>>> with redraws.acting():         # a student's action: engine events draw nothing
...     redraws.request(lambda: drawn.append('during'))
>>> drawn, redraws.pending
([], False)

Where no event loop runs (a script), a request draws at once once the delay has passed,
and is dropped before; in a kernel it is handed to the loop's timer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: Seconds between two redraws caused by engine events (explicit actions redraw at once).
THROTTLE_S = 0.1
#: A redraw caused by events waits at least this many times as long as the last one took,
#: so that a view following a training loop costs it at most about 1/(1+REDRAW_SPACING).
REDRAW_SPACING = 4


class Redraws:
    """The redraw schedule of one view: whether one is pending, and what the last cost."""

    def __init__(self) -> None:
        self.pending = False  # a timer will redraw
        self.busy = False     # an action runs; it redraws once when over
        self.last_draw = 0.0  # time.monotonic() at the end of the last redraw
        self.cost = 0.0       # seconds the last redraw took
        try:  # the kernel's loop, to which engine threads hand redraws
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None

    def request(self, draw: Callable[[], None]) -> None:
        """The engine changed the graph: ``draw`` soon, after the running cell when in a
        kernel; nothing while an action runs (it redraws when over) or a redraw is due."""
        if self.pending or self.busy:
            return
        delay = self.delay()
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        loop = running or self.loop
        if loop is not None and not loop.is_closed():
            self.pending = True
            if running is not None:
                loop.call_later(delay, draw)
            else:  # an engine thread: hand the redraw to the kernel's loop
                loop.call_soon_threadsafe(loop.call_later, delay, draw)
        elif time.monotonic() - self.last_draw >= delay:
            draw()

    def delay(self) -> float:
        """Seconds a redraw caused by the engine waits after the last one."""
        return max(THROTTLE_S, REDRAW_SPACING * self.cost)

    @contextmanager
    def drawing(self) -> Iterator[None]:
        """Around a redraw: a pending one is served by it, and its cost is measured."""
        began = time.monotonic()
        self.pending = False
        yield
        self.last_draw = time.monotonic()
        self.cost = self.last_draw - began

    @contextmanager
    def acting(self) -> Iterator[None]:
        """Around a student's action: the events it causes request no redraw."""
        self.busy = True
        try:
            yield
        finally:
            self.busy = False
