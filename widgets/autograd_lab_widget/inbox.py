"""What the browser sends a view, turned into calls on it.

``messages`` checks what arrives (kinds, actions, options, the traits the browser may
write); this module acts on it: :data:`ON_MESSAGE` says what each kind of message does,
:data:`ON_ACTION` what each toolbar button does.  Nothing the browser sends raises into
the kernel: a problem becomes a :class:`WidgetWarning`, logged, and the status line
says what went wrong.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget.view import GraphView
>>> view = GraphView(chainer.Variable(np.array(2.0), name='x') * 3)
>>> receive(view, {'type': 'action', 'action': 'step'})
>>> view.status['done']
True
>>> view.close()
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from typing import Any

from autograd_lab_widget import exports, messages, patches
from autograd_lab_widget.present import shaping
from autograd_lab_widget.quiz import prediction

logger = logging.getLogger('autograd_lab_widget')


class WidgetWarning(UserWarning):
    """A message from the browser was malformed or could not be acted on."""


def warn(text: str, *, exc_info: bool = False) -> None:
    """Log ``text`` (with the traceback being handled, if ``exc_info``) and warn with it
    (a WidgetWarning), pointing at the caller's caller."""
    logger.warning(text, exc_info=exc_info)
    warnings.warn(text, WidgetWarning, stacklevel=3)


def receive(view: Any, content: Any, _buffers: Any = None) -> None:
    """Validate and act on one browser message (the view's ``on_msg`` handler)."""
    try:
        kind, payload = messages.parse(content)
    except messages.BadMessage as error:
        warn(f'ignored a malformed message from the browser: {error}')
        return
    try:
        ON_MESSAGE[kind](view, payload)
    except Exception as error:  # never let a click raise into the kernel
        view.model.message = f'{type(error).__name__}: {error}'
        # the traceback goes to the kernel's log: a failure here is the view's defect
        warn(f'could not do {kind} {payload!r:.80}: {error}', exc_info=True)
        view.refresh()


def set_state(view: Any, sync_data: Any) -> None:
    """Synced traits written by the browser (ipywidgets' 'update' message), checked.

    Our front end only sends messages, but a stale or hostile one can write traits.
    Only ``messages.BROWSER_WRITABLE`` traits are taken, each checked like the
    corresponding message and acted on the same way; anything else is ignored with a
    logged warning, the previous value kept and the browser's copy set back to it.
    Nothing raises into the kernel's comm handler.
    """
    if not isinstance(sync_data, dict):
        warn(f'ignored a state update from the browser that is not an object: '
             f'{type(sync_data).__name__}')
        return
    for name, value in sync_data.items():
        try:
            _set_from_browser(view, name, messages.parse_state(name, value))
        except Exception as error:  # never let the browser raise into the kernel
            warn(f'ignored the browser setting {name!r:.40} to {value!r:.60}: {error}')
            if name in view.keys:
                try:
                    view.send_state(name)  # put the browser's copy back in line
                except Exception as resend:  # a closed comm: nothing to correct
                    logger.debug('could not resend %s: %s', name, resend)


def _set_from_browser(view: Any, name: str, value: Any) -> None:
    """A trait the browser wrote, checked: acted on as its message would be."""
    if name == 'options':
        _options(view, value)
    elif name == 'selected_id' and value != view.selected_id:
        view.select(value)  # KeyError when the node is not in the graph
    elif name == 'position' and value != view.position:
        view._act(view.model.show, value)
    elif name in ('height', 'predict') and value != getattr(view, name):
        setattr(view, name, value)


# ---- message kinds ---------------------------------------------------------------------

def _hello(view: Any, _payload: Any) -> None:
    view.send({'type': 'hello'})  # a page drawing this view: this kernel follows it


def _expand(view: Any, scope: str) -> None:
    shown = view._shown or view.model.live.model
    scopes = {n.scope for n in shown.nodes.values() if n.scope}
    if not any(s == scope or s.startswith(scope + '/') for s in scopes):
        raise KeyError(f'no Link {scope!r} in the graph')
    view.model.expanded.add(scope)
    view.refresh()


def _more(view: Any, _payload: Any) -> None:
    opts = dict(view.options)
    opts['max_nodes'] = min(opts['max_nodes'] * 2, messages.MAX_NODES_CAP)
    view.options = opts
    view.refresh()


def _typed(payload: Any) -> Any:
    """Texts go to the kernel as typed: a name in them means the graph's variable first."""
    if isinstance(payload, list):
        return [prediction.Typed(v) for v in payload] if len(payload) > 1 else payload[0]
    return payload


def _guess(view: Any, payload: Any) -> None:
    if not view.predict:  # the page offers guesses only in predict mode
        raise RuntimeError('turn on Predict to guess a step first')
    if isinstance(payload, dict):  # the harder mode's: the local derivatives too
        view.guess(_typed(payload['value']), local=_typed(payload['local']))
    else:
        view.guess(_typed(payload))


def _find(view: Any, text: str) -> None:
    """'/' search, then Enter: the search is set and the next node it matches (after the
    selection, in the order the nodes were made) is selected and inspected, as a click."""
    view.options = {**view.options, 'search': text}
    model = view._shown or view.model.live.model
    hits = sorted(shaping.search_hits(model, text, view.model.names.table(model)))
    if not hits:
        view.model.message = f'No node matches {text.strip()!r}.' if text.strip() else ''
        view.refresh()
        return
    after = [i for i in hits if view.selected_id is not None and i > view.selected_id]
    view.select((after or hits)[0])


def _options(view: Any, changes: dict) -> None:
    opts = dict(view.options)
    opts.update(changes)
    view.options = opts
    view.refresh()


def _action(view: Any, action: str) -> None:
    """A button: :data:`ON_ACTION` says what it does."""
    ON_ACTION[action](view)


# ---- toolbar actions -------------------------------------------------------------------

def _step_button(view: Any) -> None:  # the buttons ask before adding to grads leaves hold
    view._act(view.model.step, confirm=False)


def _run_button(view: Any) -> None:
    view._act(view.model.run, confirm=False)


def _toggle_predict(view: Any) -> None:
    view.predict = not view.predict


def _toggle_harder(view: Any) -> None:
    view.harder = not view.harder


def _toggle_device(view: Any) -> None:
    if not view.gpu_available and view.device == '@numpy':
        raise RuntimeError(f'GPU unavailable: {view.gpu_reason}')
    view.to_device('@numpy' if view.device != '@numpy' else '@cupy:0')


def _download(what: str) -> Callable[[Any], None]:
    def send(view: Any) -> None:
        view.send({'type': 'download', **exports.download(view, what)})
    return send


#: What each kind of browser message does (kinds: ``messages.py``).
ON_MESSAGE: dict[str, Callable[[Any, Any], None]] = {
    'hello': _hello, 'select': lambda view, target: view.select(target), 'expand': _expand,
    'more': _more, 'guess': _guess, 'run-to': lambda view, target: view.run_to(target),
    'options': _options, 'action': _action, 'find': _find,
    'resync': lambda view, _payload: patches.resend(view)}
#: What each toolbar button does.
ON_ACTION: dict[str, Callable[[Any], None]] = {
    'back': lambda view: view.back(), 'forward': lambda view: view.forward(),
    'reset': lambda view: view.reset(), 'step': _step_button, 'run': _run_button,
    'predict': _toggle_predict, 'harder': _toggle_harder, 'reveal': lambda view: view.reveal(),
    'unchain': lambda view: view.unchain(),
    'unchain-preview': lambda view: view.unchain_preview(), 'device': _toggle_device,
    'export-dot': _download('dot'), 'export-log': _download('log'),
    'export-html': _download('html')}
