"""Shared fixtures: a fake GPU backend, and a "no GPU backend at all" state."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograd_lab import backend

# Test modules import their helpers (``import chainer_ref``, ...) whether or not tests/ is a
# package.
_TESTS_DIR = str(Path(__file__).resolve().parent)
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files with a test marked ``slow`` run first, so that the README's parallel run
    (pytest-xdist, a file to a worker) starts its longest files first instead of ending
    on one of them.  Tests marked ``widget`` skip, saying why, where the widget's extra is
    not installed (the engine's own tests run with numpy, pytest and hypothesis alone)."""
    slow_files = {item.path for item in items if item.get_closest_marker('slow')}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: order kept in a file
    if importlib.util.find_spec('anywidget') is not None:
        return
    skip = pytest.mark.skip(reason='needs the widget: pip install "autograd-lab[notebook]"')
    for item in items:
        if item.get_closest_marker('widget'):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _no_stray_running_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """Outside tests/browser, a test sees no running event loop unless it starts one.

    Playwright's sync API (the browser tests' session-scoped browser) leaves its asyncio
    loop marked as running in the main thread of the process that ran them (a pytest-xdist
    worker runs browser files and widget files in turn), and that loop runs callbacks
    only while Playwright is called: a widget test would hand its redraws to a timer that
    never fires.  A plain script, which those tests stand for, has no running loop.
    """
    if 'browser' in request.node.path.parts:
        yield
        return
    stray = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(stray)


def _swap_gpu_backend(gpu: backend.GpuBackend | None) -> Iterator[backend.GpuBackend | None]:
    # Save the exact registry state (including "CuPy not probed yet") so that a
    # later test still probes real CuPy as if nothing had happened.
    saved = backend._gpu, backend._gpu_probed
    backend.register_gpu_backend(gpu)
    try:
        yield gpu
    finally:
        backend._gpu, backend._gpu_probed = saved


@pytest.fixture
def fake_gpu() -> Iterator[backend.GpuBackend]:
    """Register the NumPy-backed fake GPU backend (2 devices) for one test."""
    from autograd_lab.testing import fake_gpu as fake

    # not strict: tests compare its arrays with NumPy's (np.testing), which CuPy would refuse
    with fake.installed(strict=False) as gpu:
        yield gpu


@pytest.fixture
def strict_gpu() -> Iterator[backend.GpuBackend]:
    """The fake GPU as strict as CuPy for one test: a NumPy array next to a GPU one, and
    NumPy taking a GPU array implicitly (np.asarray, np.array), raise TypeError."""
    from autograd_lab.testing import fake_gpu as fake

    with fake.installed(strict=True) as gpu:
        yield gpu


@pytest.fixture
def no_gpu() -> Iterator[None]:
    """Register "no GPU backend" (as on a machine without CuPy) for one test."""
    yield from _swap_gpu_backend(None)


@pytest.fixture
def cupy_gpu() -> Iterator[object]:
    """Real CuPy with at least one CUDA GPU, as the engine's GPU backend; skip where absent."""
    cupy = pytest.importorskip('cupy', reason='CuPy is not installed (pip install '
                                              '"autograd-lab[gpu]")')
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # CUDA driver/runtime missing or broken
        pytest.skip(f'CuPy is installed but CUDA does not answer: {error}')
    if count < 1:
        pytest.skip('CuPy is installed but no CUDA GPU is available')
    saved = backend._gpu, backend._gpu_probed
    backend._gpu, backend._gpu_probed = None, False  # probe real CuPy afresh
    try:
        if backend.gpu_backend() is None:
            pytest.skip('the engine could not set up its CuPy backend')
        yield cupy
    finally:
        backend._gpu, backend._gpu_probed = saved


@pytest.fixture
def view_of():
    """Make GraphViews (``view_of(y, predict=True)``); each is closed after the test."""
    from autograd_lab_widget import GraphView  # here: the widget extra is optional
    made = []

    def make(*args, **kwargs):
        view = GraphView(*args, **kwargs)
        made.append(view)
        return view
    yield make
    for view in made:
        view.close()


@pytest.fixture
def step_models() -> Iterator:
    """Make StepModels as in a notebook kernel (the values of freed intermediates
    recorded); every one is closed after the test."""
    from autograd_lab_widget.follow import recorder  # only widget tests need it
    from autograd_lab_widget.session.stepping import StepModel
    made = []

    def make(*args, **kwargs):
        model = StepModel(*args, **kwargs)
        made.append(model)
        return model
    recorder.record_values(True)
    yield make
    recorder.record_values(False)
    for model in made:
        model.close()
