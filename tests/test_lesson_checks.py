"""The lesson exercise checkers and the committed lesson notebooks.

The checkers are ``autograd_lab_lessons.checks`` (the folder lessons/checks/: the folder
lessons/ is installed as the package autograd_lab_lessons), which every lesson imports.

Every checker must accept the reference answer (the same code as in lessons/solutions/),
reject at least five plausible wrong answers, each with the hint meant for that mistake,
and report a placeholder ``...`` as "not done yet" without raising.  Checkers of code that
must run on any device run it on a GPU backend too (autograd_lab.testing.fake_gpu where
there is no GPU), where NumPy-only code is rejected.  The notebooks themselves are executed
by nbmake (pytest collects lessons/); the tests at the end run the lessons' own code
in-process and check that what the text says (hand-computed values, measured outcomes) is
what the engine does.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable, backend
from autograd_lab.functions import connection as library_linear
from autograd_lab.functions import loss as library_losses
from autograd_lab_lessons import checks

LESSONS = Path(__file__).resolve().parent.parent / 'lessons'


def _load(name: str, path: Path):
    """A fresh copy of the module in ``path`` (read again: module-level state is new)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


build = _load('lessons_build_notebooks', LESSONS / 'build_notebooks.py')


@pytest.fixture(autouse=True)
def lenient(monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', False)
    monkeypatch.setattr(checks, 'GRADING', False)


def accepted(fb) -> None:
    assert fb.status == 'correct', repr(fb)
    assert bool(fb)


def rejected(fb, *hint_words: str) -> None:
    assert fb.status == 'wrong', repr(fb)
    assert not fb
    for word in hint_words:
        assert word in fb.hint, (word, repr(fb))


# ---- answers: the references (the code of lessons/solutions) and the usual mistakes ---------

def _grad_of(make, x_values, seed=None):
    x = Variable(np.asarray(x_values, dtype=np.float32))
    y = make(x)
    y.grad = np.ones_like(y.array) if seed is None else np.asarray(seed, np.float32)
    y.backward(retain_grad=True)
    return x


def _central(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


HAND = checks.neuron_by_hand()
P = checks.NEURON


def _neuron_forward(**changes):
    values = {k: HAND[k] for k in ('z', 'e', 'd', 'f')}
    values.update(changes)
    return values


def _chain(**changes):
    values = {k: HAND[k] for k in checks.CHAIN}
    values.update(changes)
    return values


def _neuron_grads(**changes):
    values = {k: HAND[k] for k in ('w0', 'x0', 'w1', 'x1', 'w2')}
    values.update(changes)
    return values


def _softsign_class(derivative_power=2, use_abs=True, abs_all=False, tuple_out=True,
                    backward_abs=True, times_gy=True, variables=True, host=False,
                    through_itself=False, numerator_one=False, minus=False):
    class Softsign(chainer.FunctionNode):
        def forward(self, inputs):
            x, = inputs
            self.retain_inputs((0,))
            xp = backend.get_array_module(x)
            if host:  # NumPy only: leaves the GPU
                x = np.asarray(x)
                xp = np
            denominator = 1 + (xp.abs(x) if use_abs else x)
            if minus:
                denominator = 1 - xp.abs(x)
            y = (xp.abs(x) if abs_all else xp.ones_like(x) if numerator_one else x) / denominator
            return (y,) if tuple_out else y

        def backward(self, target_input_indexes, grad_outputs):
            x, = self.get_retained_inputs()
            gy, = grad_outputs
            if not variables:  # computed on arrays: right values, but no graph
                xp = backend.get_array_module(x.array)
                return Variable(gy.array / (1 + xp.abs(x.array)) ** 2),
            if through_itself:  # its own forward again, differentiated with chainer.grad
                with chainer.force_backprop_mode():
                    xv = Variable(x.array)
                    return chainer.grad([xv / (1 + F.absolute(xv))], [xv], [gy])[0],
            a = F.absolute(x) if backward_abs else x
            local = 1 / (1 + a) ** derivative_power
            return (gy * local if times_gy else local),
    return Softsign


def _train_truncated(cut=True, keep_h=True, clear=False):
    def train(xs, targets, w0, k):
        return checks.rnn_grad(xs, targets, w0, k, cut=cut, keep_h=keep_h, clear=clear)
    return train


def _train_step(clear=True, update=True, clear_between=False, loss_after=False,
                update_first=False, mse=False):
    def train_step(model, optimizer, x, t):
        if mse:  # trains on a squared error, clearing the grads first; returns the loss asked
            model.cleargrads()
            one_hot = np.eye(3, dtype=np.float32)[t]
            F.mean_squared_error(F.softmax(model(x)), one_hot).backward()
            loss = F.softmax_cross_entropy(model(x), t)
            optimizer.update()
            return float(loss.array)
        if update_first:  # the update uses the previous call's gradients
            optimizer.update()
            update = False
        else:
            update = do_update
        loss = F.softmax_cross_entropy(model(x), t)
        if clear:
            model.cleargrads()
        loss.backward()
        if clear_between:
            model.cleargrads()
        if update:
            optimizer.update()
        if loss_after:
            return float(F.softmax_cross_entropy(model(x), t).array)
        return float(loss.array)
    do_update = update
    return train_step


def _tanh_derivatives(how='right'):
    x = Variable(np.array(0.5))
    if how == 'accumulate':
        y = F.tanh(x)
        grads = []
        for _ in range(3):
            y.backward()
            grads.append(float(x.grad))
        return grads
    double = how != 'no-flag'
    g1, = chainer.grad([F.tanh(x)], [x], enable_double_backprop=double)
    if how == 'same':
        return [g1, g1, g1]
    g2, = chainer.grad([g1], [x], enable_double_backprop=double)
    g3 = chainer.grad([g2], [x])[0] if g2 is not None else None
    return [g1, g2, g3]


def _newton(step, by_hand=False, restart=False):
    """newton(x0) as a student writes it, with the step ``step(x, f, d1, d2)``."""
    def f(x):
        return x**4 - 3 * x**2 + x

    def newton(x0):
        position, iterates = x0, []
        for _ in range(10):
            if by_hand:  # derivatives written out, not from the engine
                d1, d2 = 4 * position**3 - 6 * position + 1, 12 * position**2 - 6
                value = f(position)
            else:
                x = Variable(np.array(position))
                g1, = chainer.grad([f(x)], [x], enable_double_backprop=True)
                g2, = chainer.grad([g1], [x])
                value, d1, d2 = float(f(x).array), float(g1.array), float(g2.array)
            iterates.append(step(position, value, d1, d2))
            position = x0 if restart else iterates[-1]
        return iterates
    return newton


def _hvp(v=(1.0, 0.0)) -> Variable:
    x = Variable(np.array([1.0, 2.0]))
    f = x[0]**2 * x[1] + x[1]**3
    g, = chainer.grad([f], [x], enable_double_backprop=True)
    hv, = chainer.grad([F.sum(g * np.array(v))], [x])
    return hv


def _unscaled(how='right'):
    """true_grad(scale) as a student writes it, right or with one slip."""
    def true_grad(scale):
        dtype = np.float32 if how == 'float32' else np.float16
        x = Variable(np.ones(3, dtype=dtype))
        loss = 1e-4 * F.sum(x * 1e-4)
        if how == 'by-hand':  # the loss multiplied by the scale, not backward's loss_scale
            (loss * scale).backward()
        elif how == 'unscaled':
            loss.backward()
        else:
            loss.backward(loss_scale=scale)
        grad = x.grad.astype(np.float32)
        if how == 'no-divide':
            return grad
        if how == 'twice':
            return grad / scale / scale
        if how == 'float16-divide':
            return x.grad / np.float16(scale)
        return grad / scale
    return true_grad


def _predict(how):
    def predict(model, x):
        if how == 'right':
            with chainer.no_backprop_mode():
                return model(x)
        if how == 'plain':
            return model(x)
        if how == 'copied':
            return Variable(model(x).array)
        if how == 'unchained':
            y = model(x)
            y.unchain()
            return y
        if how == 'test-mode':  # train=False is not "do not record"
            with chainer.using_config('train', False):
                return model(x)
        if how == 'array':
            with chainer.no_backprop_mode():
                return model(x).array
        return Variable(x @ model.W.array.T + model.b.array)  # 'numpy'
    return predict


def _one_hot(how='right'):
    def one_hot(t, n):
        xp = backend.get_array_module(t)
        if how == 'numpy':
            return np.eye(n, dtype=np.float32)[t]
        if how == 'transposed':
            return xp.eye(n, dtype=np.float32)[t].T
        if how == 'shifted':
            return xp.eye(n, dtype=np.float32)[(t + 1) % n]
        if how == 'variable':
            return Variable(xp.eye(n, dtype=np.float32)[t])
        if how == 'zeros':
            return xp.zeros((len(t), n), dtype=np.float32)
        if how == 'identity':
            return xp.eye(n, dtype=np.float32)[xp.arange(len(t)) % n]
        return xp.eye(n, dtype=np.float32)[t]
    return one_hot


def _to_numpy(how='right'):
    def to_numpy(v):
        if how == 'variable':
            return v
        if how == 'array':
            return v.array
        if how == 'moved':
            v.to_device('@numpy')
            return v.array
        if how == 'get':
            return v.array.get()
        if how == 'asarray':
            return np.asarray(v.array)
        if how == 'np.array':
            return np.array(v.array, dtype=np.float32)
        if how == 'float':
            return np.array([float(v.array)], np.float32)
        return backend.CpuDevice().send(v.array)
    return to_numpy


def _linear_class(how='right'):
    class LinearFunction(chainer.FunctionNode):
        def forward(self, inputs):
            x, W, b = inputs
            self.retain_inputs((0, 1))
            return x @ W.T + b,

        def backward(self, target_input_indexes, grad_outputs):
            x, W = self.get_retained_inputs()
            gy, = grad_outputs
            gx = F.matmul(gy, W)
            gW = F.matmul(gy, x, transa=True)
            gb = F.sum(gy, axis=0)
            if how == 'gb-not-summed':
                gb = gy
            elif how == 'gW-transposed':
                gW = F.matmul(x, gy, transa=True)
            elif how == 'gb-mean':
                gb = F.sum(gy, axis=0) / gy.shape[0]
            elif how == 'gW-without-gy':
                gW = F.matmul(F.broadcast_to(Variable(np.ones((), x.dtype)), gy.shape), x,
                              transa=True)
            elif how == 'stub':
                return ...
            elif how == 'numpy':  # right numbers, but NumPy on .array: not differentiable
                xp = backend.get_array_module(gy.array)
                return (Variable(gy.array @ W.array), Variable(gy.array.T @ x.array),
                        Variable(xp.sum(gy.array, axis=0)))
            elif how == 'library-backward':  # the library's backward, called on itself
                return library_linear.LinearFunction.backward(self, target_input_indexes,
                                                              grad_outputs)
            elif how == 'chainer-grad':  # differentiate the library's linear instead
                with chainer.force_backprop_mode():
                    xs = [Variable(v.array) for v in (x, W)] + [Variable(self.b)]
                    return tuple(chainer.grad([F.linear(*xs)], xs, [gy]))
            elif how == 'F.linear':  # gx = gy W written as linear(gy, W^T)
                gx = F.linear(gy, F.transpose(W))
            return gx, gW, gb
    if how == 'chainer-grad':  # keeps b, which the reference does not retain
        forward = LinearFunction.forward

        def keep_b(self, inputs):
            self.b = inputs[2]
            return forward(self, inputs)
        LinearFunction.forward = keep_b
    return LinearFunction


def _library_subclass(library_class, override_forward=False):
    """An empty subclass of the library's node (or one whose forward is the student's)."""
    body = {}
    if override_forward:
        def forward(self, inputs):
            return library_class.forward(self, inputs)
        body['forward'] = forward
    return type(library_class.__name__, (library_class,), body)


def _softmax_class(how='right'):
    class SoftmaxCrossEntropy(chainer.FunctionNode):
        def forward(self, inputs):
            x, t = inputs
            self.retain_inputs((0, 1))
            xp = backend.get_array_module(x)
            shifted = x if how == 'unstable' else x - x.max(axis=1, keepdims=True)
            with np.errstate(over='ignore', invalid='ignore'):  # 'unstable' overflows
                log_p = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
            loss = -log_p[xp.arange(len(t)), t].mean()
            return xp.asarray(loss, dtype=x.dtype),

        def backward(self, target_input_indexes, grad_outputs):
            x, t = self.get_retained_inputs()
            gloss, = grad_outputs
            xp = np if how == 'numpy' else backend.get_array_module(x)
            classes = 3 if how == 'three-classes' else x.shape[1]   # the test problem's C
            onehot = xp.eye(classes, dtype=x.dtype)[_host(t.array) if how == 'numpy'
                                                    else t.array]
            diff = F.softmax(x) - onehot
            if how == 'sign':
                diff = -diff
            n = 1 if how == 'no-mean' else len(t)
            gx = diff / n if how == 'no-gy' else diff * gloss / n
            if how == 'chainer-grad':  # differentiate the library's loss instead
                with chainer.force_backprop_mode():
                    xv = Variable(x.array)
                    gx, = chainer.grad([F.softmax_cross_entropy(xv, t.array)], [xv], [gloss])
            elif how == 'library-grad':  # the library's loss, applied to a copy and read back
                with chainer.force_backprop_mode():
                    xv = Variable(x.array)
                    loss = F.softmax_cross_entropy(xv, t.array)
                loss.grad_var = gloss
                loss.backward()
                gx = xv.grad_var
            return gx, None
    return SoftmaxCrossEntropy


def _host(a):
    return backend.CpuDevice().send(a)


#: Graph views the answers below open; closed after each test (a view follows the engine).
_VIEWS: list = []
#: The namespaces of the lessons those views come from, alive as in a notebook: an input
#: whose Variable is gone receives no gradient from the engine.
_LESSON_NAMESPACES: list = []


@pytest.fixture(autouse=True)
def close_views():
    yield
    while _VIEWS:
        _VIEWS.pop().close()
    _LESSON_NAMESPACES.clear()


def _lesson_view(stem: str, upto: str, name: str):
    """The view ``name`` of a lesson, run up to the cell that contains ``upto``."""
    namespace, _ = _lesson_views(stem, upto)
    return namespace[name]


#: The hand values of the neuron predicted in lesson 2's view (other inputs than 2.1-2.3's).
HAND_VIEW = checks.neuron_by_hand(checks.NEURON_VIEW)
#: Lesson 2's hand values by the name drawn on each node of the view's named neuron.
BY_HAND = {'d': HAND_VIEW['g_d'], 'e': HAND_VIEW['g_e'], 'u': HAND_VIEW['g_u'],
           'z': HAND_VIEW['g_z'], 's': HAND_VIEW['g_z'], 'a': HAND_VIEW['g_z'],
           'b': HAND_VIEW['g_z'], **{k: HAND_VIEW[k] for k in ('w0', 'x0', 'w1', 'x1', 'w2')}}


class _LookAlike:
    """Duck-typed like a finished, perfectly predicted view of the neuron."""
    score = type('Score', (), {'right': 8, 'wrong': 0, 'skipped': 0})()
    status = {'total': 8, 'done': True, 'live': True}


def _view_on(inputs: str):
    """Lesson 2's named neuron at checks.<inputs>, in a fresh view in predict mode (kept
    open, its inputs alive, until the test ends: close_views)."""
    namespace, _ = _lesson_views('02_chain_rule_by_hand', 'view.predict = True')
    namespace['named_at_' + inputs] = named = namespace['named_neuron'](getattr(checks, inputs))
    view = namespace['GraphView'](named['f'])
    view.predict = True
    _VIEWS.append(view)
    return view


def _predicted_view(how='right', view=None):
    """Lesson 2's named neuron in the view's predict mode, every step predicted with the
    hand values ('right'); or with one step guessed wrong (an add that splits its
    gradient), one revealed with Step, the first three predicted and the rest run with
    Run to end ('partial'), all run without predicting, or unfinished."""
    if view is None:
        view = _lesson_view('02_chain_rule_by_hand', 'view.predict = True', 'view')
    if how == 'unpredicted':
        view.predict = False
        view.run()
        return view
    steps = 0
    while view.next_targets():
        targets = view.next_targets()
        if how == 'partial' and steps == 3:
            view.run()
            break
        if how == 'unfinished' and steps == 3:
            break
        if how == 'skipped' and steps == 0:
            view.step()
        elif how == 'wrong' and targets == ['s', 'w2']:
            view.guess(s=HAND_VIEW['g_z'] / 2, w2=HAND_VIEW['g_z'] / 2)
        else:
            view.guess(**{n: BY_HAND[n] for n in targets})
        steps += 1
    return view


def _gates_view():
    """The view of lesson 2's other graph (the gates), stepped through in predict mode."""
    from autograd_lab_widget import GraphView
    x, y, z = (Variable(np.array(v), name=k) for k, v in checks.GATES.items())
    view = GraphView((x + y) * F.maximum(y, z))
    _VIEWS.append(view)
    view.predict = True
    while view.step():
        pass
    return view


#: h of lesson 5's diamond in the view (exercise 5.3), a point other than exercise 5.2's.
H_VIEW = 2 * checks.DIAMOND_VIEW_X


def _diamond_guess(value, first=None):
    """Lesson 5's diamond, run to sin, and the Verdict of a guess for sin's step (after
    a guess ``first`` for it, if given: the second guess then grades the next step)."""
    diamond = _lesson_view('05_backward_order', 'diamond.predict = True', 'diamond')
    if first is not None:
        diamond.guess(first)
    return diamond.guess(value)


N_OUT = checks.COUNT


# (checker name, reference answer, [(wrong answer, words its hint must contain), ...])
CASES = [
    ('ex01_accumulate', lambda: 16, [
        (lambda: np.array([8.0]), ['accumulate']),
        (lambda: 0, ['Nothing resets']),
        (lambda: 64, ['added, not multiplied']),
        (lambda: 24, ['once per call']),
        (lambda: 10, ['slope'])]),
    ('ex01_central_difference', lambda: _central, [
        (lambda: lambda f, x, h: (f(x + h) - f(x)) / h, ['one-sided (forward)']),
        (lambda: lambda f, x, h: (f(x + h) - f(x - h)) / h, ['divide by 2 * h']),
        (lambda: lambda f, x, h: f(x + h) - f(x - h), ['distance']),
        (lambda: lambda f, x, h: (f(x) - f(x - h)) / h, ['one-sided (backward)']),
        (lambda: lambda f, x, h: (f(x + h) - f(x - h)) / 2*h, ['Precedence', 'parentheses']),
        (lambda: lambda f, x, h: (f(x - h) - f(x + h)) / (2 * h), ['Sign'])]),
    ('ex01_cubic', lambda: _grad_of(lambda x: x**3 - 3 * x, [-1, 0, 2]).grad, [
        (lambda: 3 * np.array([-1.0, 0, 2]) ** 2, ['-3x term is missing']),
        (lambda: np.array([2.0, 0.0, 2.0]), ['y itself']),
        (lambda: np.array([6.0, 0.0, 6.0]), ['kept the x']),
        (lambda: 3 * np.array([-1.0, 0, 2]) ** 2 + 3, ['Sign']),
        (lambda: np.array([-1.0, 0, 2]) ** 2 - 3, ['Power rule']),
        # the answer cell run twice: a second backward adds to x.grad
        (lambda: np.array([0.0, -6.0, 18.0]), ['backward ran twice'])]),
    ('ex02_forward', _neuron_forward, [
        (lambda: _neuron_forward(z=P['w0'] * P['x0'] + P['w1'] * P['x1']), ['bias w2']),
        (lambda: _neuron_forward(e=math.exp(HAND['z'])), ['minus sign']),
        (lambda: _neuron_forward(f=HAND['d']), ['1/d']),
        (lambda: _neuron_forward(d=HAND['e']), ['adds one']),
        (lambda: _neuron_forward(e=-HAND['z']), ['apply exp'])]),
    ('ex02_dz', _chain, [
        # two sign slips that cancel in g_z: blamed where the first happened
        (lambda: _chain(g_d=-HAND['g_d'], g_e=-HAND['g_e'], g_u=-HAND['g_u'],
                        g_z=-HAND['g_z'] * -1), ['Sign', 'negative']),
        (lambda: _chain(g_z=-HAND['g_z']), ['flips the sign']),
        (lambda: _chain(g_d=-1 / HAND['d'], g_e=-1 / HAND['d'], g_u=-HAND['e'] / HAND['d'],
                        g_z=HAND['e'] / HAND['d']), ['square d']),
        (lambda: _chain(g_u=HAND['g_e'], g_z=-HAND['g_e']), ['exp(u) = e']),
        (lambda: _chain(g_u=HAND['g_e'] * HAND['u'], g_z=-HAND['g_e'] * HAND['u']),
         ['not u']),
        (lambda: _chain(g_z=-HAND['g_d']), ['Wrong variable', 'g_u']),
        (lambda: _chain(g_u=HAND['e'], g_z=-HAND['e']), ['from above', 'g_e']),
        (lambda: HAND['g_z'], ["'g_d': ..."])]),
    ('ex02_input_grads', _neuron_grads, [
        (lambda: _neuron_grads(w0=P['w0'] * HAND['g_z'], x0=P['x0'] * HAND['g_z'],
                               w1=P['w1'] * HAND['g_z'], x1=P['x1'] * HAND['g_z']),
         ['swaps']),
        (lambda: _neuron_grads(w0=P['x0'], x0=P['w0'], w1=P['x1'], x1=P['w1']),
         ['arriving from above']),
        (lambda: _neuron_grads(w2=HAND['g_z'] / 3), ['does not split']),
        (lambda: _neuron_grads(w0=HAND['g_z'], x0=HAND['g_z'], w1=HAND['g_z'],
                               x1=HAND['g_z']), ['scales it']),
        (lambda: _neuron_grads(w2=1.0), ['not 1 alone'])]),
    ('ex02_gates', lambda: [{'x': 2, 'y': 8, 'z': 0}, {'x': 3, 'y': 3, 'z': -1}], [
        (lambda: [{'x': 2, 'y': 2, 'z': 0}, {'x': 3, 'y': 3, 'z': -1}], ['fan-out']),
        (lambda: [{'x': 2, 'y': 6, 'z': 0}, {'x': 3, 'y': 0, 'z': -1}], ['fan-out']),
        (lambda: [{'x': 2, 'y': 8, 'z': 6}, {'x': 3, 'y': 3, 'z': -1}], ['routes']),
        (lambda: [{'x': 2, 'y': 5, 'z': 3}, {'x': 3, 'y': 2.5, 'z': -0.5}], ['not split']),
        (lambda: [{'x': 6, 'y': 8, 'z': 0}, {'x': 3, 'y': 3, 'z': -1}], ['swaps']),
        # max routes to its first argument: right at the first point, not at the second
        (lambda: [{'x': 2, 'y': 8, 'z': 0}, {'x': 3, 'y': 2, 'z': 0}], ['LARGER input']),
        (lambda: {'x': 2, 'y': 8, 'z': 0}, ['gate_grads_b'])]),
    ('ex02_view_predictions', _predicted_view, [
        (lambda: _predicted_view('wrong'), ['multiply swaps', 'fresh score']),
        (lambda: _predicted_view('skipped'), ['Guess every step', 'fresh score']),
        (lambda: _predicted_view('partial'), ['Run to end', 'all 8 steps']),
        (lambda: _predicted_view('unpredicted'), ['turn Predict on']),
        (lambda: _predicted_view().score, ['Pass the view itself']),
        (_gates_view, ['the new inputs']),
        # an object that only looks like a finished view, with a perfect score
        (_LookAlike, ['Pass the view itself']),
        # a view on 2.1's neuron, whose numbers the student already has
        (lambda: _view_on('NEURON'), ['the new inputs', 'w0 = -2'])]),
    ('ex03_released', lambda: {'h', 'loss'}, [
        (lambda: {'x', 'h', 'loss'}, ['Leaves']),
        (lambda: {'h'}, ['the output included']),
        (set, ['loses its gradient']),
        (lambda: {'loss'}, ['h was made by a function']),
        (lambda: {'x'}, ['Leaves']),
        (lambda: {'h', 'loss', 'grad'}, ['x, h and loss'])]),
    ('ex03_h_grad', lambda: 2 * (3 * np.array([1.0, 2.0]) + 1), [
        (lambda: _grad_of(lambda x: F.sum((3 * x + 1) ** 2), [1, 2]).grad, ['x.grad']),
        (lambda: 3 * np.array([1.0, 2.0]) + 1, ['the value']),
        (lambda: np.array([3.0, 3.0]), ['local derivative']),
        (lambda: None, ['retain_grad=True']),
        (lambda: (3 * np.array([1.0, 2.0]) + 1) ** 2, ['each term']),
        (lambda: 6 * np.array([1.0, 2.0]), ['+ 1 is part of h'])]),
    ('ex04_sum_sin', lambda: np.cos(np.linspace(0, np.pi, 5)), [
        (lambda: np.sin(np.linspace(0, np.pi, 5)), ['differentiate']),
        (lambda: -np.cos(np.linspace(0, np.pi, 5)), ['+cos']),
        (lambda: np.ones(5), ['multiplies']),
        (lambda: 5 * np.cos(np.linspace(0, np.pi, 5)), ['not the number']),
        (lambda: np.full(5, np.cos(np.linspace(0, np.pi, 5)).sum()), ['does not mix'])]),
    ('ex04_weighted', lambda: _grad_of(lambda x: x**2, [1, 2, 3], [1, 0, 10]).grad, [
        (lambda: _grad_of(lambda x: x**2, [1, 2, 3]).grad, ['seed of ones']),
        (lambda: [1, 0, 10], ['seed alone']),
        (lambda: [1, 0, 90], ['the value']),
        (lambda: [1, 0, 30], ['not x']),
        (lambda: [62, 62, 62], ['does not add them up'])]),
    ('ex05_ranks', lambda: {'mul': 0, 'exp': 1, 'sin': 1, 'add': 2}, [
        (lambda: {'mul': 2, 'exp': 1, 'sin': 1, 'add': 0}, ['from the inputs']),
        (lambda: {'mul': 0, 'exp': 1, 'sin': 2, 'add': 3}, ['same rank']),
        (lambda: {'mul': 1, 'exp': 2, 'sin': 2, 'add': 3}, ['rank 0']),
        (lambda: {'mul': 0, 'exp': 1, 'sin': 1, 'add': 1}, ['rank + 1']),
        (lambda: {'mul': 0, 'exp': 1, 'sin': 1, 'add': 3}, ['not one more']),
        (lambda: {'mul': 0, 'exp': 1, 'sin': 0, 'add': 2}, ['largest rank of its inputs'])]),
    ('ex05_accumulated', lambda: np.exp(1.0) + np.cos(1.0), [
        (lambda: np.exp(1.0), ['through sin']),
        (lambda: np.cos(1.0), ['through exp']),
        (lambda: np.exp(1.0) * np.cos(1.0), ['add up']),
        (lambda: 2 * (np.exp(1.0) + np.cos(1.0)), ['x.grad']),
        (lambda: np.exp(1.0) - np.cos(1.0), ['Sign']),
        (lambda: np.exp(1.0) + np.sin(1.0), ['the value'])]),
    ('ex05_run_to', lambda: _diamond_guess(np.cos(H_VIEW)), [
        (lambda: _diamond_guess(np.exp(H_VIEW) + np.cos(H_VIEW)), ['only its own part']),
        (lambda: _diamond_guess(np.sin(H_VIEW)), ['the value']),
        (lambda: _diamond_guess(np.exp(H_VIEW)), ['what exp sent']),
        (lambda: _diamond_guess(1.0), ['local derivative']),
        (lambda: _diamond_guess(np.cos(1.0)), ["exercise 5.2's h = 1", 'read it off']),
        (lambda: _diamond_guess(np.cos(H_VIEW), first=np.cos(H_VIEW)), ['one step']),
        (lambda: np.cos(H_VIEW), ['diamond.guess'])]),
    ('ex08_no_double', lambda: None, [
        (lambda: 18.0, ['WITH enable_double_backprop']),
        (lambda: 0, ['None, not 0']),
        (lambda: 27, ['g1 = 3x^2']),
        (lambda: 6, ['without x']),
        (lambda: 'error', ['Nothing raises'])]),
    ('ex08_tanh', _tanh_derivatives, [
        (lambda: _tanh_derivatives('no-flag'), ['enable_double_backprop=True']),
        (lambda: _tanh_derivatives('same'), ['previous derivative']),
        (lambda: _tanh_derivatives('accumulate'), ['accumulate']),
        (lambda: _tanh_derivatives()[:2], ['Three']),
        (lambda: [np.tanh(0.5), *_tanh_derivatives()[:2]], ['tanh(x) itself']),
        (lambda: [_tanh_derivatives()[0], -_tanh_derivatives()[1], -_tanh_derivatives()[2]],
         ['Sign'])]),
    ('ex08_hvp', _hvp, [
        (lambda: np.array([4.0, 13.0]), ['gradient of f']),
        (lambda: 4.0, ['a number']),
        (lambda: _hvp((0.0, 1.0)), ['v = [1, 0]']),
        (lambda: np.array([[4.0, 2.0], [2.0, 12.0]]), ['whole Hessian']),
        (lambda: np.array([4.0, 0.0]), ['mixed derivative'])]),
    ('ex08_newton', lambda: _newton(lambda x, f, d1, d2: x - d1 / d2), [
        (lambda: _newton(lambda x, f, d1, d2: x - f / d1), ['root of f itself']),
        (lambda: lambda x0: [1.5], ['10 steps']),
        (lambda: _newton(lambda x, f, d1, d2: x + d1 / d2), ['uphill']),
        (lambda: _newton(lambda x, f, d1, d2: x - d2 / d1), ['upside down']),
        (lambda: lambda x0: [x0 - (4 * x0**3 - 6 * x0 + 1)] * 10, ['gradient-descent']),
        (lambda: _newton(lambda x, f, d1, d2: x - d1 / d2, restart=True), ['previous one']),
        (lambda: _newton(lambda x, f, d1, d2: x - d1 / d2, by_hand=True), ['chainer.grad']),
        (lambda: lambda x0: [x0, *_newton(lambda x, f, d1, d2: x - d1 / d2)(x0)],
         ['not the start'])]),
    ('ex12_predict', lambda: {'x': None, 'a': 1.5}, [
        (lambda: {'x': 4.5, 'a': 1.5}, ['unchain']),
        (lambda: {'x': None, 'a': 0.75}, ['fan-out']),
        (lambda: {'x': None, 'a': 4.5}, ['x.grad']),
        (lambda: {'x': None, 'a': None}, ['leaf']),
        (lambda: {'x': None, 'a': 3.0}, ['da/dx']),
        (lambda: {'x': None, 'a': 0.5625}, ['the value']),
        (lambda: {'x': None, 'a': 0}, ['BEHIND'])]),
    ('ex12_truncated', _train_truncated, [
        (lambda: _train_truncated(cut=False), ['never cut']),
        (lambda: _train_truncated(keep_h=False), ['keeps its value']),
        (lambda: _train_truncated(clear=True), ['last chunk']),
        (lambda: lambda xs, targets, w0, k: checks.rnn_grad(xs, targets, w0, 1),
         ['every k steps']),
        (lambda: lambda xs, targets, w0, k: 0.0, ['backward() first'])]),
    ('ex12_vanishing', lambda: {0.5: 0.5**10, 1.5: 1.5**10}, [
        (lambda: {0.5: 5.0, 1.5: 15.0}, ['not 10 * w']),
        (lambda: {0.5: 0.5**9, 1.5: 1.5**9}, ['ten factors']),
        (lambda: {'0.5': 0.5**11, '1.5': 1.5**11}, ['ten factors']),
        (lambda: {0.5: 2.0**10, 1.5: 1.5**-10}, ['not 1/w']),
        (lambda: {0.5: 1, 1.5: 1}, ['ten steps change it'])]),
    ('ex12_clip_step', lambda: {1.0: 0.1, 5.0: 0.5}, [
        (lambda: {1.0: 1.0, 5.0: 5.0}, ['lr times']),
        (lambda: {1.0: 10.0, 5.0: 50.0}, ['do not divide']),
        (lambda: {1.0: 0, 5.0: 0}, ['never makes it zero']),
        # "the step is lr whatever the clipping": right at 1.0 only
        (lambda: {1.0: 0.1, 5.0: 0.1}, ['threshold matters']),
        (lambda: {1.0: 0.1, 5.0: 2.5}, ['not at its square']),
        (lambda: 0.1, ['One entry per name'])]),
    ('ex13_predict', lambda: {'small': 'vanishing', 'standard normal': 'exploding',
                              'xavier': 'even'}, [
        (lambda: {'small': 'vanishing', 'standard normal': 'vanishing', 'xavier': 'even'},
         ['which wins']),
        (lambda: {'small': 'even', 'standard normal': 'exploding', 'xavier': 'even'},
         ['shrinks the signal']),
        (lambda: {'small': 'vanishing', 'standard normal': 'exploding', 'xavier': 'vanishing'},
         ['about the same']),
        (lambda: {'small': 'exploding', 'standard normal': 'vanishing', 'xavier': 'even'},
         ['shrinks the signal']),
        (lambda: {'small': 'vanishing', 'standard normal': 'big', 'xavier': 'even'},
         ['one of']),
        (lambda: {'small': 'vanishing', 'xavier': 'even'}, ['one of'])]),
    ('ex13_sigmoid_bound', lambda: {5: 0.25**5, 10: 0.25**10}, [
        (lambda: {5: 0.5**5, 10: 0.5**10}, ['the value']),
        (lambda: {5: 1.0, 10: 1.0}, ["tanh's slope"]),
        (lambda: {5: 1.25, 10: 2.5}, ['multiplies the slopes']),
        (lambda: {5: 0.25**4, 10: 0.25**9}, ['Count the sigmoids']),
        (lambda: {5: 4.0**5, 10: 4.0**10}, ['shrinks']),
        (lambda: {5: 0.25**5}, ['One entry per name']),
        # the chain's true maximum (inner sigmoids output (0, 1)): right, not the bound
        (lambda: {5: 6.81e-4, 10: 3.90e-7}, ['sharper than asked'])]),
    ('ex13_init_std', lambda: {'tanh': 0.125, 'relu': np.sqrt(2 / 64)}, [
        (lambda: {'tanh': 1 / 64, 'relu': 2 / 64}, ['variances']),
        (lambda: {'tanh': np.sqrt(1 / 16), 'relu': np.sqrt(2 / 64)}, ['Fan-in']),
        (lambda: {'tanh': 0.125, 'relu': np.sqrt(2 / 16)}, ['Fan-in']),
        (lambda: {'tanh': 0.125, 'relu': 0.125}, ['doubles']),
        (lambda: {'tanh': np.sqrt(2 / 64), 'relu': np.sqrt(2 / 64)}, ['zeroes nothing']),
        # Glorot's 2/(fan_in + fan_out) = 0.158 for 64 -> 16 (GlorotNormal's rule)
        (lambda: {'tanh': np.sqrt(2 / 80), 'relu': np.sqrt(2 / 64)}, ['Glorot']),
        (lambda: {'tanh': np.sqrt(1 / 64)}, ['One entry per name'])]),
    ('exA1_recorded', lambda: {'y1', 'y3', 'y4'}, [
        (lambda: {'y1', 'y2', 'y3'}, ['y2 was computed inside no_backprop_mode']),
        (lambda: {'y1'}, ['force_backprop_mode switches recording back on']),
        (lambda: {'y1', 'y3'}, ['y4 is computed outside']),
        (lambda: {'y1', 'y2', 'y3', 'y4'}, ['y2 was computed inside no_backprop_mode']),
        (lambda: {'y3', 'y4'}, ['y1 is ordinary code']),
        (lambda: {'x', 'y1', 'y3', 'y4'}, ['never has a creator'])]),
    ('exA1_predict', lambda: _predict('right'), [
        (lambda: _predict('plain'), ['recording switched off']),
        (lambda: _predict('copied'), ['does not undo']),
        (lambda: _predict('unchained'), ['does not undo']),
        (lambda: _predict('numpy'), ['model itself']),
        (lambda: _predict('test-mode'), ['recording switched off']),
        (lambda: _predict('array'), ['as a Variable'])]),
    ('ex11_lr_ranking', lambda: [0.3, 0.01, 3.0], [
        (lambda: [0.01, 0.3, 3.0], ['safe but slow']),
        (lambda: [3.0, 0.3, 0.01], ['overshoots']),
        (lambda: [0.3, 3.0, 0.01], ['stuck guessing']),
        (lambda: [0.01, 3.0, 0.3], ['safe but slow']),
        (lambda: [3.0, 0.01, 0.3], ['overshoots'])]),
    ('exA2_param_count', lambda: 2410, [
        (lambda: 64 * 32 + 32 + 32 * 10, ['Linear(32, 10) has biases']),
        (lambda: 64 * 32 + 32 * 10 + 10, ['Linear(64, 32) has biases']),
        (lambda: 64 * 32 + 32 * 10, ['bias']),
        (lambda: 64 * 32 + 32, ['first layer']),
        (lambda: 64 * 32 + 64 + 32 * 10 + 32, ['each output']),
        (lambda: 64 * 32 * 10, ['do not multiply'])]),
    ('ex11_train_step', _train_step, [
        (lambda: _train_step(clear=False), ['cleargrads() before loss.backward()']),
        (lambda: _train_step(update=False), ['optimizer.update()']),
        (lambda: _train_step(clear_between=True), ['not between']),
        (lambda: _train_step(loss_after=True), ['before the update']),
        (lambda: _train_step(update_first=True), ['not before']),
        (lambda: _train_step(mse=True), ['loss you call backward on', 'softmax_cross_entropy'])]),
    ('exA3_max_scale', lambda: 2.0**14, [
        (lambda: 2.0**15, ['overflows']),
        (lambda: 65504 / 3, ['power of two']),
        (lambda: 2.0**16, ['already above']),
        (lambda: 2.0**13, ['larger power of two']),
        (lambda: 65504, ['largest float16 itself'])]),
    ('exA3_unscaled', _unscaled, [
        (lambda: _unscaled('unscaled'), ['underflow']),
        (lambda: _unscaled('no-divide'), ['divide by it']),
        (lambda: _unscaled('twice'), ['once']),
        (lambda: lambda scale: np.full(3, 1e-8, np.float32), ['float16 route']),
        (lambda: _unscaled('float32'), ['float16 route']),
        (lambda: _unscaled('by-hand'), ['loss_scale=scale']),
        (lambda: _unscaled('float16-divide'), ['underflow'])]),
    ('exA3_zero_in_float16', lambda: {1e-9, 2e-8}, [
        (lambda: {1e-9, 2e-8, 4e-8}, ['nearest']),
        (lambda: {1e-9, 2e-8, 4e-8, 1e-6}, ['subnormal']),
        (lambda: {1e-9}, ['nearest value']),
        (set, ['nothing between']),
        (lambda: {1e-6}, ['subnormal']),
        (lambda: {1e-9, 4e-8}, ['nearest value'])]),
    ('exA4_one_hot', _one_hot, [
        (lambda: _one_hot('transposed'), ['Transposed']),
        (lambda: _one_hot('shifted'), ['count from 0']),
        (lambda: _one_hot('variable'), ['array itself']),
        (lambda: _one_hot('zeros'), ['needs a 1']),
        (lambda: _one_hot('identity'), ['not in column i'])]),
    ('exA4_stays_on_gpu', lambda: {'A', 'C'}, [
        (lambda: {'C'}, ['handed on to CuPy']),
        (lambda: {'A', 'B', 'C'}, ['refuses to add']),
        (lambda: {'A', 'C', 'D'}, ['implicit copies']),
        (lambda: {'A'}, ['xp is cupy']),
        (lambda: {'A', 'B', 'C', 'D'}, ['refuses to add', 'implicit copies']),
        (lambda: {'C', 'D'}, ['handed on to CuPy', 'implicit copies'])]),
    ('exA4_to_numpy', _to_numpy, [
        (lambda: _to_numpy('variable'), ['Return its array']),
        (lambda: _to_numpy('get'), ['.get() exists only on CuPy arrays']),
        (lambda: lambda v: v.array.tolist(), ['CPU device'])]),
    ('ex09_backward', _softsign_class, [
        (lambda: _softsign_class(1), ['square the denominator']),
        (lambda: _softsign_class(backward_abs=False), ['Keep the absolute value']),
        (lambda: _softsign_class(times_gy=False), ['by gy']),
        (lambda: _softsign_class(variables=False), ['F functions']),
        (lambda: _softsign_class(through_itself=True), ['chainer.grad', 'yourself'])]),
    ('ex09_forward', _softsign_class, [
        (lambda: _softsign_class(use_abs=False), ['xp.abs']),
        (lambda: _softsign_class(abs_all=True), ['sign of x']),
        (lambda: _softsign_class(tuple_out=False), ['comma']),
        (lambda: _softsign_class(numerator_one=True), ['numerator']),
        (lambda: _softsign_class(minus=True), ['Sign'])]),
    ('ex09_slope', lambda: 0.25, [
        (lambda: 0.5, ['Square the denominator']),
        (lambda: -0.25, ['positive everywhere']),
        (lambda: -0.5, ['the value']),
        (lambda: float('inf'), ['keep the absolute value']),
        (lambda: 4.0, ['1 over it'])]),
    ('ex10_count', lambda: {'reverse': 30000, 'forward': 3010000}, [
        (lambda: {'reverse': 3010000, 'forward': 30000}, ['other way round']),
        (lambda: {'reverse': 30000, 'forward': 30000}, ['ONE input direction']),
        (lambda: {'reverse': 3000000, 'forward': 3010000}, ['vector times a matrix']),
        # a forgotten term is off by 0.3%: inside a 1% tolerance, so counts are exact
        (lambda: {'reverse': 30000, 'forward': 3000000}, ['term is missing']),
        (lambda: {'reverse': 30000, 'forward': 3000100}, ['not m']),
        (lambda: {'reverse': 20000, 'forward': 3010000}, ['D of them']),
        (lambda: {'reverse': 30100, 'forward': 3010000}, ['costs nothing']),
        (lambda: {'reverse': 30000.5, 'forward': 3010000}, ['p*q*r'])]),
    ('ex10_linear', _linear_class, [
        (lambda: _linear_class('gb-not-summed'), ['add the rows up']),
        (lambda: _linear_class('gW-transposed'), ['transposed how']),
        (lambda: _linear_class('gb-mean'), ['not the mean']),
        (lambda: _linear_class('gW-without-gy'), ['Multiply in gy']),
        (lambda: _linear_class('numpy'), ['constant to the engine']),
        (lambda: library_linear.LinearFunction, ['of your own']),
        (lambda: _library_subclass(library_linear.LinearFunction), ['of your own']),
        (lambda: _library_subclass(library_linear.LinearFunction, override_forward=True),
         ['of your own']),
        (lambda: _linear_class('library-backward'), ["library's own", 'F.matmul']),
        (lambda: _linear_class('chainer-grad'), ['chainer.grad', 'F.matmul']),
        (lambda: _linear_class('F.linear'), ["library's own", 'F.matmul'])]),
    ('ex10_shapes', lambda: {'gx': (4, 3), 'gW': (2, 3), 'gb': (2,)}, [
        (lambda: {'gx': (4, 3), 'gW': (3, 2), 'gb': (2,)}, ['transposed', 'W itself']),
        (lambda: {'gx': (4, 3), 'gW': (2, 3), 'gb': (4, 2)}, ['shared by every row']),
        (lambda: {'gx': (4, 2), 'gW': (2, 3), 'gb': (2,)}, ['shape of gy']),
        (lambda: {'gx': (3, 4), 'gW': (2, 3), 'gb': (2,)}, ['transposed', 'x itself']),
        (lambda: {'gx': (4, 3), 'gW': (2, 3), 'gb': (1, 2)}, ['1 axis']),
        (lambda: {'gx': (4, 3), 'gW': (2, 4), 'gb': (2,)}, ['shape of W'])]),
    ('ex10_softmax_ce', _softmax_class, [
        (lambda: _softmax_class('no-mean'), ['divide by N']),
        (lambda: _softmax_class('sign'), ['p - onehot']),
        (lambda: _softmax_class('no-gy'), ['incoming gradient']),
        (lambda: _softmax_class('unstable'), ['subtract the largest logit']),
        # a one-hot hard-coded for three classes: right only at the first size
        (lambda: _softmax_class('three-classes'), ['fixed size', 'x.shape[1]']),
        (lambda: library_losses.SoftmaxCrossEntropy, ['of your own']),
        (lambda: _library_subclass(library_losses.SoftmaxCrossEntropy), ['of your own']),
        (lambda: _softmax_class('chainer-grad'), ['chainer.grad', 'F.softmax']),
        (lambda: _softmax_class('library-grad'), ['chainer.grad', 'F.softmax'])]),
]

# Device-generic code: the same checkers under the fake GPU (autograd_lab.testing.fake_gpu),
# where NumPy-only answers, which pass on a CPU, must be caught.
GPU_CASES = [
    ('exA4_one_hot', _one_hot, [(lambda: _one_hot('numpy'), ['get_array_module'])]),
    ('exA4_to_numpy', _to_numpy, [
        (lambda: _to_numpy('array'), ['CuPy array']),
        (lambda: _to_numpy('moved'), ['Leave v where it is']),
        # NumPy taking the GPU array implicitly: CuPy refuses, and so does the stand-in
        (lambda: _to_numpy('asarray'), ['np.* cannot take a GPU array']),
        (lambda: _to_numpy('np.array'), ['np.* cannot take a GPU array']),
        (lambda: _to_numpy('float'), ['small input'])]),
    ('ex09_forward', _softsign_class, [
        (lambda: _softsign_class(host=True), ['get_array_module'])]),
    ('ex09_backward', _softsign_class, []),
    ('ex10_linear', _linear_class, []),
    ('ex10_softmax_ce', _softmax_class, [
        (lambda: _softmax_class('numpy'), ['same device as x'])]),
]


def _wrong_cases(cases):
    return [(name, reference, wrong, words) for name, reference, wrongs in cases
            for wrong, words in wrongs]


def _ids(cases):
    seen: dict[str, int] = {}
    ids = []
    for name, *_ in cases:
        seen[name] = seen.get(name, 0) + 1
        ids.append(f'{name}-{seen[name]}')
    return ids


WRONG = _wrong_cases(CASES)
GPU_WRONG = _wrong_cases(GPU_CASES)


#: The checkers of the exercises where students write backprop themselves (lessons 6, 9
#: and 10): their accept/reject tests are in tests/test_lesson_checks_backprop.py.
TESTED_IN_BACKPROP = {
    'ex06_order', 'ex06_predict', 'ex06_backward', 'ex06_engine_order', 'ex09_rel_error',
    'ex09_bug_where', 'ex09_fixed', 'ex09_kink', 'ex10_mlp_shapes', 'ex10_unbroadcast',
    'ex10_mlp',
}
#: Lesson 7's checkers (the learner's own engine): tested in tests/test_lesson_checks_engine.py.
TESTED_IN_ENGINE = {'ex07_predict', 'ex07_engine', 'ex07_param_count', 'ex07_mlp', 'ex07_train'}


def test_every_checker_is_covered_with_five_wrong_answers():
    tested_elsewhere = TESTED_IN_BACKPROP | TESTED_IN_ENGINE
    assert sorted(name for name, *_ in CASES) == sorted(set(checks.ALL) - tested_elsewhere)
    short = {}
    for name, _, wrongs in CASES:
        gpu = sum(len(w) for n, _, w in GPU_CASES if n == name)
        if len(wrongs) + gpu < 5:
            short[name] = len(wrongs) + gpu
    assert not short, short


@pytest.mark.parametrize(('name', 'reference', 'wrongs'), CASES, ids=[c[0] for c in CASES])
def test_checker_accepts_the_reference(name, reference, wrongs):
    accepted(checks.ALL[name](reference()))


@pytest.mark.parametrize(('name', 'reference', 'wrong', 'words'), WRONG, ids=_ids(WRONG))
def test_checker_rejects_a_plausible_mistake_with_its_hint(name, reference, wrong, words):
    rejected(checks.ALL[name](wrong()), *words)


@pytest.mark.parametrize(('name', 'reference', 'wrongs'), GPU_CASES,
                         ids=[c[0] for c in GPU_CASES])
def test_device_generic_reference_passes_on_the_gpu_backend(name, reference, wrongs,
                                                            fake_gpu):
    fb = checks.ALL[name](reference())
    accepted(fb)
    assert 'tried on the CPU and on the GPU' in fb.message


@pytest.mark.parametrize(('name', 'reference', 'wrong', 'words'), GPU_WRONG,
                         ids=_ids(GPU_WRONG))
def test_numpy_only_code_is_rejected_on_the_gpu_backend(name, reference, wrong, words,
                                                        strict_gpu):
    # a machine with a GPU: the checker uses it as it is (here the stand-in, as strict as
    # CuPy), and the same NumPy-only answers fail with the same hint
    rejected(checks.ALL[name](wrong()), *words)


@pytest.mark.parametrize(('name', 'reference', 'wrong', 'words'), GPU_WRONG,
                         ids=_ids(GPU_WRONG))
def test_numpy_only_code_is_rejected_on_a_laptop_too(name, reference, wrong, words, no_gpu):
    # no GPU (every student laptop): the checker tries the code on a stand-in GPU as strict
    # as CuPy, so the same NumPy-only answers fail with the same hint
    rejected(checks.ALL[name](wrong()), *words)
    assert not backend.cuda_available()  # and the stand-in is gone afterwards


@pytest.mark.parametrize(('name', 'reference', 'wrongs'), GPU_CASES,
                         ids=[c[0] for c in GPU_CASES])
def test_without_a_gpu_the_reference_passes_on_the_stand_in(name, reference, wrongs, no_gpu):
    fb = checks.ALL[name](reference())
    accepted(fb)
    assert 'stand-in GPU' in fb.message and 'there is no GPU' not in fb.message


def test_a_backward_that_applies_its_own_class_is_rejected():
    class Softsign(_softsign_class()):
        def backward(self, target_input_indexes, grad_outputs):
            x, = self.get_retained_inputs()
            y, = Softsign().apply((x,))           # its own forward, inside its backward
            return grad_outputs[0] * (1 - F.absolute(y)) ** 2,   # (1 - |y|)^2 is the slope
    rejected(checks.ex09_backward(Softsign), 'Applying Softsign inside its own backward')


def test_backward_is_checked_at_negative_points():
    # a backward that drops |x| is right for x > 0: the checker must try x < 0 too
    only_positive = _softsign_class(backward_abs=False)
    x = Variable(np.array([0.5, 1.0, 2.0]))
    y, = only_positive().apply((x,))
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_allclose(x.grad, 1 / (1 + np.abs(x.array)) ** 2)
    rejected(checks.ex09_backward(only_positive), 'absolute value')


def test_checkers_leave_the_learners_random_state_alone():
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    checks.ex09_backward(_softsign_class())
    checks.ex10_linear(_linear_class())
    assert np.random.random() == expected


def test_a_stub_backward_is_not_done_yet():
    fb = checks.ex10_linear(_linear_class('stub'))
    assert fb.status == 'todo' and 'backward' in fb.message


@pytest.mark.parametrize(('name', 'reference', 'wrongs'), CASES, ids=[c[0] for c in CASES])
def test_checker_under_nbgrader(name, reference, wrongs, monkeypatch, capsys):
    # as while nbgrader autogrades: right answers print and return None (full points),
    # wrong ones raise (zero points), with the hint in the error
    monkeypatch.setattr(checks, 'GRADING', True)
    monkeypatch.setattr(checks, 'STRICT', True)
    checker = checks.ALL[name]
    assert checker(reference()) is None
    assert name in capsys.readouterr().out
    wrong, words = wrongs[0]
    with pytest.raises(AssertionError) as error:
        checker(wrong())
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize('name', sorted(checks.ALL))
def test_placeholder_is_not_done_yet_and_does_not_raise(name):
    fb = checks.ALL[name](...)
    assert fb.status == 'todo'
    assert 'not done yet' in repr(fb)
    assert "{'mul': 0" not in fb.message  # 5.1's placeholder message gave a rank away


@pytest.mark.parametrize('name', sorted(checks.ALL))
def test_strict_mode_raises_for_placeholder(name, monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', True)
    with pytest.raises(AssertionError, match='not done yet'):
        checks.ALL[name](...)


#: The checkers whose answer is a dict, by the keys they ask for: they open alike
#: (checks.feedback._dict_answer).
DICT_ANSWERS = {
    'ex02_dz': ['g_d', 'g_e', 'g_u', 'g_z'], 'ex05_ranks': ['mul', 'exp', 'sin', 'add'],
    'ex06_predict': [0.5, -1.0], 'ex07_predict': ['a', 'b'], 'ex09_bug_where': ['input', 'where'],
    'ex09_kink': [0.0004, -0.0004], 'ex10_shapes': ['gx', 'gW', 'gb'],
    'ex10_mlp_shapes': ['gW1', 'gb1', 'gh', 'gW2', 'gs'], 'ex12_predict': ['x', 'a'],
}


@pytest.mark.parametrize('name', sorted(DICT_ANSWERS))
def test_a_dict_answer_opens_alike(name):
    checker, keys = checks.ALL[name], DICT_ANSWERS[name]
    listed = ', '.join(repr(k) for k in keys[:-1]) + f' and {keys[-1]!r}'
    for not_a_dict in (list(keys), 'a dict', {keys[0]: 1.0}, {**dict.fromkeys(keys, 1.0), 'z': 1}):
        fb = checker(not_a_dict)
        assert fb.status == 'wrong', not_a_dict
        assert fb.message.startswith(f'give a dict with exactly the keys {listed}'), fb.message
    unfinished = checker(dict.fromkeys(keys, ...))  # the stub, keys right, values not yet
    assert unfinished.status == 'todo' and 'not done yet' in unfinished.message


def test_strict_mode_passes_correct_answers(monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', True)
    assert checks.ex01_accumulate(np.array([16.0]))
    with pytest.raises(AssertionError, match='Gradients accumulate'):
        checks.ex01_accumulate(np.array([8.0]))


_IMPORTED_UNDER = """
import pytest
from autograd_lab_lessons import checks
print(checks.STRICT, checks.GRADING)
if checks.GRADING:
    with pytest.raises(AssertionError, match='not done yet'):
        checks.ex01_accumulate(...)
    assert checks.ex01_accumulate([16.0]) is None
"""


@pytest.mark.parametrize(('value', 'grading'), [('autograde', True), ('validate', True),
                                                 ('', False)])
def test_nbgrader_environment_turns_strict_on(value, grading):
    # a fresh interpreter, as nbgrader's kernel: the package reads NBGRADER_EXECUTION on import.
    # nbgrader takes a graded cell's result as a partial score: a correct answer prints
    # its verdict and returns nothing, so the cell earns all its points
    env = {**os.environ, 'NBGRADER_EXECUTION': value}
    done = subprocess.run([sys.executable, '-c', _IMPORTED_UNDER], env=env, check=False,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f'{grading} {grading}'
    if grading:
        assert 'is right' in lines[1]


def test_a_checker_that_tries_several_inputs_prints_one_verdict_while_grading(monkeypatch,
                                                                             capsys):
    monkeypatch.setattr(checks, 'GRADING', True)
    assert checks.ex01_central_difference(_central) is None
    assert capsys.readouterr().out.count('[ex01_central_difference]') == 1


def test_feedback_names_the_wrong_element():
    fb = checks.ex01_cubic(np.array([0.0, -3.0, 5.0]))
    assert fb.status == 'wrong'
    assert 'x.grad[2] = 5' in fb.message
    assert '9' not in fb.message + fb.hint  # the answer only on request:
    with pytest.raises(KeyError):
        checks.show_answer('ex99_nothing')


def test_show_answer_gives_the_answer_only_when_asked(capsys):
    checks.ex01_cubic(np.array([0.0, -3.0, 5.0]))
    checks.show_answer('ex01_cubic')
    assert '[0, -3, 9]' in capsys.readouterr().out


# ---- feedback that diagnoses without giving the answer away (issue 30's cases) ----------------

def _said(fb):
    return fb.message + ' ' + fb.hint


def test_shapes_feedback_names_the_slip_not_the_shapes(capsys):
    fb = checks.ex10_shapes({'gx': (4, 3), 'gW': (3, 2), 'gb': (4, 2)})
    rejected(fb, 'transposed', 'shared by every row')
    assert '(2, 3)' not in _said(fb) and '(2,)' not in _said(fb)
    checks.show_answer('ex10_shapes')
    assert "'gW': (2, 3)" in capsys.readouterr().out


def test_linear_feedback_does_not_print_the_formula():
    for how in ('gb-not-summed', 'gW-transposed', 'gb-mean', 'gW-without-gy'):
        fb = checks.ex10_linear(_linear_class(how))
        assert 'F.sum(gy, axis=0)' not in _said(fb) and 'gy^T x' not in _said(fb), how


def test_a_wrong_sign_of_the_first_link_is_blamed_on_it():
    # 2.2: -1/d**2 written as +1/d**2, the negation done right: g_z has the wrong sign
    wrong = _chain(g_d=-HAND['g_d'], g_e=-HAND['g_e'], g_u=-HAND['g_u'], g_z=-HAND['g_z'])
    fb = checks.ex02_dz(wrong)
    rejected(fb, 'Sign', '1/d')
    assert 'g_d' in fb.message and 'negation' not in fb.hint


def test_precedence_slip_gets_its_own_hint():
    fb = checks.ex01_central_difference(lambda f, x, h: (f(x + h) - f(x - h)) / 2*h)
    rejected(fb, 'Precedence')
    assert '(f(x + h) - f(x - h)) / (2 * h)' not in _said(fb)


def test_placeholders_do_not_invite_typing_the_answer():
    assert 'x.grad.' not in checks.ex01_accumulate(...).message
    assert "'mul': 0" not in checks.ex05_ranks(...).message


@pytest.mark.parametrize('name', sorted(checks.ALL))
def test_every_exercise_has_an_answer_on_request(name, capsys):
    checks.show_answer(name)
    printed = capsys.readouterr().out
    assert printed.startswith(f'{name}: ') and len(printed) > len(name) + 4


def test_every_checker_gives_its_verdict_at_one_place():
    # helpers stop a check by raising; the checker turns that into its one verdict
    assert all(getattr(checker, 'is_checker', False) for checker in checks.ALL.values())


def test_feedback_reports_shape_and_type_errors():
    assert 'shape (2,)' in checks.ex01_cubic(np.zeros(2)).message
    assert 'got str' in checks.ex01_cubic('eight').message
    assert 'is None' in checks.ex03_h_grad(None).message
    assert 'exactly the keys' in checks.ex02_gates([{'x': 1}, {}]).message


def test_learner_exceptions_become_feedback():
    def broken(xs, targets, w0, k):
        raise ZeroDivisionError('boom')
    fb = checks.ex12_truncated(broken)
    assert fb.status == 'wrong' and 'ZeroDivisionError: boom' in fb.message


def test_feedback_html_escapes_learner_text():
    fb = checks.exA1_recorded({'<script>alert(1)</script>'})
    assert '<script>' in fb.message  # echoed back as text...
    page = fb._repr_html_()
    assert '<script>' not in page and '&lt;script&gt;' in page  # ...but never as markup


# ---- hand-computed values equal the engine's -------------------------------------------

def _engine_neuron():
    inputs = {k: Variable(np.array(v)) for k, v in checks.NEURON.items()}
    z = inputs['w0'] * inputs['x0'] + inputs['w1'] * inputs['x1'] + inputs['w2']
    f = 1 / (1 + F.exp(-z))
    f.backward(retain_grad=True)
    return inputs, z, f


def test_neuron_by_hand_equals_the_engine():
    inputs, z, f = _engine_neuron()
    assert HAND['z'] == pytest.approx(float(z.array))
    assert HAND['f'] == pytest.approx(float(f.array))
    assert HAND['g_z'] == pytest.approx(float(z.grad))
    for name, var in inputs.items():
        assert HAND[name] == pytest.approx(float(var.grad)), name


def test_gates_by_hand_equal_the_engine():
    x, y, z = (Variable(np.array(v)) for v in checks.GATES.values())
    ((x + y) * F.maximum(y, z)).backward()
    assert checks.gates_by_hand() == {'x': float(x.grad), 'y': float(y.grad),
                                      'z': float(z.grad)}


# ---- the lessons' own code, run in-process: what the text says is what happens -----------

def run_lesson(stem: str, upto: str | None = None, keep_views: bool = False) -> dict:
    """Runs the code cells of lessons/source/<stem>.md, exercises in their solution form,
    in one namespace (up to the cell that contains ``upto``); returns the namespace.

    The graph views the lesson opens are closed afterwards (they follow the engine's
    events while open), unless ``keep_views``: then they are also listed, in the order
    the lesson made them, under ``'_lesson_views'`` in the namespace.
    """
    import matplotlib
    matplotlib.use('Agg')
    from autograd_lab_widget import GraphView

    views: list = []

    class TrackedView(GraphView):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            views.append(self)

    cells = build.parse((LESSONS / 'source' / f'{stem}.md').read_text(encoding='utf-8'), stem)
    namespace: dict = {}
    try:
        for cell in cells:
            if cell['kind'] == 'markdown':
                continue
            lines = cell['lines']
            if cell['kind'] == 'exercise':
                before, _, answer, after = build._split_exercise(lines, cell['where'])
                lines = before + answer + after
            code = '\n'.join(lines)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                exec(compile(code, f'{stem}.md', 'exec'), namespace)
            if 'GraphView' in namespace:
                namespace['GraphView'] = TrackedView
            if upto is not None and upto in code:
                break
    finally:
        for view in [] if keep_views else views:
            view.close()
    if keep_views:
        namespace['_lesson_views'] = views
    return namespace


def _lesson_views(stem: str, upto: str | None = None) -> tuple[dict, list]:
    """A lesson's namespace and its views, kept open (and alive) until the test ends."""
    namespace = run_lesson(stem, upto=upto, keep_views=True)
    _LESSON_NAMESPACES.append(namespace)
    _VIEWS.extend(namespace['_lesson_views'])
    return namespace, namespace['_lesson_views']


def _cells(view, part: str = 'text') -> dict:
    """What each drawn node says ({name or function name: {cell: text}}), or with
    ``part='cell'`` the state of its cells ('none', 'fresh', 'freed')."""
    return {v['text'].get('name') or v['text']['fid']: v.get(part, {})
            for v in view.nodes.values()}


def _ledger(view) -> dict:
    """The step ledger by section title: {title: {row key: row text}, ...} (+ 'why')."""
    return {s['title']: {**{r['key']: r['value'] for r in s['rows']}, 'why': s.get('why', '')}
            for s in view.ledger['sections']}


# ---- what the lessons say about the graph view is what it shows ------------------------

def test_lesson_1_view_as_described():
    ns, (view,) = _lesson_views('01_variables_and_derivatives', upto='view = GraphView(y)')
    cells = _cells(view)
    assert {'x', 'y', 'v2', 'v3', 'f1', 'f2', 'f3', 'f4'} <= set(cells)
    assert cells['x']['grad'] == '\u2014' and cells['f1']['op'] == '_ ** 2'
    assert cells['f4']['mark'] == '\u25b6'                        # runs next
    with warnings.catch_warnings():  # y has shape (1,): the lesson silences this warning
        warnings.simplefilter('ignore', DeprecationWarning)
        view.step()
        assert _cells(view)['f4']['mark'] == '\u2713'             # ran
        assert view.status['text'].startswith('Step 1 of 4')
        assert _ledger(view)['Just ran: f4 (_ + 1)']['why']       # "Why this function now?"
        view.run()
    assert view.status['text'].startswith('Backward finished')
    last, = _ledger(view).values()
    assert last['x.grad'].startswith('[10.0] + [\u22122.0] = [8.0]')   # "adds them up"
    assert ns['x'].grad.tolist() == [8.0]     # "x.grad holds the same 8 as before"


def test_lesson_2_view_as_described():
    _, views = _lesson_views('02_chain_rule_by_hand', upto='view.predict = True')
    view, = views
    cells = _cells(view)
    assert {f'f{k}' for k in range(1, 9)} <= set(cells)
    assert '-_' in {c.get('op') for c in cells.values()}  # Chainer's __neg__, drawn as minus
    assert view.status['predict'] and view.next_targets() == ['d']
    question, = _ledger(view).items()        # in predict mode only the next step, first
    assert question[0] == 'Next: f8 (1 / _)' and question[1]['grad in'] == 'f: 1.0'
    assert question[1]['d'].endswith('?')


def test_lesson_3_view_as_described():
    _, (plain, retained) = _lesson_views('03_retain_grad')
    for view in (plain, retained):
        view.run()
    freed = {name for name, c in _cells(plain, 'cell').items() if c.get('grad') == 'freed'}
    variables = {name for name in _cells(plain) if not name.startswith('f')}
    assert freed == variables - {'x'} and 'h' in freed   # "every other grad", not x's
    assert not any(c.get('grad') == 'freed' for c in _cells(retained, 'cell').values())
    plain.select('h')
    assert 'released by the engine once used' in dict(
        (row[0], row[1]) for row in plain.panel['main'])['grad']


def test_lesson_5_run_to_stops_with_sin_next_after_exp():
    ns, (diamond,) = _lesson_views('05_backward_order', upto='diamond.predict = True')
    assert diamond.next_targets() == ['h']
    assert diamond.name_of(ns['q'].creator) == 'f3'     # "the name drawn on sin's box"
    assert diamond.name_of(ns['p'].creator) == 'f2'
    assert diamond.status['text'] == 'Step 2 of 4: next f3 (sin).'
    ledger = _ledger(diamond)
    assert ledger['Just ran: f2 (exp)']['h'] == '1.0 \u00d7 1.649 = 1.649'   # exp(0.5)
    assert 'Waiting: f3 (rank 1), f1 (rank 0)' in ledger['Next: f3 (sin)']['why']
    # a point other than exercise 5.2's (h = 1): what sin sends is not already known
    assert float(ns['h'].array) == H_VIEW != 1.0
    ns = run_lesson('05_backward_order')
    assert float(ns['h'].grad) == pytest.approx(np.exp(H_VIEW) + np.cos(H_VIEW), rel=1e-6)
    assert ns['diamond'].score.right == 1 and ns['sin_step'].right


def test_lesson_7_8_11_A2_views_as_described():
    _, (view,) = _lesson_views('08_higher_order', upto='view = GraphView(y, enable')
    assert view.orders == [0] and view.status['step'] == 0   # the student steps it
    view.step()
    assert view.orders == [0, 1] and 'dashed' in view.to_dot()
    assert _cells(view)['x']['grad'] == '12.0'
    _, views = _lesson_views('12_cutting_the_graph', upto='view.unchain(a')
    assert views[-1].status['total'] == 2                 # "only sin and the multiply"
    assert 'class="edge-cut"' in views[-1].to_dot()
    # A2: "which parameters receive their gradients first?": l2's, at the second step
    ns, views = _lesson_views('A2_links_and_optimizers', upto='links=model')
    view, model = views[-1], ns['model']
    assert '2 Links collapsed' in view.status['note']
    assert all(p.grad is None for p in model.params())   # nothing has run backward
    view.step()
    assert 'Next: f3 (LinearFunction)' in _ledger(view)
    view.step()
    assert model.l2.W.grad is not None and model.l2.b.grad is not None
    assert model.l1.W.grad is None and model.l1.b.grad is None
    # 8: predict what Cube's backward sends: the ledger cannot give its rule
    _, (view,) = _lesson_views('09_custom_function_node', upto='cube_view.predict = True')
    assert view.predict and view.status['step'] == 0
    assert str(view.guess([1.0, 1.0])).startswith('Right!')        # sum sends ones to y
    assert _ledger(view)['Next: f1 (Cube)']['rule'] == 'Cube: see its backward()'
    verdict = view.guess([3.0, 12.0])                               # 3 x**2 times 1
    assert verdict.right and view.status['done']
    assert _ledger(view)['Just ran: f1 (Cube)']['rule'] == 'Cube: see its backward()'


def test_lesson_4_the_seed_is_read_off_the_view():
    # before backward, y's grad row holds the seed; Step sends seed times 2x to x
    ns, (view,) = _lesson_views('04_non_scalar_outputs', upto='seeded = GraphView(y)')
    cells = _cells(view)
    assert cells['y']['grad'] == '[1.0, 0.0, 10.0]' and cells['x']['grad'] == '\u2014'
    view.step()
    ledger = _ledger(view)['Just ran: f1 (_ ** 2)']
    assert ledger['grad in'] == 'y: [1.0, 0.0, 10.0]'
    assert ledger['x'].endswith('= [2.0, 0.0, 60.0]')
    assert ns['x'].grad.tolist() == [2.0, 0.0, 60.0]


def test_lesson_11_decay_through_time_is_read_off_the_view():
    ns, views = _lesson_views('12_cutting_the_graph', upto='through_time = GraphView')
    view = views[-1]
    view.run()
    # L = h4: each step back through time halves the gradient (w = 0.5)
    grads = [float(_cells(view)[f'h{t}']['grad']) for t in range(5)]
    assert grads == [0.0625, 0.125, 0.25, 0.5, 1.0]
    assert [float(h.grad) for h in ns['hs']] == grads


def test_lesson_A1_backward_stops_where_recording_stopped():
    ns, (view,) = _lesson_views('A1_no_backprop_mode', upto='cut_view = GraphView')
    assert view.status['total'] == 1                      # only y4 = y2 * 2 was recorded
    view.run()
    assert ns['x'].grad is None and ns['y2'].grad.tolist() == [2.0, 2.0]


def test_lesson_2_hand_computation_equals_the_engine(monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', True)  # every reference answer must pass
    ns = run_lesson('02_chain_rule_by_hand', upto='engine_grads = ')
    inputs, z, f = _engine_neuron()
    assert ns['f'] == pytest.approx(float(f.array))
    assert ns['z'] == pytest.approx(float(z.array))
    assert ns['g_z'] == pytest.approx(float(z.grad))
    assert ns['grads'] == pytest.approx({k: float(v.grad) for k, v in inputs.items()})
    assert ns['engine_grads'] == pytest.approx(ns['grads'])
    ns = run_lesson('02_chain_rule_by_hand', keep_views=True)
    assert ns['x'].grad is None   # 2.5's view opens before backward: the student steps it
    ns['gates_view'].run()
    assert ns['gate_grads'] == pytest.approx(
        {'x': float(ns['x'].grad), 'y': float(ns['y'].grad), 'z': float(ns['z'].grad)})
    for view in ns['_lesson_views']:
        view.close()


def test_lesson_2_predicts_in_the_view_on_inputs_not_solved_before():
    # exercise 2.4's graph is the neuron at other inputs: every grad it asks for differs
    # from the ones the student computed in 2.2 and 2.3
    asked = ('g_d', 'g_e', 'g_u', 'g_z', 'w0', 'x0', 'w1', 'x1', 'w2')
    solved = {round(HAND[k], 4) for k in asked}
    assert not solved & {round(HAND_VIEW[k], 4) for k in asked}
    view = _lesson_view('02_chain_rule_by_hand', 'view.predict = True', 'view')
    shown = _cells(view)
    for name, value in checks.NEURON_VIEW.items():
        assert float(shown[name]['data']) == value, name   # the values on the graph


def test_view_predictions_by_hand_are_the_engines_backward():
    # the view grades against the engine's own backward: all 8 steps right with the
    # values computed by hand, and the inputs then hold the hand-computed gradients
    view = _predicted_view()
    assert (view.score.right, view.score.wrong, view.score.skipped) == (8, 0, 0)
    assert view.status['done'] and view.status['total'] == checks.NEURON_STEPS


def test_view_predictions_unfinished_is_not_done_yet():
    fb = checks.ex02_view_predictions(_predicted_view('unfinished'))
    assert fb.status == 'todo' and '3 step(s) predicted' in fb.message
    view = _lesson_view('02_chain_rule_by_hand', 'view.predict = True', 'view')
    assert checks.ex02_view_predictions(view).status == 'todo'   # the untouched view
    _predicted_view(view=view)
    view.back()
    fb = checks.ex02_view_predictions(view)   # looking at the history after Back
    assert fb.status == 'todo' and 'Run to end' in fb.message


def test_view_predictions_reset_and_predict_again_after_a_partial_run():
    # Reset keeps the score (right answers stay right): a partial run, Reset, then all
    # eight steps predicted is a complete prediction
    view = _predicted_view('partial')
    rejected(checks.ex02_view_predictions(view), 'all 8 steps')
    view.reset()
    _predicted_view(view=view)
    accepted(checks.ex02_view_predictions(view))
    assert view.score.right == 8 + 3


def test_lesson_2_the_view_drove_the_engine_to_the_hand_values(monkeypatch):
    monkeypatch.setattr(checks, 'STRICT', True)  # the reference predictions must pass
    ns = run_lesson('02_chain_rule_by_hand', upto='named[name].grad')
    assert set(ns['named']) == {*checks.NEURON, 'a', 'b', 's', 'z', 'u', 'e', 'd', 'f'}
    for name in checks.NEURON_VIEW:
        assert float(ns['named'][name].grad) == pytest.approx(HAND_VIEW[name]), name


def test_lesson_1_float32_and_float64_central_differences():
    ns = run_lesson('01_variables_and_derivatives', upto='error in float64')
    steps = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7]
    e64 = [abs(ns['central'](ns['cube'], np.float64(2), np.float64(h)) - 12) for h in steps]
    e32 = [abs(ns['central'](ns['cube'], np.float32(2), np.float32(h)) - 12) for h in steps]
    # "float64: shrinks like h^2 down to about h = 1e-5"
    assert steps[int(np.argmin(e64))] == 1e-5 and min(e64) < 1e-9
    assert e64[1] == pytest.approx(1e-4, rel=1e-3)  # h^2 for x^3
    # "float32: rounding wins below 1e-2, never under about 1e-4"
    assert steps[int(np.argmin(e32))] == 1e-2 and 1e-5 < min(e32) < 1e-3


def test_lesson_11_rnn_learns_gradients_vanish_explode_and_clipping_saves_training():
    ns = run_lesson('12_cutting_the_graph')
    for k, (w, u, curve, _) in ns['results'].items():
        assert (w, u) == pytest.approx((0.7, 0.9), abs=2e-3), k      # the hidden weights
        assert curve[-1] < 1e-3 * ns['baseline']                     # far below "always 0"
    assert ns['results'][5][3] < 50                                   # "a few dozen"
    linear = ns['gradient_back_in_time']
    for w in (0.5, 1.5):
        g = linear(w, ns['no_squash'])
        assert g[10] / g[0] == pytest.approx(w**10)
    tanh = ns['gradient_back_in_time'](1.5, F.tanh)
    assert tanh.max() > 1 and tanh[-1] < tanh.max() / 100  # grows, then shrinks
    plain = ns['plain_losses']
    assert 150 < ns['plain_norms'][0] < 250                          # "a norm near 200"
    assert plain[1] > 1e100 and np.isinf(plain[2]) and np.isnan(plain[-1])
    assert (float(ns['clipped'].w.array), float(ns['clipped'].u.array)) == pytest.approx(
        (0.8, 0.5), abs=1e-3)
    # "the first update throws w from 1.1 to about -16"
    model = ns['LinearRNN'](1.1, 0.1)
    optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
    h, loss = Variable(np.array(0.0)), 0
    for x_t, y_t in zip(ns['xs'][:50], ns['linear_targets'][:50]):
        h = model.w * h + model.u * x_t
        loss += (h - y_t) ** 2
    (loss / 50).backward()
    optimizer.update()
    assert float(model.w.array) == pytest.approx(-16, abs=0.5)


def test_lesson_10_curves_and_the_learning_rate_ranking():
    ns = run_lesson('11_training', upto='hidden ReLUs that stay 0')
    assert ns['measured'] == checks.LR_RANKING
    assert ns['val_curve'][-1] > ns['train_curve'][-1]            # the gap
    assert ns['train_curve'][0] > ns['val_curve'][0]              # "lies above" at first
    assert ns['val_curve'][0] > 3 * ns['val_curve'][-1]           # both fall at first
    assert float(ns['accuracy'].array) > 0.95
    slow, good, big = (ns['runs'][lr][2] for lr in checks.LEARNING_RATES)
    assert slow[-1] > 1.5 and good[-1] < 0.3                      # crawls / learns
    assert big[-1] == pytest.approx(np.log(10), abs=0.1)          # "near ln 10"
    hidden = ns['hidden']
    assert (hidden.max(axis=0) == 0).sum() >= 0.8 * hidden.shape[1]  # "almost all"


def test_lesson_A3_float16_facts():
    tiny = float(np.finfo(np.float16).smallest_subnormal)
    assert tiny == pytest.approx(6e-8, rel=0.01)
    assert float(np.finfo(np.float16).tiny) == pytest.approx(6.1e-5, rel=0.01)
    assert np.float16(2.9e-8) == 0 and np.float16(3.0e-8) == tiny   # "about 3e-8"
    assert abs(float(np.float16(1e-6)) - 1e-6) / 1e-6 > 0.005      # "about two digits"
    ns = run_lesson('A3_mixed_precision', upto='true_grad = ')
    assert abs(float(ns['x'].grad[0])) >= float(np.finfo(np.float16).tiny)  # S = 8192: normal
    assert 1.025e-5 < float(np.finfo(np.float16).tiny)             # S = 1024: subnormal


def test_lesson_9_counts_equal_the_predicted_formula():
    ns = run_lesson('10_matrix_backward')
    m, depth = checks.COUNT['m'], checks.COUNT['D']
    assert ns['reverse_ops'] == depth * m * m
    assert ns['forward_ops'] == depth * m**3 + m * m
    assert np.allclose(ns['row'], ns['c'] @ ns['block'])
    assert np.abs(ns['mine'] - ns['library']).max() < 1e-12


# ---- the notebooks ---------------------------------------------------------------------

# every lesson of the main path (01_...) and of the appendix (A1_...); their order and
# numbering are tests/test_lesson_path.py's
NOTEBOOKS = sorted(LESSONS.glob('[0-9A][0-9]_*.ipynb'))
SOLUTIONS = sorted((LESSONS / 'solutions').glob('[0-9A][0-9]_*.ipynb'))


def test_every_lesson_with_its_solution():
    assert [p.name for p in SOLUTIONS] == [p.name for p in NOTEBOOKS]
    assert NOTEBOOKS[0].name == '01_variables_and_derivatives.ipynb'  # README and Binder


def test_notebooks_are_built_from_sources():
    built = build.notebooks()
    assert sorted(built) == sorted(NOTEBOOKS + SOLUTIONS)
    stale = [p.name for p, text in built.items() if p.read_text(encoding='utf-8') != text]
    assert not stale, f'run python lessons/build_notebooks.py: stale {stale}'


@pytest.mark.parametrize('path', NOTEBOOKS + SOLUTIONS,
                         ids=[f'{p.parent.name}/{p.name}' for p in NOTEBOOKS + SOLUTIONS])
def test_notebook_committed_without_outputs(path):
    nb = json.loads(path.read_text(encoding='utf-8'))
    for cell in nb['cells']:
        if cell['cell_type'] == 'code':
            assert cell['outputs'] == [] and cell['execution_count'] is None


@pytest.mark.parametrize('path', NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_exercises_carry_nbgrader_metadata(path):
    nb = json.loads(path.read_text(encoding='utf-8'))
    graded = [c['metadata']['nbgrader'] for c in nb['cells'] if 'nbgrader' in c['metadata']]
    solutions = [m for m in graded if m['solution']]
    tests = [m for m in graded if m['grade']]
    assert solutions and tests
    ids = [m['grade_id'] for m in graded]
    assert len(ids) == len(set(ids))
    for m in solutions:
        assert m == {'grade': False, 'grade_id': m['grade_id'], 'locked': False,
                     'schema_version': 3, 'solution': True, 'task': False}
    for m in tests:
        assert m['locked'] and not m['solution'] and m['points'] > 0
        assert m['grade_id'] in checks.ALL
        assert m['grade_id'].startswith(f'ex{path.name[:2]}_')  # the lesson's own checkers
    sources = ''.join(''.join(c['source']) for c in nb['cells'])
    assert 'BEGIN SOLUTION' not in sources  # learners get the placeholder only


def _predictions(path: Path) -> list[dict]:
    """The exercise cells of a lesson source that ask for a prediction."""
    return [cell for cell in build.parse(path.read_text(encoding='utf-8'), path.name)
            if cell['kind'] == 'exercise' and cell['grade_id'] in PREDICTIONS]


#: The exercises that ask for a prediction before the answer is on screen, per lesson.
PREDICTIONS = {
    'ex01_accumulate', 'ex02_forward', 'ex02_dz', 'ex02_input_grads', 'ex02_gates',
    'ex02_view_predictions', 'ex03_released', 'ex04_weighted', 'ex05_ranks',
    'ex05_accumulated', 'ex05_run_to', 'ex06_predict', 'ex06_engine_order', 'ex07_predict',
    'ex07_param_count', 'ex08_no_double',
    'ex09_slope', 'ex09_kink', 'ex10_shapes', 'ex10_count', 'ex10_mlp_shapes',
    'ex11_lr_ranking', 'ex12_predict', 'ex12_vanishing', 'ex12_clip_step', 'ex13_predict',
    'exA1_recorded',
    'exA2_param_count', 'exA3_zero_in_float16', 'exA4_stays_on_gpu',
}


@pytest.mark.parametrize('source', sorted((LESSONS / 'source').glob('[0-9A][0-9]_*.md')),
                         ids=lambda p: p.stem)
def test_every_lesson_has_a_graded_prediction_before_the_answer(source):
    predictions = _predictions(source)
    assert predictions, f'{source.name}: no predict-then-run exercise'
    for cell in predictions:
        # a prediction is worked out, not computed by the engine: the reference answer
        # runs no backward (the cell after the check does, and shows the answer)
        _, _, answer, _ = build._split_exercise(cell['lines'], cell['where'])
        code = '\n'.join(answer)
        assert '.backward(' not in code and 'chainer.grad(' not in code, cell['grade_id']


def test_lesson_one_uses_the_tutorial_example():
    text = (LESSONS / 'source' / '01_variables_and_derivatives.md').read_text(encoding='utf-8')
    assert 'x = Variable(np.array([5], dtype=np.float32))' in text
    assert 'y = x**2 - 2*x + 1' in text


@pytest.mark.parametrize(('lesson', 'check', 'answer_words'), [
    # 1.2: a second backward adds to x.grad
    ('01_variables_and_derivatives', 'checks.ex01_accumulate(', 'adds its result'),
    # 9.1: softsign's derivative
    ('09_custom_function_node', 'checks.ex09_slope(', '{(1 + |x|)^2}'),
    # 12.2: the truncated-BPTT loop (the demo's run() holds it, with the update)
    ('12_cutting_the_graph', 'checks.ex12_truncated(', 'def run(k'),
    # 13.3: the variance rules it asks for
    ('13_deep_nets', 'checks.ex13_init_std(', 'Var}(W) = 1/n_'),
])
def test_a_question_is_not_answered_above_it(lesson, check, answer_words):
    """The text that answers an exercise comes after its check cell, never before."""
    cells = json.loads((LESSONS / f'{lesson}.ipynb').read_text())['cells']
    sources = [''.join(cell['source']) for cell in cells]
    checked = next(i for i, s in enumerate(sources) if check in s)
    said = [i for i, s in enumerate(sources) if answer_words in s]
    assert said and min(said) > checked, (lesson, said, checked)


@pytest.mark.parametrize(('name', 'answer'), [
    ('ex12_clip_step', {1: 0.1, 5: 0.5}),                    # keys 1.0 and 5.0, as ints
    ('ex12_clip_step', {'1': 0.1, '5.0': 0.5}),              # ... and as text
    ('ex13_sigmoid_bound', {5.0: 0.25**5, '10': 0.25**10}),  # keys 5 and 10
    ('ex06_predict', {'0.5': 8.8776, -1: -3.4597}),          # keys 0.5 and -1.0
])
def test_dict_answers_compare_keys_by_value(name, answer):
    accepted(checks.ALL[name](answer))


def test_two_keys_meaning_one_are_refused():
    rejected(checks.ex12_clip_step({1: 0.1, '1.0': 0.1, 5: 0.5}), 'One entry per name')
