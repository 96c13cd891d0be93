"""The order of the course: the main path through backprop, then the appendix.

This is the one definition of which lessons a class takes and in what order; the
``autograd-lab lessons`` command (through :func:`autograd_lab_lessons.lessons`) and the
tests read it from here.  Entries are
notebook stems (the file name without ``.ipynb``), the same in ``lessons/``,
``lessons/solutions/`` and ``lessons/source/`` (``.md``).

The **main path** teaches backprop so that no lesson uses what a later one
introduces.  The **appendix** holds the Chainer API lessons off that path (still run
and checked like the others); a class takes them after the main path, or not at all.

The numbers in the names follow these lists: the main path is ``01`` to ``NN`` in
order, the appendix ``A1`` to ``An`` (``tests/test_lesson_path.py`` holds them to it).

>>> MAIN_PATH[0]
'01_variables_and_derivatives'
>>> APPENDIX[0]
'A1_no_backprop_mode'
"""

from __future__ import annotations

__all__ = ['APPENDIX', 'MAIN_PATH']

#: The lessons every class takes, in order.
MAIN_PATH: list[str] = [
    '01_variables_and_derivatives',
    '02_chain_rule_by_hand',
    '03_retain_grad',
    '04_non_scalar_outputs',
    '05_backward_order',
    '06_write_backward',
    '07_build_your_own_engine',  # a scalar engine, a neuron and an MLP of the student's own
    '08_higher_order',
    '09_custom_function_node',   # and finding a planted bug with relative errors
    '10_matrix_backward',        # and a two-layer network by hand
    '11_training',               # introduces Parameter, Linear/Chain and the optimizers briefly
    '12_cutting_the_graph',      # uses 11's Parameter and optimizer
    '13_deep_nets',              # 12's decay through time, now through layers
]

#: The Chainer API lessons off the backprop path, in order (taken after the main path).
APPENDIX: list[str] = [
    'A1_no_backprop_mode',
    'A2_links_and_optimizers',   # the API behind lesson 11's network, in full
    'A3_mixed_precision',
    'A4_devices',
]
