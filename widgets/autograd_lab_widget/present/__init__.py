"""What a student sees, made from the state it shows: the drawing, the ledger, the panel,
the static picture.

- :mod:`.drawing`: the DOT of a state and its node texts for the browser (``draw``);
- :mod:`.node_cells`: what each node looks like: its fixed-size cells, texts, classes;
- :mod:`.shaping`: which nodes a drawing shows (depth, collapsed Links, a window,
  search hits) and how its DOT keeps still (forward graph in place, structure key);
- :mod:`.ledger`: what the last backward step did and what the next one will do;
- :mod:`.panel`: the inspect panel of a clicked node;
- :mod:`.picture`: a static SVG picture of a view, for saved notebooks.

Imports the leaves and ``follow`` (the state it draws); never ``session`` or ``quiz``.
"""
