// Browser side of autograd_lab_widget.GraphView (an anywidget ES module).
//
// Python owns the truth (the engine, the event log, the graph model, the DOT text);
// this module only lays the DOT out with Graphviz compiled to WASM (d3-graphviz,
// inlined by esbuild: no CDN, no network, no system Graphviz), draws panels, and
// sends the user's clicks back as small JSON messages.  User text (names, labels,
// values) is only ever written with textContent, never innerHTML.
import { select } from 'd3-selection';
import { transition } from 'd3-transition';
import { graphviz } from 'd3-graphviz';
import { buildPanel } from './panel.js';
import { renderStatus } from './status.js';
import { downloadBlob, exportPng, exportSvg } from './export.js';
import { STYLE } from './style.js';

const BUTTONS = [
  ['back', '\u00AB Back', 'Previous step in the history (Left arrow)'],
  ['step', 'Step \u25B6', 'Run the next function\'s backward (Right arrow)'],
  ['forward', 'Forward \u00BB', 'Next step in the history, or a new step at the live end'],
  ['run', 'Run to end', 'Run every remaining backward step (End)'],
  ['reset', 'Reset', 'Clear the grads of the shown graph and start a fresh backward'],
  ['predict', 'Predict first', 'Hide each new gradient until you have guessed it'],
  ['unchain-preview', 'Preview unchain', 'Highlight what unchain_backward() of the selection cuts'],
  ['unchain', 'Unchain', 'Cut the graph behind the selected variable (unchain_backward)'],
  ['device', 'Move to GPU', 'Move every variable and parameter of the graph'],
  ['fit', 'Fit', 'Fit the graph to the view'],
  ['export-svg', 'SVG', 'Download the drawing as SVG'],
  ['export-png', 'PNG', 'Download the drawing as PNG'],
  ['export-dot', 'DOT', 'Download the Graphviz source'],
  ['export-log', 'Log', 'Download the event log as JSON'],
  ['export-html', 'HTML', 'Download a self-contained replay (no kernel needed)'],
];

const BROWSER_ACTIONS = new Set(['fit', 'export-svg', 'export-png', 'export-dot']);
const TRANSITION_MS = 250;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = String(text);
  return node;
}

// Above this many nodes a step never triggers a layout: texts and classes are rewritten
// in place while the structure is unchanged, and layouts run without transitions.
const BIG_GRAPH = 150;
const SVG_NS = 'http://www.w3.org/2000/svg';

// Rewrite a drawn node's label lines in place (no layout), centred on its shape.
function relabel(g, lines) {
  const texts = Array.from(g.querySelectorAll(':scope > text'));
  if (texts.length === lines.length) {
    texts.forEach((t, i) => {
      if (t.textContent !== lines[i][0]) t.textContent = lines[i][0];
    });
    return;
  }
  const shape = g.querySelector(':scope > ellipse, :scope > polygon, :scope > path');
  if (!shape || !texts.length) return;
  const box = shape.getBBox();
  const model = texts[0];
  const height = lines.reduce((sum, [, size]) => sum + size * 1.2, 0);
  let y = box.y + box.height / 2 - height / 2;
  for (const t of texts) t.remove();
  for (const [text, size] of lines) {
    y += size * 1.2;
    const t = document.createElementNS(SVG_NS, 'text');
    for (const name of ['font-family', 'fill', 'text-anchor']) {
      const value = model.getAttribute(name);
      if (value) t.setAttribute(name, value);
    }
    t.setAttribute('text-anchor', 'middle');
    t.setAttribute('x', String(box.x + box.width / 2));
    t.setAttribute('y', String(y - size * 0.3));
    t.setAttribute('font-size', String(size));
    t.textContent = text;
    g.appendChild(t);
  }
}

// A renderer that never runs two layouts at once: while one runs, only the newest DOT
// waits (older ones are dropped: throttling).
class GraphPane {
  constructor(container, onClick, onReady) {
    this.container = container;
    this.onClick = onClick;
    this.onReady = onReady;
    this.busy = false;
    this.pending = null;
    this.renderedKey = null;
    this.renderedDot = null;
    // A name of its own: d3 runs named transitions on the document root, and two widgets
    // sharing one name break each other ("too late; already running").
    const name = `agl-${(GraphPane.count = (GraphPane.count || 0) + 1)}`;
    this.factory = () => transition(name).duration(TRANSITION_MS);
    this.gv = graphviz(container, { useWorker: false, zoom: true, fit: true })
      .keyMode('id')
      .tweenShapes(false)
      .tweenPaths(false)  // path tweening samples every edge (getPointAtLength): most of a step
      .growEnteringEdges(false);
  }

  show(job) {
    if (!job.dot || job.dot === this.renderedDot) {
      if (!this.busy) this.decorate(job);
      return;
    }
    const big = Object.keys(job.nodeInfo || {}).length > BIG_GRAPH;
    if (big && this.renderedKey !== null && job.key === this.renderedKey && !this.busy) {
      this.decorate(job);  // same structure: texts and classes in place, no layout
      this.renderedDot = job.dot;
      return;
    }
    this.pending = job;
    if (!this.busy) this.next();
  }

  next() {
    const job = this.pending;
    this.pending = null;
    if (!job) return;
    this.busy = true;
    // No transition for the first drawing (nothing to animate; and several widgets
    // drawing at once, as in Voila, must not race their transitions) nor for big graphs
    // (interpolating thousands of attributes costs seconds).
    const animate = this.renderedDot !== null && Object.keys(job.nodeInfo || {}).length <= BIG_GRAPH;
    this.gv._transitionFactory = animate ? this.factory : null;
    this.gv._transition = null;
    const rect = this.container.getBoundingClientRect();
    this.gv.width(Math.max(rect.width, 200)).height(Math.max(rect.height, 200));
    const finish = () => {
      this.busy = false;
      this.renderedKey = job.key;
      this.renderedDot = job.dot;
      this.bindClicks();
      this.decorate(job);
      this.onReady();
      if (this.pending) this.next();
    };
    try {
      this.gv.renderDot(job.dot).on('end', finish);
    } catch (error) {
      this.busy = false;
      console.warn('autograd_lab widget: layout failed', error);
    }
  }

  bindClicks() {
    const onClick = this.onClick;
    select(this.container).selectAll('g.node').on('click', function (event) {
      event.stopPropagation();
      onClick(this.getAttribute('id') || '');
    });
  }

  // Per-node SVG classes (states, highlights) and label lines, applied without a layout.
  decorate(job) {
    const classes = job.nodeInfo || {};
    const labels = job.nodeLabels || {};
    select(this.container).selectAll('g.node').each(function () {
      const id = this.getAttribute('id');
      if (typeof classes[id] === 'string') this.setAttribute('class', `node ${classes[id]}`);
      if (Array.isArray(labels[id])) relabel(this, labels[id]);
    });
  }

  fit() {
    this.gv.resetZoom();
  }

  svgText() {
    const svg = this.container.querySelector('svg');
    return svg ? new XMLSerializer().serializeToString(svg) : '';
  }
}

function render({ model, el: host }) {
  const style = el('style');
  style.textContent = STYLE;
  const root = el('div', 'agl-root');
  root.tabIndex = 0;
  root.dataset.aglReady = '0';
  const toolbar = el('div', 'agl-toolbar');
  const buttons = {};
  for (const [action, label, title] of BUTTONS) {
    const button = el('button', 'agl-button', label);
    button.dataset.action = action;
    button.title = title;
    button.setAttribute('aria-label', title);
    buttons[action] = button;
    toolbar.appendChild(button);
  }
  const stepBadge = el('span', 'agl-step', 'step 0');
  stepBadge.dataset.step = '0';
  toolbar.appendChild(stepBadge);
  const deviceReason = el('span', 'agl-device-reason');
  toolbar.appendChild(deviceReason);

  const filters = el('div', 'agl-filters');
  const search = el('input', 'agl-search');
  search.type = 'search';
  search.placeholder = 'search names / labels';
  search.setAttribute('aria-label', 'search nodes');
  const depth = el('input', 'agl-depth');
  depth.type = 'number';
  depth.min = '0';
  depth.placeholder = 'depth';
  depth.setAttribute('aria-label', 'depth limit (0 = none)');
  const order = el('select', 'agl-order');
  order.setAttribute('aria-label', 'filter by order');
  const hideConst = el('input', 'agl-hide-constants');
  hideConst.type = 'checkbox';
  const showValues = el('input', 'agl-show-values');
  showValues.type = 'checkbox';
  const direction = el('select', 'agl-direction');
  for (const [value, text] of [['none', 'no highlight'], ['up', 'upstream'], ['down', 'downstream']]) {
    const opt = el('option', '', text);
    opt.value = value;
    direction.appendChild(opt);
  }
  const labelled = (text, input) => {
    const label = el('label', 'agl-filter', text);
    label.appendChild(input);
    return label;
  };
  filters.append(labelled('Search ', search), labelled(' Depth ', depth), labelled(' Order ', order),
    labelled(' Hide constants ', hideConst), labelled(' Values ', showValues),
    labelled(' Highlight ', direction));

  const status = el('div', 'agl-status');
  status.setAttribute('role', 'status');
  const predictBox = el('div', 'agl-predict-box');
  const guess = el('input', 'agl-guess');
  guess.placeholder = 'your guess, e.g. 4 or [1, 2]';
  guess.setAttribute('aria-label', 'your guess for the next gradient');
  const guessButton = el('button', 'agl-button', 'Check guess');
  guessButton.dataset.action = 'guess';
  const feedback = el('span', 'agl-feedback');
  predictBox.append(guess, guessButton, feedback);

  const main = el('div', 'agl-main');
  const graphBox = el('div', 'agl-graph');
  const inspect = el('div', 'agl-inspect');
  inspect.dataset.nodeId = '';
  main.append(graphBox, inspect);
  root.append(style, toolbar, filters, status, predictBox, main);
  host.appendChild(root);

  const send = (msg) => model.send(msg);
  const pane = new GraphPane(graphBox, (id) => send({ type: 'select', id }), () => {
    root.dataset.aglReady = '1';
  });

  const syncHeight = () => {
    graphBox.style.height = `${model.get('height')}px`;
  };
  const syncGraph = () => pane.show({
    dot: model.get('dot'), key: model.get('structure_key'), nodeInfo: model.get('node_info'),
    nodeLabels: model.get('node_labels'),
  });
  const syncStatus = () => {
    const st = model.get('status') || {};
    renderStatus(status, st);
    stepBadge.textContent = `step ${st.step ?? 0}`;
    stepBadge.dataset.step = String(st.step ?? 0);
    buttons.step.disabled = Boolean(st.done);
    buttons.run.disabled = Boolean(st.done);
    buttons.back.disabled = !st.can_back;
    predictBox.style.display = st.predict_pending ? '' : 'none';
    feedback.textContent = st.feedback || '';
  };
  const syncPanel = () => buildPanel(inspect, model.get('panel') || {}, (id) => send({ type: 'select', id }));
  const syncDevice = () => {
    const available = model.get('gpu_available');
    const reason = model.get('gpu_reason') || '';
    const onGpu = String(model.get('device') || '').startsWith('@cupy');
    const button = buttons.device;
    button.textContent = onGpu ? 'Move to CPU' : 'Move to GPU';
    button.disabled = !available && !onGpu;
    const title = button.disabled ? `GPU unavailable: ${reason}` : button.textContent;
    button.title = title;
    button.setAttribute('aria-label', title);
    deviceReason.textContent = button.disabled ? `GPU unavailable: ${reason}` : '';
    deviceReason.style.display = button.disabled ? '' : 'none';
  };
  const syncOptions = () => {
    const opts = model.get('options') || {};
    if (document.activeElement !== search) search.value = opts.search || '';
    depth.value = opts.max_depth ? String(opts.max_depth) : '';
    hideConst.checked = Boolean(opts.hide_constants);
    showValues.checked = Boolean(opts.show_values);
    direction.value = opts.highlight_direction || 'none';
    const orders = model.get('orders') || [0];
    order.replaceChildren();
    const all = el('option', '', 'all orders');
    all.value = '';
    order.appendChild(all);
    for (const k of orders) {
      const opt = el('option', '', k === 0 ? 'forward only' : `up to order ${k}`);
      opt.value = String(k);
      order.appendChild(opt);
    }
    order.value = opts.max_order === null || opts.max_order === undefined ? '' : String(opts.max_order);
    buttons.predict.classList.toggle('agl-on', Boolean(model.get('predict')));
  };

  const setOption = (name, value) => send({ type: 'options', options: { [name]: value } });
  search.addEventListener('change', () => setOption('search', search.value));
  depth.addEventListener('change', () => setOption('max_depth', depth.value ? Number(depth.value) : 0));
  order.addEventListener('change', () => setOption('max_order', order.value === '' ? null : Number(order.value)));
  hideConst.addEventListener('change', () => setOption('hide_constants', hideConst.checked));
  showValues.addEventListener('change', () => setOption('show_values', showValues.checked));
  direction.addEventListener('change', () => setOption('highlight_direction', direction.value));

  const act = (action) => {
    if (action === 'fit') pane.fit();
    else if (action === 'export-svg') exportSvg(pane.svgText());
    else if (action === 'export-png') exportPng(pane.svgText());
    else if (action === 'export-dot') downloadBlob(model.get('dot') || '', 'graph.dot', 'text/vnd.graphviz');
    else send({ type: 'action', action });
  };
  toolbar.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-action]');
    if (button && !button.disabled) act(button.dataset.action);
  });
  guessButton.addEventListener('click', () => send({ type: 'guess', value: guess.value }));
  guess.addEventListener('keydown', (event) => {
    event.stopPropagation();
    if (event.key === 'Enter') send({ type: 'guess', value: guess.value });
  });
  for (const input of [search, depth]) input.addEventListener('keydown', (e) => e.stopPropagation());
  root.addEventListener('keydown', (event) => {
    const keys = { ArrowRight: 'forward', ArrowLeft: 'back', End: 'run' };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      act(action);
    }
  });
  // Python asks the browser to save files it made (event log JSON, HTML replay).
  const onCustom = (msg) => {
    if (msg && msg.type === 'download' && typeof msg.content === 'string') {
      downloadBlob(msg.content, String(msg.filename || 'download.txt'), String(msg.mime || 'text/plain'));
    }
  };

  const handlers = [
    ['change:dot', syncGraph], ['change:status', syncStatus],
    ['change:panel', syncPanel], ['change:gpu_available', syncDevice], ['change:gpu_reason', syncDevice],
    ['change:device', syncDevice], ['change:options', syncOptions], ['change:orders', syncOptions],
    ['change:predict', syncOptions], ['change:height', syncHeight], ['msg:custom', onCustom],
  ];
  for (const [name, fn] of handlers) model.on(name, fn);
  syncHeight();
  syncStatus();
  syncPanel();
  syncDevice();
  syncOptions();
  syncGraph();
  // Standalone pages (the HTML replay) wait on this promise-free flag too.
  return () => {
    for (const [name, fn] of handlers) model.off(name, fn);
  };
}

export default { render };
