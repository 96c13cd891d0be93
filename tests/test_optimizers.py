"""Optimizers, update rules, hyperparameters and optimizer hooks.

Spec sections 6.5 (loss_scale) and 16 (optimizers).  Every optimizer is run for
a few steps with known gradients and compared against its closed-form update
written out here in float64; the order of ``GradientMethod.update`` is checked
by recording what each stage sees.
"""

from __future__ import annotations

import math
import textwrap
import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.optimizer_hooks as H
import autograd_lab.optimizers as O
from autograd_lab.optimizer import Hyperparameter, UpdateRule
from build_tolerance import assert_same_across_builds
from chainer_ref import requires_chainer, run as run_chainer
from function_harness import run_here

P0 = np.array([0.5, -1.0, 2.0], np.float32)
GRADS = [np.array(g, np.float32) for g in ([0.1, -0.2, 0.3], [0.4, 0.0, -0.5], [-0.3, 0.2, 0.1])]


def one_param_link(value=P0, name='w'):
    link = chainer.Link()
    with link.init_scope():
        setattr(link, name, chainer.Parameter(np.array(value, copy=True)))
    return link


def run_steps(opt, grads=GRADS, value=P0):
    link = one_param_link(value)
    opt.setup(link)
    history = []
    for g in grads:
        link.w.grad = g.copy()
        opt.update()
        history.append(link.w.array.copy())
    return link, history


# ---- closed forms (float64) ----------------------------------------------------------------

def closed_form(step, state=0.0):
    """Runs ``step(p, g, t, state) -> (p, state)`` over GRADS (t = 1, 2, ...) from P0 in
    float64 and returns every step's parameter."""
    p, out = P0.astype(np.float64), []
    for t, g in enumerate(GRADS, start=1):
        p, state = step(p, g, t, state)
        out.append(p)
    return out


def ref_sgd(lr=0.01):
    return closed_form(lambda p, g, t, state: (p - lr * g, state))


def ref_momentum(lr=0.01, mu=0.9):
    def step(p, g, t, v):
        v = mu * v - lr * g
        return p + v, v
    return closed_form(step)


def ref_nesterov(lr=0.01, mu=0.9):
    def step(p, g, t, v):
        v = mu * v - lr * g
        return p + mu * mu * v - (1 + mu) * lr * g, v
    return closed_form(step)


def ref_adagrad(lr=0.001, eps=1e-8):
    def step(p, g, t, h):
        h = h + g * g
        return p - lr * g / (np.sqrt(h) + eps), h
    return closed_form(step)


def ref_rmsprop(lr=0.01, alpha=0.99, eps=1e-8, inside=False):
    def step(p, g, t, ms):
        ms = alpha * ms + (1 - alpha) * g * g
        denom = np.sqrt(ms + eps) if inside else np.sqrt(ms) + eps
        return p - lr * g / denom, ms
    return closed_form(step)


def ref_adam(alpha=0.001, b1=0.9, b2=0.999, eps=1e-8, eta=1.0, wd=0.0, amsgrad=False):
    def step(p, g, t, state):
        m, v, vhat = state
        m = m + (1 - b1) * (g - m)
        v = v + (1 - b2) * (g * g - v)
        vhat = np.maximum(vhat, v) if amsgrad else v
        alpha_t = alpha * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        return p - eta * (alpha_t * m / (np.sqrt(vhat) + eps) + wd * p), (m, v, vhat)
    return closed_form(step, (0.0, 0.0, 0.0))


CASES = [
    ('sgd', O.SGD, ref_sgd()),
    ('sgd lr', lambda: O.SGD(lr=0.3), ref_sgd(0.3)),
    ('momentum', O.MomentumSGD, ref_momentum()),
    ('momentum args', lambda: O.MomentumSGD(lr=0.2, momentum=0.5), ref_momentum(0.2, 0.5)),
    ('nesterov', lambda: O.NesterovAG(lr=0.1), ref_nesterov(0.1)),
    ('adagrad', lambda: O.AdaGrad(lr=0.1), ref_adagrad(0.1)),
    ('rmsprop', lambda: O.RMSprop(lr=0.05), ref_rmsprop(0.05)),
    ('rmsprop inside', lambda: O.RMSprop(lr=0.05, eps=1e-2, eps_inside_sqrt=True),
     ref_rmsprop(0.05, eps=1e-2, inside=True)),
    ('adam', lambda: O.Adam(alpha=0.05), ref_adam(0.05)),
    ('adam betas', lambda: O.Adam(alpha=0.1, beta1=0.5, beta2=0.7, eps=1e-3),
     ref_adam(0.1, 0.5, 0.7, 1e-3)),
    ('amsgrad', lambda: O.Adam(alpha=0.1, beta2=0.5, amsgrad=True),
     ref_adam(0.1, b2=0.5, amsgrad=True)),
    ('AMSGrad class', lambda: O.AMSGrad(alpha=0.1, beta2=0.5), ref_adam(0.1, b2=0.5, amsgrad=True)),
    ('adamw', lambda: O.Adam(alpha=0.1, eta=0.5, weight_decay_rate=0.1),
     ref_adam(0.1, eta=0.5, wd=0.1)),
    ('AdamW class', lambda: O.AdamW(alpha=0.1, eta=0.5, weight_decay_rate=0.1),
     ref_adam(0.1, eta=0.5, wd=0.1)),
]


@pytest.mark.parametrize('name, make, expected', CASES, ids=[c[0] for c in CASES])
def test_updates_follow_the_closed_form(name, make, expected):
    link, history = run_steps(make())
    for got, want in zip(history, expected):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    assert link.w.array.dtype == np.float32
    assert link.w.update_rule.t == 3


def test_defaults_are_chainers():
    assert O.SGD().lr == 0.01
    assert (O.MomentumSGD().lr, O.MomentumSGD().momentum) == (0.01, 0.9)
    assert (O.NesterovAG().lr, O.NesterovAG().momentum) == (0.01, 0.9)
    assert (O.AdaGrad().lr, O.AdaGrad().eps) == (0.001, 1e-8)
    rms = O.RMSprop()
    assert (rms.lr, rms.alpha, rms.eps, rms.eps_inside_sqrt) == (0.01, 0.99, 1e-8, False)
    adam = O.Adam()
    assert (adam.alpha, adam.beta1, adam.beta2, adam.eps, adam.eta, adam.weight_decay_rate,
            adam.amsgrad, adam.adabound, adam.final_lr, adam.gamma) == \
        (0.001, 0.9, 0.999, 1e-8, 1.0, 0, False, False, 0.1, 1e-3)


def test_state_entries():
    expected = {O.SGD: set(), O.MomentumSGD: {'v'}, O.NesterovAG: {'v'}, O.AdaGrad: {'h'},
                O.RMSprop: {'ms'}, O.Adam: {'m', 'v'}, O.AMSGrad: {'m', 'v', 'vhat'}}
    for cls, keys in expected.items():
        link, _ = run_steps(cls(), grads=GRADS[:1])
        assert set(link.w.update_rule.state) == keys, cls
        for value in link.w.update_rule.state.values():
            assert value.shape == P0.shape and value.dtype == np.float32


def test_adam_alpha_t_and_adabound():
    opt = O.Adam(alpha=0.01)
    with pytest.raises(RuntimeError):
        opt.alpha_t
    link, _ = run_steps(opt, grads=GRADS[:2])
    assert opt.t == 2
    assert opt.alpha_t == pytest.approx(0.01 * math.sqrt(1 - 0.999 ** 2) / (1 - 0.9 ** 2))
    assert link.w.update_rule.alpha_t == pytest.approx(opt.alpha_t)
    with pytest.warns(DeprecationWarning):
        assert opt.lr == pytest.approx(opt.alpha_t)
    bound = O.AdaBound(alpha=0.5, final_lr=0.1, gamma=0.1)
    link, history = run_steps(bound, grads=GRADS[:1])
    lower = 0.1 * (1 - 1 / (0.1 * 1 + 1))
    upper = 0.1 * (1 + 1 / (0.1 * 1))
    rule = link.w.update_rule
    assert rule.bounds == pytest.approx((lower, upper))
    g = GRADS[0].astype(np.float64)
    m, v = 0.1 * g, 0.001 * g * g
    alpha_t = 0.5 * math.sqrt(1 - 0.999) / (1 - 0.9)
    step = np.clip(alpha_t / (np.sqrt(v) + 1e-8), lower, upper)
    np.testing.assert_allclose(history[0], P0 - step * m, rtol=1e-6)
    assert O.AMSBound().amsgrad and O.AMSBound().adabound


def test_eps_too_small_for_float16_raises():
    link = one_param_link(np.ones(2, np.float16))
    O.RMSprop().setup(link)
    link.w.grad = np.ones(2, np.float16)
    with pytest.raises(ValueError, match='eps'):
        link.w.update()


def test_float16_adam_computes_in_float32():
    link, history = run_steps(O.Adam(alpha=0.1), value=P0.astype(np.float16),
                              grads=[g.astype(np.float16) for g in GRADS[:1]])
    assert link.w.dtype == np.float16
    g = GRADS[0].astype(np.float16).astype(np.float32)
    m, v = np.float32(0.1) * g, np.float32(0.001) * g * g
    alpha_t = 0.1 * math.sqrt(1 - 0.999) / (1 - 0.9)
    expected = P0.astype(np.float16) - (alpha_t * m / (np.sqrt(v) + 1e-8)).astype(np.float16)
    np.testing.assert_allclose(history[0], expected, rtol=2e-3)


def test_use_fp32_update_keeps_a_float32_master_copy():
    link = one_param_link(np.full(2, 1.0, np.float16))
    opt = O.SGD(lr=1e-4).setup(link)
    opt.use_fp32_update()
    for _ in range(10):
        link.w.grad = np.ones(2, np.float16)
        opt.update()
    # In float16, 1 - 1e-4 rounds back to 1; the float32 master accumulates the steps.
    master = link.w.update_rule._fp32_param
    np.testing.assert_allclose(master.array, 1 - 10e-4, rtol=1e-6)
    assert link.w.dtype == np.float16
    np.testing.assert_allclose(link.w.array, np.float16(1 - 10e-4))


# ---- hyperparameters -------------------------------------------------------------------------

def test_hyperparameter_inheritance_per_parameter():
    link = chainer.Link(a=(2,), b=(2,))
    for p in link.params():
        p.array[...] = 1.0
    opt = O.SGD(lr=0.1).setup(link)
    assert isinstance(link.a.update_rule, O.SGDRule)
    assert link.a.update_rule is not link.b.update_rule
    assert link.a.update_rule.hyperparam.parent is opt.hyperparam
    link.b.update_rule.hyperparam.lr = 0.5
    opt.lr = 0.2
    assert (link.a.update_rule.hyperparam.lr, link.b.update_rule.hyperparam.lr) == (0.2, 0.5)
    for p in link.params():
        p.grad = np.ones(2, np.float32)
    opt.update()
    np.testing.assert_allclose(link.a.array, [0.8, 0.8])
    np.testing.assert_allclose(link.b.array, [0.5, 0.5])
    assert opt.hyperparam.lr == 0.2 and O.SGD.lr.__get__(None, O.SGD) is O.SGD.lr


def test_hyperparameter_object():
    parent = Hyperparameter()
    parent.x = 1
    child = Hyperparameter(parent)
    child.y = 2
    assert (child.x, child.y, child.parent) == (1, 2, parent)
    assert child.get_dict() == {'x': 1, 'y': 2}
    assert repr(child) == 'Hyperparameter(x=1, y=2)'
    with pytest.raises(AttributeError):
        child.z
    rule = O.AdamRule()                           # standalone: falls back to the defaults
    assert rule.hyperparam.alpha == 0.001 and O.SGDRule(lr=0.7).hyperparam.lr == 0.7


def test_setup_replaces_rules_and_rejects_non_links():
    link = one_param_link()
    O.SGD().setup(link)
    assert isinstance(link.w.update_rule, O.SGDRule)
    opt = O.Adam()
    assert opt.setup(link) is opt
    assert isinstance(link.w.update_rule, O.AdamRule)
    with pytest.raises(TypeError):
        O.SGD().setup(object())


def test_disabled_rule_skips_the_update_and_does_not_count():
    link, _ = run_steps(O.SGD(lr=1.0), grads=GRADS[:1])
    link.w.update_rule.enabled = False
    before = link.w.array.copy()
    link.w.grad = np.ones(3, np.float32)
    link.w.update()
    np.testing.assert_array_equal(link.w.array, before)
    assert link.w.update_rule.t == 1


def test_update_with_none_grad_is_a_no_op_but_counts():
    link = one_param_link()
    opt = O.MomentumSGD().setup(link)
    link.w.cleargrad()
    link.w.update()
    np.testing.assert_array_equal(link.w.array, P0)
    assert link.w.grad is None and link.w.update_rule.t == 1
    assert set(link.w.update_rule.state) == {'v'}
    assert opt.t == 0


def test_uninitialized_parameters_are_skipped_after_cleargrads():
    link = chainer.Link(w=None)
    opt = O.SGD().setup(link)
    with pytest.raises(RuntimeError, match='cleargrad'):
        opt.update()            # as in Chainer: grad of an untouched uninitialized param
    link.cleargrads()
    opt.update()
    assert link.w.update_rule.t == 2 and link.w.array is None


def test_rule_without_update_core_raises():
    p = chainer.Parameter(P0.copy())
    p.grad = P0.copy()
    p.update_rule = UpdateRule()
    with pytest.raises(NotImplementedError):
        p.update()


# ---- GradientMethod.update order (spec 16) ---------------------------------------------------

def test_update_runs_loss_then_cleargrads_then_backward_then_hooks_then_rules():
    link = one_param_link()
    opt = O.SGD(lr=1.0).setup(link)
    link.w.grad = np.full(3, 100.0, np.float32)   # stale grad: cleared after lossfun runs
    log = []

    def lossfun(scale):
        log.append(('loss', link.w.grad.copy()))  # lossfun still sees the stale grad
        return F.sum(link.w * scale)

    def pre(o):
        log.append(('pre', o.t, link.w.grad.copy(), link.w.update_rule.t))

    def post(o):
        log.append(('post', o.t, link.w.array.copy()))

    pre.name, post.name = 'pre', 'post'
    opt.add_hook(pre)
    opt.add_hook(post, timing='post')
    opt.update(lossfun, 2.0)
    assert log[0][0] == 'loss' and (log[0][1] == 100).all()
    assert log[1][0] == 'pre' and log[1][1] == 0 and log[1][3] == 0
    np.testing.assert_array_equal(log[1][2], [2, 2, 2])     # fresh grad, not 102
    assert log[2][0] == 'post' and log[2][1] == 1
    np.testing.assert_allclose(log[2][2], P0 - 2.0)
    assert opt.t == 1 and link.w.update_rule.t == 1


def test_unreached_parameters_get_zero_grads_and_still_count():
    link = chainer.Link(a=(2,), b=(2,))
    for p in link.params():
        p.array[...] = 1.0
    opt = O.MomentumSGD(lr=0.1).setup(link)
    opt.update(lambda: F.sum(link.a))
    np.testing.assert_array_equal(link.b.grad, [0, 0])       # reallocated zeros
    np.testing.assert_array_equal(link.b.array, [1, 1])
    assert link.b.update_rule.t == 1 and set(link.b.update_rule.state) == {'v'}


def test_update_without_lossfun_uses_existing_grads():
    link = one_param_link()
    opt = O.SGD(lr=1.0).setup(link)
    link.w.grad = np.ones(3, np.float32)
    opt.update()
    np.testing.assert_allclose(link.w.array, P0 - 1)
    link.w.cleargrad()
    opt.update()                                   # None grad → zeros → no change
    np.testing.assert_allclose(link.w.array, P0 - 1)
    assert opt.t == 2


def test_new_epoch_and_use_cleargrads():
    opt = O.SGD().setup(one_param_link())
    opt.new_epoch()
    assert opt.epoch == 1
    with pytest.raises(RuntimeError):
        opt.new_epoch(auto=True)
    with pytest.warns(DeprecationWarning):
        opt.use_cleargrads(False)
    link = opt.target
    link.w.grad = np.full(3, 5.0, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        opt.update(lambda: F.sum(link.w))           # zerograds inside: no warning leaks
    np.testing.assert_array_equal(link.w.grad, [1, 1, 1])


# ---- loss scaling (spec 6.5) -------------------------------------------------------------------

def test_loss_scale_is_divided_out_in_place_before_the_update():
    link = one_param_link()
    opt = O.SGD(lr=1.0).setup(link)
    opt.set_loss_scale(8.0)
    seen = []

    def pre(o):
        seen.append((link.w.grad.copy(), link.w._loss_scale))

    pre.name = 'pre'
    opt.add_hook(pre)
    opt.update(lambda: F.sum(link.w * 3.0))
    np.testing.assert_array_equal(seen[0][0], [24, 24, 24])   # scaled during hooks
    assert seen[0][1] == 8.0
    np.testing.assert_array_equal(link.w.grad, [3, 3, 3])     # unscaled afterwards
    np.testing.assert_allclose(link.w.array, P0 - 3.0)


def test_preset_grad_is_not_scaled_but_still_divided():
    link = one_param_link()
    link.cleargrads()
    y = F.sum(link.w * 1.0)
    y.grad = np.array(1.0, np.float32)
    y.backward(loss_scale=4.0)                     # quirk Q3
    np.testing.assert_array_equal(link.w.grad, [1, 1, 1])
    O.SGD(lr=1.0).setup(link)
    link.w.update()
    np.testing.assert_allclose(link.w.grad, [0.25] * 3)
    np.testing.assert_allclose(link.w.array, P0 - 0.25)


def test_weight_decay_is_scaled_by_the_loss_scale():
    link = one_param_link()
    opt = O.SGD(lr=1.0).setup(link)
    opt.add_hook(H.WeightDecay(0.1))
    opt.set_loss_scale(16.0)
    opt.update(lambda: F.sum(link.w * 2.0))
    np.testing.assert_allclose(link.w.array, P0 - (2.0 + 0.1 * P0), rtol=1e-6)


def test_dynamic_loss_scaling():
    link = one_param_link()
    opt = O.SGD(lr=0.0).setup(link)
    opt.loss_scaling(interval=2)
    assert opt._loss_scale == 1.0
    opt.update(lambda: F.sum(link.w))
    assert opt._loss_scale == 2.0
    with pytest.warns(UserWarning, match='Non finite'), np.errstate(invalid='ignore'):
        opt.update(lambda: F.sum(link.w * np.float32(np.inf)))
    assert opt._loss_scale == 1.0 and opt.t == 2
    np.testing.assert_array_equal(link.w.array, P0)           # the NaN step was skipped
    with pytest.raises(ValueError):
        opt.loss_scaling(scale=-1)
    with pytest.raises(ValueError):
        opt.loss_scaling(interval=0)


# ---- hooks -----------------------------------------------------------------------------------

def test_weight_decay_and_lasso_hooks():
    for hook, extra in ((H.WeightDecay(0.1), 0.1 * P0), (H.Lasso(0.1), 0.1 * np.sign(P0))):
        link = one_param_link()
        opt = O.SGD(lr=1.0).setup(link)
        opt.add_hook(hook)
        opt.update(lambda link=link: F.sum(link.w))   # grad = ones, a read-only broadcast
        np.testing.assert_allclose(link.w.array, P0 - (1.0 + extra), rtol=1e-6)
        assert hook.call_for_each_param and hook.timing == 'pre'


def test_gradient_clipping():
    link = chainer.Link(a=(2,), b=(1,))
    opt = O.SGD(lr=1.0).setup(link)
    opt.add_hook(H.GradientClipping(1.0))
    link.a.array[...] = 0
    link.b.array[...] = 0
    link.a.grad = np.array([3.0, 0.0], np.float32)
    link.b.grad = np.array([4.0], np.float32)             # global norm 5
    opt.update()
    np.testing.assert_allclose(link.a.array, [-0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(link.b.array, [-0.8], rtol=1e-6)
    link.a.grad = np.array([0.3, 0.0], np.float32)
    link.b.grad = np.array([0.4], np.float32)             # norm 0.5: untouched
    opt.update()
    np.testing.assert_allclose(link.a.array, [-0.9, 0.0], rtol=1e-6)


def test_hook_registration_rules():
    with pytest.raises(RuntimeError, match='setup'):
        O.SGD().add_hook(H.WeightDecay(0.1))
    opt = O.SGD().setup(one_param_link())
    opt.add_hook(H.WeightDecay(0.1))
    with pytest.raises(KeyError):
        opt.add_hook(H.WeightDecay(0.2))
    opt.add_hook(H.WeightDecay(0.2), name='wd2', timing='post')
    assert list(opt._hookable.post) == ['wd2']
    opt.remove_hook('WeightDecay')
    opt.remove_hook('wd2')
    with pytest.raises(KeyError):
        opt.remove_hook('wd2')
    with pytest.raises(TypeError):
        opt.add_hook(42)
    with pytest.raises(ValueError):
        opt.add_hook(H.Lasso(0.1), timing='sometime')


def test_update_rule_hooks():
    link = one_param_link()
    O.SGD(lr=1.0).setup(link)
    calls = []
    link.w.update_rule.add_hook(H.WeightDecay(0.5))
    link.w.update_rule.add_hook(lambda rule, param: calls.append(param.array.copy()),
                                name='after', timing='post')
    link.w.grad = np.zeros(3, np.float32)
    link.w.update()
    np.testing.assert_allclose(link.w.array, P0 * 0.5)
    np.testing.assert_allclose(calls[0], P0 * 0.5)
    link.w.update_rule.remove_hook('after')
    link.w.update()
    assert len(calls) == 1


# ---- devices -----------------------------------------------------------------------------------

@pytest.mark.parametrize('make', [O.SGD, O.MomentumSGD, O.NesterovAG, O.AdaGrad, O.RMSprop,
                                  O.Adam, O.AMSGrad])
def test_updates_run_on_gpu_arrays(fake_gpu, make):
    link = one_param_link()
    link.to_device('@cupy:1')
    opt = make().setup(link)
    for g in GRADS:
        link.w.grad = fake_gpu.xp.asarray(g)
        opt.update()
    assert isinstance(link.w.array, fake_gpu.array_type) and link.w.array.device_id == 1
    for value in link.w.update_rule.state.values():
        assert isinstance(value, fake_gpu.array_type)
    _, cpu_history = run_steps(make())
    np.testing.assert_allclose(link.w.array.get(), cpu_history[-1], rtol=1e-6)


# ---- against Chainer 7.8.1 ---------------------------------------------------------------------

@requires_chainer
def test_trajectories_match_chainer():
    names = ['SGD(lr=0.1)', 'MomentumSGD(lr=0.1)', 'NesterovAG(lr=0.1)', 'AdaGrad(lr=0.1)',
             'RMSprop(lr=0.01)', 'RMSprop(lr=0.01, eps=0.01, eps_inside_sqrt=True)',
             'Adam(alpha=0.05)', 'Adam(alpha=0.05, amsgrad=True, beta2=0.5)',
             'Adam(alpha=0.05, eta=0.5, weight_decay_rate=0.1)',
             'AdaBound(alpha=0.05, final_lr=0.1, gamma=0.1)']
    code = f"""
    for i, name in enumerate({names!r}):
        link = chainer.Link()
        with link.init_scope():
            link.w = chainer.Parameter(np.array([0.5, -1.0, 2.0], np.float32))
            link.u = chainer.Parameter(np.array([[1.0, 2.0]], np.float32))
        opt = eval('O.' + name).setup(link)
        opt.add_hook(H.WeightDecay(0.01))
        opt.set_loss_scale(4.0)
        for step in range(4):
            opt.update(lambda: F.sum(F.tanh(link.w) * link.w) + F.sum(link.u * link.u * step))
        out[str(i) + 'w'] = link.w.array
        out[str(i) + 'u'] = link.u.array
        out[str(i) + 'g'] = link.w.grad
    """
    ref = run_chainer('import chainer.optimizer_hooks as H\n' + textwrap.dedent(code))
    got = run_here(code, O=O, H=H)   # the same program with chainer = autograd_lab
    # build_tolerance's rule: elementwise, 4 updates of 2 transcendental steps each (tanh
    # and its derivative; the optimizers' sqrt and divisions are correctly rounded).
    for i, name in enumerate(names):
        for part in 'wug':
            assert_same_across_builds(got[f'{i}{part}'], ref[f'{i}{part}'], steps=4 * 2,
                                      what=f'{name} {part}')


# ---- cache-blocked CPU updates ------------------------------------------------------------------

@pytest.mark.parametrize('make', [lambda: O.SGD(lr=0.1), lambda: O.MomentumSGD(lr=0.1),
                                  lambda: O.NesterovAG(lr=0.1), lambda: O.AdaGrad(lr=0.1),
                                  lambda: O.RMSprop(lr=0.1), lambda: O.Adam(alpha=0.1),
                                  lambda: O.Adam(alpha=0.1, amsgrad=True, weight_decay_rate=0.1)])
def test_large_parameters_update_blockwise_with_identical_results(make):
    # A C-contiguous weight larger than the block size takes the blocked path; the same
    # values held in Fortran order take the whole-array path.  Both must agree exactly.
    rng = np.random.RandomState(0)
    w0 = rng.randn(300, 301).astype(np.float32)
    grads = [rng.randn(300, 301).astype(np.float32) for _ in range(3)]
    results = []
    for order in ('C', 'F'):
        link = one_param_link(np.array(w0, order=order))
        opt = make().setup(link)
        rule = link.w.update_rule
        shapes = []
        step = rule._step
        rule._step = (lambda data, *rest, step=step, shapes=shapes:
                      shapes.append(data.shape) or step(data, *rest))
        for g in grads:
            link.w.grad = np.array(g, order=order)
            opt.update()
        assert link.w.array.flags[f'{order}_CONTIGUOUS']
        if order == 'C':   # blocked: several 1-D blocks per update, covering every element
            assert len(shapes) > 3 and all(len(shape) == 1 for shape in shapes)
            assert sum(shape[0] for shape in shapes) == 3 * w0.size
        else:              # whole array at once
            assert shapes == [w0.shape] * 3
        results.append(link.w.array)
    np.testing.assert_array_equal(results[0], results[1])
    assert not np.array_equal(results[0], w0)


def test_blocked_sgd_matches_the_closed_form_on_a_large_weight():
    rng = np.random.RandomState(1)
    w0 = rng.randn(512, 784).astype(np.float32)
    g = rng.randn(512, 784).astype(np.float32)
    link = one_param_link(w0)
    O.SGD(lr=0.01).setup(link)
    link.w.grad = g
    link.w.update()
    np.testing.assert_array_equal(link.w.array, w0 - np.float32(0.01) * g)
