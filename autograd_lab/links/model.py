"""Model wrappers: :class:`Classifier`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autograd_lab import functions as F
from autograd_lab.link import Chain, Link


class Classifier(Chain):
    """Wraps a predictor: ``forward(*args, t)`` returns ``lossfun(predictor(*args), t)``.

    After each call, ``y`` holds the prediction, ``loss`` the loss and (when
    ``compute_accuracy``) ``accuracy`` the result of ``accfun(y, t)``.

    Args:
        predictor: the link computing the prediction (registered as ``predictor``).
        lossfun: default ``F.softmax_cross_entropy``.
        accfun: default ``F.accuracy``.
        label_key: which argument is the label: a position (default -1, the
            last) or a keyword name.

    >>> import numpy as np, autograd_lab.links as L
    >>> clf = Classifier(L.Linear(2, 3, initialW=0.0))
    >>> loss = clf(np.ones((4, 2), np.float32), np.array([0, 1, 2, 0], np.int32))
    >>> round(float(loss.array), 4), float(clf.accuracy.array)   # uniform scores: log 3
    (1.0986, 0.5)
    >>> [name for name, _ in clf.namedparams()]
    ['/predictor/W', '/predictor/b']
    """

    compute_accuracy = True

    def __init__(self, predictor: Link, lossfun: Callable | None = None,
                 accfun: Callable | None = None, label_key: Any = -1) -> None:
        if not isinstance(label_key, (int, str)):
            raise TypeError(f'label_key must be int or str, but is {type(label_key)}')
        super().__init__()
        self.lossfun = F.softmax_cross_entropy if lossfun is None else lossfun
        self.accfun = F.accuracy if accfun is None else accfun
        self.y = None
        self.loss = None
        self.accuracy = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        if isinstance(self.label_key, int):
            if not -len(args) <= self.label_key < len(args):
                raise ValueError(f'Label key {self.label_key} is out of bounds')
            t = args[self.label_key]
            if self.label_key == -1:
                args = args[:-1]
            else:
                args = args[:self.label_key] + args[self.label_key + 1:]
        else:
            if self.label_key not in kwargs:
                raise ValueError(f'Label key "{self.label_key}" is not found')
            t = kwargs.pop(self.label_key)
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
        return self.loss


__all__ = ['Classifier']
