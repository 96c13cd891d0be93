"""Connection links: :class:`Linear`, :class:`Convolution2D` and :class:`EmbedID`."""

from __future__ import annotations

import math
from typing import Any

from autograd_lab import functions as F
from autograd_lab import initializers
from autograd_lab.link import Link
from autograd_lab.parameter import Parameter
from autograd_lab.variable import as_array, as_variable


def _pair(x: Any) -> tuple:
    if hasattr(x, '__getitem__'):
        return x
    return x, x


def _parse_kwargs(kwargs: dict, *names_defaults: tuple, **errors: str) -> tuple:
    """Chainer's keyword parsing: known names with defaults, retired names raise ValueError."""
    for name, message in errors.items():
        if name in kwargs:
            raise ValueError(message)
    values = tuple(kwargs.pop(name, default) for name, default in names_defaults)
    if kwargs:
        raise TypeError('got unexpected keyword argument(s) '
                        f"{', '.join(repr(k) for k in kwargs)}")
    return values


class Linear(Link):
    """A fully connected layer: ``y = x W^T + b``.

    Args:
        in_size: input size, or None to take it from the first input
            (``x.shape[n_batch_axes:]`` flattened).  ``Linear(n)`` alone means
            ``out_size=n`` with a deferred input size.
        out_size: output size.
        nobias: no bias parameter (``b`` is None).
        initialW: initializer of ``W`` (shape ``(out_size, in_size)``); default
            :class:`~autograd_lab.initializers.LeCunNormal`.  An array or scalar is
            used as a constant.
        initial_bias: initializer of ``b``; default 0.

    >>> import numpy as np
    >>> layer = Linear(2, 3, initialW=1.0, initial_bias=0.5)
    >>> layer(np.array([[1.0, 2.0]], np.float32)).array
    array([[3.5, 3.5, 3.5]], dtype=float32)
    >>> str(layer)
    'Linear(in_size=2, out_size=3, nobias=False)'
    """

    def __init__(self, in_size: int | None, out_size: int | None = None,
                 nobias: bool = False, initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.in_size = in_size
        self.out_size = out_size
        with self.init_scope():
            self.W = Parameter(initializers._get_initializer(initialW))
            if in_size is not None:
                self._initialize_params(in_size)
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = 0
                self.b = Parameter(initializers._get_initializer(initial_bias), out_size)

    def _initialize_params(self, in_size: int) -> None:
        self.W.initialize((self.out_size, in_size))

    @classmethod
    def from_params(cls, W: Any, b: Any = None, nobias: bool = False) -> Linear:
        """A Linear whose parameters start as copies of ``W`` (and ``b``)."""
        out_size, in_size = W.shape
        if b is not None and out_size != b.size:
            raise ValueError('`out_size` does not match the size of `b`')
        return cls(in_size, out_size, nobias, initialW=as_array(W),
                   initial_bias=None if b is None else as_array(b))

    @property
    def printable_specs(self) -> Any:
        yield 'in_size', self.in_size
        yield 'out_size', self.out_size
        yield 'nobias', self.b is None

    def forward(self, x: Any, n_batch_axes: int = 1) -> Any:
        if self.W.array is None:
            self._initialize_params(math.prod(x.shape[n_batch_axes:]))
        if n_batch_axes == 1:
            return F.linear(x, self.W, self.b)
        return F.linear(x, self.W, self.b, n_batch_axes=n_batch_axes)


class Convolution2D(Link):
    """A 2-D convolution layer over ``(N, C, H, W)`` inputs.

    Args:
        in_channels: input channels, or None to take them from the first input.
            ``Convolution2D(out_channels, ksize)`` (two arguments) defers it too.
        out_channels: output channels.
        ksize: kernel size (int or pair).
        stride, pad: int or pair.
        nobias: no bias.
        initialW: initializer of ``W`` (``(out, in / groups, kh, kw)``), default LeCunNormal.
        initial_bias: initializer of ``b``, default 0.
        dilate, groups: keyword-only, int (pair for ``dilate``).

    >>> import numpy as np
    >>> conv = Convolution2D(None, 4, 3, pad=1)
    >>> conv(np.zeros((2, 3, 8, 8), np.float32)).shape, conv.W.shape
    ((2, 4, 8, 8), (4, 3, 3, 3))
    """

    def __init__(self, in_channels: int | None, out_channels: Any, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None, **kwargs: Any) -> None:
        super().__init__()
        dilate, groups = _parse_kwargs(
            kwargs, ('dilate', 1), ('groups', 1),
            deterministic="deterministic argument is not supported anymore. Use "
                          "chainer.using_config('cudnn_deterministic', value) context where "
                          'value is either `True` or `False`.')
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        self.ksize = ksize
        self.stride = _pair(stride)
        self.pad = _pair(pad)
        self.dilate = _pair(dilate)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.groups = int(groups)
        with self.init_scope():
            self.W = Parameter(initializers._get_initializer(initialW))
            if in_channels is not None:
                self._initialize_params(in_channels)
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = 0
                self.b = Parameter(initializers._get_initializer(initial_bias), out_channels)

    def _initialize_params(self, in_channels: int) -> None:
        kh, kw = _pair(self.ksize)
        if self.out_channels % self.groups != 0:
            raise ValueError('the number of output channels must be divisible by the number '
                             'of groups')
        if in_channels % self.groups != 0:
            raise ValueError('the number of input channels must be divisible by the number '
                             'of groups')
        self.W.initialize((self.out_channels, in_channels // self.groups, kh, kw))

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, **kwargs: Any) -> Convolution2D:
        """A Convolution2D whose parameters start as copies of ``W`` (and ``b``)."""
        dilate, groups = _parse_kwargs(kwargs, ('dilate', 1), ('groups', 1))
        out_channels, in_per_group, kh, kw = W.shape
        if b is not None and out_channels != b.size:
            raise ValueError('`out_channels` does not match the size of `b`')
        return cls(in_per_group * groups, out_channels, (kh, kw), stride, pad, nobias,
                   initialW=as_array(W), initial_bias=None if b is None else as_array(b),
                   dilate=dilate, groups=groups)

    @property
    def printable_specs(self) -> Any:
        yield 'in_channels', self.in_channels
        yield 'out_channels', self.out_channels
        yield 'ksize', self.ksize
        yield 'stride', self.stride
        yield 'pad', self.pad
        yield 'nobias', self.b is None
        yield 'dilate', self.dilate
        yield 'groups', self.groups

    def forward(self, x: Any) -> Any:
        x = as_variable(x)
        if self.W.array is None:
            self._initialize_params(x.shape[1])
        kwargs = {}
        if self.dilate != (1, 1):
            kwargs['dilate'] = self.dilate
        if self.groups != 1:
            kwargs['groups'] = self.groups
        return F.convolution_2d(x, self.W, self.b, self.stride, self.pad, **kwargs)


class EmbedID(Link):
    """A lookup table: integer ids ``x`` → rows of ``W`` (``(in_size, out_size)``).

    Args:
        in_size: vocabulary size.
        out_size: embedding size.
        initialW: initializer of ``W``, default ``Normal(1.0)``.
        ignore_label: an id whose output is zeros and which gets no gradient.

    >>> import numpy as np
    >>> embed = EmbedID(4, 2, initialW=np.arange(8, dtype=np.float32).reshape(4, 2))
    >>> embed(np.array([3, 0], np.int32)).array
    array([[6., 7.],
           [0., 1.]], dtype=float32)
    """

    ignore_label: int | None = None

    def __init__(self, in_size: int, out_size: int, initialW: Any = None,
                 ignore_label: int | None = None) -> None:
        super().__init__()
        self.ignore_label = ignore_label
        with self.init_scope():
            if initialW is None:
                initialW = initializers.Normal(1.0)
            self.W = Parameter(initialW, (in_size, out_size))

    @classmethod
    def from_params(cls, W: Any, ignore_label: int | None = None) -> EmbedID:
        """An EmbedID whose table starts as a copy of ``W``."""
        in_size, out_size = W.shape
        return cls(in_size, out_size, initialW=as_array(W), ignore_label=ignore_label)

    def forward(self, x: Any) -> Any:
        return F.embed_id(x, self.W, ignore_label=self.ignore_label)


__all__ = ['Convolution2D', 'EmbedID', 'Linear']
