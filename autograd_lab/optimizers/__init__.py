"""Gradient-based optimizers (Chainer's ``chainer.optimizers``, usually imported as ``O``).

Each optimizer is a :class:`~autograd_lab.GradientMethod` whose update rule is
written once for any array module (NumPy or CuPy).  Defaults and formulas are
Chainer 7.8.1's:

========================  ==========================================================
``SGD(lr=0.01)``          ``p -= lr * g``
``MomentumSGD``           ``v = momentum * v - lr * g; p += v``
``NesterovAG``            ``v = momentum * v - lr * g;
                          p += momentum² v - (1 + momentum) lr g``
``AdaGrad(lr=0.001)``     ``h += g²; p -= lr g / (sqrt(h) + eps)``
``RMSprop(lr=0.01)``      ``ms = alpha ms + (1 - alpha) g²; p -= lr g / (sqrt(ms) + eps)``
``Adam(alpha=0.001)``     ``m += (1-β1)(g-m); v += (1-β2)(g²-v);
                          p -= eta (alpha_t m / (sqrt(v̂) + eps) + weight_decay_rate p)``
========================  ==========================================================

with Adam's bias-corrected ``alpha_t = alpha sqrt(1 - β2^t) / (1 - β1^t)`` and
``v̂ = v`` (or its running maximum with ``amsgrad=True``).

>>> import numpy as np, autograd_lab as chainer, autograd_lab.optimizers as O
>>> link = chainer.Link()
>>> with link.init_scope():
...     link.w = chainer.Parameter(np.array([1.0], np.float32))
>>> opt = O.MomentumSGD(lr=0.1, momentum=0.5).setup(link)
>>> for _ in range(2):
...     link.w.grad = np.array([1.0], np.float32)
...     opt.update()
>>> link.w.array   # v1 = -0.1, v2 = 0.5 * v1 - 0.1 = -0.15
array([0.75], dtype=float32)
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.optimizer import GradientMethod, Hyperparameter, HyperparameterProxy, UpdateRule


def _defaults(**values: Any) -> Hyperparameter:
    hp = Hyperparameter()
    for k, v in values.items():
        setattr(hp, k, v)
    return hp


class _Rule(UpdateRule):
    """An elementwise rule with one xp-generic implementation for CPU and GPU."""

    is_elementwise = True
    _defaults: Hyperparameter = Hyperparameter()
    _state_names: tuple = ()

    def __init__(self, parent_hyperparam: Hyperparameter | None = None, **hyperparams: Any
                 ) -> None:
        super().__init__(parent_hyperparam or self._defaults)
        for name, value in hyperparams.items():
            if value is not None:
                setattr(self.hyperparam, name, value)

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        for name in self._state_names:
            self.state[name] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        data = param.array
        state = self._state if self._state is not None else {}
        if type(data) is numpy.ndarray and data.nbytes > 2 * _BLOCK_BYTES:
            arrays = (data, grad, *state.values())
            if all(type(a) is numpy.ndarray and a.shape == data.shape and a.flags.c_contiguous
                   for a in arrays):
                self._step_blocked(data, grad, state)
                return
        self._step(data, grad, state, backend.get_array_module(grad))

    update_core_gpu = update_core_cpu

    def _step_blocked(self, data: Any, grad: Any, state: dict) -> None:
        """Run :meth:`_step` on consecutive blocks of the flattened arrays.

        The rule is elementwise, so the result is the same element by element, but
        each block's temporaries stay in the CPU cache: a large weight is read and
        written once instead of once per temporary.
        """
        flat_data, flat_grad = data.reshape(-1), grad.reshape(-1)
        flat_state = {k: v.reshape(-1) for k, v in state.items()}
        n = flat_data.size
        block = max(1, _BLOCK_BYTES // data.itemsize)
        for i in range(0, n, block):
            j = i + block
            self._step(flat_data[i:j], flat_grad[i:j],
                       {k: v[i:j] for k, v in flat_state.items()}, numpy)

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        """Update ``data`` in place from ``grad`` and the ``state`` arrays (same shapes)."""
        raise NotImplementedError


# Block size of the CPU updates: small enough for a block's arrays and temporaries to
# stay in L2, large enough to keep the per-block Python cost negligible.
_BLOCK_BYTES = 1 << 17


def _check_eps(hp: Any, dtype: Any) -> None:
    if hp.eps != 0 and numpy.dtype(dtype).type(hp.eps) == 0:
        raise ValueError('eps of RMSprop/Adam optimizer is too small for '
                         f'{numpy.dtype(dtype).name} ({hp.eps})')


class _Method(GradientMethod):
    """A gradient method whose every parameter gets a ``_rule`` sharing its hyperparameters.

    Subclasses keep Chainer's explicit constructor signatures and pass them on as keywords,
    in Chainer's order (the order the hyperparameters are listed and serialized in).  As in
    Chainer, each hyperparameter of the rule (its ``_defaults``) is also an attribute of the
    optimizer (a :class:`HyperparameterProxy`), added here once for all optimizers.
    """

    _rule: type[_Rule]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if '_rule' in cls.__dict__:
            for name in cls._rule._defaults.get_dict():
                setattr(cls, name, HyperparameterProxy(name))

    def __init__(self, **hyperparams: Any) -> None:
        super().__init__()
        for name, value in hyperparams.items():
            setattr(self.hyperparam, name, value)

    def create_update_rule(self) -> _Rule:
        return self._rule(self.hyperparam)


# ---- SGD ------------------------------------------------------------------------------

class SGDRule(_Rule):
    """``p -= lr * g``.

    >>> SGDRule(lr=0.1).hyperparam.lr
    0.1
    """

    _defaults = _defaults(lr=0.01)

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 lr: float | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr)

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        data -= self.hyperparam.lr * grad


class SGD(_Method):
    """Vanilla stochastic gradient descent.

    >>> opt = SGD(lr=0.5); opt.lr
    0.5
    """

    _rule = SGDRule

    def __init__(self, lr: float = SGDRule._defaults.lr) -> None:
        super().__init__(lr=lr)


# ---- momentum -------------------------------------------------------------------------

class _MomentumRule(_Rule):
    """A rule with a learning rate, a momentum and a velocity state ``v``."""

    _defaults = _defaults(lr=0.01, momentum=0.9)
    _state_names = ('v',)

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 lr: float | None = None, momentum: float | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr, momentum=momentum)


class _MomentumMethod(_Method):
    """The optimizer of a :class:`_MomentumRule`: ``lr`` and ``momentum``."""

    _rule: type[_MomentumRule]

    def __init__(self, lr: float = _MomentumRule._defaults.lr,
                 momentum: float = _MomentumRule._defaults.momentum) -> None:
        super().__init__(lr=lr, momentum=momentum)


class MomentumSGDRule(_MomentumRule):
    """``v = momentum * v - lr * g; p += v`` (state ``v``).

    >>> MomentumSGDRule().hyperparam.momentum
    0.9
    """

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        v = state['v']
        v *= self.hyperparam.momentum
        v -= self.hyperparam.lr * grad
        data += v


class MomentumSGD(_MomentumMethod):
    """SGD with classical momentum.

    >>> MomentumSGD().momentum
    0.9
    """

    _rule = MomentumSGDRule


class NesterovAGRule(_MomentumRule):
    """``v = momentum v - lr g; p += momentum² v - (1 + momentum) lr g`` (state ``v``).

    >>> NesterovAGRule(momentum=0.5).hyperparam.momentum
    0.5
    """

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        lr, momentum = self.hyperparam.lr, self.hyperparam.momentum
        v = state['v']
        v *= momentum
        v -= lr * grad
        data += momentum * momentum * v
        data -= (1 + momentum) * lr * grad


class NesterovAG(_MomentumMethod):
    """Nesterov's accelerated gradient.

    >>> NesterovAG(lr=0.1).lr
    0.1
    """

    _rule = NesterovAGRule


# ---- adaptive -------------------------------------------------------------------------

class AdaGradRule(_Rule):
    """``h += g²; p -= lr g / (sqrt(h) + eps)`` (state ``h``).

    >>> AdaGradRule().hyperparam.eps
    1e-08
    """

    _defaults = _defaults(lr=0.001, eps=1e-8)
    _state_names = ('h',)

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 lr: float | None = None, eps: float | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr, eps=eps)

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        h = state['h']
        h += grad * grad
        data -= self.hyperparam.lr * grad / (xp.sqrt(h) + self.hyperparam.eps)


class AdaGrad(_Method):
    """AdaGrad.

    >>> AdaGrad().lr, AdaGrad().eps
    (0.001, 1e-08)
    """

    _rule = AdaGradRule

    def __init__(self, lr: float = AdaGradRule._defaults.lr,
                 eps: float = AdaGradRule._defaults.eps) -> None:
        super().__init__(lr=lr, eps=eps)


class RMSpropRule(_Rule):
    """``ms = alpha ms + (1 - alpha) g²; p -= lr g / (sqrt(ms) + eps)`` (state ``ms``);
    with ``eps_inside_sqrt`` the denominator is ``sqrt(ms + eps)``.

    >>> RMSpropRule().hyperparam.alpha
    0.99
    """

    _defaults = _defaults(lr=0.01, alpha=0.99, eps=1e-8, eps_inside_sqrt=False)
    _state_names = ('ms',)

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 lr: float | None = None, alpha: float | None = None,
                 eps: float | None = None, eps_inside_sqrt: bool | None = None) -> None:
        super().__init__(parent_hyperparam, lr=lr, alpha=alpha, eps=eps,
                         eps_inside_sqrt=eps_inside_sqrt)

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        hp = self.hyperparam
        _check_eps(hp, grad.dtype)
        eps = grad.dtype.type(hp.eps)
        ms = state['ms']
        ms *= hp.alpha
        ms += (1 - hp.alpha) * grad * grad
        denom = xp.sqrt(ms + eps) if hp.eps_inside_sqrt else xp.sqrt(ms) + eps
        data -= hp.lr * grad / denom


class RMSprop(_Method):
    """RMSprop (Hinton's, without momentum).

    >>> RMSprop().alpha
    0.99
    """

    _rule = RMSpropRule

    def __init__(self, lr: float = RMSpropRule._defaults.lr,
                 alpha: float = RMSpropRule._defaults.alpha,
                 eps: float = RMSpropRule._defaults.eps,
                 eps_inside_sqrt: bool = RMSpropRule._defaults.eps_inside_sqrt) -> None:
        super().__init__(lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=eps_inside_sqrt)


# ---- Adam family ----------------------------------------------------------------------

def _learning_rate(hp: Any, t: int) -> float:
    if t == 0:
        raise RuntimeError("Can't determine the current learning rate of Adam optimizer "
                           'because the number of updates (t) is 0. Call update() first.')
    fix1 = 1.0 - math.pow(hp.beta1, t)
    fix2 = 1.0 - math.pow(hp.beta2, t)
    return hp.alpha * math.sqrt(fix2) / fix1


class _AdamStepSize:
    """``alpha_t`` and its deprecated alias ``lr``, for AdamRule and Adam alike: each
    computes them from its own ``hyperparam`` and update count ``t``."""

    hyperparam: Hyperparameter
    t: int
    _lr_owner = ''  # the class named by the deprecation message, as in Chainer

    @property
    def alpha_t(self) -> float:
        """``alpha * sqrt(1 - beta2**t) / (1 - beta1**t)``, the bias-corrected step size."""
        return _learning_rate(self.hyperparam, self.t)

    @property
    def lr(self) -> float:
        owner = self._lr_owner
        warnings.warn(f'{owner}.lr has been renamed to AdamRule.alpha_t. Use of {owner}.lr is '
                      'deprecated in Chainer v6.', DeprecationWarning, stacklevel=2)
        return self.alpha_t


class AdamRule(_AdamStepSize, _Rule):
    """Adam / AdamW / AMSGrad / AdaBound update (states ``m``, ``v`` and, for amsgrad, ``vhat``).

    ``p -= eta * (step * m + weight_decay_rate * p)`` with
    ``step = alpha_t / (sqrt(vhat) + eps)`` (clipped to the AdaBound bounds when
    ``adabound``).  float16 parameters compute in float32.

    >>> import numpy as np, autograd_lab as chainer
    >>> p = chainer.Parameter(np.array([1.0], np.float32)); p.grad = np.array([0.5], np.float32)
    >>> p.update_rule = AdamRule(alpha=0.1); p.update()
    >>> p.array.round(5), round(p.update_rule.alpha_t, 4)  # the first step moves by ~alpha
    (array([0.9], dtype=float32), 0.0316)
    """

    _defaults = _defaults(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0,
                          weight_decay_rate=0, amsgrad=False, adabound=False, final_lr=0.1,
                          gamma=1e-3)
    _lr_owner = 'AdamRule'

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 alpha: float | None = None, beta1: float | None = None,
                 beta2: float | None = None, eps: float | None = None,
                 eta: float | None = None, weight_decay_rate: float | None = None,
                 amsgrad: bool | None = None, adabound: bool | None = None,
                 final_lr: float | None = None, gamma: float | None = None) -> None:
        super().__init__(parent_hyperparam, alpha=alpha, beta1=beta1, beta2=beta2, eps=eps,
                         eta=eta, weight_decay_rate=weight_decay_rate, amsgrad=amsgrad,
                         adabound=adabound, final_lr=final_lr, gamma=gamma)
        if self.hyperparam.adabound:
            self.initial_alpha = self.hyperparam.alpha

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        self.state['m'] = xp.zeros_like(param.array)
        self.state['v'] = xp.zeros_like(param.array)
        if self.hyperparam.amsgrad:
            self.state['vhat'] = xp.zeros_like(param.array)

    def _step(self, data: Any, grad: Any, state: dict, xp: Any) -> None:
        hp = self.hyperparam
        dtype = numpy.float32 if data.dtype == numpy.float16 else data.dtype
        _check_eps(hp, dtype)
        grad = grad.astype(dtype, copy=False)
        m, v = state['m'], state['v']
        m += (1.0 - hp.beta1) * (grad - m)
        v += (1.0 - hp.beta2) * (grad * grad - v)
        if hp.amsgrad:
            vhat = state['vhat']
            xp.maximum(vhat, v, out=vhat)
        else:
            vhat = v
        vhat = vhat.astype(dtype, copy=False)
        step = self.alpha_t / (xp.sqrt(vhat) + hp.eps)
        if hp.adabound:
            lower, upper = self.bounds
            step = xp.clip(step, lower, upper)
        decay = 1.0 - hp.eta * hp.weight_decay_rate
        if decay == 1.0:
            data += -hp.eta * (step * m)
        else:
            data[...] = decay * data + -hp.eta * (step * m)

    @property
    def bounds(self) -> tuple[float, float]:
        """AdaBound's ``(lower, upper)`` step bounds at this rule's ``t``."""
        if self.t == 0:
            raise RuntimeError("Can't determine the bounds of AdaBound optimizer because the "
                               'update steps have not been started.')
        hp = self.hyperparam
        final_lr = hp.final_lr * hp.alpha / self.initial_alpha
        lower = final_lr * (1.0 - 1.0 / (hp.gamma * self.t + 1))
        upper = final_lr * (1.0 + 1.0 / (hp.gamma * self.t))
        return lower, upper


_ADAM = AdamRule._defaults


class Adam(_AdamStepSize, _Method):
    """Adam, with decoupled weight decay (``eta``, ``weight_decay_rate``: AdamW) and the
    ``amsgrad`` / ``adabound`` variants.

    >>> opt = Adam(alpha=0.01); opt.t = 1
    >>> round(opt.alpha_t, 6)   # 0.01 * sqrt(1 - 0.999) / (1 - 0.9)
    0.003162
    """

    _rule = AdamRule
    _lr_owner = 'Adam'

    def __init__(self, alpha: float = _ADAM.alpha, beta1: float = _ADAM.beta1,
                 beta2: float = _ADAM.beta2, eps: float = _ADAM.eps, eta: float = _ADAM.eta,
                 weight_decay_rate: float = _ADAM.weight_decay_rate,
                 amsgrad: bool = _ADAM.amsgrad, adabound: bool = _ADAM.adabound,
                 final_lr: float = _ADAM.final_lr, gamma: float = _ADAM.gamma) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         weight_decay_rate=weight_decay_rate, amsgrad=amsgrad,
                         adabound=adabound, final_lr=final_lr, gamma=gamma)


class AdamW(Adam):
    """Adam with decoupled weight decay (``eta``, ``weight_decay_rate``).

    >>> AdamW(weight_decay_rate=0.01).weight_decay_rate
    0.01
    """

    def __init__(self, alpha: float = _ADAM.alpha, beta1: float = _ADAM.beta1,
                 beta2: float = _ADAM.beta2, eps: float = _ADAM.eps, eta: float = _ADAM.eta,
                 weight_decay_rate: float = _ADAM.weight_decay_rate) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         weight_decay_rate=weight_decay_rate)


class AMSGrad(Adam):
    """Adam with ``amsgrad=True`` (the running maximum of ``v``).

    >>> AMSGrad().amsgrad
    True
    """

    def __init__(self, alpha: float = _ADAM.alpha, beta1: float = _ADAM.beta1,
                 beta2: float = _ADAM.beta2, eps: float = _ADAM.eps,
                 eta: float = _ADAM.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, amsgrad=True)


class _Bounded(Adam):
    """AdaBound's constructor (Chainer's argument order), shared by AdaBound and AMSBound,
    which differ only in ``amsgrad``."""

    _amsgrad = False

    def __init__(self, alpha: float = _ADAM.alpha, beta1: float = _ADAM.beta1,
                 beta2: float = _ADAM.beta2, final_lr: float = _ADAM.final_lr,
                 gamma: float = _ADAM.gamma, eps: float = _ADAM.eps,
                 eta: float = _ADAM.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=self._amsgrad, adabound=True, final_lr=final_lr, gamma=gamma)


class AdaBound(_Bounded):
    """Adam with ``adabound=True`` (step clipped into bounds that tighten towards SGD).

    >>> AdaBound().adabound, AdaBound().final_lr
    (True, 0.1)
    """


class AMSBound(_Bounded):
    """Adam with both ``amsgrad`` and ``adabound``.

    >>> opt = AMSBound(); opt.amsgrad, opt.adabound
    (True, True)
    """

    _amsgrad = True


from autograd_lab.optimizers.variants import (  # noqa: E402
    MSVAG, SMORMS3, AdaDelta, AdaDeltaRule, CorrectedMomentumSGD, CorrectedMomentumSGDRule,
    MSVAGRule, RMSpropGraves, RMSpropGravesRule, SMORMS3Rule,
)

__all__ = [
    'MSVAG',
    'SGD',
    'SMORMS3',
    'AMSBound',
    'AMSGrad',
    'AdaBound',
    'AdaDelta',
    'AdaDeltaRule',
    'AdaGrad',
    'AdaGradRule',
    'Adam',
    'AdamRule',
    'AdamW',
    'CorrectedMomentumSGD',
    'CorrectedMomentumSGDRule',
    'MSVAGRule',
    'MomentumSGD',
    'MomentumSGDRule',
    'NesterovAG',
    'NesterovAGRule',
    'RMSprop',
    'RMSpropGraves',
    'RMSpropGravesRule',
    'RMSpropRule',
    'SGDRule',
    'SMORMS3Rule',
]

# As in Chainer, this namespace holds optimizers only: code that collects every Optimizer
# subclass it finds here (Chainer's own tests do) must not meet the shared bases.
del GradientMethod, _Method, _MomentumMethod, _Bounded
