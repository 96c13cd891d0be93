"""The marimo version of lesson 1 (lessons/marimo/01_variables_and_derivatives.py) runs.

As a script (``python lesson.py`` runs every cell, as ``marimo export`` would) it exits
cleanly with nothing on stderr, as the learner gets it (exercises not done: the checks
say "not done yet") and with the reference answers filled in, where every check must
pass (``checks.STRICT``: anything else raises).  ``marimo check`` finds nothing wrong
with its format.  tests/browser/test_browser_marimo.py steps its graph in a real page.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip('marimo')

REPO = Path(__file__).resolve().parent.parent
LESSON = REPO / 'lessons' / 'marimo' / '01_variables_and_derivatives.py'

# The learner's placeholders and the reference answers (those of the Jupyter lesson,
# with the names marimo needs).
ANSWERS = {
    '        return ...\n': '        return (f(x + h) - f(x - h)) / (2 * h)\n',
    '    prediction = ...  # xa.grad after one more ya.backward()\n': '    prediction = 16\n',
    '    grad = ...  # build _x, _y, seed _y.grad, call _y.backward(), then: grad = _x.grad\n':
        '    _x = Variable(np.array([-1, 0, 2], dtype=np.float32))\n'
        '    _y = _x**3 - 3*_x\n'
        '    _y.grad = np.ones_like(_y.array)\n'
        '    _y.backward()\n'
        '    grad = _x.grad\n',
    '    from autograd_lab_lessons import checks  # the exercise checkers\n':
        '    from autograd_lab_lessons import checks  # the exercise checkers\n'
        '    checks.STRICT = True  # a rejected answer raises\n',
}


def run(script: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, 'MARIMO_SKIP_UPDATE_CHECK': '1'}
    return subprocess.run([sys.executable, str(script)], cwd=script.parent, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_lesson_runs_as_a_script_as_the_learner_gets_it():
    done = run(LESSON)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ''
    assert 'backward gave : [8.]' in done.stdout
    assert '(do exercise 1.1 first)' in done.stdout  # the exercises wait for the learner


def test_the_reference_answers_pass_every_check(tmp_path):
    text = LESSON.read_text(encoding='utf-8')
    for stub, answer in ANSWERS.items():
        assert text.count(stub) == 1, stub
        text = text.replace(stub, answer)
    solved = tmp_path / LESSON.name
    solved.write_text(text, encoding='utf-8')
    done = run(solved)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ''
    assert 'measured slope: 8.0' in done.stdout
    assert 'engine  : [ 0. -3.  9.]' in done.stdout


def test_marimo_check_finds_nothing():
    done = subprocess.run([sys.executable, '-m', 'marimo', 'check', str(LESSON)],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, 'MARIMO_SKIP_UPDATE_CHECK': '1'})
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
