// What the student does on the page: keys and clicks become actions; the page does the
// view's own (zoom, fit, menus, SVG and PNG) and sends the kernel's to it.
import { exportPng, exportSvg } from './export.js';
import { handBack, keepFocusOnClick, keepPlainKey, markFocused, trapTab } from './keys.js';
import { isKernelAction } from './messages.js';
import { KEYS, PAN_KEYS } from './protocol.js';
import { openMenu } from './toolbar.js';


function pageActions(model, tools, graph, send) {
  const runToSelected = () => {
    const id = model.get('selected_id');
    if (id !== null && id !== undefined) send.runTo(id);
  };
  return {
    fit: () => graph.fit(),
    'fit-width': () => graph.fitWidth(),
    'zoom-in': () => graph.zoomBy(1.25),
    'zoom-out': () => graph.zoomBy(0.8),
    menu: () => openMenu(tools, tools.panel.hidden),
    'close-menu': () => openMenu(tools, false),
    search: () => {
      openMenu(tools, true);
      tools.inputs.search.focus();
    },
    'run-to': runToSelected,
    'export-svg': () => exportSvg(graph.svgText()),
    'export-png': () => exportPng(graph.svgText()),
    // the menu's checkbox, ticked as if clicked: one path for key and mouse
    'gradient-lens': () => {
      const box = tools.inputs.lens;
      box.checked = !box.checked;
      box.dispatchEvent(new Event('change'));
    },
  };
}

// The menu's fields: each change sets one drawing option.
function bindOptionInputs(inputs, send) {
  const number = (input) => (input.value ? Number(input.value) : 0);
  const orNull = (input) => (input.value === '' ? null : Number(input.value));
  const bindings = [
    [inputs.search, 'search', (input) => input.value],
    [inputs.depth, 'max_depth', number],
    [inputs.order, 'max_order', orNull],
    [inputs.hideConst, 'hide_constants', (input) => input.checked],
    [inputs.showValues, 'show_values', (input) => input.checked],
    [inputs.lens, 'gradient_lens', (input) => input.checked],
    [inputs.direction, 'highlight_direction', (input) => input.value],
    [inputs.rankdir, 'rankdir', (input) => input.value],
  ];
  for (const [input, option, read] of bindings) {
    input.addEventListener('change', () => send.setOption(option, read(input)));
  }
}

// Wire the page; returns `act(action)` (what a button or key does).
export function bindInput(model, page, graph, send) {
  const { root, tools, inspect } = page;
  const own = pageActions(model, tools, graph, send);
  const act = (action) => {
    const b = tools.buttons[action];
    if (b && b.disabled) return;
    if (own[action]) own[action]();
    else if (isKernelAction(action)) send.action(action);
  };
  bindOptionInputs(tools.inputs, send);
  // '/' search, then Enter: the kernel selects the next node that matches (as a click
  // does) and the page brings it into view; the stage keeps the focus for the arrow keys
  tools.inputs.search.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.shiftKey || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    send.find(tools.inputs.search.value);
    openMenu(tools, false);
    page.graphBox.focus({ preventScroll: true });
  });
  root.addEventListener('click', (event) => {
    keepFocusOnClick(root, event);
    const b = event.target.closest && event.target.closest('button[data-action]');
    if (!b || !root.contains(b) || b.disabled || b.dataset.action === 'guess') return;
    if (inspect.contains(b)) return;  // the panel's own buttons act themselves
    act(b.dataset.action);
  });
  root.addEventListener('focusin', (event) => markFocused(root, event));
  root.addEventListener('keydown', (event) => {
    if (event.key === 'Tab' && !(event.ctrlKey || event.metaKey || event.altKey)) {
      event.stopPropagation();
      trapTab(root, event);
      return;
    }
    if (event.key === 'Escape' && !tools.panel.hidden) {  // Esc closes the menu first
      event.preventDefault();
      event.stopPropagation();
      act('close-menu');
      return;
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      handBack(root);
      return;
    }
    keepPlainKey(event);
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = event.target && event.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    // arrows pan the focused stage; with Shift they pan from anywhere in the view
    const pan = PAN_KEYS[event.key];
    if (pan && (event.shiftKey || event.target === page.graphBox)) {
      event.preventDefault();
      graph.pan(pan);
      return;
    }
    const action = KEYS[event.key] || KEYS[event.key.toLowerCase()];
    if (!action) return;
    event.preventDefault();
    act(action);
  });
  return act;
}
