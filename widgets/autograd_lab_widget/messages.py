"""Validation of messages from the browser.

Everything the front end sends is untrusted: a message is checked against a small
schema and turned into ``(kind, payload)``; anything else raises :class:`BadMessage`,
which the view logs as a warning and ignores (the kernel never sees an exception).
The same goes for synced traits written by an ipywidgets 'update' message
(:func:`parse_state`): our front end never writes one, but a stale or hostile one can.

>>> parse({'type': 'select', 'id': 'n12'})
('select', 12)
>>> parse({'type': 'select', 'id': 'link:/predictor/l1'})
('expand', '/predictor/l1')
>>> parse({'type': 'guess', 'value': ['1', '-1']}), parse({'type': 'run-to', 'id': 'n7'})
(('guess', ['1', '-1']), ('run-to', 7))
>>> try:
...     parse({'type': 'action', 'action': 'rm -rf'})
... except BadMessage as error:
...     print(error)
unknown action 'rm -rf'
>>> parse_state('height', 600), parse_state('selected_id', 'n7')
(600, 7)
>>> try:
...     parse_state('dot', 'digraph { evil }')
... except BadMessage as error:
...     print(error)
the browser may not set 'dot' (only options, height, selected_id, position, predict)
"""

from __future__ import annotations

import re
from typing import Any

from autograd_lab_widget import protocol

ACTIONS = frozenset(protocol.ACTIONS)
#: Most values one guess may carry (one per input slot of a function).
MAX_GUESSES = 64

MAX_TEXT = 10_000
_NODE_ID = re.compile(r'n?(\d{1,12})')


class BadMessage(ValueError):
    """A message from the browser that does not fit the protocol."""


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise BadMessage(f'expected true/false, got {v!r:.60}')
    return v


def _text(v: Any) -> str:
    if not isinstance(v, str) or len(v) > MAX_TEXT:
        raise BadMessage('expected a string of at most 10000 characters')
    return v


def _count(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 1_000_000:
        raise BadMessage(f'expected an integer from 0 to 1000000, got {v!r:.60}')
    return v


def _order(v: Any) -> int | None:
    return None if v is None else _count(v)


def _choice(name: str, choices: tuple) -> Any:
    def check(v: Any) -> str:
        if v not in choices:
            raise BadMessage(f'{name} must be {"/".join(choices)}, got {v!r:.60}')
        return v
    return check


#: The most nodes a page draws one by one (its "more" button doubles up to this): a
#: bigger drawing would be unreadable and its description megabytes long.
MAX_NODES_CAP = 5_000


#: The fewest nodes a drawing shows one by one.
MIN_NODES = 10


def _max_nodes(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not MIN_NODES <= v <= MAX_NODES_CAP:
        raise BadMessage(f'max_nodes must be an integer from {MIN_NODES} to '
                         f'{MAX_NODES_CAP}, got {v!r:.60}')
    return v


#: Synced traits a front end may write directly; the others are the kernel's output.
BROWSER_WRITABLE = ('options', 'height', 'selected_id', 'position', 'predict')
#: Bounds of the drawing area's height, in pixels.
MIN_HEIGHT, MAX_HEIGHT = 100, 10_000
MAX_NODE_ID = 10 ** 12 - 1

_CHECKS = {'text': _text, 'count': _count, 'order': _order, 'flag': _bool,
           'node_cap': _max_nodes}
#: option name -> its validator (the options and their kinds: :data:`protocol.OPTIONS`);
#: values are checked, never trusted.
OPTIONS = {name: _CHECKS[o.kind] if o.kind != 'choice' else _choice(name, o.choices)
           for name, o in protocol.OPTIONS.items()}


def parse_node_id(value: Any) -> int:
    """``'n12'``, ``'12'`` or ``12`` -> 12; anything else raises BadMessage."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_NODE_ID:
        return value
    if isinstance(value, str):
        m = _NODE_ID.fullmatch(value)
        if m:
            return int(m.group(1))
    raise BadMessage(f'not a node id: {value!r:.60}')


def parse_options(options: Any) -> dict:
    """Check an options dict; unknown names or bad values raise BadMessage."""
    if not isinstance(options, dict):
        raise BadMessage('options must be an object')
    out = {}
    for name, value in options.items():
        check = OPTIONS.get(name)
        if check is None:
            raise BadMessage(f'unknown option {name!r:.60} (the options: '
                             f'{", ".join(OPTIONS)})')
        try:
            out[name] = check(value)
        except BadMessage as error:
            if str(error).startswith(name):
                raise
            raise BadMessage(f'{name}: {error}') from None
    return out


def _guess_values(value: Any) -> Any:
    if isinstance(value, list):
        if not value or len(value) > MAX_GUESSES:
            raise BadMessage(f'a guess has 1 to {MAX_GUESSES} values')
        return [_text(v) for v in value]
    return _text(value)


def parse(content: Any) -> tuple[str, Any]:
    """Validate one message; return ``(kind, payload)``."""
    if not isinstance(content, dict):
        raise BadMessage(f'message must be an object, got {type(content).__name__}')
    kind = content.get('type')
    if kind not in protocol.BROWSER_MESSAGES:
        raise BadMessage(f'unknown message type {kind!r:.60}')
    if kind == 'action':
        action = content.get('action')
        if action not in ACTIONS:
            raise BadMessage(f'unknown action {action!r:.60}')
        return 'action', action
    if kind == 'select':
        ident = content.get('id')
        if ident is None or ident == '':
            return 'select', None
        if isinstance(ident, str) and ident.startswith(protocol.LINK_PREFIX):
            return 'expand', _text(ident[len(protocol.LINK_PREFIX):])
        if ident == protocol.MORE_ID:
            return 'more', None
        return 'select', parse_node_id(ident)
    if kind == 'guess':
        value = _guess_values(content.get('value'))
        if 'local' not in content:
            return 'guess', value
        # the harder mode's guess: the local derivatives too
        return 'guess', {'value': value, 'local': _guess_values(content.get('local'))}
    if kind == 'run-to':
        return 'run-to', parse_node_id(content.get('id'))
    if kind == 'options':
        return 'options', parse_options(content.get('options'))
    if kind == 'find':  # '/' search, then Enter: select the next node it matches
        return 'find', _text(content.get('text'))
    if kind in ('hello', 'resync'):  # is a kernel behind the page; send the cells whole
        return kind, None
    raise BadMessage(f'unknown message type {kind!r:.60}')


def _height(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not MIN_HEIGHT <= v <= MAX_HEIGHT:
        raise BadMessage(f'height must be an integer from {MIN_HEIGHT} to {MAX_HEIGHT} '
                         f'pixels, got {v!r:.60}')
    return v


def _position(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 10 ** 9:
        raise BadMessage(f'position must be a non-negative integer, got {v!r:.60}')
    return v


def _selection(v: Any) -> int | None:
    return None if v is None or v == '' else parse_node_id(v)


_STATE = {'options': parse_options, 'height': _height, 'selected_id': _selection,
          'position': _position, 'predict': _bool}


def parse_state(name: Any, value: Any) -> Any:
    """Check one synced trait written by the browser; return the value to act on.

    Only :data:`BROWSER_WRITABLE` traits pass; ``options`` may be partial (the view
    merges it over its current options).  Whether a node id or a position exists is
    for the view to say.
    """
    check = _STATE.get(name) if isinstance(name, str) else None
    if check is None:
        raise BadMessage(f'the browser may not set {name!r:.60} (only '
                         f'{", ".join(BROWSER_WRITABLE)})')
    return check(value)
