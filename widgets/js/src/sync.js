// The model's synced traits written onto the page: one function per part of the page,
// each run once at the start and again on every change of the traits it reads.
import { cellKeeper } from './cells.js';
import { el } from './dom.js';
import { renderInspect } from './inspect.js';
import { renderLedger, renderStatus } from './ledger.js';
import { OPTION_DEFAULTS } from './protocol.js';
import { syncToolbar } from './toolbar.js';

// A control that had the focus and is now disabled or gone (Step after Run to end, a
// guess box after the last step) would drop it to the page: then Home, Back and every
// other key would reach JupyterLab, not the view.  Keep it on a control that works.
function keepFocus(page, had) {
  const at = document.activeElement;
  if (!had || (at && at !== document.body && page.root.contains(at) && !at.disabled)) return;
  const next = ['step', 'back', 'reset'].map((a) => page.tools.buttons[a]).find((b) => !b.disabled);
  (next || page.root).focus();
}

function orderChoices(select, orders) {
  select.replaceChildren();
  const all = el('option', '', 'all orders');
  all.value = '';
  select.appendChild(all);
  for (const order of orders) {
    const opt = el('option', '', order === 0 ? 'forward only' : `up to order ${order}`);
    opt.value = String(order);
    select.appendChild(opt);
  }
}

export function pageSyncers(model, page, graph, send) {
  const { tools } = page;
  const runToAllowed = (panel) => (panel.actions || []).includes('run-to');
  let shownPosition = null;
  const syncStaticKey = () => {
    const key = String(model.get('static_key') || '').replace(/[^0-9a-f]/g, '');
    const copy = `[data-agl-static="${key}"]`;
    // A <style> in the page applies page-wide; it leaves with the widget.
    page.hideStatic.textContent = key ? `${copy}, .jp-OutputArea-child:has(${copy}) `
      + '{ display: none !important; }' : '';
  };
  const syncHeight = () => {
    page.stage.style.height = `${model.get('height')}px`;
  };
  const keepCells = cellKeeper(model, send.resync);
  const syncGraph = () => {
    const { nodes, stale } = keepCells();
    // stale: a patch was missed; the numbers hide until the kernel's answer (cells.js)
    page.root.dataset.aglStale = stale ? '1' : '0';
    page.resync.hidden = !stale;
    graph.show({ dot: model.get('dot'), key: model.get('structure_key'), nodes,
      focus: model.get('focus') ?? model.get('centre') });
  };
  const syncFocus = () => graph.frameOn(model.get('focus') ?? model.get('centre'));
  // a node selected (a click, or '/' search and Enter) is brought into view
  const syncSelected = () => {
    const id = model.get('selected_id');
    if (id !== null && id !== undefined) graph.reveal(`n${id}`);
  };
  const syncStatus = () => {
    const status = model.get('status') || {};
    const had = page.root.contains(document.activeElement);
    renderStatus(page.status, status);
    syncToolbar(tools, status);
    tools.buttons['run-to'].disabled = !runToAllowed(model.get('panel') || {});
    renderLedger(page.ledger, model.get('ledger') || {}, status, send.guess);
    keepFocus(page, had);
    if (status.position !== shownPosition) {  // a new step: its explanation from the top
      shownPosition = status.position;
      page.sideScroll.scrollTop = 0;
    }
  };
  const syncPanel = () => {
    const panel = model.get('panel') || {};
    renderInspect(page.inspect, panel, { onLink: send.select, onRunTo: send.runTo });
    tools.buttons['run-to'].disabled = !runToAllowed(panel);
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
    const opts = { ...OPTION_DEFAULTS, ...(model.get('options') || {}) };
    const { inputs } = tools;
    if (document.activeElement !== inputs.search) inputs.search.value = opts.search || '';
    inputs.depth.value = opts.max_depth ? String(opts.max_depth) : '';
    inputs.hideConst.checked = Boolean(opts.hide_constants);
    inputs.showValues.checked = Boolean(opts.show_values);
    inputs.lens.checked = Boolean(opts.gradient_lens);
    page.lensLegend.hidden = !opts.gradient_lens;
    inputs.direction.value = opts.highlight_direction;
    inputs.rankdir.value = opts.rankdir === 'LR' ? 'LR' : 'TB';
    orderChoices(inputs.order, model.get('orders') || [0]);
    inputs.order.value = opts.max_order === null || opts.max_order === undefined ? '' : String(opts.max_order);
  };
  // trait -> what shows it
  return {
    dot: syncGraph, nodes: syncGraph, nodes_version: syncGraph, nodes_patch: syncGraph, focus: syncFocus, selected_id: syncSelected, status: syncStatus, ledger: syncStatus, panel: syncPanel,
    gpu_available: syncDevice, gpu_reason: syncDevice, device: syncDevice,
    options: syncOptions, orders: syncOptions, height: syncHeight, static_key: syncStaticKey,
  };
}
