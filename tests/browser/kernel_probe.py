"""Kernel side of the browser tests: answer "what is this expression now?" through files.

The browser tests drive the widget from the page, but they must check the *kernel's* state
(``view.selected``, ``x.grad``) against what the page shows. Voila gives the page no way to run
code, so every front end gets the same channel: a generated notebook starts this probe, a daemon
thread that watches a private temp folder for ``req-<n>.json`` files (an expression), evaluates
each in the notebook's namespace and writes ``resp-<n>.json`` (the JSON result or the error).

Evaluation happens on the probe thread while the kernel's main thread is idle between widget
messages; the tests only read state through it, never mutate it.

>>> import json, pathlib, tempfile, time
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> stop = start(folder, {'a': 2})
>>> _ = (folder / 'req-1.json').write_text(json.dumps({'expr': 'a * 21'}))
>>> for _ in range(200):
...     if (folder / 'resp-1.json').exists():
...         break
...     time.sleep(0.01)
>>> json.loads((folder / 'resp-1.json').read_text())
{'ok': True, 'value': 42}
>>> stop.set()
"""

from __future__ import annotations

import json
import os
import threading
import traceback
from pathlib import Path
from typing import Any

#: Seconds between looks at the request folder: small next to a click's round trip.
POLL_SECONDS = 0.02


def _answer(expr: str, namespace: dict) -> dict:
    try:
        value = eval(expr, namespace)  # the tests' own expressions, from their own temp folder
        json.dumps(value)  # fail here, with the expression named, if it is not JSON
        return {'ok': True, 'value': value}
    except Exception as exc:
        return {'ok': False, 'error': f'{type(exc).__name__}: {exc}',
                'traceback': traceback.format_exc()}


def _serve(folder: Path, namespace: dict, stop: threading.Event) -> None:
    while not stop.wait(POLL_SECONDS):
        for request in sorted(folder.glob('req-*.json')):
            number = request.stem.split('-', 1)[1]
            try:
                expr = json.loads(request.read_text())['expr']
            except (OSError, ValueError, KeyError):
                continue  # half-written: the writer renames atomically, so only a stray file
            answer = _answer(expr, namespace)
            tmp = folder / f'resp-{number}.tmp'
            tmp.write_text(json.dumps(answer))
            os.replace(tmp, folder / f'resp-{number}.json')
            request.unlink()


def start(folder: str | os.PathLike, namespace: dict[str, Any]) -> threading.Event:
    """Serve requests in ``folder`` against ``namespace``; set the returned event to stop."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    thread = threading.Thread(target=_serve, args=(folder, namespace, stop),
                              name='agl-kernel-probe', daemon=True)
    thread.start()
    return stop
