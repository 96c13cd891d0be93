"""Arithmetic a student types as a guess: ``cos(1)``, ``-1/4``, ``2*0.5**2``, ``[1, -e]``.

A small recursive-descent parser over a fixed grammar, evaluated with floats: numbers,
``+ - * /``, powers (``**``, or ``^`` as on paper), parentheses, unary minus, the
constants ``pi``, ``e``, ``inf`` and ``nan``, the functions in :data:`FUNCTIONS`, and
lists (``[1, 2]``; nested lists for a matrix).  A name of one of the graph's variables
(passed as ``variables``) means that variable's value, before any constant of that name:
in a graph with a variable ``e``, ``e`` is its value, not Euler's number; :func:`read`
also says which each name was read as.  Nothing else: no other names, no attributes,
no calls of anything outside the table, and never ``eval``.  The text is at most
:data:`MAX_CHARS` long and nests at most :data:`MAX_DEPTH` deep, so hostile text
(``'[' * 100000``, ``'1' * 5000``) gets this module's ValueError, not a RecursionError.

>>> evaluate('cos(1)') == __import__('math').cos(1)
True
>>> evaluate('[1, -2^2, 2*(3 + 1)/4]')
[1.0, -4.0, 2.0]
>>> evaluate('nan') != evaluate('nan')     # a NaN gradient can be guessed
True
>>> evaluate('__import__(1)')
Traceback (most recent call last):
...
ValueError: unknown name '__import__': use numbers, + - * / ** ( ), pi, e, nan, inf and ...
>>> read('2*e', {'e': 0.37})
(0.74, ['read e as the variable e = 0.37'])
>>> read('e', {'x': 1.0})
(2.718281828459045, ["read e as Euler's number 2.718"])
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

#: The longest guess text taken (a student types a few numbers, not pages).
MAX_CHARS = 1000
#: The deepest nesting of parentheses, brackets and unary signs.
MAX_DEPTH = 32

FUNCTIONS: dict[str, Callable[[float], float]] = {
    'cos': math.cos, 'sin': math.sin, 'tan': math.tan, 'exp': math.exp, 'log': math.log,
    'sqrt': math.sqrt, 'tanh': math.tanh, 'abs': abs,
}
CONSTANTS = {'pi': math.pi, 'e': math.e, 'inf': math.inf, 'nan': math.nan}

_HELP = ('use numbers, + - * / ** ( ), pi, e, nan, inf and ' + ', '.join(FUNCTIONS))
_TOKEN = re.compile(r'\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)'
                    r'|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|[-+*/^(),\[\]]))')


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f'cannot read {text[pos:pos + 10]!r} in the guess: {_HELP}')
        out.append(m.group(m.lastgroup))
        pos = m.end()
    return out


#: How a note names each constant when a guess reads it.
_CONSTANT_WORDS = {'e': "Euler's number", 'pi': 'pi'}


class _Parser:
    def __init__(self, tokens: list[str], variables: Mapping[str, float | None] | None = None
                 ) -> None:
        self.variables = dict(variables or {})
        self.notes: list[str] = []
        self.tokens = tokens
        self.at = 0
        self.depth = 0

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f'expected {expected or "more"} in the guess, got '
                             f'{"the end" if token is None else repr(token)}')
        self.at += 1
        return token

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ValueError(f'the guess nests more than {MAX_DEPTH} deep')

    def value(self) -> float | list:
        """A list (``[a, b]``) or one arithmetic expression."""
        if self.peek() != '[':
            return self.sum()
        self.take('[')
        self.deeper()
        items = [self.value()]
        while self.peek() == ',':
            self.take(',')
            items.append(self.value())
        self.take(']')
        self.depth -= 1
        return items

    def sum(self) -> float:
        total = self.product()
        while self.peek() in ('+', '-'):
            sign = self.take()
            right = self.product()
            total = total + right if sign == '+' else total - right
        return total

    def product(self) -> float:
        total = self.signed()
        while self.peek() in ('*', '/'):
            op = self.take()
            right = self.signed()
            if op == '/' and right == 0:
                raise ValueError('the guess divides by zero')
            total = total * right if op == '*' else total / right
        return total

    def signed(self) -> float:
        if self.peek() in ('-', '+'):
            sign = self.take()
            self.deeper()
            inner = self.signed()
            self.depth -= 1
            return -inner if sign == '-' else inner
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.peek() in ('**', '^'):
            self.take()
            self.deeper()
            exponent = self.signed()  # right-associative: 2**3**2 is 2**9
            self.depth -= 1
            try:
                result = base ** exponent
            except ZeroDivisionError as error:
                raise ValueError('the guess divides by zero') from error
            if isinstance(result, complex):
                raise ValueError('the guess is not a real number (a negative number to a '
                                 'fractional power)')
            return result
        return base

    def atom(self) -> float:
        token = self.take()
        if token == '(':
            self.deeper()
            inner = self.sum()
            self.take(')')
            self.depth -= 1
            return inner
        if token[0].isdigit() or token[0] == '.':
            number = float(token)
            if math.isinf(number):
                raise ValueError(f'the number {token:.20}... is too large for a float')
            return number
        if token in self.variables and self.peek() != '(':
            if self.variables[token] is None:
                raise ValueError(f'{token} is a variable of the graph holding more than one '
                                 'number: a guess can name only one holding one number; '
                                 'type the values')
            value = float(self.variables[token])
            self._note(f'read {token} as the variable {token} = {value:.4g}')
            return value
        if token in CONSTANTS:
            if token in _CONSTANT_WORDS:
                self._note(f'read {token} as {_CONSTANT_WORDS[token]} {CONSTANTS[token]:.4g}')
            return CONSTANTS[token]
        if token in FUNCTIONS:
            self.take('(')
            self.deeper()
            arg = self.sum()
            self.take(')')
            self.depth -= 1
            try:
                return float(FUNCTIONS[token](arg))
            except OverflowError as error:
                raise ValueError(f'{token}({arg:g}) is too large for a float') from error
            except ValueError as error:
                raise ValueError(f'{token}({arg:g}) has no real value') from error
        if token[0].isalpha() or token[0] == '_':
            raise ValueError(f'unknown name {token!r}: {_HELP}')
        raise ValueError(f'unexpected {token!r} in the guess: {_HELP}')


def evaluate(text: str, variables: Mapping[str, float | None] | None = None) -> float | list:
    """The value of a guess typed as text: a float, or a (nested) list of floats.
    Raises ValueError for anything else (see the module docstring)."""
    return read(text, variables)[0]


def read(text: str, variables: Mapping[str, float | None] | None = None
         ) -> tuple[float | list, list[str]]:
    """The value of a guess typed as text and how its names were read (``'read e as
    the variable e = 0.37'``): ``variables`` (the graph's, by name: number values, None
    for one holding more numbers) come before the constants of the same name."""
    if len(text) > MAX_CHARS:
        raise ValueError(f'a guess is at most {MAX_CHARS} characters, got {len(text)}')
    tokens = _tokens(text)
    if not tokens:
        raise ValueError('empty guess: type a number like 4, cos(1), or a list like [1, 2]')
    parser = _Parser(tokens, variables)
    try:
        result = parser.value()
    except OverflowError as error:
        raise ValueError('the guess is too large for a float') from error
    if parser.peek() is not None:
        raise ValueError(f'unexpected {parser.peek()!r} in the guess: one value or a list '
                         'like [1, 2]')
    return result, parser.notes
