"""Local derivative rules, as LaTeX, for the functions students meet first.

The inspect panel shows the rule of a clicked function node.  The LaTeX is shown as
plain text (no KaTeX is bundled: the bundle stays offline and small); it reads well
enough in that form and can be pasted into a Markdown cell to render.

>>> print(rule_for('Exp'))
\\frac{\\partial e^x}{\\partial x} = e^x
>>> rule_for('NoSuchFunction') is None
True
"""

from __future__ import annotations

# Keyed by the FunctionNode class name (the ``type`` field of FunctionApplied events).
RULES: dict[str, str] = {
    'Add': r'\frac{\partial (x_0 + x_1)}{\partial x_i} = 1',
    'AddConstant': r'\frac{\partial (x + c)}{\partial x} = 1',
    'Sub': r'\frac{\partial (x_0 - x_1)}{\partial x_0} = 1,\quad '
           r'\frac{\partial (x_0 - x_1)}{\partial x_1} = -1',
    'SubFromConstant': r'\frac{\partial (c - x)}{\partial x} = -1',
    'Mul': r'\frac{\partial (x_0 x_1)}{\partial x_0} = x_1,\quad '
           r'\frac{\partial (x_0 x_1)}{\partial x_1} = x_0',
    'MulConstant': r'\frac{\partial (c x)}{\partial x} = c',
    'Div': r'\frac{\partial (x_0 / x_1)}{\partial x_0} = \frac{1}{x_1},\quad '
           r'\frac{\partial (x_0 / x_1)}{\partial x_1} = -\frac{x_0}{x_1^2}',
    'DivFromConstant': r'\frac{\partial (c / x)}{\partial x} = -\frac{c}{x^2}',
    'PowVarConst': r'\frac{\partial x^c}{\partial x} = c\,x^{c-1}',
    'PowConstVar': r'\frac{\partial c^x}{\partial x} = c^x \ln c',
    'PowVarVar': r'\frac{\partial x_0^{x_1}}{\partial x_0} = x_1 x_0^{x_1-1},\quad '
                 r'\frac{\partial x_0^{x_1}}{\partial x_1} = x_0^{x_1}\ln x_0',
    'Neg': r'\frac{\partial (-x)}{\partial x} = -1',
    'Absolute': r'\frac{\partial |x|}{\partial x} = \operatorname{sign}(x)',
    'Exp': r'\frac{\partial e^x}{\partial x} = e^x',
    'Log': r'\frac{\partial \ln x}{\partial x} = \frac{1}{x}',
    'Sin': r'\frac{\partial \sin x}{\partial x} = \cos x',
    'Cos': r'\frac{\partial \cos x}{\partial x} = -\sin x',
    'Tan': r'\frac{\partial \tan x}{\partial x} = \frac{1}{\cos^2 x}',
    'Tanh': r'\frac{\partial \tanh x}{\partial x} = 1 - \tanh^2 x',
    'Sqrt': r'\frac{\partial \sqrt{x}}{\partial x} = \frac{1}{2\sqrt{x}}',
    'Square': r'\frac{\partial x^2}{\partial x} = 2x',
    'Sigmoid': r'\frac{\partial \sigma(x)}{\partial x} = \sigma(x)\,(1 - \sigma(x))',
    'ReLU': r'\frac{\partial \max(0, x)}{\partial x} = [x > 0]',
    'LeakyReLU': r'\frac{\partial f(x)}{\partial x} = 1 \text{ if } x > 0 \text{ else } a',
    'Softplus': r'\frac{\partial \ln(1 + e^{x})}{\partial x} = \sigma(x)',
    'Sum': r'\frac{\partial \sum_j x_j}{\partial x_i} = 1 '
           r'\quad(\text{the grad is broadcast back})',
    'Mean': r'\frac{\partial \frac{1}{n}\sum_j x_j}{\partial x_i} = \frac{1}{n}',
    'MatMul': r'Y = AB:\quad \bar{A} = \bar{Y} B^\top,\quad \bar{B} = A^\top \bar{Y}',
    'LinearFunction': r'y = x W^\top + b:\quad \bar{x} = \bar{y} W,\quad '
                      r'\bar{W} = \bar{y}^\top x,\quad \bar{b} = \sum_n \bar{y}_n',
    'Softmax': r'\frac{\partial y_i}{\partial x_j} = y_i(\delta_{ij} - y_j)',
    'LogSoftmax': r'\frac{\partial y_i}{\partial x_j} = \delta_{ij} - \operatorname{softmax}(x)_j',
    'MeanSquaredError': r'\frac{\partial}{\partial x_0}\frac{1}{n}\|x_0 - x_1\|^2 = '
                        r'\frac{2}{n}(x_0 - x_1)',
    'SoftmaxCrossEntropy': r'\frac{\partial \ell}{\partial x} = '
                           r'\frac{1}{N}(\operatorname{softmax}(x) - \operatorname{onehot}(t))',
    'Reshape': r'\bar{x} = \operatorname{reshape}(\bar{y}, \text{shape of } x)',
    'Transpose': r'\bar{x} = \bar{y}^\top',
    'BroadcastTo': r'\bar{x} = \text{sum of } \bar{y} \text{ over the broadcast axes}',
}


def rule_for(type_name: str) -> str | None:
    """The LaTeX local derivative rule of a FunctionNode class name, or None if not tabled."""
    return RULES.get(type_name)
