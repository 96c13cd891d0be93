"""Writing the lesson files safely: whole or not at all, never through a link.

:func:`write_whole` writes to a temporary file in the same folder, flushes it to the
disk and renames it over the target, so a full disk or a crash leaves either the old
file or the new one, never half of one.  :func:`broken_notebook` tells a notebook that
cannot be opened (empty, or not JSON) from a learner's work, which is kept.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_whole(folder / 'a.ipynb', b'{"cells": []}')
>>> (folder / 'a.ipynb').read_bytes(), sorted(p.name for p in folder.iterdir())
(b'{"cells": []}', ['a.ipynb'])
>>> broken_notebook(folder / 'a.ipynb')
False
>>> _ = (folder / 'b.ipynb').write_bytes(b'{"cells": [')
>>> broken_notebook(folder / 'b.ipynb')
'it is not valid JSON'
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

__all__ = ['broken_notebook', 'write_whole']


def _write_all(fd: int, data: bytes) -> None:
    """Writes every byte of ``data`` to ``fd`` (``os.write`` may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_whole(target: Path, data: bytes, mode: int = 0o644) -> None:
    """Writes ``data`` to ``target`` whole or not at all (temporary file, fsync, rename),
    with the file mode ``mode``.

    On any error the temporary file is removed and ``target`` is as it was.
    """
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f'.{target.name}.',
                                     suffix='.tmp')
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def broken_notebook(path: Path) -> str | bool:
    """Why the notebook at ``path`` cannot be opened ('it is empty', ...), or False.

    Only a file no notebook program can open counts as broken: any JSON object is
    kept, since it may be a learner's work in a shape this package does not know.
    """
    data = path.read_bytes()
    if not data.strip():
        return 'it is empty'
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return 'it is not valid JSON'
    return False if isinstance(parsed, dict) else 'it is not a JSON object'
