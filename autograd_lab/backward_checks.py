"""Checks of what callers hand to backward and what functions hand back from it.

Each raises a clear error before anything is changed (a step that raises is undone as
a whole by the stepper): a missing or bad seed, arguments of the wrong kind or length,
a backward that returns the wrong number or kind of gradients.
Used by :mod:`autograd_lab.backprop`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.function_node import FunctionNode
from autograd_lab.variable import Variable

_ndarray = numpy.ndarray


def one_seed(root: Variable, loss_scale: float | None) -> Any:
    """The initial gradient of ``root.backward()`` when ``root`` has none: ones (times
    ``loss_scale``), allowed only for a one-element root."""
    data = root._data
    if data is None:
        raise AttributeError('cannot run backward from an uninitialized variable '
                             '(it has no array)')
    if data.size != 1:
        raise TypeError(
            f'backward() from a variable with {data.size} elements (shape {data.shape}) '
            'needs an initial gradient: set y.grad to an array of that shape first, '
            'or reduce y to one element (e.g. F.sum(y))')
    if data.ndim != 0:
        warnings.warn('Treating a variable with only one element as a scalar in '
                      'Variable.backward is deprecated. One element variable should '
                      'have 0-dimensional shape.', DeprecationWarning, stacklevel=4)
    grad = backend.get_array_module(data).ones_like(data)
    if loss_scale is not None:
        grad *= loss_scale
    return grad


def check_like(array: Any, node: Any, what: str, owner: str, end: str = '') -> None:
    """Raise unless ``array`` has ``node``'s dtype and shape (where the node knows them)."""
    if node.dtype is not None and array.dtype != node.dtype:
        raise TypeError(f'{what} has dtype {array.dtype}, but {owner} has dtype '
                        f'{node.dtype}{end}')
    if node.shape is not None and array.shape != node.shape:
        raise ValueError(f'{what} has shape {array.shape}, but {owner} has shape '
                         f'{node.shape}{end}')


def check_seed(k: int, node: Any, grad: Any) -> None:
    """Reject an initial gradient that cannot belong to ``node`` before any work is done.

    Without this a wrong ``grad_outputs`` entry surfaced later as an obscure error
    blaming a built-in function's backward.
    """
    if grad is None:
        return
    array = grad._data if isinstance(grad, Variable) else grad
    if not backend.is_array(array):
        raise TypeError(f'the initial gradient {k} must be an array or a Variable, '
                        f'not {type(array).__name__}')
    check_like(array, node, f'the initial gradient {k}', 'its variable')
    var = node._variable()
    data = var._data if var is not None else node.data
    if data is not None and backend.get_array_module(data) is not \
            backend.get_array_module(array):
        raise TypeError(f'the initial gradient {k} is on '
                        f'{backend.get_device_from_array(array)}, but its variable is on '
                        f'{backend.get_device_from_array(data)}')


def bug(func: FunctionNode) -> str:
    return f'Function `{type(func).__name__}` ({func.label}) has a bug.'


def checked_grad(func: FunctionNode, i: int, node: Any, gx: Any, double: bool) -> Any:
    """Validate the gradient ``gx`` that ``func`` returned for its input ``i`` (VariableNode
    ``node``); return it as a stepper stores it: a Variable if ``double``, else its array."""
    if type(gx) is _ndarray:
        array = gx
    elif isinstance(gx, Variable):
        array = gx._data
        if array is None:
            return None
    elif backend.is_array(gx):
        array = gx
    elif isinstance(gx, numpy.generic):  # NumPy turns 0-d results into scalars
        array = gx = numpy.asarray(gx)
    else:
        raise TypeError(f'{bug(func)}\nIts backward returned a {type(gx).__name__} as the '
                        f'gradient of input {i}; expected a Variable, an array or None.')
    dtype = array.dtype  # (the same dtype is mostly the same object: ``is`` first)
    if (dtype is not node.dtype and dtype != node.dtype and node.dtype is not None) or \
            (array.shape != node.shape and node.shape is not None):  # message made only then
        check_like(array, node, f'{bug(func)}\nThe gradient of input {i}', 'the input',
                    '.')
    if double:
        return gx if isinstance(gx, Variable) else Variable(gx)
    return array


def select_targets(func: FunctionNode, gxs: Any, targets: tuple) -> tuple:
    if type(gxs) is tuple and len(gxs) == len(targets):  # the common case, first
        return gxs
    if not isinstance(gxs, (tuple, list)):
        raise TypeError(f'{bug(func)}\nbackward must return a tuple, not {type(gxs).__name__}.')
    n_in = len(func.inputs)
    if len(gxs) == len(targets):
        return tuple(gxs)
    if len(gxs) == n_in:
        return tuple([gxs[i] for i in targets])
    raise ValueError(f'{bug(func)}\nbackward returned {len(gxs)} gradients; expected '
                     f'{n_in} (one per input) or {len(targets)} (one per target input).')


def check_sequence(what: str, value: Any) -> list:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f'{what} must be a tuple or a list, not {type(value)}.')
    for v in value:
        if not isinstance(v, Variable):
            raise TypeError(f'{what} must contain Variables, not {type(v).__name__}')
    return list(value)


def check_lengths(what: str, values: Sequence[Any] | None, against: list) -> list:
    if values is None:
        return [None] * len(against)
    if len(values) != len(against):
        raise ValueError(f'{what} must be of the same length as '
                         f"{'outputs' if what == 'grad_outputs' else 'inputs'}: "
                         f'{len(values)} != {len(against)}')
    return list(values)
