// Browser side of autograd_lab_widget.GraphView (an anywidget ES module).
//
// Python owns the truth (the engine, the event log, the stepping model, the DOT); this
// module builds the page (layout.js), writes the model's traits onto it (sync.js), lays
// the DOT out (graph.js) and sends the student's actions back (input.js, messages.js).
// It uses only anywidget's `model` and `el`: no host-specific API, so it runs wherever
// anywidget does.  The contract with the kernel is protocol.js, generated from Python.
import { downloadBlob } from './export.js';
import { GraphStage } from './graph.js';
import { bindInput } from './input.js';
import { awaitKernel } from './kernel.js';
import { buildPage } from './layout.js';
import { isKernelMessage, messenger } from './messages.js';
import { pageSyncers } from './sync.js';

function render({ model, el: host }) {
  const page = buildPage();
  host.appendChild(page.root);
  const send = messenger(model);
  const kernel = awaitKernel(page.root, page.noKernel);
  const graph = new GraphStage(page.graphBox, {
    hint: page.hint,
    onClick: send.select,
    onReady: () => {
      page.root.dataset.aglLayouts = String(Number(page.root.dataset.aglLayouts) + 1);
      page.root.dataset.aglReady = '1';
    },
    onError: (error) => console.warn('autograd_lab widget: layout failed', error),
  });
  bindInput(model, page, graph, send);
  // The kernel answers 'hello' and asks the page to save files it made (log, replay).
  const onCustom = (msg) => {
    if (isKernelMessage(msg, 'hello')) kernel.answered();
    else if (isKernelMessage(msg, 'download') && typeof msg.content === 'string') {
      downloadBlob(msg.content, String(msg.filename || 'download.txt'), String(msg.mime || 'text/plain'));
    }
  };
  const syncers = pageSyncers(model, page, graph, send);
  const handlers = [...Object.entries(syncers).map(([trait, sync]) => [`change:${trait}`, sync]),
    ['msg:custom', onCustom]];
  for (const [name, fn] of handlers) model.on(name, fn);
  for (const sync of new Set(['height', 'static_key', 'panel', 'status', 'device', 'options', 'dot']
    .map((trait) => syncers[trait]))) sync();
  send.hello();
  return () => {
    kernel.stop();
    for (const [name, fn] of handlers) model.off(name, fn);
    if (graph.observer) graph.observer.disconnect();
  };
}

export default { render };
