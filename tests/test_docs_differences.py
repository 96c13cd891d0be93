"""docs/differences-from-chainer.md: every example on the page runs as written (doctest),
so the errors it promises are the ones users get."""

from __future__ import annotations

import doctest
import warnings
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / 'docs' / 'differences-from-chainer.md'


def test_every_example_of_the_page_runs_as_shown():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        result = doctest.testfile(str(PAGE), module_relative=False, verbose=False,
                                  optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 25
    assert result.failed == 0, f'{result.failed} example(s) of {PAGE.name} failed (see above)'


def test_the_page_names_each_deliberate_difference():
    text = PAGE.read_text()
    for heading in ('No ChainerX', 'No iDeep', 'No cuDNN', "Chainer's other packages",
                    'clearer than Chainer', 'Small differences in internals'):
        assert heading in text
