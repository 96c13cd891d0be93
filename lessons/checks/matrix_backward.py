"""Lesson 10, a matrix backward: shapes, linear, softmax cross entropy, counting."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from autograd_lab.functions import connection as library_linear
from autograd_lab.functions import loss as library_losses

from autograd_lab import Variable, backend

from .hand_backward import (
    _NOT_A_TUPLE, _gradient_checks, _is_node_class, _library_nodes, _watch_backward,
)
from .feedback import (
    _dict_answer,
    _checker,
    _as_array,
    _call,
    _check_array,
    _compare_named,
    _devices,
    _ok,
    _tried_where,
    _where,
    _wrong,
    Feedback,
)


#: The shapes of lesson 10: a batch of N rows, n_in features in, n_out out.
LINEAR_SHAPES = {'N': 4, 'n_in': 3, 'n_out': 2}


def _linear_shapes() -> dict[str, tuple[int, ...]]:
    n, n_in, n_out = LINEAR_SHAPES['N'], LINEAR_SHAPES['n_in'], LINEAR_SHAPES['n_out']
    return {'gx': (n, n_in), 'gW': (n_out, n_in), 'gb': (n_out,)}


def _shape_slip(name: str, got: tuple[int, ...], want: tuple[int, ...]) -> str:
    """What a wrong shape says about the mistake, without saying the right shape."""
    n, n_out = LINEAR_SHAPES['N'], LINEAR_SHAPES['n_out']
    of = {'gx': 'x', 'gW': 'W', 'gb': 'b'}[name]
    if got == want[::-1]:
        return f'{name} is transposed: it has the shape of {of} itself, read off the forward.'
    if got == (n, n_out):
        if name == 'gb':
            return ('b is one vector shared by every row of the batch: its gradient has the '
                    "shape of b, not gy's.")
        return f"That is the shape of gy; {name} has the shape of {of}."
    if len(got) != len(want):
        return f'{of} has {len(want)} axis(es): so has {name}.'
    return f'A gradient always has the shape of its variable: {name} has the shape of {of}.'


@_checker(answer=lambda: str(_linear_shapes()))
def ex10_shapes(shapes: Any) -> Feedback:
    """Predicted shapes of gx, gW, gb for y = x W^T + b, x (4, 3), W (2, 3), b (2,)."""
    exercise = 'ex10_shapes'
    want = _linear_shapes()
    shapes = _dict_answer(exercise, shapes, want,
                          todo="a dict {'gx': (..), 'gW': (..), 'gb': (..)}",
                          unfinished='every shape', hint='One shape (a tuple) per gradient.')
    try:
        got = {k: tuple(int(d) for d in (v if isinstance(v, Iterable) else (v,)))
               for k, v in shapes.items()}
    except (TypeError, ValueError):
        _wrong(exercise, 'each shape should be a tuple of numbers, like (5, 7).',
               'Write shapes as tuples: (k,) for a vector.')
    if got == want:
        return _ok(exercise, 'right: every gradient has the shape of what it is the gradient '
                   'of.')
    bad = [k for k in want if got[k] != want[k]]
    return _wrong(exercise, 'not right: ' + ', '.join(f'{k} = {got[k]}' for k in bad) + '.',
                  ' '.join(_shape_slip(k, got[k], want[k]) for k in bad))


def _linear_problem() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(1)
    n, n_in, n_out = LINEAR_SHAPES['N'], LINEAR_SHAPES['n_in'], LINEAR_SHAPES['n_out']
    x = rng.normal(size=(n, n_in))          # values of both signs
    w = rng.normal(size=(n_out, n_in))
    b = rng.normal(size=n_out)
    gy = rng.normal(size=(n, n_out))
    return x, w, b, gy


#: Why a backward must be built from Variables (the exercise says so), for the hint.
_DIFFERENTIABLE_LINEAR = (
    'Build each gradient from the grad_outputs Variable gy and the retained inputs, with '
    'F.matmul and F.sum: check_double_backward differentiates your backward, and one '
    'computed in NumPy on .array is a constant to the engine, with no gradient of its own.')


_GRAD_SHAPE_HINTS = [
    (ValueError, 'input 0 has shape', 'gx must have the shape of x, (N, n_in): which product '
     'of gy and W has that shape?'),
    (ValueError, 'input 1 has shape', 'gW must have the shape of W, (n_out, n_in): which '
     'product of gy and x, transposed how, has that shape?'),
    (ValueError, 'input 2 has shape', 'gb must have the shape of b, (n_out,), but gy has a row '
     'per example: each row adds its own share to b, so add the rows up.'),
]


@_checker(gpu=True, answer=lambda: (
                'gx = F.matmul(gy, W); gW = F.matmul(gy, x, transa=True); gb = '
                'F.sum(gy, axis=0); return gx, gW, gb'))
def ex10_linear(node_class: Any) -> Feedback:
    """LinearFunction: y = x W^T + b and its backward gx = gy W, gW = gy^T x, gb = sum gy."""
    exercise = 'ex10_linear'
    _is_node_class(exercise, node_class, 'LinearFunction')
    x_h, w_h, b_h, gy_h = _linear_problem()
    want = {'gx': gy_h @ w_h, 'gW': gy_h.T @ x_h, 'gb': gy_h.sum(axis=0)}
    for device in _devices():
        x, w, b, gy = (device.send(a) for a in (x_h, w_h, b_h, gy_h))

        def f(*args: Any) -> Any:
            y = node_class().apply(args)
            return y[0] if isinstance(y, tuple) else y

        result = _call(exercise, f, x, w, b, known=[_NOT_A_TUPLE])
        _watch_backward(exercise, node_class, (x, w, b), (gy,), (0, 1, 2),
                        answer_nodes=_library_nodes(library_linear),
                        building_blocks='F.matmul (transa/transb) and F.sum')
        _check_array(exercise, f'y {_where(device)}', result, x_h @ w_h.T + b_h,
                              'forward returns (x @ W.T + b,): W has shape (n_out, n_in).')

        def grads(x: Any = x, w: Any = w, b: Any = b, gy: Any = gy) -> dict[str, Any]:
            xv, wv, bv = Variable(x), Variable(w), Variable(b)
            y = f(xv, wv, bv)
            y.grad = gy
            y.backward()
            return {'gx': xv.grad, 'gW': wv.grad, 'gb': bv.grad}

        got = _call(exercise, grads, known=_GRAD_SHAPE_HINTS)
        mistakes = {
            'gx': [],
            'gW': [(np.ones_like(gy_h).T @ x_h, 'Multiply in gy: every gradient carries the '
                    'gradient arriving from above.')],
            'gb': [(gy_h.mean(axis=0), 'Sum over the batch, not the mean: every row adds its '
                    'own contribution to b.')],
        }
        for name, value in want.items():
            _check_array(exercise, f'{name} {_where(device)}', got[name], value,
                                  {'gx': 'gx: gy times the derivative of x W^T with '
                                   'respect to x; mind which side W goes on',
                                   'gW': 'gW: gy and x, combined so that the shape is that '
                                   'of W',
                                   'gb': 'gb: what every row of gy contributes to b'}[name]
                                  + '.',
                                  mistakes=mistakes[name])
        # check_double_backward too: a backward done in NumPy on .array passes
        # check_backward, but the engine cannot differentiate it again
        ggx = tuple(device.send(np.random.default_rng(9).normal(size=a.shape))
                    for a in (x_h, w_h, b_h))
        _gradient_checks(exercise, f, (x, w, b), gy, ggx, _DIFFERENTIABLE_LINEAR)
    return _ok(exercise, 'forward, the three gradients and check_backward are right, at '
               'negative and positive values' + _tried_where() + '.')


_MIXED = (TypeError, 'mixed', 'The one-hot must be on the same device as x: make it with '
          'xp = backend.get_array_module(...) (as in lesson 9\'s forward), not np.')

#: A size written into the code: the second problem has 7 classes and 5 rows.
_FIXED_SIZE = (IndexError, 'out of bounds', 'Something has a fixed size: the one-hot needs a '
               'column per class of x (x.shape[1]) and the mean a row per example '
               '(len(t)); the check tries a second size.')


def _softmax_problems() -> list[tuple[np.ndarray, np.ndarray]]:
    """Logits and labels at two sizes (4 rows of 3 classes, 5 rows of 7), so that a
    one-hot or a mean written for one size fails at the other."""
    rng = np.random.default_rng(2)
    return [(rng.normal(size=(4, 3)) * 2, np.array([0, 2, 1, 2], dtype=np.int32)),
            (rng.normal(size=(5, 7)) * 2, np.array([6, 0, 3, 3, 1], dtype=np.int32))]


@_checker(gpu=True, answer=lambda: (
                'onehot = xp.eye(x.shape[1], dtype=x.dtype)[t.array]; gx = '
                '(F.softmax(x) - onehot) * gloss / len(t); return gx, None'))
def ex10_softmax_ce(node_class: Any) -> Feedback:
    """SoftmaxCrossEntropy: the mean of -log softmax(x)[i, t[i]], and gx = (p - onehot) / N."""
    exercise = 'ex10_softmax_ce'
    _is_node_class(exercise, node_class, 'SoftmaxCrossEntropy')
    g_loss = 0.7  # not 1, so that a backward which ignores grad_outputs is caught
    for x_h, t_h in _softmax_problems():
        n = len(t_h)
        p_h = np.exp(x_h - x_h.max(axis=1, keepdims=True))
        p_h /= p_h.sum(axis=1, keepdims=True)
        onehot = np.eye(x_h.shape[1])[t_h]
        want_gx = g_loss * (p_h - onehot) / n
        size = f'{x_h.shape[0]}×{x_h.shape[1]} logits'
        for device in _devices():
            x, t = device.send(x_h), device.send(t_h)
            where = f'{_where(device)} ({size})'

            def loss_of(v: Any, t: Any = t) -> Any:
                y = node_class().apply((v, t))
                return y[0] if isinstance(y, tuple) else y

            result = _call(exercise, loss_of, x, known=[_NOT_A_TUPLE])
            _watch_backward(exercise, node_class, (x, t), (device.send(np.array(g_loss)),),
                            (0,), answer_nodes=_library_nodes(library_losses),
                            building_blocks='F.softmax, a one-hot made with xp, and arithmetic '
                            'on Variables', known=[_MIXED, _FIXED_SIZE])
            _check_array(exercise, f'loss {where}', result,
                         -np.log(p_h[np.arange(n), t_h]).mean(),
                         'loss = the mean over the batch of -log p[i, t[i]], with p = '
                         'softmax(x) row by row.')
            big = _call(exercise, loss_of, x + 1000)
            big_value = _as_array(big)
            if big_value is None or not np.all(np.isfinite(big_value)):
                return _wrong(exercise, f'with logits near 1000 the loss is {big_value}.',
                              'exp(1000) overflows: subtract the largest logit of each row '
                              'before exp (softmax does not change).')

            def gx_of(x: Any = x, loss_of: Any = loss_of) -> Any:
                xv = Variable(x)
                loss = loss_of(xv)
                loss.grad = backend.get_array_module(x).asarray(g_loss, dtype=x.dtype)
                loss.backward()
                return xv.grad

            got = _call(exercise, gx_of, known=[_MIXED, _FIXED_SIZE])
            _check_array(
                exercise, f'gx {where}', got, want_gx,
                'gx = (softmax(x) - onehot(t)) / N, times the incoming gradient gy.',
                mistakes=[(want_gx * n, 'The loss is a mean over the N rows: divide by N.'),
                          (-want_gx, 'The sign is p - onehot: raising the right class\'s '
                           'logit lowers the loss.'),
                          (want_gx / g_loss, 'Multiply by the incoming gradient gy '
                           '(grad_outputs): the loss may itself be used further on.')])
            _gradient_checks(exercise, loss_of, x, device.send(np.array(g_loss)), None,
                             'gx = (p - onehot) / N * gy, built from Variables.')
    return _ok(exercise, 'loss, gradient and check_backward are right' + _tried_where() + '.')


#: Lesson 10's operation count: D layers of m x m Jacobians and a scalar at the end.
COUNT = {'m': 100, 'D': 3}


@_checker
def ex10_count(counts: Any) -> Feedback:
    """Predicted multiply-adds for dL/dx through D m-by-m layers: reverse and forward mode."""
    m, depth = COUNT['m'], COUNT['D']
    reverse = depth * m * m               # D vector-matrix products, from the 1 x m row
    forward = depth * m * m * m + m * m   # m directions through D layers, then c^T times it
    return _compare_named(
        'ex10_count', counts, {'reverse': reverse, 'forward': forward},
        'Count each product with p*q*r for (p x q) @ (q x r), and add up every product each '
        'order makes.',
        mistakes=[({'reverse': forward, 'forward': reverse}, 'It is the other way round: '
                   'reverse mode starts from the single output, forward mode from each of '
                   'the m inputs.'),
                  ({'forward': reverse}, 'One forward-mode pass gives the derivative along '
                   'ONE input direction; the gradient needs m of them.'),
                  ({'reverse': depth * m**3}, 'Reverse mode starts from the 1 x m row dL/dh: '
                   'every product is a vector times a matrix, m*m multiply-adds, never a '
                   'matrix times a matrix.'),
                  ({'forward': depth * m**3}, 'A term is missing: after the D matrix '
                   'products, forward mode still multiplies c^T by the result.'),
                  ({'forward': depth * m**3 + m}, 'c^T (1 x m) times an m x m matrix costs '
                   '1*m*m multiply-adds, not m.'),
                  ({'reverse': (depth - 1) * m * m}, 'One vector-matrix product per layer: '
                   'D of them, the first one included.'),
                  ({'reverse': depth * m * m + m}, 'The row c^T is where reverse mode '
                   'starts: it costs nothing by itself.')],
        # counts are integers: exact (float64 holds these exactly)
        rtol=0, atol=0)
