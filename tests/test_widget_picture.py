"""The static picture of a graph view (autograd_lab_widget.present.picture): what a saved notebook
shows where no widget code runs.  The record-node look, the kernel note, escaping of
hostile names, the allow-list rewrite of the renderer's SVG, the cap for big graphs, the
two outputs a displayed view makes, and ``view.snapshot()``."""

from __future__ import annotations

import html.parser
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import graph

from autograd_lab_widget import GraphView
from autograd_lab_widget.present import picture
from autograd_lab_widget.session.stepping import StepModel
from widget_helpers import polynomial

WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'

HOSTILE = ['</svg><script>alert(1)</script>', '"><img src=x onerror=alert(1)>',
           "' onload='alert(1)", '<!-- x -->', ']]><![CDATA[', '&amp;&lt;&#x3c;',
           '<style>*{}</style>', 'javascript:alert(1)', '\\N\\G\\L', 'a\x00b\x1fc',
           '\ud800lone', '<foreignObject>', 'x\n<b>y</b>', '{{7*7}}']


class Tags(html.parser.HTMLParser):
    """Every start tag and its attributes, and the text, of an HTML fragment."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def svg_texts(svg: str) -> list[str]:
    """The texts drawn in an SVG (its <text> elements), read by an XML parser."""
    root = ET.fromstring(svg)
    return [t.text or '' for t in root.iter('{http://www.w3.org/2000/svg}text')]


@pytest.fixture
def views():
    made = []

    def make(*args, **kwargs):
        made.append(GraphView(*args, **kwargs))
        return made[-1]
    yield make
    for view in made:
        view.close()


def test_the_picture_is_the_views_record_nodes_with_a_kernel_note(views):
    _x, y = polynomial(5.0)
    view = views(y)
    view.step()
    view.step()
    pic = view.snapshot()
    texts = svg_texts(pic.svg)
    # name | value over grad | grad for x; f<k> | label | mark for every function
    for text in ('x', '5.0', 'grad', '—', '_ ** 2', '_ * 2', '_ - _', '_ + 1',
                 'f1', 'f2', 'f3', 'f4', '✓', '▶'):
        assert text in texts, (text, texts)
    assert texts.count('1.0') >= 2  # the grads the two steps sent (v4 and v2)
    assert texts.count('✓') == 2     # f4 and f3 ran
    assert pic.caption == 'Step 2 of 4: next f1 (_ ** 2).'
    page = pic.html()
    assert picture.KERNEL_NOTE.replace("'", '&#x27;') in page
    assert page.count('<svg') == 1 and pic.key == ''
    # the next function is outlined, as in the widget
    nxt = ET.fromstring(pic.svg).find(".//*[@class='node function hl-next']")
    assert nxt is not None and any(p.get('stroke') == '#D55E00' for p in nxt.iter())
    # 14 px text at 1 px per unit, and cell texts centred in their cells
    root = ET.fromstring(pic.svg)
    assert root.get('width') == root.get('viewBox').split()[2]
    assert root.get('font-size') == '14.00'  # every text inherits it
    assert all(t.get('font-size') is None and t.get('text-anchor') == 'middle'
               for t in root.iter('{http://www.w3.org/2000/svg}text'))
    standalone = ET.fromstring(pic.standalone_svg())  # an SVG document of its own
    assert picture.KERNEL_NOTE in [t.text for t in standalone.iter()]


def test_a_snapshot_keeps_the_moment_it_was_taken(views):
    _x, y = polynomial(5.0)
    view = views(y)
    before = view.snapshot()
    view.run()
    after = view.snapshot()
    assert '8.0' not in svg_texts(before.svg) and '8.0' in svg_texts(after.svg)
    assert before.caption.startswith('Press Step')
    assert after.caption == 'Backward finished: every gradient has arrived.'


@pytest.mark.parametrize('name', HOSTILE)
def test_hostile_names_stay_text(views, name):
    x = chainer.Variable(np.array(2.0, np.float32), name=name)
    y = F.exp(x) * 3
    y.name = name[::-1]
    pic = views(y).snapshot()
    for fragment in (pic.html(), pic.standalone_svg()):
        parsed = Tags(f'<div>{fragment}</div><p>after</p>')
        tags = [t for t, _ in parsed.tags]
        assert tags.count('svg') == 1
        assert not {'script', 'img', 'style', 'foreignobject', 'iframe', 'a'} & set(tags)
        assert all(not k.startswith('on') and k not in ('href', 'src', 'xlink:href')
                   for _, attrs in parsed.tags for k in attrs)
        assert ''.join(parsed.text).endswith('after')  # nothing swallowed what follows
    ET.fromstring(pic.svg)  # well-formed XML as well
    ET.fromstring(pic.standalone_svg())
    shown = ''.join(svg_texts(pic.svg))
    if '\n' not in name:  # (a name of several lines is drawn as its ellipsis, as live)
        kept = name.replace('\x00', '\ufffd').replace('\x1f', '\ufffd')
        kept = kept.encode('utf-8', 'replace').decode('utf-8')  # a lone surrogate: '?'
        assert kept[:8] in shown  # the name is written as text, not interpreted


def test_the_renderers_svg_is_rewritten_from_an_allow_list():
    """Whatever a renderer writes, only drawing elements and presentation attributes
    come out, every text escaped."""
    raw = '''<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     viewBox="0 0 100 50" onload="alert(1)">
  <script>alert(2)</script><style>text { display: none }</style>
  <g class="graph" transform="translate(4 46)">
    <g class="node variable" id="n1" style="background:url(javascript:x)">
      <a xlink:href="javascript:alert(3)" xlink:title="tip &lt;b&gt;">
        <polygon fill="#ffffff" stroke="none" points="0,-40 0,-10 60,-10 60,-40"/>
        <text x="1" y="2" onclick="alert(4)" fill="url(javascript:alert(5))">a&lt;/svg&gt;</text>
      </a>
      <foreignObject><div>html</div></foreignObject>
      <image xlink:href="http://example.invalid/x.png"/>
    </g>
  </g>
</svg>'''
    svg, width, height = picture.safe_svg(raw)
    assert (width, height) == (100, 50)
    parsed = Tags(svg)
    assert [t for t, _ in parsed.tags] == ['svg', 'g', 'g', 'title', 'polygon', 'text']
    attrs = {k for _, a in parsed.tags for k in a}
    assert not {'onload', 'onclick', 'style', 'id', 'href', 'xlink:href'} & (attrs - {'style'}) \
        and dict(parsed.tags[-1][1]).get('fill') is None
    assert parsed.tags[0][1]['style'].startswith('display:block;max-width')  # ours only
    text = ET.fromstring(svg).find('.//{http://www.w3.org/2000/svg}text')
    assert text.text == 'a</svg>'
    assert (text.get('x'), text.get('y'), text.get('text-anchor')) == ('30', '-25', 'middle')
    assert ET.fromstring(svg).find('.//{http://www.w3.org/2000/svg}title').text == 'tip <b>'
    with pytest.raises(ValueError, match='no readable SVG'):
        picture.safe_svg('<svg><g></svg>')
    with pytest.raises(ValueError, match='not an SVG'):
        picture.safe_svg('<html/>')


def test_big_graphs_are_drawn_in_part_around_the_next_function():
    h = chainer.Variable(np.array([0.5, -0.25], np.float32), name='c0')
    kept = [h]
    for i in range(2500):  # 10,003 nodes
        h = F.tanh(h) + kept[max(0, i - 1)]
        kept.append(h)
    model = StepModel(F.sum(h))
    try:
        total = len(model.live.model.nodes)
        assert total > 10_000
        pic = picture.picture(model)
        drawn = ET.fromstring(pic.svg).findall(".//*[@class]")
        nodes = [e for e in drawn if e.get('class', '').startswith('node')]
        assert 0 < len(nodes) <= picture.MAX_NODES
        assert f'{len(nodes)} of {total} nodes drawn' in pic.caption
        assert 'hl-next' in ' '.join(e.get('class') for e in nodes)  # around the next step
        # the live view's own drawing is left alone (its window and cell sizes)
        assert model.scene(dict(picture.drawing.DEFAULT_OPTIONS)).frame.shown > len(nodes)
    finally:
        model.close()


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    existed = InteractiveShell.initialized()
    yield InteractiveShell.instance()
    if not existed:  # leave no global shell behind for other tests
        InteractiveShell.clear_instance()


def test_a_displayed_view_is_the_widget_then_its_picture(views, shell):
    from IPython.utils.capture import capture_output

    _x, y = polynomial(5.0)
    view = views(y)
    shell.user_ns['view'] = view
    with capture_output() as shown:  # the view as a cell's value
        shell.run_cell('view')
    shell.user_ns.pop('view')
    live, still = (o.data for o in shown.outputs)
    assert WIDGET_VIEW in live and 'text/html' not in live
    assert live[WIDGET_VIEW]['model_id'] == view.model_id
    assert set(still) == {'text/html', 'text/plain'}
    # the widget knows its copy by this key, and hides it where it draws
    assert view.static_key and f'{picture.KEY_ATTR}="{view.static_key}"' in still['text/html']
    assert 'x' in Tags(still['text/html']).text
    view.close()  # a closed view has no live widget left: only the picture
    with capture_output() as shown:
        shell.display_formatter.format(view)
    (only,) = (o.data for o in shown.outputs)
    assert WIDGET_VIEW not in only and picture.KEY_ATTR not in only['text/html']


def test_without_a_renderer_the_picture_says_so(views, monkeypatch):
    _x, y = polynomial(5.0)
    view = views(y)

    def missing(*args, **kwargs):
        raise graph.RendererNotFound('no Graphviz renderer found')
    monkeypatch.setattr(graph, 'render', missing)
    pic = view.snapshot()
    assert 'no Graphviz renderer found' in ''.join(svg_texts(pic.svg))
    assert pic.caption.startswith('Press Step')
