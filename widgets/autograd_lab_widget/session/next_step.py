"""The step to come, as the ledger and a guess need it: which function, with which grads.

Three sources, one answer (:class:`~autograd_lab_widget.present.ledger.Upcoming`): the
recorded next step (in history), the engine's stepper (a backward half-way), and before
any backward, the output's creator with the seed the engine will give it.
"""

from __future__ import annotations

from typing import Any

from autograd_lab import BackwardStepper, Variable, backend, events

from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.follow.timeline import Timeline
from autograd_lab_widget.naming import Names
from autograd_lab_widget.present import gone
from autograd_lab_widget.present.ledger import Upcoming, slot_labels


def recorded(timeline: Timeline, pos: int, state: ViewState) -> Upcoming | None:
    """The step recorded after position ``pos`` of the run shown, or None."""
    e = timeline.next_of('backward_step_started', pos)
    run = state.run.run_id
    if e is None or (run is not None and e.run_id != run):
        return None
    return upcoming(state, e.func_id, e.grad_outputs, e.reason, e.frontier_ids,
                    e.frontier_size)


def from_stepper(stepper: BackwardStepper, state: ViewState) -> Upcoming:
    """The next step of a backward half-way, as the engine's stepper has it."""
    func = stepper.next_function
    outs = [ref() for ref in func.outputs or ()]
    grads = tuple(None if n is None else events.snapshot(_raw(stepper.pending_grad(n)))
                  for n in outs)
    frontier = stepper.frontier
    return upcoming(state, events.uid(func), grads, stepper.why_next(),
                    tuple(events.uid(f) for f in frontier[:events.FRONTIER_MAX]),
                    len(frontier))


def first(root: Variable, state: ViewState, names: Names) -> Upcoming | None:
    """Before backward: the output's creator runs first, with the seed (the output's
    grad, else ones)."""
    creator = root.creator
    if creator is None or creator.inputs is None:
        return None
    fid = events.uid(creator)
    seed = root.grad if root.grad is not None else (
        None if root.array is None else backend.get_array_module(root.array).ones_like(
            root.array))
    grads = tuple(events.snapshot(seed) if ref() is root.node else None
                  for ref in creator.outputs or ())
    return upcoming(state, fid, grads, f'Backward starts at the function that made '
                    f'{names.of(state.model, events.uid(root))}.', (fid,), 1)


def upcoming(state: ViewState, fid: int, grads: tuple, reason: str, frontier: tuple,
             size: int) -> Upcoming:
    """The step of function ``fid``; its targets are the input slots that get a grad
    (not a leaf whose Variable is gone: the engine keeps no grad for it)."""
    model = state.model
    f = model.nodes.get(fid)
    targets = ()
    if f is not None:
        targets = tuple(k for k, i in enumerate(f.input_ids)
                        if i not in model.nodes or (model.nodes[i].requires_grad
                                                    and not gone.is_gone(state, model.nodes[i])))
    return Upcoming(fid, tuple(grads), reason, tuple(frontier), size, targets)


def target_names(state: ViewState, up: Upcoming | None, names: Names) -> list[str]:
    """The names of the variables step ``up`` sends gradients to, one per input slot."""
    f = state.model.nodes.get(up.func_id) if up is not None else None
    if f is None:  # none, or (in history) a function not made yet at this point
        return []
    table = names.table(state.model)
    return [table.get(f.input_ids[k], f'#{f.input_ids[k]}') for k in up.targets]


def target_labels(state: ViewState, up: Upcoming | None, names: Names) -> list[str]:
    """Like :func:`target_names`, with the slot told where one variable fills two
    (``x (slot 1)``, ``x (slot 2)``): what the guess boxes are labelled."""
    f = state.model.nodes.get(up.func_id) if up is not None else None
    if f is None:
        return []
    table = names.table(state.model)
    labels = slot_labels([table.get(i, f'#{i}') for i in f.input_ids])
    return [labels[k] for k in up.targets]


def _raw(g: Any) -> Any:
    return g.array if isinstance(g, Variable) else g
