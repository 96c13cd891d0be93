"""The course's order (lessons/path.py) and the lesson files agree (issue 30, point 1).

Every notebook in lessons/ is in exactly one of MAIN_PATH and APPENDIX, each has its
solution and its source, and the numbers in the names follow the lists: the main path
01, 02, ... in order, the appendix A1, A2, ...
"""

from __future__ import annotations

import re
from pathlib import Path

from autograd_lab_lessons.path import APPENDIX, MAIN_PATH

LESSONS = Path(__file__).resolve().parent.parent / 'lessons'


def _stems(folder: Path, suffix: str) -> list[str]:
    return sorted(p.name.removesuffix(suffix) for p in folder.glob(f'*{suffix}'))


def test_every_notebook_is_in_exactly_one_list():
    listed = MAIN_PATH + APPENDIX
    assert len(listed) == len(set(listed)), 'a lesson is listed twice'
    assert not set(MAIN_PATH) & set(APPENDIX)
    assert sorted(listed) == _stems(LESSONS, '.ipynb')


def test_every_lesson_has_its_solution_and_its_source():
    listed = sorted(MAIN_PATH + APPENDIX)
    assert _stems(LESSONS / 'solutions', '.ipynb') == listed
    assert _stems(LESSONS / 'source', '.md') == listed


def test_the_main_path_is_numbered_01_to_nn_in_order():
    numbers = [stem.split('_', 1)[0] for stem in MAIN_PATH]
    assert numbers == [f'{n:02d}' for n in range(1, len(MAIN_PATH) + 1)]
    assert MAIN_PATH[0] == '01_variables_and_derivatives'  # what the command and Binder open


def test_the_appendix_is_numbered_a1_to_an_in_order():
    numbers = [stem.split('_', 1)[0] for stem in APPENDIX]
    assert numbers == [f'A{n}' for n in range(1, len(APPENDIX) + 1)]


def test_a_lesson_is_named_by_its_number_and_a_snake_case_topic():
    for stem in MAIN_PATH + APPENDIX:
        assert re.fullmatch(r'(\d\d|A\d)_[a-z0-9]+(_[a-z0-9]+)*', stem), stem


def test_each_lesson_title_carries_its_number():
    for stem in MAIN_PATH + APPENDIX:
        number = stem.split('_', 1)[0].lstrip('0')
        title = (LESSONS / 'source' / f'{stem}.md').read_text(encoding='utf-8').split('\n')[0]
        assert title.startswith(f'# Lesson {number} · '), (stem, title)


def test_the_lessons_readme_lists_them_in_the_course_order():
    readme = (LESSONS / 'README.md').read_text(encoding='utf-8')
    linked = re.findall(r'\]\(([^)/]+)\.ipynb\)', readme)
    assert linked == MAIN_PATH + APPENDIX
