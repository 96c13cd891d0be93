"""Normalization links: :class:`BatchNormalization` and :class:`LayerNormalization`."""

from __future__ import annotations

import math
from typing import Any

import numpy

from autograd_lab import functions as F
from autograd_lab import initializers
from autograd_lab.configuration import config
from autograd_lab.link import Link
from autograd_lab.parameter import Parameter


class BatchNormalization(Link):
    """Batch normalization with learned scale ``gamma`` and shift ``beta``.

    In training mode (``config.train``) the batch statistics normalize the input
    and update the running averages ``avg_mean`` and ``avg_var`` (persistent
    values): ``avg = decay * avg + (1 - decay) * batch_stat`` (the variance
    unbiased).  With ``using_config('train', False)`` the running averages are
    used instead (``F.fixed_batch_normalization``).  ``finetune=True`` averages
    over all batches since :meth:`start_finetuning` (``decay = 1 - 1/N``).

    Args:
        size: the shape of ``gamma``/``beta``/statistics (int or tuple), or None
            with ``axis`` to take it from the first input.
        decay: decay rate of the running averages.
        eps: added to the variance.
        dtype: dtype of the parameters and statistics (default ``config.dtype``).
        use_gamma, use_beta: whether to learn the scale / shift.
        initial_gamma, initial_beta: initializers (default 1 and 0).
        axis: the axes to normalize over (default: all but axis 1).
        initial_avg_mean, initial_avg_var: initializers of the running averages.

    >>> import numpy as np, autograd_lab as chainer
    >>> bn = BatchNormalization(2)
    >>> x = np.array([[0., 10.], [2., 30.]], np.float32)
    >>> bn(x).array.round(4)
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    >>> bn.avg_mean, bn.avg_var
    (array([0.1, 2. ], dtype=float32), array([ 1.1, 20.9], dtype=float32))
    >>> with chainer.using_config('train', False):
    ...     bn(x).array.round(2)
    array([[-0.1 ,  1.75],
           [ 1.81,  6.12]], dtype=float32)
    """

    gamma: Parameter | None = None
    beta: Parameter | None = None

    def __init__(self, size: Any = None, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = None, use_gamma: bool = True, use_beta: bool = True,
                 initial_gamma: Any = None, initial_beta: Any = None, axis: Any = None,
                 initial_avg_mean: Any = None, initial_avg_var: Any = None) -> None:
        super().__init__()
        if size is None and axis is None:
            raise RuntimeError('size or axis is required')
        self._initial_avg_mean = initial_avg_mean
        self._initial_avg_var = initial_avg_var
        self.N = 0
        self.register_persistent('N')
        self.decay = decay
        self.eps = eps
        if isinstance(axis, int):
            axis = (axis,)
        self.axis = axis
        self._highprec_dtype = numpy.dtype(config.dtype if dtype is None else dtype)
        with self.init_scope():
            if use_gamma:
                init = initializers._get_initializer(1 if initial_gamma is None
                                                     else initial_gamma)
                init.dtype = self._highprec_dtype
                self.gamma = Parameter(init)
            if use_beta:
                init = initializers._get_initializer(0 if initial_beta is None else initial_beta)
                init.dtype = self._highprec_dtype
                self.beta = Parameter(init)
        if size is None:
            self.avg_mean = None
            self.avg_var = None
        else:
            self._initialize_params(size)
        self.register_persistent('avg_mean')
        self.register_persistent('avg_var')

    def _initialize_params(self, shape: Any) -> None:
        self.avg_mean = self._init_array(self._initial_avg_mean, 0, shape)
        self._initial_avg_mean = None
        self.avg_var = self._init_array(self._initial_avg_var, 1, shape)
        self._initial_avg_var = None
        if self.gamma is not None:
            self.gamma.initialize(shape)
        if self.beta is not None:
            self.beta.initialize(shape)

    def _init_array(self, initializer: Any, default: float, shape: Any) -> Any:
        init = initializers._get_initializer(default if initializer is None else initializer)
        return initializers.generate_array(init, shape, self.xp, dtype=self._highprec_dtype,
                                           device=self.device)

    @property
    def printable_specs(self) -> Any:
        yield 'size', self.avg_mean.shape[0]
        yield 'decay', self.decay
        yield 'eps', self.eps
        yield 'dtype', self.avg_mean.dtype
        yield 'use_gamma', self.gamma is not None
        yield 'use_beta', self.beta is not None

    def forward(self, x: Any, **kwargs: Any) -> Any:
        if 'test' in kwargs:
            raise ValueError('test argument is not supported anymore. Use '
                             "chainer.using_config('train', False)")
        finetune = kwargs.pop('finetune', False)
        if kwargs:
            raise TypeError('got unexpected keyword argument(s) '
                            f"{', '.join(repr(k) for k in kwargs)}")
        if self.avg_mean is None:
            self._initialize_params(tuple(d for i, d in enumerate(x.shape)
                                          if i not in self.axis))
        xp = self.xp
        gamma = self.gamma
        if gamma is None:
            gamma = xp.ones(self.avg_mean.shape, dtype=self._highprec_dtype)
        beta = self.beta
        if beta is None:
            beta = xp.zeros(self.avg_mean.shape, dtype=self._highprec_dtype)
        axis_kw = {} if self.axis is None else {'axis': self.axis}
        if config.train:
            if finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            return F.batch_normalization(x, gamma, beta, eps=self.eps,
                                         running_mean=self.avg_mean, running_var=self.avg_var,
                                         decay=decay, **axis_kw)
        return F.fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var,
                                           self.eps, **axis_kw)

    def start_finetuning(self) -> None:
        """Reset the batch counter used by ``finetune=True``."""
        self.N = 0


class LayerNormalization(Link):
    """Layer normalization over the features of each sample, with ``gamma`` and ``beta``.

    Args:
        size: the feature size, or None to take ``prod(x.shape[1:])`` from the
            first input.
        eps: added to the variance.
        initial_gamma, initial_beta: initializers (default 1 and 0).

    >>> import numpy as np
    >>> ln = LayerNormalization()
    >>> ln(np.array([[1., 3.]], np.float32)).array
    array([[-0.9999995,  0.9999995]], dtype=float32)
    """

    def __init__(self, size: int | None = None, eps: float = 1e-6,
                 initial_gamma: Any = None, initial_beta: Any = None) -> None:
        super().__init__()
        with self.init_scope():
            self.gamma = Parameter(1 if initial_gamma is None else initial_gamma)
            self.beta = Parameter(0 if initial_beta is None else initial_beta)
            self.eps = eps
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: Any) -> None:
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x: Any) -> Any:
        if self.gamma.array is None:
            self._initialize_params(math.prod(x.shape[1:]))
        return F.layer_normalization(x, self.gamma, self.beta, self.eps)


__all__ = ['BatchNormalization', 'LayerNormalization']
