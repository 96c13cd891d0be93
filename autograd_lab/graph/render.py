"""Turn DOT into SVG or PNG, with or without a system Graphviz.

The renderer is, in this order: the program named by ``program=`` or by the
``AUTOGRAD_LAB_RENDERER`` environment variable (``'dot'``, ``'graphviz-pure'`` or a
path), else the system ``dot`` when it is on ``PATH``, else the ``graphviz-pure``
executable that the pip wheel of the same name installs (a self-contained port of
Graphviz, so ``pip install autograd-lab`` is enough to export pictures).

>>> renderer() is not None   # the project depends on graphviz-pure
True
>>> render('digraph { a -> b }', 'png')[:4]
b'\\x89PNG'
"""

from __future__ import annotations

import os
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

#: Output formats :func:`render` produces (both renderers support both).
FORMATS = ('svg', 'png')
#: Environment variable that chooses the renderer (see the module docstring).
ENV_VAR = 'AUTOGRAD_LAB_RENDERER'
#: Seconds a rendering may take before it is abandoned.
TIMEOUT_S = 300


class RendererNotFound(RuntimeError):
    """Neither the system ``dot`` nor ``graphviz-pure`` could be found."""


def _graphviz_pure() -> str | None:
    found = shutil.which('graphviz-pure')
    if found:
        return found
    # not on PATH (e.g. a venv that is not activated): ask the installed wheel where it put it
    try:
        files = metadata.files('graphviz-pure') or ()
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        if Path(str(f)).name in ('graphviz-pure', 'graphviz-pure.exe'):
            path = Path(f.locate()).resolve()
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
    return None


def _resolve(program: str | None) -> str | None:
    choice = program or os.environ.get(ENV_VAR) or None
    if choice is None:
        return shutil.which('dot') or _graphviz_pure()
    if choice == 'graphviz-pure':
        return _graphviz_pure()
    if choice == 'dot':
        return shutil.which('dot')
    path = Path(choice)
    return str(path) if path.is_file() and os.access(path, os.X_OK) else shutil.which(choice)


def renderer(program: str | None = None) -> str | None:
    """The path of the program :func:`render` would run, or None if there is none.

    ``program`` (or ``$AUTOGRAD_LAB_RENDERER``) forces one: ``'dot'``,
    ``'graphviz-pure'`` or a path; a forced one that is missing gives None.

    >>> renderer('graphviz-pure').endswith(('graphviz-pure', 'graphviz-pure.exe'))
    True
    """
    return _resolve(program)


def render(dot_or_model: Any, format: str = 'svg', *,
           program: str | None = None) -> bytes:
    """Lay out and draw DOT source (or a :class:`~autograd_lab.graph.GraphModel`).

    Returns the SVG (UTF-8 XML) or PNG bytes.  Raises :class:`RendererNotFound` when
    no renderer is available and :class:`RuntimeError` with the renderer's message
    when it rejects the input.

    >>> svg = render('digraph { a -> b }', program='graphviz-pure')
    >>> svg.count(b'class="node"')
    2
    """
    if format not in FORMATS:
        raise ValueError(f'format must be one of {FORMATS}, got {format!r}')
    if isinstance(dot_or_model, str):
        source = dot_or_model
    elif hasattr(dot_or_model, 'nodes') and hasattr(dot_or_model, 'edges'):
        from autograd_lab.graph.dot import to_dot  # noqa: PLC0415 - dot imports nothing here
        source = to_dot(dot_or_model)
    elif hasattr(dot_or_model, 'source'):  # a graphviz.Digraph
        source = dot_or_model.source
    else:
        raise TypeError(f'render expects DOT source, a GraphModel or a graphviz graph, '
                        f'got {type(dot_or_model).__name__}')
    exe = _resolve(program)
    if exe is None:
        wanted = program or os.environ.get(ENV_VAR)
        raise RendererNotFound(
            (f'renderer {wanted!r} not found' if wanted else 'no Graphviz renderer found')
            + ": install the Python package 'graphviz-pure' (pip install graphviz-pure) "
            "or the system Graphviz ('dot')")
    try:
        done = subprocess.run([exe, f'-T{format}'], input=source.encode('utf-8'),
                              capture_output=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f'{Path(exe).name} took more than {TIMEOUT_S} s; draw fewer '
                           'nodes (to_dot max_nodes=...)') from None
    if done.returncode != 0 or not done.stdout:
        message = done.stderr.decode('utf-8', 'replace').strip()
        raise RuntimeError(f'{Path(exe).name} failed (exit {done.returncode}): {message}')
    return done.stdout
