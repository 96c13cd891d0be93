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
>>> model.scene(OPTION_DEFAULTS).status['text']
'Building the graph: function 1 of 2, f1 = _ * _, made by the line `h = h * x`'
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
        return 'Building the graph: nothing made yet (Step makes the first function).'
    last = applied[-1]
    total = len(code_lines.lines)  # every function captured: the forward's length
    of = f' of {total}' if total >= len(applied) else ''
    name = names.table(state.model).get(last.func_id, f'#{last.func_id}')
    code = code_lines.text(last.func_id)
    made = f', made by the line `{code}`' if code else ''
    return (f'Building the graph: function {len(applied)}{of}, '
            f'{name} = {last.label}{made}')



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
        m = _STATEMENT.match(line)
        if m:
            found[m.group(1) if m.group(2) is None else (m.group(1), m.group(2))] = line
    return found


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
    for line in whole[0].splitlines():
        m = _STATEMENT.match(line)
        if m is None:
            lines.append(line)
            continue
        key = m.group(1) if m.group(2) is None else (m.group(1), m.group(2))
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
