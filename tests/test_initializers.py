"""Initializers: fill values, Chainer's scale formulas and fans, dtypes, devices.

Spec section 16 (initializers) and Chainer 7.8.1's defaults.  Random initializers
are checked three ways: their sample statistics, exact equality with the
underlying ``numpy.random`` draw scaled by the documented formula (same seed),
and, when the Chainer venv exists, equality with Chainer's own arrays.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as chainer
from autograd_lab import backend, initializers as I
from build_tolerance import assert_same_across_builds
from chainer_ref import requires_chainer, run as run_chainer


def gen(init, shape, dtype=None):
    return I.generate_array(init, shape, np, dtype=dtype)


# ---- constants --------------------------------------------------------------------------

@pytest.mark.parametrize('init, value', [(I.Zero(), 0.0), (I.One(), 1.0), (I.Constant(2.5), 2.5),
                                          (I.Constant(-3), -3.0)])
def test_constant_family_fills_every_element(init, value):
    a = gen(init, (2, 3))
    assert a.dtype == np.float32 and a.shape == (2, 3)
    np.testing.assert_array_equal(a, np.full((2, 3), value, np.float32))


def test_nan_fills_with_nan():
    assert np.isnan(gen(I.NaN(), (4,))).all()


def test_constant_array_broadcasts_into_the_target_and_casts():
    a = gen(I.Constant(np.array([1, 2, 3], np.int64)), (2, 3))
    np.testing.assert_array_equal(a, [[1, 2, 3], [1, 2, 3]])
    assert a.dtype == np.float32
    with pytest.raises(ValueError):
        gen(I.Constant(np.arange(4.0)), (2, 3))


def test_constant_rejects_a_list_fill_value():
    with pytest.raises(ValueError):
        I.Constant([1.0, 2.0])


def test_initializer_dtype_mismatch_asserts():
    a = np.empty(3, np.float64)
    for init in (I.Constant(1.0, np.float32), I.Zero(np.float32), I.Normal(dtype=np.float32),
                 I.LeCunNormal(dtype=np.float32), I.HeUniform(dtype=np.float32),
                 I.Identity(dtype=np.float32), I.Orthogonal(dtype=np.float32)):
        with pytest.raises(AssertionError):
            init(a)


def test_base_initializer_is_abstract_and_keeps_dtype():
    init = I.Initializer(np.float16)
    assert init.dtype == np.float16
    with pytest.raises(NotImplementedError):
        init(np.empty(2))


# ---- generate_array ---------------------------------------------------------------------

def test_generate_array_dtype_priority():
    assert gen(I.One(), (2,)).dtype == np.float32  # config.dtype
    assert gen(I.One(), (2,), dtype=np.float16).dtype == np.float16
    assert gen(I.One(np.float64), (2,)).dtype == np.float64
    assert gen(I.One(np.float64), (2,), dtype=np.float64).dtype == np.float64
    with chainer.using_config('dtype', np.float64):
        assert gen(I.One(), (2,)).dtype == np.float64
    with pytest.raises(ValueError, match='dtype mismatch'):
        gen(I.One(np.float64), (2,), dtype=np.float32)


def test_generate_array_accepts_int_shape_and_plain_callables():
    def fives(a):
        a[...] = 5
    np.testing.assert_array_equal(gen(fives, 3), [5, 5, 5])


def test_generate_array_rejects_xp_inconsistent_with_device(fake_gpu):
    with pytest.raises(ValueError, match='inconsistent'):
        I.generate_array(I.One(), (2,), np, device='@cupy:0')


def test_generate_array_allocates_on_the_requested_gpu(fake_gpu):
    dev = backend.get_device('@cupy:1')
    for init in (I.One(), I.Constant(np.arange(3.0)), I.Normal(), I.Uniform(), I.HeNormal(),
                 I.Orthogonal(), I.Identity()):
        a = I.generate_array(init, (3, 3), dev.xp, device=dev)
        assert isinstance(a, fake_gpu.array_type), init
        assert a.device_id == 1
        assert np.isfinite(a.get()).all()
    a = I.generate_array(I.Constant(np.arange(3.0)), (2, 3), dev.xp, device=dev)
    np.testing.assert_array_equal(a.get(), [[0, 1, 2], [0, 1, 2]])


# ---- fans and scales ---------------------------------------------------------------------

def test_get_fans_dense_and_conv():
    assert I.get_fans((10, 20)) == (20, 10)
    assert I.get_fans((8, 3, 5, 5)) == (75, 200)
    with pytest.raises(ValueError):
        I.get_fans((3,))
    with pytest.raises(ValueError):
        I.get_fans([3, 4])


SHAPE = (6, 4, 3, 2)   # fan_in = 24, fan_out = 36
FAN_IN, FAN_OUT = 24, 36

NORMAL_CASES = [
    (I.Normal(), 0.05),
    (I.Normal(0.3), 0.3),
    (I.LeCunNormal(), math.sqrt(1 / FAN_IN)),
    (I.LeCunNormal(2.0), 2.0 * math.sqrt(1 / FAN_IN)),
    (I.GlorotNormal(), math.sqrt(2 / (FAN_IN + FAN_OUT))),
    (I.GlorotNormal(0.5), 0.5 * math.sqrt(2 / (FAN_IN + FAN_OUT))),
    (I.HeNormal(), math.sqrt(2 / FAN_IN)),
    (I.HeNormal(fan_option='fan_out'), math.sqrt(2 / FAN_OUT)),
    (I.HeNormal(3.0, fan_option='fan_in'), 3.0 * math.sqrt(2 / FAN_IN)),
]

UNIFORM_CASES = [
    (I.Uniform(), 0.05),
    (I.Uniform(0.7), 0.7),
    (I.LeCunUniform(), math.sqrt(3 / FAN_IN)),
    (I.GlorotUniform(), math.sqrt(6 / (FAN_IN + FAN_OUT))),
    (I.GlorotUniform(2.0), 2.0 * math.sqrt(6 / (FAN_IN + FAN_OUT))),
    (I.HeUniform(), math.sqrt(6 / FAN_IN)),
    (I.HeUniform(0.5), 0.5 * math.sqrt(6 / FAN_IN)),
]


@pytest.mark.parametrize('init, std', NORMAL_CASES)
def test_normal_family_is_the_seeded_normal_draw_times_the_documented_std(init, std):
    np.random.seed(7)
    a = gen(init, SHAPE, dtype=np.float64)
    np.random.seed(7)
    expected = np.random.normal(loc=0.0, scale=std, size=SHAPE)
    np.testing.assert_allclose(a, expected, rtol=1e-12)


@pytest.mark.parametrize('init, bound', UNIFORM_CASES)
def test_uniform_family_is_the_seeded_uniform_draw_in_the_documented_bounds(init, bound):
    np.random.seed(3)
    a = gen(init, SHAPE, dtype=np.float64)
    np.random.seed(3)
    expected = np.random.uniform(low=-bound, high=bound, size=SHAPE)
    np.testing.assert_allclose(a, expected, rtol=1e-12)


def test_sample_statistics_of_lecun_and_he():
    np.random.seed(0)
    w = gen(I.LeCunNormal(), (512, 784))
    assert abs(float(w.std()) - math.sqrt(1 / 784)) < 0.01 * math.sqrt(1 / 784)
    assert abs(float(w.mean())) < 1e-3
    u = gen(I.HeUniform(), (512, 784))
    bound = math.sqrt(6 / 784)
    assert u.max() <= bound and u.min() >= -bound
    assert u.max() > 0.99 * bound and u.min() < -0.99 * bound


def test_he_normal_rejects_unknown_fan_option():
    with pytest.raises(ValueError, match='fan_option'):
        gen(I.HeNormal(fan_option='fan_avg'), (2, 2))


def test_scaled_initializers_need_at_least_two_dims():
    with pytest.raises(ValueError):
        gen(I.LeCunNormal(), (5,))


def test_rng_argument_is_used_instead_of_the_global_state():
    a = gen(I.Normal(0.5, rng=np.random.RandomState(1)), (3, 4))
    b = gen(I.Normal(0.5, rng=np.random.RandomState(1)), (3, 4))
    np.testing.assert_array_equal(a, b)
    expected = np.random.RandomState(1).normal(loc=0.0, scale=0.5, size=(3, 4))
    np.testing.assert_allclose(a, expected.astype(np.float32))
    c = gen(I.GlorotUniform(rng=np.random.RandomState(2)), (3, 4))
    expected = np.random.RandomState(2).uniform(low=-math.sqrt(6 / 7), high=math.sqrt(6 / 7),
                                                size=(3, 4))
    np.testing.assert_allclose(c, expected.astype(np.float32))


# ---- identity and orthogonal ------------------------------------------------------------

def test_identity():
    np.testing.assert_array_equal(gen(I.Identity(), (3, 3)), np.eye(3))
    np.testing.assert_array_equal(gen(I.Identity(0.5), (2, 2)), 0.5 * np.eye(2))
    for shape in ((2, 3), (2,), (2, 2, 2)):
        with pytest.raises(ValueError):
            gen(I.Identity(), shape)


@pytest.mark.parametrize('shape', [(3, 5), (5, 3), (4, 4), (2, 3, 2, 2)])
def test_orthogonal_rows_or_columns_are_orthonormal_times_scale(shape):
    a = gen(I.Orthogonal(), shape, dtype=np.float64)
    m = a.reshape(shape[0], -1)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, 1.1 ** 2 * np.eye(len(gram)), atol=1e-12)


def test_orthogonal_matches_qr_with_sign_fix():
    np.random.seed(5)
    a = gen(I.Orthogonal(2.0), (3, 3), dtype=np.float64)
    np.random.seed(5)
    q, r = np.linalg.qr(np.random.normal(size=(3, 3)))
    np.testing.assert_allclose(a, q * np.copysign(2.0, np.diag(r)))


def test_orthogonal_modes_and_edge_cases():
    with pytest.raises(ValueError):
        I.Orthogonal(mode='bogus')
    with pytest.raises(ValueError):
        gen(I.Orthogonal(mode='embedding'), (2, 5))   # over-complete: not an embedding
    with pytest.raises(ValueError):
        gen(I.Orthogonal(mode='projection'), (5, 2))
    gen(I.Orthogonal(mode='basis'), (3, 3))
    with pytest.raises(ValueError):
        gen(I.Orthogonal(mode='basis'), (3, 4))
    with pytest.raises(ValueError):
        gen(I.Orthogonal(), (0, 3))
    scalar = gen(I.Orthogonal(0.5), ())
    assert scalar.shape == () and abs(float(scalar)) == 0.5


# ---- use through Parameter ----------------------------------------------------------------

def test_parameter_uses_initializer_dtype_and_config_dtype():
    p = chainer.Parameter(I.HeNormal(dtype=np.float16), (4, 3))
    assert p.dtype == np.float16 and p.grad.dtype == np.float16
    with chainer.using_config('dtype', np.float64):
        q = chainer.Parameter(I.GlorotUniform(), (4, 3))
    assert q.dtype == np.float64


# ---- against Chainer 7.8.1 --------------------------------------------------------------

@requires_chainer
def test_same_seed_gives_the_same_arrays_as_chainer():
    code = """
    import chainer.initializers as I
    inits = {'normal': I.Normal(), 'lecun': I.LeCunNormal(), 'glorot': I.GlorotNormal(0.7),
             'he_in': I.HeNormal(), 'he_out': I.HeNormal(fan_option='fan_out'),
             'uniform': I.Uniform(0.2), 'lecun_u': I.LeCunUniform(), 'glorot_u': I.GlorotUniform(),
             'he_u': I.HeUniform(), 'orth': I.Orthogonal(), 'identity': I.Identity(2.0),
             'const': I.Constant(np.arange(2.0)), 'zero': I.Zero(), 'one': I.One()}
    for name, init in inits.items():
        np.random.seed(11)
        shape = (2, 2) if name == 'identity' else (4, 2)
        out[name] = chainer.initializers.generate_array(init, shape, np)
    """
    ref = run_chainer(code)
    ours = {'normal': I.Normal(), 'lecun': I.LeCunNormal(), 'glorot': I.GlorotNormal(0.7),
            'he_in': I.HeNormal(), 'he_out': I.HeNormal(fan_option='fan_out'),
            'uniform': I.Uniform(0.2), 'lecun_u': I.LeCunUniform(), 'glorot_u': I.GlorotUniform(),
            'he_u': I.HeUniform(), 'orth': I.Orthogonal(), 'identity': I.Identity(2.0),
            'const': I.Constant(np.arange(2.0)), 'zero': I.Zero(), 'one': I.One()}
    for name, init in ours.items():
        np.random.seed(11)
        shape = (2, 2) if name == 'identity' else (4, 2)
        a = I.generate_array(init, shape, np)
        assert_same_across_builds(a, ref[name], what=name, **ACROSS_BUILDS.get(name, EXACT))


# build_tolerance's rule for the seeded initializers: NumPy's legacy RandomState stream is
# the same in every build and uniform draws are scaled by correctly rounded arithmetic, so
# exact; normal draws go through libm's log and sqrt (Box-Muller, 2 steps); the orthogonal
# one through LAPACK's QR of a 4 x 2 matrix (Householder sums of at most 4 x 2 products).
EXACT = dict(kind='exact')
ACROSS_BUILDS = {**{name: dict(kind='elementwise', steps=2)
                    for name in ('normal', 'lecun', 'glorot', 'he_in', 'he_out')},
                 'orth': dict(kind='reduction', terms=8, steps=2)}
