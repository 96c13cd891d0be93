"""The main-path solutions run in the lesson walk (tests/browser/test_browser_lesson_walk.py),
in a real JupyterLab: nbmake runs only the appendix's here, so none runs twice."""

from autograd_lab_lessons.path import MAIN_PATH

collect_ignore = [f'{stem}.ipynb' for stem in MAIN_PATH]
