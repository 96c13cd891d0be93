"""Array functions of issue 3: concat, stack, hstack, vstack, split_axis, separate, where,
repeat, tile, pad, flip, select_item (and swapaxes, now a 'Swapaxes' node).

Forward values against NumPy, Chainer's labels and dtype rules, input errors, and for
every function at several shapes and float16/32/64:

* ``check_backward`` and ``check_double_backward`` (numerical first and second orders);
* the fast path (``backward_arrays``) and the Variable path (``backward``, taken with
  ``enable_double_backprop=True``) give bitwise identical gradients.

Expected values and error classes marked "Chainer 7.8.1" were produced by running it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import autograd_lab.functions as F
from autograd_lab import FunctionNode, Variable
from autograd_lab.utils.type_check import InvalidType
from chainer_ref import requires_chainer, run as run_chainer
from function_harness import (FLOATS, RECORDING, assert_paths_identical, assert_records_agree,
                              check_first_order, check_second_order, count_backward_paths,
                              dtype_params, first_order_vars, run_here as run_program,
                              setup_case)

X = np.arange(6, dtype=np.float32).reshape(2, 3)
XI = np.arange(6, dtype=np.int32).reshape(2, 3)
MASK = np.array([[True, False, True], [False, True, True]])
T = np.array([0, 3, 1], np.int32)


def label_of(y: Variable) -> str:
    return y.creator.label


def arange(shape: tuple, dtype: Any = np.float64) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


# ---- gradient cases ---------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    fn: Callable[..., Any]
    inputs: list                 # shapes of the float inputs (uniform in [-1, 1])
    dtypes: tuple = FLOATS
    tol: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return self.name


CASES: list = []


def case(name: str, fn: Callable, *shapes: Any, **options: Any) -> None:
    CASES.append(Case(name, fn, list(shapes), **options))


case('concat', lambda a, b: F.concat([a, b]), (2, 3), (2, 1))
case('concat_axis0_three', lambda a, b, c: F.concat((a, b, c), axis=0), (2, 3), (1, 3), (3, 3))
case('concat_negative_axis', lambda a, b: F.concat([a, b], axis=-1), (2, 1, 2), (2, 1, 3))
case('concat_single', lambda a: F.concat([a], axis=0), (2, 3))
case('stack', lambda a, b: F.stack([a, b]), (2, 3), (2, 3))
case('stack_negative_axis', lambda a, b: F.stack([a, b], axis=-1), (2, 3), (2, 3))
case('stack_middle_three', lambda a, b, c: F.stack([a, b, c], axis=1), (2, 3), (2, 3), (2, 3))
case('stack_0dim', lambda a, b: F.stack([a, b]), (), ())
for fname in ('hstack', 'vstack'):
    fn = getattr(F, fname)
    case(f'{fname}_0dim', lambda a, b, fn=fn: fn([a, b]), (), ())
    case(f'{fname}_1d', lambda a, b, fn=fn: fn([a, b]), (3,), (3,))
    case(f'{fname}_3d', lambda a, b, fn=fn: fn([a, b]), (2, 2, 3), (2, 2, 3))
case('hstack_2d', lambda a, b: F.hstack([a, b]), (2, 3), (2, 1))
case('hstack_1d_sizes', lambda a, b, c: F.hstack([a, b, c]), (3,), (1,), (2,))
case('vstack_2d', lambda a, b: F.vstack([a, b]), (2, 3), (1, 3))
case('split_axis_sections', lambda x: F.split_axis(x, 3, 1), (2, 6))
case('split_axis_indices', lambda x: F.split_axis(x, [1, 4], 1), (2, 6))
case('split_axis_array_indices', lambda x: F.split_axis(x, np.array([2]), 0), (3, 2))
case('split_axis_empty_piece', lambda x: F.split_axis(x, (2, 1), -1), (2, 4))
case('split_axis_not_forced', lambda x: F.split_axis(x, 1, 0, force_tuple=False), (2, 3))
case('separate', F.separate, (3, 2))
case('separate_negative_axis', lambda x: F.separate(x, -1), (2, 3))
case('separate_1d', F.separate, (3,))
case('where', lambda a, b: F.where(MASK, a, b), (2, 3), (2, 3))
case('where_broadcast', lambda a, b: F.where(MASK[0], a, b), (2, 3), ())
case('where_variable_condition', lambda a, b: F.where(Variable(MASK), a, b), (3,), (2, 3))
case('repeat', lambda x: F.repeat(x, 2), (2, 3))
case('repeat_axis', lambda x: F.repeat(x, 3, axis=1), (2, 3))
case('repeat_tuple', lambda x: F.repeat(x, (1, 0, 3), axis=-1), (2, 3))
case('repeat_tuple_flat', lambda x: F.repeat(x, (2, 1, 1, 0, 1, 3)), (2, 3))
case('repeat_0dim', lambda x: F.repeat(x, 3), ())
case('tile', lambda x: F.tile(x, 2), (2, 3))
case('tile_more_dims', lambda x: F.tile(x, (2, 1, 3)), (2, 3))
case('tile_fewer_reps', lambda x: F.tile(x, (2,)), (2, 2, 3))
case('tile_0dim', lambda x: F.tile(x, (2, 2)), ())
case('pad', lambda x: F.pad(x, 1, 'constant'), (2, 3))
case('pad_pairs_value', lambda x: F.pad(x, ((1, 0), (0, 2)), 'constant', constant_values=2.5),
     (2, 3))
case('pad_1d', lambda x: F.pad(x, (2, 1), 'constant'), (3,))
case('flip', lambda x: F.flip(x, 0), (2, 3))
case('flip_negative_axis', lambda x: F.flip(x, -1), (2, 3, 4))
case('select_item', lambda x: F.select_item(x, T), (3, 4))
case('select_item_negative_int64', lambda x: F.select_item(x, np.array([-1, 0], np.int64)),
     (2, 3))
case('swapaxes', lambda x: F.swapaxes(x, 0, 2), (2, 3, 4))


def draw_inputs(case_: Case, dtype: Any, rng: np.random.Generator) -> tuple:
    return tuple(np.asarray(rng.uniform(-1, 1, s), dtype=dtype) for s in case_.inputs)


def setup(case_: Case, dtype: Any, seed: int = 0) -> tuple:
    return setup_case(case_, dtype, draw_inputs, seed)


def options(table: dict, case_: Case, dtype: Any) -> dict:
    opts = dict(table[dtype])
    opts.update(case_.tol)
    return opts


@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_check_backward(case_, dtype):
    check_first_order(case_, dtype, setup, options)


@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_check_double_backward(case_, dtype):
    check_second_order(case_, dtype, setup, options)


# ---- fast path == Variable path, bitwise ---------------------------------------------------

@pytest.mark.parametrize('case_, dtype', dtype_params(CASES))
def test_fast_and_variable_paths_identical(case_, dtype, monkeypatch):
    path_counter = count_backward_paths(monkeypatch)
    xs, gys, _ = setup(case_, dtype)
    assert_paths_identical(case_.fn, xs, gys, path_counter)


@pytest.mark.parametrize('double', [False, True])
@pytest.mark.parametrize('fn, n', [(lambda x: F.split_axis(x, 3, 0), 3),
                                   (lambda x: F.separate(x, 0), 3)])
def test_unused_outputs_get_zero_gradients(fn, n, double):
    """Outputs nobody differentiates count as zeros (both backward paths)."""
    x = Variable(arange((3, 2)))
    ys = fn(x)
    assert len(ys) == n
    F.sum(ys[1] * 2.0).backward(enable_double_backprop=double)
    np.testing.assert_array_equal(x.grad, [[0.0, 0.0], [2.0, 2.0], [0.0, 0.0]])


def test_every_new_node_has_both_backward_paths():
    import autograd_lab.functions.array as AR
    names = ['Concat', 'Stack', 'Hstack', 'Vstack', 'SplitAxis', 'Separate', 'Where',
             'SelectItem', 'SelectItemGrad', 'Repeat', 'RepeatGrad', 'Tile', 'TileGrad', 'Pad',
             'Flip', 'Swapaxes']
    for name in names:
        cls = getattr(AR, name)
        assert cls.backward is not FunctionNode.backward, name
        assert callable(getattr(cls, 'backward_arrays', None)), name


# ---- concat / stack / hstack / vstack ------------------------------------------------------------

@pytest.mark.parametrize('dtype', FLOATS + (np.int32,))
def test_concat_forward(dtype):
    a, b = arange((2, 3), dtype), arange((2, 1), dtype)
    y = F.concat([Variable(a), b])
    assert label_of(y) == 'Concat' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.concatenate([a, b], axis=1))  # default axis 1
    np.testing.assert_array_equal(F.concat((a, a), axis=0).array, np.concatenate([a, a]))
    np.testing.assert_array_equal(F.concat([a, b], axis=-1).array, np.concatenate([a, b], 1))


def test_concat_gradient_is_split():
    a, b = Variable(np.zeros((2, 3))), Variable(np.zeros((2, 1)))
    y = F.concat([a, b])
    y.grad = arange((2, 4))
    y.backward()
    np.testing.assert_array_equal(a.grad, [[0, 1, 2], [4, 5, 6]])
    np.testing.assert_array_equal(b.grad, [[3], [7]])


@pytest.mark.parametrize('xs, axis', [
    ([X, X.astype(np.float64)], 1),          # dtype
    ([X, X[:1]], 1),                         # other dims differ
    ([X, X[0]], 0),                          # ndim
    ([X, X], 2), ([X, X], -3),               # axis out of range
    ([], 1),                                 # nothing to join
    ([np.ones((), np.float32)] * 2, 0),      # 0-dim has no axis
])
def test_concat_invalid_types(xs, axis):
    with pytest.raises(InvalidType):
        F.concat(xs, axis)


@pytest.mark.parametrize('axis', [0, 1, 2, -1, -3])
@pytest.mark.parametrize('dtype', FLOATS + (np.int32,))
def test_stack_forward(axis, dtype):
    a = arange((2, 3), dtype)
    y = F.stack([a, a + 1], axis=axis)
    assert label_of(y) == 'Stack' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.stack([a, a + 1], axis=axis))


@pytest.mark.parametrize('xs, axis', [
    ([X, X], 3), ([X, X], -4), ([X, X[:1]], 0), ([X, X.astype(np.float64)], 0), ([], 0)])
def test_stack_invalid_types(xs, axis):
    with pytest.raises(InvalidType):
        F.stack(xs, axis)


@pytest.mark.parametrize('fname', ['hstack', 'vstack'])
@pytest.mark.parametrize('shapes', [[(), ()], [(3,), (3,)], [(2, 3), (2, 3)],
                                    [(2, 2, 3), (2, 2, 3)]])
@pytest.mark.parametrize('dtype', [np.float16, np.int32])
def test_hstack_vstack_forward_like_numpy(fname, shapes, dtype):
    xs = [np.asarray(arange(s) + i, dtype=dtype) for i, s in enumerate(shapes)]
    y = getattr(F, fname)(xs)
    assert label_of(y) == fname.capitalize() and y.dtype == dtype
    np.testing.assert_array_equal(y.array, getattr(np, fname)(xs))


def test_hstack_vstack_different_sizes():
    a, b = arange((2, 3)), arange((2, 1))
    np.testing.assert_array_equal(F.hstack([a, b]).array, np.hstack([a, b]))
    np.testing.assert_array_equal(F.vstack([a, a[:1]]).array, np.vstack([a, a[:1]]))
    np.testing.assert_array_equal(F.hstack([a[0], b[:, 0]]).array, np.hstack([a[0], b[:, 0]]))


@pytest.mark.parametrize('fname, xs', [
    ('hstack', [X, X[:1]]), ('hstack', [X[0], X]), ('hstack', [X, X.astype(np.float64)]),
    ('hstack', []), ('vstack', [X, X[:, :1]]), ('vstack', [X[0], X]),
    ('vstack', [X[0], X[0, :2]]), ('vstack', [X, X.astype(np.float64)]), ('vstack', [])])
def test_hstack_vstack_invalid_types(fname, xs):
    with pytest.raises(InvalidType):
        getattr(F, fname)(xs)


# ---- split_axis / separate -----------------------------------------------------------------------

@pytest.mark.parametrize('ios, axis', [(3, 1), (1, 0), ([1, 4], 1), ((2, 1), 1), ([], 1),
                                       (np.array([2, 3]), -1), (2, 0)])
@pytest.mark.parametrize('dtype', [np.float32, np.int32])
def test_split_axis_forward_like_numpy(ios, axis, dtype):
    x = arange((2, 6), dtype)
    ys = F.split_axis(x, ios, axis)
    assert isinstance(ys, tuple)
    expected = np.split(x, ios, axis)
    assert len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert label_of(y) == 'SplitAxis' and y.dtype == dtype
        np.testing.assert_array_equal(y.array, e)
    assert len({id(y.creator) for y in ys}) == 1  # one node, several outputs


def test_split_axis_force_tuple():
    x = arange((2, 3))
    y = F.split_axis(x, 1, 0, force_tuple=False)
    assert isinstance(y, Variable) and y.shape == (2, 3)
    assert isinstance(F.split_axis(x, 1, 0), tuple)
    assert isinstance(F.split_axis(x, 3, 1, force_tuple=False), tuple)


def test_split_axis_errors():
    x = arange((2, 6))
    with pytest.raises(InvalidType):
        F.split_axis(x, 4, 1)      # 6 % 4 != 0
    with pytest.raises(InvalidType):
        F.split_axis(x, [1, 7], 1)  # an index beyond the axis
    with pytest.raises(InvalidType):
        F.split_axis(x, 2, 2)      # axis out of range
    with pytest.raises(TypeError):
        F.split_axis(x, 1.5, 1)
    with pytest.raises(ValueError):
        F.split_axis(x, 0, 1)


@pytest.mark.parametrize('shape, axis', [((3, 2), 0), ((2, 3), 1), ((2, 3), -1), ((3,), 0),
                                         ((2, 3, 4), 1)])
@pytest.mark.parametrize('dtype', [np.float16, np.int32])
def test_separate_forward(shape, axis, dtype):
    x = arange(shape, dtype)
    ys = F.separate(Variable(x), axis)
    assert isinstance(ys, tuple) and len(ys) == shape[axis]
    for i, y in enumerate(ys):
        assert label_of(y) == 'Separate' and y.dtype == dtype
        assert type(y.array) is np.ndarray  # 0-dim pieces stay arrays
        np.testing.assert_array_equal(y.array, np.take(x, i, axis=axis))


def test_separate_errors():
    with pytest.raises(InvalidType):
        F.separate(X, 2)
    with pytest.raises(InvalidType):
        F.separate(np.ones((), np.float32))
    with pytest.raises(TypeError):
        F.separate(X, (0,))


# ---- where -------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', FLOATS + (np.int32,))
def test_where_forward(dtype):
    a, b = arange((2, 3), dtype), -arange((2, 3), dtype)
    y = F.where(MASK, a, b)
    assert label_of(y) == 'Where' and y.dtype == dtype and len(y.creator.inputs) == 2
    np.testing.assert_array_equal(y.array, np.where(MASK, a, b))
    # condition, x and y broadcast; a Variable condition is used through its array
    z = F.where(Variable(MASK[0]), a, b[:1])
    np.testing.assert_array_equal(z.array, np.where(MASK[0], a, b[:1]))


def test_where_gradient_follows_the_condition():
    a, b = Variable(np.zeros((2, 3))), Variable(np.zeros(3))
    y = F.where(MASK, a, b)
    y.grad = arange((2, 3)) + 1
    y.backward()
    np.testing.assert_array_equal(a.grad, [[1, 0, 3], [0, 5, 6]])
    np.testing.assert_array_equal(b.grad, [4, 2, 0])  # summed over the broadcast axis


def test_where_errors():
    with pytest.raises(InvalidType):
        F.where(MASK.astype(np.int32), X, X)           # condition must be bool
    with pytest.raises(InvalidType):
        F.where(MASK, X, X.astype(np.float64))         # x and y share a dtype
    with pytest.raises(InvalidType):
        F.where(MASK, X, X[:, :2])                     # cannot broadcast
    with pytest.raises(TypeError):
        F.where(MASK, X, 0.0)                          # Chainer 7.8.1: TypeError


# ---- repeat / tile -----------------------------------------------------------------------

@pytest.mark.parametrize('repeats, axis', [(2, None), (2, 0), (3, 1), ((1, 0, 3), 1),
                                           ((2,), 1), ((2,), None), (0, 1), (2, -1),
                                           ((1, 2, 0, 1, 1, 3), None)])
@pytest.mark.parametrize('dtype', [np.float32, np.int32])
def test_repeat_forward_like_numpy(repeats, axis, dtype):
    x = arange((2, 3), dtype)
    y = F.repeat(x, repeats, axis)
    assert label_of(y) == 'Repeat' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.repeat(x, repeats, axis))


def test_repeat_gradient_sums_copies():
    x = Variable(np.zeros((2, 3)))
    y = F.repeat(x, (1, 0, 2), axis=1)
    y.grad = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[1.0, 0.0, 5.0], [4.0, 0.0, 11.0]])
    z = Variable(np.array(2.0))
    F.sum(F.repeat(z, 3, axis=0)).backward()  # 0-dim with axis 0 (as NumPy)
    assert z.grad == 3.0 and z.grad.shape == ()


@pytest.mark.parametrize('repeats, error', [([1, 2, 3], TypeError), (2.0, TypeError),
                                            (-1, ValueError), ((1, -1, 1), ValueError)])
def test_repeat_argument_errors(repeats, error):
    with pytest.raises(error):
        F.repeat(X, repeats, axis=1)


@pytest.mark.parametrize('reps', [2, (2,), (2, 1), (1, 3), (2, 1, 2), 0, (), (0, 2)])
@pytest.mark.parametrize('dtype', [np.float64, np.int32])
def test_tile_forward_like_numpy(reps, dtype):
    x = arange((2, 3), dtype)
    y = F.tile(x, reps)
    assert label_of(y) == 'Tile' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.tile(x, reps))


def test_tile_gradient_sums_copies():
    x = Variable(np.zeros(2))
    y = F.tile(x, (2, 2))
    y.grad = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [16.0, 20.0])


@pytest.mark.parametrize('reps, error', [([2, 2], TypeError), (2.0, TypeError),
                                         (-1, ValueError), ((2, -1), ValueError)])
def test_tile_argument_errors(reps, error):
    with pytest.raises(error):
        F.tile(X, reps)


# ---- pad ---------------------------------------------------------------------------------

@pytest.mark.parametrize('pad_width, kw', [(1, {}), ((1, 2), {}), (((1, 0), (0, 2)), {}),
                                           (((0, 0), (3, 1)), dict(constant_values=5)),
                                           (2, dict(constant_values=-1.5))])
@pytest.mark.parametrize('dtype', FLOATS)
def test_pad_constant_forward_like_numpy(pad_width, kw, dtype):
    x = arange((2, 3), dtype)
    y = F.pad(Variable(x), pad_width, 'constant', **kw)
    assert label_of(y) == 'Pad' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.pad(x, pad_width, 'constant', **kw))


def test_pad_gradient_is_the_center():
    x = Variable(np.zeros((2, 3)))
    y = F.pad(x, ((1, 0), (2, 1)), 'constant', constant_values=3)
    y.grad = arange(y.shape)
    y.backward()
    np.testing.assert_array_equal(x.grad, [[8.0, 9.0, 10.0], [14.0, 15.0, 16.0]])


@pytest.mark.parametrize('double', [False, True])
def test_pad_other_modes_forward_only(double):
    x = Variable(arange((2, 3)))
    y = F.pad(x, 1, 'edge')
    np.testing.assert_array_equal(y.array, np.pad(x.array, 1, 'edge'))
    with pytest.raises(NotImplementedError):
        F.sum(y).backward(enable_double_backprop=double)
    assert x.grad is None


def test_pad_errors():
    with pytest.raises(InvalidType):
        F.pad(XI, 1, 'constant')          # float only (Chainer 7.8.1)
    with pytest.raises(ValueError):
        F.pad(X, -1, 'constant')
    with pytest.raises(ValueError):
        F.pad(X, ((1, 2), (0, 0), (1, 1)), 'constant')
    with pytest.raises(TypeError):
        F.pad(X, 1.5, 'constant')
    with pytest.raises(TypeError):
        F.pad(X, 1)                        # mode is required


# ---- flip --------------------------------------------------------------------------------

@pytest.mark.parametrize('shape, axis', [((2, 3), 0), ((2, 3), 1), ((2, 3, 4), -1), ((4,), 0)])
@pytest.mark.parametrize('dtype', [np.float16, np.int32])
def test_flip_forward(shape, axis, dtype):
    x = arange(shape, dtype)
    y = F.flip(x, axis)
    assert label_of(y) == 'Flip' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.flip(x, axis))


def test_flip_errors():
    with pytest.raises(InvalidType):
        F.flip(X, 2)
    with pytest.raises(InvalidType):
        F.flip(X, -3)
    with pytest.raises(InvalidType):
        F.flip(np.ones((), np.float32), 0)
    with pytest.raises(TypeError):
        F.flip(X, (0, 1))                  # Chainer 7.8.1: 'axis must be int'


# ---- select_item -------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', FLOATS + (np.int32,))
@pytest.mark.parametrize('tdtype', [np.int32, np.int64])
def test_select_item_forward(dtype, tdtype):
    x = arange((3, 4), dtype)
    t = np.array([0, 3, -1], tdtype)
    y = F.select_item(Variable(x), t)
    assert label_of(y) == 'SelectItem' and y.dtype == dtype
    np.testing.assert_array_equal(y.array, x[np.arange(3), t])


def test_select_item_gradient_and_t_gets_none():
    x = Variable(np.zeros((3, 4)))
    t = Variable(np.array([1, 0, 3], np.int32))  # an int Variable: requires_grad, no gradient
    y = F.select_item(x, t)
    y.grad = np.array([1.0, 2.0, 3.0])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0, 1, 0, 0], [2, 0, 0, 0], [0, 0, 0, 3]])
    assert t.grad is None


@pytest.mark.parametrize('x, t', [
    (arange((2, 3)), np.array([0, 2], np.float32)),   # t must be integers
    (arange((2, 3)), np.array([0, 2], np.uint8)),     # Chainer 7.8.1: kind 'i' only
    (arange((2, 3)), np.array([0], np.int32)),        # one index per row
    (arange((1, 2, 3)), np.array([0], np.int32)),     # x is 2-D
    (arange((2, 3)), np.array([[0], [1]], np.int32)),  # t is 1-D
])
def test_select_item_invalid_types(x, t):
    with pytest.raises(InvalidType):
        F.select_item(x, t)


def test_select_item_out_of_range_is_index_error():
    with pytest.raises(IndexError):
        F.select_item(arange((2, 3)), np.array([0, 3], np.int32))


# ---- swapaxes and the kept shape functions ------------------------------------------------------

def test_swapaxes_is_one_node_and_its_own_inverse():
    x = Variable(arange((2, 3, 4)))
    y = F.swapaxes(x, 0, 2)
    assert label_of(y) == 'Swapaxes'
    np.testing.assert_array_equal(y.array, x.array.swapaxes(0, 2))
    y.grad = arange(y.shape)
    y.backward()
    np.testing.assert_array_equal(x.grad, arange((4, 3, 2)).swapaxes(0, 2))
    assert F.swapaxes(x, 1, 1).shape == (2, 3, 4)


def test_existing_shape_functions_keep_working():
    x = Variable(arange((1, 2, 3)))
    assert F.squeeze(x).shape == (2, 3)
    assert F.expand_dims(x, 0).shape == (1, 1, 2, 3)
    assert F.flatten(x).shape == (6,)
    assert F.cast(x, np.float32).dtype == np.float32
    assert F.identity(x).shape == (1, 2, 3)
    assert F.copy(x, -1).shape == (1, 2, 3)
    assert [v.shape for v in F.broadcast(x, np.ones((2, 1, 1)))] == [(2, 2, 3)] * 2


# ---- on a GPU backend (the NumPy-backed fake of autograd_lab.testing.fake_gpu) ---------------

DEVICE_CASES = [c for c in CASES if not c.name.startswith(('where', 'select_item'))]  # CPU masks


@pytest.mark.parametrize('case_', DEVICE_CASES, ids=[c.name for c in DEVICE_CASES])
def test_device_arrays_stay_on_the_device(case_, fake_gpu):
    """Outputs and gradients of device arrays stay device arrays and equal the CPU ones.

    The current device is used: the fake cannot tell the device of a result computed from
    a list of arrays (concatenate, stack), where CuPy allocates on the current device."""
    from autograd_lab.testing import fake_gpu as fake
    xs, gys, _ = setup(case_, np.float32)
    cpu = first_order_vars(case_.fn, xs, gys, double=False)
    for double in (False, True):
        on_device = first_order_vars(case_.fn, tuple(fake.to_device(x, 0) for x in xs),
                                     tuple(fake.to_device(g, 0) for g in gys), double)
        for c, d in zip(cpu, on_device, strict=True):
            assert isinstance(d.grad, fake.FakeGpuArray)
            assert np.array_equal(d.grad.get(), c.grad, equal_nan=True)


def test_where_and_select_item_on_the_device(fake_gpu):
    from autograd_lab.testing import fake_gpu as fake
    x = Variable(fake.to_device(arange((2, 3)), 0))
    y = Variable(fake.to_device(-arange((2, 3)), 0))
    z = F.where(fake.to_device(MASK, 0), x, y)
    F.sum(z * z).backward()
    assert isinstance(x.grad, fake.FakeGpuArray)
    np.testing.assert_array_equal(x.grad.get(), np.where(MASK, 2 * arange((2, 3)), 0))
    s = F.select_item(x, fake.to_device(np.array([2, 0], np.int32), 0))
    np.testing.assert_array_equal(s.array.get(), [2.0, 3.0])


# ---- differential test against the real Chainer 7.8.1 -------------------------------------------

PROGRAM = RECORDING + r'''

mask = np.array([[True, False, True], [False, True, True]])
for dtype in (np.float32, np.float64):
    n = np.dtype(dtype).name
    a, b, c = u(2, 3, dtype=dtype), u(2, 1, dtype=dtype), u(1, 3, dtype=dtype)
    record(n + '/concat', lambda p, q: F.concat([p, q]), a, b)
    record(n + '/concat0', lambda p, q: F.concat((p, q), axis=0), a, c)
    record(n + '/stack', lambda p, q: F.stack([p, q], axis=-1), a, a * 2)
    record(n + '/hstack', lambda p, q: F.hstack([p, q]), a, b)
    record(n + '/hstack_1d', lambda p, q: F.hstack([p, q]), u(3, dtype=dtype), u(2, dtype=dtype))
    record(n + '/hstack_0d', lambda p, q: F.hstack([p, q]), u(dtype=dtype), u(dtype=dtype))
    record(n + '/vstack', lambda p, q: F.vstack([p, q]), a, c)
    record(n + '/vstack_1d', lambda p, q: F.vstack([p, q]), u(3, dtype=dtype), u(3, dtype=dtype))
    record(n + '/split', lambda v: F.split_axis(v, [1, 4], 1), u(2, 6, dtype=dtype))
    record(n + '/split_sections', lambda v: F.split_axis(v, 3, 0), u(3, 2, dtype=dtype))
    record(n + '/separate', lambda v: F.separate(v, -1), a)
    record(n + '/where', lambda p, q: F.where(mask, p, q), a, u(3, dtype=dtype))
    record(n + '/repeat', lambda v: F.repeat(v, 2, 1), a)
    record(n + '/repeat_tuple', lambda v: F.repeat(v, (1, 0, 3), 1), a)
    record(n + '/repeat_flat', lambda v: F.repeat(v, 2), a)
    record(n + '/tile', lambda v: F.tile(v, (2, 1, 2)), a)
    record(n + '/tile_int', lambda v: F.tile(v, 2), a)
    out[n + '/pad'] = F.pad(a, ((1, 0), (2, 1)), 'constant', constant_values=3).array
    out[n + '/pad_edge'] = F.pad(a, 1, 'edge').array
    record(n + '/flip', lambda v: F.flip(v, -1), a)
    record(n + '/select_item', lambda v: F.select_item(v, np.array([0, 3, -1], np.int32)),
           u(3, 4, dtype=dtype))
    record(n + '/swapaxes', lambda v: F.swapaxes(v, 0, 2), u(2, 3, 4, dtype=dtype))
'''


def run_here() -> dict:
    return run_program(PROGRAM)


@requires_chainer
def test_agrees_with_chainer() -> None:
    assert_records_agree(run_here(), run_chainer(PROGRAM))


def test_differential_program_runs_without_chainer() -> None:
    got = run_here()
    assert str(got['float32/split/label2']) == 'SplitAxis'
    assert got['float64/select_item/y0'].shape == (3,)
