"""Spec section 14: devices.

Three settings:

* CPU only, and "no GPU backend at all" (the ``no_gpu`` fixture): the RuntimeError rows;
* the NumPy-backed fake GPU of ``autograd_lab.testing.fake_gpu`` (``fake_gpu`` fixture, two
  devices):
  every transfer path, the no-mixing rule, and ops running on the "GPU";
* real CuPy (``@pytest.mark.gpu``, ``cupy_gpu`` fixture), skipped where there is no GPU.
"""

from __future__ import annotations

from autograd_lab.testing import fake_gpu as fake
import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import backend
from autograd_lab.backend import CpuDevice, GpuDevice

V = chainer.Variable
CUDA_ERROR = 'CUDA environment is not correctly set up'


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + 1


# ---- CPU ------------------------------------------------------------------------------


def test_to_cpu_on_cpu_is_a_no_op_keeping_the_objects():
    x = V(f32(2, 3))
    x.grad = np.ones((2, 3), np.float32)
    a, g = x.array, x.grad
    assert x.to_cpu() is None
    assert x.array is a
    assert x.grad is g


@pytest.mark.parametrize('spec', ['@numpy', -1, CpuDevice(), np.int64(-1)],
                         ids=['@numpy', '-1', 'CpuDevice()', 'np.int64(-1)'])
def test_to_device_cpu_forms(spec):
    x = V(f32(3))
    x.grad = np.zeros(3, np.float32)
    a, g = x.array, x.grad
    assert x.to_device(spec) is None
    assert x.array is a and x.grad is g
    assert isinstance(x.device, CpuDevice)
    assert x.device == backend.CPU


def test_get_device_cpu():
    dev = chainer.get_device('@numpy')
    assert repr(dev) == '<CpuDevice (numpy)>'
    assert str(dev) == '@numpy'
    assert dev.xp is np
    assert chainer.get_device(-1) == dev
    cpu = CpuDevice()
    assert chainer.get_device(cpu) is cpu
    assert cpu == dev and hash(cpu) == hash(dev)


def test_cpu_variable_device_and_xp():
    x = V(f32(2))
    assert x.device == backend.CPU
    assert x.xp is np
    assert V().device == backend.CPU
    assert backend.get_device_from_array(np.ones(2)) == backend.CPU
    assert backend.get_array_module(np.ones(2), x) is np


@pytest.mark.parametrize('spec', ['@foo', '@cupy:x', '@cupy:'])
def test_bad_at_specifiers_raise_value_error(spec):
    with pytest.raises(ValueError):
        chainer.get_device(spec)
    x = V(f32(2))
    a = x.array
    with pytest.raises(ValueError):
        x.to_device(spec)
    assert x.array is a


@pytest.mark.parametrize('spec', ['native:0', 'native', 'cuda:0'])
def test_chainerx_specifiers_raise_runtime_error(spec):
    with pytest.raises(RuntimeError):
        chainer.get_device(spec)
    with pytest.raises(RuntimeError):
        V(f32(2)).to_device(spec)


def test_intel64_specifier_raises_runtime_error():
    with pytest.raises(RuntimeError):
        chainer.get_device('@intel64')


@pytest.mark.parametrize('spec', [None, 1.5, [0]])
def test_non_specifiers_raise_type_error(spec):
    with pytest.raises(TypeError):
        chainer.get_device(spec)


# ---- without any GPU backend ------------------------------------------------------------

GPU_MOVES = [
    ('to_gpu()', lambda v: v.to_gpu()),
    ('to_gpu(0)', lambda v: v.to_gpu(0)),
    ('to_gpu(1)', lambda v: v.to_gpu(1)),
    ("to_device('@cupy:0')", lambda v: v.to_device('@cupy:0')),
    ('to_device(0)', lambda v: v.to_device(0)),
]


@pytest.mark.parametrize('move', [m[1] for m in GPU_MOVES], ids=[m[0] for m in GPU_MOVES])
@pytest.mark.parametrize('make', [
    lambda: V(f32(2)), V, lambda: chainer.Parameter(f32(2)), chainer.Parameter,
    lambda: chainer.Parameter(1.0, (2,)),
], ids=['Variable', 'Variable()', 'Parameter(array)', 'Parameter()', 'Parameter(1.0, shape)'])
def test_gpu_moves_without_backend_raise_runtime_error(no_gpu, make, move):
    v = make()
    a = v.array
    with pytest.raises(RuntimeError, match=CUDA_ERROR):
        move(v)
    assert v.array is a  # nothing moved


def test_get_device_gpu_without_backend(no_gpu):
    for spec in ('@cupy:0', 0, 1):
        with pytest.raises(RuntimeError, match=CUDA_ERROR):
            chainer.get_device(spec)
    assert not backend.cuda_available()
    assert backend.gpu_unavailable_reason()


def test_parameter_to_gpu_is_runtime_error_not_name_error(no_gpu):
    with pytest.raises(RuntimeError, match=CUDA_ERROR) as info:
        chainer.Parameter().to_gpu()
    assert not isinstance(info.value, NameError)


@pytest.mark.parametrize('make', [lambda: V(f32(2)), lambda: chainer.Parameter(f32(2))],
                         ids=['Variable', 'Parameter'])
def test_intel64_and_chainerx_paths(make):
    v = make()
    a = v.array
    with pytest.raises(RuntimeError):
        v.to_intel64()
    with pytest.raises(RuntimeError, match=r'ChainerX is not available\.'):
        v.to_chx()
    assert v.from_chx() is None
    assert v.array is a
    with pytest.raises(ValueError):
        v.chx_array
    assert v.array is a


def test_uninitialized_parameter_to_cpu_device_then_initialize():
    p = chainer.Parameter()
    assert p.to_device('@numpy') is None
    p.initialize((2,))
    assert type(p.array) is np.ndarray
    assert p.device == backend.CPU


# ---- the fake GPU: transfers -----------------------------------------------------------------


def test_backend_swap_used_by_the_fixtures_restores_the_exact_state():
    import conftest

    before = backend._gpu, backend._gpu_probed
    swap = conftest._swap_gpu_backend(fake.make_backend())
    gpu = next(swap)
    assert backend.gpu_backend() is gpu
    with pytest.raises(StopIteration):
        next(swap)
    assert (backend._gpu, backend._gpu_probed) == before


def test_fake_backend_is_registered(fake_gpu):
    assert backend.cuda_available()
    assert backend.gpu_backend() is fake_gpu
    assert backend.gpu_unavailable_reason() is None


@pytest.mark.parametrize('move, device_id', [
    (lambda v: v.to_gpu(), 0), (lambda v: v.to_gpu(0), 0), (lambda v: v.to_gpu(1), 1),
    (lambda v: v.to_device('@cupy:0'), 0), (lambda v: v.to_device('@cupy:1'), 1),
    (lambda v: v.to_device(1), 1), (lambda v: v.to_device(np.int64(1)), 1),
    (lambda v: v.to_device(chainer.get_device('@cupy:1')), 1),
], ids=['to_gpu()', 'to_gpu(0)', 'to_gpu(1)', '@cupy:0', '@cupy:1', 'int 1', 'np.int64(1)',
        'GpuDevice'])
def test_variable_round_trip(fake_gpu, move, device_id):
    a = f32(2, 3)
    g = np.full((2, 3), 0.5, np.float32)
    x = V(a.copy())
    x.grad = g.copy()
    assert move(x) is None
    assert isinstance(x.array, fake.FakeGpuArray)
    assert x.array.device_id == device_id
    assert isinstance(x.grad, fake.FakeGpuArray)  # the grad moved with the data
    assert x.grad.device_id == device_id
    assert isinstance(x.device, GpuDevice)
    assert str(x.device) == f'@cupy:{device_id}'
    assert x.device == chainer.get_device(f'@cupy:{device_id}')
    assert x.xp is fake.xp
    np.testing.assert_array_equal(x.array, a)
    assert x.to_cpu() is None
    assert type(x.array) is np.ndarray
    assert type(x.grad) is np.ndarray
    np.testing.assert_array_equal(x.array, a)
    np.testing.assert_array_equal(x.grad, g)
    assert x.device == backend.CPU
    assert x.xp is np


def test_to_device_numpy_from_gpu(fake_gpu):
    x = V(f32(3))
    x.to_gpu()
    x.to_device('@numpy')
    assert type(x.array) is np.ndarray
    x.to_gpu()
    x.to_device(-1)
    assert type(x.array) is np.ndarray


def test_moving_between_gpus(fake_gpu):
    x = V(f32(3))
    x.to_gpu(0)
    on0 = x.array
    x.to_gpu(0)
    assert x.array is on0  # already there: same object
    x.to_device('@cupy:1')
    assert x.array is not on0
    assert x.array.device_id == 1
    assert str(x.device) == '@cupy:1'
    assert x.device != chainer.get_device('@cupy:0')
    np.testing.assert_array_equal(x.array, on0)


def test_gpu_device_objects(fake_gpu):
    d1 = chainer.get_device('@cupy:1')
    assert isinstance(d1, GpuDevice)
    assert repr(d1) == '<GpuDevice (cupy):1>'
    assert str(d1) == '@cupy:1'
    assert d1 == chainer.get_device(1)
    assert d1 != chainer.get_device('@cupy:0')
    assert d1 != backend.CPU
    assert d1.xp is fake.xp
    assert chainer.get_device(('@cupy', 1)) == d1
    arr = d1.send(np.ones(2))
    assert isinstance(arr, fake.FakeGpuArray) and arr.device_id == 1
    assert backend.get_device_from_array(arr) == d1
    assert backend.get_array_module(arr) is fake.xp
    assert backend.get_array_module(np.ones(1), arr) is fake.xp
    assert backend.get_array_module(V(arr)) is fake.xp


def test_get_device_still_parses_cpu_and_bad_forms_with_a_backend(fake_gpu):
    assert chainer.get_device('@numpy') == backend.CPU
    assert chainer.get_device(-1) == backend.CPU
    with pytest.raises(ValueError):
        chainer.get_device('@foo')
    with pytest.raises(RuntimeError):
        chainer.get_device('native:0')


def test_variable_accepts_gpu_array(fake_gpu):
    arr = fake.to_device(np.ones(3, np.float32), 1)
    x = V(arr)
    assert x.array is arr
    assert str(x.device) == '@cupy:1'


def test_grad_var_moves_with_data(fake_gpu):
    x = V(np.array([1.0, 2.0]))
    y = x ** 2
    y.grad = np.ones(2)
    y.backward(enable_double_backprop=True)
    gv = x.grad_var
    x.to_gpu()
    assert isinstance(x.grad, fake.FakeGpuArray)
    assert x.grad_var is gv  # the same gradient Variable, its array moved
    np.testing.assert_array_equal(x.grad, [2, 4])


def test_grad_setter_rejects_other_device(fake_gpu):
    x = V(f32(2))
    x.to_gpu()
    with pytest.raises(TypeError):
        x.grad = np.ones(2, np.float32)
    x.grad = fake.to_device(np.ones(2, np.float32), 0)
    assert isinstance(x.grad, fake.FakeGpuArray)


def test_parameter_round_trip(fake_gpu):
    p = chainer.Parameter(f32(2, 2))
    p.grad = np.ones((2, 2), np.float32)
    p.to_gpu(1)
    assert isinstance(p.array, fake.FakeGpuArray) and p.array.device_id == 1
    assert isinstance(p.grad, fake.FakeGpuArray) and p.grad.device_id == 1
    p.to_device('@cupy:0')
    assert p.array.device_id == 0 and p.grad.device_id == 0
    p.to_cpu()
    assert type(p.array) is np.ndarray and type(p.grad) is np.ndarray
    np.testing.assert_array_equal(p.array, f32(2, 2))


@pytest.mark.parametrize('move, device_id', [
    (lambda p: p.to_gpu(), 0), (lambda p: p.to_gpu(1), 1),
    (lambda p: p.to_device('@cupy:1'), 1), (lambda p: p.to_device(0), 0),
])
def test_uninitialized_parameter_records_device_for_initialize(fake_gpu, move, device_id):
    p = chainer.Parameter(2.0)
    assert move(p) is None
    assert p.array is None
    p.initialize((2, 3))
    assert isinstance(p.array, fake.FakeGpuArray)
    assert p.array.device_id == device_id
    assert str(p.device) == f'@cupy:{device_id}'
    np.testing.assert_array_equal(p.array, np.full((2, 3), 2.0))
    assert isinstance(p.grad, fake.FakeGpuArray)  # NaN grad allocated there as well
    assert p.grad.device_id == device_id
    assert np.isnan(p.grad).all()


def test_uninitialized_parameter_back_to_cpu_before_initialize(fake_gpu):
    p = chainer.Parameter()
    p.to_gpu(1)
    p.to_cpu()
    p.initialize((2,))
    assert type(p.array) is np.ndarray


def test_initialized_parameter_to_gpu_then_reinitialize_stays_on_gpu(fake_gpu):
    p = chainer.Parameter(chainer.initializers.Constant(1.0), (2,))
    p.to_gpu(1)
    p.initialize((3,))
    assert isinstance(p.array, fake.FakeGpuArray) and p.array.device_id == 1


# ---- the fake GPU: no mixing ----------------------------------------------------------------

MIXED = [
    ('add', lambda a, b: a + b), ('sub', lambda a, b: a - b), ('mul', lambda a, b: a * b),
    ('div', lambda a, b: a / b), ('pow', lambda a, b: a ** b), ('matmul', lambda a, b: a @ b),
    ('F.add3', lambda a, b: F.add(a, b, a)), ('broadcast', F.broadcast),
    ('identity', F.identity),
]


@pytest.mark.parametrize('op', [m[1] for m in MIXED], ids=[m[0] for m in MIXED])
def test_op_on_cpu_and_gpu_variables_raises(fake_gpu, op):
    cpu = V(f32(3))
    gpu = V(f32(3))
    gpu.to_gpu()
    with pytest.raises(TypeError, match='incompatible array types are mixed'):
        op(cpu, gpu)
    with pytest.raises(TypeError, match='incompatible array types are mixed'):
        op(gpu, cpu)


def test_gpu_variable_with_numpy_array_operand_raises(fake_gpu):
    gpu = V(f32(3))
    gpu.to_gpu()
    with pytest.raises(TypeError, match='incompatible array types are mixed'):
        gpu * np.ones(3, np.float32)
    with pytest.raises(TypeError, match='incompatible array types are mixed'):
        np.ones(3, np.float32) + gpu


# ---- the stand-in is as strict as CuPy where NumPy meets a GPU array -------------------------

def test_strict_stand_in_refuses_implicit_conversion(strict_gpu):
    # CuPy's ndarray is not a NumPy array and NumPy never takes one silently: code that
    # passes on the stand-in must not depend on a conversion a real GPU refuses
    a = GpuDevice.from_device_id(0).send(np.array([1.0, 2.0, 3.0], np.float32))
    assert not isinstance(a, np.ndarray)
    for convert in (np.asarray, np.array, np.ascontiguousarray,
                    lambda x: np.array(x, dtype=np.float64), lambda x: np.asarray([x, x])):
        with pytest.raises(TypeError, match=fake.IMPLICIT_CONVERSION):
            convert(a)
    with pytest.raises(TypeError):
        float(a)  # more than one element: no Python scalar
    with pytest.raises(TypeError, match='next to a GPU array'):
        a + np.ones(3, np.float32)
    # the explicit ways stay open, and stay on the GPU where CuPy's do
    assert type(a.get()) is np.ndarray and a.get().tolist() == [1.0, 2.0, 3.0]
    assert type(CpuDevice().send(a)) is np.ndarray
    assert float(a[1]) == 2.0 and float(a.sum()) == 6.0
    assert type(np.exp(a)) is fake.FakeGpuArray and type(np.sum(a)) is fake.FakeGpuArray
    assert type(a * 2 + a) is fake.FakeGpuArray and (a * 2 + a).device_id == 0


def test_lenient_stand_in_lets_numpy_compare(fake_gpu):
    a = GpuDevice.from_device_id(1).send(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(a, [1.0, 2.0])  # what the tests' lenient fixture is for
    assert type(np.asarray(a)) is np.ndarray


# ---- the fake GPU: forward and backward run there -------------------------------------------

OPS = [
    ('add-sub-mul-div', lambda x: (x + 1) * x - x / 2 + 3 / x - x * x),
    ('pow', lambda x: x ** 2 + 2 ** x + x ** x),
    ('neg-abs', lambda x: -abs(x - 3)),
    ('exp-log-sin-cos-tanh', lambda x: F.exp(x / 10) + F.log(x) + F.sin(x) * F.cos(x) + F.tanh(x)),
    ('sqrt-square', lambda x: F.sqrt(x) + F.square(x)),
    ('sum-axis', lambda x: F.sum(x, axis=1)),
    ('sum-all', F.sum),
    ('mean', lambda x: F.mean(x, axis=0)),
    ('matmul', lambda x: x @ x.T),
    ('matmul-1d', lambda x: F.matmul(x[0], x[1])),
    ('get_item-repeats', lambda x: x[[0, 0, 1]]),
    ('get_item-basic', lambda x: x[1, ::-1]),
    ('get_item-mask', lambda x: x[x.array > 2]),
    ('reshape-transpose', lambda x: F.transpose(F.reshape(x, (3, 2)))),
    ('broadcast_to-sum_to', lambda x: F.sum_to(F.broadcast_to(x, (4, 2, 3)), (2, 1))),
    ('broadcast', lambda x: F.broadcast(x, x[0])[1]),
    ('squeeze-expand_dims', lambda x: F.squeeze(F.expand_dims(x, 1))),
    ('cast', lambda x: F.cast(x, np.float64)),
    ('identity', F.identity),
]


def _run(x_array, op, gy=None):
    x = V(x_array)
    y = op(x)
    if gy is None:
        gy = y.xp.full_like(y.array, 0.5)
    y.grad = gy
    y.backward()
    return x, y


@pytest.mark.parametrize('device_id', [0, 1])
@pytest.mark.parametrize('op', [o[1] for o in OPS], ids=[o[0] for o in OPS])
def test_forward_backward_on_fake_gpu(fake_gpu, op, device_id):
    a = f32(2, 3)
    cpu_x, cpu_y = _run(a.copy(), op)
    gpu_x, gpu_y = _run(fake.to_device(a, device_id), op)
    assert isinstance(gpu_y.array, fake.FakeGpuArray)
    assert gpu_y.array.device_id == device_id
    assert isinstance(gpu_x.grad, fake.FakeGpuArray)
    assert gpu_x.grad.device_id == device_id
    assert gpu_x.grad.dtype == np.float32
    np.testing.assert_allclose(gpu_y.array.get(), cpu_y.array, rtol=1e-6)
    np.testing.assert_allclose(gpu_x.grad.get(), cpu_x.grad, rtol=1e-6)


def test_backward_seeds_scalar_on_the_gpu(fake_gpu):
    x = V(f32(2, 3))
    x.to_gpu(1)
    y = F.sum(x * x)
    y.backward()
    assert isinstance(x.grad, fake.FakeGpuArray) and x.grad.device_id == 1
    np.testing.assert_array_equal(x.grad.get(), 2 * f32(2, 3))


def test_double_backprop_on_fake_gpu(fake_gpu):
    x = V(np.array([1.0, 2.0]))
    x.to_gpu()
    gx, = chainer.grad([F.sum(x ** 3)], [x], enable_double_backprop=True)
    assert isinstance(gx.array, fake.FakeGpuArray)
    ggx, = chainer.grad([F.sum(gx)], [x])
    assert isinstance(ggx.array, fake.FakeGpuArray)
    np.testing.assert_allclose(ggx.array.get(), [6, 12])


def test_floor_division_on_fake_gpu(fake_gpu):
    x = V(np.array([7.0, -7.0], np.float32))
    x.to_gpu()
    y = x // 3
    assert isinstance(y.array, fake.FakeGpuArray)
    assert y.creator is None
    np.testing.assert_array_equal(y.array.get(), [2, -3])


def test_copy_between_cpu_and_gpu_is_differentiable(fake_gpu):
    x = V(f32(3))
    y = F.copy(x, '@cupy:1')
    assert isinstance(y.array, fake.FakeGpuArray) and y.array.device_id == 1
    z = F.copy(y * 2, -1)
    assert type(z.array) is np.ndarray
    z.grad = np.ones(3, np.float32)
    z.backward()
    assert type(x.grad) is np.ndarray
    np.testing.assert_array_equal(x.grad, [2, 2, 2])


def test_addgrad_and_copydata_across_devices(fake_gpu):
    src = V(f32(3))
    src.grad = np.ones(3, np.float32)
    dst = V(f32(3))
    dst.to_gpu()
    dst.grad = fake.to_device(np.full(3, 2.0, np.float32), 0)
    dst.addgrad(src)
    assert isinstance(dst.grad, fake.FakeGpuArray)
    np.testing.assert_array_equal(dst.grad.get(), [3, 3, 3])
    dst.copydata(V(np.array([7.0, 8.0, 9.0])))
    assert isinstance(dst.array, fake.FakeGpuArray)
    np.testing.assert_array_equal(dst.array.get(), [7, 8, 9])


def test_parameter_on_fake_gpu_trains_one_step(fake_gpu):
    p = chainer.Parameter(np.array([1.0, -2.0], np.float32))
    p.to_gpu()
    p.cleargrad()
    loss = F.sum(p * p)
    loss.backward()
    assert isinstance(p.grad, fake.FakeGpuArray)
    p.array -= 0.25 * p.grad
    np.testing.assert_allclose(p.array.get(), [0.5, -1.0])


# ---- real CuPy ---------------------------------------------------------------------------------


@pytest.mark.gpu
def test_cupy_variable_round_trip(cupy_gpu):
    cp = cupy_gpu
    x = V(f32(2, 3))
    x.grad = np.ones((2, 3), np.float32)
    x.to_gpu()
    assert isinstance(x.array, cp.ndarray) and isinstance(x.grad, cp.ndarray)
    assert str(x.device) == '@cupy:0'
    assert x.xp is cp
    x.to_cpu()
    assert type(x.array) is np.ndarray and type(x.grad) is np.ndarray
    np.testing.assert_array_equal(x.array, f32(2, 3))
    x.to_device('@cupy:0')
    assert isinstance(x.array, cp.ndarray)
    x.to_device('@numpy')
    assert type(x.array) is np.ndarray


@pytest.mark.gpu
def test_cupy_parameter_round_trip(cupy_gpu):
    cp = cupy_gpu
    p = chainer.Parameter(f32(2))
    p.to_gpu()
    assert isinstance(p.array, cp.ndarray)
    p.to_cpu()
    assert type(p.array) is np.ndarray
    q = chainer.Parameter(3.0)
    q.to_gpu()
    q.initialize((2,))
    assert isinstance(q.array, cp.ndarray) and isinstance(q.grad, cp.ndarray)


@pytest.mark.gpu
def test_cupy_second_device(cupy_gpu):
    cp = cupy_gpu
    if cp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('needs two CUDA GPUs')
    x = V(f32(3))
    x.to_gpu(1)
    assert x.array.device.id == 1
    assert str(x.device) == '@cupy:1'
    assert x.device != chainer.get_device('@cupy:0')


@pytest.mark.gpu
def test_cupy_no_mixing(cupy_gpu):
    gpu = V(f32(3))
    gpu.to_gpu()
    with pytest.raises(TypeError, match='incompatible array types are mixed'):
        V(f32(3)) + gpu


@pytest.mark.gpu
@pytest.mark.parametrize('op', [o[1] for o in OPS], ids=[o[0] for o in OPS])
def test_cupy_forward_backward(cupy_gpu, op):
    cp = cupy_gpu
    a = f32(2, 3)
    cpu_x, cpu_y = _run(a.copy(), op)
    gpu_x, gpu_y = _run(cp.asarray(a), op)
    assert isinstance(gpu_y.array, cp.ndarray)
    assert isinstance(gpu_x.grad, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(gpu_y.array), cpu_y.array, rtol=1e-5)
    np.testing.assert_allclose(cp.asnumpy(gpu_x.grad), cpu_x.grad, rtol=1e-5)
