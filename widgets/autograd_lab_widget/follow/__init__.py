"""Following the engine: which events a view takes, what it keeps, and what it folds them into.

- :mod:`.filter`: :class:`~.filter.EventFilter`, the engine events that concern a graph;
- :mod:`.bounds`: the window of recent events a live view keeps and the nodes still alive;
- :mod:`.recorder`: the kernel's session log of forward values, for views made afterwards;
- :mod:`.state`: :class:`~.state.ViewState`, the graph model plus the view's record of backward;
- :mod:`.timeline`: the events kept, over a checkpoint, replayable to any step boundary.

Imports only the package's leaves (``arrays``, ``naming``, ``hosts``...), never
``session``, ``quiz``, ``present`` or the widget shell.
"""
