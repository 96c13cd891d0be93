"""``chainer.functions.math.minmax``: ``max`` and ``min`` over axes.

>>> import numpy as np
>>> max(np.array([1.0, 3.0])).array
array(3.)
"""

from autograd_lab.functions.math import Max, Min, max, min  # noqa: F401
