// The status area: what runs next and why, the grads flowing in and out (text only).

function line(cls, text) {
  const div = document.createElement('div');
  div.className = cls;
  div.textContent = String(text);
  return div;
}

export function renderStatus(box, st) {
  box.replaceChildren();
  box.appendChild(line('agl-status-text', st.text || ''));
  if (st.reason) box.appendChild(line('agl-reason', st.reason));
  if (Array.isArray(st.frontier) && st.frontier.length) {
    box.appendChild(line('agl-frontier', `frontier: ${st.frontier.join(', ')}`));
  }
  for (const text of st.grad_outputs || []) box.appendChild(line('agl-gy', `in  ${text}`));
  for (const text of st.grad_inputs || []) box.appendChild(line('agl-gx', `out ${text}`));
  if (st.message) box.appendChild(line('agl-message', st.message));
}
