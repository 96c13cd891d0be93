// Scoped CSS.  Every colour comes from the host's theme variables (--jp-* in JupyterLab,
// Notebook 7 and Voila, --vscode-* in VS Code) with plain fallbacks, and tints are mixed
// into the host's own background, so light and dark themes both read well: the graph's
// fills, strokes and texts are set here too (CSS beats Graphviz's presentation attributes).
export const STYLE = `
.agl-root {
  --agl-bg: var(--jp-layout-color0, var(--vscode-editor-background, #ffffff));
  --agl-bg2: var(--jp-layout-color1, var(--vscode-sideBar-background, #f6f7f9));
  --agl-fg: var(--jp-ui-font-color0, var(--vscode-editor-foreground, #1b1b1b));
  --agl-muted: color-mix(in srgb, var(--agl-fg) 70%, var(--agl-bg));
  --agl-line: var(--jp-border-color1, var(--vscode-panel-border, #c4c7cc));
  --agl-accent: var(--jp-brand-color1, var(--vscode-button-background, #1769c2));
  /* the accent darkened until white text on it reads (4.5:1) in light and dark themes */
  --agl-strong: color-mix(in srgb, var(--agl-accent) 65%, #000000);
  --agl-ui-font: var(--jp-ui-font-family, var(--vscode-font-family, system-ui, sans-serif));
  --agl-mono: var(--jp-code-font-family, var(--vscode-editor-font-family,
    ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace));
  --agl-panel: color-mix(in srgb, var(--agl-bg) 94%, var(--agl-fg));
  --agl-control: color-mix(in srgb, var(--agl-bg) 90%, var(--agl-fg));
  --agl-control-hover: color-mix(in srgb, var(--agl-bg) 82%, var(--agl-fg));
  --agl-node: color-mix(in srgb, var(--agl-bg) 96%, var(--agl-fg));
  --agl-input: color-mix(in srgb, var(--agl-bg) 80%, #0072B2);
  --agl-output: color-mix(in srgb, var(--agl-bg) 80%, #009E73);
  --agl-param: color-mix(in srgb, var(--agl-bg) 78%, #E69F00);
  --agl-const: color-mix(in srgb, var(--agl-bg) 80%, #F0E442);
  --agl-func: color-mix(in srgb, var(--agl-bg) 82%, #3F6FA8);
  --agl-higher: color-mix(in srgb, var(--agl-bg) 78%, #CC79A7);
  --agl-grad: color-mix(in srgb, var(--agl-bg) 88%, #E69F00);
  --agl-fresh: color-mix(in srgb, var(--agl-bg) 55%, #F0E442);
  --agl-next: #D55E00;
  --agl-next-text: color-mix(in srgb, var(--agl-next) 72%, var(--agl-fg));
  --agl-good: color-mix(in srgb, var(--agl-fg) 55%, #009E73);
  --agl-bad: color-mix(in srgb, var(--agl-fg) 45%, #D55E00);
  --agl-edge: color-mix(in srgb, var(--agl-fg) 62%, var(--agl-bg));
  font: 14px/1.4 var(--agl-ui-font);
  color: var(--agl-fg);
  background: var(--agl-bg);
  outline: none;
  position: relative;
}
.agl-root:focus-visible { box-shadow: 0 0 0 2px var(--agl-accent); }
.agl-root button, .agl-root input, .agl-root select {
  font: inherit; font-size: 14px; color: var(--agl-fg); background: var(--agl-control);
  border: 1px solid var(--agl-line); border-radius: 6px;
}
.agl-root button { padding: 4px 12px; cursor: pointer; white-space: nowrap; min-height: 32px; }
.agl-root button:hover:not(:disabled) { background: var(--agl-control-hover); }
.agl-root button:focus-visible, .agl-root input:focus-visible, .agl-root select:focus-visible {
  outline: 2px solid var(--agl-accent); outline-offset: 1px;
}
.agl-root button:disabled { color: var(--agl-muted); cursor: not-allowed; border-style: dashed; }
.agl-root button.agl-primary:not(:disabled) {
  background: var(--agl-strong); color: #ffffff; border-color: var(--agl-strong);
  font-weight: 600;
}
.agl-root button[aria-pressed="true"] {
  background: var(--agl-fresh); border-color: var(--agl-next); font-weight: 600;
}
.agl-root input { padding: 3px 6px; }
.agl-toolbar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 4px 0 6px; }
.agl-counter { font-weight: 600; min-width: 11ch; padding: 0 6px; white-space: nowrap;
  font-variant-numeric: tabular-nums; }
.agl-score { white-space: nowrap; padding: 2px 8px; border-radius: 10px;
  background: var(--agl-panel); }
.agl-spacer { flex: 1 1 auto; }
.agl-menu { position: relative; }
.agl-menu-panel {
  position: absolute; right: 0; top: calc(100% + 4px); z-index: 10; width: 340px;
  background: var(--agl-bg); border: 1px solid var(--agl-line); border-radius: 8px;
  box-shadow: 0 6px 24px rgba(0, 0, 0, 0.25); padding: 8px 12px 12px;
}
.agl-menu-panel[hidden] { display: none; }
.agl-menu-panel h4 { margin: 8px 0 4px; font-size: 14px; }
.agl-menu-row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0; }
.agl-menu-row label { display: flex; gap: 6px; align-items: center; }
.agl-device-reason { color: var(--agl-fg); font-size: 14px; margin: 2px 0; }
.agl-stage { display: flex; gap: 8px; align-items: stretch; }
.agl-graph {
  flex: 1 1 auto; min-width: 240px; position: relative; overflow: hidden;
  border: 1px solid var(--agl-line); border-radius: 8px; background: var(--agl-bg);
}
.agl-graph > svg.agl-canvas { width: 100%; height: 100%; display: block; cursor: grab; }
.agl-zoom { position: absolute; right: 6px; top: 6px; display: flex; gap: 4px; }
.agl-zoom button { padding: 2px 8px; min-width: 32px; }
.agl-overview {
  position: absolute; right: 6px; bottom: 6px; width: 150px; height: 110px;
  background: var(--agl-bg); border: 1px solid var(--agl-line); border-radius: 6px;
  cursor: pointer; opacity: 0.95;
}
.agl-overview[hidden] { display: none; }
.agl-overview svg { width: 100%; height: 100%; display: block; }
.agl-overview .agl-mini-variable { fill: var(--agl-edge); }
.agl-overview .agl-mini-function { fill: var(--agl-accent); }
.agl-overview .agl-view-box { fill: color-mix(in srgb, var(--agl-accent) 18%, transparent);
  stroke: var(--agl-accent); stroke-width: 2px; vector-effect: non-scaling-stroke; }
.agl-legend .agl-hint { font-weight: 600; }
.agl-legend .agl-hint:empty { display: none; }
.agl-legend .agl-no-kernel { font-weight: 600; color: var(--agl-next-text); flex-basis: 100%; }
.agl-legend .agl-no-kernel[hidden] { display: none; }
.agl-side { flex: 0 0 350px; display: flex; flex-direction: column; gap: 6px; min-width: 0; }
/* The status grows to say all it has (an error is read in full, never cut with an
   ellipsis); the ledger below gives up the room, so the stage keeps its size. */
.agl-status {
  flex: 0 0 auto; min-height: 3.9em; max-height: 40%; overflow: auto; padding: 4px 10px;
  border-radius: 8px; background: var(--agl-panel); border-left: 4px solid var(--agl-accent);
}
.agl-status-text { font-weight: 600; }
.agl-status-note { color: var(--agl-fg); font-size: 14px; overflow-wrap: anywhere; }
.agl-status-note.agl-warn { font-weight: 600; }
.agl-side-scroll { flex: 1 1 0; min-height: 0; overflow: auto; display: flex;
  flex-direction: column; gap: 6px; }
.agl-ledger, .agl-inspect {
  flex: 0 0 auto; padding: 4px 10px; border-radius: 8px; background: var(--agl-panel);
}
.agl-sec + .agl-sec { margin-top: 6px; border-top: 1px solid var(--agl-line); padding-top: 4px; }
.agl-sec h4 { margin: 2px 0; font-size: 14px; }
.agl-sec-next h4 { color: var(--agl-fg); }
.agl-sec-next h4::before { content: '▶ '; color: var(--agl-next-text); }
.agl-rows { border-collapse: collapse; width: 100%; }
.agl-rows th { text-align: left; font-weight: 500; color: var(--agl-muted); padding: 1px 10px 1px 0;
  white-space: nowrap; vertical-align: top; font-family: var(--agl-mono); width: 1%;
  min-width: 7ch; }
.agl-root .agl-key { display: inline-block; max-width: 16ch; overflow: hidden;
  text-overflow: ellipsis; white-space: nowrap; vertical-align: top; }
.agl-rows td { font-family: var(--agl-mono); padding: 1px 0; word-break: break-word; }
.agl-rows tr.result td, .agl-rows tr.sum td { font-weight: 600; }
.agl-rows tr.pending td { color: var(--agl-fg); }
.agl-verdict { font-weight: 700; margin: 2px 0; }
.agl-verdict.agl-right { color: var(--agl-good); }
.agl-verdict.agl-wrong { color: var(--agl-bad); }
.agl-sec > button.agl-link { padding: 2px 8px; min-height: 28px; margin: 0 0 4px; }
.agl-guess-row { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin: 4px 0; }
.agl-guess-row input { width: 7em; font-family: var(--agl-mono); }
.agl-why summary { cursor: pointer; color: var(--agl-fg); }
.agl-why p { margin: 2px 0; }
.agl-empty { color: var(--agl-muted); }
.agl-title { font-weight: 700; font-family: var(--agl-mono); overflow-wrap: anywhere; }
.agl-subtitle { color: var(--agl-muted); margin-bottom: 4px; }
.agl-main th { font-family: var(--agl-ui-font); }
.agl-main td { white-space: pre-wrap; }
.agl-details summary { cursor: pointer; margin-top: 4px; }
.agl-links { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 4px; }
.agl-links button { padding: 2px 8px; min-height: 28px; }
.agl-note { color: var(--agl-muted); font-style: italic; }
.agl-legend { display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 6px 2px 0; color: var(--agl-fg);
  font-size: 14px; }
.agl-legend span { display: inline-flex; gap: 5px; align-items: center; }
.agl-swatch { display: inline-block; width: 14px; height: 14px; border-radius: 3px;
  border: 1px solid var(--agl-line); }
.agl-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }

/* -- the graph ------------------------------------------------------------------------ */
.agl-graph text { font-family: var(--agl-mono); font-size: 14px; fill: var(--agl-fg); }
.agl-graph g.node { cursor: pointer; }
.agl-graph g.edge path { stroke: var(--agl-edge); stroke-width: 1.4px; }
.agl-graph g.edge polygon { fill: var(--agl-edge); stroke: var(--agl-edge); }
.agl-graph g.edge.edge-grad path { stroke: #CC79A7; stroke-dasharray: 6 3; stroke-width: 2px; }
.agl-graph g.edge.edge-grad polygon { fill: #CC79A7; stroke: #CC79A7; }
/* two kinds of broken line, told apart: dashed pink (made by backward), dotted (cut) */
.agl-graph g.edge.edge-cut path { stroke-dasharray: 1.5 4; stroke-linecap: round;
  stroke-width: 2px; opacity: 0.85; }
.agl-legend svg line { stroke: var(--agl-edge); stroke-width: 2px; }
.agl-legend .agl-key-grad svg line { stroke: #CC79A7; stroke-dasharray: 6 3; }
.agl-legend .agl-key-cut svg line { stroke-dasharray: 1.5 4; stroke-linecap: round; }
.agl-graph g.cluster > polygon, .agl-graph g.cluster path { stroke: var(--agl-line); fill: none; }
.agl-graph g.node > g > a > polygon:not(.agl-cell-box) { stroke: var(--agl-edge); stroke-width: 1.5px; }
.agl-graph polygon.agl-cell-box { fill: var(--agl-node); stroke: none; }
.agl-graph g.node.input polygon.agl-cell-box { fill: var(--agl-input); }
.agl-graph g.node.output polygon.agl-cell-box { fill: var(--agl-output); }
.agl-graph g.node.parameter polygon.agl-cell-box { fill: var(--agl-param); }
.agl-graph g.node.constant polygon.agl-cell-box { fill: var(--agl-const); }
.agl-graph g.node.function polygon.agl-cell-box { fill: var(--agl-func); }
.agl-graph g.node.grad-of-grad polygon.agl-cell-box { fill: var(--agl-higher); }
.agl-graph g.node polygon.agl-cell-box.agl-cell-gcap,
.agl-graph g.node polygon.agl-cell-box.agl-cell-grad { fill: var(--agl-grad); }
.agl-graph g.node polygon.agl-cell-box.agl-cell-grad.fresh { fill: var(--agl-fresh); }
.agl-graph g.node.input > g > a > polygon:not(.agl-cell-box) { stroke: #0072B2; stroke-width: 2px; }
.agl-graph g.node.output > g > a > polygon:not(.agl-cell-box) { stroke: #009E73; stroke-width: 3px; }
.agl-graph g.node.parameter > g > a > polygon:not(.agl-cell-box) { stroke: #E69F00; stroke-width: 2px; }
.agl-graph g.node.grad-of-grad > g > a > polygon:not(.agl-cell-box) { stroke: #CC79A7; stroke-width: 2.5px;
  stroke-dasharray: 6 3; }
.agl-graph g.node.on-device > g > a > polygon:not(.agl-cell-box) { stroke: #D55E00; stroke-width: 3px;
  stroke-dasharray: 2 2; }
.agl-graph g.node.function.ran text.agl-cell-mark { fill: var(--agl-good); font-weight: 700; }
.agl-graph text.agl-cell-name, .agl-graph text.agl-cell-op { font-weight: 700; }
.agl-graph text.agl-cell-gcap, .agl-graph text.agl-cell-fid { fill: var(--agl-muted); }
.agl-graph text.agl-cell-text.none, .agl-graph text.agl-cell-text.freed { font-style: italic; }
.agl-graph text.agl-cell-text.none { fill: var(--agl-muted); }
.agl-graph text.agl-cell-text.stale { text-decoration: line-through; }
.agl-graph g.node.hl-next > g > a > polygon:not(.agl-cell-box) { stroke: var(--agl-next); stroke-width: 4px; }
.agl-graph g.node.hl-next text.agl-cell-mark { fill: var(--agl-next-text); }
.agl-graph g.node.hl-selected > g > a > polygon:not(.agl-cell-box) { stroke: var(--agl-fg); stroke-width: 4px; }
.agl-graph g.node.hl-upstream > g > a > polygon:not(.agl-cell-box) { stroke: #E69F00; stroke-width: 3px; }
.agl-graph g.node.hl-downstream > g > a > polygon:not(.agl-cell-box) { stroke: #56B4E9; stroke-width: 3px; }
.agl-graph g.node.hl-search > g > a > polygon:not(.agl-cell-box) { stroke: #F0E442; stroke-width: 4px; }
.agl-graph g.node.hl-cut > g > a > polygon:not(.agl-cell-box) { stroke: #CC0000; stroke-width: 4px;
  stroke-dasharray: 1.5 4; stroke-linecap: round; }
.agl-graph g.node.collapsed-link > polygon, .agl-graph g.node.more > polygon {
  fill: var(--agl-panel); stroke: var(--agl-edge); }
`;
