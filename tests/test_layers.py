"""One-way layers, read from the source (AST): engine <- events <- graph model <- widget.

- the engine (``autograd_lab``) never imports, or names in its code, the widget package;
- ``autograd_lab.events`` imports nothing above variables and function nodes (no link,
  optimizer, graph, backprop, functions or widget), lazily or not;
- ``autograd_lab.graph`` reads no ``_private`` attribute of an engine object;
- the engine uses only the public API of ``autograd_lab.events`` (its ``__all__``);
- the backward stepper stays short: at most 350 lines of code without docstrings and
  comments (``tests/code_lines.py`` counts them);
- Variables and VariableNodes are made without ``__init__`` in one place only, the
  factory ``autograd_lab.variable._new_variable``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograd_lab import events
from code_lines import code_lines

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / 'autograd_lab'
WIDGET = 'autograd_lab_widget'


def _modules(package: Path) -> list[Path]:
    return sorted(package.rglob('*.py'))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside functions (``from a import b``
    counts as ``a.b``, which is a module or a name of ``a``), and every name given to
    ``importlib.import_module`` or ``__import__``."""
    tree = ast.parse(path.read_text())
    package = _module_name(path).rsplit('.', 0 if path.name == '__init__.py' else 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:  # relative
                base = '.'.join(package.split('.')[:len(package.split('.')) - node.level + 1]
                                + ([base] if base else []))
            found.add(base)
            found.update(f'{base}.{alias.name}' for alias in node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name in ('import_module', '__import__') and node.args and \
                    isinstance(node.args[0], ast.Constant):
                found.add(str(node.args[0].value))
    return found


def _code_strings(path: Path) -> list[str]:
    """String constants of ``path`` other than docstrings."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def test_the_engine_never_imports_or_names_the_widget():
    offenders = []
    for path in _modules(ENGINE):
        imported = {m for m in _imports(path) if m.split('.')[0] == WIDGET}
        named = [s for s in _code_strings(path) if WIDGET in s]
        if imported or named:
            offenders.append((str(path.relative_to(ROOT)), sorted(imported), named))
    assert offenders == []


# What events may import from the engine: the layers below variables and function nodes.
_EVENTS_MAY_IMPORT = {'autograd_lab.backend', 'autograd_lab.configuration',
                      'autograd_lab.variable', 'autograd_lab.parameter',
                      'autograd_lab.function_node', 'autograd_lab.function_hook'}
_NEVER = ('autograd_lab.link', 'autograd_lab.links', 'autograd_lab.optimizer',
          'autograd_lab.optimizers', 'autograd_lab.graph', 'autograd_lab.backprop',
          'autograd_lab.functions', WIDGET)


def test_events_imports_nothing_above_variables_and_function_nodes():
    paths = _modules(ENGINE / 'events')
    assert len(paths) >= 5  # a package: types, log, subscription, recorders, codec, ...
    for path in paths:
        engine = {m for m in _imports(path) if m.split('.')[0] in ('autograd_lab', WIDGET)}
        for module in engine:
            assert not module.startswith(_NEVER), (path.name, module)
            parent = module.rsplit('.', 1)[0]  # ``from a import b``: b may be a name in a
            allowed = _EVENTS_MAY_IMPORT | {'autograd_lab'}  # the root: ``from autograd_lab
            inside = module.startswith('autograd_lab.events')  # import events``
            assert inside or module in allowed or parent in _EVENTS_MAY_IMPORT, \
                (path.name, module)


def _engine_private_names() -> set[str]:
    """``_names`` the engine defines: attributes it sets, slots, methods, module globals."""
    names: set[str] = set()
    for path in _modules(ENGINE):
        if 'graph' in path.relative_to(ENGINE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == '__slots__' for t in node.targets):
                names.update(c.value for c in ast.walk(node.value)
                             if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return {n for n in names if n.startswith('_') and not n.startswith('__')}


def test_graph_reads_no_private_attribute_of_the_engine():
    engine_private = _engine_private_names()
    assert {'_node', '_data', '_grad_var', '_uid', '_creator_node'} <= engine_private
    offenders = []
    for path in _modules(ENGINE / 'graph'):
        tree = ast.parse(path.read_text())
        own = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)} | {
            n.attr for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith('_') \
                    and not node.attr.startswith('__'):
                on_itself = isinstance(node.value, ast.Name) and node.value.id in ('self', 'cls')
                # a private name of the graph's own classes, read on another of its objects
                graph_own = node.attr in own and node.attr not in engine_private
                if not (on_itself or graph_own):
                    offenders.append(f'{path.name}:{node.lineno} {ast.unparse(node)}')
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in ('getattr', 'hasattr', 'setattr') and len(node.args) > 1 \
                    and isinstance(node.args[1], ast.Constant) \
                    and str(node.args[1].value).startswith('_'):
                offenders.append(f'{path.name}:{node.lineno} {ast.unparse(node)}')
    assert offenders == []


@pytest.mark.parametrize('module', ['backprop.py', 'variable.py', 'function_node.py',
                                    'parameter.py', 'optimizer.py', 'link.py',
                                    'function_hook.py'])
def test_the_engine_uses_only_the_public_api_of_events(module):
    tree = ast.parse((ENGINE / module).read_text())
    used = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == '_events'}
    assert used, f'{module} does not talk to events as _events'
    assert used <= set(events.__all__), used - set(events.__all__)


def test_code_lines_skips_comments_blank_lines_and_docstrings(tmp_path):
    path = tmp_path / 'sample.py'
    path.write_text('"""Module\n\ndocstring."""\n\n# a comment\ndef f(x):\n'
                    '    """Doc."""\n    return (x +  # why\n            1)\n')
    assert code_lines(path) == 3  # def, return, and its continuation line


def test_the_stepper_is_at_most_350_lines_of_code():
    lines = code_lines(ENGINE / 'backprop.py')
    print(f'autograd_lab/backprop.py: {lines} lines of code')
    assert lines <= 350


def _new_object_sites(path: Path) -> list[tuple[str, str]]:
    """``(function, how)`` for each place in ``path`` that makes an object without its
    ``__init__``: a call of ``object.__new__`` or ``cls.__new__``, or of a name the module
    binds to ``object.__new__`` (``how`` is the called name)."""
    tree = ast.parse(path.read_text())
    aliases = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and isinstance(node.value, ast.Attribute) and node.value.attr == '__new__'
               for target in node.targets if isinstance(target, ast.Name)}
    sites = []
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        for node in ast.walk(func):
            if not isinstance(node, ast.Call):
                continue
            called = node.func
            if isinstance(called, ast.Attribute) and called.attr == '__new__' and not (
                    isinstance(called.value, ast.Call)
                    and getattr(called.value.func, 'id', None) == 'super'):
                sites.append((func.name, ast.unparse(called)))
            elif isinstance(called, ast.Name) and called.id in aliases:
                sites.append((func.name, called.id))
    return sites


def test_variables_and_nodes_are_made_without_init_by_one_factory():
    sites = {_module_name(path): _new_object_sites(path) for path in _modules(ENGINE)}
    sites = {module: found for module, found in sites.items() if found}
    # The factory makes the Variable and its node; the codec makes Events, not variables.
    assert sites == {
        'autograd_lab.variable': [('_new_variable', '_new'), ('_new_variable', '_new')],
        'autograd_lab.events.codec': [('materialise', '_object_new')],
    }, sites
