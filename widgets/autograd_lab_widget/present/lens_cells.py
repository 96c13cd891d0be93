"""The gradient lens as the view writes it: one more row per variable, and a legend.

With the ``gradient_lens`` option on, every variable gets a row ``size │ ▇▇▇▂▂▂ 10^-6 ↓``:
a bar of :data:`BAR` blocks (how far up :data:`autograd_lab.graph.lens.SCALE` its
gradient's norm over the seed's sits), the power of ten written, and a word for the
flags (``vanishing``, ``exploding``), so that nothing rests on colour alone.  A grad
holding a NaN or an infinity has no size: its bar is crossed out (:data:`NO_SIZE`) and
the word says which (``NaN``, ``inf``).
The cell's class (``lens-vanishing``, ...) colours it too.  The row reads the grads the
view's backward run holds (those the real backward gave, kept after release), so it
fills in as backward steps.  The function whose backward made the first NaN is marked
``⚠`` (``lens_words.NAN_MARK``; the bar and the legend's words are there too).

>>> from autograd_lab.graph.lens import Reading
>>> text(Reading(1e-6, -6.0, 'vanishing'))
'▇▇▇▁▁▁ 10^-6 vanishing'
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

from autograd_lab_widget import lens_words
from autograd_lab_widget.lens_words import BAR, NO_SIZE, legend_lines

#: Option key (``GraphView(options={'gradient_lens': True})``, the More menu's toggle).
OPTION = 'gradient_lens'
#: Characters the lens cell holds: the bar, the power, the longest flag word.
CHARS = BAR + len(' 10^-10 ') + len('vanishing')
#: The caption of the lens row (the grad row's is 'grad').
CAPTION = 'size'
_WORDS = {'vanishing': 'vanishing', 'exploding': 'exploding', 'zero': 'zero'}


def text(reading: lens.Reading | None) -> str:
    """What the lens cell of a variable says (``—``: no grad reached it yet)."""
    if reading is None:
        return '—'
    if reading.flag == 'nonfinite':
        return f'{NO_SIZE} {reading.exponent}'  # 'NaN' or 'inf'
    # a block per 3 to 4 powers of ten; a gradient that is there shows at least one
    bar = lens_words.bar(reading.bar) if reading.log10_ratio is not None else '▁' * BAR
    word = _WORDS.get(reading.flag or '', '')
    return f'{bar} {reading.exponent} {word}'.rstrip()


def cell_class(reading: lens.Reading | None) -> str:
    """The lens cell's class: ``lens`` plus ``lens-<flag>`` when flagged."""
    if reading is None:
        return 'lens none'
    return f'lens lens-{reading.flag}' if reading.flag else 'lens'


_last_seed: list = [None, 1.0]  # (run, step) -> its seed norm: once per drawing


def seed_norm(run: Any) -> float:
    """The norm of the grads the shown backward run started from (1.0 before one)."""
    key = (id(run), run.run_id, run.steps)
    if _last_seed[0] != key:
        _last_seed[:] = [key, lens.seed_norm(run)]
    return _last_seed[1]


def reading(run: Any, grad: Any) -> lens.Reading | None:
    """The lens reading of ``grad`` (None: no grad yet) in the shown run."""
    if grad is None:
        return None
    return lens.read(lens.grad_norm(grad), seed_norm(run))


def link_note(state: Any) -> Any:
    """For a collapsed Link's node: ``path -> 'params ▇▇▁▁▁▁ 10^-5 vanishing'``, the norm
    of the grads of the parameters inside it taken together ('' before any)."""
    def note(path: str) -> str:
        inside = path.rstrip('/') + '/'
        squares, found = 0.0, False
        for ident, n in state.model.nodes.items():
            if n.is_parameter and n.scope and (n.scope + '/').startswith(inside):
                grad = n.grad if n.grad is not None else state.run.grads.get(ident)
                if grad is not None:
                    squares, found = squares + lens.grad_norm(grad) ** 2, True
        if not found:
            return ''
        return 'params ' + text(lens.read(math.sqrt(squares), seed_norm(state.run)))
    return note


def with_legend(dot: str) -> str:
    """``dot`` with the legend drawn as one more (plain text) node: for the static
    picture, which has no page around it to hold the legend."""
    body = '<BR ALIGN="LEFT"/>'.join(escape_text(line, max_line=80) for line in legend_lines())
    node = (f'\tlens_legend [label=<{body}<BR ALIGN="LEFT"/>> shape=plaintext '
            'id="lens-legend" class="lens-legend" fontsize=14]\n')
    return dot.rstrip().removesuffix('}') + node + '}\n'
