"""A student's session with one view: stepping the engine's backward, time travel, run to
here, reset and selection.

- :mod:`.stepping`: :class:`~.stepping.StepModel`, the session itself: its parts, and
  one method per thing a view can do, each handed to the module whose job it is;
- :mod:`.engine_steps`: Step, Run to end, Run to here, Reset, in the engine's backward;
- :mod:`.backward`: :class:`~.backward.Backward`, the engine backward a view steps;
- :mod:`.shared`: one backward per graph, shared by the views of that graph;
- :mod:`.next_step`: the step to come (recorded, from the stepper, or the first);
- :mod:`.travel`: the position of the history shown (Back, Step in history);
- :mod:`.guessing`: predict first, then the step runs and the guess is graded;
- :mod:`.selection`: the selected node and the unchain preview;
- :mod:`.graph_edits`: unchain and device moves made from the view;
- :mod:`.following`: the subscription to the engine's events, kept within bounds;
- :mod:`.showing`: what is shown at a position, handed to ``present`` to draw.

Imports the leaves, ``follow``, ``quiz`` and ``present``; never the widget shell
(``view``, ``messages``...), so it loads no widget library.
"""
