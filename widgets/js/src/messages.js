// What the page sends the kernel: one function per message of the protocol (the kinds,
// the actions and the options are the kernel's, from the generated protocol.js; the
// kernel checks every message again, see autograd_lab_widget/messages.py).
import { ACTIONS, BROWSER_MESSAGES, KERNEL_MESSAGES, OPTION_DEFAULTS } from './protocol.js';

function checked(list, name, what) {
  if (!list.includes(name)) throw new Error(`autograd_lab widget: no ${what} '${name}' in the protocol`);
  return name;
}

const message = (kind, fields = {}) => ({ type: checked(BROWSER_MESSAGES, kind, 'message'), ...fields });

export function messenger(model) {
  const send = (msg) => model.send(msg);
  return {
    hello: () => send(message('hello')),
    resync: () => send(message('resync')),
    select: (id) => send(message('select', { id })),
    find: (text) => send(message('find', { text: String(text) })),
    runTo: (nodeId) => send(message('run-to', { id: `n${nodeId}` })),
    // the harder mode's guess carries the local derivatives too
    guess: (values, locals) => send(message('guess', locals ? { value: values, local: locals } : { value: values })),
    action: (action) => send(message('action', { action: checked(ACTIONS, action, 'action') })),
    setOption: (name, value) => {
      send(message('options', { options: { [checked(Object.keys(OPTION_DEFAULTS), name, 'option')]: value } }));
    },
  };
}

// Whether a message from the kernel is of this kind.
export const isKernelMessage = (msg, kind) => Boolean(msg) && msg.type === checked(KERNEL_MESSAGES, kind, 'kernel message');

// Whether the kernel does this action (the others the page does itself: zoom, menus, SVG).
export const isKernelAction = (action) => ACTIONS.includes(action);
