// Scoped CSS.  The hl-<role> rules mirror the DOT highlight outlines, so that a
// highlight change applied in place (no new layout) looks the same as a fresh layout.
export const STYLE = `
.agl-root { font: 13px/1.35 system-ui, sans-serif; color: #222; outline: none; }
.agl-root:focus-visible { box-shadow: 0 0 0 2px #7aa7e0; }
.agl-toolbar, .agl-filters { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; margin: 2px 0; }
.agl-button { padding: 2px 8px; border: 1px solid #bbb; border-radius: 4px; background: #f7f7f7; cursor: pointer; }
.agl-button:disabled { opacity: 0.5; cursor: not-allowed; }
.agl-button.agl-on { background: #ffe9a8; border-color: #d9a400; }
.agl-step { margin-left: 8px; font-weight: 600; }
.agl-device-reason { color: #8a5a00; font-size: 12px; }
.agl-status { background: #f4f6fa; border-left: 3px solid #4a78c2; padding: 4px 8px; margin: 4px 0; white-space: pre-wrap; }
.agl-reason, .agl-frontier { color: #555; font-size: 12px; }
.agl-gy, .agl-gx { font-family: ui-monospace, monospace; font-size: 12px; }
.agl-message { color: #8a2a00; }
.agl-predict-box { margin: 4px 0; }
.agl-feedback { margin-left: 8px; font-weight: 600; }
.agl-main { display: flex; gap: 8px; }
.agl-graph { flex: 1 1 auto; min-width: 200px; border: 1px solid #ddd; overflow: hidden; position: relative; }
.agl-graph svg { width: 100%; height: 100%; display: block; }
.agl-inspect { flex: 0 0 280px; max-height: 100%; overflow: auto; font-size: 12px; }
.agl-title { font-weight: 700; margin-bottom: 4px; }
.agl-props th { text-align: left; padding-right: 6px; color: #555; font-weight: 500; }
.agl-data, .agl-grad, .agl-latex { background: #fafafa; padding: 4px; margin: 2px 0; overflow: auto; max-height: 160px; }
.agl-link { margin: 2px; font-size: 11px; }
.agl-note { color: #666; font-style: italic; }
.agl-root g.node { cursor: pointer; }
.agl-root g.node.hl-next > ellipse, .agl-root g.node.hl-next > polygon, .agl-root g.node.hl-next > path { stroke: #D55E00; stroke-width: 4px; }
.agl-root g.node.hl-selected > ellipse, .agl-root g.node.hl-selected > polygon, .agl-root g.node.hl-selected > path { stroke: #000000; stroke-width: 4px; }
.agl-root g.node.hl-upstream > ellipse, .agl-root g.node.hl-upstream > polygon, .agl-root g.node.hl-upstream > path { stroke: #E69F00; stroke-width: 3px; }
.agl-root g.node.hl-downstream > ellipse, .agl-root g.node.hl-downstream > polygon, .agl-root g.node.hl-downstream > path { stroke: #56B4E9; stroke-width: 3px; }
.agl-root g.node.hl-search > ellipse, .agl-root g.node.hl-search > polygon, .agl-root g.node.hl-search > path { stroke: #F0E442; stroke-width: 4px; }
.agl-root g.node.hl-cut > ellipse, .agl-root g.node.hl-cut > polygon, .agl-root g.node.hl-cut > path { stroke: #CC0000; stroke-width: 4px; stroke-dasharray: 5 3; }
`;
