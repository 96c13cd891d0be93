"""docs/events.md: the contributors' page about graph events stays true.

Its example runs as written (doctest), the engine code it quotes is the engine's, and
its table names every module of the package, so the page cannot drift from the code.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import autograd_lab.events

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / 'docs' / 'events.md'


def test_the_example_runs_as_shown():
    result = doctest.testfile(str(PAGE), module_relative=False, verbose=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 8
    assert result.failed == 0, f'{result.failed} example(s) of {PAGE.name} failed (see above)'


def test_quoted_engine_code_is_in_the_engine():
    """Every plain ```python block (not the doctest one) quotes lines of the engine verbatim."""
    engine = '\n'.join(path.read_text() for path in (ROOT / 'autograd_lab').rglob('*.py'))
    blocks = re.findall(r'```python\n(.*?)```', PAGE.read_text(), flags=re.DOTALL)
    assert blocks, 'the page quotes no engine code any more: update this test'
    for block in blocks:
        for line in block.strip().splitlines():
            assert line.strip() in engine, f'{line.strip()!r} is not in the engine source'


def test_the_table_names_every_module_of_the_package():
    text = PAGE.read_text()
    package = Path(autograd_lab.events.__file__).parent
    modules = sorted(p.name for p in package.glob('*.py') if p.name != '__init__.py')
    missing = [m for m in modules if f'`events/{m}`' not in text]
    assert not missing, f'docs/events.md does not describe {missing}'
    # every row of the module table sits inside the table (no row stranded below it)
    rows = re.findall(r'^\| `events/(\w+\.py)` \|', text, flags=re.MULTILINE)
    table = re.search(r'\| module \| what \|\n\|---\|---\|\n((?:\|.*\|\n)+)', text).group(1)
    assert sorted(rows) == sorted(re.findall(r'`events/(\w+\.py)`', table)) == modules
