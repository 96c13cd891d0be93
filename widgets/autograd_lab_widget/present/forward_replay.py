"""Watch the graph being built: what the view says at each step of the forward replay.

A view made from a recording with its code lines
(``GraphView(y, events_log=log, code_lines=lines)``, the log recorded inside
:class:`~autograd_lab.events.code_lines.capturing_code_lines`) also stops after every
function the forward applied: Back, Step, the arrow keys and time travel walk through
the graph as it grew, and the status line says which function was just made, by which
line of code (:func:`caption`).  The same events and the same drawing as the backward's
history; nothing is run again.  The stage does not move while the graph grows: each
position is drawn as the whole forward graph with the nodes not yet made invisible
(:func:`steady`), so Graphviz gives every node the same place at every step.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> from autograd_lab.events.code_lines import capturing_code_lines
>>> from autograd_lab_widget.session.stepping import StepModel
>>> with events.recording() as log, capturing_code_lines() as lines:
...     x = chainer.Variable(np.array(2.0), name='x')
...     h = x
...     for _ in range(2):
...         h = h * x
>>> model = StepModel(h, events_log=log, code_lines=lines)
>>> model.back(), model.back()   # after the last function, then after the first
(True, True)
>>> from autograd_lab_widget.protocol import OPTION_DEFAULTS
>>> model.scene(OPTION_DEFAULTS).status['text'].split('. The line ')
['Building the graph: function 1 of 2',
 "`h = h * x` made f1 (_ * _) and its output v2 (the code's h)."]
>>> model.close()
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from autograd_lab_widget.present.drawing import structure_key

#: A node or an edge statement of the drawing's DOT (one per line).
_STATEMENT = re.compile(r'^\t(n\d+)(?: -> (n\d+))? \[')
_CLASS = re.compile(r'\bclass="[^"]*"')
_BORDER = re.compile(r'<TABLE BORDER="\d+"')


def caption(state: Any, code_lines: Any, names: Any, shown: list) -> str:
    """The status line at a position of the forward replay ('' elsewhere: no code lines,
    or a backward already began in what is shown).  ``shown`` are the events up to it."""
    if code_lines is None or state.run.run_id is not None:
        return ''
    applied = [e for e in shown if e.kind == 'function_applied' and e.in_backward_of is None]
    if not applied:
        made = [names.table(state.model).get(i, f'#{i}') for i, n in state.model.nodes.items()
                if n.category == 'variable']
        if made:
            return (f'Building the graph: the inputs {", ".join(made)} (Step makes the '
                    'first function).')
        return 'Building the graph: nothing made yet (Step makes the first function).'
    last = applied[-1]
    total = len(code_lines.lines)  # every function captured: the forward's length
    of = f' of {total}' if total >= len(applied) else ''
    table = names.table(state.model)
    name = table.get(last.func_id, f'#{last.func_id}')
    code = code_lines.text(last.func_id)
    output = _output_words(last, table, code_lines, applied)
    by = f'The line `{code}` made' if code else 'Made:'
    return (f'Building the graph: function {len(applied)}{of}. '
            f'{by} {name} ({last.label}){output}.')


#: A line of code that assigns to one plain name: ``y = ...``.
_ASSIGNS = re.compile(r'([A-Za-z_]\w*)\s*=(?!=)')


def code_name(func: Any, code_lines: Any, applied: list) -> str:
    """The name the user's code gives the output of ``func`` (a function_applied event):
    the name its line assigns, where no other function of that line takes the output
    (else the line's name belongs to a later result).  '' when it cannot be told."""
    if len(func.output_ids) != 1:
        return ''
    m = _ASSIGNS.match(code_lines.text(func.func_id))
    if m is None:
        return ''
    here = code_lines.lines.get(func.func_id, ())[:2]
    out = func.output_ids[0]
    for e in applied:
        if out in e.input_ids and code_lines.lines.get(e.func_id, ())[:2] == here:
            return ''
    return m.group(1)


def _output_words(func: Any, table: dict, code_lines: Any, applied: list) -> str:
    """``' and its output v2 (the code's h)'``: the output as drawn, and the code's
    name for it where that differs."""
    if len(func.output_ids) != 1:
        return ''
    drawn = table.get(func.output_ids[0], '')
    said = code_name(func, code_lines, applied)
    if said and drawn and said != drawn:
        return f" and its output {drawn} (the code's {said})"
    return f' and its output {drawn}' if drawn else ''



def _invisible(line: str) -> str:
    """A statement drawn as nothing but still laid out (class ``ghost``, so that the
    page counts and styles it as no node of the graph)."""
    line = _CLASS.sub('', line)
    end = line.rindex(']')
    return line[:end] + ' class="ghost" style=invis]' + line[end + 1:]


def _statements(dot: str) -> dict:
    """``{node id or (src, dst): line}`` of ``dot``'s node and edge statements."""
    found = {}
    for line in dot.splitlines():
        key = _key(line, found)
        if key is not None:
            found[key] = line
    return found


def _key(line: str, found: dict) -> Any:
    """A statement's key: the node's id, or an edge's ends and which of the edges
    between them it is (one per input slot a variable fills)."""
    m = _STATEMENT.match(line)
    if m is None:
        return None
    if m.group(2) is None:
        return m.group(1)
    k = 0
    while (m.group(1), m.group(2), k) in found:
        k += 1
    return (m.group(1), m.group(2), k)


def steady(frame: Any, look: Any) -> Any:
    """``frame`` (a drawing at a position of the forward replay) drawn on the layout of
    the whole forward graph: the nodes and edges not made yet are there, invisible, so
    every node keeps its place from step to step.  The whole graph is the biggest
    drawing of the replay seen so far (``look.whole``; the view opens on it, at the end
    of the forward).  A drawing that is not part of it (new nodes, a window of a big
    graph, collapsed Links) is returned as it is.

    >>> from autograd_lab_widget.present.drawing import Frame, Look
    >>> node = '\\tn{} [label="{}" class="variable"]'
    >>> dot = lambda *ids: '\\n'.join(['digraph {', *(node.format(i, i) for i in ids), '}'])
    >>> look = Look()
    >>> steady(Frame(dot(1, 2), '', {'n1': {}, 'n2': {}}, 2, 2), look).dot == dot(1, 2)
    True
    >>> early = steady(Frame(dot(1), '', {'n1': {}}, 1, 1), look).dot.splitlines()
    >>> [line.strip() for line in early[1:3]]   # n2 not made yet: laid out, not drawn
    ['n1 [label="1" class="variable"]', 'n2 [label="2"  class="ghost" style=invis]']
    """
    ids = frozenset(frame.nodes)
    if frame.window is not None or frame.links or 'subgraph' in frame.dot or not ids:
        return frame
    whole = look.whole
    if whole is None or not ids <= whole[1] or ids == whole[1]:
        look.whole = (frame.dot, ids)
        return frame
    now = _statements(frame.dot)
    lines = []
    keys: dict = {}
    for line in whole[0].splitlines():
        key = _key(line, keys)
        if key is None:
            lines.append(line)
            continue
        keys[key] = line
        if key not in now:
            lines.append(_invisible(line))
            continue
        # the size it has in the whole graph (the output so far has a thicker border,
        # which would make it 2 px bigger and move everything around it)
        border = _BORDER.search(line)
        lines.append(_BORDER.sub(border.group(0), now.pop(key), 1) if border else now.pop(key))
    if now:  # an edge the whole graph does not have: not its layout after all
        return frame
    dot = '\n'.join(lines) + ('\n' if whole[0].endswith('\n') else '')
    return dataclasses.replace(frame, dot=dot, key=structure_key(dot))
