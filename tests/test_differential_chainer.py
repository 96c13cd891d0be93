"""Differential tests: the same small programs under Chainer 7.8.1 and autograd_lab.

The programs below are plain Chainer code.  They run once under the real Chainer
(one subprocess with ``.venvs/chainer/bin/python``, NumPy 1.26) and once here
with ``chainer = autograd_lab``; every recorded value is compared: arrays (dtype,
shape, values), gradients, labels, reprs, ``None``-ness, and the class names of
exceptions and warnings.  Floats are compared by the rule of ``build_tolerance`` (two
NumPy builds round differently): elementwise unless the program says how a value was
computed, ``rec(key, value, kind='reduction', terms=...)`` and so on; the rest exactly.
NumPy scalars are recorded as such, so a 0-dim array turning into a NumPy scalar shows
up as a difference.

Skipped with a reason when the Chainer venv is missing (``bash
benchmarks/setup_peers.sh chainer`` creates it).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import chainer_ref
from build_tolerance import differences

pytestmark = pytest.mark.chainer

CHAINER_PYTHON = Path(__file__).resolve().parent.parent / '.venvs' / 'chainer' / 'bin' / 'python'

# ---- the programs (valid under both libraries) ------------------------------------------
#
# Each ``prog_*`` receives ``rec(key, value)`` and ``err(key, thunk)``; ``err`` records the
# class name of the exception ``thunk()`` raises ('no error' if none).

PROGRAMS = r'''
f32, f64 = np.float32, np.float64
Variable = chainer.Variable


def raises_one_of(thunk, names):
    try:
        thunk()
    except Exception as e:
        return type(e).__name__ in names
    return False


def quiet_backward(y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        y.backward(**kwargs)


def prog_tutorial(rec, err):
    x_data = np.array([5], dtype=np.float32)
    x = Variable(x_data)
    rec('no_copy', x.array is x_data)
    y = x**2 - 2*x + 1
    rec('y', y.array)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        y.backward()
    rec('warnings', sorted({type(w.message).__name__ for w in caught}))
    rec('x.grad', x.grad)
    z = 2*x
    y = x**2 - z + 1
    quiet_backward(y, retain_grad=True)
    rec('z.grad', z.grad)
    rec('x.grad accumulated', x.grad)
    x = Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**2 - 2*x + 1
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward()
    rec('matrix x.grad', x.grad)
    rec('y.grad released', y.grad)
    s = F.sum(F.square(x))
    s.backward()
    rec('sum square', s.array)
    rec('x.grad after two backwards', x.grad)
    err('nonscalar (x*2).backward()', lambda: (x * 2).backward())
    x0 = Variable(np.array(3.0, f32))
    y0 = x0 * x0
    y0.backward()
    rec('0-dim grad', x0.grad)
    y0 = x0 * x0
    y0.backward()
    rec('backward twice accumulates', x0.grad)
    x0.cleargrad()
    rec('cleargrad', x0.grad)


def prog_diamond(rec, err):
    x = Variable(np.array([0.5, -1.0, 2.0]))
    a = x * 2
    b = F.sin(a)
    c = F.exp(a)
    d = b * c + a
    e = F.sum(d)
    e.backward(retain_grad=True)
    rec('x.grad', x.grad)
    rec('a.grad', a.grad)
    rec('b.grad', b.grad)
    rec('c.grad', c.grad)
    rec('d.grad', d.grad)
    rec('e.grad', e.grad)
    rec('ranks', [v.rank for v in (x, a, b, c, d, e)])
    rec('labels', [v.creator.label for v in (a, b, c, d, e)])
    rec('creator inputs', [len(v.creator.inputs) for v in (a, b, c, d, e)])
    w = Variable(np.array(1.0))
    x = Variable(np.array(2.0))
    a = x * 2
    bb = a * 3
    cc = bb + w
    dd = cc + a
    rec('rank chain', [v.rank for v in (x, a, bb, cc, dd)])
    dd.backward()
    rec('chain grads', [x.grad, w.grad])
    x = Variable(np.array(3.0))
    y = x * x + x * x * x
    y.backward()
    rec('fan-in', x.grad)
    h = Variable(np.array([1.0, 2.0]))
    k = h * 2
    m = F.sum(k * k + F.sum(k) * k)
    m.backward()
    rec('fan-out', h.grad)


def prog_double_backprop(rec, err):
    x = Variable(np.array([1.0, 2.0, 3.0], f32))
    y = x ** 3
    y.grad = np.ones(3, f32)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    rec('gx', gx.array)
    rec('gx has creator', gx.creator is not None)
    x.cleargrad()
    gx.grad = np.ones(3, f32)
    gx.backward()
    rec('second order', x.grad)
    x = Variable(np.array(2.0))
    y = x ** 3
    y.backward(enable_double_backprop=True)
    x.grad_var.backward()
    rec('second backward adds', x.grad)
    x = Variable(np.array([0.3, 1.2]))
    g = F.tanh(x) * F.sin(x)
    orders = []
    for _ in range(3):
        g, = chainer.grad([g], [x], enable_double_backprop=True)
        orders.append(g.array)
    rec('tanh*sin orders', orders)
    x = Variable(np.array(1.5))
    gx, = chainer.grad([x ** 2], [x])
    rec('no double: creator', gx.creator is None)
    rec('no double: grad of grad', chainer.grad([gx], [x]))
    a = Variable(np.array([1.0, 2.0]))
    b = Variable(np.array([0.5, -1.0]))
    y = F.sum(a * a * b + F.sin(a * b))
    ga, = chainer.grad([y], [a], enable_double_backprop=True)
    rec('mixed second derivative', chainer.grad([ga], [b], [np.ones(2)])[0].array)
    x = Variable(np.array([0.5, 2.0]))
    for name, fn in [('exp', F.exp), ('log', F.log), ('sqrt', F.sqrt), ('cos', F.cos),
                     ('1/x', lambda v: 1 / v), ('x**x', lambda v: v ** v),
                     ('2**x', lambda v: 2 ** v)]:
        g = fn(x)
        values = []
        for _ in range(3):
            g, = chainer.grad([g], [x], enable_double_backprop=True)
            values.append(g.array)
        rec('orders ' + name, values)


def prog_grad_api(rec, err):
    x = Variable(np.array([1.0, 2.0], f32))
    w = Variable(np.array([3.0, 4.0], f32))
    y = F.sum(x * w)
    gx, gw = chainer.grad([y], [x, w])
    rec('grads', [gx.array, gw.array])
    rec('x.grad untouched', x.grad)
    gx, = chainer.grad([y], [x], set_grad=True)
    rec('set_grad', [x.grad, x.grad_var is gx])
    x.grad = np.array([10.0, 10.0], f32)
    chainer.grad([y], [x], set_grad=True)
    rec('set_grad overwrites', x.grad)
    rec('grad_outputs', chainer.grad([x * w], [x], [np.array([1.0, 2.0], f32)])[0].array)
    rec('default seed any shape', chainer.grad([x * w], [x])[0].array)
    rec('grad_inputs', chainer.grad([y], [x], grad_inputs=[np.ones(2, f32)])[0].array)
    z = Variable(np.ones(2, f32))
    rec('unreachable', chainer.grad([y], [x, z])[1])
    rec('grad x wrt x', chainer.grad([x], [x])[0].array)
    h = x * w
    s = F.sum(h)
    x.cleargrad()
    chainer.grad([s], [x], retain_grad=True)
    rec('retain_grad', [h.grad, s.grad, x.grad])
    rec('repeated output counted once', chainer.grad([s, s], [x])[0].array)
    rec('loss_scale', chainer.grad([s], [x], loss_scale=2.0)[0].array)
    rec('intermediate as input', chainer.grad([s], [h])[0].array)
    c = Variable(np.ones(2, f32), requires_grad=False)
    rec('requires_grad False input', chainer.grad([F.sum(c * x)], [c]))
    err('outputs not a list', lambda: chainer.grad(s, [x]))
    err('inputs not a list', lambda: chainer.grad([s], x))
    err('grad_outputs length', lambda: chainer.grad([s], [x], [None, None]))
    err('grad_inputs length', lambda: chainer.grad([s], [x], grad_inputs=[None, None]))


def prog_get_item(rec, err):
    x = Variable(np.arange(5, dtype=f32))
    y = x[[0, 0, 2, 0, 4, 4]]
    y.grad = np.arange(1, 7, dtype=f32)
    y.backward()
    rec('scatter-add', x.grad)
    rec('label', y.creator.label)
    base = np.arange(12, dtype=f64).reshape(3, 4)
    indexes = {
        'int': 1, 'negative': -1, 'step': slice(1, None, 2), 'ellipsis': (Ellipsis, 1),
        'newaxis': (None, 1), 'int list': [2, 0, 2], 'list of lists': [[0, 1], [1, 1]],
        'tuple of arrays': (np.array([0, 2, 0]), np.array([1, 1, 3])),
        'full mask': base > 4.5, 'partial mask': np.array([True, False, True]),
        'bool true': True, 'list with slice': [0, slice(None)],
        'two masks': (np.array([True, False, True]), np.array([True, False, False, True])),
        'empty': slice(2, 2), 'array and slice': (np.array([1, 1]), slice(0, 3)),
        'np int': np.int64(2),
    }
    for name, index in indexes.items():
        v = Variable(base.copy())
        out = v[index]
        out.grad = np.arange(out.size, dtype=f64).reshape(out.shape) + 1
        out.backward()
        rec(name, [out.array, v.grad])
    v = Variable(base.copy())
    err('out of range', lambda: v[3])
    err('float index', lambda: v[1.5])
    err('too many', lambda: v[0, 0, 0])
    err('two ellipsis', lambda: v[..., 0, ...])
    err('mask length', lambda: v[np.array([True, False])])
    err('variable index', lambda: v[Variable(np.array(0))])
    arr = F.get_item(base, 1)
    rec('get_item of ndarray', [type(arr).__name__, arr.requires_grad, arr.array])
    vi = Variable(np.arange(4, dtype=np.int32))
    rec('int variable', [vi[1:3].array, vi[1:3].requires_grad])


def prog_broadcasting(rec, err):
    ops = {'add': lambda p, q: p + q, 'sub': lambda p, q: p - q, 'mul': lambda p, q: p * q,
           'div': lambda p, q: p / q, 'pow': lambda p, q: p ** q}
    for sa, sb in [((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((2, 3), (2, 3))]:
        for name, op in ops.items():
            a = Variable(np.array((np.arange(6)[:int(np.prod(sa))] + 1).reshape(sa) / 2, f32))
            b = Variable(np.array((np.arange(6)[:int(np.prod(sb))] + 2).reshape(sb) / 3, f32))
            y = op(a, b)
            F.sum(y).backward()
            rec(f'{name} {sa} {sb}', [y.array, a.grad, b.grad])
    a = Variable(np.arange(6, dtype=f32).reshape(2, 3))
    y = a + np.ones(3)
    rec('var + f64 array', [y.dtype.name, y.array, y.creator.label])
    y = np.full((2, 3), 2.0) * a
    rec('array * var', [type(y).__name__, y.dtype.name, y.array])
    y = a + np.float64(2)
    rec('var + np.float64', [y.dtype.name, y.creator.label])
    y = (a * 2.5).dtype.name
    rec('python float keeps dtype', y)
    h = Variable(np.array([1.0, 2.0], np.float16))
    rec('float16 * 2.5', [(h * 2.5).dtype.name, (h * 2.5).array])
    for sa, sb in [((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 2)), ((3,), (3,)),
                   ((2, 2, 3), (3, 2)), ((2, 3), (2, 3, 2)), ((1, 2, 3), (2, 3, 2))]:
        a = Variable(np.arange(np.prod(sa), dtype=f64).reshape(sa) / 5)
        b = Variable(np.arange(np.prod(sb), dtype=f64).reshape(sb) / 7 - 0.5)
        y = F.matmul(a, b)
        y.grad = np.ones(y.shape)
        quiet_backward(y)
        # BLAS sums: at most 4 products (a gradient summed over 2 broadcast batches x 2)
        rec(f'matmul {sa} {sb}', [y.array, a.grad, b.grad], kind='reduction', terms=4)
    a = Variable(np.arange(6, dtype=f64).reshape(2, 3))
    b = Variable(np.arange(6, dtype=f64).reshape(3, 2))
    y = F.matmul(a, b, transa=True, transb=True)
    F.sum(y).backward()
    rec('matmul transa transb', [y.array, a.grad, b.grad], kind='reduction', terms=3)
    c = Variable(np.array([[1.0], [2.0]]))
    p, q = F.broadcast(a, c)
    F.sum(p * q).backward()
    rec('broadcast', [p.shape, q.shape, c.grad])
    t = F.broadcast_to(c, (2, 4))
    F.sum(t * t).backward()
    rec('broadcast_to', [t.array, c.grad, t.creator.label])
    s = F.sum_to(a, (1, 3))
    s.grad = np.array([[1.0, 2.0, 3.0]])
    a.cleargrad()
    s.backward()
    rec('sum_to', [s.array, a.grad, s.creator.label])
    f = Variable(np.ones(3, f32))
    d = Variable(np.ones(3, f64))
    err('f32 var + f64 var', lambda: f + d)
    err('shape mismatch', lambda: f + Variable(np.ones(2, f32)))
    err('var + list', lambda: f + [1, 2, 3])
    err('var % 2', lambda: f % 2)
    err('var * str', lambda: f * 'a')
    err('matmul mismatch', lambda: F.matmul(Variable(np.ones((2, 3))), Variable(np.ones((2, 3)))))
    i = Variable(np.array([1, 2, 3], np.int32))
    err('exp of int', lambda: F.exp(i))
    err('abs of int', lambda: abs(i))
    rec('int ops', [(i / 2).array, (i + 1.5).array, (i * 2).array, (-i).array, (i + i).array])
    fd = i // 2
    rec('floordiv', [fd.array, fd.creator is None, fd.requires_grad])
    fv = Variable(np.array([7.0, -7.0], f32)) // 3
    rec('float floordiv', [fv.array, fv.creator is None, fv.requires_grad])


def prog_labels(rec, err):
    x = Variable(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], f32))
    y = Variable(np.array([[2.0, 1.0, 0.5], [1.0, 2.0, 3.0]], f32))
    m = Variable(np.ones((3, 2), f32))
    exprs = {
        'x+y': x + y, 'x-y': x - y, 'x*y': x * y, 'x/y': x / y, 'x**y': x ** y,
        'x+2': x + 2, 'x-2': x - 2, '2+x': 2 + x, '2-x': 2 - x, 'x*3': x * 3, '3*x': 3 * x,
        'x/4': x / 4, '4/x': 4 / x, 'x**3': x ** 3, '2**x': 2 ** x, '-x': -x,
        'abs(x)': abs(x), 'x@m': x @ m, 'x[0]': x[0], 'np.float32(2)+x': np.float32(2) + x,
        'x-2.5': x - 2.5, 'x+(-1)': x + (-1), 'x.T': x.T, 'reshape': x.reshape(3, 2),
        'transpose': F.transpose(x), 'sum': F.sum(x), 'broadcast_to': F.broadcast_to(x[0], (2, 3)),
        'sum_to': F.sum_to(x, (3,)), 'exp': F.exp(x), 'log': F.log(x), 'sin': F.sin(x),
        'cos': F.cos(x), 'tanh': F.tanh(x), 'sqrt': F.sqrt(x), 'square': F.square(x),
        'mean': F.mean(x), 'x.mean()': x.mean(), 'identity': F.identity(x),
        'matmul': F.matmul(x, m), 'cast': F.cast(x, f64),
        'absolute': F.absolute(x), 'add3': F.add(x, y, x), 'expand_dims': F.expand_dims(x, 0),
        'flatten': F.flatten(x), 'swapaxes': F.swapaxes(x, 0, 1), 'copy': F.copy(x, -1),
    }
    rec('function labels', {k: v.creator.label for k, v in exprs.items()})
    rec('function classes', {k: type(v.creator).__name__ for k, v in exprs.items()})
    rec('ranks', {k: v.rank for k, v in exprs.items()})
    rec('variable labels', [x.label, x[0].label, F.sum(x).label,
                            Variable(np.arange(3, dtype=np.int32)).label,
                            Variable(np.zeros((2, 0, 1), f64)).label])
    rec('result names', [exprs['x+y'].name, Variable(np.ones(1), name='v').name])
    err('label of Variable()', lambda: Variable().label)


def prog_reprs(rec, err):
    x = Variable(np.arange(6, dtype=f32).reshape(2, 3), name='x')
    rec('repr named', repr(x))
    rec('str named', str(x))
    rec('summary named', x.summary())
    rec('repr 0-dim', repr(Variable(np.array(2.5, f32))))
    rec('repr 1-d', repr(Variable(np.array([1.0, 2.5]))))
    rec('repr int', repr(Variable(np.array([1, 2], np.int32))))
    rec('repr uninitialized', [repr(Variable()), repr(Variable(name='w'))])
    rec('repr zero-size', [repr(Variable(np.zeros((0, 3), f32))),
                           repr(Variable(np.zeros((0,), f32)))])
    rec('repr result', repr(x * 2))
    rec('repr parameter', repr(chainer.Parameter(np.array([1.0, 2.0], f32), name='p')))
    rec('debug_print', x.debug_print())
    x.grad = np.zeros((2, 3), f32)
    rec('debug_print zero grad', x.debug_print().splitlines()[-1])
    rec('str of device', str(x.device))
    err('len 0-dim', lambda: len(Variable(np.array(1.0))))
    rec('len', len(x))
    err('hash', lambda: hash(x))
    err('eq', lambda: x == x)
    err('bool', lambda: bool(Variable(np.array([1.0]))))
    err('Variable(list)', lambda: Variable([1.0, 2.0]))
    err('Variable(float)', lambda: Variable(3.0))
    err('Variable(positional name)', lambda: Variable(np.ones(1), 'x'))
    err('Variable(volatile)', lambda: Variable(np.ones(1), volatile=True))
    err('grad wrong shape', lambda: setattr(x, 'grad', np.ones((2, 2), f32)))
    err('grad wrong dtype', lambda: setattr(x, 'grad', np.ones((2, 3), f64)))
    err('grad list', lambda: setattr(x, 'grad', [1.0]))
    err('requires_grad assignment', lambda: setattr(x, 'requires_grad', False))
    err('reshape size', lambda: x.reshape(4, 2))
    err('transpose repeated axis', lambda: x.transpose(0, 0))
    err('FunctionNode called', lambda: chainer.FunctionNode()(x))
    rec('item', Variable(np.array([2.5])).item())
    err('item of many', lambda: x.item())


def prog_parameter_story(rec, err):
    p = chainer.Parameter(np.array([1.0, 2.0], f32), name='p')
    rec('array-initialized grad', p.grad)
    y = F.sum(p * p)
    rec('arithmetic result type', [type(p * 2).__name__, isinstance(p, Variable)])
    y.backward()
    rec('p.grad', p.grad)
    q = chainer.Parameter(3.0, (2,))
    rec('scalar initializer', [q.array, q.grad, q.dtype.name])
    F.sum(q * q).backward()
    rec('NaN grad accumulates', q.grad)
    q.cleargrad()
    F.sum(q * q).backward()
    rec('after cleargrad', q.grad)
    u = chainer.Parameter()
    rec('uninitialized', [u.array, u.is_initialized, u.grad_var])
    err('uninitialized grad', lambda: u.grad)
    err('uninitialized shape', lambda: u.shape)
    # The spec accepts a clearer RuntimeError/TypeError/ValueError instead of AttributeError.
    rec('uninitialized arithmetic', raises_one_of(lambda: u * 2, (
        'AttributeError', 'RuntimeError', 'TypeError', 'ValueError')))
    err('uninitialized backward', lambda: u.backward())
    r = chainer.Parameter(2.0)
    rec('Q9 dtype before init', str(r.dtype))
    r.initialize((3,))
    rec('initialize', [r.array, r.grad])
    initializers = importlib.import_module(chainer.__name__ + '.initializers')
    c = chainer.Parameter(initializers.Constant(1.5), (2, 2))
    rec('Constant initializer', [c.array, c.grad])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        c.zerograd()
    rec('zerograd', [c.grad, sorted({type(w.message).__name__ for w in caught})])
    c.update()
    rec('update without rule', [c.array, c.update_rule])

    class Model(chainer.Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.w = chainer.Parameter(np.array([1.0, -2.0], f32))
                self.b = chainer.Parameter(np.array(0.5, f32))
            self.not_registered = chainer.Parameter(np.array([9.0], f32))

        def forward(self, x):
            return F.sum(self.w * x) + self.b

    optimizers = importlib.import_module(chainer.__name__ + '.optimizers')
    results = {}
    for name, make in [('SGD', lambda: optimizers.SGD(lr=0.1)),
                       ('MomentumSGD', lambda: optimizers.MomentumSGD(lr=0.1)),
                       ('Adam', lambda: optimizers.Adam(alpha=0.1))]:
        model = Model()
        opt = make()
        opt.setup(model)
        x = np.array([3.0, 4.0], f32)
        for _ in range(3):
            opt.update(lambda: (model(x) - 1.0) ** 2)
        results[name] = [model.w.array, model.b.array, model.w.grad, opt.t,
                         model.w.update_rule.t, type(model.w.update_rule).__name__]
    rec('optimizers', results)
    model = Model()
    rec('namedparams', sorted(n for n, _ in model.namedparams()))
    model.cleargrads()
    rec('cleargrads', [model.w.grad, model.b.grad])


def prog_gradient_check(rec, err):
    gradient_check = importlib.import_module(chainer.__name__ + '.gradient_check')
    x = np.array([0.5, 1.0, 2.0])
    g, = gradient_check.numerical_grad(lambda: (np.sin(x) * x,), (x,), (np.ones(3),))
    # finite differences of f = x sin x, |f| <= 2 near x <= 2, steps of eps = 1e-3
    rec('numerical_grad', g, kind='finite_difference', step=1e-3, points=2, f_scale=2.0)
    g, = gradient_check.numerical_grad(lambda: (np.sin(x) * x,), (x,), (np.ones(3),),
                                      detect_nondifferentiable=True)
    rec('numerical_grad five points', g, kind='finite_difference', step=1e-3, points=5,
        f_scale=2.0)
    x32 = np.array([0.5, 1.0], f32)
    g, = gradient_check.numerical_grad(lambda: (x32 ** 2,), (x32,), (np.ones(2, f32),),
                                      eps=1e-2)
    rec('numerical_grad float32', g, kind='finite_difference', step=1e-2, points=2,
        f_scale=1.03)  # x**2 at x <= 1 + eps
    kink = np.array([0.0, 1.0])
    err('nondifferentiable', lambda: gradient_check.numerical_grad(
        lambda: (np.abs(kink),), (kink,), (np.ones(2),), detect_nondifferentiable=True))
    np.random.seed(0)
    xs = np.random.uniform(0.5, 2.0, (2, 3))
    err('check_backward ok', lambda: gradient_check.check_backward(F.tanh, xs, np.ones((2, 3))))
    err('check_double_backward ok', lambda: gradient_check.check_double_backward(
        F.tanh, xs, np.ones((2, 3)), np.ones((2, 3))))

    class Wrong(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 3,

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * 2,

    err('check_backward wrong', lambda: gradient_check.check_backward(
        lambda v: Wrong().apply((v,))[0], xs, np.ones((2, 3))))
    err('check_backward y_grad None on non-scalar', lambda: gradient_check.check_backward(
        F.tanh, xs, None))
    err('check_backward bad dtype', lambda: gradient_check.check_backward(
        F.tanh, xs, np.ones((2, 3)), dtype=np.int32))
'''

# Issue 18's programs (behaviour differences, old-style Function, debug mode, devices...)
from differential_chainer_compat import PROGRAMS as _ISSUE18_PROGRAMS  # noqa: E402

PROGRAMS += _ISSUE18_PROGRAMS

DRIVER = r'''
import importlib, json, sys, warnings
import numpy as np
{imports}


def enc(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return {{'float': v}}
    if isinstance(v, np.generic):
        return {{'numpy scalar': enc(v.item()), 'dtype': v.dtype.name}}
    if isinstance(v, np.ndarray):
        return {{'array': v.tolist(), 'dtype': v.dtype.name, 'shape': list(v.shape)}}
    if isinstance(v, (list, tuple)):
        return [enc(e) for e in v]
    if isinstance(v, dict):
        return {{str(k): enc(e) for k, e in v.items()}}
    if isinstance(v, chainer.Variable):
        return {{'variable': type(v).__name__, 'value': enc(v.array)}}
    return {{'object': type(v).__name__}}


exec(compile(PROGRAMS, '<programs>', 'exec'), globals())
results = {{}}
for name in sorted(k for k in list(globals()) if k.startswith('prog_')):
    out = {{}}

    def rec(key, value, out=out, **across_builds):
        out[key] = ({{'across builds': across_builds, 'value': enc(value)}} if across_builds
                    else enc(value))

    def err(key, thunk, out=out):
        try:
            thunk()
        except Exception as e:
            out[key] = 'raises ' + type(e).__name__
        else:
            out[key] = 'no error'

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            globals()[name](rec, err)
        except Exception as e:
            out['__crash__'] = f'{{type(e).__name__}}: {{e}}'
    results[name] = out
'''

PROGRAM_NAMES = sorted(re.findall(r'^def (prog_\w+)', PROGRAMS, flags=re.MULTILINE))


def _driver(imports: str) -> str:
    return f'PROGRAMS = {PROGRAMS!r}\n' + textwrap.dedent(DRIVER.format(imports=imports))


def _run_chainer() -> dict:
    if not CHAINER_PYTHON.exists():
        pytest.skip(f'Chainer 7.8.1 venv not found at {CHAINER_PYTHON} '
                    '(bash benchmarks/setup_peers.sh chainer)')
    script = _driver('import chainer\nimport chainer.functions as F') + \
        '\nsys.stdout.write(json.dumps(results))\n'
    proc = subprocess.run([str(CHAINER_PYTHON), '-c', script], capture_output=True, text=True,
                          timeout=300, env=chainer_ref.environment(), cwd='/', check=False)
    if proc.returncode != 0:
        if 'No module named' in proc.stderr and 'chainer' in proc.stderr:
            pytest.skip(f'Chainer is not installed in {CHAINER_PYTHON}')
        raise RuntimeError(f'the Chainer run failed:\n{proc.stderr[-3000:]}')
    return json.loads(proc.stdout)


def _run_autograd_lab() -> dict:
    namespace: dict = {'__name__': 'differential_programs'}
    exec(compile(_driver('import autograd_lab as chainer\nimport autograd_lab.functions as F'),
                 '<driver>', 'exec'), namespace)
    # Round-trip through JSON like the Chainer side (NaN and tuples normalised alike).
    return json.loads(json.dumps(namespace['results']))


@pytest.fixture(scope='module')
def both() -> tuple:
    reference = _run_chainer()
    return reference, _run_autograd_lab()


def _differences(ref, got, path: str, how: dict | None = None) -> list:
    """Chainer's records against ours: floats by the one rule of ``build_tolerance``
    (the kind a program gives with ``rec(key, value, kind=..., ...)``, else elementwise),
    everything else exactly."""
    if isinstance(ref, dict) and 'across builds' in ref:
        if not (isinstance(got, dict) and 'value' in got):
            return [f'{path}: Chainer {_short(ref)} != autograd_lab {_short(got)}']
        return _differences(ref['value'], got['value'], path, ref['across builds'])
    if isinstance(ref, dict) and 'array' in ref:
        if not (isinstance(got, dict) and 'array' in got):
            return [f'{path}: Chainer {_short(ref)} != autograd_lab {_short(got)}']
        if ref['dtype'] != got['dtype'] or ref['shape'] != got['shape']:
            return [f"{path}: Chainer {ref['dtype']}{ref['shape']} != autograd_lab "
                    f"{got['dtype']}{got['shape']}"]
        theirs = np.array(ref['array'], dtype=ref['dtype']).reshape(ref['shape'])
        ours = np.array(got['array'], dtype=got['dtype']).reshape(got['shape'])
        found = differences(ours, theirs, **(how or {}))
        return [f'{path}: Chainer {theirs.tolist()} != autograd_lab {ours.tolist()} ({found[0]})'
                ] if found else []
    if isinstance(ref, dict) and 'float' in ref and isinstance(got, dict) and 'float' in got:
        found = differences(np.float64(got['float']), np.float64(ref['float']), **(how or {}))
        return [f"{path}: Chainer {ref['float']!r} != autograd_lab {got['float']!r} "
                f'({found[0]})'] if found else []
    if isinstance(ref, dict) and isinstance(got, dict):
        out = []
        for key in sorted(set(ref) | set(got)):
            if key not in got:
                out.append(f'{path}/{key}: missing in autograd_lab (Chainer: {_short(ref[key])})')
            elif key not in ref:
                out.append(f'{path}/{key}: only in autograd_lab ({_short(got[key])})')
            else:
                out += _differences(ref[key], got[key], f'{path}/{key}', how)
        return out
    if isinstance(ref, list) and isinstance(got, list) and len(ref) == len(got):
        out = []
        for i, (r, g) in enumerate(zip(ref, got, strict=True)):
            out += _differences(r, g, f'{path}[{i}]', how)
        return out
    return [] if ref == got else [f'{path}: Chainer {_short(ref)} != autograd_lab {_short(got)}']


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) < 300 else text[:300] + '...'


@pytest.mark.parametrize('program', PROGRAM_NAMES)
def test_same_results_as_chainer(both, program):
    reference, ours = both
    assert '__crash__' not in reference[program], reference[program]['__crash__']
    differences = _differences(reference[program], ours[program], program)
    assert not differences, '\n'.join(differences)


def test_programs_record_something(both):
    """Guard against a vacuous comparison: every program records many values."""
    reference, ours = both
    assert sorted(reference) == sorted(ours) == PROGRAM_NAMES
    for name in PROGRAM_NAMES:
        assert len(reference[name]) >= 5, name
    assert any('raises InvalidType' in str(v) for v in reference['prog_broadcasting'].values())


if __name__ == '__main__':  # pragma: no cover - debugging helper
    sys.exit(pytest.main([__file__, '-q']))
