"""Optimizers and update rules (Chainer's ``chainer.optimizer``).

An :class:`Optimizer` is set up on a target :class:`~autograd_lab.Link`.  A
:class:`GradientMethod` gives every parameter its own :class:`UpdateRule`, whose
:class:`Hyperparameter` falls back to the optimizer's: ``opt.lr = ...`` changes
every rule that has not overridden ``lr``, and
``param.update_rule.hyperparam.lr = ...`` changes only that parameter.

:meth:`GradientMethod.update` with a loss function runs, in this order: the loss
function, ``target.cleargrads()``, ``loss.backward(loss_scale=...)``, zero-filling
of cleared gradients, the 'pre' hooks, ``t += 1``, ``param.update()`` for every
parameter (each rule divides the gradient by the loss scale in place, then calls
``update_core``), zero-filling again and the 'post' hooks.

>>> import numpy as np, autograd_lab as chainer
>>> import autograd_lab.links as L, autograd_lab.optimizers as O
>>> model = L.Linear(1, 1, initialW=2.0, initial_bias=0.0)
>>> opt = O.SGD(lr=0.1).setup(model)
>>> x = np.ones((1, 1), np.float32)
>>> opt.update(lambda: chainer.functions.sum(model(x)))   # d loss / dW = 1
>>> model.W.array, opt.t, model.W.update_rule.t
(array([[1.9]], dtype=float32), 1, 1)
"""

from __future__ import annotations

import collections
import copy
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from autograd_lab import backend, initializers
from autograd_lab import events as _events
from autograd_lab.link import Link
from autograd_lab.parameter import Parameter
from autograd_lab.variable import Variable


class _Hooks:
    """Named 'pre' and 'post' hooks, called in registration order."""

    def __init__(self, invalid_timing_fallback: bool = False) -> None:
        self.pre: collections.OrderedDict = collections.OrderedDict()
        self.post: collections.OrderedDict = collections.OrderedDict()
        self._fallback = invalid_timing_fallback

    def add(self, hook: Callable, name: str | None, timing: str) -> None:
        if not callable(hook):
            raise TypeError('hook function must be callable')
        if timing not in ('pre', 'post', 'auto'):
            raise ValueError("timing must be one of ('pre', 'post', 'auto')")
        if timing == 'auto':
            timing = getattr(hook, 'timing', 'pre')
            if timing not in ('pre', 'post') and self._fallback:
                warnings.warn("Hook timing attribute not in ('pre', 'post'), defaulting timing "
                              "to 'pre'.", stacklevel=3)
                timing = 'pre'
        if name is None:
            name = getattr(hook, 'name', getattr(hook, '__name__', None))
            if name is None:
                raise ValueError('the name of the hook function is not specified')
        if name in self.pre or name in self.post:
            raise KeyError(f'hook "{name}" already exists')
        (self.pre if timing == 'pre' else self.post)[name] = hook

    def remove(self, name: str) -> None:
        if name in self.pre:
            del self.pre[name]
        else:
            del self.post[name]  # KeyError for an unknown name

    def get(self, timing: str) -> collections.OrderedDict:
        if timing == 'pre':
            return self.pre
        if timing == 'post':
            return self.post
        raise ValueError("timing must be either 'pre' or 'post'")


class Hyperparameter:
    """A set of hyperparameters that falls back to a parent set for missing names.

    >>> parent = Hyperparameter(); parent.lr = 0.1; parent.momentum = 0.9
    >>> child = Hyperparameter(parent); child.lr = 0.5
    >>> child.lr, child.momentum
    (0.5, 0.9)
    >>> child
    Hyperparameter(lr=0.5, momentum=0.9)
    """

    def __init__(self, parent: Hyperparameter | None = None) -> None:
        self._parent = parent

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if '_parent' not in d:
            raise AttributeError('_parent is not set up yet')
        parent = d['_parent']
        if parent is None:
            raise AttributeError(f'hyperparameter {name!r} is not set')
        return getattr(parent, name)

    def __repr__(self) -> str:
        d = self.get_dict()
        return f"Hyperparameter({', '.join(f'{k}={d[k]}' for k in sorted(d))})"

    @property
    def parent(self) -> Hyperparameter | None:
        """The hyperparameter set consulted for names not set here."""
        return self._parent

    def get_dict(self) -> dict:
        """All visible entries (the parent's, overridden by this set's) as a dict."""
        d = {} if self._parent is None else self._parent.get_dict()
        d.update((k, v) for k, v in self.__dict__.items() if k != '_parent')
        return d


class HyperparameterProxy:
    """A property of an optimizer that reads and writes ``self.hyperparam.<name>``.

    >>> class Opt(GradientMethod):
    ...     lr = HyperparameterProxy('lr')
    >>> opt = Opt(); opt.lr = 0.5
    >>> opt.hyperparam.lr
    0.5
    """

    def __init__(self, attr_name: str) -> None:
        self._attr_name = attr_name
        self.__doc__ = f'Alias to ``self.hyperparam.{attr_name}``'

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.hyperparam, self._attr_name, value)


class UpdateRule:
    """How one parameter is updated from its gradient; subclasses implement ``update_core``.

    Args:
        parent_hyperparam: the hyperparameters to fall back to (normally the
            optimizer's).

    Attributes:
        enabled: when False, :meth:`update` does nothing (not even ``t += 1``).
        hyperparam: this rule's :class:`Hyperparameter`.
        t: the number of updates this rule has made.
        state: per-parameter arrays (e.g. momentum), created by :meth:`init_state`
            at the first update of an initialized parameter.

    >>> import numpy as np
    >>> class HalfStep(UpdateRule):
    ...     def update_core(self, param):
    ...         if param.grad is not None:
    ...             param.array[...] -= 0.5 * param.grad
    >>> p = Parameter(np.array([1.0], np.float32)); p.grad = np.array([2.0], np.float32)
    >>> p.update_rule = HalfStep(); p.update()
    >>> p.array, p.update_rule.t
    (array([0.], dtype=float32), 1)
    """

    is_elementwise = False
    #: the class name of the optimizer that made this rule ('' for a rule made by hand);
    #: ParameterUpdated events name it.
    optimizer_name = ''

    def __init__(self, parent_hyperparam: Hyperparameter | None = None) -> None:
        self._state: dict | None = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param: Parameter | None = None
        self._hooks = _Hooks()

    @property
    def state(self) -> dict | None:
        """The state dictionary (None until the first update of an initialized parameter)."""
        return self._state

    def add_hook(self, hook: Callable, name: str | None = None, timing: str = 'auto') -> None:
        """Add ``hook(rule, param)``, called before ('pre') or after ('post') ``update_core``."""
        self._hooks.add(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Remove the hook registered as ``name`` (KeyError if there is none)."""
        self._hooks.remove(name)

    def update(self, param: Variable) -> None:
        """Update ``param`` in place: ``t += 1``, state, loss-scale division, hooks, core."""
        if not self.enabled:
            return
        self.t += 1
        data = param.array
        target = param
        fp32 = self._use_fp32_update and _dtype_or_none(param) == numpy.float16
        if fp32:
            target = self._fp32_target(param)
        if data is not None:
            self._prepare_update(param, target)
        hooks = self._hooks
        if hooks.pre:
            for hook in hooks.pre.values():
                hook(self, target)
        self.update_core(target)
        if hooks.post:
            for hook in hooks.post.values():
                hook(self, target)
        if fp32:
            if data is not None:
                param.array = target.array.astype(param.dtype)
            target.grad = None
        if _events.recorder is not None:  # unobserved, one test per parameter update
            _events.recorder.parameter_updated(param, self)

    def _prepare_update(self, param: Variable, target: Variable) -> None:
        """Before the update of an initialized ``param`` (``target``: it, or its float32
        master copy): the states, made once, and the gradient divided by the loss scale."""
        if self._state is None or self._state:
            self._init_states(target)
        grad = _writable_grad(target)
        loss_scale = param._loss_scale
        if loss_scale is not None and grad is not None:
            grad /= loss_scale  # in place: after update, param.grad is unscaled

    def _fp32_target(self, param: Variable) -> Parameter:
        master = self._fp32_param
        if master is None:
            if param.array is None:  # a float32 master, uninitialized too
                master = Parameter(initializers.NaN(numpy.float32), name=param.name)
            else:
                master = Parameter(param.array.astype(numpy.float32), name=param.name)
            self._fp32_param = master
        if param.array is None:
            return master
        grad = param.grad
        master.grad = None if grad is None else grad.astype(numpy.float32)
        master._loss_scale = param._loss_scale
        return master

    def update_core(self, param: Variable) -> None:
        """Update ``param``; the default dispatches to ``update_core_cpu``/``update_core_gpu``."""
        if backend.get_array_module(param.array) is numpy:
            self.update_core_cpu(param)
        else:
            self.update_core_gpu(param)

    def update_core_cpu(self, param: Variable) -> None:
        raise NotImplementedError

    def update_core_gpu(self, param: Variable) -> None:
        raise NotImplementedError

    def update_core_chainerx(self, param: Variable) -> None:
        """Chainer's ChainerX update path: never taken here (no ChainerX arrays)."""
        raise RuntimeError('ChainerX is not available.')

    def init_state(self, param: Variable) -> None:
        """Fill ``self.state`` for ``param`` (called once, before the first update)."""

    def _init_states(self, param: Variable) -> None:
        state = self._state
        if state is None:
            state = self._state = {}
            self.init_state(param)
        if state:
            device = backend.get_device_from_array(param.array)
            for name, value in state.items():
                if backend.is_array(value) or isinstance(value, numpy.ndarray):
                    state[name] = device.send(value)

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through a float32 master copy."""
        self._use_fp32_update = flag

    def serialize(self, serializer: Any) -> None:
        """Save or load ``t`` and the state arrays (not the parameter itself)."""
        self.t = serializer('t', self.t)
        if self._state is None:
            if _is_deserializer(serializer):
                self._state = {}
                probe = copy.copy(self)
                arr = numpy.empty(1, dtype=numpy.float32)
                probe.init_state(Variable(arr, grad=arr))
                for key in list(self._state):
                    try:
                        value = serializer(key, None)
                    except KeyError:
                        if self.enabled:
                            raise
                        value = None
                    if value is None:
                        self._state = None
                        break
                    self._state[key] = value
        else:
            for key in self._state:
                self._state[key] = serializer(key, self._state[key])


def _dtype_or_none(param: Variable) -> Any:
    """The dtype of ``param``, or None where it is not known (uninitialized)."""
    try:
        return param.dtype
    except (AttributeError, RuntimeError):
        return None


def _writable_grad(param: Variable) -> Any:
    """``param.grad``, replaced by a copy first if it is a read-only view.

    Backward can leave a leaf with a read-only gradient (e.g. the broadcast ones
    of ``F.sum``); Chainer 7.8.1 then fails in the in-place updates of hooks and
    loss scaling.  Here the gradient is copied once instead.
    """
    grad = param.grad
    if grad is None:
        return None
    flags = grad.flags if type(grad) is numpy.ndarray else getattr(grad, 'flags', None)
    if not getattr(flags, 'writeable', True):
        grad = grad.copy()
        param.grad = grad
    return grad


def _check_writable(params: Any) -> None:
    """Refuse a step that would fail part-way on a read-only parameter array."""
    for param in params:
        flags = getattr(param.array, 'flags', None)
        if flags is not None and not flags.writeable:
            raise ValueError(f'parameter {param.name!r} has a read-only array (output array '
                             'is read-only); nothing was updated')


def _reallocate(params: Any) -> None:
    for param in params:
        data = param.array
        if data is not None and _writable_grad(param) is None:
            param.grad = backend.get_array_module(data).zeros_like(data)


def _is_deserializer(serializer: Any) -> bool:
    from autograd_lab.serializers import Deserializer  # noqa: PLC0415 - optional cycle
    return isinstance(serializer, Deserializer)


class Optimizer:
    """Base class of optimizers: keeps the target link, step count ``t``, epoch and hooks.

    Subclasses implement :meth:`update`.  Hooks added with :meth:`add_hook` are
    called with the optimizer, or, when ``hook.call_for_each_param`` is true, with
    ``(param.update_rule, param)`` for every parameter.

    >>> import autograd_lab as chainer
    >>> class CountingOptimizer(Optimizer):
    ...     def update(self, lossfun=None, *args, **kwds):
    ...         self.call_hooks('pre')
    ...         self.t += 1
    >>> opt = CountingOptimizer().setup(chainer.Link())
    >>> def report(o):
    ...     print('step', o.t)
    >>> opt.add_hook(report)
    >>> opt.update(); opt.update()
    step 0
    step 1
    """

    target: Link | None = None
    t = 0
    epoch = 0
    _loss_scale: float | None = None
    _loss_scale_max = 65504  # the largest float16
    _loss_scaling_is_dynamic = False
    _loss_scaling_isnan = False
    use_auto_new_epoch = False
    _hookable: _Hooks | None = None

    def setup(self, link: Link) -> Optimizer:
        """Set ``link`` as the target and reset ``t`` and ``epoch``; returns the optimizer."""
        if not isinstance(link, Link):
            raise TypeError('optimization target must be a link')
        self.target = link
        self.t = 0
        self.epoch = 0
        self._hookable = _Hooks(invalid_timing_fallback=True)
        return self

    def update(self, lossfun: Callable | None = None, *args: Any, **kwds: Any) -> None:
        raise NotImplementedError

    def new_epoch(self, auto: bool = False) -> None:
        """Increment :attr:`epoch`."""
        if auto and not self.use_auto_new_epoch:
            raise RuntimeError('invalid new_epoch call with auto=True.\nFix the updater to set '
                               'optimizer.use_auto_new_epoch = True.')
        if not auto and self.use_auto_new_epoch:
            raise RuntimeError('duplicated new_epoch with the updater.\nPass '
                               'auto_new_epoch=False to the updater or stop calling new_epoch '
                               'outside the updater.')
        self.epoch += 1

    def _check_set_up(self) -> None:
        if self._hookable is None:
            raise RuntimeError('Optimizer is not set up. Call `setup` method.')

    def add_hook(self, hook: Callable, name: str | None = None, timing: str = 'auto') -> None:
        """Register ``hook`` (``timing`` 'auto' uses ``hook.timing``, default 'pre')."""
        self._check_set_up()
        self._hookable.add(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Unregister the hook ``name``."""
        self._check_set_up()
        self._hookable.remove(name)

    def call_hooks(self, timing: str = 'pre') -> None:
        """Call the ``timing`` hooks in registration order."""
        self._check_set_up()
        for hook in list(self._hookable.get(timing).values()):
            self.call_hook(hook)

    def call_hook(self, hook: Callable) -> None:
        if getattr(hook, 'call_for_each_param', False):
            for param in self.target.params():
                hook(param.update_rule, param)
        else:
            hook(self)

    def serialize(self, serializer: Any) -> None:
        """Save or load ``t``, ``epoch`` and every update rule's state (not the parameters)."""
        self.t = serializer('t', self.t)
        self.epoch = serializer('epoch', self.epoch)
        for name, param in self.target.namedparams():
            rule = getattr(param, 'update_rule', None)
            if rule is not None:
                rule.serialize(serializer[name])

    # ---- loss scaling -----------------------------------------------------------------

    def loss_scaling(self, interval: int = 1000, scale: float | None = None) -> None:
        """Static loss scaling with ``scale``, or dynamic scaling (doubling every
        ``interval`` clean steps, halving on non-finite grads) when ``scale`` is None."""
        if scale is None:
            if interval < 1:
                raise ValueError(f'interval must be greater than or equal to 1. Actual: '
                                 f'{interval}')
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = math.pow(2.0, 1.0 / interval)
            self._loss_scaling_isnan_ever = False
        else:
            if scale <= 0:
                raise ValueError(f'loss_scale must be a positive number. Actual: {scale}')
            self._loss_scale = scale

    def set_loss_scale(self, loss_scale: float) -> None:
        """Use static loss scaling with ``loss_scale``."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> None:
        """With dynamic loss scaling, note whether any gradient is non-finite."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for name, param in self.target.namedparams():
            xp = backend.get_array_module(param.array)
            if not xp.all(xp.isfinite(param.grad)):
                self._loss_scaling_isnan = True
                self._loss_scaling_isnan_ever = True
                warnings.warn(f'Non finite number found in param.grad of {name} (iteration: '
                              f'{self.t}, loss_scale: {self._loss_scale})', stacklevel=3)

    def is_safe_to_update(self) -> bool:
        return not self._loss_scaling_isnan

    def update_loss_scale(self) -> None:
        if not self._loss_scaling_is_dynamic:
            return
        if self._loss_scaling_isnan:
            multiplier = 0.5
        elif self._loss_scaling_isnan_ever:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        self._loss_scale = max(1, min(self._loss_scale_max, self._loss_scale * multiplier))


class GradientMethod(Optimizer):
    """An optimizer that updates each parameter from its gradient through an :class:`UpdateRule`.

    Subclasses implement :meth:`create_update_rule`; their hyperparameters live
    in :attr:`hyperparam`, the parent of every rule's hyperparameters.

    >>> import numpy as np, autograd_lab as chainer
    >>> class SignRule(UpdateRule):
    ...     def update_core(self, param):
    ...         param.array[...] -= self.hyperparam.lr * np.sign(param.grad)
    >>> class SignSGD(GradientMethod):
    ...     def __init__(self, lr=0.1):
    ...         super().__init__()
    ...         self.hyperparam.lr = lr
    ...     def create_update_rule(self):
    ...         return SignRule(self.hyperparam)
    >>> link = chainer.Link(w=(2,))
    >>> link.w.array[...] = 1.0
    >>> opt = SignSGD().setup(link)
    >>> opt.update(lambda: chainer.functions.sum(link.w * np.array([3., -2.], np.float32)))
    >>> link.w.array
    array([0.9, 1.1], dtype=float32)
    """

    def __init__(self) -> None:
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False

    def setup(self, link: Link) -> GradientMethod:
        """Set the target and give every parameter a fresh update rule."""
        super().setup(link)
        for param in link.params():
            param.update_rule = self.create_update_rule()
            param.update_rule.optimizer_name = type(self).__name__
            if self._use_fp32_update:
                param.update_rule.use_fp32_update()
        return self

    def reallocate_cleared_grads(self) -> None:
        """Give every initialized parameter whose grad is None a zero gradient (and one
        whose grad is a read-only view a writable copy, so that hooks can edit it)."""
        _reallocate(self.target.params(False))

    def call_hook(self, hook: Callable) -> None:
        super().call_hook(hook)
        self.reallocate_cleared_grads()

    def update(self, lossfun: Callable | None = None, *args: Any, **kwds: Any) -> None:
        """One step.  With ``lossfun``: ``loss = lossfun(*args, **kwds)``, then
        ``target.cleargrads()``, ``loss.backward(loss_scale=...)``; then (always)
        zero-fill cleared grads, 'pre' hooks, ``t += 1``, ``param.update()`` for every
        parameter, zero-fill again, 'post' hooks.
        """
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(self, '_use_cleargrads', True):
                self.target.cleargrads()
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore', DeprecationWarning)
                    self.target.zerograds()
            loss.backward(loss_scale=self._loss_scale)
            del loss
        params = list(self.target.params())
        _check_writable(params)  # before any parameter changes: no half-applied step
        # The parameter list is walked once; a subclass that overrides
        # reallocate_cleared_grads (e.g. with a no-op) still has it called.
        own_reallocate = (type(self).reallocate_cleared_grads
                          is GradientMethod.reallocate_cleared_grads)
        if own_reallocate:
            _reallocate(params)
        else:
            self.reallocate_cleared_grads()
        self.check_nan_in_grads()
        self.call_hooks('pre')
        self.t += 1
        if self.is_safe_to_update():
            for param in params:
                param.update()
        if own_reallocate:
            _reallocate(params)
        else:
            self.reallocate_cleared_grads()
        self.call_hooks('post')
        self.update_loss_scale()

    def use_cleargrads(self, use: bool = True) -> None:
        """Deprecated: choose ``cleargrads`` (True) or ``zerograds`` in :meth:`update`."""
        warnings.warn('GradientMethod.use_cleargrads is deprecated.', DeprecationWarning,
                      stacklevel=2)
        self._use_cleargrads = use

    def create_update_rule(self) -> UpdateRule:
        """A new update rule for one parameter (subclasses implement it)."""
        raise NotImplementedError

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through float32 master copies."""
        self._use_fp32_update = flag
        if self.target is not None:
            for param in self.target.params():
                param.update_rule.use_fp32_update(flag)


__all__ = ['GradientMethod', 'Hyperparameter', 'HyperparameterProxy', 'Optimizer',
           'UpdateRule']


# ---- Chainer's deprecated aliases (chainer.optimizer.WeightDecay, ...) ---------------------

def _deprecated_hook(name: str) -> type:
    """A subclass of ``optimizer_hooks.<name>`` whose construction warns, as Chainer's alias."""
    from autograd_lab import optimizer_hooks  # noqa: PLC0415 - only for these aliases

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        warnings.warn(f'chainer.optimizer.{name} is deprecated from v4. '
                      f'Use chainer.optimizer_hooks.{name} instead.', DeprecationWarning,
                      stacklevel=2)
        base.__init__(self, *args, **kwargs)

    base = getattr(optimizer_hooks, name)
    return type(name, (base,), {'__init__': __init__, '__module__': __name__,
                                '__doc__': f'Deprecated alias of optimizer_hooks.{name}.'})


WeightDecay = _deprecated_hook('WeightDecay')
Lasso = _deprecated_hook('Lasso')
GradientClipping = _deprecated_hook('GradientClipping')
GradientNoise = _deprecated_hook('GradientNoise')
GradientHardClipping = _deprecated_hook('GradientHardClipping')
