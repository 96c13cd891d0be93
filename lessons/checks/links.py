"""Lesson A2, Parameters, Links and optimizers: counting what a network learns."""

from __future__ import annotations

from typing import Any

from .feedback import _checker, _compare, Feedback


@_checker
def exA2_param_count(count: Any) -> Feedback:
    """The number of scalars in an MLP 64 -> 32 -> 10 (weights and biases)."""
    return _compare('exA2_param_count', 'count', count, 64 * 32 + 32 + 32 * 10 + 10,
                    'Linear(n_in, n_out) has n_out * n_in weights and n_out biases.',
                    mistakes=[(64 * 32 + 32 * 10, 'You counted the weights only; each '
                               'Linear also has one bias per output.'),
                              (64 * 32 + 32, 'That is the first layer only; add the second, '
                               'Linear(32, 10).'),
                              (64 * 32 + 64 + 32 * 10 + 32, 'A bias belongs to each output '
                               'of a layer, not to each input.'),
                              (64 * 32 * 10, 'Layers do not multiply: add up the count of '
                               'each Linear.'),
                              (64 * 32 + 32 + 32 * 10, 'A term is missing: Linear(32, 10) has '
                               'biases too.'),
                              (64 * 32 + 32 * 10 + 10, 'A term is missing: Linear(64, 32) has '
                               'biases too.')],
                    # a count is an integer: exact
                    rtol=0, atol=0, todo='the number of scalars you count')
