"""The gradient lens's words: its bar, its marks and its legend, written once.

The drawing (``present/lens_cells``) writes them into the graph, and the browser
contract (``protocol``) hands the legend to the page, which shows it under the graph;
both read them here.

>>> legend_lines()[0]
'gradient size: |grad| / |seed|, as 10^k'
>>> len(NO_SIZE) == BAR
True
"""

from __future__ import annotations

from autograd_lab.graph import lens

#: Blocks in the bar.
BAR = 6
#: The mark of the function whose backward made the first NaN.
NAN_MARK = '⚠'
#: The bar of a grad that holds a NaN or an infinity: crossed out, not a size (a shape
#: the block bars never take, so it does not rest on colour either).
NO_SIZE = '\u2573' * BAR  # BOX DRAWINGS LIGHT DIAGONAL CROSS


def bar(fraction: float) -> str:
    """The bar of a size ``fraction`` of the way up the scale: at least one block, so
    that the smallest size still shows (a zero grad has no bar: it reads 0).

    >>> bar(0.0), bar(0.5), bar(1.0)
    ('▇▁▁▁▁▁', '▇▇▇▁▁▁', '▇▇▇▇▇▇')
    """
    filled = max(1, round(fraction * BAR))
    return '▇' * filled + '▁' * (BAR - filled)


def legend_lines() -> tuple[str, ...]:
    """What the lens's legend says, a line each (the widget shows it under the graph,
    the static picture beside it)."""
    low, high = (int(v) for v in lens.SCALE)
    return ('gradient size: |grad| / |seed|, as 10^k',
            f'bar: {bar(0.0)} 10^{low} or less … {bar(1.0)} 10^{high} or more '
            '(the power beside it is the size)',
            f'vanishing: below {lens.VANISHING_BELOW:g} × seed',
            f'exploding: above {lens.EXPLODING_ABOVE:g} × seed',
            f'{NO_SIZE} NaN: not a number, inf: infinite; {NAN_MARK} marks the function '
            'whose backward made the first NaN')
