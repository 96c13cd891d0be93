"""Binder, replayed (issue 32, point 6): what repo2docker builds from ``binder/``, then a real
Chromium at the server's default URL.

The steps are those of the Dockerfile ``repo2docker --no-build --debug`` prints (2026.4.0)
for this repository, minus Docker:

1. the base environment: Python from ``binder/runtime.txt`` in a clean venv (repo2docker's
   is a conda env at ``NB_PYTHON_PREFIX``) holding the Jupyter of repo2docker's base image
   (:data:`BASE_IMAGE`, from its ``environment.py-3.11-linux-64.lock``);
2. the repository copied (its files, as ``COPY src/``), then
   ``pip install -r binder/requirements.txt`` run in it;
3. ``binder/postBuild`` run there, with ``NB_PYTHON_PREFIX`` pointing at the venv;
4. the image's command, ``jupyter notebook --ip ...``, through ``binder/start`` (the
   entrypoint runs it first when it exists), with a fresh home and no setting of ours.

Test-only additions: a port, a token, ``--allow-root`` and ``expose_app_in_browser`` (so the
test can run the notebook's cells with JupyterLab's own command).  The install is real
(every package resolved from the index, nothing taken from the project's venv); pip's
download cache is the only shortcut, as on any machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jupyter_harness as jh
import pytest

from autograd_lab_lessons import FIRST_LESSON

pytestmark = pytest.mark.slow

#: Jupyter as repo2docker's base image has it for Python 3.11 (repo2docker 2026.4.0,
#: buildpacks/conda/environment.py-3.11-linux-64.lock): what binder/requirements.txt
#: is installed on top of.
BASE_IMAGE = ['jupyterlab==4.4.9', 'notebook==7.4.7', 'ipywidgets==8.1.7',
              'jupyter_server==2.17.0']
#: JupyterLab's "get notified about official Jupyter news?" toast (binder/overrides.json
#: turns it off).
NEWS_TOAST = 'text=/Jupyter news/i'


def _runtime_python() -> str:
    """The Python that binder/runtime.txt names (python-X.Y): pyenv's, or this one."""
    version = (jh.REPO / 'binder' / 'runtime.txt').read_text().strip().removeprefix('python-')
    if version == '.'.join(map(str, sys.version_info[:2])):
        return getattr(sys, '_base_executable', sys.executable)
    root = subprocess.run(['pyenv', 'root'], capture_output=True, text=True, check=False)
    found = sorted(Path(root.stdout.strip()).glob(f'versions/{version}.*/bin/python'))
    if not found:
        pytest.fail(f'binder/runtime.txt asks for Python {version}: not found (pyenv)')
    return str(found[-1])


def _copy_repository(target: Path) -> None:
    """The repository's files as repo2docker copies them: tracked and new, not ignored."""
    listed = subprocess.run(['git', 'ls-files', '-z', '--cached', '--others',
                             '--exclude-standard'], cwd=jh.REPO, capture_output=True,
                            check=True).stdout.decode().split('\0')
    for name in filter(None, listed):
        source = jh.REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _clean_env(venv: Path, home: Path) -> dict[str, str]:
    """An environment like the image's: the venv first on PATH, a fresh home, nothing of
    this test run's Jupyter or Python settings."""
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(('JUPYTER', 'PYTHON', 'VIRTUAL_ENV', 'IPYTHON', 'AGL_'))}
    home.mkdir(parents=True, exist_ok=True)
    return {**keep, 'HOME': str(home), 'NB_PYTHON_PREFIX': str(venv),
            'PATH': f'{venv / "bin"}{os.pathsep}{os.environ["PATH"]}'}


def _step(command: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False,
                          timeout=900)
    assert done.returncode == 0, f'{command}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}'


class BinderServer(jh.JupyterServer):
    """The image's command (``jupyter notebook``) through ``binder/start``, in the copy."""

    def __init__(self, repo: Path, home: Path, env: dict[str, str]) -> None:
        super().__init__('lab', repo, home)
        self.clean_env = env

    def _env(self) -> dict[str, str]:
        return self.clean_env

    def _command(self) -> list[str]:
        return [str(self.root / 'binder' / 'start'), 'jupyter', 'notebook',
                '--ip', '127.0.0.1', '--no-browser', f'--port={self.port}',
                '--ServerApp.port_retries=0', f'--IdentityProvider.token={self.token}',
                '--allow-root', '--JupyterNotebookApp.expose_app_in_browser=True',
                '--LabApp.expose_app_in_browser=True']


def test_binder_opens_lesson_one_with_its_graph(tmp_path: Path, page: Any) -> None:
    repo, venv = tmp_path / 'repo', tmp_path / 'venv'
    _copy_repository(repo)
    env = _clean_env(venv, tmp_path / 'home')
    _step([_runtime_python(), '-m', 'venv', str(venv)], tmp_path, env)
    pip = [str(venv / 'bin' / 'python'), '-m', 'pip', 'install', '-q']
    _step([*pip, *BASE_IMAGE], repo, env)
    _step([*pip, '-r', 'binder/requirements.txt'], repo, env)
    _step(['bash', '-c', 'chmod +x binder/postBuild && ./binder/postBuild'], repo, env)
    with BinderServer(repo, tmp_path / 'server', env) as server:
        page.goto(server.url(''))  # the default URL: /
        lesson = f'lessons/{FIRST_LESSON}'
        page.wait_for_url(f'**/lab/tree/{lesson}*', timeout=60_000)
        page.wait_for_function(jh._KERNEL_IDLE_JS, arg=lesson, timeout=90_000)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        # run-all leaves the notebook at its end; JupyterLab's windowed notebook hides the
        # cells far out of view, so the view looked for is one drawn where the student is
        widget = page.locator('.agl-root[data-agl-ready="1"]:visible').first
        widget.wait_for(state='visible', timeout=120_000)
        assert widget.locator('svg .node').count() > 0, 'the graph has nodes'
        widget.scroll_into_view_if_needed()
        page.wait_for_timeout(3000)  # the news toast comes a moment after the page loads
        jh.screenshot(page, 'binder-lesson-1')
        assert page.locator(NEWS_TOAST).count() == 0, 'the news pop-up is shown'
        listed = page.request.get(server.url('api/contents/lessons')).json()['content']
        names = {entry['name'] for entry in listed}
        assert FIRST_LESSON in names and 'solutions' not in names, sorted(names)
