// The inspect panel: built from Python's payload with textContent only (names may be hostile).

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

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
        ctx.fillStyle = '#ff00ff';  // NaN / inf stand out
      } else {
        const t = Math.min(1, Math.max(0, v));
        ctx.fillStyle = `rgb(${Math.round(255 * t)}, ${Math.round(80 + 100 * (1 - Math.abs(2 * t - 1)))}, ${Math.round(255 * (1 - t))})`;
      }
      ctx.fillRect(c * cell, r * cell, cell, cell);
    }
  }
  canvas.title = `${data.label || ''} heatmap, colour scale ${data.min} .. ${data.max}`;
  return canvas;
}

export function buildPanel(box, panel, onLink) {
  box.replaceChildren();
  box.dataset.nodeId = panel && panel.id !== undefined && panel.id !== null ? String(panel.id) : '';
  if (!panel || !panel.title) {
    box.appendChild(el('div', 'agl-hint', 'Click a node to inspect it.'));
    return;
  }
  box.appendChild(el('div', 'agl-title', panel.title));
  const table = el('table', 'agl-props');
  for (const row of panel.rows || []) {
    if (!Array.isArray(row) || row.length < 2) continue;
    const tr = el('tr');
    tr.append(el('th', '', row[0]), el('td', '', row[1]));
    table.appendChild(tr);
  }
  box.appendChild(table);
  if (panel.data !== undefined && panel.data !== null) {
    box.appendChild(el('div', 'agl-label', 'data'));
    box.appendChild(el('pre', 'agl-data', panel.data));
  }
  if (panel.grad !== undefined && panel.grad !== null) {
    box.appendChild(el('div', 'agl-label', 'grad'));
    box.appendChild(el('pre', 'agl-grad', panel.grad));
  }
  for (const map of panel.heatmaps || []) box.appendChild(heatmap(map));
  if (panel.latex) {
    // Rendered as text: no KaTeX is bundled (keeps the bundle small and offline).
    box.appendChild(el('div', 'agl-label', 'local derivative'));
    box.appendChild(el('pre', 'agl-latex', panel.latex));
  }
  const links = panel.links || [];
  if (links.length) {
    const list = el('div', 'agl-links');
    for (const link of links) {
      const a = el('button', 'agl-link', link.label);
      a.dataset.target = String(link.id);
      a.addEventListener('click', () => onLink(String(link.id)));
      list.appendChild(a);
    }
    box.appendChild(list);
  }
  if (panel.note) box.appendChild(el('div', 'agl-note', panel.note));
}
