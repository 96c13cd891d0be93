"""Separates a JavaScript file's code from its literals, so that tests can grep the code.

A minified bundle carries data in string literals (the widget's bundle holds Graphviz
compiled to WebAssembly as one long base91 string) and any word can turn up in it by
chance; comments and regular-expression literals too may mention ``define``.
:func:`split` returns the code with every string, template, regular expression and
comment replaced by a placeholder, and the literals themselves.  It knows just enough of
JavaScript's grammar for that: quotes and escapes, template literals with nested
``${...}``, comments, and whether a ``/`` starts a regular expression or divides (by the
token before it).  Its own check: the brackets of the code it returns must balance.
"""

from __future__ import annotations

import re

# After these words a '/' starts a regular expression, not a division.
_REGEX_AFTER_WORDS = {'return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete',
                      'void', 'throw', 'instanceof', 'yield', 'await'}
_WORD_END = re.compile(r'[\w$]+$')


def _regex_may_start(code: list[str]) -> bool:
    """Whether a '/' here starts a regular expression, judged by the code before it."""
    tail = ''.join(code[-40:]).rstrip()
    if not tail:
        return True
    last = tail[-1]
    if last in ')]':
        return False
    if last == '"':  # a placeholder literal: "abc"/2
        return False
    word = _WORD_END.search(tail)
    if word:
        return word.group() in _REGEX_AFTER_WORDS
    return True  # after an operator or punctuation (including '}')


def split(source: str) -> tuple[str, list[str]]:
    """(code with literals replaced by ``""``, the literals' texts)."""
    code: list[str] = []
    literals: list[str] = []
    braces: list[int] = []  # for each open template ${...}: the brace depth inside it
    i, n = 0, len(source)

    def read_template(start: int) -> int:
        """Reads template text from ``start`` (just after ` or }); returns the index after
        its closing ` or after the ${ that opens an expression."""
        j = start
        while j < n:
            c = source[j]
            if c == '\\':
                j += 2
                continue
            if c == '`':
                literals.append(source[start:j])
                return j + 1
            if c == '$' and source.startswith('${', j):
                literals.append(source[start:j])
                braces.append(0)
                return j + 2
            j += 1
        raise ValueError('template literal never closed')

    while i < n:
        c = source[i]
        if c in '\'"':
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == '\\' else 1
            if j >= n:
                raise ValueError(f'string at {i} never closed')
            literals.append(source[i + 1:j])
            code.append('""')
            i = j + 1
        elif c == '`':
            code.append('""')
            i = read_template(i + 1)
        elif c == '/' and source.startswith('//', i):
            j = source.find('\n', i)
            literals.append(source[i:n if j < 0 else j])
            i = n if j < 0 else j
        elif c == '/' and source.startswith('/*', i):
            j = source.find('*/', i + 2)
            if j < 0:
                raise ValueError(f'comment at {i} never closed')
            literals.append(source[i:j + 2])
            code.append(' ')
            i = j + 2
        elif c == '/' and _regex_may_start(code):
            j, in_class = i + 1, False
            while j < n and (in_class or source[j] != '/'):
                if source[j] == '\\':
                    j += 1
                elif source[j] == '[':
                    in_class = True
                elif source[j] == ']':
                    in_class = False
                elif source[j] == '\n':
                    raise ValueError(f'regular expression at {i} runs past its line')
                j += 1
            literals.append(source[i:j + 1])
            code.append('""')
            i = j + 1
            while i < n and (source[i].isalnum() or source[i] == '_'):  # flags
                i += 1
        elif braces and c == '{':
            braces[-1] += 1
            code.append(c)
            i += 1
        elif braces and c == '}':
            if braces[-1] == 0:  # the end of a template's ${...}: back into its text
                braces.pop()
                i = read_template(i + 1)
            else:
                braces[-1] -= 1
                code.append(c)
                i += 1
        else:
            code.append(c)
            i += 1
    text = ''.join(code)
    for opening, closing in ('()', '[]', '{}'):
        if text.count(opening) != text.count(closing):
            raise ValueError(f'unbalanced {opening}{closing} after splitting: the splitter '
                             'misread a literal')
    return text, literals
