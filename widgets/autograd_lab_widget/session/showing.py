"""What a session shows: its state at a position, handed to ``present`` to be drawn.

:func:`shown` gathers, for one position of the history, everything the picture
depends on into a frozen :class:`~autograd_lab_widget.present.scenes.Shown`; the
scenes, stills and replay frames are then pure functions of it.  :class:`Showing`
keeps the one thing drawing carries from one picture to the next: the live view's
:class:`~autograd_lab_widget.present.node_cells.Look` (cell widths, so that a cell does
not shrink and the stage does not jump) and the window of nodes drawn.  Drawings made
for elsewhere (a static picture, the HTML replay) use a copy of the look.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget.session.stepping import StepModel
>>> x = chainer.Variable(np.array(2.0), name='x')
>>> y = x * x
>>> model = StepModel(y)
>>> now = shown(model, None)           # the live end, before any step
>>> now.live, now.finished, now.upcoming.func_id == events.uid(y.creator_node)
(True, False, True)
>>> model.close()
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING

from autograd_lab import events

from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.present import drawing, forward_replay, node_cells, panel, scenes
from autograd_lab_widget.session import engine_steps, guessing, next_step, others

if TYPE_CHECKING:
    from autograd_lab_widget.session.stepping import StepModel


def shown(model: StepModel, pos: int | None, *, replay: bool = False) -> scenes.Shown:
    """What is shown at position ``pos`` (None: the live end).  A frame of the HTML
    replay (``replay``) shows no selection and no unchain preview."""
    timeline = model.timeline
    state = model.live if pos is None else timeline.state_at(pos)
    state.model.refresh()
    model.names.learn(state.model)
    up = model.upcoming_at(pos, state)
    live, marks = pos is None, not replay
    return scenes.Shown(
        state=state, upcoming=up, names=model.names, root=model.root_id(),
        roots=[events.uid(r) for r in model.roots],
        position=len(timeline) if live else pos, length=len(timeline),
        live=live, replay=replay, finished=model.finished(state),
        own_run=state.run.run_id in model.backward.own_runs,
        targets=[] if replay else model.targets(state, up),
        target_labels=[] if replay else next_step.target_labels(state, up, model.names),
        idle=model.idle_reason() if live else None,
        held=functools.partial(engine_steps.leaf_grads, model),
        held_from=functools.partial(others.ran_by, model),
        nan_start=functools.partial(engine_steps.nan_start_grads, model),
        selected_id=model.selection.id if marks else None,
        selected=model.selection.obj if marks and live else None,
        preview=frozenset(model.selection.preview) if marks else frozenset(),
        expanded=model.expanded, predict=model.quiz.on, harder=model.quiz.harder,
        locals=[] if replay else guessing.local_labels(model, state, up),
        held_back=model.quiz.held_back(guessing.step_key(state)) if state.run.last
        and not replay else frozenset(),
        score=model.quiz.score.as_dict(),
        verdict=model.quiz.verdict, shown_verdict=_verdict(model, state),
        message=model.message, notice=model.backward.notice,
        building='' if model.code_lines is None else forward_replay.caption(
            state, model.code_lines, model.names,
            timeline.entries if live else timeline.entries[:pos]))


def _verdict(model: StepModel, state: ViewState) -> str:
    """The verdict of the step just run in ``state`` (live or in history), if any."""
    return model.quiz.verdict_of(guessing.step_key(state)) if state.run.last else ''


class Showing:
    """The live view's drawings of a session (see the module docstring)."""

    def __init__(self, model: StepModel, *, grows: bool = False) -> None:
        self.model = model
        self.look = node_cells.Look(grows=grows)
        self.window: frozenset | None = None

    def forget(self, keep: set) -> None:
        """Cell widths of nodes outside ``keep`` go (after a prune)."""
        self.look.slots = {i: k for i, k in self.look.slots.items() if i in keep}

    def scene(self, options: dict, *, replay: bool = False) -> scenes.Scene:
        """Everything to draw at the shown position under ``options``."""
        made = scenes.scene(shown(self.model, self.model.travel.pos, replay=replay), options,
                            self.look, self.window)
        self.window = made.frame.window
        return made

    def look_copy(self) -> node_cells.Look:
        """The live view's look, copied: drawings made for elsewhere leave it as it was."""
        return dataclasses.replace(self.look, slots=dict(self.look.slots), last=None)

    def still(self, options: dict) -> tuple[drawing.Frame, dict]:
        """The drawing of the shown position and its status, the live view untouched.
        A smaller ``options['max_nodes']`` than the live view's draws the part around
        the next function."""
        now = shown(self.model, self.model.travel.pos)
        window = self.window
        keep = window if window is not None and len(window) <= options['max_nodes'] else None
        return scenes.draw(now, options, self.look_copy(), keep), scenes.status(now)

    def frames(self, options: dict) -> list[dict]:
        """One drawing per step boundary of the history (the HTML replay's)."""
        look, timeline = self.look_copy(), self.model.timeline
        end = len(timeline)
        made = (scenes.replay_frame(shown(self.model, None if pos == end else pos,
                                          replay=True), options, look)
                for pos in timeline.boundaries())
        return [frame for frame in made if frame is not None]

    def panels(self, limit: int) -> dict[str, dict]:
        """Inspect panels of every node at the end of the history (at most ``limit``)."""
        timeline, names = self.model.timeline, self.model.names
        state = timeline.state_at(len(timeline))
        if len(state.model.nodes) > limit:
            return {}
        state.model.refresh()
        names.learn(state.model)
        return {str(i): panel.payload(state, i, None, names) for i in state.model.nodes}
