"""Spec section 10: get_item (``x[idx]``), forward as NumPy, backward as ``numpy.add.at``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd_lab as chainer
import autograd_lab.functions as F

V = chainer.Variable

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

# (id, index given to the Variable, the equivalent NumPy index)
INDEXES = [
    ('int', 1, 1),
    ('numpy-int', np.int64(1), 1),
    ('negative-int', -1, -1),
    ('slice', slice(0, 1), slice(0, 1)),
    ('slice-step', (slice(None), slice(None, None, 2)), (slice(None), slice(None, None, 2))),
    ('slice-negative-step', (slice(None), slice(None, None, -1), slice(3, 0, -2)),
     (slice(None), slice(None, None, -1), slice(3, 0, -2))),
    ('ellipsis', Ellipsis, Ellipsis),
    ('ellipsis-int', (Ellipsis, 1), (Ellipsis, 1)),
    ('int-ellipsis-int', (0, Ellipsis, 2), (0, Ellipsis, 2)),
    ('none', None, None),
    ('newaxis-mid', (0, np.newaxis, slice(1, 3)), (0, None, slice(1, 3))),
    ('int-array', np.array([1, 0, 1]), np.array([1, 0, 1])),
    ('int-array-2d', np.array([[0, 1], [1, 0]]), np.array([[0, 1], [1, 0]])),
    ('uint8-array', np.array([1, 0], np.uint8), np.array([1, 0])),
    ('list-of-ints', [1, 0, 1], np.array([1, 0, 1])),
    ('list-of-one-int', [1], np.array([1])),
    ('list-of-lists', [[1, 0], [0, 2]], (np.array([1, 0]), np.array([0, 2]))),
    ('tuple-of-arrays', (np.array([0, 1]), np.array([2, 0])),
     (np.array([0, 1]), np.array([2, 0]))),
    ('tuple-of-lists', ([0, 1], [2, 0]), (np.array([0, 1]), np.array([2, 0]))),
    ('tuple-with-list-of-lists', ([[0, 1]], 0), (np.array([[0, 1]]), 0)),
    ('separated-advanced', (np.array([0, 1]), slice(None), np.array([1, 2])),
     (np.array([0, 1]), slice(None), np.array([1, 2]))),
    ('broadcast-advanced', (np.array([[0], [1]]), np.array([0, 2, 1])),
     (np.array([[0], [1]]), np.array([0, 2, 1]))),
    ('mixed-tuple', (slice(None), [0, 2], 1), (slice(None), np.array([0, 2]), 1)),
    ('mixed-list-as-tuple', [0, slice(None), 1], (0, slice(None), 1)),
    ('bool-mask-partial', np.array([True, False]), np.array([True, False])),
    ('bool-mask-2d-partial', np.array([[True, False, True], [False, False, True]]),
     np.array([[True, False, True], [False, False, True]])),
    ('bool-mask-full', A > 5, A > 5),
    ('list-of-bools', [True, False], np.array([True, False])),
    ('bool-True', True, True),
    ('numpy-bool-True', np.bool_(True), True),
    ('bool-False', False, False),
    ('two-bool-masks', (np.array([True, True]), slice(None), np.array([True, False, True, False])),
     (np.array([True, True]), slice(None), np.array([True, False, True, False]))),
    ('two-bool-masks-adjacent', (np.array([True, False]), np.array([True, False, True])),
     (np.array([True, False]), np.array([True, False, True]))),
    ('mask-and-int-array', (np.array([False, True]), slice(None), np.array([3, 0])),
     (np.array([False, True]), slice(None), np.array([3, 0]))),
    ('numpy-ints-list-is-tuple', [np.int64(1), 0], (1, 0)),
    ('empty-int-array', np.array([], dtype=np.int64), np.array([], dtype=np.int64)),
    ('empty-list', [], np.array([], dtype=np.intp)),
    ('empty-slice', slice(2, 2), slice(2, 2)),
    ('all-false-mask', np.zeros(3, bool)[None].repeat(2, 0), np.zeros((2, 3), bool)),
]


def add_at_reference(shape, np_index, gy, dtype=np.float64):
    gx = np.zeros(shape, dtype)
    np.add.at(gx, np_index, gy)
    return gx


@pytest.mark.parametrize('index, np_index', [i[1:] for i in INDEXES], ids=[i[0] for i in INDEXES])
def test_forward_matches_numpy_and_backward_matches_add_at(index, np_index):
    x = V(A.copy())
    y = x[index]
    expected = A[np_index]
    assert y.creator.label == 'GetItem'
    assert y.shape == expected.shape
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.array, expected)
    gy = np.arange(1, y.size + 1, dtype=np.float32).reshape(y.shape)
    y.grad = gy
    y.backward()
    assert x.grad.shape == A.shape
    assert x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad, add_at_reference(A.shape, np_index, gy))


@pytest.mark.parametrize('index, np_index', [i[1:] for i in INDEXES[:12]],
                         ids=[i[0] for i in INDEXES[:12]])
def test_f_get_item_equals_operator(index, np_index):
    x = V(A.copy())
    np.testing.assert_array_equal(F.get_item(x, index).array, x[index].array)


def test_list_of_ints_is_advanced_index_not_tuple():
    x = V(A.copy())
    assert x[[1, 0]].shape == (2, 3, 4)  # advanced index along axis 0
    assert x[(1, 0)].shape == (4,)  # a tuple indexes two axes


def test_mixed_list_equals_tuple():
    x = V(A.copy())
    np.testing.assert_array_equal(x[[0, slice(None), 1]].array, A[0, :, 1])


def test_repeated_indices_accumulate():
    x = V(np.arange(5, dtype=np.float32))
    y = x[[0, 0, 2, 0, 4, 4]]
    np.testing.assert_array_equal(y.array, [0, 0, 2, 0, 4, 4])
    y.grad = np.arange(1, 7, dtype=np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [7, 0, 3, 0, 11])


def test_repeated_indices_2d_and_broadcast_index_arrays():
    a = np.arange(12.0).reshape(3, 4)
    idx = (np.array([[0, 0], [2, 0]]), np.array([1, 1]))
    x = V(a)
    y = x[idx]
    gy = np.array([[1.0, 2.0], [3.0, 4.0]])
    y.grad = gy
    y.backward()
    np.testing.assert_array_equal(x.grad, add_at_reference(a.shape, idx, gy))
    assert x.grad[0, 1] == 1 + 2 + 4


def test_repeated_index_grad_accumulates_over_two_backwards():
    x = V(np.arange(3.0))
    for _ in range(2):
        y = x[[1, 1]]
        y.grad = np.ones(2)
        y.backward()
    np.testing.assert_array_equal(x.grad, [0, 4, 0])


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_scatter_add_keeps_dtype(dtype):
    x = V(np.arange(5).astype(dtype))
    y = x[[0, 0, 1]]
    y.grad = np.ones(3, dtype)
    y.backward()
    assert x.grad.dtype == dtype
    np.testing.assert_array_equal(x.grad, [2, 1, 0, 0, 0])


def test_empty_selection_gives_empty_result_and_zero_grads():
    x = V(A.copy())
    for index in ([], np.array([], dtype=np.int64), slice(3, 3), A < 0, False):
        x.cleargrad()
        y = x[index]
        assert y.size == 0
        y.grad = np.zeros(y.shape, np.float32)
        y.backward()
        assert x.grad.shape == A.shape
        assert not x.grad.any()


def test_basic_slice_result_grad_is_zero_outside():
    x = V(np.arange(6.0).reshape(2, 3))
    y = x[:, 1:]
    y.grad = np.full((2, 2), 5.0)
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0, 5, 5], [0, 5, 5]])


def test_double_backprop_through_get_item():
    x = V(np.array([1.0, 2.0, 3.0]))
    y = x[[0, 0, 2]] ** 2
    gx, = chainer.grad([y], [x], grad_outputs=[V(np.ones(3))], enable_double_backprop=True)
    np.testing.assert_array_equal(gx.array, [4, 0, 6])
    assert gx.creator is not None
    ggx, = chainer.grad([gx], [x], grad_outputs=[V(np.array([1.0, 1.0, 1.0]))])
    # d/dx of (2 * x0 * 2, 0, 2 * x2) summed with weights 1
    np.testing.assert_array_equal(ggx.array, [4, 0, 2])


def test_grad_of_grad_graph_contains_get_item():
    x = V(np.arange(4.0))
    y = x[[1, 1, 3]]
    gy = V(np.array([1.0, 2.0, 3.0]))
    y.grad_var = gy
    y.backward(enable_double_backprop=True)
    g = x.grad_var
    np.testing.assert_array_equal(g.array, [0, 3, 0, 3])
    gg_in = V(np.array([10.0, 20.0, 30.0, 40.0]))
    ggy, = chainer.grad([g], [gy], grad_outputs=[gg_in])
    # the backward of the scatter-add is a gather: GetItem of the same index
    np.testing.assert_array_equal(ggy.array, [20, 20, 40])


INDEX_ERRORS = [
    ('out-of-range', 5),
    ('out-of-range-negative', -3),
    ('out-of-range-array', np.array([0, 3])),
    ('out-of-range-list', [0, 2]),
    ('float', 1.5),
    ('float-in-tuple', (0, 1.0)),
    ('too-many', (0, 0, 0, 0)),
    ('two-ellipsis', (Ellipsis, Ellipsis)),
    ('mask-wrong-length', np.array([True, False, True])),
    ('variable-index', V(np.array(1))),
    ('variable-in-tuple', (0, V(np.array([0, 1])))),
    ('variable-in-list', [0, V(np.array(1))]),
]


@pytest.mark.parametrize('index', [e[1] for e in INDEX_ERRORS], ids=[e[0] for e in INDEX_ERRORS])
def test_bad_indexes_raise_index_error(index):
    x = V(A.copy())
    with pytest.raises(IndexError):
        x[index]
    with pytest.raises(IndexError):
        F.get_item(x, index)


@pytest.mark.parametrize('index', [(Ellipsis, Ellipsis), (Ellipsis, 0, Ellipsis),
                                   [0, Ellipsis, Ellipsis]])
def test_several_ellipses_in_debug_mode_raise_chainers_value_error(index):
    x = V(A.copy())
    with chainer.using_config('debug', True):  # Chainer's debug mode checks this itself
        with pytest.raises(ValueError, match=r'^Only one Ellipsis is allowed$'):
            x[index]
        with pytest.raises(ValueError, match=r'^Only one Ellipsis is allowed$'):
            F.get_item(A, index)
    numpys = r"^an index can only have a single ellipsis \('\.\.\.'\)$"
    with pytest.raises(IndexError, match=numpys):
        x[index]  # outside debug mode: NumPy's error, as in Chainer


def test_get_item_on_ndarray_returns_non_grad_variable():
    y = F.get_item(A, (0, slice(1, None)))
    assert isinstance(y, V)
    assert y.requires_grad is False
    assert y.creator.label == 'GetItem'
    np.testing.assert_array_equal(y.array, A[0, 1:])


def test_int32_variable_can_be_indexed_forward_only():
    x = V(np.arange(5, dtype=np.int32))
    y = x[1:3]
    assert y.dtype == np.int32
    assert y.requires_grad is True
    assert y.creator.label == 'GetItem'
    np.testing.assert_array_equal(y.array, [1, 2])
    z = x[[4, 4, 0]]
    np.testing.assert_array_equal(z.array, [4, 4, 0])


def test_iteration_uses_get_item():
    x = V(np.arange(6.0).reshape(3, 2))
    rows = list(x)
    assert len(rows) == 3
    assert all(r.creator.label == 'GetItem' for r in rows)
    total = F.sum(rows[0]) + F.sum(rows[2] * 2)
    total.backward()
    np.testing.assert_array_equal(x.grad, [[1, 1], [0, 0], [2, 2]])



@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.integers(-3, 2), max_size=8),
       cols=st.one_of(st.none(), st.slices(4), st.integers(-4, 3)))
def test_random_advanced_indexes_match_numpy_and_add_at(rows, cols):
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    index = np.array(rows, dtype=np.intp)
    full = index if cols is None else (index, cols)
    x = V(a.copy())
    y = x[full]
    np.testing.assert_array_equal(y.array, a[full])
    gy = np.arange(1, y.size + 1, dtype=np.float64).reshape(y.shape)
    y.grad = gy
    y.backward()
    np.testing.assert_array_equal(x.grad, add_at_reference(a.shape, full, gy))
