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
    broadcast, broadcast_to, cast, concat, copy, expand_dims, flatten, flip, get_item, hstack,
    identity, pad, repeat, reshape, select_item, separate, split_axis, squeeze, stack, sum_to,
    swapaxes, tile, transpose, vstack, where,
)
from autograd_lab.functions.math import (  # noqa: F401
    arccos, arcsin, arctan, average, batch_matmul, clip, cos, cosh, cumsum, exp, expm1, log,
    log1p, log2, log10, logsumexp, matmul, max, maximum, mean, min, minimum, prod, rsqrt, sign,
    sin, sinh, sqrt, square, sum, tan, tanh,
)
from autograd_lab.functions.activation import (  # noqa: F401
    elu, hard_sigmoid, leaky_relu, log_softmax, relu, selu, sigmoid, softmax, softplus, swish,
)
from autograd_lab.functions.loss import (  # noqa: F401
    huber_loss, mean_absolute_error, mean_squared_error, sigmoid_cross_entropy,
    softmax_cross_entropy,
)
from autograd_lab.functions.evaluation import accuracy  # noqa: F401
from autograd_lab.functions.noise import dropout  # noqa: F401
from autograd_lab.functions.connection import (  # noqa: F401
    convolution_2d, deconvolution_2d, embed_id, linear,
)
from autograd_lab.functions.pooling import average_pooling_2d, max_pooling_2d  # noqa: F401
from autograd_lab.functions.normalization import (  # noqa: F401
    batch_normalization, fixed_batch_normalization, layer_normalization,
)
# Chainer's module paths (``F.math.exponential.Exp``, ...), loaded as Chainer loads them
from autograd_lab.functions.math import (  # noqa: F401
    basic_math, exponential, hyperbolic, identity as _identity_module, minmax, trigonometric,
)
from autograd_lab.functions.math.trigonometric import arctan2  # noqa: F401
