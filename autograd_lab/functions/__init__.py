"""Differentiable functions (Chainer's ``chainer.functions``, usually imported as ``F``).

>>> import numpy as np, autograd_lab as chainer, autograd_lab.functions as F
>>> x = chainer.Variable(np.array([[1., 2.], [3., 4.]], np.float32))
>>> F.sum(F.square(x)).array
array(30., dtype=float32)
"""

from autograd_lab.functions.arithmetic import (  # noqa: F401
    absolute, add, div, floor, mul, neg, pow, sub,
)
from autograd_lab.functions.array import (  # noqa: F401
    broadcast, broadcast_to, cast, copy, expand_dims, flatten, get_item, identity, reshape,
    squeeze, sum_to, swapaxes, transpose,
)
from autograd_lab.functions.math import (  # noqa: F401
    average, cos, exp, log, matmul, mean, sin, sqrt, square, sum, tanh,
)
