"""Lessons in JupyterLab, run as a student would, driving their graph views in the browser.

Lesson 1: the notebook is copied alone into the temp root, as ``autograd-lab lessons``
copies it for a student: it imports its checkers from the installed package
(``autograd_lab_lessons``), not from a file beside it. It is run top to bottom, and its first
graph view is reset and stepped with the Step button until done. What the lesson tells the
student about the view must then be on screen: each control it names in bold is a button of
the toolbar, and the status line says *Backward finished*. Every variable whose node shows a
grad is then clicked: the inspect panel's grad must equal the grad of ``view.selected`` in
the kernel (where the Variable still lives).

Lesson 2: exercise 2.4 done the way the lesson asks, in the browser: each step of the
neuron's backward predicted by typing the hand-computed values into the ledger's boxes and
pressing Check; the lesson's checker, run in the kernel, must then grade it correct. The
neuron is at other inputs than the one worked out by hand before. Exercise 2.5's view opens
before backward and is stepped to the end: the engine's grads are the gate patterns'.

Lesson 4: the seed read off the view: before backward, y's grad row shows the seed and x's
none; one Step, and the ledger shows the seed arriving, times 2x, sent to x.

Lesson 5: Run to here pressed in the inspect panel of sin's box stops backward with sin
next; the exercise's guess, made in the kernel, is graded by the view and the checker.

Lesson 10: the two-layer network's view: W1, b1 and W2 clicked, the inspect panel shows
their shapes before backward and after Run to end; the shapes predicted in exercise 10.4
are graded correct by its checker.

Lesson 6: the view stepped with Step as the lesson asks: after two steps the status and
the ledger say that _ + 1 runs next (sin, ready since the first step, waits: lower rank);
the exercise's prediction is graded by its checker in the kernel; five steps finish.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupyter_harness as jh
import numpy as np
import page_checks as pc
import pytest
from browser.test_browser_graph_view import click_step, numbers, step_until_done

from autograd_lab_lessons import checks

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None

LESSONS = jh.REPO / 'lessons'


def first_lesson() -> Path | None:
    found = sorted(LESSONS.glob('01*.ipynb'))
    return found[0] if found else None


def bold_words_about_the_view() -> list[str]:
    """What lesson 1's section on the graph view sets in bold: the controls it tells the
    student to press, the marks on the graph, the parts of the side panel."""
    text = (LESSONS / 'source' / '01_variables_and_derivatives.md').read_text(encoding='utf-8')
    section = text[text.index('## See the graph'):text.index('## Summary')]
    prose = re.sub(r'`[^`\n]*`', '', re.sub(r'```.*?```', '', section, flags=re.S))
    return re.findall(r'\*\*([^*\n]+)\*\*', prose)


def _run_lesson_in_lab(page, lab_server, notebook_root, notebook: Path) -> jh.Probe:
    """Copy a learner notebook alone into the server's root, run all of it in JupyterLab;
    the probe of its kernel."""
    folder = notebook_root / 'lessons'
    folder.mkdir(exist_ok=True)
    nb, probe_dir = jh.copy_notebook(notebook, folder)
    assert not list(folder.glob('*.py')), 'a lesson must run without files beside it'
    probe = jh.Probe(probe_dir)
    jh.open_in_lab(page, lab_server, nb, probe, timeout=120)
    assert probe.eval('checks.__name__') == 'autograd_lab_lessons.checks'
    return probe


@pytest.mark.skipif(first_lesson() is None, reason='no lessons/01*.ipynb yet')
def test_lesson_one_steps_in_lab(page, lab_server, notebook_root):
    probe = _run_lesson_in_lab(page, lab_server, notebook_root, first_lesson())
    views = probe.eval("[k for k, v in globals().items() if type(v).__name__ == 'GraphView' "
                       "and not k.startswith('_')]")
    assert views, 'lesson 1 shows no GraphView'
    widget = jh.wait_widget_ready(page, index=0)

    # The lesson may already have run the view's backward (view.run()): start over.
    widget.locator('button[data-action="reset"]').click()
    expect(widget.locator('button[data-action="step"]')).to_be_enabled()
    expect(widget.locator('.agl-counter')).to_have_attribute('data-step', '0')
    assert step_until_done(widget) >= 1
    jh.screenshot(page, 'lesson01-stepped')

    # What the lesson says about the view is what the student sees.
    expect(widget.locator('.agl-status')).to_contain_text('Backward finished')
    named = bold_words_about_the_view()
    assert {'Step', 'Back', 'Reset', 'Run to end', 'step ledger'} <= set(named), named
    texts = [t for v in pc.node_texts(widget).values() for t in v['cells'].values()]
    for word in named:
        if word == 'step ledger':
            expect(widget.locator('.agl-ledger')).to_be_visible()
        elif word == '\u25b6':  # "runs next": nothing is next once backward is done
            assert word not in texts
        elif word == '\u2713':  # "ran": every function, once backward is done
            assert texts.count(word) == 4, texts
        else:
            button = widget.locator('.agl-toolbar button', has_text=word)
            expect(button.first).to_be_visible()

    compared = []
    shown_grads = {k: v['cells']['grad'] for k, v in pc.node_texts(widget).items()
                   if numbers(v['cells'].get('grad', ''))}
    assert shown_grads, 'no node shows a grad after backward'
    for key in shown_grads:
        ident = int(key[1:])
        widget.locator(f'svg g.node#{key}').click()
        expect(widget.locator('.agl-inspect')).to_have_attribute('data-node-id', str(ident))
        # Which of the lesson's views this widget is: the one whose selection is this node.
        name = probe.wait_for(f'next((k for k in {views!r} if globals()[k].selected_id == '
                              f'{ident}), None)', timeout=10)
        selected = f'{name}.selected'
        if probe.eval(f"type({selected}).__name__") != 'Variable':
            continue
        kernel_grad = probe.eval(f'None if {selected}.grad is None else __import__("numpy")'
                                 f'.asarray({selected}.grad, dtype=float).ravel().tolist()')
        if kernel_grad is None:
            continue
        shown = numbers(widget.locator('.agl-inspect td.agl-grad').inner_text().split('(')[0])
        assert np.allclose(shown, kernel_grad), (ident, shown, kernel_grad)
        compared.append(probe.eval(f'{selected}.name'))
    assert 'x' in compared, f'the input x was not among the grads checked: {compared}'


def test_lesson_two_predicted_in_the_browser_is_graded_by_its_checker(page, lab_server,
                                                                      notebook_root):
    probe = _run_lesson_in_lab(page, lab_server, notebook_root,
                               LESSONS / '02_chain_rule_by_hand.ipynb')
    # the view's neuron is at other inputs than the one worked out in 2.2 and 2.3
    hand = checks.neuron_by_hand(checks.NEURON_VIEW)
    by_hand = {'d': hand['g_d'], 'e': hand['g_e'], 'u': hand['g_u'], 'z': hand['g_z'],
               's': hand['g_z'], 'a': hand['g_z'], 'b': hand['g_z'],
               **{k: hand[k] for k in checks.NEURON_VIEW}}
    assert 'not done yet' in probe.eval('repr(checks.ex02_view_predictions(view))')
    widget = jh.wait_widget_ready(page, index=0)   # the neuron's view, in predict mode
    expect(widget.locator('button[data-action="predict"]')).to_have_attribute(
        'aria-pressed', 'true')
    score = widget.locator('.agl-score')
    expect(score).to_have_text('Score 0/0')
    expect(widget.locator('.agl-ledger h4').first).to_have_text('Next: f8 (1 / _)')
    widget.scroll_into_view_if_needed()
    jh.screenshot(page, 'lesson02-predict-question')

    for step in range(1, checks.NEURON_STEPS + 1):
        boxes = widget.locator('.agl-ledger input.agl-guess')
        expect(boxes.first).to_be_visible()
        for k in range(boxes.count()):
            target = boxes.nth(k).get_attribute('placeholder').removeprefix('grad to ')
            boxes.nth(k).fill(f'{by_hand[target]:.4f}')
        widget.locator('.agl-ledger button[data-action="guess"]').click()
        expect(score).to_have_text(f'Score {step}/{step}')
    expect(widget.locator('.agl-status')).to_contain_text('Backward finished')
    expect(widget.locator('.agl-verdict').first).to_contain_text('Right!')
    jh.screenshot(page, 'lesson02-predicted')
    verdict = probe.eval('repr(checks.ex02_view_predictions(view))')
    assert '8 of 8 right' in verdict and '\u2705' in verdict, verdict
    assert probe.eval('float(named["w0"].grad)') == pytest.approx(hand['w0'])

    # exercise 2.5's view opened before backward: no grad yet; Step runs it in the engine
    gates = jh.wait_widget_ready(page, index=1)
    assert probe.eval('x.grad is None and gates_view.status["step"] == 0')
    assert step_until_done(gates) == 3
    gates.scroll_into_view_if_needed()
    jh.screenshot(page, 'lesson02-gates-stepped')
    want = checks.gates_by_hand()
    assert probe.eval('[float(v.grad) for v in (x, y, z)]') == [want[k] for k in 'xyz']


def test_lesson_four_the_seed_read_off_the_view(page, lab_server, notebook_root):
    probe = _run_lesson_in_lab(page, lab_server, notebook_root,
                               LESSONS / '04_non_scalar_outputs.ipynb')
    widget = jh.wait_widget_ready(page, index=0)

    def cells(name: str) -> dict:
        return next(v['cells'] for v in pc.node_texts(widget).values()
                    if v['cells'].get('name') == name)

    assert numbers(cells('y')['grad']) == [1.0, 0.0, 10.0]   # the seed, before backward
    assert not numbers(cells('x')['grad'])
    click_step(widget)
    expect(widget.locator('.agl-status')).to_contain_text('Backward finished')
    ledger = widget.locator('.agl-ledger').inner_text()
    assert 'y: [1.0, 0.0, 10.0]' in ledger, ledger
    assert numbers(cells('x')['grad']) == [2.0, 0.0, 60.0]
    widget.scroll_into_view_if_needed()
    jh.screenshot(page, 'lesson04-seed-stepped')
    assert probe.eval('x.grad.tolist()') == [2.0, 0.0, 60.0]


def test_lesson_five_run_to_here_from_the_inspect_panel(page, lab_server, notebook_root):
    # "click a function's box, then Run to here in the inspect panel": the lesson's cell
    # did it from Python (and the notebook ran the rest); Reset, and do it by hand
    probe = _run_lesson_in_lab(page, lab_server, notebook_root,
                               LESSONS / '05_backward_order.ipynb')
    widget = jh.wait_widget_ready(page, index=0)
    widget.locator('button[data-action="reset"]').click()
    expect(widget.locator('.agl-counter')).to_have_attribute('data-step', '0')
    sin = probe.eval('__import__("autograd_lab").events.uid(q.creator)')
    widget.locator(f'svg g.node#n{sin}').click()
    expect(widget.locator('.agl-inspect')).to_have_attribute('data-node-id', str(sin))
    widget.locator('.agl-inspect button[data-action="run-to"]').click()
    expect(widget.locator('.agl-status')).to_contain_text('Step 2 of 4: next f3 (sin).')
    # in predict mode the question comes first, then what exp did
    expect(widget.locator('.agl-ledger h4')).to_have_text(['Next: f3 (sin)',
                                                           'Just ran: f2 (exp)'])
    widget.scroll_into_view_if_needed()
    jh.screenshot(page, 'lesson05-run-to-here')
    # the exercise's answer, given in the kernel as the lesson asks, graded in the view
    verdict = probe.eval('repr(checks.ex05_run_to(diamond.guess(np.cos(0.5))))')
    assert '\u2705' in verdict, verdict
    expect(widget.locator('.agl-verdict').first).to_contain_text(
        'Right! step 3, f3 (sin): h: 0.8776')


def test_lesson_six_engine_order_stepped_in_lab(page, lab_server, notebook_root):
    # "press Step five times and watch the ▶ move": after the second step sin has been
    # ready since the first, yet _ + 1 is next (higher rank); the student's depth-first
    # order ran sin second
    probe = _run_lesson_in_lab(page, lab_server, notebook_root,
                               LESSONS / '06_write_backward.ipynb')
    widget = jh.wait_widget_ready(page, index=0)
    step = widget.locator('button[data-action="step"]')
    for n in (1, 2):
        step.click()
        expect(widget.locator('.agl-counter')).to_have_attribute('data-step', str(n))
    expect(widget.locator('.agl-status')).to_contain_text('Step 2 of 5')
    expect(widget.locator('.agl-status')).to_contain_text('(_ + 1)')
    headings = widget.locator('.agl-ledger h4')
    expect(headings.nth(0)).to_contain_text('Just ran')
    expect(headings.nth(0)).to_contain_text('(_ ** 2)')
    expect(headings.nth(1)).to_contain_text('Next')
    expect(headings.nth(1)).to_contain_text('(_ + 1)')
    widget.scroll_into_view_if_needed()
    jh.screenshot(page, 'lesson06-engine-order')
    # the exercise answered in the kernel as the lesson asks, graded by its checker
    verdict = probe.eval("repr(checks.ex06_engine_order(['y', 'b', 'v', 'a', 'u']))")
    assert '\u2705' in verdict, verdict
    for n in (3, 4, 5):
        step.click()
        expect(widget.locator('.agl-counter')).to_have_attribute('data-step', str(n))
    expect(widget.locator('.agl-status')).to_contain_text('Backward finished')


def test_lesson_nine_shapes_read_off_the_view(page, lab_server, notebook_root):
    # "Click the variables in the view: the inspect panel gives each one's shape", then
    # Run to end: each parameter's grad has the shape exercise 10.4 asks for
    probe = _run_lesson_in_lab(page, lab_server, notebook_root,
                               LESSONS / '10_matrix_backward.ipynb')
    widget = jh.wait_widget_ready(page, index=0)
    want = checks.MLP
    shapes = {'W1': (want['H'], want['D']), 'b1': (want['H'],), 'W2': (want['C'], want['H'])}

    def inspect(name: str) -> str:
        ident = probe.eval(f'__import__("autograd_lab").events.uid(view_params[{name!r}])')
        node = widget.locator(f'svg g.node#n{ident}')
        node.scroll_into_view_if_needed()
        # the parameters sit at the top of a tall graph, beyond the stage: drag it there
        # would do the same; a click event on the node is what the view listens to
        node.dispatch_event('click')
        expect(widget.locator('.agl-inspect')).to_have_attribute('data-node-id', str(ident))
        return widget.locator('.agl-inspect').inner_text()

    for name, shape in shapes.items():   # before backward: the shapes, no grad yet
        assert str(shape) in inspect(name), name
    widget.locator('button[data-action="run"]').click()
    expect(widget.locator('.agl-status')).to_contain_text('Backward finished')
    for name, shape in shapes.items():
        text = inspect(name)
        assert str(shape) in text, name
        assert tuple(probe.eval(f'list(view_params[{name!r}].grad.shape)')) == shape
    widget.scroll_into_view_if_needed()
    jh.screenshot(page, 'lesson09-mlp-shapes')
    predicted = {'gW1': shapes['W1'], 'gb1': shapes['b1'], 'gh': (want['N'], want['H']),
                 'gW2': shapes['W2'], 'gs': (want['N'], want['C'])}
    verdict = probe.eval(f'repr(checks.ex10_mlp_shapes({predicted!r}))')
    assert '\u2705' in verdict, verdict
