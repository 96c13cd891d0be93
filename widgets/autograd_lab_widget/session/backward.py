"""The engine backward a view steps, and what the view remembers about it.

There is no second backward for display: a view steps the engine's own
:class:`~autograd_lab.BackwardStepper`, shared with the other views of the same graph
(:mod:`.shared`).  :class:`Backward` holds that stepper, the runs the view started, the
leaves' grads from before (what Reset gives back), and the notice a start or a
takeover leaves for the status line.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from autograd_lab import BackwardStepper, Variable, events

from autograd_lab_widget.session import shared


class Backward:
    """The backward a view steps over the graph of output ``root`` (an event id)."""

    def __init__(self, *, retain_grad: bool, enable_double_backprop: bool) -> None:
        self.retain_grad = retain_grad
        self.enable_double_backprop = enable_double_backprop
        self.stepper: BackwardStepper | None = None
        self.run_id: int | None = None  # the run id of the backward stepped last
        self.own_runs: set[int] = set()  # runs this view started or went on with
        self.grads_before: list | None = None  # leaves' grads before our backward began
        self.armed = False  # Step was pressed once on a graph whose leaves hold grads
        self.notice = ''
        self.after_step: tuple | None = None  # (stepper, [(weakref, grad)]) after our last step
        self._starting = False

    def in_flight(self, root: int | None) -> BackwardStepper | None:
        """The backward half-way over ``root``: ours, or another view's of the graph."""
        s = self.stepper
        if s is not None and not s.done:
            entry = shared.IN_FLIGHT.get(root)
            if entry is None or entry[0]() is not s:  # another view reset it: it is gone
                self.stepper = None
                self.notice = 'Another view of this graph reset the backward it was stepping.'
                return None
            return s
        other = shared.in_flight(root)
        return other[0] if other is not None else None

    def note_run(self, e: events.Event, root: int | None) -> None:
        """Tell our own backward runs from those started elsewhere (a cell's
        ``y.backward()``); another run from our output replaces a half-way one of ours."""
        if e.kind != 'backward_started':
            return
        if self._starting:
            self.own_runs.add(e.run_id)
            self.run_id = e.run_id
            return
        if root in shared.STARTING:
            return  # another view of this graph is starting it: we may step it too
        if root is not None and root in e.root_ids and self.stepper is not None \
                and not self.stepper.done:
            self.drop(root)
            self.notice = 'A backward started outside the view replaced the one it was stepping.'

    def ensure(self, output: Variable, held: Callable[[], list[str]],
               snapshot: Callable[[], list], confirm: bool) -> BackwardStepper | None:
        """The stepper of the backward under way, or a new one from ``output``; None when
        starting one needs the user to confirm first (``held()`` names leaves that
        already hold grads).  ``snapshot()`` copies the leaves' grads, for Reset."""
        root = events.uid(output)
        if self.stepper is not None and self.stepper is self.in_flight(root):
            return self.stepper
        other = shared.in_flight(root)
        if other is not None:  # another view of this graph is half-way: go on with it
            self.stepper, self.run_id = other
            self.own_runs.add(self.run_id)
            self.notice = ('Another view of this graph started this backward: Step here '
                           'goes on with the same one (each grad is computed once).')
            return self.stepper
        holding = held()
        if holding and not confirm and not self.armed:
            self.armed = True
            self.notice = 'Press again to add to these grads.'  # the status names them
            return None
        self.armed = False
        self.notice = 'Added to the grads held before.' if holding else ''
        if self.grads_before is None:  # what Reset gives back
            self.grads_before = snapshot()
        self._starting, self.run_id = True, None
        shared.STARTING.add(root)
        try:
            self.stepper = BackwardStepper.for_backward(
                [output], retain_grad=self.retain_grad,
                enable_double_backprop=self.enable_double_backprop)
        finally:
            self._starting = False
            shared.STARTING.discard(root)
        shared.IN_FLIGHT[root] = (weakref.ref(self.stepper), self.run_id)
        shared.remember_grads_before(root, self.stepper, self.grads_before)
        return self.stepper

    def advance(self, stepper: BackwardStepper, all_of_them: bool = False) -> None:
        """Run the next step (or every one) of ``stepper``.  A step that raises has been
        undone by the engine (every grad as before this backward); the view forgets the
        stepper, so that Step tries again, and the error goes on to the caller."""
        try:
            if all_of_them:
                stepper.run()
            else:
                stepper.step()
        except BaseException:
            self.stepper = None
            raise

    def drop(self, root: int | None) -> None:
        """Forget the stepper (the next Step starts a fresh backward), here and for the
        other views of the graph."""
        shared.drop(root, self.stepper)
        self.stepper = None

    def reset(self, root: int | None) -> list | None:
        """Drop the backward and what it left to say; returns the graph's grads from
        before it began (``[(weakref, grad copy)]``; this view's, or another view's of
        the graph), None if none began since the last reset."""
        before = shared.take_grads_before(root)
        if self.grads_before is not None:
            before = self.grads_before
        self.drop(root)
        self.armed = False
        self.notice = ''
        self.grads_before = None
        return before


def restore_grads(before: list[tuple[Any, Any]]) -> None:
    """Give each leaf still alive the grad it held (``(weakref, grad)`` pairs)."""
    for ref, grad in before:
        var = ref()
        if var is not None and grad is not None:
            var.grad = grad
