"""The ``autograd-lab`` command: ``autograd-lab lessons [DIR]`` sets a class up in one step.

It copies the lesson notebooks into ``DIR`` (default ``./autograd-lab-lessons``;
files already there are kept, so a learner's work is never overwritten) and opens
lesson 1 in JupyterLab there.  ``--no-lab`` only copies; ``--solutions`` adds the
solution notebooks and the instructor notes (from a clone of the repository: the
installed wheel carries no answers); options after ``--`` go to
``jupyter lab`` (``--no-browser`` may also be given directly)::

    pip install "autograd-lab[notebook]"
    autograd-lab lessons                       # copy, then open lesson 1
    autograd-lab lessons ~/class --no-lab      # copy only
    autograd-lab lessons -- --port 8899        # pass options to jupyter lab

``autograd-lab assignments --format nbgrader|otter FOLDER`` writes the main-path lessons
as graded assignments (:mod:`autograd_lab_lessons.assignments`; the ``grading`` extra).

``autograd-lab clean NOTEBOOK [NOTEBOOK ...]`` removes what a reader's browser would run
from a notebook before it is shared or opened (:mod:`autograd_lab_lessons.sharing`): its
widget state, and every output's HTML, JavaScript, SVG and widget views.
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from autograd_lab_lessons import (
    CLONE_HINT,
    FIRST_LESSON,
    InstructorMaterialMissing,
    copy_lessons,
    has_instructor_material,
)

#: What installs everything the lessons need (JupyterLab, the widget's front end).
INSTALL_COMMAND = 'pip install "autograd-lab[notebook]"'
DEFAULT_FOLDER = 'autograd-lab-lessons'
# Importable modules without which the lessons cannot open or run.
_NEEDED = ('jupyterlab', 'anywidget', 'ipykernel')


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='autograd-lab', description='autograd_lab: see automatic differentiation work.')
    commands = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    lessons = commands.add_parser(
        'lessons', help='copy the lesson notebooks to a folder and open JupyterLab there',
        description='Copy the lesson notebooks into FOLDER (files already there are kept) '
                    'and open lesson 1 in JupyterLab. Options after -- go to jupyter lab.')
    lessons.add_argument('folder', nargs='?', default=DEFAULT_FOLDER, metavar='FOLDER',
                         help=f'where the lessons go (default: ./{DEFAULT_FOLDER})')
    lessons.add_argument('--no-lab', action='store_true',
                         help='only copy the lessons, do not start JupyterLab')
    lessons.add_argument('--solutions', action='store_true',
                         help='also copy the solution notebooks and the instructor notes '
                             '(only from a clone of the repository: not in the wheel)')
    lessons.add_argument('--no-browser', action='store_true',
                         help='start JupyterLab without opening a browser (it prints the URL)')
    graded = commands.add_parser(
        'assignments', help='write the main-path lessons as graded assignments (nbgrader, otter)',
        description='Write the main-path lessons as graded assignments with hidden tests: an '
                    'nbgrader course folder or otter master notebooks, in FOLDER. Needs the '
                    'grading extra.')
    graded.add_argument('folder', metavar='FOLDER', help='where the assignments go')
    graded.add_argument('--format', required=True, choices=('nbgrader', 'otter'),
                        help='nbgrader: a course folder (source/<lesson>/); otter: one '
                             'master notebook per lesson for otter assign')
    again = graded.add_mutually_exclusive_group()
    again.add_argument('--update', action='store_true',
                       help='into an existing folder: keep the notebooks edited since they '
                            'were written, add or refresh the rest')
    again.add_argument('--force', action='store_true',
                       help='into an existing folder: overwrite its notebooks (edits are '
                            'lost)')
    cleaning = commands.add_parser(
        'clean', help='remove widget state and HTML/JavaScript outputs from notebooks',
        description='Before sharing a notebook, or opening one you did not make: remove its '
                    'saved widget state and every output that a browser would run or render '
                    'as HTML (HTML, JavaScript, SVG, Markdown, widget views); plain text, PNG '
                    'and JPEG stay. Each notebook is rewritten whole, in place.')
    cleaning.add_argument('notebooks', nargs='+', metavar='NOTEBOOK', help='notebooks to clean')
    return parser


def _clean(paths: Sequence[str]) -> int:
    """``autograd-lab clean``: every notebook cleaned, or said why not (exit status 2)."""
    from autograd_lab_lessons.sharing import clean_file  # noqa: PLC0415 (this command only)
    failed = 0
    for given in paths:
        try:
            done = clean_file(Path(given).expanduser())
        except (OSError, ValueError) as error:
            failed += 1
            why = error if isinstance(error, ValueError) else _WHAT_TO_DO.get(
                error.errno or 0, error.strerror or error)
            print(f'autograd-lab clean: did not clean {given}: {why}.', file=sys.stderr)
            continue
        print(f'Cleaned {given}: {done}')
    return 2 if failed else 0


def _assignments(args: argparse.Namespace) -> int:
    """``autograd-lab assignments``: only where the instructor material is (a clone)."""
    if not has_instructor_material() or importlib.util.find_spec(
            'autograd_lab_lessons.assignments') is None:
        print('Cannot make assignments: they are built from the solutions and the hidden '
              f'tests\' tools. {CLONE_HINT}', file=sys.stderr)
        return 1
    from autograd_lab_lessons import assignments  # noqa: PLC0415 (a clone's module only)
    return assignments.run(args.format, args.folder, update=args.update, force=args.force)


def lab_command(extra: Sequence[str] = ()) -> list[str]:
    """The command that opens lesson 1 with this Python's JupyterLab, run in the folder."""
    command = [sys.executable, '-m', 'jupyterlab', FIRST_LESSON]
    if hasattr(os, 'getuid') and os.getuid() == 0:
        command.append('--allow-root')  # Jupyter refuses root (containers) unless told
    return [*command, *extra]


def _folder(given: str) -> Path:
    """The folder the lessons go to, or ValueError saying what is wrong with ``given``."""
    if not given.strip():
        raise ValueError('the folder name is empty. Give a folder, e.g. '
                         f'`autograd-lab lessons {DEFAULT_FOLDER}` (or `.` for this folder)')
    try:
        folder = Path(given).expanduser()
    except RuntimeError:  # Python < 3.12 for ~nosuchuser
        folder = Path(given)
    if given.startswith('~') and str(folder).startswith('~'):
        user = given[1:].replace(os.sep, '/').split('/', maxsplit=1)[0]
        raise ValueError(f'{given!r}: there is no user named {user!r} on this machine, so '
                         f'~{user} means nothing. Check the spelling, or give the full path')
    folder = folder.resolve()
    if folder.exists() and not folder.is_dir():
        raise ValueError(f'{folder} is a file, not a folder. Give the name of a folder '
                         '(a new one is made)')
    return folder


_WHAT_TO_DO = {
    errno.ENOSPC: 'the disk is full. Free some space and run the command again '
                  '(nothing half-written was left)',
    errno.EDQUOT: 'the disk quota is used up. Free some space and run the command again',
    errno.EACCES: 'permission denied: this folder cannot be written. Choose a folder of yours',
    errno.EPERM: 'the folder cannot be written (read-only or immutable). Choose another folder',
    errno.EROFS: 'it is on a read-only file system. Choose a folder you can write to',
    errno.ENAMETOOLONG: 'the name is too long for this file system. Choose a shorter name',
    errno.ENOTDIR: 'part of the path is a file, not a folder. Choose a path made of folders',
    errno.EEXIST: 'part of the path is a file, not a folder. Choose a path made of folders',
}


def _why(error: OSError | ValueError, given: str) -> str:
    """What went wrong copying into ``given`` and what to do, in a sentence."""
    if isinstance(error, ValueError):
        return f'cannot copy the lessons: {error}.'
    where = error.filename or given
    what = _WHAT_TO_DO.get(error.errno or 0, f'{error.strerror or error}. Check the folder')
    return f'cannot copy the lessons into {where}: {what}.'


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lab_extra: list[str] = []
    if '--' in argv:
        argv, lab_extra = argv[:argv.index('--')], argv[argv.index('--') + 1:]
    args = _parser().parse_args(argv)
    if args.command == 'assignments':
        return _assignments(args)
    if args.command == 'clean':
        return _clean(args.notebooks)
    try:
        folder = _folder(args.folder)
        done = copy_lessons(folder, solutions=args.solutions)
    except InstructorMaterialMissing as missing:
        print(f'Cannot copy the solutions: {missing}', file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print(f'autograd-lab lessons: {_why(error, args.folder)}', file=sys.stderr)
        return 2
    print(f'Lessons in {folder}: {len(done.copied)} file(s) copied'
          + (f', {len(done.kept)} kept as they were' if done.kept else ''))
    for target, why, aside in done.repaired:
        print(f'Repaired {target.name}: {why}, so it could not be opened; copied it again '
              f'(the broken file is kept as {aside.name})')
    for target, why in done.refused:
        print(f'autograd-lab lessons: did not write {target}: {why}.', file=sys.stderr)
    if done.refused:
        return 2
    if args.no_lab:
        return 0
    missing = [name for name in _NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        print(f'Cannot open JupyterLab: {", ".join(missing)} not installed in this Python '
              f'({sys.executable}). Install the notebook extra:\n    {INSTALL_COMMAND}',
              file=sys.stderr)
        return 1
    command = lab_command([*(['--no-browser'] if args.no_browser else []), *lab_extra])
    print(f'Opening {FIRST_LESSON} in JupyterLab (Ctrl-C stops it) ...', flush=True)
    os.chdir(folder)  # JupyterLab serves the folder it starts in
    if os.name == 'posix':
        os.execv(command[0], command)  # Lab takes over this process: Ctrl-C goes straight to it
    return subprocess.call(command)


if __name__ == '__main__':
    sys.exit(main())
