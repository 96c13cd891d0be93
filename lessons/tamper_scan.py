"""A scan of a submission for code that tampers with the grading machinery.

Before grading, every cell a student could write is read (never run) and each of
these is reported with its cell and line:

- assigning to, or deleting, an attribute of a module the checks rest on (the checkers
  ``autograd_lab_lessons``, the engine ``autograd_lab``, ``numpy``, ``math``,
  ``builtins``, ``sys``, ``os``, ``importlib``, ``operator``, ``inspect``...), or of
  anything imported from one (``np.allclose = ...``, ``checks.STRICT = False``,
  ``Variable.__add__ = ...``), and rebinding a module's name to something else;
- ``setattr`` / ``delattr`` on one of them, writing its ``__dict__`` or ``vars()``;
- reloading a module, writing ``sys.modules``, changing ``os.environ`` (the grading
  environment's ``NBGRADER_EXECUTION``), hooking the interpreter (``sys.settrace``,
  ``sys.setprofile``, ``gc.get_objects``, ``ctypes``, ``get_ipython()``);
- code run from text (``exec``, ``eval``, ``compile``, ``__import__``), and names
  read or written by text (``globals()``, ``locals()``), which no scan can follow;
- reaching into functions, frames and classes (``__globals__``, ``__closure__``,
  ``__code__``, ``f_back``, ``__subclasses__``...), where the graded checks live;
- reading files of the installed packages or notebooks (``open``/``Path`` on
  ``__file__``, ``solutions``, ``.ipynb``; ``inspect.getsource``; ``importlib.resources``).

The lessons' own code (the exercises' definitions, ``x.grad = None``, a Link's
attributes, ``checks.STRICT = True``: stricter) never trips it: the targets are modules
and what they export, not the student's own objects.  A test runs the scan over every
reference solution.

The scan runs outside the student's kernel, where no cell can reach it, before the
submission runs (:mod:`autograd_lab_lessons.grading_hooks`: nbgrader's sanitize step, the
otter plugin): every check after a finding scores 0 with the finding named, and the
teacher reads cell and line in the autograded notebook, nbgrader's log, otter's results.

>>> found = scan_source('import numpy as np\\nnp.allclose = lambda *a, **k: True')
>>> [str(f) for f in found]
['line 2: assigns np.allclose (numpy): a module the checks use']
>>> scan_source('import numpy as np\\nx = np.ones(3)\\nx.grad = None\\ndef f(v): return 2 * v')
[]
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

#: Top-level packages whose modules (and what they export) the checks rest on.
PROTECTED = frozenset({
    'autograd_lab', 'autograd_lab_lessons', 'autograd_lab_widget', 'numpy', 'math', 'cmath',
    'builtins', 'sys', 'os', 'importlib', 'operator', 'inspect', 'functools', 'types',
    'nbgrader', 'otter', 'IPython', 'pytest', 'unittest', 'gc', 'ctypes', 'pathlib',
    'io', 'json', 'random', 'decimal', 'fractions', 'statistics', 'subprocess', 'traceback',
})
#: Calls that run code from text, which no scan can read.
_TEXT_CODE = frozenset({'exec', 'eval', 'compile', '__import__'})
#: Calls that reach into the interpreter or the notebook's machinery.
_HOOKS = {('sys', 'settrace'), ('sys', 'setprofile'), ('gc', 'get_objects'),
          ('gc', 'get_referrers'), ('importlib', 'reload'), ('inspect', 'getsource'),
          ('inspect', 'getsourcefile'), ('sys', '_getframe'), ('builtins', 'setattr')}
#: Attributes that reach into functions, frames and classes: where a private copy of the
#: checkers (or the grader's own state) could be found.
_INTROSPECTION = frozenset({'__globals__', '__closure__', '__code__', '__builtins__',
                            '__subclasses__', '__defaults__', '__kwdefaults__', 'f_globals',
                            'f_locals', 'f_back', 'f_builtins', 'tb_frame', 'gi_frame',
                            'cr_frame'})
#: Text in a file path that points at the answers or the packages' own files.
_FILE_HINTS = ('solutions', '.ipynb', 'site-packages', 'autograd_lab', 'hidden', '__file__')


@dataclass(frozen=True)
class Finding:
    """One piece of tampering: where (``cell``: the notebook cell's index, None for plain
    code; ``line`` in it) and what."""

    line: int
    what: str
    cell: int | None = None

    def __str__(self) -> str:
        where = f'cell {self.cell}, ' if self.cell is not None else ''
        return f'{where}line {self.line}: {self.what}'


class _Scan(ast.NodeVisitor):
    """Walks one cell's code, knowing which names hold protected modules (or things
    imported from them) from the imports seen so far (across cells)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names  # local name -> the module it came from
        self.found: list[Finding] = []

    # -- what a name or an expression stands for --------------------------------------

    def _root(self, node: ast.AST) -> str | None:
        """The protected module an expression reaches through (``np.testing.x``: numpy)."""
        while isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        if isinstance(node, ast.Call):  # vars(np), get_ipython(), sys.modules.get(...)
            return self._call_root(node)
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            if node.id in ('__builtins__', 'builtins'):
                return 'builtins'
        return None

    def _call_root(self, call: ast.Call) -> str | None:
        func = call.func
        if isinstance(func, ast.Name) and func.id in ('vars', 'globals') and call.args:
            return self._root(call.args[0])
        if isinstance(func, ast.Name) and func.id == 'get_ipython':
            return 'IPython'
        return self._root(func)

    def _dotted(self, node: ast.AST) -> str:
        try:
            return ast.unparse(node)
        except (ValueError, TypeError):  # pragma: no cover - ast.unparse takes any node
            return '?'

    def _note(self, node: ast.AST, what: str) -> None:
        self.found.append(Finding(getattr(node, 'lineno', 0), what))

    # -- imports: which names are protected --------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split('.')[0]
            if top in PROTECTED:
                self.names[alias.asname or top] = top
            elif alias.asname:
                self.names.pop(alias.asname, None)
            if alias.name.startswith('importlib.resources'):
                self._note(node, 'imports importlib.resources: reads the packages\' files')

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or '').split('.')[0]
        if (node.module or '').startswith('importlib') and any(
                a.name in ('reload', 'resources') for a in node.names):
            self._note(node, f'imports {node.module}.{node.names[0].name}: reloads modules '
                       'or reads the packages\' files')
        for alias in node.names:
            local = alias.asname or alias.name
            if top in PROTECTED and alias.name != '*':
                self.names[local] = top
            else:
                self.names.pop(local, None)

    # -- writes -------------------------------------------------------------------------

    def _target(self, target: ast.AST, node: ast.AST, verb: str) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._target(element, node, verb)
            return
        if isinstance(target, ast.Starred):
            self._target(target.value, node, verb)
            return
        if isinstance(target, ast.Name):
            if target.id in self.names:
                module = self.names.pop(target.id)
                self._note(node, f'{"deletes" if verb == "deletes" else "rebinds"} '
                           f'{target.id} ({module}): a module the checks use')
            return
        root = self._root(target)
        if root is not None:
            self._note(node, f'{verb} {self._dotted(target)} ({root}): a module the checks use')

    def visit_Assign(self, node: ast.Assign) -> None:
        if _stricter(node):
            return
        for target in node.targets:
            self._target(target, node, 'assigns')
        self.generic_visit(node)
        alias = self._alias(node.value)
        if alias is not None:  # t = np.testing: t is numpy's too from here on
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.names[target.id] = alias

    def _alias(self, value: ast.AST) -> str | None:
        """The protected module a plain reference (not a call's result) stands for;
        ``importlib.import_module(...)`` gives a module whatever its name."""
        if isinstance(value, ast.Name | ast.Attribute):
            return self._root(value)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr == 'import_module':
            return 'importlib'
        return None

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target, node, 'assigns')
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target, node, 'assigns')
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._target(target, node, 'deletes')
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name in self.names:
            self._note(node, f'rebinds {node.name} ({self.names.pop(node.name)}): a module '
                       'the checks use')
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if node.name in self.names:
            self._note(node, f'rebinds {node.name} ({self.names.pop(node.name)}): a module '
                       'the checks use')
        self.generic_visit(node)

    # -- calls --------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        if name in _TEXT_CODE:
            self._note(node, f'calls {name}(): code run from text cannot be checked')
        elif name in ('setattr', 'delattr') and node.args and self._root(node.args[0]):
            self._note(node, f'calls {name}() on {self._dotted(node.args[0])} '
                       f'({self._root(node.args[0])}): a module the checks use')
        elif name in ('globals', 'locals') or (name == 'vars' and not node.args):
            self._note(node, f'calls {name}(): reads and writes the notebook\'s names '
                       'by text, which no scan can follow')
        elif name == 'reload':
            self._note(node, 'calls reload(): reloads a module the checks use')
        elif name == 'open' and node.args and _points_at_answers(node.args[0]):
            self._note(node, f'opens {self._dotted(node.args[0])}: the packages\' or the '
                       'notebooks\' own files')
        if isinstance(func, ast.Attribute):
            root = self._root(func.value)
            pair = (root, func.attr)
            if pair in _HOOKS:
                self._note(node, f'calls {self._dotted(func)}: reaches into the interpreter '
                           'or the modules\' sources')
            elif root == 'IPython':
                self._note(node, f'calls {self._dotted(func)}: drives the notebook itself')
            elif root == 'ctypes':
                self._note(node, f'calls {self._dotted(func)}: writes memory directly')
            elif _is_mutating(func) and _reaches(func.value, ('modules', 'environ', '__dict__')):
                self._note(node, f'calls {self._dotted(func)}: changes '
                           f'{self._dotted(func.value)}')
            elif func.attr in ('read_text', 'read_bytes', 'open') and \
                    _points_at_answers(func.value):
                self._note(node, f'reads {self._dotted(func.value)}: the packages\' or the '
                           'notebooks\' own files')
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in _INTROSPECTION:
            self._note(node, f'reads {self._dotted(node)}: reaches into functions, frames '
                       'or classes, where the graded checks live')
        elif node.attr == '__file__' and self._root(node.value):
            self._note(node, f'reads {self._dotted(node)}: where the packages\' files are')
        self.generic_visit(node)


def _stricter(node: ast.Assign) -> bool:
    """``checks.STRICT = True``, as the reference solutions start: stricter, not tampering."""
    return (len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
            and node.targets[0].attr == 'STRICT' and isinstance(node.value, ast.Constant)
            and node.value.value is True)


def _is_mutating(func: ast.Attribute) -> bool:
    return func.attr in ('pop', 'popitem', 'update', 'setdefault', 'clear', '__setitem__',
                         '__delitem__', 'putenv', 'unsetenv')


def _reaches(node: ast.AST, attrs: tuple[str, ...]) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in attrs


def _points_at_answers(node: ast.AST) -> bool:
    """A path expression that names the answers or the packages' own files."""
    text = ast.unparse(node) if isinstance(node, ast.AST) else str(node)
    return any(hint in text for hint in _FILE_HINTS)


def scan_source(source: str, names: dict[str, str] | None = None) -> list[Finding]:
    """The tampering in ``source`` (one cell's code; ``names``: the protected names that
    earlier cells imported, updated in place).  Code that does not parse is reported
    as such (grading it would fail anyway); IPython magics and shell lines are skipped.
    """
    names = {} if names is None else names
    lines = [(line[:len(line) - len(line.lstrip())] + 'pass'
              if line.lstrip().startswith(('%', '!')) else line) for line in source.splitlines()]
    try:
        tree = ast.parse('\n'.join(lines))
    except SyntaxError as error:
        return [Finding(error.lineno or 0, f'does not parse: {error.msg}')]
    scan = _Scan(names)
    scan.visit(tree)
    return sorted(scan.found, key=lambda f: f.line)


def student_cells(notebook: dict) -> Iterable[tuple[int, str]]:
    """``(index, source)`` of the code cells a student writes: every code cell but the
    locked test cells of an nbgrader notebook (those nbgrader restores before grading)."""
    for index, cell in enumerate(notebook.get('cells', [])):
        if cell.get('cell_type') != 'code':
            continue
        meta = cell.get('metadata', {}).get('nbgrader', {})
        if meta.get('grade') and not meta.get('solution') and meta.get('locked', True):
            continue
        source = cell.get('source', '')
        yield index, ''.join(source) if isinstance(source, list) else source


def scan_notebook(notebook: dict) -> list[Finding]:
    """The tampering in a notebook's student cells, each with its cell index."""
    names: dict[str, str] = {}
    found = []
    for index, source in student_cells(notebook):
        found += [Finding(f.line, f.what, index) for f in scan_source(source, names)]
    return found


def _grading_cells(notebook: dict) -> list[int]:
    return [i for i, cell in enumerate(notebook.get('cells', []))
            if cell.get('cell_type') == 'code'
            and cell.get('metadata', {}).get('nbgrader', {}).get('grade')
            and not cell.get('metadata', {}).get('nbgrader', {}).get('solution')]


def fail_checks_after(notebook: dict, found: list[Finding]) -> list[int]:
    """Make every test cell after the first finding fail, naming it; returns their
    indexes.  (A finding can change what every later check sees.)"""
    if not found:
        return []
    first = min(f.cell or 0 for f in found)
    told = '; '.join(str(f) for f in found)[:2000]
    hit = [i for i in _grading_cells(notebook) if i > first]
    for i in hit:
        cell = notebook['cells'][i]
        message = f'scored 0: the submission tampers with the grading machinery ({told})'
        cell['source'] = f'raise AssertionError({message!r})'
    return hit
