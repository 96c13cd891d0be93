"""A walk of every main-path lesson in JupyterLab, as a student who has done it (issue 41).

Each lesson is copied as ``autograd-lab lessons --solutions`` gives it to an instructor
(the reference answers in the exercise cells) and run top to bottom in a real JupyterLab
with headless Chromium.  Then, on screen: every check's verdict is "correct" and none is
wrong or not done.  Every graph view the lesson shows gets Run to end pressed (where it
can step), and what it draws is compared with the engine in the kernel
(``view_truth``): only its own graph's nodes, a grad on a live variable exactly where the
engine holds one (the engine's number for a scalar), gone leaves marked.  A screenshot
per lesson: walk-<lesson>.png in test-artifacts/browser/.  Per lesson the seconds its
cells took are printed (``-s``), the measure INSTRUCTORS.md's times start from.

These walks are the run of the main-path solutions: nbmake runs only the appendix's
solutions (``--ignore-glob`` in pyproject.toml), so nothing is run twice.
"""

from __future__ import annotations

import time

import jupyter_harness as jh
import pytest

from autograd_lab_lessons.path import MAIN_PATH

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

SOLUTIONS = jh.REPO / 'lessons' / 'solutions'
CORRECT, WRONG, TODO = '\u2705', '\u274c', '\u270f\ufe0f'


@pytest.mark.parametrize('stem', MAIN_PATH)
def test_walk_the_lesson(page, lab_server, notebook_root, stem):
    folder = notebook_root / 'walk'
    folder.mkdir(exist_ok=True)
    nb, probe_dir = jh.copy_notebook(SOLUTIONS / f'{stem}.ipynb', folder)
    probe = jh.Probe(probe_dir)
    start = time.perf_counter()
    jh.open_in_lab(page, lab_server, nb, probe, timeout=300)
    ran = time.perf_counter() - start

    outputs = page.locator('.jp-OutputArea-output')
    texts = outputs.all_inner_texts()
    verdicts = [t for t in texts if CORRECT in t or WRONG in t or TODO in t]
    assert verdicts, f'{stem}: no check verdict on screen'
    assert all(CORRECT in t for t in verdicts), [t[:200] for t in verdicts if CORRECT not in t]

    roots = page.locator('.agl-root[data-agl-ready="1"]')
    count = roots.count()
    for k in range(count):
        root = roots.nth(k)
        run = root.locator('button[data-action="run"]')
        if run.count() and run.is_enabled():
            root.scroll_into_view_if_needed()
            run.click()
            expect(root.locator('.agl-counter')).to_be_visible()
    truth = '__import__("view_truth").check_all()'
    try:  # the kernel answers the clicks in turn: what is drawn settles
        probe.wait_for(f'not any({truth}.values())', timeout=30)
    except TimeoutError:
        pass
    wrong = probe.eval(truth, timeout=60)
    jh.screenshot(page, f'walk-{stem}')
    print(f'\n{stem}: {ran:.1f} s to run, {len(verdicts)} checks correct, {count} views')
    assert not any(wrong.values()), f'{stem}: views that say what the engine does not: {wrong}'
