"""The checkers of lesson 7, build your own engine: the learner's scalar value class, the
network on it and the training run.

Each checker accepts the reference answer (the code of lessons/source/07_*.md's solution
regions) and other correct designs (another class name and attribute names, inputs in a
set, an iterative sort, - and / written directly), and rejects at least five plausible
wrong answers, each with the hint that names its slip.  The reference engine's gradients
are also checked against central differences, not only against autograd_lab's.
"""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import numpy as np
import pytest
from test_lesson_checks import TESTED_IN_ENGINE, accepted, build, rejected, run_lesson

from autograd_lab_lessons import checks

SOURCE = Path(__file__).resolve().parent.parent / 'lessons' / 'source' / \
    '07_build_your_own_engine.md'


@pytest.fixture(autouse=True)
def lenient(monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', False)
    monkeypatch.setattr(checks, 'GRADING', False)


def test_every_checker_listed_for_this_file_is_tested_here():
    called = set(re.findall(r'checks\.(ex\d\d_\w+)\(', Path(__file__).read_text()))
    assert called == TESTED_IN_ENGINE and called <= set(checks.ALL)


def _answer(grade_id: str) -> str:
    cells = build.parse(SOURCE.read_text(encoding='utf-8'), SOURCE.name)
    cell = next(c for c in cells if c['kind'] == 'exercise' and c['grade_id'] == grade_id)
    return '\n'.join(build._split_exercise(cell['lines'], cell['where'])[2])


ENGINE = _answer('ex07_engine')
NETWORK = _answer('ex07_mlp')


def _value(*swaps: tuple[str, str], source: str = ENGINE) -> type:
    """The reference class with each (old, new) text swapped (each must occur)."""
    for old, new in swaps:
        assert old in source, old
        source = source.replace(old, new)
    namespace: dict = {'math': math}
    exec(source, namespace)
    return namespace['Value']


def _mlp(value: type, *swaps: tuple[str, str]) -> type:
    source = NETWORK
    for old, new in swaps:
        assert old in source, old
        source = source.replace(old, new)
    namespace: dict = {'Value': value, 'random': random}
    exec(source, namespace)
    return namespace['MLP']


# ---- the engine: the reference and other right designs ---------------------------------

def test_the_reference_engine_passes():
    accepted(checks.ex07_engine(_value()))


def test_the_reference_engine_agrees_with_central_differences():
    value = _value()

    def f(a, b, c):
        return ((a * b + c).tanh() * a - a / b + (c - 1) ** 3 + 2 / c) * (a ** 2 - 3 * b)

    point, h = (0.7, -1.3, -0.4), 1e-6
    leaves = [value(p) for p in point]
    f(*leaves).backward()
    for i in range(3):
        up, down = list(point), list(point)
        up[i] += h
        down[i] -= h
        slope = (f(*map(value, up)).data - f(*map(value, down)).data) / (2 * h)
        assert leaves[i].grad == pytest.approx(slope, rel=1e-6, abs=1e-8)


SET_AND_STACK = '''
class Value:
    def __init__(self, number, inputs=(), rule=()):
        self.number, self.grad = float(number), 0.0
        self.inputs, self.rule = set(inputs), list(zip(inputs, rule))

    def _make(self, number, inputs, rule):
        return Value(number, inputs, rule)

    @staticmethod
    def _v(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, o):
        o = self._v(o)
        return self._make(self.number + o.number, (self, o), (1.0, 1.0))

    def __mul__(self, o):
        o = self._v(o)
        return self._make(self.number * o.number, (self, o), (o.number, self.number))

    def __sub__(self, o):
        o = self._v(o)
        return self._make(self.number - o.number, (self, o), (1.0, -1.0))

    def __truediv__(self, o):
        o = self._v(o)
        return self._make(self.number / o.number, (self, o),
                          (1 / o.number, -self.number / o.number ** 2))

    def __pow__(self, n):
        return self._make(self.number ** n, (self,), (n * self.number ** (n - 1),))

    def __neg__(self):
        return self._make(-self.number, (self,), (-1.0,))

    def tanh(self):
        t = math.tanh(self.number)
        return self._make(t, (self,), (1 - t * t,))

    __radd__, __rmul__ = __add__, __mul__

    def __rsub__(self, o):
        return self._v(o) - self

    def __rtruediv__(self, o):
        return self._v(o) / self

    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            v, done = stack.pop()
            if done:
                order.append(v)
            elif v not in seen:
                seen.add(v)
                stack.append((v, True))
                stack.extend((p, False) for p in v.inputs)
        self.grad = 1.0
        for v in reversed(order):
            for p, local in v.rule:
                p.grad += v.grad * local
'''


def test_another_design_passes_too():
    # another attribute for the number, inputs in a set, local derivatives stored at
    # forward instead of closures, - and / written directly, an iterative sort
    namespace: dict = {'math': math}
    exec(SET_AND_STACK, namespace)
    accepted(checks.ex07_engine(namespace['Value']))


def test_a_class_of_another_name_and_attributes_passes():
    source = ENGINE.replace('Value', 'Scalar').replace('.data', '.x')
    namespace: dict = {'math': math}
    exec(source, namespace)
    accepted(checks.ex07_engine(namespace['Scalar']))


# ---- the engine: the usual slips, each with its hint -----------------------------------

BACKWARD_LOOP = '''        self.grad = 1.0
        for v in reversed(order):
            v._backward()'''

ENGINE_SLIPS = [
    # = instead of += in the local backwards
    ((('self.grad +=', 'self.grad ='), ('other.grad +=', 'other.grad =')),
     ['`=` in your local backward keeps only the last']),
    # no accumulation at fan-out: each operation's inputs zeroed before its backward
    ((('            v._backward()', '            for p in v._prev:\n'
       '                p.grad = 0.0\n            v._backward()'),),
     ['do not zero a grad during backward']),
    # a recursive backward with no visited set: a shared value runs twice
    (((BACKWARD_LOOP, '''        self.grad = 1.0

        def down(v):
            v._backward()
            for p in v._prev:
                down(p)
        down(self)'''),), ['recursive backward with no visited set']),
    # no topological sort: each value's backward as soon as the walk reaches it
    (((BACKWARD_LOOP, '''        self.grad = 1.0
        done = set()

        def down(v):
            if v in done:
                return
            done.add(v)
            v._backward()
            for p in v._prev:
                down(p)
        down(self)'''),), ['no topological sort']),
    # no topological sort: breadth first from the output
    (((BACKWARD_LOOP, '''        self.grad = 1.0
        queue, done = [self], {self}
        while queue:
            v = queue.pop(0)
            v._backward()
            for p in v._prev:
                if p not in done:
                    done.add(p)
                    queue.append(p)'''),), ['no topological sort']),
    # the order not reversed
    ((('for v in reversed(order):', 'for v in order:'),), ['reverse the topological']),
    # forgets to seed 1.0
    ((('        self.grad = 1.0\n', ''),), ['set the output\'s grad to 1.0']),
    # pow's backward wrong for a negative base
    ((('n * self.data ** (n - 1)', 'n * abs(self.data) ** (n - 1)'),), ['negative base']),
    ((('n * self.data ** (n - 1)', 'n * math.exp((n - 1) * math.log(self.data))'),),
     ['negative base']),
    # tanh's derivative from the input, not the output
    ((('(1 - t * t)', '(1 - self.data ** 2)'),), ['with t the output']),
    # a * b sends its own number, not the other's
    ((('self.grad += other.data * out.grad', 'self.grad += self.data * out.grad'),),
     ["*other* input's number"]),
    # 2 - a computed as a - 2
    ((("return self._wrap(other) - self", "return self - other"),), ['a.__rsub__(2)']),
    # no reflected add: 2 + a fails
    ((('    def __radd__(self, other):\n        return self + other\n', ''),),
     ['the reflected one']),
]


@pytest.mark.parametrize(('swaps', 'words'), ENGINE_SLIPS,
                         ids=[f'slip{i}' for i in range(len(ENGINE_SLIPS))])
def test_an_engine_slip_is_rejected_with_its_hint(swaps, words):
    rejected(checks.ex07_engine(_value(*swaps)), *words)


def test_at_least_five_slips_per_checker():
    assert len(ENGINE_SLIPS) >= 5 and len(MLP_SLIPS) >= 5
    assert len(PREDICT_SLIPS) >= 5 and len(COUNT_SLIPS) >= 5 and len(TRAIN_SLIPS) >= 5


def test_an_unfinished_stub_is_not_done_yet():
    cells = build.parse(SOURCE.read_text(encoding='utf-8'), SOURCE.name)
    cell = next(c for c in cells if c.get('grade_id') == 'ex07_engine')
    namespace: dict = {'math': math}
    exec('\n'.join(build._split_exercise(cell['lines'], cell['where'])[1]), namespace)
    assert checks.ex07_engine(namespace['Value']).status == 'todo'


# ---- the prediction, the parameter count ------------------------------------------------

PREDICT_SLIPS = [
    ({'a': 24.0, 'b': -16.0}, 'only the path through a*b'),
    ({'a': -8.0, 'b': -16.0}, 'only the direct path'),
    ({'a': -2.0, 'b': 2.0}, 'derivatives of d = ab + a'),
    ({'a': -16.0, 'b': 16.0}, 'Check the sign'),
    ({'a': 16.0, 'b': -15.0}, 'Work from the top'),
]


def test_the_prediction():
    accepted(checks.ex07_predict({'a': 16.0, 'b': -16.0}))
    for answer, words in PREDICT_SLIPS:
        rejected(checks.ex07_predict(answer), words)


COUNT_SLIPS = [(88, 'weights only'), (17, 'one number per neuron'),
               (107, 'The inputs are data'), (51, 'second layer'), (104, 'Count per neuron')]


def test_the_parameter_count():
    accepted(checks.ex07_param_count(105))
    for answer, words in COUNT_SLIPS:
        rejected(checks.ex07_param_count(answer), words)


# ---- the network --------------------------------------------------------------------------

def test_the_reference_network_passes():
    accepted(checks.ex07_mlp(_mlp(_value())))


def test_a_network_on_another_engine_design_passes():
    namespace: dict = {'math': math}
    exec(SET_AND_STACK, namespace)
    mlp = _mlp(namespace['Value'], ('Value(', 'Value('))
    accepted(checks.ex07_mlp(mlp))


MLP_SLIPS = [
    # tanh on the last layer too
    ((('linear=i == len(sizes) - 1', 'linear=False'),), ['last layer ends in tanh']),
    # bias listed first
    ((('return self.w + [self.b]', 'return [self.b] + self.w'),), ['bias first']),
    # no bias among the parameters
    ((('return self.w + [self.b]', 'return self.w'),), ['and a bias']),
    # the bias left out of the sum
    ((('sum((wi * xi for wi, xi in zip(self.w, x)), self.b)',
       'sum(wi * xi for wi, xi in zip(self.w, x))'),), ['tanh(w . x + b)']),
    # no tanh anywhere
    ((('linear=i == len(sizes) - 1', 'linear=True'),), ['tanh(w . x + b)']),
    # one shared weight list for every neuron of a layer
    ((('self.neurons = [Neuron(n_in, linear) for _ in range(n_out)]',
       'self.neurons = [Neuron(n_in, linear)] * n_out'),), ['tanh(w . x + b)']),
]


@pytest.mark.parametrize(('swaps', 'words'), MLP_SLIPS,
                         ids=[f'mlp{i}' for i in range(len(MLP_SLIPS))])
def test_a_network_slip_is_rejected_with_its_hint(swaps, words):
    rejected(checks.ex07_mlp(_mlp(_value(), *swaps)), *words)


def test_a_network_on_a_broken_engine_is_rejected():
    broken = _value(('self.grad +=', 'self.grad ='), ('other.grad +=', 'other.grad ='))
    rejected(checks.ex07_mlp(_mlp(broken)), 'the backward is not')


# ---- the training run ------------------------------------------------------------------

TRAIN_SLIPS = [
    ([1.0] * 5, 'at least 20 steps'),
    ([1.0 + 0.1 * i for i in range(30)], 'against the gradient'),
    ([1.0] * 29 + [float('inf')], 'lower lr'),
    ([1.0 - 0.01 * i for i in range(30)], 'Set every grad to 0'),
    (['a'] * 30, 'loss.data'),
]


def test_the_training_run():
    accepted(checks.ex07_train([1.0 / (1 + i) for i in range(30)]))
    for answer, words in TRAIN_SLIPS:
        rejected(checks.ex07_train(answer), words)


@pytest.mark.slow
def test_the_lesson_trains_and_its_gradients_are_the_engines():
    ns = run_lesson('07_build_your_own_engine')
    losses = ns['losses']
    assert len(losses) == 80 and losses[-1] < 0.3 * losses[0]
    params = ns['model'].parameters()
    loss, rows = checks.engine_loss([p.data for p in params], ns['X'], ns['Y'], 2, [8, 8, 1])
    loss.backward()
    np.testing.assert_allclose([p.grad for p in params],
                               np.concatenate([r.grad for r in rows]), rtol=1e-9, atol=1e-12)
