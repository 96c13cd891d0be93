"""The visual language of graph pictures: colour-blind-safe colours plus shapes.

Colours come from the Okabe-Ito palette (distinguishable with every common colour
vision deficiency); every kind also has its own shape or outline, so a picture
printed in grey still tells the kinds apart.

>>> VARIABLE_STYLE['parameter']['shape'], FUNCTION_STYLE['shape']
('cylinder', 'box')
>>> sorted(HIGHLIGHT_STYLE)
['downstream', 'next', 'path', 'selected', 'upstream']
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
