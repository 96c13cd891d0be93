"""What a student sees, made from the state it shows: the drawing, the ledger, the panel,
the static picture.

- :mod:`.drawing`: DOT and node texts for the browser;
- :mod:`.ledger`: what the last backward step did and what the next one will do;
- :mod:`.panel`: the inspect panel of a clicked node;
- :mod:`.picture`: a static SVG picture of a view, for saved notebooks.

Imports the leaves and ``follow`` (the state it draws); never ``session`` or ``quiz``.
"""
