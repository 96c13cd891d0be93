"""Notebooks and widget state (issue 29): the lessons this project ships carry none, and
the command the README gives for sharing a notebook safely (``autograd-lab clean``,
issue 39) strips it and every output a browser would run (the mimetypes kept are
:data:`autograd_lab_lessons.sharing.KEPT_MIMETYPES`, defined there once)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from saved_notebooks import with_widget_state  # tests/ is on sys.path

from autograd_lab_lessons.sharing import KEPT_MIMETYPES, WIDGET_MIME_PREFIX

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted([*ROOT.glob('lessons/*.ipynb'), *ROOT.glob('lessons/solutions/*.ipynb')])


def widget_traces(nb: dict) -> list[str]:
    """Where ``nb`` holds widget state or widget outputs (empty: nowhere)."""
    found = [f'metadata.{k}' for k in nb['metadata'] if 'widget' in k.lower()]
    for k, cell in enumerate(nb['cells']):
        found += [f'cell {k} metadata.{m}' for m in cell.get('metadata', {})
                  if 'widget' in m.lower()]
        for out in cell.get('outputs', []):
            found += [f'cell {k} output {mime}' for mime in out.get('data', {})
                      if mime.startswith(WIDGET_MIME_PREFIX)]
    return found


def test_every_lesson_is_shipped_in_both_forms():
    names = {p.name for p in SHIPPED if p.parent.name == 'lessons'}
    assert names and names == {p.name for p in SHIPPED if p.parent.name == 'solutions'}


@pytest.mark.parametrize('path', SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_shipped_notebook_carries_no_widget_state(path):
    nb = json.loads(path.read_text(encoding='utf-8'))
    assert widget_traces(nb) == []
    assert all(not cell.get('outputs') for cell in nb['cells'])  # built without outputs


def readme_strip_command() -> list[str]:
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    section = readme.split('### Sharing notebooks safely', 1)[1]
    line, = re.findall(r'^autograd-lab clean .*$', section.split('\n## ', 1)[0], re.M)
    return shlex.split(line)


def test_the_readme_command_strips_widget_state_and_keeps_the_rest(tmp_path):
    nb = with_widget_state('alert(1)')
    nb.cells.append(nbformat.v4.new_code_cell(
        'x = 1', metadata={'nbgrader': {'grade': False, 'solution': True}},
        outputs=[nbformat.v4.new_output('execute_result', {'text/plain': '1'},
                                        execution_count=1),
                 nbformat.v4.new_output('display_data', {
                     f'{WIDGET_MIME_PREFIX}-view+json': {'model_id': 'm1'},
                     'text/html': '<img src=x onerror="alert(2)">',
                     'application/javascript': 'alert(3)', 'text/plain': 'a view'})]))
    path = tmp_path / 'NOTEBOOK.ipynb'
    nbformat.write(nb, path)
    assert widget_traces(json.loads(path.read_text())) == [
        'metadata.widgets', f'cell 0 output {WIDGET_MIME_PREFIX}-view+json']
    command = readme_strip_command()
    assert command[:2] == ['autograd-lab', 'clean'] and command[-1] == 'NOTEBOOK.ipynb'
    # the installed command, as a reader runs it (the entry point: autograd_lab_lessons.cli)
    subprocess.run([sys.executable, '-m', 'autograd_lab_lessons.cli', *command[1:]],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)
    stripped = json.loads(path.read_text())
    assert widget_traces(stripped) == []
    assert stripped['metadata']['kernelspec']['name'] == 'python3'
    cell, = stripped['cells']
    assert cell['metadata'] == {'nbgrader': {'grade': False, 'solution': True}}
    outputs = nbformat.reads(json.dumps(stripped), 4).cells[0].outputs
    assert [o.data for o in outputs] == [{'text/plain': '1'}, {'text/plain': 'a view'}]
    assert {m for o in outputs for m in o.data} <= set(KEPT_MIMETYPES)
