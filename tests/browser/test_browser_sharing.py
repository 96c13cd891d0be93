"""An attacker's notebook after the README's "Sharing notebooks safely" (issue 39 point 6):
cleaned with ``autograd-lab clean``, then trusted anyway (``jupyter trust``, as a teacher
might), opened in JupyterLab without running a cell: nothing of the attacker's runs, no
dialog opens, and the notebook's own text and picture are still there.

The same notebook trusted *without* cleaning is opened first, so the test shows that its
attacks do run in this JupyterLab (each adds its name to ``window.__pwned``: the saved
widget state's ``_esm``, an HTML output's ``<script>`` and ``<img onerror>``, an
``application/javascript`` output, a Markdown output's HTML; two of them open an alert),
and that the clean notebook's silence is the cleaning's.
"""

from __future__ import annotations

import os
import subprocess
import sys

import nbformat
import pytest
from saved_notebooks import PNG, with_widget_state  # tests/ is on sys.path

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

PWN = "(window.__pwned = window.__pwned || []).push('{}');"
#: The attacks, by the name each one records when it runs.
ATTACKS = ('esm', 'script', 'img', 'js', 'svg', 'markdown')


def attacker_notebook() -> nbformat.NotebookNode:
    nb = with_widget_state(PWN.format('esm') + ' alert("esm"); export default {};')
    out = nbformat.v4.new_output
    nb.cells.append(nbformat.v4.new_code_cell('view', outputs=[
        out('display_data', {'application/vnd.jupyter.widget-view+json': {
            'model_id': 'm1', 'version_major': 2, 'version_minor': 0},
            'text/plain': 'legit: the view'}),
        out('display_data', {'text/html': f'<p>picture</p><script>{PWN.format("script")}'
                                          'alert("script")</script>',
                             'text/plain': 'legit: the picture'}),
        out('display_data', {'text/html': '<img src="nowhere.png" onerror="'
                                          + PWN.format('img').replace("'", '&#39;') + '">'}),
    ]))
    nb.cells.append(nbformat.v4.new_code_cell('more()', outputs=[
        out('display_data', {'application/javascript': PWN.format('js')}),
        out('display_data', {'image/svg+xml': '<svg xmlns="http://www.w3.org/2000/svg" '
                                              f'onload="{PWN.format("svg")}"></svg>',
                             'text/plain': 'legit: a drawing'}),
        out('execute_result', {'text/markdown': '<img src="nowhere.png" onerror="'
                                                + PWN.format('markdown') + '">',
                               'text/plain': 'legit: 42'}, execution_count=2),
        out('stream', name='stdout', text='legit: printed\n'),
        out('display_data', {'image/png': PNG, 'text/plain': '<Figure>'}),
    ]))
    return nb


def _jupyter(lab_server, *args: str) -> None:
    """A command as a teacher runs it, with the server's Jupyter folders (its trust)."""
    env = {**os.environ, 'JUPYTER_DATA_DIR': str(lab_server.home / 'data'),
           'JUPYTER_CONFIG_DIR': str(lab_server.home / 'config'), 'JUPYTER_PLATFORM_DIRS': '1'}
    subprocess.run([sys.executable, '-m', *args], check=True, capture_output=True,
                   timeout=120, env=env)


def _opened(page, lab_server, name: str) -> list:
    """Open sharing/<name>.ipynb in JupyterLab (no cell run); the attacks that ran."""
    page.goto(lab_server.url(f'lab/workspaces/{name}/tree/sharing/{name}.ipynb?reset'))
    expect(page.locator('.jp-OutputArea-output', has_text='legit: printed')).to_be_visible(
        timeout=60_000)
    page.wait_for_timeout(3000)  # the widget manager's restore, images failing to load
    return page.evaluate('window.__pwned || []')


@pytest.fixture
def notebooks(notebook_root, lab_server):
    folder = notebook_root / 'sharing'
    folder.mkdir(exist_ok=True)
    for name in ('dirty', 'cleaned'):
        nbformat.write(attacker_notebook(), folder / f'{name}.ipynb')
    return folder


def test_a_cleaned_and_trusted_notebook_runs_nothing(page, lab_server, notebooks):
    dialogs = []

    def seen(dialog):  # Lab's own "leave the page?" lets the next page open
        if dialog.type == 'beforeunload':
            dialog.accept()
        else:
            dialogs.append(dialog.message)
            dialog.dismiss()
    page.on('dialog', seen)
    # the attacks are real: trusted as it came, every one of them runs here
    _jupyter(lab_server, 'jupyter', 'trust', str(notebooks / 'dirty.ipynb'))
    ran = _opened(page, lab_server, 'dirty')
    # JupyterLab 4 draws an SVG output as an <img>, where no script runs; the cleaning
    # drops it all the same (another front end may put it in the page as it is)
    assert set(ran) == set(ATTACKS) - {'svg'}, ran
    assert sorted(dialogs) == ['esm', 'script'], dialogs
    # the README's steps: clean it; then even trusting it runs nothing
    _jupyter(lab_server, 'autograd_lab_lessons.cli', 'clean', str(notebooks / 'cleaned.ipynb'))
    _jupyter(lab_server, 'jupyter', 'trust', str(notebooks / 'cleaned.ipynb'))
    dialogs.clear()
    assert _opened(page, lab_server, 'cleaned') == []
    assert page.evaluate('typeof window.__pwned') == 'undefined'
    assert dialogs == []
    outputs = page.locator('.jp-OutputArea-output')
    for text in ('legit: the view', 'legit: the picture', 'legit: a drawing', 'legit: 42',
                 'legit: printed'):
        expect(outputs.filter(has_text=text)).to_have_count(1)
    assert page.locator('.jp-OutputArea-output img[src^="data:image/png"]').count() == 1
    assert page.locator('.jp-OutputArea-output script, .jp-OutputArea-output svg').count() == 0
