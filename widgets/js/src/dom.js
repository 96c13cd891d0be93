// Small DOM helpers.  Text goes in with textContent only: names and values may be hostile.

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// A real <button> with an accessible name, a tooltip naming its key, and its action.
export function button(action, label, name, key, cls = '') {
  const b = el('button', cls, label);
  b.type = 'button';
  b.dataset.action = action;
  b.setAttribute('aria-label', name);
  b.title = key ? `${name} (key ${key})` : name;
  if (key) b.setAttribute('aria-keyshortcuts', key.replace('←', 'ArrowLeft').replace('→', 'ArrowRight'));
  return b;
}

// Keys typed into a text field stay there (not the widget's shortcuts, not the host's);
// Tab and Esc go on to the view's root (its focus trap, its hand-back to the notebook).
export function keepKeys(input) {
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab' && event.key !== 'Escape') event.stopPropagation();
  });
  return input;
}
