"""The lesson exercise checkers and the committed lesson notebooks.

The checkers are ``autograd_lab_lessons.checks`` (the file lessons/checks.py: the folder
lessons/ is installed as the package autograd_lab_lessons), which every lesson imports.

Every checker must accept the reference answer (the same code as in
lessons/solutions/), reject a typical wrong answer with the hint meant for that
mistake, and report a placeholder ``...`` as "not done yet" without raising.
The notebooks themselves are executed by nbmake (pytest collects lessons/).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable, backend
from autograd_lab_lessons import checks

LESSONS = Path(__file__).resolve().parent.parent / 'lessons'


def _load(name: str, path: Path):
    """A fresh copy of the module in ``path`` (read again: module-level state is new)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


build = _load('lessons_build_notebooks', LESSONS / 'build_notebooks.py')


@pytest.fixture(autouse=True)
def lenient(monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', False)
    monkeypatch.setattr(checks, 'GRADING', False)


def accepted(fb) -> None:
    assert fb.status == 'correct', repr(fb)
    assert bool(fb)


def rejected(fb, *hint_words: str) -> None:
    assert fb.status == 'wrong', repr(fb)
    assert not fb
    for word in hint_words:
        assert word in fb.hint, (word, repr(fb))


# ---- reference answers (the code of lessons/solutions) -----------------------------------

def _softsign_class(derivative_power: int = 2, use_abs: bool = True):
    class Softsign(chainer.FunctionNode):
        def forward(self, inputs):
            x, = inputs
            self.retain_inputs((0,))
            xp = backend.get_array_module(x)
            return x / (1 + (xp.abs(x) if use_abs else x)),

        def backward(self, target_input_indexes, grad_outputs):
            x, = self.get_retained_inputs()
            gy, = grad_outputs
            return gy / (1 + F.absolute(x)) ** derivative_power,
    return Softsign


def _train_truncated(cut: bool):
    def train(xs, targets, w0, k):
        w = chainer.Parameter(np.array(w0))
        h = Variable(np.array(0.0))
        loss = 0
        for t, (x_t, y_t) in enumerate(zip(xs, targets), start=1):
            h = F.tanh(w * h + x_t)
            loss += (h - y_t) ** 2
            if t % k == 0:
                loss.backward()
                if cut:
                    loss.unchain_backward()
                loss = 0
        return float(w.grad)
    return train


def _train_step(clear: bool, update: bool = True):
    def train_step(model, optimizer, x, t):
        loss = F.softmax_cross_entropy(model(x), t)
        if clear:
            model.cleargrads()
        loss.backward()
        if update:
            optimizer.update()
        return float(loss.array)
    return train_step


def _tanh_derivatives(double: bool):
    x = Variable(np.array(0.5))
    g1, = chainer.grad([F.tanh(x)], [x], enable_double_backprop=double)
    g2, = chainer.grad([g1], [x], enable_double_backprop=double)
    g3 = chainer.grad([g2], [x])[0] if g2 is not None else None
    return [g1, g2, g3]


def _newton(step) -> float:
    def f(x):
        return x**4 - 3 * x**2 + x
    position = 2.0
    for _ in range(10):
        x = Variable(np.array(position))
        d1, = chainer.grad([f(x)], [x], enable_double_backprop=True)
        d2, = chainer.grad([d1], [x])
        position = step(position, float(f(x).array), float(d1.array), float(d2.array))
    return position


def _hvp() -> Variable:
    x = Variable(np.array([1.0, 2.0]))
    f = x[0]**2 * x[1] + x[1]**3
    g, = chainer.grad([f], [x], enable_double_backprop=True)
    hv, = chainer.grad([F.sum(g * np.array([1.0, 0.0]))], [x])
    return hv


def _unscaled(scale: float | None):
    x = Variable(np.ones(3, dtype=np.float16))
    loss = 1e-4 * F.sum(x * 1e-4)
    loss.backward(loss_scale=scale)
    return x.grad.astype(np.float32) / (scale or 1)


def _predict(no_backprop: bool):
    def predict(model, x):
        if no_backprop:
            with chainer.no_backprop_mode():
                return model(x)
        return model(x)
    return predict


def _softplus(a):
    xp = backend.get_array_module(a)
    return xp.log(1 + xp.exp(a))


def _grad_of(make, x_values, seed=None):
    x = Variable(np.asarray(x_values, dtype=np.float32))
    y = make(x)
    y.grad = np.ones_like(y.array) if seed is None else np.asarray(seed, np.float32)
    y.backward(retain_grad=True)
    return x


# (checker name, reference answer, typical wrong answer, words the hint must contain)
CASES = [
    ('ex01_cubic', lambda: _grad_of(lambda x: x**3 - 3 * x, [-1, 0, 2]).grad,
     lambda: 3 * np.array([-1.0, 0, 2]) ** 2, ['-3']),
    ('ex01_accumulate', lambda: np.array([16.0]), lambda: np.array([8.0]), ['accumulate']),
    ('ex02_h_grad', lambda: 2 * (3 * np.array([1.0, 2.0]) + 1),
     lambda: _grad_of(lambda x: F.sum((3 * x + 1) ** 2), [1, 2]).grad, ['x.grad']),
    ('ex02_released', lambda: {'h', 'loss'}, lambda: {'h'}, ['output']),
    ('ex03_weighted', lambda: _grad_of(lambda x: x**2, [1, 2, 3], [1, 0, 10]).grad,
     lambda: _grad_of(lambda x: x**2, [1, 2, 3]).grad, ['seed of ones']),
    ('ex03_sum_sin', lambda: np.cos(np.linspace(0, np.pi, 5)),
     lambda: np.sin(np.linspace(0, np.pi, 5)), ['differentiate']),
    ('ex04_ranks', lambda: {'mul': 0, 'exp': 1, 'sin': 1, 'add': 2},
     lambda: {'mul': 2, 'exp': 1, 'sin': 1, 'add': 0}, ['from the inputs']),
    ('ex04_accumulated', lambda: np.exp(1.0) + np.cos(1.0), lambda: np.exp(1.0),
     ['through sin']),
    ('ex05_tanh', lambda: _tanh_derivatives(True), lambda: _tanh_derivatives(False),
     ['enable_double_backprop=True']),
    ('ex05_hvp', _hvp, lambda: np.array([4.0, 13.0]), ['gradient of f']),
    ('ex05_newton', lambda: _newton(lambda x, f, d1, d2: x - d1 / d2),
     lambda: _newton(lambda x, f, d1, d2: x - f / d1), ["f'/f''"]),
    ('ex06_predict', lambda: {'x': None, 'a': 3.0}, lambda: {'x': 1.5, 'a': 3.0},
     ['unchain']),
    ('ex06_truncated', lambda: _train_truncated(True), lambda: _train_truncated(False),
     ['never cut']),
    ('ex07_recorded', lambda: {'y1', 'y3', 'y4'}, lambda: {'y1', 'y2', 'y3'},
     ['y2 was computed inside no_backprop_mode']),
    ('ex07_predict', lambda: _predict(True), lambda: _predict(False), ['no_backprop_mode']),
    ('ex08_param_count', lambda: 2410, lambda: 64 * 32 + 32 * 10, ['bias']),
    ('ex08_train_step', lambda: _train_step(True), lambda: _train_step(False),
     ['cleargrads']),
    ('ex09_unscaled', lambda: _unscaled(4096), lambda: _unscaled(None), ['underflow']),
    ('ex09_max_scale', lambda: 2.0**14, lambda: 2.0**15, ['overflows']),
    ('ex10_to_numpy', lambda: (lambda v: backend.CpuDevice().send(v.array)),
     lambda: (lambda v: v), ['.array']),
    ('ex10_softplus', lambda: _softplus, lambda: np.exp, ['log']),
    ('ex11_forward', _softsign_class, lambda: _softsign_class(use_abs=False), ['xp.abs']),
    ('ex11_backward', _softsign_class, lambda: _softsign_class(1), ['square the denominator']),
]


def test_every_checker_is_covered():
    assert sorted(name for name, *_ in CASES) == sorted(checks.ALL)
    assert len(checks.ALL) >= 11


@pytest.mark.parametrize(('name', 'reference', 'wrong', 'words'), CASES,
                         ids=[c[0] for c in CASES])
def test_checker_accepts_reference_and_rejects_typical_mistake(name, reference, wrong, words):
    checker = checks.ALL[name]
    accepted(checker(reference()))
    rejected(checker(wrong()), *words)


@pytest.mark.parametrize(('name', 'reference', 'wrong', 'words'), CASES,
                         ids=[c[0] for c in CASES])
def test_checker_under_nbgrader(name, reference, wrong, words, monkeypatch, capsys):
    # as while nbgrader autogrades: right answers print and return None (full points),
    # wrong ones raise (zero points), with the hint in the error
    monkeypatch.setattr(checks, 'GRADING', True)
    monkeypatch.setattr(checks, 'STRICT', True)
    checker = checks.ALL[name]
    assert checker(reference()) is None
    assert name in capsys.readouterr().out
    with pytest.raises(AssertionError) as error:
        checker(wrong())
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize('name', sorted(checks.ALL))
def test_placeholder_is_not_done_yet_and_does_not_raise(name):
    fb = checks.ALL[name](...)
    assert fb.status == 'todo'
    assert 'not done yet' in repr(fb)


@pytest.mark.parametrize('name', sorted(checks.ALL))
def test_strict_mode_raises_for_placeholder(name, monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', True)
    with pytest.raises(AssertionError, match='not done yet'):
        checks.ALL[name](...)


def test_strict_mode_passes_correct_answers(monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', True)
    assert checks.ex01_accumulate(np.array([16.0]))
    with pytest.raises(AssertionError, match='gradients accumulate'):
        checks.ex01_accumulate(np.array([8.0]))


def test_nbgrader_environment_turns_strict_on(monkeypatch, capsys):
    monkeypatch.setenv('NBGRADER_EXECUTION', 'autograde')
    fresh = _load('fresh_checks', Path(checks.__file__))
    assert fresh.STRICT is True and fresh.GRADING is True
    with pytest.raises(AssertionError, match='not done yet'):
        fresh.ex01_accumulate(...)
    # nbgrader takes a graded cell's result as a partial score: a correct answer prints
    # its verdict and returns nothing, so the cell earns all its points
    assert fresh.ex01_accumulate([16.0]) is None
    assert 'is right' in capsys.readouterr().out
    monkeypatch.delenv('NBGRADER_EXECUTION')
    fresh = _load('fresh_checks', Path(checks.__file__))
    assert fresh.STRICT is False and fresh.GRADING is False


def test_feedback_names_the_wrong_element():
    fb = checks.ex01_cubic(np.array([0.0, -3.0, 5.0]))
    assert fb.status == 'wrong'
    assert 'x.grad[2]: got 5, expected 9' in fb.message


def test_feedback_reports_shape_and_type_errors():
    assert 'shape (2,)' in checks.ex01_cubic(np.zeros(2)).message
    assert 'got str' in checks.ex01_cubic('eight').message
    assert 'is None' in checks.ex02_h_grad(None).message


def test_learner_exceptions_become_feedback():
    def broken(xs, targets, w0, k):
        raise ZeroDivisionError('boom')
    fb = checks.ex06_truncated(broken)
    assert fb.status == 'wrong' and 'ZeroDivisionError: boom' in fb.message


def test_feedback_html_escapes_learner_text():
    fb = checks.ex07_recorded({'<script>alert(1)</script>'})
    assert '<script>' in fb.message  # echoed back as text...
    page = fb._repr_html_()
    assert '<script>' not in page and '&lt;script&gt;' in page  # ...but never as markup


# ---- the notebooks ---------------------------------------------------------------------

NOTEBOOKS = sorted(LESSONS.glob('[0-9][0-9]_*.ipynb'))
SOLUTIONS = sorted((LESSONS / 'solutions').glob('[0-9][0-9]_*.ipynb'))


def test_eleven_lessons_with_solutions():
    assert [p.name[:2] for p in NOTEBOOKS] == [f'{i:02d}' for i in range(1, 12)]
    assert [p.name for p in SOLUTIONS] == [p.name for p in NOTEBOOKS]
    assert NOTEBOOKS[0].name == '01_variables_and_derivatives.ipynb'


def test_notebooks_are_built_from_sources():
    built = build.notebooks()
    assert sorted(built) == sorted(NOTEBOOKS + SOLUTIONS)
    stale = [p.name for p, text in built.items() if p.read_text(encoding='utf-8') != text]
    assert not stale, f'run python lessons/build_notebooks.py: stale {stale}'


@pytest.mark.parametrize('path', NOTEBOOKS + SOLUTIONS,
                         ids=[f'{p.parent.name}/{p.name}' for p in NOTEBOOKS + SOLUTIONS])
def test_notebook_committed_without_outputs(path):
    nb = json.loads(path.read_text(encoding='utf-8'))
    for cell in nb['cells']:
        if cell['cell_type'] == 'code':
            assert cell['outputs'] == [] and cell['execution_count'] is None


@pytest.mark.parametrize('path', NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_exercises_carry_nbgrader_metadata(path):
    nb = json.loads(path.read_text(encoding='utf-8'))
    graded = [c['metadata']['nbgrader'] for c in nb['cells'] if 'nbgrader' in c['metadata']]
    solutions = [m for m in graded if m['solution']]
    tests = [m for m in graded if m['grade']]
    assert solutions and tests
    ids = [m['grade_id'] for m in graded]
    assert len(ids) == len(set(ids))
    for m in solutions:
        assert m == {'grade': False, 'grade_id': m['grade_id'], 'locked': False,
                     'schema_version': 3, 'solution': True, 'task': False}
    for m in tests:
        assert m['locked'] and not m['solution'] and m['points'] > 0
        assert m['grade_id'] in checks.ALL
    sources = ''.join(''.join(c['source']) for c in nb['cells'])
    assert 'BEGIN SOLUTION' not in sources  # learners get the placeholder only


def test_lesson_one_uses_the_tutorial_example():
    text = (LESSONS / 'source' / '01_variables_and_derivatives.md').read_text(encoding='utf-8')
    assert 'x = Variable(np.array([5], dtype=np.float32))' in text
    assert 'y = x**2 - 2*x + 1' in text
