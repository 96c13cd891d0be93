// The side panel's top: the status line (fixed height) and the step ledger: what the
// last step did and what the next one will do, numbers filled in.  In predict mode the
// next step's results are boxes the student fills in; Check runs the step and grades it.
import { el } from './dom.js';
import { LEDGER_ROW } from './protocol.js';

const [KEY, VALUE, CLASSES] = LEDGER_ROW;  // a row's fields, named by the kernel

// Text whose `backticked` parts are code: shown as code, without the backticks
// (each part written with textContent, so no text is read as markup).
function withCode(cls, text) {
  const line = el('div', cls);
  String(text).split('`').forEach((part, k) => {
    if (part) line.appendChild(k % 2 ? el('code', 'agl-code', part) : document.createTextNode(part));
  });
  return line;
}

export function renderStatus(box, st) {
  box.replaceChildren();
  box.appendChild(withCode('agl-status-text', st.text || ''));
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
    const tr = el('tr', String(row[CLASSES] || ''));
    // a long name is cut with an ellipsis (whole in the tooltip), never the values
    const th = el('th');
    th.title = String(row[KEY] ?? '');
    th.appendChild(el('span', 'agl-key', row[KEY]));
    tr.append(th, el('td', '', row[VALUE]));
    table.appendChild(tr);
  }
  return table;
}

// One guess box: its label and the input (Enter, or Shift/Ctrl+Enter, checks the guess).
function guessInput(form, label, aria, placeholder, submit) {
  const input = el('input', 'agl-guess');
  input.setAttribute('aria-label', aria);
  input.placeholder = placeholder;
  input.title = 'A number, arithmetic like cos(1) or -1/4, nan, or a list like [1, 2] '
    + '(Enter checks it)';
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.addEventListener('keydown', (event) => {
    // Tab and Esc go on to the view's root (its focus trap, its hand-back to the notebook)
    if (event.key === 'Tab' || event.key === 'Escape') return;
    event.stopPropagation();  // typed keys are the box's, not the widget's shortcuts
    // Enter checks the guess; so do Shift/Ctrl/Meta+Enter, typed out of habit: they
    // never reach the notebook, whose run-the-cell would replace the view and its score.
    if (event.key === 'Enter') {
      event.preventDefault();
      submit();
    }
  });
  const key = el('span', 'agl-key', `${label}:`);
  key.title = label;
  form.append(key, input);
  return input;
}

// The question's boxes: per target its grad, and in the harder mode first the local
// derivative the step will use.  `onGuess(grads, locals)`, locals null unless asked.
function guessBox(st, onGuess) {
  const form = el('div', 'agl-guess-row');
  const labels = st.target_labels || st.targets;
  const locals = st.locals || [];
  const grads = [];
  const asked = [];
  const submit = () => {
    const all = [...asked, ...grads];
    const empty = all.find((i) => !i.value.trim());
    if (empty) {
      empty.focus();
      return;
    }
    onGuess(grads.map((i) => i.value.trim()), locals.length ? asked.map((i) => i.value.trim()) : null);
  };
  labels.forEach((name, k) => {
    const line = el('div', 'agl-guess-line');
    if (locals[k]) {
      asked.push(guessInput(line, locals[k], `your guess for the local derivative ${locals[k]}`,
        locals[k], submit));
    }
    grads.push(guessInput(line, name, `your guess for the grad sent to ${name}`,
      `grad to ${name}`, submit));
    form.appendChild(line);
  });
  // boxes in reading order: what a redraw keeps and where focus comes back
  form.querySelectorAll('input.agl-guess').forEach((input, k) => { input.dataset.target = String(k); });
  const check = el('button', 'agl-primary', 'Check');
  check.type = 'button';
  check.dataset.action = 'guess';
  check.setAttribute('aria-label', 'Check my guess: run the step and grade it');
  check.title = 'Check my guess: run the step and grade it (key Enter)';
  check.addEventListener('click', submit);
  form.appendChild(check);
  return form;
}

// Predict, harder: the rule is left out and the local derivative is guessed too.
function harderToggle(st) {
  const b = el('button', 'agl-link agl-harder', st.harder ? 'Harder: on (local derivatives asked too)'
    : 'Harder: ask the local derivatives too');
  b.type = 'button';
  b.dataset.action = 'harder';
  b.setAttribute('aria-pressed', String(Boolean(st.harder)));
  b.setAttribute('aria-keyshortcuts', 'Shift+P');
  b.title = 'Harder: guess each step\u2019s local derivative too, not filled in (key Shift+P)';
  return b;
}

// The one "Why this function now?" fold: the next step's (else the last's), open or
// closed as the student left it, across steps and Back.
function whyFold(box, text) {
  const why = el('details', 'agl-why');
  why.open = box.dataset.whyOpen === '1';
  why.addEventListener('toggle', () => { box.dataset.whyOpen = why.open ? '1' : ''; });
  why.append(el('summary', '', 'Why this function now?'), el('p', '', text));
  return why;
}

export function renderLedger(box, ledger, st, onGuess) {
  const focused = document.activeElement;
  const inBox = focused && box.contains(focused) && focused.classList.contains('agl-guess');
  // What was typed survives a redraw of the same question (an error, a score update),
  // never a new step: each step's boxes start empty.
  const question = `${st.position}:${(st.targets || []).join(',')}:${(st.locals || []).join(',')}`;
  const same = box.dataset.question === question;
  const typed = same ? Array.from(box.querySelectorAll('input.agl-guess')).map((i) => i.value) : null;
  const focusAt = inBox ? Number(focused.dataset.target) || 0 : -1;
  box.dataset.question = question;
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
  const explained = sections.find((sec) => sec.kind === 'next' && sec.why)
    || sections.find((sec) => sec.why);
  for (const sec of sections) {
    const part = el('section', `agl-sec agl-sec-${sec.kind}`);
    part.appendChild(el('h4', '', sec.title));
    if (sec.verdict) {
      const right = sec.verdict.startsWith('Right');
      const revealed = sec.verdict.startsWith('Revealed');
      part.appendChild(el('div', `agl-verdict ${right ? 'agl-right' : revealed ? '' : 'agl-wrong'}`,
        `${right ? '\u2713 ' : revealed ? '' : '\u2717 '}${sec.verdict}`));
      if (!right && st.predict && st.can_back) {  // Back brings this step's question again
        const again = el('button', 'agl-link', 'Try this step again');
        again.type = 'button';
        again.dataset.action = 'back';
        again.setAttribute('aria-label', 'Try this step again: back to its question (the score keeps your first try)');
        again.title = 'Back to this step\u2019s question; the score keeps your first try (key \u2190)';
        // the question that comes back gets the focus in its first box
        again.addEventListener('click', () => { box.dataset.focusGuess = question; });
        part.appendChild(again);
      }
      if (!right && st.can_reveal) {  // the number is held back
        const show = el('button', 'agl-link', 'Show the answer');
        show.type = 'button';
        show.dataset.action = 'reveal';
        show.title = 'Show the right numbers of this step (after a retry they show anyway; key A)';
        show.setAttribute('aria-keyshortcuts', 'A');
        part.appendChild(show);
      }
    }
    part.appendChild(rowsTable(sec.rows));
    if (sec.kind === 'next' && st.predict && (st.targets || []).length) {
      part.appendChild(harderToggle(st));
      part.appendChild(guessBox(st, onGuess));
    }
    if (sec === explained) part.appendChild(whyFold(box, sec.why));
    box.appendChild(part);
  }
  const inputs = box.querySelectorAll('input.agl-guess');
  if (typed) typed.forEach((v, k) => { if (inputs[k]) inputs[k].value = v; });
  if (focusAt >= 0 && inputs.length) inputs[same ? Math.min(focusAt, inputs.length - 1) : 0].focus();
  else if (box.dataset.focusGuess && box.dataset.focusGuess !== question && inputs.length) {
    delete box.dataset.focusGuess;  // "Try this step again": its question is back
    inputs[0].focus();
  }
}
