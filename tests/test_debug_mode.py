"""Debug mode (issue 18, difference 3): Chainer 7.8.1's checks while ``config.debug`` is on.

Messages are checked against Chainer's wording; tests/test_differential_chainer.py runs
the same cases under Chainer itself.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import configuration


def node_returning(gradient):
    """A FunctionNode ``2 * x`` whose backward returns ``gradient(gy)`` as given."""

    class Returns(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            return gradient(grad_outputs[0])

    return Returns()


def backward_in_debug(gradient, x=None):
    x = chainer.Variable(np.ones(2, np.float32)) if x is None else x
    with chainer.using_config('debug', True):
        y, = node_returning(gradient).apply((x,))
        y.grad = np.ones(2, np.float32)
        y.backward()
    return x


def test_is_debug_set_debug_and_the_deprecated_context():
    assert chainer.is_debug() is False
    chainer.set_debug(True)
    try:
        assert chainer.is_debug() is True and chainer.config.debug is True
    finally:
        chainer.set_debug(False)
    with pytest.warns(DeprecationWarning, match='chainer.DebugMode is deprecated'):
        mode = chainer.DebugMode(True)
    with mode:
        assert chainer.is_debug()
    assert not chainer.is_debug()


def test_nan_in_a_forward_output_is_reported_and_nothing_is_linked():
    x = chainer.Variable(np.array([1.0, 2.0], np.float32))
    assert np.isnan((x * np.nan).array).all()  # debug off: no check
    with chainer.using_config('debug', True):
        with pytest.raises(RuntimeError, match=r'^NaN is detected on forward computation of '
                                               r'_ \* nan$'):
            x * np.nan
        assert (x * 2).array.tolist() == [2.0, 4.0]


def test_nan_in_a_gradient_is_reported():
    message = r'NaN is detected on backward computation of Returns'
    x = backward_in_debug(lambda gy: (chainer.Variable(np.full(2, 3.0, np.float32)),))
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match=message):
        backward_in_debug(lambda gy: (chainer.Variable(np.full(2, np.nan, np.float32)),))
    # without debug mode the NaN passes silently, as in Chainer
    x = chainer.Variable(np.ones(2, np.float32))
    y, = node_returning(lambda gy: (gy * np.nan,)).apply((x,))
    y.grad = np.ones(2, np.float32)
    y.backward()
    assert np.isnan(x.grad).all()


def test_a_nan_made_inside_backward_names_that_operation_and_the_stack():
    x = chainer.Variable(np.ones(2, np.float32))
    with chainer.using_config('debug', True):
        y, = node_returning(lambda gy: (gy * np.nan,)).apply((x,))  # the line reported
        y.grad = np.ones(2, np.float32)
        with pytest.raises(RuntimeError) as info:
            y.backward()
    text = str(info.value)
    assert text.startswith('NaN is detected on forward computation of _ * nan\n---')
    assert 'Stacktrace of the function is below:' in text
    assert 'y, = node_returning(lambda gy: (gy * np.nan,)).apply((x,))' in text
    assert x.grad is None  # the failed backward changed nothing


@pytest.mark.parametrize('gradient, error, message', [
    (lambda gy: (chainer.Variable(np.ones(3, np.float32)),), ValueError,
     r'^shape of gradients returned from backward is incorrect: input-index=0, actual '
     r'\(3,\) != expected \(2,\)\n  function=Returns \(Returns\)\n    input 0: shape=\(2,\) '
     r'dtype=float32\n    output 0: shape=\(2,\) dtype=float32$'),
    (lambda gy: (gy.array,), ValueError,
     r"^type of gradients returned from backward is incorrect: <class 'numpy.ndarray'> != "
     r"expected <class 'autograd_lab.variable.Variable'>\n  function=Returns"),
    (lambda gy: (gy, gy), ValueError,
     r'^number of gradients returned from backward is incorrect: 2 != expected 1\n'),
    (lambda gy: gy.array, ValueError,  # not even a tuple: its elements are not Variables
     r'^type of gradients returned from backward is incorrect'),
    (lambda gy: (chainer.Variable(np.ones(2, np.float64)),), TypeError,
     r'has dtype float64, but the input has dtype float32'),
], ids=['shape', 'array-not-variable', 'count', 'bare-array', 'dtype'])
def test_wrong_gradients_get_chainers_debug_messages(gradient, error, message):
    with pytest.raises(error, match=message):
        backward_in_debug(gradient)


def test_dtype_against_an_accumulated_gradient():
    x = chainer.Variable(np.ones(2, np.float32))
    x.grad = np.ones(2, np.float32)
    with pytest.raises(ValueError, match=r'^dtype of gradients returned from backward is '
                                         r'incorrect: input-index=0, actual float64 != '
                                         r'expected float32'):
        backward_in_debug(lambda gy: (chainer.Variable(np.ones(2, np.float64)),), x)
    assert x.grad.tolist() == [1.0, 1.0]


def test_without_debug_mode_an_array_gradient_is_accepted():
    x = chainer.Variable(np.ones(2, np.float32))
    y, = node_returning(lambda gy: (gy.array * 3,)).apply((x,))
    y.grad = np.ones(2, np.float32)
    y.backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_debug_checks_run_on_the_variable_path_of_built_in_functions():
    # Built-in nodes have an array fast path (backward_arrays); debug mode takes the
    # Variable path, whose results it can check.
    x = chainer.Variable(np.array([0.0, 1.0], np.float32))
    with chainer.using_config('debug', True):
        y = F.sum(F.exp(x) * 2)
        y.backward()
    np.testing.assert_allclose(x.grad, 2 * np.exp([0.0, 1.0]), rtol=1e-6)


def test_backward_errors_of_nodes_applied_in_debug_mode_carry_their_stack():
    class Boom(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0] + 0,

        def backward(self, indexes, grad_outputs):
            raise ZeroDivisionError('boom')

    x = chainer.Variable(np.ones(2, np.float32))
    with chainer.using_config('debug', True):
        y, = Boom().apply((x,))
    assert y.creator.stack is not None
    with pytest.raises(ZeroDivisionError, match=r'^boom\n-+\nStacktrace of the function '
                                                r'is below:\n'):
        F.sum(y).backward()  # debug mode is off now: the stack was kept at apply time
    y2, = Boom().apply((x,))
    assert y2.creator.stack is None
    with pytest.raises(ZeroDivisionError, match=r'^boom$'):
        F.sum(y2).backward()


def test_debug_mode_costs_nothing_until_it_is_first_switched_on():
    # In a fresh interpreter the engine never reads config.debug: the flag stays False.
    code = ('import numpy as np, autograd_lab as chainer\n'
            'from autograd_lab import configuration as c\n'
            'x = chainer.Variable(np.ones(3)); (x * x).backward if False else None\n'
            'import autograd_lab.functions as F; F.sum(x * x).backward()\n'
            'print(c.debug_used)\n'
            'with chainer.using_config("debug", False): pass\n'
            'print(c.debug_used)\n'
            'with chainer.using_config("debug", True): pass\n'
            'print(c.debug_used)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ['False', 'False', 'True']


@pytest.mark.parametrize('switch', [
    lambda: setattr(chainer.config, 'debug', True),
    lambda: chainer.set_debug(True),
    lambda: setattr(chainer.global_config, 'debug', True),
], ids=['config', 'set_debug', 'global_config'])
def test_every_way_of_switching_debug_on_is_noticed(switch, monkeypatch):
    monkeypatch.setattr(configuration, 'debug_used', False)
    try:
        switch()
        assert configuration.debug_used
        x = chainer.Variable(np.ones(1, np.float32))
        with pytest.raises(RuntimeError, match='NaN is detected'):
            x * np.nan
    finally:
        vars(chainer.config).pop('debug', None)  # this thread's own value, if set
        chainer.global_config.debug = False
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert (x * 2).array.tolist() == [2.0]


def test_split_axis_wants_sorted_indices_in_debug_mode():
    x = np.zeros((2, 3, 4), np.float32)
    assert [y.shape[1] for y in F.split_axis(x, [2, 1], 1)] == [2, 0, 2]  # as NumPy
    with chainer.using_config('debug', True), \
            pytest.raises(ValueError, match=r'^indices_or_sections must be sorted$'):
        F.split_axis(x, [2, 1], 1)
