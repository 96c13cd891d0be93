// The gradient lens's look (see autograd_lab_widget/lens_cells.py): the lens row's cells
// by flag, the legend, and the mark of the function whose backward made the first NaN.
// Colour only repeats what the text already says (the bar, 10^k and the flag's word).
export const LENS_STYLE = `
.agl-graph g.node polygon.agl-cell-box.agl-cell-lcap,
.agl-graph g.node polygon.agl-cell-box.agl-cell-lens { fill: var(--agl-grad); }
.agl-graph text.agl-cell-lcap { fill: var(--agl-muted); }
.agl-graph text.agl-cell-lens { font-weight: 600; }
.agl-graph polygon.agl-cell-box.agl-cell-lens.lens-vanishing {
  fill: color-mix(in srgb, var(--agl-bg) 70%, #56B4E9); }
.agl-graph polygon.agl-cell-box.agl-cell-lens.lens-exploding {
  fill: color-mix(in srgb, var(--agl-bg) 65%, #E69F00); }
.agl-graph polygon.agl-cell-box.agl-cell-lens.lens-nonfinite {
  fill: color-mix(in srgb, var(--agl-bg) 60%, #D55E00); }
.agl-graph text.agl-cell-lens.lens-nonfinite, .agl-graph text.agl-cell-mark.nan-origin {
  fill: var(--agl-bad); font-weight: 700; }
.agl-graph g.node.lens-legend text { fill: var(--agl-fg); }
`;
