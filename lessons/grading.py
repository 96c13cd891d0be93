"""The checkers a graded test cell uses: a private copy that no student cell can reach.

A lesson's own cells call the shared checkers, ``checks.exNN_...``: a student's cell can
replace them, patch ``numpy.allclose`` or set ``checks.STRICT = False``.  A graded test
cell calls a **private copy** instead, bound in the notebook's first cell before any
student code runs, under a name drawn at grading time (:func:`hide`), so no student cell
knows it:

* the copy's modules are loaded afresh from the installed files of
  :mod:`autograd_lab_lessons.checks` and are not in ``sys.modules``: writing the shared
  ``checks`` (its attributes, its module dict, a reload) does not reach them;
* their ``numpy`` and ``math`` are copies of those modules' namespaces taken then, and
  their builtins a copy of the builtins then: ``numpy.allclose = ...``, ``math.isclose
  = ...`` or ``builtins.float = ...`` in a later cell change none of what they call;
* the copy is always strict: anything but a correct answer raises ``AssertionError``
  carrying the verdict and its hint (no flag to switch off: the copy's module is nobody's);
* :meth:`Grader.assert_close` and :meth:`Grader.flat` compare with functions captured
  then, for hidden tests.  A hidden test is written into the notebook at grading time
  (the request :data:`HIDDEN` replaced by its code): where it was not, :meth:`Grader.hidden`
  fails while grading.

In the notebook the first cell binds the placeholder name :data:`NAME`; at grading,
:func:`hide` renames it in the binding cell and in the test cells to a random name (the
nbgrader step and the otter plugin, :mod:`autograd_lab_lessons.grading_hooks`).

>>> grader = private_checks()
>>> grader.test('ex01_accumulate', 16)
\u2705 [ex01_accumulate] x.grad = 16 is right.
>>> checks = __import__('autograd_lab_lessons.checks').checks
>>> kept, checks.ex01_accumulate = checks.ex01_accumulate, lambda answer: True
>>> grader.test('ex01_accumulate', 8) is True
Traceback (most recent call last):
...
AssertionError: \u274c [ex01_accumulate] x.grad = [8] is not right.
   Hint: Gradients accumulate: each backward() adds its 8 to x.grad, until x.cleargrad().
>>> checks.ex01_accumulate = kept  # the shared checker replaced: not the private one
>>> grader.test('ex01_accumulate', 8)
Traceback (most recent call last):
...
AssertionError: \u274c [ex01_accumulate] x.grad = [8] is not right.
   Hint: Gradients accumulate: each backward() adds its 8 to x.grad, until x.cleargrad().
>>> grader.assert_close([1.0, 2.0], [1.0, 2.0 + 1e-12], rtol=1e-9, atol=0.0, hint='x')
"""

from __future__ import annotations

import builtins
import os
import importlib.abc
import importlib.machinery
import importlib.util
import math
import re
import secrets
import sys
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy

__all__ = ['BIND', 'HIDDEN', 'NAME', 'Grader', 'hide', 'private_checks']

#: The placeholder name of the private checkers in an assignment notebook's cells.
NAME = 'agl_grader'
#: The assignment notebook's first cell (after the install cell): binds :data:`NAME`.
BIND = (f'from autograd_lab_lessons.grading import private_checks as _agl_bind  # graded '
        f"checks use a private copy of the checkers\n{NAME} = _agl_bind()\ndel _agl_bind")
_PLACEHOLDER = re.compile(rf'\b{NAME}\b')
#: A hidden test's request in an assignment notebook: grade id, probe (the checker's topic
#: and name, :mod:`autograd_lab_lessons.hidden_tests`), the answer's name.
HIDDEN = NAME + ".hidden({grade_id!r}, {probe!r}, {argument!r})"
#: The same, read back (the graders replace each by the test's code).
HIDDEN_LINE = re.compile(rf"^{NAME}\.hidden\('([\w.-]+)', '([\w.]+)', '(\w+)'\)[ \t]*$", re.M)
#: The checkers' files, found once, when this module is first imported (the first cell).
_CHECKS = Path(__file__).resolve().parent / 'checks'
#: numpy's submodules the checkers call through ``np.``: copied with numpy.
_NUMPY_PARTS = ('testing', 'linalg', 'random', 'fft', 'lib')


def _copy_of(module: types.ModuleType, parts: Iterable[str] = ()) -> types.ModuleType:
    """A module object holding what ``module`` holds now (and copies of its ``parts``):
    an assignment to the original later does not change it."""
    copy = types.ModuleType(module.__name__, module.__doc__)
    copy.__dict__.update(module.__dict__)
    for part in parts:
        inner = getattr(module, part, None)
        if isinstance(inner, types.ModuleType):
            setattr(copy, part, _copy_of(inner))
    return copy


class _Loader(importlib.machinery.SourceFileLoader):
    """Loads one module of the private copy: builtins copied before its code runs (a
    function keeps the builtins of the module it was defined in)."""

    def __init__(self, fullname: str, path: str, names: dict) -> None:
        super().__init__(fullname, path)
        self.names = names

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__['__builtins__'] = self.names['builtins']
        super().exec_module(module)
        for key, value in list(module.__dict__.items()):  # np, math: the copies taken now
            if value is numpy:
                module.__dict__[key] = self.names['numpy']
            elif value is math:
                module.__dict__[key] = self.names['math']


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the private copy's modules (``<private name>.derivatives``...) in the
    checkers' folder, while it loads."""

    def __init__(self, package: str, names: dict) -> None:
        self.package, self.names = package, names

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname == self.package:
            file, search = _CHECKS / '__init__.py', [str(_CHECKS)]
        elif fullname.startswith(self.package + '.'):
            file, search = _CHECKS / f'{fullname.rsplit(".", 1)[1]}.py', None
        else:
            return None
        loader = _Loader(fullname, str(file), self.names)
        return importlib.util.spec_from_file_location(fullname, file, loader=loader,
                                                      submodule_search_locations=search)


def _load_private() -> types.ModuleType:
    """The checkers package loaded afresh under a random name, then taken out of
    ``sys.modules`` (its modules keep each other through their own names)."""
    package = f'_agl_private_{secrets.token_hex(8)}'
    names = {'builtins': dict(builtins.__dict__), 'numpy': _copy_of(numpy, _NUMPY_PARTS),
             'math': _copy_of(math)}
    finder = _Finder(package, names)
    sys.meta_path.insert(0, finder)
    try:
        module = importlib.import_module(package)
    finally:
        sys.meta_path.remove(finder)
        for key in [k for k in sys.modules if k == package or k.startswith(package + '.')]:
            del sys.modules[key]
    module.STRICT = module.PRIVATE = True  # nobody else holds this module: always strict
    return module


class Grader:
    """The private checkers: :meth:`test` one answer, :meth:`assert_close` numbers.
    Nothing on it can be set."""

    __slots__ = ('_checkers', '_close', '_flat', '_environ')

    def __init__(self, checkers: dict[str, Callable[[Any], Any]],
                 close: tuple[Callable[..., None], Callable[..., Any]]) -> None:
        object.__setattr__(self, '_checkers', types.MappingProxyType(dict(checkers)))
        object.__setattr__(self, '_close', close[0])
        object.__setattr__(self, '_flat', close[1])
        object.__setattr__(self, '_environ', os.environ)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError('the graded checkers cannot be changed')

    __delattr__ = __setattr__  # type: ignore[assignment]

    def test(self, exercise: str, answer: Any, *, show: bool = True) -> None:
        """Checks ``answer`` with the private copy of the checker ``exercise``: prints a
        correct verdict (unless ``show`` is false: otter's tests expect no output); raises
        ``AssertionError`` with the verdict otherwise."""
        verdict = self._checkers[exercise](answer)
        if show:
            print(repr(verdict))

    def run(self, code: str, scope: dict) -> None:
        """Runs a hidden test's ``code`` in the notebook's names ``scope`` (otter's test
        files hold it as one line)."""
        exec(code, scope)

    def assert_close(self, got: Any, want: Any, *, rtol: float, atol: float,
                     hint: str) -> None:
        """Raises ``AssertionError`` (``hint``) unless ``got`` has ``want``'s shape and
        every element is within ``atol + rtol * |want|`` of it (NaN is never close)."""
        self._close(got, want, rtol, atol, hint)

    def flat(self, *values: Any) -> Any:
        """The numbers of ``values`` (arrays, Variables, numbers) as one float64 array."""
        return self._flat(values)

    def hidden(self, grade_id: str, probe: str, argument: str) -> None:
        """A hidden test's request that grading did not replace by its code: fails while
        grading (a course whose grader lacks autograd-lab's step must not give its points
        away); elsewhere says the hidden test runs at grading time."""
        env = self._environ
        if env.get('NBGRADER_EXECUTION', '').lower() == 'autograde' or \
                env.get('AUTOGRAD_LAB_GRADING'):
            raise AssertionError(f'hidden test {grade_id} was not prepared: the grader lacks '
                                 "autograd-lab's step (see INSTRUCTORS.md)")
        print(f'({grade_id}: its hidden test runs when the assignment is graded)')


def _comparison() -> tuple[Callable[..., None], Callable[..., Any]]:
    """:meth:`Grader.assert_close` and :meth:`Grader.flat` from numpy's functions as they
    are now."""
    asarray, absolute, less_equal, alltrue, shape, ravel, concatenate = (
        numpy.asarray, numpy.absolute, numpy.less_equal, numpy.all, numpy.shape,
        numpy.ravel, numpy.concatenate)
    float64, error, boolean, attribute = numpy.float64, AssertionError, bool, getattr

    def close(got: Any, want: Any, rtol: float, atol: float, hint: str) -> None:
        got, want = asarray(got, dtype=float64), asarray(want, dtype=float64)
        if shape(got) != shape(want) or not boolean(alltrue(less_equal(
                absolute(got - want), atol + rtol * absolute(want)))):
            raise error(hint)

    def flat(values: tuple) -> Any:
        return concatenate([ravel(asarray(attribute(v, 'array', v), dtype=float64))
                            for v in values])
    return close, flat


def private_checks() -> Grader:
    """A :class:`Grader` over a private copy of every checker (see the module's text):
    the first cell of a graded notebook binds one before any student code runs."""
    module = _load_private()
    return Grader(module.ALL, _comparison())


def hide(sources: list[str], name: str | None = None) -> tuple[list[str], str]:
    """The cells' sources with the placeholder :data:`NAME` renamed to ``name`` (by
    default a random one, drawn now), and that name.

    >>> hide(['agl_grader.test("ex", x)', 'agl_graders = 1'], '_g1')
    (['_g1.test("ex", x)', 'agl_graders = 1'], '_g1')
    """
    name = name or f'_agl_{secrets.token_hex(8)}'
    return [_PLACEHOLDER.sub(name, source) for source in sources], name
