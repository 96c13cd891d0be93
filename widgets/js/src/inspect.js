// The inspect panel: what a student asks first (name, value, grad, shape), then a fold
// with the internals (rank, order, ids, states, scope, grad_var).
import { el } from './dom.js';
import { PALETTE } from './protocol.js';

// A heatmap of a large array (Python sends a downsampled grid of values in [0, 1]).
function heatmap(data) {
  const rows = Number(data.rows) || 0;
  const cols = Number(data.cols) || 0;
  const values = Array.isArray(data.values) ? data.values : [];
  const canvas = el('canvas', 'agl-heatmap');
  const cell = Math.max(2, Math.floor(160 / Math.max(rows, cols, 1)));
  canvas.width = cols * cell;
  canvas.height = rows * cell;
  const ctx = canvas.getContext && canvas.getContext('2d');
  if (!ctx) return canvas;
  for (let r = 0; r < rows; r += 1) {
    for (let c = 0; c < cols; c += 1) {
      const v = Number(values[r * cols + c]);
      if (!Number.isFinite(v)) {
        ctx.fillStyle = PALETTE['non-finite'];  // NaN / inf stand out
      } else {
        const t = Math.min(1, Math.max(0, v));
        ctx.fillStyle = `rgb(${Math.round(255 * t)}, ${Math.round(80 + 100 * (1 - Math.abs(2 * t - 1)))}, ${Math.round(255 * (1 - t))})`;
      }
      ctx.fillRect(c * cell, r * cell, cell, cell);
    }
  }
  canvas.title = `${data.label || ''} heatmap, colour scale ${data.min} .. ${data.max}`;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', canvas.title);
  return canvas;
}

function table(rows, cls) {
  const t = el('table', `agl-rows ${cls}`);
  for (const row of rows || []) {
    if (!Array.isArray(row) || row.length < 2) continue;
    const tr = el('tr');
    tr.append(el('th', '', row[0]), el('td', row[2] || '', row[1]));
    t.appendChild(tr);
  }
  return t;
}

export function renderInspect(box, panel, { onLink, onRunTo }) {
  box.replaceChildren();
  box.dataset.nodeId = panel && panel.id !== undefined && panel.id !== null ? String(panel.id) : '';
  if (!panel || !panel.title) {
    box.appendChild(el('div', 'agl-empty', 'Click a node to inspect it.'));
    return;
  }
  box.appendChild(el('div', 'agl-title', panel.title));
  if (panel.subtitle) box.appendChild(el('div', 'agl-subtitle', panel.subtitle));
  box.appendChild(table(panel.main, 'agl-main'));
  for (const map of panel.heatmaps || []) box.appendChild(heatmap(map));
  const actions = el('div', 'agl-links');
  if ((panel.actions || []).includes('run-to')) {
    const b = el('button', 'agl-primary', 'Run to here');
    b.type = 'button';
    b.dataset.action = 'run-to';
    b.setAttribute('aria-label', 'Run to here: run backward until this function is next');
    b.title = 'Run to here: run backward until this function is next (key T)';
    b.addEventListener('click', () => onRunTo(panel.id));
    actions.appendChild(b);
  }
  for (const link of panel.links || []) {
    const a = el('button', 'agl-link', link.label);
    a.type = 'button';
    a.dataset.target = String(link.id);
    a.title = `Inspect ${link.label}`;
    a.addEventListener('click', () => onLink(String(link.id)));
    actions.appendChild(a);
  }
  if (actions.childNodes.length) box.appendChild(actions);
  if ((panel.details || []).length) {
    const fold = el('details', 'agl-details');
    fold.append(el('summary', '', 'Internals: rank, order, id, states, scope'),
      table(panel.details, 'agl-internals'));
    box.appendChild(fold);
  }
  if (panel.note) box.appendChild(el('div', 'agl-note', panel.note));
}
