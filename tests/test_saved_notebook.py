"""Lesson 1 saved with its outputs and converted to HTML shows its graph, with no network.

nbconvert's HTML gives a widget-view output precedence over any other representation in
the same output, and draws widgets only with scripts from a CDN; so the graph must come
as an output of its own, a static picture (autograd_lab_widget.present.picture) inline in the
page.  Here lesson 1 runs top to bottom with nbclient, nbconvert turns it into HTML, and
the HTML is read as a browser (or GitHub) would: the graph's <svg> with its node labels
is there, once per view, with the line that says stepping needs a kernel.
(tests/browser/test_browser_saved_notebook.py opens the same HTML in Chromium offline.)
"""

from __future__ import annotations

import html.parser
import re

import pytest

from saved_notebooks import LESSON_ONE, WIDGET_VIEW, executed_and_converted

from autograd_lab_widget.present import picture


class Pictures(html.parser.HTMLParser):
    """The static pictures of an HTML page: per ``.agl-static`` element, the texts of its
    SVG and the text after it."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.pictures: list[dict] = []
        self._depth = 0   # nesting inside the current picture's element
        self._in_text = False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self._depth == 0 and 'agl-static' in (attrs.get('class') or '').split():
            self.pictures.append({'texts': [], 'svgs': 0, 'caption': '', 'key': attrs.get(
                picture.KEY_ATTR)})
            self._depth = 1
            return
        if self._depth:
            self._depth += 1
            self.pictures[-1]['svgs'] += tag == 'svg'
            self._in_text = tag == 'text'

    def handle_endtag(self, tag):
        if self._depth:
            self._depth -= 1
            self._in_text = False

    def handle_data(self, data):
        if self._depth:
            current = self.pictures[-1]
            if self._in_text:
                current['texts'].append(data)
            else:
                current['caption'] += data


@pytest.fixture(scope='module')
def saved(tmp_path_factory):
    return executed_and_converted(LESSON_ONE, tmp_path_factory.mktemp('saved'))


def test_every_view_output_is_followed_by_its_picture(saved):
    nb, _ = saved
    outputs = [o for c in nb.cells if c.cell_type == 'code' for o in c.outputs]
    views = [k for k, o in enumerate(outputs) if WIDGET_VIEW in o.get('data', {})]
    assert len(views) == 2  # lesson 1 shows two views: its graph, and the forward replay
    for view in views:
        still = outputs[view + 1]['data']
        assert set(still) == {'text/html', 'text/plain'}
        assert re.search(r'<svg[^>]*viewBox', still['text/html'])


def test_the_html_shows_the_graph_inline(saved):
    _, page = saved
    found = Pictures(page).pictures
    assert len(found) == 2  # the graph, then the forward replay's
    pic = found[0]
    assert pic['svgs'] == 1 and pic['key']  # inline SVG, tied to its widget
    # lesson 1's graph: y = x**2 - 2*x + 1 at x = [5], before backward
    for label in ('x', '[5.0]', 'grad', '—', 'f1', '_ ** 2', '_ * 2', '_ - _', '_ + 1',
                  '[16.0]'):
        assert label in pic['texts'], (label, pic['texts'])
    assert 'Press Step to run backward' in pic['caption']
    assert 'need a running kernel' in pic['caption']
    # offline nothing else draws it: the widget output is only a script placeholder
    in_pictures = sum(len(re.findall(r'<g class="node ', part.split('</svg>')[0]))
                      for part in page.split('class="agl-static"')[1:])
    assert len(re.findall(r'<g class="node ', page)) == in_pictures > 0
