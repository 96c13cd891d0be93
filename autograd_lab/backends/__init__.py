"""``chainer.backends``: the per-backend helper modules Chainer code imports.

- :mod:`~autograd_lab.backends.cuda`: CuPy/GPU helpers, usable without CuPy;
- :mod:`~autograd_lab.backends.intel64`: Chainer's iDeep backend, which autograd_lab does
  not have (``is_ideep_available()`` is False; see docs/differences-from-chainer.md).

>>> from autograd_lab.backends import intel64
>>> intel64.is_ideep_available()
False
"""

from autograd_lab.backends import cuda  # noqa: F401
from autograd_lab.backends import intel64  # noqa: F401
