"""One backward per graph, shared by the views of that graph.

Two views of one graph (a cell shown twice, a view and its docked copy) step the same
engine backward: Step in either goes on with it instead of each discarding the other's
half-done one.  The registry is keyed by the output's event id.
"""

from __future__ import annotations

import weakref

from autograd_lab import BackwardStepper

#: The backward the views of a graph step, by the output's id, with its run id.
IN_FLIGHT: dict[int | None, tuple[weakref.ref, int | None]] = {}
#: The grads the graph held before the backward in flight began (what Reset gives back,
#: in whichever view of the graph), by the output's id, with that backward.
BEFORE: dict[int | None, tuple[weakref.ref, list]] = {}
#: Outputs whose backward a view is making right now.
STARTING: set[int | None] = set()


def in_flight(root: int | None) -> tuple[BackwardStepper, int | None] | None:
    """The backward in flight over output ``root`` and its run id, or None."""
    entry = IN_FLIGHT.get(root)
    stepper = entry[0]() if entry is not None else None
    if stepper is None or stepper.done:
        IN_FLIGHT.pop(root, None)
        return None
    return stepper, entry[1]


def drop(root: int | None, stepper: BackwardStepper | None) -> None:
    """Forget ``stepper`` as the backward in flight over ``root`` (a Reset dropped it)."""
    entry = IN_FLIGHT.get(root)
    if stepper is not None and entry is not None and entry[0]() is stepper:
        del IN_FLIGHT[root]
    before = BEFORE.get(root)
    if before is not None and before[0]() in (stepper, None):
        del BEFORE[root]


def remember_grads_before(root: int | None, stepper: BackwardStepper, before: list) -> None:
    """Keep ``before`` for a Reset in any view of ``root``'s graph while ``stepper`` lives
    (entries whose backward no view holds any more are let go here)."""
    for key in [k for k, (ref, _) in BEFORE.items() if ref() is None]:
        del BEFORE[key]
    BEFORE[root] = (weakref.ref(stepper), before)


def take_grads_before(root: int | None) -> list | None:
    """The grads held before the last backward a view began over ``root`` (None if
    none began since a Reset), forgotten here: one Reset gives them back."""
    entry = BEFORE.pop(root, None)
    return None if entry is None or entry[0]() is None else entry[1]
