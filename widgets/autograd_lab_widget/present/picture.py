"""A static picture of a view: the graph as it is now, as SVG made in Python.

Saved notebooks travel where no kernel runs and often no widget code either
(nbconvert's HTML offline, nbviewer, GitHub, Jupyter Book).  A displayed
:class:`~autograd_lab_widget.GraphView` therefore carries, after the live widget, a
second output with this picture (see ``GraphView._ipython_display_``), and
``view.snapshot()`` returns one for a handout after a few Steps.

The picture is the live view's own drawing (:mod:`~autograd_lab_widget.present.drawing`:
``name | value`` over ``grad | grad`` for a variable, ``f2 | _ * 2 | ✓`` for a
function) laid out by :func:`autograd_lab.graph.render`, which needs no system
Graphviz.  Its SVG is then rewritten from an allow-list of elements and attributes
with every text escaped again, so no name can break the SVG or the HTML around it or
put markup into the page, whatever the renderer does with it.  Cell texts are centred
in their cells, as the widget does.  Big graphs are drawn in part (at most
:data:`MAX_NODES` nodes, around the next function), so that the picture costs a
display a bounded time (a fraction of a second) however big the graph.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget.session.stepping import StepModel
>>> x = chainer.Variable(np.array(5.0, np.float32), name='<x>')
>>> model = StepModel(x ** 2 - 2 * x + 1)
>>> pic = picture(model)
>>> pic.svg.startswith('<svg') and '&lt;x&gt;' in pic.svg and '<x>' not in pic.svg
True
>>> pic.caption
'Press Step to run backward from v5, one function at a time (4 steps).'
>>> sorted(pic.mimebundle())
['text/html', 'text/plain']
>>> model.close()
"""

from __future__ import annotations

import html
import re
import secrets
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from autograd_lab import graph
from autograd_lab.graph import palette

from autograd_lab_widget.present import drawing, lens_cells

#: The most nodes a static picture draws (the part around the next function beyond).
MAX_NODES = 150
#: The line every static picture carries.
KERNEL_NOTE = ('A static picture: Step, Back and inspecting nodes need a running kernel '
               '(run the notebook).')
#: Attribute that ties a view's static output to its live widget, which hides it.
KEY_ATTR = 'data-agl-static'

_SVG_NS = '{http://www.w3.org/2000/svg}'
_XLINK_NS = '{http://www.w3.org/1999/xlink}'
_XML_NS = '{http://www.w3.org/XML/1998/namespace}'
# Elements Graphviz draws with; <a> (tooltips) and <title> are unwrapped or rewritten.
_ELEMENTS = frozenset({'svg', 'g', 'polygon', 'polyline', 'path', 'ellipse', 'text'})
# Presentation attributes only: nothing that links, loads, scripts or styles.
_ATTRIBUTES = frozenset({
    'class', 'transform', 'points', 'd', 'cx', 'cy', 'rx', 'ry', 'x', 'y', 'fill', 'stroke',
    'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'fill-opacity', 'text-anchor',
    'font-family', 'font-size', 'font-weight', 'font-style', 'text-decoration'})
_SAFE_VALUE = re.compile(r'[#\w\s.,%()+-]*')  # colours, numbers, names, transforms
# characters XML 1.0 forbids: never written, whatever the renderer emitted
_NOT_XML = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')
_OUTLINES = {f'hl-{role}': palette.HIGHLIGHT_STYLE[role]['color'] for role in ('next', 'selected')}
# Set once on the <svg> (every text inherits them) rather than on each of its texts.
_INHERITED = {'font-family': 'Courier,monospace', 'font-size': f'{drawing.FONT_SIZE:.2f}',
              'xml:space': 'preserve'}
_CAPTION_PX = 13
_CAPTION_LINE = 18


def _text(value: str) -> str:
    """Text or an attribute value, escaped for XML and HTML alike (lone surrogates and
    characters XML forbids replaced)."""
    value = value.encode('utf-8', 'replace').decode('utf-8')
    return html.escape(_NOT_XML.sub('\ufffd', value), quote=True)


def _box(points: str) -> tuple[float, float, float, float] | None:
    """x, y, width, height of a polygon's points."""
    try:
        pts = [tuple(map(float, p.split(','))) for p in points.split()]
    except ValueError:
        return None
    if not pts or any(len(p) != 2 for p in pts):
        return None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


@dataclass
class _Writer:
    """Writes an allow-listed copy of Graphviz's SVG tree as text."""

    out: list = field(default_factory=list)

    def element(self, el: ET.Element, extra: dict | None = None,
                outline: str | None = None) -> None:
        tag = el.tag.removeprefix(_SVG_NS)
        if tag == 'a':  # a tooltip's link: its drawing, without the link
            self.children(el, outline)
            return
        if tag not in _ELEMENTS:
            return
        attrs = {k: v for k, v in el.attrib.items()
                 if k in _ATTRIBUTES and _SAFE_VALUE.fullmatch(v)
                 and _INHERITED.get(k) != v and not (k == 'stroke' and v == 'none')}
        attrs.update(extra or {})
        self.out.append(f'<{tag}' + ''.join(f' {k}="{_text(v)}"' for k, v in attrs.items())
                        + '>')
        classes = el.get('class', '').split()
        if tag == 'g' and 'node' in classes:
            tip = _tooltip(el)
            if tip:
                self.out.append(f'<title>{_text(tip)}</title>')
            # the widget outlines the next function and the selection with CSS
            outline = next((_OUTLINES[c] for c in classes if c in _OUTLINES), None)
        if tag == 'text':
            self.out.append(_text(el.text or ''))
        else:
            self.children(el, outline)
        self.out.append(f'</{tag}>')

    def children(self, el: ET.Element, outline: str | None = None) -> None:
        """The children, each cell text centred in the filled box drawn before it; a
        node's border (its first unfilled polygon) drawn in ``outline`` when given."""
        box = None
        for child in el:
            tag = child.tag.removeprefix(_SVG_NS)
            if tag == 'polygon' and child.get('fill', 'none') == 'none' and outline:
                self.element(child, {'stroke': outline, 'stroke-width': '2.5'})
                outline = None
                continue
            if tag == 'polygon' and child.get('fill', 'none') != 'none':
                box = _box(child.get('points', ''))
            if tag == 'text' and box is not None:
                x, y, w, h = box
                self.element(child, {'x': f'{x + w / 2:g}', 'y': f'{y + h / 2:g}',
                                     'text-anchor': 'middle',
                                     'dominant-baseline': 'central'})
                box = None
            else:
                self.element(child, outline=outline)


def _tooltip(node: ET.Element) -> str:
    for a in node.iter(f'{_SVG_NS}a'):
        tip = a.get(f'{_XLINK_NS}title') or a.get('title')
        if tip:
            return tip
    return ''


@dataclass
class Picture:
    """A static picture of a graph view: ``svg`` (an ``<svg>`` element, safe to inline
    in HTML), the ``caption`` (where backward is), and :data:`KERNEL_NOTE`.

    Shown by Jupyter and marimo as a cell's value (``_repr_mimebundle_``, ``_mime_``);
    ``save(path)`` writes a standalone ``.svg`` or ``.html`` file.
    """

    svg: str
    caption: str
    width: float
    height: float
    key: str = ''  # ties a live view's copy to its widget (hidden where that draws)

    def html(self) -> str:
        """The picture as an HTML fragment: the SVG, the caption and the kernel note."""
        key = f' {KEY_ATTR}="{_text(self.key)}"' if self.key else ''
        # font-size 0 around the SVG: its texts keep their own size, but where a sanitizer
        # strips the SVG's elements (JupyterLab, for an untrusted notebook) their loose
        # texts are not shown as a jumble: only the caption remains
        return (f'<div class="agl-static"{key} role="figure" aria-label="'
                f'{_text("computational graph: " + self.caption)}">'
                f'<div style="overflow-x:auto;font-size:0;line-height:0">{self.svg}</div>'
                '<p style="margin:4px 0 0;font:13px/1.4 system-ui,sans-serif;'
                f'color:{palette.NOTE_TEXT}">'
                f'{_text(self.caption)} <em>{_text(KERNEL_NOTE)}</em></p></div>')

    def standalone_svg(self) -> str:
        """The picture as one SVG document, caption and note written under the graph."""
        lines = [self.caption, KERNEL_NOTE]
        wide = max(self.width, max(len(t) for t in lines) * 0.6 * _CAPTION_PX + 16)
        tall = self.height + _CAPTION_LINE * len(lines) + 8
        texts = ''.join(
            f'<text x="8" y="{self.height + _CAPTION_LINE * (k + 1):g}" '
            f'font-family="sans-serif" font-size="{_CAPTION_PX}" fill="{palette.CAPTION_TEXT}">'
            f'{_text(t)}</text>' for k, t in enumerate(lines))
        inner = self.svg[self.svg.index('>') + 1:-len('</svg>')]
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{wide:g}" height="{tall:g}" '
                f'viewBox="0 0 {wide:g} {tall:g}" style="background:{palette.PICTURE_BACKGROUND}">'
                f'<rect width="{wide:g}" height="{tall:g}" '
                f'fill="{palette.PICTURE_BACKGROUND}"/>{inner}{texts}</svg>')

    def mimebundle(self) -> dict[str, str]:
        """The output: HTML (what notebook viewers show) and a line of text.  No second
        copy as ``image/svg+xml``: every viewer that shows the widget's notebook takes the
        HTML, and nbconvert's LaTeX/PDF would need Inkscape to convert an SVG."""
        return {'text/html': self.html(), 'text/plain': f'[graph picture] {self.caption}'}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return self.mimebundle()

    def _mime_(self) -> tuple[str, str]:  # marimo
        return 'text/html', self.html()

    def save(self, path: Any) -> Any:
        """Write the picture to ``path`` in the format its name says: SVG for ``.svg``,
        HTML for ``.html``/``.htm``.  Any other name is refused (ValueError), nothing
        written: a ``.png`` of SVG text would open nowhere."""
        from pathlib import Path  # noqa: PLC0415 - only here

        path = Path(path)
        kind = path.suffix.lower()
        if kind not in ('.svg', '.html', '.htm'):
            given = repr(kind[:20]) if kind else 'a name with no extension'
            raise ValueError(f'save() writes SVG (.svg) or HTML (.html, .htm), not {given}: '
                             'name the file '
                             f"e.g. {path.stem + '.svg'!r:.60}. For a PNG, open the SVG in a "
                             'browser and take a screenshot, or convert it (e.g. cairosvg)')
        text = (self.standalone_svg() if kind == '.svg'
                else f'<!DOCTYPE html><meta charset="utf-8">{self.html()}')
        path.write_text(text, encoding='utf-8')
        return path


def safe_svg(raw: bytes | str) -> tuple[str, float, float]:
    """Graphviz's SVG rewritten from an allow-list (see the module docstring): the
    ``<svg>`` element's text, and its width and height in CSS pixels (one SVG unit each,
    so the graph's 14 px text stays 14 px).  ValueError when it is not an SVG."""
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as error:
        raise ValueError(f'the renderer made no readable SVG: {error}') from error
    if root.tag != f'{_SVG_NS}svg':
        raise ValueError(f'the renderer made {root.tag!r}, not an SVG')
    try:
        _, _, width, height = (float(v) for v in root.get('viewBox', '').split())
    except ValueError as error:
        raise ValueError('the SVG has no viewBox') from error
    writer = _Writer()
    writer.children(root)
    inherited = ''.join(f' {k}="{v}"' for k, v in _INHERITED.items())
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
           f'viewBox="0 0 {width:g} {height:g}" role="img"{inherited} '
           f'style="display:block;max-width:100%;height:auto;background:{palette.PICTURE_BACKGROUND};'
           'border-radius:4px">'
           + ''.join(writer.out) + '</svg>')
    return svg, width, height


def picture(model: Any, options: dict | None = None, *, key: str = '',
            max_nodes: int = MAX_NODES) -> Picture:
    """The static picture of a :class:`~autograd_lab_widget.session.stepping.StepModel` at the
    position it shows, drawn with ``options`` (the view's; ``max_nodes`` caps them).

    Never raises for want of a renderer or a drawable graph: the picture then says so.
    """
    opts = dict(drawing.DEFAULT_OPTIONS)
    opts.update(options or {})
    opts['max_nodes'] = min(int(opts['max_nodes']), max_nodes)
    frame, status = model.still(opts)
    caption = status.get('text', '')
    if frame.shown < frame.total:
        caption += (f' ({frame.shown} of {frame.total} nodes drawn'
                    + (': the part around the next function.)' if frame.window is not None
                       else ', Links collapsed.)'))
    try:
        dot = lens_cells.with_legend(frame.dot) if opts.get(lens_cells.OPTION) else frame.dot
        svg, width, height = safe_svg(graph.render(dot, 'svg'))
    except (graph.RendererNotFound, RuntimeError, ValueError) as error:
        message = f'(no picture of the graph: {error})'
        svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="24" '
               f'viewBox="0 0 640 24"><text x="4" y="16" font-size="13">{_text(message)}'
               '</text></svg>')
        width, height = 640.0, 24.0
    return Picture(svg, caption, width, height, key)


def new_key() -> str:
    """A fresh key tying one view's static outputs to its live widget."""
    return secrets.token_hex(8)
