// The side panel's top: the status line (fixed height) and the step ledger: what the
// last step did and what the next one will do, numbers filled in.  In predict mode the
// next step's results are boxes the student fills in; Check runs the step and grades it.
import { el, keepKeys } from './dom.js';

export function renderStatus(box, st) {
  box.replaceChildren();
  box.appendChild(el('div', 'agl-status-text', st.text || ''));
  const note = st.message || st.notice || st.note || '';
  if (note) {
    const line = el('div', `agl-status-note${st.message || st.notice ? ' agl-warn' : ''}`, note);
    line.title = note;
    box.appendChild(line);
  }
}

function rowsTable(rows) {
  const table = el('table', 'agl-rows');
  for (const row of rows || []) {
    if (!row || typeof row !== 'object') continue;
    const tr = el('tr', String(row.c || ''));
    tr.append(el('th', '', row.k), el('td', '', row.v));
    table.appendChild(tr);
  }
  return table;
}

function guessBox(targets, onGuess) {
  const form = el('div', 'agl-guess-row');
  const inputs = targets.map((name, k) => {
    const input = keepKeys(el('input', 'agl-guess'));
    input.setAttribute('aria-label', `your guess for the grad sent to ${name}`);
    input.placeholder = `grad to ${name}`;
    input.dataset.target = String(k);
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') submit();
    });
    form.append(el('span', '', `${name}:`), input);
    return input;
  });
  const check = el('button', 'agl-primary', 'Check');
  check.type = 'button';
  check.dataset.action = 'guess';
  check.setAttribute('aria-label', 'Check my guess: run the step and grade it');
  check.title = 'Check my guess: run the step and grade it (key Enter)';
  function submit() {
    const values = inputs.map((i) => i.value.trim());
    if (values.some((v) => !v)) {
      inputs.find((i) => !i.value.trim()).focus();
      return;
    }
    onGuess(values);
  }
  check.addEventListener('click', submit);
  form.appendChild(check);
  return form;
}

export function renderLedger(box, ledger, st, onGuess) {
  const focused = document.activeElement;
  const keep = focused && box.contains(focused) && focused.classList.contains('agl-guess');
  const typed = keep ? Array.from(box.querySelectorAll('input.agl-guess')).map((i) => i.value) : null;
  box.replaceChildren();
  const sections = ((ledger && ledger.sections) || []).slice();
  // in predict mode the question (the next step) comes first
  if (st.predict && sections.length > 1 && sections[sections.length - 1].kind === 'next') {
    sections.unshift(sections.pop());
  }
  if (!sections.length) {
    box.appendChild(el('div', 'agl-empty', st.done ? 'No step to explain here.'
      : 'Press Step: each function\u2019s backward will be explained here.'));
  }
  for (const sec of sections) {
    const part = el('section', `agl-sec agl-sec-${sec.kind}`);
    part.appendChild(el('h4', '', sec.title));
    if (sec.verdict) {
      const right = sec.verdict.startsWith('Right');
      const revealed = sec.verdict.startsWith('Revealed');
      part.appendChild(el('div', `agl-verdict ${right ? 'agl-right' : revealed ? '' : 'agl-wrong'}`,
        `${right ? '\u2713 ' : revealed ? '' : '\u2717 '}${sec.verdict}`));
    }
    part.appendChild(rowsTable(sec.rows));
    if (sec.kind === 'next' && st.predict && st.live && (st.targets || []).length) {
      part.appendChild(guessBox(st.targets, onGuess));
    }
    if (sec.why) {
      const why = el('details', 'agl-why');
      why.append(el('summary', '', 'Why this function now?'), el('p', '', sec.why));
      part.appendChild(why);
    }
    box.appendChild(part);
  }
  if (typed) {
    const inputs = box.querySelectorAll('input.agl-guess');
    typed.forEach((v, k) => { if (inputs[k]) inputs[k].value = v; });
    if (inputs[0]) inputs[0].focus();
  }
}
