"""Parameters: Variables that an optimizer updates, created from an initializer.

>>> import numpy as np, autograd_lab as chainer
>>> p = chainer.Parameter(3.0, (2,))
>>> p.array, p.grad
(array([3., 3.], dtype=float32), array([nan, nan], dtype=float32))
>>> p.cleargrad(); p.grad is None
True
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy

from autograd_lab import backend, initializers
from autograd_lab import events as _events
from autograd_lab.variable import Variable, VariableNode, _new_variable


class Parameter(Variable):
    """A Variable owned by a Link and updated by an optimizer's update rule.

    Args:
        initializer: None (NaN fill), a scalar (constant fill), an ndarray (used as
            the data when ``shape`` is None, else broadcast into ``shape``), an
            :class:`~autograd_lab.initializers.Initializer` or a callable that fills
            an array in place.
        shape: when given, the data is allocated now; otherwise on :meth:`initialize`.
        name: the parameter's name.

    The gradient of a freshly allocated Parameter is NaN, not zero: call
    :meth:`cleargrad` (or ``Link.cleargrads()``) before the first backward.
    """

    __slots__ = ('initializer', '_grad_initializer', '_grad_valid', '_initial_device',
                 'update_rule', '__dict__')

    def __init__(self, initializer: Any = None, shape: Any = None,
                 name: str | None = None) -> None:
        self.update_rule = None
        self._initial_device = None
        # Chainer's "grad valid" flag: reading grad of an uninitialized Parameter raises
        # until grad is set, cleared, zeroed or the Parameter is initialized.
        self._grad_valid = True
        if backend.is_array(initializer) and shape is None:
            super().__init__(initializer, name=name)
            self.initializer = initializer
            self._grad_initializer = None
            self._initial_device = backend.get_device_from_array(initializer)
            return
        if backend.is_array(initializer):
            initializer = initializers.Constant(initializer)
        self.initializer = initializers._as_initializer(initializer)
        dtype = getattr(self.initializer, 'dtype', None)
        self._grad_initializer = initializers.NaN(dtype)
        super().__init__(None, name=name)
        if shape is not None:
            self.initialize(shape)
            # Quirk Q12: only Parameters initialized later keep the NaN grad initializer;
            # re-initializing one created with a shape gives grad None.
            self._grad_initializer = None
        else:
            self._grad_valid = False

    @property
    def is_initialized(self) -> bool:
        return self._data is not None

    @property
    def dtype(self) -> numpy.dtype:
        if self._data is not None:
            return self._data.dtype
        if not hasattr(self.initializer, 'dtype'):
            raise RuntimeError(f'the dtype of the uninitialized parameter {self.name!r} is '
                               'unknown: its initializer has no dtype')
        # Quirk Q9: an initializer without a dtype reports numpy.dtype(None), i.e. float64.
        return numpy.dtype(self.initializer.dtype)

    @property
    def grad(self) -> Any:
        if not self._grad_valid:
            raise RuntimeError('Cannot retrieve Variable.grad. Either it must be set manually '
                               'or Variable.cleargrad() must be called beforehand.')
        return Variable.grad.fget(self)

    @grad.setter
    def grad(self, g: Any) -> None:
        Variable.grad.fset(self, g)
        self._grad_valid = True

    def initialize(self, shape: Any) -> None:
        """Allocate the data with the initializer (re-creating it if already allocated)."""
        device = self._initial_device if self._initial_device is not None else backend.CPU
        data = initializers.generate_array(self.initializer, shape, device.xp, device=device)
        ginit = self._grad_initializer
        grad = None if ginit is None else initializers.generate_array(
            ginit, data.shape, device.xp, dtype=data.dtype, device=device)
        self._data = data
        self._node._set_data_type(data)
        _share_data(self, data)
        self._grad = grad
        self._grad_var = None
        self._grad_valid = True
        if _events.recorder is not None:
            _events.recorder.parameter_initialized(self)

    def cleargrad(self) -> None:
        super().cleargrad()
        self._grad_valid = True
        if self._data is None:
            self._grad_initializer = None

    def zerograd(self) -> None:
        super().zerograd()
        self._grad_valid = True
        if self._data is None:
            dtype = getattr(self.initializer, 'dtype', None)
            self._grad_initializer = initializers.Zero(dtype)

    def update(self) -> None:
        """Apply this parameter's update rule, if an optimizer has set one up."""
        if self.update_rule is not None:
            self.update_rule.update(self)

    def to_device(self, device: Any) -> None:
        dev = backend.get_device(device)
        if self._data is not None or dev != (self._initial_device or backend.CPU):
            _leave_cell(self)
        self._initial_device = dev
        if self._data is not None:
            self._move(dev)

    def to_cpu(self) -> None:
        self.to_device(backend.CPU)

    def to_gpu(self, device: Any = None) -> None:
        self.to_device(backend.get_device(0 if device is None else device))

    def to_intel64(self) -> None:
        raise RuntimeError(backend._IDEEP_ERROR)

    @Variable.array.setter
    def array(self, d: Any) -> None:
        Variable.array.fset(self, d)
        _share_data(self, d)

    data = array

    def __copy__(self) -> Parameter:
        """A new Parameter (new node) with this one's attributes, sharing its data *cell*:
        until either is moved to another device, initializing or assigning the array of
        one also sets the other's (Chainer's behaviour, on which ``Link.copy`` relies)."""
        new = _new_variable(self._data, self._requires_grad, cls=type(self))  # a new leaf node
        for name in _COPIED:
            setattr(new, name, getattr(self, name))
        new.__dict__.update(self.__dict__)
        new._node.name = self.name
        cell = self.__dict__.get('_data_cell')
        if cell is None:
            cell = self.__dict__['_data_cell'] = [weakref.ref(self)]
        cell.append(weakref.ref(new))
        new.__dict__['_data_cell'] = cell
        if _events.recorder is not None:
            _events.recorder.variable_created(new)
        return new

    def __reduce__(self) -> tuple:
        # As Chainer: recreated from its initializer, then given the array, so a copy made
        # by deepcopy or pickle re-initializes with a NaN gradient.
        device = self._initial_device if self._data is None and self._initial_device \
            is not None else self.device
        return _recreate_parameter, (self._data, self.name, self._grad_var if self._grad_var
                                     is not None else self._grad, self._grad_valid,
                                     self.initializer, self.update_rule, device)


# What a copy takes over (besides the instance dict); ``_node`` is made anew.
_COPIED = ('_data', '_grad', '_grad_var', '_requires_grad', '_loss_scale', 'initializer',
           '_grad_initializer', '_grad_valid', '_initial_device', 'update_rule')


def _share_data(param: Parameter, data: Any) -> None:
    """Give ``data`` to the Parameters that share ``param``'s data cell (see __copy__)."""
    cell = param.__dict__.get('_data_cell')
    if not cell:
        return
    for ref in cell:
        other = ref()
        if other is not None and other is not param:
            other._data = data
            other._node._set_data_type(data)


def _leave_cell(param: Parameter) -> None:
    """``param`` gets a data cell of its own (it moved to another device)."""
    cell = param.__dict__.pop('_data_cell', None)
    if cell:
        cell[:] = [ref for ref in cell if ref() is not None and ref() is not param]


def _recreate_parameter(data: Any, name: Any, grad: Any, grad_valid: bool, initializer: Any,
                        rule: Any, device: Any) -> Parameter:
    p = Parameter(initializer, name=name)
    p.array = data
    if isinstance(grad, Variable):
        p._grad_var, p._grad = grad, None
    else:
        p._grad, p._grad_var = grad, None
    p._grad_valid = grad_valid
    p.update_rule = rule
    p.to_device(device)
    return p


__all__ = ['Parameter', 'VariableNode']
