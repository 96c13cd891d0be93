"""Links: registration, hierarchy, gradients, copies, devices, and the standard links.

Spec section 16 (Link/Chain/L.Linear) plus Chainer 7.8.1's Chain, ChainList,
Sequential, Convolution2D, BatchNormalization, LayerNormalization, EmbedID and
Classifier.  Reference values come from closed forms computed with NumPy, or from
Chainer itself where marked.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L
from autograd_lab import backend, initializers
from autograd_lab.link import current_links
from build_tolerance import assert_same_across_builds
from chainer_ref import requires_chainer, run as run_chainer
from function_harness import run_here


def f32(a):
    return np.asarray(a, dtype=np.float32)


class Scale(chainer.Link):
    """y = x * w, with one registered and one unregistered Parameter."""

    def __init__(self, value=2.0):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(f32([value]))
        self.plain = chainer.Parameter(f32([0.0]))

    def forward(self, x):
        return x * self.w


class TwoLevel(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.b = Scale(3.0)
            self.a = Scale(2.0)
            self.own = chainer.Parameter(f32([1.0]))

    def forward(self, x):
        return self.b(self.a(x)) + self.own


# ---- registration ------------------------------------------------------------------------

def test_only_parameters_assigned_inside_init_scope_are_registered():
    link = Scale()
    assert [p for p in link.params()] == [link.w]
    assert link.w.name == 'w'
    assert link.plain.name is None
    assert not link.within_init_scope
    with link.init_scope():
        assert link.within_init_scope
        link.extra = chainer.Parameter(f32([5.0]))
        link.not_param = np.zeros(2)   # plain values are never registered
    assert [name for name, _ in link.namedparams()] == ['/extra', '/w']


def test_link_keyword_params_and_add_param():
    link = chainer.Link(x=(2, 3), y=None, z=((2,), np.float64))
    assert link.x.shape == (2, 3) and link.x.dtype == np.float32
    assert np.isnan(link.x.array).all() and np.isnan(link.x.grad).all()
    assert not link.y.is_initialized
    assert link.z.dtype == np.float64
    link.add_param('w', (2,), initializer=initializers.One())
    np.testing.assert_array_equal(link.w.array, [1, 1])
    link.add_param('u', 3, dtype=np.float16)
    assert link.u.dtype == np.float16
    with pytest.raises(AttributeError):
        link.add_param('w', (2,))
    assert [n for n, _ in link.namedparams()] == ['/u', '/w', '/x', '/y', '/z']
    assert [n for n, _ in link.namedparams(include_uninit=False)] == ['/u', '/w', '/x', '/z']
    assert len(list(link.params(include_uninit=False))) == 4


def test_persistent_values():
    link = chainer.Link()
    link.add_persistent('count', 3)
    with pytest.raises(AttributeError):
        link.add_persistent('count', 4)
    link.stats = np.zeros(2)
    link.register_persistent('stats')
    with pytest.raises(AttributeError):
        link.register_persistent('missing')
    assert link._persistent == {'count', 'stats'}
    del link.stats
    assert link._persistent == {'count'}


def test_deleting_a_param_unregisters_it():
    link = Scale()
    del link.w
    assert list(link.params()) == []


def test_forgetting_super_init_raises_on_call():
    class Broken(chainer.Link):
        def __init__(self):
            pass

        def forward(self):
            return 1

    with pytest.raises(RuntimeError, match='__init__'):
        Broken()()


def test_call_dispatches_to_forward_with_arguments():
    class Echo(chainer.Link):
        def forward(self, *args, **kwargs):
            return args, kwargs

    assert Echo()(1, 2, k=3) == ((1, 2), {'k': 3})
    with pytest.raises(AttributeError, match="'Link' object has no attribute 'forward'"):
        chainer.Link()(0)  # as Chainer 7.8.1 (issue 18, difference 15)


def test_call_uses_a_mixed_in_call_before_forward():
    class CallMixin:
        def __call__(self, *args, **kwargs):
            return 'mixin', args, kwargs

    class Injected(chainer.Link, CallMixin):
        def forward(self, *args):
            raise AssertionError('forward must not run')

    assert Injected()(1, a=2) == ('mixin', (1,), {'a': 2})


# ---- hierarchy ---------------------------------------------------------------------------

def test_chain_registers_children_and_names_paths():
    m = TwoLevel()
    assert [n for n, _ in m.namedparams()] == ['/own', '/a/w', '/b/w']
    assert list(m.params()) == [m.own, m.a.w, m.b.w]
    assert [n for n, _ in m.namedlinks()] == ['/', '/a', '/b']
    assert [n for n, _ in m.namedlinks(skipself=True)] == ['/a', '/b']
    assert list(m.links()) == [m, m.a, m.b]
    assert list(m.links(skipself=True)) == [m.a, m.b]
    assert list(m.children()) == [m.a, m.b]
    assert m['a'] is m.a
    assert (m.a.name, m.a.path, m.path, m.a.parent) == ('a', '/a', '/', m)
    np.testing.assert_array_equal(m(f32([1.0])).array, [7.0])


def test_chain_keyword_children_and_add_link_errors():
    a, b = Scale(), Scale()
    chain = chainer.Chain(first=a)
    chain.add_link('second', b)
    assert [n for n, _ in chain.namedlinks(skipself=True)] == ['/first', '/second']
    with pytest.raises(AttributeError):
        chain.add_link('first', Scale())
    with pytest.raises(TypeError):
        chain.add_link('third', object())
    with pytest.raises(AttributeError):
        with chain.init_scope():
            chain.second = Scale()
    chain.outside = Scale()       # outside init_scope: a plain attribute
    assert len(list(chain.children())) == 2
    del chain.second
    assert [n for n, _ in chain.namedlinks(skipself=True)] == ['/first']


def test_nested_paths_and_current_links():
    seen = []

    class Probe(chainer.Link):
        def forward(self, x):
            seen.append([(link.path, type(link).__name__) for link in current_links()])
            return x

    class Inner(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.probe = Probe()

        def forward(self, x):
            return self.probe(x)

    outer = chainer.Chain(inner=Inner())
    assert outer.inner.probe.path == '/inner/probe'
    outer.inner(1)
    assert seen[-1] == [('/inner', 'Inner'), ('/inner/probe', 'Probe')]
    assert current_links() == ()

    class Failing(chainer.Link):
        def forward(self):
            raise KeyError('boom')

    with pytest.raises(KeyError):
        Failing()()
    assert current_links() == ()   # the scope is popped on errors too


def test_function_hooks_can_tag_nodes_with_the_calling_link():
    class Tagger(chainer.FunctionHook):
        name = 'Tagger'

        def __init__(self):
            self.tags = []

        def forward_preprocess(self, function, in_data):
            links = current_links()
            self.tags.append((function.label, links[-1].path if links else None))

    from tiny_models import MLP

    model = MLP()
    tagger = Tagger()
    with tagger:
        y = model(f32(np.ones((1, 3))))
        F.sum(y)
    assert tagger.tags == [('LinearFunction', '/l1'), ('ReLU', '/'), ('LinearFunction', '/l2'),
                           ('Sum', None)]


def test_chainlist():
    layers = chainer.ChainList(Scale(1.0), Scale(2.0))
    layers.append(Scale(3.0))
    assert len(layers) == 3
    assert [n for n, _ in layers.namedparams()] == ['/0/w', '/1/w', '/2/w']
    assert [c.name for c in layers] == ['0', '1', '2']
    assert layers[2].path == '/2'
    layers.insert(0, Scale(4.0))
    assert [float(c.w.array[0]) for c in layers] == [4.0, 1.0, 2.0, 3.0]
    assert [c.name for c in layers] == ['0', '1', '2', '3']
    del layers[1]
    assert [float(c.w.array[0]) for c in layers] == [4.0, 2.0, 3.0]
    assert [c.name for c in layers] == ['0', '1', '2']
    with pytest.raises(TypeError):
        with layers.init_scope():
            layers.child = Scale()
    x = f32([1.0])
    y = x
    for child in layers:
        y = child(y)
    np.testing.assert_array_equal(y.array, [24.0])


def test_sequential_calls_links_and_functions_in_order():
    seq = chainer.Sequential(Scale(2.0), lambda v: v + 1, Scale(3.0))
    np.testing.assert_array_equal(seq(f32([1.0])).array, [9.0])
    assert len(seq) == 3
    assert [n for n, _ in seq.namedparams()] == ['/0/w', '/1/w']
    assert [n for n, _ in seq.namedlinks(skipself=True)] == ['/0', '/1']
    split = chainer.Sequential(lambda v: (v, v * 2), lambda a, b: a + b)
    np.testing.assert_array_equal(split(chainer.Variable(f32([1.0]))).array, [3.0])
    with pytest.raises(RuntimeError):
        chainer.Sequential()(f32([1.0]))
    with pytest.raises(ValueError):
        seq.append(3)
    both = seq + chainer.Sequential(Scale(5.0))
    assert len(both) == 4 and [n for n, _ in both.namedlinks(skipself=True)] == \
        ['/0', '/1', '/2']
    first = seq[0]
    seq.remove(first)
    assert len(seq) == 2 and seq[1].name == '0'
    popped = seq.pop()
    assert isinstance(popped, Scale) and len(seq) == 1
    nested = chainer.Sequential(chainer.Sequential(Scale(), Scale()), Scale())
    assert len(nested.flatten()) == 3


def test_repeat_and_copy_modes():
    base = Scale(2.0)
    shared = base.copy('share')
    assert shared.w is not base.w and shared.w.array is base.w.array
    assert shared.w.grad is None
    deep = base.copy('copy')
    assert deep.w.array is not base.w.array
    np.testing.assert_array_equal(deep.w.array, base.w.array)
    lin = L.Linear(3, 4)
    re_init = lin.copy('init')
    assert not np.array_equal(re_init.W.array, lin.W.array)
    with pytest.raises(ValueError):
        base.copy('bogus')
    rep = base.repeat(3, mode='share')
    assert len(rep) == 3 and all(layer.w.array is base.w.array for layer in rep)
    assert len(base.repeat(0)) == 0
    chain = TwoLevel()
    clone = chain.copy('copy')
    assert clone.a.parent is clone and clone.a.path == '/a'
    assert chain.a.parent is chain
    assert clone.name is None and clone.parent is None


def test_pickle_and_deepcopy_keep_the_hierarchy():
    chain = chainer.Chain(inner=TwoLevel())
    for clone in (pickle.loads(pickle.dumps(chain)), copy.deepcopy(chain)):
        assert clone.inner.a.path == '/inner/a'
        assert clone.inner.a.parent is clone.inner
        np.testing.assert_array_equal(clone.inner.a.w.array, chain.inner.a.w.array)
        np.testing.assert_array_equal(clone.inner(f32([1.0])).array, [7.0])


# ---- gradients -----------------------------------------------------------------------------

def test_cleargrads_zerograds_and_count_params():
    m = TwoLevel()
    y = m(f32([1.0]))
    m.cleargrads()
    assert all(p.grad is None for p in m.params())
    F.sum(y).backward()
    m.cleargrads()
    F.sum(m(f32([1.0]))).backward()
    np.testing.assert_array_equal(m.a.w.grad, [3.0])
    np.testing.assert_array_equal(m.b.w.grad, [2.0])
    m.cleargrads()
    with pytest.warns(DeprecationWarning, match='Link.zerograds is deprecated'):
        m.zerograds()
    assert all((p.grad == 0).all() for p in m.params())
    F.sum(m(f32([1.0]))).backward()          # zerograds + backward accumulates into zeros
    np.testing.assert_array_equal(m.a.w.grad, [3.0])
    assert m.count_params() == 3
    lazy = L.Linear(None, 4)
    with pytest.warns(UserWarning, match="'/W' has not been initialized"):
        assert lazy.count_params() == 4


def test_copyparams_copies_arrays_and_persistents_but_not_grads():
    src, dst = TwoLevel(), TwoLevel()
    src.a.w.array[...] = 10.0
    src.a.w.grad = f32([1.0])
    dst.a.w.grad = f32([5.0])
    src.add_persistent('stat', np.array([1.0, 2.0]))
    dst.add_persistent('stat', np.zeros(2))
    src.add_persistent('meta', {'k': [1]})
    dst.add_persistent('meta', None)
    stat_before = dst.stat
    dst.copyparams(src)
    np.testing.assert_array_equal(dst.a.w.array, [10.0])
    np.testing.assert_array_equal(dst.a.w.grad, [5.0])
    assert dst.stat is stat_before and dst.stat.tolist() == [1.0, 2.0]
    assert dst.meta == {'k': [1]} and dst.meta is not src.meta
    dst.stat[...] = 0
    dst.copyparams(src, copy_persistent=False)
    assert dst.stat.tolist() == [0.0, 0.0]


def test_addgrads():
    a, b = TwoLevel(), TwoLevel()
    for p in a.params():
        p.grad = np.ones_like(p.array)
    for p in b.params():
        p.grad = np.full_like(p.array, 2.0)
    a.addgrads(b)
    assert all((p.grad == 3).all() for p in a.params())


def test_enable_disable_update():
    m = TwoLevel()
    assert not m.update_enabled          # no rules yet
    chainer.optimizers.SGD().setup(m)
    assert m.update_enabled
    m.a.disable_update()
    assert not m.a.w.update_rule.enabled and m.b.w.update_rule.enabled
    m.disable_update()
    assert not m.update_enabled
    m.enable_update()
    assert all(p.update_rule.enabled for p in m.params())


# ---- devices ---------------------------------------------------------------------------------

def test_to_device_moves_params_grads_and_persistents(fake_gpu):
    m = chainer.Chain(inner=TwoLevel())
    m.inner.add_persistent('stat', np.zeros(2, np.float32))
    m.inner.add_persistent('count', 1)
    m.inner.a.w.grad = f32([1.0])
    assert m.to_device('@cupy:1') is m
    for link in m.links():
        assert str(link.device) == '@cupy:1'
    for p in m.params():
        assert isinstance(p.array, fake_gpu.array_type) and p.array.device_id == 1
    assert isinstance(m.inner.a.w.grad, fake_gpu.array_type)
    assert isinstance(m.inner.stat, fake_gpu.array_type)
    assert m.inner.count == 1
    assert m.xp is fake_gpu.xp
    with pytest.warns(DeprecationWarning, match='to_cpu is deprecated'):
        assert m.to_cpu() is m
    assert type(m.inner.a.w.array) is np.ndarray and type(m.inner.stat) is np.ndarray
    assert m.xp is np and m.device == backend.CPU
    with pytest.warns(DeprecationWarning, match='to_gpu is deprecated'):
        lazy = L.Linear(None, 2).to_gpu(0)
    y = lazy(fake_gpu.xp.asarray(np.ones((3, 4), np.float32)))
    assert isinstance(lazy.W.array, fake_gpu.array_type) and lazy.W.shape == (2, 4)
    assert isinstance(y.array, fake_gpu.array_type)


def test_to_gpu_without_a_gpu_raises(no_gpu):
    with pytest.raises(RuntimeError, match='CUDA'):
        TwoLevel().to_gpu()
    with pytest.raises(RuntimeError):
        TwoLevel().to_intel64()


# ---- L.Linear ------------------------------------------------------------------------------

def test_linear_shapes_defaults_and_forward():
    np.random.seed(0)
    layer = L.Linear(784, 512)
    assert layer.W.shape == (512, 784) and layer.W.dtype == np.float32
    assert abs(float(layer.W.array.std()) - (1 / 784) ** 0.5) < 0.02 * (1 / 784) ** 0.5
    assert layer.b.name == 'b' and layer.W.name == 'W'
    np.testing.assert_array_equal(layer.b.array, np.zeros(512))
    assert np.isnan(layer.W.grad).all()          # Parameters start with NaN grads
    x = np.random.rand(3, 784).astype(np.float32)
    y = layer(x)
    assert y.creator.label == 'LinearFunction'
    np.testing.assert_allclose(y.array, x @ layer.W.array.T + layer.b.array, rtol=1e-5,
                               atol=1e-6)


def test_linear_deferred_input_size_and_single_argument_form():
    layer = L.Linear(3)
    assert (layer.in_size, layer.out_size) == (None, 3)
    assert not layer.W.is_initialized and layer.b.shape == (3,)
    y = layer(np.ones((2, 4, 5), np.float32))   # flattened: in_size = 20
    assert layer.W.shape == (3, 20) and y.shape == (2, 3)
    nb = L.Linear(None, 2, nobias=True)
    assert nb.b is None and [n for n, _ in nb.namedparams()] == ['/W']
    nb2 = L.Linear(4)
    y = nb2(np.ones((2, 3, 4), np.float32), n_batch_axes=2)
    assert nb2.W.shape == (4, 4) and y.shape == (2, 3, 4)


def test_linear_initializers_gradients_and_from_params():
    layer = L.Linear(2, 2, initialW=np.array([[1., 2.], [3., 4.]], np.float32),
                     initial_bias=initializers.Constant(0.5))
    x = chainer.Variable(f32([[1., 1.]]))
    layer.cleargrads()
    F.sum(layer(x)).backward()
    np.testing.assert_array_equal(layer.W.grad, [[1., 1.], [1., 1.]])
    np.testing.assert_array_equal(layer.b.grad, [1., 1.])
    np.testing.assert_array_equal(x.grad, [[4., 6.]])
    clone = L.Linear.from_params(layer.W, layer.b)
    np.testing.assert_array_equal(clone.W.array, layer.W.array)
    assert clone.W.array is not layer.W.array
    with pytest.raises(ValueError):
        L.Linear.from_params(np.zeros((2, 3)), np.zeros(4))
    assert str(layer) == 'Linear(in_size=2, out_size=2, nobias=False)'
    assert str(chainer.Chain(fc=layer)) == \
        'Chain(\n  (fc): Linear(in_size=2, out_size=2, nobias=False),\n)'


def test_linear_without_cleargrads_gets_nan_grads():
    layer = L.Linear(2, 1)
    F.sum(layer(f32([[1., 2.]]))).backward()
    assert np.isnan(layer.W.grad).all()


# ---- L.Convolution2D -------------------------------------------------------------------------

def naive_conv(x, W, b, stride, pad):
    n, _, h, w = x.shape
    o, _, kh, kw = W.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w + 2 * pad - kw) // stride + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.tensordot(patch, W, axes=([1, 2, 3], [1, 2, 3]))
    return y + b[None, :, None, None]


def test_convolution_2d_forward_and_shapes():
    np.random.seed(1)
    conv = L.Convolution2D(3, 4, 3, stride=2, pad=1, initial_bias=0.25)
    assert conv.W.shape == (4, 3, 3, 3) and conv.b.shape == (4,)
    assert abs(float(conv.W.array.std()) - (1 / 27) ** 0.5) < 0.5 * (1 / 27) ** 0.5
    x = np.random.randn(2, 3, 7, 7).astype(np.float32)
    y = conv(x)
    assert y.shape == (2, 4, 4, 4)
    np.testing.assert_allclose(y.array, naive_conv(x, conv.W.array, conv.b.array, 2, 1),
                               rtol=1e-4, atol=1e-5)
    conv.cleargrads()
    F.sum(y).backward()
    np.testing.assert_allclose(conv.b.grad, np.full(4, 32.0))


def test_convolution_2d_deferred_channels_and_keywords():
    conv = L.Convolution2D(5, 3)                 # (out_channels, ksize)
    assert conv.out_channels == 5 and conv.ksize == 3 and not conv.W.is_initialized
    conv(np.zeros((1, 2, 6, 6), np.float32))
    assert conv.W.shape == (5, 2, 3, 3)
    grouped = L.Convolution2D(4, 6, 1, groups=2, nobias=True)
    assert grouped.W.shape == (6, 2, 1, 1) and grouped.b is None
    with pytest.raises(ValueError):
        L.Convolution2D(3, 5, 1, groups=2)
    with pytest.raises(ValueError):
        L.Convolution2D(3, 4, 3, deterministic=True)
    with pytest.raises(TypeError):
        L.Convolution2D(3, 4, 3, bogus=1)
    assert 'Convolution2D(in_channels=5' not in str(conv)
    assert str(L.Convolution2D(3, 4, 3)) == (
        'Convolution2D(in_channels=3, out_channels=4, ksize=3, stride=(1, 1), pad=(0, 0), '
        'nobias=False, dilate=(1, 1), groups=1)')


# ---- normalization -----------------------------------------------------------------------------

def test_batch_normalization_train_and_test_modes():
    bn = L.BatchNormalization(3, decay=0.8)
    assert bn.gamma.dtype == np.float32 and bn.avg_mean.dtype == np.float32
    assert bn._persistent == {'N', 'avg_mean', 'avg_var'}
    assert [n for n, _ in bn.namedparams()] == ['/beta', '/gamma']
    rng = np.random.RandomState(0)
    x = rng.randn(5, 3).astype(np.float32) * 3 + 1
    y = bn(x)
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(y.array, (x - mean) / np.sqrt(var + 2e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.avg_mean, 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.avg_var, 0.8 + 0.2 * var * 5 / 4, rtol=1e-5)
    bn.gamma.array[...] = 2.0
    bn.beta.array[...] = 1.0
    with chainer.using_config('train', False):
        y = bn(x)
    expected = 2.0 * (x - bn.avg_mean) / np.sqrt(bn.avg_var + 2e-5) + 1.0
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.avg_mean, 0.2 * mean, rtol=1e-5)   # unchanged in test mode


def test_batch_normalization_conv_axes_finetune_and_errors():
    bn = L.BatchNormalization(2)
    x = np.random.RandomState(1).randn(4, 2, 3, 3).astype(np.float32)
    y = bn(x)
    m = x.mean(axis=(0, 2, 3))
    v = x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y.array, (x - m[:, None, None]) / np.sqrt(v[:, None, None] + 2e-5),
                               rtol=1e-4, atol=1e-4)
    ft = L.BatchNormalization(2)
    xs = [np.random.RandomState(s).randn(4, 2).astype(np.float32) for s in range(3)]
    for xi in xs:
        ft(xi, finetune=True)
    assert ft.N == 3
    np.testing.assert_allclose(ft.avg_mean, np.mean([xi.mean(0) for xi in xs], axis=0),
                               rtol=1e-5)
    ft.start_finetuning()
    assert ft.N == 0
    lazy = L.BatchNormalization(axis=0)
    lazy(np.ones((4, 5), np.float32))
    assert lazy.avg_mean.shape == (5,) and lazy.gamma.shape == (5,)
    with pytest.raises(RuntimeError):
        L.BatchNormalization()
    with pytest.raises(ValueError):
        bn(x, test=True)
    nog = L.BatchNormalization(2, use_gamma=False, use_beta=False)
    assert nog.gamma is None and list(nog.params()) == []
    np.testing.assert_allclose(nog(x).array, y.array, rtol=1e-5, atol=1e-6)
    with chainer.using_config('dtype', np.float64):
        assert L.BatchNormalization(2).gamma.dtype == np.float64
    assert L.BatchNormalization(2, dtype=np.float16).avg_var.dtype == np.float16


def test_layer_normalization():
    ln = L.LayerNormalization()
    x = np.random.RandomState(2).randn(3, 4).astype(np.float32)
    y = ln(x)
    assert ln.gamma.shape == (4,) and ln.beta.shape == (4,)
    expected = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    ln2 = L.LayerNormalization(4, initial_gamma=2.0, initial_beta=1.0)
    np.testing.assert_allclose(ln2(x).array, 2 * expected + 1, rtol=1e-4, atol=1e-5)


# ---- EmbedID and Classifier --------------------------------------------------------------------

def test_embed_id():
    np.random.seed(3)
    emb = L.EmbedID(1000, 50)
    assert emb.W.shape == (1000, 50)
    assert abs(float(emb.W.array.std()) - 1.0) < 0.02       # Normal(1.0)
    ids = np.array([[1, 2], [2, 999]], np.int32)
    y = emb(ids)
    np.testing.assert_array_equal(y.array, emb.W.array[ids])
    emb.cleargrads()
    F.sum(y).backward()
    assert emb.W.grad[2].tolist() == [2.0] * 50 and emb.W.grad[0].tolist() == [0.0] * 50
    ign = L.EmbedID(3, 2, initialW=np.ones((3, 2), np.float32), ignore_label=-1)
    np.testing.assert_array_equal(ign(np.array([0, -1], np.int32)).array, [[1, 1], [0, 0]])


def test_classifier_reports_loss_and_accuracy():
    pred = L.Linear(2, 3, initialW=np.array([[1, 0], [0, 1], [0, 0]], np.float32))
    clf = L.Classifier(pred)
    x = f32([[5, 0], [0, 5], [5, 0]])
    t = np.array([0, 1, 2], np.int32)
    loss = clf(x, t)
    assert clf.loss is loss and clf.y.shape == (3, 3)
    logits = x @ pred.W.array.T
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    np.testing.assert_allclose(float(loss.array), -logp[np.arange(3), t].mean(), rtol=1e-5)
    np.testing.assert_allclose(float(clf.accuracy.array), 2 / 3, rtol=1e-6)
    assert [n for n, _ in clf.namedparams()] == ['/predictor/W', '/predictor/b']
    assert clf.predictor.path == '/predictor'

    clf.compute_accuracy = False
    clf(x, t)
    assert clf.accuracy is None

    calls = []

    def lossfun(y, label):
        calls.append(label)
        return F.sum(y)

    by_key = L.Classifier(pred, lossfun=lossfun, label_key='t')
    by_key(x, t=t)
    assert calls[-1] is t
    seen = []
    by_pos = L.Classifier(chainer.Sequential(lambda a: a * 2), label_key=0,
                          lossfun=lambda y, lab: seen.append((y, lab)) or F.sum(y),
                          accfun=lambda y, lab: None)
    by_pos(t, x)                                   # label first, input second
    assert seen[-1][1] is t
    np.testing.assert_array_equal(seen[-1][0], x * 2)
    with pytest.raises(TypeError):
        L.Classifier(pred, label_key=1.5)
    with pytest.raises(ValueError):
        L.Classifier(pred, label_key=3)(x, t)
    with pytest.raises(ValueError):
        L.Classifier(pred, label_key='missing')(x, t)


# ---- against Chainer 7.8.1 --------------------------------------------------------------------

@requires_chainer
def test_seeded_mlp_matches_chainer_forward_and_backward():
    code = """
    class MLP(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(None, 16)
                self.l2 = L.Linear(16, 4)
        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))
    np.random.seed(0)
    model = MLP()
    x = np.random.rand(5, 8).astype(np.float32)
    t = np.array([0, 1, 2, 3, 0], np.int32)
    loss = F.softmax_cross_entropy(model(x), t)
    model.cleargrads()
    loss.backward()
    out['loss'] = loss.array
    for name, p in model.namedparams():
        out['p' + name] = p.array
        out['g' + name] = p.grad
    out['names'] = np.array([n for n, _ in model.namedparams()])
    """
    ref = run_chainer(code)
    got = run_here(code)   # the same program with chainer = autograd_lab
    names = got['names'].tolist()
    assert names == ref['names'].tolist()
    # build_tolerance's rule: BLAS sums of 8 and 16 products, the softmax's 4 and the
    # batch mean's 5 (33 in a row at most, forward or backward), around exp and log.
    mlp = dict(kind='reduction', terms=8 + 16 + 4 + 5, steps=2)
    assert_same_across_builds(got['loss'], ref['loss'], what='loss', **mlp)
    for name in names:
        assert_same_across_builds(got['p' + name], ref['p' + name], kind='exact', what=name)
        assert_same_across_builds(got['g' + name], ref['g' + name], what='grad ' + name, **mlp)


@requires_chainer
def test_standard_links_match_chainer():
    code = """
    np.random.seed(4)
    conv = L.Convolution2D(None, 3, 3, stride=1, pad=1)
    bn = L.BatchNormalization(3)
    ln = L.LayerNormalization()
    emb = L.EmbedID(10, 4)
    x = np.random.randn(2, 2, 5, 5).astype(np.float32)
    h = bn(conv(x))
    out['conv_W'] = conv.W.array
    out['h'] = h.array
    out['avg_mean'] = bn.avg_mean
    out['avg_var'] = bn.avg_var
    out['ln'] = ln(h.array.reshape(2, -1)).array
    out['emb'] = emb(np.array([1, 9], np.int32)).array
    with chainer.using_config('train', False):
        out['h_test'] = bn(conv(x)).array
    """
    ref = run_chainer(code)
    got = run_here(code)   # the same program with chainer = autograd_lab
    assert sorted(got) == sorted(ref)
    same = assert_same_across_builds
    same(got['conv_W'], ref['conv_W'], kind='exact', what='conv_W')  # the seeded generator
    same(got['emb'], ref['emb'], kind='exact', what='emb')
    # build_tolerance's rule: the convolution sums 2 x 3 x 3 = 18 products, the batch
    # statistics 2 x 5 x 5 = 50 (mean, then variance); normalizing by the batch's standard
    # deviation (here ~1) neither shrinks nor grows the scale; the layer norm sums 75.
    conv_bn = dict(kind='reduction', terms=18 + 50 + 50, steps=2)
    for key in ('h', 'avg_mean', 'avg_var', 'h_test'):
        same(got[key], ref[key], what=key, **conv_bn)
    same(got['ln'], ref['ln'], kind='reduction', terms=18 + 50 + 50 + 75 + 75, steps=2,
         what='ln')


def test_module_surface():
    assert chainer.Link is chainer.link.Link and chainer.Chain is chainer.link.Chain
    assert chainer.Sequential is chainer.link.Sequential
    assert chainer.ChainList is chainer.link.ChainList
    assert chainer.Initializer is initializers.Initializer
