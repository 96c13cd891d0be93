"""The installed lessons: package ``autograd_lab_lessons`` and the ``autograd-lab`` command.

``autograd-lab lessons DIR`` copies the notebooks out of the installed package and opens
JupyterLab there; the copied lessons import their checkers from the package, so they run
with nothing beside them.  (The wheel itself, installed into a clean venv, is tested in
test_packaging.py.)
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import autograd_lab_lessons
from autograd_lab_lessons import FIRST_LESSON, checks, cli
from autograd_lab_lessons.path import APPENDIX, MAIN_PATH
from without_modules import run_without

REPO = Path(__file__).resolve().parent.parent
COMMAND = Path(sys.executable).with_name('autograd-lab')  # the console script of this venv


def autograd_lab(*args: str, **kwargs) -> subprocess.CompletedProcess:
    assert COMMAND.exists(), f'no {COMMAND}: install the project (pip install -e ".[test]")'
    return subprocess.run([str(COMMAND), *args], check=False, capture_output=True, text=True,
                          timeout=120, **kwargs)


def run_notebook(path: Path, timeout: float = 300) -> nbformat.NotebookNode:
    """Runs a notebook top to bottom in its own folder (as a learner's Run All would)."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name='python3',
                   resources={'metadata': {'path': str(path.parent)}}).execute()
    return nb


def test_the_package_is_the_lessons_folder():
    assert Path(autograd_lab_lessons.__file__).parent == REPO / 'lessons'
    assert Path(checks.__file__) == REPO / 'lessons' / 'checks' / '__init__.py'
    names = [nb.name for nb in autograd_lab_lessons.lessons()]
    # the course's order: the main path, then the appendix (lessons/path.py)
    assert names == [f'{stem}.ipynb' for stem in MAIN_PATH + APPENDIX]
    assert sorted(names) == sorted(p.name for p in (REPO / 'lessons').glob('[0-9A][0-9]_*.ipynb'))
    assert names[0] == FIRST_LESSON and names[-1].startswith('A')
    assert [nb.name for nb in autograd_lab_lessons.lessons(solutions=True)] == names


def test_every_lesson_imports_its_checkers_from_the_package():
    for nb in autograd_lab_lessons.lessons() + autograd_lab_lessons.lessons(solutions=True):
        cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
        code = '\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'code')
        assert 'from autograd_lab_lessons import checks' in code, nb.name
        assert not re.search(r'^import checks', code, re.M), nb.name  # no file beside it
        assert 'sys.path' not in code, nb.name


def test_command_copies_the_lessons_without_starting_lab(tmp_path):
    target = tmp_path / 'class'
    done = autograd_lab('lessons', str(target), '--no-lab')
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in target.iterdir())
    assert names == sorted([nb.name for nb in autograd_lab_lessons.lessons()] + ['README.md'])
    assert (target / FIRST_LESSON).read_bytes() == (REPO / 'lessons' / FIRST_LESSON).read_bytes()
    assert f'Lessons in {target}: {len(names)} file(s) copied' in done.stdout
    assert 'JupyterLab' not in done.stdout  # --no-lab: nothing started


def test_command_keeps_a_learners_work(tmp_path):
    assert autograd_lab('lessons', str(tmp_path), '--no-lab').returncode == 0
    mine = tmp_path / FIRST_LESSON
    mine.write_text('{"my": "answers"}', encoding='utf-8')
    (tmp_path / '03_retain_grad.ipynb').unlink()
    again = autograd_lab('lessons', str(tmp_path), '--no-lab')
    assert again.returncode == 0, again.stderr
    assert mine.read_text(encoding='utf-8') == '{"my": "answers"}'
    assert (tmp_path / '03_retain_grad.ipynb').exists()  # a deleted lesson comes back
    kept = len(autograd_lab_lessons.lessons())  # the other lessons and the index
    assert f'1 file(s) copied, {kept} kept as they were' in again.stdout


def test_command_copies_solutions_for_instructors(tmp_path):
    done = autograd_lab('lessons', str(tmp_path), '--no-lab', '--solutions')
    assert done.returncode == 0, done.stderr
    assert (tmp_path / 'INSTRUCTORS.md').exists()
    assert sorted(p.name for p in (tmp_path / 'solutions').iterdir()) == [
        nb.name for nb in autograd_lab_lessons.lessons()]


NO_MATERIAL = """
import sys
from importlib import resources
import autograd_lab_lessons
from autograd_lab_lessons.cli import main
real = resources.files
def files(name):  # the package as the wheel installs it: no solutions/, no INSTRUCTORS.md
    folder = real(name)
    class Wheel(type(folder)):
        def __truediv__(self, child):
            return folder / ('not-installed-' + child if child in ('solutions',
                             'INSTRUCTORS.md') else child)
    return Wheel(folder) if name == 'autograd_lab_lessons' else folder
resources.files = files
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize('command', [['lessons', 'out', '--no-lab', '--solutions'],
                                     ['assignments', '--format', 'nbgrader', 'out']])
def test_without_the_instructor_material_the_command_names_the_clone(command, tmp_path):
    """Where the package lacks the solutions (the wheel): a clear refusal, nothing copied."""
    done = subprocess.run([sys.executable, '-c', NO_MATERIAL, *command], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert 'not in the installed autograd-lab package' in done.stderr
    assert 'clone of the autograd_lab repository' in done.stderr
    assert not (tmp_path / 'out').exists()


def test_the_clone_has_the_instructor_material():
    assert autograd_lab_lessons.has_instructor_material()


def test_command_defaults_to_a_folder_in_the_current_directory(tmp_path):
    done = autograd_lab('lessons', '--no-lab', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / cli.DEFAULT_FOLDER / FIRST_LESSON).exists()


def test_command_help_and_bad_usage():
    helped = autograd_lab('lessons', '--help')
    assert helped.returncode == 0 and '--no-lab' in helped.stdout
    bad = autograd_lab('unknown-command')
    assert bad.returncode == 2 and 'lessons' in bad.stderr


def test_copied_lesson_runs_with_nothing_beside_it(tmp_path):
    assert autograd_lab('lessons', str(tmp_path), '--no-lab').returncode == 0
    assert not list(tmp_path.glob('*.py'))  # no checks.py beside the notebooks
    nb = run_notebook(tmp_path / FIRST_LESSON)
    shown = json.dumps([c.get('outputs', []) for c in nb.cells])
    assert 'not done yet' in shown  # the checkers answered the untouched exercises


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def test_command_opens_jupyterlab_on_the_copied_lessons(tmp_path):
    """The real command starts a real JupyterLab that serves the copied folder."""
    home = tmp_path / 'home'
    env = {**os.environ, 'JUPYTER_PLATFORM_DIRS': '1'}
    for var, sub in [('JUPYTER_CONFIG_DIR', 'config'), ('JUPYTER_RUNTIME_DIR', 'runtime'),
                     ('JUPYTER_DATA_DIR', 'data'), ('JUPYTERLAB_SETTINGS_DIR', 'settings'),
                     ('JUPYTERLAB_WORKSPACES_DIR', 'workspaces'), ('IPYTHONDIR', 'ipython')]:
        env[var] = str(home / sub)
    port, token = _free_port(), 'agl-test-token'
    lab = subprocess.Popen(
        [str(COMMAND), 'lessons', str(tmp_path / 'class'), '--no-browser', '--',
         '--ip=127.0.0.1', f'--port={port}', f'--IdentityProvider.token={token}'],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = (f'http://127.0.0.1:{port}/api/contents/{FIRST_LESSON}'
               f'?content=0&token={token}')
        deadline, answer = time.monotonic() + 90, None
        while time.monotonic() < deadline and lab.poll() is None:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    answer = json.loads(response.read())
                    break
            except OSError:
                time.sleep(0.5)
        assert answer is not None, f'JupyterLab did not serve the lesson (exit {lab.poll()})'
        assert answer['name'] == FIRST_LESSON and answer['type'] == 'notebook'
        with urllib.request.urlopen(f'http://127.0.0.1:{port}/lab?token={token}',
                                    timeout=10) as page:
            assert page.status == 200 and b'JupyterLab' in page.read()
    finally:
        lab.send_signal(signal.SIGTERM)
        try:
            out, _ = lab.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            lab.kill()
            out, _ = lab.communicate()
    assert f'Opening {FIRST_LESSON} in JupyterLab' in out


def test_command_names_the_install_command_when_jupyterlab_is_missing(tmp_path):
    target = tmp_path / 'class'
    done = run_without({'jupyterlab'}, 'import sys\nfrom autograd_lab_lessons import cli\n'
                       f'sys.exit(cli.main(["lessons", {str(target)!r}]))', tmp_path)
    assert done.returncode == 1, done.stderr
    assert 'jupyterlab not installed in this Python' in done.stderr
    assert 'pip install "autograd-lab[notebook]"' in done.stderr
    assert (target / FIRST_LESSON).exists()  # the lessons were copied all the same


def test_engine_and_widget_never_import_the_lessons():
    for folder in (REPO / 'autograd_lab', REPO / 'widgets' / 'autograd_lab_widget'):
        for path in folder.rglob('*.py'):
            assert 'autograd_lab_lessons' not in path.read_text(encoding='utf-8'), path
    done = subprocess.run(
        [sys.executable, '-c', 'import sys, autograd_lab, autograd_lab_widget\n'
                               'print([m for m in sys.modules if "lessons" in m])'],
        capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == '[]'



# ---- the first cell: installs the package where the kernel lacks it (Colab) ---------------

def _build_module():
    import importlib.util as iu
    spec = iu.spec_from_file_location('lessons_build_for_install', REPO / 'lessons' /
                                      'build_notebooks.py')
    module = iu.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_lesson_starts_with_the_install_cell():
    build = _build_module()
    for nb in autograd_lab_lessons.lessons() + autograd_lab_lessons.lessons(solutions=True):
        first = json.loads(nb.read_text(encoding='utf-8'))['cells'][0]
        assert first['cell_type'] == 'code', nb.name
        assert ''.join(first['source']) == build.INSTALL_CELL, nb.name
    assert f'"autograd-lab[colab] @ {build.PACKAGE_URL}"' in build.INSTALL_CELL


def _run_install_cell(monkeypatch, installed: bool) -> list[str]:
    """Runs the cell in a real IPython shell; returns what it asked ``%pip`` to do."""
    from IPython.core.interactiveshell import InteractiveShell
    import importlib.util as iu

    build = _build_module()
    shell = InteractiveShell.instance()
    asked: list[str] = []
    # pip itself cannot reach the package's URL from here: record the request instead
    monkeypatch.setitem(shell.magics_manager.magics['line'], 'pip', asked.append)
    real_find_spec = iu.find_spec
    monkeypatch.setattr(iu, 'find_spec', lambda name, *a: (
        real_find_spec(name, *a) if installed or name != 'autograd_lab_lessons' else None))
    result = shell.run_cell(build.INSTALL_CELL)
    result.raise_error()
    return asked


def test_install_cell_does_nothing_where_the_package_is_installed(monkeypatch):
    assert _run_install_cell(monkeypatch, installed=True) == []


def test_install_cell_installs_where_the_package_is_missing(monkeypatch):
    asked = _run_install_cell(monkeypatch, installed=False)
    assert asked == ['install --quiet "autograd-lab[colab] @ git+https://github.com/ORG/REPO"']


def test_the_colab_extra_brings_what_the_lessons_import():
    """What the install cell installs is enough: every module a lesson imports comes from
    the standard library, the kernel (IPython), or autograd-lab with its `colab` extra."""
    import importlib.metadata as md

    tomllib = pytest.importorskip('tomllib')
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((REPO / 'pyproject.toml').read_text(encoding='utf-8'))['project']
    provided = {canonicalize_name(Requirement(r).name)
                for r in project['dependencies'] + project['optional-dependencies']['colab']}
    provided.add(canonicalize_name(project['name']))
    code = '\n'.join(''.join(c['source']) for nb in autograd_lab_lessons.lessons()
                     for c in json.loads(nb.read_text(encoding='utf-8'))['cells']
                     if c['cell_type'] == 'code')
    imported = set(re.findall(r'^\s*(?:import|from)\s+(\w+)', code, re.M))
    owners = md.packages_distributions()
    needed = {name: {canonicalize_name(d) for d in owners.get(name, [])}
              for name in imported - set(sys.stdlib_module_names) - {'IPython'}}
    assert {'autograd_lab_widget', 'sklearn', 'matplotlib'} <= set(needed)  # the test sees them
    missing = {name: dists for name, dists in needed.items() if not dists & provided}
    assert not missing, f'imported by the lessons but not installed by [colab]: {missing}'
