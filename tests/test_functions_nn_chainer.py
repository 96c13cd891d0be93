"""Differential test of the neural-network functions against the real Chainer 7.8.1.

One program, plain Chainer code, runs under Chainer (``.venvs/chainer``, through
``chainer_ref.run``) and here with ``chainer = autograd_lab``.  It records forward
values, first-order gradients, labels, running statistics and dropout masks (NumPy's
global random state is seeded the same way on both sides, and Chainer draws the mask
with ``numpy.random.rand``).  Every record must agree: same dtype and shape, values
within float rounding.  Skipped when the Chainer venv is absent.
"""

from __future__ import annotations

from chainer_ref import requires_chainer, run as run_chainer
from function_harness import assert_records_agree, run_here as run_program

PROGRAM = r'''
rng = np.random.RandomState(0)
f32, f64 = np.float32, np.float64


def u(*shape, dtype=f64, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(dtype)


def record(name, fn, *arrays, gy=None):
    xs = [chainer.Variable(a) if a.dtype.kind == 'f' else a for a in arrays]
    y = fn(*xs)
    out[name + '/y'] = y.array
    out[name + '/label'] = y.creator.label
    if y.ndim and gy is None:
        gy = u(*y.shape, dtype=y.dtype)
    if gy is not None:
        y.grad = gy
    y.backward()
    for i, x in enumerate(xs):
        if isinstance(x, chainer.Variable):
            out['%s/g%d' % (name, i)] = x.grad


for dtype in (f32, f64):
    n = np.dtype(dtype).name
    x = u(3, 4, dtype=dtype, lo=-3, hi=3)
    record(n + '/relu', F.relu, x)
    record(n + '/leaky_relu', lambda v: F.leaky_relu(v, 0.1), x)
    record(n + '/elu', lambda v: F.elu(v, 0.5), x)
    record(n + '/selu', F.selu, x)
    record(n + '/sigmoid', F.sigmoid, x)
    record(n + '/hard_sigmoid', F.hard_sigmoid, x)
    record(n + '/softplus', lambda v: F.softplus(v, 1.5), x)
    record(n + '/swish', F.swish, x, u(4, dtype=dtype))
    record(n + '/softmax', F.softmax, x)
    record(n + '/log_softmax', lambda v: F.log_softmax(v, axis=0), x)
    a, b = u(3, 4, dtype=dtype), u(3, 4, dtype=dtype)
    record(n + '/mse', F.mean_squared_error, a, b)
    record(n + '/mae', F.mean_absolute_error, a, b)
    record(n + '/huber', lambda p, q: F.huber_loss(p, q, 0.5), a * 3, b)
    t = np.array([0, -1, 3], np.int32)
    cw = np.array([1.0, 0.5, 2.0, 1.5], dtype)
    record(n + '/sce', F.softmax_cross_entropy, x, t)
    record(n + '/sce_no', lambda v, t: F.softmax_cross_entropy(v, t, reduce='no'), x, t)
    record(n + '/sce_cw', lambda v, t: F.softmax_cross_entropy(
        v, t, normalize=False, class_weight=cw), x, t)
    record(n + '/sce_double', lambda v, t: F.softmax_cross_entropy(
        v, t, enable_double_backprop=True), x, t)
    x3 = u(2, 3, 2, dtype=dtype)
    record(n + '/sce_nd', F.softmax_cross_entropy, x3, np.array([[0, 2], [1, -1]], np.int32))
    tb = rng.randint(-1, 2, (3, 4)).astype(np.int32)
    record(n + '/sigmoid_ce', F.sigmoid_cross_entropy, x, tb)
    record(n + '/sigmoid_ce_no', lambda v, t: F.sigmoid_cross_entropy(v, t, reduce='no'), x, tb)
    out[n + '/accuracy'] = F.accuracy(x, t, ignore_label=-1).array
    out[n + '/accuracy_all'] = F.accuracy(x, np.array([0, 1, 3], np.int32)).array
    record(n + '/linear', F.linear, u(2, 3, 2, dtype=dtype), u(4, 6, dtype=dtype),
           u(4, dtype=dtype))
    record(n + '/linear_batch', lambda v, W: F.linear(v, W, n_batch_axes=2),
           u(2, 3, 2, dtype=dtype), u(4, 2, dtype=dtype))
    img = u(2, 4, 6, 5, dtype=dtype)
    record(n + '/conv', lambda v, W, b: F.convolution_2d(v, W, b, stride=2, pad=1), img,
           u(3, 4, 3, 3, dtype=dtype), u(3, dtype=dtype))
    record(n + '/conv_cover_all', lambda v, W: F.convolution_2d(v, W, stride=2, cover_all=True),
           img, u(3, 4, 2, 2, dtype=dtype))
    record(n + '/conv_dilate_groups', lambda v, W: F.convolution_2d(
        v, W, pad=2, dilate=2, groups=2), img, u(4, 2, 3, 3, dtype=dtype))
    record(n + '/deconv', lambda v, W, b: F.deconvolution_2d(v, W, b, stride=2, pad=1), img,
           u(4, 3, 3, 3, dtype=dtype), u(3, dtype=dtype))
    record(n + '/deconv_outsize', lambda v, W: F.deconvolution_2d(
        v, W, stride=2, outsize=(12, 10)), img, u(4, 2, 2, 2, dtype=dtype))
    record(n + '/embed', lambda i, W: F.embed_id(i, W, ignore_label=-1),
           np.array([[0, 2, -1], [2, 2, 1]], np.int32), u(3, 4, dtype=dtype))
    distinct = (rng.permutation(2 * 4 * 6 * 5).reshape(2, 4, 6, 5) * 0.1).astype(dtype)
    record(n + '/max_pool', lambda v: F.max_pooling_2d(v, 2), distinct)
    record(n + '/max_pool_pad', lambda v: F.max_pooling_2d(v, 3, 2, 1, cover_all=False),
           distinct)
    record(n + '/avg_pool', lambda v: F.average_pooling_2d(v, 3, 2, 1), img)
    g, be = u(4, dtype=dtype, lo=0.5, hi=1.5), u(4, dtype=dtype)
    rm, rv = np.zeros(4, dtype), np.ones(4, dtype)
    record(n + '/bn', lambda v, g, b: F.batch_normalization(
        v, g, b, running_mean=rm, running_var=rv, decay=0.7), img, g, be)
    out[n + '/bn_running_mean'], out[n + '/bn_running_var'] = rm, rv
    record(n + '/bn_2d', F.batch_normalization, x, g, be)
    record(n + '/fixed_bn', F.fixed_batch_normalization, img, g, be, u(4, dtype=dtype),
           u(4, dtype=dtype, lo=0.5, hi=1.5))
    record(n + '/layer_norm', F.layer_normalization, x, g, be)
    np.random.seed(5)
    record(n + '/dropout', lambda v: F.dropout(v, 0.3), x)
'''


def run_here() -> dict:
    return run_program(PROGRAM)


@requires_chainer
def test_functions_agree_with_chainer() -> None:
    assert_records_agree(run_here(), run_chainer(PROGRAM))


def test_program_runs_without_chainer() -> None:
    # The program itself (and so the differential test) must stay valid autograd_lab code.
    got = run_here()
    assert got['float32/relu/label'] == 'ReLU'
    assert got['float64/max_pool/label'] == 'MaxPoolingND'
