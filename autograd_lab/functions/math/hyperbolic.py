"""``chainer.functions.math.hyperbolic``: ``sinh`` and ``cosh``.

>>> import numpy as np
>>> cosh(np.array([0.0])).array
array([1.])
"""

from autograd_lab.functions.math import Cosh, Sinh, cosh, sinh  # noqa: F401
