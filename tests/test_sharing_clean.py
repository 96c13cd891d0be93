"""``autograd-lab clean NOTEBOOK`` (issue 39 point 6): a notebook from elsewhere keeps
nothing a browser would run, whether or not it is trusted later, and keeps its text.

The browser half (the attacker's notebook opened in JupyterLab after the README's steps,
trusted even, and nothing runs) is ``tests/browser/test_browser_sharing.py``.
"""

from __future__ import annotations

import json
import os
import stat

import nbformat
import pytest

from saved_notebooks import PNG, with_widget_state  # tests/ is on sys.path

from autograd_lab_lessons import cli
from autograd_lab_lessons.sharing import KEPT_MIMETYPES, WIDGET_MIME_PREFIX, clean



def attacker_notebook() -> nbformat.NotebookNode:
    """A notebook as someone else might send it: widget state whose ``_esm`` runs, and
    outputs that run once trusted, next to the outputs a reader should keep."""
    nb = with_widget_state('window.__pwned = "esm"; export default {}')
    nb.metadata['signature'] = 'sha256:0123'  # an old notebook's saved signature
    out = nbformat.v4.new_output
    nb.cells.append(nbformat.v4.new_code_cell('view', outputs=[
        out('display_data', {f'{WIDGET_MIME_PREFIX}-view+json': {'model_id': 'm1'},
                             'text/plain': 'GraphView: the live graph'}),
        out('display_data', {'text/html': '<img src="x" onerror="window.__pwned=1">',
                             'text/plain': 'static picture'}),
    ], metadata={'nbgrader': {'grade': False, 'solution': True}}))
    nb.cells.append(nbformat.v4.new_code_cell('evil()', outputs=[
        out('display_data', {'application/javascript': 'window.__pwned = "js"'}),
        out('display_data', {'text/html': '<script>window.__pwned = "script"</script>'}),
        out('execute_result', {'image/svg+xml': '<svg onload="window.__pwned=1"/>',
                               'text/markdown': '<img src=x onerror="window.__pwned=1">',
                               'text/plain': '42'}, execution_count=2),
        out('display_data', {'application/vnd.bokehjs_exec.v0+json': '',
                             'text/plain': 'a plot'}),
    ]))
    nb.cells.append(nbformat.v4.new_code_cell('print("hi"); picture(); 1/0', outputs=[
        out('stream', name='stdout', text='hi\n'),
        out('display_data', {'image/png': PNG, 'text/plain': '<Figure>'},
            metadata={'image/png': {'width': 1}, 'isolated': True}),
        out('error', ename='ZeroDivisionError', evalue='division by zero',
            traceback=['ZeroDivisionError: division by zero']),
    ]))
    nb.cells.append(nbformat.v4.new_markdown_cell('# A lesson'))
    return nb


def _write(tmp_path, nb, name='NOTEBOOK.ipynb'):
    path = tmp_path / name  # as JSON: nbformat.write would leave the signature out
    path.write_text(json.dumps(nb, indent=1), encoding='utf-8')
    return path


def mimetypes(nb: dict) -> set[str]:
    return {m for cell in nb['cells'] for o in cell.get('outputs', [])
            for m in o.get('data', {})}


def test_clean_drops_what_runs_and_keeps_the_text(tmp_path, capsys):
    path = _write(tmp_path, attacker_notebook())
    assert cli.main(['clean', str(path)]) == 0
    said = capsys.readouterr().out
    assert 'widget state removed' in said and 'trust signature removed' in said
    assert '4 output(s) reduced' in said and '2 output(s) dropped' in said
    cleaned = json.loads(path.read_text(encoding='utf-8'))
    nbformat.validate(nbformat.reads(path.read_text(encoding='utf-8'), 4))
    assert mimetypes(cleaned) <= set(KEPT_MIMETYPES)
    assert 'widgets' not in cleaned['metadata'] and 'signature' not in cleaned['metadata']
    assert '__pwned' not in path.read_text(encoding='utf-8')
    first, second, third, markdown = cleaned['cells']
    assert [o['data'] for o in first['outputs']] == [
        {'text/plain': 'GraphView: the live graph'}, {'text/plain': 'static picture'}]
    assert first['metadata'] == {'nbgrader': {'grade': False, 'solution': True}}
    assert [o['data'] for o in second['outputs']] == [{'text/plain': '42'},
                                                      {'text/plain': 'a plot'}]
    assert second['outputs'][0]['execution_count'] == 2
    stream, picture, error = third['outputs']
    assert stream['text'] == 'hi\n' and error['ename'] == 'ZeroDivisionError'
    assert picture['data'] == {'image/png': PNG, 'text/plain': '<Figure>'}
    assert picture['metadata'] == {'image/png': {'width': 1}}
    assert markdown['source'] == '# A lesson'
    assert cleaned['metadata']['kernelspec']['name'] == 'python3'


def test_clean_again_has_nothing_to_remove(tmp_path, capsys):
    path = _write(tmp_path, attacker_notebook())
    cli.main(['clean', str(path)])
    once = path.read_bytes()
    assert cli.main(['clean', str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith('nothing to remove')
    assert path.read_bytes() == once


def test_clean_writes_whole_or_not_at_all(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path, attacker_notebook())
    before = path.read_bytes()

    def full_disk(*_args):
        raise OSError(28, 'No space left on device')
    monkeypatch.setattr(os, 'replace', full_disk)
    assert cli.main(['clean', str(path)]) == 2
    assert 'the disk is full' in capsys.readouterr().err
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ['NOTEBOOK.ipynb']  # no temp left


def test_clean_says_why_a_file_is_not_cleaned_and_cleans_the_others(tmp_path, capsys):
    good = _write(tmp_path, attacker_notebook())
    broken = tmp_path / 'broken.ipynb'
    broken.write_text('{"cells": [', encoding='utf-8')
    other = tmp_path / 'other.ipynb'
    other.write_text('{"a": 1}', encoding='utf-8')
    assert cli.main(['clean', str(broken), str(tmp_path / 'missing.ipynb'), str(other),
                     str(good)]) == 2
    err = capsys.readouterr().err
    assert f'did not clean {broken}: it is not a notebook (not valid JSON' in err
    assert 'missing.ipynb: No such file' in err
    assert f'did not clean {other}: it is not a version 4 notebook' in err
    assert broken.read_text(encoding='utf-8') == '{"cells": ['
    assert mimetypes(json.loads(good.read_text(encoding='utf-8'))) <= set(KEPT_MIMETYPES)


def test_clean_keeps_the_file_mode_and_cleans_through_a_link(tmp_path):
    path = _write(tmp_path, attacker_notebook())
    path.chmod(0o600)
    link = tmp_path / 'link.ipynb'
    link.symlink_to(path)
    assert cli.main(['clean', str(link)]) == 0
    assert link.is_symlink() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert 'widgets' not in json.loads(path.read_text(encoding='utf-8'))['metadata']


def test_clean_refuses_what_is_no_notebook_in_python():
    with pytest.raises(ValueError, match='version 4 notebook'):
        clean({'worksheets': []})
