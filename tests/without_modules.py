"""Run code in a fresh Python from which some installed packages are truly absent.

The child process starts without ``site`` (``-S``) and then adds a stand-in for this
environment's site-packages: a folder of links to every entry except the packages
named (their code and their ``.dist-info``), processed as a site directory so that
``.pth`` files (the editable install) still work.  Imports and
``importlib.util.find_spec`` then see exactly what a machine without those packages sees.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path


def _site_without(modules: set[str], folder: Path) -> Path:
    site = Path(sysconfig.get_paths()['purelib'])
    folder.mkdir(parents=True, exist_ok=True)
    for entry in site.iterdir():
        stem = entry.name.split('-')[0].split('.')[0].lower()
        if stem not in {m.lower() for m in modules}:
            (folder / entry.name).symlink_to(entry)
    return folder


def run_without(modules: set[str], code: str, tmp_path: Path,
                **kwargs) -> subprocess.CompletedProcess:
    """Runs ``code`` with this interpreter, ``modules`` not installed; returns the result."""
    site = _site_without(modules, tmp_path / 'site-packages-without')
    program = f'import site\nsite.addsitedir({str(site)!r})\n{code}'
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    return subprocess.run([sys.executable, '-S', '-c', program], check=False, capture_output=True,
                          text=True, timeout=120, env=env, **kwargs)
