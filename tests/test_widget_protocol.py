"""The browser contract is written once (issue 31): in autograd_lab_widget.protocol and,
for colours, autograd_lab.graph.palette.  The browser reads a JS module generated from them,
which must be what the generator writes today; no colour is written anywhere else; the
browser code passes its linter."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from autograd_lab.graph import palette
from autograd_lab_widget import messages, protocol
from autograd_lab_widget.present import drawing

REPO = Path(__file__).resolve().parents[1]
JS = REPO / 'widgets' / 'js'
HEX_COLOUR = re.compile(r'(?<![&\w])#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b')  # not &#160;


def test_generated_js_module_is_what_the_generator_writes():
    committed = (JS / 'src' / 'protocol.js').read_text(encoding='utf-8')
    assert committed == protocol.js_module(), (
        'widgets/js/src/protocol.js is stale: run `cd widgets/js && npm run build`')


def test_generated_module_carries_the_palette_and_the_options():
    text = protocol.js_module()
    for colour in palette.BROWSER.values():
        assert f'"{colour}"' in text
    assert '"max_nodes": 600' in text and '"rankdir": "TB"' in text


def test_the_kernel_validates_exactly_the_options_the_protocol_defines():
    assert set(messages.OPTIONS) == set(protocol.OPTIONS)
    assert drawing.DEFAULT_OPTIONS == protocol.OPTION_DEFAULTS
    # every default is a value the kernel accepts from the browser
    assert messages.parse_options(dict(protocol.OPTION_DEFAULTS)) == protocol.OPTION_DEFAULTS
    for name, option in protocol.OPTIONS.items():
        for choice in option.choices:
            assert messages.parse_options({name: choice}) == {name: choice}
        if option.choices:
            with pytest.raises(messages.BadMessage, match=name):
                messages.parse_options({name: 'sideways'})


def test_every_action_and_message_kind_parses():
    for action in protocol.ACTIONS:
        assert messages.parse({'type': 'action', 'action': action}) == ('action', action)
    assert messages.parse({'type': 'hello'}) == ('hello', None)
    with pytest.raises(messages.BadMessage, match='unknown message type'):
        messages.parse({'type': 'download'})  # the kernel's message, not the browser's


def test_no_colour_is_written_outside_the_palette():
    sources = [*JS.glob('src/*.js'), *JS.glob('src/*.css'),
               *(REPO / 'widgets' / 'autograd_lab_widget').glob('*.py')]
    generated = JS / 'src' / 'protocol.js'
    found = {str(path.relative_to(REPO)): HEX_COLOUR.findall(path.read_text(encoding='utf-8'))
             for path in sources if path != generated}
    assert {path: hits for path, hits in found.items() if hits} == {}


def test_ledger_rows_have_readable_keys():
    assert protocol.ledger_row('x.grad', '2.0', 'sum') == {
        'key': 'x.grad', 'value': '2.0', 'classes': 'sum'}


def test_the_browser_code_passes_eslint():
    eslint = JS / 'node_modules' / '.bin' / 'eslint'
    if not eslint.exists() or shutil.which('node') is None:
        pytest.skip('ESLint is not installed (cd widgets/js && npm ci)')
    done = subprocess.run([str(eslint), '.'], cwd=JS, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_drawn_nodes_use_the_protocols_cells_in_its_order():
    import numpy as np

    import autograd_lab as chainer
    from autograd_lab.graph import GraphModel
    from autograd_lab_widget.naming import Names
    from autograd_lab_widget.follow.state import ViewState

    x = chainer.Variable(np.array(2.0), name='x')
    frame = drawing.draw(ViewState(GraphModel.from_outputs(x * x + 1)),
                         dict(protocol.OPTION_DEFAULTS), names=Names())
    for info in frame.nodes.values():
        cells = list(info['text'])
        assert cells == sorted(cells, key=protocol.CELLS.index), cells
