"""The inspect panel of a clicked node: what a student asks first, internals below a fold.

A variable leads with its name, value, grad and shape; a function with its name,
operation, inputs and outputs and its local derivative rule.  Rank, order, ids,
states, scope, device, ``grad_var`` and retained arrays come after, folded.  Values
are the live object's when it still exists, else those the view recorded.  Every
value is plain text; the browser writes it with ``textContent``.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> from autograd_lab.graph import GraphModel
>>> from autograd_lab_widget.naming import Names
>>> from autograd_lab_widget.follow.state import ViewState
>>> x = chainer.Variable(np.array(3.0), name='x')
>>> y = x * x
>>> y.backward()
>>> p = payload(ViewState(GraphModel.from_outputs(y)), events.uid(x), x, Names())
>>> p['title'], [row[:2] for row in p['main']]
('x', [['value', '3.0'], ['grad', '6.0'], ['shape', '() float64 (a scalar)']])
"""

from __future__ import annotations

from typing import Any

from autograd_lab import Variable, events, graph

from autograd_lab_widget import arrays, naming, rules
from autograd_lab_widget.naming import Names
from autograd_lab_widget.present import gone
from autograd_lab_widget.follow.state import ViewState

_KIND_WORDS = {'input': 'input variable (a leaf: its grad is kept)',
               'parameter': 'parameter (a leaf a Link owns: its grad is kept)',
               'intermediate': 'intermediate variable (made by a function)',
               'output': 'output variable (nothing uses it yet)',
               'constant': 'constant (requires_grad=False: no grad flows to it)'}


def _details(node: graph.Node) -> list:
    return [['id', str(node.id)], ['rank', str(node.rank)],
            ['order', str(node.order) + (' (made by a backward: grad-of-grad)'
                                         if node.order else '')],
            ['states', ', '.join(sorted(node.states)) or '-'], ['scope', node.scope or '-']]


def _variable(state: ViewState, node: graph.Node, obj: Any, names: Names) -> dict:
    model = state.model
    live = obj if isinstance(obj, Variable) else None
    data = live.array if live is not None else node.data
    if data is None:
        data = node.data
    freed = live is None and 'collected' in node.states
    value = arrays.as_text(data) if data is not None else 'not recorded'
    if freed and data is not None:
        value += '\n(freed by the engine: the value the view recorded)'
    grad = live.grad if live is not None else node.grad
    note = ''
    if grad is None and state.run.grads.get(node.id) is not None:
        grad = state.run.grads[node.id]
        note = '\n(released by the engine once used: the value the view recorded)'
    grad_text = (arrays.as_text(grad) + note) if grad is not None else 'none yet'
    if grad is None and live is None and gone.is_gone(state, node):
        grad_text = gone.words(names.of(model, node.id)) + '.'
    shape = node.shape if node.shape is not None else (
        getattr(data, 'shape', None) if data is not None else None)
    dtype = node.dtype or str(getattr(data, 'dtype', '?'))
    shape_text = (f'{shape} {dtype}' + (' (a scalar)' if shape == () else '')
                  if shape is not None else f'? {dtype}')
    main = [['value', value, 'agl-data'], ['grad', grad_text, 'agl-grad'],
            ['shape', shape_text, 'agl-shape']]
    kind, subtitle = _KIND_WORDS.get(node.kind, node.kind), _KIND_WORDS.get(node.kind, '')
    if grad is None and live is None and gone.is_gone(state, node):
        kind = subtitle = f'{node.kind} variable (a leaf whose Variable is gone: no grad is kept)'
    details = [['kind', kind],
               ['device', str(live.device) if live is not None and live.array is not None
                else node.device],
               ['requires_grad', str(node.requires_grad)], *_details(node),
               ['creator', names.described(model, node.creator_id) if node.creator_id
                else 'none (a leaf)']]
    links = []
    if node.creator_id is not None and node.creator_id in model.nodes:
        links.append({'label': f'made by {names.described(model, node.creator_id)}',
                      'id': f'n{node.creator_id}'})
    gv = live.grad_var if live is not None else None
    if gv is not None and gv.creator is not None:
        # double backprop: the grad is itself a Variable made by a (grad-of-grad) graph
        gid = events.uid(gv)
        where = f'n{gid}' if gid in model.nodes else f'n{events.uid(gv.creator)}'
        links.append({'label': f'grad_var: made by {gv.creator.label} (grad-of-grad)',
                      'id': where})
        details.append(['grad_var', f'{names.of(model, gid) if gid in model.nodes else gid}, '
                                    'has a creator (differentiable again)'])
    elif gv is not None:
        details.append(['grad_var', 'a leaf (no graph behind it)'])
    heatmaps = [h for h in (arrays.heatmap(grad, 'grad') if _big(grad) else None,
                            arrays.heatmap(data, 'data') if _big(data) else None) if h]
    return {'title': names.of(model, node.id), 'subtitle': subtitle, 'main': main,
            'details': details, 'links': links, 'heatmaps': heatmaps}


def _big(value: Any) -> bool:
    host = arrays.to_host(value)
    return host is not None and getattr(host, 'size', 0) > arrays.SMALL


def _labelled(label: str, array: Any) -> str:
    """``label: value``; a table of several lines starts on a line of its own (aligned)."""
    text = arrays.as_text(array)
    return f'{label}:' + ('\n' if '\n' in text else ' ') + text


def _function(state: ViewState, node: graph.Node, obj: Any, names: Names) -> dict:
    model = state.model
    table = names.table(model)

    def listed(ids: tuple) -> str:
        out = []
        for i in ids:
            n = model.nodes.get(i)
            value = f' = {arrays.text(n.data)}' if n is not None and n.data is not None else ''
            out.append(f'{table.get(i, f"#{i}")}{value}')
        return ', '.join(out) or '-'

    ran = node.id in state.run.done
    ins = [table.get(i, f'#{i}') for i in node.input_ids]
    out = table.get(node.output_ids[0], 'y') if node.output_ids else 'y'
    main = [['operation', f'{naming.drawn_label(node)}  ({node.type})', 'agl-op'],
            ['inputs', listed(node.input_ids), ''], ['outputs', listed(node.output_ids), ''],
            ['backward', 'ran in this backward' if ran else 'not run yet', ''],
            ['local derivative', rules.rule_text(node.type, ins, out)
             or f'not tabled: see {node.type or "its"} backward()', 'agl-rule']]
    details = _details(node)
    if obj is not None:
        retained = []
        try:
            retained += [_labelled('input', v.array) for v in obj.get_retained_inputs()]
            retained += [_labelled('output', v.array) for v in obj.get_retained_outputs()]
        except Exception as error:  # an unchained or odd node: say so, do not fail the panel
            retained.append(f'(not available: {error})')
        details.append(['retained arrays', '\n'.join(retained) or 'none'])
    else:
        details.append(['retained arrays', '(the function object is gone)'])
    links = [{'label': f'input {k}: {table.get(i, i)}', 'id': f'n{i}'}
             for k, i in enumerate(node.input_ids)]
    links += [{'label': f'output {k}: {table.get(i, i)}', 'id': f'n{i}'}
              for k, i in enumerate(node.output_ids)]
    subtitle = 'function' + (' made by a backward (grad-of-grad)' if node.order else '')
    return {'title': f'{table.get(node.id)}  {naming.drawn_label(node)}', 'subtitle': subtitle,
            'main': main, 'details': details, 'links': links, 'heatmaps': []}


def payload(state: ViewState, ident: int, obj: Any, names: Names, *,
            can_run_to: bool = False) -> dict:
    """The panel of node ``ident`` in ``state`` (``obj``: the live object, or None)."""
    model = state.model
    names.learn(model)
    node = model.nodes[ident]
    body = (_function(state, node, obj, names) if node.category == 'function'
            else _variable(state, node, obj, names))
    body['id'] = ident
    body['category'] = node.category
    body['actions'] = ['run-to'] if can_run_to else []
    if obj is None:
        body['note'] = 'The Python object is gone; values are those the view recorded.'
    return body
