"""Lesson 1, executed and converted to HTML by nbconvert, opened in Chromium with no network.

What a student sees in a published lesson (nbconvert HTML, nbviewer, a course site): the
page's widget scripts would come from a CDN, which is not reachable here, so the graph is
the static picture that follows each view's output; it must be visible, exactly once per
view, legible (14 px text), and say that stepping needs a running kernel.
"""

from __future__ import annotations

import jupyter_harness as jh
from saved_notebooks import LESSON_ONE, executed_and_converted  # tests/ is on sys.path

try:
    from playwright.sync_api import expect
except ImportError:  # conftest skips these tests then (or fails them in CI) with the reason
    expect = None


def test_a_converted_lesson_shows_its_graph_offline(page, tmp_path):
    executed_and_converted(LESSON_ONE, tmp_path)
    html = tmp_path / LESSON_ONE.with_suffix('.html').name
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
    expect(pictures).to_have_count(1)
    expect(pictures.first).to_be_visible()
    graph = pictures.first.locator('svg')
    expect(graph).to_be_visible()
    assert graph.locator('g.node').count() == 9  # x, v2..v5 and four functions
    expect(pictures.first).to_contain_text('need a running kernel')
    # exactly one graph on screen: no widget drew (its scripts are on a CDN)
    assert page.locator('svg:visible g.node').count() == 9
    assert page.locator('.agl-root').count() == 0
    sizes = graph.evaluate("""(svg) => Array.from(svg.querySelectorAll('text')).map((t) =>
        parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)""")
    assert min(sizes) >= 13.9, sizes  # the widget's 14 px, at the page's own width
    assert any(not u.startswith('file:') for u in fetched)  # the page did want the CDN
    pictures.first.scroll_into_view_if_needed()
    pictures.first.screenshot(path=str(jh.ARTIFACTS / 'saved-lesson01-offline.png'))
    assert not jh.widget_page_errors(page.agl_errors), page.agl_errors
