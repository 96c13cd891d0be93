"""Runs the tutorial text files of tests/ as doctests (pytest does not collect .txt files).

The walk-through in ``tutorial_variables_and_derivatives.txt`` prints the values
Chainer 7.8.1 prints for the same code (checked by running it on Chainer).
"""

from __future__ import annotations

import doctest
import warnings
from pathlib import Path

import pytest

TUTORIALS = sorted(Path(__file__).resolve().parent.glob('tutorial_*.txt'))


def test_tutorials_exist():
    assert [p.name for p in TUTORIALS] == ['tutorial_variables_and_derivatives.txt']


@pytest.mark.parametrize('path', TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial(path):
    with warnings.catch_warnings():  # the tutorial changes warning filters on purpose
        result = doctest.testfile(str(path), module_relative=False, verbose=False,
                                  optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 40
    assert result.failed == 0, f'{result.failed} example(s) of {path.name} failed (see above)'
