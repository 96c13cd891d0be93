// The widget's stylesheet: the palette's colours as CSS custom properties (from the
// generated protocol.js, so autograd_lab/graph/palette.py stays their one definition),
// then the rules of style.css, which read them.
import { PALETTE, THEME_FALLBACK } from './protocol.js';
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
].join('\n');
