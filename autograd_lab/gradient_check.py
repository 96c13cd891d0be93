"""Gradient checking: compare what backward computes with finite differences.

Three functions with Chainer's signatures:

* :func:`numerical_grad` -- central-difference gradients of a function of arrays;
* :func:`check_backward` -- asserts that the first-order gradients computed by
  backward agree with numerical ones;
* :func:`check_double_backward` -- asserts the same for the second-order gradients
  (the gradient of the gradient).

How the checks work
-------------------
Comparing every component of a gradient with its own finite difference costs two
evaluations of the function per input element.  :func:`check_backward` instead
draws one random direction ``r`` over all differentiated inputs (and ``params``)
and compares a single number, the *directional derivative*::

    d/dt  <f(x + t*r), gy>  at t = 0      (numerically: central difference in t)
    sum_i <grad_i, r_i>                    (analytically: from one backward pass)

where ``gy`` is ``y_grad`` and ``grad_i`` the gradient backward gives for input
``i``.  Every entry of ``r`` has a magnitude between 1/3 and 1 of the largest one
(times a random sign), so no component of the gradient can hide behind a tiny
weight; an error in any component changes the sum except in the measure-zero case
of exact cancellation.  The draw uses NumPy's global random state, so
``numpy.random.seed`` makes a check reproducible.

:func:`check_double_backward` builds the *first-order gradient function*
``(x..., gy...) -> (gx..., gparams...)`` with ``chainer.grad(...,
enable_double_backprop=True)`` and runs :func:`check_backward` on it, so the
gradients of that function (second-order terms, plus the first-order terms again
through ``gy``) are compared with finite differences of the first-order gradients.

Example:

>>> import numpy as np
>>> import autograd_lab as chainer
>>> import autograd_lab.functions as F
>>> from autograd_lab import gradient_check
>>> np.random.seed(0)
>>> x = np.random.uniform(0.5, 2.0, (2, 3))
>>> gy = np.random.uniform(-1, 1, (2, 3))
>>> gradient_check.check_backward(F.tanh, x, gy)          # passes silently
>>> gradient_check.check_double_backward(F.tanh, x, gy, np.ones((2, 3)))

A node whose backward forgets the factor 2 of ``d(x*x)/dx`` is caught:

>>> class BadSquare(chainer.FunctionNode):
...     def forward(self, inputs):
...         self.retain_inputs((0,))
...         return inputs[0] * inputs[0],
...     def backward(self, indexes, grad_outputs):
...         x, = self.get_retained_inputs()
...         return x * grad_outputs[0],
>>> gradient_check.check_backward(lambda v: BadSquare().apply((v,))[0], x, gy)
Traceback (most recent call last):
  ...
AssertionError: check_backward failed: the gradient from backward does not match ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab.configuration import using_config
from autograd_lab.variable import Variable

__all__ = ['NondifferentiableError', 'check_backward', 'check_double_backward',
           'numerical_grad']


class NondifferentiableError(Exception):
    """Raised by :func:`numerical_grad` (``detect_nondifferentiable=True``) when the
    function does not look differentiable at the evaluation point."""


# ---- helpers ----------------------------------------------------------------------------


def _as_tuple(value: Any) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def _output_arrays(result: Any) -> tuple:
    """The outputs of ``f`` as a tuple of arrays (None stays None; scalars become 0-dim)."""
    return tuple(y.array if isinstance(y, Variable) else
                 numpy.asarray(y) if numpy.isscalar(y) else y
                 for y in _as_tuple(result))


def _to_float64(a: Any) -> Any:
    """A float64 copy of array ``a`` on its own device."""
    return a.astype(numpy.float64)  # astype copies


def _format(value: Any) -> str:
    text = numpy.array2string(backend.CpuDevice().send(value) if backend.is_array(value)
                              else numpy.asarray(value), precision=8, threshold=64)
    return text.replace('\n', '\n    ')


# ---- numerical gradient -------------------------------------------------------------------


def numerical_grad(
        f: Callable[[], Any], inputs: Sequence[Any], grad_outputs: Sequence[Any],
        eps: float = 1e-3, detect_nondifferentiable: bool = False, diff_atol: float = 0,
        diff_rtol: float = 1e-2, center_outputs: Sequence[Any] | None = None) -> list:
    """Gradient of ``sum_k <f()[k], grad_outputs[k]>`` w.r.t. ``inputs`` by finite differences.

    Args:
        f: a function of no arguments that runs the computation and returns its
            outputs (an array or Variable, or a tuple of them; None entries allowed).
            It must read ``inputs``, which are modified in place while it runs.
        inputs: tuple of float arrays.  Each element in turn is moved to ``x - eps``
            and ``x + eps`` and then restored exactly (also when ``f`` raises).
        grad_outputs: one entry per output: an array of the output's shape, a
            scalar, or None (that output is ignored).
        eps: the step of the differences (the largest perturbation applied).
        detect_nondifferentiable: if True, ``f`` is evaluated at five points
            ``x - eps, x - eps/2, x, x + eps/2, x + eps`` instead of two, the gradient
            uses the fourth-order five-point central formula (error O(eps**4)
            instead of O(eps**2)), and :class:`NondifferentiableError` is raised
            when the samples of some output element look non-differentiable, by
            Chainer 7.8.1's test: (1) an output element is finite at some samples
            and not at others; or, when every output is finite everywhere, (2) a
            quadratic fitted to an element's five samples (least squares, in
            float64) misses them by a root-mean-square error larger than
            ``diff_atol + diff_rtol * (max - min)`` of the samples.  A smooth
            function is a quadratic up to O(eps**3) over the window, so smooth points
            pass; a kink or a jump inside ``[x - eps, x + eps]`` does not fit.
            Elements constant over the five samples are never flagged.
        diff_atol: absolute tolerance of the detector (see above).
        diff_rtol: tolerance of the detector relative to the spread of the samples.
        center_outputs: accepted for Chainer's signature and ignored, as in Chainer
            7.8.1 (``f`` is evaluated at the unperturbed inputs once, up front).

    Returns:
        A list with one gradient array per input, of the input's shape and dtype.
        The differences are taken in float64 (outputs are converted before
        subtracting), but the perturbed inputs keep their own dtype, so pass
        float64 inputs for accurate results.

    >>> import numpy as np
    >>> x = np.array([0.5, 1.0, 2.0])
    >>> gx, = numerical_grad(lambda: x ** 3, (x,), (np.ones(3),))
    >>> np.round(gx, 5)
    array([ 0.75,  3.  , 12.  ])
    >>> x                       # restored exactly
    array([0.5, 1. , 2. ])
    >>> a = np.array([-1.0, 0.0, 1.0])
    >>> numerical_grad(lambda: abs(a), (a,), (np.ones(3),), detect_nondifferentiable=True)
    Traceback (most recent call last):
      ...
    autograd_lab.gradient_check.NondifferentiableError: f does not look differentiable ...
    """
    inputs = _float_inputs(inputs, eps)
    grad_outputs = tuple(None if g is None else
                         _to_float64(g) if backend.is_array(g) else float(g)
                         for g in _as_tuple(grad_outputs))

    def evaluate() -> tuple:
        ys = tuple(None if y is None else _to_float64(y) for y in _output_arrays(f()))
        if len(ys) != len(grad_outputs):
            raise ValueError(f'f returned {len(ys)} outputs but {len(grad_outputs)} '
                             'grad_outputs were given')
        for k, (y, gy) in enumerate(zip(ys, grad_outputs, strict=True)):
            if y is not None and backend.is_array(gy) and gy.shape != y.shape:
                raise ValueError(f'grad_outputs[{k}] has shape {gy.shape} but output {k} '
                                 f'has shape {y.shape}')
        return ys

    # f runs without type checks, as in Chainer: a check may reject the float64 copies
    # check_backward(dtype=...) evaluates a float32-only function on.
    with using_config('type_check', False):
        return _differences(evaluate, inputs, grad_outputs, eps, detect_nondifferentiable,
                            diff_atol, diff_rtol)


def _differences(evaluate: Callable[[], tuple], inputs: tuple, grad_outputs: tuple,
                 eps: float, detect_nondifferentiable: bool, diff_atol: float,
                 diff_rtol: float) -> list:
    """The finite differences of :func:`numerical_grad` (see there)."""
    if detect_nondifferentiable:
        steps = (-1.0, -0.5, 0.0, 0.5, 1.0)  # the five-point formula, over 6*eps
        denominator = 6.0 * eps
        center = evaluate()  # f at the unperturbed inputs, shared by every element
    else:
        steps = (-1.0, 1.0)
        denominator = 2.0 * eps
        center = None

    grads = []
    for i_in, x in enumerate(inputs):
        gx = numpy.zeros(x.shape, numpy.float64)
        for index in numpy.ndindex(*x.shape):
            original = x[index].copy()
            samples = []
            try:
                for step in steps:
                    if step == 0.0:
                        samples.append(center)
                        continue
                    x[index] = original + x.dtype.type(step * eps)
                    samples.append(evaluate())
            finally:
                x[index] = original
            if detect_nondifferentiable:
                _detect_kink(samples, i_in, index, eps=eps, diff_atol=diff_atol,
                             diff_rtol=diff_rtol)
            gx[index] = _difference(samples, grad_outputs, denominator)
        grads.append(gx.astype(x.dtype) if backend.get_array_module(x) is numpy
                     else backend.get_array_module(x).asarray(gx, dtype=x.dtype))
    return grads


def _float_inputs(inputs: Any, eps: float) -> tuple:
    """``numerical_grad``'s ``inputs`` and ``eps``, checked."""
    assert eps > 0, f'eps must be positive, got {eps}'  # an AssertionError, as Chainer's
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(f'inputs must be a tuple or a list of arrays, not {type(inputs)}')
    for x in inputs:
        if not backend.is_array(x) or x.dtype.kind != 'f':
            raise TypeError('numerical_grad needs float arrays as inputs, got '
                            f'{getattr(x, "dtype", type(x))}')
    return tuple(inputs)


def _difference(samples: list, grad_outputs: tuple, denominator: float) -> Any:
    """``sum_k <difference of samples[.][k], grad_outputs[k]> / denominator``: the finite
    difference of one input element (two samples: central; five: the five-point formula),
    in Chainer's order of operations, for the same rounding."""
    total = numpy.float64(0.0)
    for k, gy in enumerate(grad_outputs):
        if gy is None or samples[0][k] is None:
            continue
        ys = [sample[k] for sample in samples]
        if len(ys) == 2:
            difference = ys[1] - ys[0]
        else:
            difference = -ys[4] + 8 * ys[3] - 8 * ys[1] + ys[0]
        total = total + (difference * gy).sum() / denominator
    return total


def _detect_kink(samples: list, i_in: int, index: tuple, *, eps: float, diff_atol: float,
                 diff_rtol: float) -> None:
    """The non-differentiability test of :func:`numerical_grad` (Chainer's; see there)."""
    outputs = [k for k, y in enumerate(samples[0]) if y is not None and y.size]
    if not outputs:
        return
    stacks = {k: numpy.stack([backend.CpuDevice().send(s[k]) for s in samples])
              for k in outputs}  # (5, *shape) each
    for k, stack in stacks.items():
        finite = numpy.isfinite(stack)
        if (finite != finite[0]).any():
            _kink(samples, i_in, index, k, eps, 'an output element is finite at some samples '
                  'and not at others')
    if not all(numpy.isfinite(stack).all() for stack in stacks.values()):
        return  # as Chainer: no fit where some output is not finite (consistently)
    for k, stack in stacks.items():
        flat = stack.reshape(len(samples), -1)
        _, (residuals, *_) = numpy.polynomial.polynomial.polyfit(
            numpy.arange(len(samples)), flat, deg=2, full=True)
        misfit = numpy.sqrt(residuals / len(samples))
        spread = flat.max(axis=0) - flat.min(axis=0)
        bad = (diff_atol + diff_rtol * spread < misfit) & (spread != 0)
        if bad.any():
            _kink(samples, i_in, index, k, eps,
                  f'a quadratic fits its five samples with an error up to '
                  f'{misfit[bad].max():.3g} > diff_atol + diff_rtol * (max - min) '
                  f'(diff_atol={diff_atol}, diff_rtol={diff_rtol}); a kink or a jump lies '
                  'within eps')


def _kink(samples: list, i_in: int, index: tuple, k: int, eps: float, reason: str) -> None:
    lines = [f'f does not look differentiable at inputs[{i_in}]{list(index)} '
             f'(output {k}, eps={eps}): {reason}.']
    for step, s in zip(('x-eps', 'x-eps/2', 'x', 'x+eps/2', 'x+eps'), samples, strict=True):
        lines.append(f'  y[{step}] = {_format(s[k])}')
    raise NondifferentiableError('\n'.join(lines))


# ---- check_backward -----------------------------------------------------------------------


def _unit_vector(size: int, xp: Any = numpy) -> Any:
    """A random unit vector of ``size`` entries (an array of ``xp``, drawn on the host).

    Magnitudes are uniform in [1, 3] before normalisation, signs random, so every
    component weighs at least a third of the largest one (at least ``1 / (3 sqrt(size))``).

    >>> v = _unit_vector(100)
    >>> bool(abs((v ** 2).sum() - 1) < 1e-12 and abs(v).min() >= 1 / (3 * 10))
    True
    """
    flat = numpy.random.uniform(1.0, 3.0, size) * numpy.where(
        numpy.random.uniform(size=size) < 0.5, -1.0, 1.0)
    if size:
        flat /= numpy.sqrt(numpy.square(flat).sum())
    return flat if xp is numpy else xp.asarray(flat)


class _CheckBackward:
    """Chainer's name for check_backward's machinery, kept for the one part Chainer code
    reads: ``_CheckBackward._sample_unit_vector(size, xp)``, the random direction.  Here
    check_backward is one function, and this is its sampler."""

    _sample_unit_vector = staticmethod(_unit_vector)


def _random_direction(shapes: list) -> list:
    """Unit vector over all ``shapes`` (None: no entry), split per shape."""
    sizes = [0 if s is None else int(numpy.prod(s, dtype=numpy.int64)) for s in shapes]
    flat = _unit_vector(int(numpy.sum(sizes, dtype=numpy.int64)))
    out, start = [], 0
    for shape, size in zip(shapes, sizes, strict=True):
        if shape is None:
            out.append(None)
        else:
            out.append(flat[start:start + size].reshape(shape))
            start += size
    return out


def _check_y_grad(ys: tuple, gys: tuple | None) -> tuple:
    if gys is None:
        if len(ys) != 1 or ys[0] is None or ys[0].shape != ():
            shapes = ', '.join(str(None if y is None else y.shape) for y in ys)
            raise ValueError('y_grad can be None only when func returns a single 0-dim '
                             f'Variable (a loss); output shapes: {shapes}')
        y = ys[0].array
        return (backend.get_array_module(y).ones_like(y),)
    if len(gys) != len(ys):
        raise ValueError(f'func returned {len(ys)} outputs but y_grad has {len(gys)} entries')
    for k, (y, gy) in enumerate(zip(ys, gys, strict=True)):
        if y is not None and gy is not None and gy.shape != y.shape:
            raise ValueError(f'y_grad[{k}] has shape {gy.shape} but output {k} has shape '
                             f'{y.shape}')
    return tuple(None if y is None else gy for y, gy in zip(ys, gys, strict=True))


def _merge_roots(pairs: list) -> list:
    """``(output, seed)`` pairs with repeated outputs merged by adding their seeds.

    A function may return the same Variable twice (``F.add``'s first-order gradient
    is ``(gy, gy)``); ``<y, a> + <y, b> = <y, a + b>``, whereas ``chainer.grad`` would
    count a repeated output once (quirk Q4).
    """
    merged: dict = {}
    for y, gy in pairs:
        key = id(y)
        if key in merged:
            gy = merged[key][1] + gy
            if isinstance(gy, numpy.generic):  # 0-dim arrays add up to a NumPy scalar
                gy = numpy.asarray(gy)
        merged[key] = (y, gy)
    return list(merged.values())


def check_backward(
        func: Callable[..., Any], x_data: Any, y_grad: Any, params: Any = (),
        eps: float = 1e-3, atol: float = 1e-5, rtol: float = 1e-4,
        no_grads: Sequence[bool] | None = None, dtype: Any = None,
        detect_nondifferentiable: bool = False) -> None:
    """Assert that backward of ``func`` at ``x_data`` agrees with finite differences.

    ``func`` is called with one Variable per entry of ``x_data`` and returns a
    Variable or a tuple of them.  The outputs are backpropagated with
    ``chainer.grad(outputs, inputs + params, grad_outputs=y_grad)`` (the ordinary,
    non-double path; ``x.grad`` of the caller's objects is not touched), and the
    resulting directional derivative along a random unit direction is compared
    with a central difference of ``t -> sum_k <func(x + t*r)[k], y_grad[k]>`` (see
    the module docstring).  The check passes when
    ``|analytic - numerical| <= atol + rtol * |numerical|``; otherwise an
    :class:`AssertionError` shows both values and, for small inputs, the full
    backward and numerical gradients side by side.

    Args:
        func: the function under test (a function, a FunctionNode's ``apply``
            wrapped in a lambda, a Link...).  It is called several times, so it
            must be deterministic.
        x_data: an array or a tuple of arrays (None entries are passed as None).
            The arrays are not modified.
        y_grad: an array or a tuple of arrays, one per output (None: that output
            is not differentiated); or None when ``func`` returns one 0-dim
            Variable (a loss), which is then seeded with 1.
        params: Variables or Parameters (one or a tuple) that ``func`` uses
            besides its arguments; their gradients are checked too.  Their arrays
            are replaced temporarily while the numerical derivative is taken and
            restored afterwards.
        eps: step of the finite difference (along the unit direction).
        atol, rtol: tolerances of the comparison.
        no_grads: one bool per input; True means "not differentiated": the input
            is left out of the direction, and backward must give it no gradient
            (None), else AssertionError.  Default: True for non-float inputs.
        dtype: if given (a float dtype), float inputs, ``params`` and the
            perturbations are cast to it for the numerical derivative only (e.g.
            float64 to check a float16 function); the backward pass always runs
            in the inputs' own dtypes.
        detect_nondifferentiable: if True, the numerical derivative uses five
            points and raises :class:`NondifferentiableError` at a kink (see
            :func:`numerical_grad`; its ``diff_rtol`` default is used).

    Raises:
        AssertionError: the gradients disagree.
        RuntimeError: an input listed in ``no_grads`` received a gradient (as Chainer).
        ValueError: inconsistent arguments (lengths, shapes, non-float ``dtype``).

    >>> import numpy as np
    >>> import autograd_lab.functions as F
    >>> np.random.seed(1)
    >>> a, b = np.random.uniform(-1, 1, (2, 3)), np.random.uniform(-1, 1, (3, 4))
    >>> check_backward(F.matmul, (a, b), np.ones((2, 4)))
    >>> check_backward(lambda v: F.sum(v * v), a, None)               # a loss
    >>> x16 = np.random.uniform(0.5, 1, (3,)).astype(np.float16)
    >>> check_backward(F.exp, x16, np.ones(3, np.float16), dtype=np.float64,
    ...                atol=1e-2, rtol=1e-2)
    """
    if dtype is not None and numpy.dtype(dtype).kind != 'f':
        raise ValueError(f'dtype must be a float dtype or None, got {numpy.dtype(dtype)}')
    xs = _as_tuple(x_data)
    params = _variables(params)
    no_grads = _no_grads(xs, no_grads)

    gys, x_grads, p_grads = _backward_grads(func, xs, y_grad, params, no_grads)
    targets = [x for x, skip in zip(xs, no_grads, strict=True) if not skip]
    targets += [p.array for p in params]
    target_grads = [g for g, skip in zip(x_grads, no_grads, strict=True) if not skip] + p_grads
    directions = _random_direction([None if x is None else x.shape for x in targets])
    analytic = sum((float((_to_float64(backend.CpuDevice().send(g.array)) * r).sum())
                    for g, r in zip(target_grads, directions, strict=True)
                    if g is not None and r is not None), 0.0)

    # -- numerical: central difference along the direction ---------------------------------
    def perturbed(base: Any, direction: Any, t: float) -> Any:
        target_dtype = base.dtype if dtype is None else numpy.dtype(dtype)
        xp = backend.get_array_module(base)
        moved = _to_float64(base) + t * xp.asarray(direction)
        return xp.asarray(moved, dtype=target_dtype)  # 0-dim stays an array

    fixed_inputs = [x if x is None or dtype is None or x.dtype.kind != 'f' else x.astype(dtype)
                    for x in xs]
    saved_params = [p.array for p in params]
    n_x = sum(1 for skip in no_grads if not skip)

    def evaluate_along(direction: list, t: float) -> tuple:
        args, j = [], 0
        for x, fixed, skip in zip(xs, fixed_inputs, no_grads, strict=True):
            if skip:
                args.append(None if fixed is None else Variable(fixed, requires_grad=False))
            else:
                args.append(None if x is None else Variable(perturbed(x, direction[j], t)))
                j += 1
        for k, p in enumerate(params):
            p.array = perturbed(saved_params[k], direction[n_x + k], t)
        return _output_arrays(func(*args))

    t = numpy.zeros((), numpy.float64)
    try:
        numeric = float(numerical_grad(lambda: evaluate_along(directions, float(t)), (t,),
                                       gys, eps=eps,
                                       detect_nondifferentiable=detect_nondifferentiable)[0])
        failed = not abs(analytic - numeric) <= atol + rtol * abs(numeric)  # NaN fails too
        report = (_elementwise_report(evaluate_along, targets, target_grads, gys=gys, eps=eps,
                                      no_grads=no_grads) if failed else [])
    finally:
        for p, a in zip(params, saved_params, strict=True):
            p.array = a

    if failed:
        tolerance = atol + rtol * abs(numeric)
        raise AssertionError('\n'.join([
            'check_backward failed: the gradient from backward does not match finite '
            'differences.',
            f'  directional derivative from backward: {analytic!r}',
            f'  directional derivative, numerical:    {numeric!r}',
            f'  |difference| = {abs(analytic - numeric)!r} > atol + rtol*|numerical| = '
            f'{tolerance!r}  (eps={eps}, atol={atol}, rtol={rtol}, dtype={dtype})', *report]))


def _variables(params: Any) -> tuple:
    """``check_backward``'s ``params`` as a tuple of Variables, checked."""
    params = _as_tuple(params) if params is not None else ()
    for p in params:
        if not isinstance(p, Variable):
            raise TypeError(f'params must be Variables or Parameters, not {type(p).__name__}')
    return params


def _backward_grads(func: Callable[..., Any], xs: tuple, y_grad: Any, params: tuple,
                    no_grads: list) -> tuple:
    """``check_backward``'s analytic side, one backward pass: ``(output gradients, the
    inputs' gradients, the params' gradients)``."""
    from autograd_lab.backprop import grad  # noqa: PLC0415 - cycle
    x_vars = [None if x is None else Variable(x, requires_grad=x.dtype.kind == 'f')
              for x in xs]
    ys = tuple(_as_tuple(func(*x_vars)))
    for y in ys:
        if y is not None and not isinstance(y, Variable):
            raise TypeError(f'func must return Variables, got {type(y).__name__}')
    gys = _check_y_grad(ys, None if y_grad is None else _as_tuple(y_grad))
    roots = _merge_roots([(y, gy) for y, gy in zip(ys, gys, strict=True) if gy is not None])
    wrt = [v for v in x_vars if v is not None] + list(params)
    if roots and wrt:
        # The seeds are copies so that nothing during backward can alias the caller's arrays.
        found = grad([y for y, _ in roots], wrt, [Variable(gy.copy()) for _, gy in roots])
    else:
        found = [None] * len(wrt)
    found_iter = iter(found)
    x_grads = [None if v is None else next(found_iter) for v in x_vars]
    for i, (skip, g) in enumerate(zip(no_grads, x_grads, strict=True)):
        if skip and g is not None:
            raise RuntimeError(f'gradient of int variable must be None: input {i} is listed '
                               'in no_grads (or is not float) but backward computed a '
                               f'gradient for it:\n    {_format(g.array)}')  # (as Chainer)
    return gys, x_grads, list(found_iter)


def _elementwise_report(evaluate_along: Callable, targets: list, target_grads: list, *,
                        gys: tuple, eps: float, no_grads: list) -> list:
    """Per-input backward vs numerical gradients, for small problems (failure messages)."""
    if sum(0 if x is None else x.size for x in targets) > 64:
        return ['  (inputs too large to list the full gradients)']
    names = [f'inputs[{i}]' for i, skip in enumerate(no_grads) if not skip]
    names += [f'params[{k}]' for k in range(len(targets) - len(names))]
    zeros = [None if x is None else numpy.zeros(x.shape) for x in targets]
    lines = []
    for i, (x, g) in enumerate(zip(targets, target_grads, strict=True)):
        if x is None:
            continue
        numeric = numpy.zeros(x.shape, numpy.float64)
        for index in numpy.ndindex(*x.shape):  # one coordinate axis at a time
            axis = list(zeros)
            axis[i] = numpy.zeros(x.shape)
            axis[i][index] = 1.0
            t = numpy.zeros((), numpy.float64)
            numeric[index] = numerical_grad(
                lambda axis=axis, t=t: evaluate_along(axis, float(t)), (t,), gys, eps=eps)[0]
        lines.append(f'  {names[i]} backward gradient:  '
                     f'{_format(None if g is None else g.array)}')
        lines.append(f'  {names[i]} numerical gradient: {_format(numeric)}')
    return lines


def _no_grads(xs: tuple, no_grads: Sequence[bool] | None) -> list:
    """One bool per input: True for an input not differentiated (default: non-float)."""
    if no_grads is None:
        return [x is None or x.dtype.kind != 'f' for x in xs]
    if len(no_grads) != len(xs):
        raise ValueError(f'no_grads has {len(no_grads)} entries but there are {len(xs)} inputs')
    return [bool(s) for s in no_grads]


# ---- check_double_backward ----------------------------------------------------------------


def _grad_grads(x_grad_grad: Any, params_grad_grad: Any, n_x: int, differentiated: list,
                n_params: int) -> tuple:
    """The output gradients of check_double_backward's first-order function: one per
    differentiated input (a tuple with an entry for every input, None for skipped ones,
    works too), then one per param."""
    ggxs = _as_tuple(x_grad_grad)
    if len(ggxs) == n_x and len(differentiated) != n_x:
        ggxs = tuple(ggxs[i] for i in differentiated)
    if len(ggxs) != len(differentiated):
        raise ValueError(f'x_grad_grad has {len(ggxs)} entries; expected one per '
                         f'differentiated input ({len(differentiated)})')
    ggparams = _as_tuple(params_grad_grad) if params_grad_grad is not None else ()
    if len(ggparams) != n_params:
        raise ValueError(f'params_grad_grad has {len(ggparams)} entries but there are '
                         f'{n_params} params')
    return ggxs + ggparams


def _seeded_roots(ys: tuple, gys: tuple, slots: list, seeds: tuple) -> tuple[list, list]:
    """The outputs ``ys`` to differentiate in check_double_backward's first-order function,
    with their seeds: ``seeds[j]`` for output ``slots[j]`` (the entries of ``gys`` that
    are not None).  Outputs that are None are left out, repeated ones merged."""
    from autograd_lab.functions.array import cast  # noqa: PLC0415 - cycle
    if len(ys) != len(gys):
        raise ValueError(f'func returned {len(ys)} outputs but y_grad has {len(gys)} entries')
    pairs = []
    for k, gy in zip(slots, seeds, strict=True):
        if ys[k] is None:
            continue
        if gy.dtype != ys[k].dtype:  # the numerical pass may run in another dtype
            gy = cast(gy, ys[k].dtype)
        pairs.append((ys[k], gy))
    pairs = _merge_roots(pairs)
    return [y for y, _ in pairs], [gy for _, gy in pairs]

def check_double_backward(
        func: Callable[..., Any], x_data: Any, y_grad: Any, x_grad_grad: Any,
        params: Any = (), params_grad_grad: Any = (), eps: float = 1e-3, atol: float = 1e-4,
        rtol: float = 1e-3, no_grads: Sequence[bool] | None = None, dtype: Any = None,
        detect_nondifferentiable: bool = False) -> None:
    """Assert that the second-order gradients of ``func`` agree with finite differences.

    The first-order gradient function ``(x..., gy...) -> (gx..., gparam...)`` is
    built with ``chainer.grad(func(x...), x... + params, gy..., enable_double_backprop=
    True)`` and checked with :func:`check_backward`, using ``x_grad_grad`` and
    ``params_grad_grad`` as its output gradients.  Its gradient w.r.t. ``x`` holds
    the second-order terms (Hessian-vector products); its gradient w.r.t. ``gy``
    re-checks the first-order backward.  It does not check the first-order
    gradients themselves against ``func``: run :func:`check_backward` for that.

    Args:
        func, x_data, params, eps, atol, rtol, dtype, detect_nondifferentiable: as
            in :func:`check_backward` (the tolerances default a little looser:
            second differences are less accurate).
        y_grad: output gradients as in :func:`check_backward`; they become inputs of
            the first-order function (None entries stay constant; ``y_grad=None``
            seeds a 0-dim loss with 1).
        x_grad_grad: one array per differentiated input (inputs not skipped by
            ``no_grads``), the gradient w.r.t. that input's first-order gradient.
            A tuple with one entry per input, None for skipped ones, works too.
        params_grad_grad: one array per entry of ``params``.
        no_grads: as in :func:`check_backward`: skipped inputs get no first-order
            gradient and are not differentiated twice.

    >>> import numpy as np
    >>> import autograd_lab.functions as F
    >>> np.random.seed(2)
    >>> x = np.random.uniform(0.5, 2, (3,))
    >>> check_double_backward(lambda v: v ** 3, x, np.ones(3), np.ones(3))
    >>> check_double_backward(lambda v: F.sum(F.exp(v) * v), x, None, np.ones(3))
    """
    from autograd_lab.backprop import grad  # noqa: PLC0415 - cycle
    xs = _as_tuple(x_data)
    params = _as_tuple(params) if params is not None else ()
    n_x = len(xs)
    no_grads = _no_grads(xs, no_grads)
    differentiated = [i for i in range(n_x) if not no_grads[i]]
    grad_grads = _grad_grads(x_grad_grad, params_grad_grad, n_x, differentiated, len(params))
    gys = None if y_grad is None else _as_tuple(y_grad)
    gy_slots = [] if gys is None else [k for k, gy in enumerate(gys) if gy is not None]

    def first_order(*inputs: Any) -> tuple:
        x_vars = inputs[:n_x]
        ys = _as_tuple(func(*x_vars))
        if gys is None:
            roots, seeds = [ys[0]], None
        else:
            roots, seeds = _seeded_roots(ys, gys, gy_slots, inputs[n_x:])
        wrt = [x_vars[i] for i in differentiated] + list(params)
        if not roots or not wrt:
            return (None,) * len(wrt)
        return tuple(grad(roots, wrt, seeds, enable_double_backprop=True))

    inputs = xs + tuple(gys[k] for k in gy_slots)
    try:
        check_backward(first_order, inputs, grad_grads, params=params, eps=eps,
                       atol=atol, rtol=rtol, no_grads=list(no_grads) + [False] * len(gy_slots),
                       dtype=dtype, detect_nondifferentiable=detect_nondifferentiable)
    except AssertionError as error:
        raise AssertionError('check_double_backward failed (the gradient of the first-order '
                             'gradient; inputs are x..., then y_grad...):\n'
                             f'{error}') from None
