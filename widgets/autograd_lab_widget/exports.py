"""What a view hands out as files: its events as JSON, its picture as DOT, its replay.

The JSON is strict: a NaN or infinite value is written as the string ``"NaN"``,
``"Infinity"`` or ``"-Infinity"``, as JavaScript's ``String()`` names it
(``Number("NaN")`` reads it back).

>>> import numpy as np
>>> jsonable([np.array([1.0, np.nan]), np.float32(-np.inf), (1, 'a')])
[[1.0, 'NaN'], '-Infinity', [1, 'a']]
"""

from __future__ import annotations

import json
import math
import pathlib
from typing import Any

import numpy

from autograd_lab import events


def jsonable(value: Any) -> Any:
    """``value`` (an event field) as JSON-ready data; anything unknown as its repr."""
    if isinstance(value, numpy.ndarray):
        return jsonable(value.tolist()) if value.dtype.kind in 'fc' else value.tolist()
    if isinstance(value, numpy.generic):
        return jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):  # JSON has no NaN/Infinity
        return 'NaN' if math.isnan(value) else ('Infinity' if value > 0 else '-Infinity')
    if isinstance(value, events.Summary):
        return {'summary': {k: jsonable(getattr(value, k)) for k in value.__dataclass_fields__}}
    if isinstance(value, tuple | list):
        return [jsonable(v) for v in value]
    if isinstance(value, float | int | str | bool) or value is None:
        return value
    return repr(value)


def event_dict(event: events.Event) -> dict:
    """One event as a JSON-ready dict: its ``kind`` and every field."""
    out = {'kind': event.kind}
    for name in event.__dataclass_fields__:
        out[name] = jsonable(getattr(event, name))
    return out


def event_log_json(log: list[dict]) -> str:
    """Event dicts as strict JSON text (one field a line)."""
    return json.dumps(log, indent=1, allow_nan=False)


def write_html(view: Any, path: pathlib.Path) -> pathlib.Path:
    """Write the self-contained HTML replay of ``view`` to ``path``; the path."""
    from autograd_lab_widget.replay import replay_html  # noqa: PLC0415 - on demand

    path.write_text(replay_html(view), encoding='utf-8')
    return path


def download(view: Any, what: str) -> dict:
    """The file a toolbar export button hands the browser: ``'dot'``, ``'log'`` or
    ``'html'``: its name, MIME type and content."""
    if what == 'dot':
        return {'filename': 'graph.dot', 'mime': 'text/vnd.graphviz', 'content': view.to_dot()}
    if what == 'log':
        return {'filename': 'autograd_lab_events.json', 'mime': 'application/json',
                'content': view.event_log_json()}
    from autograd_lab_widget.replay import replay_html  # noqa: PLC0415 - on demand

    return {'filename': 'autograd_lab_replay.html', 'mime': 'text/html',
            'content': replay_html(view)}
