"""Exercise checkers for the autograd_lab lessons: one function per exercise.

Every checker takes the learner's answer, works out the expected answer on its
own (closed forms, or the engine run on inputs the checker chooses), and
returns a :class:`Feedback`: correct, wrong (which value is off, and a hint
aimed at the usual mistake), or "not done yet" while the cell still holds the
``...`` placeholder.  A notebook therefore always runs top to bottom.

Checkers that take code meant to run on any device (lessons 11 to 13) try it on
the CPU and on the GPU: a real one where CuPy has one, else the stand-in of
:mod:`autograd_lab.testing.fake_gpu`, as strict as CuPy, so code that only works
with NumPy arrays is caught on every laptop.  Where a backward is written by hand,
the checker also watches how it gets its answer (:mod:`.hand_backward`).

A wrong answer's feedback names the likely mistake, never the answer itself:
:func:`show_answer` gives that, on request.

A new exercise's checker: a function in its topic's module, decorated with
``@_checker`` (:mod:`.feedback`; it turns a ``_wrong``/``_todo`` raised anywhere inside
into the one verdict, and takes the ``answer`` for :func:`show_answer`), re-exported
here; a FunctionNode exercise uses :mod:`.hand_backward`.

Under nbgrader (``NBGRADER_EXECUTION`` is ``autograde`` or ``validate``), or
after ``checks.STRICT = True``, anything but a correct answer raises
``AssertionError`` so that the graded cell scores zero.

>>> fb = ex01_accumulate(...)
>>> fb.status
'todo'
>>> ex01_accumulate([16.0]).status
'correct'
>>> ex01_accumulate([8.0]).hint
'Gradients accumulate: each backward() adds its 8 to x.grad, until x.cleargrad().'
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

# One module per lesson topic; the notebooks call every checker as checks.exNN_...
from .derivatives import ex01_accumulate, ex01_cubic, ex01_central_difference
from .chain_rule import (
    neuron_by_hand, ex02_forward, ex02_dz, ex02_input_grads, ex02_view_predictions,
    gates_by_hand, ex02_gates, NEURON, NEURON_STEPS, NEURON_VIEW, GATES,
    GATES_B, CHAIN,
)
from .retain_grad import ex03_released, ex03_h_grad
from .non_scalar import ex04_sum_sin, ex04_weighted
from .backward_order import ex05_ranks, ex05_accumulated, ex05_run_to, DIAMOND_VIEW_X
from .higher_order import ex06_no_double, ex06_tanh, ex06_hvp, ex06_newton
from .cutting_graph import (
    ex07_predict, rnn_grad, ex07_truncated, ex07_vanishing, ex07_clip_step, RNN_XS, RNN_TARGETS,
    UNCHAIN_X,
)
from .no_backprop import ex08_recorded, ex08_predict
from .training import ex09_param_count, ex09_train_step, ex09_lr_ranking, LEARNING_RATES, LR_RANKING
from .mixed_precision import ex10_zero_in_float16, ex10_unscaled, ex10_max_scale, FLOAT16_CANDIDATES
from .devices import ex11_stays_on_gpu, ex11_one_hot, ex11_to_numpy, GENERIC_LINES
from .function_node import ex12_slope, ex12_forward, ex12_backward
from .matrix_backward import (
    ex13_shapes, ex13_linear, ex13_softmax_ce, ex13_count, LINEAR_SHAPES, COUNT,
)
from .gradient_checking import ex12_rel_error, ex12_bug_where, ex12_fixed, ex12_kink
from .two_layer import ex13_mlp_shapes, ex13_unbroadcast, ex13_mlp, MLP
from .write_backward import ex14_order, ex14_predict, ex14_backward, ex14_engine_order
from .feedback import Feedback, show_answer

#: True while nbgrader validates or autogrades (it sets NBGRADER_EXECUTION).
GRADING = os.environ.get('NBGRADER_EXECUTION', '').lower() in {'autograde', 'validate'}
#: Raise on anything but a correct answer (on while grading; the solutions set it too).
#: The checkers read both here at each verdict (checks.feedback._mode).
STRICT = GRADING

__all__ = [  # what the notebooks use: the checkers and the constants they build on
    'ALL',
    'CHAIN',
    'COUNT',
    'DIAMOND_VIEW_X',
    'FLOAT16_CANDIDATES',
    'GATES',
    'GATES_B',
    'GENERIC_LINES',
    'GRADING',
    'LEARNING_RATES',
    'LINEAR_SHAPES',
    'LR_RANKING',
    'MLP',
    'NEURON',
    'NEURON_STEPS',
    'NEURON_VIEW',
    'RNN_TARGETS',
    'RNN_XS',
    'STRICT',
    'UNCHAIN_X',
    'Feedback',
    'ex01_accumulate',
    'ex01_central_difference',
    'ex01_cubic',
    'ex02_dz',
    'ex02_forward',
    'ex02_gates',
    'ex02_input_grads',
    'ex02_view_predictions',
    'ex03_h_grad',
    'ex03_released',
    'ex04_sum_sin',
    'ex04_weighted',
    'ex05_accumulated',
    'ex05_ranks',
    'ex05_run_to',
    'ex06_hvp',
    'ex06_newton',
    'ex06_no_double',
    'ex06_tanh',
    'ex07_clip_step',
    'ex07_predict',
    'ex07_truncated',
    'ex07_vanishing',
    'ex08_predict',
    'ex08_recorded',
    'ex09_lr_ranking',
    'ex09_param_count',
    'ex09_train_step',
    'ex10_max_scale',
    'ex10_unscaled',
    'ex10_zero_in_float16',
    'ex11_one_hot',
    'ex11_stays_on_gpu',
    'ex11_to_numpy',
    'ex12_backward',
    'ex12_bug_where',
    'ex12_fixed',
    'ex12_forward',
    'ex12_kink',
    'ex12_rel_error',
    'ex12_slope',
    'ex13_count',
    'ex13_linear',
    'ex13_mlp',
    'ex13_mlp_shapes',
    'ex13_shapes',
    'ex13_softmax_ce',
    'ex13_unbroadcast',
    'ex14_backward',
    'ex14_engine_order',
    'ex14_order',
    'ex14_predict',
    'gates_by_hand',
    'neuron_by_hand',
    'rnn_grad',
    'show_answer',
]

#: Every checker, for tests and for instructors who grade outside the notebooks.
ALL: dict[str, Callable[[Any], Feedback]] = {
    name: value for name, value in sorted(globals().items())
    if name.startswith('ex') and name[2:4].isdigit() and callable(value)
}
