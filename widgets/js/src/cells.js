// The cells the page shows, in step with the kernel's versions of them (see
// autograd_lab_widget/patches.py).  `nodes` and `nodes_version` come whole when the
// structure changed or the page asked; a step sends `nodes_patch` ({version, base,
// cells}), applied only onto the version it was made from.  A patch that finds another
// version (one was lost), or a message older than one already seen (out of order),
// makes the page stale: it asks for everything whole ('resync') and shows no number
// until that answer is in, so it never shows a number the kernel no longer holds.
export function cellKeeper(model, askWhole) {
  let cells = {};
  let have = null;     // the version the cells are at
  let fullAt = null;   // the version of the last whole `nodes` taken
  let seen = -1;       // the newest version any message said
  let late = false;    // a message older than one seen came after it
  let asked = null;    // the version seen when the page last asked
  return () => {
    const base = model.get('nodes_version');
    if (typeof base !== 'number') return { nodes: model.get('nodes') || {}, stale: false };
    if (base !== fullAt) {  // the whole cells came (a layout, an answer, the first state)
      fullAt = base;
      if (base >= seen) {
        cells = model.get('nodes') || {};
        have = base;
        late = false;
      }
    }
    const patch = model.get('nodes_patch') || {};
    const version = typeof patch.version === 'number' ? patch.version : base;
    if (version > have && patch.base === have) {
      cells = { ...cells, ...(patch.cells || {}) };
      have = version;
      fullAt = version;
      // the page's copy of the state stays whole (a notebook saved with it reopens right)
      model.set('nodes', cells);
      model.set('nodes_version', version);
    } else if (version < seen) {
      late = true;
    }
    seen = Math.max(seen, base, version);
    const stale = late || have !== seen;
    if (stale && asked !== seen) {
      asked = seen;
      askWhole();
    }
    return { nodes: cells, stale };
  };
}
