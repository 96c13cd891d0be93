"""Exercise checkers for the autograd_lab lessons: one function per exercise.

Every checker takes the learner's answer, works out the expected answer on its
own (closed forms, or the engine run on inputs the checker chooses), and
returns a :class:`Feedback`: correct, wrong (which value is off, and a hint
aimed at the usual mistake), or "not done yet" while the cell still holds the
``...`` placeholder.  A notebook therefore always runs top to bottom.

Checkers that take code meant to run on any device (lessons 9, 10 and A4) try it on
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
import re
import sys
from collections.abc import Callable
from typing import Any

# One module per lesson topic, in the course's order; the notebooks call every checker
# as checks.exNN_... (the appendix's as checks.exAN_...)
from .derivatives import ex01_accumulate, ex01_cubic, ex01_central_difference
from .chain_rule import (
    neuron_by_hand, ex02_forward, ex02_dz, ex02_input_grads, ex02_view_predictions,
    gates_by_hand, ex02_gates, NEURON, NEURON_STEPS, NEURON_VIEW, GATES,
    GATES_B, CHAIN,
)
from .retain_grad import ex03_released, ex03_h_grad
from .non_scalar import ex04_sum_sin, ex04_weighted
from .backward_order import ex05_ranks, ex05_accumulated, ex05_run_to, DIAMOND_VIEW_X
from .write_backward import ex06_order, ex06_predict, ex06_backward, ex06_engine_order
from .own_engine import ex07_predict, ex07_engine
from .own_mlp import ex07_param_count, ex07_mlp, ex07_train, engine_loss, engine_net
from .higher_order import ex08_no_double, ex08_tanh, ex08_hvp, ex08_newton
from .function_node import ex09_slope, ex09_forward, ex09_backward
from .gradient_checking import ex09_rel_error, ex09_bug_where, ex09_fixed, ex09_kink
from .matrix_backward import (
    ex10_shapes, ex10_linear, ex10_softmax_ce, ex10_count, LINEAR_SHAPES, COUNT,
)
from .two_layer import ex10_mlp_shapes, ex10_unbroadcast, ex10_mlp, MLP
from .training import ex11_lr_ranking, ex11_train_step, LEARNING_RATES, LR_RANKING
from .cutting_graph import (
    ex12_predict, rnn_grad, ex12_truncated, ex12_vanishing, ex12_clip_step, RNN_XS, RNN_TARGETS,
    UNCHAIN_X,
)
from .deep_nets import ex13_predict, ex13_sigmoid_bound, ex13_init_std, INITS, VERDICTS
# the appendix
from .no_backprop import exA1_recorded, exA1_predict
from .links import exA2_param_count
from .mixed_precision import exA3_zero_in_float16, exA3_unscaled, exA3_max_scale, FLOAT16_CANDIDATES
from .devices import exA4_stays_on_gpu, exA4_one_hot, exA4_to_numpy, GENERIC_LINES
from .feedback import Feedback, show_answer
from . import feedback as _feedback

#: True while nbgrader validates or autogrades (it sets NBGRADER_EXECUTION).
GRADING = os.environ.get('NBGRADER_EXECUTION', '').lower() in {'autograde', 'validate'}
#: Raise on anything but a correct answer (on while grading; the solutions set it too).
#: The checkers read both here at each verdict (checks.feedback._mode).
STRICT = GRADING
#: True only in the graded checks' private copy (autograd_lab_lessons.grading).
PRIVATE = False
_feedback._PACKAGE[0] = sys.modules[__name__]

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
    'INITS',
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
    'VERDICTS',
    'Feedback',
    'engine_loss',
    'engine_net',
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
    'ex06_backward',
    'ex06_engine_order',
    'ex06_order',
    'ex06_predict',
    'ex07_engine',
    'ex07_mlp',
    'ex07_param_count',
    'ex07_predict',
    'ex07_train',
    'ex08_hvp',
    'ex08_newton',
    'ex08_no_double',
    'ex08_tanh',
    'ex09_backward',
    'ex09_bug_where',
    'ex09_fixed',
    'ex09_forward',
    'ex09_kink',
    'ex09_rel_error',
    'ex09_slope',
    'ex10_count',
    'ex10_linear',
    'ex10_mlp',
    'ex10_mlp_shapes',
    'ex10_shapes',
    'ex10_softmax_ce',
    'ex10_unbroadcast',
    'ex11_lr_ranking',
    'ex11_train_step',
    'ex12_clip_step',
    'ex12_predict',
    'ex12_truncated',
    'ex12_vanishing',
    'ex13_init_std',
    'ex13_predict',
    'ex13_sigmoid_bound',
    'exA1_predict',
    'exA1_recorded',
    'exA2_param_count',
    'exA3_max_scale',
    'exA3_unscaled',
    'exA3_zero_in_float16',
    'exA4_one_hot',
    'exA4_stays_on_gpu',
    'exA4_to_numpy',
    'gates_by_hand',
    'neuron_by_hand',
    'rnn_grad',
    'show_answer',
]

#: Every checker, for tests and for instructors who grade outside the notebooks.
ALL: dict[str, Callable[[Any], Feedback]] = {
    name: value for name, value in sorted(globals().items())
    if re.match(r'ex(\d\d|A\d)_', name) and callable(value)
}
