"""``chainer.utils.argument``: keyword-argument parsing with Chainer's error messages.

>>> def f(**kwargs):
...     a, b = parse_kwargs(kwargs, ('a', 1), ('b', 2))
...     return a, b
>>> f(b=3)
(1, 3)
>>> f(c=0)
Traceback (most recent call last):
...
TypeError: f() got unexpected keyword argument(s) 'c'
"""

from __future__ import annotations

import sys


def check_unexpected_kwargs(kwargs: dict, **unexpected: str) -> None:
    """Raise ``ValueError(message)`` for the first ``key=message`` whose key is in ``kwargs``."""
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs: dict, *name_and_values: tuple, **unexpected: str) -> tuple:
    """Pop each ``(name, default)`` from ``kwargs``; anything left over is an error.

    A leftover named in ``unexpected`` raises ``ValueError`` with its message (a removed
    argument); any other leftover raises ``TypeError`` naming the calling function.
    """
    values = tuple(kwargs.pop(name, default) for name, default in name_and_values)
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        caller = sys._getframe(1).f_code.co_name
        names = ', '.join(repr(k) for k in sorted(kwargs))
        raise TypeError(f'{caller}() got unexpected keyword argument(s) {names}')
    return values


def assert_kwargs_empty(kwargs: dict) -> None:
    """Raise ``TypeError`` if ``kwargs`` is not empty."""
    if kwargs:
        caller = sys._getframe(1).f_code.co_name
        names = ', '.join(repr(k) for k in sorted(kwargs))
        raise TypeError(f'{caller}() got unexpected keyword argument(s) {names}')
