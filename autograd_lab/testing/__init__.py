"""Stand-ins for trying device code where the real device is missing.

:mod:`autograd_lab.testing.fake_gpu` is a GPU backend made of NumPy arrays behind an
array type of their own, as strict as CuPy where device code goes wrong (an array made
with ``np.*`` is not on the GPU; a GPU array and a NumPy array do not mix), so the
project's tests and the lessons' checkers try GPU code paths on any machine.
"""
