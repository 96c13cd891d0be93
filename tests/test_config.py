"""no_backprop_mode / force_backprop_mode / using_config (spec section 8, quirk Q11).

Expected values come from the spec and were checked against Chainer 7.8.1.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import autograd_lab as chainer
from autograd_lab import Variable


def f32(*values):
    return np.array(values, dtype=np.float32)


def in_thread(func):
    """Run ``func`` in a new thread and return its result (re-raising its error)."""
    box = {}

    def target():
        try:
            box['value'] = func()
        except BaseException as error:  # pragma: no cover - only on failure
            box['error'] = error

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if 'error' in box:  # pragma: no cover
        raise box['error']
    return box['value']


class TestDefaults:
    def test_defaults(self):
        c = chainer.config
        assert c.enable_backprop is True
        assert c.dtype == np.float32
        assert c.type_check is True
        assert c.debug is False
        assert c.train is True
        assert c.lazy_grad_sum is False


class TestBackpropModes:
    def test_no_backprop_mode_sets_enable_backprop(self):
        with chainer.no_backprop_mode():
            assert chainer.config.enable_backprop is False
        assert chainer.config.enable_backprop is True

    def test_force_backprop_mode_inside_no_backprop_mode(self):
        with chainer.no_backprop_mode():
            with chainer.force_backprop_mode():
                assert chainer.config.enable_backprop is True
                y = Variable(f32(1)) * 2
            assert chainer.config.enable_backprop is False
        assert y.creator is not None

    def test_same_kind_nesting_keeps_the_outer_one(self):
        with chainer.no_backprop_mode():
            with chainer.no_backprop_mode():
                pass
            assert chainer.config.enable_backprop is False
        assert chainer.config.enable_backprop is True
        with chainer.force_backprop_mode():
            with chainer.force_backprop_mode():
                pass
            assert chainer.config.enable_backprop is True

    def test_exceptions_restore_the_previous_value(self):
        with pytest.raises(ValueError):
            with chainer.no_backprop_mode():
                with chainer.force_backprop_mode():
                    assert chainer.config.enable_backprop is True
                    raise ValueError
        assert chainer.config.enable_backprop is True
        with chainer.no_backprop_mode():
            with pytest.raises(KeyError):
                with chainer.force_backprop_mode():
                    raise KeyError
            assert chainer.config.enable_backprop is False

    def test_context_objects_are_not_decorators(self):  # quirk Q11
        for mode in (chainer.no_backprop_mode, chainer.force_backprop_mode):
            ctx = mode()
            assert hasattr(ctx, '__enter__') and hasattr(ctx, '__exit__')
            with pytest.raises(TypeError):
                ctx(lambda: None)

    def test_same_as_using_config(self):
        with chainer.using_config('enable_backprop', False):
            y = Variable(f32(1)) * 2
        assert y.creator is None
        with chainer.no_backprop_mode(), chainer.using_config('enable_backprop', True):
            y = Variable(f32(1)) * 2
        assert y.creator is not None

    def test_outputs_inside_no_backprop_mode(self):
        x = Variable(np.array(2.0, np.float32))
        c = Variable(np.array(2.0, np.float32), requires_grad=False)
        with chainer.no_backprop_mode():
            y = x * 3
            k = c * 3
        assert y.creator is None and y.rank == 0 and y.requires_grad is True
        assert k.requires_grad is False
        y.backward()
        assert x.grad is None
        assert y.grad == 1

    def test_forward_hooks_fire_under_no_backprop_mode(self):
        seen = []

        class Hook(chainer.FunctionHook):
            name = 'Hook'

            def forward_preprocess(self, function, in_data):
                seen.append(('pre', function.label))

            def forward_postprocess(self, function, in_data):
                seen.append(('post', function.label))

        x = Variable(f32(1, 2))
        with Hook(), chainer.no_backprop_mode():
            chainer.functions.exp(x)
        assert seen == [('pre', 'exp'), ('post', 'exp')]


class TestUsingConfig:
    def test_nesting_restores(self):
        with chainer.using_config('train', False):
            assert chainer.config.train is False
            with chainer.using_config('train', True):
                assert chainer.config.train is True
            assert chainer.config.train is False
        assert chainer.config.train is True

    def test_new_key_is_removed_on_exit(self):
        with chainer.using_config('autograd_lab_test_key', 3):
            assert chainer.config.autograd_lab_test_key == 3
        with pytest.raises(AttributeError):
            chainer.config.autograd_lab_test_key

    def test_exception_restores(self):
        with pytest.raises(RuntimeError):
            with chainer.using_config('dtype', np.float64):
                assert chainer.config.dtype == np.float64
                raise RuntimeError
        assert chainer.config.dtype == np.float32

    def test_global_config_is_the_fallback_of_every_thread(self):
        old = chainer.global_config.train
        try:
            chainer.global_config.train = False
            assert chainer.config.train is False
            with chainer.using_config('train', True):
                assert chainer.config.train is True
                assert in_thread(lambda: chainer.config.train) is False
        finally:
            chainer.global_config.train = old
        assert chainer.config.train is True


class TestThreadLocality:
    def test_mode_does_not_leak_into_other_threads(self):
        def worker():
            before = chainer.config.enable_backprop
            y = Variable(f32(1)) * 2
            with chainer.no_backprop_mode():
                inside = chainer.config.enable_backprop
            return before, inside, y.creator is not None

        with chainer.no_backprop_mode():
            assert in_thread(worker) == (True, False, True)
            assert chainer.config.enable_backprop is False

    def test_other_threads_do_not_leak_into_this_one(self):
        started = threading.Event()
        release = threading.Event()
        seen = {}

        def worker():
            with chainer.no_backprop_mode(), chainer.using_config('train', False):
                started.set()
                release.wait(5)
                seen['worker'] = (chainer.config.enable_backprop, chainer.config.train)

        t = threading.Thread(target=worker)
        t.start()
        assert started.wait(5)
        try:
            assert chainer.config.enable_backprop is True
            assert chainer.config.train is True
            y = Variable(f32(1)) * 2
            assert y.creator is not None
        finally:
            release.set()
            t.join()
        assert seen['worker'] == (False, False)
