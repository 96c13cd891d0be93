"""GraphView: the live graph widget (anywidget).

The view is a thin widget over a :class:`~autograd_lab_widget.session.stepping.StepModel`,
which follows the engine through its events, steps the engine's own backward
(:class:`autograd_lab.BackwardStepper`, paused between steps: there is no second
backward implementation here), grades predictions and says what to draw.  The
widget keeps the synced traits and the public methods; the rest of the shell does one job
each: ``inbox`` turns browser messages into calls on the view, ``redraw`` says when
engine events redraw it, ``exports`` writes its files, ``cell_output`` puts it in a cell or
a side panel and ``lifetime`` closes or detaches views nobody needs.

>>> import numpy as np, autograd_lab as chainer
>>> x = chainer.Variable(np.array(5.0), name='x')
>>> y = x ** 2 - 2 * x + 1
>>> view = GraphView(y)
>>> view.step()            # the first function's backward ran (f4: _ + 1)
True
>>> view.predict = True    # predict first: the next step runs when the guess is in
>>> view.next_targets(), str(view.guess([1, -1]))
(['v2', 'v3'], 'Right! step 2, f3 (_ - _): v2: 1.0, v3: -1.0')
>>> view.run_to('f2')      # a breakpoint: run until f2 (_ * 2) is next
True
>>> view.run()             # and the rest
>>> float(x.grad), view.score, view.status['done']
(8.0, Score(right=1, wrong=0, skipped=0), True)
>>> view.close()
"""

from __future__ import annotations

import pathlib
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import anywidget
import ipywidgets
import traitlets

from autograd_lab import backend

from autograd_lab_widget import (arguments, bundle, cell_output, exports, framing, inbox,
                                  lifetime, messages, patches)
from autograd_lab_widget.follow import bounds
from autograd_lab_widget.inbox import WidgetWarning
from autograd_lab_widget.present import drawing, picture
from autograd_lab_widget.quiz import prediction
from autograd_lab_widget.redraw import Redraws
from autograd_lab_widget.session import guessing, selection
from autograd_lab_widget.session.stepping import StepModel

__all__ = ['BUNDLE', 'DEFAULT_HEIGHT', 'GraphView', 'WidgetWarning']

BUNDLE = bundle.BUNDLE

#: Pixel height of the stage (graph and side panel) unless ``GraphView(height=...)``.
DEFAULT_HEIGHT = 520


class GraphView(anywidget.AnyWidget):
    """A live, steppable view of the computational graph behind ``outputs``.

    Args:
        outputs: a Variable or a list of Variables; backward is stepped from the first.
        events_log: events recorded earlier (the ``%%autograd_lab`` magic passes the
            cell's events); the graph is then replayed from them.
        retain_grad / enable_double_backprop: passed to the engine's backward.
        height: pixel height of the stage (fixed: zoom and pan inside).
        options: initial drawing options (see ``drawing.DEFAULT_OPTIONS``).
        links: the model (a Link or several) that built the graph: its Link paths group
            the nodes, and big graphs are collapsed per Link before layout.
        history: how many recent events the view keeps for Back/Forward (default
            ``bounds.HISTORY_EVENTS``, 10,000); older ones are folded into a checkpoint.
        code_lines: a ``capturing_code_lines`` the ``events_log`` was recorded in: Back,
            Step and time travel then also replay the forward, one function at a time, each
            with the line of code that made it (see ``forward_replay``).
        gradient_lens: show each gradient's size next to the seed's, with flags for
            vanishing, exploding and NaN (see ``lens_cells``); also in the More menu.
        focus: the node the view opens framed on (a Variable, VariableNode or function of
            the graph, or the name drawn on it; see ``framing``); default the next function.

    Memory stays bounded however long the view stays open (see ``bounds``).
    """

    # Text, not a path: anywidget watches a path for changes and the watcher's callback
    # keeps every instance (and so its graph) alive forever.  A small loader where the
    # page can share one copy of the bundle (``bundle``: once per page, not per view).
    _esm = bundle.esm()
    #: The kernel's holder of the bundle, which the loader asks the page for.
    _agl_bundle = traitlets.Instance(ipywidgets.Widget, allow_none=True).tag(
        sync=True, **ipywidgets.widget_serialization)

    dot = traitlets.Unicode('').tag(sync=True)
    structure_key = traitlets.Unicode('').tag(sync=True)
    nodes = traitlets.Dict().tag(sync=True)  # all cells; a step sends a patch (``patches``)
    nodes_version = traitlets.Int(0).tag(sync=True)
    nodes_patch = traitlets.Dict().tag(sync=True)
    centre = traitlets.Int(None, allow_none=True).tag(sync=True)  # the next function
    #: The node the caller named (its id; any name of it is taken, see ``framing``).
    focus = traitlets.Any(None).tag(sync=True)
    _check_focus = traitlets.validate('focus')(framing.check_focus)
    status = traitlets.Dict().tag(sync=True)
    ledger = traitlets.Dict().tag(sync=True)
    panel = traitlets.Dict().tag(sync=True)
    options = traitlets.Dict().tag(sync=True)
    orders = traitlets.List().tag(sync=True)
    predict = traitlets.Bool(False).tag(sync=True)
    harder = traitlets.Bool(False).tag(sync=True)  # predict local derivatives too (no rule)
    height = traitlets.Int(DEFAULT_HEIGHT, min=messages.MIN_HEIGHT,
                           max=messages.MAX_HEIGHT).tag(sync=True)
    device = traitlets.Unicode('@numpy').tag(sync=True)
    gpu_available = traitlets.Bool(False).tag(sync=True)
    gpu_reason = traitlets.Unicode('').tag(sync=True)
    selected_id = traitlets.Int(None, allow_none=True, min=1).tag(sync=True)
    position = traitlets.Int(0, min=0).tag(sync=True)
    #: Ties this view's static copies (see :meth:`_ipython_display_`) to the live widget,
    #: which hides them where it draws.
    static_key = traitlets.Unicode('').tag(sync=True)

    @arguments.checked  # unknown keywords and wrong values refused, saying what to give
    def __init__(self, outputs: Any = None, *, events_log: Sequence | None = None,
                 retain_grad: bool = False, enable_double_backprop: bool = False,
                 height: int = DEFAULT_HEIGHT, options: dict | None = None, links: Any = None,
                 history: int = bounds.HISTORY_EVENTS, gradient_lens: bool = False,
                 code_lines: Any = None, focus: Any = None, **kwargs: Any) -> None:
        if gradient_lens:  # the lens's keyword (lens_cells): the option, set from the start
            options = {**(options or {}), 'gradient_lens': True}
        model = StepModel(outputs, events_log=events_log, retain_grad=retain_grad,
                          enable_double_backprop=enable_double_backprop, links=links,
                          history=history, code_lines=code_lines)
        try:
            self._setup(model, height, options, kwargs)
            self.focus = focus
        except BaseException:
            model.close()  # a bad argument leaves no subscriber behind
            raise
        lifetime.following(self)

    def _setup(self, model: StepModel, height: int, options: dict | None,
               kwargs: dict) -> None:
        super().__init__(**kwargs)
        self._agl_bundle = bundle.holder()
        if self.harder and not self.predict:
            self.predict = True  # before the model is set: nothing redraws yet
        self._model = model
        model.predict = self.predict
        model.harder = self.harder
        self.static_key = picture.new_key()
        self._redraws, self._patches = Redraws(), patches.Patches()
        self._shown: Any = None  # the graph model last drawn (clicks name its nodes)
        self._lock = threading.RLock()
        self.height = int(height)
        opts = dict(drawing.DEFAULT_OPTIONS)
        opts.update(messages.parse_options(options or {}))
        self.options = opts
        reason = backend.gpu_unavailable_reason()
        self.gpu_available = reason is None
        self.gpu_reason = reason or ''
        self.device = model.device()
        me = weakref.ref(self)

        def changed() -> None:
            view = me()
            if view is not None:
                view._redraws.request(view.refresh)

        model.on_change = changed
        self.on_msg(inbox.receive)
        self.refresh()

    @property
    def model(self) -> StepModel:
        """The kernel-side stepping model this widget shows (no widget library in it)."""
        return self._model

    @property
    def score(self) -> prediction.Score:
        """Predict mode's score: steps guessed right, wrong, and revealed unguessed."""
        return self._model.score

    @property
    def selected(self) -> Any:
        """The live Variable (or FunctionNode) clicked in the browser, or None.

        When the Variable object was garbage-collected but its node lives on in the graph,
        this is its VariableNode.
        """
        return self._model.selected

    def name_of(self, obj: Any) -> str:
        """The name drawn on the node of ``obj`` (a Variable, FunctionNode or id)."""
        ident = selection.ident_of(obj, 'name_of() takes a Variable, a FunctionNode or a node '
                                   "id (an int)", "; to pick a node by its name: select('x')")
        return self._model.names.of(self._model.live.model, ident)

    def next_targets(self) -> list[str]:
        """Names of the variables the next step sends gradients to (one per input slot)."""
        return self._model.next_targets()

    # ---- drawing -------------------------------------------------------------------------

    def refresh(self) -> None:
        """Redraw now: DOT, cells, status, ledger and panel from the shown position."""
        with self._lock, self._redraws.drawing():
            scene = self._model.scene(dict(self.options))
            frame = scene.frame
            with self.hold_sync():
                self.position = scene.position
                self.status = scene.status
                self.ledger = scene.ledger
                self.centre = frame.focus
                self.orders = scene.orders
                self.structure_key = frame.key
                self.dot = frame.dot
                patches.write(self, frame.key + frame.dot, frame.nodes)
                self.panel = scene.panel
                self.selected_id = self._model.selected_id
            self._shown = self._model.state().model

    def _act(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a model action with redraws held until it is over, then redraw once."""
        try:
            with self._redraws.acting():
                return fn(*args, **kwargs)
        finally:
            self.refresh()

    # ---- stepping --------------------------------------------------------------------

    def step(self) -> bool:
        """One step: the next function's backward, in the engine (at the live end), or
        the next recorded step (in history).  False when there is nothing to step.
        In predict mode a step run without :meth:`guess` counts as skipped."""
        return self._act(self._model.step)

    def run(self) -> None:
        """Run every remaining step (the engine's stepper again, announced step by step)."""
        self._act(self._model.run)

    def run_to(self, target: Any) -> bool:
        """Run backward until ``target`` (a FunctionNode, its id, or the name drawn on it,
        like ``'f3'``) is the next function; ValueError if backward never stops there."""
        return self._act(self._model.run_to, target)

    def back(self) -> bool:
        """Show the previous step boundary of the recorded history (time travel)."""
        return self._act(self._model.back)

    def forward(self) -> bool:
        """Show the next recorded step; at the live end, run a new :meth:`step`."""
        return self._act(self._model.forward)

    def reset(self) -> None:
        """Back to the picture from before backward: drop the stepper so that the next
        Step starts a fresh backward, clear the graph's grads and give the leaves back
        those they held before this view's backward began (with none begun since the
        last Reset they stay cleared), return to the live end.  Back still visits what
        happened before."""
        self._act(self._model.reset)

    def guess(self, value: Any = None, *, local: Any = None,
              **by_name: Any) -> prediction.Verdict:
        """Predict what the next step sends to its inputs; the step runs and the guess
        is graded (see :meth:`StepModel.guess`).  Returns the Verdict (``.right``; its
        text says what was right and the true values).  With :attr:`harder` on,
        ``local`` names the step's local derivatives too.

        >>> import autograd_lab as chainer, numpy as np
        >>> x = chainer.Variable(np.array(0.0), name='x')
        >>> view = GraphView(chainer.functions.sin(x), harder=True)
        >>> view.guess(1.0, local='cos(0)').right     # ∂y/∂x = cos(x) = 1, then x gets 1 × 1
        True
        >>> view.close()
        """
        return self._act(self._model.guess, value, local=local, **by_name)

    def reveal(self) -> str:
        """Show the answer after a wrong guess: the verdict with the right numbers (a
        first wrong try shows what is off only, so that its retry is no copy)."""
        return self._act(guessing.reveal, self._model)

    @traitlets.observe('predict')
    def _predict_changed(self, change: Any) -> None:
        model = getattr(self, '_model', None)
        if model is None:  # GraphView(y, predict=True): _setup hands it to the model
            return
        model.predict = bool(change['new'])
        if not self._redraws.busy:
            self.refresh()

    @traitlets.observe('harder')
    def _harder_changed(self, change: Any) -> None:
        model = getattr(self, '_model', None)
        if model is None:  # GraphView(y, harder=True): _setup hands it to the model
            return
        model.harder = bool(change['new'])
        if change['new'] and not self.predict:
            self.predict = True  # asking harder questions means asking them
        elif not self._redraws.busy:
            self.refresh()

    # ---- selection, unchain, devices ---------------------------------------------------

    def select(self, target: Any) -> None:
        """Select a node by id, by the name drawn on it, or by object; None clears."""
        self._act(self._model.select, target, self._shown)

    def unchain_preview(self, var: Any = None, backward: bool = True) -> set[int]:
        """Highlight (and return the ids of) what unchaining ``var`` would cut."""
        return self._act(self._model.unchain_preview, var, backward)

    def unchain(self, var: Any = None, backward: bool = True) -> None:
        """Cut the graph at ``var`` (default: the selection) with ``unchain_backward()``
        (``backward=True``) or ``unchain()``; the cut edges turn dashed and a later
        backward stops there."""
        self._act(self._model.unchain, var, backward)

    def to_device(self, device: Any) -> None:
        """Move every variable and parameter of the shown graph to ``device``
        (``'@numpy'``, ``'@cupy:0'``, ...) with ``Variable.to_device``.

        Raises RuntimeError (and changes nothing) when the GPU is unavailable or a
        backward is half-way (finish or reset it first).
        """
        def move() -> None:
            self._model.to_device(device)
            self.device = self._model.device()
        self._act(move)

    # ---- what the browser writes ----------------------------------------------------

    @traitlets.validate('options')
    def _check_options(self, proposal: Any) -> dict:
        """Options are checked, and merged over the current ones (every key stays set)."""
        try:
            checked = messages.parse_options(proposal['value'])
        except messages.BadMessage as error:
            raise traitlets.TraitError(f'bad drawing options: {error}') from error
        return {**drawing.DEFAULT_OPTIONS, **self.options, **checked}

    def set_state(self, sync_data: Any) -> None:
        """Synced traits written by the browser (ipywidgets' 'update' message), checked
        and acted on as their messages are (see :func:`inbox.set_state`)."""
        inbox.set_state(self, sync_data)

    # ---- export, docking, lifetime ------------------------------------------------------

    def event_log(self) -> list[dict]:
        """The recorded events as JSON-ready dicts (arrays as lists, summaries as dicts)."""
        return [exports.event_dict(e) for e in self._model.event_log()]

    def event_log_json(self) -> str:
        """:meth:`event_log` as strict JSON text (NaN as ``"NaN"``: see ``exports``)."""
        return exports.event_log_json(self.event_log())

    def to_html(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write a self-contained HTML replay (bundle inlined, one frame per step)."""
        return exports.write_html(self, pathlib.Path(path))

    def to_dot(self) -> str:
        """The Graphviz source of the picture shown, every text as on screen (the ``dot``
        trait is the layout the browser has, whose texts it rewrites in place)."""
        return self._model.to_dot(dict(self.options))

    def frames(self) -> list[dict]:
        """One drawing per step boundary of the history (see :meth:`StepModel.frames`)."""
        return self._model.frames(dict(self.options))

    # ---- showing it: live, static, docked ------------------------------------------------

    def _ipython_display_(self, **kwargs: Any) -> None:
        """Show the live widget, and after it a static picture of the graph as it is now,
        for viewers that run no widget code (see :mod:`~autograd_lab_widget.cell_output`)."""
        live = super()._repr_mimebundle_(**kwargs) if self.comm is not None else None
        cell_output.show(self, live)

    def _picture(self, key: str) -> picture.Picture:
        return picture.picture(self._model, dict(self.options), key=key)

    def snapshot(self) -> picture.Picture:
        """A static picture of the graph as the view shows it now: for a handout after a
        few Steps (the cell's value is the picture; ``.save('step3.svg')`` writes it).

        It is the live view's drawing (name, value and grad on every variable; the mark
        on every function that ran; the next one outlined), laid out in Python with no
        system Graphviz, at most ``picture.MAX_NODES`` nodes (the part around the next
        function).  It stays as it is when the view moves on.
        """
        return self._picture('')

    def dock(self, title: str = 'autograd_lab graph', anchor: str = 'split-right') -> Any:
        """Show the view in a JupyterLab side panel (needs the ``sidecar`` package).

        Hosts without JupyterLab's side panels (marimo, VS Code, Colab) raise
        :class:`~autograd_lab_widget.hosts.DockUnavailable`, which says what to use there.
        """
        return cell_output.dock(self, title, anchor)

    def detach(self) -> None:
        """Stop following the engine and let go of the graph (the drawing stays as it is).

        Views hold their outputs so that they can step them; in a notebook whose cells are
        re-run, the oldest views beyond ``lifetime.MAX_LIVE_VIEWS`` are detached automatically so
        that old graphs can be freed.
        """
        lifetime.detach(self)

    def close(self) -> None:
        """Stop following the engine, let go of the graph and close the widget (and its
        layout, the second widget connection every view opens)."""
        lifetime.detach(self, redraw=False)  # closed: nothing will show the drawing
        layout = self.__dict__.get('_trait_values', {}).get('layout')
        super().close()
        if layout is not None:
            layout.close()
        lifetime.let_go(self)


lifetime.hook()  # in a notebook: from the cell that imports us on, cell runs are followed
