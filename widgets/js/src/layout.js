// The widget's page: the toolbar, the stage (the graph beside the status, the step ledger
// and the inspect panel) and the legend.  Only elements here: what they show is sync.js's.
import { el } from './dom.js';
import { kernelNotice } from './kernel.js';
import { LENS_LEGEND } from './protocol.js';
import { STYLESHEET } from './theme.js';
import { buildToolbar } from './toolbar.js';

const SWATCHES = [
  ['agl-input', 'input'], ['agl-output', 'output'], ['agl-func', 'function'],
  ['agl-grad', 'grad row'], ['agl-fresh', 'just changed'],
];

// A legend entry with a short line drawn in the style it explains.
function lineKey(cls, text) {
  const item = el('span', cls);
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', '28');
  svg.setAttribute('height', '10');
  svg.setAttribute('aria-hidden', 'true');
  const line = document.createElementNS(ns, 'line');
  for (const [name, value] of [['x1', '1'], ['y1', '5'], ['x2', '27'], ['y2', '5']]) line.setAttribute(name, value);
  svg.appendChild(line);
  item.append(svg, el('span', '', text));
  return item;
}

function legend(hint, noKernel) {
  const box = el('div', 'agl-legend');
  box.setAttribute('aria-label', 'legend');
  box.append(noKernel, hint);
  for (const [cls, text] of SWATCHES) {
    const item = el('span');
    const swatch = el('span', 'agl-swatch');
    swatch.style.background = `var(--${cls})`;
    item.append(swatch, el('span', '', text));
    box.appendChild(item);
  }
  box.append(el('span', '', '\u25B6 runs next \u00B7 \u2713 ran'),
    el('span', '', '\u2014 no grad yet'), el('span', '', 'italic: freed by the engine, value as recorded'),
    el('span', '', 'gone: a leaf your code kept no reference to (no grad is kept)'),
    lineKey('agl-key-grad', 'dashed pink: made by backward (grad-of-grad)'),
    lineKey('agl-key-cut', 'dotted: cut by unchain_backward()'));
  return box;
}

// The gradient lens's legend (its words are the kernel's): under the graph, where no
// zoom button or node can cover it, shown while the lens is on (sync.js).
function lensLegend() {
  const box = el('div', 'agl-lens-legend');
  box.setAttribute('aria-label', 'gradient lens legend');
  box.hidden = true;
  for (const line of LENS_LEGEND) box.appendChild(el('div', '', line));
  return box;
}

function labelled(tag, cls, label, attrs = {}) {
  const node = el(tag, cls);
  node.setAttribute('aria-label', label);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

export function buildPage() {
  const root = el('div', 'agl-root');
  root.tabIndex = 0;
  root.dataset.aglReady = '0';
  root.dataset.aglLayouts = '0';
  // JupyterLab: keys pressed inside the widget are the widget's, not notebook shortcuts.
  root.setAttribute('data-lm-suppress-shortcuts', 'true');
  root.setAttribute('aria-label', 'autograd_lab graph view');
  const style = el('style');
  style.textContent = STYLESHEET;
  // Where this widget draws, the static picture Python put after it for saved notebooks
  // is hidden (sync.js writes the rule): one graph on screen, not two.
  const hideStatic = el('style');
  const tools = buildToolbar();
  // The stage takes the focus (a click on it, Tab): arrow keys pan it then.  Its zoom
  // buttons are in the toolbar, where they cover no node.
  const graphBox = labelled('div', 'agl-graph',
    'graph: arrow keys pan, click a node to inspect it, / searches', { tabindex: '0' });
  const status = el('div', 'agl-status');
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  const ledger = labelled('div', 'agl-ledger', 'step ledger');
  const inspect = labelled('div', 'agl-inspect', 'inspect panel');
  inspect.dataset.nodeId = '';
  // The ledger and the inspect panel scroll together under the status: neither is a
  // small box with a scrollbar of its own that cuts what it holds.
  const sideScroll = el('div', 'agl-side-scroll');
  sideScroll.append(ledger, inspect);
  const side = el('div', 'agl-side');
  // shown while the page waits for the cells whole (a patch was missed, see cells.js)
  const resync = el('div', 'agl-resync', 'Catching up with the kernel\u2026');
  resync.setAttribute('role', 'status');
  resync.hidden = true;
  side.append(resync, status, sideScroll);
  const stage = el('div', 'agl-stage');
  stage.append(graphBox, side);
  const hint = el('span', 'agl-hint');
  const noKernel = kernelNotice();
  const lens = lensLegend();
  root.append(style, hideStatic, tools.bar, stage, lens, legend(hint, noKernel));
  return {
    root, hideStatic, tools, stage, graphBox, status, ledger, inspect, sideScroll, hint, noKernel,
    lensLegend: lens, resync,
  };
}
