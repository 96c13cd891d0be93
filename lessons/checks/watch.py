"""How a gradient was computed, watched so that the code watched cannot blind it.

A checker that asks for a backward of the student's own runs it inside :func:`watching`,
which records the engine's events (:func:`autograd_lab.events.recording`) *and* follows
every function call with the interpreter's profiler.  Code that sets
``autograd_lab.events.recorder = None`` before calling ``chainer.grad`` (and puts it back
after) leaves no events, but the profiler still sees the engine's backward start, and
sees the recorder gone, at the next call.  Replacing one of the engine's functions in the
middle of the call, or switching the profiler off, is seen the same way.  What it saw:

- :attr:`Watch.engine_backward`: the engine's backward ran (by events or by the profiler);
- :attr:`Watch.tampered`: what the code changed in the watching machinery, in words.

>>> import numpy as np, autograd_lab as chainer, autograd_lab.events as events
>>> x = chainer.Variable(np.array(2.0))
>>> def blinded():
...     kept, events.recorder = events.recorder, None
...     try:
...         return chainer.grad([x * x], [x])
...     finally:
...         events.recorder = kept
>>> with watching() as seen:
...     _ = blinded()
>>> seen.engine_backward, seen.tampered
(True, ['removed autograd_lab.events.recorder'])
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

import autograd_lab
from autograd_lab import FunctionNode, Variable, backprop, events

from .feedback import _wrong

#: The code that every backward of the engine runs (Variable.backward, chainer.grad and
#: the stepper all make a BackwardStepper), taken when this module loads.
_ENGINE_BACKWARD = {backprop.BackwardStepper.__init__.__code__}
#: (namespace, name, what it holds now): the engine's functions a backward could swap.
_GUARDED = [(space, name, space[name]) for space, names in (
    (vars(autograd_lab), ('grad', 'Variable', 'FunctionNode')),
    (vars(backprop), ('grad', 'backward', 'BackwardStepper')),
    (vars(Variable), ('backward', 'grad', 'grad_var')),
    (vars(FunctionNode), ('apply', 'backward')),
    (vars(backprop.BackwardStepper), ('__init__', 'run', 'step', '_run_backward')),
    (vars(events), ('recording', 'subscribe')),
) for name in names if name in space]
_EVENTS = vars(events)
#: Calls that turn the profiler off (or over) from inside.
_UNWATCH = {sys.setprofile, sys.settrace, threading.setprofile, threading.settrace}


class Watch:
    """What :func:`watching` saw: the events (``log``), whether the engine's backward ran,
    and what the code changed in the machinery."""

    def __init__(self) -> None:
        self.log: Any = []
        self.engine_backward = False
        self.tampered: list[str] = []

    def _saw(self, what: str) -> None:
        if what not in self.tampered:
            self.tampered.append(what)


def _untampered(exercise: str, seen: Watch) -> None:
    """Stops the check (wrong) if the code watched changed the watching machinery."""
    if seen.tampered:
        _wrong(exercise, f'your code {" and ".join(seen.tampered)} while it ran.',
               'A check watches how your code gets its answer: leave the engine, its events '
               'and the profiler as they are, and compute the gradient yourself.')


@contextlib.contextmanager
def watching() -> Iterator[Watch]:
    """Records the events of the block and follows its calls (see the module's text)."""
    seen = Watch()
    with events.recording() as log:
        recorder, done = _EVENTS['recorder'], []

        def profile(frame: Any, event: str, arg: Any) -> None:
            if done:
                return
            if event == 'c_call' and arg in _UNWATCH:
                seen._saw('switched off the profiler that watches it')
            elif event == 'call' and frame.f_code in _ENGINE_BACKWARD:
                seen.engine_backward = True
            if _EVENTS.get('recorder') is not recorder:
                seen._saw('removed autograd_lab.events.recorder')
            for space, name, held in _GUARDED:
                if space.get(name) is not held:
                    seen._saw(f"replaced the engine's {name}")

        before = sys.getprofile()
        sys.setprofile(profile)
        threading.setprofile(profile)
        try:
            yield seen
        finally:
            if sys.getprofile() is not profile:
                seen._saw('switched off the profiler that watches it')
            profile(None, 'end', None)  # what is still swapped at the end
            done.append(True)
            sys.setprofile(before)
            threading.setprofile(None)  # type: ignore[arg-type]
    seen.log = list(log)
    seen.engine_backward = seen.engine_backward or any(
        e.kind == 'backward_started' for e in seen.log)
