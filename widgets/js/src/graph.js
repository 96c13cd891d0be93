// The graph stage: Graphviz (compiled to WASM, inlined in this bundle) lays the DOT out,
// the SVG goes into the page, and a backward step rewrites cell texts and classes in
// place, so the graph does not move.  Zoom and pan are d3-zoom's on one viewport group.
//
// The view opens legible: at a scale where graph text is at least LEGIBLE_PX (never
// shrunk to a hairline to fit); when the whole graph does not fit at that scale it is
// centred on the focus node (the next function) and an overview shows where that is.
// A new layout keeps the nodes that stay where they were on screen.
import { Graphviz } from '@hpcc-js/wasm/graphviz';
import { select } from 'd3-selection';
import { zoom, zoomIdentity } from 'd3-zoom';

const SVG_NS = 'http://www.w3.org/2000/svg';
const FONT_PX = 14;          // the DOT's font size: one SVG unit is 1 CSS px at scale 1
const LEGIBLE_PX = 14;       // small graphs: text never smaller than this
const BIG_LEGIBLE_PX = 12;   // big graphs (over BIG_NODES): around the focus node
const BIG_NODES = 30;
const MAX_SCALE = 1.6;       // a tiny graph is enlarged at most this much
// Hosts may load this module once per widget (JupyterLab and Voila do): the compiled
// Graphviz is kept where every copy of the module finds it, so it is compiled once a page.
const GRAPHVIZ = Symbol.for('autograd_lab_widget.graphviz');

function loadGraphviz() {
  if (!globalThis[GRAPHVIZ]) globalThis[GRAPHVIZ] = Graphviz.load();
  return globalThis[GRAPHVIZ];
}

function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// A cell's <text> (made when Graphviz drew none: an empty cell), centred in its box: the
// browser's font is not the one Graphviz measured, so it is placed here.
function cellText(shape, rect, found) {
  let text = found;
  if (!text) {
    text = svgEl('text');
    shape.after(text);
  }
  text.setAttribute('text-anchor', 'middle');
  text.setAttribute('dominant-baseline', 'central');
  text.setAttribute('x', String(rect.x + rect.width / 2));
  text.setAttribute('y', String(rect.y + rect.height / 2));
  return text;
}

// The cells of a node in the order Graphviz draws them.  Not the order of the keys: a
// saved notebook's widget state is written with sorted keys (nbformat), and a view drawn
// from it would put every text in the wrong cell.
const CELLS = ['name', 'data', 'gcap', 'grad', 'lcap', 'lens', 'fid', 'op', 'mark'];
function cellOrder(text) {
  const rank = (part) => (CELLS.includes(part) ? CELLS.indexOf(part) : CELLS.length);
  return Object.keys(text).sort((a, b) => rank(a) - rank(b));
}

function polygonBox(polygon) {
  const pts = polygon.getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number));
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

export class GraphStage {
  constructor(container, { onClick, onReady, onError, hint }) {
    this.container = container;
    this.onClick = onClick;
    this.onReady = onReady;
    this.onError = onError;
    this.key = null;
    this.dot = null;
    this.pending = null;
    this.busy = false;
    this.cells = new Map();   // 'n12' -> { node, cells: { data: {group, text} } }
    this.bounds = null;       // the layout's size in SVG units
    this.transform = null;    // the current zoom transform
    this.svg = null;
    this.viewport = null;
    // The extent is the stage's box, given here: d3-zoom would otherwise read the SVG's
    // width, a percentage it cannot resolve while the output is not laid out yet.
    this.zoomer = zoom()
      .extent(() => {
        const { w, h } = this.size();
        return [[0, 0], [w, h]];
      })
      .scaleExtent([0.05, 4])
      .filter((e) => (e.type !== 'wheel' || e.ctrlKey || e.metaKey) && !e.button)
      .on('zoom', (e) => this.zoomed(e));
    this.overview = document.createElement('div');
    this.overview.className = 'agl-overview';
    this.overview.hidden = true;
    this.overview.title = 'Overview: click to look there';
    this.overview.addEventListener('click', (e) => this.panToOverview(e));
    this.hint = hint;  // a line outside the graph: it must not cover any node
    container.append(this.overview);
    if (typeof ResizeObserver !== 'undefined') {
      this.observer = new ResizeObserver(() => this.resized());
      this.observer.observe(container);
    }
    container.addEventListener('click', (event) => {
      const node = event.target.closest && event.target.closest('g.node');
      if (node && this.svg && this.svg.contains(node)) {
        event.stopPropagation();
        this.onClick(node.getAttribute('id') || '');
      }
    });
  }

  // Show a drawing: in place when only texts and classes changed, else a new layout.
  show(job) {
    if (!job.dot) return;
    if (this.busy) {
      this.pending = job;
      return;
    }
    if (job.key === this.key && this.svg) {
      this.patch(job.nodes);
      this.dot = job.dot;
      return;
    }
    this.busy = true;
    const asked = performance.now();
    loadGraphviz().then((gv) => {
      try {
        const t0 = performance.now();
        const svg = gv.layout(job.dot, 'svg', 'dot');
        const t1 = performance.now();
        this.layout(svg, job);
        // where a first drawing's time goes (read by benchmarks/widget_latency.py)
        this.container.dataset.aglTimes = `wasm ready ${Math.round(t0 - asked)} ms, graphviz `
          + `${Math.round(t1 - t0)} ms, page ${Math.round(performance.now() - t1)} ms`;
      } catch (error) {
        this.onError(error);
      }
      this.busy = false;
      this.onReady();
      const next = this.pending;
      this.pending = null;
      if (next) this.show(next);
    }, (error) => {
      this.busy = false;
      this.onError(error);
    });
  }

  layout(svgText, job) {
    // An XML parse (it runs nothing: no handler of a parsed element ever fires), then the
    // elements are adopted into this document (moved, not copied).
    const parsed = new DOMParser().parseFromString(svgText, 'image/svg+xml').documentElement;
    if (!parsed || parsed.nodeName !== 'svg') throw new Error('Graphviz made no SVG');
    const [, , width, height] = (parsed.getAttribute('viewBox') || '0 0 100 100').split(/\s+/).map(Number);
    const graph = parsed.querySelector('g.graph') || parsed.querySelector('g');
    const before = this.screenPositions();
    // measured once, before the new drawing is in the page: measuring after each change
    // would make the browser lay the whole drawing out again each time
    this.box = null;
    this.box = this.size();
    const svg = svgEl('svg', { class: 'agl-canvas', role: 'img',
      'aria-label': 'computational graph (click a node to inspect it)' });
    const viewport = svgEl('g', { class: 'agl-viewport' });
    const content = document.adoptNode(graph);
    for (const title of content.querySelectorAll('title')) title.remove();
    viewport.appendChild(content);
    svg.appendChild(viewport);
    if (this.svg) this.svg.replaceWith(svg);
    else this.container.prepend(svg);
    this.svg = svg;
    this.viewport = viewport;
    this.bounds = { width, height };
    this.key = job.key;
    this.dot = job.dot;
    this.indexCells(job.nodes);
    this.patch(job.nodes);
    select(svg).call(this.zoomer).on('dblclick.zoom', null);
    this.place(before, job.focus);
    this.drawOverview();
  }

  // Every engine node's cells.  Graphviz draws a node's table as its border, then each
  // cell as a filled box followed by its text, in the order of the cells (the order of
  // the node's texts in the payload).  Box and text get the cell's classes
  // (``agl-cell-box``/``agl-cell-text`` and ``agl-cell-<part>``); nothing is moved.
  indexCells(nodes) {
    this.cells = new Map();
    for (const node of this.svg.querySelectorAll('g.node')) {
      const id = node.getAttribute('id') || '';
      const parts = cellOrder(((nodes || {})[id] || {}).text || {});
      const holder = node.querySelector(':scope > g > a') || node;
      const cells = {};
      let current = null;
      let index = -1;
      for (const child of Array.from(holder.children)) {
        if (child.tagName === 'polygon') {
          const fill = child.getAttribute('fill');
          if (!fill || fill === 'none') continue;  // the table's border
          index += 1;
          const part = parts[index];
          if (!part) break;
          current = { part, box: polygonBox(child), shape: child, text: null };
          cells[part] = current;
        } else if (child.tagName === 'text' && current) {
          if (current.text) child.remove();  // one text per cell
          else current.text = child;
        }
      }
      for (const cell of Object.values(cells)) {
        cell.text = cellText(cell.shape, cell.box, cell.text);
        cell.state = null;
      }
      this.cells.set(id, { node, cells });
    }
  }

  // Texts and classes of every cell, without a layout.
  patch(nodes) {
    for (const [id, info] of Object.entries(nodes || {})) {
      const entry = this.cells.get(id);
      if (!entry || !info) continue;
      // only what changed is written: a step changes a handful of nodes
      const cls = typeof info.class === 'string' ? `node ${info.class}` : null;
      if (cls !== null && entry.node.getAttribute('class') !== cls) entry.node.setAttribute('class', cls);
      for (const [part, cell] of Object.entries(entry.cells)) {
        const text = info.text && info.text[part];
        if (typeof text === 'string' && cell.text.textContent !== text) cell.text.textContent = text;
        const state = (info.cell && info.cell[part]) || '';
        if (cell.state !== state) {
          cell.state = state;
          const more = state ? ` ${state}` : '';
          cell.shape.setAttribute('class', `agl-cell-box agl-cell-${part}${more}`);
          cell.text.setAttribute('class', `agl-cell-text agl-cell-${part}${more}`);
        }
      }
    }
  }

  // A node's centre in the viewport's units (Graphviz's graph group has its own translate).
  center(entry) {
    const box = entry.node.getBBox();
    const inner = this.innerOffset();
    return [box.x + box.width / 2 + inner.x, box.y + box.height / 2 + inner.y];
  }

  // Where each engine node is on screen now (to keep it there across a new layout).
  screenPositions() {
    const out = new Map();
    if (!this.svg || !this.transform) return out;
    for (const [id, entry] of this.cells) out.set(id, this.transform.apply(this.center(entry)));
    return out;
  }

  size() {
    if (this.box) return this.box;
    const rect = this.container.getBoundingClientRect();
    return { w: Math.max(rect.width, 200), h: Math.max(rect.height, 150) };
  }

  legibleScale() {
    const big = this.cells.size > BIG_NODES;
    return (big ? BIG_LEGIBLE_PX : LEGIBLE_PX) / FONT_PX;
  }

  // The part of the stage a whole graph is fitted into: not under the zoom buttons in
  // the top right corner.  Whichever of the band above them or the strip beside them
  // costs less scale is given up (a tall graph gives up the strip, a wide one the band).
  area() {
    const { w, h } = this.size();
    const pad = 8;
    const bar = this.container.querySelector('.agl-zoom');
    const stage = this.container.getBoundingClientRect();
    const r = bar ? bar.getBoundingClientRect() : null;
    const top = r && r.height ? r.bottom - stage.top + 4 : pad;
    const side = r && r.width ? stage.right - r.left + 4 : pad;
    const { width, height } = this.bounds;
    const below = { x: pad, y: top, w: w - 2 * pad, h: h - top - pad };
    const beside = { x: pad, y: pad, w: w - side - pad, h: h - 2 * pad };
    const scale = (a) => Math.min(a.w / width, a.h / height);
    const best = scale(below) >= scale(beside) ? below : beside;
    return { ...best, k: scale(best) };
  }

  fitScale() {
    return this.area().k;
  }

  // After a new layout: the nodes that were drawn before stay where they were.  When
  // the layout moved them relative to each other (new nodes joined), the graph is
  // shifted by the median of their moves: most of them stay exactly in place.
  place(before, focusId) {
    if (this.transform && before.size) {
      const k = this.transform.k;
      const dx = [];
      const dy = [];
      // the forward graph first: grad-of-grad nodes join and move around it
      const forward = [...this.cells.keys()].some((id) => before.has(id)
        && !this.cells.get(id).node.classList.contains('grad-of-grad'));
      for (const [id, entry] of this.cells) {
        const was = before.get(id);
        if (!was || (forward && entry.node.classList.contains('grad-of-grad'))) continue;
        const [x, y] = this.center(entry);
        dx.push(was[0] - k * x);
        dy.push(was[1] - k * y);
      }
      if (dx.length) {
        const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
        this.apply(zoomIdentity.translate(median(dx), median(dy)).scale(k));
        return;
      }
    }
    this.home(focusId);
  }

  // Open legible: the whole graph centred when it fits at a legible scale, else
  // centred on the focus node (or the graph's top when there is none).
  home(focusId) {
    const { w, h } = this.size();
    const area = this.area();
    const fit = area.k;
    const k = Math.min(MAX_SCALE, Math.max(fit, this.legibleScale()));
    const entry = focusId !== null && focusId !== undefined ? this.cells.get(`n${focusId}`) : null;
    if (fit >= k) {  // the whole graph, centred where the zoom buttons leave room
      const tx = area.x + (area.w - k * this.bounds.width) / 2;
      const ty = area.y + (area.h - k * this.bounds.height) / 2;
      this.apply(zoomIdentity.translate(tx, ty).scale(k));
      this.placedBySelf = true;
      this.focusId = focusId;
      return;
    }
    let [cx, cy] = [this.bounds.width / 2, h / (2 * k)];
    if (entry) [cx, cy] = this.center(entry);
    // centred on the focus, but no empty band where the graph could be: a graph bigger
    // than the stage keeps its edges at the stage's edges
    const pad = 8;
    const clamp = (t, size, view) => (size * k + 2 * pad <= view ? (view - size * k) / 2
      : Math.min(pad, Math.max(view - pad - size * k, t)));
    const tx = clamp(w / 2 - k * cx, this.bounds.width, w);
    const ty = this.uncut(clamp(h / 2 - k * cy, this.bounds.height, h), k, h);
    this.apply(zoomIdentity.translate(tx, ty).scale(k));
    this.placedBySelf = true;
    this.focusId = focusId;
  }

  // A vertical offset at which no node is cut by the stage's top or bottom edge (a
  // name row hidden, a grad row shown): a node cut at the top is moved down into view
  // whole, or else up out of it, whichever cuts no other node (down when both do).
  uncut(ty, k, h) {
    const inner = this.innerOffset();
    const spans = [...this.cells.values()].map(({ node }) => {
      const b = node.getBBox();
      return [b.y + inner.y, b.y + b.height + inner.y];
    });
    const cut = (t) => spans.filter(([y0, y1]) => (t + k * y0 < 0 && t + k * y1 > 0)
      || (t + k * y0 < h && t + k * y1 > h)).length;
    const atTop = spans.filter(([y0, y1]) => ty + k * y0 < 0 && ty + k * y1 > 0);
    if (!atTop.length) return ty;
    const down = ty - Math.min(...atTop.map(([y0]) => ty + k * y0)) + 4;
    const up = ty - Math.max(...atTop.map(([, y1]) => ty + k * y1)) - 2;
    return [down, up].find((t) => cut(t) === 0) ?? (cut(up) < cut(down) ? up : down);
  }

  // The stage got its size only after the drawing (an output not laid out yet, a
  // resized window): open it again for the new size, unless the user has moved it.
  resized() {
    if (!this.svg || !this.bounds) return;
    const rect = this.container.getBoundingClientRect();
    const box = this.box;
    if (!rect.width || !rect.height || (box && Math.abs(box.w - rect.width) < 2
        && Math.abs(box.h - rect.height) < 2)) return;
    this.box = null;
    this.box = this.size();
    if (this.placedBySelf) this.home(this.focusId);
    else this.updateOverview();
  }

  // The translate Graphviz gives its graph group.
  innerOffset() {
    const content = this.viewport && this.viewport.firstChild;
    const m = /translate\(\s*([-\d.]+)[ ,]+([-\d.]+)\s*\)/.exec((content && content.getAttribute('transform')) || '');
    return m ? { x: Number(m[1]), y: Number(m[2]) } : { x: 0, y: 0 };
  }

  apply(t) {
    select(this.svg).call(this.zoomer.transform, t);
  }

  zoomed(event) {
    if (event.sourceEvent) this.placedBySelf = false;  // the user moved: leave it there
    this.transform = event.transform;
    this.viewport.setAttribute('transform', event.transform.toString());
    this.updateOverview();
  }

  fit() {
    this.box = null;  // the stage may have been resized since the last layout
    const area = this.area();
    const k = Math.min(MAX_SCALE, area.k);
    this.apply(zoomIdentity.translate(area.x + (area.w - k * this.bounds.width) / 2,
      area.y + (area.h - k * this.bounds.height) / 2).scale(k));
  }

  zoomBy(factor) {
    if (this.svg) select(this.svg).call(this.zoomer.scaleBy, factor);
  }

  // -- overview: the whole graph small, the visible part framed ----------------------------
  // The box takes the graph's shape within 150 px by up to 260 px;
  // the frame is drawn in the box's pixels, at least 8 px each way, so it shows even
  // where the graph is a thousand times taller than the box.
  drawOverview() {
    this.overview.replaceChildren();
    const { width, height } = this.bounds;
    // a tall graph gets a tall box (up to 40% of the stage) at least 72 px wide: a box
    // one can aim at, not a sliver
    const tall = Math.max(110, Math.min(0.4 * this.size().h, 260));
    const k = Math.min(150 / width, tall / height);
    const w = Math.max(72, Math.round(width * k));
    const h = Math.max(56, Math.round(height * k));
    this.overview.style.width = `${w}px`;
    this.overview.style.height = `${h}px`;
    this.miniScale = k;
    this.miniOffset = [(w - width * k) / 2, (h - height * k) / 2];
    const mini = svgEl('svg', { width: w, height: h, 'aria-hidden': 'true' });
    const picture = svgEl('g', { transform: `translate(${this.miniOffset[0]} ${this.miniOffset[1]}) scale(${k})` });
    // one box per node (a copy of the drawing would be redrawn at every step)
    const inner = this.innerOffset();
    for (const { node, cells } of this.cells.values()) {
      const boxes = Object.values(cells).map((c) => c.box);
      if (!boxes.length) continue;
      const x0 = Math.min(...boxes.map((b) => b.x));
      const y0 = Math.min(...boxes.map((b) => b.y));
      const x1 = Math.max(...boxes.map((b) => b.x + b.width));
      const y1 = Math.max(...boxes.map((b) => b.y + b.height));
      const kind = node.classList.contains('function') ? 'agl-mini-function' : 'agl-mini-variable';
      picture.appendChild(svgEl('rect', { class: kind, x: x0 + inner.x, y: y0 + inner.y,
        width: x1 - x0, height: y1 - y0 }));
    }
    this.frame = svgEl('rect', { class: 'agl-view-box' });
    mini.append(picture, this.frame);
    this.overview.appendChild(mini);
    this.updateOverview();
  }

  updateOverview() {
    if (!this.frame || !this.transform || !this.bounds) return;
    const { w, h } = this.size();
    const t = this.transform;
    const [x0, y0] = t.invert([0, 0]);
    const [x1, y1] = t.invert([w, h]);
    const k = this.miniScale;
    const [ox, oy] = this.miniOffset;
    const fw = Math.max(8, (x1 - x0) * k);
    const fh = Math.max(8, (y1 - y0) * k);
    this.frame.setAttribute('x', String(ox + ((x0 + x1) / 2) * k - fw / 2));
    this.frame.setAttribute('y', String(oy + ((y0 + y1) / 2) * k - fh / 2));
    this.frame.setAttribute('width', String(fw));
    this.frame.setAttribute('height', String(fh));
    const fitsNow = this.bounds.width * t.k <= w + 1 && this.bounds.height * t.k <= h + 1;
    this.overview.hidden = fitsNow;
    this.hint.textContent = fitsNow ? '' : 'Part of the graph: drag to pan, Fit for all';
  }

  panToOverview(event) {
    if (!this.transform || !this.miniScale) return;
    const box = this.overview.getBoundingClientRect();
    const k = this.miniScale;
    const x = (event.clientX - box.left - this.miniOffset[0]) / k;
    const y = (event.clientY - box.top - this.miniOffset[1]) / k;
    const { w, h } = this.size();
    const s = this.transform.k;
    this.apply(zoomIdentity.translate(w / 2 - s * x, h / 2 - s * y).scale(s));
  }

  svgText() {
    if (!this.svg) return '';
    const copy = this.svg.cloneNode(true);
    copy.setAttribute('xmlns', SVG_NS);
    const { width, height } = this.bounds;
    copy.setAttribute('viewBox', `0 0 ${width} ${height}`);
    copy.setAttribute('width', String(width));
    copy.setAttribute('height', String(height));
    copy.firstChild.removeAttribute('transform');
    return new XMLSerializer().serializeToString(copy);
  }
}
