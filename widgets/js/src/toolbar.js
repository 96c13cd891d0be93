// The toolbar: one row of primary controls (Back, Step, Run to end, Reset, Predict), the
// step counter, and a "More" menu with filters, cutting the graph, the device and saving.
import { button, el, keepKeys } from './dom.js';
import { OPTION_CHOICES } from './protocol.js';

// action -> [label, accessible name, key]
const PRIMARY = [
  ['back', '\u2190 Back', 'Back: the previous step in the history', '\u2190'],
  ['step', 'Step \u2192', 'Step: run the next function\u2019s backward', '\u2192'],
  ['run', 'Run to end', 'Run to end: every remaining step', 'End'],
  ['reset', 'Reset', 'Reset: back to the graph before backward (clears the grads)', 'Home'],
];
const SELECTION = [
  ['run-to', 'Run to here', 'Run to here: run backward until the selected function is next', 'T'],
  ['unchain-preview', 'Preview cut', 'Preview: highlight what unchain_backward() of the selected variable cuts', 'C'],
  ['unchain', 'Unchain', 'Unchain: cut the graph behind the selected variable (unchain_backward)', 'U'],
];
const SAVES = [
  ['export-svg', 'SVG', 'Save the drawing as SVG', 'S'],
  ['export-png', 'PNG', 'Save the drawing as PNG', 'N'],
  ['export-dot', 'DOT', 'Save the Graphviz source', 'D'],
  ['export-log', 'Event log', 'Save the event log as JSON', 'L'],
  ['export-html', 'HTML replay', 'Save a self-contained replay (no kernel needed)', 'H'],
];

function labelled(text, input, key) {
  const label = el('label', '', text);
  input.title = key ? `${text} (key ${key})` : text;
  input.setAttribute('aria-label', text);
  if (key) input.setAttribute('aria-keyshortcuts', key);
  label.appendChild(input);
  return label;
}

// The words for an option's choices; the choices themselves are the kernel's.
const CHOICE_WORDS = {
  highlight_direction: { none: 'none', up: 'upstream', down: 'downstream' },
  rankdir: { TB: 'top to bottom', LR: 'left to right' },  // BT and RL: not offered here
};
const choicesOf = (option) => OPTION_CHOICES[option]
  .filter((value) => value in CHOICE_WORDS[option])
  .map((value) => [value, CHOICE_WORDS[option][value]]);

function select(cls, choices) {
  const s = el('select', cls);
  for (const [value, text] of choices) {
    const opt = el('option', '', text);
    opt.value = value;
    s.appendChild(opt);
  }
  return s;
}

export function buildToolbar() {
  const bar = el('div', 'agl-toolbar');
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', 'Backward, one step at a time');
  const buttons = {};
  for (const [action, label, name, key] of PRIMARY) {
    buttons[action] = button(action, label, name, key, action === 'step' ? 'agl-primary' : '');
    bar.appendChild(buttons[action]);
  }
  buttons.predict = button('predict', 'Predict', 'Predict first: guess each step\u2019s gradients before it runs', 'P');
  buttons.predict.setAttribute('aria-pressed', 'false');
  bar.appendChild(buttons.predict);
  const counter = el('span', 'agl-counter', 'Step 0');
  counter.dataset.step = '0';
  counter.setAttribute('aria-live', 'polite');
  const score = el('span', 'agl-score');
  score.hidden = true;
  bar.append(counter, score, el('span', 'agl-spacer'));
  // the zoom buttons, here rather than on the stage, where they would cover nodes
  const zoom = el('span', 'agl-zoom');
  buttons['zoom-out'] = button('zoom-out', '\u2212', 'Zoom out', '-');
  buttons['zoom-in'] = button('zoom-in', '+', 'Zoom in', '+');
  buttons.fit = button('fit', 'Fit', 'Fit: show the whole graph', 'F');
  // Fit width: key W, and offered by Fit's notice (a button here made the toolbar wrap)
  zoom.append(buttons['zoom-out'], buttons['zoom-in'], buttons.fit);
  buttons.menu = button('menu', 'More \u25BE', 'More: filters, cutting the graph, device, save', 'M');
  buttons.menu.setAttribute('aria-haspopup', 'true');
  buttons.menu.setAttribute('aria-expanded', 'false');

  const panel = el('div', 'agl-menu-panel');
  panel.hidden = true;
  panel.setAttribute('role', 'group');
  panel.setAttribute('aria-label', 'More controls');
  const inputs = {
    search: keepKeys(el('input', 'agl-search')),
    depth: keepKeys(el('input', 'agl-depth')),
    order: select('agl-order', [['', 'all orders']]),
    hideConst: el('input', 'agl-hide-constants'),
    showValues: el('input', 'agl-show-values'),
    lens: el('input', 'agl-gradient-lens'),
    direction: select('agl-direction', choicesOf('highlight_direction')),
    rankdir: select('agl-rankdir', choicesOf('rankdir')),
  };
  inputs.search.type = 'search';
  inputs.search.placeholder = 'name, label or id';
  inputs.depth.type = 'number';
  inputs.depth.min = '0';
  inputs.depth.placeholder = 'all';
  inputs.depth.style.width = '5em';
  inputs.hideConst.type = 'checkbox';
  inputs.showValues.type = 'checkbox';
  inputs.lens.type = 'checkbox';
  const row = (...children) => {
    const r = el('div', 'agl-menu-row');
    r.append(...children);
    return r;
  };
  panel.append(
    el('h4', '', 'Find and filter'),
    row(labelled('Search ', inputs.search, '/')),
    row(labelled('Depth ', inputs.depth), labelled('Orders ', inputs.order)),
    row(labelled('Values on nodes ', inputs.showValues), labelled('Hide constants ', inputs.hideConst)),
    row(labelled('Highlight ', inputs.direction), labelled('Layout ', inputs.rankdir)),
    row(labelled('Gradient lens (size of each gradient) ', inputs.lens, 'V')),
    el('h4', '', 'Selected node'),
  );
  const selRow = row();
  for (const [action, label, name, key] of SELECTION) {
    buttons[action] = button(action, label, name, key);
    selRow.appendChild(buttons[action]);
  }
  buttons.device = button('device', 'Move to GPU', 'Move every variable of the graph to the GPU', 'G');
  const reason = el('div', 'agl-device-reason');
  const saveRow = row();
  for (const [action, label, name, key] of SAVES) {
    buttons[action] = button(action, label, name, key);
    saveRow.appendChild(buttons[action]);
  }
  panel.append(selRow, el('h4', '', 'Device'), row(buttons.device), reason,
    el('h4', '', 'Save'), saveRow);
  const menu = el('div', 'agl-menu');
  menu.append(buttons.menu, panel);
  bar.append(zoom, menu);
  return { bar, buttons, inputs, counter, score, panel, reason };
}

export function openMenu(parts, open) {
  parts.panel.hidden = !open;
  parts.buttons.menu.setAttribute('aria-expanded', String(open));
}

// What the toolbar shows for a status payload.
export function syncToolbar(parts, st) {
  const { buttons, counter, score } = parts;
  const step = st.step ?? 0;
  // st.counter: the kernel's words where a count would mislead (a backward already ran)
  counter.textContent = st.counter || (st.total ? `Step ${step} of ${st.total}` : `Step ${step}`);
  counter.dataset.step = String(step);
  counter.dataset.position = String(st.position ?? 0);
  buttons.step.disabled = !st.can_step;
  buttons.run.disabled = Boolean(st.done) && Boolean(st.live);
  buttons.back.disabled = !st.can_back;
  buttons.predict.setAttribute('aria-pressed', String(Boolean(st.predict)));
  const s = st.score || {};
  score.hidden = !st.predict;
  score.textContent = `Score ${s.right ?? 0}/${s.total ?? 0}`;
  score.title = `${s.right ?? 0} right, ${s.wrong ?? 0} wrong, ${s.skipped ?? 0} revealed without a guess`;
}
