"""Parameter and the initializers it is built from.

Spec section 15 (Parameter: constructor forms, deferred shape, initialize, NaN
grads, quirks Q5/Q9/Q12, update/update_rule), the Parameter parts of sections
13 and 16 (Constant/Zero/One/NaN, generate_array, the dtype assertion) and the
matching rows of the section 22 error table.  Expected values come from the
spec or from running Chainer 7.8.1.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Parameter, Variable, initializers
from autograd_lab.initializers import NaN, One, Zero

GRAD_ERROR = 'Cannot retrieve Variable.grad. Either it must be set manually or ' \
             'Variable.cleargrad() must be called beforehand.'


def f32(*values):
    return np.array(values, dtype=np.float32)


def assert_all_nan(a, shape, dtype=np.float32):
    assert isinstance(a, np.ndarray)
    assert a.shape == shape
    assert a.dtype == dtype
    assert np.isnan(a).all()


def source_with_grad(*grad):
    """A plain Variable whose grad is ``grad`` (used as the addgrad/copydata source)."""
    g = f32(*grad)
    return Variable(np.ones_like(g), grad=g)


def zerograd(var):
    with pytest.warns(DeprecationWarning, match=r'Variable\.zerograd is deprecated'):
        var.zerograd()


class FillWithFour:
    """A callable initializer without a ``dtype`` attribute."""

    def __call__(self, array):
        array[...] = 4


class RecordingRule:
    """The smallest update rule: it records the parameters it was asked to update."""

    is_elementwise = True  # Chainer 7.8.1's Parameter.update() reads it

    def __init__(self):
        self.calls = []

    def update(self, param):
        self.calls.append(param)
        param.array -= 0.5 * param.grad


# ---------------------------------------------------------------------------
# Constructor table
# ---------------------------------------------------------------------------


def test_requires_grad_is_not_an_argument():
    with pytest.raises(TypeError, match='requires_grad'):
        Parameter(requires_grad=False)


def test_parameter_is_a_variable():
    assert isinstance(Parameter(), Variable)
    assert isinstance(Parameter(f32(1, 2)), Variable)


class TestDefaultConstructor:
    def test_uninitialized_state(self):
        p = Parameter()
        assert p.array is None
        assert p.data is None
        assert p.is_initialized is False
        assert p.grad_var is None
        assert isinstance(p.initializer, NaN)
        assert p.update_rule is None
        assert p.requires_grad is True
        assert p.name is None

    def test_reading_grad_raises_runtime_error(self):
        with pytest.raises(RuntimeError) as info:
            Parameter().grad
        assert str(info.value) == GRAD_ERROR

    def test_shape_raises(self):
        with pytest.raises(AttributeError):
            Parameter().shape

    def test_arithmetic_raises(self):
        # 7.8.1 raises AttributeError; the spec allows a TypeError with a clear message.
        with pytest.raises((AttributeError, TypeError), match='uninitialized'):
            Parameter() * 2

    def test_len_raises_type_error(self):
        with pytest.raises(TypeError):
            len(Parameter())

    def test_backward_raises_attribute_error(self):
        with pytest.raises(AttributeError):
            Parameter().backward()

    def test_summary_and_repr(self):
        w = Parameter(name='w')
        assert w.summary() == '<variable w>'
        assert repr(w) == 'variable w(None)'

    def test_dtype_is_float64_before_initialization(self):
        # Quirk Q9: numpy.dtype(None) is float64 although initialize() gives float32.
        p = Parameter()
        assert p.dtype == np.float64
        p.initialize((2,))
        assert p.dtype == np.float32


def test_none_initializer_with_shape_gives_nan_data_and_grad():
    p = Parameter(None, (2, 3))
    assert p.is_initialized
    assert_all_nan(p.array, (2, 3))
    assert_all_nan(p.grad, (2, 3))
    assert isinstance(p.initializer, NaN)
    assert p.dtype == np.float32


def test_config_dtype_is_used_for_shaped_parameters():
    with chainer.using_config('dtype', np.float64):
        p = Parameter(None, (2,))
        q = Parameter(3.0, (2,))
    assert_all_nan(p.array, (2,), np.float64)
    assert_all_nan(p.grad, (2,), np.float64)
    assert q.array.dtype == np.float64
    np.testing.assert_array_equal(q.array, [3.0, 3.0])


@pytest.mark.parametrize('value', [3.0, 3])
def test_scalar_without_shape_is_a_deferred_constant(value):
    p = Parameter(value)
    assert p.array is None
    assert not p.is_initialized
    assert isinstance(p.initializer, initializers.Constant)
    assert p.initializer.fill_value == value
    assert type(p.initializer.fill_value) is type(value)
    with pytest.raises(RuntimeError, match=r'Cannot retrieve Variable\.grad'):
        p.grad
    assert p.dtype == np.float64  # quirk Q9


@pytest.mark.parametrize(
    ('value', 'shape', 'expected_shape'),
    [(3.0, (2,), (2,)), (3, (2, 2), (2, 2)), (np.float64(1.5), 3, (3,))],
    ids=['float', 'int', 'numpy-float64-int-shape'],
)
def test_scalar_with_shape_is_filled_with_config_dtype(value, shape, expected_shape):
    p = Parameter(value, shape)
    assert p.array.dtype == np.float32
    np.testing.assert_array_equal(p.array, np.full(expected_shape, value, np.float32))
    assert_all_nan(p.grad, expected_shape)
    assert isinstance(p.initializer, initializers.Constant)


@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.int32])
def test_ndarray_without_shape_is_used_as_is(dtype):
    a = np.arange(3, dtype=dtype)
    p = Parameter(a)
    assert p.array is a
    assert p.dtype == dtype
    assert p.grad is None
    assert p.initializer is a
    assert p.is_initialized


def test_ndarray_with_shape_is_broadcast_into_a_new_array():
    a = np.array([1.0, 2.0])
    p = Parameter(a, (2, 2))
    assert p.array is not a
    np.testing.assert_array_equal(p.array, [[1.0, 2.0], [1.0, 2.0]])
    assert p.array.dtype == np.float32  # config.dtype, not the source's float64
    assert_all_nan(p.grad, (2, 2))
    assert isinstance(p.initializer, initializers.Constant)


def test_ndarray_with_impossible_shape_raises_value_error():
    with pytest.raises(ValueError, match='broadcast'):
        Parameter(np.ones(3), (2, 2))


@pytest.mark.parametrize(
    ('init', 'dtype'),
    [(One(), np.float32), (One(dtype=np.float64), np.float64),
     (Zero(dtype=np.float16), np.float16)],
    ids=['no-dtype', 'float64', 'float16'],
)
def test_initializer_with_shape(init, dtype):
    p = Parameter(init, (2,))
    assert p.initializer is init
    expected = 0 if isinstance(init, Zero) else 1
    np.testing.assert_array_equal(p.array, np.full(2, expected, dtype))
    assert p.array.dtype == dtype
    assert_all_nan(p.grad, (2,), dtype)


def test_initializer_without_shape_is_deferred():
    init = initializers.Constant(2.0, dtype=np.float16)
    p = Parameter(init)
    assert p.array is None
    assert p.initializer is init
    assert p.dtype == np.float16  # the initializer's own dtype
    p.initialize((2,))
    np.testing.assert_array_equal(p.array, np.full(2, 2, np.float16))
    assert_all_nan(p.grad, (2,), np.float16)


def test_initializer_without_dtype_reports_float64_before_init():
    assert Parameter(One()).dtype == np.float64  # quirk Q9


def test_callable_fills_an_empty_array_in_place():
    fill = FillWithFour()
    p = Parameter(fill, (2,))
    assert p.initializer is fill
    np.testing.assert_array_equal(p.array, f32(4, 4))
    assert_all_nan(p.grad, (2,))


def test_plain_function_as_initializer():
    def fill(array):
        array[...] = 7

    p = Parameter(fill, (3,))
    assert p.initializer is fill
    np.testing.assert_array_equal(p.array, f32(7, 7, 7))


class TestListInitializer:
    def test_is_stored_as_an_initializer_object(self):
        p = Parameter([1.0, 2.0])
        assert p.initializer == [1.0, 2.0]
        assert p.array is None

    def test_fails_at_initialize(self):
        with pytest.raises(TypeError):
            Parameter([1.0, 2.0]).initialize((2,))

    def test_dtype_raises_runtime_error(self):
        with pytest.raises(RuntimeError, match='dtype'):
            Parameter([1.0, 2.0]).dtype


def test_dtype_of_a_callable_without_dtype_raises_runtime_error():
    with pytest.raises(RuntimeError, match='dtype'):
        Parameter(FillWithFour()).dtype


# ---------------------------------------------------------------------------
# NaN grads
# ---------------------------------------------------------------------------


def test_backward_adds_into_the_nan_grad():
    p = Parameter(2.0, (2,))
    F.sum(p * p).backward()
    assert_all_nan(p.grad, (2,))


def test_cleargrad_before_backward_gives_the_real_grad():
    p = Parameter(2.0, (2,))
    p.cleargrad()
    assert p.grad is None
    F.sum(p * p).backward()
    np.testing.assert_array_equal(p.grad, f32(4, 4))  # d(p^2)/dp = 2p


def test_arithmetic_on_a_parameter_returns_a_plain_variable():
    p = Parameter(2.0, (2,))
    y = p * 2
    assert type(y) is Variable
    np.testing.assert_array_equal(y.array, f32(4, 4))


# ---------------------------------------------------------------------------
# initialize()
# ---------------------------------------------------------------------------


class TestInitialize:
    def test_deferred_default_gives_nan_data_and_grad(self):
        p = Parameter()
        p.initialize((2, 3))
        assert p.is_initialized
        assert_all_nan(p.array, (2, 3))
        assert_all_nan(p.grad, (2, 3))
        assert p.shape == (2, 3)
        assert p.node.shape == (2, 3)
        assert p.label == '(2, 3), float32'

    def test_accepts_an_int_shape(self):
        p = Parameter(1.0)
        p.initialize(3)
        np.testing.assert_array_equal(p.array, f32(1, 1, 1))

    def test_uses_config_dtype_at_initialize_time(self):
        p = Parameter(1.0)
        with chainer.using_config('dtype', np.float64):
            p.initialize((2,))
        assert p.array.dtype == np.float64
        assert p.grad.dtype == np.float64

    def test_after_cleargrad_the_grad_is_none(self):
        p = Parameter()
        p.cleargrad()
        assert p.grad is None
        p.initialize((2,))
        assert_all_nan(p.array, (2,))
        assert p.grad is None

    def test_after_zerograd_the_grad_is_zeros(self):
        p = Parameter(One(dtype=np.float64))
        zerograd(p)
        assert p.grad is None  # readable (no RuntimeError), still nothing to show
        p.initialize((2,))
        np.testing.assert_array_equal(p.array, np.ones(2))
        np.testing.assert_array_equal(p.grad, np.zeros(2))
        assert p.grad.dtype == np.float64

    def test_after_setting_grad_manually_it_is_readable(self):
        p = Parameter()
        g = np.ones(3)
        p.grad = g  # no data yet, so no check
        assert p.grad is g

    def test_reinitializing_a_shaped_parameter_recreates_data_and_drops_grad(self):
        # Quirk Q12.
        p = Parameter(2.0, (2,))
        old = p.array
        p.initialize((3,))
        assert p.array is not old
        np.testing.assert_array_equal(p.array, f32(2, 2, 2))
        assert p.grad is None

    def test_reinitializing_an_array_initialized_parameter_drops_grad(self):
        p = Parameter(np.ones(2, np.float32), (2,))
        p.initialize((4, 2))
        np.testing.assert_array_equal(p.array, np.ones((4, 2)))
        assert p.grad is None

    def test_reinitializing_a_deferred_parameter_keeps_the_nan_grad_initializer(self):
        # Chainer 7.8.1 keeps the internal grad initializer of deferred Parameters,
        # so a second initialize() gives NaN again (even after cleargrad on the
        # initialized Parameter).
        p = Parameter(One())
        p.initialize((2,))
        p.cleargrad()
        p.initialize((3,))
        np.testing.assert_array_equal(p.array, f32(1, 1, 1))
        assert_all_nan(p.grad, (3,))

    def test_to_device_before_initialize_records_the_device(self):
        p = Parameter(1.0)
        p.to_device('@numpy')
        p.initialize((1,))
        assert p.device == chainer.get_device('@numpy')
        assert isinstance(p.array, np.ndarray)


# ---------------------------------------------------------------------------
# Section 13 on Parameters: cleargrad / zerograd / addgrad / copydata
# ---------------------------------------------------------------------------


class TestGradBookkeeping:
    def test_zerograd_on_an_uninitialized_parameter(self):
        p = Parameter()
        zerograd(p)
        assert p.array is None
        assert p.grad is None
        p.initialize((2,))
        np.testing.assert_array_equal(p.grad, f32(0, 0))

    def test_zerograd_on_a_shaped_parameter_fills_the_nan_grad(self):
        p = Parameter(1.0, (2,))
        g = p.grad
        zerograd(p)
        assert p.grad is g
        np.testing.assert_array_equal(g, f32(0, 0))

    def test_addgrad_into_uninitialized_parameter_gives_a_nan_grad(self):
        # Quirk Q5: initialize() runs first, so src's grad is added to the NaN grad.
        p = Parameter()
        p.addgrad(source_with_grad(3, 3))
        assert_all_nan(p.array, (2,))
        assert_all_nan(p.grad, (2,))

    def test_addgrad_after_cleargrad_aliases_src_grad_and_leaves_nan_data(self):
        p = Parameter()
        p.cleargrad()
        src = source_with_grad(3, 3)
        p.addgrad(src)
        assert_all_nan(p.array, (2,))
        assert p.grad is src.grad
        np.testing.assert_array_equal(p.grad, f32(3, 3))

    def test_addgrad_after_zerograd_gives_src_grad_values(self):
        p = Parameter()
        zerograd(p)
        src = source_with_grad(3, 3)
        p.addgrad(src)
        np.testing.assert_array_equal(p.grad, f32(3, 3))
        assert p.grad is not src.grad

    def test_addgrad_into_a_cleared_parameter_aliases(self):
        p = Parameter(0.0, (2,))
        p.cleargrad()
        src = source_with_grad(1, 2)
        p.addgrad(src)
        assert p.grad is src.grad

    def test_addgrad_uses_the_parameters_initializer(self):
        p = Parameter(5.0)
        p.cleargrad()
        p.addgrad(source_with_grad(1, 2))
        np.testing.assert_array_equal(p.array, f32(5, 5))

    def test_copydata_into_uninitialized_parameter(self):
        src = Variable(np.array([[1.5, 2.5], [1.5, 2.5]], np.float32))
        p = Parameter()
        p.copydata(src)
        assert p.array is not src.array
        np.testing.assert_array_equal(p.array, src.array)
        assert_all_nan(p.grad, (2, 2))

    def test_copydata_from_uninitialized_parameter_initializes_it(self):
        q = Parameter(7.0)
        dst = Variable(np.zeros(2, np.float32))
        arr = dst.array
        dst.copydata(q)
        np.testing.assert_array_equal(q.array, f32(7, 7))
        assert dst.array is arr
        np.testing.assert_array_equal(arr, f32(7, 7))

    def test_copydata_between_uninitialized_parameters_is_a_no_op(self):
        p1, p2 = Parameter(), Parameter()
        p1.copydata(p2)
        assert p1.array is None
        assert p2.array is None


# ---------------------------------------------------------------------------
# update / update_rule
# ---------------------------------------------------------------------------


class TestUpdate:
    def test_update_rule_is_none_and_update_is_a_no_op(self):
        p = Parameter(1.0, (2,))
        p.cleargrad()
        before = p.array.copy()
        assert p.update_rule is None
        p.update()
        np.testing.assert_array_equal(p.array, before)
        assert p.grad is None

    def test_update_delegates_to_the_rule(self):
        p = Parameter(1.0, (2,))
        p.grad = f32(2, 4)
        rule = RecordingRule()
        p.update_rule = rule
        p.update()
        assert len(rule.calls) == 1
        assert rule.calls[0] is p
        np.testing.assert_array_equal(p.array, f32(0, -1))

    def test_replacing_the_rule(self):
        p = Parameter(1.0, (2,))
        p.grad = f32(0, 0)
        first, second = RecordingRule(), RecordingRule()
        p.update_rule = first
        p.update_rule = second
        p.update()
        assert first.calls == []
        assert second.calls == [p]


# ---------------------------------------------------------------------------
# Section 16: initializers
# ---------------------------------------------------------------------------


class TestInitializers:
    def test_base_class_has_dtype(self):
        assert issubclass(initializers.Constant, initializers.Initializer)
        assert initializers.Initializer().dtype is None
        assert np.dtype(initializers.Initializer(np.float16).dtype) == np.float16

    def test_constant_fills_in_place(self):
        a = np.empty((2, 2), np.float32)
        assert initializers.Constant(3.0)(a) is None
        np.testing.assert_array_equal(a, np.full((2, 2), 3.0))

    def test_constant_broadcasts_an_array_and_casts(self):
        b = np.empty((2, 2), np.int32)
        initializers.Constant(np.array([1, 2]))(b)
        np.testing.assert_array_equal(b, [[1, 2], [1, 2]])
        assert b.dtype == np.int32

    def test_constant_keeps_fill_value_and_dtype(self):
        c = initializers.Constant(3, np.int32)
        assert c.fill_value == 3
        assert np.dtype(c.dtype) == np.int32

    @pytest.mark.parametrize(
        ('cls', 'check'),
        [(Zero, lambda a: (a == 0).all()), (One, lambda a: (a == 1).all()),
         (NaN, lambda a: np.isnan(a).all())],
        ids=['Zero', 'One', 'NaN'],
    )
    def test_fixed_value_initializers(self, cls, check):
        a = np.full(3, 5.0, np.float32)
        cls()(a)
        assert check(a)
        assert cls().dtype is None
        assert np.dtype(cls(np.float64).dtype) == np.float64

    @pytest.mark.parametrize('cls', [
        lambda: initializers.Constant(1.0, dtype=np.float64),
        lambda: Zero(dtype=np.float64),
        lambda: NaN(dtype=np.float16),
        lambda: One(dtype=np.float16),
    ], ids=['Constant', 'Zero', 'NaN', 'One'])
    def test_dtype_mismatch_with_the_target_asserts(self, cls):
        with pytest.raises(AssertionError):
            cls()(np.empty(2, np.float32))

    def test_matching_dtype_passes_the_assertion(self):
        a = np.empty(2, np.float64)
        One(dtype=np.float64)(a)
        np.testing.assert_array_equal(a, [1.0, 1.0])

    def test_generate_array_uses_config_dtype(self):
        a = initializers.generate_array(One(), (2,), np)
        assert a.dtype == np.float32
        np.testing.assert_array_equal(a, [1.0, 1.0])
        with chainer.using_config('dtype', np.float16):
            assert initializers.generate_array(One(), (2,), np).dtype == np.float16

    def test_generate_array_dtype_argument(self):
        a = initializers.generate_array(initializers.Constant(5.0), (2,), np, dtype=np.float64)
        assert a.dtype == np.float64
        np.testing.assert_array_equal(a, [5.0, 5.0])

    def test_generate_array_prefers_the_initializer_dtype(self):
        init = initializers.Constant(5.0, dtype=np.float16)
        with chainer.using_config('dtype', np.float64):
            a = initializers.generate_array(init, (2,), np)
        assert a.dtype == np.float16

    def test_generate_array_rejects_a_conflicting_dtype(self):
        init = initializers.Constant(5.0, dtype=np.float16)
        with pytest.raises(ValueError, match='dtype mismatch'):
            initializers.generate_array(init, (2,), np, dtype=np.float64)

    def test_generate_array_shapes_and_values(self):
        assert initializers.generate_array(Zero(), 3, np).shape == (3,)
        assert (initializers.generate_array(Zero(), (2, 2), np) == 0).all()
        assert np.isnan(initializers.generate_array(NaN(), (2,), np)).all()

    def test_generate_array_on_the_cpu_device(self):
        a = initializers.generate_array(One(), (2,), np, device=chainer.get_device('@numpy'))
        assert isinstance(a, np.ndarray)
