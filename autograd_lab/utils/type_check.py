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

import threading
from typing import Any
from collections.abc import Sequence

import numpy

from autograd_lab.utils.notes import add_note, type_check_note

_checking = threading.local()  # .function: the node whose check_type_forward is running


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
    note = type_check_note(expect, actual)  # Chainer's text stays; plain words beside it
    if note is not None:
        add_note(error, note)
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
        raise _fail(label, f'in_types[{index}].ndim {op} {ndim}',
                    f'{array.ndim} {_negate(op)} {ndim}')


def expect_broadcastable(label: str, arrays: Sequence[Any]) -> tuple:
    """The shapes broadcast together; returns the broadcast shape."""
    try:
        return numpy.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shapes = ', '.join(str(a.shape) for a in arrays)
        raise _fail(label, 'in_types are broadcastable',
                    f'cannot broadcast inputs of shapes {shapes}') from None


def _negate(op: str) -> str:
    return {'==': '!=', '>=': '<', '<=': '>'}[op]


# ---- Chainer's check_type_forward vocabulary ---------------------------------------------
#
# User FunctionNodes ported from Chainer describe their input contract with expressions
# such as ``type_check.expect(in_types.size() == 2, x_type.dtype.kind == 'f')``.  Here the
# expressions are evaluated eagerly on the real inputs; each value remembers the text it
# came from, so a failed expectation reads like the code that stated it.


class Expr:
    """A value together with the source-like text that produced it."""

    __slots__ = ('value', 'text')

    def __init__(self, value: Any, text: str) -> None:
        self.value = value
        self.text = text

    def __getattr__(self, name: str) -> Expr:
        return Expr(getattr(self.value, name), f'{self.text}.{name}')

    def __getitem__(self, key: Any) -> Expr:
        return Expr(self.value[_value(key)], f'{self.text}[{_text(key)}]')

    def __call__(self, *args: Any) -> Expr:
        inner = ', '.join(_text(a) for a in args)
        return Expr(self.value(*[_value(a) for a in args]), f'{self.text}({inner})')

    def __len__(self) -> int:
        return len(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __repr__(self) -> str:
        return self.text


class Comparison(Expr):
    """The result of comparing two expressions; ``expect`` reports it when false."""

    __slots__ = ('lhs', 'op', 'rhs')

    def __init__(self, lhs: Any, op: str, rhs: Any, value: bool) -> None:
        super().__init__(value, f'{_text(lhs)} {op} {_text(rhs)}')
        self.lhs, self.op, self.rhs = lhs, op, rhs

    def actual(self) -> str:
        return f'{_shown(self.lhs)} {_NEGATED[self.op]} {_shown(self.rhs)}'


_NEGATED = {'==': '!=', '!=': '==', '<': '>=', '<=': '>', '>': '<=', '>=': '<'}


def _value(x: Any) -> Any:
    return x.value if isinstance(x, Expr) else x


def _text(x: Any) -> str:
    return x.text if isinstance(x, Expr) else repr(x) if isinstance(x, str) else _shown(x)


def _shown(x: Any) -> str:
    return str(_value(x))  # as Chainer: numpy.float32 shows as <class 'numpy.float32'>


def _compare(op: str, fn: Any) -> Any:
    def method(self: Expr, other: Any) -> Comparison:
        a, b = _value(self), _value(other)
        if op in ('==', '!=') and (isinstance(a, numpy.dtype) or isinstance(b, numpy.dtype)):
            a, b = numpy.dtype(a), numpy.dtype(b)
        return Comparison(self, op, other, bool(fn(a, b)))
    return method


def _arith(sym: str, fn: Any, reflected: bool = False) -> Any:
    def method(self: Expr, other: Any) -> Expr:
        if reflected:
            return Expr(fn(_value(other), self.value), f'{_text(other)} {sym} {self.text}')
        return Expr(fn(self.value, _value(other)), f'{self.text} {sym} {_text(other)}')
    return method


for _op, _fn in (('==', lambda a, b: a == b), ('!=', lambda a, b: a != b),
                 ('<', lambda a, b: a < b), ('<=', lambda a, b: a <= b),
                 ('>', lambda a, b: a > b), ('>=', lambda a, b: a >= b)):
    setattr(Expr, {'==': '__eq__', '!=': '__ne__', '<': '__lt__', '<=': '__le__',
                   '>': '__gt__', '>=': '__ge__'}[_op], _compare(_op, _fn))
for _sym, _name, _fn in (('+', 'add', lambda a, b: a + b), ('-', 'sub', lambda a, b: a - b),
                         ('*', 'mul', lambda a, b: a * b), ('//', 'floordiv', lambda a, b: a // b),
                         ('%', 'mod', lambda a, b: a % b)):
    setattr(Expr, f'__{_name}__', _arith(_sym, _fn))
    setattr(Expr, f'__r{_name}__', _arith(_sym, _fn, reflected=True))
Expr.__hash__ = None  # type: ignore[assignment]


class TypeInfo(Expr):
    """One input: ``.dtype``, ``.ndim``, ``.shape``, ``.size`` of its array."""

    __slots__ = ()

    def __init__(self, array: Any, text: str) -> None:
        super().__init__(array, text)


class TypeInfoTuple(tuple):
    """The inputs of a function as seen by ``check_type_forward``."""

    def __new__(cls, arrays: Sequence[Any]) -> TypeInfoTuple:
        return super().__new__(cls, [TypeInfo(a, f'in_types[{i}]') for i, a in enumerate(arrays)])

    def size(self) -> Expr:
        return Expr(len(self), 'in_types.size()')


#: Chainer's name for the inputs its ``check_type_forward`` sees first: Chainer checks
#: twice, lightly (no messages) and then, if that fails, with the full expressions for the
#: error.  Here one pass does both (a :class:`TypeInfo` holds its value and its text), so
#: both names are one class.
LightTypeInfoTuple = TypeInfoTuple


def argname(in_types: Sequence[TypeInfo], names: Sequence[str]) -> None:
    """Name the inputs in messages (``x`` instead of ``in_types[0]``)."""
    for info, name in zip(in_types, names):
        info.text = name


def same_types(*arrays: Any) -> bool:
    """True when all arrays are of one array type (all NumPy or all CuPy)."""
    kinds = {type(_value(a)) for a in arrays}
    return len(kinds) <= 1


def eval(expr: Any) -> Any:
    """The concrete value of an expression."""
    return _value(expr)


def expect(*conditions: Any) -> None:
    """Raise :class:`InvalidType` for the first condition that does not hold.

    Also accepts the engine's internal form ``expect(label, ok, expect_text, actual_text)``.

    >>> import numpy as np
    >>> x_type, = TypeInfoTuple([np.zeros((2, 3), np.float32)])
    >>> expect(x_type.ndim == 2, x_type.dtype.kind == 'f')
    >>> expect(x_type.shape[1] == 4)
    Traceback (most recent call last):
    ...
    autograd_lab.utils.type_check.InvalidType: Expect: in_types[0].shape[1] == 4
    Actual: 3 != 4
    """
    if len(conditions) == 4 and isinstance(conditions[0], str) and \
            isinstance(conditions[2], str):
        label, ok, expect_text, actual_text = conditions
        if not ok:
            raise _fail(label, expect_text, actual_text)
        return
    for cond in conditions:
        if isinstance(cond, Comparison):
            if not cond.value:
                _fail_in_check(cond.text, cond.actual())
        elif not _value(cond):
            _fail_in_check(_text(cond), 'False')


def _fail_in_check(expect_text: str, actual_text: str) -> None:
    """Raise from a user's ``check_type_forward``: the message names the function applied
    (see :func:`check_type_forward_of`), or has no header outside one, as in Chainer."""
    func = getattr(_checking, 'function', None)
    if func is None:
        raise InvalidType(expect_text, actual_text)
    raise _fail(func.label, expect_text, actual_text)


def check_type_forward_of(func: Any, in_data: tuple) -> None:
    """Run ``func.check_type_forward`` on the input arrays (``FunctionNode.apply`` does)."""
    outer = getattr(_checking, 'function', None)
    _checking.function = func
    try:
        func.check_type_forward(TypeInfoTuple(in_data))
    finally:
        _checking.function = outer
