// While the view has the focus its keys are its own.  JupyterLab and Notebook 7 read no
// shortcut whose target is inside an element marked data-lm-suppress-shortcuts (Lumino's
// documented way; layout.js marks the root).  Lumino walks up from the focused element and
// stops at the first one that matches a binding's selector, and command mode's selectors
// end in `:focus`: the focused button itself matches before the walk reaches the root, so
// each element that takes the focus is marked too (markFocused).  The root also stops
// plain keys from bubbling on to the host.  Tab and Shift+Tab go round the view's controls; Esc hands the focus
// back to the notebook cell that holds the view (command mode on that cell in JupyterLab).
// Voila and marimo have no cell shortcuts: the mark and the trap cost them nothing, and
// Esc there only leaves the view.

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), '
  + 'textarea:not([disabled]), summary, a[href], [tabindex]:not([tabindex="-1"])';

function focusables(root) {
  return Array.from(root.querySelectorAll(FOCUSABLE))
    .filter((node) => node !== root && !node.closest('[hidden]') && node.getClientRects().length > 0);
}

// Tab past the last control comes back to the first (Shift+Tab the other way round).
export function trapTab(root, event) {
  const all = focusables(root);
  if (!all.length) return;
  const at = all.indexOf(document.activeElement);
  const next = event.shiftKey ? (at <= 0 ? all.length - 1 : at - 1)
    : (at < 0 || at === all.length - 1 ? 0 : at + 1);
  event.preventDefault();
  all[next].focus();
}

// The cell that holds the view (JupyterLab, Notebook 7), else nothing: leave the view.
export function handBack(root) {
  const cell = root.closest('.jp-Cell');
  if (document.activeElement && root.contains(document.activeElement)) document.activeElement.blur();
  if (!cell) return;
  // focusing the cell node makes it the active cell, in command mode (not its editor)
  if (!cell.hasAttribute('tabindex')) cell.tabIndex = -1;
  cell.focus();
}

// Keys the view has no use for still stop at its root (not Ctrl/Meta/Alt chords: the
// host's own, such as save, are untouched; Lumino skips them anyway inside the mark).
export function keepPlainKey(event) {
  if (!(event.ctrlKey || event.metaKey || event.altKey)) event.stopPropagation();
}

// A click in the view leaves the focus in it (on what was clicked, or the root), even where
// the host moved it to the cell on mousedown: the next key is the view's.
export function keepFocusOnClick(root, event) {
  if (root.contains(document.activeElement) && document.activeElement !== document.body) return;
  const target = event.target && event.target.closest ? event.target.closest(FOCUSABLE) : null;
  (target && root.contains(target) ? target : root).focus({ preventScroll: true });
}

// Whatever takes the focus inside the view carries the mark itself (see the top).
export function markFocused(root, event) {
  const target = event.target;
  if (target && target !== root && root.contains(target) && target.setAttribute
    && !target.hasAttribute('data-lm-suppress-shortcuts')) {
    target.setAttribute('data-lm-suppress-shortcuts', 'true');
  }
}
