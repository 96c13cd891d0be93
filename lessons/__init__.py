"""autograd_lab_lessons: the classroom lessons of autograd_lab, as an installed package.

This folder (``lessons/`` in the repository) is installed as the package
``autograd_lab_lessons``: the exercise checkers (:mod:`autograd_lab_lessons.checks`,
which every lesson imports), the lesson notebooks as package data, and the
``autograd-lab lessons`` command (:mod:`autograd_lab_lessons.cli`), which copies the
notebooks into a working folder and opens JupyterLab there.  The solutions, the
instructor notes and the graded-assignment tools are only in a clone (and an editable
install of it): students install the wheel, so it carries no answers.

It sits on top of everything else: the engine and the widget never import it.

The notebooks come in the course's order (:mod:`autograd_lab_lessons.path`): the main
path, then the appendix.

>>> from autograd_lab_lessons import lessons
>>> [path.name for path in lessons()][:2]
['01_variables_and_derivatives.ipynb', '02_chain_rule_by_hand.ipynb']
>>> lessons()[-1].name
'A4_devices.ipynb'
>>> len(lessons()) == len(lessons(solutions=True))
True
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from autograd_lab_lessons.files import broken_notebook, write_whole
from autograd_lab_lessons.path import APPENDIX, MAIN_PATH

if TYPE_CHECKING:  # importlib.resources.abc is Python >= 3.11
    from importlib.resources.abc import Traversable

__all__ = ['FIRST_LESSON', 'Copied', 'InstructorMaterialMissing', 'copy_lessons',
           'has_instructor_material', 'lessons']

#: The notebook a class starts with (what the command and Binder open).
FIRST_LESSON = '01_variables_and_derivatives.ipynb'
# Copied beside the notebooks: the lesson index for everyone; the instructor notes only
# with the solutions.
_INDEX = 'README.md'
_INSTRUCTOR_NOTES = 'INSTRUCTORS.md'


#: Where instructors get the solutions, the notes and the assignment tools: students install
#: the package, so it carries none of them (issue 40).
CLONE_HINT = ('They are not in the installed autograd-lab package (students install it too): '
              'they are in a clone of the autograd_lab repository. Clone it, run '
              '`pip install -e ".[notebook]"` in it (or `bash lessons/start.sh`), and run the '
              'command from that install.')


class InstructorMaterialMissing(FileNotFoundError):
    """The solutions or the instructor notes are asked for where only the students' package
    is installed."""


def has_instructor_material() -> bool:
    """Whether the solutions and the instructor notes are here: in a clone (or an editable
    install of one), not in the installed wheel."""
    package = resources.files(__name__)
    return (package / _INSTRUCTOR_NOTES).is_file() and all(
        notebook.is_file() for notebook in lessons(solutions=True))


def lessons(*, solutions: bool = False) -> list[Traversable]:
    """The lesson notebooks, main path then appendix; ``solutions=True``: their solutions."""
    folder = resources.files(__name__)
    if solutions:
        folder = folder / 'solutions'
    return [folder / f'{stem}.ipynb' for stem in MAIN_PATH + APPENDIX]


class Copied(NamedTuple):
    """What :func:`copy_lessons` did, file by file."""

    copied: list[Path]
    kept: list[Path]
    #: (file, why it was broken, where the broken file was moved)
    repaired: list[tuple[Path, str, Path]]
    #: (file, why it was not written)
    refused: list[tuple[Path, str]]


def _aside(target: Path) -> Path:
    """A free name beside ``target`` to keep its broken copy under."""
    for number in range(1000):
        aside = target.with_name(target.name + ('.broken' if not number else f'.broken{number}'))
        if not aside.exists() and not aside.is_symlink():
            return aside
    raise FileExistsError(f'{target}: too many .broken copies beside it; remove some')


def copy_lessons(destination: str | Path, *, solutions: bool = False) -> Copied:
    """Copies the lessons into ``destination`` (made if missing); returns a :class:`Copied`.

    A file that is already there is kept, never overwritten: running the command
    again reopens a learner's work as they left it.  A notebook that cannot be opened
    (empty, or not JSON: a copy cut short) is moved aside to ``NAME.broken`` and copied
    again.  Each file is written whole or not at all, and never through a link (a
    link at a lesson's name is refused).  ``solutions=True`` adds the ``solutions/``
    folder and the instructor notes; where they are missing (the installed wheel) it
    raises :class:`InstructorMaterialMissing` and copies nothing.
    """
    if solutions and not has_instructor_material():
        raise InstructorMaterialMissing(f'No solutions or instructor notes here. {CLONE_HINT}')
    destination = Path(destination).expanduser()
    package = resources.files(__name__)
    wanted: list[tuple[Traversable, Path]] = [(package / _INDEX, destination / _INDEX)]
    wanted += [(nb, destination / nb.name) for nb in lessons()]
    if solutions:
        wanted.append((package / _INSTRUCTOR_NOTES, destination / _INSTRUCTOR_NOTES))
        wanted += [(nb, destination / 'solutions' / nb.name)
                   for nb in lessons(solutions=True)]
    done = Copied([], [], [], [])
    for source, target in wanted:
        link = next((p for p in (target, target.parent) if p.is_symlink()
                     and p != destination), None)
        if link is not None:
            done.refused.append((target, f'{link} is a link (to {os.readlink(link)}); the '
                                         'lessons are never written through a link. Remove '
                                         'it or choose another folder'))
            continue
        broken = False
        if target.exists():
            broken = target.suffix == '.ipynb' and target.is_file() and broken_notebook(target)
            if not broken:
                done.kept.append(target)
                continue
            aside = _aside(target)
            os.replace(target, aside)
            done.repaired.append((target, broken, aside))
        target.parent.mkdir(parents=True, exist_ok=True)
        write_whole(target, source.read_bytes())
        if not broken:
            done.copied.append(target)
    return done
