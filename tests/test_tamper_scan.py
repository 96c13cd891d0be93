"""The scan for tampering with the grading machinery (issue 40, point 3): every trick of
the issue's table (and the ones it implies) is found with its cell and line; the
lessons' reference solutions and released notebooks never trip it; nbgrader's
sanitize step makes the checks after a finding fail, naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograd_lab_lessons import tamper_scan

LESSONS = Path(__file__).resolve().parent.parent / 'lessons'

SETUP = ('import numpy as np\nimport autograd_lab as chainer\n'
         'from autograd_lab_lessons import checks\n')

#: trick -> the code a student's cell would hold (each must be found)
TRICKS = {
    'strict off': 'checks.STRICT = False',
    'reload after dropping the env': "import os, importlib\ndel os.environ['NBGRADER_EXECUTION']\n"
                                     'importlib.reload(checks)',
    'env popped': "import os\nos.environ.pop('NBGRADER_EXECUTION', None)",
    'reload imported by name': 'from importlib import reload\nreload(checks)',
    'a checker replaced': 'checks.ex01_accumulate = lambda *a, **k: True',
    'every checker replaced': 'for name in dir(checks):\n'
                              '    setattr(checks, name, lambda *a, **k: True)',
    'the checkers module dict': "vars(checks)['ex01_accumulate'] = print",
    'the dict updated': 'checks.__dict__.update(ex01_accumulate=print)',
    'allclose patched': 'np.allclose = lambda *a, **k: True',
    'isclose patched': 'import numpy\nnumpy.isclose = lambda *a, **k: True',
    'testing patched': 'np.testing.assert_allclose = lambda *a, **k: None',
    'from-import patched': 'from numpy import testing\ntesting.assert_allclose = print',
    'math patched': 'import math\nmath.isclose = lambda *a, **k: True',
    'builtins.float patched': 'import builtins\nbuiltins.float = lambda v: 0.0',
    '__builtins__ written': "__builtins__['abs'] = lambda v: 0",
    'the recorder removed': 'import autograd_lab.events\nautograd_lab.events.recorder = None',
    'an engine function replaced': 'chainer.grad = lambda *a, **k: None',
    'a class patched': 'from autograd_lab import Variable\nVariable.backward = print',
    'sys.modules written': "import sys\nsys.modules['numpy'] = None",
    'sys.modules popped': "import sys\nsys.modules.pop('autograd_lab_lessons.checks')",
    'the solutions read': "exec(open('solutions/01_variables_and_derivatives.ipynb').read())",
    'a notebook read by path': "from pathlib import Path\nsrc = Path('01.ipynb').read_text()",
    'package files found': 'where = checks.__file__',
    'source read': 'import inspect\ntext = inspect.getsource(checks)',
    'code from text': "eval('1')",
    'an import from text': "m = __import__('numpy')",
    'a trace hook': 'import sys\nsys.settrace(print)',
    'the kernel driven': "get_ipython().run_cell('checks.STRICT = False')",
    'a module name rebound': 'np = None',
    'a module name shadowed by a def': 'def checks():\n    return True',
    'ctypes': 'import ctypes\nctypes.memmove(0, 0, 0)',
    'deleting a checker': 'del checks.ex01_accumulate',
    'an augmented write': 'chainer.config.train += 1',
    'an alias of a module': 't = np.testing\nt.assert_allclose = print',
    'the namespace by text': "globals()['checks'] = None",
    'the namespace by text, vars()': "vars()['np'] = None",
    "a function's globals": 'checks.ex01_cubic.__globals__["_verdict"] = print',
    'a frame climbed': 'import sys\nf = sys._getframe().f_back',
    'subclasses listed': 'found = object.__subclasses__()',
    'a module imported by name': "import importlib\nm = importlib.import_module('numpy')\n"
                                 'm.allclose = print',
}


@pytest.mark.parametrize('trick', list(TRICKS))
def test_every_trick_is_found_with_its_line(trick):
    found = tamper_scan.scan_source(SETUP + TRICKS[trick])
    assert found, f'{trick!r} not found'
    assert all(f.line > SETUP.count('\n') for f in found), [str(f) for f in found]


def _reference_notebooks() -> list[Path]:
    return sorted((LESSONS / 'solutions').glob('*.ipynb')) + sorted(LESSONS.glob('[0-9A]*.ipynb'))


def test_the_reference_solutions_and_lessons_never_trip_it():
    notebooks = _reference_notebooks()
    assert len(notebooks) >= 32
    for path in notebooks:
        found = tamper_scan.scan_notebook(json.loads(path.read_text(encoding='utf-8')))
        assert found == [], (path.name, [str(f) for f in found])


def test_the_students_own_objects_are_theirs():
    code = SETUP + '\n'.join([
        'x = chainer.Variable(np.array(2.0))', 'x.grad = None', 'x.name = "x"',
        'class Square(chainer.FunctionNode):', '    def forward(self, xs):',
        '        return xs[0] ** 2,', 'table = {}', "table['a'] = 1", 'checks.STRICT = True',
        'import numpy as np', 'y = np.zeros(3)', 'y[0] = 1', '%matplotlib inline',
        'if True:', '    %time y.sum()', 'z = np.zeros(2)', 'z[1] = 3', 'w = x', 'w.grad = None'])
    assert tamper_scan.scan_source(code) == []


def _cell(source: str, **nbgrader) -> dict:
    meta = {'nbgrader': nbgrader} if nbgrader else {}
    return {'cell_type': 'code', 'source': source, 'metadata': meta, 'outputs': [],
            'execution_count': None}


def test_cells_and_lines_are_named_and_locked_test_cells_skipped():
    nb = {'cells': [_cell(SETUP), _cell('x = 1\nchecks.STRICT = False', solution=True),
                    _cell('np.allclose = 1', grade=True, solution=False, locked=True)]}
    found = tamper_scan.scan_notebook(nb)
    assert [str(f) for f in found] == [
        'cell 1, line 2: assigns checks.STRICT (autograd_lab_lessons): a module the checks use']


def test_the_nbgrader_step_fails_every_check_after_a_finding():
    pytest.importorskip('nbconvert')
    import nbformat

    from autograd_lab_lessons.grading_hooks import ScanSubmission
    nb = nbformat.from_dict({
        'nbformat': 4, 'nbformat_minor': 5, 'metadata': {}, 'cells': [
            _cell(SETUP),
            _cell('answer = 1', solution=True, grade=False, grade_id='a'),
            _cell('assert answer == 1', grade=True, solution=False, grade_id='t1', points=1),
            _cell('checks.STRICT = False', solution=True, grade=False, grade_id='b'),
            _cell('assert answer == 1', grade=True, solution=False, grade_id='t2', points=1)]})
    out, _ = ScanSubmission()(nb, {})  # as nbconvert's exporter calls it
    # a first cell binds the private checkers; the cells after keep their order
    assert out.cells[0].source.startswith('from autograd_lab_lessons.grading import')
    assert out.cells[3].source == 'assert answer == 1'  # before the tampering: graded as is
    assert out.cells[5].source.startswith('raise AssertionError(')
    assert 'cell 3, line 1: assigns checks.STRICT' in out.cells[5].source
    clean = nbformat.from_dict({**nb, 'cells': [nb.cells[1], nb.cells[2], nb.cells[3]]})
    assert ScanSubmission().preprocess(clean, {})[0].cells[3].source == 'assert answer == 1'


# ---- strictness and show_answer read the environment, not a flag a cell can set -------

def test_grading_stays_strict_whatever_a_cell_sets(monkeypatch):
    from autograd_lab_lessons import checks
    monkeypatch.setattr(checks, 'STRICT', False)
    monkeypatch.setattr(checks, 'GRADING', False)
    monkeypatch.setenv('NBGRADER_EXECUTION', 'autograde')
    with pytest.raises(AssertionError):
        checks.ex01_cubic([0.0, 0.0, 0.0])  # wrong: fails although STRICT was set False


@pytest.mark.parametrize('env', ['NBGRADER_EXECUTION', 'AUTOGRAD_LAB_GRADING',
                                 'AUTOGRAD_LAB_NO_ANSWERS'])
def test_show_answer_refuses_while_grading_or_where_the_course_says(monkeypatch, env, capsys):
    from autograd_lab_lessons import checks
    monkeypatch.setenv(env, 'autograde')
    with pytest.raises(PermissionError, match='show_answer is off here'):
        checks.show_answer('ex01_cubic')
    assert 'x.grad' not in capsys.readouterr().out
