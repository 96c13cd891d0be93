"""Keys belong to the view while it has the focus, in JupyterLab 4 and Notebook 7 (issue 38.1).

With the focus on a toolbar button (clicked with the mouse, as a student does), in a guess
box, on the stage or in the inspect panel, every single-key command-mode shortcut of
JupyterLab (a b c d i m o r s v x y z, 1-6, -, Enter) leaves the notebook's cells as they
were: none cut, inserted, turned to markdown or run.  Shift+Enter and Ctrl+Enter in a guess
box check the guess (the score moves, the verdict shows) and never run the cell again.
"Try this step again" puts the focus in the first box; Tab and Shift+Tab stay inside the
view; Esc hands the focus back to the view's cell, in command mode.
"""

from __future__ import annotations

import time

import jupyter_harness as jh
import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

CELLS = [
    '''\
import numpy as np
from autograd_lab import Variable
from autograd_lab_widget import GraphView

x = Variable(np.array(5.0, dtype=np.float32), name='x')
y = x**2 - 2*x + 1
y.name = 'y'
view = GraphView(y, predict=True)''',
    '''\
runs = globals().get('runs', 0) + 1   # counts the runs of the view's cell
view''',
    "after = 'a cell after the view'",
]

#: JupyterLab's single-key command-mode shortcuts: cut, copy, paste, insert above/below,
#: cell types, headings, undo, interrupt (i,i), delete (d,d), zoom; restart (0,0) is left out.
LETTERS = list('abcdimorsvxyz') + list('123456') + ['-']

CELLS_JS = """() => Array.from(document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell'))
  .map((c) => [c.classList.contains('jp-CodeCell') ? 'code'
      : c.classList.contains('jp-MarkdownCell') ? 'markdown' : 'raw',
    Array.from(c.querySelectorAll('.jp-InputArea .cm-line'))
      .map((l) => l.textContent).join('\\n')])"""


def cells(page) -> list:
    return page.evaluate(CELLS_JS)


def focus_in_view(widget) -> bool:
    return widget.evaluate('(root) => root.contains(document.activeElement)')


def press_all(page, widget, focus, keys, what: str) -> None:
    """Focus with ``focus()`` before each key; the focus must be in the view then."""
    for key in keys:
        focus()
        assert focus_in_view(widget), f'{what}: the focus is not in the view before {key!r}'
        # Lumino stops at the first element matching `... :focus`: the focused one itself
        # must carry the mark for JupyterLab to skip its shortcuts
        assert widget.evaluate("() => document.activeElement.hasAttribute("
                               "'data-lm-suppress-shortcuts')"), f'{what}: no mark on the focus'
        page.keyboard.press(key)
        page.wait_for_timeout(60)


@pytest.mark.parametrize('host', ['lab', 'notebook7'])
def test_keys_stay_in_the_view(host, page, lab_server, notebook_root):
    nb, probe_dir = jh.write_notebook(notebook_root, f'view_keys_{host}', CELLS)
    probe = jh.Probe(probe_dir)
    (jh.open_in_lab if host == 'lab' else jh.open_in_notebook7)(page, lab_server, nb, probe)
    widget = jh.wait_widget_ready(page, index=0)
    before = cells(page)
    assert len(before) >= 3 and any('runs = ' in src for _, src in before)
    boxes = widget.locator('.agl-ledger input.agl-guess')
    score = widget.locator('.agl-score')

    # Shift+Enter in a box checks the typed guess (step 1, _ + 1: grad 1); no re-run
    expect(boxes).to_have_count(1)
    boxes.first.click()
    page.keyboard.type('1')
    page.keyboard.press('Shift+Enter')
    probe.wait_for("view.score.as_dict()['right'] == 1", timeout=10, what='Shift+Enter graded')
    expect(widget.locator('.agl-verdict')).to_contain_text('Right! step 1')
    expect(score).to_have_text('Score 1/1')
    # Ctrl+Enter too (step 2, _ - _: a wrong guess, counted as such)
    expect(boxes).to_have_count(2)
    boxes.nth(0).click()
    page.keyboard.type('1')
    boxes.nth(1).click()
    page.keyboard.type('1')
    page.keyboard.press('Control+Enter')
    probe.wait_for("view.score.as_dict()['wrong'] == 1", timeout=10, what='Ctrl+Enter graded')
    expect(score).to_have_text('Score 1/2')
    time.sleep(1.0)
    assert probe.eval('runs') == 1, 'Shift/Ctrl+Enter in a guess box ran the cell again'

    # Try this step again: the focus is in the question's first box
    widget.locator('.agl-ledger button[data-action="back"]').click()
    expect(widget.locator('.agl-ledger input.agl-guess').first).to_be_focused()

    # a guess box: letters are typed into it, none reaches the notebook
    press_all(page, widget, boxes.first.focus, LETTERS, 'guess box')
    assert boxes.first.input_value() == ''.join(LETTERS)
    boxes.first.fill('')

    # a toolbar button clicked with the mouse, then the keys (Enter steps: safe)
    step = widget.locator('button[data-action="step"]')
    step.click()
    assert focus_in_view(widget), 'a click on Step left the focus outside the view'
    page.keyboard.press('x')
    page.wait_for_timeout(300)
    assert cells(page) == before, 'x after a click on Step reached the notebook'
    fit = widget.locator('button[data-action="fit"]')
    press_all(page, widget, fit.focus, LETTERS + ['Enter'], 'Fit button')
    assert cells(page) == before, 'a key on a button reached the notebook'

    # the stage (clicked on its empty corner)
    stage = widget.locator('.agl-graph')
    stage.click(position={'x': 8, 'y': 8})
    assert focus_in_view(widget), 'a click on the stage left the focus outside the view'
    press_all(page, widget, lambda: None if focus_in_view(widget) else widget.focus(),
              LETTERS + ['Enter'], 'stage')

    # the inspect panel: a function node selected, a button of the panel focused
    widget.locator('svg g.node.function').first.click()
    expect(widget.locator('.agl-inspect')).not_to_have_attribute('data-node-id', '')
    panel_button = widget.locator('.agl-inspect button').first
    press_all(page, widget, panel_button.focus, LETTERS, 'inspect panel')

    time.sleep(1.0)
    assert cells(page) == before, 'a key in the view changed the notebook'
    assert probe.eval('runs') == 1, 'a key in the view ran its cell again'

    # Tab and Shift+Tab go round the view's controls, never out of it
    fit.focus()
    for key in ['Tab'] * 40 + ['Shift+Tab'] * 40:
        page.keyboard.press(key)
        assert focus_in_view(widget), f'{key} took the focus out of the view'

    # Esc closes the menu ('m' opened it), then hands the focus back to the view's cell,
    # in command mode
    menu = widget.locator('.agl-menu-panel')
    expect(menu).to_be_visible()
    boxes.first.focus()
    page.keyboard.press('Escape')
    expect(menu).to_be_hidden()
    assert focus_in_view(widget), 'Esc with the menu open left the view'
    page.keyboard.press('Escape')
    handed = widget.evaluate("""(root) => { const a = document.activeElement;
        const cell = root.closest('.jp-Cell');
        return [root.contains(a), a === cell, cell.classList.contains('jp-mod-active'),
                Boolean(document.querySelector('.jp-Notebook.jp-mod-commandMode'))]; }""")
    assert handed == [False, True, True, True], f'Esc did not hand the focus back: {handed}'
    assert cells(page) == before
