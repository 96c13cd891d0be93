"""What a view shows: the Variables it was given, checked.

>>> import numpy as np, autograd_lab as chainer
>>> y = chainer.Variable(np.array(1.0))
>>> as_outputs(y) == [y], as_outputs(None)
(True, [])
>>> as_outputs([y, 2.0])
Traceback (most recent call last):
...
TypeError: a graph view shows Variables, got float
"""

from __future__ import annotations

from typing import Any

from autograd_lab import Variable


def as_outputs(outputs: Any) -> list:
    """``outputs`` (None, a Variable or Variables) as a list of Variables."""
    if outputs is None:
        return []
    if isinstance(outputs, Variable):
        return [outputs]
    out = list(outputs)
    for v in out:
        if not isinstance(v, Variable):
            raise TypeError(f'a graph view shows Variables, got {type(v).__name__}')
    return out
