"""Fixtures for the browser tests: one JupyterLab, one Voila and one Chromium per session.

Every test here is marked ``browser`` (``pytest -m "not browser"`` leaves them out). They need
Debian's Chromium at /usr/bin/chromium and the ``[test]`` extra (playwright, jupyterlab,
notebook, voila). Where Chromium is missing they are skipped with the reason, except when
``AGL_REQUIRE_BROWSER=1`` (set by .ci/run): then a missing browser is an error, so CI can never
pass by skipping them. Screenshots go to ``test-artifacts/browser/`` (``AGL_TEST_ARTIFACTS``
overrides it), also one per failed test.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import jupyter_harness as jh  # noqa: E402  (needs the path above)

_REQUIRED = os.environ.get('AGL_REQUIRE_BROWSER') == '1'
#: The servers tests have started: their kernels are ended after each test, their log tails
#: printed when a test fails.
_SERVERS: list[jh.JupyterServer] = []


def _missing() -> str | None:
    if not Path(jh.CHROMIUM).exists():
        return (f'{jh.CHROMIUM} not found (apt-get install -y --no-install-recommends chromium '
                'fonts-dejavu-core)')
    for module in ('playwright', 'jupyterlab', 'voila', 'notebook', 'anywidget', 'marimo'):
        try:
            __import__(module)
        except ImportError:
            return f'{module} is not installed (pip install -e ".[test]")'
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = _missing()
    for item in items:
        if (Path(str(item.fspath)).resolve().parent != Path(_HERE)
                or not isinstance(item, pytest.Function)):  # doctests need no browser
            continue
        item.add_marker(pytest.mark.browser)
        if missing and not _REQUIRED:
            item.add_marker(pytest.mark.skip(reason=missing))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == 'call':
        item._agl_failed = report.failed  # read by the page fixture to keep a screenshot


@pytest.fixture(scope='session')
def browser_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Temp folder with the servers' config/runtime dirs and, in root/, the notebooks."""
    missing = _missing()
    if missing:
        pytest.fail(f'AGL_REQUIRE_BROWSER=1 but {missing}')
    home = tmp_path_factory.mktemp('jupyter')
    (home / 'root').mkdir()
    for stale in jh.ARTIFACTS.glob('FAILED-*.png'):  # from an earlier session
        stale.unlink()
    return home


@pytest.fixture(scope='session')
def notebook_root(browser_home: Path) -> Path:
    """The folder both servers serve; tests write their notebooks here."""
    return browser_home / 'root'


@pytest.fixture(scope='session')
def lab_server(browser_home: Path, notebook_root: Path) -> Iterator[jh.JupyterServer]:
    """One ``jupyter lab`` (JupyterLab 4 and Notebook 7 pages) for the whole session."""
    with jh.JupyterServer('lab', notebook_root, browser_home / 'lab') as server:
        _SERVERS.append(server)
        yield server
        _SERVERS.remove(server)


@pytest.fixture(autouse=True)
def _end_kernels() -> Iterator[None]:
    """After a test that used the lab server, end its kernels (their probe threads poll)."""
    yield
    for server in _SERVERS:
        server.shutdown_kernels()


@pytest.fixture(scope='session')
def voila_server(browser_home: Path, notebook_root: Path) -> Iterator[jh.JupyterServer]:
    """One standalone ``voila`` serving the notebook folder, for the whole session."""
    with jh.JupyterServer('voila', notebook_root, browser_home / 'voila') as server:
        _SERVERS.append(server)
        yield server
        _SERVERS.remove(server)


@pytest.fixture(scope='session')
def chromium(browser_home: Path) -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (sync API)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = jh.launch_chromium(playwright)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh browser page; on failure its screenshot is kept as ``FAILED-<test>.png``."""
    errors: list[str] = []
    page = jh.new_page(chromium, errors)
    page.agl_errors = errors  # JS errors seen, for tests that assert none happened
    yield page
    if getattr(request.node, '_agl_failed', False):
        try:
            print(f'screenshot: {jh.screenshot(page, f"FAILED-{request.node.name}")}')
        except Exception as exc:  # a dead page must not hide the test's own failure
            print(f'could not save the failure screenshot: {exc}')
        print('page errors:', *errors, sep='\n')
        for server in _SERVERS:  # kernel tracebacks and widget warnings end up here
            print(f'--- {server.kind} server log (tail) ---\n{server.log_tail(3000)}')
    page.context.close()
