"""The recorded event log as a history of backward steps, and the status line.

Positions are indices into the view's event log (position ``p`` = the graph after
the first ``p`` events).  Back/Forward move between *step boundaries*: the start,
the moment before each backward began, and just after each function's backward.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> with events.recording() as log:
...     x = chainer.Variable(np.array(2.0), name='x')
...     y = x * x + x
...     y.backward()
>>> b = boundaries(list(log))
>>> b[0], b[-1] == len(log), len(b)
(0, True, 4)
"""

from __future__ import annotations

from typing import Any

from autograd_lab import graph

from autograd_lab_widget import arrays


def boundaries(log: list) -> list[int]:
    """Sorted step boundaries of ``log`` (always including 0 and ``len(log)``)."""
    marks = {0, len(log)}
    for i, e in enumerate(log):
        if e.kind == 'backward_started':
            marks.add(i)
        elif e.kind == 'backward_step_done':
            end = i + 1
            if end < len(log) and log[end].kind == 'backward_finished':
                end += 1  # the last step and the end of its backward are one move
            marks.add(end)
    return sorted(marks)


def name_of(model: graph.GraphModel, ident: int | None) -> str:
    """A short readable name for a node id (its name, label, or ``v<id>``)."""
    node = model.nodes.get(ident)
    if node is None:
        return f'#{ident}'
    if node.category == 'function':
        return f'{node.label or node.type} (#{ident})'
    return f'{node.name} (#{ident})' if node.name else f'v{ident}'


def steps_done(log: list, pos: int, resets: list[int]) -> int:
    """How many functions ran in the backward shown at ``pos`` (0 after a reset)."""
    start = max([m for m in resets if m <= pos], default=0)
    for i in range(pos - 1, start - 1, -1):
        if log[i].kind == 'backward_started':
            start = i
            break
    return sum(1 for e in log[start:pos] if e.kind == 'backward_step_done')


def _last(log: list, pos: int, kind: str, start: int = 0) -> tuple[int, Any]:
    for i in range(pos - 1, start - 1, -1):
        if log[i].kind == kind:
            return i, log[i]
    return -1, None


def _grad_lines(model: graph.GraphModel, func_id: int, grads: tuple) -> list[str]:
    node = model.nodes.get(func_id)
    outs = node.output_ids if node is not None else ()
    lines = []
    for k, g in enumerate(grads):
        who = name_of(model, outs[k]) if k < len(outs) else f'output {k}'
        lines.append(f'grad_output {k} (of {who}) = {arrays.as_text(g)}')
    return lines


def done_lines(model: graph.GraphModel, done: Any) -> list[str]:
    """grad_inputs of a finished step, ``+=`` where a gradient was accumulated."""
    lines = []
    for ident, g, how in zip(done.target_input_ids, done.grad_inputs, done.accumulation):
        op = '+=' if how == 'added' else '='
        note = '   (accumulated: this variable is used more than once)' if how == 'added' else ''
        lines.append(f'grad of {name_of(model, ident)} {op} {arrays.as_text(g)}{note}')
    return lines


def status(model: graph.GraphModel, log: list, pos: int, *, live: dict | None,
           resets: list[int], pending: Any = None) -> dict:
    """The status payload: what runs next and why, and the grads in and out.

    ``live`` (at the live end only) describes the engine's stepper: ``next_id``,
    ``reason``, ``frontier_ids``, ``grad_outputs``, ``done``, ``started``.  ``pending``
    is the step whose result "predict first" mode is hiding.
    """
    st: dict = {'step': steps_done(log, pos, resets), 'position': pos, 'length': len(log),
                'can_back': pos > 0, 'predict_pending': pending is not None,
                'grad_outputs': [], 'grad_inputs': [], 'frontier': [], 'reason': ''}
    reset_at = max([m for m in resets if m <= pos], default=0)
    if pending is not None:
        started = pending[0]
        st['next_id'] = started.func_id
        st['text'] = (f'Running {name_of(model, started.func_id)} (rank {started.rank}). '
                      'Predict the gradient(s) it sends to its inputs, then check your guess.')
        st['reason'] = started.reason
        st['frontier'] = [name_of(model, i) for i in started.frontier_ids]
        st['grad_outputs'] = _grad_lines(model, started.func_id, started.grad_outputs)
        st['done'] = False
        return st
    _, done = _last(log, pos, 'backward_step_done', reset_at)
    if done is not None and pos > reset_at:
        st['grad_inputs'] = done_lines(model, done)
        st['last_id'] = done.func_id
    upcoming = next((e for e in log[pos:] if e.kind == 'backward_step_started'), None)
    if live is not None:
        st['done'] = bool(live['done'])
        if live['next_id'] is None:
            st['text'] = ('Backward is finished: every gradient has arrived.'
                          if live['started'] else live.get('idle', 'Press Step to start backward.'))
        else:
            st['next_id'] = live['next_id']
            st['text'] = f'Next: {name_of(model, live["next_id"])}'
            st['reason'] = live['reason']
            st['frontier'] = [name_of(model, i) for i in live['frontier_ids']]
            st['grad_outputs'] = _grad_lines(model, live['next_id'], live['grad_outputs'])
    elif upcoming is not None:
        st['done'] = False
        st['next_id'] = upcoming.func_id
        st['text'] = f'History: next was {name_of(model, upcoming.func_id)}'
        st['reason'] = upcoming.reason
        st['frontier'] = [name_of(model, i) for i in upcoming.frontier_ids]
        st['grad_outputs'] = _grad_lines(model, upcoming.func_id, upcoming.grad_outputs)
    else:
        started, _ = _last(log, pos, 'backward_started', reset_at)
        finished, _ = _last(log, pos, 'backward_finished', reset_at)
        st['done'] = finished > started >= 0
        st['text'] = ('Backward is finished: every gradient has arrived.' if st['done']
                      else 'History: no backward step after this point.')
    return st
