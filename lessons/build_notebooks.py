"""Builds the lesson notebooks from their sources in ``lessons/source/*.md``.

One source gives two notebooks: the learner's ``lessons/NN_name.ipynb``
(exercise cells hold a ``...`` placeholder) and the instructor's
``lessons/solutions/NN_name.ipynb`` (nbgrader source form: the reference answer
between ``### BEGIN SOLUTION`` and ``### END SOLUTION``; it checks in strict
mode).  Each starts with the same generated cell, ``INSTALL_CELL``, which installs the
package where the kernel lacks it (Colab).  Both are written without outputs and with
stable cell ids, so building twice gives the same bytes;
``tests/test_lesson_checks.py`` checks the committed notebooks are up to date.

The main path's lessons are numbered ``01`` to ``NN``, the appendix's ``A1`` to ``An``
(``lessons/path.py`` gives the order); every ``NN_*.md`` and ``AN_*.md`` is built.

Source format: Markdown text becomes markdown cells; fenced blocks become
code cells.  The fence's info string says which kind::

    ```python                      an ordinary code cell
    ```python exercise ID          a learner's answer cell (nbgrader solution cell)
    ```python check ID POINTS      a locked, graded cell that calls a checker

An exercise block lists the placeholder after ``### STUB`` and the reference
answer between ``### BEGIN SOLUTION`` and ``### END SOLUTION``.  A line of its
own ``+++`` splits markdown into two cells.

Run ``python lessons/build_notebooks.py`` after editing a source.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE / 'source'
SOLUTIONS = HERE / 'solutions'
FENCE = re.compile(r'^```python(?:\s+(exercise|check)\s+(\S+)(?:\s+(\d+))?)?\s*$')

# Every lesson imports its checkers from the installed package (not from a file beside
# the notebook), so a copied lesson runs anywhere autograd-lab is installed.
CHECKS_IMPORT = 'from autograd_lab_lessons import checks'
# Where the package is published: the first cell of every lesson installs it from here
# when the kernel lacks it (Colab). Replace ORG/REPO and rebuild to publish the lessons.
PACKAGE_URL = 'git+https://github.com/ORG/REPO'
# The `colab` extra adds what the lessons import (the widget, matplotlib, ...) but neither
# JupyterLab nor a newer ipywidgets than the host's own front end expects.
INSTALL_CELL = '\n'.join([
    '# Colab, or any Python without autograd-lab: install it (once). Elsewhere: nothing.',
    'import importlib.util',
    "if importlib.util.find_spec('autograd_lab_lessons') is None:",
    f'    %pip install --quiet "autograd-lab[colab] @ {PACKAGE_URL}"',
])
# Strict mode makes a rejected reference answer fail the solution notebook's run in CI.
SOLUTION_STRICT = '\nchecks.STRICT = True  # a rejected reference answer stops the run'


def _nbgrader(grade_id: str, *, solution: bool, grade: bool, points: int | None) -> dict:
    meta = {'grade': grade, 'grade_id': grade_id, 'locked': not solution,
            'schema_version': 3, 'solution': solution, 'task': False}
    if points is not None:
        meta['points'] = points
    return {'nbgrader': meta}


def _split_exercise(lines: list[str], where: str) -> tuple[list[str], list[str], list[str],
                                                           list[str]]:
    """(before, stub, solution, after) of an exercise block."""
    try:
        i_stub = lines.index('### STUB')
        i_begin = lines.index('### BEGIN SOLUTION')
        i_end = lines.index('### END SOLUTION')
    except ValueError as error:
        raise ValueError(f'{where}: an exercise needs ### STUB, ### BEGIN SOLUTION and '
                         '### END SOLUTION lines') from error
    if not i_stub < i_begin < i_end:
        raise ValueError(f'{where}: expected ### STUB, then BEGIN SOLUTION, then END SOLUTION')
    return (lines[:i_stub], lines[i_stub + 1:i_begin], lines[i_begin + 1:i_end],
            lines[i_end + 1:])


def parse(text: str, where: str) -> list[dict]:
    """The cells of a source: dicts with kind, lines and (for exercises) grade_id/points."""
    cells: list[dict] = []
    prose: list[str] = []

    def flush_prose() -> None:
        body = '\n'.join(prose).strip('\n')
        if body.strip():
            cells.append({'kind': 'markdown', 'lines': body.split('\n')})
        prose.clear()

    lines = text.split('\n')
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match is None:
            if lines[i].strip() == '+++':
                flush_prose()
            else:
                prose.append(lines[i])
            i += 1
            continue
        flush_prose()
        try:
            end = lines.index('```', i + 1)
        except ValueError as error:
            raise ValueError(f'{where}:{i + 1}: code block never closed') from error
        kind, grade_id, points = match.group(1) or 'code', match.group(2), match.group(3)
        if kind == 'check' and points is None:
            raise ValueError(f'{where}:{i + 1}: a check needs points')
        cells.append({'kind': kind, 'lines': lines[i + 1:end], 'grade_id': grade_id,
                      'points': int(points) if points else None, 'where': f'{where}:{i + 1}'})
        i = end + 1
    flush_prose()
    return cells


def _source(lines: list[str]) -> list[str]:
    text = '\n'.join(lines).strip('\n')
    parts = text.split('\n')
    return [p + '\n' for p in parts[:-1]] + [parts[-1]]


def build(cells: list[dict], stem: str, *, solutions: bool) -> dict:
    """The notebook (as JSON-ready dict) of one lesson, learner or solutions form."""
    out = [{'cell_type': 'code', 'execution_count': None, 'id': f'{stem[:2]}-install',
            'metadata': {}, 'outputs': [], 'source': _source(INSTALL_CELL.split('\n'))}]
    first_code = True
    for n, cell in enumerate(cells):
        cid = f'{stem[:2]}-{n:02d}'
        if cell['kind'] == 'markdown':
            out.append({'cell_type': 'markdown', 'id': cid, 'metadata': {},
                        'source': _source(cell['lines'])})
            continue
        metadata: dict = {}
        lines = list(cell['lines'])
        if cell['kind'] == 'exercise':
            before, stub, answer, after = _split_exercise(lines, cell['where'])
            middle = (['### BEGIN SOLUTION', *answer, '### END SOLUTION'] if solutions
                      else stub)
            lines = before + middle + after
            # grade ids are unique per notebook: the answer cell gets its own
            metadata = _nbgrader(f"{cell['grade_id']}_answer", solution=True, grade=False,
                                 points=None)
        elif cell['kind'] == 'check':
            metadata = _nbgrader(cell['grade_id'], solution=False, grade=True,
                                 points=cell['points'])
        text = '\n'.join(lines)
        if solutions and first_code:
            text += SOLUTION_STRICT
        first_code = False
        out.append({'cell_type': 'code', 'execution_count': None, 'id': cid,
                    'metadata': metadata, 'outputs': [], 'source': _source(text.split('\n'))})
    return {
        'cells': out,
        'metadata': {
            'kernelspec': {'display_name': 'Python 3 (ipykernel)', 'language': 'python',
                           'name': 'python3'},
            'language_info': {'name': 'python', 'pygments_lexer': 'ipython3'},
        },
        'nbformat': 4,
        'nbformat_minor': 5,
    }


def dumps(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + '\n'


def notebooks() -> dict[Path, str]:
    """Every notebook path and its text, built from the sources (nothing is written)."""
    result = {}
    for src in sorted(SOURCES.glob('[0-9A][0-9]_*.md')):
        cells = parse(src.read_text(encoding='utf-8'), src.name)
        setup_cell = next(c for c in cells if c['kind'] != 'markdown')
        if not any(line.startswith(CHECKS_IMPORT) for line in setup_cell['lines']):
            raise ValueError(f'{src.name}: the first code cell must say {CHECKS_IMPORT!r}')
        result[HERE / f'{src.stem}.ipynb'] = dumps(build(cells, src.stem, solutions=False))
        result[SOLUTIONS / f'{src.stem}.ipynb'] = dumps(build(cells, src.stem, solutions=True))
    return result


def main() -> int:
    SOLUTIONS.mkdir(exist_ok=True)
    for path, text in notebooks().items():
        if not path.exists() or path.read_text(encoding='utf-8') != text:
            path.write_text(text, encoding='utf-8')
            print(f'wrote {path.relative_to(HERE.parent)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
