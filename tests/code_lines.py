"""Count the lines of code of Python files: lines with code on them, not counting blank
lines, comments and docstrings (module, class and function docstrings).

Usage: ``python tests/code_lines.py autograd_lab/backprop.py [more files]``.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

_LAYOUT = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
           tokenize.ENDMARKER)


def code_lines(path: str | Path) -> int:
    """How many lines of ``path`` hold code (a docstring's lines are not code)."""
    source = Path(path).read_text()
    docstring_lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                docstring_lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _LAYOUT:
            lines.update(n for n in range(token.start[0], token.end[0] + 1)
                         if n not in docstring_lines)
    return len(lines)


if __name__ == '__main__':
    for name in sys.argv[1:]:
        print(f'{name}: {code_lines(name)}')
