"""Ready-made function hooks (Chainer's ``chainer.function_hooks``).

- :class:`TimerHook` measures how long every function's forward and backward take.
- :class:`PrintHook` prints the inputs (and output gradients) each function receives.

Both are ordinary :class:`~autograd_lab.FunctionHook` subclasses: they are called
through the engine's observation points, the same ones that emit graph events
(see :mod:`autograd_lab.function_hook`), so they cost nothing while unregistered.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab.function_hooks import TimerHook
>>> x = chainer.Variable(np.ones(3, np.float32))
>>> with TimerHook() as timer:
...     chainer.functions.sum(x * 2).backward()
>>> {name: record['occurrence'] for name, record in timer.summary().items()}
{'MulConstant': 3, 'Sum': 2, 'BroadcastTo': 1}
"""

from autograd_lab.function_hooks.debug_print import PrintHook
from autograd_lab.function_hooks.timer import TimerHook

__all__ = ['PrintHook', 'TimerHook']
