"""AdaDelta, CorrectedMomentumSGD, MSVAG, RMSpropGraves, SMORMS3 (issue 18).

Each is checked against its formula stepped by hand in float64, on the blocked CPU path
(a large parameter) as well as the plain one, and its state serializes; the same updates
are compared with Chainer 7.8.1 in tests/test_differential_chainer.py.
"""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.optimizers as O
from autograd_lab import serializers

GRADS = [np.array([0.5, -1.0, 2.0, 0.0]), np.array([0.25, 0.5, -1.0, 0.0]),
         np.array([1.0, 1.0, 1.0, 0.0])]


def run(opt, grads, start=(1.0, 2.0, -1.0, 0.5), dtype=np.float64):
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(np.array(start, dtype))
    opt.setup(link)
    for g in grads:
        link.w.grad = np.asarray(g, dtype)
        opt.update()
    return link, link.w.array


def reference(name, hp, grads, start=(1.0, 2.0, -1.0, 0.5)):
    """The update rules written out step by step, independently of the engine's code."""
    p = np.array(start, np.float64)
    state = {}
    for t, g in enumerate(grads, start=1):
        if name == 'AdaDelta':
            rho, eps = hp['rho'], hp['eps']
            msg = state.get('msg', 0.0) * rho + (1 - rho) * g * g
            msdx = state.get('msdx', np.zeros_like(p))
            dx = np.sqrt((msdx + eps) / (msg + eps)) * g
            state['msg'], state['msdx'] = msg, msdx * rho + (1 - rho) * dx * dx
            p = p - dx
        elif name == 'CorrectedMomentumSGD':
            v = state.get('v', 0.0) * hp['momentum'] - g
            state['v'] = v
            p = p + hp['lr'] * v
        elif name == 'RMSpropGraves':
            a = hp['alpha']
            n = state.get('n', 0.0) * a + (1 - a) * g * g
            gm = state.get('g', 0.0) * a + (1 - a) * g
            delta = state.get('delta', 0.0) * hp['momentum'] - \
                hp['lr'] * g / np.sqrt(n - gm * gm + hp['eps'])
            state.update(n=n, g=gm, delta=delta)
            p = p + delta
        elif name == 'SMORMS3':
            mem = state.get('mem', np.ones_like(p))
            r = 1 / (mem + 1)
            gm = (1 - r) * state.get('g', 0.0) + r * g
            g2 = (1 - r) * state.get('g2', 0.0) + r * g * g
            x = gm * gm / (g2 + hp['eps'])
            p = p - g * np.minimum(x, hp['lr']) / (np.sqrt(g2) + hp['eps'])
            state.update(mem=1 + mem * (1 - x), g=gm, g2=g2)
        elif name == 'MSVAG':
            beta, power = hp['beta'], hp['beta'] ** t
            rho = min((1 - beta) ** 2 * (1 - power ** 2) /
                      ((1 - power) ** 2 * (1 - beta ** 2)), 0.9999)
            m = state.get('m', 0.0) + (1 - beta) * (g - state.get('m', 0.0))
            v = state.get('v', 0.0) + (1 - beta) * (g * g - state.get('v', 0.0))
            state.update(m=m, v=v)
            mt, vt = m / (1 - power), v / (1 - power)
            s = (vt - mt * mt) / (1 - rho)
            with np.errstate(invalid='ignore', divide='ignore'):
                factor = np.clip(mt * mt / (mt * mt + rho * s), 0, 1)
            factor = np.where(np.isnan(factor), 0, factor)
            p = p - hp['eta'] * (hp['lr'] * mt * factor + hp['weight_decay_rate'] * p)
    return p


CASES = [
    ('AdaDelta', {'rho': 0.95, 'eps': 1e-6}, {}),
    ('AdaDelta', {'rho': 0.5, 'eps': 1e-2}, {'rho': 0.5, 'eps': 1e-2}),
    ('CorrectedMomentumSGD', {'lr': 0.01, 'momentum': 0.9}, {}),
    ('CorrectedMomentumSGD', {'lr': 0.5, 'momentum': 0.25}, {'lr': 0.5, 'momentum': 0.25}),
    ('RMSpropGraves', {'lr': 1e-4, 'alpha': 0.95, 'momentum': 0.9, 'eps': 1e-4}, {}),
    ('RMSpropGraves', {'lr': 0.1, 'alpha': 0.5, 'momentum': 0.5, 'eps': 0.1},
     {'lr': 0.1, 'alpha': 0.5, 'momentum': 0.5, 'eps': 0.1}),
    ('SMORMS3', {'lr': 0.001, 'eps': 1e-16}, {}),
    ('SMORMS3', {'lr': 0.5, 'eps': 1e-8}, {'lr': 0.5, 'eps': 1e-8}),
    ('MSVAG', {'lr': 0.1, 'beta': 0.9, 'eta': 1.0, 'weight_decay_rate': 0}, {}),
    ('MSVAG', {'lr': 0.3, 'beta': 0.5, 'eta': 0.5, 'weight_decay_rate': 0.1},
     {'lr': 0.3, 'beta': 0.5, 'eta': 0.5, 'weight_decay_rate': 0.1}),
]


@pytest.mark.parametrize('name, hp, kwargs', CASES)
def test_defaults_and_hyperparameters(name, hp, kwargs):
    opt = getattr(O, name)(**kwargs)
    for key, value in hp.items():
        assert getattr(opt, key) == value
        assert getattr(opt.hyperparam, key) == value


@pytest.mark.parametrize('name, hp, kwargs', CASES)
def test_updates_follow_the_formula(name, hp, kwargs):
    _, p = run(getattr(O, name)(**kwargs), GRADS)
    np.testing.assert_allclose(p, reference(name, hp, GRADS), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize('name', ['AdaDelta', 'CorrectedMomentumSGD', 'MSVAG',
                                  'RMSpropGraves', 'SMORMS3'])
def test_large_parameters_take_the_blocked_path_with_the_same_result(name):
    rng = np.random.default_rng(1)
    start = rng.uniform(-1, 1, 70000)  # larger than two blocks: updated block by block
    grads = [rng.uniform(-1, 1, 70000) for _ in range(3)]
    _, p = run(getattr(O, name)(), grads, start=start)
    small = [run(getattr(O, name)(), [g[i:i + 7] for g in grads], start=start[i:i + 7])[1]
             for i in (0, 35000, 69993)]
    np.testing.assert_allclose(np.concatenate(small), p[[*range(0, 7), *range(35000, 35007),
                                                         *range(69993, 70000)]], rtol=1e-12)


@pytest.mark.parametrize('name', ['AdaDelta', 'CorrectedMomentumSGD', 'MSVAG',
                                  'RMSpropGraves', 'SMORMS3'])
def test_zero_dim_float32_parameters_and_missing_grads(name, dtype=np.float32):
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(np.array(1.5, dtype))
    opt = getattr(O, name)().setup(link)
    link.w.grad = np.array(0.5, dtype)
    opt.update()
    assert link.w.array.dtype == dtype and link.w.array.shape == ()
    assert np.isfinite(link.w.array) and link.w.array != 1.5
    before = link.w.array.copy()
    link.w.cleargrad()
    link.w.update()  # the rule alone, with no gradient: no change (opt.update() would
    assert link.w.array == before  # first zero-fill the gradient, as Chainer's does)


@pytest.mark.parametrize('name', ['AdaDelta', 'CorrectedMomentumSGD', 'MSVAG',
                                  'RMSpropGraves', 'SMORMS3'])
def test_state_serializes_and_training_resumes_identically(name):
    link, _ = run(getattr(O, name)(), GRADS[:2])
    opt = link.w.update_rule  # the rule's state after two updates
    buf = io.BytesIO()
    serializers.save_npz(buf, link)
    states = {k: v.copy() for k, v in opt.state.items()}
    opt_buf = io.BytesIO()
    optimizer = getattr(O, name)()
    optimizer.setup(link)
    link.w.update_rule = opt
    serializers.save_npz(opt_buf, optimizer)
    opt_buf.seek(0)
    restored = getattr(O, name)().setup(link)
    serializers.load_npz(opt_buf, restored)
    for key, value in states.items():
        np.testing.assert_array_equal(link.w.update_rule.state[key], value)
    copy = pickle.loads(pickle.dumps(optimizer))
    assert type(copy) is type(optimizer)


def test_msvag_beta_power_advances_once_per_update():
    link, _ = run(O.MSVAG(beta=0.5), GRADS)
    assert link.w.update_rule.beta_power == 0.5 ** 4
