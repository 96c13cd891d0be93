"""The gradient lens: how large each gradient is next to the seed's, and where it broke.

A view shows, per variable, the log10 of its gradient's norm over the seed's (the
gradient backward started from, ``1`` for a scalar loss): 0 is "as large as the
seed", -6 is "a millionth of it".  A gradient is flagged

- ``'vanishing'`` below :data:`VANISHING_BELOW` times the seed's norm,
- ``'exploding'`` above :data:`EXPLODING_ABOVE` times it,
- ``'nonfinite'`` when it holds a NaN or an infinity,
- ``'zero'`` when it is exactly zero (a ReLU that was off, say: no scale to show).

Everything here is read from the events of the real backward, step by step
(:class:`GradientLens`); nothing is recomputed.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> with events.recording() as log:
...     x = chainer.Variable(np.array([1.0, 2.0]), name='x')
...     y = chainer.functions.sum(x * 1e-6)
...     y.backward()
>>> reading = GradientLens.from_events(log).readings()[events.uid(x)]
>>> round(reading.log10_ratio, 2), reading.flag
(-5.85, 'vanishing')
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy

from autograd_lab.events import Summary

#: A gradient whose norm is below this fraction of the seed's is flagged ``'vanishing'``.
VANISHING_BELOW = 1e-4
#: A gradient whose norm is above this multiple of the seed's is flagged ``'exploding'``.
EXPLODING_ABOVE = 1e4
#: The log10 ratios a scale spans; readings outside are drawn at its ends.
SCALE = (-8.0, 4.0)


@dataclass(frozen=True)
class Reading:
    """One gradient seen through the lens.

    ``norm`` is its L2 norm (NaN when it holds a NaN, inf when an infinity); ``log10_ratio``
    the log10 of ``norm`` over the seed's (None when either is zero or not finite);
    ``flag`` one of ``'vanishing' | 'exploding' | 'nonfinite' | 'zero'`` or None.
    """

    norm: float
    log10_ratio: float | None
    flag: str | None

    @property
    def exponent(self) -> str:
        """The ratio written as a power of ten, the cue that does not rely on colour.

        >>> Reading(1e-6, -6.0, 'vanishing').exponent, Reading(3.0, 0.48, None).exponent
        ('10^-6', '10^0')
        >>> Reading(float('nan'), None, 'nonfinite').exponent
        'NaN'
        >>> Reading(float('inf'), None, 'nonfinite').exponent
        'inf'
        """
        if self.flag == 'nonfinite':
            return 'NaN' if math.isnan(self.norm) else 'inf'
        if self.log10_ratio is None:
            return '0' if self.flag == 'zero' else '?'
        return f'10^{round(self.log10_ratio)}'

    @property
    def bar(self) -> float:
        """Where the reading sits on :data:`SCALE`, 0 (smallest) to 1 (largest).

        >>> Reading(1.0, 0.0, None).bar, Reading(1e-20, -20.0, 'vanishing').bar
        (0.6666666666666666, 0.0)
        """
        if self.log10_ratio is None:
            return 0.0
        low, high = SCALE
        return min(1.0, max(0.0, (self.log10_ratio - low) / (high - low)))


def grad_norm(grad: Any) -> float:
    """The L2 norm of a grad as events keep it (an array or a :class:`Summary`);
    NaN when it holds a NaN, inf when it holds an infinity and no NaN.

    >>> import numpy as np
    >>> grad_norm(np.array([3.0, 4.0])), grad_norm(np.array([1.0, -np.inf]))
    (5.0, inf)
    >>> grad_norm(np.array([np.nan, np.inf]))
    nan
    """
    if isinstance(grad, Summary):
        if grad.nan_count:
            return math.nan
        return math.inf if grad.inf_count else grad.norm
    values = numpy.asarray(grad, dtype=numpy.float64)
    if not numpy.isfinite(values).all():
        return math.nan if numpy.isnan(values).any() else math.inf
    return float(numpy.linalg.norm(values.ravel()))


def read(norm: float, seed_norm: float) -> Reading:
    """The :class:`Reading` of a gradient of ``norm`` under a seed of ``seed_norm``.

    >>> read(1e-5, 1.0).flag, read(1e5, 1.0).flag, read(0.5, 1.0).flag
    ('vanishing', 'exploding', None)
    >>> read(0.0, 1.0).flag, read(float('nan'), 1.0).flag, read(float('inf'), 1.0).flag
    ('zero', 'nonfinite', 'nonfinite')
    """
    if not math.isfinite(norm):
        return Reading(norm, None, 'nonfinite')
    if norm == 0.0:
        return Reading(norm, None, 'zero')
    if not (seed_norm > 0.0 and math.isfinite(seed_norm)):
        return Reading(norm, None, None)
    ratio = math.log10(norm) - math.log10(seed_norm)
    if ratio < math.log10(VANISHING_BELOW):
        return Reading(norm, ratio, 'vanishing')
    if ratio > math.log10(EXPLODING_ABOVE):
        return Reading(norm, ratio, 'exploding')
    return Reading(norm, ratio, None)


class GradientLens:
    """The grads of the latest backward run, followed event by event.

    Unlike the graph model, the lens keeps an intermediate's grad after backward
    releases it (the grad it had is what the lens shows), and it knows the seed: the
    grads backward started from (their norm together; 1.0 until seen).  Feed it the
    same events as a :class:`~autograd_lab.graph.GraphModel` (:meth:`apply`, or
    :meth:`from_events` with ``upto`` for time travel).
    """

    def __init__(self) -> None:
        self.grads: dict[int, Any] = {}     # var id -> latest grad snapshot of this run
        self.seed_norm = 1.0
        self.nan_origin: int | None = None  # see :func:`nan_origin`
        self._outputs: dict[int, tuple] = {}
        self._roots: tuple = ()
        self._seed_seen = False
        self._clean: set = set()
        self._told: set = set()  # variables whose Grad* events gave their total this step

    @classmethod
    def from_events(cls, events: Iterable, upto: int | None = None) -> GradientLens:
        """The lens after ``events`` (up to and including index ``upto``)."""
        lens = cls()
        for index, e in enumerate(events):
            if upto is not None and index > upto:
                break
            lens.apply(e)
        return lens

    def apply(self, e: Any) -> None:
        """Take one event into account."""
        kind = e.kind
        if kind == 'function_applied':
            self._outputs[e.func_id] = tuple(e.output_ids)
        elif kind == 'backward_started':
            self.grads = {i: g for i, g in self.grads.items() if i in e.root_ids}
            self._roots, self._seed_seen, self.nan_origin = tuple(e.root_ids), False, None
            self._clean = set()
        elif kind == 'backward_step_started':
            self._step_started(e)
        elif kind == 'backward_step_done':
            self._step_done(e)
        elif kind in ('grad_set', 'grad_accumulated', 'grad_added', 'grad_zeroed',
                      'grad_restored'):
            if e.grad is not None:
                self.grads[e.var_id] = e.grad
                self._told.add(e.var_id)
        elif kind == 'grad_cleared':
            self.grads.pop(e.var_id, None)

    def _step_started(self, e: Any) -> None:
        self._told = set()
        for o, g in zip(self._outputs.get(e.func_id, ()), e.grad_outputs):
            if g is not None:
                self.grads[o] = g
        if not self._seed_seen:  # the first step: the roots' grads are the seed
            self._seed_seen = True
            norms = [grad_norm(self.grads[r]) for r in self._roots if r in self.grads]
            if norms:
                self.seed_norm = math.sqrt(sum(n * n for n in norms))
        if finite(e.grad_outputs):
            self._clean.add(e.func_id)

    def _step_done(self, e: Any) -> None:
        for i, g, how in zip(e.target_input_ids, e.grad_inputs, e.accumulation):
            if i in self._told:
                continue
            if how == 'set' or (how == 'added' and i not in self.grads):
                self.grads[i] = g
            elif how == 'added':
                self.grads[i] = _sum(self.grads[i], g)
        if self.nan_origin is None and e.func_id in self._clean and not finite(e.grad_inputs):
            self.nan_origin = e.func_id

    def readings(self) -> dict[int, Reading]:
        """A :class:`Reading` per variable that got a grad in this run so far."""
        return {i: read(grad_norm(g), self.seed_norm) for i, g in self.grads.items()}


    def link_readings(self, model: Any) -> dict[str, Reading]:
        """Per Link of ``model`` (a GraphModel: its scope path), the norm of its
        parameters' grads taken together: what a collapsed link shows.

        >>> import numpy as np, autograd_lab as chainer
        >>> from autograd_lab import events
        >>> from autograd_lab.graph import GraphModel
        >>> with events.recording() as log:
        ...     layer = chainer.links.Linear(2, 2, initialW=np.eye(2))
        ...     layer.cleargrads()   # a fresh Parameter's grad is NaN-filled, as in Chainer
        ...     loss = chainer.functions.sum(layer(np.ones((1, 2), np.float32)))
        ...     loss.backward()
        >>> lens = GradientLens.from_events(log)
        >>> {scope: round(r.norm, 3) for scope, r in lens.link_readings(
        ...     GraphModel.from_events(log)).items()}
        {'/': 2.449}
        """
        squares: dict[str, float] = {}
        for i, g in self.grads.items():
            n = model.nodes.get(i)
            if n is not None and n.is_parameter and n.scope is not None:
                squares[n.scope] = squares.get(n.scope, 0.0) + grad_norm(g) ** 2
        return {scope: read(math.sqrt(s), self.seed_norm) for scope, s in squares.items()}


def finite(grads: Iterable) -> bool:
    """True when no grad among ``grads`` (arrays, :class:`Summary` s or None) holds a
    NaN or an infinity: a backward step whose output grads are finite and whose input
    grads are not is where a NaN was born.

    >>> import numpy as np
    >>> finite([np.ones(2), None]), finite([np.array([np.nan])])
    (True, False)
    """
    return all(g is None or math.isfinite(grad_norm(g)) for g in grads)


def _sum(a: Any, b: Any) -> Any:
    if isinstance(a, Summary) or isinstance(b, Summary):
        return b  # a summary cannot be added to: keep the newer part (a lower bound)
    return numpy.asarray(a) + numpy.asarray(b)


def nan_origin(events: Iterable) -> int | None:
    """The id of the first function whose backward made a NaN or an infinity out of
    finite output grads, in the order backward ran (in the latest run); None when none did.

    Read from the backward steps of a recording (``events`` may stop at any index, as
    time travel does); unlike debug mode, the backward runs on and nothing is raised.

    >>> import numpy as np, autograd_lab as chainer
    >>> from autograd_lab import events
    >>> with events.recording() as log, np.errstate(divide='ignore'):
    ...     x = chainer.Variable(np.array([0.0, 1.0]), name='x')
    ...     y = chainer.functions.sum(chainer.functions.sqrt(x) * 2)
    ...     y.backward()   # sqrt's derivative at 0 is infinite
    >>> [e.label for e in log if e.kind == 'function_applied'
    ...  and e.func_id == nan_origin(log)]
    ['sqrt']
    """
    return GradientLens.from_events(events).nan_origin
