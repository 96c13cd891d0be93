"""One rule for comparing numbers that two builds computed from the same program.

Every differential and cross-version test uses it: autograd_lab against Chainer 7.8.1 in
``.venvs/chainer`` (NumPy 1.26 and its OpenBLAS), the engine's tests on another Python
and NumPy (``tests/test_packaging.py``), and the run with NumPy's AVX-512 kernels turned
off (``tests/test_lowered_dispatch.py``): ``test_differential_chainer.py`` (with
``differential_chainer_compat.py``), ``function_harness.assert_records_agree`` (the
``*_chainer`` tests of ``test_functions_{math,array,nn_chainer}.py``), ``test_serializers``,
``test_links``, ``test_optimizers`` and ``test_initializers``; the dot files of
``test_computational_graph`` and the reports of ``test_function_hooks`` are text, exact.

Two correct builds may round differently: a SIMD ``log`` is not glibc's, and a BLAS sums
a dot product in an order of its own.  The rule says what must be equal and how far
apart two correct results may be.

**Exact**, whatever the kind: dtypes, shapes, integer and boolean values, text (labels,
reprs, error classes and messages, event sequences and hook orders, compared by the
tests with ``==``), NaN and infinity at the same places.  ``kind='exact'`` also holds
float values that no build-dependent rounding made: copies, indexing, NumPy's legacy
seeded uniform draws, and IEEE ``+ - * / sqrt`` of exact inputs (correctly rounded, so
the same everywhere).

**Floats**, in units of the dtype's machine epsilon ``eps`` (1 ULP at 1.0; a tolerance
of ``n * eps * |x|`` is at least ``n`` ULPs of ``x``), i.e. one relative tolerance per
dtype.  ``B`` is the largest error, in ULPs, that NumPy's own accuracy tests allow one
transcendental function (``numpy/_core/tests/data/umath-validation-set-*.csv``; float16
is computed through float32 and rounded once): 2 for float64 (tanh, cbrt; the others 1),
4 for float32 (log, log10, arcsin, tan) and 1 for float16.  Two correct builds are each
within ``B`` of the true value, so within ``2B`` of each other.

* ``kind='elementwise'`` (the default): a value from a chain of at most ``steps``
  (default 4) transcendental or arithmetic steps, none amplifying its input's error
  (condition number <= 1: ``exp, sin, tanh`` of moderate arguments, products, their
  derivatives):
  ``|ours - theirs| <= 2B * steps * eps * max(|ours|, |theirs|)`` element by element
  (near zero: ``2B * steps`` times the smallest subnormal).
  float64: 16 eps = 3.6e-15 relative; float32: 32 eps = 3.8e-6; float16: 8 eps = 7.8e-3.
* ``kind='reduction'``: a sum of ``terms`` products (``sum``, ``matmul``, a linear layer;
  summed in the order of a BLAS build).  Each build is within ``terms * eps/2 * S`` of
  the exact sum, ``S = sum |a_i b_i|`` (the classic bound ``gamma_n``), so the builds
  differ by at most ``terms * eps * S``, plus ``2B * steps * eps * S`` for elementwise
  steps (default 0) around the sums.  Pass ``scale=S`` (an array or a number); without
  it ``S`` is the largest magnitude in the result, right unless that largest element is
  itself a cancelling sum.
* ``kind='finite_difference'``: a numerical derivative ``sum_k c_k f(x + s_k h) / d``
  (``gradient_check.numerical_grad``; ``points=2``: ``(f(x+h) - f(x-h)) / 2h``;
  ``points=5``: ``(-f(x+h) + 8f(x+h/2) - 8f(x-h/2) + f(x-h)) / 6h``).  The ``f`` values
  of two builds differ by ``2B`` ULPs of ``f``; the formula multiplies that by
  ``sum|c_k| / d``, which is ``1/h`` (2 points) or ``18/6h = 3/h`` (5 points).  So
  ``|ours - theirs| <= (sum|c_k| / d) * 2B * eps * f_scale``, ``f_scale`` the largest
  ``|f * grad_output|`` over the window (summed over outputs), plus the ``elementwise``
  rule with ``steps=1`` for the formula's own roundings.  Example:
  ``numerical_grad`` of ``log`` at 100 in float64 with ``h = 1e-3``, five points:
  ``3/1e-3 * 4 * 2.2e-16 * log(100) = 1.2e-11`` around a derivative of 0.01 (1.2e-9
  relative): one ULP of ``log(100)`` (8.9e-16) in one sample of weight ``8/6h`` moves
  the derivative by 1.2e-12, 680,000 of its ULPs; the builds here differ by 1.5e-12.

>>> import numpy as np
>>> ours, chainers = np.float64(0.01000000000110172), np.float64(0.01000000000095369)
>>> log_grad = dict(kind='finite_difference', step=1e-3, points=5, f_scale=4.61)
>>> assert_same_across_builds(ours, chainers, **log_grad)
>>> assert_same_across_builds(np.float64(0.0100000001), chainers, **log_grad)  # 1e-8 off
Traceback (most recent call last):
AssertionError: ...
>>> x = np.float64(0.3)
>>> assert_same_across_builds(np.nextafter(np.nextafter(x, 1), 1), x)   # 2 ULPs: elementwise
>>> differences(np.array([1, 2]), np.array([1, 3]))                    # integers: exact
['values differ at 1 of 2 elements; the first at (1,): ours 2, theirs 3 (exact)']
>>> differences(np.ones(2, np.float32), np.ones(2, np.float64))
['dtype float32 != float64']
"""

from __future__ import annotations

import numpy as np

FUNCTION_ULPS = {np.dtype(np.float16): 1, np.dtype(np.float32): 4, np.dtype(np.float64): 2}
DEFAULT_STEPS = 4
KINDS = ('exact', 'elementwise', 'reduction', 'finite_difference')
_FIVE_POINT = (1.0 + 8.0 + 8.0 + 1.0) / 6.0   # sum |c_k| / (d / h) of the five-point formula
_TWO_POINT = (1.0 + 1.0) / 2.0


def allowed(ours: np.ndarray, theirs: np.ndarray, *, kind: str = 'elementwise',
            steps: int | None = None, terms: int | None = None, scale=None,
            step: float | None = None, points: int = 2, f_scale: float | None = None
            ) -> np.ndarray:
    """The largest ``|ours - theirs|`` the rule allows, per element (0 where exact).

    >>> float(allowed(np.float64(1.0), np.float64(1.0)) / np.finfo(np.float64).eps)
    16.0
    >>> allowed(np.ones(3, np.float32), np.ones(3, np.float32), kind='reduction', terms=3,
    ...         scale=2.0) / np.finfo(np.float32).eps
    array([6., 6., 6.])
    """
    if kind not in KINDS:
        raise ValueError(f'kind must be one of {KINDS}, not {kind!r}')
    dtype = np.result_type(theirs)
    shape = np.shape(theirs)
    if kind == 'exact' or dtype.kind != 'f':
        return np.zeros(shape)
    eps = float(np.finfo(dtype).eps)
    two_b = 2 * FUNCTION_ULPS.get(dtype, FUNCTION_ULPS[np.dtype(np.float64)])
    magnitude = np.maximum(np.abs(np.asarray(ours, np.float64)),
                           np.abs(np.asarray(theirs, np.float64)))
    # One ULP is eps * |x| at most and never less than the smallest subnormal.
    magnitude = np.maximum(np.where(np.isfinite(magnitude), magnitude, 0.0),
                           float(np.finfo(dtype).smallest_subnormal) / eps)
    if kind == 'elementwise':
        return two_b * (DEFAULT_STEPS if steps is None else steps) * eps * magnitude
    if kind == 'reduction':
        if terms is None:
            raise TypeError("kind='reduction' needs terms= (the number of summed products)")
        s = (magnitude.max(initial=0.0) if scale is None
             else np.broadcast_to(np.asarray(scale, np.float64), shape))
        return np.full(shape, (terms + two_b * (steps or 0)) * eps) * s
    if step is None or f_scale is None or points not in (2, 5):
        raise TypeError("kind='finite_difference' needs step=, f_scale= and points=2 or 5")
    gain = (_FIVE_POINT if points == 5 else _TWO_POINT) / step
    return gain * two_b * eps * f_scale + two_b * eps * magnitude


def differences(ours, theirs, *, kind: str = 'elementwise', **how) -> list[str]:
    """What differs between ``ours`` and ``theirs`` beyond the rule (empty when nothing).

    ``how`` holds the kind's parameters (``steps``, ``terms``, ``scale``, ``step``,
    ``points``, ``f_scale``; see the module).

    >>> differences(np.array([2.0, 1.0], np.float32), np.array([2.0, 1.5], np.float32))
    ['values differ at 1 of 2 elements; the first at (1,): ours 1.0, theirs 1.5 (elementwise)']
    >>> differences(np.zeros((2, 1)), np.zeros(2))
    ['shape (2, 1) != (2,)']
    """
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.dtype != theirs.dtype:
        return [f'dtype {ours.dtype} != {theirs.dtype}']
    if ours.shape != theirs.shape:
        return [f'shape {ours.shape} != {theirs.shape}']
    if ours.dtype.kind != 'f':
        bad = ours != theirs
    else:
        a, b = ours.astype(np.float64), theirs.astype(np.float64)
        same_special = (np.isnan(a) & np.isnan(b)) | ((a == b) & ~np.isfinite(a))
        with np.errstate(invalid='ignore'):
            near = np.abs(a - b) <= allowed(ours, theirs, kind=kind, **how)
        bad = ~(same_special | (near & np.isfinite(a) & np.isfinite(b)))
    bad = np.asarray(bad)
    if not bad.any():
        return []
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    kind = 'exact' if ours.dtype.kind != 'f' else kind
    return [f'values differ at {int(bad.sum())} of {bad.size} elements; the first at '
            f'{first}: ours {ours[first]}, theirs {theirs[first]} ({kind})']


def assert_same_across_builds(ours, theirs, *, kind: str = 'elementwise', what: str = '',
                              **how) -> None:
    """Raise AssertionError, saying what differs, unless the rule holds (see the module)."""
    found = differences(ours, theirs, kind=kind, **how)
    assert not found, f'{what}: ' * bool(what) + '; '.join(found)
