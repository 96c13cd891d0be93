"""Five more of Chainer 7.8.1's optimizers, with its defaults and formulas.

===========================  ================================================================
``AdaDelta(rho=0.95,         ``msg = rho msg + (1-rho) g²; dx = sqrt((msdx+eps)/(msg+eps)) g;
eps=1e-6)``                  msdx = rho msdx + (1-rho) dx²; p -= dx``
``CorrectedMomentumSGD``     ``v = momentum v - g; p += lr v`` (the learning rate applied
                             after the momentum, so changing it does not rescale ``v``)
``MSVAG(lr=0.1, beta=0.9)``  Adam-like moments scaled by a variance-adapted factor in [0, 1]
``RMSpropGraves``            ``n, g`` running means of grad² and grad; ``delta = momentum
                             delta - lr grad / sqrt(n - g² + eps); p += delta``
``SMORMS3(lr=0.001)``        ``r = 1/(mem+1); g, g2`` r-weighted means;
                             ``x = g²/(g2+eps); p -= grad min(x, lr) / (sqrt(g2)+eps);
                             mem = 1 + mem (1-x)``
===========================  ================================================================

>>> import numpy as np, autograd_lab as chainer, autograd_lab.optimizers as O
>>> link = chainer.Link()
>>> with link.init_scope():
...     link.w = chainer.Parameter(np.array([1.0], np.float32))
>>> opt = O.CorrectedMomentumSGD(lr=0.1, momentum=0.5).setup(link)
>>> for _ in range(2):
...     link.w.grad = np.array([1.0], np.float32)
...     opt.update()
>>> link.w.array   # v1 = -1, v2 = 0.5 * v1 - 1 = -1.5: p = 1 - 0.1 - 0.15
array([0.75], dtype=float32)
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy

from autograd_lab.optimizer import Hyperparameter
from autograd_lab.optimizers import _defaults, _Method, _Rule


class AdaDeltaRule(_Rule):
    """AdaDelta's update (states ``msg``, ``msdx``); no learning rate.

    >>> AdaDeltaRule().hyperparam.rho
    0.95
    """

    _defaults = _defaults(rho=0.95, eps=1e-6)
    _state_names = ('msg', 'msdx')

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 rho: float | None = None, eps: float | None = None) -> None:
        super().__init__(parent_hyperparam, rho=rho, eps=eps)

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        rho, eps = self.hyperparam.rho, self.hyperparam.eps
        msg, msdx = state['msg'], state['msdx']
        msg *= rho
        msg += (1 - rho) * grad * grad
        dx = xp.sqrt((msdx + eps) / (msg + eps)) * grad
        msdx *= rho
        msdx += (1 - rho) * dx * dx
        data -= dx


class AdaDelta(_Method):
    """Zeiler's AdaDelta.

    >>> AdaDelta().rho, AdaDelta().eps
    (0.95, 1e-06)
    """

    _rule = AdaDeltaRule

    def __init__(self, rho: float = AdaDeltaRule._defaults.rho,
                 eps: float = AdaDeltaRule._defaults.eps) -> None:
        super().__init__(rho=rho, eps=eps)


class CorrectedMomentumSGDRule(_Rule):
    """``v = momentum * v - g; p += lr * v`` (state ``v``).

    >>> CorrectedMomentumSGDRule(lr=0.1).hyperparam.lr
    0.1
    """

    _defaults = _defaults(lr=0.01, momentum=0.9)
    _state_names = ('v',)

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 lr: float | None = None, momentum: float | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr, momentum=momentum)

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        v = state['v']
        v *= self.hyperparam.momentum
        v -= grad
        data += self.hyperparam.lr * v


class CorrectedMomentumSGD(_Method):
    """Momentum SGD whose momentum does not depend on the learning rate (Goyal et al.).

    >>> CorrectedMomentumSGD().momentum
    0.9
    """

    _rule = CorrectedMomentumSGDRule

    def __init__(self, lr: float = CorrectedMomentumSGDRule._defaults.lr,
                 momentum: float = CorrectedMomentumSGDRule._defaults.momentum) -> None:
        super().__init__(lr=lr, momentum=momentum)


class MSVAGRule(_Rule):
    """M-SVAG (Balles & Hennig): bias-corrected moments ``mt``, ``vt`` and the step
    ``lr * mt * clip(mt² / (mt² + rho s), 0, 1)`` with ``s = (vt - mt²) / (1 - rho)``
    (NaN factors count as 0); ``eta`` and ``weight_decay_rate`` as in AdamW.
    ``beta_power`` is ``beta ** (t + 1)``.

    >>> MSVAGRule().beta_power
    0.9
    """

    _defaults = _defaults(lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0)
    _state_names = ('m', 'v')

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 lr: float | None = None, beta: float | None = None,
                 eta: float | None = None, weight_decay_rate: float | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr, beta=beta, eta=eta,
                         weight_decay_rate=weight_decay_rate)
        self.beta_power = self.hyperparam.beta

    def update_core_cpu(self, param: Any) -> None:
        if param.grad is None:
            return
        super().update_core_cpu(param)
        self.beta_power *= self.hyperparam.beta  # once per update, whatever the blocks

    update_core_gpu = update_core_cpu

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        hp = self.hyperparam
        power = self.beta_power
        rho = (1.0 - hp.beta) ** 2 * (1.0 - power ** 2) / \
            ((1.0 - power) ** 2 * (1.0 - hp.beta ** 2))
        rho = min(rho, 0.9999)
        m, v = state['m'], state['v']
        m += (1 - hp.beta) * (grad - m)
        v += (1 - hp.beta) * (grad * grad - v)
        mt = m / (1 - power)
        vt = v / (1 - power)
        mt2 = mt ** 2
        s = (vt - mt2) / (1 - rho)
        with _ignore_invalid(xp):
            factor = xp.clip(mt2 / (mt2 + rho * s), 0, 1)
        factor = xp.where(xp.isnan(factor), 0, factor)  # (0-dim: a NumPy scalar, so no [...])
        data -= hp.eta * (hp.lr * mt * factor + hp.weight_decay_rate * data)


def _ignore_invalid(xp: Any) -> Any:
    """0/0 in M-SVAG's factor is expected (it becomes 0): no RuntimeWarning for it."""
    if xp is numpy:
        return numpy.errstate(invalid='ignore', divide='ignore')
    return contextlib.nullcontext()


class MSVAG(_Method):
    """M-SVAG: Adam's moments with a variance-adapted step (Balles & Hennig, 2018).

    >>> MSVAG().lr, MSVAG().beta
    (0.1, 0.9)
    """

    _rule = MSVAGRule

    def __init__(self, lr: float = MSVAGRule._defaults.lr,
                 beta: float = MSVAGRule._defaults.beta,
                 eta: float = MSVAGRule._defaults.eta,
                 weight_decay_rate: float = MSVAGRule._defaults.weight_decay_rate) -> None:
        super().__init__(lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)


class RMSpropGravesRule(_Rule):
    """Graves' RMSprop with momentum (states ``n``, ``g``, ``delta``).

    >>> RMSpropGravesRule().hyperparam.alpha
    0.95
    """

    _defaults = _defaults(lr=1e-4, alpha=0.95, momentum=0.9, eps=1e-4)
    _state_names = ('n', 'g', 'delta')

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 lr: float | None = None, alpha: float | None = None,
                 momentum: float | None = None, eps: float | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr, alpha=alpha, momentum=momentum, eps=eps)

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        hp = self.hyperparam
        n, g, delta = state['n'], state['g'], state['delta']
        n *= hp.alpha
        n += (1 - hp.alpha) * grad * grad
        g *= hp.alpha
        g += (1 - hp.alpha) * grad
        delta *= hp.momentum
        delta -= hp.lr * grad / xp.sqrt(n - g * g + hp.eps)
        data += delta


class RMSpropGraves(_Method):
    """Alex Graves' RMSprop (Generating Sequences With Recurrent Neural Networks, 2013).

    >>> RMSpropGraves().lr, RMSpropGraves().momentum
    (0.0001, 0.9)
    """

    _rule = RMSpropGravesRule

    def __init__(self, lr: float = RMSpropGravesRule._defaults.lr,
                 alpha: float = RMSpropGravesRule._defaults.alpha,
                 momentum: float = RMSpropGravesRule._defaults.momentum,
                 eps: float = RMSpropGravesRule._defaults.eps) -> None:
        super().__init__(lr=lr, alpha=alpha, momentum=momentum, eps=eps)


class SMORMS3Rule(_Rule):
    """Simon Funk's SMORMS3 (states ``mem``, starting at 1, ``g`` and ``g2``).

    >>> SMORMS3Rule().hyperparam.eps
    1e-16
    """

    _defaults = _defaults(lr=0.001, eps=1e-16)
    _state_names = ('mem', 'g', 'g2')

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 lr: float | None = None, eps: float | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr, eps=eps)

    def init_state(self, param: Any) -> None:
        super().init_state(param)
        self.state['mem'] += 1

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        lr, eps = self.hyperparam.lr, self.hyperparam.eps
        mem, g, g2 = state['mem'], state['g'], state['g2']
        r = 1 / (mem + 1)
        g[...] = (1 - r) * g + r * grad
        g2[...] = (1 - r) * g2 + r * grad * grad
        x = g * g / (g2 + eps)
        data -= grad * xp.minimum(x, lr) / (xp.sqrt(g2) + eps)
        mem[...] = 1 + mem * (1 - x)


class SMORMS3(_Method):
    """SMORMS3 (squared mean over root mean squared, cubed).

    >>> SMORMS3().lr
    0.001
    """

    _rule = SMORMS3Rule

    def __init__(self, lr: float = SMORMS3Rule._defaults.lr,
                 eps: float = SMORMS3Rule._defaults.eps) -> None:
        super().__init__(lr=lr, eps=eps)
