"""``autograd-lab lessons DIR`` under faults (issue 39): files are written whole or not at
all, a broken lesson is repaired on a re-run, links are never written through, and a bad
folder gets a clear error (exit code 2, no traceback) saying what was wrong and what to do.
"""

from __future__ import annotations

import errno
import json
import os

import pytest

import autograd_lab_lessons
from autograd_lab_lessons import FIRST_LESSON, cli, files


def run(capsys, *argv):
    code = cli.main(['lessons', *argv, '--no-lab'])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_full_disk_leaves_no_half_written_notebook(tmp_path, capsys, monkeypatch):
    written = []

    def half_then_full(fd, data):
        if len(written) == 3:  # the fourth file hits a full disk halfway through
            os.write(fd, bytes(data[:len(data) // 2]))
            raise OSError(errno.ENOSPC, 'No space left on device')
        written.append(fd)
        os.write(fd, data)

    monkeypatch.setattr(files, '_write_all', half_then_full)
    code, out, err = run(capsys, str(tmp_path))
    assert code == 2 and 'Traceback' not in err
    assert 'the disk is full' in err and 'Free some space' in err
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 3 and not any(n.endswith('.tmp') for n in names)  # no leftovers
    for name in names:  # what is there is whole
        assert (tmp_path / name).read_bytes() == _source(name)
    monkeypatch.undo()
    code, out, err = run(capsys, str(tmp_path))  # space freed: the rest comes
    assert code == 0, err
    assert f'{len(autograd_lab_lessons.lessons()) + 1 - 3} file(s) copied, 3 kept' in out


def _source(name):
    from importlib import resources
    return (resources.files('autograd_lab_lessons') / name).read_bytes()


@pytest.mark.parametrize(('content', 'why'), [(b'', 'it is empty'),
                                               (b'{"cells": [{"cell_t', 'it is not valid JSON')])
def test_a_rerun_repairs_a_broken_lesson_and_says_so(tmp_path, capsys, content, why):
    assert run(capsys, str(tmp_path))[0] == 0
    broken = tmp_path / FIRST_LESSON
    broken.write_bytes(content)
    code, out, err = run(capsys, str(tmp_path))
    assert code == 0, err
    assert f'Repaired {FIRST_LESSON}: {why}' in out
    assert json.loads(broken.read_bytes())['cells']  # a real notebook again
    assert broken.read_bytes() == _source(FIRST_LESSON)
    assert (tmp_path / f'{FIRST_LESSON}.broken').read_bytes() == content  # nothing lost
    kept = len(autograd_lab_lessons.lessons())  # the others and the index
    assert f'0 file(s) copied, {kept} kept as they were' in out


def test_a_learners_json_is_not_called_broken(tmp_path, capsys):
    mine = tmp_path / FIRST_LESSON
    mine.write_text('{"my": "answers"}', encoding='utf-8')
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0 and 'Repaired' not in out
    assert mine.read_text(encoding='utf-8') == '{"my": "answers"}'


def test_a_dangling_link_at_a_lessons_name_is_not_written_through(tmp_path, capsys):
    folder, outside = tmp_path / 'class', tmp_path / 'outside.ipynb'
    folder.mkdir()
    (folder / FIRST_LESSON).symlink_to(outside)
    code, _, err = run(capsys, str(folder))
    assert code == 2 and 'Traceback' not in err
    assert not outside.exists()  # nothing written outside the folder
    assert f'did not write {folder / FIRST_LESSON}' in err and 'is a link' in err
    assert 'Remove it' in err
    assert (folder / '02_chain_rule_by_hand.ipynb').exists()  # the others are copied


def test_a_linked_solutions_folder_is_not_written_through(tmp_path, capsys):
    folder, outside = tmp_path / 'class', tmp_path / 'elsewhere'
    folder.mkdir()
    outside.mkdir()
    (folder / 'solutions').symlink_to(outside)
    code, _, err = run(capsys, str(folder), '--solutions')
    assert code == 2 and 'is a link' in err
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(('make', 'said'), [
    (lambda tmp: str(tmp / 'a-file'), 'is a file, not a folder'),
    (lambda tmp: str(tmp / 'a-file' / 'class'), 'part of the path is a file'),
    (lambda tmp: str(tmp / ('x' * 300)), 'the name is too long'),
    (lambda tmp: '~nosuchuser-agl/class', "no user named 'nosuchuser-agl'"),
    (lambda tmp: '', 'the folder name is empty'),
    (lambda tmp: '  ', 'the folder name is empty'),
])
def test_a_bad_folder_gets_a_clear_error(tmp_path, capsys, monkeypatch, make, said):
    (tmp_path / 'a-file').write_text('mine', encoding='utf-8')
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = run(capsys, make(tmp_path))
    assert code == 2 and 'Traceback' not in err
    assert said in err and err.startswith('autograd-lab lessons: cannot copy the lessons')
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing copied here
    assert (tmp_path / 'a-file').read_text(encoding='utf-8') == 'mine'


def test_a_read_only_folder_gets_a_clear_error(tmp_path, capsys, monkeypatch):
    def denied(*args, **kwargs):  # as a read-only folder answers (root ignores chmod)
        raise PermissionError(errno.EACCES, 'Permission denied', str(tmp_path))

    monkeypatch.setattr(files.tempfile, 'mkstemp', denied)
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and 'Traceback' not in err
    assert f'into {tmp_path}: permission denied' in err and 'Choose a folder' in err


def test_the_command_line_exits_2_with_no_traceback(tmp_path):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, '-m', 'autograd_lab_lessons.cli', 'lessons', '',
                           '--no-lab'], capture_output=True, text=True, cwd=tmp_path,
                          check=False)
    assert done.returncode == 2 and 'Traceback' not in done.stderr
    assert 'the folder name is empty' in done.stderr and list(tmp_path.iterdir()) == []
