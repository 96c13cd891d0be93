"""GraphView's arguments, checked before anything is built.

One job: a wrong argument is refused with a message that names it, says what was wrong
and what to give instead, and nothing is left behind (no model, no subscriber).  The
keywords a view takes are read from ``GraphView.__init__``'s own signature (so the list
cannot go stale when a keyword is added), plus :data:`TRAIT_KEYWORDS`.  A keyword whose
default is True or False, or that sets a ``traitlets.Bool`` trait, is a flag: only a
bool passes (``retain_grad='no'`` would otherwise count as True).

The checks of each value's own shape stay where the value is used: the outputs in
``session.roots``, ``history`` in the stepping model, the drawing options in
``messages`` (which the browser's messages go through too).

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab_widget import GraphView
>>> y = chainer.Variable(np.array(2.0)) * 3
>>> GraphView(y, retian_grad=True)
Traceback (most recent call last):
...
TypeError: GraphView() takes no keyword 'retian_grad' (did you mean retain_grad?).
Its keywords: code_lines, enable_double_backprop, events_log, focus, gradient_lens, harder,
height, history, layout, links, options, outputs, predict, retain_grad
>>> GraphView(y, retain_grad='no')
Traceback (most recent call last):
...
TypeError: GraphView(retain_grad=...) is True or False, got the str 'no'
(any text counts as True: give the bool)
"""

from __future__ import annotations

import difflib
import functools
import inspect
import numbers
from collections.abc import Callable
from typing import Any

import numpy
import traitlets

from autograd_lab import events

from autograd_lab_widget import messages

__all__ = ['TRAIT_KEYWORDS', 'check', 'checked', 'known_keywords']

#: Keywords a view takes besides those of its ``__init__``: traits set at construction
#: (``predict``, ``harder``; ``focus``, where the view starts) and ipywidgets' ``layout``.
TRAIT_KEYWORDS = ('predict', 'harder', 'focus', 'layout')

_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def known_keywords(init: Callable) -> tuple[str, ...]:
    """The keywords ``init`` (a view's ``__init__``) takes, with :data:`TRAIT_KEYWORDS`."""
    params = inspect.signature(init).parameters
    named = {n for n, p in params.items() if p.kind in _NAMED and n != 'self'}
    return tuple(sorted(named | set(TRAIT_KEYWORDS)))


def _flags(cls: type, init: Callable) -> set[str]:
    """The keywords that are True or False: a bool default, or a Bool trait."""
    params = inspect.signature(init).parameters
    flags = {n for n, p in params.items() if isinstance(p.default, bool)}
    traits = cls.class_traits() if hasattr(cls, 'class_traits') else {}
    return flags | {n for n in TRAIT_KEYWORDS if isinstance(traits.get(n), traitlets.Bool)}


def _shown(value: Any) -> str:
    """A value as an error message names it: its type, and a short repr."""
    return f'the {type(value).__name__} {value!r:.60}'


def _unknown(name: str, known: tuple[str, ...]) -> TypeError:
    near = difflib.get_close_matches(name, known, n=1)
    hint = f' (did you mean {near[0]}?)' if near else ''
    return TypeError(f'GraphView() takes no keyword {name!r:.60}{hint}. '
                     f'Its keywords: {", ".join(known)}')


def _events_log(log: Any) -> None:
    if isinstance(log, str | bytes | dict) or not hasattr(log, '__iter__'):
        raise TypeError('GraphView(events_log=...) is a list of recorded events (from '
                        'autograd_lab.events.recording(), or the %%autograd_lab magic), '
                        f'got {_shown(log)}')
    if isinstance(log, events.EventLog):
        return  # the engine's own log holds events only
    for k, e in enumerate(log):
        if not isinstance(e, events.Event):
            what = ' (view.event_log() gives dicts for a file: pass the events themselves)' \
                if isinstance(e, dict) else ''
            raise TypeError(f'GraphView(events_log=...): item {k} is {_shown(e)}, not an '
                            'event. Record the events with autograd_lab.events.recording() '
                            f'or the %%autograd_lab magic{what}')


def _height(height: Any) -> None:
    if isinstance(height, bool) or not isinstance(height, numbers.Integral):
        raise TypeError(f'GraphView(height=...) is the stage\'s height in pixels, a whole '
                        f'number from {messages.MIN_HEIGHT} to {messages.MAX_HEIGHT}, got '
                        f'{_shown(height)}')


def _options(options: Any) -> None:
    if not isinstance(options, dict):
        raise TypeError("GraphView(options=...) is a dict of drawing options, such as "
                        f"{{'rankdir': 'LR'}}, got {_shown(options)}")
    try:
        messages.parse_options(options)
    except messages.BadMessage as error:
        raise ValueError(f'GraphView(options=...): {error}') from None


_VALUES = {'events_log': _events_log, 'height': _height, 'options': _options}


def check(cls: type, init: Callable, kwargs: dict) -> dict:
    """Refuse a keyword ``init`` does not take, or a value it cannot use (see the
    module docstring); the outputs are checked where they are read (``session.roots``).
    Returns the keywords to call ``init`` with (numpy's bools as bools)."""
    known = known_keywords(init)
    for name in kwargs:
        if name not in known:
            raise _unknown(name, known)
    for name in _flags(cls, init) & kwargs.keys():
        value = kwargs[name]
        if not isinstance(value, bool | numpy.bool_):
            why = ' (any text counts as True: give the bool)' if isinstance(value, str) else ''
            raise TypeError(f'GraphView({name}=...) is True or False, got {_shown(value)}{why}')
    for name, value_check in _VALUES.items():
        if kwargs.get(name) is not None:
            value_check(kwargs[name])
    return {k: bool(v) if isinstance(v, numpy.bool_) else v for k, v in kwargs.items()}


def checked(init: Callable) -> Callable:
    """Decorate a view's ``__init__``: its keywords are checked (:func:`check`) first."""
    @functools.wraps(init)
    def checked_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **check(type(self), init, kwargs))
    return checked_init
