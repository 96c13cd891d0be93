"""build_tolerance's rule: it rejects real differences and accepts what two builds differ by.

The accepted pairs are the ones seen between NumPy 2.4 (AVX-512 kernels) here and NumPy
1.26 in Chainer's venv; the rejected ones are what a wrong result looks like.
"""

from __future__ import annotations

import numpy as np
import pytest

import chainer_ref
from build_tolerance import allowed, assert_same_across_builds, differences

EPS32, EPS64 = np.finfo(np.float32).eps, np.finfo(np.float64).eps
LOG_GRAD = dict(kind='finite_difference', step=1e-3, points=5, f_scale=4.61)


def ulps_away(x, n: int):
    for _ in range(n):
        x = np.nextafter(x, np.inf)
    return x


# ---- what two builds really differ by: accepted ------------------------------------------

def test_accepts_numerical_grad_of_log_from_two_builds():
    # Issue 28: numerical_grad of log at 100 (five points, eps 1e-3), Chainer vs ours.
    assert_same_across_builds(np.array([0.01000000000110172]), np.array([0.01000000000095369]),
                              **LOG_GRAD)


def test_accepts_a_few_ulps_of_a_transcendental_result():
    x = np.array([0.3, 2.5, -7.0, 1e-300])
    assert_same_across_builds(ulps_away(x, 4), x)               # 2B = 4 ULPs of one call
    assert_same_across_builds(ulps_away(x.astype(np.float32), 8), x.astype(np.float32))


def test_accepts_a_cancelled_element_of_a_reduction_at_the_arrays_scale():
    # A float32 convolution's gradient here vs Chainer's: 301 eps off at an element that
    # is a cancelled sum, 1.2 eps of the array's largest element.
    theirs = np.array([-1.557393, 1.049203, -0.00655509], np.float32)
    ours = theirs.copy()
    ours[2] = np.float32(theirs[2] * (1 + 301 * EPS32))
    assert differences(ours, theirs) != []                      # elementwise: too far
    assert_same_across_builds(ours, theirs, kind='reduction', terms=9, steps=2)


def test_nan_and_infinity_in_the_same_places_are_the_same():
    a = np.array([np.nan, np.inf, -np.inf, 1.0])
    assert_same_across_builds(a, a.copy())


# ---- real differences: rejected ----------------------------------------------------------

@pytest.mark.parametrize('ours, theirs, message', [
    (np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]), 'values differ at 1 of 2'),
    (np.array([1, 2], np.int32), np.array([1, 3], np.int32), '(exact)'),
    (np.array([True, False]), np.array([True, True]), '(exact)'),
    (np.ones(2, np.float32), np.ones(2, np.float64), 'dtype float32 != float64'),
    (np.ones((2, 1)), np.ones((1, 2)), 'shape (2, 1) != (1, 2)'),
    (np.array([np.nan]), np.array([0.0]), 'values differ'),
    (np.array([np.inf]), np.array([-np.inf]), 'values differ'),
    (np.array([np.inf]), np.array([1.7e308]), 'values differ'),
])
def test_rejects_a_wrong_value_dtype_shape_or_integer(ours, theirs, message):
    found = differences(ours, theirs)
    assert len(found) == 1 and message in found[0], found
    with pytest.raises(AssertionError, match='what it was'):
        assert_same_across_builds(ours, theirs, what='what it was')


def test_exact_kind_rejects_one_ulp():
    x = np.array([0.1])
    assert differences(ulps_away(x, 1), x, kind='exact')
    assert not differences(x.copy(), x, kind='exact')


def test_each_budget_stops_just_past_its_arithmetic():
    x = np.array([1.0])
    assert allowed(x, x)[0] == 16 * EPS64                       # 2B x 4 steps
    assert not differences(x + 15 * EPS64, x) and differences(x + 17 * EPS64, x)
    f = np.ones(1, np.float32)
    assert allowed(f, f)[0] == 32 * EPS32
    bound = 3 / 1e-3 * 4 * EPS64 * 4.61 + 4 * EPS64 * 0.01     # (18/6h) 2B eps f + g's ULPs
    assert allowed(np.array([0.01]), np.array([0.01]), **LOG_GRAD)[0] == pytest.approx(bound)
    assert differences(np.array([0.01 + 1.1 * bound]), np.array([0.01]), **LOG_GRAD)
    assert allowed(x, x, kind='reduction', terms=3, scale=2.0)[0] == 3 * EPS64 * 2.0


def test_a_kind_without_its_arithmetic_is_an_error():
    x = np.ones(1)
    with pytest.raises(ValueError, match='kind must be one of'):
        differences(x, x, kind='close enough')
    with pytest.raises(TypeError, match='terms='):
        differences(x, x, kind='reduction')
    with pytest.raises(TypeError, match='step='):
        differences(x, x, kind='finite_difference', step=1e-3)


# ---- the Chainer run's environment -------------------------------------------------------

def test_chainer_runs_get_their_own_list_of_features_to_turn_off():
    ours_only = chainer_ref.environment({'NPY_DISABLE_CPU_FEATURES': 'X86_V4', 'PYTHONPATH': 'x'})
    assert 'NPY_DISABLE_CPU_FEATURES' not in ours_only and 'PYTHONPATH' not in ours_only
    both = chainer_ref.environment({'NPY_DISABLE_CPU_FEATURES': 'X86_V4',
                                    chainer_ref.PEER_FEATURES_OFF: 'AVX512F AVX512_SKX'})
    assert both['NPY_DISABLE_CPU_FEATURES'] == 'AVX512F AVX512_SKX'
    assert both['OPENBLAS_NUM_THREADS'] == '1'
