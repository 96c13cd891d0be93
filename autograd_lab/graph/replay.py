"""The forward replay: the graph as it was built, one function node at a time.

Define-by-run builds the graph while the code runs; a recording keeps the order.
:func:`forward_steps` lists the forward's function applications (not those a backward
made) with the line of code that made each (when the recording was made inside
:class:`~autograd_lab.events.code_lines.capturing_code_lines`); step ``k``'s graph is
``GraphModel.from_events(log, upto=steps[k].index)``, the same time travel a backward
replay uses.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> from autograd_lab.events.code_lines import capturing_code_lines
>>> def build(x0):
...     with events.recording() as log, capturing_code_lines() as lines:
...         x = chainer.Variable(np.array(x0), name='x')
...         if x0 > 0:
...             y = x * 2
...         else:
...             y = -x
...     return forward_steps(log, lines)
>>> [(s.label, s.code) for s in build(1.0)]
[('_ * 2', 'y = x * 2')]
>>> [(s.label, s.code) for s in build(-1.0)]
[('__neg__', 'y = -x')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ForwardStep:
    """One function applied in the forward: the ``index`` of its event in the log,
    its ``func_id`` and ``label``, and the ``code`` line that applied it ('' unknown)."""

    index: int
    func_id: int
    label: str
    code: str


def forward_steps(log: Sequence, code_lines: Any = None) -> list[ForwardStep]:
    """The forward's function applications in ``log``, in order (see the module).

    ``code_lines`` is a :class:`~autograd_lab.events.code_lines.capturing_code_lines`
    (anything with ``text(func_id)``), or None for no captions.
    """
    steps = []
    for index, e in enumerate(log):
        if e.kind == 'function_applied' and e.recorded and e.in_backward_of is None:
            code = code_lines.text(e.func_id) if code_lines is not None else ''
            steps.append(ForwardStep(index, e.func_id, e.label, code))
    return steps
