"""Optimizer hooks: gradient transformations run by the optimizer before each update.

``opt.add_hook(WeightDecay(rate))`` adds ``rate * p`` to every gradient,
``Lasso(rate)`` adds ``rate * sign(p)``, and ``GradientClipping(threshold)``
rescales all gradients together so that their global L2 norm is at most
``threshold``.  The two per-parameter hooks can also be attached to a single
update rule (``param.update_rule.add_hook(WeightDecay(rate))``).

>>> import numpy as np, autograd_lab as chainer, autograd_lab.optimizers as O
>>> link = chainer.Link()
>>> with link.init_scope():
...     link.w = chainer.Parameter(np.array([3.0, 4.0], np.float32))
>>> opt = O.SGD(lr=1.0).setup(link)
>>> opt.add_hook(GradientClipping(1.0))
>>> link.w.grad = np.array([3.0, 4.0], np.float32)   # norm 5 -> scaled to norm 1
>>> opt.update()
>>> link.w.array
array([2.4, 3.2], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy

from autograd_lab import backend


class _GradientPenalty:
    """A per-parameter hook adding the gradient of a penalty on ``p`` to ``p.grad``.

    Subclasses state only that gradient (:meth:`_add`); this class holds what Chainer's
    WeightDecay and Lasso share: the ``rate``, running before the update for each
    parameter, and skipping parameters without data or gradient.
    """

    call_for_each_param = True
    timing = 'pre'

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __call__(self, rule: Any, param: Any) -> None:
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        self._add(param, p, g)

    def _add(self, param: Any, p: Any, g: Any) -> None:
        """Add the penalty's gradient to ``g`` in place."""
        raise NotImplementedError


class WeightDecay(_GradientPenalty):
    """L2 regularization: ``g += rate * p`` (``rate`` times the loss scale when one is set).

    >>> import numpy as np, autograd_lab as chainer
    >>> p = chainer.Parameter(np.array([2.0], np.float32)); p.grad = np.zeros(1, np.float32)
    >>> WeightDecay(0.5)(None, p); p.grad
    array([1.], dtype=float32)
    """

    name = 'WeightDecay'

    def _add(self, param: Any, p: Any, g: Any) -> None:
        rate = self.rate
        if param._loss_scale is not None:
            rate *= param._loss_scale
        g += rate * p


class Lasso(_GradientPenalty):
    """L1 regularization: ``g += rate * sign(p)`` (unlike WeightDecay, loss scale ignored).

    >>> import numpy as np, autograd_lab as chainer
    >>> p = chainer.Parameter(np.array([2.0, -3.0], np.float32))
    >>> p.grad = np.zeros(2, np.float32)
    >>> Lasso(0.1)(None, p); p.grad
    array([ 0.1, -0.1], dtype=float32)
    """

    name = 'Lasso'

    def _add(self, param: Any, p: Any, g: Any) -> None:
        g += self.rate * backend.get_array_module(p).sign(p)


class GradientClipping:
    """Scale every gradient by ``threshold / norm`` when the global L2 norm exceeds it.

    The norm is taken over the gradients of all initialized parameters of the
    optimizer's target, as they are at hook time (i.e. still multiplied by the
    loss scale, if any).

    >>> import numpy as np, autograd_lab as chainer, autograd_lab.optimizers as O
    >>> link = chainer.Link(w=(2,))
    >>> opt = O.SGD().setup(link)
    >>> link.w.grad = np.array([6.0, 8.0], np.float32)
    >>> GradientClipping(5.0)(opt); link.w.grad
    array([3., 4.], dtype=float32)
    """

    name = 'GradientClipping'
    timing = 'pre'

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    def __call__(self, opt: Any) -> None:
        params = list(opt.target.params(False))
        if not params:
            return
        xp = backend.get_array_module(params[0].array)
        sqnorm = 0
        for param in params:
            g = param.grad.ravel()
            sqnorm = sqnorm + g.dot(g)  # stays on the device: no synchronization on a GPU
        with numpy.errstate(divide='ignore'):
            rate = self.threshold / xp.sqrt(sqnorm)
        if xp is numpy:
            if rate >= 1:
                return
        else:
            rate = rate.clip(None, 1)
        for param in params:
            grad = param.grad
            grad *= rate


from autograd_lab.optimizer_hooks.gradient_shaping import (  # noqa: E402
    GradientHardClipping, GradientLARS, GradientNoise,
)

__all__ = ['GradientClipping', 'GradientHardClipping', 'GradientLARS', 'GradientNoise',
           'Lasso', 'WeightDecay']
