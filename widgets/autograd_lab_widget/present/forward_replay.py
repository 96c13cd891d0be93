"""Watch the graph being built: what the view says at each step of the forward replay.

A view made from a recording with its code lines
(``GraphView(y, events_log=log, code_lines=lines)``, the log recorded inside
:class:`~autograd_lab.events.code_lines.capturing_code_lines`) also stops after every
function the forward applied: Back, Step, the arrow keys and time travel walk through
the graph as it grew, and the status line says which function was just made, by which
line of code (:func:`caption`).  The same events and the same drawing as the backward's
history; nothing is run again.

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

from typing import Any


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

