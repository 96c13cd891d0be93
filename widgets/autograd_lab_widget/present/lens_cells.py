"""The gradient lens as the view writes it: one more row per variable, and a legend.

With the ``gradient_lens`` option on, every variable gets a row ``size │ ▇▇▇▂▂▂ 10^-6 ↓``:
a bar of :data:`BAR` blocks (how far up :data:`autograd_lab.graph.lens.SCALE` its
gradient's norm over the seed's sits), the power of ten written, and a word for the
flags (``vanishing``, ``exploding``), so that nothing rests on colour alone.  A grad
holding a NaN or an infinity has no size: its bar is crossed out (:data:`NO_SIZE`) and
the word says which (``NaN``, ``inf``).
The cell's class (``lens-vanishing``, ...) colours it too.  The row reads the grads the
view's trace holds (those the real backward gave, kept after release), so it fills in
as backward steps.  The function whose backward made the first NaN is marked ``⚠``.

>>> from autograd_lab.graph.lens import Reading
>>> text(Reading(1e-6, -6.0, 'vanishing'))
'▇▁▁▁▁▁ 10^-6 vanishing'
>>> text(None)
'—'
>>> [text(Reading(v, None, 'nonfinite')) == f'{NO_SIZE} {word}'
...  for v, word in ((float('nan'), 'NaN'), (float('inf'), 'inf'))]
[True, True]
"""

from __future__ import annotations

import math
from typing import Any

from autograd_lab.graph import lens
from autograd_lab.graph.dot import escape_text

#: Option key (``GraphView(options={'gradient_lens': True})``, the More menu's toggle).
OPTION = 'gradient_lens'
#: Blocks in the bar.
BAR = 6
#: Characters the lens cell holds: the bar, the power, the longest flag word.
CHARS = BAR + len(' 10^-10 ') + len('vanishing')
#: The caption of the lens row (the grad row's is 'grad').
CAPTION = 'size'
#: The mark of the function whose backward made the first NaN.
NAN_MARK = '⚠'
#: The bar of a grad that holds a NaN or an infinity: crossed out, not a size (a shape
#: the block bars never take, so it does not rest on colour either).
NO_SIZE = '\u2573' * BAR  # BOX DRAWINGS LIGHT DIAGONAL CROSS
_WORDS = {'vanishing': 'vanishing', 'exploding': 'exploding', 'zero': 'zero'}


def text(reading: lens.Reading | None) -> str:
    """What the lens cell of a variable says (``—``: no grad reached it yet)."""
    if reading is None:
        return '—'
    if reading.flag == 'nonfinite':
        return f'{NO_SIZE} {reading.exponent}'  # 'NaN' or 'inf'
    # one block per two powers of ten; a gradient that is there shows at least one
    filled = max(1, round(reading.bar * BAR)) if reading.log10_ratio is not None else 0
    bar = '▇' * filled + '▁' * (BAR - filled)
    word = _WORDS.get(reading.flag or '', '')
    return f'{bar} {reading.exponent} {word}'.rstrip()


def cell_class(reading: lens.Reading | None) -> str:
    """The lens cell's class: ``lens`` plus ``lens-<flag>`` when flagged."""
    if reading is None:
        return 'lens none'
    return f'lens lens-{reading.flag}' if reading.flag else 'lens'


_last_seed: list = [None, 1.0]  # (trace, run, step) -> its seed norm: once per drawing


def seed_norm(trace: Any) -> float:
    """The norm of the grads the shown backward run started from (1.0 before one)."""
    key = (id(trace), trace.run_id, trace.steps)
    if _last_seed[0] != key:
        norms = [lens.grad_norm(trace.grads[r]) for r in trace.run_roots if r in trace.grads]
        _last_seed[:] = [key, math.sqrt(sum(n * n for n in norms)) if norms else 1.0]
    return _last_seed[1]


def reading(trace: Any, grad: Any) -> lens.Reading | None:
    """The lens reading of ``grad`` (None: no grad yet) in the shown run."""
    if grad is None:
        return None
    return lens.read(lens.grad_norm(grad), seed_norm(trace))


def link_note(state: Any) -> Any:
    """For a collapsed Link's node: ``path -> 'params ▇▇▁▁▁▁ 10^-5 vanishing'``, the norm
    of the grads of the parameters inside it taken together ('' before any)."""
    def note(path: str) -> str:
        inside = path.rstrip('/') + '/'
        squares, found = 0.0, False
        for ident, n in state.model.nodes.items():
            if n.is_parameter and n.scope and (n.scope + '/').startswith(inside):
                grad = n.grad if n.grad is not None else state.trace.grads.get(ident)
                if grad is not None:
                    squares, found = squares + lens.grad_norm(grad) ** 2, True
        if not found:
            return ''
        return 'params ' + text(lens.read(math.sqrt(squares), seed_norm(state.trace)))
    return note


def legend_lines() -> tuple[str, ...]:
    """What the lens's legend says, a line each (the widget shows it under the graph,
    the static picture beside it).

    >>> legend_lines()[0]
    'gradient size: |grad| / |seed|, as 10^k'
    """
    low, high = (int(v) for v in lens.SCALE)
    return ('gradient size: |grad| / |seed|, as 10^k',
            f'bar: ▁▁▁▁▁▁ 10^{low} or less … ▇▇▇▇▇▇ 10^{high} or more',
            f'vanishing: below {lens.VANISHING_BELOW:g} × seed',
            f'exploding: above {lens.EXPLODING_ABOVE:g} × seed',
            f'{NO_SIZE} NaN: not a number, inf: infinite; {NAN_MARK} marks the function '
            'whose backward made the first NaN')


def with_legend(dot: str) -> str:
    """``dot`` with the legend drawn as one more (plain text) node: for the static
    picture, which has no page around it to hold the legend."""
    body = '<BR ALIGN="LEFT"/>'.join(escape_text(line, max_line=80) for line in legend_lines())
    node = (f'\tlens_legend [label=<{body}<BR ALIGN="LEFT"/>> shape=plaintext '
            'id="lens-legend" class="lens-legend" fontsize=14]\n')
    return dot.rstrip().removesuffix('}') + node + '}\n'
