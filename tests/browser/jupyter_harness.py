"""Real Jupyter and marimo servers and a real Chromium for the browser tests and the latency
benchmark.

Three pieces, each with one job:

* :class:`JupyterServer` starts ``jupyter lab`` (which also serves Notebook 7's ``/tree`` and
  ``/notebooks`` pages) or a standalone ``voila`` on 127.0.0.1 with a free port, a random token
  and every Jupyter/IPython config, runtime and settings folder inside a temp folder, so nothing
  from the user's home leaks in and nothing is left behind.
* :func:`write_notebook` writes a notebook whose first cell starts :mod:`kernel_probe`, the
  channel through which a test reads kernel state, and whose last cell sets ``_agl_done``.
* :class:`Probe` asks the kernel for the value of an expression; :func:`launch_chromium`
  starts Debian's Chromium through Playwright (never a downloaded browser).

Page helpers for each front end (open a notebook, run it, wait for the widget) are at the end.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
#: Debian's Chromium (apt-get install chromium); ``playwright install`` is never used.
CHROMIUM = os.environ.get('AGL_CHROMIUM', '/usr/bin/chromium')
CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                 '--disable-background-networking', '--disable-component-update', '--disable-sync',
                 '--disable-dev-shm-usage']
#: Where screenshots go (gitignored); AGL_TEST_ARTIFACTS overrides it.
ARTIFACTS = Path(os.environ.get('AGL_TEST_ARTIFACTS', REPO / 'test-artifacts' / 'browser'))

# The "get notified about Jupyter news?" toast covers the page; `--LabApp.news_url=None` does
# not stop it but this settings file does. Windowing off: every cell's output stays in the DOM
# however long the notebook, so selectors never miss an off-screen widget.
_USER_SETTINGS = {
    '@jupyterlab/apputils-extension/notification.jupyterlab-settings':
        {'fetchNews': 'false', 'checkForUpdates': False},
    '@jupyterlab/notebook-extension/tracker.jupyterlab-settings': {'windowingMode': 'none'},
}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class ServerError(RuntimeError):
    """A Jupyter server did not start (its log tail is in the message)."""


class JupyterServer:
    """One ``jupyter lab`` or ``voila`` process in a temp folder; use as a context manager.

    ``kind`` is ``'lab'`` (also serving Notebook 7 pages) or ``'voila'``. ``root`` is the
    folder the server serves; ``home`` holds its private config/runtime/settings folders.
    """

    def __init__(self, kind: str, root: Path, home: Path, *, startup_timeout: float = 90) -> None:
        if kind not in ('lab', 'voila', 'marimo'):
            raise ValueError(f'unknown server kind {kind!r}')
        self.kind, self.root, self.home = kind, Path(root), Path(home)
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.base = f'http://127.0.0.1:{self.port}'
        self.startup_timeout = startup_timeout
        self.log_path = self.home / f'{kind}-server.log'
        self.proc: subprocess.Popen | None = None

    # -- environment -----------------------------------------------------------------------

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        dirs = {name: self.home / sub for name, sub in [
            ('JUPYTER_CONFIG_DIR', 'config'), ('JUPYTER_RUNTIME_DIR', 'runtime'),
            ('JUPYTER_DATA_DIR', 'data'), ('JUPYTERLAB_SETTINGS_DIR', 'lab-settings'),
            ('JUPYTERLAB_WORKSPACES_DIR', 'lab-workspaces'), ('IPYTHONDIR', 'ipython')]}
        for name, path in dirs.items():
            path.mkdir(parents=True, exist_ok=True)
            env[name] = str(path)
        for rel, value in _USER_SETTINGS.items():
            target = dirs['JUPYTERLAB_SETTINGS_DIR'] / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value))
        # The kernel imports the project from the checkout even where it is not pip-installed.
        paths = [str(REPO), str(REPO / 'widgets'), env.get('PYTHONPATH', '')]
        env['PYTHONPATH'] = os.pathsep.join(p for p in paths if p)
        env['JUPYTER_PLATFORM_DIRS'] = '1'
        env.pop('JUPYTER_TOKEN', None)
        # marimo: its config in the temp folder too, and no look for a newer marimo online
        env['XDG_CONFIG_HOME'] = str(self.home / 'xdg-config')
        env['MARIMO_SKIP_UPDATE_CHECK'] = '1'
        return env

    def _command(self) -> list[str]:
        common = ['--no-browser', f'--port={self.port}', '--ServerApp.port_retries=0']
        if self.kind == 'lab':
            return [sys.executable, '-m', 'jupyterlab', *common, '--ip=127.0.0.1',
                    f'--IdentityProvider.token={self.token}', f'--ServerApp.root_dir={self.root}',
                    '--allow-root', '--LabApp.expose_app_in_browser=True',
                    '--JupyterNotebookApp.expose_app_in_browser=True',
                    '--ServerApp.terminals_enabled=False', '--LabApp.news_url=None']
        if self.kind == 'marimo':
            # `marimo run` on a folder: every app in it at /?file=<name>.py, one kernel per
            # page; the token is this harness's (marimo's own is off: a local test server).
            return [sys.executable, '-m', 'marimo', 'run', str(self.root), '--headless',
                    '--no-token', '--host', '127.0.0.1', f'--port={self.port}',
                    '--no-sandbox', '--no-check']
        # Standalone Voila, the way a student runs `voila lesson.ipynb`, but on a folder so one
        # server renders every generated notebook at /voila/render/<name>.
        return [sys.executable, '-m', 'voila', str(self.root), *common, '--Voila.ip=127.0.0.1',
                f'--Voila.token={self.token}', '--show_tracebacks=True']

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> JupyterServer:
        """Start the server and wait until it answers HTTP."""
        self.home.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open('wb')
        # Its own session (process group): stop() can end the server and its kernels together.
        self.proc = subprocess.Popen(self._command(), cwd=self.root, env=self._env(),
                                     stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        probe = (f'{self.base}/api/status?token={self.token}' if self.kind == 'lab'
                 else f'{self.base}/' if self.kind == 'marimo'
                 else f'{self.base}/?token={self.token}')
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(f'{self.kind} exited with {self.proc.returncode}:\n'
                                  f'{self.log_tail()}')
            try:
                with urllib.request.urlopen(probe, timeout=2) as response:
                    if response.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        self.stop()
        raise ServerError(f'{self.kind} did not answer within {self.startup_timeout} s:\n'
                          f'{self.log_tail()}')

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and every process of its group."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        # A short grace: the kernels are in the group and die with it anyway.
        for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 5)):
            if proc.poll() is not None:
                break
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                continue
        # Kernels live in the same group; make sure none outlives the server.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def shutdown_kernels(self) -> None:
        """End every notebook session of a lab server (a finished test's idle kernels)."""
        if self.kind != 'lab' or self.proc is None:
            return
        with urllib.request.urlopen(self.url('api/sessions'), timeout=10) as response:
            sessions = json.loads(response.read())
        for session in sessions:
            request = urllib.request.Request(self.url(f'api/sessions/{session["id"]}'),
                                             method='DELETE')
            try:
                urllib.request.urlopen(request, timeout=10).close()
            except urllib.error.HTTPError:
                pass  # already gone

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the server's log, for failure messages."""
        try:
            return self.log_path.read_text(errors='replace')[-chars:]
        except OSError:
            return '(no log)'

    def __enter__(self) -> JupyterServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- URLs ------------------------------------------------------------------------------

    def url(self, path: str) -> str:
        """The URL of ``path`` on this server, carrying the token (Jupyter's)."""
        if self.kind == 'marimo':
            return f'{self.base}/{path.lstrip("/")}'
        sep = '&' if '?' in path else '?'
        return f'{self.base}/{path.lstrip("/")}{sep}token={self.token}'


# ---- notebooks and the kernel probe -----------------------------------------------------

_counter = itertools.count(1)

DONE_FLAG = '_agl_done'


def _instrument(nb: Any, probe_dir: Path) -> None:
    """Add the probe start cell first and the done flag last; name the python3 kernel."""
    import nbformat  # only with the [test] extra (conftest reports its absence)
    setup = (f'import sys\nsys.path.insert(0, {str(HERE)!r})\nimport kernel_probe\n'
             f'_agl_probe_stop = kernel_probe.start({str(probe_dir)!r}, globals())')
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3',
                                 'language': 'python'}
    nb.cells = [nbformat.v4.new_code_cell(setup), *nb.cells,
                nbformat.v4.new_code_cell(f'{DONE_FLAG} = True')]


def _probe_dir(root: Path, stem: str) -> Path:
    # Each notebook has its own probe folder, so a notebook opened in two front ends (two
    # kernels) is never confused.
    probe_dir = root / f'.probe-{stem}-{next(_counter)}'
    probe_dir.mkdir(parents=True)
    return probe_dir


def write_notebook(root: Path, stem: str, cells: list[str]) -> tuple[Path, Path]:
    """Write ``<root>/<stem>.ipynb`` with the probe start cell first and a done flag last.

    Returns ``(notebook path, probe folder)``.
    """
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    probe_dir = _probe_dir(root, stem)
    _instrument(nb, probe_dir)
    path = root / f'{stem}.ipynb'
    nbformat.write(nb, path)
    return path, probe_dir


#: The flag a marimo app's last cell sets (marimo keeps names with a leading _ in their cell).
MARIMO_DONE_FLAG = 'agl_done'


def write_marimo_app(root: Path, stem: str, cells: list[str]) -> tuple[Path, Path]:
    """Write ``<root>/<stem>.py``, a marimo app of ``cells``, with a first cell that starts
    the kernel probe and a last one, run after the others, that sets ``agl_done``.

    Returns ``(app path, probe folder)``.  (marimo reads each cell's names from its code,
    so the cell functions need no parameters or return values.)
    """
    probe_dir = _probe_dir(root, stem)
    setup = (f'import sys\nsys.path.insert(0, {str(HERE)!r})\nimport kernel_probe\n'
             f'agl_probe_stop = kernel_probe.start({str(probe_dir)!r}, globals())')
    waits_for = ', '.join(['agl_probe_stop', *_marimo_names(cells)])
    body = [setup, *cells, f'{MARIMO_DONE_FLAG} = [{waits_for}] is not None']
    path = root / f'{stem}.py'
    path.write_text(marimo_app(body), encoding='utf-8')
    return path, probe_dir


def _marimo_names(cells: list[str]) -> list[str]:
    """The names the cells assign at their top level (the done cell waits for them)."""
    import ast

    names = []
    for cell in cells:
        for node in ast.parse(cell).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            names += [t.id for t in targets if isinstance(t, ast.Name)
                      and not t.id.startswith('_')]
    return names


def marimo_app(cells: list[str]) -> str:
    """The text of a marimo app (its ``.py`` format) made of ``cells``."""
    parts = ['import marimo\n\napp = marimo.App()\n']
    for cell in cells:
        code = '\n'.join(f'    {line}' if line else '' for line in cell.splitlines())
        parts.append(f'\n@app.cell\ndef _():\n{code}\n')
    parts.append('\nif __name__ == "__main__":\n    app.run()\n')
    return '\n'.join(parts)


def copy_notebook(source: Path, folder: Path) -> tuple[Path, Path]:
    """Copy an existing notebook into ``folder``, instrumented like :func:`write_notebook`.

    Outputs are dropped (a committed notebook should have none, but a stale widget state
    must not render before the kernel runs).
    """
    import nbformat

    nb = nbformat.read(source, as_version=4)
    nb.metadata.pop('widgets', None)
    for cell in nb.cells:
        if cell.cell_type == 'code':
            cell.outputs, cell.execution_count = [], None
    probe_dir = _probe_dir(folder, Path(source).stem)
    _instrument(nb, probe_dir)
    path = folder / Path(source).name
    nbformat.write(nb, path)
    return path, probe_dir


class ProbeError(AssertionError):
    """The kernel raised while evaluating a probe expression."""


class Probe:
    """Evaluate expressions in a notebook's kernel through its probe folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._numbers = itertools.count(1)

    def eval(self, expr: str, timeout: float = 15) -> Any:
        """The JSON value of ``expr`` in the kernel; raises ProbeError if the kernel raised."""
        answer = self._ask(expr, timeout)
        if not answer['ok']:
            raise ProbeError(f'{expr!r} raised in the kernel: {answer["error"]}\n'
                             f'{answer["traceback"]}')
        return answer['value']

    def try_eval(self, expr: str, timeout: float = 15) -> tuple[bool, Any]:
        """``(True, value)`` or ``(False, error text)``, for polling."""
        answer = self._ask(expr, timeout)
        return (True, answer['value']) if answer['ok'] else (False, answer['error'])

    def _ask(self, expr: str, timeout: float) -> dict:
        number = next(self._numbers)
        tmp = self.folder / f'req-{number}.tmp'
        tmp.write_text(json.dumps({'expr': expr}))
        os.replace(tmp, self.folder / f'req-{number}.json')
        response = self.folder / f'resp-{number}.json'
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if response.exists():
                answer = json.loads(response.read_text())
                response.unlink()
                return answer
            time.sleep(0.02)
        raise TimeoutError(f'the kernel probe did not answer {expr!r} within {timeout} s '
                           '(kernel dead, or the probe cell never ran)')

    def wait_started(self, timeout: float = 60) -> None:
        """Wait until the notebook's first cell has started the probe."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # The kernel may still be starting: resend rather than wait on one stale request.
            try:
                self._ask('1', timeout=1)
                return
            except TimeoutError:
                for stale in self.folder.glob('req-*.json'):
                    stale.unlink(missing_ok=True)
        raise TimeoutError(f'the notebook kernel never started its probe within {timeout} s')

    def wait_for(self, expr: str, timeout: float = 60, what: str | None = None) -> Any:
        """Poll until ``expr`` evaluates to something truthy in the kernel; return it."""
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            ok, value = self.try_eval(expr, timeout=max(1.0, deadline - time.monotonic()))
            if ok and value:
                return value
            last = value
            time.sleep(0.05)
        raise TimeoutError(f'{what or expr!r} not true in the kernel after {timeout} s '
                           f'(last: {last!r})')


# ---- the browser -------------------------------------------------------------------------

def launch_chromium(playwright: Any) -> Any:
    """Debian's Chromium, headless, through Playwright."""
    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(
            f'{CHROMIUM} not found: apt-get install -y --no-install-recommends chromium '
            'fonts-dejavu-core (or set AGL_CHROMIUM)')
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


#: The screen the issue's readability targets are measured on (a classroom projector).
VIEWPORT = {'width': 1280, 'height': 800}


def new_page(browser: Any, errors: list[str] | None = None) -> Any:
    """A fresh context and page (1280x800); page errors and console errors go to ``errors``."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    if errors is not None:
        page.on('pageerror', lambda exc: errors.append(f'pageerror: {exc}\n{exc.stack or ""}'))
        page.on('console', lambda msg: msg.type == 'error' and errors.append(
            f'console: {msg.text}'))
    return page


def widget_page_errors(errors: list[str]) -> list[str]:
    """The uncaught page errors that come from the widget, not from the front end itself.

    anywidget loads the widget's ES module from a blob: URL, so the widget's frames are
    the blob: ones (Notebook 7.6 itself throws a couple of errors on every page load).
    """
    words = ('blob:', 'autograd', 'graphviz', 'agl-')
    return [e for e in errors if e.startswith('pageerror')
            and any(w in e.lower() for w in words)]


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under ARTIFACTS and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f'{name}.png'
    page.screenshot(path=str(path), full_page=True)
    return path


# ---- front ends --------------------------------------------------------------------------

#: Text of error outputs in each front end, read when a notebook fails to finish.
_ERROR_OUTPUTS = ('[data-mime-type="application/vnd.jupyter.stderr"], '
                  '.jp-OutputArea-output.jp-mod-error, .jp-RenderedText[data-mime-type*=error]')

# The current widget must be *this* notebook (path) with an idle kernel before Run All.
_KERNEL_IDLE_JS = """(path) => {
  const app = window.jupyterapp;
  const w = app && app.shell && app.shell.currentWidget;
  const ctx = w && w.sessionContext;
  const k = ctx && ctx.session && ctx.session.kernel;
  return !!(w && w.content && w.context && w.context.path === path && k
            && k.status === 'idle' && !ctx.isDisposed);
}"""


def _wait_done(page: Any, probe: Probe, timeout: float, front_end: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ok, value = probe.try_eval(f'globals().get({DONE_FLAG!r}, False)', timeout=5)
        if ok and value:
            return
        errors = page.locator(_ERROR_OUTPUTS)
        if errors.count():
            texts = '\n'.join(errors.all_inner_texts())
            if 'Error' in texts or 'Traceback' in texts:
                raise AssertionError(f'a cell failed in {front_end}:\n{texts[-3000:]}')
        time.sleep(0.1)
    raise TimeoutError(f'the notebook did not finish in {front_end} within {timeout} s')


def open_in_lab(page: Any, server: JupyterServer, notebook: Path, probe: Probe,
                timeout: float = 90) -> None:
    """Open ``notebook`` in JupyterLab 4, run all cells, wait for the last one."""
    rel = notebook.relative_to(server.root).as_posix()
    # A workspace of its own: Lab restores the last workspace's open tabs otherwise, and
    # Run All could land on a notebook an earlier test opened.
    page.goto(server.url(f'lab/workspaces/agl-{next(_counter)}/tree/{rel}?reset'))
    _run_all(page, rel, probe, timeout, 'JupyterLab')


def open_in_notebook7(page: Any, server: JupyterServer, notebook: Path, probe: Probe,
                      timeout: float = 90) -> None:
    """Open ``notebook`` the Notebook 7 way (/tree, then /notebooks/...), run all cells."""
    rel = notebook.relative_to(server.root).as_posix()
    page.goto(server.url('tree'))
    # The file browser lists the notebook: the tree page works, not just the notebook URL.
    page.locator('.jp-DirListing-item', has_text=notebook.name).first.wait_for()
    page.goto(server.url(f'notebooks/{rel}'))
    _run_all(page, rel, probe, timeout, 'Notebook 7')


def _run_all(page: Any, rel: str, probe: Probe, timeout: float, front_end: str) -> None:
    page.wait_for_function(_KERNEL_IDLE_JS, arg=rel, timeout=timeout * 1000)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    probe.wait_started(timeout=timeout)
    _wait_done(page, probe, timeout, front_end)


def open_in_marimo(page: Any, server: JupyterServer, app: Path, probe: Probe,
                   timeout: float = 90) -> None:
    """Open a marimo app (it runs on load) and wait until its cells have run."""
    page.goto(server.url(f'?file={app.relative_to(server.root).as_posix()}'))
    probe.wait_started(timeout=timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ok, value = probe.try_eval(f'globals().get({MARIMO_DONE_FLAG!r}, False)', timeout=5)
        if ok and value:
            return
        time.sleep(0.1)
    raise TimeoutError(f'the marimo app did not finish within {timeout} s')


def open_in_voila(page: Any, server: JupyterServer, notebook: Path, probe: Probe,
                  timeout: float = 90, theme: str | None = None) -> None:
    """Open ``notebook`` in Voila (it executes on load) and wait for the last cell;
    ``theme='dark'`` renders it with Voila's dark theme."""
    rel = notebook.relative_to(server.root).as_posix()
    page.goto(server.url(f'voila/render/{rel}' + (f'?theme={theme}' if theme else '')))
    probe.wait_started(timeout=timeout)
    _wait_done(page, probe, timeout, 'Voila')


DARK_THEME = 'JupyterLab Dark'
LIGHT_THEME = 'JupyterLab Light'


def use_theme(page: Any, theme: str, timeout: float = 30) -> None:
    """Switch JupyterLab or Notebook 7 to ``theme`` (the app's own command)."""
    page.evaluate(f"() => window.jupyterapp.commands.execute('apputils:change-theme', "
                  f"{{theme: '{theme}'}})")
    page.wait_for_selector(f'body[data-jp-theme-name="{theme}"]', state='attached',
                           timeout=timeout * 1000)
    page.wait_for_timeout(300)  # the theme's stylesheet applies


def use_dark_theme(page: Any, timeout: float = 30) -> None:
    """Switch JupyterLab or Notebook 7 to its dark theme."""
    use_theme(page, DARK_THEME, timeout)


@dataclasses.dataclass(frozen=True)
class Screen:
    """Where a test opens its notebook: front end, CSS viewport, pixel ratio and theme."""

    opener: Any
    viewport: dict
    scale: float
    dark: bool


#: The two screens the view's look is judged on: a classroom projector in JupyterLab, light;
#: a 1920x1080 laptop at 150% zoom (a 1280x720 CSS page drawn at 1.5 device pixels per
#: pixel) in Notebook 7, dark.
SCREENS = {
    'lab-1280-light': Screen(open_in_lab, VIEWPORT, 1, False),
    'notebook7-150-dark': Screen(open_in_notebook7, {'width': 1280, 'height': 720}, 1.5, True),
}


@contextlib.contextmanager
def opened_on(browser: Any, server: JupyterServer, root: Path, stem: str, cells: list[str],
              screen: str) -> Iterator[tuple[Any, Probe]]:
    """A notebook of ``cells`` written under ``root`` and run on ``SCREENS[screen]``: its
    page and kernel probe.  The theme is set either way, since the lab server keeps the
    theme an earlier test of the session chose."""
    where = SCREENS[screen]
    context = browser.new_context(viewport=where.viewport, device_scale_factor=where.scale)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        notebook, probe_dir = write_notebook(root, stem, cells)
        probe = Probe(probe_dir)
        where.opener(page, server, notebook, probe)
        use_theme(page, DARK_THEME if where.dark else LIGHT_THEME)
        yield page, probe
    finally:
        context.close()


def wait_widget_ready(page: Any, timeout: float = 30, index: int = 0) -> Any:
    """The ``index``-th widget root once it has drawn its first SVG (data-agl-ready="1")."""
    root = page.locator('.agl-root[data-agl-ready="1"]').nth(index)
    root.wait_for(state='visible', timeout=timeout * 1000)
    return root
