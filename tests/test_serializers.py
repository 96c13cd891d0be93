"""save_npz / load_npz: models (parameters and persistent values) and optimizers (t, states).

Keys follow Chainer's layout ('l1/W', 'bn/avg_mean', 't', 'l1/W/m', ...), which
is also checked against files written by Chainer 7.8.1 itself.
"""

from __future__ import annotations

import io
import textwrap

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
import autograd_lab.optimizers as O
from autograd_lab import serializers
from build_tolerance import assert_same_across_builds
from chainer_ref import requires_chainer, run as run_chainer


# One definition for both engines: executed here, and sent as it is to Chainer 7.8.1 by the
# interoperability test, so the two models cannot drift apart.
NET_SOURCE = """
class Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, 5)
            self.bn = L.BatchNormalization(5)
            self.l2 = L.Linear(5, 3)

    def forward(self, x):
        return self.l2(F.relu(self.bn(self.l1(x))))
"""
_names = {'chainer': chainer, 'F': F, 'L': L}
exec(NET_SOURCE, _names)
Net = _names['Net']


X = np.random.RandomState(0).randn(6, 4).astype(np.float32)
T = np.array([0, 1, 2, 0, 1, 2], np.int32)


def trained(opt_factory=lambda: O.Adam(alpha=0.01), steps=3):
    np.random.seed(1)
    model = Net()
    opt = opt_factory().setup(model)
    for _ in range(steps):
        opt.update(lambda: F.softmax_cross_entropy(model(X), T))
    return model, opt


def roundtrip(obj, target, **load_kwargs):
    buf = io.BytesIO()
    serializers.save_npz(buf, obj)
    buf.seek(0)
    serializers.load_npz(buf, target, **load_kwargs)
    buf.seek(0)
    return buf


def test_model_keys_and_roundtrip_through_a_file(tmp_path):
    model, _ = trained()
    path = tmp_path / 'model.npz'
    serializers.save_npz(str(path), model)
    with np.load(path, allow_pickle=True) as f:
        assert sorted(f.files) == ['bn/N', 'bn/avg_mean', 'bn/avg_var', 'bn/beta', 'bn/gamma',
                                   'l1/W', 'l1/b', 'l2/W', 'l2/b']
        np.testing.assert_array_equal(f['l1/W'], model.l1.W.array)
        np.testing.assert_array_equal(f['bn/avg_var'], model.bn.avg_var)
    fresh = Net()                              # l1.W uninitialized: shape comes from the file
    serializers.load_npz(path, fresh)
    assert fresh.l1.W.shape == (5, 4)
    for (name, p), (_, q) in zip(model.namedparams(), fresh.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=name)
    np.testing.assert_array_equal(fresh.bn.avg_mean, model.bn.avg_mean)
    assert fresh.bn.N == model.bn.N == 0 and isinstance(fresh.bn.N, int)
    with chainer.using_config('train', False):
        np.testing.assert_array_equal(fresh(X).array, model(X).array)


def test_load_copies_in_place_into_existing_arrays():
    model, _ = trained()
    other = Net()
    other(X)
    W = other.l2.W.array
    avg = other.bn.avg_mean
    roundtrip(model, other)
    assert other.l2.W.array is W and other.bn.avg_mean is avg
    np.testing.assert_array_equal(W, model.l2.W.array)


def test_optimizer_state_roundtrip_continues_identically():
    model, opt = trained()
    buf_model = io.BytesIO()
    serializers.save_npz(buf_model, model)
    buf_opt = io.BytesIO()
    serializers.save_npz(buf_opt, opt, compression=False)
    buf_opt.seek(0)
    with np.load(buf_opt, allow_pickle=True) as f:
        keys = set(f.files)
    assert {'t', 'epoch', 'l1/W/t', 'l1/W/m', 'l1/W/v', 'bn/gamma/m'} <= keys
    buf_model.seek(0)
    buf_opt.seek(0)
    model2 = Net()
    serializers.load_npz(buf_model, model2)
    opt2 = O.Adam(alpha=0.01).setup(model2)
    serializers.load_npz(buf_opt, opt2)
    assert opt2.t == 3 and model2.l1.W.update_rule.t == 3
    np.testing.assert_array_equal(model2.l1.W.update_rule.state['v'],
                                  model.l1.W.update_rule.state['v'])
    for _ in range(2):
        for m, o in ((model, opt), (model2, opt2)):
            o.update(lambda m=m: F.softmax_cross_entropy(m(X), T))
    for (name, p), (_, q) in zip(model.namedparams(), model2.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=name)


def test_optimizer_without_state_yet_loads_none_state():
    model = Net()
    model(X)
    opt = O.MomentumSGD().setup(model)           # no update yet: states are None
    saved = serializers.serialize(opt)
    assert 'l1/W/v' not in saved and int(saved['l1/W/t']) == 0
    buf = io.BytesIO()
    serializers.save_npz(buf, opt)
    model2 = Net()
    model2(X)
    opt2 = O.MomentumSGD().setup(model2)
    buf.seek(0)
    with pytest.raises(KeyError):         # as in Chainer: strict loading wants the states
        serializers.load_npz(buf, opt2)
    model3 = Net()
    model3(X)
    opt3 = O.MomentumSGD().setup(model3)
    buf.seek(0)
    serializers.load_npz(buf, opt3, strict=False)
    assert model3.l1.W.update_rule.state is None and opt3.t == 0
    opt3.update(lambda: F.sum(model3(X)))  # the states are created on the first update
    assert set(model3.l1.W.update_rule.state) == {'v'}


def test_strict_ignore_names_and_path():
    model, _ = trained()
    target = Net()
    target(X)
    before = target.l2.b.array.copy()
    roundtrip(model, target, ignore_names=['l2/b', lambda key: key.startswith('bn/')])
    np.testing.assert_array_equal(target.l2.b.array, before)
    np.testing.assert_array_equal(target.l1.W.array, model.l1.W.array)
    partial = serializers.serialize(model)
    del partial['l2/W']
    buf = io.BytesIO()
    serializers.save_npz(buf, partial)
    buf.seek(0)
    with pytest.raises(KeyError):
        serializers.load_npz(buf, Net())
    buf.seek(0)
    loose = Net()
    loose(X)
    serializers.load_npz(buf, loose, strict=False)
    np.testing.assert_array_equal(loose.l1.W.array, model.l1.W.array)
    nested = chainer.Chain(model=Net())
    buf = io.BytesIO()
    serializers.save_npz(buf, nested)
    buf.seek(0)
    sub = Net()
    serializers.load_npz(buf, sub, path='model/')
    np.testing.assert_array_equal(sub.l2.W.array, nested.model.l2.W.array)


def test_none_values_and_scalar_type_safety():
    link = chainer.Link(w=None)
    link.add_persistent('nothing', None)
    link.add_persistent('count', 3)
    saved = serializers.serialize(link)
    assert saved['w'].dtype == object and saved['w'][()] is None
    other = chainer.Link(w=None)
    other.add_persistent('nothing', 1.5)
    other.add_persistent('count', 0)
    roundtrip(link, other)
    assert other.w.array is None and other.nothing is None and other.count == 3
    floaty = chainer.Link()
    floaty.add_persistent('count', 2.5)
    strict = chainer.Link()
    strict.add_persistent('count', 1)
    with pytest.raises(TypeError, match='safely'):
        roundtrip(floaty, strict)


def test_load_into_gpu_model(fake_gpu):
    model, _ = trained()
    target = Net()
    target(X)
    target.to_device('@cupy:0')
    roundtrip(model, target)
    assert isinstance(target.l1.W.array, fake_gpu.array_type)
    np.testing.assert_array_equal(target.l1.W.array.get(), model.l1.W.array)
    np.testing.assert_array_equal(target.bn.avg_var.get(), model.bn.avg_var)


# ---- interoperability with Chainer 7.8.1 ------------------------------------------------------

@requires_chainer
def test_files_are_interchangeable_with_chainer(tmp_path):
    ours = tmp_path / 'ours.npz'
    theirs = tmp_path / 'theirs.npz'
    model, opt = trained()
    serializers.save_npz(str(ours), model)
    serializers.save_npz(str(tmp_path / 'ours_opt.npz'), opt)
    code = NET_SOURCE + textwrap.dedent(f"""
    m = Net()
    chainer.serializers.load_npz({str(ours)!r}, m)
    opt = O.Adam(alpha=0.01).setup(m)
    chainer.serializers.load_npz({str(tmp_path / 'ours_opt.npz')!r}, opt)
    out['t'] = opt.t
    out['v'] = m.l1.W.update_rule.state['v']
    x = np.random.RandomState(0).randn(6, 4).astype(np.float32)
    with chainer.using_config('train', False):
        out['y'] = m(x).array
    m.l2.b.array[...] = 7.0
    m.bn.avg_mean[...] = 3.0
    chainer.serializers.save_npz({str(theirs)!r}, m)
    """)
    ref = run_chainer(code)
    assert int(ref['t']) == 3
    np.testing.assert_array_equal(ref['v'], model.l1.W.update_rule.state['v'])
    with chainer.using_config('train', False):
        # Two BLAS sums in a row (4 products in l1, 5 in l2) around batch normalization's
        # arithmetic (2 steps): build_tolerance's rule, relative to the largest output.
        assert_same_across_builds(model(X).array, ref['y'], kind='reduction', terms=4 + 5,
                                  steps=2, what='forward of the loaded model')
    serializers.load_npz(str(theirs), model)
    np.testing.assert_array_equal(model.l2.b.array, [7.0, 7.0, 7.0])
    np.testing.assert_array_equal(model.bn.avg_mean, np.full(5, 3.0))
