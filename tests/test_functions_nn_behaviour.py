"""Behaviour of the neural-network functions beyond the generic table of
``test_functions_nn.py``: options (ignore_label, class_weight, reduce, normalize, soft
targets, cover_all, groups, n_batch_axes, ...), ``config.train`` for dropout and batch
normalization, running statistics, exact arithmetic of ``linear``, errors other than
``InvalidType``, and the device-generic code paths (on the NumPy-backed fake GPU).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable, backend

f32, f64, i32 = np.float32, np.float64, np.int32


def rand(*shape: int, dtype: type = f64, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


# ---- activations ---------------------------------------------------------------------------------


def test_relu_keeps_dtype_and_zero_dim() -> None:
    y = F.relu(np.array(-3.0, np.float16))
    assert y.dtype == np.float16 and y.shape == () and type(y.array) is np.ndarray


def test_activations_do_not_overflow_for_large_inputs() -> None:
    x = np.array([-1000.0, -30.0, 0.5, 30.0, 1000.0], f32)
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # no overflow RuntimeWarning from exp
        # tanh(x/2)/2 + 1/2, as in Chainer 7.8.1: float32 sigmoid(-30) is exactly 0
        np.testing.assert_allclose(F.sigmoid(x).array, [0, 0, 0.62245935, 1, 1], rtol=1e-6)
        np.testing.assert_allclose(F.softplus(x).array, [0, 9.357623e-14, 0.974077, 30, 1000],
                                   rtol=1e-6)
        np.testing.assert_allclose(F.elu(x).array, [-1, -1, 0.5, 30, 1000])
        np.testing.assert_allclose(F.log_softmax(x[None]).array[0, -1], 0.0)
        v = Variable(x)
        F.sum(F.softplus(v) + F.sigmoid(v) + F.elu(v)).backward()
        assert np.isfinite(v.grad).all()


def test_selu_is_scaled_elu() -> None:
    x = rand(5)
    np.testing.assert_allclose(F.selu(x, alpha=2.0, scale=3.0).array,
                               3.0 * F.elu(x, alpha=2.0).array)


def test_softmax_rows_sum_to_one_along_axis() -> None:
    x = rand(2, 3, 4) * 50
    for axis in (0, 1, 2, -1):
        np.testing.assert_allclose(F.softmax(x, axis=axis).array.sum(axis=axis), 1.0)
        np.testing.assert_allclose(np.exp(F.log_softmax(x, axis=axis).array),
                                   F.softmax(x, axis=axis).array, rtol=1e-12)


def test_swish_beta_broadcasts_over_the_leading_axes() -> None:
    x, beta = rand(2, 3, 4), rand(3, 4, seed=1)
    expected = x / (1 + np.exp(-beta[None] * x))
    np.testing.assert_allclose(F.swish(x, beta).array, expected)


# ---- softmax cross entropy ----------------------------------------------------------------------


def test_softmax_cross_entropy_ignore_label_and_normalize() -> None:
    x = rand(4, 3)
    t = np.array([0, -1, 2, 5], i32)
    log_p = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    picked = np.array([log_p[0, 0], log_p[2, 2], log_p[3, 0]])
    # ignore_label=5: the -1 row is then an ordinary (invalid) label under normalize
    y = F.softmax_cross_entropy(x, np.array([0, 1, 2, 5], i32), ignore_label=5)
    np.testing.assert_allclose(y.array, -(log_p[0, 0] + log_p[1, 1] + log_p[2, 2]) / 3)
    y = F.softmax_cross_entropy(x, np.where(t == 5, -1, t), normalize=False)
    np.testing.assert_allclose(y.array, -(picked[0] + picked[1]) / 4)
    y = F.softmax_cross_entropy(x, np.where(t == 5, -1, t))
    np.testing.assert_allclose(y.array, -(picked[0] + picked[1]) / 2)


def test_softmax_cross_entropy_all_ignored_is_zero_with_zero_gradient() -> None:
    x = Variable(rand(2, 3))
    y = F.softmax_cross_entropy(x, np.array([-1, -1], i32))
    y.backward()
    assert y.array == 0
    np.testing.assert_array_equal(x.grad, 0)


def test_softmax_cross_entropy_reduce_no_gradient_is_per_sample() -> None:
    x = Variable(rand(3, 4))
    t = np.array([1, -1, 3], i32)
    y = F.softmax_cross_entropy(x, t, reduce='no')
    assert y.shape == (3,) and y.array[1] == 0
    y.grad = np.array([1.0, 5.0, 2.0])
    y.backward()
    p = np.exp(x.array) / np.exp(x.array).sum(axis=1, keepdims=True)
    expected = p - np.eye(4)[[1, 0, 3]]
    expected *= np.array([1.0, 0.0, 2.0])[:, None]
    np.testing.assert_allclose(x.grad, expected)


def test_softmax_cross_entropy_nd_input_uses_axis_1_for_classes() -> None:
    x = rand(2, 3, 4)
    t = np.random.RandomState(1).randint(0, 3, (2, 4)).astype(i32)
    flat = F.softmax_cross_entropy(x.transpose(0, 2, 1).reshape(8, 3), t.reshape(8))
    np.testing.assert_allclose(F.softmax_cross_entropy(x, t).array, flat.array)


def test_softmax_cross_entropy_double_backprop_variant_agrees() -> None:
    x = rand(3, 4, 2)
    t = np.array([[0, 3], [-1, 1], [2, 2]], i32)
    cw = np.array([1.0, 2.0, 0.5, 1.5], f32)
    for kw in ({}, dict(reduce='no'), dict(normalize=False), dict(class_weight=cw)):
        xa, xb = Variable(x.copy()), Variable(x.copy())
        ya = F.softmax_cross_entropy(xa, t, **kw)
        yb = F.softmax_cross_entropy(xb, t, enable_double_backprop=True, **kw)
        np.testing.assert_allclose(ya.array, yb.array, rtol=1e-12)
        F.sum(ya * ya).backward()
        F.sum(yb * yb).backward()
        np.testing.assert_allclose(xa.grad, xb.grad, rtol=1e-10, atol=1e-14)


def test_softmax_cross_entropy_float16_reduces_in_float32() -> None:
    x = np.full((4096, 2), 0, np.float16)
    t = np.zeros(4096, i32)
    y = F.softmax_cross_entropy(x, t)
    assert y.dtype == np.float16
    np.testing.assert_allclose(float(y.array), np.log(2), rtol=1e-3)


def test_softmax_cross_entropy_soft_targets_kl_divergence() -> None:
    x = rand(2, 3)
    t = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    log_p = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    kl = (t * (np.log(t + 1e-7) - log_p)).sum(axis=1)
    y = F.softmax_cross_entropy(x, t, soft_target_loss='kl-divergence', reduce='no')
    np.testing.assert_allclose(y.array, kl)
    y = F.softmax_cross_entropy(x, t, soft_target_loss='kl-divergence')
    np.testing.assert_allclose(y.array, kl.mean())


def test_softmax_cross_entropy_cache_score_does_not_change_gradients() -> None:
    x = rand(3, 4)
    t = np.array([0, 1, 2], i32)
    grads = []
    for cache in (True, False):
        v = Variable(x.copy())
        F.softmax_cross_entropy(v, t, cache_score=cache).backward()
        grads.append(v.grad)
    np.testing.assert_array_equal(grads[0], grads[1])


def test_softmax_cross_entropy_option_errors() -> None:
    x, t = rand(2, 3), np.array([0, 1], i32)
    with pytest.raises(ValueError, match='reduce'):
        F.softmax_cross_entropy(x, t, reduce='sum')
    with pytest.raises(ValueError, match='soft_target_loss'):
        F.softmax_cross_entropy(x, t, soft_target_loss='mse')
    with pytest.raises(ValueError, match=r'class_weight\.ndim'):
        F.softmax_cross_entropy(x, t, class_weight=np.ones((3, 1), f32))
    with pytest.raises(ValueError, match="dtype of class_weight"):
        F.softmax_cross_entropy(x, t, class_weight=np.ones(3, i32))
    with pytest.raises(ValueError, match='class_weight'):
        F.softmax_cross_entropy(x, t, class_weight=Variable(np.ones(3, f32)))


def test_softmax_cross_entropy_checks_label_values_in_debug_mode() -> None:
    x, t = rand(2, 3), np.array([0, 3], i32)
    # Outside debug mode nothing checks: the gather fails (Chainer 7.8.1: IndexError), and
    # the double-backprop variant clips the label.
    with pytest.raises(IndexError):
        F.softmax_cross_entropy(x, t)
    assert np.isfinite(F.softmax_cross_entropy(x, t, enable_double_backprop=True).array)
    with chainer.using_config('debug', True):
        with pytest.raises(ValueError, match=r'0 <= t < x\.shape'):
            F.softmax_cross_entropy(x, t)
        with pytest.raises(ValueError, match=r'0 <= t < x\.shape'):
            F.softmax_cross_entropy(x, t, enable_double_backprop=True)


# ---- other losses --------------------------------------------------------------------------------


def test_sigmoid_cross_entropy_ignores_minus_one_and_is_stable() -> None:
    x = np.array([[-800.0, 800.0, 3.0]], f32)
    t = np.array([[0, 1, -1]], i32)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = F.sigmoid_cross_entropy(x, t)
        np.testing.assert_allclose(y.array, 0.0, atol=1e-6)
        y = F.sigmoid_cross_entropy(x, np.array([[1, 0, -1]], i32), reduce='no')
    np.testing.assert_allclose(y.array, [[800, 800, 0]])
    with pytest.raises(ValueError, match='reduce'):
        F.sigmoid_cross_entropy(x, t, reduce='sum')


def test_sigmoid_cross_entropy_all_ignored_counts_one() -> None:
    y = F.sigmoid_cross_entropy(np.ones((2, 2), f32), np.full((2, 2), -1, i32))
    assert y.array == 0 and y.dtype == f32


def test_huber_loss_gradient_is_clipped_difference() -> None:
    x = Variable(np.array([[0.5, 3.0, -4.0]]))
    F.sum(F.huber_loss(x, np.zeros((1, 3)), delta=2.0)).backward()
    np.testing.assert_array_equal(x.grad, [[0.5, 2.0, -2.0]])
    with pytest.raises(ValueError, match='reduce'):
        F.huber_loss(x, np.zeros((1, 3)), 1.0, reduce='mean')


def test_mean_errors_are_zero_dim_with_input_dtype() -> None:
    for dtype in (np.float16, f32, f64):
        a, b = rand(2, 3, dtype=dtype), rand(2, 3, dtype=dtype, seed=1)
        for f in (F.mean_squared_error, F.mean_absolute_error):
            y = f(a, b)
            assert y.shape == () and y.dtype == dtype and type(y.array) is np.ndarray


# ---- accuracy -----------------------------------------------------------------------------------


def test_accuracy_values() -> None:
    y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], f32)
    t = np.array([1, 0, 0, -1], i32)
    assert F.accuracy(y, t).array == 0.5
    np.testing.assert_allclose(F.accuracy(y, t, ignore_label=-1).array, 2 / 3)
    assert F.accuracy(y, np.full(4, -1, i32), ignore_label=-1).array == 0.0
    assert F.accuracy(y.astype(f64), t).dtype == f64


def test_accuracy_nd_labels() -> None:
    y = np.zeros((2, 3, 2), f32)
    y[0, 1, :] = 1
    y[1, 2, 0] = 1
    t = np.array([[1, 1], [2, 0]], i32)
    assert F.accuracy(y, t).array == 1.0


# ---- dropout -------------------------------------------------------------------------------------


def test_dropout_in_training_drops_and_rescales() -> None:
    x = np.ones((200, 100), f32)
    y = F.dropout(x, 0.3)
    kept = y.array != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y.array[kept], 1 / 0.7, rtol=1e-6)
    assert y.creator.label == 'Dropout' and y.dtype == f32


def test_dropout_backward_uses_the_retained_mask() -> None:
    x = Variable(rand(4, 5, dtype=f32))
    y = F.dropout(x, 0.5)
    mask = y.creator.mask
    assert mask.dtype == f32 and set(np.unique(mask)) <= {0.0, 2.0}
    y.grad = np.full((4, 5), 3.0, f32)
    y.backward()
    np.testing.assert_array_equal(x.grad, 3.0 * mask)
    np.testing.assert_array_equal(y.array, x.array * mask)


def test_dropout_is_identity_outside_training() -> None:
    x = rand(3, 4)
    v = Variable(x)
    with chainer.using_config('train', False):
        y = F.dropout(x, 0.9)
        assert y.array is x and y.creator is None
        assert F.dropout(v, 0.9) is v
        out, mask = F.dropout(x, 0.5, return_mask=True)
        assert mask is None and out.array is x


def test_dropout_mask_and_return_mask() -> None:
    x = rand(2, 3)
    mask = np.array([[0, 2, 2], [2, 0, 0]], f64)
    y, m = F.dropout(x, 0.5, mask=mask, return_mask=True)
    assert m is mask
    np.testing.assert_array_equal(y.array, x * mask)
    y, m = F.dropout(x, 0.25, return_mask=True)
    np.testing.assert_array_equal(y.array, x * m)


def test_dropout_ratio_zero_keeps_everything() -> None:
    x = rand(3, 3)
    np.testing.assert_array_equal(F.dropout(x, 0.0).array, x)


def test_dropout_argument_errors() -> None:
    x = rand(2)
    for ratio in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match='dropout_ratio'):
            F.dropout(x, ratio)
    with pytest.raises(ValueError, match='train argument is not supported'):
        F.dropout(x, 0.5, train=True)
    with pytest.raises(TypeError, match='unexpected keyword'):
        F.dropout(x, 0.5, foo=1)


def test_dropout_is_reproducible_with_numpy_seed() -> None:
    x = np.ones((3, 5), f32)
    np.random.seed(3)
    a = F.dropout(x).array
    np.random.seed(3)
    np.testing.assert_array_equal(F.dropout(x).array, a)


# ---- linear --------------------------------------------------------------------------------------


def test_linear_is_exactly_one_matrix_product_each_way() -> None:
    rng = np.random.RandomState(0)
    x, W, b = rng.randn(8, 5).astype(f32), rng.randn(4, 5).astype(f32), rng.randn(4).astype(f32)
    gy = rng.randn(8, 4).astype(f32)
    xv, Wv, bv = Variable(x), Variable(W), Variable(b)
    y = F.linear(xv, Wv, bv)
    assert np.array_equal(y.array, x @ W.T + b)
    y.grad = gy
    y.backward()
    assert np.array_equal(xv.grad, gy @ W)
    assert np.array_equal(Wv.grad, gy.T @ x)
    assert np.array_equal(bv.grad, gy.sum(axis=0))


def test_linear_does_not_retain_the_bias() -> None:
    x, W, b = Variable(rand(2, 3)), Variable(rand(4, 3)), Variable(rand(4))
    y = F.linear(x, W, b)
    assert x.node.data is x.array and W.node.data is W.array and b.node.data is None
    assert y.creator.inputs[2] is b.node


def test_linear_flattens_and_batch_axes() -> None:
    x = Variable(rand(2, 3, 4))
    W = rand(5, 12)
    y = F.linear(x, W)
    assert y.shape == (2, 5) and y.creator.inputs[0].creator.label == 'Reshape'
    np.testing.assert_allclose(y.array, x.array.reshape(2, 12) @ W.T)
    y = F.linear(x, rand(5, 4), n_batch_axes=2)
    assert y.shape == (2, 3, 5)
    with pytest.raises(ValueError, match='n_batch_axes'):
        F.linear(x, W, n_batch_axes=0)


def test_linear_double_backprop_nodes() -> None:
    x, W = Variable(rand(2, 3)), Variable(rand(4, 3))
    gx, gW = chainer.grad([F.linear(x, W)], [x, W], [Variable(rand(2, 4))],
                          enable_double_backprop=True)
    # As in Chainer 7.8.1, each gradient node may be followed by an F.cast to the input dtype.

    def producer(v: Variable) -> str:
        node = v.creator
        return node.inputs[0].creator.label if node.label == 'Cast' else node.label

    assert producer(gx) == 'LinearGradData' and producer(gW) == 'LinearGradWeight'


# ---- convolution ---------------------------------------------------------------------------------


def _conv_ref(x: np.ndarray, W: np.ndarray, stride: tuple, pad: tuple) -> np.ndarray:
    n, _, h, w = x.shape
    oc, _, kh, kw = W.shape
    (sy, sx), (ph, pw) = stride, pad
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh, ow = (h + 2 * ph - kh) // sy + 1, (w + 2 * pw - kw) // sx + 1
    y = np.zeros((n, oc, oh, ow))
    for i in range(oh):
        for j in range(ow):
            y[:, :, i, j] = np.einsum('nckl,ockl->no',
                                      xp[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw], W)
    return y


def test_convolution_2d_with_pair_arguments() -> None:
    x, W = rand(1, 2, 7, 6), rand(3, 2, 3, 2, seed=1)
    y = F.convolution_2d(x, W, stride=(2, 1), pad=(1, 0))
    np.testing.assert_allclose(y.array, _conv_ref(x, W, (2, 1), (1, 0)), rtol=1e-12)


def test_convolution_2d_cover_all_shapes() -> None:
    x, W = rand(1, 1, 5, 5), rand(1, 1, 2, 2)
    assert F.convolution_2d(x, W, stride=2).shape == (1, 1, 2, 2)
    assert F.convolution_2d(x, W, stride=2, cover_all=True).shape == (1, 1, 3, 3)


def test_convolution_2d_gradient_of_input_is_a_deconvolution() -> None:
    x, W = Variable(rand(2, 2, 5, 5)), Variable(rand(3, 2, 3, 3))
    gx, gW = chainer.grad([F.convolution_2d(x, W, stride=2, pad=1)], [x, W],
                          [Variable(rand(2, 3, 3, 3))], enable_double_backprop=True)
    assert gx.creator.label == 'Deconvolution2DFunction'
    assert gW.creator.label == 'Convolution2DGradW'


def test_deconvolution_is_the_adjoint_of_convolution() -> None:
    for kw in (dict(stride=2, pad=1), dict(stride=1, pad=0, dilate=2), dict(groups=2, pad=1)):
        x = rand(2, 4, 6, 5)
        W = rand(6, 4 // kw.get('groups', 1), 3, 3, seed=1)
        y = F.convolution_2d(x, W, **kw)
        gy = rand(*y.shape, seed=2)
        back = F.deconvolution_2d(gy, W, outsize=x.shape[2:], **kw)
        np.testing.assert_allclose((y.array * gy).sum(), (x * back.array).sum(), rtol=1e-12)


def test_deconvolution_default_outsize_and_bias() -> None:
    x, W, b = rand(1, 2, 3, 4), rand(2, 5, 3, 3), np.arange(5.0)
    y = F.deconvolution_2d(x, W, b, stride=2, pad=1)
    assert y.shape == (1, 5, 5, 7)
    y0 = F.deconvolution_2d(x, W, stride=2, pad=1)
    np.testing.assert_allclose(y.array - y0.array, np.broadcast_to(b.reshape(1, 5, 1, 1),
                                                                   y.shape))


def test_convolution_argument_errors() -> None:
    x, W = rand(1, 1, 2, 2), rand(1, 1, 3, 3)
    with pytest.raises(RuntimeError, match='positive'):
        F.convolution_2d(x, W)
    with pytest.raises(ValueError, match='Dilate'):
        F.convolution_2d(x, rand(1, 1, 1, 1), dilate=0)
    with pytest.raises(ValueError, match='deterministic'):
        F.convolution_2d(x, rand(1, 1, 1, 1), deterministic=True)
    with pytest.raises(TypeError, match='unexpected keyword'):
        F.convolution_2d(x, rand(1, 1, 1, 1), bias=1)


def test_convolution_accepts_non_contiguous_inputs() -> None:
    x = rand(2, 5, 6, 3).transpose(0, 3, 1, 2)  # (2, 3, 5, 6), not C-contiguous
    W = rand(4, 3, 2, 2, seed=1)
    y = F.convolution_2d(x, W, pad=1)
    np.testing.assert_allclose(y.array, F.convolution_2d(np.ascontiguousarray(x), W, pad=1).array)
    v = Variable(x)
    F.sum(F.convolution_2d(v, W, pad=1) ** 2).backward()
    assert v.grad.shape == x.shape


# ---- embed_id ------------------------------------------------------------------------------------


def test_embed_id_gradient_accumulates_repeated_ids_and_skips_ignored() -> None:
    W = Variable(rand(4, 2))
    ids = np.array([[1, 1, -1], [3, 1, 0]], i32)
    y = F.embed_id(ids, W, ignore_label=-1)
    y.grad = np.ones((2, 3, 2))
    y.backward()
    np.testing.assert_array_equal(W.grad, [[1, 1], [3, 3], [0, 0], [1, 1]])
    np.testing.assert_array_equal(y.array[0, 2], [0, 0])


def test_embed_id_without_ignore_label_and_debug_check() -> None:
    W = rand(3, 2)
    np.testing.assert_array_equal(F.embed_id(np.array([2, 0], i32), W).array, W[[2, 0]])
    with chainer.using_config('debug', True):
        with pytest.raises(ValueError, match='0 <= x < len'):
            F.embed_id(np.array([3], i32), W)
        F.embed_id(np.array([-1], i32), W, ignore_label=-1)


# ---- pooling -------------------------------------------------------------------------------------


def test_max_pooling_gradient_goes_to_the_maximum() -> None:
    x = Variable(np.array([[[[1., 5., 2.], [3., 4., 9.], [0., 7., 8.]]]]))
    y = F.max_pooling_2d(x, 2)  # cover_all: 2x2 output
    np.testing.assert_array_equal(y.array, [[[[5, 9], [7, 8]]]])
    y.grad = np.array([[[[1., 2.], [3., 4.]]]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[[[0, 1, 0], [0, 0, 2], [0, 3, 4]]]])


def test_max_pooling_return_indices_and_padding_is_minus_infinity() -> None:
    x = -np.ones((1, 1, 2, 2))
    y, idx = F.max_pooling_2d(x, 2, stride=1, pad=1, return_indices=True)
    np.testing.assert_array_equal(y.array, -1)
    assert idx.shape == (1, 1, 3, 3)
    with pytest.raises(ValueError, match='should be 2'):
        F.max_pooling_2d(np.zeros((1, 1, 2, 2, 2)), 2)


def test_average_pooling_counts_padding_as_zero() -> None:
    x = np.ones((1, 1, 3, 3), f32)
    y = F.average_pooling_2d(x, 3, stride=1, pad=1)
    np.testing.assert_allclose(y.array[0, 0], [[4 / 9, 6 / 9, 4 / 9], [6 / 9, 1, 6 / 9],
                                                [4 / 9, 6 / 9, 4 / 9]], rtol=1e-6)


# ---- batch / layer normalization -----------------------------------------------------------------


def test_batch_normalization_updates_running_statistics() -> None:
    x = rand(6, 3, 2, 2, dtype=f32)
    mean, var = np.full(3, 0.5, f32), np.full(3, 2.0, f32)
    F.batch_normalization(x, np.ones(3, f32), np.zeros(3, f32), running_mean=mean,
                          running_var=var, decay=0.8)
    m = 6 * 2 * 2
    np.testing.assert_allclose(mean, 0.8 * 0.5 + 0.2 * x.mean(axis=(0, 2, 3)), rtol=1e-6)
    np.testing.assert_allclose(var, 0.8 * 2.0 + 0.2 * x.var(axis=(0, 2, 3)) * m / (m - 1),
                               rtol=1e-5)
    assert mean.dtype == f32 and var.dtype == f32


def test_batch_normalization_ignores_config_train_like_chainer() -> None:
    # F.batch_normalization always uses batch statistics (and updates the running ones);
    # test mode is fixed_batch_normalization, chosen by L.BatchNormalization.
    x, g, b = rand(5, 3), rand(3, seed=1) + 2, rand(3, seed=2)
    train = F.batch_normalization(x, g, b).array
    mean, var = np.zeros(3), np.ones(3)
    with chainer.using_config('train', False):
        test = F.batch_normalization(x, g, b, running_mean=mean, running_var=var).array
    np.testing.assert_array_equal(train, test)
    assert not np.array_equal(mean, 0)
    fixed = F.fixed_batch_normalization(x, g, b, x.mean(axis=0), x.var(axis=0))
    np.testing.assert_allclose(fixed.array, train, rtol=1e-10)


def test_fixed_batch_normalization_uses_given_statistics() -> None:
    x = rand(4, 2, 3)
    g, b, m, v = np.array([1., 2.]), np.array([0., 1.]), np.array([0.5, -0.5]), np.array([4., 1.])
    y = F.fixed_batch_normalization(x, g, b, m, v, eps=0.0)
    s = (1, 2, 1)
    np.testing.assert_allclose(y.array, g.reshape(s) * (x - m.reshape(s)) / np.sqrt(
        v.reshape(s)) + b.reshape(s))


def test_batch_normalization_axis_option() -> None:
    x = rand(4, 3, 5)
    g, b = np.ones(5), np.zeros(5)
    y = F.batch_normalization(x, g, b, axis=(0, 1))
    np.testing.assert_allclose(y.array.mean(axis=(0, 1)), 0, atol=1e-12)
    np.testing.assert_allclose(y.array.var(axis=(0, 1)), 1, rtol=1e-3)
    y = F.batch_normalization(x, np.ones(3), np.zeros(3))  # default: axes (0, 2)
    np.testing.assert_allclose(y.array.mean(axis=(0, 2)), 0, atol=1e-12)
    with pytest.raises(RuntimeError, match='ascending'):
        F.batch_normalization(x, g, b, axis=(1, 0))


def test_batch_normalization_warns_for_a_single_sample_and_kwarg_errors() -> None:
    with pytest.warns(UserWarning, match='no more than one sample'):
        y = F.batch_normalization(rand(1, 3), np.ones(3), np.zeros(3))
    np.testing.assert_array_equal(y.array, 0)
    with pytest.raises(ValueError, match='train argument'):
        F.batch_normalization(rand(2, 3), np.ones(3), np.zeros(3), train=True)
    with pytest.raises(TypeError, match='unexpected keyword'):
        F.batch_normalization(rand(2, 3), np.ones(3), np.zeros(3), momentum=0.9)


def test_layer_normalization_normalizes_each_row() -> None:
    x = rand(3, 6) * 10 + 5
    y = F.layer_normalization(x, np.ones(6), np.zeros(6)).array
    np.testing.assert_allclose(y.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=1), 1, rtol=1e-5)


# ---- device-generic paths (NumPy-backed fake GPU) ------------------------------------------------


def test_functions_run_on_a_gpu_backend_without_mixing_devices(fake_gpu) -> None:
    from autograd_lab.testing import fake_gpu as fake

    dev = backend.get_device('@cupy:0')
    rng = np.random.RandomState(0)
    host = dict(x=rng.randn(4, 2, 6, 6).astype(f32), W=rng.randn(3, 2, 3, 3).astype(f32),
                b=rng.randn(3).astype(f32), g=np.ones(3, f32), beta=np.zeros(3, f32),
                L=rng.randn(5, 27).astype(f32), Lb=rng.randn(5).astype(f32),
                E=rng.randn(7, 5).astype(f32), ids=np.array([1, 6, 0, 2], i32),
                t=np.array([0, 4, -1, 2], i32), sw=np.ones(5, f32))

    def run(arrays: dict) -> tuple:
        v = {k: Variable(a) if a.dtype.kind == 'f' else a for k, a in arrays.items()}
        h = F.convolution_2d(v['x'], v['W'], v['b'], pad=1)
        h = F.batch_normalization(h, v['g'], v['beta'])
        h = F.max_pooling_2d(F.relu(h), 2)
        h = F.average_pooling_2d(F.elu(h), 1)
        h = F.dropout(h, 0.5, mask=arrays['x'][:, :1, :3, :3] * 0 + 1)
        h = F.linear(h, v['L'], v['Lb'])
        h = F.swish(F.leaky_relu(h), v['sw']) + F.embed_id(v['ids'], v['E'], ignore_label=-1)
        h = F.layer_normalization(F.softplus(F.hard_sigmoid(h)), v['sw'], v['sw'] * 0)
        loss = F.softmax_cross_entropy(h, v['t']) + F.mean_squared_error(F.sigmoid(h), h)
        loss = loss + F.sigmoid_cross_entropy(h, (v['t'].reshape(4, 1) > 0).astype(i32)
                                              * np.ones((1, 5), i32))
        loss = loss + F.sum(F.huber_loss(F.softmax(h), F.log_softmax(h), 1.0))
        loss.backward()
        acc = F.accuracy(h, v['t'], ignore_label=-1)
        return loss, acc, {k: x.grad for k, x in v.items() if isinstance(x, Variable)}

    cpu_loss, cpu_acc, cpu_grads = run(host)
    gpu_arrays = {k: dev.send(a) for k, a in host.items()}
    gpu_loss, gpu_acc, gpu_grads = run(gpu_arrays)
    assert isinstance(gpu_loss.array, fake.FakeGpuArray)
    assert isinstance(gpu_acc.array, fake.FakeGpuArray)
    np.testing.assert_array_equal(gpu_acc.array.get(), cpu_acc.array)
    np.testing.assert_allclose(gpu_loss.array.get(), cpu_loss.array, rtol=1e-5)
    for k, g in gpu_grads.items():
        assert isinstance(g, fake.FakeGpuArray), k
        np.testing.assert_allclose(g.get(), cpu_grads[k], rtol=1e-4, atol=1e-6, err_msg=k)
