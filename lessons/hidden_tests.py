"""Hidden tests of graded assignments: the learner's code tried at points drawn for each
student when the submission is graded.

A practice checker (:mod:`autograd_lab_lessons.checks`) tries an answer at points fixed
in the installed package, so anyone can read what it checks.  A hidden test tries the
same answer at *other* points, drawn at grading time for one student (from the course's
secret and the student's id, :func:`draw`), and compares with what the reference solution
gives there, computed then in a separate process from the instructor's copy of the
assignment (:func:`hidden_code`, run as ``python hidden_tests.py REFERENCE SECRET
STUDENT``).  So one student's feedback shows only that student's points and values.  The
assignment notebooks hold only a request per hidden test (``agl_grader.hidden(...)``,
:data:`autograd_lab_lessons.grading.HIDDEN`); the installed package holds neither this
module nor any point or value.

Only answers that are code get a hidden test: a function or a ``FunctionNode`` class can
be run at new inputs.  An answer that is a value (a prediction, a count) is asked at the
lesson's own point, which the practice checker already covers.

A probe is found by its checker: the checker's topic module and its name without the
``exNN_`` number (``write_backward.order``), so renumbering the lessons keeps them.

>>> probe = PROBES['derivatives.central_difference']
>>> test = probe(np.random.default_rng(0), 'central_difference')
>>> 'central_difference(' in test.expression and test.rtol > 0
True
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from autograd_lab_lessons.grading import HIDDEN_LINE

#: What every hidden test's code may use (imported under names a notebook does not use);
#: the numbers are flattened and compared by the private checkers (``agl_grader``,
#: renamed at grading: :mod:`autograd_lab_lessons.grading`).
PRELUDE = '\n'.join([
    'import numpy as _np',
    'import autograd_lab as _chainer',
    'import autograd_lab.functions as _F',
    '_flat = agl_grader.flat',
])


@dataclass(frozen=True)
class HiddenTest:
    """One hidden test before its expected values are known: ``setup`` (code with the
    drawn points as literals) then ``expression`` (numbers, flattened by ``_flat``), to be
    compared with what the reference solution gives, within ``rtol``/``atol``; ``hint``
    is the message of a failure."""

    setup: str
    expression: str
    rtol: float
    atol: float
    hint: str


Probe = Callable[[np.random.Generator, str], HiddenTest]


def _array(rng: np.random.Generator, *shape: int, low: float = -2.0,
           high: float = 2.0) -> str:
    """A literal float64 array of uniform values, written to round-trip exactly."""
    values = rng.uniform(low, high, size=shape).round(6).tolist()
    return f'_np.array({values!r}, dtype=_np.float64)'


def central_difference(rng: np.random.Generator, name: str) -> HiddenTest:
    x, h = round(float(rng.uniform(-2, 2)), 4), round(float(rng.uniform(0.01, 0.1)), 4)
    return HiddenTest(
        setup=f'_x, _h = {x!r}, {h!r}',
        expression=(f'_flat({name}(_np.sin, _x, _h), {name}(lambda t: t**3 - 2*t, _x, _h), '
                    f'{name}(_np.exp, -_x, _h / 2))'),
        rtol=1e-9, atol=1e-12,
        hint='at other points and steps the values differ: (f(x + h) - f(x - h)) / (2h), '
             'with the f, x and h it is given')


def reverse_order(rng: np.random.Generator, name: str) -> HiddenTest:
    # a graph whose shape is drawn: n uses of x, each one to three functions deep, all
    # added; a valid order lists every function once, each before those that made its inputs
    depths = rng.integers(1, 4, size=int(rng.integers(2, 5))).tolist()
    return HiddenTest(
        setup='\n'.join([
            '_x = _chainer.Variable(_np.array(0.3))',
            '_parts = []',
            f'for _depth in {depths!r}:',
            '    _h = _x',
            '    for _ in range(_depth):',
            '        _h = _F.sin(_h) * 1.5',
            '    _parts.append(_h)',
            '_y = _parts[0]',
            'for _p in _parts[1:]:',
            '    _y = _y + _p',
            f'_order = list({name}(_y))',
            '_pos = {_f: _i for _i, _f in enumerate(_order)}',
            '_ok = len(_pos) == len(_order) and all(_n.creator is None or '
            '_pos.get(_n.creator, -1) > _pos[_f] for _f in _order for _n in _f.inputs)',
            '_made = set()',
            '_stack = [_y.creator]',
            'while _stack:',
            '    _f = _stack.pop()',
            '    if _f is not None and _f not in _made:',
            '        _made.add(_f)',
            '        _stack.extend(n.creator for n in _f.inputs)',
            '_ok = _ok and len(_order) == len(_made) and set(_order) == _made',
        ]),
        expression='_flat(float(_ok))', rtol=0, atol=0,
        hint='on another graph the order is not a reverse topological one: every function '
             'once, each after every function that used its outputs')


def my_backward(rng: np.random.Generator, name: str) -> HiddenTest:
    return HiddenTest(
        setup='\n'.join([
            f'_x = _chainer.Variable({_array(rng, 3)})',
            f'_w = _chainer.Variable({_array(rng, 3)})',
            '_h = _x * _w',
            '_y = _F.sum(_F.tanh(_h) * _h + _F.exp(_x) + _h)',
            f'_grads = {name}(_y)',
        ]),
        expression='_flat(_grads[_x.node], _grads[_w.node])', rtol=1e-9, atol=1e-12,
        hint="on another graph the gradients differ from the engine's")


def own_engine(rng: np.random.Generator, name: str) -> HiddenTest:
    # every operation at drawn points of either sign (** at a negative base too)
    a, b, c = (rng.uniform(0.3, 1.5, size=3) * rng.choice([-1, 1], size=3)).round(4).tolist()
    return HiddenTest(
        setup='\n'.join([
            f'_a, _b, _c = {name}({a!r}), {name}({b!r}), {name}({c!r})',
            '_y = ((_a * _b + _c).tanh() * _a - _a / _b + (_c - 1) ** 3 + 2 / _c - -_b) '
            '* (_a ** 2 - 3 * _b) + 1 - _c',
            '_y.backward()',
        ]),
        expression='_flat(_a.grad, _b.grad, _c.grad, _y.grad)', rtol=1e-9, atol=1e-12,
        hint=f'on another expression, at a = {a}, b = {b}, c = {c}, the gradients differ')


def own_mlp(rng: np.random.Generator, name: str) -> HiddenTest:
    n_in, sizes = int(rng.integers(2, 5)), [*rng.integers(2, 5, size=2).tolist(), 1]
    x, seed = rng.uniform(-1, 1, size=n_in).round(4).tolist(), int(rng.integers(0, 2**31))
    return HiddenTest(
        setup='\n'.join([
            f'_m = {name}({n_in}, {sizes!r})',
            '_p = list(_m.parameters())',
            '_k = next(k for k, v in vars(type(_p[0])(2.5)).items() if v == 2.5)',
            f'_r = _np.random.default_rng({seed})',
            'for _q in _p:',
            '    setattr(_q, _k, float(_r.uniform(-1, 1)))',
            f'_out = _m({x!r})',
            '_out = _out[0] if isinstance(_out, (list, tuple)) else _out',
            '_out.backward()',
        ]),
        expression='_flat(getattr(_out, _k), *[_q.grad for _q in _p])', rtol=1e-9, atol=1e-12,
        hint=f'for MLP({n_in}, {sizes}) at another input the output or a gradient differs')


def newton(rng: np.random.Generator, name: str) -> HiddenTest:
    # a start where f'' < 0 (|x| < 0.7 for the lesson's quartic): the practice checker's
    # starts are where f'' > 0, so a step that divides by |f''| passes it but not this
    x0 = round(float(rng.choice([-1, 1]) * rng.uniform(0.3, 0.6)), 3)
    return HiddenTest(setup='', expression=f'_flat({name}({x0!r}))', rtol=1e-6, atol=1e-9,
                      hint=f'from x0 = {x0} the iterates differ: each step is '
                           "x - f'(x) / f''(x), the sign of f'' included, ten steps, each "
                           'position after its step')


def _node_grads(rng: np.random.Generator, cls: str, inputs: list[str]) -> str:
    """Code: ``_out`` (the node's output) and ``_g`` (the input gradients of a random
    weighted sum of it) for ``cls`` applied to ``inputs``."""
    names = [f'_in{i}' for i in range(len(inputs))]
    return '\n'.join([
        *(f'{n} = _chainer.Variable({value})' for n, value in zip(names, inputs)),
        f'_out, = {cls}().apply(({", ".join(names)},))',
        '_seed = _np.cos(_np.arange(_out.size) + 1.0).reshape(_out.shape)',
        f'_g = _chainer.grad([_F.sum(_out * _seed)], [{", ".join(names)}])',
    ])


def node_forward(rng: np.random.Generator, name: str) -> HiddenTest:
    return HiddenTest(setup=f'_out, = {name}().apply((_chainer.Variable({_array(rng, 5)}),))',
                      expression='_flat(_out)', rtol=1e-9, atol=1e-12,
                      hint="at other inputs the forward's values differ")


def node_backward(rng: np.random.Generator, name: str) -> HiddenTest:
    return HiddenTest(setup=_node_grads(rng, name, [_array(rng, 5)]),
                      expression='_flat(*_g)', rtol=1e-9, atol=1e-12,
                      hint="at other inputs the backward's gradients differ")


def fixed_log_abs(rng: np.random.Generator, name: str) -> HiddenTest:
    return HiddenTest(setup=_node_grads(rng, name, [_array(rng, 4), _array(rng, 4)]),
                      expression='_flat(*_g)', rtol=1e-9, atol=1e-12,
                      hint='at other inputs (of both signs) the gradients differ')


def rel_error(rng: np.random.Generator, name: str) -> HiddenTest:
    a, b = _array(rng, 4), _array(rng, 4)
    return HiddenTest(setup='', expression=f'_flat({name}({a}, {b}), {name}({a}, {a}))',
                      rtol=1e-9, atol=1e-15,
                      hint='on other arrays the relative error differs: the largest '
                           '|a - b| / max(|a|, |b|)')


def linear(rng: np.random.Generator, name: str) -> HiddenTest:
    n, i, o = (int(v) for v in rng.integers(2, 6, size=3))
    return HiddenTest(
        setup=_node_grads(rng, name, [_array(rng, n, i), _array(rng, o, i), _array(rng, o)]),
        expression='_flat(_out, *_g)', rtol=1e-9, atol=1e-12,
        hint=f'with other shapes (N={n}, in={i}, out={o}) the output or a gradient differs')


def softmax_ce(rng: np.random.Generator, name: str) -> HiddenTest:
    n, c = int(rng.integers(2, 6)), int(rng.integers(3, 6))
    t = rng.integers(0, c, size=n).tolist()
    return HiddenTest(
        setup='\n'.join([
            f'_x = _chainer.Variable({_array(rng, n, c, low=-4, high=4)})',
            f'_loss, = {name}().apply((_x, _chainer.Variable(_np.array({t!r}))))',
            '_gx, = _chainer.grad([_loss], [_x])',
        ]),
        expression='_flat(_loss, _gx)', rtol=1e-9, atol=1e-12,
        hint=f'with {n} rows of {c} classes the loss or its gradient differs')


def unbroadcast(rng: np.random.Generator, name: str) -> HiddenTest:
    shape = [int(v) for v in rng.integers(2, 5, size=3)]
    targets = [(shape[2],), (shape[1], 1), (1, shape[2]), (shape[0], 1, shape[2])]
    return HiddenTest(
        setup=f'_g = {_array(rng, *shape)}',
        expression='_flat(*[_np.append(_np.ravel(' + name + '(_g, _s)), _np.shape(' + name
                   + f'(_g, _s))) for _s in {targets!r}])',
        rtol=1e-9, atol=1e-12,
        hint=f'a gradient of shape {tuple(shape)} brought back to other shapes differs')


def mlp(rng: np.random.Generator, name: str) -> HiddenTest:
    n, d, h, c = (int(v) for v in rng.integers(2, 6, size=4))
    t = rng.integers(0, c, size=n).tolist()
    args = [_array(rng, n, d), f'_np.array({t!r})', _array(rng, h, d), _array(rng, h),
            _array(rng, c, h), _array(rng, c)]
    return HiddenTest(
        setup=f'_grads = {name}({", ".join(args)})',
        expression="_flat(*[_grads[_k] for _k in ('W1', 'b1', 'W2', 'b2')])",
        rtol=1e-9, atol=1e-12,
        hint=f'for a network of other sizes (N={n}, D={d}, H={h}, C={c}) a gradient differs')


def train_step(rng: np.random.Generator, name: str) -> HiddenTest:
    seed, lr = int(rng.integers(0, 2**31)), round(float(rng.uniform(0.05, 0.5)), 3)
    return HiddenTest(
        setup='\n'.join([
            'import autograd_lab.links as _L',
            f'_r = _np.random.default_rng({seed})',
            "_model = _L.Linear(5, 3, initialW=_r.normal(size=(3, 5)).astype('f'))",
            f'_optimizer = _chainer.optimizers.SGD(lr={lr!r}).setup(_model)',
            "_x = _r.normal(size=(6, 5)).astype('f')",
            '_t = _r.integers(0, 3, size=6)',
            f'_losses = [{name}(_model, _optimizer, _x, _t) for _ in range(2)]',
        ]),
        expression='_flat(_losses, _model.W, _model.b)', rtol=1e-5, atol=1e-6,
        hint='on another model and batch the losses or the updated weights differ')


def truncated(rng: np.random.Generator, name: str) -> HiddenTest:
    steps, k = int(rng.integers(6, 10)), int(rng.integers(2, 4))
    xs, ys = (rng.uniform(-1, 1, size=steps).round(4).tolist() for _ in range(2))
    w0 = round(float(rng.uniform(0.3, 1.2)), 3)
    return HiddenTest(setup='', expression=f'_flat({name}({xs!r}, {ys!r}, {w0!r}, {k}))',
                      rtol=1e-7, atol=1e-10,
                      hint=f'on another sequence ({steps} steps, w0 = {w0}, k = {k}) the '
                           'accumulated w.grad differs')


#: How each kind of code answer is tried, by its checker (topic module.name without exNN_).
PROBES: dict[str, Probe] = {
    'derivatives.central_difference': central_difference,
    'write_backward.order': reverse_order,
    'write_backward.backward': my_backward,
    'own_engine.engine': own_engine,
    'own_mlp.mlp': own_mlp,
    'higher_order.newton': newton,
    'function_node.forward': node_forward,
    'function_node.backward': node_backward,
    'gradient_checking.rel_error': rel_error,
    'gradient_checking.fixed': fixed_log_abs,
    'matrix_backward.linear': linear,
    'matrix_backward.softmax_ce': softmax_ce,
    'two_layer.unbroadcast': unbroadcast,
    'two_layer.mlp': mlp,
    'training.train_step': train_step,
    'cutting_graph.truncated': truncated,
}


def probe_key(checker: Callable) -> str:
    """The key of a checker in :data:`PROBES`: its topic module and its name without the
    lesson number.

    >>> from autograd_lab_lessons import checks
    >>> probe_key(checks.ALL[sorted(checks.ALL)[0]]).count('.')
    1
    """
    topic = checker.__module__.rsplit('.', 1)[-1]
    return f"{topic}.{checker.__name__.split('_', 1)[1]}"


def code(test: HiddenTest, expected: list[float]) -> str:
    """The hidden test's code: the drawn points, the learner's values, the comparison by
    the private checkers; an error in the learner's code or a wrong value raises
    ``AssertionError`` with the hint."""
    hint = f'Hidden test: {test.hint}.'
    return '\n'.join([
        PRELUDE,
        'try:',
        *(f'    {line}' for line in test.setup.splitlines()),
        f'    _got = {test.expression}',
        'except Exception as _error:',
        f'    raise AssertionError(f"{{type(_error).__name__}}: {{_error}}. " {hint!r}) '
        'from None',
        f'agl_grader.assert_close(_got, {[float(v) for v in expected]!r}, '
        f'rtol={test.rtol!r}, atol={test.atol!r}, hint={hint!r})',
    ])


# ---- at grading time: one student's points, the reference's values there --------------

def draw(secret: bytes, student: str, grade_id: str) -> np.random.Generator:
    """The random numbers of one student's hidden test ``grade_id``: the same at every
    grading of that submission, unknown without the course's secret.

    >>> a, b = draw(b'k', 'ada', 'q1'), draw(b'k', 'bob', 'q1')
    >>> float(a.uniform()) == float(draw(b'k', 'ada', 'q1').uniform()) != float(b.uniform())
    True
    """
    digest = hmac.new(secret, f'{student}\0{grade_id}'.encode(), hashlib.sha256).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], 'big'))


_SKIP = ('from autograd_lab_lessons.grading import', '%', '!')


def _runnable(source: str) -> str:
    """A reference cell as plain Python: IPython magics and shell lines left out."""
    return '\n'.join('pass' if line.lstrip().startswith(_SKIP[1:]) else line
                     for line in source.splitlines())


def hidden_code(reference: dict, secret: bytes, student: str) -> dict[str, str]:
    """Every hidden test of the reference notebook (an nbgrader-form assignment with its
    solutions) for ``student``: by grade id, its code with the points drawn for them and
    the values the reference gives there.  Runs the reference's cells in this process
    (:func:`main` is what the graders start, a process of its own)."""
    scope: dict = {'__name__': '__main__', 'display': lambda *a, **k: None}
    found: dict[str, str] = {}
    wanted = [cell for cell in reference['cells'] if HIDDEN_LINE.search(_text(cell))]
    last = reference['cells'].index(wanted[-1]) if wanted else -1
    for cell in reference['cells'][:last + 1]:
        text = _text(cell)
        if cell.get('cell_type') != 'code' or text.startswith(_SKIP[0]):
            continue
        if cell.get('metadata', {}).get('nbgrader', {}).get('grade'):
            for grade_id, key, argument in HIDDEN_LINE.findall(text):
                test = PROBES[key](draw(secret, student, grade_id), argument)
                here = {**scope, 'agl_grader': _Flat}
                exec('\n'.join([PRELUDE, test.setup, f'_got = {test.expression}']), here)
                found[grade_id] = code(test, np.asarray(here['_got']).tolist())
            continue
        with contextlib.suppress(Exception):  # a demonstration that fails: not an answer
            exec(compile(_runnable(text), '<reference>', 'exec'), scope)
    return found


class _Flat:
    """The one thing of the private checkers a hidden test's setup uses (``flat``)."""

    @staticmethod
    def flat(*values: object) -> np.ndarray:
        return np.concatenate([np.ravel(np.asarray(getattr(v, 'array', v), dtype=np.float64))
                               for v in values])


def _text(cell: dict) -> str:
    source = cell.get('source', '')
    return ''.join(source) if isinstance(source, list) else source


def main(argv: list[str]) -> int:
    """``python hidden_tests.py REFERENCE.ipynb SECRET_FILE STUDENT``: prints the JSON of
    :func:`hidden_code` (the reference's own prints are left out)."""
    reference = json.loads(Path(argv[0]).read_text(encoding='utf-8'))
    secret = Path(argv[1]).read_bytes().strip()
    os.environ.setdefault('MPLBACKEND', 'Agg')
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # whatever the reference writes goes nowhere
        with contextlib.redirect_stdout(io.StringIO()):
            found = hidden_code(reference, secret, argv[2])
    print(json.dumps(found))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
