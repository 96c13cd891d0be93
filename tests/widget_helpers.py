"""Helpers shared by the widget model tests (tests/test_widget_*.py)."""

from __future__ import annotations

import numpy as np

import autograd_lab as chainer
from autograd_lab_widget import inbox


def send(view, content):
    """Deliver ``content`` as if the browser had sent it (the widget's message handler)."""
    inbox.receive(view, content, [])


def polynomial(value=3.0, name='x'):
    """x and y = x**2 - 2*x + 1 (x is used twice, so its grad is accumulated)."""
    x = chainer.Variable(np.array(value), name=name)
    return x, x ** 2 - 2 * x + 1


def function_ids(view):
    return {i for i, n in view.model.live.model.nodes.items() if n.category == 'function'}
