"""Local derivative rules, written for students, with the numbers filled in.

For the functions students meet first, :func:`local` gives, per input, the rule
(``∂y/∂x = c·x^(c−1)``), the same with the recorded values put in (``2·5.0^1.0``)
and its value (``10.0``).  The step ledger multiplies that value by the gradient
that arrived and shows it next to what the engine's own backward produced; the
values it prints as results always come from the engine, and the product line is
shown only where it agrees with them (an elementwise function, no broadcasting).

Values are the ones the view recorded (small arrays are copied into events); a
function's constant (``_ ** 2``, ``_ * 0.5``) is read from its label.  Functions not
tabled here get no rule: the ledger then shows the grads in and out only.

>>> import numpy as np
>>> [(r.rule, r.filled, float(r.value)) for r in local('PowVarConst', '_ ** 2', [np.array(5.0)],
...                                                   [np.array(25.0)])]
[('∂y/∂x = c·x^(c−1)', '2·5.0^1', 10.0)]
>>> [r.rule for r in local('Sub', '_ - _', [np.array(1.0), np.array(2.0)], [np.array(-1.0)])]
['∂y/∂a = 1', '∂y/∂b = −1']
>>> local('Convolution2DFunction', 'Convolution2DFunction', [], []) is None
True
>>> rule_text('MatMul')
'Y = A·B:  ∂L/∂A = ∂L/∂Y·Bᵀ,  ∂L/∂B = Aᵀ·∂L/∂Y'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy

from autograd_lab_widget import arrays


@dataclass(frozen=True)
class Local:
    """One input's local derivative: the rule, the rule with numbers, its value."""

    rule: str
    filled: str
    value: Any


#: Labels of the functions with a constant: the constant stands where ``{}`` is.
_CONSTANT_LABELS = {'AddConstant': '_ + {}', 'SubFromConstant': '{} - _',
                    'MulConstant': '_ * {}', 'DivFromConstant': '{} / _',
                    'PowVarConst': '_ ** {}', 'PowConstVar': '{} ** _'}


def filled(value: Any) -> str:
    """A value in a filled-in rule: a constant as a label writes it (``2``), an array
    as the ledger does."""
    if isinstance(value, float | int):
        return str(int(value)) if float(value).is_integer() and abs(value) < 1e6 \
            else arrays.number(value)
    return arrays.text(value)


def constant(type_name: str, label: str) -> float | None:
    """The constant of a ``_WithConstant`` function, read from its label (None if none)."""
    template = _CONSTANT_LABELS.get(type_name)
    if template is None:
        return None
    pattern = re.escape(template).replace(r'\{\}', r'\(?(.+?)\)?')
    m = re.fullmatch(pattern, label.strip())
    try:
        return float(m.group(1)) if m else None
    except ValueError:
        return None


def _one(rule: str, filled: Callable[..., str], value: Callable[..., Any]) -> Callable:
    return lambda x, y, c: [Local(rule, filled(x, y, c), value(x, y, c))]


def _binary(rule_a: str, rule_b: str, fill_a: Callable, fill_b: Callable,
            val_a: Callable, val_b: Callable) -> Callable:
    return lambda x, y, c: [Local(rule_a, fill_a(x, y, c), val_a(x, y, c)),
                            Local(rule_b, fill_b(x, y, c), val_b(x, y, c))]


def _ones(x: Any) -> Any:
    return numpy.ones_like(numpy.asarray(x, dtype=numpy.float64))


# Each entry: (x: input values, y: output values, c: constant) -> [Local per input].
_TABLE: dict[str, Callable] = {
    'Add': _binary('∂y/∂a = 1', '∂y/∂b = 1', lambda x, y, c: '1', lambda x, y, c: '1',
                   lambda x, y, c: _ones(x[0]), lambda x, y, c: _ones(x[1])),
    'Sub': _binary('∂y/∂a = 1', '∂y/∂b = −1', lambda x, y, c: '1', lambda x, y, c: '−1',
                   lambda x, y, c: _ones(x[0]), lambda x, y, c: -_ones(x[1])),
    'Mul': _binary('∂y/∂a = b', '∂y/∂b = a', lambda x, y, c: filled(x[1]),
                   lambda x, y, c: filled(x[0]), lambda x, y, c: x[1] + 0 * x[0],
                   lambda x, y, c: x[0] + 0 * x[1]),
    'Div': _binary('∂y/∂a = 1/b', '∂y/∂b = −a/b²', lambda x, y, c: f'1/{filled(x[1])}',
                   lambda x, y, c: f'−{filled(x[0])}/{filled(x[1])}²',
                   lambda x, y, c: 1 / x[1] + 0 * x[0], lambda x, y, c: -x[0] / x[1] ** 2),
    'PowVarVar': _binary('∂y/∂a = b·a^(b−1)', '∂y/∂b = ln(a)·y',
                         lambda x, y, c: f'{filled(x[1])}·{filled(x[0])}^{filled(x[1] - 1)}',
                         lambda x, y, c: f'ln({filled(x[0])})·{filled(y[0])}',
                         lambda x, y, c: x[1] * x[0] ** (x[1] - 1),
                         lambda x, y, c: numpy.log(x[0]) * y[0]),
    'AddConstant': _one('∂y/∂x = 1', lambda x, y, c: '1', lambda x, y, c: _ones(x[0])),
    'SubFromConstant': _one('∂y/∂x = −1', lambda x, y, c: '−1', lambda x, y, c: -_ones(x[0])),
    'MulConstant': _one('∂y/∂x = c', lambda x, y, c: filled(c), lambda x, y, c: c * _ones(x[0])),
    'DivFromConstant': _one('∂y/∂x = −c/x²', lambda x, y, c: f'−{filled(c)}/{filled(x[0])}²',
                            lambda x, y, c: -c / x[0] ** 2),
    'PowVarConst': _one('∂y/∂x = c·x^(c−1)',
                        lambda x, y, c: f'{filled(c)}·{filled(x[0])}^{filled(c - 1)}',
                        lambda x, y, c: c * x[0] ** (c - 1)),
    'PowConstVar': _one('∂y/∂x = ln(c)·y', lambda x, y, c: f'ln({filled(c)})·{filled(y[0])}',
                        lambda x, y, c: numpy.log(c) * y[0]),
    'Neg': _one('∂y/∂x = −1', lambda x, y, c: '−1', lambda x, y, c: -_ones(x[0])),
    'Absolute': _one('∂y/∂x = sign(x)', lambda x, y, c: f'sign({filled(x[0])})',
                     lambda x, y, c: numpy.sign(x[0])),
    'Exp': _one('∂y/∂x = exp(x) = y', lambda x, y, c: filled(y[0]), lambda x, y, c: y[0]),
    'Log': _one('∂y/∂x = 1/x', lambda x, y, c: f'1/{filled(x[0])}', lambda x, y, c: 1 / x[0]),
    'Sin': _one('∂y/∂x = cos(x)', lambda x, y, c: f'cos({filled(x[0])})',
                lambda x, y, c: numpy.cos(x[0])),
    'Cos': _one('∂y/∂x = −sin(x)', lambda x, y, c: f'−sin({filled(x[0])})',
                lambda x, y, c: -numpy.sin(x[0])),
    'Tan': _one('∂y/∂x = 1/cos²(x)', lambda x, y, c: f'1/cos²({filled(x[0])})',
                lambda x, y, c: 1 / numpy.cos(x[0]) ** 2),
    'Tanh': _one('∂y/∂x = 1 − y²', lambda x, y, c: f'1 − {filled(y[0])}²',
                 lambda x, y, c: 1 - y[0] ** 2),
    'Sigmoid': _one('∂y/∂x = y·(1 − y)', lambda x, y, c: f'{filled(y[0])}·(1 − {filled(y[0])})',
                    lambda x, y, c: y[0] * (1 - y[0])),
    'ReLU': _one('∂y/∂x = 1 if x > 0 else 0', lambda x, y, c: f'[{filled(x[0])} > 0]',
                 lambda x, y, c: (x[0] > 0).astype(numpy.float64)),
    'Square': _one('∂y/∂x = 2·x', lambda x, y, c: f'2·{filled(x[0])}', lambda x, y, c: 2 * x[0]),
    'Sqrt': _one('∂y/∂x = 1/(2·√x) = 1/(2·y)', lambda x, y, c: f'1/(2·{filled(y[0])})',
                 lambda x, y, c: 1 / (2 * y[0])),
}

#: The rule only (no numbers) for functions whose backward is not elementwise.
_TEXT_ONLY: dict[str, str] = {
    'Sum': 'y = Σ xᵢ:  ∂y/∂xᵢ = 1 (the grad is copied back to every element)',
    'Mean': 'y = (1/n)·Σ xᵢ:  ∂y/∂xᵢ = 1/n',
    'MatMul': 'Y = A·B:  ∂L/∂A = ∂L/∂Y·Bᵀ,  ∂L/∂B = Aᵀ·∂L/∂Y',
    'LinearFunction': 'y = x·Wᵀ + b:  ∂L/∂x = ∂L/∂y·W,  ∂L/∂W = ∂L/∂yᵀ·x,  ∂L/∂b = Σₙ ∂L/∂y',
    'Softmax': 'yᵢ = softmax(x)ᵢ:  ∂yᵢ/∂xⱼ = yᵢ·(δᵢⱼ − yⱼ)',
    'LogSoftmax': 'yᵢ = log softmax(x)ᵢ:  ∂yᵢ/∂xⱼ = δᵢⱼ − softmax(x)ⱼ',
    'MeanSquaredError': 'L = (1/n)·Σ (a − b)²:  ∂L/∂a = (2/n)·(a − b),  ∂L/∂b = −∂L/∂a',
    'SoftmaxCrossEntropy': 'L = −(1/N)·Σ log softmax(x)[t]:  ∂L/∂x = (softmax(x) − onehot(t))/N',
    'Reshape': "the grad is reshaped back to x's shape",
    'Transpose': 'the grad is transposed back',
    'BroadcastTo': 'the grad is summed over the broadcast axes',
    'LeakyReLU': '∂y/∂x = 1 if x > 0 else the slope a',
    'Softplus': '∂y/∂x = sigmoid(β·x)',
    'MultiAdd': '∂y/∂xᵢ = 1 for every input',
    'Maximum': 'y = max(a, b) element by element: each element of the grad goes to the input '
               'that was larger there (to a on a tie); the other input gets 0 there',
    'Minimum': 'y = min(a, b) element by element: each element of the grad goes to the input '
               'that was smaller there (to a on a tie); the other input gets 0 there',
    'Max': 'y = max of x: the grad goes to the largest element of x (to each one that ties); '
           'every other element gets 0',
    'Min': 'y = min of x: the grad goes to the smallest element of x (to each one that ties); '
           'every other element gets 0',
}
#: Text-only rules written with the letters of the elementwise rules (a, b or x; y).
_LETTERED = {'Maximum', 'Minimum', 'Max', 'Min'}
_LETTER = re.compile(r'(?<![A-Za-z_])[abxy](?![A-Za-z_])')


def named(rule: str, inputs: Sequence[str], output: str) -> str:
    """``rule`` in the names drawn on the graph: its inputs ``a, b`` (or ``x``) and its
    output ``y`` replaced, so that a rule never speaks of a letter that is also one of
    the student's variables (lesson 2 has an ``a`` and a ``b``).

    >>> named('∂y/∂a = b', ['w1', 'x1'], 'v5')
    '∂v5/∂w1 = x1'
    >>> named('∂y/∂x = 1/(2·√x) = 1/(2·y)', ['h'], 'r')
    '∂r/∂h = 1/(2·√h) = 1/(2·r)'
    """
    letters = {'y': output}
    letters.update(zip(('x',) if len(inputs) == 1 else ('a', 'b'), inputs))
    return _LETTER.sub(lambda m: letters.get(m.group(0), m.group(0)), rule)


def rule_text(type_name: str, inputs: Sequence[str] = (), output: str = 'y') -> str | None:
    """The rule of a FunctionNode class name as one line of text, or None if not tabled;
    with ``inputs`` (the names of its inputs) and ``output``, written in those names."""
    if type_name in _TEXT_ONLY:
        text = _TEXT_ONLY[type_name]
        return named(text, inputs, output) if inputs and type_name in _LETTERED else text
    fn = _TABLE.get(type_name)
    if fn is None:
        return None
    one = numpy.ones(())
    text = ',  '.join(r.rule for r in fn([one, one], [one], 2.0))
    return named(text, inputs, output) if inputs else text


def local(type_name: str, label: str, inputs: Sequence[Any],
          outputs: Sequence[Any]) -> list[Local] | None:
    """Per input, the local derivative of an elementwise function at the recorded values.

    None when the function is not tabled, or a value it needs was not recorded (a
    large array is kept only as a summary).  Each ``value`` is a float64 array.
    """
    fn = _TABLE.get(type_name)
    if fn is None:
        return None
    xs = [_array(v) for v in inputs]
    ys = [_array(v) for v in outputs]
    c = constant(type_name, label)
    if any(v is None for v in (*xs, *ys)) or (type_name in _CONSTANT_LABELS and c is None):
        return None
    with numpy.errstate(all='ignore'):
        try:
            return fn(xs, ys, c)
        except (IndexError, ValueError, TypeError):
            return None


def _array(value: Any) -> Any:
    if isinstance(value, numpy.ndarray) and value.dtype.kind in 'fiub':
        return value.astype(numpy.float64)
    return None
