// Browser side of autograd_lab_widget.GraphView (an anywidget ES module).
//
// Python owns the truth (the engine, the event log, the stepping model, the DOT); this
// module lays the DOT out (graph.js), shows the step ledger and the status line
// (ledger.js), the inspect panel (inspect.js) and the controls (toolbar.js), and sends
// the user's actions back as small JSON messages.  It uses only anywidget's `model` and
// `el`: no host-specific API, so it runs wherever anywidget does.
import { el } from './dom.js';
import { GraphStage } from './graph.js';
import { renderInspect } from './inspect.js';
import { renderLedger, renderStatus } from './ledger.js';
import { STYLE } from './style.js';
import { LENS_STYLE } from './lens_style.js';
import { buildToolbar, openMenu, syncToolbar } from './toolbar.js';
import { downloadBlob, exportPng, exportSvg } from './export.js';

const KEYS = {
  ArrowLeft: 'back', ArrowRight: 'step', End: 'run', Home: 'reset', p: 'predict', f: 'fit',
  m: 'menu', t: 'run-to', c: 'unchain-preview', u: 'unchain', g: 'device', s: 'export-svg',
  n: 'export-png', d: 'export-dot', l: 'export-log', h: 'export-html', '+': 'zoom-in',
  '=': 'zoom-in', '-': 'zoom-out', '/': 'search', Escape: 'close-menu',
};
// How long a page waits for the kernel's answer before it says that none came.
const KERNEL_WAIT_MS = 4000;
const LEGEND = [
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
  for (const [k, v] of [['x1', '1'], ['y1', '5'], ['x2', '27'], ['y2', '5']]) line.setAttribute(k, v);
  svg.appendChild(line);
  item.append(svg, el('span', '', text));
  return item;
}

function legend() {
  const box = el('div', 'agl-legend');
  box.setAttribute('aria-label', 'legend');
  for (const [cls, text] of LEGEND) {
    const item = el('span');
    const sw = el('span', 'agl-swatch');
    sw.style.background = `var(--${cls})`;
    item.append(sw, el('span', '', text));
    box.appendChild(item);
  }
  box.append(el('span', '', '\u25B6 runs next \u00B7 \u2713 ran'),
    el('span', '', '\u2014 no grad yet'), el('span', '', 'italic: freed by the engine, value as recorded'),
    lineKey('agl-key-grad', 'dashed pink: made by backward (grad-of-grad)'),
    lineKey('agl-key-cut', 'dotted: cut by unchain_backward()'));
  return box;
}

function render({ model, el: host }) {
  const style = el('style');
  style.textContent = STYLE + LENS_STYLE;
  const root = el('div', 'agl-root');
  root.tabIndex = 0;
  root.dataset.aglReady = '0';
  root.dataset.aglLayouts = '0';
  // JupyterLab: keys pressed inside the widget are the widget's, not notebook shortcuts.
  root.setAttribute('data-lm-suppress-shortcuts', 'true');
  root.setAttribute('aria-label', 'autograd_lab graph view');
  const tools = buildToolbar();
  const stage = el('div', 'agl-stage');
  const graphBox = el('div', 'agl-graph');
  const side = el('div', 'agl-side');
  const status = el('div', 'agl-status');
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  const ledgerBox = el('div', 'agl-ledger');
  ledgerBox.setAttribute('aria-label', 'step ledger');
  const inspect = el('div', 'agl-inspect');
  inspect.setAttribute('aria-label', 'inspect panel');
  inspect.dataset.nodeId = '';
  const zoomBar = el('div', 'agl-zoom');
  for (const [action, label, name, key] of [['zoom-in', '+', 'Zoom in', '+'],
    ['zoom-out', '\u2212', 'Zoom out', '-']]) {
    const b = el('button', '', label);
    b.type = 'button';
    b.dataset.action = action;
    b.setAttribute('aria-label', name);
    b.title = `${name} (key ${key})`;
    zoomBar.appendChild(b);
  }
  graphBox.appendChild(zoomBar);
  // The ledger and the inspect panel scroll together under the status: neither is a
  // small box with a scrollbar of its own that cuts what it holds.
  const sideScroll = el('div', 'agl-side-scroll');
  sideScroll.append(ledgerBox, inspect);
  side.append(status, sideScroll);
  stage.append(graphBox, side);
  // Where this widget draws, the static picture Python put after it for saved notebooks
  // (an output carrying the same static_key) is hidden: one graph on screen, not two.
  // A <style> in the page applies page-wide; it leaves with the widget.
  const hideStatic = el('style');
  const syncStaticKey = () => {
    const key = String(model.get('static_key') || '').replace(/[^0-9a-f]/g, '');
    const copy = `[data-agl-static="${key}"]`;
    hideStatic.textContent = key ? `${copy}, .jp-OutputArea-child:has(${copy}) `
      + '{ display: none !important; }' : '';
  };
  syncStaticKey();
  root.append(style, hideStatic, tools.bar, stage, legend());
  host.appendChild(root);

  const send = (msg) => model.send(msg);
  let layouts = 0;
  const hint = el('span', 'agl-hint');
  root.querySelector('.agl-legend').prepend(hint);
  // Is a kernel behind this view?  One saved with its notebook (JupyterLab restoring the
  // saved widget state, nbconvert's HTML with the widget scripts, nbviewer, Jupyter Book)
  // draws from that state, but nothing answers its buttons: say so instead of letting
  // Step do nothing.  A live kernel answers 'hello' as soon as it is idle.
  const noKernel = el('span', 'agl-no-kernel', 'No kernel answers this view yet: the '
    + 'kernel is busy, or the view was saved in an earlier session (run its cell again '
    + 'to step it).');
  noKernel.setAttribute('role', 'status');
  noKernel.hidden = true;
  root.querySelector('.agl-legend').prepend(noKernel);
  root.dataset.aglKernel = 'asked';
  const unanswered = setTimeout(() => {
    noKernel.hidden = false;
    root.dataset.aglKernel = 'silent';
  }, KERNEL_WAIT_MS);
  const graph = new GraphStage(graphBox, {
    hint,
    onClick: (id) => send({ type: 'select', id }),
    onReady: () => {
      layouts += 1;
      root.dataset.aglLayouts = String(layouts);
      root.dataset.aglReady = '1';
    },
    onError: (error) => console.warn('autograd_lab widget: layout failed', error),
  });

  const syncHeight = () => {
    stage.style.height = `${model.get('height')}px`;
  };
  const syncGraph = () => graph.show({
    dot: model.get('dot'), key: model.get('structure_key'), nodes: model.get('nodes') || {},
    focus: model.get('focus'),
  });
  const status_ = () => model.get('status') || {};
  const guess = (values) => send({ type: 'guess', value: values });
  let shownPosition = null;
  // A control that had the focus and is now disabled or gone (Step after Run to end,
  // a guess box after the last step) would drop it to the page: then Home, Back and
  // every other key would reach JupyterLab, not the view.  Keep it on a control that works.
  const keepFocus = (had) => {
    const at = document.activeElement;
    if (!had || (at && at !== document.body && root.contains(at) && !at.disabled)) return;
    const next = ['step', 'back', 'reset'].map((a) => tools.buttons[a]).find((b) => !b.disabled);
    (next || root).focus();
  };
  const syncStatus = () => {
    const st = status_();
    const had = root.contains(document.activeElement);
    renderStatus(status, st);
    syncToolbar(tools, st);
    tools.buttons['run-to'].disabled = !((model.get('panel') || {}).actions || []).includes('run-to');
    renderLedger(ledgerBox, model.get('ledger') || {}, st, guess);
    keepFocus(had);
    if (st.position !== shownPosition) {  // a new step: its explanation from the top
      shownPosition = st.position;
      sideScroll.scrollTop = 0;
    }
  };
  const syncPanel = () => {
    const panel = model.get('panel') || {};
    renderInspect(inspect, panel, {
      onLink: (id) => send({ type: 'select', id }),
      onRunTo: (id) => send({ type: 'run-to', id: `n${id}` }),
    });
    tools.buttons['run-to'].disabled = !(panel.actions || []).includes('run-to');
    const variable = panel.category === 'variable';
    tools.buttons.unchain.disabled = !variable;
    tools.buttons['unchain-preview'].disabled = !variable;
  };
  const syncDevice = () => {
    const available = model.get('gpu_available');
    const reason = model.get('gpu_reason') || '';
    const onGpu = String(model.get('device') || '').startsWith('@cupy');
    const b = tools.buttons.device;
    b.textContent = onGpu ? 'Move to CPU' : 'Move to GPU';
    b.disabled = !available && !onGpu;
    const name = b.disabled ? `GPU unavailable: ${reason}` : `${b.textContent}: every variable of the graph`;
    b.title = `${name} (key G)`;
    b.setAttribute('aria-label', name);
    tools.reason.textContent = b.disabled ? `GPU unavailable: ${reason}` : `on ${model.get('device')}`;
  };
  const syncOptions = () => {
    const opts = model.get('options') || {};
    const { inputs } = tools;
    if (document.activeElement !== inputs.search) inputs.search.value = opts.search || '';
    inputs.depth.value = opts.max_depth ? String(opts.max_depth) : '';
    inputs.hideConst.checked = Boolean(opts.hide_constants);
    inputs.showValues.checked = Boolean(opts.show_values);
    inputs.lens.checked = Boolean(opts.gradient_lens);
    inputs.direction.value = opts.highlight_direction || 'none';
    inputs.rankdir.value = opts.rankdir === 'LR' ? 'LR' : 'TB';
    const orders = model.get('orders') || [0];
    inputs.order.replaceChildren();
    const all = el('option', '', 'all orders');
    all.value = '';
    inputs.order.appendChild(all);
    for (const k of orders) {
      const opt = el('option', '', k === 0 ? 'forward only' : `up to order ${k}`);
      opt.value = String(k);
      inputs.order.appendChild(opt);
    }
    inputs.order.value = opts.max_order === null || opts.max_order === undefined ? '' : String(opts.max_order);
  };

  const setOption = (name, value) => send({ type: 'options', options: { [name]: value } });
  const { inputs } = tools;
  inputs.search.addEventListener('change', () => setOption('search', inputs.search.value));
  inputs.depth.addEventListener('change', () => setOption('max_depth', inputs.depth.value ? Number(inputs.depth.value) : 0));
  inputs.order.addEventListener('change', () => setOption('max_order', inputs.order.value === '' ? null : Number(inputs.order.value)));
  inputs.hideConst.addEventListener('change', () => setOption('hide_constants', inputs.hideConst.checked));
  inputs.showValues.addEventListener('change', () => setOption('show_values', inputs.showValues.checked));
  inputs.lens.addEventListener('change', () => setOption('gradient_lens', inputs.lens.checked));
  inputs.direction.addEventListener('change', () => setOption('highlight_direction', inputs.direction.value));
  inputs.rankdir.addEventListener('change', () => setOption('rankdir', inputs.rankdir.value));

  const act = (action) => {
    const b = tools.buttons[action];
    if (b && b.disabled) return;
    if (action === 'fit') graph.fit();
    else if (action === 'zoom-in') graph.zoomBy(1.25);
    else if (action === 'zoom-out') graph.zoomBy(0.8);
    else if (action === 'menu') openMenu(tools, tools.panel.hidden);
    else if (action === 'close-menu') openMenu(tools, false);
    else if (action === 'search') {
      openMenu(tools, true);
      inputs.search.focus();
    } else if (action === 'run-to') {
      const id = model.get('selected_id');
      if (id !== null && id !== undefined) send({ type: 'run-to', id: `n${id}` });
    } else if (action === 'export-svg') exportSvg(graph.svgText());
    else if (action === 'export-png') exportPng(graph.svgText());
    else send({ type: 'action', action });
  };
  root.addEventListener('click', (event) => {
    const b = event.target.closest && event.target.closest('button[data-action]');
    if (!b || !root.contains(b) || b.disabled || b.dataset.action === 'guess') return;
    if (inspect.contains(b)) return;  // the panel's own buttons act themselves
    act(b.dataset.action);
  });
  root.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = event.target && event.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    const action = KEYS[event.key] || KEYS[event.key.toLowerCase()];
    if (!action) return;
    event.preventDefault();
    event.stopPropagation();
    act(action);
  });
  // Python asks the browser to save files it made (event log JSON, HTML replay).
  const onCustom = (msg) => {
    if (msg && msg.type === 'hello') {
      clearTimeout(unanswered);
      noKernel.hidden = true;
      root.dataset.aglKernel = 'live';
    } else if (msg && msg.type === 'download' && typeof msg.content === 'string') {
      downloadBlob(msg.content, String(msg.filename || 'download.txt'), String(msg.mime || 'text/plain'));
    }
  };

  const handlers = [
    ['change:dot', syncGraph], ['change:nodes', syncGraph], ['change:status', syncStatus],
    ['change:ledger', syncStatus], ['change:panel', syncPanel],
    ['change:gpu_available', syncDevice], ['change:gpu_reason', syncDevice],
    ['change:device', syncDevice], ['change:options', syncOptions], ['change:orders', syncOptions],
    ['change:height', syncHeight], ['change:static_key', syncStaticKey],
    ['msg:custom', onCustom],
  ];
  for (const [name, fn] of handlers) model.on(name, fn);
  syncHeight();
  syncPanel();
  syncStatus();
  syncDevice();
  syncOptions();
  syncGraph();
  send({ type: 'hello' });
  return () => {
    clearTimeout(unanswered);
    for (const [name, fn] of handlers) model.off(name, fn);
    if (graph.observer) graph.observer.disconnect();
  };
}

export default { render };
