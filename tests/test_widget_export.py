"""GraphView export: event log JSON, self-contained HTML replay, and docking."""

from __future__ import annotations

import base64
import html.parser
import json
import sys

import numpy as np
import pytest

import autograd_lab as chainer
from autograd_lab import events

from autograd_lab_widget import GraphView
from autograd_lab_widget.view import BUNDLE
from widget_helpers import polynomial, send


class _Scripts(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self._current = [], None

    def handle_starttag(self, tag, attrs):
        if tag == 'script':
            self._current = dict(attrs)
            self._current['text'] = ''
        elif tag in ('link', 'img', 'iframe'):
            self.scripts.append({'external': dict(attrs)})

    def handle_data(self, data):
        if self._current is not None:
            self._current['text'] += data

    def handle_endtag(self, tag):
        if tag == 'script' and self._current is not None:
            self.scripts.append(self._current)
            self._current = None


@pytest.fixture
def finished_view():
    x, y = polynomial(3.0, name='</script><script>alert(1)</script>')
    view = GraphView(y)
    view.run()
    view.x = x
    yield view
    view.close()


def test_event_log_json_is_the_recorded_events(finished_view):
    log = json.loads(finished_view.event_log_json())
    kinds = [e['kind'] for e in log]
    assert kinds[0] == 'backward_started' and kinds[-1] == 'backward_finished'
    assert kinds.count('backward_step_done') == 4
    acc = [e for e in log if e['kind'] == 'backward_step_done' and 'added' in e['accumulation']]
    assert acc and acc[0]['target_input_ids'] == [events.uid(finished_view.x)]
    assert all(isinstance(e['seq'], int) for e in log)


def test_export_log_message_sends_a_download(finished_view):
    sent = []
    finished_view.send = sent.append
    send(finished_view, {'type': 'action', 'action': 'export-log'})
    assert sent[0]['type'] == 'download' and sent[0]['filename'].endswith('.json')
    assert json.loads(sent[0]['content']) == finished_view.event_log()


def test_html_replay_is_self_contained(finished_view, tmp_path):
    path = finished_view.to_html(tmp_path / 'replay.html')
    text = path.read_text(encoding='utf-8')
    parser = _Scripts()
    parser.feed(text)
    scripts = parser.scripts
    # exactly our three scripts: frames (JSON), bundle (base64), the loader; nothing external
    assert [s.get('type') for s in scripts] == ['application/json', 'text/plain', 'module']
    assert not any('src' in s or 'external' in s for s in scripts)
    assert 'http://' not in scripts[2]['text'] and 'https://' not in scripts[2]['text']
    assert base64.b64decode(scripts[1]['text']) == BUNDLE.read_bytes()
    data = json.loads(scripts[0]['text'])
    frames = data['frames']
    assert len(frames) == 5  # before backward + one per function
    assert [f['status']['step'] for f in frames] == [0, 1, 2, 3, 4]
    assert all(f['dot'].startswith('digraph') for f in frames)
    assert frames[-1]['status']['done'] is True
    # the frames are the history: the last one is what the live view shows
    assert frames[-1]['ledger'] == finished_view.ledger
    assert frames[-1]['nodes'] == finished_view.nodes
    assert frames[0]['status']['text'].startswith('Press Step')  # told as it happened
    xid = str(events.uid(finished_view.x))
    assert data['panels'][xid]['main'][1][:2] == ['grad', '4.0']
    # the hostile name never appears raw inside the page
    assert '</script><script>alert(1)' not in text
    assert text.count('</script>') == 3


def test_export_html_message_sends_the_page(finished_view):
    sent = []
    finished_view.send = sent.append
    send(finished_view, {'type': 'action', 'action': 'export-html'})
    assert sent[0]['mime'] == 'text/html' and sent[0]['content'].startswith('<!DOCTYPE html>')


def test_dock_opens_a_sidecar():
    import sidecar  # in the [test] and [notebook] extras
    x = chainer.Variable(np.array(1.0))
    view = GraphView(x * 2)
    try:
        side = view.dock(title='graph')
        assert isinstance(side, sidecar.Sidecar) and side.title == 'graph'
        side.close()
    finally:
        view.close()


class _Shell:
    """Stands in for an IPython kernel shell: what hosts.current() reads of it."""

    def __init__(self, user_ns):
        self.kernel = object()
        self.user_ns = user_ns


@pytest.mark.parametrize('host, name, instead', [
    ('marimo', 'marimo', 'last expression of its own cell'),
    ('vscode', 'VS Code', "as a cell's output"),
    ('colab', 'Colab', "as a cell's output"),
])
def test_dock_says_where_it_is_not_available(monkeypatch, host, name, instead):
    import types

    import IPython

    from autograd_lab_widget import hosts
    if host == 'marimo':  # marimo says it runs a notebook (checked for real in the browser)
        monkeypatch.setitem(sys.modules, 'marimo',
                            types.SimpleNamespace(running_in_notebook=lambda: True))
    elif host == 'colab':
        monkeypatch.setitem(sys.modules, 'google.colab', types.ModuleType('google.colab'))
    else:  # VS Code's Jupyter extension names the notebook in the kernel's namespace
        shell = _Shell({'__vsc_ipynb_file__': '/home/student/lesson.ipynb'})
        monkeypatch.setattr(IPython, 'get_ipython', lambda: shell)
    assert hosts.current() == host
    view = GraphView(chainer.Variable(np.array(1.0)) * 2)
    try:
        with pytest.raises(hosts.DockUnavailable) as raised:
            view.dock()
    finally:
        view.close()
    message = str(raised.value)
    assert message.startswith(f'view.dock() is not available in {name}: ')
    assert 'sidecar is a JupyterLab extension' in message and instead in message
    assert 'not supported' not in message


def test_hosts_tell_jupyter_and_plain_python_apart(monkeypatch):
    import IPython

    from autograd_lab_widget import hosts
    monkeypatch.delitem(sys.modules, 'google.colab', raising=False)
    monkeypatch.setattr(IPython, 'get_ipython', lambda: None)
    assert hosts.current() == 'python'
    monkeypatch.setattr(IPython, 'get_ipython', lambda: _Shell({}))
    monkeypatch.setenv('VSCODE_PID', '42')  # JupyterLab started in VS Code's terminal
    assert hosts.current() == 'jupyter'
    hosts.check_dock()  # JupyterLab: docking goes on to sidecar


def test_event_log_json_is_strict_json_with_nan_and_infinity_as_strings():
    x = chainer.Variable(np.array([1.0, -1.0, 0.0]), name='x')
    with np.errstate(divide='ignore', invalid='ignore'):
        y = chainer.functions.sum(x / np.zeros(3) * x)  # inf, -inf and 0/0 = nan
        view = GraphView(y)
        try:
            view.run()
            text = view.event_log_json()
        finally:
            view.close()
    log = json.loads(text, parse_constant=lambda c: pytest.fail(f'{c} is not JSON'))
    values = json.dumps(log)
    assert '"NaN"' in values and '"Infinity"' in values and '"-Infinity"' in values
