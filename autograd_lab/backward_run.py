"""What a backward is asked to do, and the records its stepper keeps.

:class:`BackwardRequest` fixes, before the first step, which of the two backwards a
:class:`~autograd_lab.BackwardStepper` runs: ``y.backward()`` (every leaf gets its
gradient) or :func:`~autograd_lab.grad` (the gradients of the outputs with respect to
given inputs).  :class:`SavedGrad` is a Variable's gradient as it was before the backward
touched it, put back when a step fails; :class:`Ending` says how the backward ended.

>>> request = BackwardRequest(seeds=())
>>> request.mode, BackwardRequest(seeds=(), inputs=()).mode
('backward', 'grad')
>>> Ending(), Ending(failure="ValueError('bad')").failure
(Ending(failure=None, results=None), "ValueError('bad')")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from autograd_lab.variable import Variable


@dataclass(frozen=True)
class BackwardRequest:
    """What a :class:`BackwardStepper` is asked to do, fixed before its first step.

    ``seeds`` pairs each root's VariableNode with its starting gradient.  ``inputs`` is None
    for ``backward()`` (every leaf gets its gradient); for :func:`grad` it holds the Variables
    whose gradients are asked for, and ``required`` the nodes on a path from them to the roots.
    """

    seeds: tuple
    inputs: tuple | None = None
    required: set | None = None
    set_grad: bool = False  # grad(): store the results in inputs[i].grad_var, as grad() does
    retain_grad: bool = False
    enable_double_backprop: bool = False
    loss_scale: float | None = None

    @property
    def mode(self) -> str:
        """``'backward'`` or ``'grad'``, as the recorder names a run."""
        return 'backward' if self.inputs is None else 'grad'


class SavedGrad(NamedTuple):
    """A Variable's gradient before this backward touched it (put back if a step fails)."""

    variable: Variable
    grad: Any
    grad_var: Any
    loss_scale: float | None


class Ending(NamedTuple):
    """How a backward ended: ``failure`` is what the failing step raised (its repr), None
    when every function ran; ``results`` are grad()'s gradients as it finished (None for
    backward() and after a failure)."""

    failure: str | None = None
    results: tuple | None = None
