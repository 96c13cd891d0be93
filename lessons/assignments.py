"""Graded assignments from the lessons, for nbgrader or otter-grader.

``autograd-lab assignments --format nbgrader|otter OUT`` writes the main-path lessons
(:data:`autograd_lab_lessons.path.MAIN_PATH`) as instructor notebooks, one assignment
per lesson, named by its notebook stem:

* every exercise is a solution region (the lesson's placeholder stays above it, so the
  student copy reads like the lesson) and every check a locked test cell with its points
  and grade id, which calls the private copy of its checker (``agl_grader.test``,
  :mod:`autograd_lab_lessons.grading`; a locked cell after the install cell binds it, and
  at grading a new first cell under a name drawn then): a wrong or unfinished answer
  raises ``AssertionError`` carrying the hint;
* every check of an answer that is code also gets a hidden test
  (:mod:`autograd_lab_lessons.hidden_tests`): the notebook holds only its request; at
  grading, the points are drawn for the student from the course's secret and the values
  computed by the reference solution in a separate process
  (:mod:`autograd_lab_lessons.grading_hooks`).  Beside the notebooks, the course's grading
  files (``.autograd-lab/``: the secret, drawn once and kept, and a copy of
  ``hidden_tests.py``; for otter also the reference, as the autograder's own files).

``nbgrader``: ``OUT`` is a course folder (``nbgrader_config.py``,
``source/<stem>/<stem>.ipynb``) ready for ``nbgrader generate_assignment <stem>``.
``otter``: ``OUT/<stem>/<stem>.ipynb`` in otter's format, ready for
``otter assign OUT/<stem>/<stem>.ipynb DIST``.

Notebooks already in ``OUT`` are never written over silently: the command refuses unless
``--update`` (notebooks edited since they were written are kept as they are; the others
are refreshed) or ``--force`` (overwritten).  Neither draws a new course secret.

This module, :mod:`.hidden_tests` and the solutions are only in a clone: the installed
package (what students install) carries none of them.

Both need the ``grading`` extra (nbgrader, otter-grader, and nbclient to run the
solutions): ``pip install "autograd-lab[grading]"``.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import os
import re
import secrets
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autograd_lab_lessons import checks, grading, hidden_tests, lessons
from autograd_lab_lessons.grading_hooks import BINDING_TAG, FOLDER
from autograd_lab_lessons.path import MAIN_PATH

FORMATS = ('nbgrader', 'otter')
#: What installs the grading tools.
INSTALL_COMMAND = 'pip install "autograd-lab[grading]"'
_NEEDED = {'nbgrader': ('nbgrader', 'nbclient'), 'otter': ('otter', 'nbclient')}
#: The line of a check cell that calls its checker: checks.NAME(ARGUMENT).
_CALL = re.compile(r'^checks\.(\w+)\((.*)\)\s*$')
#: The line the solution notebooks add so that a rejected reference answer stops them.
_STRICT_LINE = re.compile(r'^checks\.STRICT = True\b')
#: Where the lessons' first cell installs the package from (Colab); the graders get the same.
_PIP_URL = re.compile(r'%pip install --quiet "autograd-lab\[\w+\] @ (\S+)"')
#: nbgrader puts this where the answer was, under the lesson's own placeholder.
CODE_STUB = '# Your answer: replace the ... above.'


@dataclass
class Check:
    """A graded cell: where it is, its id and points, its checker and the answer it gets."""

    index: int
    grade_id: str
    points: int
    checker: str
    argument: str
    answer: int | None  # the index of the answer cell it checks (None: an earlier one's)
    hidden: str = ''    # the hidden test's request, if the answer is code


@dataclass
class Lesson:
    """One lesson's solution notebook, its answers split up, and its checks."""

    stem: str
    notebook: dict
    #: answer cell index -> (lines before, the learner's placeholder, the answer, after)
    answers: dict[int, tuple[list[str], list[str], list[str], list[str]]]
    checks: list[Check] = field(default_factory=list)

    @property
    def points(self) -> int:
        return sum(check.points for check in self.checks)


def _lines(cell: dict) -> list[str]:
    return ''.join(cell['source']).split('\n')


def _source(lines: list[str]) -> list[str]:
    return [line + '\n' for line in lines[:-1]] + lines[-1:]


def _grading(cell: dict) -> dict:
    return cell.get('metadata', {}).get('nbgrader', {})


def read_lesson(stem: str) -> Lesson:
    """The lesson ``stem`` from the installed package: its solution notebook, and the
    learner notebook's placeholder for each answer."""
    solution = json.loads(_notebook(stem, solutions=True).read_text(encoding='utf-8'))
    learner = json.loads(_notebook(stem, solutions=False).read_text(encoding='utf-8'))
    learner_cells = {cell.get('id'): cell for cell in learner['cells']}
    lesson = Lesson(stem, solution, {})
    pending: int | None = None
    for index, cell in enumerate(solution['cells']):
        meta = _grading(cell)
        if meta.get('solution'):
            lines = _lines(cell)
            begin, end = lines.index('### BEGIN SOLUTION'), lines.index('### END SOLUTION')
            before, answer, after = lines[:begin], lines[begin + 1:end], lines[end + 1:]
            mine = _lines(learner_cells[cell['id']])
            stub = mine[len(before):len(mine) - len(after)]
            lesson.answers[index] = (before, stub, answer, after)
            pending = index
        elif meta.get('grade'):
            call = next((_CALL.match(line) for line in reversed(_lines(cell))
                         if line.strip()), None)
            if call is None:
                raise ValueError(f'{stem}: check {meta["grade_id"]} does not end with '
                                 'checks.NAME(ANSWER)')
            lesson.checks.append(Check(index, meta['grade_id'], int(meta['points']),
                                       call.group(1), call.group(2), pending))
            pending = None
    return lesson


def _notebook(stem: str, *, solutions: bool):
    found = [path for path in lessons(solutions=solutions) if path.name == f'{stem}.ipynb']
    if not found:
        raise ValueError(f'no lesson {stem!r} in the installed package')
    return found[0]


def _probe(check: Check) -> hidden_tests.Probe | None:
    if not check.argument.isidentifier():
        return None
    return hidden_tests.PROBES.get(hidden_tests.probe_key(checks.ALL[check.checker]))


def _with_answers(lesson: Lesson) -> list[dict]:
    """The cells with each answer as a solution region under the learner's placeholder,
    and the solution notebooks' strict line dropped (nbgrader's student copy keeps code
    outside solution regions, and a student practising must get feedback, not errors)."""
    cells = copy.deepcopy(lesson.notebook['cells'])
    for cell in cells:
        if cell['cell_type'] == 'code' and not _grading(cell):
            kept = [line for line in _lines(cell) if not _STRICT_LINE.match(line)]
            cell['source'] = _source(kept)
    for index, (before, stub, answer, after) in lesson.answers.items():
        cells[index]['source'] = _source(
            [*before, *stub, '### BEGIN SOLUTION', *answer, '### END SOLUTION', *after])
    return cells


def _hidden_requests(lesson: Lesson) -> None:
    """Fills each code answer's ``check.hidden``: the request its test is written from at
    grading (:data:`autograd_lab_lessons.grading.HIDDEN`)."""
    for check in lesson.checks:
        probe = _probe(check)
        check.hidden = grading.HIDDEN.format(
            grade_id=check.grade_id, argument=check.argument,
            probe=hidden_tests.probe_key(checks.ALL[check.checker])) if probe else ''


def _binding(nbgrader: bool) -> dict:
    """The locked cell after the install cell that binds the private checkers."""
    meta: dict = {'tags': [BINDING_TAG]}
    if nbgrader:
        meta['nbgrader'] = {'grade': False, 'grade_id': 'agl_grader_binding', 'locked': True,
                            'schema_version': 3, 'solution': False, 'task': False}
    return {'cell_type': 'code', 'execution_count': None, 'id': 'agl-grader-binding',
            'metadata': meta, 'outputs': [], 'source': _source(grading.BIND.split('\n'))}


def _test(check: Check, **options: object) -> str:
    """The check cell's call of the private checker: ``AssertionError`` whose message is
    the verdict with its hint on anything but a right answer."""
    extra = ''.join(f', {key}={value!r}' for key, value in options.items())
    return f'{grading.NAME}.test({check.checker!r}, {check.argument}{extra})'


def nbgrader_notebook(lesson: Lesson) -> dict:
    """The nbgrader source notebook: solution regions, locked graded test cells (nbgrader
    turns strict mode on itself while it grades), hidden tests in their own region."""
    cells = _with_answers(lesson)
    for check in lesson.checks:
        hidden = ['### BEGIN HIDDEN TESTS', check.hidden, '### END HIDDEN TESTS']
        cells[check.index]['source'] = _source([_test(check), *(hidden if check.hidden
                                                                 else [])])
    cells.insert(1, _binding(nbgrader=True))
    return {**lesson.notebook, 'cells': cells}


def _raw(text: str) -> dict:
    return {'cell_type': 'raw', 'metadata': {}, 'source': _source(text.split('\n'))}


def _code(lines: list[str]) -> dict:
    return {'cell_type': 'code', 'execution_count': None, 'metadata': {}, 'outputs': [],
            'source': _source(lines)}


#: The otter autograder's own files (not the students'), beside the master notebook.
OTTER_FILES = ('secret', 'hidden_tests.py', 'reference.ipynb')


def otter_notebook(lesson: Lesson, requirement: str) -> dict:
    """The otter master notebook: a question per check, its answer as a solution whose
    prompt is the lesson's placeholder, its call and its hidden test as test cells; the
    plugin :class:`~autograd_lab_lessons.grading_hooks.GradingIntegrity` and the grading
    files (:data:`OTTER_FILES`) in its config."""
    config = '\n'.join(['# ASSIGNMENT CONFIG', f'name: {lesson.stem}', 'requirements:',
                        f'  - {json.dumps(requirement)}', 'export_cell: false',
                        'check_all_cell: false', 'runs_on: default', 'plugins:',
                        '  - autograd_lab_lessons.grading_hooks.GradingIntegrity',
                        'autograder_files:',
                        *(f'  - {FOLDER}/{name}' for name in OTTER_FILES)])
    source = _with_answers(lesson)
    by_index = {check.index: check for check in lesson.checks}
    answer_of = {check.answer: check for check in lesson.checks if check.answer is not None}
    cells = [_raw(config)]
    for index, cell in enumerate(source):
        cell = {key: value for key, value in cell.items() if key != 'id'}
        cell['metadata'] = {key: value for key, value in cell['metadata'].items()
                            if key != 'nbgrader'}
        if index in answer_of:
            check = answer_of[index]
            before, stub, answer, after = lesson.answers[index]
            cells += [_raw(f'# BEGIN QUESTION\nname: {check.grade_id}\npoints: '
                           f'{check.points}'),
                      _raw('# BEGIN SOLUTION'),
                      {**cell, 'source': _source([
                          *before, '# BEGIN SOLUTION NO PROMPT', *answer, '# END SOLUTION',
                          '""" # BEGIN PROMPT', *stub, '""" # END PROMPT', *after])},
                      _raw('# END SOLUTION')]
        elif index in by_index:
            check = by_index[index]
            if check.answer is None:
                cells.append(_raw(f'# BEGIN QUESTION\nname: {check.grade_id}\npoints: '
                                  f'{check.points}'))
            cells += [_raw('# BEGIN TESTS'), _code([_test(check, show=False)])]
            if check.hidden:
                cells.append(_code(['# HIDDEN', check.hidden]))
            cells += [_raw('# END TESTS'), _raw('# END QUESTION')]
        else:
            cells.append(cell)
            if index == 0:
                cells.append({key: value for key, value in _binding(nbgrader=False).items()
                              if key != 'id'})
    return {**lesson.notebook, 'cells': cells}


NBGRADER_CONFIG = f'''\
"""nbgrader settings of this course (written by `autograd-lab assignments`); run nbgrader
in this folder (the course root)."""
from nbgrader.preprocessors import (CheckCellMetadata, ClearOutput, DeduplicateIds,
                                    OverwriteCells, OverwriteKernelspec)

from autograd_lab_lessons.grading_hooks import ScanSubmission

c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "autograd-lab"
# Before grading, nbgrader's own sanitize steps, then autograd-lab's (outside the
# student's kernel): the scan for code that tampers with the grading machinery (the
# checks after it score 0; the autograded notebook and the log name the cell and the
# line), each hidden test written for the student (from .autograd-lab/ and source/), and
# the private checkers bound in a new first cell.
c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec,
                                      OverwriteCells, ScanSubmission, CheckCellMetadata]
# The lesson's own placeholder stays above each answer region; this replaces the answer.
c.ClearSolutions.code_stub = {{"python": {CODE_STUB!r}}}
'''


@dataclass
class Written:
    """What :func:`export` did for one lesson: ``action`` is ``written`` (new),
    ``overwritten`` (``force``), ``updated`` / ``unchanged`` (``update``, a notebook not
    edited since it was written: refreshed) or ``kept``
    (``update``, a notebook edited since: left as it was)."""

    stem: str
    path: Path
    points: int
    checks: int
    hidden: int
    action: str = 'written'


class CourseExists(FileExistsError):
    """The export would write over notebooks already there (neither update nor force)."""


def target(fmt: str, out: Path, stem: str) -> Path:
    """Where the lesson ``stem``'s assignment notebook goes in ``out``."""
    return out / 'source' / stem / f'{stem}.ipynb' if fmt == 'nbgrader' else out / stem / \
        f'{stem}.ipynb'


#: Beside the notebooks in OUT (not in any notebook, so never in a student's copy): the
#: SHA-256 of each notebook as the export wrote it, to tell a teacher's edits later.
RECORD = '.autograd-lab-export.json'


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def _records(out: Path) -> dict[str, str]:
    try:
        return json.loads((out / RECORD).read_text(encoding='utf-8'))
    except (OSError, ValueError):
        return {}  # none (or unreadable): every notebook there counts as edited


def _edited(out: Path, path: Path) -> bool:
    """Whether a notebook differs from what the export wrote (one with no record: yes)."""
    recorded = _records(out).get(path.relative_to(out).as_posix())
    return recorded != _fingerprint(path.read_text(encoding='utf-8'))


def _refuse_overwrite(fmt: str, out: Path, stems: Sequence[str]) -> None:
    there = [target(fmt, out, stem) for stem in stems if target(fmt, out, stem).exists()]
    if there:
        names = ', '.join(str(path.relative_to(out)) for path in there)
        raise CourseExists(
            f'{out} already holds assignment notebooks ({names}); nothing was written. Run '
            'again with --update (keeps the notebooks edited since they were written; '
            'refreshes the others and adds missing lessons) or --force (overwrites them: '
            'edits are lost).')


def _grading_files(folder: Path, secret: bytes, reference: dict | None = None) -> None:
    """The course's grading files in ``folder``/.autograd-lab: the secret, a copy of
    ``hidden_tests.py`` (the probes, run at grading) and, for otter, the reference."""
    where = folder / FOLDER
    where.mkdir(parents=True, exist_ok=True)
    if not (where / 'secret').is_file():
        (where / 'secret').write_bytes(secret)
        os.chmod(where / 'secret', 0o600)
    shutil.copyfile(hidden_tests.__file__, where / 'hidden_tests.py')
    if reference is not None:
        (where / 'reference.ipynb').write_text(json.dumps(reference, indent=1) + '\n',
                                               encoding='utf-8')


def course_secret(out: Path) -> bytes:
    """The course's secret (every student's hidden points follow from it): drawn from the
    operating system the first time, kept after (delete it to draw new points)."""
    path = out / FOLDER / 'secret'
    return path.read_bytes() if path.is_file() else secrets.token_hex(32).encode()


def export(fmt: str, out: str | Path, stems: Sequence[str] = MAIN_PATH, *,
           update: bool = False, force: bool = False) -> list[Written]:
    """Writes the lessons ``stems`` as ``fmt`` assignments into ``out``, with the course's
    grading files (the secret is drawn once and kept: :func:`course_secret`).

    Notebooks already there are never written over silently: :class:`CourseExists`
    (before anything is written) unless ``update`` or ``force`` (see :class:`Written`).
    """
    if fmt not in FORMATS:
        raise ValueError(f'format must be one of {", ".join(FORMATS)}, not {fmt!r}')
    if update and force:
        raise ValueError('update and force exclude each other: choose one')
    out = Path(out)
    if not (update or force):
        _refuse_overwrite(fmt, out, stems)
    secret = course_secret(out)
    _grading_files(out, secret)
    written = []
    for stem in stems:
        path, action = target(fmt, out, stem), 'written'
        if path.exists():
            action = 'overwritten' if force else 'kept' if _edited(out, path) else 'updated'
        lesson = read_lesson(stem)
        _hidden_requests(lesson)
        hidden = sum(bool(check.hidden) for check in lesson.checks)
        if action == 'kept':
            written.append(Written(stem, path, lesson.points, len(lesson.checks), hidden,
                                   action))
            continue
        if fmt == 'nbgrader':
            notebook = nbgrader_notebook(lesson)
        else:
            notebook = otter_notebook(lesson, _requirement(lesson))
            _grading_files(path.parent, secret, nbgrader_notebook(lesson))
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + '\n'
        if action == 'updated' and path.read_text(encoding='utf-8') == text:
            action = 'unchanged'
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding='utf-8')
        records = {**_records(out), path.relative_to(out).as_posix(): _fingerprint(text)}
        (out / RECORD).write_text(json.dumps(records, indent=1, sort_keys=True) + '\n',
                                  encoding='utf-8')
        written.append(Written(stem, path, lesson.points, len(lesson.checks), hidden, action))
    if fmt == 'nbgrader':
        config = out / 'nbgrader_config.py'
        if not config.exists():  # a course's own settings are kept
            config.write_text(NBGRADER_CONFIG, encoding='utf-8')
    return written


def _requirement(lesson: Lesson) -> str:
    """What otter's grader installs: the package with the notebook extra, from where the
    lessons' first cell installs it."""
    found = _PIP_URL.search(''.join(lesson.notebook['cells'][0]['source']))
    return f'autograd-lab[notebook] @ {found.group(1)}' if found else 'autograd-lab[notebook]'


def missing_tools(fmt: str) -> list[str]:
    """The modules of the grading extra that this Python lacks for ``fmt``."""
    return [name for name in _NEEDED[fmt] if importlib.util.find_spec(name) is None]


#: What the command says of each lesson, by :attr:`Written.action`.
_SAID = {'written': 'written', 'overwritten': 'overwritten',
         'updated': 'updated from the lessons',
         'unchanged': 'unchanged', 'kept': 'kept as you edited it (not rewritten)'}


def run(fmt: str, out: str, *, update: bool = False, force: bool = False) -> int:
    """The command: export, then say what was written and what to run next."""
    missing = missing_tools(fmt)
    if missing:
        print(f'Cannot make {fmt} assignments: {", ".join(missing)} not installed in this '
              f'Python ({sys.executable}). Install the grading extra:\n    {INSTALL_COMMAND}',
              file=sys.stderr)
        return 1
    folder = Path(out).expanduser().resolve()
    try:
        done = export(fmt, folder, update=update, force=force)
    except CourseExists as exists:
        print(f'Cannot write the assignments: {exists}', file=sys.stderr)
        return 1
    for item in done:
        print(f'{item.path.relative_to(folder)}: {_SAID[item.action]}; {item.checks} checks, '
              f'{item.points} points, {item.hidden} hidden tests')
    if fmt == 'nbgrader':
        print(f'Next: cd {folder} && nbgrader generate_assignment STEM (see INSTRUCTORS.md)')
    else:
        print(f'Next: otter assign {folder}/STEM/STEM.ipynb DIST (see INSTRUCTORS.md)')
    return 0
