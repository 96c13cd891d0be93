"""The view's history: a window of recent events over a checkpoint, replayable to any step.

Positions are indices into the window (position ``p`` = the state after its first
``p`` entries).  Back/Forward move between *step boundaries*: the start, the moment
before each backward began, just after each function's backward, and each reset.

The window keeps the latest ``history`` entries (see :mod:`~autograd_lab_widget.follow.bounds`);
once it holds 10% more, the oldest are folded into the checkpoint (the state at the
window's start), so every position inside the window replays exactly and nothing
before it is kept.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> with events.recording() as log:
...     x = chainer.Variable(np.array(2.0), name='x')
...     y = x * x + x
...     y.backward()
>>> line = Timeline(list(log))
>>> marks = line.boundaries()
>>> marks[0], marks[-1] == len(line), len(marks)
(0, True, 4)
>>> line.state_at(marks[2]).run.steps    # after the first function's backward
1
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from autograd_lab import events, graph

from autograd_lab_widget.follow import bounds
from autograd_lab_widget.follow.state import ViewReset, ViewState


def boundaries(entries: list, forward: bool = False) -> list[int]:
    """Sorted step boundaries of ``entries`` (always including 0 and ``len(entries)``);
    with ``forward``, also after each function the forward applied (the forward replay),
    which starts where the first function's inputs are made rather than at 0."""
    marks = {0, len(entries)}
    first = True
    for i, e in enumerate(entries):
        kind = e.kind
        if forward and kind == 'function_applied' and e.in_backward_of is None:
            if first:
                _first_position(entries, i, e, marks)
            first = False
            marks.add(i + 1)
        elif kind in ('backward_started', 'view_reset'):
            marks.add(i)
        elif kind == 'backward_step_done':
            end = i + 1
            if end < len(entries) and entries[end].kind == 'backward_finished':
                end += 1  # the last step and the end of its backward are one move
            marks.add(end)
    return sorted(marks)


def _first_position(entries: list, i: int, applied: events.Event, marks: set) -> None:
    """The forward replay opens on the inputs made before its first function (not on an
    empty stage): the position before that function's outputs were made."""
    outputs = set(applied.output_ids)
    start = next((k for k in range(i) if entries[k].kind == 'variable_created'
                  and entries[k].var_id in outputs), i)
    if any(x.kind == 'variable_created' for x in entries[:start]):
        marks.discard(0)
        marks.add(start)


class Timeline:
    """Entries (engine events and :class:`ViewReset` marks) over a checkpoint state.

    ``base`` is the state at the window's start (None: replay from an empty graph);
    ``live`` the state after every entry, kept up to date by :meth:`append`.
    ``patch`` is applied to every replayed model (the view uses it to give nodes the
    Link scopes that no event carried).
    """

    def __init__(self, entries: Iterable = (), base: ViewState | None = None, *,
                 patch: Callable[[graph.GraphModel], None] | None = None) -> None:
        self.forward_steps = False  # Back/Step also visit each function of the forward
        self.entries: list = list(entries)
        self._blob: bytes | None = None
        self._patch = patch
        if base is not None and not self.entries:
            # the live state starts as the checkpoint itself; the checkpoint is copied
            # (pickled) only when the first entry arrives, so a view that is only shown
            # never pays for a copy of a big graph
            self.base, self.live = None, base
            self._fresh = True
            if patch is not None:
                patch(base.model)
        else:
            self.base = base
            self._fresh = False
            self.live = self.state_at(len(self.entries))
        self.appended = len(self.entries)  # ever added (positions shift when trimmed)

    def __len__(self) -> int:
        return len(self.entries)

    def append(self, e: events.Event) -> None:
        """Add one entry at the live end."""
        if self._fresh:  # the checkpoint is the live state as it is now
            self._blob = self.live.dumps()
            self.base = ViewState.loads(self._blob)
            self._fresh = False
        self.entries.append(e)
        self.live.apply(e)
        self.appended += 1

    def reset_mark(self) -> int:
        """Add a :class:`ViewReset` mark; returns its position."""
        self.append(ViewReset())
        return len(self.entries) - 1

    def boundaries(self) -> list[int]:
        """Step boundaries of the window (see :func:`boundaries`)."""
        return boundaries(self.entries, self.forward_steps)

    def state_at(self, pos: int) -> ViewState:
        """A fresh state: the checkpoint replayed up to position ``pos``."""
        if self._fresh:  # no entry yet: the live state is the only one
            return self.live
        if self.base is None:
            state = ViewState()
        else:
            if self._blob is None:
                self._blob = self.base.dumps()
            state = ViewState.loads(self._blob)
        for e in self.entries[:pos]:
            state.apply(e)
        if self._patch is not None:
            self._patch(state.model)
        return state

    def trim(self, k: int, pinned: Iterable[int], force_at: int) -> list:
        """Fold the oldest ``k`` entries into the checkpoint; returns them.

        The checkpoint is pruned like the live model (only nodes something alive can
        reach), while no backward is open in it or once it exceeds ``force_at`` nodes.
        """
        dropped = self.entries[:k]
        del self.entries[:k]
        base = self.base if self.base is not None else ViewState()
        for e in dropped:
            base.apply(e)
        if not base.run.open or len(base.model.nodes) > force_at:
            self.prune(base, pinned)
        self.base = base
        self._blob = None
        return dropped

    @staticmethod
    def prune(state: ViewState, pinned: Iterable[int]) -> None:
        """Drop from ``state`` the nodes nothing alive can reach (see ``bounds.prune``)."""
        model = bounds.prune(state.model, pinned)
        if model is not state.model:
            state.model = model
            state.run.forget(set(model.nodes))

    def last_of(self, kind: str, pos: int, start: int = 0) -> tuple[int, events.Event | None]:
        """The last entry of ``kind`` before ``pos`` (and at or after ``start``)."""
        for i in range(pos - 1, start - 1, -1):
            if self.entries[i].kind == kind:
                return i, self.entries[i]
        return -1, None

    def next_of(self, kind: str, pos: int) -> events.Event | None:
        """The first entry of ``kind`` at or after ``pos``."""
        return next((e for e in self.entries[pos:] if e.kind == kind), None)
