"""Plain-words notes on the errors a student meets first.

Chainer's messages are kept exactly (``str(error)`` is Chainer's); what they mean in
plain words is added as an exception note, which Python prints under the message.
Notes are made only when an error is raised, so the engine's normal path pays nothing.

On Python 3.10, which has no :meth:`BaseException.add_note`, the note is stored in
``__notes__`` all the same (where 3.11's tracebacks, IPython and pytest look for it);
3.10's own traceback printer does not show it, and ``str(error)`` is unchanged there too.

>>> error = ValueError('Expect: in_types[0].dtype.kind == f')
>>> add_note(error, 'In plain words: this function needs floats.')
>>> str(error), error.__notes__
('Expect: in_types[0].dtype.kind == f', ['In plain words: this function needs floats.'])
"""

from __future__ import annotations

#: What a failed built-in type check means, by the start of its ``Expect:`` text.
_KIND_F = ('In plain words: this function needs a float array (gradients are fractions), '
           'and it got {kind}. Make the array float first, e.g. '
           'np.array([1, 2], dtype=np.float32) or a.astype(np.float32).')
_SHAPES = ('In plain words: the inputs\' shapes do not fit together (the lines above say '
           'which sizes differ). Print each input\'s .shape and compare them.')
_KINDS = {'i': 'integers', 'u': 'unsigned integers', 'b': 'booleans', 'c': 'complex numbers'}


def add_note(error: BaseException, text: str) -> None:
    """Add ``text`` as a note of ``error`` (``str(error)`` stays what it was)."""
    if hasattr(error, 'add_note'):
        error.add_note(text)
    else:  # Python 3.10: the same attribute, by hand
        error.__notes__ = [*getattr(error, '__notes__', ()), text]


def type_check_note(expect: str, actual: str) -> str | None:
    """The plain-words note for a failed built-in check ``expect`` (None: none fits).

    >>> type_check_note('in_types[0].dtype.kind == f', 'i != f')[:51]
    'In plain words: this function needs a float array ('
    >>> type_check_note('in_types[0].ndim == 2', '3 != 2') is None
    True
    """
    if expect.endswith('dtype.kind == f'):
        kind = actual.split(' ', 1)[0]
        return _KIND_F.format(kind=_KINDS.get(kind, f'dtype kind {kind!r}'))
    if 'shape' in expect or 'broadcastable' in expect:
        return _SHAPES
    return None
