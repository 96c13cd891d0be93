"""Neural-network functions of issue 3 (activation, loss, connection, pooling, normalization,
noise): the generic checks, run over one table of cases.

For every case and float16/32/64:

* forward values against a NumPy reference computed in float64;
* Chainer's label of the output's creator;
* ``check_backward`` (first order) and, where Chainer supports it,
  ``check_double_backward`` (second order) against finite differences;
* the fast path (``backward_arrays``, used by a plain ``backward()``) and the Variable
  path (``backward``, used with ``enable_double_backprop=True``) give bitwise identical
  gradients, at first order and, for the gradient nodes, at second order.

Plus the ``InvalidType`` errors of bad inputs, raised before any work is done.
Function-specific behaviour (options, config.train, running statistics, ...) is in
``test_functions_nn_behaviour.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import Variable, gradient_check
from autograd_lab.utils.type_check import InvalidType

FLOATS = (np.float16, np.float32, np.float64)
FIRST = {np.float64: dict(eps=1e-4, atol=1e-6, rtol=1e-5),
         np.float32: dict(eps=1e-3, atol=1e-4, rtol=1e-3, dtype=np.float64),
         np.float16: dict(eps=1e-2, atol=5e-2, rtol=5e-2, dtype=np.float64)}
SECOND = {np.float64: dict(eps=1e-4, atol=1e-5, rtol=1e-4),
          np.float32: dict(eps=1e-3, atol=1e-3, rtol=1e-2, dtype=np.float64),
          np.float16: dict(eps=1e-2, atol=1e-1, rtol=1e-1, dtype=np.float64)}
FORWARD = {np.float64: dict(atol=1e-10, rtol=1e-10), np.float32: dict(atol=1e-5, rtol=1e-5),
           np.float16: dict(atol=2e-2, rtol=2e-2)}


# ---- input domains -----------------------------------------------------------------------------


def away(x: np.ndarray, kinks: tuple = (0.0,), margin: float = 0.1) -> np.ndarray:
    """Move values closer than ``margin`` to a kink by ``2 * margin`` away from it."""
    for k in kinks:
        close = np.abs(x - k) < margin
        x = np.where(close, x + np.where(x >= k, 2 * margin, -2 * margin), x)
    return x


def distinct(rng: np.random.RandomState, shape: tuple) -> np.ndarray:
    """Values 0.1 apart (no ties, so max pooling has no kink within the step)."""
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.1).reshape(shape)


def onehot_soft(rng: np.random.RandomState, shape: tuple) -> np.ndarray:
    e = np.exp(rng.uniform(-1, 1, shape))
    return e / e.sum(axis=1, keepdims=True)


# ---- NumPy references (float64) ----------------------------------------------------------------


def np_sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def np_elu(x: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def np_log_softmax(x: np.ndarray, axis: int = 1) -> np.ndarray:
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def np_sce(x: np.ndarray, t: np.ndarray, reduce: str = 'mean', normalize: bool = True,
           class_weight: np.ndarray | None = None, ignore_label: int = -1) -> np.ndarray:
    log_y = np_log_softmax(x)
    if class_weight is not None:
        log_y = log_y * class_weight.reshape((1, -1) + (1,) * (x.ndim - 2))
    valid = t != ignore_label
    t0 = np.where(valid, t, 0)
    picked = np.take_along_axis(log_y, t0[:, None], axis=1)[:, 0]
    loss = -picked * valid
    if reduce == 'no':
        return loss
    count = valid.sum() if normalize else len(x)
    return np.asarray(loss.sum() / max(count, 1))


def np_sigmoid_ce(x: np.ndarray, t: np.ndarray, reduce: str = 'mean',
                  normalize: bool = True) -> np.ndarray:
    valid = t != -1
    p = np_sigmoid(x)
    loss = -(t * np.log(p) + (1 - t) * np.log(1 - p)) * valid
    if reduce == 'no':
        return loss
    count = max(1, valid.sum()) if normalize else max(1, len(x))
    return np.asarray(loss.sum() / count)


def np_huber(a: np.ndarray, b: np.ndarray, delta: float, reduce: str) -> np.ndarray:
    d = np.abs(a - b)
    y = np.where(d <= delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return y.sum(axis=1) if reduce == 'sum_along_second_axis' else y


def np_conv(x: np.ndarray, W: np.ndarray, b: np.ndarray | None, stride: int = 1, pad: int = 0,
            dilate: int = 1, groups: int = 1, cover_all: bool = False) -> np.ndarray:
    """Direct definition: a loop over output pixels (reference only)."""
    n, c, h, w = x.shape
    oc, cg, kh, kw = W.shape
    ekh, ekw = (kh - 1) * dilate + 1, (kw - 1) * dilate + 1
    extra = stride - 1 if cover_all else 0
    oh = (h + 2 * pad - ekh + extra) // stride + 1
    ow = (w + 2 * pad - ekw + extra) // stride + 1
    xp = np.zeros((n, c, h + 2 * pad + ekh + stride, w + 2 * pad + ekw + stride))
    xp[:, :, pad:pad + h, pad:pad + w] = x
    y = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + ekh:dilate, j * stride:j * stride + ekw:dilate]
            for g in range(groups):
                y[:, g * ocg:(g + 1) * ocg, i, j] = np.einsum(
                    'nckl,ockl->no', patch[:, g * cg:(g + 1) * cg], W[g * ocg:(g + 1) * ocg])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def np_pool(x: np.ndarray, k: int, s: int, p: int, cover_all: bool, mode: str) -> np.ndarray:
    n, c, h, w = x.shape
    extra = s - 1 if cover_all else 0
    oh, ow = (h + 2 * p - k + extra) // s + 1, (w + 2 * p - k + extra) // s + 1
    fill = -np.inf if mode == 'max' else 0.0
    xp = np.full((n, c, h + 2 * p + k + s, w + 2 * p + k + s), fill)
    xp[:, :, p:p + h, p:p + w] = x
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            y[:, :, i, j] = win.max(axis=(2, 3)) if mode == 'max' else win.sum(axis=(2, 3)) / k / k
    return y


def np_bn(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = 2e-5) -> np.ndarray:
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    return gamma.reshape(shape) * (x - mean) / np.sqrt(var + eps) + beta.reshape(shape)


# ---- the cases -----------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    fn: Callable
    make: Callable  # (rng, shape) -> tuple of float64 / int arrays
    ref: Callable  # float64 arrays -> float64 array
    label: str
    shapes: tuple = ((2, 3), (3, 2, 4))
    double: bool = True  # Chainer has second-order gradients
    grad_node: bool = True  # forward output is a node with backward_arrays
    dtypes: tuple = FLOATS
    no_grads: tuple | None = None  # inputs that are float but not differentiated

    def __repr__(self) -> str:
        return self.name


CASES: list = []


def case(name: str, fn: Callable, make: Callable, ref: Callable, label: str, **kw: Any) -> None:
    CASES.append(Case(name, fn, make, ref, label, **kw))


def unary(kinks: tuple = (0.0,), lo: float = -2.0, hi: float = 2.0) -> Callable:
    return lambda rng, shape: (away(rng.uniform(lo, hi, shape), kinks),)


case('relu', F.relu, unary(), lambda x: np.maximum(x, 0), 'ReLU')
case('leaky_relu', lambda x: F.leaky_relu(x, 0.3), unary(),
     lambda x: np.where(x > 0, x, 0.3 * x), 'LeakyReLU')
case('leaky_relu_negative_slope', lambda x: F.leaky_relu(x, -0.5), unary(),
     lambda x: np.where(x > 0, x, -0.5 * x), 'LeakyReLU')
case('elu', F.elu, unary(), np_elu, 'ELU')
case('elu_alpha', lambda x: F.elu(x, 0.7), unary(), lambda x: np_elu(x, 0.7), 'ELU')
case('elu_negative_alpha', lambda x: F.elu(x, -0.5), unary(), lambda x: np_elu(x, -0.5), 'ELU')
case('selu', F.selu, unary(), lambda x: 1.0507009873554805 * np_elu(x, 1.6732632423543772),
     '_ * 1.0507009873554805')
case('sigmoid', F.sigmoid, unary((), -4, 4), np_sigmoid, 'Sigmoid')
case('hard_sigmoid', F.hard_sigmoid, unary((-2.5, 2.5), -3.5, 3.5),
     lambda x: np.clip(0.2 * x + 0.5, 0, 1), 'HardSigmoid')
case('softplus', F.softplus, unary((), -4, 4), lambda x: np.log1p(np.exp(x)), 'Softplus')
case('softplus_beta', lambda x: F.softplus(x, 2.0), unary((), -3, 3),
     lambda x: np.log1p(np.exp(2 * x)) / 2, 'Softplus')
case('swish', F.swish,
     lambda rng, shape: (rng.uniform(-2, 2, shape), rng.uniform(0.5, 1.5, shape[1:2])),
     lambda x, b: x * np_sigmoid(b.reshape((1, -1) + (1,) * (x.ndim - 2)) * x), 'Swish')
case('softmax', F.softmax, unary((), -3, 3),
     lambda x: np.exp(np_log_softmax(x)), 'Softmax')
case('softmax_last_axis', lambda x: F.softmax(x, axis=-1), unary((), -3, 3),
     lambda x: np.exp(np_log_softmax(x, -1)), 'Softmax')
case('log_softmax', F.log_softmax, unary((), -3, 3), np_log_softmax, 'LogSoftmax')
case('log_softmax_axis0', lambda x: F.log_softmax(x, axis=0), unary((), -3, 3),
     lambda x: np_log_softmax(x, 0), 'LogSoftmax')

# -- losses
pair = lambda rng, shape: (rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape))


def _pair_apart(kinks: tuple) -> Callable:
    def make(rng: np.random.RandomState, shape: tuple) -> tuple:
        a = rng.uniform(-2, 2, shape)
        return a, a - away(rng.uniform(-2, 2, shape), kinks, 0.15)
    return make


case('mean_squared_error', F.mean_squared_error, pair,
     lambda a, b: np.asarray(((a - b) ** 2).mean()), 'MeanSquaredError')
case('mean_absolute_error', F.mean_absolute_error, _pair_apart((0.0,)),
     lambda a, b: np.asarray(np.abs(a - b).mean()), 'MeanAbsoluteError')
case('huber_loss', lambda a, b: F.huber_loss(a, b, 1.0), _pair_apart((-1.0, 1.0)),
     lambda a, b: np_huber(a, b, 1.0, 'sum_along_second_axis'), 'HuberLoss')
case('huber_loss_no_reduce', lambda a, b: F.huber_loss(a, b, 0.5, reduce='no'),
     _pair_apart((-0.5, 0.5)), lambda a, b: np_huber(a, b, 0.5, 'no'), 'HuberLoss')


def _labels(rng: np.random.RandomState, shape: tuple, ignore: bool = True) -> tuple:
    x = rng.uniform(-2, 2, shape)
    t = rng.randint(0, shape[1], (shape[0],) + shape[2:]).astype(np.int32)
    if ignore:
        t.flat[0] = -1
    return x, t


SCE_SHAPES = ((3, 4), (2, 3, 2))
case('softmax_cross_entropy', F.softmax_cross_entropy, _labels, np_sce, 'SoftmaxCrossEntropy',
     shapes=SCE_SHAPES, double=False)
case('softmax_cross_entropy_no_reduce',
     lambda x, t: F.softmax_cross_entropy(x, t, reduce='no'), _labels,
     lambda x, t: np_sce(x, t, 'no'), 'SoftmaxCrossEntropy', shapes=SCE_SHAPES, double=False)
CLASS_WEIGHT = np.array([0.5, 2.0, 1.0, 1.5])
case('softmax_cross_entropy_weighted',
     lambda x, t: F.softmax_cross_entropy(x, t, normalize=False, class_weight=CLASS_WEIGHT),
     _labels, lambda x, t: np_sce(x, t, normalize=False, class_weight=CLASS_WEIGHT),
     'SoftmaxCrossEntropy', shapes=((3, 4),), double=False)
case('softmax_cross_entropy_double',
     lambda x, t: F.softmax_cross_entropy(x, t, enable_double_backprop=True), _labels, np_sce,
     'Sum', shapes=SCE_SHAPES, grad_node=False)
case('softmax_cross_entropy_soft_target', F.softmax_cross_entropy,
     lambda rng, shape: (rng.uniform(-2, 2, shape), onehot_soft(rng, shape)),
     lambda x, t: np.asarray(-(t * np_log_softmax(x)).sum() / (x.size / x.shape[1])),
     'SoftmaxCrossEntropy', shapes=((3, 4),), double=False, no_grads=(False, True))


def _binary_labels(rng: np.random.RandomState, shape: tuple) -> tuple:
    return rng.uniform(-3, 3, shape), rng.randint(-1, 2, shape).astype(np.int32)


case('sigmoid_cross_entropy', F.sigmoid_cross_entropy, _binary_labels, np_sigmoid_ce,
     'SigmoidCrossEntropy')
case('sigmoid_cross_entropy_no_reduce',
     lambda x, t: F.sigmoid_cross_entropy(x, t, reduce='no'), _binary_labels,
     lambda x, t: np_sigmoid_ce(x, t, 'no'), 'SigmoidCrossEntropy')
case('sigmoid_cross_entropy_not_normalized',
     lambda x, t: F.sigmoid_cross_entropy(x, t, normalize=False), _binary_labels,
     lambda x, t: np_sigmoid_ce(x, t, normalize=False), 'SigmoidCrossEntropy')

# -- noise: dropout with a given mask is deterministic
MASK_SEED = 7


def _dropout_mask(shape: tuple, dtype: Any) -> np.ndarray:
    keep = np.random.RandomState(MASK_SEED).uniform(size=shape) >= 0.4
    return (keep / 0.6).astype(dtype)


case('dropout', lambda x: F.dropout(x, 0.4, mask=_dropout_mask(x.shape, x.dtype)),
     unary((), -2, 2), lambda x: x * _dropout_mask(x.shape, np.float64), 'Dropout')

# -- connections


def _linear_make(bias: bool) -> Callable:
    def make(rng: np.random.RandomState, shape: tuple) -> tuple:
        n_in = int(np.prod(shape[1:]))
        arrays = (rng.uniform(-1, 1, shape), rng.uniform(-1, 1, (3, n_in)))
        return arrays + ((rng.uniform(-1, 1, 3),) if bias else ())
    return make


def _np_linear(x: np.ndarray, W: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    y = x.reshape(len(x), -1) @ W.T
    return y if b is None else y + b


case('linear', F.linear, _linear_make(True), _np_linear, 'LinearFunction')
case('linear_nobias', F.linear, _linear_make(False), _np_linear, 'LinearFunction')
case('linear_batch_axes', lambda x, W, b: F.linear(x, W, b, n_batch_axes=2),
     lambda rng, shape: (rng.uniform(-1, 1, shape), rng.uniform(-1, 1, (3, shape[-1])),
                         rng.uniform(-1, 1, 3)),
     lambda x, W, b: x @ W.T + b, 'Reshape', shapes=((2, 3, 4),))


def _conv_make(oc: int, groups: int, k: int, bias: bool = True) -> Callable:
    def make(rng: np.random.RandomState, shape: tuple) -> tuple:
        arrays = (rng.uniform(-1, 1, shape), rng.uniform(-1, 1, (oc, shape[1] // groups, k, k)))
        return arrays + ((rng.uniform(-1, 1, oc),) if bias else ())
    return make


def _conv(ref: bool = False, **kw: Any) -> Callable:
    if ref:
        return lambda x, W, b=None: np_conv(x, W, b, **kw)
    return lambda x, W, b=None: F.convolution_2d(x, W, b, **kw)


CONV_SHAPES = ((2, 2, 5, 4),)
for _name, _kw, _make in (
        ('convolution_2d', dict(stride=1, pad=1), _conv_make(3, 1, 3)),
        ('convolution_2d_stride', dict(stride=2, pad=0), _conv_make(3, 1, 2, bias=False)),
        ('convolution_2d_cover_all', dict(stride=2, pad=1, cover_all=True), _conv_make(2, 1, 2)),
        ('convolution_2d_dilate', dict(pad=2, dilate=2), _conv_make(2, 1, 2)),
        ('convolution_2d_groups', dict(pad=1, groups=2), _conv_make(4, 2, 3))):
    case(_name, _conv(**_kw), _make, _conv(ref=True, **_kw), 'Convolution2DFunction',
         shapes=CONV_SHAPES)


def _deconv_ref(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Transposed convolution, from its definition as a scatter of ``x * W``."""
    n, _, h, w = x.shape
    _, oc, kh, kw = W.shape
    s, p = 2, 1
    out = np.zeros((n, oc, s * (h - 1) + kh, s * (w - 1) + kw))
    for i in range(h):
        for j in range(w):
            out[:, :, i * s:i * s + kh, j * s:j * s + kw] += np.einsum('nc,cokl->nokl',
                                                                     x[:, :, i, j], W)
    return out[:, :, p:out.shape[2] - p, p:out.shape[3] - p] + b.reshape(1, -1, 1, 1)


case('deconvolution_2d', lambda x, W, b: F.deconvolution_2d(x, W, b, stride=2, pad=1),
     lambda rng, shape: (rng.uniform(-1, 1, shape), rng.uniform(-1, 1, (shape[1], 3, 3, 3)),
                         rng.uniform(-1, 1, 3)),
     _deconv_ref, 'Deconvolution2DFunction', shapes=((2, 2, 3, 2),))

EMBED_IDS = np.array([[0, 3, -1], [3, 1, 0]], np.int32)
case('embed_id', lambda x, W: F.embed_id(x, W, ignore_label=-1),
     lambda rng, shape: (EMBED_IDS, rng.uniform(-1, 1, shape)),
     lambda x, W: np.where((x == -1)[..., None], 0, W[np.where(x == -1, 0, x)]),
     'EmbedIDFunction', shapes=((4, 3),))

# -- pooling
POOL_SHAPES = ((2, 2, 5, 4),)
case('max_pooling_2d', lambda x: F.max_pooling_2d(x, 2), lambda rng, shape: (distinct(rng, shape),),
     lambda x: np_pool(x, 2, 2, 0, True, 'max'), 'MaxPoolingND', shapes=POOL_SHAPES)
case('max_pooling_2d_pad', lambda x: F.max_pooling_2d(x, 3, 2, 1),
     lambda rng, shape: (distinct(rng, shape),),
     lambda x: np_pool(x, 3, 2, 1, True, 'max'), 'MaxPoolingND', shapes=POOL_SHAPES)
case('max_pooling_2d_no_cover_all', lambda x: F.max_pooling_2d(x, 2, 1, cover_all=False),
     lambda rng, shape: (distinct(rng, shape),),
     lambda x: np_pool(x, 2, 1, 0, False, 'max'), 'MaxPoolingND', shapes=POOL_SHAPES)
case('average_pooling_2d', lambda x: F.average_pooling_2d(x, 2), unary((), -2, 2),
     lambda x: np_pool(x, 2, 2, 0, False, 'mean'), 'AveragePooling2D', shapes=POOL_SHAPES)
case('average_pooling_2d_pad', lambda x: F.average_pooling_2d(x, 3, 2, 1), unary((), -2, 2),
     lambda x: np_pool(x, 3, 2, 1, False, 'mean'), 'AveragePooling2D', shapes=POOL_SHAPES)

# -- normalization


def _bn_make(rng: np.random.RandomState, shape: tuple) -> tuple:
    c = shape[1]
    return rng.uniform(-2, 2, shape), rng.uniform(0.5, 1.5, c), rng.uniform(-1, 1, c)


case('batch_normalization', F.batch_normalization, _bn_make, np_bn, 'BatchNormalization',
     shapes=((5, 3), (3, 2, 2, 2)))


def _fixed_bn_make(rng: np.random.RandomState, shape: tuple) -> tuple:
    c = shape[1]
    return _bn_make(rng, shape) + (rng.uniform(-1, 1, c), rng.uniform(0.5, 1.5, c))


def _np_fixed_bn(x: np.ndarray, g: np.ndarray, b: np.ndarray, m: np.ndarray,
                 v: np.ndarray) -> np.ndarray:
    s = (1, -1) + (1,) * (x.ndim - 2)
    return g.reshape(s) * (x - m.reshape(s)) / np.sqrt(v.reshape(s) + 2e-5) + b.reshape(s)


case('fixed_batch_normalization', F.fixed_batch_normalization, _fixed_bn_make, _np_fixed_bn,
     'FixedBatchNormalization', shapes=((4, 3), (2, 3, 2, 2)))


def _np_ln(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    m, v = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-5) * g + b


case('layer_normalization', F.layer_normalization,
     lambda rng, shape: (rng.uniform(-2, 2, shape), rng.uniform(0.5, 1.5, shape[1]),
                         rng.uniform(-1, 1, shape[1])),
     _np_ln, 'LayerNormalization', shapes=((3, 5),))


# ---- helpers -------------------------------------------------------------------------------------


def params(with_shapes: bool = True, double_only: bool = False) -> list:
    out = []
    for c in CASES:
        if double_only and not c.double:
            continue
        for dtype in c.dtypes:
            for shape in (c.shapes if with_shapes else c.shapes[:1]):
                out.append(pytest.param(c, dtype, shape,
                                        id=f'{c.name}-{np.dtype(dtype).name}-{shape}'))
    return out


def setup(c: Case, dtype: Any, shape: tuple, seed: int = 0) -> tuple:
    rng = np.random.RandomState(seed)
    raw = c.make(rng, shape)
    inputs = tuple(a.astype(dtype) if a.dtype.kind == 'f' else a for a in raw)
    return inputs, rng


def out_grad(rng: np.random.RandomState, y: Variable) -> Any:
    if y.ndim == 0:
        return None
    return rng.uniform(-1, 1, y.shape).astype(y.dtype)


def float_inputs(inputs: tuple, c: Case | None = None) -> list:
    skip = c.no_grads if c is not None and c.no_grads else (False,) * len(inputs)
    return [i for i, a in enumerate(inputs) if a.dtype.kind == 'f' and not skip[i]]


def same_bits(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and a.shape == b.shape and \
        np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


# ---- forward, label ------------------------------------------------------------------------------


@pytest.mark.parametrize('c, dtype, shape', params())
def test_forward_matches_numpy(c: Case, dtype: Any, shape: tuple) -> None:
    inputs, _ = setup(c, dtype, shape)
    y = c.fn(*inputs)
    assert isinstance(y, Variable)
    expected = c.ref(*[a.astype(np.float64) if a.dtype.kind == 'f' else a for a in inputs])
    assert y.dtype == dtype
    assert y.shape == expected.shape
    assert type(y.array) is np.ndarray  # 0-dim results stay arrays
    np.testing.assert_allclose(y.array.astype(np.float64), expected, **FORWARD[dtype])


@pytest.mark.parametrize('c', CASES, ids=repr)
def test_label(c: Case) -> None:
    inputs, _ = setup(c, np.float32, c.shapes[0])
    assert c.fn(*[Variable(a) for a in inputs]).creator.label == c.label


# ---- numerical gradients -------------------------------------------------------------------------


@pytest.mark.parametrize('c, dtype, shape', params())
def test_check_backward(c: Case, dtype: Any, shape: tuple) -> None:
    inputs, rng = setup(c, dtype, shape)
    gy = out_grad(rng, c.fn(*inputs))
    gradient_check.check_backward(c.fn, inputs, gy, no_grads=c.no_grads, **FIRST[dtype])


@pytest.mark.parametrize('c, dtype, shape', params(double_only=True))
def test_check_double_backward(c: Case, dtype: Any, shape: tuple) -> None:
    inputs, rng = setup(c, dtype, shape, seed=1)
    gy = out_grad(rng, c.fn(*inputs))
    ggx = tuple(rng.uniform(-1, 1, a.shape).astype(dtype) if a.dtype.kind == 'f' else None
                for a in inputs)
    gradient_check.check_double_backward(c.fn, inputs, gy, ggx, no_grads=c.no_grads,
                                         **SECOND[dtype])


# ---- fast path == Variable path, bitwise ---------------------------------------------------------


def first_order(c: Case, inputs: tuple, gy: Any, double: bool) -> list:
    xs = [Variable(a.copy(), requires_grad=a.dtype.kind == 'f') for a in inputs]
    y = c.fn(*xs)
    if gy is not None:
        y.grad = gy.copy()
    y.backward(enable_double_backprop=double)
    return [x.grad for x in xs]


@pytest.mark.parametrize('c, dtype, shape', params())
def test_fast_path_is_bitwise_the_variable_path(c: Case, dtype: Any, shape: tuple) -> None:
    inputs, rng = setup(c, dtype, shape)
    y = c.fn(*inputs)
    if c.grad_node:
        assert hasattr(type(y.creator), 'backward_arrays')
    gy = out_grad(rng, y)
    fast = first_order(c, inputs, gy, double=False)
    slow = first_order(c, inputs, gy, double=True)
    for i in float_inputs(inputs, c):
        assert fast[i] is not None
        assert same_bits(fast[i], slow[i]), f'input {i}'


def second_order(c: Case, inputs: tuple, gy: Any, rs: list, double: bool) -> list:
    xs = [Variable(a.copy(), requires_grad=a.dtype.kind == 'f') for a in inputs]
    wrt = [xs[i] for i in float_inputs(inputs)]
    y = c.fn(*xs)
    gy_var = None if gy is None else Variable(gy.copy())
    if gy_var is not None:
        wrt.append(gy_var)
    gxs = chainer.grad([y], wrt[:len(rs)], None if gy is None else [gy_var],
                       enable_double_backprop=True)
    z = None
    for g, r in zip(gxs, rs):
        if g is not None:
            term = F.sum(g * r)
            z = term if z is None else z + term
    return chainer.grad([z], wrt, enable_double_backprop=double)


@pytest.mark.parametrize('c, dtype, shape', params(with_shapes=False, double_only=True))
def test_gradient_nodes_fast_path_is_bitwise(c: Case, dtype: Any, shape: tuple) -> None:
    inputs, rng = setup(c, dtype, shape, seed=2)
    gy = out_grad(rng, c.fn(*inputs))
    rs = [rng.uniform(-1, 1, inputs[i].shape).astype(dtype) for i in float_inputs(inputs)]
    fast = second_order(c, inputs, gy, rs, double=False)
    slow = second_order(c, inputs, gy, rs, double=True)
    assert len(fast) == len(slow)
    for i, (a, b) in enumerate(zip(fast, slow)):
        assert (a is None) == (b is None), i
        if a is not None:
            assert same_bits(a.array, b.array), f'gradient {i}'


# ---- ReLU's second derivative (quirk Q2) and other non-differentiable paths ----------------------


def test_relu_second_derivative_is_none() -> None:
    x = Variable(np.array([-1.0, 2.0], np.float32))
    gx, = chainer.grad([F.relu(x)], [x], enable_double_backprop=True)
    np.testing.assert_array_equal(gx.array, [0, 1])
    assert chainer.grad([gx], [x]) == [None]


def test_leaky_relu_and_hard_sigmoid_second_derivatives_are_none() -> None:
    for f in (F.leaky_relu, F.hard_sigmoid):
        x = Variable(np.array([-1.0, 2.0]))
        gx, = chainer.grad([f(x)], [x], enable_double_backprop=True)
        assert chainer.grad([gx], [x]) == [None]


def test_softmax_cross_entropy_refuses_double_backprop_unless_enabled() -> None:
    x = Variable(np.random.RandomState(0).randn(3, 4))
    t = np.array([0, 1, 3], np.int32)
    gx, = chainer.grad([F.softmax_cross_entropy(x, t)], [x], enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='enable_double_backprop=True'):
        chainer.grad([F.sum(gx * gx)], [x])
    gx2, = chainer.grad([F.softmax_cross_entropy(x, t, enable_double_backprop=True)], [x],
                        enable_double_backprop=True)
    np.testing.assert_allclose(gx2.array, gx.array, rtol=1e-12)
    assert chainer.grad([F.sum(gx2 * gx2)], [x])[0] is not None


def test_accuracy_is_not_differentiable() -> None:
    y = Variable(np.array([[0.2, 0.8], [0.6, 0.4]], np.float32))
    acc = F.accuracy(y, np.array([1, 1], np.int32))
    assert acc.creator.label == 'Accuracy'
    acc.backward()
    assert y.grad is None


# ---- InvalidType ---------------------------------------------------------------------------------

f32 = np.float32
i32 = np.int32


def z(*shape: int, dtype: Any = f32) -> np.ndarray:
    return np.zeros(shape, dtype)


INVALID = [
    ('relu int', lambda: F.relu(z(2, dtype=i32))),
    ('leaky_relu int', lambda: F.leaky_relu(z(2, dtype=i32))),
    ('elu int', lambda: F.elu(z(2, dtype=i32))),
    ('sigmoid int', lambda: F.sigmoid(z(2, dtype=i32))),
    ('hard_sigmoid int', lambda: F.hard_sigmoid(z(2, dtype=i32))),
    ('softplus int', lambda: F.softplus(z(2, dtype=i32))),
    ('swish beta shape', lambda: F.swish(z(2, 3), z(2))),
    ('swish beta dtype', lambda: F.swish(z(2, 3), z(3, dtype=np.float64))),
    ('swish beta ndim', lambda: F.swish(z(2, 3), z(2, 3))),
    ('softmax axis', lambda: F.softmax(z(2, 3), axis=2)),
    ('log_softmax axis', lambda: F.log_softmax(z(2, 3), axis=-3)),
    ('softmax int', lambda: F.softmax(z(2, 3, dtype=i32))),
    ('mse shape', lambda: F.mean_squared_error(z(2, 3), z(3, 2))),
    ('mse dtype', lambda: F.mean_squared_error(z(2), z(2, dtype=np.float64))),
    ('mse int', lambda: F.mean_squared_error(z(2, dtype=i32), z(2, dtype=i32))),
    ('mae shape', lambda: F.mean_absolute_error(z(2), z(3))),
    ('huber shape', lambda: F.huber_loss(z(2, 3), z(2, 2), 1.0)),
    ('huber 1-d reduced', lambda: F.huber_loss(z(3), z(3), 1.0)),
    ('sce t ndim', lambda: F.softmax_cross_entropy(z(2, 3), z(2, 3, dtype=i32))),
    ('sce t length', lambda: F.softmax_cross_entropy(z(2, 3), z(3, dtype=i32))),
    ('sce x int', lambda: F.softmax_cross_entropy(z(2, 3, dtype=i32), z(2, dtype=i32))),
    ('sce soft target shape', lambda: F.softmax_cross_entropy(z(2, 3), z(2, 2))),
    ('sce x 1-d', lambda: F.softmax_cross_entropy(z(3), z(3, dtype=i32))),
    ('sigmoid ce float t', lambda: F.sigmoid_cross_entropy(z(2, 3), z(2, 3))),
    ('sigmoid ce shape', lambda: F.sigmoid_cross_entropy(z(2, 3), z(2, dtype=i32))),
    ('accuracy float t', lambda: F.accuracy(z(2, 3), z(2))),
    ('accuracy shape', lambda: F.accuracy(z(2, 3), z(3, dtype=i32))),
    ('dropout int', lambda: F.dropout(z(2, dtype=i32))),
    ('linear in size', lambda: F.linear(z(2, 3), z(4, 2))),
    ('linear W ndim', lambda: F.linear(z(2, 3), z(3))),
    ('linear b shape', lambda: F.linear(z(2, 3), z(4, 3), z(3))),
    ('linear b dtype', lambda: F.linear(z(2, 3), z(4, 3), z(4, dtype=np.float64))),
    ('linear int', lambda: F.linear(z(2, 3, dtype=i32), z(4, 3, dtype=i32))),
    ('conv x ndim', lambda: F.convolution_2d(z(1, 2, 3), z(1, 2, 1, 1))),
    ('conv channels', lambda: F.convolution_2d(z(1, 2, 3, 3), z(1, 3, 1, 1))),
    ('conv groups', lambda: F.convolution_2d(z(1, 4, 3, 3), z(3, 2, 1, 1), groups=2)),
    ('conv b shape', lambda: F.convolution_2d(z(1, 2, 3, 3), z(4, 2, 1, 1), z(3))),
    ('deconv channels', lambda: F.deconvolution_2d(z(1, 2, 3, 3), z(3, 1, 1, 1))),
    ('deconv outsize', lambda: F.deconvolution_2d(z(1, 2, 3, 3), z(2, 1, 2, 2), outsize=(9, 9))),
    ('embed float ids', lambda: F.embed_id(z(2), z(3, 2))),
    ('embed W ndim', lambda: F.embed_id(z(2, dtype=i32), z(3))),
    ('max pool int', lambda: F.max_pooling_2d(z(1, 1, 2, 2, dtype=i32), 2)),
    ('avg pool ndim', lambda: F.average_pooling_2d(z(1, 2, 2), 2)),
    ('bn gamma shape', lambda: F.batch_normalization(z(4, 3), z(2), z(2))),
    ('bn beta shape', lambda: F.batch_normalization(z(4, 3), z(3), z(2))),
    ('bn dtype', lambda: F.batch_normalization(z(4, 3), z(3, dtype=np.float64),
                                               z(3, dtype=np.float64))),
    ('bn int', lambda: F.batch_normalization(z(4, 3, dtype=i32), z(3), z(3))),
    ('fixed bn var shape', lambda: F.fixed_batch_normalization(z(4, 3), z(3), z(3), z(3), z(2))),
    ('ln x ndim', lambda: F.layer_normalization(z(2, 3, 4), z(3), z(3))),
    ('ln gamma shape', lambda: F.layer_normalization(z(2, 3), z(4), z(4))),
]


@pytest.mark.parametrize('name, thunk', INVALID, ids=[n for n, _ in INVALID])
def test_invalid_inputs_raise_invalid_type(name: str, thunk: Callable) -> None:
    with pytest.raises(InvalidType):
        thunk()


def test_invalid_type_is_raised_before_any_work() -> None:
    running_mean, running_var = np.zeros(2, f32), np.ones(2, f32)
    with pytest.raises(InvalidType):
        F.batch_normalization(z(4, 3), z(2), z(2), running_mean=running_mean,
                              running_var=running_var)
    np.testing.assert_array_equal(running_mean, 0)
    np.testing.assert_array_equal(running_var, 1)
    state = np.random.get_state()[1].copy()
    with pytest.raises(InvalidType):
        F.dropout(z(3, dtype=i32))
    np.testing.assert_array_equal(np.random.get_state()[1], state)  # no mask was drawn


def test_type_check_can_be_switched_off() -> None:
    with chainer.using_config('type_check', False):
        y = F.relu(np.array([-1, 2], np.int32))  # NumPy computes it; nothing checks the kind
    np.testing.assert_array_equal(y.array, [0, 2])
