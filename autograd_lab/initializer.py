"""``chainer.initializer``: the initializer base class and ``get_fans``.

>>> get_fans((3, 2))
(2, 3)
"""

from autograd_lab.initializers import Initializer, get_fans

__all__ = ['Initializer', 'get_fans']
