"""Which packages the wheel holds (everything else is in pyproject.toml).

pyproject.toml cannot both discover packages and map one to a folder of another
name, and the lessons need exactly that: the folder ``lessons/`` (where a clone,
Binder and the README link to the notebooks) is installed as the package
``autograd_lab_lessons``, its notebooks as package data.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    """Leaves out lessons/build_notebooks.py: it builds the notebooks from lessons/source/,
    which only a clone has."""

    def find_package_modules(self, package, package_dir):
        return [found for found in super().find_package_modules(package, package_dir)
                if found[:2] != ('autograd_lab_lessons', 'build_notebooks')]


setup(
    cmdclass={'build_py': BuildPy},
    packages=[
        *find_packages(include=['autograd_lab', 'autograd_lab.*']),  # the engine
        *find_packages('widgets', include=['autograd_lab_widget*']),  # the graph widget
        'autograd_lab_lessons',  # lessons/: the notebooks, the command
        'autograd_lab_lessons.checks',  # lessons/checks/: the exercise checkers
    ],
    package_dir={'autograd_lab_widget': 'widgets/autograd_lab_widget',
                 'autograd_lab_lessons': 'lessons'},
)
