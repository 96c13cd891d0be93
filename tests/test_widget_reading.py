"""Reading the picture (issue 29): rules in the graph's own names (never a letter that is
also a student's variable), max's rule says where the grad goes, negation drawn like
an operator (the engine's label stays Chainer's)."""

from __future__ import annotations

import re

import numpy as np

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events


def rule_rows(view) -> dict:
    return {r['key']: r['value'] for s in view.ledger['sections'] for r in s['rows']
            if r['classes'] == 'rule'}


def lesson_two_products(view_of):
    """Lesson 2's a = w0*x0, b = w1*x1: variables named a and b beside the products."""
    v = {k: chainer.Variable(np.array(val), name=k)
         for k, val in (('w0', 2.0), ('x0', -1.0), ('w1', -3.0), ('x1', -2.0))}
    a = v['w0'] * v['x0']
    b = v['w1'] * v['x1']
    a.name, b.name = 'a', 'b'
    s = a + b
    s.name = 's'
    return v, view_of(s)


def test_a_multiplys_rule_names_its_inputs_not_a_and_b(view_of):
    _v, view = lesson_two_products(view_of)
    view.step()  # s = a + b ran: a product is next
    seen = dict(rule_rows(view))
    view.step()
    seen.update(rule_rows(view))
    view.run()
    seen.update(rule_rows(view))
    assert seen['∂b/∂w1'] == 'x1 = −2.0' and seen['∂b/∂x1'] == 'w1 = −3.0'
    assert seen['∂a/∂w0'] == 'x0 = −1.0' and seen['∂a/∂x0'] == 'w0 = 2.0'
    for key, text in seen.items():
        if key in ('∂s/∂a', '∂s/∂b'):
            continue
        assert not re.search(r'(?<!\w)[ab](?!\w)', text), (key, text)


def test_the_inspect_panel_rule_uses_the_names_too(view_of):
    _v, view = lesson_two_products(view_of)
    view.select('f2')  # b = w1 * x1
    main = {row[0]: row[1] for row in view.panel['main']}
    assert main['local derivative'] == '∂b/∂w1 = x1,  ∂b/∂x1 = w1'


def test_maxs_rule_says_where_the_grad_goes(view_of):
    p = chainer.Variable(np.array([1.0, 5.0]), name='p')
    q = chainer.Variable(np.array([3.0, 2.0]), name='q')
    m = F.maximum(p, q)
    m.name = 'm'
    view = view_of(F.sum(m))
    view.step()  # the sum ran: maximum is next
    rule = rule_rows(view)['rule']
    assert 'see its backward' not in rule
    assert rule.startswith('m = max(p, q) element by element') and 'larger' in rule
    view.step()
    assert p.grad.tolist() == [0.0, 1.0] and q.grad.tolist() == [1.0, 0.0]  # as it says
    top = chainer.Variable(np.array([1.0, 4.0, 2.0]), name='t')
    biggest = view_of(F.max(top))
    assert 'largest element of t' in rule_rows(biggest)['rule']


def test_negation_is_drawn_as_minus(view_of):
    x = chainer.Variable(np.array(2.0), name='x')
    y = -x
    view = view_of(y * 3)
    assert y.creator.label == '__neg__'  # Chainer's label, unchanged in the engine
    fid = events.uid(y.creator)
    assert view.nodes[f'n{fid}']['text']['op'] == '-_'
    assert '__neg__' not in view.dot
    view.step()
    assert view.ledger['sections'][-1]['title'] == 'Next: f1 (-_)'
    assert view.ledger['sections'][-1]['why'].startswith('-_ (rank 0) has the highest rank')
    view.select(y.creator)
    assert view.panel['title'] == 'f1  -_'


def sum_rows(view) -> list[str]:
    return [r['value'] for s in view.ledger['sections'] for r in s['rows']
            if r['classes'] == 'sum']


def test_the_ledger_counts_every_use_of_a_variable(view_of):
    """A weight used by three functions is "used 3 times", not "twice", at every sum."""
    w = chainer.Variable(np.array(2.0), name='w')
    view = view_of(w * 1.0 + w * 2.0 + w * 3.0)
    said = []
    while view.step():
        said += sum_rows(view)
    assert said and all('w is used 3 times: grads add up' in s for s in said), said
    assert float(w.grad) == 6.0
    x = chainer.Variable(np.array(1.0), name='x')
    twice = view_of(x * 2.0 + x * 5.0)
    twice.run()
    assert any('x is used twice' in s for s in sum_rows(twice)), sum_rows(twice)
