"""What every exercise that asks for a FunctionNode of the student's own shares: the class
is the student's (not the library's, nor a subclass of it), its backward computes the
gradient itself (watched through the engine's events), and it passes the engine's
numerical gradient checks.

A backward is free to use differentiable functions: it has to, for double backprop.  What
it must not do is hand the job to a function that already knows the answer: the library's
own node for the same operation (or that node's gradient nodes), the student's own class
again, or a backward inside the backward (``chainer.grad``, ``.backward()``).  Which
functions a backward applied is read from :mod:`autograd_lab.events`, the same record the
graph view draws from, watched so that the backward cannot blind it (:mod:`.watch`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import autograd_lab as chainer
from autograd_lab import Variable, gradient_check

from .feedback import _call, _seeded, _todo, _wrong
from .watch import _untampered, watching

#: forward returned an array where the engine expects a tuple of arrays.
_NOT_A_TUPLE = (TypeError, 'must be a tuple', 'forward returns a tuple of arrays: end the '
                'return line with a comma, `return y,`.')


def _library_class(node_class: type) -> type | None:
    """The first class of the library that ``node_class`` is or inherits from (besides
    FunctionNode itself), or None for a class of the student's own."""
    for cls in node_class.__mro__:
        if cls in (chainer.FunctionNode, object):
            continue
        if cls.__module__.split('.')[0] == 'autograd_lab':
            return cls
    return None


def _is_node_class(exercise: str, node_class: Any, name: str) -> None:
    """Stops the check unless ``node_class`` is a FunctionNode class of the student's own."""
    if node_class is ...:
        _todo(exercise, 'your FunctionNode class')
    if not (isinstance(node_class, type) and issubclass(node_class, chainer.FunctionNode)):
        _wrong(exercise, f'{name} is a {type(node_class).__name__}, not a FunctionNode class.',
               f'Write class {name}(chainer.FunctionNode): ...')
    library = _library_class(node_class)
    if library is not None:
        what = 'is' if library is node_class else 'inherits from'
        _wrong(exercise, f'{name} {what} the library\'s own {library.__module__}.'
               f'{library.__qualname__}: its forward and backward are the library\'s, not '
               'yours.', f'Write class {name}(chainer.FunctionNode) with a forward and a '
               'backward of your own; inherit from chainer.FunctionNode only.')


def _library_nodes(module: ModuleType) -> set[str]:
    """The names of the FunctionNode classes a library module defines (an operation and
    the nodes its backward applies, e.g. LinearFunction, LinearGradData, ...)."""
    return {name for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, chainer.FunctionNode)
            and value.__module__ == module.__name__}


def _watch_backward(exercise: str, node_class: type, inputs: tuple, grad_outputs: tuple,
                    targets: tuple[int, ...], *, answer_nodes: Iterable[str],
                    building_blocks: str, known: Iterable[tuple[type, str, str]] = ()) -> Any:
    """Runs the student's backward once, directly, with the engine's events recorded, and
    stops the check if it is still the placeholder or if it let something else compute the
    gradient: a backward inside the backward, the student's own class again, or one of
    ``answer_nodes`` (the library's nodes for this very operation).  Returns what backward
    returned.  ``building_blocks`` names what a backward should be made of, for the hint;
    ``known`` lists failures with a hint of their own, as for :func:`_call`.
    """
    node = node_class()

    def run() -> tuple[Any, list]:
        node.apply(inputs)
        with watching() as seen:
            result = node.backward(targets, tuple(Variable(g) for g in grad_outputs))
        return result, seen

    endless = (RecursionError, '', f'backward calls itself without end: does it apply '
               f'{node_class.__name__} (or differentiate it with chainer.grad) inside its own '
               'backward? Compute the gradient from gy and the retained inputs.')
    result, seen = _call(exercise, run, known=[_NOT_A_TUPLE, *known, endless])
    _untampered(exercise, seen)
    log = seen.log
    if result is ...:
        _todo(exercise, 'the gradient(s) in backward')
    yourself = (f'compute the gradient yourself from gy and the retained inputs, with '
                f'{building_blocks}.')
    if seen.engine_backward:
        _wrong(exercise, 'your backward runs a backward pass of its own.',
               'chainer.grad (or .backward()) inside backward lets the engine work the '
               f'gradient out for you: {yourself}')
    applied = {e.type for e in log if e.kind == 'function_applied'}
    borrowed = sorted(applied & set(answer_nodes))
    if borrowed:
        _wrong(exercise, f'your backward applies {", ".join(borrowed)}.',
               f'{", ".join(borrowed)}: the library\'s own implementation of this operation '
               f'(or of its gradient) computes the answer for you; {yourself}')
    if node_class.__name__ in applied:
        _wrong(exercise, f'your backward applies {node_class.__name__} itself.',
               f'Applying {node_class.__name__} inside its own backward differentiates it '
               f'through itself: {yourself}')
    return result


def _gradient_checks(exercise: str, func: Callable[..., Any], x_data: Any, gy: Any,
                     ggx: Any | None, hint: str, **options: Any) -> None:
    """check_backward (and check_double_backward with ggx); stops the check if one fails."""
    checks_to_run = [('check_backward', gradient_check.check_backward, (func, x_data, gy))]
    if ggx is not None:
        checks_to_run.append(('check_double_backward', gradient_check.check_double_backward,
                              (func, x_data, gy, ggx)))
    for name, check, args in checks_to_run:
        try:
            with _seeded():
                check(*args, **options)
        except AssertionError as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else ''
            _wrong(exercise, f'{name} failed: {first}', hint)
        except Exception as error:  # learner code: any failure becomes feedback
            _wrong(exercise, f'{name} raised {type(error).__name__}: {error}', hint)
