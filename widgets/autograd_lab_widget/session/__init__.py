"""A student's session with one view: stepping the engine's backward, time travel, run to
here, reset and selection.

- :mod:`.stepping`: :class:`~.stepping.StepModel`, everything a view knows and does;
- :mod:`.backward`: :class:`~.backward.Backward`, the engine backward a view steps;
- :mod:`.next_step`: the step to come (recorded, from the stepper, or the first);
- :mod:`.selection`: the selected node and the unchain preview;
- :mod:`.shared`: one backward per graph, shared by the views of that graph.

Imports the leaves, ``follow``, ``quiz`` and ``present``; never the widget shell
(``view``, ``messages``...), so it loads no widget library.
"""
