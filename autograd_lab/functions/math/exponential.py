"""``chainer.functions.math.exponential``: ``exp``, ``log``, ``log2``, ``log10``.

>>> import numpy as np, autograd_lab as chainer
>>> Exp().apply((np.array([0.0]),))[0].array
array([1.])
"""

from autograd_lab.functions.math import Exp, Log, Log2, Log10, exp, log, log2, log10  # noqa: F401
