// The graph stage: Graphviz (compiled to WASM, inlined in this bundle) lays the DOT out,
// the SVG goes into the page, and a backward step rewrites cell texts and classes in
// place, so the graph does not move.  Zoom and pan are d3-zoom's on one viewport group.
//
// The view opens legible: at a scale where graph text is at least LEGIBLE_PX (never
// shrunk to a hairline to fit); when the whole graph does not fit at that scale it is
// framed on the focus node (the one the caller named, else the next function), showing
// as much of the rest whole as it can (frame.js), and an overview in a corner that covers
// no node shows where that is.  A new layout keeps the nodes that stay where they were on
// screen; a step brings the next function into view, a search the node it selected.
import { Graphviz } from '@hpcc-js/wasm/graphviz';
import { select } from 'd3-selection';
import { zoom, zoomIdentity } from 'd3-zoom';
import { bestOffset, freeCorner, panStep, revealOffset } from './frame.js';
import { CELLS, FONT_SIZE } from './protocol.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
// The DOT's font size is FONT_SIZE: one SVG unit is 1 CSS px at scale 1.
const LEGIBLE_PX = 14;       // small graphs: text never smaller than this
const BIG_LEGIBLE_PX = 12;   // big graphs (over BIG_NODES): around the focus node
const BIG_NODES = 30;
const MAX_SCALE = 1.6;       // a tiny graph is enlarged at most this much
const SMALLEST_PX = 8;       // Fit below this says so and offers Fit width
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
function cellOrder(text) {
  const rank = (part) => (CELLS.includes(part) ? CELLS.indexOf(part) : CELLS.length);
  return Object.keys(text).sort((a, b) => rank(a) - rank(b));
}

// The id of the node drawn as the next function to run, or null.
function nextOf(nodes) {
  for (const [id, info] of Object.entries(nodes || {})) {
    if (info && typeof info.class === 'string' && info.class.split(' ').includes('hl-next')) return id;
  }
  return null;
}

function polygonBox(polygon) {
  const pts = polygon.getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number));
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

// A node's box in its SVG units: the union of its polygons (a table's border and cells),
// else what the browser measures.
function nodeBox(node) {
  const polys = node.querySelectorAll('polygon');
  if (!polys.length) return node.getBBox();
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of polys) {
    const b = polygonBox(p);
    x0 = Math.min(x0, b.x);
    y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width);
    y1 = Math.max(y1, b.y + b.height);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
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
    // Fit's word when the whole graph's text would be too small to read: a band at the
    // top of the stage that the fitted graph leaves free, with Fit width beside it
    this.notice = document.createElement('div');
    this.notice.className = 'agl-fit-notice';
    this.notice.setAttribute('role', 'status');
    this.notice.hidden = true;
    this.noticeText = document.createElement('span');
    const width = document.createElement('button');
    width.type = 'button';
    width.dataset.action = 'fit-width';
    width.textContent = 'Fit width';
    width.title = 'Fit width: the whole width of the graph, at a size that reads (key W)';
    width.setAttribute('aria-label', 'Fit width: the whole width of the graph');
    this.notice.append(this.noticeText, width);
    this.nextId = null;     // the next function drawn, brought into view after a step
    container.append(this.overview, this.notice);
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
      this.followNext(job.nodes);
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
    const first = !this.transform;
    this.place(before, job.focus);
    this.drawOverview();
    if (first) this.nextId = nextOf(job.nodes);
    else this.followNext(job.nodes);
  }

  // After a step: the next function, where it is not whole in view, is brought in by the
  // least pan (the scale and the stage stay as they are).
  followNext(nodes) {
    const id = nextOf(nodes);
    if (id === this.nextId) return;
    this.nextId = id;
    if (id) this.reveal(id);
  }

  reveal(id) {
    const box = this.boxes && this.boxes.get(id);
    if (!box || !this.transform) return;
    const { w, h } = this.size();
    const to = revealOffset(box, this.transform, w, h);
    if (to) this.apply(zoomIdentity.translate(to[0], to[1]).scale(this.transform.k));
  }

  pan(action) {
    if (!this.transform) return;
    const { w, h } = this.size();
    const [dx, dy] = panStep(action, w, h);
    const t = this.transform;
    this.apply(zoomIdentity.translate(t.x + dx, t.y + dy).scale(t.k));
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
    // every node's box in the viewport's units, once a layout: read from Graphviz's
    // polygons, not measured (getBBox gives zeros while the output is detached or
    // hidden, as JupyterLab does with a cell out of view)
    const inner = this.innerOffset();
    this.boxes = new Map();
    for (const [id, { node }] of this.cells) {
      const b = nodeBox(node);
      this.boxes.set(id, { x0: b.x + inner.x, y0: b.y + inner.y, x1: b.x + b.width + inner.x,
        y1: b.y + b.height + inner.y });
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
    const b = this.boxes && this.boxes.get(entry.node.getAttribute('id') || '');
    if (b) return [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
    const box = nodeBox(entry.node);
    const inner = this.innerOffset();
    return [box.x + box.width / 2 + inner.x, box.y + box.height / 2 + inner.y];
  }

  // The part of the graph around the nodes (its margin is Graphviz's).
  nodeBoxes() {
    return this.boxes ? [...this.boxes.values()] : [];
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
    return (big ? BIG_LEGIBLE_PX : LEGIBLE_PX) / FONT_SIZE;
  }

  // The part of the stage a whole graph is fitted into: below Fit's notice while it shows.
  area() {
    const { w, h } = this.size();
    const pad = 8;
    const top = this.notice.hidden ? pad : this.notice.offsetTop + this.notice.offsetHeight + 4;
    const { width, height } = this.bounds;
    const a = { x: pad, y: top, w: w - 2 * pad, h: h - top - pad };
    return { ...a, k: Math.min(a.w / width, a.h / height) };
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

  // Open legible: the whole graph centred when it fits at a legible scale, else framed on
  // the focus node (or the graph's top when there is none): see frame.js.
  home(focusId) {
    const { w, h } = this.size();
    this.hideNotice();
    const area = this.area();
    const fit = area.k;
    let k = Math.min(MAX_SCALE, Math.max(fit, this.legibleScale()));
    // a graph both wider and taller than the stage at that scale, whose whole height
    // shows at BIG_LEGIBLE_PX or more, opens at the scale where it does: one pans it
    // sideways only (one taller than the stage only keeps its scale, and pans down)
    const tall = area.h / this.bounds.height;
    if (tall < k && this.bounds.width * k > area.w && tall * FONT_SIZE >= BIG_LEGIBLE_PX) k = tall;
    this.placedBySelf = true;
    this.focusId = focusId;
    if (fit >= k) {  // the whole graph, centred
      const tx = area.x + (area.w - k * this.bounds.width) / 2;
      const ty = area.y + (area.h - k * this.bounds.height) / 2;
      this.apply(zoomIdentity.translate(tx, ty).scale(k));
      return;
    }
    const box = focusId !== null && focusId !== undefined ? this.boxes.get(`n${focusId}`) : null;
    const [tx, ty] = bestOffset(this.nodeBoxes(), box || null, k, w, h, this.bounds);
    this.apply(zoomIdentity.translate(tx, ty).scale(k));
    this.placedBySelf = true;
  }

  // The view was asked to open on another node (GraphView.focus set again).
  frameOn(focusId) {
    if (this.svg && this.bounds) this.home(focusId);
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
    if (!this.keepNotice) this.hideNotice();
    select(this.svg).call(this.zoomer.transform, t);
  }

  zoomed(event) {
    if (event.sourceEvent) {  // the user moved: leave it there
      this.placedBySelf = false;
      this.hideNotice();
    }
    this.transform = event.transform;
    this.viewport.setAttribute('transform', event.transform.toString());
    this.updateOverview();
  }

  // The whole graph.  Where its text would be under SMALLEST_PX the notice says so and
  // offers Fit width (the graph is fitted below the notice, which covers no node).
  fit() {
    this.box = null;  // the stage may have been resized since the last layout
    if (!this.bounds) return;
    this.hideNotice();
    const px = Math.min(MAX_SCALE, this.area().k) * FONT_SIZE;
    if (px < SMALLEST_PX) {
      const wide = this.widthScale() * FONT_SIZE;
      this.noticeText.textContent = `Fit: text ${px.toFixed(1)} px, too small to read `
        + `(under ${SMALLEST_PX} px). `
        + (wide >= SMALLEST_PX ? `Fit width: ${wide.toFixed(1)} px, pan down for the rest.`
          : 'Zoom in (+) and pan (Shift+arrow keys) to read it.');
      this.notice.hidden = false;
      this.container.dataset.fitPx = px.toFixed(2);
    }
    const area = this.area();
    const k = Math.min(MAX_SCALE, area.k);
    this.applyKeepingNotice(zoomIdentity.translate(area.x + (area.w - k * this.bounds.width) / 2,
      area.y + (area.h - k * this.bounds.height) / 2).scale(k));
  }

  widthScale() {
    const { w } = this.size();
    return Math.min(MAX_SCALE, (w - 16) / this.bounds.width);
  }

  // The whole width of the graph, its top at the stage's top.
  fitWidth() {
    this.box = null;
    if (!this.bounds) return;
    this.hideNotice();
    const { w, h } = this.size();
    const k = this.widthScale();
    // from the graph's top node, with no node cut by the stage's bottom edge
    const boxes = this.nodeBoxes();
    const top = boxes.reduce((a, b) => (!a || b.y0 < a.y0 ? b : a), null);
    const [tx, ty] = top ? bestOffset(boxes, top, k, w, h, this.bounds)
      : [(w - k * this.bounds.width) / 2, 8];
    this.apply(zoomIdentity.translate(tx, ty).scale(k));
  }

  hideNotice() {
    this.notice.hidden = true;
    delete this.container.dataset.fitPx;
  }

  applyKeepingNotice(t) {
    this.keepNotice = true;
    this.apply(t);
    this.keepNotice = false;
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
    this.miniBox = [w + 2, h + 2];  // with its border: read here, not measured at a step
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
    // in a corner that covers no node, else folded away (the hint says how to look round)
    const corner = fitsNow ? null : freeCorner(this.nodeBoxes(), t, w, h,
      ...(this.miniBox || [150, 110]));
    this.overview.hidden = fitsNow || !corner;
    if (corner) {
      const style = this.overview.style;
      style.left = corner.x === 'left' ? '6px' : '';
      style.right = corner.x === 'right' ? '6px' : '';
      style.top = corner.y === 'top' ? '6px' : '';
      style.bottom = corner.y === 'bottom' ? '6px' : '';
      this.overview.dataset.corner = `${corner.y}-${corner.x}`;
    }
    const folded = !fitsNow && !corner ? ' (overview folded: no corner is free)' : '';
    this.hint.textContent = fitsNow ? ''
      : `Part of the graph: drag or Shift+arrow keys to pan, Fit for all${folded}`;
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
