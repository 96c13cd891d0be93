"""Chainer's device API that ported code imports (issue 18): ``using_device``, Device
methods, ``chainer.backends.cuda`` / ``chainer.cuda`` without CuPy, ``backends.intel64``.

The GPU paths run against the NumPy-backed fake GPU of autograd_lab/testing/fake_gpu.py.
"""

from __future__ import annotations

import importlib
import pickle

import numpy as np
import pytest

import autograd_lab as chainer
from autograd_lab import backend
from autograd_lab.backends import cuda, intel64

CUDA_ERROR = r'CUDA environment is not correctly set up'


# ---- using_device and Device --------------------------------------------------------------

def test_using_device_on_the_cpu_runs_the_block():
    with chainer.using_device('@numpy'):
        x = chainer.Variable(np.ones(2))
        y = x * 2
    assert y.device == backend.CpuDevice()
    with chainer.using_device(backend.CpuDevice()), chainer.using_device(-1):
        pass
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        chainer.using_device('native:0')
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        chainer.using_device('@intel64')


def test_using_device_without_a_gpu_raises(no_gpu):
    with pytest.raises(RuntimeError, match=CUDA_ERROR):
        chainer.using_device('@cupy:0')


def test_using_device_makes_a_gpu_current_and_restores_it(fake_gpu):
    from autograd_lab.testing import fake_gpu as fake
    assert fake._current['device'] == 0
    with chainer.using_device('@cupy:1'):
        assert fake._current['device'] == 1
        with chainer.using_device(0):
            assert fake._current['device'] == 0
        assert fake._current['device'] == 1
    assert fake._current['device'] == 0


def test_a_device_is_not_a_context_manager():
    with pytest.raises(RuntimeError, match=r'Device class does not support runtime context '
                                           r'using `with` statement. Use chainer.using_device '
                                           r'instead.'):
        with backend.CpuDevice():
            pass


def test_send_converts_lists_and_tuples_and_keeps_none_and_identity():
    a, b = np.zeros(2), np.ones(3)
    cpu = backend.CpuDevice()
    out = cpu.send((a, None, b, a))
    assert type(out) is tuple and out[0] is a and out[1] is None and out[2] is b
    assert out[3] is out[0]
    out = cpu.send([np.float32(1.5), 2])
    assert type(out) is list
    assert out[0].dtype == np.float32 and out[0].shape == () and out[1].shape == ()
    assert cpu.send(a) is a


def test_supported_array_types_and_is_array_supported(fake_gpu):
    from autograd_lab.testing import fake_gpu as fake
    cpu, gpu = backend.CpuDevice(), backend.get_device('@cupy:1')
    assert cpu.supported_array_types == (np.ndarray,)
    assert gpu.supported_array_types == (fake.FakeGpuArray,)
    on_gpu = gpu.send(np.ones(2))
    assert gpu.is_array_supported(on_gpu) and not gpu.is_array_supported(np.ones(2))
    assert cpu.is_array_supported(np.ones(2)) and not cpu.is_array_supported(on_gpu)
    assert not backend.get_device('@cupy:0').is_array_supported(on_gpu)
    assert backend.GpuDevice.from_array(on_gpu) == gpu
    assert backend.GpuDevice.from_array(np.ones(1)) is None
    assert backend.CpuDevice.from_array(np.ones(1)) == cpu
    assert backend.get_device_from_array(np.ones(1), on_gpu) == gpu
    with pytest.raises(ValueError, match='Invalid CUDA device ID: -1'):
        backend.GpuDevice.from_device_id(-1)


@pytest.mark.parametrize('spec, error, message', [
    ('@foo', ValueError, "must be followed by a module name and depending on the module, "
                         "module specific precise device specifiers. Actual: @foo"),
    ('@numpy:0', ValueError, 'Actual: @numpy:0'),
    ('@cupy', ValueError, 'Actual: @cupy'),
    (1.5, TypeError, "Device specifier must be a backend.Device, cuda.Device, "
                     "chainerx.Device, integer or a string. Actual: <class 'float'>"),
    ('native:0', RuntimeError, "Tried to parse ChainerX device specifier 'native:0', but "
                               "ChainerX is not available."),
    ('@intel64', RuntimeError, 'iDeep is not available.'),
])
def test_get_device_errors_are_chainers(spec, error, message):
    with pytest.raises(error) as info:
        chainer.get_device(spec)
    assert message in str(info.value)


def test_string_integers_name_devices(no_gpu):
    assert chainer.get_device('-1') == backend.CpuDevice()
    with pytest.raises(RuntimeError, match=CUDA_ERROR):
        chainer.get_device('0')


def test_chainerx_and_intel64_devices_cannot_be_made_but_can_be_tested_for():
    x = np.ones(2)
    assert backend.ChainerxDevice.from_array(x) is None
    assert backend.Intel64Device.from_array(x) is None
    assert not isinstance(backend.get_device_from_array(x), backend.ChainerxDevice)
    with pytest.raises(RuntimeError, match=r'ChainerX is not available.'):
        backend.ChainerxDevice(None)
    with pytest.raises(RuntimeError, match=r'iDeep is not available.'):
        backend.Intel64Device()
    with pytest.raises(RuntimeError, match=r'ChainerX is not available.'):
        backend.to_chx(x)
    assert backend.from_chx(x) is x and backend.from_chx((x,))[0] is x


def test_gpu_device_pickles_by_name(fake_gpu):
    gpu = backend.get_device('@cupy:1')
    assert pickle.loads(pickle.dumps(gpu)) == gpu


# ---- chainer.backends.cuda without a GPU ----------------------------------------------------

def test_cuda_module_without_a_gpu(no_gpu):
    assert cuda.available is False and cuda.cudnn_enabled is False
    assert not isinstance(np.ones(1), cuda.ndarray)
    assert np is not cuda.cupy  # ``xp is cuda.cupy`` is simply False
    assert cuda.get_array_module(np.ones(1)) is np
    assert cuda.get_array_module(chainer.Variable(np.ones(1))) is np
    a = np.ones(2)
    assert cuda.to_cpu(a) is a
    assert cuda.to_cpu(None) is None
    assert cuda.to_cpu(np.float64(2.0)).shape == ()
    out = cuda.to_cpu((a, None))
    assert out[0] is a and out[1] is None
    assert cuda.get_device_from_array(a) is cuda.DummyDevice
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    assert cuda.get_device_from_id(-1) is cuda.DummyDevice
    with cuda.DummyDevice as device:
        device.use()
        device.synchronize()
    assert int(cuda.DummyDevice) == -1 and cuda.DummyDevice == cuda.DummyDeviceType()
    for call in (lambda: cuda.to_gpu(a), cuda.check_cuda_available,
                 lambda: cuda.copy(a), lambda: cuda.get_device_from_id(0),
                 lambda: cuda.elementwise('T x', 'T y', 'y = x', 'k')):
        with pytest.raises(RuntimeError, match=CUDA_ERROR):
            call()
    with pytest.warns(DeprecationWarning, match='get_device is deprecated'):
        assert cuda.get_device(a) is cuda.DummyDevice


def test_cuda_helpers_that_are_no_ops_without_a_gpu(no_gpu):
    def twice(v):
        return 2 * v

    assert cuda.fuse(twice) is twice
    assert cuda.fuse()(twice) is twice
    memo = cuda.memoize()(twice)
    assert memo(3) == 6 and memo.__name__ == 'twice'
    cuda.clear_memo()
    assert cuda.get_max_workspace_size() == 0
    cuda.set_max_workspace_size(10)
    assert cuda.should_use_cudnn('>=auto') is False
    assert chainer.should_use_cudnn('==always') is False
    assert cuda.should_use_cudnn_tensor_core(np.float16) is False
    with chainer.using_config('use_cudnn_tensor_core', 'bogus'), \
            pytest.raises(ValueError, match='invalid use_cudnn_tensor_core configuration'):
        cuda.should_use_cudnn_tensor_core(np.float16)
    with pytest.raises(RuntimeError, match=r'cuDNN is not enabled.'):
        cuda.get_cudnn_dropout_states()


def test_cuda_module_with_a_gpu(fake_gpu):
    from autograd_lab.testing import fake_gpu as fake
    assert cuda.available is True
    assert cuda.cupy is fake_gpu.xp and cuda.ndarray is fake.FakeGpuArray
    g = cuda.to_gpu(np.arange(3.0), device=1)
    assert isinstance(g, cuda.ndarray) and g.device_id == 1
    assert cuda.to_gpu(g, 1) is g
    assert cuda.to_gpu(np.ones(1)).device_id == 0  # the current device
    pair = cuda.to_gpu([np.ones(1), None], 1)
    assert pair[0].device_id == 1 and pair[1] is None
    back = cuda.to_cpu(g)
    assert type(back) is np.ndarray and back.tolist() == [0.0, 1.0, 2.0]
    assert cuda.get_array_module(g) is fake_gpu.xp
    copied = cuda.copy(g)
    assert copied is not g and copied.device_id == 1 and copied.tolist() == g.tolist()
    assert cuda.copy(g, out_device=0).device_id == 0
    with pytest.raises(TypeError, match='The array sent to gpu must be an array'):
        cuda.to_gpu('text')
    with pytest.raises(ValueError, match='Invalid CUDA device specifier'):
        cuda.to_gpu(np.ones(1), device=-3)


def test_chainer_cuda_is_the_same_module():
    assert chainer.cuda is cuda
    assert importlib.import_module('autograd_lab.cuda') is cuda
    assert chainer.backends.cuda is cuda


def test_array_type_helpers(fake_gpu):
    from autograd_lab.testing import fake_gpu as fake
    assert chainer.get_array_types() == (np.ndarray, fake.FakeGpuArray)
    assert chainer.get_cpu_array_types() == (np.ndarray,)
    g = cuda.to_gpu(np.ones(1))
    assert chainer.is_arrays_compatible([g, None, g])
    assert not chainer.is_arrays_compatible([g, np.ones(1)])
    assert chainer.is_arrays_compatible([])


# ---- chainer.backends.intel64 ---------------------------------------------------------------

def test_intel64_module_says_no():
    assert intel64.is_ideep_available() is False
    assert intel64.should_use_ideep('==always') is False
    assert intel64.inputs_all_ready([np.ones((2, 2))]) is False
    assert not isinstance(np.ones(1), intel64.mdarray)
    assert intel64.ideep is None
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        intel64.check_ideep_available()
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        chainer.Variable(np.ones(1)).to_intel64()
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        chainer.Link().to_intel64()
