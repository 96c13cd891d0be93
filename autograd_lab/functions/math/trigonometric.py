"""``chainer.functions.math.trigonometric``: ``sin``, ``cos``, ``tan`` and their inverses.

>>> import numpy as np
>>> cos(np.array([0.0])).array
array([1.])
"""

from autograd_lab.functions.math import (  # noqa: F401
    Arccos, Arcsin, Arctan, Cos, Sin, Tan, arccos, arcsin, arctan, cos, sin, tan,
)
