"""The gradient lens: how large each gradient is next to the seed's, and where it broke.

A view shows, per variable, the log10 of its gradient's norm over the seed's (the
gradient backward started from, ``1`` for a scalar loss): 0 is "as large as the
seed", -6 is "a millionth of it".  A gradient is flagged

- ``'vanishing'`` below :data:`VANISHING_BELOW` times the seed's norm,
- ``'exploding'`` above :data:`EXPLODING_ABOVE` times it,
- ``'nonfinite'`` when it holds a NaN or an infinity,
- ``'zero'`` when it is exactly zero (a ReLU that was off, say: no scale to show).

Everything here is read from the grads the real backward gave, step by step, as
the graph model's backward run keeps them (``GraphModel.run``); nothing is recomputed.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> with events.recording() as log:
...     x = chainer.Variable(np.array([1.0, 2.0]), name='x')
...     y = chainer.functions.sum(x * 1e-6)
...     y.backward()
>>> from autograd_lab.graph import GraphModel
>>> reading = readings(GraphModel.from_events(log).run)[events.uid(x)]
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
#: The log10 ratios a scale spans; readings outside are drawn at its ends.  Wide enough
#: for what a deep float64 network's vanishing gradients reach (10^-15 and below).
SCALE = (-16.0, 4.0)


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
        (0.8, 0.0)
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


def seed_norm(run: Any) -> float:
    """The norm of the grads ``run`` (a :class:`~autograd_lab.graph.run.BackwardRun`)
    started from, its roots' grads taken together; 1.0 before it has any."""
    norms = [grad_norm(run.grads[r]) for r in run.roots if r in run.grads]
    return math.sqrt(sum(n * n for n in norms)) if norms else 1.0


def readings(run: Any) -> dict[int, Reading]:
    """A :class:`Reading` per variable ``run`` gave a grad to so far (the grads the real
    backward gave, kept after the engine released them; see ``GraphModel.run``)."""
    seed = seed_norm(run)
    return {i: read(grad_norm(g), seed) for i, g in run.grads.items()}


def link_readings(model: Any) -> dict[str, Reading]:
    """Per Link of ``model`` (a GraphModel: its scope path), the norm of its parameters'
    grads in the model's backward run taken together: what a collapsed link shows.

    >>> import numpy as np, autograd_lab as chainer
    >>> from autograd_lab import events
    >>> from autograd_lab.graph import GraphModel
    >>> with events.recording() as log:
    ...     layer = chainer.links.Linear(2, 2, initialW=np.eye(2))
    ...     layer.cleargrads()   # a fresh Parameter's grad is NaN-filled, as in Chainer
    ...     loss = chainer.functions.sum(layer(np.ones((1, 2), np.float32)))
    ...     loss.backward()
    >>> {scope: round(r.norm, 3) for scope, r in link_readings(
    ...     GraphModel.from_events(log)).items()}
    {'/': 2.449}
    """
    run = model.run
    squares: dict[str, float] = {}
    for i, g in run.grads.items():
        n = model.nodes.get(i)
        if n is not None and n.is_parameter and n.scope is not None:
            squares[n.scope] = squares.get(n.scope, 0.0) + grad_norm(g) ** 2
    seed = seed_norm(run)
    return {scope: read(math.sqrt(q), seed) for scope, q in squares.items()}


def finite(grads: Iterable) -> bool:
    """True when no grad among ``grads`` (arrays, :class:`Summary` s or None) holds a
    NaN or an infinity: a backward step whose output grads are finite and whose input
    grads are not is where a NaN was born.

    >>> import numpy as np
    >>> finite([np.ones(2), None]), finite([np.array([np.nan])])
    (True, False)
    """
    return all(g is None or math.isfinite(grad_norm(g)) for g in grads)
