"""Which packages the wheel holds (everything else is in pyproject.toml).

pyproject.toml cannot both discover packages and map one to a folder of another
name, and the lessons need exactly that: the folder ``lessons/`` (where a clone,
Binder and the README link to the notebooks) is installed as the package
``autograd_lab_lessons``, its notebooks as package data.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


#: Modules of lessons/ that only a clone has: the notebooks' builder (it reads
#: lessons/source/), and the instructors' graded-assignment tools, which run the solutions
#: and hold how the hidden tests try an answer (students install the wheel: issue 40).
CLONE_ONLY = ('build_notebooks', 'assignments', 'hidden_tests')


class BuildPy(build_py):
    """Leaves out the clone-only modules of lessons/ (:data:`CLONE_ONLY`)."""

    def find_package_modules(self, package, package_dir):
        return [found for found in super().find_package_modules(package, package_dir)
                if not (found[0] == 'autograd_lab_lessons' and found[1] in CLONE_ONLY)]


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
