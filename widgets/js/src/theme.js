// The widget's stylesheet: the palette's colours as CSS custom properties (from the
// generated protocol.js, so autograd_lab/graph/palette.py stays their one definition),
// and the graph's font size, then the rules of style.css, which read them.
import { FONT_SIZE, PALETTE, THEME_FALLBACK } from './protocol.js';
import RULES from './style.css';

function customProperties(prefix, colours) {
  return Object.entries(colours).map(([name, value]) => `--agl-${prefix}-${name}: ${value};`).join(' ');
}

export const STYLESHEET = [
  `.agl-root { ${customProperties('palette', PALETTE)} ${customProperties('fallback', THEME_FALLBACK.light)} }`,
  '@media (prefers-color-scheme: dark) {',
  `  .agl-root { ${customProperties('fallback', THEME_FALLBACK.dark)} }`,
  '}',
  RULES,
  // the size Graphviz measured the cells' texts at (one SVG unit is one CSS pixel)
  `.agl-graph text { font-size: ${FONT_SIZE}px; }`,
].join('\n');
