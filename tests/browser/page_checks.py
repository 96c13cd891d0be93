"""Measurements of a graph widget in the page, done by the browser itself.

Each function runs one small script in the page (Playwright ``locator.evaluate`` on a
widget's root) and returns plain data: rendered text sizes, text boxes, where nodes are,
colours.  Sizes are CSS pixels on screen: a text's computed font size times the scale of
its SVG transform to the screen (``getScreenCTM``).
"""

from __future__ import annotations

from typing import Any

# Every text of the graph: its id'd node, cell, text, on-screen size and box.
_TEXTS = """(root) => {
  const out = [];
  for (const t of root.querySelectorAll('.agl-graph svg.agl-canvas text')) {
    const node = t.closest('g.node');
    const cell = t.classList.contains('agl-cell-text') ? t : null;
    const ctm = t.getScreenCTM();
    const scale = ctm ? Math.hypot(ctm.a, ctm.b) : 0;
    const r = t.getBoundingClientRect();
    const box = (el) => {
      if (!el) return null;
      const b = el.getBoundingClientRect();
      return [b.left, b.top, b.right, b.bottom];
    };
    const outline = ':scope > g > a > polygon:not(.agl-cell-box), :scope > polygon';
    const shape = node && node.querySelector(outline);
    // a cell's box is the polygon drawn just before its text
    const before = t.previousElementSibling;
    const cellShape = cell && before && before.tagName === 'polygon' ? before : null;
    out.push({ node: node ? node.id : '', cell: cell ? cell.getAttribute('class') : '',
               text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale,
               box: [r.left, r.top, r.right, r.bottom], shape: box(shape),
               cellBox: box(cellShape) });
  }
  return out;
}"""

# Each node's cell texts by part (name, data, gcap, grad; fid, op, mark) and its classes.
_NODE_TEXTS = """(root) => {
  const out = {};
  for (const node of root.querySelectorAll('.agl-graph svg.agl-canvas g.node')) {
    const cells = {};
    for (const text of node.querySelectorAll('text.agl-cell-text')) {
      const part = Array.from(text.classList)
        .find((c) => c.startsWith('agl-cell-') && c !== 'agl-cell-text');
      if (part) cells[part.slice(9)] = text.textContent;
    }
    out[node.id] = { cells, cls: node.getAttribute('class') };
  }
  return out;
}"""

# Where the graph box and every node are, relative to the widget root (page scrolling
# moves the whole widget; the stage must not move inside it).
_POSITIONS = """(root) => {
  const r0 = root.getBoundingClientRect();
  const rel = (el) => { const b = el.getBoundingClientRect();
    return [b.left - r0.left, b.top - r0.top, b.width, b.height]
      .map((v) => Math.round(v * 10) / 10); };
  const out = { graph: rel(root.querySelector('.agl-graph')),
                side: rel(root.querySelector('.agl-side')), nodes: {} };
  for (const node of root.querySelectorAll('.agl-graph svg.agl-canvas g.node')) {
    out.nodes[node.id] = rel(node);
  }
  return out;
}"""

# Text colour against the colour actually behind it, for every control and text of the
# widget outside the graph (WCAG 2 relative luminance; backgrounds composited upwards).
_CONTRAST = """(root) => {
  const parse = (c) => {
    // rgb()/rgba() (0-255) and color(srgb r g b / a) (0-1), as Chromium computes them
    const m = (c.match(/-?[\\d.]+/g) || []).map(Number);
    const alpha = m.length > 3 ? m[3] : 1;
    if (c.startsWith('color(')) return [m[0] * 255, m[1] * 255, m[2] * 255, alpha];
    if (c === 'transparent' || !m.length) return [0, 0, 0, 0];
    return [m[0], m[1], m[2], alpha];
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat([1]);
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let color = [255, 255, 255, 1];
    for (const layer of layers.reverse()) color = over(layer, color);
    return color;
  };
  const lum = (c) => {
    const f = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const out = [];
  const seen = new Set();
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || seen.has(el) || !n.textContent.trim()) continue;
    if (el.closest('svg') || el.closest('style') || el.closest('[hidden]')) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === 'hidden') continue;
    seen.add(el);
    const bg = background(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    out.push({ text: n.textContent.trim().slice(0, 40), tag: el.tagName,
               cls: el.className || '', ratio: ratio(fg, bg) });
  }
  return out;
}"""

# The contrast of each graph text with its cell's fill (the polygon behind it).
_GRAPH_CONTRAST = """(root) => {
  const parse = (c) => {
    const m = (c.match(/-?[\\d.]+/g) || [255, 255, 255]).map(Number);
    return c.startsWith('color(') ? [m[0] * 255, m[1] * 255, m[2] * 255] : [m[0], m[1], m[2]];
  };
  const lum = (c) => {
    const f = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const out = [];
  for (const t of root.querySelectorAll('.agl-graph svg.agl-canvas text.agl-cell-text')) {
    const p = t.previousElementSibling;
    if (!p || p.tagName !== 'polygon' || !t.textContent.trim()) continue;
    const pair = [getComputedStyle(t).fill, getComputedStyle(p).fill].map((c) => lum(parse(c)));
    const [a, b] = pair.sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    out.push({ text: t.textContent, cell: t.getAttribute('class'), ratio });
  }
  return out;
}"""


def texts(widget: Any) -> list[dict]:
    """Every graph text: node id, cell classes, text, size in px, its box and its node's."""
    return widget.evaluate(_TEXTS)


def node_texts(widget: Any) -> dict:
    """``{'n<id>': {'cells': {part: text}, 'cls': classes}}`` for every drawn node."""
    return widget.evaluate(_NODE_TEXTS)


def positions(widget: Any) -> dict:
    """The graph box, the side panel and every node, relative to the widget."""
    return widget.evaluate(_POSITIONS)


def contrast(widget: Any) -> list[dict]:
    """Contrast ratio of every visible text outside the graph with its background."""
    return widget.evaluate(_CONTRAST)


def graph_contrast(widget: Any) -> list[dict]:
    """Contrast ratio of every graph text with its cell's fill."""
    return widget.evaluate(_GRAPH_CONTRAST)


def overlaps(items: list[dict], slack: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes overlap (by more than ``slack`` px each way)."""
    out = []
    boxes = [(t['node'] + ':' + t['text'], t['box']) for t in items if t['text'].strip()]
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1:]:
            if (min(ba[2], bb[2]) - max(ba[0], bb[0]) > slack
                    and min(ba[3], bb[3]) - max(ba[1], bb[1]) > slack):
                out.append((a, b))
    return out


def outside(items: list[dict], slack: float = 0.5) -> list[str]:
    """Texts whose box leaves their node's shape or their cell's box."""
    out = []
    for t in items:
        if not t['text'].strip():
            continue
        for name in ('shape', 'cellBox'):
            frame = t[name]
            if frame is None:
                continue
            b = t['box']
            if (b[0] < frame[0] - slack or b[1] < frame[1] - slack
                    or b[2] > frame[2] + slack or b[3] > frame[3] + slack):
                out.append(f"{t['node']}:{t['text']!r} leaves its {name}")
    return out
