"""What a student changes from the view: the graph cut at a variable, the device moved.

Both go through the engine's own API (``unchain_backward()`` / ``unchain()``,
``Variable.to_device``); the view learns the outcome from the engine's events like
any other change.  A backward half-way is dropped after either, so that the next
Step sees the graph as it now is.  :class:`~autograd_lab_widget.session.stepping.StepModel`
offers these as methods.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget.session.stepping import StepModel
>>> x = chainer.Variable(np.array(2.0), name='x')
>>> h = x * 3
>>> model = StepModel(h + 1)
>>> len(unchain_preview(model, h)), h.creator is None
(1, False)
>>> unchain(model, h); h.creator is None
True
>>> model.close()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autograd_lab import backend, events

from autograd_lab_widget.present.scenes import CUT_REASON
from autograd_lab_widget.session.selection import cut_by, variable_of

if TYPE_CHECKING:
    from autograd_lab_widget.session.stepping import StepModel


def unchain_preview(model: StepModel, var: Any = None, backward: bool = True) -> set[int]:
    """The ids of the functions unchaining ``var`` (default: the selection) would cut;
    they are drawn as cut until the next selection or the unchain itself."""
    with model.lock:
        var = variable_of(model.selected if var is None else var)
        cut = cut_by(model.live.model, events.uid(var), backward)
        model.selection.preview = cut
        model.message = (f'unchain{"_backward" if backward else ""}() would cut '
                         f'{len(cut)} function(s), highlighted.')
        return cut


def unchain(model: StepModel, var: Any = None, backward: bool = True) -> None:
    """Cut the graph at ``var`` (default: the selection) with ``unchain_backward()``
    or ``unchain()``; the cut edges turn dashed and a later backward stops there."""
    with model.lock:
        var = variable_of(model.selected if var is None else var)
        cut_by(model.live.model, events.uid(var), backward)  # KeyError: not this graph's
        model.message = ''
        model.selection.preview = set()
        root = model.root_id()
        half_done = model.backward.in_flight(root)
        if half_done is not None:  # its partial grads go, as if it had never begun
            half_done.abandon(CUT_REASON)
        if backward:
            var.unchain_backward()
        else:
            var.unchain()
        model.backward.drop(root)  # a new backward must see the cut graph
        if half_done is not None:
            model.backward.notice = ('The graph was cut half-way through the backward: '
                                     'its partial grads were undone; Step starts afresh.')


def device(model: StepModel) -> str:
    """The device of the outputs' arrays (``'@numpy'`` when there are none)."""
    for v in model.roots:
        if v.array is not None:
            return str(v.device)
    return '@numpy'


def to_device(model: StepModel, target: Any) -> None:
    """Move every variable and parameter of the graph to ``target`` with
    ``Variable.to_device``.  RuntimeError (nothing moved) when the GPU is unavailable
    or a backward is half-way."""
    with model.lock:
        try:
            dev = backend.get_device(target)
        except RuntimeError as error:
            reason = backend.gpu_unavailable_reason()
            if reason is None:
                raise
            raise RuntimeError(f'cannot move to {target}: {reason}') from error
        if model.backward.in_flight(model.root_id()) is not None and model.live.run.steps:
            raise RuntimeError('a backward is half-way: Run it to the end or Reset first')
        model.message = ''
        for var in model.graph_variables():
            if var.array is not None:
                var.to_device(dev)
        model.backward.drop(model.root_id())
