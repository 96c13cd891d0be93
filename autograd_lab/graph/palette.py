"""The visual language of graph pictures: colour-blind-safe colours plus shapes.

Colours come from the Okabe-Ito palette (distinguishable with every common colour
vision deficiency); every kind also has its own shape or outline, so a picture
printed in grey still tells the kinds apart.

>>> VARIABLE_STYLE['parameter']['shape'], FUNCTION_STYLE['shape']
('cylinder', 'box')
>>> sorted(HIGHLIGHT_STYLE)
['downstream', 'next', 'path', 'selected', 'upstream']

This module is the one definition of every colour the project draws with: the graph's
DOT (:mod:`autograd_lab.graph.dot`), the widget's static picture and its Graphviz cells,
and the widget's CSS in the browser, which reads :data:`BROWSER` from a JS module
generated from this one (``python -m autograd_lab_widget.protocol``).

>>> PICTURE_FILL['input'], PICTURE_BORDER['input'] == BLUE
('#E6F1FA', True)
>>> sorted(THEME_FALLBACK), THEME_FALLBACK['light']['bg']
(['dark', 'light'], '#FFFFFF')
"""

from __future__ import annotations

#: The Okabe-Ito colours.
ORANGE = '#E69F00'
SKY_BLUE = '#56B4E9'
BLUISH_GREEN = '#009E73'
YELLOW = '#F0E442'
BLUE = '#0072B2'
VERMILLION = '#D55E00'
REDDISH_PURPLE = '#CC79A7'
BLACK = '#000000'
GREY = '#999999'
WHITE = '#FFFFFF'

#: Node attributes per variable kind (shape first, colour second).
VARIABLE_STYLE: dict[str, dict[str, str]] = {
    'input': {'shape': 'ellipse', 'fillcolor': SKY_BLUE, 'style': 'filled'},
    'parameter': {'shape': 'cylinder', 'fillcolor': ORANGE, 'style': 'filled'},
    'intermediate': {'shape': 'ellipse', 'fillcolor': WHITE, 'style': 'filled'},
    'output': {'shape': 'ellipse', 'fillcolor': BLUISH_GREEN, 'style': 'filled',
               'peripheries': '2'},
    'constant': {'shape': 'box', 'fillcolor': YELLOW, 'style': 'rounded,filled'},
}
#: Function nodes of the forward graph.
FUNCTION_STYLE: dict[str, str] = {'shape': 'box', 'fillcolor': BLUE, 'fontcolor': WHITE,
                                  'style': 'filled'}
#: Grad-of-grad nodes (made during a backward): another colour and a dashed outline.
GRAD_OF_GRAD_FUNCTION_STYLE: dict[str, str] = {'shape': 'box', 'fillcolor': REDDISH_PURPLE,
                                               'fontcolor': BLACK, 'style': 'filled,dashed'}
GRAD_OF_GRAD_OUTLINE = REDDISH_PURPLE
#: A collapsed Link and the summary of nodes over the cap.
COLLAPSED_STYLE: dict[str, str] = {'shape': 'folder', 'fillcolor': '#DDDDDD', 'style': 'filled'}
MORE_STYLE: dict[str, str] = {'shape': 'note', 'fillcolor': WHITE, 'style': 'filled,dashed'}

#: Edge attributes: the forward graph, grad-of-grad edges, cut (unchained) edges.
EDGE_STYLE: dict[str, str] = {'color': BLACK}
GRAD_OF_GRAD_EDGE_STYLE: dict[str, str] = {'color': REDDISH_PURPLE, 'penwidth': '1.8'}
CUT_EDGE_STYLE: dict[str, str] = {'color': GREY, 'style': 'dashed', 'arrowhead': 'tee'}

#: Outline of highlighted nodes (the widget's roles); other roles get a thick black outline.
HIGHLIGHT_STYLE: dict[str, dict[str, str]] = {
    'next': {'color': VERMILLION, 'penwidth': '4'},
    'selected': {'color': BLACK, 'penwidth': '4'},
    'upstream': {'color': ORANGE, 'penwidth': '3'},
    'downstream': {'color': SKY_BLUE, 'penwidth': '3'},
    'path': {'color': BLUISH_GREEN, 'penwidth': '3'},
}
DEFAULT_HIGHLIGHT: dict[str, str] = {'color': BLACK, 'penwidth': '3'}

#: Colour of a device badge (a non-NumPy device) and of a stale gradient's outline.
DEVICE_COLOR = VERMILLION
STALE_COLOR = VERMILLION
#: Text colour of a node whose Variable was garbage-collected.
COLLECTED_FONT = '#555555'

#: Words shown under a node for each state (the legend explains them).
STATE_BADGES: dict[str, str] = {
    'grad_pending': 'grad pending',
    'grad_computed': 'grad',
    'grad_accumulated': 'grad +=',
    'grad_released': 'grad released',
    'grad_stale': 'STALE grad',
    'data_retained': 'data kept',
    'unchained': 'unchained',
    'collected': 'collected',
    'next': 'NEXT',
    'done': 'done',
}

#: Two more colours than Okabe-Ito's: a function's tint in the widget (a softer blue than
#: BLUE, so its bold label reads on it) and the red of the unchain preview's dotted outline.
FUNCTION_TINT = '#3F6FA8'
CUT_PREVIEW = '#CC0000'
#: Cells of a NaN or infinite value in a heatmap (no value's colour is this loud).
NON_FINITE = '#FF00FF'
#: Texts under the static picture (its caption and the note that no kernel runs it).
CAPTION_TEXT = '#444444'
NOTE_TEXT = '#555555'

#: The static picture (a saved notebook's copy of the widget, always on white): pale fills
#: and darker outlines, each variable kind's outline its Okabe-Ito colour darkened until it
#: reads on white.  The live widget themes the same cells with the host's colours.
PICTURE_BORDER: dict[str, str] = {'input': BLUE, 'parameter': '#B87A00',
                                  'intermediate': '#6B6B6B', 'output': '#007A5A',
                                  'constant': '#8A7F00'}
PICTURE_FILL: dict[str, str] = {'input': '#E6F1FA', 'parameter': '#FBEFD9',
                                'intermediate': WHITE, 'output': '#E1F4EC',
                                'constant': '#F8F5D6'}
PICTURE_GRAD_FILL = '#FFF3E0'
PICTURE_FUNCTION_FILL, PICTURE_FUNCTION_BORDER = '#E4EAF4', '#2F5D8C'
PICTURE_HIGHER_FILL, PICTURE_HIGHER_BORDER = '#F6E6EF', '#A0457A'
PICTURE_BACKGROUND = WHITE

#: The widget's colours where the host page sets none of its own theme variables (JupyterLab,
#: Notebook 7 and Voila set --jp-*, VS Code --vscode-*): light, or dark where the reader's
#: system prefers dark.  Every tint is mixed into the background, so both themes read.
THEME_FALLBACK: dict[str, dict[str, str]] = {
    'light': {'bg': WHITE, 'bg2': '#F6F7F9', 'fg': '#1B1B1B', 'line': '#C4C7CC',
              'accent': '#1769C2'},
    'dark': {'bg': '#1E1E1E', 'bg2': '#252526', 'fg': '#E6E6E6', 'line': '#4A4D52',
             'accent': '#4A9EE8'},
}

#: What the browser's CSS reads (as ``--agl-palette-<name>`` custom properties).
BROWSER: dict[str, str] = {
    'orange': ORANGE, 'sky-blue': SKY_BLUE, 'bluish-green': BLUISH_GREEN, 'yellow': YELLOW,
    'blue': BLUE, 'vermillion': VERMILLION, 'reddish-purple': REDDISH_PURPLE, 'black': BLACK,
    'white': WHITE, 'function-tint': FUNCTION_TINT, 'cut-preview': CUT_PREVIEW,
    'non-finite': NON_FINITE,
}
