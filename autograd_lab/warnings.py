"""``chainer.warnings``: the warning categories Chainer defines.

>>> issubclass(PerformanceWarning, RuntimeWarning)
True
"""


class PerformanceWarning(RuntimeWarning):
    """A computation runs, but slower than it could (e.g. a fallback path)."""
