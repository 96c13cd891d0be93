"""The order of the course: the main path through backprop, then the appendix.

This is the one definition of which lessons a class takes and in what order; the
command, the tests and the graded-assignment export read it from here.  Entries are
notebook stems (the file name without ``.ipynb``), the same in ``lessons/``,
``lessons/solutions/`` and ``lessons/source/`` (``.md``).

The **main path** teaches backprop so that no lesson uses what a later one
introduces.  The **appendix** holds the Chainer API lessons off that path (still run
and checked like the others); a class takes them after the main path, or not at all.

The names below are still the current file names.  The renaming to the new numbering
(issue 30, point 1) follows in a later commit; each entry's comment gives the stem it
will get.  Until then the order of the lists, not the numbers in the names, is the
course's order.

>>> MAIN_PATH[0]
'01_variables_and_derivatives'
>>> from autograd_lab_lessons import lessons
>>> sorted(MAIN_PATH + APPENDIX) == [path.name.removesuffix('.ipynb') for path in lessons()]
True
"""

from __future__ import annotations

__all__ = ['APPENDIX', 'MAIN_PATH']

#: The lessons every class takes, in order.
MAIN_PATH: list[str] = [
    '01_variables_and_derivatives',  # stays 01
    '02_chain_rule_by_hand',         # stays 02
    '03_retain_grad',                # stays 03
    '04_non_scalar_outputs',         # stays 04
    '05_backward_order',             # stays 05
    '14_write_backward',             # -> 06_write_backward
    '06_higher_order',               # -> 07_higher_order
    '12_custom_function_node',       # -> 08_custom_function_node (find the bug)
    '13_matrix_backward',            # -> 09_matrix_backward (two-layer network by hand)
    # -> 10_training: the data, the training loop, the curves and the learning rate;
    # the Parameter/Link/optimizer API half of this lesson moves to A2 below.
    '09_links_and_optimizers',
    '07_cutting_the_graph',          # -> 11_cutting_the_graph (uses training's Parameter)
]

#: The Chainer API lessons off the backprop path, in order (taken after the main path).
APPENDIX: list[str] = [
    '08_no_backprop_mode',           # -> A1_no_backprop_mode
    # -> A2_links_and_optimizers: the API half of today's 09 (split out of it)
    '10_mixed_precision',            # -> A3_mixed_precision
    '11_devices',                    # -> A4_devices
]
