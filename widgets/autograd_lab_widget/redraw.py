"""When a view redraws: at once after a student's action, throttled while the engine runs.

A view that follows a training loop is told of every new node.  Drawing after each one
would cost the loop more than its own work, so a redraw caused by engine events waits,
and the wait is shared by every view (:data:`BUDGET`): the views due for a redraw are
drawn together, at least ``THROTTLE_S`` after the last such batch and at least
``REDRAW_SPACING`` times as long as it took, until the running cell is over (the
kernel's event loop runs the timer).  Ten views open cost a loop no more redrawing
time than one does: each batch is ten times as long, and comes ten times as rarely.

A view that no page shows (:attr:`Redraws.shown` False: made in a loop, never
displayed) is not drawn at all on engine events; it is marked stale and drawn when a
page shows it (see ``lifetime``).

>>> import time
>>> drawn = []
>>> redraws = Redraws()
>>> redraws.shown = True
>>> with redraws.drawing():        # a redraw: its cost sets how long the next one waits
...     time.sleep(0.03)
>>> redraws.cost >= 0.03
True
>>> with redraws.acting():         # a student's action: engine events draw nothing
...     redraws.request(lambda: drawn.append('during'))
>>> drawn, redraws.pending
([], False)
>>> hidden = Redraws()             # no page shows it: nothing drawn, marked stale
>>> hidden.request(lambda: drawn.append('hidden'))
>>> drawn, hidden.stale
([], True)

Where no event loop runs (a script), a due batch is drawn at once (the request that
finds it due draws every view waiting), and a request before is kept for the next
one; in a kernel the batch is handed to the loop's timer.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager

logger = logging.getLogger('autograd_lab_widget')

#: Seconds between two redraws caused by engine events (explicit actions redraw at once).
THROTTLE_S = 0.1
#: A batch of redraws caused by events waits at least this many times as long as the last
#: batch took, so that views following a training loop cost it at most about
#: 1/(1+REDRAW_SPACING), however many there are.
REDRAW_SPACING = 4


def _weak(draw: Callable[[], None]) -> Callable[[], Callable[[], None] | None]:
    """A weak reference to ``draw`` (a bound method: its object may be collected while
    it waits), or a strong one to a plain function."""
    try:
        return weakref.WeakMethod(draw)  # type: ignore[arg-type]
    except TypeError:
        return lambda: draw


class Budget:
    """The redraw budget every view shares: who waits for the next batch, and when it is due."""

    def __init__(self) -> None:
        self.waiting: dict[int, tuple[Redraws, Callable]] = {}  # id(redraws) -> draw
        self.timer: asyncio.AbstractEventLoop | None = None  # the loop whose timer draws it
        self.last_draw = 0.0  # time.monotonic() at the end of the last batch
        self.cost = 0.0       # seconds the last batch took
        self.lock = threading.RLock()

    def delay(self) -> float:
        """Seconds the next batch waits after the last one."""
        return max(THROTTLE_S, REDRAW_SPACING * self.cost)

    def add(self, redraws: Redraws, draw: Callable[[], None] | None) -> None:
        """``redraws``' view waits for the next batch (drawn by ``draw``; None: it waits
        already), which is drawn now if it is due and no event loop will draw it."""
        with self.lock:
            if draw is not None:
                self.waiting[id(redraws)] = (redraws, _weak(draw))
            delay = self.delay()
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            loop = running or redraws.loop
            if loop is not None and not loop.is_closed():
                # a timer on a loop that closed before it ran, or on another loop, draws
                # nothing here: this loop gets its own
                if self.timer is None or self.timer.is_closed() or self.timer is not loop:
                    self.timer = loop
                    if running is not None:
                        loop.call_later(delay, self.flush)
                    else:  # an engine thread: hand the batch to the kernel's loop
                        loop.call_soon_threadsafe(loop.call_later, delay, self.flush)
                return
        if time.monotonic() - self.last_draw >= delay:
            self.flush()

    def served(self, redraws: Redraws) -> None:
        """``redraws``' view was just drawn: it no longer waits."""
        with self.lock:
            self.waiting.pop(id(redraws), None)

    def flush(self) -> None:
        """Draw every view waiting (the batch), and measure what it took."""
        with self.lock:
            self.timer = None
            batch, self.waiting = list(self.waiting.values()), {}
        began = time.monotonic()
        for redraws, ref in batch:
            draw = ref()
            redraws.pending = False
            if draw is not None and not redraws.busy:
                try:
                    draw()
                except Exception as error:  # one view's failure leaves the others drawn
                    logger.warning('a redraw failed: %s', error)
        self.last_draw = time.monotonic()
        self.cost = self.last_draw - began


#: The budget of every view in this process.
BUDGET = Budget()


class Redraws:
    """The redraw schedule of one view: whether a page shows it, whether it waits for a
    redraw, and what its last one cost."""

    def __init__(self) -> None:
        self.pending = False  # it waits in the budget's next batch
        self.busy = False     # an action runs; it redraws once when over
        self.shown = False    # a page shows the view (see lifetime.hold)
        self.stale = False    # engine events came while no page showed it
        self.cost = 0.0       # seconds the last redraw took
        try:  # the kernel's loop, to which engine threads hand redraws
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None

    def request(self, draw: Callable[[], None]) -> None:
        """The engine changed the graph: ``draw`` with the next batch (after the running
        cell when in a kernel); nothing while an action runs (it redraws when over) or
        no page shows the view (it is stale until one does)."""
        if self.busy:
            return
        if not self.shown:
            self.stale = True
            return
        waits, self.pending = self.pending, True
        BUDGET.add(self, None if waits else draw)

    @contextmanager
    def drawing(self) -> Iterator[None]:
        """Around a redraw: a waiting one is served by it, and its cost is measured."""
        began = time.monotonic()
        self.pending = self.stale = False
        BUDGET.served(self)
        yield
        self.cost = time.monotonic() - began

    @contextmanager
    def acting(self) -> Iterator[None]:
        """Around a student's action: the events it causes request no redraw."""
        self.busy = True
        try:
            yield
        finally:
            self.busy = False
