"""The widget package's layers, read from the source (AST), like the engine's (test_layers.py).

Lower layers first; a module may import (at its top or inside a function) only the layers
listed for it:

- the leaves (modules at the top of the package other than the widget shell): no folder,
  no shell module;
- ``follow/`` (which events a view takes, the state it folds them into): leaves;
- ``quiz/`` (a guess, graded): leaves;
- ``present/`` (what a student sees): leaves and ``follow``;
- ``session/`` (stepping, time travel, run to here, reset): leaves, ``follow``, ``quiz``,
  ``present``, and never the shell, so it loads no widget library;
- the shell (``view``, ``arguments``, ``inbox``, ``redraw``, ``exports``, ``cell_output``,
  ``messages``, ``bundle``, ``lifetime``, ``replay``, ``magic``, the package itself): anything.

And no module of the kernel side, the shell included, is above about 400 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent
WIDGET = ROOT / 'widgets' / 'autograd_lab_widget'
PACKAGE = 'autograd_lab_widget'
SHELL = {'__init__', 'view', 'arguments', 'inbox', 'redraw', 'exports', 'cell_output',
         'messages', 'bundle', 'lifetime', 'replay', 'magic'}
FOLDERS = {'follow', 'quiz', 'present', 'session'}
ALLOWED = {
    'leaves': {'leaves'},
    'follow': {'leaves', 'follow'},
    'quiz': {'leaves', 'quiz'},
    'present': {'leaves', 'follow', 'present'},
    'session': {'leaves', 'follow', 'quiz', 'present', 'session'},
    'shell': {'leaves', 'follow', 'quiz', 'present', 'session', 'shell'},
}
MAX_LINES = 420


def _layer(parts: tuple[str, ...]) -> str | None:
    """The layer of the module ``autograd_lab_widget.<parts>``; None for the package."""
    if not parts:
        return None
    if parts[0] in FOLDERS:
        return parts[0]
    return 'shell' if parts[0] in SHELL else 'leaves'


def _module_parts(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(WIDGET).with_suffix('').parts
    return parts[:-1] if parts[-1] == '__init__' and len(parts) > 1 else parts


def _modules() -> list[Path]:
    return sorted(WIDGET.rglob('*.py'))


def _imported_layers(path: Path) -> set[str]:
    """The layers of the package that ``path`` imports (a name the package itself
    exports, such as ``GraphView``, counts as the shell's)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [f'{node.module}.{alias.name}' for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split('.')
            if parts[0] == PACKAGE and len(parts) > 1:
                found.add(_layer((parts[1],)) if _is_module(parts[1]) else 'shell')
    return found


def _is_module(name: str) -> bool:
    return (WIDGET / f'{name}.py').exists() or (WIDGET / name).is_dir()


def test_the_widget_layout_is_the_documented_one():
    """Every module sits in a known layer, and the package docstring maps each folder."""
    doc = (WIDGET / '__init__.py').read_text()
    for folder in FOLDERS:
        assert (WIDGET / folder / '__init__.py').exists(), folder
        assert f'``{folder}/``' in doc, f'the package map does not name {folder}/'
    strays = [p for p in WIDGET.iterdir() if p.is_dir()
              and p.name not in FOLDERS | {'static', '__pycache__'}]
    assert not strays, f'folders outside the map: {strays}'


@pytest.mark.parametrize('path', _modules(), ids=lambda p: str(p.relative_to(WIDGET)))
def test_each_widget_module_imports_only_lower_layers(path):
    layer = _layer(_module_parts(path)) or 'shell'
    if path == WIDGET / '__init__.py':
        layer = 'shell'
    upward = _imported_layers(path) - ALLOWED[layer]
    assert not upward, f'{path.relative_to(ROOT)} ({layer}) imports {sorted(upward)}'


def _kernel_side() -> list:
    """Every module of the package, the shell included."""
    return _modules()


@pytest.mark.parametrize('path', _kernel_side(), ids=lambda p: str(p.relative_to(WIDGET)))
def test_kernel_side_modules_stay_small(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f'{path.relative_to(ROOT)} has {lines} lines'


def test_the_layers_test_sees_an_upward_import(tmp_path):
    """The check itself can fail: a leaf importing the session is caught."""
    leaf = tmp_path / 'leaf.py'
    leaf.write_text('from autograd_lab_widget.session import stepping\n'
                    'def f():\n    from autograd_lab_widget import view\n')
    assert _imported_layers(leaf) == {'session', 'shell'}
