"""Saving and loading models and optimizers (Chainer's ``chainer.serializers``).

``save_npz(file, obj)`` walks ``obj.serialize(serializer)`` and writes one NPZ
entry per value, keyed by its path (``'l1/W'``, ``'predictor/l1/b'``; for an
optimizer ``'t'``, ``'epoch'`` and ``'l1/W/m'``...).  ``load_npz(file, obj)``
walks the same structure and copies the stored arrays back in place,
initializing uninitialized parameters from the stored shapes.

>>> import io, numpy as np, autograd_lab.links as L
>>> src, dst = L.Linear(3, 2), L.Linear(3, 2)
>>> buf = io.BytesIO(); save_npz(buf, src); _ = buf.seek(0)
>>> load_npz(buf, dst)
>>> bool((dst.W.array == src.W.array).all())
True
"""

from __future__ import annotations

from typing import Any


class AbstractSerializer:
    """Visits an object hierarchy: ``s[key]`` is a child serializer, ``s(key, value)``
    saves or loads one value.

    >>> class Printer(Serializer):
    ...     def __init__(self, path=''):
    ...         self.path = path
    ...     def __getitem__(self, key):
    ...         return Printer(self.path + key + '/')
    ...     def __call__(self, key, value):
    ...         print(self.path + key, getattr(value, 'shape', value))
    ...         return value
    >>> import autograd_lab.links as L
    >>> Printer().save(L.Linear(3, 2))
    W (2, 3)
    b (2,)
    """

    def __getitem__(self, key: str) -> AbstractSerializer:
        raise NotImplementedError

    def __call__(self, key: str, value: Any) -> Any:
        raise NotImplementedError


class Serializer(AbstractSerializer):
    """Base class of serializers (writers); see :class:`AbstractSerializer` for an example.

    >>> issubclass(DictionarySerializer, Serializer)
    True
    """

    def save(self, obj: Any) -> None:
        """Serialize ``obj`` (``obj.serialize(self)``)."""
        obj.serialize(self)


class Deserializer(AbstractSerializer):
    """Base class of deserializers (readers); loading calls ``obj.serialize(self)``.

    >>> issubclass(NpzDeserializer, Deserializer)
    True
    """

    def load(self, obj: Any) -> None:
        """Deserialize into ``obj`` (``obj.serialize(self)``)."""
        obj.serialize(self)


from autograd_lab.serializers.npz import (  # noqa: E402
    DictionarySerializer, NpzDeserializer, load_npz, save_npz, serialize,
)

__all__ = ['AbstractSerializer', 'Deserializer', 'DictionarySerializer', 'NpzDeserializer',
           'Serializer', 'load_npz', 'save_npz', 'serialize']
