"""The numbers a wrong first guess holds back, covered wherever the view would show them.

In predict mode a wrong first guess gets a verdict that says what is off but not the
right number, so that its retry is no copy (:mod:`~autograd_lab_widget.quiz.predict_mode`).
The step has run in the engine, though, and its results would be on screen: in the
ledger's "Just ran", in the grad cells of the graph, in the inspect panel, and as the
grad that the next function receives.  Until the retry (or "Show the answer") those
places say the number is held back instead; nothing is changed in the engine.

>>> from autograd_lab_widget.protocol import ledger_row
>>> row = ledger_row('x', '1.0 × 0.54 = 0.54', 'result')
>>> book = {'sections': [{'kind': 'last', 'rows': [row]}]}
>>> cover_ledger(book, {'x'})['sections'][0]['rows'][0]['value']
'? (held back: try this step again, or Show the answer)'
"""

from __future__ import annotations

import copy

#: What a held-back number reads as.
HELD = '? (held back: try this step again, or Show the answer)'
#: The short form, for a grad cell of the graph.
HELD_CELL = '?'


def cover_ledger(book: dict, wrong: set[str], ids_of_next: bool = False) -> dict:
    """``book`` with the just-ran step's results for the targets in ``wrong`` (their
    names; any name: the rules' values too, which give the product away) covered, and
    the next step's incoming grad where it is what this step sent (``ids_of_next``)."""
    out = copy.deepcopy(book)
    for sec in out.get('sections', []):
        for row in sec.get('rows', []):
            classes = row.get('classes', '')
            key = row.get('key', '')
            if sec.get('kind') == 'last' and ('rule' in classes or (
                    ('result' in classes or 'sum' in classes) and _names(key) & wrong)):
                row['value'] = HELD
            elif sec.get('kind') == 'next' and ids_of_next and (
                    key == 'grad in' or 'pending' in classes):
                row['value'] = HELD
    return out


def cover_nodes(nodes: dict, ids: set[int]) -> dict:
    """The graph's cells with the grads of ``ids`` covered."""
    out = dict(nodes)
    for i in ids:
        cell = out.get(f'n{i}')
        if cell and 'grad' in cell.get('text', {}):
            out[f'n{i}'] = {**cell, 'text': {**cell['text'], 'grad': HELD_CELL}}
    return out


def cover_panel(body: dict, ids: set[int]) -> dict:
    """The inspect panel with its grad covered when it shows one of ``ids``."""
    if not body or body.get('id') not in ids:
        return body
    out = copy.deepcopy(body)
    for row in out.get('main', []):
        if row and row[0] == 'grad':
            row[1] = HELD
    out['heatmaps'] = [h for h in out.get('heatmaps', []) if h.get('label') != 'grad']
    return out


def _names(key: str) -> set[str]:
    """The variable a ledger row is about: ``x``, ``x (slot 2)`` and ``x.grad`` are x's."""
    base = key.split(' (slot ', maxsplit=1)[0]
    return {base, base[:-len('.grad')] if base.endswith('.grad') else base}
