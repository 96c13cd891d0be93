"""The package as users get it: sdist and wheel built, installed into clean venvs.

* ``python -m build`` makes the sdist and, from it, the wheel; both hold what they must.
* The wheel with its ``notebook`` extra, installed (not editable) into a clean venv: the
  engine runs, the widget's bundle is there and loads as an ES module, and
  ``autograd-lab lessons DIR --no-lab`` copies lessons that all run with nbclient there.
* The engine's tests pass on the oldest and the newest Python this machine offers among
  those the package declares, the oldest with every runtime dependency at its declared
  floor (NumPy 1.26.0 ...), the newest with the newest releases.  Those venvs hold only
  the wheel, its dependencies, pytest and hypothesis; the two runs go side by side.

Everything here runs in CI (marked slow); pip's cache makes the venvs quick to repeat.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / 'tests'
# Test files that need more than the engine, numpy, pytest and hypothesis, or that rerun
# others (the differential tests without AVX-512: once, in the main run, is enough).
NOT_ENGINE = ('test_widget_*.py', 'test_stepping_*.py', 'test_lesson*.py', 'test_missing_extra.py',
              'test_packaging.py', 'test_style.py', 'test_saved_notebook.py',
              'test_clean_exit.py', 'test_marimo_lesson.py', 'test_lowered_dispatch.py',
              'test_shipped_notebooks.py', 'test_sharing_clean.py',
              'test_assignments.py')  # the clone's assignment tools, the grading extra
# The lesson notebooks of this checkout (the main path's 01_..., the appendix's A1_...): what
# the wheel must carry and the command copy, in the course's order (sorted is that order).
LESSONS = sorted(p.name for p in (REPO / 'lessons').glob('[0-9A][0-9]_*.ipynb'))


def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    """Runs a command; on failure the assertion shows its output."""
    env = {k: v for k, v in kwargs.pop('env', os.environ).items()
           if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                          env=env, check=False, **{'timeout': 900, **kwargs})
    assert done.returncode == 0, (f'{command} failed ({done.returncode}):\n'
                                  f'{done.stdout[-4000:]}\n{done.stderr[-4000:]}')
    return done


def make_venv(folder: Path, python: str | Path, *requirements: str) -> Path:
    """A new venv (no system site-packages) with ``requirements``; returns its python."""
    run([python, '-m', 'venv', folder])
    venv_python = folder / 'bin' / 'python'
    run([venv_python, '-m', 'pip', 'install', '-q', '--disable-pip-version-check',
         *requirements])
    return venv_python


# ---- the sdist and the wheel ------------------------------------------------------------------

@pytest.fixture(scope='module')
def dist(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp('dist')
    run([sys.executable, '-m', 'build', '--outdir', out, REPO])  # sdist, then wheel from it
    sdist, = out.glob('autograd_lab-*.tar.gz')
    wheel, = out.glob('autograd_lab-*-py3-none-any.whl')
    return {'sdist': sdist, 'wheel': wheel}


def _metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))
        return Parser().parsestr(z.read(name).decode())


def test_wheel_holds_engine_widget_and_lessons(dist):
    with zipfile.ZipFile(dist['wheel']) as z:
        names = set(z.namelist())
        entry_points = z.read(next(n for n in names if n.endswith('entry_points.txt'))).decode()
        bundle = z.read('autograd_lab_widget/static/graph_view.js')
    engine = {p.relative_to(REPO).as_posix() for p in (REPO / 'autograd_lab').rglob('*.py')}
    assert engine <= names, sorted(engine - names)  # every engine module, subpackages too
    widget = {f'autograd_lab_widget/{p.name}'
              for p in (REPO / 'widgets' / 'autograd_lab_widget').glob('*.py')}
    assert widget <= names
    assert bundle == (REPO / 'widgets/autograd_lab_widget/static/graph_view.js').read_bytes()
    assert len(LESSONS) >= 13
    for name in LESSONS:
        assert f'autograd_lab_lessons/{name}' in names
    for name in ('__init__.py', 'checks/__init__.py', 'checks/feedback.py', 'cli.py', 'path.py',
                 'sharing.py', 'files.py', 'README.md'):
        assert f'autograd_lab_lessons/{name}' in names
    # clone-only: the builder and its sources; no tests, no JS sources
    assert not [n for n in names if 'build_notebooks' in n or '/source/' in n
                or n.startswith(('tests/', 'widgets/', 'lessons/'))]
    assert re.search(r'^autograd-lab\s*=\s*autograd_lab_lessons\.cli:main$', entry_points, re.M)
    meta = _metadata(dist['wheel'])
    assert meta['Requires-Python'] == '>=3.10'
    assert {'notebook', 'colab', 'test', 'gpu'} <= set(meta.get_all('Provides-Extra'))


# What answers an exercise, or serves only to grade: in a clone, never in what students install
# (issue 40). Solution regions are marked as lessons/build_notebooks.py writes them.
INSTRUCTOR_ONLY = ('INSTRUCTORS.md', 'assignments.py', 'hidden_tests.py', 'build_notebooks.py')
ANSWER_MARKS = ('### BEGIN SOLUTION', '### END SOLUTION', '### BEGIN HIDDEN TESTS',
                '# BEGIN SOLUTION', '### STUB', 'checks.STRICT = True')


def _reference_answers() -> list[str]:
    """The code of every reference answer in lessons/solutions/ (between the markers), as it
    would appear inside a notebook's JSON, where it is long enough not to be a mere value."""
    found = []
    for path in sorted((REPO / 'lessons' / 'solutions').glob('*.ipynb')):
        for cell in json.loads(path.read_text(encoding='utf-8'))['cells']:
            text = ''.join(cell['source'])
            if '### BEGIN SOLUTION\n' in text:
                answer = text.split('### BEGIN SOLUTION\n')[1].split('\n### END SOLUTION')[0]
                if len(answer.strip()) >= 40:
                    found.append(answer.strip())
    return found


@pytest.mark.parametrize('which', ['wheel', 'sdist'])
def test_students_package_holds_no_answers(dist, which):
    """No solution notebook, instructor note or hidden-test tool; no .ipynb with a solution
    region, a hidden test or the solutions' strict line; no reference answer anywhere."""
    if which == 'wheel':
        with zipfile.ZipFile(dist['wheel']) as z:
            files = {n: z.read(n) for n in z.namelist()}
    else:
        with tarfile.open(dist['sdist']) as t:
            files = {m.name.split('/', 1)[1]: t.extractfile(m).read() for m in t.getmembers()
                     if m.isfile() and '/' in m.name}
    names = sorted(files)
    assert [n for n in names if n.endswith('.ipynb')], 'no lesson notebooks at all'
    assert not [n for n in names if '/solutions/' in n or n.startswith('solutions/')]
    assert not [n for n in names if n.rsplit('/', 1)[-1] in INSTRUCTOR_ONLY]
    for name in (n for n in names if n.endswith('.ipynb')):
        cells = json.loads(files[name])['cells']
        text = '\n'.join(''.join(c['source']) for c in cells)
        assert not [m for m in ANSWER_MARKS if m in text], name
    answers = _reference_answers()
    assert len(answers) >= 20
    shipped = {n: files[n].decode('utf-8', 'replace') for n in names
               if n.endswith(('.ipynb', '.md', '.txt', '.py'))}
    for name, text in shipped.items():
        if name.endswith('.ipynb'):  # the answer's lines as the notebook's JSON holds them
            text = '\n'.join(''.join(c['source']) for c in json.loads(text)['cells'])
        assert not [a for a in answers if a in text], name


def test_sdist_rebuilds_the_same_package(dist):
    with tarfile.open(dist['sdist']) as t:
        names = {n.split('/', 1)[1] for n in t.getnames() if '/' in n}
    for name in ('setup.py', 'pyproject.toml', 'README.md', 'lessons/checks/__init__.py',
                 *(f'lessons/{lesson}' for lesson in LESSONS),
                 'widgets/autograd_lab_widget/static/graph_view.js'):
        assert name in names, name


# ---- a clean venv with the wheel and its notebook extra -------------------------------------

@pytest.fixture(scope='module')
def notebook_venv(dist, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp('venv-notebook') / 'venv'
    python = make_venv(folder, sys.executable, f"{dist['wheel']}[notebook]")
    run([python, '-m', 'pip', 'check'])
    return python


SMOKE = '''
import json, sys
from importlib import resources
import numpy as np
import autograd_lab as chainer, autograd_lab_widget, autograd_lab_lessons
from autograd_lab_widget import GraphView

x = chainer.Variable(np.array([5.0], np.float32), name='x')
y = x**2 - 2*x + 1
y.backward()
view = GraphView(y)
bundle = (resources.files('autograd_lab_widget') / 'static' / 'graph_view.js').read_text()
print(json.dumps({
    'grad': x.grad.tolist(),
    'files': [m.__file__ for m in (chainer, autograd_lab_widget, autograd_lab_lessons)],
    'esm_is_bundle': view._agl_bundle.get_state()['source'] == bundle,
    'bundle': str(resources.files('autograd_lab_widget') / 'static' / 'graph_view.js'),
    'lessons': [nb.name for nb in autograd_lab_lessons.lessons()],
}))
view.close()
'''


def test_clean_venv_runs_the_engine_and_the_widget(notebook_venv, tmp_path):
    out = json.loads(run([notebook_venv, '-c', SMOKE], cwd=tmp_path).stdout)
    assert out['grad'] == [8.0]
    site = notebook_venv.parent.parent / 'lib'
    assert all(Path(f).is_relative_to(site) for f in out['files']), out['files']  # not editable
    assert out['esm_is_bundle']
    assert out['lessons'] == LESSONS


def test_installed_bundle_loads_as_an_es_module(notebook_venv, tmp_path):
    node = shutil.which('node')
    if node is None:
        pytest.skip('Node.js is not installed (.ci/run installs it)')
    bundle = json.loads(run([notebook_venv, '-c', SMOKE], cwd=tmp_path).stdout)['bundle']
    probe = (f'const m = await import({json.dumps(Path(bundle).as_uri())});'
             'console.log(JSON.stringify([Object.keys(m.default), typeof m.default.render]));')
    done = run([node, '--input-type=module', '-e', probe], cwd=tmp_path)
    assert json.loads(done.stdout) == [['render'], 'function']


RUN_LESSONS = '''
import sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
for path in sorted(Path(sys.argv[1]).glob('[0-9A][0-9]_*.ipynb')):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name='python3',
                   resources={'metadata': {'path': str(path.parent)}}).execute()
    print('ran', path.name, flush=True)
'''


def test_command_copies_lessons_that_run_in_the_clean_venv(notebook_venv, tmp_path):
    folder = tmp_path / 'my lessons'  # a space in the path, as on many laptops
    command = notebook_venv.parent / 'autograd-lab'
    copied = run([command, 'lessons', folder, '--no-lab'], cwd=tmp_path)
    assert 'file(s) copied' in copied.stdout
    env_dirs = {'JUPYTER_PLATFORM_DIRS': '1', 'JUPYTER_DATA_DIR': str(tmp_path / 'data'),
                'JUPYTER_CONFIG_DIR': str(tmp_path / 'config'),
                'IPYTHONDIR': str(tmp_path / 'ipython')}
    done = run([notebook_venv, '-c', RUN_LESSONS, folder], cwd=tmp_path,
               env={**os.environ, **env_dirs})
    ran = re.findall(r'^ran (\S+)$', done.stdout, re.M)
    assert ran == sorted(p.name for p in folder.glob('[0-9A][0-9]_*.ipynb'))
    assert ran == LESSONS


def test_installed_wheel_sends_instructors_to_a_clone(notebook_venv, tmp_path):
    """--solutions and assignments from the wheel: a clear refusal that names the clone."""
    command = notebook_venv.parent / 'autograd-lab'
    for args in (['lessons', tmp_path / 'out', '--no-lab', '--solutions'],
                 ['assignments', '--format', 'otter', tmp_path / 'out']):
        done = subprocess.run([str(c) for c in (command, *args)], capture_output=True,
                              text=True, timeout=300, check=False, cwd=tmp_path)
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert 'clone of the autograd_lab repository' in done.stderr, done.stderr
        assert 'Traceback' not in done.stderr
        assert not (tmp_path / 'out').exists()


# ---- the engine's tests on the declared Python and NumPy range ------------------------------

def _interpreters() -> dict[Version, Path]:
    """Pythons on this machine: pyenv's (where the image keeps 3.10-3.13), PATH's, ours."""
    found: dict[Version, Path] = {}
    roots = [os.environ.get('PYENV_ROOT', ''), str(Path.home() / '.pyenv')]
    candidates = [Path(sys.executable)]
    for root in filter(None, roots):
        candidates += sorted(Path(root).glob('versions/*/bin/python3'))
    candidates += [Path(p) for n in range(8, 20) if (p := shutil.which(f'python3.{n}'))]
    for python in candidates:
        try:
            version = subprocess.run(
                [python, '-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'],
                capture_output=True, text=True, timeout=30, check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        found.setdefault(Version(version), python)
    return found


def _declared(wheel: Path) -> tuple[SpecifierSet, list[Requirement]]:
    meta = _metadata(wheel)
    requirements = [Requirement(r) for r in meta.get_all('Requires-Dist')]
    return SpecifierSet(meta['Requires-Python']), [
        r for r in requirements if not (r.marker and 'extra' in str(r.marker))]


def _floors(requirements: list[Requirement]) -> list[str]:
    """Each runtime dependency pinned to the lowest version it declares (numpy==1.26 ...)."""
    pins = []
    for r in requirements:
        lows = [s.version for s in r.specifier if s.operator in ('>=', '==', '~=')]
        assert lows, f'{r} declares no lower bound'
        marker = f'; {r.marker}' if r.marker else ''
        pins.append(f'{r.name}=={max(lows, key=Version)}{marker}')
    return pins


def _choose(wheel: Path, which: str) -> tuple[Path, list[str]]:
    """(interpreter, extra requirements) for the oldest or the newest declared Python."""
    python_range, runtime = _declared(wheel)
    offered = {v: p for v, p in _interpreters().items() if v in python_range}
    floor = min(Version(s.version) for s in python_range if s.operator == '>=')
    if which == 'oldest':
        oldest = [v for v in offered if (v.major, v.minor) == (floor.major, floor.minor)]
        if not oldest:
            pytest.skip(f'Python {floor.major}.{floor.minor}, the oldest the package declares, '
                        f'is not on this machine (found {sorted(map(str, offered))} in pyenv, '
                        'PATH and this venv)')
        return offered[min(oldest)], _floors(runtime)
    return offered[max(offered)], []


def _engine_test_paths() -> list[Path]:
    return [p for p in sorted(TESTS.glob('test_*.py'))
            if not any(fnmatch.fnmatch(p.name, pattern) for pattern in NOT_ENGINE)]


@pytest.fixture(scope='module')
def engine_runs(dist, tmp_path_factory) -> dict[str, object]:
    """Both engine runs, side by side (two cores): which -> (python, pins, result)."""
    runs, started = {}, {}
    for which in ('oldest', 'newest'):
        try:
            python, pins = _choose(dist['wheel'], which)
        except pytest.skip.Exception as skipped:
            runs[which] = skipped
            continue
        folder = tmp_path_factory.mktemp(f'venv-{which}')
        venv_python = make_venv(folder / 'venv', python, str(dist['wheel']), *pins,
                                'pytest', 'hypothesis')
        command = [venv_python, '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
                   '-o', 'addopts=', '--import-mode=importlib', '--rootdir', REPO,
                   '-c', REPO / 'pyproject.toml', '--doctest-modules',
                   *_engine_test_paths(), '--pyargs', 'autograd_lab']
        started[which] = (venv_python, pins, subprocess.Popen(
            [str(c) for c in command], cwd=folder, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
            env={k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}))
    for which, (venv_python, pins, process) in started.items():
        out, _ = process.communicate(timeout=1500)
        versions = run([venv_python, '-c', 'import sys, numpy; print(sys.version.split()[0], '
                                           'numpy.__version__)']).stdout.split()
        runs[which] = {'python': versions[0], 'numpy': versions[1], 'pins': pins,
                       'returncode': process.returncode, 'output': out}
    return runs


@pytest.mark.parametrize('which', ['oldest', 'newest'])
def test_engine_tests_pass_on_declared_python_and_numpy(engine_runs, which):
    result = engine_runs[which]
    if isinstance(result, BaseException):
        pytest.skip(str(result))
    tail = result['output'][-3000:]
    summary = tail.strip().splitlines()[-1]
    print(f"{which}: Python {result['python']}, NumPy {result['numpy']}: {summary}")
    assert result['returncode'] == 0, tail
    # 'xfailed' (a strict expected failure) is fine; 'N failed' is not
    assert re.search(r'\d+ passed', summary) and not re.search(r'\d+ failed', summary), tail
    if which == 'oldest':  # NumPy at its declared floor itself
        floor, = (pin.split('==')[1].split(';')[0] for pin in result['pins']
                  if pin.startswith('numpy=='))
        assert Version(result['numpy']) == Version(floor)


# ---- a clone: lessons/start.sh ----------------------------------------------------------------

def test_start_script_sets_up_a_clone(tmp_path):
    """The Quickstart's first command, on a copy of this checkout, up to starting Lab."""
    listed = run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
                 cwd=REPO).stdout.split('\0')
    clone = tmp_path / 'clone'
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    done = run(['bash', clone / 'lessons' / 'start.sh', '--setup-only'],
               env={**os.environ, 'PYTHON': sys.executable}, cwd=tmp_path)
    assert 'jupyter lab lessons/01_variables_and_derivatives.ipynb' in done.stdout
    python = clone / '.venv' / 'bin' / 'python'
    found = run([python, '-c', 'import autograd_lab_lessons.checks as c, jupyterlab, '
                               'autograd_lab_widget; print(c.__file__)'], cwd=tmp_path)
    assert Path(found.stdout.strip()) == clone / 'lessons' / 'checks' / '__init__.py'  # the clone's
    assert (clone / '.venv' / 'bin' / 'autograd-lab').exists()
