"""A self-contained HTML replay of a view's history: no kernel, no network.

The page inlines the widget bundle (base64, loaded as a module from a Blob URL) and one
precomputed frame per step boundary, made by the view's stepping model
(:meth:`~autograd_lab_widget.session.stepping.StepModel.frames`); a small stand-in for the widget
model steps through the frames, so the same front end draws them (Graphviz/WASM lays them out in
the page).  All recorded text goes in as JSON with ``<``, ``>`` and ``&`` escaped, so a
hostile variable name cannot end the script element.
"""

from __future__ import annotations

import base64
import html
import json
from typing import Any

#: Graphs with at most this many nodes also get inspect panels in the replay.
MAX_PANEL_NODES = 300

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>body {{ font-family: system-ui, sans-serif; margin: 1em; }}</style>
</head>
<body>
<h2>{title}</h2>
<p>A recorded replay of autograd_lab's graph widget: use Step/Back/Forward or the arrow
keys (click the graph area first). No kernel is needed; everything is in this file.</p>
<div id="agl-host"></div>
<script type="application/json" id="agl-frames">{frames}</script>
<script type="text/plain" id="agl-bundle">{bundle}</script>
<script type="module">
const data = JSON.parse(document.getElementById('agl-frames').textContent);
const raw = atob(document.getElementById('agl-bundle').textContent.trim());
const bytes = Uint8Array.from(raw, (c) => c.charCodeAt(0));
const url = URL.createObjectURL(new Blob([bytes], {{ type: 'text/javascript' }}));
const mod = await import(url);
const frames = data.frames;
const state = {{
  dot: '', structure_key: '', nodes: {{}}, centre: null, focus: null, status: {{}}, ledger: {{}},
  panel: {{}},
  options: data.options,
  orders: data.orders, predict: false, height: data.height, device: '@numpy',
  gpu_available: false, gpu_reason: 'this is a replay without a kernel', selected_id: null,
}};
const listeners = {{}};
const fire = (name, value) => (listeners[name] || []).forEach((fn) => fn(value));
let at = 0;
function show(k) {{
  at = Math.max(0, Math.min(frames.length - 1, k));
  const f = frames[at];
  const status = Object.assign({{}}, f.status, {{
    can_back: at > 0, can_step: at < frames.length - 1, done: at === frames.length - 1,
    live: true, predict: false, notice: `Replay: frame ${{at + 1}} of ${{frames.length}}`,
  }});
  for (const [key, value] of [['status', status], ['ledger', f.ledger], ['nodes', f.nodes],
    ['centre', f.focus], ['structure_key', f.key], ['dot', f.dot]]) {{
    state[key] = value;
    fire(`change:${{key}}`, value);
  }}
}}
const model = {{
  get: (key) => state[key],
  set: (key, value) => {{ state[key] = value; }},
  save_changes: () => {{}},
  on: (name, fn) => {{ (listeners[name] = listeners[name] || []).push(fn); }},
  off: (name, fn) => {{ listeners[name] = (listeners[name] || []).filter((g) => g !== fn); }},
  send: (msg) => {{
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'hello') {{  // this page is the view's kernel: it answers
      setTimeout(() => fire('msg:custom', {{ type: 'hello' }}), 0);
    }} else if (msg.type === 'action') {{
      const last = frames.length - 1;
      const moves = {{ step: at + 1, forward: at + 1, back: at - 1, reset: 0, run: last }};
      if (msg.action in moves) show(moves[msg.action]);
    }} else if (msg.type === 'select') {{
      const p = data.panels[String(msg.id).replace(/^n/, '')];
      const none = {{ title: String(msg.id), main: [], note: 'No details recorded.' }};
      state.panel = p || none;
      state.selected_id = p ? p.id : null;
      fire('change:panel', state.panel);
    }}
  }},
}};
mod.default.render({{ model, el: document.getElementById('agl-host') }});
show(0);
</script>
</body>
</html>
"""


def _json_for_script(value: Any) -> str:
    text = json.dumps(value, separators=(',', ':'), allow_nan=False, default=str)
    return text.replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026')


def replay_html(view: Any, title: str = 'autograd_lab replay') -> str:
    """The replay page of ``view`` (a GraphView) as one HTML string."""
    from autograd_lab_widget.view import BUNDLE  # noqa: PLC0415 - avoid an import cycle

    model = view.model
    frames = json.loads(json.dumps(model.frames(dict(view.options)), default=str))
    panels = model.panels(MAX_PANEL_NODES)
    for body in panels.values():
        body['note'] = 'Replay: values as recorded at the end of the history.'
    data = {'frames': frames, 'panels': json.loads(json.dumps(panels, default=str)),
            'options': view.options, 'orders': view.orders, 'height': view.height}
    bundle = base64.b64encode(BUNDLE.read_bytes()).decode('ascii')
    return _PAGE.format(title=html.escape(title), frames=_json_for_script(data), bundle=bundle)
