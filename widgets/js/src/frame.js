// Framing the stage: where a view opens, what a step or a search brings into view, where
// the overview may sit.  Pure functions of boxes in the viewport's units ({x0, y0, x1, y1},
// one per node) and the stage's size in CSS px: graph.js measures, this module decides.

const PAD = 8;
// offsets tried along each axis: all of them up and down (where a node's rows are cut,
// a few px matter), a sample of them sideways
const MOST_CANDIDATES = { x: 30, y: 240 };

// The offsets along one axis that keep the focus span [f0, f1] whole in the view (or
// centre it where it is bigger than the view) and leave at most half the view blank
// beyond the graph's edges (0 and size).
function axisRange(k, size, view, f0, f1) {
  let lo = PAD - k * f0;
  let hi = view - PAD - k * f1;
  if (lo > hi) {
    lo = view / 2 - (k * (f0 + f1)) / 2;
    hi = lo;
  }
  if (size * k + 2 * PAD <= view) return [lo, hi];
  // a little blank beyond an edge may leave no node cut there (score weighs it)
  const a = Math.max(lo, view / 2 - size * k);
  const b = Math.min(hi, view / 2);
  return a <= b ? [a, b] : [lo, hi];
}

// The offsets worth trying along one axis: the range's ends, the one nearest ``centred``
// (the focus in the middle) and every one at which a node's edge meets the view's edge
// (where what is whole in the view changes).
function candidates(k, view, range, spans, most, centred) {
  const [lo, hi] = range;
  const middle = Math.min(hi, Math.max(lo, centred));
  const out = new Set([lo, hi, middle]);
  for (const [s0, s1] of spans) {
    // a node's edge at the view's edge, inside it or just out of it
    for (const t of [PAD - k * s0, view - PAD - k * s1, -6 - k * s1, view + 6 - k * s0]) {
      if (t > lo && t < hi) out.add(t);
    }
  }
  const all = [...out].sort((p, q) => p - q);
  if (all.length <= most) return all;
  const step = (all.length - 1) / (most - 1);
  return [middle, ...Array.from({ length: most }, (_, i) => all[Math.round(i * step)])];
}

// How well an offset frames the graph.  First, no node cut by the view's top or bottom
// edge (where a node's rows are): each such cut costs more than anything else can gain.
// Then the area of the nodes whole in view, each the more the nearer it is to ``near``
// (the focus), less that of those a side edge cuts, less the bands along the stage's
// edges where no node shows (blank beyond the graph, or where its nodes are elsewhere).
function score(boxes, k, tx, ty, w, h, near) {
  const cutCost = w * h;
  let total = 0;
  let [top, left, bottom, right] = [h, w, 0, 0];
  for (const b of boxes) {
    const x0 = tx + k * b.x0;
    const x1 = tx + k * b.x1;
    const y0 = ty + k * b.y0;
    const y1 = ty + k * b.y1;
    // out of view: 2 px beyond the edge at least (the stage's border, rounding); a
    // sliver in view is cut
    const iw = Math.min(x1, w + 2) - Math.max(x0, -2);
    const ih = Math.min(y1, h + 2) - Math.max(y0, -2);
    if (iw <= 0 || ih <= 0) continue;
    top = Math.min(top, Math.max(0, y0));
    bottom = Math.max(bottom, Math.min(h, y1));
    left = Math.min(left, Math.max(0, x0));
    right = Math.max(right, Math.min(w, x1));
    if (y0 < 0 || y1 > h) {
      total -= 4 * cutCost;
      continue;
    }
    // the nodes next to the focus count more than those far from it; one cut by a side
    // edge counts against (worse than out of view, better than a blank stage)
    const d = Math.hypot(k * ((b.x0 + b.x1) / 2 - near[0]), k * ((b.y0 + b.y1) / 2 - near[1]));
    const whole = x0 >= 0 && x1 <= w;
    total += (whole ? 1 : -1) * (x1 - x0) * (y1 - y0) * (1 + 2 / (1 + (3 * d) / (w + h)));
  }
  if (bottom <= top) return total - w * h;
  return total - w * (top + h - bottom) - h * (left + w - right);
}

// The translate at scale k that keeps ``focus`` (a box, or null: the graph's top) whole in
// a w x h view and shows the most of the rest of the graph whole.
export function bestOffset(boxes, focus, k, w, h, bounds) {
  const f = focus || { x0: 0, y0: 0, x1: bounds.width, y1: Math.min(bounds.height, h / k) };
  const rx = axisRange(k, bounds.width, w, f.x0, f.x1);
  const ry = axisRange(k, bounds.height, h, f.y0, f.y1);
  // the nodes the view can reach (a big graph's far parts cannot change the choice)
  const near = boxes.filter((b) => b.x1 * k + rx[1] > 0 && b.x0 * k + rx[0] < w
    && b.y1 * k + ry[1] > 0 && b.y0 * k + ry[0] < h);
  const cx = (f.x0 + f.x1) / 2;
  const cy = (f.y0 + f.y1) / 2;
  const xs = candidates(k, w, rx, near.map((b) => [b.x0, b.x1]), MOST_CANDIDATES.x, w / 2 - k * cx);
  const ys = candidates(k, h, ry, near.map((b) => [b.y0, b.y1]), MOST_CANDIDATES.y, h / 2 - k * cy);
  let best = null;
  for (const tx of xs) {
    for (const ty of ys) {
      // ties: the focus nearer the middle (the top of the graph without a focus)
      const off = focus ? Math.hypot(tx + k * cx - w / 2, ty + k * cy - h / 2) : -ty;
      const s = score(near, k, tx, ty, w, h, [cx, cy]) - 0.01 * off;
      if (!best || s > best.s) best = { s, tx, ty };
    }
  }
  return [best.tx, best.ty];
}

// The translate that brings ``box`` whole into the view with the least move (null when it
// is in view already); a box bigger than the view is centred.
export function revealOffset(box, t, w, h, margin = 16) {
  const move = (t0, a, b, view) => {
    const s0 = t0 + t.k * a;
    const s1 = t0 + t.k * b;
    if (s1 - s0 > view - 2 * margin) return view / 2 - (t.k * (a + b)) / 2;
    if (s0 < margin) return t0 + margin - s0;
    if (s1 > view - margin) return t0 - (s1 - (view - margin));
    return t0;
  };
  const tx = move(t.x, box.x0, box.x1, w);
  const ty = move(t.y, box.y0, box.y1, h);
  return Math.abs(tx - t.x) < 0.5 && Math.abs(ty - t.y) < 0.5 ? null : [tx, ty];
}

// A corner of the stage where a ow x oh overview covers no node on screen, or null.
// Bottom right first (where it has always been), then the other corners.
export function freeCorner(boxes, t, w, h, ow, oh, gap = 6) {
  const corners = [['right', 'bottom'], ['left', 'bottom'], ['right', 'top'], ['left', 'top']];
  for (const [sx, sy] of corners) {
    const x0 = sx === 'left' ? gap : w - gap - ow;
    const y0 = sy === 'top' ? gap : h - gap - oh;
    const hit = boxes.some((b) => t.x + t.k * b.x0 < x0 + ow + 2 && t.x + t.k * b.x1 > x0 - 2
      && t.y + t.k * b.y0 < y0 + oh + 2 && t.y + t.k * b.y1 > y0 - 2);
    if (!hit) return { x: sx, y: sy };
  }
  return null;
}

// One arrow key's pan, in CSS px: a quarter of the stage, at least 60 px.
export function panStep(action, w, h) {
  const dx = Math.max(60, w / 4);
  const dy = Math.max(60, h / 4);
  return { 'pan-left': [dx, 0], 'pan-right': [-dx, 0], 'pan-up': [0, dy], 'pan-down': [0, -dy] }[action];
}
