"""What to draw at one position, made from the state shown and the view's marks on it.

The session (:class:`~autograd_lab_widget.session.stepping.StepModel`) says what is shown
in a :class:`Shown`: the :class:`~autograd_lab_widget.follow.state.ViewState` at one
position, the step to come, the selection, the texts of the last action.  The functions
here turn it into a :class:`Scene` (drawing, status line, ledger, inspect panel) and
change nothing: the live view, the static picture and each frame of the HTML replay are
the same function of different arguments.
"""

from __future__ import annotations

from collections.abc import Callable
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from autograd_lab import graph

from autograd_lab_widget.follow.state import ViewState
from autograd_lab_widget.naming import Names
from autograd_lab_widget.present import (drawing, forward_replay, gone, held_back, ledger,
                                         panel, shaping)
from autograd_lab_widget.present.node_cells import Look


@dataclass
class Scene:
    """What to draw at one position: the drawing, the status line, the ledger, the
    inspect panel."""

    frame: drawing.Frame
    status: dict
    ledger: dict
    panel: dict
    orders: list
    position: int


@dataclass(frozen=True)
class Shown:
    """Everything a scene is made from (the session fills it in; nothing here reads the
    session itself).

    ``live``: the live end is shown; ``replay``: a frame of the HTML replay, told as if
    it were happening now.  ``held`` lists, when called, the leaves that hold grads
    from a backward that already ran (walking the live objects costs, so only the
    status sentence that names them calls it).
    """

    state: ViewState
    upcoming: ledger.Upcoming | None
    names: Names
    root: int | None
    roots: list[int]
    position: int
    length: int
    live: bool
    finished: bool
    own_run: bool
    targets: list[str]
    #: the targets as the guess boxes are labelled (a variable in two slots: per slot)
    target_labels: list[str] = field(default_factory=list)
    replay: bool = False
    idle: str | None = None
    held: Callable[[], list[str]] = list
    #: when called, which backward another view ran gave the leaves their grads ('' none)
    held_from: Callable[[], str] = str
    #: when called, the parameters whose grads are all NaN, as a new Link's start
    nan_start: Callable[[], list[str]] = list
    selected_id: int | None = None
    selected: Any = None
    preview: frozenset[int] = frozenset()
    expanded: set[str] = field(default_factory=set)
    predict: bool = False
    #: the harder predict mode: the guess names the local derivatives too
    harder: bool = False
    #: the local derivatives the harder mode asks for, one label per target ('∂y/∂x')
    locals: list[str] = field(default_factory=list)
    #: the names whose right numbers the shown verdict holds back (present.held_back)
    held_back: frozenset = frozenset()
    score: dict = field(default_factory=dict)
    verdict: str = ''
    shown_verdict: str = ''
    message: str = ''
    notice: str = ''
    #: the forward replay's caption here (present.forward_replay; '' without code lines)
    building: str = ''

    @property
    def next_id(self) -> int | None:
        return self.upcoming.func_id if self.upcoming is not None else None


def roles(shown: Shown, options: dict) -> dict[int, str]:
    """The role of each marked node: search hit, upstream/downstream of the selection,
    cut by the unchain preview, selected, next to run."""
    model = shown.state.model
    found: dict[int, str] = {}
    for i in shaping.search_hits(model, options['search'], shown.names.table(model)):
        found[i] = 'search'
    sel = shown.selected_id
    if sel is not None and sel in model.nodes and options['highlight_direction'] != 'none':
        up = options['highlight_direction'] == 'up'
        for i in (model.upstream(sel) if up else model.downstream(sel)):
            found[i] = 'upstream' if up else 'downstream'
    for i in shown.preview:
        found[i] = 'cut'
    if sel is not None:
        found[sel] = 'selected'
    if shown.next_id is not None:
        found[shown.next_id] = 'next'
    return {i: r for i, r in found.items() if i in model.nodes}


def total_steps(model: graph.GraphModel, root: int | None) -> int | None:
    """How many steps a backward from ``root`` takes (None: no output shown)."""
    if root is None or root not in model.nodes:
        return None
    return sum(1 for i in model.upstream(root) if model.nodes[i].category == 'function'
               and 'unchained' not in model.nodes[i].states)


def status(shown: Shown) -> dict:
    """The status payload: the step counter, what the view shows, what is possible."""
    model, run, up = shown.state.model, shown.state.run, shown.upcoming
    live = shown.live or shown.replay
    total = total_steps(model, shown.root)
    st: dict = {'step': run.steps, 'total': total, 'live': live,
                'position': shown.position, 'length': shown.length,
                'can_back': shown.position > 0, 'predict': shown.predict,
                'score': shown.score, 'verdict': shown.verdict,
                'message': shown.message, 'notice': shown.notice if live else '',
                'next_id': shown.next_id,
                'last_id': run.last.func_id if run.last is not None else None,
                'run': None if run.run_id is None else ('view' if shown.own_run else 'code'),
                'targets': [] if shown.replay else shown.targets,
                'target_labels': [] if shown.replay else shown.target_labels,
                'harder': shown.harder,
                'locals': [] if shown.replay or not shown.predict else shown.locals,
                'can_reveal': bool(shown.held_back) and not shown.replay,
                'done': up is None}
    st['text'] = _sentence(shown, st, live, total)
    st['can_step'] = not shown.live or up is not None
    return st


#: The reason a backward abandoned by an unchain ends with (see ``graph_edits.unchain``).
CUT_REASON = 'the graph was cut by unchain during this backward'


def _sentence(shown: Shown, st: dict, live: bool, total: int | None) -> str:
    """The status line's sentence (and, for a view made after backward, its notice)."""
    model, run, up, root = shown.state.model, shown.state.run, shown.upcoming, shown.root
    of_total = f' of {total}' if total else ''
    output = shown.names.table(model).get(root, 'the output')
    if shown.idle is not None and shown.live:
        return shown.idle
    if not live:
        history = (f'History: step {run.steps}{of_total} (Step goes forward, Run to end '
                   'returns to now).')
        return shown.building or history
    if run.finished and not run.ok and root in run.roots:
        if CUT_REASON in (run.error or ''):  # session.graph_edits.unchain abandoned it
            return ('The graph was cut half-way through the backward: its partial grads '
                    'were undone (every grad is as before it began). Step starts afresh '
                    'on the cut graph.')
        return (f'Backward failed at step {run.steps + 1}: {run.error}. Every grad '
                'is as before it began: Step tries again, Back shows the steps that '
                'ran, Reset starts over.')
    if shown.finished:
        lost = [shown.names.table(model).get(i, f'#{i}') for i in gone.gone_leaves(shown.state)]
        if lost and (shown.own_run or shown.replay):
            return gone.finished(lost)
        return ('Backward finished: every gradient has arrived.' if shown.own_run
                or shown.replay else f'{output}.backward() ran from your code '
                f'({run.steps} steps). Step goes through it again here, adding to '
                'these grads (clear them first to start afresh).')
    if up is not None and run.run_id is not None and run.open:
        return f'Step {run.steps}{of_total}: next {shown.names.described(model, up.func_id)}.'
    if up is not None and shown.live and not shown.replay and (held := shown.held()):
        # a view made after backward: the grads shown come from it, and stepping adds
        st['notice'] = st['notice'] or 'Reset: clear them. Step: add to them.'
        source = shown.held_from()
        fresh = shown.nan_start()
        if not source and fresh and len(fresh) == len(held):
            # no backward ran: a new Link's parameters start with NaN grads (Chainer's
            # way of showing a missing cleargrads()), and a backward would add to them
            st['notice'] = st['notice'] or 'Reset: clear them, then Step.'
            return (f'{_listed(sorted(fresh))}: NaN grads, as a new Link\'s parameters '
                    'start. Call cleargrads() on the model (or Reset here) before '
                    'backward: backward adds to what a grad holds.')
        st['counter'] = 'Already ran'  # not "Step 0 of 3" beside grads shown
        return f'{_listed(sorted(held))}: grads from {source or "a backward that already ran"}.'
    if up is not None:
        text = (f'Press Step to run backward from {output}, one function at a time'
                + (f' ({total} steps).' if total else '.'))
        return f'{shown.building}. {text}' if shown.building else text
    return 'Nothing more to step.'


def _listed(names: list[str], most: int = 4) -> str:
    """A list a status line can hold: the first few, then how many more."""
    more = len(names) - most
    return ', '.join(names[:most]) + (f' and {more} more' if more > 0 else '')


def focus(shown: Shown) -> list[int]:
    """The nodes a big graph's drawing is centred on: the next function and the
    selection, else the function that ran last."""
    centre = [i for i in (shown.next_id, shown.selected_id) if i is not None]
    if not centre and shown.state.run.last is not None:
        centre = [shown.state.run.last.func_id]
    return centre


def draw(shown: Shown, options: dict, look: Look,
         keep: frozenset | None) -> drawing.Frame:
    """The drawing of ``shown`` (``keep``: the window of a big graph drawn before, kept
    while it still holds what matters); the model must be refreshed and its names
    learnt (the session's :meth:`shown` does both)."""
    state = shown.state
    run = state.run
    look.fresh = ({i for i, _, _ in run.last.targets}
                  if run.last is not None and run.current is None else set())
    roots = [i for i in shown.roots if i in state.model.nodes]
    frame = drawing.draw(state, options, names=shown.names, roots=roots,
                         roles=roles(shown, options), expanded=shown.expanded,
                         focus=focus(shown), keep=keep, look=look)
    # the forward replay: every position on the whole graph's layout (a still stage)
    return forward_replay.steady(frame, look) if shown.building else frame


def scene(shown: Shown, options: dict, look: Look,
          keep: frozenset | None) -> Scene:
    """Everything to draw for ``shown`` under ``options``."""
    frame = draw(shown, options, look, keep)
    st = status(shown)
    if frame.window is not None:
        st['note'] = (f'{frame.shown} of {frame.total} nodes drawn: the part around '
                      'the next function (select or search to look elsewhere).')
    elif frame.shown < frame.total:
        st['note'] = (f'{frame.shown} of {frame.total} nodes drawn one by one'
                      + (f', {frame.links} Links collapsed (click one to expand)'
                         if frame.links else '') + '.')
    else:
        st['note'] = ''
    state = shown.state
    book = {'sections': ledger.sections(state, shown.names, upcoming=shown.upcoming,
                                        verdict=shown.shown_verdict, quiz=shown.predict,
                                        harder=shown.harder)}
    orders = sorted({n.order for n in state.model.nodes.values()} | {0})
    body = inspect(shown)
    if shown.held_back and not shown.replay:  # a wrong first guess: no copy for its retry
        frame, book, body = _cover(shown, frame, book, body)
    return Scene(frame, st, book, body, orders, shown.position)


def _cover(shown: Shown, frame: drawing.Frame, book: dict, body: dict) -> tuple:
    """The scene's parts with the numbers the verdict holds back covered."""
    state, run = shown.state, shown.state.run
    table = shown.names.table(state.model)
    ids = {i for i, _, _ in run.last.targets if table.get(i) in shown.held_back}
    up = shown.upcoming
    f = state.model.nodes.get(up.func_id) if up is not None else None
    feeds_next = f is not None and bool(ids & set(f.output_ids))
    return (dataclasses.replace(frame, nodes=held_back.cover_nodes(frame.nodes, ids)),
            held_back.cover_ledger(book, set(shown.held_back), feeds_next),
            held_back.cover_panel(body, ids))


def inspect(shown: Shown) -> dict:
    """The inspect panel of the selection ({} when nothing is selected)."""
    sel, state = shown.selected_id, shown.state
    if sel is None:
        return {}
    model = state.model
    if sel not in model.nodes:
        return {'id': sel, 'title': f'#{sel}', 'rows': [],
                'note': 'This node is not part of the graph at this point in the history.'}
    root = shown.root
    can_run_to = (shown.live and model.nodes[sel].category == 'function'
                  and root is not None and sel in model.upstream(root)
                  and sel not in state.run.done and not shown.finished)
    body = panel.payload(state, sel, shown.selected if shown.live else None, shown.names,
                         can_run_to=can_run_to)
    if not shown.live:
        body['note'] = 'History: values as recorded at this step (Step to go forward).'
    return body


def replay_frame(shown: Shown, options: dict, look: Look) -> dict | None:
    """One frame of the HTML replay (None before a recorded cell ran: nothing to draw);
    ``look`` is the replay's own, shared by its frames so that cells keep their widths."""
    made = scene(shown, options, look, None)
    if not made.frame.nodes and shown.position < shown.length:
        return None
    return {'dot': made.frame.dot, 'key': made.frame.key, 'nodes': made.frame.nodes,
            'status': made.status, 'ledger': made.ledger, 'position': shown.position,
            'focus': made.frame.focus}

