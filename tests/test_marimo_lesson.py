"""The marimo version of lesson 1 (lessons/marimo/01_variables_and_derivatives.py) runs.

As a script (``python lesson.py`` runs every cell, as ``marimo export`` would) it exits
cleanly with nothing on stderr, as the learner gets it (exercises not done: the checks
say "not done yet") and with the reference answers filled in, where every check must
pass (``checks.STRICT``: anything else raises).  ``marimo check`` finds nothing wrong
with its format.  tests/browser/test_browser_marimo.py steps its graph in a real page.

marimo runs every cell when a notebook opens, so the cells that show an answer (the second
backward of exercise 1.2, the measured slopes of 1.3) wait for a run button: run by
``app.run()`` they show what to do instead, and with the buttons pressed (their cells'
definitions replaced by a pressed button) they show the answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
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


#: The run buttons that gate an answer, each defined alone in its cell.
GATES = ('run_again', 'compare')


def run(script: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, 'MARIMO_SKIP_UPDATE_CHECK': '1'}
    return subprocess.run([sys.executable, str(script)], cwd=script.parent, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def solved_copy(tmp_path: Path) -> Path:
    """The lesson with the reference answers in place of the placeholders."""
    text = LESSON.read_text(encoding='utf-8')
    for stub, answer in ANSWERS.items():
        assert text.count(stub) == 1, stub
        text = text.replace(stub, answer)
    solved = tmp_path / LESSON.name
    solved.write_text(text, encoding='utf-8')
    return solved


def run_app(script: Path, pressed: tuple[str, ...]) -> tuple[list[str], float, str]:
    """Run the app with ``app.run()``, the buttons named in ``pressed`` clicked: the text
    of every cell's output, xa.grad at the end, and what the cells printed."""
    driver = script.parent / 'drive_lesson.py'
    driver.write_text(textwrap.dedent(f'''\
        import importlib.util, json, types
        spec = importlib.util.spec_from_file_location('lesson', {str(script)!r})
        lesson = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(lesson)
        clicked = types.SimpleNamespace(value=True)   # a run button just pressed
        outputs, defs = lesson.app.run(defs={{name: clicked for name in {pressed!r}}})
        shown = [getattr(o, 'text', None) or repr(o) for o in outputs]
        print('@@' + json.dumps([shown, float(defs['xa'].grad[0])]))
        '''), encoding='utf-8')
    done = run(driver)
    assert done.returncode == 0, done.stderr
    printed, _, result = done.stdout.rpartition('@@')
    shown, grad = json.loads(result)
    return shown, grad, printed


def gated_outputs(shown: list[str]) -> tuple[str, str, str]:
    """What the gated cells show, found by the section heading after them: 1.2's second
    backward and then its explanation before *More than one element*, 1.3's measured
    slopes before *See the graph*."""
    def before(heading: str, back: int = 1) -> str:
        at = [i for i, s in enumerate(shown) if f'id="{heading}"' in s]
        assert len(at) == 1, heading
        return shown[at[0] - back]
    return (before('more-than-one-element', 2), before('see-the-graph'),
            before('more-than-one-element'))


def test_the_lesson_runs_as_a_script_as_the_learner_gets_it():
    done = run(LESSON)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ''
    assert 'backward gave : [8.]' in done.stdout
    assert '(do exercise 1.1 first)' in done.stdout  # the exercises wait for the learner


def test_the_reference_answers_pass_every_check(tmp_path):
    done = run(solved_copy(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ''
    assert 'measured slope: 8.0' in done.stdout
    assert 'measured:' not in done.stdout   # 1.3's answer waits for its button


def test_answers_wait_for_their_buttons(tmp_path):
    # nothing pressed: each gated cell says what to do, the second backward has not run
    # and the measured slopes (1.3's answer) are not printed
    shown, grad, printed = run_app(solved_copy(tmp_path), pressed=())
    second_backward, compare, explained = gated_outputs(shown)
    assert 'Predict first' in second_backward and 'press the button' in second_backward
    assert 'accumulated' not in ''.join(shown)   # 1.2's answer is not said before it
    assert 'Do exercise 1.3 first' in compare and 'press the button' in compare
    assert grad == 8.0
    assert 'measured:' not in printed and 'engine  :' not in printed
    # pressed: in their place, the answers, and the reference answers still check
    shown, grad, printed = run_app(solved_copy(tmp_path), pressed=GATES)
    second_backward, compare, explained = gated_outputs(shown)
    assert second_backward == repr(np.array([16.0], dtype=np.float32))
    assert 'accumulated' in explained
    assert grad == 16.0
    assert 'Do exercise 1.3 first' not in compare
    assert 'measured: [ 0. -3.  9.]' in printed and 'engine  : [ 0. -3.  9.]' in printed


def test_marimo_check_finds_nothing():
    done = subprocess.run([sys.executable, '-m', 'marimo', 'check', str(LESSON)],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, 'MARIMO_SKIP_UPDATE_CHECK': '1'})
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
