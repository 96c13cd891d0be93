"""Lesson 1, executed and converted to HTML by nbconvert, opened in Chromium with no network.

What a student sees in a published lesson (nbconvert HTML, nbviewer, a course site): the
page's widget scripts would come from a CDN, which is not reachable here, so the graph is
the static picture that follows each view's output; it must be visible, exactly once per
view, legible (14 px text), and say that stepping needs a running kernel.
"""

from __future__ import annotations

import jupyter_harness as jh
import page_checks as pc
import pytest
from saved_notebooks import LESSON_ONE, executed_and_converted  # tests/ is on sys.path

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None


@pytest.fixture(scope='module')
def saved(notebook_root):
    """Lesson 1 executed and converted once for this module, in the served folder."""
    folder = notebook_root / 'saved'
    folder.mkdir(exist_ok=True)
    nb, _ = executed_and_converted(LESSON_ONE, folder)
    return folder, nb


def test_a_converted_lesson_shows_its_graph_offline(page, saved):
    folder, _ = saved
    html = folder / LESSON_ONE.with_suffix('.html').name
    fetched = []

    def offline(route):
        fetched.append(route.request.url)
        if route.request.url.startswith('file:'):
            route.continue_()
        else:
            route.abort()
    page.route('**/*', offline)
    page.goto(html.as_uri())
    pictures = page.locator('.agl-static')
    expect(pictures).to_have_count(2)  # lesson 1's graph, then its forward replay's
    expect(pictures.first).to_be_visible()
    graph = pictures.first.locator('svg')
    expect(graph).to_be_visible()
    assert graph.locator('g.node').count() == 9  # five variables and four functions
    expect(pictures.first).to_contain_text('need a running kernel')
    # only the pictures' graphs on screen: no widget drew (its scripts are on a CDN)
    assert page.locator('svg:visible g.node').count() == page.locator(
        '.agl-static svg g.node').count()
    assert page.locator('.agl-root').count() == 0
    sizes = graph.evaluate("""(svg) => Array.from(svg.querySelectorAll('text')).map((t) =>
        parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)""")
    assert min(sizes) >= 13.9, sizes  # the widget's 14 px, at the page's own width
    assert any(not u.startswith('file:') for u in fetched)  # the page did want the CDN
    pictures.first.scroll_into_view_if_needed()
    pictures.first.screenshot(path=str(jh.ARTIFACTS / 'saved-lesson01-offline.png'))
    assert not jh.widget_page_errors(page.agl_errors), page.agl_errors


def test_a_saved_lesson_reopened_in_lab(page, lab_server, saved):
    """Lesson 1 saved with its outputs and opened again in JupyterLab, its cells not run:

    * trusted (signed by this user) and saved with its widget state (as nbclient and
      ``nbconvert --execute`` save it): Lab draws the widget from that state, but no
      kernel follows it: the view says so, and the static picture stays hidden;
    * trusted, saved without widget state (Lab's default): Lab's "model not found" for
      the widget, then the static picture;
    * not trusted (someone else's notebook, saved with widget state): no widget is
      *drawn* (Lab does not render an untrusted output's widget view) and no SVG is shown
      (its sanitizer removes it, and the loose texts stay invisible): the text line and
      the caption, which says to run the notebook.

    What this does not check, and is not so: that an untrusted notebook restores no
    widgets.  Lab's widget manager restores the models saved in the notebook's metadata
    whatever the trust, and anywidget imports a restored model's ``_esm`` (README,
    "Sharing notebooks safely"); ``test_shipped_notebooks.py`` checks the lessons carry no
    such state.
    """
    import copy

    import nbformat
    from nbformat.sign import NotebookNotary

    folder, executed = saved
    notary = NotebookNotary(data_dir=str(lab_server.home / 'data'))  # the server's secret
    stateless = copy.deepcopy(executed)
    stateless.metadata.pop('widgets')
    untrusted = copy.deepcopy(executed)
    untrusted.metadata['agl_copy'] = 'from someone else'  # not the content signed below
    for name, nb, sign in (('state', executed, True), ('trusted', stateless, True),
                           ('untrusted', untrusted, False)):
        if sign:
            notary.sign(nb)
        nbformat.write(nb, folder / f'{name}.ipynb')
    for name in ('state', 'trusted', 'untrusted'):
        page.goto(lab_server.url(f'lab/workspaces/{name}/tree/saved/{name}.ipynb?reset'))
        stills = page.locator('.agl-static')  # lesson 1's graph, then the forward replay's
        expect(stills).to_have_count(2, timeout=60_000)
        still = stills.first
        if name == 'state':
            widget = jh.wait_widget_ready(page)
            expect(widget).to_have_attribute('data-agl-kernel', 'silent', timeout=20_000)
            expect(widget.locator('.agl-no-kernel')).to_be_visible()
            expect(widget.locator('.agl-no-kernel')).to_contain_text(
                'No kernel answers this view yet')
            expect(still).to_be_hidden()
            expect(stills.nth(1)).to_be_hidden()
            assert widget.locator('svg:visible g.node').count() == 9  # the widget's graph
            # every text in its own cell, though the saved state has its keys sorted
            cells = {v['cells'].get('name') or v['cells'].get('fid'): v['cells']
                     for v in pc.node_texts(widget).values()}
            assert cells['x'] == {'name': 'x', 'data': '[5.0]', 'gcap': 'grad', 'grad': '—'}
            assert cells['f1'] == {'fid': 'f1', 'op': '_ ** 2', 'mark': ' '}
            widget.screenshot(path=str(jh.ARTIFACTS / 'saved-lesson01-lab-state.png'))
            continue
        still.scroll_into_view_if_needed()
        assert page.locator('.agl-root').count() == 0  # no widget view drawn
        widget_output = page.locator('.jp-OutputArea-child', has=page.locator(
            '.agl-static')).first.locator('xpath=preceding-sibling::*[1]')
        # Lab's own words where it restored widgets (trusted), else the output's text
        expect(widget_output).to_contain_text('model not found' if name == 'trusted'
                                              else 'GraphView: the live graph')
        expect(still).to_contain_text('need a running kernel')
        if name == 'trusted':
            expect(still.locator('svg')).to_be_visible()
            assert still.locator('svg g.node').count() == 9
        else:
            assert still.locator('svg').count() == 0  # sanitized away
            sizes = still.evaluate("""(el) => Array.from(el.querySelectorAll('div'))
                .filter((d) => d.querySelector('p') === null && d.textContent.includes('x'))
                .map((d) => parseFloat(getComputedStyle(d).fontSize))""")
            assert sizes and max(sizes) == 0, sizes  # the SVG's loose texts are not shown
        still.screenshot(path=str(jh.ARTIFACTS / f'saved-lesson01-lab-{name}.png'))


def test_the_html_replay_steps_offline_and_needs_no_kernel(page, tmp_path):
    """``view.to_html(path)``: one file that steps through the history in the browser with
    no kernel and no network; the page itself answers the view's 'hello', so it never
    says that no kernel answers."""
    import numpy as np

    import autograd_lab as chainer
    from autograd_lab_widget import GraphView

    x = chainer.Variable(np.array(5.0, np.float32), name='x')
    y = x ** 2 - 2 * x + 1
    view = GraphView(y)
    view.run()
    path = view.to_html(tmp_path / 'replay.html')
    view.close()
    page.route('**/*', lambda route: route.continue_() if route.request.url.startswith(
        'file:') else route.abort())
    page.goto(path.as_uri())
    widget = jh.wait_widget_ready(page)
    expect(widget).to_have_attribute('data-agl-kernel', 'live')
    counter = widget.locator('.agl-counter')
    expect(counter).to_contain_text('Step 0 of 4')
    widget.locator('button[data-action="step"]').click()
    expect(counter).to_contain_text('Step 1 of 4')
    page.wait_for_timeout(4500)  # past the wait for an answer: none is missing
    expect(widget.locator('.agl-no-kernel')).to_be_hidden()
    assert page.locator('svg:visible g.node').count() == 9
    assert not jh.widget_page_errors(page.agl_errors), page.agl_errors
