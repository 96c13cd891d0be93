"""The step ledger: what the last backward step did and what the next one will do.

For the function that just ran and the one about to run the ledger lists its inputs
and output with their values, the gradient that arrived, and per input the local
derivative rule with the numbers filled in and ``grad_output × local = grad_input``.
Where a variable receives a second gradient it shows the old grad, the added term
and the sum.  Results are the engine's own numbers (recorded from its events); a
product line is shown only where it agrees with them.  For the next function the
results read ``?``: Step (or a guess, in predict mode) runs the engine to fill them.

The payload is plain data for the browser (every text is written with textContent)::

    {'sections': [{'kind': 'last' | 'next', 'title': ..., 'rows': [{'key', 'value', 'classes'}],
                   'why': ...}], ...}

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events, graph
>>> from autograd_lab_widget.naming import Names, drawn_label
>>> from autograd_lab_widget.follow.timeline import Timeline
>>> with events.recording() as log:
...     x = chainer.Variable(np.array(5.0), name='x')
...     y = x ** 2 - 2 * x + 1
...     y.backward()
>>> state = Timeline(list(log)).live
>>> names = Names()
>>> names.learn(state.model)
>>> last = sections(state, names, upcoming=None)[0]
>>> last['title']
'Just ran: f2 (_ * 2)'
>>> [(r['key'], r['value']) for r in last['rows']][-2:]
[('x', '−1.0 × 2.0 = −2.0'), ('x.grad', '10.0 + (−2.0) = 8.0  (x is used twice: grads add up)')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy

from autograd_lab import events, graph

from autograd_lab_widget import arrays, rules
from autograd_lab_widget.naming import Names, drawn_label
from autograd_lab_widget.present import gone
from autograd_lab_widget.protocol import ledger_row
from autograd_lab_widget.follow.state import StepRecord, ViewState


@dataclass
class Upcoming:
    """The function the next step runs, and what it will receive."""

    func_id: int
    grad_outputs: tuple = ()
    reason: str = ''
    frontier_ids: tuple = ()
    frontier_size: int = 0
    targets: tuple = ()  # the input slots that will receive a gradient


def _signed(text: str) -> str:
    """A number written after an operator: negatives in parentheses, with a real minus."""
    text = text.replace('-', '−')
    return f'({text})' if text.startswith('−') else text


def _t(value: Any) -> str:
    return arrays.text(value).replace('-', '−')


def _same_number(a: str, b: str) -> bool:
    try:
        return float(a.replace('−', '-')) == float(b.replace('−', '-'))
    except ValueError:
        return False


def _why(reason: str, f: graph.Node | None) -> str:
    """The engine's reason (it starts with the function's label) with the label as the
    view draws it (``-_``, not ``__neg__``)."""
    if f is not None and f.label and reason.startswith(f'{f.label} (rank '):
        return drawn_label(f) + reason[len(f.label):]
    return reason


_row = ledger_row


def _values_row(state: ViewState, names: dict[int, str], ids: tuple, label: str) -> dict:
    model = state.model
    parts = []
    for i in dict.fromkeys(ids):
        node = model.nodes.get(i)
        value = node.data if node is not None else None
        parts.append(f'{names.get(i, f"#{i}")} = {_t(value)}' if value is not None
                     else names.get(i, f'#{i}'))
    return _row(label, ', '.join(parts) or '—')


def _arrived(state: ViewState, names: dict[int, str], out_ids: tuple, grads: tuple) -> dict:
    parts = [f'{names.get(o, f"#{o}")}: {_t(g)}' for o, g in zip(out_ids, grads)
             if g is not None]
    return _row('grad in', ', '.join(parts) or 'none (nothing flows back here)')


def _locals(state: ViewState, func_id: int) -> list | None:
    model = state.model
    f = model.nodes[func_id]
    ins = [model.nodes[i].data if i in model.nodes else None for i in f.input_ids]
    outs = [model.nodes[o].data if o in model.nodes else None for o in f.output_ids]
    return rules.local(f.type, f.label, ins, outs)


def slot_labels(names: list[str]) -> list[str]:
    """Each input slot's name, told apart where one variable fills several slots
    (``x * x``): the slot's place is added.

    >>> slot_labels(['x', 'x', 'w']), slot_labels(['a', 'b'])
    (['x (slot 1)', 'x (slot 2)', 'w'], ['a', 'b'])
    """
    twice = {n for n in names if names.count(n) > 1}
    return [f'{n} (slot {k + 1})' if n in twice else n for k, n in enumerate(names)]


def _slot_names(names: dict[int, str], f: graph.Node) -> list[str]:
    return slot_labels([names.get(i, f'#{i}') for i in f.input_ids])


def _output_name(names: dict[int, str], f: graph.Node) -> str:
    return names.get(f.output_ids[0], 'y') if f.output_ids else 'y'


def local_questions(state: ViewState, names: Names, up: Upcoming) -> list[tuple[str, Any]]:
    """The local derivatives step ``up`` will use, one ``(label, value)`` per target
    slot (``'∂y/∂x'``): what the harder predict mode asks for.  Empty where the
    function's rule is not in the table (its own backward) or a value is not recorded.
    """
    f = state.model.nodes.get(up.func_id)
    found = _locals(state, up.func_id) if f is not None else None
    if found is None or any(k >= len(found) for k in up.targets):
        return []
    table = names.table(state.model)
    out, ins = _output_name(table, f), _slot_names(table, f)
    return [(f'∂{out}/∂{ins[k]}', found[k].value) for k in up.targets]


def _rule_rows(state: ViewState, names: dict[int, str], func_id: int,
               slots: list[int], quiz: str = '') -> tuple[list[dict], list | None]:
    """One row per input slot: the rule for it, with the numbers (``quiz='predict'``:
    the numbers put in, the value left to the student; ``'harder'``: rule, numbers
    and value all left to the student)."""
    model = state.model
    f = model.nodes[func_id]
    found = _locals(state, func_id)
    out = _output_name(names, f)
    ins = [names.get(i, f'#{i}') for i in f.input_ids]
    slot = _slot_names(names, f)
    rows = []
    if found is None:
        text = rules.rule_text(f.type, ins, out)
        rows.append(_row('rule', text or f'{f.type}: see its backward()', 'rule'))
        return rows, None
    for k in slots:
        if k >= len(found) or k >= len(f.input_ids):
            continue
        loc = found[k]
        # the rule in the graph's names: never the letters a and b, which may be variables
        rule = rules.named(loc.rule, ins, out).split('=', 1)[1].strip()
        value = _t(loc.value)
        filled = '' if loc.filled == rule or _same_number(loc.filled, value) \
            else f' = {loc.filled.replace("-", "−")}'
        if quiz:
            value = '?'
        text = rule if _same_number(rule, value) else f'{rule}{filled} = {value}'
        if quiz == 'harder':
            text = '?  (work it out from the function)'
        rows.append(_row(f'∂{out}/∂{slot[k]}', text, 'rule'))
    return rows, found


def _product(gy: Any, local: Any, term: Any) -> str | None:
    """``gy × local = term`` when that is what the engine did (same shapes, same values)."""
    try:
        g = numpy.asarray(gy, dtype=numpy.float64)
        loc = numpy.asarray(local, dtype=numpy.float64)
        t = numpy.asarray(term, dtype=numpy.float64)
    except (TypeError, ValueError):
        return None
    if isinstance(gy, events.Summary) or isinstance(term, events.Summary):
        return None
    if not g.shape == loc.shape == t.shape:
        return None
    with numpy.errstate(all='ignore'):  # inf × 0 is what the engine did too: no warning
        same = numpy.allclose(g * loc, t, rtol=1e-4, atol=1e-6, equal_nan=True)
    if not same:
        return None
    return f'{_t(gy)} × {_signed(_t(local))} = {_t(term)}'


def _head(state: ViewState, names: dict[int, str], func_id: int, grad_outputs: tuple,
          title: str) -> tuple[str, list[dict], graph.Node | None]:
    """A section's title and first rows: the function's inputs and output with their
    values, and the gradient that arrived at it."""
    f = state.model.nodes.get(func_id)
    rows: list[dict] = []
    if f is not None:
        rows.append(_values_row(state, names, f.input_ids, 'inputs'))
        rows.append(_values_row(state, names, f.output_ids, 'output'))
        rows.append(_arrived(state, names, f.output_ids, grad_outputs))
    return f'{title}: {names.get(func_id)} ({drawn_label(f) if f else "?"})', rows, f


def _uses(state: ViewState, ident: int) -> int:
    """How many input slots of the graph's functions hold variable ``ident``."""
    return sum(f.input_ids.count(ident) for f in state.model.nodes.values()
               if f.category == 'function')


def _times(uses: int) -> str:
    return 'twice' if uses == 2 else f'{uses} times' if uses > 2 else 'more than once'


def _last(state: ViewState, names: dict[int, str], rec: StepRecord,
          fresh_verdict: str = '') -> dict:
    title, rows, f = _head(state, names, rec.func_id, rec.grad_outputs, 'Just ran')
    slots = []
    if f is not None:
        used = [0] * len(f.input_ids)
        for ident, _, _ in rec.targets:  # the k-th slot holding this variable
            k = next((k for k, i in enumerate(f.input_ids) if i == ident and not used[k]), None)
            if k is not None:
                used[k] = 1
                slots.append(k)
    rule_rows, found = (_rule_rows(state, names, rec.func_id, slots) if f is not None
                        else ([], None))
    rows += rule_rows
    gy = next((g for g in rec.grad_outputs if g is not None), None)
    labels = _slot_names(names, f) if f is not None else []
    for (ident, term, _how), k in zip(rec.targets, slots or [None] * len(rec.targets)):
        name = labels[k] if k is not None and k < len(labels) else names.get(ident, f'#{ident}')
        line = None
        if found is not None and k is not None and k < len(found) and gy is not None:
            line = _product(gy, found[k].value, term)
        rows.append(_row(name, line or f'← {_t(term)}', 'result'))
    for ident in dict.fromkeys(i for i, _, _ in rec.targets):
        terms = [t for i, t, _ in rec.targets if i == ident]
        old = rec.before.get(ident)
        new = rec.after.get(ident)
        if old is None and len(terms) == 1:
            continue
        name = names.get(ident, f'#{ident}')
        parts = ([_t(old)] if old is not None else []) + [_signed(_t(t)) for t in terms]
        why = (f'{name} held a grad from an earlier backward: this one adds to it'
               if ident in rec.earlier and len(terms) == 1 else
               f'{name} is used {_times(_uses(state, ident))}: grads add up')
        rows.append(_row(f'{name}.grad', f'{" + ".join(parts)} = {_t(new)}  ({why})', 'sum'))
    rows += _gone_rows(state, names, f, {i for i, _, _ in rec.targets})
    section = {'kind': 'last', 'title': title, 'rows': rows, 'why': _why(rec.reason, f)}
    if fresh_verdict:
        section['verdict'] = fresh_verdict
    return section


def _gone_rows(state: ViewState, names: dict[int, str], f: graph.Node | None,
               sent: set[int]) -> list[dict]:
    """A row for each input of ``f`` that gets no grad because its Variable is gone."""
    if f is None:
        return []
    nodes = state.model.nodes
    ids = [i for i in dict.fromkeys(f.input_ids)
           if i not in sent and i in nodes and gone.is_gone(state, nodes[i])]
    return [_row(f'{names.get(i, f"#{i}")}.grad', gone.words(names.get(i, f'#{i}')) + '.',
                 'gone') for i in ids]


def _next(state: ViewState, names: dict[int, str], up: Upcoming, quiz: str) -> dict:
    title, rows, f = _head(state, names, up.func_id, up.grad_outputs, 'Next')
    if f is not None:
        slots = list(up.targets)
        rule_rows, found = _rule_rows(state, names, up.func_id, slots, quiz)
        rows += rule_rows
        gy = next((g for g in up.grad_outputs if g is not None), None)
        labels = _slot_names(names, f)
        for k in slots:
            name = labels[k]
            if found is not None and k < len(found) and gy is not None:
                local = '?' if quiz else _signed(_t(found[k].value))
                text = f'{_t(gy)} × {local} = ?'
            else:
                text = '?'
            rows.append(_row(name, text, 'result pending'))
        rows += _gone_rows(state, names, f, {f.input_ids[k] for k in slots})
    frontier = ', '.join(_ranked(state, names, i) for i in up.frontier_ids)
    more = up.frontier_size - len(up.frontier_ids)
    why = _why(up.reason, f) + (f'  Waiting: {frontier}{f" and {more} more" if more > 0 else ""}.'
                       if frontier else '')
    return {'kind': 'next', 'title': title, 'rows': rows, 'why': why.strip()}


def _ranked(state: ViewState, names: dict[int, str], ident: int) -> str:
    """A waiting function with its rank (backward runs the highest rank first)."""
    node = state.model.nodes.get(ident)
    name = names.get(ident, f'#{ident}')
    return f'{name} (rank {node.rank})' if node is not None else name


def sections(state: ViewState, names: Names, *, upcoming: Upcoming | None,
             verdict: str = '', quiz: bool = False, harder: bool = False) -> list[dict]:
    """The ledger's sections: the step just run (if any), then the next one (if any).
    ``quiz`` (predict mode): the next step's local derivatives are left for the student
    to work out from the rule with its numbers; ``harder`` too: the rule is left out,
    the local derivative is part of the guess."""
    quiz = ('harder' if harder else 'predict') if quiz else ''
    table = names.table(state.model)
    out = []
    rec = state.run.last
    if rec is not None and rec.func_id in state.model.nodes:
        out.append(_last(state, table, rec, verdict))
    if upcoming is not None and upcoming.func_id in state.model.nodes:
        out.append(_next(state, table, upcoming, quiz))
    return out
