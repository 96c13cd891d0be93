"""What a view shows: the Variables it was given, checked.

Anything else is refused with what was given and what to give: a number or an array has
no graph (make it a Variable and compute with it); a FunctionNode is not its output (give
the Variable it made).

>>> import numpy as np, autograd_lab as chainer
>>> y = chainer.Variable(np.array(1.0))
>>> as_outputs(y) == [y], as_outputs(None), as_outputs((y,)) == [y]
(True, [], True)
>>> as_outputs([y, 2.0])
Traceback (most recent call last):
...
TypeError: a graph view shows Variables: item 1 is the float 2.0, a number, which has no
graph. Make it a Variable and compute with it, e.g. x = chainer.Variable(np.array(2.0));
GraphView(x * x)
>>> as_outputs((y * 2).creator)
Traceback (most recent call last):
...
TypeError: a graph view shows Variables, got the function _ * 2 (a FunctionNode): give
the Variable it made (y, not y.creator)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from autograd_lab import FunctionNode, Variable, VariableNode


def _refusal(v: Any, where: str) -> TypeError:
    """Why ``v`` (at ``where``: '' or ': item k') is no output, and what to give."""
    verb = f'{where} is' if where else ', got'
    if isinstance(v, FunctionNode):
        return TypeError(f'a graph view shows Variables{verb} the function '
                         f'{v.label} (a FunctionNode): give the Variable it made (y, not '
                         'y.creator)')
    if isinstance(v, VariableNode):
        return TypeError(f'a graph view shows Variables{verb} a VariableNode: '
                         'give its Variable (node.get_variable())')
    if isinstance(v, numbers.Number | numpy.ndarray | numpy.generic):
        kind = 'an array' if isinstance(v, numpy.ndarray) else 'a number'
        return TypeError(f'a graph view shows Variables{verb} '
                         f'the {type(v).__name__} {v!r:.40}, {kind}, '
                         'which has no graph. Make it a Variable and compute with it, e.g. '
                         'x = chainer.Variable(np.array(2.0)); GraphView(x * x)')
    return TypeError(f'a graph view shows Variables{verb} '
                     f'the {type(v).__name__} {v!r:.40}: give a '
                     'Variable or a list of Variables')


def as_outputs(outputs: Any) -> list:
    """``outputs`` (None, a Variable or Variables) as a list of Variables."""
    if outputs is None:
        return []
    if isinstance(outputs, Variable):
        return [outputs]
    if isinstance(outputs, str | bytes | dict | numpy.ndarray) or \
            not hasattr(outputs, '__iter__'):
        raise _refusal(outputs, '')
    out = list(outputs)
    for k, v in enumerate(out):
        if not isinstance(v, Variable):
            raise _refusal(v, f': item {k}')
    return out
