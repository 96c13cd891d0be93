"""The NPZ (``numpy.savez``) serializer and deserializer.

>>> import io, autograd_lab.optimizers as O, autograd_lab.links as L
>>> model = L.Linear(2, 2); opt = O.SGD().setup(model); opt.t = 7
>>> sorted(serialize(opt))
['W/t', 'b/t', 'epoch', 't']
"""

from __future__ import annotations

import os
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.serializers import Deserializer, Serializer


class DictionarySerializer(Serializer):
    """Collects every value into a flat dict ``{path: ndarray}`` (``target``).

    ``None`` is stored as a 0-dim object array, as Chainer does.

    >>> import autograd_lab.links as L
    >>> s = DictionarySerializer(); s.save(L.Linear(3, 2))
    >>> sorted((k, v.shape) for k, v in s.target.items())
    [('W', (2, 3)), ('b', (2,))]
    """

    def __init__(self, target: dict | None = None, path: str = '') -> None:
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key: str) -> DictionarySerializer:
        key = key.strip('/')
        return DictionarySerializer(self.target, self.path + key + '/')

    def __call__(self, key: str, value: Any) -> Any:
        key = key.lstrip('/')
        self.target[self.path + key] = (backend.CPU.send(value) if backend.is_array(value)
                                        else numpy.asarray(value))
        return value


def serialize(obj: Any) -> dict:
    """``obj`` serialized into a flat ``{path: ndarray}`` dictionary.

    >>> import autograd_lab as chainer, autograd_lab.links as L
    >>> sorted(serialize(chainer.Chain(fc=L.Linear(2, 2))))
    ['fc/W', 'fc/b']
    """
    s = DictionarySerializer()
    s.save(obj)
    return s.target


def save_npz(file: Any, obj: Any, compression: bool = True) -> None:
    """Save ``obj`` (a Link, an Optimizer, or an already serialized dict) to ``file``.

    Args:
        file: a path or a writable binary file object.
        obj: the object to save.
        compression: use ``numpy.savez_compressed`` (True) or ``numpy.savez``.

    >>> import io, numpy as np, autograd_lab.links as L
    >>> buf = io.BytesIO(); save_npz(buf, L.Linear(3, 2)); _ = buf.seek(0)
    >>> sorted(np.load(buf).files)
    ['W', 'b']
    """
    if isinstance(file, (str, os.PathLike)):
        with open(file, 'wb') as f:
            save_npz(f, obj, compression)
        return
    target = obj if isinstance(obj, dict) else serialize(obj)
    if compression:
        numpy.savez_compressed(file, **target)
    else:
        numpy.savez(file, **target)


class NpzDeserializer(Deserializer):
    """Reads values back from a loaded NPZ archive.

    Args:
        npz: the mapping returned by ``numpy.load``.
        path: the path in the archive this deserializer reads under.
        strict: raise ``KeyError`` for a missing entry (else keep the value).
        ignore_names: a name, a predicate, or a list of them, for entries to skip.

    >>> import io, numpy as np, autograd_lab.links as L
    >>> buf = io.BytesIO(); save_npz(buf, L.Linear(3, 2, initial_bias=1.0)); _ = buf.seek(0)
    >>> target = L.Linear(3, 2)
    >>> with np.load(buf) as npz:
    ...     NpzDeserializer(npz, ignore_names='W').load(target)
    >>> target.b.array
    array([1., 1.], dtype=float32)
    """

    def __init__(self, npz: Any, path: str = '', strict: bool = True,
                 ignore_names: Any = None) -> None:
        self.npz = npz
        self.path = path
        self.strict = strict
        self.ignore_names = [] if ignore_names is None else ignore_names

    def __getitem__(self, key: str) -> NpzDeserializer:
        key = key.strip('/')
        return NpzDeserializer(self.npz, self.path + key + '/', strict=self.strict,
                               ignore_names=self.ignore_names)

    def _ignored(self, key: str) -> bool:
        names = self.ignore_names
        if not isinstance(names, (tuple, list)):
            names = (names,)
        for name in names:
            if isinstance(name, str):
                if key == name:
                    return True
            elif callable(name):
                if name(key):
                    return True
            else:
                raise ValueError('ignore_names needs to be a callable, string or list of them.')
        return False

    def __call__(self, key: str, value: Any) -> Any:
        key = self.path + key.lstrip('/')
        if not self.strict and key not in self.npz:
            return value
        if self._ignored(key):
            return value
        dataset = self.npz[key]
        if dataset.dtype == object and dataset.shape == () and dataset[()] is None:
            return None
        if value is None:
            return dataset
        if backend.is_array(value):
            backend.copyto(value, dataset)
            return value
        value_type = type(value)
        if (issubclass(dataset.dtype.type, numpy.number)
                and not (issubclass(dataset.dtype.type, numpy.integer) and value_type is int)
                and not numpy.can_cast(dataset.dtype, value_type, casting='safe')):
            raise TypeError(f'Cannot safely deserialize from numpy array with '
                            f'dtype={dataset.dtype} into a variable of type {value_type}.')
        return value_type(dataset)


def load_npz(file: Any, obj: Any, path: str = '', strict: bool = True,
             ignore_names: Any = None) -> None:
    """Load ``obj`` (a Link or an Optimizer set up on the same structure) from ``file``.

    Args:
        file: a path or a readable binary file object.
        obj: the object to fill in place.
        path: read only the entries under this path (e.g. ``'updater/model:main/'``).
        strict: raise ``KeyError`` when an expected entry is missing.
        ignore_names: entry names (or predicates) to skip.

    >>> import io, autograd_lab.links as L
    >>> src = L.Linear(3, 2); buf = io.BytesIO(); save_npz(buf, src); _ = buf.seek(0)
    >>> lazy = L.Linear(2)                 # W uninitialized: its shape comes from the file
    >>> load_npz(buf, lazy); lazy.W.shape
    (2, 3)
    """
    with numpy.load(file, allow_pickle=True) as f:
        NpzDeserializer(f, path=path, strict=strict, ignore_names=ignore_names).load(obj)


__all__ = ['DictionarySerializer', 'NpzDeserializer', 'load_npz', 'save_npz', 'serialize']
