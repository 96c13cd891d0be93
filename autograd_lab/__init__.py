"""autograd_lab: a define-by-run autodiff engine that behaves like Chainer 7.8.1.

``import autograd_lab as chainer`` runs Chainer-style code unchanged:

>>> import numpy as np
>>> import autograd_lab as chainer
>>> x = chainer.Variable(np.array(3.0, dtype=np.float32))
>>> y = x ** 2 - 2 * x + 1
>>> y.backward()
>>> x.grad
array(4., dtype=float32)
"""

import sys as _sys

from autograd_lab import configuration
from autograd_lab.configuration import (  # noqa: F401
    config, force_backprop_mode, global_config, no_backprop_mode, using_config,
)
from autograd_lab import backend  # noqa: F401
from autograd_lab.backend import get_device, using_device  # noqa: F401
from autograd_lab import backends  # noqa: F401
from autograd_lab.backends import cuda  # (chainer.cuda, the old name: see the end)
from autograd_lab.debug_mode import DebugMode, is_debug, set_debug  # noqa: F401
from autograd_lab import types, warnings  # noqa: F401
from autograd_lab import utils  # noqa: F401
from autograd_lab.variable import Variable, VariableNode, as_array, as_variable  # noqa: F401
from autograd_lab.parameter import Parameter  # noqa: F401
from autograd_lab.function_hook import FunctionHook, get_function_hooks  # noqa: F401
from autograd_lab.function_node import FunctionNode  # noqa: F401
from autograd_lab import function  # noqa: F401
from autograd_lab.function import Function, FunctionAdapter  # noqa: F401
from autograd_lab import function_hooks  # noqa: F401
from autograd_lab.backprop import BackwardStep, BackwardStepper, backward, grad  # noqa: F401
from autograd_lab import variable  # noqa: F401
from autograd_lab import initializers  # noqa: F401
from autograd_lab import functions  # noqa: F401
from autograd_lab import gradient_check  # noqa: F401
from autograd_lab import computational_graph  # noqa: F401
from autograd_lab.initializers import Initializer  # noqa: F401
from autograd_lab.link import Chain, ChainList, Link, Sequential  # noqa: F401
from autograd_lab.optimizer import GradientMethod, Optimizer, UpdateRule  # noqa: F401
from autograd_lab import link, links, optimizer, optimizer_hooks, optimizers  # noqa: F401
from autograd_lab import serializers  # noqa: F401
from autograd_lab import initializer, serializer  # noqa: F401
from autograd_lab.serializer import AbstractSerializer, Deserializer, Serializer  # noqa: F401
from autograd_lab._compat import (  # noqa: F401
    Fallback, get_array_types, get_cpu_array_types, get_dtype, is_arrays_compatible, mixed16,
)
from autograd_lab.backends.cuda import (  # noqa: F401
    should_use_cudnn, should_use_cudnn_tensor_core,
)
from autograd_lab.functions.math import basic_math  # noqa: F401  (chainer.basic_math)
from autograd_lab.functions import operators as _operators

_operators.install()
_sys.modules[__name__ + '.cuda'] = cuda  # ``import chainer.cuda`` gives that same module

__version__ = '0.1.0'
del configuration
