"""What every checker shares: the verdict (Feedback), comparing answers, running learner code."""

from __future__ import annotations

import contextlib
import functools
import html
import io
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NoReturn

import numpy as np

import autograd_lab as chainer
from autograd_lab import Variable, backend
from autograd_lab.testing import fake_gpu

_ICONS = {'correct': '\u2705', 'wrong': '\u274c', 'todo': '\u270f\ufe0f'}
_COLOURS = {'correct': '#1b7f3b', 'wrong': '#b3261e', 'todo': '#6b5d00'}


class Feedback:
    """The verdict on one answer; shown as a coloured box in Jupyter, as text elsewhere."""

    def __init__(self, exercise: str, status: str, message: str, hint: str = '') -> None:
        self.exercise = exercise
        self.status = status      # 'correct' | 'wrong' | 'todo'
        self.message = message
        self.hint = hint

    def __bool__(self) -> bool:
        return self.status == 'correct'

    def __repr__(self) -> str:
        text = f'{_ICONS[self.status]} [{self.exercise}] {self.message}'
        return f'{text}\n   Hint: {self.hint}' if self.hint else text

    def _repr_html_(self) -> str:
        # Answers are learner text: escape everything that goes into markup.
        colour = _COLOURS[self.status]
        hint = (f'<div style="margin-top:4px"><b>Hint:</b> {html.escape(self.hint)}</div>'
                if self.hint else '')
        return (f'<div style="border-left:4px solid {colour};padding:6px 10px;margin:4px 0">'
                f'{_ICONS[self.status]} <b>{html.escape(self.exercise)}</b>: '
                f'{html.escape(self.message)}{hint}</div>')


def _mode() -> Any:
    """The package ``checks`` itself: ``STRICT`` and ``GRADING`` are its attributes, which a
    notebook (``checks.STRICT = True``) and the tests set, so they are read there at each
    verdict.  Held from when it loaded (the private copy of
    :mod:`autograd_lab_lessons.grading` is in no ``sys.modules``)."""
    return _PACKAGE[0]


#: The checkers package this module belongs to (set by it when it loads).
_PACKAGE: list[Any] = [None]


def grading_now() -> bool:
    """Whether a grader runs this notebook, read from the environment at every call (a
    module flag a cell set cannot say no): nbgrader's ``NBGRADER_EXECUTION``, or
    ``AUTOGRAD_LAB_GRADING`` set by any other grading setup."""
    return (os.environ.get('NBGRADER_EXECUTION', '').lower() in {'autograde', 'validate'}
            or bool(os.environ.get('AUTOGRAD_LAB_GRADING')))


def _verdict(exercise: str, status: str, message: str, hint: str = '') -> Feedback:
    fb = Feedback(exercise, status, message, hint)
    mode = _mode()
    grading = grading_now()
    if (mode.STRICT or grading) and status != 'correct':
        raise AssertionError(repr(fb))
    if (mode.GRADING or grading) and not mode.PRIVATE:
        # nbgrader reads a graded cell's result as a partial score: print the verdict
        # instead, so a correct answer gets the cell's full points (the private copy of
        # autograd_lab_lessons.grading hands it to its Grader, which says it).
        print(repr(fb))
        return None  # type: ignore[return-value]
    return fb


class _Stop(Exception):
    """A wrong or unfinished answer, found wherever the check happens to be: raised by
    :func:`_wrong` and :func:`_todo`, turned into the checker's one verdict by
    :func:`_checker`.  Helpers therefore never hand feedback back for their caller to test."""

    def __init__(self, exercise: str, status: str, message: str, hint: str = '') -> None:
        super().__init__(message)
        self.fields = (exercise, status, message, hint)


def _todo(exercise: str, what: str) -> NoReturn:
    raise _Stop(exercise, 'todo', f'not done yet: replace the ... with {what}.')


def _wrong(exercise: str, message: str, hint: str) -> NoReturn:
    raise _Stop(exercise, 'wrong', message, hint)


def _ok(exercise: str, message: str = 'correct!') -> Feedback:
    return _verdict(exercise, 'correct', message)


#: How to give each exercise's full answer, for :func:`show_answer` (filled by _checker).
_ANSWERS: dict[str, Callable[[], str]] = {}


def _checker(func: Callable[[Any], Feedback] | None = None, *,
             answer: Callable[[], str] | None = None, gpu: bool = False) -> Any:
    """Makes ``func`` a checker: whatever :func:`_wrong` or :func:`_todo` raised inside
    becomes its verdict.  ``answer`` writes the full answer, shown only on request
    (:func:`show_answer`), never in a hint.  ``gpu``: the check runs with a GPU backend in
    place, the real one or a stand-in (:func:`_some_gpu`)."""
    def wrap(check: Callable[[Any], Feedback]) -> Callable[[Any], Feedback]:
        @functools.wraps(check)
        def run(answer_given: Any) -> Feedback:
            try:
                with _some_gpu() if gpu else contextlib.nullcontext():
                    return check(answer_given)
            except _Stop as stop:
                return _verdict(*stop.fields)
        if answer is not None:
            _ANSWERS[check.__name__] = answer
        run.is_checker = True  # type: ignore[attr-defined]
        return run
    return wrap if func is None else wrap(func)


#: The expected values a value checker compared with first, per exercise: show_answer's
#: answer where a checker has none of its own.
_EXPECTED: dict[str, str] = {}


def _remember(exercise: str, expected: str) -> None:
    _EXPECTED.setdefault(exercise, expected)


def show_answer(exercise: str) -> None:
    """Print the full answer of an exercise (its checker's name, e.g. ``'ex10_shapes'``):
    the hints name the mistake, this gives the answer away, so only when asked for.

    Refused while a grader runs the notebook (:func:`grading_now`) and where the course
    says the answers are not to be shown (``AUTOGRAD_LAB_NO_ANSWERS`` set in the
    students' environment, as a class hub's image does).

    >>> show_answer('ex01_cubic')
    ex01_cubic: x.grad = 3 * x**2 - 3 = [0, -3, 9]
    """
    if grading_now() or os.environ.get('AUTOGRAD_LAB_NO_ANSWERS'):
        raise PermissionError('show_answer is off here: this notebook is being graded, or '
                              'your course keeps the answers for after the deadline')
    checker = getattr(_mode(), 'ALL', {}).get(exercise)
    if exercise not in _ANSWERS and exercise not in _EXPECTED and checker is not None:
        # a value checker learns its expected value when it runs: run it on the placeholder
        with contextlib.suppress(AssertionError), contextlib.redirect_stdout(io.StringIO()):
            checker(...)
    if exercise in _ANSWERS:
        print(f'{exercise}: {_ANSWERS[exercise]()}')
    elif exercise in _EXPECTED:
        print(f'{exercise}: {_EXPECTED[exercise]}')
    else:
        raise KeyError(f'no answer for {exercise!r}: give a checker\'s name, such as '
                       "'ex01_cubic'")


def _as_array(value: Any) -> np.ndarray | None:
    """A float64 NumPy copy of a number, list, array or Variable (on any device); None if
    it is not numeric."""
    if isinstance(value, Variable):
        value = value.array
    elif isinstance(value, (list, tuple)):  # e.g. [g1, g2, g3] of Variables
        value = [_host(v.array if isinstance(v, Variable) else v) for v in value]
    try:
        return np.asarray(_host(value), dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _host(value: Any) -> Any:
    """``value`` as a NumPy array if it is an array on a GPU; anything else as it is."""
    if backend.is_array(value) and type(value) is not np.ndarray:
        return backend.CpuDevice().send(value)
    return value


# The tolerances a checker uses unless it states its own, next to the call, from its
# arithmetic.  Counts, shapes and other integers are compared exactly (rtol=0, atol=0).
#: An array or number the engine computed (float32 keeps ~7 digits, and a different but
#: equal order of operations moves the last ones), or a prediction typed with five
#: significant digits; every listed slip of these exercises is off by 1% or more.
VALUE_RTOL, VALUE_ATOL = 1e-4, 1e-5
#: Numbers a student works out and types into a dict, often from a printout with four
#: digits; the slips listed with them are off by 10% or more.
TYPED_RTOL, TYPED_ATOL = 1e-3, 1e-6


def _fmt(a: np.ndarray) -> str:
    a = np.asarray(a)
    if a.size and np.all(np.isfinite(a)) and np.all(a == np.round(a)) and np.all(abs(a) < 1e15):
        a = a.astype(np.int64)  # 2410, not 2410.
    return np.array2string(a, precision=4, separator=', ')


def _close(got: np.ndarray, want: Any, rtol: float, atol: float) -> bool:
    want = np.asarray(want, dtype=np.float64)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=rtol, atol=atol))


def _matches(got: np.ndarray, wrong: Any, rtol: float, atol: float) -> bool:
    """Whether ``got`` is the wrong answer ``wrong`` ([8.] and 8.0 alike)."""
    wrong = np.asarray(wrong, dtype=np.float64)
    if got.size == wrong.size:
        got = got.reshape(wrong.shape)
    return _close(got, wrong, rtol, atol)


def _compare(exercise: str, name: str, value: Any, expected: Any, hint: str, *,
             mistakes: Iterable[tuple[Any, str]] = (), rtol: float = VALUE_RTOL,
             atol: float = VALUE_ATOL, todo: str | None = None) -> Feedback:
    """Compare an array answer element by element; known wrong answers get their own hint.
    ``todo`` says what replaces the placeholder (by default: a value for ``name``)."""
    _check_array(exercise, name, value, expected, hint, mistakes=mistakes, rtol=rtol, atol=atol,
                 todo=todo)
    return _ok(exercise, f'{name} = {_fmt(_as_array(value))} is right.')


def _check_array(exercise: str, name: str, value: Any, expected: Any, hint: str, *,
                 mistakes: Iterable[tuple[Any, str]] = (), rtol: float = VALUE_RTOL,
                 atol: float = VALUE_ATOL, todo: str | None = None) -> None:
    """Stops the check (:func:`_wrong`, :func:`_todo`) on a wrong or missing array answer.

    A right answer gets no verdict here, so a checker can go on checking (another
    input, another device) before it says "correct".  A wrong element is named with what
    it got, never with the expected value: that is :func:`show_answer`'s.
    """
    _remember(exercise, f'{name} = {_fmt(np.asarray(expected, dtype=np.float64))}')
    if value is ...:
        return _todo(exercise, todo or f'your value for {name}')
    if value is None:
        return _wrong(exercise, f'{name} is None.', hint)
    got = _as_array(value)
    if got is None:
        return _wrong(exercise, f'{name} should be a number or an array, got '
                      f'{type(value).__name__}.', hint)
    want = np.asarray(expected, dtype=np.float64)
    if got.size == want.size and got.shape != want.shape:
        got = got.reshape(want.shape)  # [8.] and 8.0 mean the same answer here
    if _close(got, want, rtol, atol):
        return
    for wrong_value, mistake_hint in mistakes:
        if _matches(got, wrong_value, rtol, atol):
            return _wrong(exercise, f'{name} = {_fmt(got)} is not right.', mistake_hint)
    if got.shape != want.shape:
        return _wrong(exercise, f'{name} has shape {got.shape}, expected shape {want.shape}.',
                      hint)
    bad = np.argwhere(~np.isclose(got, want, rtol=rtol, atol=atol))
    where = ', '.join(f'{name}{_index(i) if got.ndim else ""} = {got[tuple(i)]:.5g}'
                      for i in bad[:3])
    more = f' (and {len(bad) - 3} more)' if len(bad) > 3 else ''
    _wrong(exercise, f'not right: {where}{more}.', hint)


def _compare_named(exercise: str, answer: Any, expected: Mapping[str, float], hint: str, *,
                   mistakes: Iterable[tuple[Mapping[str, float], str]] = (),
                   rtol: float = TYPED_RTOL, atol: float = TYPED_ATOL) -> Feedback:
    """Compare a dict of numbers (keys are compared as text: 0.5 and '0.5' alike).

    A mistake is a dict of some of the keys: it matches when all of those values do.
    """
    got = _check_named(exercise, answer, expected, hint, mistakes=mistakes, rtol=rtol,
                       atol=atol)
    return _ok(exercise, 'all right: ' + ', '.join(f'{k} = {got[k]:.6g}' for k in expected))


def _listed(keys: Iterable[Any]) -> str:
    """``'a', 'b' and 'c'``: keys named in a message."""
    names = [repr(k) for k in keys]
    return names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' and ' + names[-1]


def _dict_answer(exercise: str, answer: Any, keys: Iterable[Any], *, todo: str, hint: str,
                 unfinished: str | None = None, key: Callable[[Any], Any] = lambda k: k,
                 at: str = '') -> dict[Any, Any]:
    """The opening of every checker whose answer is a dict: the answer, its keys made
    comparable with ``key`` (``str``, ``float``), once it has exactly ``keys``.

    Stops the check as *not done yet* (``todo``) while the answer is the ``...``
    placeholder, and (``unfinished``) while any of its values still is, if given; as
    wrong (``hint``) when it is not a dict with exactly those keys.

    >>> _dict_answer('ex', {'x': 1, 'a': 2}, ['x', 'a'], todo='both', hint='')
    {'x': 1, 'a': 2}
    """
    wanted = list(keys)
    if answer is ...:
        _todo(exercise, todo)
    if (unfinished is not None and isinstance(answer, Mapping)
            and any(value is ... for value in answer.values())):
        _todo(exercise, unfinished)
    try:
        got = {key(k): v for k, v in answer.items()} if isinstance(answer, Mapping) else None
    except (TypeError, ValueError):
        got = None
    if isinstance(answer, Mapping) and (got is None or set(got) != set(wanted)):
        got = _keyed_by_value(answer, wanted)
    if got is None or len(got) != len(answer) or set(got) != set(wanted):
        _wrong(exercise, f'give a dict with exactly the keys {_listed(wanted)}{at}.', hint)
    return got


def _key_value(key: Any) -> Any:
    """A key as what it means: a number (1, 1.0 and '1' alike) where it reads as one,
    else its text."""
    if isinstance(key, (bool, np.bool_)):
        return str(key)
    try:
        return float(key)
    except (TypeError, ValueError):
        return str(key)


def _keyed_by_value(answer: Mapping, wanted: list[Any]) -> dict[Any, Any] | None:
    """The answer re-keyed by the wanted keys its keys mean (``{1: ...}`` for the key
    ``'1.0'``), or None when a key means none of them or two mean one.

    >>> _keyed_by_value({1: 'a', '5': 'b'}, ['1.0', '5.0'])
    {'1.0': 'a', '5.0': 'b'}
    """
    meaning = {_key_value(w): w for w in wanted}
    got = {}
    for k, v in answer.items():
        w = meaning.get(_key_value(k))
        if w is None or w in got:
            return None
        got[w] = v
    return got


def _numbers(exercise: str, answer: Any, keys: list[str], hint: str, *,
             at: str = '') -> dict[str, float]:
    """A dict answer with exactly ``keys`` (compared as text), as one float per key; stops
    the check if it is unfinished or not such a dict."""
    answer = _dict_answer(exercise, answer, keys, key=str, at=at,
                          todo=f'a dict with the keys {_listed(keys)}',
                          hint='One entry per name: {'
                          + ', '.join(f'{k!r}: ...' for k in keys) + '}.')
    got: dict[str, float] = {}
    for key, value in answer.items():
        if value is ...:
            _todo(exercise, f'a value for {key!r} (and every other ...){at}')
        number = _as_array(value)
        if number is None or number.size != 1:
            _wrong(exercise, f'{key!r} should be one number, got {value!r}.', hint)
        got[str(key)] = float(number.reshape(()))
    return got


def _check_named(exercise: str, answer: Any, expected: Mapping[str, float], hint: str, *,
                 mistakes: Iterable[tuple[Mapping[str, float], str]] = (),
                 rtol: float = TYPED_RTOL, atol: float = TYPED_ATOL,
                 where: str = '') -> dict[str, float]:
    """The answer's numbers by key if all are right; else stops the check (a mistake's hint
    when one matches).  ``where`` names the point the values belong to, if there are
    several."""
    at = f' (at {where})' if where else ''
    _remember(exercise, ', '.join(f'{k} = {v:.6g}' for k, v in expected.items()) + at)
    got = _numbers(exercise, answer, [str(k) for k in expected], hint, at=at)

    def close(key: str, value: float) -> bool:
        return bool(np.isclose(got[key], value, rtol=rtol, atol=atol))

    want = {str(k): v for k, v in expected.items()}
    if all(close(k, v) for k, v in want.items()):
        return got
    for partial, mistake_hint in mistakes:
        if all(close(str(k), want[str(k)]) for k in partial):
            continue  # this slip gives the right numbers here: it says nothing
        if all(close(str(k), v) for k, v in partial.items()):
            bad = [k for k, v in want.items() if not close(k, v)]
            _wrong(exercise, f'not right{at}: {", ".join(bad)}.', mistake_hint)
    bad = [f'{k} = {got[k]:.5g}' for k, v in want.items() if not close(k, v)]
    return _wrong(exercise, f'not right{at}: ' + '; '.join(bad) + '.', hint)


def _index(i: Iterable[int]) -> str:
    return '[' + ', '.join(str(int(k)) for k in i) + ']'


# NumPy handed a GPU array (np.* on CuPy's arrays): every device exercise's usual slip.
_IMPLICIT_TO_NUMPY = (
    TypeError, fake_gpu.IMPLICIT_CONVERSION,
    'np.* cannot take a GPU array: CuPy refuses to copy it to the CPU behind your back. '
    'Ask for the module of the array you were given (xp = backend.get_array_module(x)) '
    'and use xp.* so the code runs where its input lives.')


def _call(exercise: str, func: Any, *args: Any,
          known: Iterable[tuple[type, str, str]] = ()) -> Any:
    """Run learner code and return its result; an exception stops the check with feedback
    instead of a crash.

    ``known`` lists failures with a hint of their own: (exception type, text in its
    message, hint).
    """
    if func is ...:
        _todo(exercise, 'your function')
    if not callable(func):
        _wrong(exercise, f'expected a function, got {type(func).__name__}.',
               'Define it with def ...(...): and pass the function itself.')
    try:
        result = func(*args)
    except Exception as error:  # learner code: report any failure as feedback
        hint = next((h for kind, text, h in (*known, _IMPLICIT_TO_NUMPY)
                     if isinstance(error, kind) and text in str(error)),
                    'Run it on a small input in a cell of its own to see where.')
        first = str(error).strip().splitlines()[0] if str(error).strip() else ''
        _wrong(exercise, f'your code raised {type(error).__name__}: {first}', hint)
    if result is ...:
        _todo(exercise, 'the body of your function')
    return result


class _seeded:
    """NumPy's global random state fixed inside (gradient_check draws from it), and the
    learner's own state given back afterwards."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def __enter__(self) -> None:
        self.saved = np.random.get_state()
        np.random.seed(self.seed)

    def __exit__(self, *exc: object) -> None:
        np.random.set_state(self.saved)


def _names(exercise: str, names: Any, example: str) -> set[str]:
    """A learner's set of names as a set of strings; stops the check if it is not one."""
    if names is ...:
        _todo(exercise, f'a set of names, e.g. {example}')
    if isinstance(names, str):
        names = {names}
    try:
        return {str(n) for n in names}
    except TypeError:
        _wrong(exercise, f'give a set of names such as {example}.',
                      'Write the names as strings inside { }.')


# ---- devices: where device-generic code is tried ----------------------------------------

def _devices() -> list[Any]:
    """The CPU and the first GPU: a real one where CuPy has one, else (inside a checker made
    with ``_checker(gpu=True)``) the stand-in of :mod:`autograd_lab.testing.fake_gpu`."""
    found = [backend.CpuDevice()]
    if backend.cuda_available():
        found.append(chainer.get_device('@cupy:0'))
    return found


@contextlib.contextmanager
def _some_gpu() -> Iterator[None]:
    """A GPU backend for the block: the real one if there is one, else the strict stand-in
    (its own array type; a NumPy array next to it raises), so that NumPy-only code fails on
    every laptop, not only on a machine with a GPU."""
    if backend.cuda_available():
        yield
        return
    _STAND_IN['on'] = True
    try:
        with fake_gpu.installed(strict=True):
            yield
    finally:
        _STAND_IN['on'] = False


#: Whether the GPU tried now is the stand-in (for the words of a verdict).
_STAND_IN = {'on': False}


def _on_gpu(device: Any) -> bool:
    return not isinstance(device, backend.CpuDevice)


def _where(device: Any) -> str:
    return f'on the GPU ({device})' if _on_gpu(device) else 'on the CPU'


def _tried_where() -> str:
    if _STAND_IN['on']:
        return ' (tried on the CPU and on a stand-in GPU as strict as CuPy)'
    return ' (tried on the CPU and on the GPU)'


def _same_device(result: Any, like: Any) -> bool:
    """Whether ``result`` is an array of the same kind (NumPy or GPU) as ``like``."""
    result = result.array if isinstance(result, Variable) else result
    like = like.array if isinstance(like, Variable) else like
    return backend.is_array(result) and (
        backend.get_array_module(result) is backend.get_array_module(like))


