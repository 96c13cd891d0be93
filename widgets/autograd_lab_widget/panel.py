"""The inspect panel's payload for a clicked node.

Built from the graph model's node (always there, also in history) and the live
object when it still exists (its current data, grad and grad_var).  Every value is
plain text; the browser writes it with ``textContent``.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> from autograd_lab.graph import GraphModel
>>> x = chainer.Variable(np.array(3.0), name='x')
>>> y = x * x
>>> y.backward()
>>> p = payload(GraphModel.from_outputs(y), events.uid(x), x)
>>> p['title'], p['grad']
('Variable x', '6.0')
"""

from __future__ import annotations

from typing import Any

from autograd_lab import Variable, events, graph

from autograd_lab_widget import arrays, rules
from autograd_lab_widget.history import name_of


def _node_payload_common(node: graph.Node) -> list:
    return [['id', str(node.id)], ['kind', node.kind], ['rank', str(node.rank)],
            ['order', str(node.order) + (' (grad-of-grad)' if node.order else '')],
            ['states', ', '.join(sorted(node.states)) or '-'], ['scope', node.scope or '-']]


def _variable(model: graph.GraphModel, node: graph.Node,
              obj: Any, hidden: bool) -> dict:
    live = obj if isinstance(obj, Variable) else None
    rows = [['name', node.name or '(unnamed)'], ['shape', str(node.shape)],
            ['dtype', str(node.dtype)],
            ['device', str(live.device) if live is not None and live.array is not None
             else node.device],
            ['requires_grad', str(node.requires_grad)], *_node_payload_common(node),
            ['creator', name_of(model, node.creator_id) if node.creator_id else 'none (leaf)']]
    data = live.array if live is not None else (getattr(obj, 'data', None) if obj is not None
                                                else node.data)
    if data is None:
        data = node.data
    grad = live.grad if live is not None else node.grad
    out: dict = {'title': f'Variable {node.name}' if node.name else f'Variable v{node.id}',
                 'rows': rows, 'data': arrays.as_text(data), 'heatmaps': [], 'links': []}
    if hidden:
        out['grad'] = '(hidden until you submit a guess)'
    else:
        out['grad'] = arrays.as_text(grad) if grad is not None else 'None'
        big = arrays.to_host(grad)
        if big is not None and getattr(big, 'size', 0) > arrays.SMALL:
            out['heatmaps'].append(arrays.heatmap(big, 'grad'))
    host = arrays.to_host(data)
    if host is not None and getattr(host, 'size', 0) > arrays.SMALL:
        out['heatmaps'].append(arrays.heatmap(host, 'data'))
    out['heatmaps'] = [h for h in out['heatmaps'] if h]
    if node.creator_id is not None:
        out['links'].append({'label': f'creator: {name_of(model, node.creator_id)}',
                             'id': f'n{node.creator_id}'})
    gv = live.grad_var if live is not None else None
    if gv is not None and gv.creator is not None:
        # double backprop: the grad is itself a Variable made by a (grad-of-grad) graph
        gid = events.uid(gv)
        where = f'n{gid}' if gid in model.nodes else f'n{events.uid(gv.creator)}'
        out['links'].append({'label': f'grad_var: made by {gv.creator.label} (order '
                                      f'{model.nodes[gid].order if gid in model.nodes else "?"}'
                                      ' graph)', 'id': where})
        out['rows'].append(['grad_var', f'v{gid}, has a creator (differentiable again)'])
    elif gv is not None:
        out['rows'].append(['grad_var', f'v{events.uid(gv)} (a leaf: no graph behind it)'])
    return out


def _function(model: graph.GraphModel, node: graph.Node, obj: Any) -> dict:
    rows = [['type', node.type or '-'], ['label', node.label], *_node_payload_common(node),
            ['inputs', ', '.join(name_of(model, i) for i in node.input_ids) or '-'],
            ['outputs', ', '.join(name_of(model, i) for i in node.output_ids) or '-']]
    if obj is not None:
        retained = []
        try:
            retained += [f'input: {arrays.as_text(v.array)}' for v in obj.get_retained_inputs()]
            retained += [f'output: {arrays.as_text(v.array)}'
                         for v in obj.get_retained_outputs()]
        except Exception as error:  # an unchained or odd node: say so, do not fail the panel
            retained.append(f'(not available: {error})')
        rows.append(['retained arrays', '\n'.join(retained) or 'none'])
    else:
        rows.append(['retained arrays', '(the function object is gone)'])
    links = [{'label': f'input {k}: {name_of(model, i)}', 'id': f'n{i}'}
             for k, i in enumerate(node.input_ids)]
    links += [{'label': f'output {k}: {name_of(model, i)}', 'id': f'n{i}'}
              for k, i in enumerate(node.output_ids)]
    latex = rules.rule_for(node.type)
    return {'title': f'FunctionNode {node.label or node.type}', 'rows': rows,
            'latex': latex or f'(no rule tabled for {node.type or "this function"}: see its '
                              'backward())', 'links': links}


def payload(model: graph.GraphModel, ident: int, obj: Any, *, hidden: bool = False) -> dict:
    """The panel for node ``ident`` (``obj``: the live object or None)."""
    node = model.nodes[ident]
    body = (_function(model, node, obj) if node.category == 'function'
            else _variable(model, node, obj, hidden))
    body['id'] = ident
    body['category'] = node.category
    if obj is None:
        body['note'] = 'The Python object is gone; values are those recorded by events.'
    return body
