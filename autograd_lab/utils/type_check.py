"""Input type checks and their error, :class:`InvalidType`.

Built-in functions check their inputs with the plain helpers below before any
computation, so a rejected call changes nothing.  ``InvalidType`` subclasses
``Exception`` directly, as in Chainer: it is neither a ``TypeError`` nor a
``ValueError``.

>>> import numpy as np
>>> expect_same_dtype('_ + _', [np.zeros(2, np.float32), np.zeros(2, np.float64)])
Traceback (most recent call last):
...
autograd_lab.utils.type_check.InvalidType: 
Invalid operation is performed in: _ + _ (Forward)
<BLANKLINE>
Expect: in_types[0].dtype == in_types[1].dtype
Actual: float32 != float64
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy


class InvalidType(Exception):
    """Raised when the types (dtype, kind, ndim, shape) of inputs violate a function's contract.

    Attributes:
        expect: the condition that should have held, e.g. ``in_types[0].ndim == 2``.
        actual: what was found, e.g. ``3 != 2``.
    """

    def __init__(self, expect: str, actual: str, msg: str | None = None) -> None:
        if msg is None:
            msg = f'Expect: {expect}\nActual: {actual}'
        super().__init__(msg)
        self.expect = expect
        self.actual = actual

    def __reduce__(self) -> tuple:
        return (type(self), (self.expect, self.actual, None))


def _fail(label: str, expect: str, actual: str) -> InvalidType:
    error = InvalidType(expect, actual)
    error.args = (f'\nInvalid operation is performed in: {label} (Forward)\n\n{error.args[0]}',)
    return error


def expect_same_dtype(label: str, arrays: Sequence[Any]) -> None:
    """All ``arrays`` share one dtype."""
    d0 = arrays[0].dtype
    for i in range(1, len(arrays)):
        if arrays[i].dtype != d0:
            raise _fail(label, f'in_types[0].dtype == in_types[{i}].dtype',
                        f'{d0} != {arrays[i].dtype}')


def expect_float(label: str, arrays: Sequence[Any]) -> None:
    """Every array has a floating dtype (kind ``'f'``)."""
    for i, a in enumerate(arrays):
        if a.dtype.kind != 'f':
            raise _fail(label, f"in_types[{i}].dtype.kind == f", f'{a.dtype.kind} != f')


def expect_ndim(label: str, index: int, array: Any, op: str, ndim: int) -> None:
    """``array.ndim OP ndim`` holds, with OP one of ``==``, ``>=``, ``<=``."""
    ok = {'==': array.ndim == ndim, '>=': array.ndim >= ndim, '<=': array.ndim <= ndim}[op]
    if not ok:
        raise _fail(label, f'in_types[{index}].ndim {op} {ndim}', f'{array.ndim} {_negate(op)} {ndim}')


def expect_broadcastable(label: str, arrays: Sequence[Any]) -> tuple:
    """The shapes broadcast together; returns the broadcast shape."""
    try:
        return numpy.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shapes = ', '.join(str(a.shape) for a in arrays)
        raise _fail(label, 'in_types are broadcastable',
                    f'cannot broadcast inputs of shapes {shapes}') from None


def expect(label: str, condition: bool, expect_text: str, actual_text: str) -> None:
    """A free-form check: raise :class:`InvalidType` unless ``condition``."""
    if not condition:
        raise _fail(label, expect_text, actual_text)


def _negate(op: str) -> str:
    return {'==': '!=', '>=': '<', '<=': '>'}[op]
