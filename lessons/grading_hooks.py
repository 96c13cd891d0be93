"""What nbgrader and otter run on a submission before its cells, outside the student's kernel.

Before a submission runs, :func:`prepare` (the nbgrader step :class:`ScanSubmission`, the
otter plugin :class:`GradingIntegrity`):

1. scans the student's cells (:mod:`autograd_lab_lessons.tamper_scan`): the checks after a
   finding score 0, and the teacher's report names the cell and line;
2. writes each hidden test for this student (:func:`hidden_for`): its points drawn from the
   course's secret and the student's id, the expected values computed by the reference
   solution there, in a separate process, from the instructor's files (the assignment's
   instructor notebook and the course's copy of ``hidden_tests.py``);
3. binds the private checkers (:mod:`autograd_lab_lessons.grading`) in a new first cell,
   under a name drawn now, which only the test cells are given.

The course's files, beside the assignments (written by ``autograd-lab assignments``):
:data:`FOLDER`/``secret`` and :data:`FOLDER`/``hidden_tests.py``; an otter autograder
carries them (and the reference) as its own files.

>>> nb = {'cells': [{'cell_type': 'code', 'metadata': {}, 'source': 'import numpy as np'},
...                 {'cell_type': 'code', 'metadata': {}, 'source': 'np.isclose = print'}]}
>>> done = prepare(nb, {})
>>> [str(f) for f in done.findings]
['cell 1, line 1: assigns np.isclose (numpy): a module the checks use']
>>> nb['cells'][0]['source'].startswith('from autograd_lab_lessons.grading import')
True
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograd_lab_lessons import grading
from autograd_lab_lessons.tamper_scan import Finding, fail_checks_after, scan_notebook

__all__ = ['FOLDER', 'GradingIntegrity', 'Prepared', 'ScanSubmission', 'hidden_for',
           'prepare']

#: The course's grading files, in the course folder (nbgrader) or the autograder (otter).
FOLDER = '.autograd-lab'
#: The tag of the assignment's own binding cell (replaced at grading).
BINDING_TAG = 'agl-grader-binding'
_LOG = logging.getLogger(__name__)
_CHECK_CELL = re.compile(r'grader\.check\(["\'](\w+)["\']\)')


@dataclass
class Prepared:
    """What :func:`prepare` did: the findings, the name the checkers got, the hidden
    tests written and the ones still missing."""

    findings: list[Finding]
    name: str
    hidden: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def report(self) -> str:
        """The teacher's report: each finding with cell and line, and missing tests."""
        lines = [f'autograd-lab: tampering with the grading machinery, {f}'
                 for f in self.findings]
        lines += [f'autograd-lab: hidden test {g} could not be prepared' for g in self.missing]
        return '\n'.join(lines)


def _source(cell: dict) -> str:
    source = cell.get('source', '')
    return ''.join(source) if isinstance(source, list) else source


def _locked_test(cell: dict) -> bool:
    meta = cell.get('metadata', {}).get('nbgrader', {})
    return bool(meta.get('grade')) and not meta.get('solution')


def fill_hidden(text: str, codes: dict[str, str], done: list[str],
                missing: list[str]) -> str:
    """``text`` with each hidden test's request replaced by its code from ``codes``
    (requests with no code stay: they fail while grading)."""
    def one(match: re.Match) -> str:
        grade_id = match.group(1)
        if grade_id in codes:
            done.append(grade_id)
            return codes[grade_id]
        missing.append(grade_id)
        return match.group(0)
    return grading.HIDDEN_LINE.sub(one, text)


def prepare(notebook: Any, codes: dict[str, str], *, nbgrader: bool = False) -> Prepared:
    """Prepares ``notebook`` (in place) for grading; ``codes``: the hidden tests' code by
    grade id (:func:`hidden_for`).  With ``nbgrader``, the test cells after a finding are
    made to fail, naming it (otter's are scored by :class:`GradingIntegrity`)."""
    cells = notebook['cells']
    for cell in cells:  # the notebook's own binding: replaced by the first cell below
        if BINDING_TAG in cell.get('metadata', {}).get('tags', []) or \
                _source(cell) == grading.BIND:
            cell['source'] = '# the graded checks are bound in the first cell'
    findings = scan_notebook(notebook)
    done = Prepared(findings, '')
    tests = [cell for cell in cells if _locked_test(cell)]
    for cell in tests:
        cell['source'] = fill_hidden(_source(cell), codes, done.hidden, done.missing)
    if nbgrader:
        fail_checks_after(notebook, findings)
    first = {'cell_type': 'code', 'execution_count': None, 'metadata': {}, 'outputs': [],
             'source': grading.BIND, 'id': 'agl-grader'}
    cells.insert(0, _node(first, notebook))
    sources, done.name = grading.hide([_source(c) for c in [cells[0], *tests]])
    for cell, source in zip([cells[0], *tests], sources):
        cell['source'] = source
    return done


def _node(cell: dict, notebook: Any) -> Any:
    """``cell`` as the notebook's own kind of cell (nbformat's node where it is one)."""
    if type(notebook) is dict:
        return cell
    import nbformat  # noqa: PLC0415 - the graders bring it
    return nbformat.from_dict(cell)


def hidden_for(folder: Path, reference: Path, student: str) -> dict[str, str]:
    """The hidden tests' code for ``student``, by grade id: ``folder``'s
    ``hidden_tests.py`` run in a process of its own on the ``reference`` notebook, with
    ``folder``'s secret.  Empty (every hidden test then fails) if anything is missing."""
    probes, secret = folder / 'hidden_tests.py', folder / 'secret'
    if not (probes.is_file() and secret.is_file() and reference.is_file()):
        _LOG.warning('autograd-lab: no hidden tests: %s, %s or %s is missing', probes, secret,
                     reference)
        return {}
    done = subprocess.run([sys.executable, str(probes), str(reference), str(secret), student],
                          capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        _LOG.warning('autograd-lab: the reference run failed:\n%s', done.stderr[-3000:])
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1])


try:  # the graders' own classes; neither is needed to import this module
    from nbconvert.preprocessors import Preprocessor as _Preprocessor
except ImportError:  # pragma: no cover - the notebook extra brings nbconvert
    _Preprocessor = object  # type: ignore[assignment,misc]


class ScanSubmission(_Preprocessor):  # type: ignore[misc,valid-type]
    """nbgrader's sanitize step (after nbgrader restored the locked cells): :func:`prepare`,
    the findings and missing hidden tests in nbgrader's log."""

    def __call__(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        # always on (nbconvert's preprocessors are off unless enabled): a course that
        # lists this step means it
        return self.preprocess(nb, resources)

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        graded = resources.get('nbgrader', {})
        root = Path(self._root())
        codes = {}
        if graded.get('assignment'):
            reference = root / 'source' / graded['assignment'] / f'{graded["notebook"]}.ipynb'
            codes = hidden_for(root / FOLDER, reference, str(graded.get('student', '')))
        done = prepare(nb, codes, nbgrader=True)
        for line in done.report().splitlines():
            self.log.warning('%s', line)
        return nb, resources

    def _root(self) -> str:
        course = getattr(self, 'config', {}).get('CourseDirectory', {})
        root = course.get('root') if hasattr(course, 'get') else None
        return root if isinstance(root, str) and root else os.getcwd()


def _otter_test(text: str, codes: dict[str, str], done: Prepared) -> str:
    """An otter test file (OK format: ``test = {...}``, each case's code a doctest) with
    each hidden test's request replaced by one doctest line that runs its code."""
    scope: dict = {}
    exec(text, scope)  # the autograder's own file, written by otter assign
    for suite in scope['test'].get('suites', []):
        for case in suite.get('cases', []):
            code = case.get('code', '').strip()
            line = code[4:] if code.startswith('>>> ') else code
            found = grading.HIDDEN_LINE.match(line)
            if not found:
                continue
            if found.group(1) in codes:
                done.hidden.append(found.group(1))
                hidden = grading.hide([codes[found.group(1)]], done.name)[0][0]
                case['code'] = f'>>> {done.name}.run({hidden!r}, globals())\n'
            else:
                done.missing.append(found.group(1))
    return f'OK_FORMAT = {scope.get("OK_FORMAT", True)!r}\n\ntest = {scope["test"]!r}\n'


try:
    from otter.plugins import AbstractOtterPlugin as _Plugin
except ImportError:  # pragma: no cover - otter is the grading extra's
    _Plugin = object  # type: ignore[assignment,misc]


class GradingIntegrity(_Plugin):  # type: ignore[misc,valid-type]
    """otter's plugin (``plugins:`` in the assignment's config): :func:`prepare` before
    the submission runs, its hidden tests written into the autograder's test files, the
    questions checked after a finding scored 0, and the report in the results."""

    def before_grading(self, config: Any) -> None:
        os.environ['AUTOGRAD_LAB_GRADING'] = '1'  # the kernel, started after, inherits it

    def before_execution(self, submission: Any) -> Any:
        here = Path(self.submission_path).parent
        folder = next((p / FOLDER for p in (here, *here.parents) if (p / FOLDER).is_dir()),
                      here / FOLDER)
        codes = hidden_for(folder, folder / 'reference.ipynb', self._student())
        checked = {q: i for i, cell in enumerate(submission['cells'])
                   for q in _CHECK_CELL.findall(_source(cell))}
        end = len(submission['cells'])
        self.done = prepare(submission, codes)
        if folder.parent == here and folder.is_dir():  # the reference and the secret: gone
            shutil.rmtree(folder)                      # before any student code runs
        for path in sorted((here / 'tests').glob('*.py')):
            text = _otter_test(path.read_text(encoding='utf-8'), codes, self.done)
            path.write_text(grading.hide([text], self.done.name)[0][0], encoding='utf-8')
        first = min((f.cell for f in self.done.findings), default=None)
        self.zeroed = set()
        if first is not None:
            tests = {p.stem for p in (here / 'tests').glob('*.py')}
            self.zeroed = {q for q in tests if checked.get(q, end) > first}
        return submission

    def after_grading(self, results: Any) -> None:
        for question in sorted(self.zeroed):
            if question in results.results:
                results.update_score(question, 0)
        report = self.generate_report()
        if report:
            results.set_output(report)

    def generate_report(self) -> str:
        done = getattr(self, 'done', None)
        if done is None:
            return ''
        zeroed = ', '.join(sorted(self.zeroed))
        return done.report() + (f'\nautograd-lab: scored 0: {zeroed}' if zeroed else '')

    def _student(self) -> str:
        """The student's id: ``AUTOGRAD_LAB_STUDENT``, else the submission's metadata
        (Gradescope's users), else the submission file's name."""
        users = (self.submission_metadata or {}).get('users') or [{}]
        return (os.environ.get('AUTOGRAD_LAB_STUDENT') or str(
            users[0].get('email') or users[0].get('id') or '') or
            Path(self.submission_path).stem)
