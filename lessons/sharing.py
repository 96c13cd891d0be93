"""Cleaning a notebook before it is shared, or before opening one from elsewhere.

``autograd-lab clean NOTEBOOK`` removes from a notebook everything a reader's browser
would run that the reader did not make:

- the saved widget state (the notebook's ``widgets`` metadata, and any other metadata
  named after widgets): JupyterLab restores saved widget models whether or not the
  notebook is trusted, and anywidget runs a restored model's ``_esm``;
- every output's data other than :data:`KEPT_MIMETYPES` (plain text, PNG and JPEG
  pictures): HTML, JavaScript, SVG, Markdown (which may carry HTML), widget views and any
  type a front-end extension might render with code.  Once a notebook is trusted, its
  HTML and JavaScript outputs run; a cleaned one has none left to run.

An output that loses some of its data keeps its plain text, the same words a terminal
shows for it, so a reader still sees what each cell printed (a view's output says it is a
live graph, to be run); an output with nothing left is dropped.  Text streams (print) and
errors are text and stay; so do the cells, their sources and their other metadata (such
as nbgrader's) and the kernel.  A saved trust signature (old notebooks kept one in the
metadata) is removed: the cleaned notebook opens untrusted, and has nothing that trust
would let run.

The notebook is written whole or not at all (a temporary file renamed over it).

>>> nb = {'nbformat': 4, 'nbformat_minor': 5, 'metadata': {'widgets': {}}, 'cells': [
...     {'cell_type': 'code', 'source': 'x', 'metadata': {}, 'outputs': [
...         {'output_type': 'display_data', 'metadata': {},
...          'data': {'text/html': '<script>alert(1)</script>', 'text/plain': 'x'}},
...         {'output_type': 'display_data', 'metadata': {},
...          'data': {'application/javascript': 'alert(2)'}}]}]}
>>> done = clean(nb)
>>> nb['metadata'], nb['cells'][0]['outputs'], done.reduced, done.dropped
({}, [{'output_type': 'display_data', 'metadata': {}, 'data': {'text/plain': 'x'}}], 1, 1)
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from autograd_lab_lessons.files import write_whole

__all__ = ['KEPT_MIMETYPES', 'WIDGET_MIME_PREFIX', 'Cleaned', 'clean', 'clean_file']

#: The output data a cleaned notebook keeps: text, and pictures no browser runs code in.
#: Everything else (text/html, application/javascript, image/svg+xml, text/markdown,
#: widget views, ...) is dropped.
KEPT_MIMETYPES = ('text/plain', 'image/png', 'image/jpeg')
#: The start of the widgets' mimetypes: ``-state+json`` (saved models), ``-view+json``.
WIDGET_MIME_PREFIX = 'application/vnd.jupyter.widget'


@dataclasses.dataclass
class Cleaned:
    """What :func:`clean` removed: widget state, the trust signature, outputs reduced to
    their kept data, outputs dropped."""

    widget_state: bool = False
    signature: bool = False
    reduced: int = 0
    dropped: int = 0

    def __str__(self) -> str:
        parts = [*(['widget state removed'] if self.widget_state else []),
                 *(['trust signature removed'] if self.signature else []),
                 *([f'{self.reduced} output(s) reduced to their text or picture']
                   if self.reduced else []),
                 *([f'{self.dropped} output(s) dropped'] if self.dropped else [])]
        return ', '.join(parts) or 'nothing to remove'


def _without_widgets(metadata: dict) -> bool:
    """Drop ``metadata``'s widget keys; whether there were any."""
    found = [k for k in metadata if 'widget' in k.lower()]
    for k in found:
        del metadata[k]
    return bool(found)


def clean(nb: dict) -> Cleaned:
    """Clean the notebook ``nb`` (a version 4 notebook's JSON) in place (see the module
    docstring); ValueError when it is no such notebook."""
    if not isinstance(nb, dict) or not isinstance(nb.get('cells'), list) or \
            not isinstance(nb.get('metadata', {}), dict):
        raise ValueError('it is not a version 4 notebook (no list of cells): open it in '
                         'Jupyter, save it, and clean it again')
    done = Cleaned()
    metadata = nb.setdefault('metadata', {})
    done.widget_state = _without_widgets(metadata)
    done.signature = metadata.pop('signature', None) is not None
    for cell in nb['cells']:
        if not isinstance(cell, dict):
            raise ValueError('a cell is not a JSON object: it is not a notebook Jupyter wrote')
        if isinstance(cell.get('metadata'), dict):
            done.widget_state |= _without_widgets(cell['metadata'])
        if isinstance(cell.get('outputs'), list):
            cell['outputs'] = [kept for kept in (_kept(out, done) for out in cell['outputs'])
                               if kept is not None]
    return done


def _kept(output: Any, done: Cleaned) -> Any:
    """``output`` with only its kept data (None: nothing left), counted in ``done``."""
    if not isinstance(output, dict):
        done.dropped += 1
        return None
    data = output.get('data')
    if data is None:
        return output  # a stream or an error: text
    kept = {m: v for m, v in data.items() if m in KEPT_MIMETYPES} if isinstance(data, dict) \
        else {}
    if not isinstance(data, dict) or len(kept) < len(data):
        if not kept:
            done.dropped += 1
            return None
        done.reduced += 1
        output['data'] = kept
    if isinstance(output.get('metadata'), dict):  # a picture's size; nothing for the rest
        output['metadata'] = {m: v for m, v in output['metadata'].items() if m in kept}
    return output


def clean_file(path: Path) -> Cleaned:
    """Clean the notebook at ``path`` (a link: the notebook it points to), written whole
    or not at all; its file mode is kept.  OSError or ValueError saying what is wrong."""
    target = Path(path).resolve()
    raw = target.read_bytes()
    try:
        nb = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f'it is not a notebook (not valid JSON: {error})') from None
    done = clean(nb)
    text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + '\n'
    write_whole(target, text.encode('utf-8'), mode=os.stat(target).st_mode & 0o777)
    return done
