"""Per-parameter optimizer hooks that reshape each gradient before the update.

- ``GradientNoise(eta)``: adds Gaussian noise of variance ``eta / (1 + t) ** 0.55``
  (Neelakantan et al.), or whatever ``noise_func(xp, shape, dtype, hook, rule)`` draws;
- ``GradientHardClipping(lower_bound, upper_bound)``: clips every element into the range;
- ``GradientLARS(threshold=0.01, weight_decay=0.0, eps=1e-9)``: layer-wise adaptive rate
  scaling (You et al.): ``g = (g + weight_decay * p) * rate`` with
  ``rate = |p| / (eps + |g| + weight_decay |p|)`` where ``|p| > threshold``, else 1.

>>> import numpy as np, autograd_lab as chainer
>>> p = chainer.Parameter(np.array([1.0], np.float32)); p.grad = np.array([5.0], np.float32)
>>> GradientHardClipping(-1.0, 2.0)(None, p); p.grad
array([2.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from autograd_lab import backend


def exponential_decay_noise(xp: Any, shape: tuple, dtype: Any, hook: GradientNoise,
                            opt: Any) -> Any:
    """Gaussian noise with standard deviation ``sqrt(eta / (1 + t) ** 0.55)``."""
    std = numpy.sqrt(hook.eta / numpy.power(1 + opt.t, 0.55))
    return xp.random.normal(0, std, shape).astype(dtype)


class GradientNoise:
    """Add noise drawn by ``noise_func`` to each gradient (see the module docstring).

    >>> import numpy as np, autograd_lab as chainer
    >>> p = chainer.Parameter(np.zeros(3, np.float32)); p.grad = np.zeros(3, np.float32)
    >>> hook = GradientNoise(1.0, noise_func=lambda xp, shape, dtype, hook, rule:
    ...                      xp.full(shape, hook.eta, dtype))
    >>> hook(None, p); p.grad
    array([1., 1., 1.], dtype=float32)
    """

    name = 'GradientNoise'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, eta: float,
                 noise_func: Callable[..., Any] = exponential_decay_noise) -> None:
        self.eta = eta
        self.noise_func = noise_func

    def __call__(self, rule: Any, param: Any) -> None:
        g = param.grad
        if g is None:
            return
        xp = backend.get_array_module(g)
        g += self.noise_func(xp, g.shape, g.dtype, self, rule)


class GradientHardClipping:
    """Clip every gradient element into ``[lower_bound, upper_bound]``, in place."""

    name = 'GradientHardClipping'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, lower_bound: float, upper_bound: float) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __call__(self, rule: Any, param: Any) -> None:
        g = param.grad
        if g is None:
            return
        backend.get_array_module(g).clip(g, self.lower_bound, self.upper_bound, out=g)


class GradientLARS:
    """Layer-wise adaptive rate scaling of each gradient (see the module docstring).

    >>> import numpy as np, autograd_lab as chainer
    >>> p = chainer.Parameter(np.array([3.0, 4.0], np.float32))
    >>> p.grad = np.array([0.0, 10.0], np.float32)
    >>> GradientLARS(eps=0.0)(None, p); p.grad   # rate = |p| / |g| = 5 / 10
    array([0., 5.], dtype=float32)
    """

    name = 'GradientLARS'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, threshold: float = 0.01, weight_decay: float = 0.0,
                 eps: float = 1e-9) -> None:
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def __call__(self, rule: Any, param: Any) -> None:
        p, g = param.array, param.grad
        if p is None or g is None:
            return
        xp = backend.get_array_module(p)
        p_norm = xp.linalg.norm(p)
        g_norm = xp.linalg.norm(g)
        local_rate = p_norm / (self.eps + g_norm + self.weight_decay * p_norm)
        rate = xp.where(p_norm > self.threshold, local_rate, 1.0)
        g += self.weight_decay * p
        g *= rate
