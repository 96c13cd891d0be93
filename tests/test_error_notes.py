"""The errors a student meets first keep Chainer's message and add plain words as an
exception note (issue 29): an int array into a function, shapes that do not fit,
backward from a many-element output without a grad."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab.utils.notes import add_note
from autograd_lab.utils.type_check import InvalidType


def raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def notes(error):
    return getattr(error, '__notes__', [])


def test_an_int_array_keeps_chainers_message_and_says_make_it_float():
    error = raised(lambda: F.sigmoid(chainer.Variable(np.array([1, 2]))))
    assert isinstance(error, InvalidType)
    assert str(error) == ('\nInvalid operation is performed in: Sigmoid (Forward)\n\n'
                          'Expect: in_types[0].dtype.kind == f\nActual: i != f')
    note, = notes(error)
    assert 'float array' in note and 'got integers' in note and 'astype' in note


def test_a_bool_array_is_named_as_booleans():
    error = raised(lambda: F.exp(chainer.Variable(np.array([True]))))
    assert 'got booleans' in notes(error)[0]


@pytest.mark.parametrize('fn', [
    lambda: chainer.Variable(np.ones(3)) + chainer.Variable(np.ones(4)),
    lambda: F.matmul(chainer.Variable(np.ones((2, 3))), chainer.Variable(np.ones((2, 3)))),
    lambda: F.linear(chainer.Variable(np.ones((2, 3))), chainer.Variable(np.ones((4, 2)))),
], ids=['add', 'matmul', 'linear'])
def test_a_shape_mismatch_keeps_the_message_and_says_compare_shapes(fn):
    error = raised(fn)
    assert isinstance(error, InvalidType) and str(error).startswith(
        '\nInvalid operation is performed in: ')
    assert 'Expect: ' in str(error) and 'plain words' not in str(error)
    note, = notes(error)
    assert ".shape" in note and 'do not fit' in note


def test_backward_from_many_elements_says_reduce_to_a_loss():
    y = chainer.Variable(np.ones(3)) * 2
    error = raised(y.backward)
    assert isinstance(error, TypeError)
    assert str(error).startswith('backward() from a variable with 3 elements')
    note, = notes(error)
    assert 'F.sum(y)' in note and 'one number' in note


def test_other_checks_get_no_note():
    error = raised(lambda: chainer.Variable(np.ones(2, np.float32))
                   + chainer.Variable(np.ones(2, np.float64)))
    assert isinstance(error, InvalidType) and notes(error) == []


def test_on_python_3_10_the_note_goes_in_dunder_notes_by_hand():
    class Old:  # an exception of Python 3.10 has no add_note
        pass
    old = Old()
    add_note(old, 'first')
    add_note(old, 'second')
    assert old.__notes__ == ['first', 'second']
