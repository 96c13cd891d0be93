"""Time travel: which position of the recorded history a view shows.

A view shows either the live end (everything the engine did so far) or an earlier
step boundary of its :class:`~autograd_lab_widget.follow.timeline.Timeline`; Back and
Step move between boundaries, and Step at the live end runs the engine instead (that
is the session's job, not this one's).

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import events
>>> from autograd_lab_widget.follow.timeline import Timeline
>>> with events.recording() as log:
...     x = chainer.Variable(np.array(2.0), name='x')
...     y = x * x + 1
...     y.backward()
>>> travel = Travel(Timeline(list(log), None))
>>> travel.live, travel.back(), travel.live
(True, True, False)
>>> travel.state().run.steps, travel.forward(), travel.live   # one step before the end
(1, True, True)
"""

from __future__ import annotations

from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.follow.timeline import Timeline


class Travel:
    """The position shown in ``timeline``: ``pos`` None at the live end."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.pos: int | None = None

    @property
    def live(self) -> bool:
        return self.pos is None

    @property
    def position(self) -> int:
        """The position shown: ``len(timeline)`` at the live end."""
        return len(self.timeline) if self.pos is None else self.pos

    def state(self) -> ViewState:
        """The state shown (the live one, or one replayed from the checkpoint)."""
        if self.pos is None:
            return self.timeline.live
        return self.timeline.state_at(self.pos)

    def go_live(self) -> None:
        self.pos = None

    def back(self) -> bool:
        """To the previous step boundary; False when there is none."""
        earlier = [b for b in self.timeline.boundaries() if b < self.position]
        if not earlier:
            return False
        self.pos = earlier[-1]
        return True

    def forward(self) -> bool:
        """To the next step boundary (the last one is the live end)."""
        later = [b for b in self.timeline.boundaries() if b > self.position]
        self.pos = None if not later or later[0] >= len(self.timeline) else later[0]
        return True

    def show(self, pos: int) -> None:
        """To step boundary ``pos`` (ValueError for any other position)."""
        if pos == self.position:
            return
        if pos not in self.timeline.boundaries():
            raise ValueError(f'position {pos} is not a step boundary of the history '
                             f'(0 to {len(self.timeline)})')
        self.pos = None if pos == len(self.timeline) else pos

    def trimmed(self, k: int) -> None:
        """The oldest ``k`` entries were folded into the checkpoint: positions shift."""
        if self.pos is not None:
            self.pos = max(self.pos - k, 0)
