"""Checks of what callers hand to backward (and the seeds made of it) and of what
functions hand back from it.

Each raises a clear error before anything is changed (a step that raises is undone as
a whole by the stepper): a missing or bad seed, arguments of the wrong kind or length,
a backward that returns the wrong number or kind of gradients, and in debug mode a
gradient of the wrong shape or dtype or with a NaN (:mod:`autograd_lab.debug_mode`).
Gradients made by an old-style ``chainer.Function`` have no graph, so a backward that
would differentiate them again is refused here too (:mod:`autograd_lab.function`).
Used by :mod:`autograd_lab.backprop`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab import debug_mode
from autograd_lab.function import ARRAY_GRADS, check_old_style_gradient, check_old_style_graph
from autograd_lab.function_node import FunctionNode
from autograd_lab.utils.notes import add_note
from autograd_lab.variable import Variable

_ndarray = numpy.ndarray


def root_seed(root: Variable, loss_scale: float | None) -> tuple:
    """``(gradient, seeded)``: what ``root.backward()`` starts from.  That is the root's own
    gradient if it has one; else ones (times ``loss_scale``, ``seeded`` True), allowed only
    for a one-element root, unless nothing would get a gradient anyway: then None (a
    backward with nothing to do, as in Chainer)."""
    if ARRAY_GRADS:  # an old-style Function's grad cannot be differentiated
        check_old_style_gradient(root._node)
    grad = root._grad_var if root._grad_var is not None else root._grad
    if grad is not None:
        return grad, False
    grad = _one_seed(root, loss_scale)
    return grad, grad is not None


def _one_seed(root: Variable, loss_scale: float | None) -> Any:
    data = root._data
    if data is None:
        raise AttributeError('cannot run backward from an uninitialized variable '
                             '(it has no array)')
    if data.size != 1 and not _computes_anything(root):
        return None
    if data.size != 1:
        error = TypeError(
            f'backward() from a variable with {data.size} elements (shape {data.shape}) '
            'needs an initial gradient: set y.grad to an array of that shape first, '
            'or reduce y to one element (e.g. F.sum(y))')
        add_note(error, 'In plain words: backward starts from one number, a loss, whose '
                 'gradient is 1. With many numbers it cannot know how much each one '
                 'matters: sum or average them into a loss first (F.sum(y), F.mean(y)).')
        raise error
    if data.ndim != 0:
        warnings.warn('Treating a variable with only one element as a scalar in '
                      'Variable.backward is deprecated. One element variable should '
                      'have 0-dimensional shape.', DeprecationWarning, stacklevel=5)
    grad = backend.get_array_module(data).ones_like(data)
    if loss_scale is not None:
        grad *= loss_scale
    return grad


def _computes_anything(root: Variable) -> bool:
    """Whether a backward from ``root`` would compute any gradient (its creator has an input
    that requires one)."""
    creator = root._node._creator_node
    return creator is not None and any(x._requires_grad for x in creator.inputs or ())


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
    raise ValueError(debug_mode.error_message(
        func, debug_mode.wrong_count_message(func, len(gxs), targets)))


def check_debug(func: FunctionNode, targets: tuple, gxs: Any, grads: dict,
                leaves_get_grads: bool) -> None:
    """Debug mode: check what ``func``'s backward returned for ``targets`` (Variables, as
    many as the inputs, of their shapes, without NaN; see :mod:`autograd_lab.debug_mode`)
    against the gradients so far: a leaf's own grad when ``leaves_get_grads``, else the
    stepper's table ``grads``."""
    def so_far(node: Any) -> Any:
        if leaves_get_grads and node._creator_node is None:
            var = node._variable()
            g = None if var is None else var._grad_var if var._grad_var is not None \
                else var._grad
        else:
            g = grads.get(node)
        return g._data if isinstance(g, Variable) else g

    debug_mode.check_backward(func, targets, gxs, so_far)


def check_sequence(what: str, value: Any) -> list:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f'{what} must be a tuple or a list, not {type(value)}.')
    for v in value:
        if not isinstance(v, Variable):
            raise TypeError(f'{what} must contain Variables, not {type(v).__name__}')
    return list(value)


def check_lengths(what: str, values: Sequence[Any] | None, against: list,
                  kinds: str = 'a tuple or a list or None') -> list:
    if values is None:
        return [None] * len(against)
    if not isinstance(values, (tuple, list)):
        raise TypeError(f'{what} must be {kinds}, not {type(values)}.')
    if len(values) != len(against):
        of = 'outputs' if what == 'grad_outputs' else 'inputs'
        raise ValueError(f'{what} must be of the same length as {of}.\n'
                         f'len({of}) = {len(against)}, len({what}) = {len(values)}')
    return list(values)


def grad_seeds(outputs: Any, inputs: Any, grad_outputs: Any, grad_inputs: Any,
               loss_scale: float | None, double: bool) -> tuple:
    """``(outputs, inputs, seeds)`` of :func:`~autograd_lab.grad`: its arguments checked
    (old-style gradients in the graph are refused first, as Chainer does), and the
    ``(node, gradient)`` seeds: each output's given gradient, else ones (whatever its
    shape; times ``loss_scale``), and the inputs' given gradients."""
    if ARRAY_GRADS and isinstance(outputs, (tuple, list)):
        check_old_style_graph(outputs)  # their grads cannot be differentiated
    outputs, inputs = check_sequence('outputs', outputs), check_sequence('inputs', inputs)
    grad_outputs = check_lengths('grad_outputs', grad_outputs, outputs)
    grad_inputs = check_lengths('grad_inputs', grad_inputs, inputs)
    seeds = []
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            gy = backend.get_array_module(y._data).ones_like(y._data)
            if loss_scale is not None:
                gy *= loss_scale
            if double:  # a constant, as Chainer's: nothing flows into it
                gy = Variable(gy, requires_grad=False)
        seeds.append((y._node, gy))
    seeds += [(x._node, gx) for x, gx in zip(inputs, grad_inputs) if gx is not None]
    return outputs, inputs, seeds


def backward_seeds(outputs: Any, grad_outputs: Any) -> list:
    """The ``(node, gradient)`` seeds of :func:`~autograd_lab.backward`: each output's
    given or stored gradient.  Outputs with neither, and repeats, are skipped with a
    ``RuntimeWarning``."""
    outputs = check_sequence('outputs', outputs)
    grad_outputs = check_lengths('grad_outputs', grad_outputs, outputs,
                                 'None, a tuple, or a list')  # (Chainer's words here)
    seeds: list = []
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            gy = y._grad_var if y._grad_var is not None else y._grad
        if gy is None or any(y._node is node for node, _ in seeds):
            warnings.warn(f'backward: output {y.summary()} has no gradient or is repeated, '
                          'and is skipped', RuntimeWarning, stacklevel=3)
            continue
        seeds.append((y._node, gy))
    return seeds
