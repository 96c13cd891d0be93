"""The rest of Chainer's namespace that ported code uses (issue 18): configuration
classes, module paths, small helpers, optimizer-hook aliases and the new hooks."""

from __future__ import annotations

import importlib
import io
import os
import threading
import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import configuration, optimizer_hooks
from autograd_lab.utils import argument


# ---- configuration --------------------------------------------------------------------------

def test_local_config_over_a_global_config_of_ones_own():
    g = configuration.GlobalConfig()
    c = configuration.LocalConfig(g)
    g.x, g.y = 'global x', 'global y'
    c.y, c.z = 'local y', 'local z'
    assert (c.x, c.y, c.z) == ('global x', 'local y', 'local z')
    assert not hasattr(c, 'w')
    del c.y
    assert c.y == 'global y'
    with pytest.raises(AttributeError):
        del c.x

    def other_thread():
        c.y = 'other'
        g.x = 'global x2'

    t = threading.Thread(target=other_thread)
    t.start()
    t.join()
    assert (c.x, c.y) == ('global x2', 'global y')
    with chainer.using_config('x', 'temporary', c):
        assert c.x == 'temporary' and g.x == 'global x2'
    assert c.x == 'global x2'


def test_show_prints_name_value_lines():
    g = configuration.GlobalConfig()
    c = configuration.LocalConfig(g)
    g.x, c.abc = 'gx', 1
    out = io.StringIO()
    c.show(out)
    assert out.getvalue() == 'abc 1\nx   gx\n'
    out = io.StringIO()
    chainer.config.show(out)
    lines = out.getvalue().splitlines()
    assert 'debug                          False' in lines
    assert any(line.startswith('use_ideep ') and line.endswith(' never') for line in lines)
    assert lines == sorted(lines)


def test_the_engines_config_objects_are_chainers_classes():
    assert isinstance(chainer.config, configuration.LocalConfig)
    assert isinstance(chainer.global_config, configuration.GlobalConfig)
    for name, value in [('autotune', False), ('use_ideep', 'never'), ('compute_mode', None),
                        ('cudnn_deterministic', False), ('use_static_graph', True)]:
        assert getattr(chainer.config, name) == value


# ---- module paths and small helpers -----------------------------------------------------------

@pytest.mark.parametrize('path, names', [
    ('types', ['TYPE_CHECKING', 'Shape', 'DeviceSpec']),
    ('warnings', ['PerformanceWarning']),
    ('serializer', ['AbstractSerializer', 'Serializer', 'Deserializer']),
    ('initializer', ['Initializer', 'get_fans']),
    ('function', ['Function', 'FunctionAdapter', 'no_backprop_mode', 'force_backprop_mode',
                  'FunctionHook']),
    ('utils.argument', ['parse_kwargs', 'check_unexpected_kwargs', 'assert_kwargs_empty']),
    ('functions.math.basic_math', ['Add', 'AddConstant', 'MultiAdd', 'PowVarConst',
                                   '_convert_value_to_string']),
    ('functions.math.exponential', ['Exp', 'Log', 'Log2', 'Log10', 'exp', 'log']),
    ('functions.math.identity', ['Identity', 'identity']),
    ('functions.math.trigonometric', ['Sin', 'Cos', 'Tan', 'sin']),
    ('functions.math.hyperbolic', ['Sinh', 'Cosh']),
    ('functions.math.minmax', ['Max', 'Min', 'max', 'min']),
    ('backends.cuda', ['to_cpu', 'to_gpu', 'get_array_module', 'available']),
    ('backends.intel64', ['is_ideep_available', 'Intel64Device']),
    ('optimizer_hooks', ['GradientNoise', 'GradientHardClipping', 'GradientLARS']),
])
def test_chainers_module_paths_exist(path, names):
    module = importlib.import_module(f'autograd_lab.{path}')
    for name in names:
        assert hasattr(module, name), f'{path}.{name}'


def test_function_module_paths_are_attributes_like_in_chainer():
    assert F.math.exponential.Exp is importlib.import_module(
        'autograd_lab.functions.math.exponential').Exp
    assert chainer.basic_math is F.math.basic_math
    assert callable(F.identity) and callable(F.math.sum)  # functions are not shadowed


def test_basic_math_nodes_and_labels():
    bm = chainer.basic_math
    labels = {bm.Neg(): '__neg__', bm.Absolute(): '|_|', bm.Add(): '_ + _',
              bm.AddConstant(2.0): '_ + 2.0', bm.Sub(): '_ - _',
              bm.SubFromConstant(2.0): '2.0 - _', bm.Mul(): '_ * _',
              bm.MulConstant(2.0): '_ * 2.0', bm.Div(): '_ / _',
              bm.DivFromConstant(2.0): '2.0 / _', bm.PowVarVar(): '_ ** _',
              bm.PowVarConst(2.0): '_ ** 2.0', bm.PowConstVar(2.0): '2.0 ** _'}
    for node, label in labels.items():
        assert node.label == label
    convert = bm._convert_value_to_string
    assert convert(3) == '3' and convert(-1.5) == '(-1.5)'
    assert convert(np.ones(2)) == convert(chainer.Variable(np.ones(2))) == 'constant array'
    with pytest.raises(ValueError, match='Value must be a'):
        convert([1, 2])
    x = chainer.Variable(np.ones(2))
    assert type((x * 2).creator) is bm.MulConstant


def test_identity_subclasses_are_labelled_by_their_class():
    class DummyId(F.math.identity.Identity):
        pass

    y = DummyId().apply((np.ones(1),))[0]
    assert y.creator.label == 'DummyId'


def test_parse_kwargs():
    def f(**kwargs):
        return argument.parse_kwargs(kwargs, ('a', 1), ('b', 2), volatile='volatile is gone')

    assert f() == (1, 2) and f(b=5) == (1, 5)
    with pytest.raises(ValueError, match='volatile is gone'):
        f(volatile=True)
    with pytest.raises(TypeError, match=r"^f\(\) got unexpected keyword argument\(s\) 'c', 'd'"):
        f(d=1, c=2)
    argument.assert_kwargs_empty({})
    with pytest.raises(TypeError, match='unexpected keyword'):
        argument.assert_kwargs_empty({'x': 1})


def test_small_utils():
    from autograd_lab import utils
    assert utils.force_type(np.dtype(np.float32), 2).dtype == np.float32
    a = np.ones(2)
    assert utils.force_type(np.dtype(np.float64), a) is a
    with utils.tempdir() as d:
        assert os.path.isdir(d)
    assert not os.path.exists(d)
    try:
        raise KeyError('inner')
    except KeyError as inner:
        with pytest.raises(ValueError, match=r"outer\n\n\(caused by\)\nKeyError: 'inner'"):
            utils._raise_from(ValueError, 'outer', inner)


def test_dtype_helpers():
    assert chainer.get_dtype() == np.float32
    assert chainer.get_dtype(np.float16) == np.float16
    with chainer.using_config('dtype', chainer.mixed16):
        assert chainer.get_dtype() == np.float16
        assert chainer.get_dtype(map_mixed16=np.float32) == np.float32
    assert repr(chainer.mixed16) == "dtype('mixed16')" and repr(chainer.Fallback) == 'Fallback'
    assert issubclass(chainer.warnings.PerformanceWarning, RuntimeWarning)


# ---- optimizer hooks ---------------------------------------------------------------------------

@pytest.mark.parametrize('name, args', [('WeightDecay', (0.1,)), ('Lasso', (0.1,)),
                                        ('GradientClipping', (1.0,)),
                                        ('GradientNoise', (0.1,)),
                                        ('GradientHardClipping', (-1.0, 1.0))])
def test_deprecated_hook_aliases_in_chainer_optimizer(name, args):
    alias = getattr(chainer.optimizer, name)
    with pytest.warns(DeprecationWarning, match=f'chainer.optimizer.{name} is deprecated from '
                                                f'v4. Use chainer.optimizer_hooks.{name} '
                                                'instead.'):
        hook = alias(*args)
    assert isinstance(hook, getattr(optimizer_hooks, name))


def _param(data, grad):
    p = chainer.Parameter(np.array(data, np.float32))
    p.grad = np.array(grad, np.float32)
    return p


def test_gradient_hard_clipping():
    p = _param([1.0, 2.0, 3.0], [-5.0, 0.5, 5.0])
    optimizer_hooks.GradientHardClipping(-1.0, 2.0)(None, p)
    assert p.grad.tolist() == [-1.0, 0.5, 2.0]


def test_gradient_noise_default_variance_and_custom_noise():
    class Rule:
        t = 3

    p = _param(np.zeros(20000), np.zeros(20000))
    np.random.seed(0)
    optimizer_hooks.GradientNoise(0.3)(Rule(), p)
    expected_std = np.sqrt(0.3 / (1 + 3) ** 0.55)
    assert abs(p.grad.std() - expected_std) < 0.02 * expected_std
    assert abs(p.grad.mean()) < 0.02
    q = _param([0.0], [1.0])
    optimizer_hooks.GradientNoise(2.0, lambda xp, shape, dtype, hook, rule:
                                  xp.full(shape, hook.eta, dtype))(Rule(), q)
    assert q.grad.tolist() == [3.0]


def test_gradient_lars():
    p = _param([3.0, 4.0], [0.0, 10.0])  # |p| = 5, |g| = 10
    optimizer_hooks.GradientLARS(threshold=0.01, weight_decay=0.1, eps=0.0)(None, p)
    rate = 5.0 / (10.0 + 0.1 * 5.0)
    np.testing.assert_allclose(p.grad, (np.array([0.0, 10.0]) + 0.1 * np.array([3.0, 4.0]))
                               * rate, rtol=1e-6)
    small = _param([1e-4, 0.0], [1.0, 1.0])  # |p| below the threshold: rate 1
    optimizer_hooks.GradientLARS(threshold=0.01)(None, small)
    assert small.grad.tolist() == [1.0, 1.0]


def test_hooks_skip_missing_gradients():
    p = chainer.Parameter(np.ones(2, np.float32))
    p.cleargrad()
    for hook in (optimizer_hooks.GradientNoise(1.0), optimizer_hooks.GradientLARS(),
                 optimizer_hooks.GradientHardClipping(0, 1)):
        hook(None, p)
    assert p.grad is None


def test_optimizers_namespace_holds_optimizers_only():
    found = {name for name in dir(chainer.optimizers)
             if isinstance(getattr(chainer.optimizers, name), type)
             and issubclass(getattr(chainer.optimizers, name), chainer.Optimizer)}
    assert found == {'AdaDelta', 'AdaGrad', 'Adam', 'AdamW', 'AMSGrad', 'AdaBound', 'AMSBound',
                     'CorrectedMomentumSGD', 'MomentumSGD', 'MSVAG', 'NesterovAG', 'RMSprop',
                     'RMSpropGraves', 'SGD', 'SMORMS3'}


def test_no_warning_noise_on_import():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        importlib.reload(importlib.import_module('autograd_lab.backends.intel64'))


# ---- private names that Chainer code reads (issue 28) -------------------------------------------


def test_variable_node_rank_has_chainers_private_name():
    x = chainer.Variable(np.ones(2, np.float32))
    assert x.node._rank == 0
    x.node._rank = 3  # one slot under two names: the rank the engine orders backward by
    assert x.rank == x.node.rank == 3
    y = F.exp(x)
    assert y.node._rank == y.rank == y.creator_node.rank + 1 == 4
    creator = y.creator_node
    y.creator = None  # Chainer code clears the creator, marks the rank unset, relinks
    assert y.rank == 4
    y.node._rank = -1
    assert y.rank == -1
    y.creator_node = creator
    assert y.rank == creator.rank + 1 == 4


def test_check_type_forward_sees_a_light_type_info_tuple():
    from autograd_lab.utils import type_check
    seen = []

    class Double(chainer.FunctionNode):
        def check_type_forward(self, in_types):
            seen.append(in_types)
            type_check.expect(in_types[0].dtype == np.float32)

        def forward(self, inputs):
            return inputs[0] * 2,

    Double().apply((np.ones((2, 3), np.float32), np.zeros(2, np.int32)))
    in_types, = seen
    assert isinstance(in_types, type_check.LightTypeInfoTuple)
    assert type_check.LightTypeInfoTuple is type_check.TypeInfoTuple  # one class, two names
    assert len(in_types) == 2
    assert in_types[0].shape == (2, 3) and in_types[1].dtype == np.int32
    assert not in_types[0].shape == (3, 2)
    with pytest.raises(type_check.InvalidType, match=r'in_types\[0\]\.dtype == '):
        Double().apply((np.ones(2, np.float64),))


@pytest.mark.parametrize('size', [0, 1, 5, 64, 1000])
def test_check_backwards_direction_sampler_has_chainers_private_name(size):
    from autograd_lab import gradient_check
    np.random.seed(size)
    v = gradient_check._CheckBackward._sample_unit_vector(size, np)
    assert type(v) is np.ndarray and v.shape == (size,) and v.dtype == np.float64
    if size:
        np.testing.assert_allclose(np.square(v).sum(), 1.0, rtol=1e-12)
        # every component at least a third of the largest (Chainer promises 0.1 / sqrt(size))
        assert abs(v).min() >= 1 / (3 * np.sqrt(size))
    if size >= 64:
        assert v.min() < 0 < v.max()
    np.random.seed(size)  # the same draws as check_backward's own direction: one sampler
    np.testing.assert_array_equal(gradient_check._random_direction([(size,)])[0], v)
