"""``autograd-lab assignments`` (issue 32): what it writes, and what it keeps from students.

The grading loops themselves (nbgrader, otter) are in tests/test_grading_loops.py; here the
export of one lesson (the first main-path lesson with a code answer, found from the
notebooks) and the command without the grading extra.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from autograd_lab_lessons import assignments, grading, grading_hooks, hidden_tests, lessons
from autograd_lab_lessons.cli import main
from autograd_lab_lessons.path import MAIN_PATH
from without_modules import run_without

pytest.importorskip('nbclient', reason='needs the grading extra: pip install -e ".[grading]"')


def _first_with_hidden() -> str:
    for stem in MAIN_PATH:
        lesson = assignments.read_lesson(stem)
        if any(assignments._probe(check) for check in lesson.checks):
            return stem
    raise AssertionError('no main-path lesson has a code answer')


@pytest.fixture(scope='module')
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, dict]:
    stem = _first_with_hidden()
    out = tmp_path_factory.mktemp('course')
    written = assignments.export('nbgrader', out, [stem])
    notebook = json.loads(written[0].path.read_text())
    return stem, out, notebook


def _cells(notebook: dict, key: str) -> list[dict]:
    return [c for c in notebook['cells'] if c['metadata'].get('nbgrader', {}).get(key)]


def test_nbgrader_course_layout_and_cells(exported) -> None:
    stem, out, notebook = exported
    assert (out / 'source' / stem / f'{stem}.ipynb').is_file()
    assert 'ClearSolutions.code_stub' in (out / 'nbgrader_config.py').read_text()
    lesson = assignments.read_lesson(stem)
    graded = _cells(notebook, 'grade')
    assert [(c['metadata']['nbgrader']['grade_id'], c['metadata']['nbgrader']['points'])
            for c in graded] == [(c.grade_id, c.points) for c in lesson.checks]
    assert all(c['metadata']['nbgrader']['locked'] for c in graded)
    for cell in _cells(notebook, 'solution'):
        text = ''.join(cell['source'])
        assert text.count('### BEGIN SOLUTION') == 1 and '...' in text.split('### BEGIN')[0]
    # the solution notebooks' strict line is gone: a student practising gets feedback
    assert not any(re.search(r'^checks\.STRICT = True', ''.join(c['source']), re.M)
                   for c in notebook['cells'])


def test_hidden_tests_only_in_the_instructor_copy(exported) -> None:
    """The notebook holds each hidden test's request, never a point or a value; the
    course's grading files (secret, probes) lie beside the notebooks, in no notebook."""
    stem, out, notebook = exported
    hidden = [''.join(c['source']).split('### BEGIN HIDDEN TESTS\n')[1]
              for c in _cells(notebook, 'grade') if '### BEGIN HIDDEN TESTS' in
              ''.join(c['source'])]
    assert hidden and all(grading.HIDDEN_LINE.match(h) for h in hidden)
    secret = (out / '.autograd-lab' / 'secret').read_bytes()
    assert len(secret) == 64 and (out / '.autograd-lab' / 'secret').stat().st_mode & 0o077 == 0
    assert (out / '.autograd-lab' / 'hidden_tests.py').read_text() == \
        Path(hidden_tests.__file__).read_text()
    assert secret.decode() not in json.dumps(notebook)
    student = json.loads(next(p for p in lessons() if p.name == f'{stem}.ipynb').read_text())
    assert 'HIDDEN' not in json.dumps(student)


def test_hidden_tests_are_drawn_for_each_student_from_the_reference(exported) -> None:
    """At grading, a student's hidden points follow from the secret and their id, and the
    values from the reference run in a separate process (the course's own copy of the
    probes); another student gets other points; a wrong answer fails with the hint."""
    stem, out, _ = exported
    reference = out / 'source' / stem / f'{stem}.ipynb'
    ada = grading_hooks.hidden_for(out / '.autograd-lab', reference, 'ada')
    bob = grading_hooks.hidden_for(out / '.autograd-lab', reference, 'bob')
    assert ada and ada.keys() == bob.keys() and ada != bob
    assert ada == grading_hooks.hidden_for(out / '.autograd-lab', reference, 'ada')
    grade_id, code = next(iter(ada.items()))
    check = next(c for c in assignments.read_lesson(stem).checks if c.grade_id == grade_id)
    assert check.argument == 'central_difference'  # lesson 1's code answer
    grader = grading.private_checks()
    scope = {'agl_grader': grader,
             'central_difference': lambda f, x, h: (f(x + h) - f(x - h)) / (2 * h)}
    exec(code, scope)  # the right answer passes
    with pytest.raises(AssertionError, match='Hidden test: at other points'):
        exec(code, {**scope, 'central_difference': lambda f, x, h: (f(x + h) - f(x)) / h})
    with pytest.raises(AssertionError, match=r'ZeroDivisionError.*Hidden test'):
        exec(code, {**scope, 'central_difference': lambda f, x, h: 1 / 0})
    # without the secret there is nothing to draw from: no hidden test (they then fail)
    assert grading_hooks.hidden_for(out / 'nowhere', reference, 'ada') == {}


def test_unknown_format_is_refused(tmp_path) -> None:
    with pytest.raises(SystemExit):
        main(['assignments', '--format', 'moodle', str(tmp_path)])


@pytest.mark.parametrize('tool', ['nbgrader', 'otter'])
def test_without_the_extra_the_command_names_the_install(tool, tmp_path) -> None:
    done = run_without({tool}, 'import sys\nfrom autograd_lab_lessons.cli import main\n'
                       f'sys.exit(main(["assignments", "--format", "{tool}", "out"]))',
                       tmp_path, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].strip() == 'pip install "autograd-lab[grading]"'
    assert not (tmp_path / 'out').exists()


# ---- a second export never destroys work (issue 40) ------------------------------------------

def test_export_over_a_course_refuses_updates_or_forces(exported, tmp_path, capsys) -> None:
    stem, first, _ = exported
    out = tmp_path / 'course'
    shutil.copytree(first, out)
    path = out / 'source' / stem / f'{stem}.ipynb'
    original = path.read_bytes()
    secret = (out / '.autograd-lab' / 'secret').read_bytes()
    # no flag: refused before anything is written, the message names both ways on
    with pytest.raises(assignments.CourseExists, match=r'--update .* --force'):
        assignments.export('nbgrader', out, [stem])
    assert main(['assignments', '--format', 'nbgrader', str(out)]) == 1
    said = capsys.readouterr().err
    assert f'source/{stem}/{stem}.ipynb' in said and 'nothing was written' in said
    assert path.read_bytes() == original
    # --update of a notebook nobody edited: refreshed (the same)
    done, = assignments.export('nbgrader', out, [stem], update=True)
    assert done.action == 'unchanged' and path.read_bytes() == original
    # the teacher edits it: --update keeps it as it is and says so
    notebook = json.loads(original)
    notebook['cells'].insert(1, {'cell_type': 'markdown', 'id': 'mine', 'metadata': {},
                                 'source': ['My own note for this class.']})
    path.write_text(json.dumps(notebook), encoding='utf-8')
    edited = path.read_bytes()
    done, = assignments.export('nbgrader', out, [stem], update=True)
    assert done.action == 'kept' and path.read_bytes() == edited
    # --force overwrites: the edit is gone; the course's secret is kept
    done, = assignments.export('nbgrader', out, [stem], force=True)
    assert done.action == 'overwritten'
    assert 'My own note' not in path.read_text() and path.read_bytes() == original
    assert (out / '.autograd-lab' / 'secret').read_bytes() == secret
    # what the export wrote is recorded beside the notebooks, never in one (a student's copy)
    record = json.loads((out / assignments.RECORD).read_text())
    assert list(record) == [f'source/{stem}/{stem}.ipynb']
    assert not [v for v in record.values() if v in path.read_text()]
    # with no record, a notebook counts as edited: kept
    (out / assignments.RECORD).unlink()
    forced = path.read_bytes()
    done, = assignments.export('nbgrader', out, [stem], update=True)
    assert done.action == 'kept' and path.read_bytes() == forced
    with pytest.raises(ValueError, match='choose one'):
        assignments.export('nbgrader', out, [stem], update=True, force=True)


def test_update_adds_a_missing_lesson_and_says_what_it_did(exported, tmp_path, capsys) -> None:
    stem, first, _ = exported
    out = tmp_path / 'course'
    shutil.copytree(first, out)
    assert main(['assignments', '--format', 'nbgrader', '--update', str(out)]) == 0
    said = capsys.readouterr().out
    assert f'source/{stem}/{stem}.ipynb: unchanged' in said
    others = [s for s in MAIN_PATH if s != stem]
    assert all(f'source/{s}/{s}.ipynb: written' in said for s in others)
    assert all((out / 'source' / s / f'{s}.ipynb').is_file() for s in others)
