"""Variables and variable nodes: the data side of the computational graph.

A :class:`Variable` holds an array and, after backward, its gradient.  The graph
itself is made of :class:`VariableNode` objects (one per Variable) and
:class:`~autograd_lab.FunctionNode` objects.  Functions keep the nodes of their
inputs, never the Variables, so a graph stays usable after the user has dropped
the intermediate Variables, and their arrays can be freed unless a function
asked to retain them.

>>> import numpy as np
>>> import autograd_lab as chainer
>>> x = chainer.Variable(np.array([5], dtype=np.float32))
>>> y = x**2 - 2*x + 1
>>> y.array
array([16.], dtype=float32)
>>> import warnings; warnings.simplefilter('ignore', DeprecationWarning)
>>> y.backward()
>>> x.grad
array([8.], dtype=float32)
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import numpy

from autograd_lab import backend
from autograd_lab import events as _events
from autograd_lab.backend import Device

_new = object.__new__
_ref = weakref.ref


def _check_grad(grad: Any, data: Any) -> None:
    """Validate ``grad`` against ``data`` as Chainer's grad setter does."""
    if grad is None or data is None:
        return
    if not backend.is_array(grad):
        raise TypeError(f'Type of grad is invalid:\ngrad: {type(grad)} (expected an ndarray '
                        f'or None)')
    if not backend.is_array(data):
        return
    if grad.dtype != data.dtype:
        raise TypeError(f'Dtype of data and grad mismatch\ngrad: {grad.dtype} != data: '
                        f'{data.dtype}')
    if grad.shape != data.shape:
        raise ValueError(f'Shape of data and grad mismatch\ngrad: {grad.shape} != data: '
                         f'{data.shape}')
    if backend.get_array_module(grad) is not backend.get_array_module(data):
        raise TypeError('Device of data and grad mismatch\n'
                        f'grad: {backend.get_device_from_array(grad)} != data: '
                        f'{backend.get_device_from_array(data)}')


def _shape_label(shape: tuple, dtype: Any) -> str:
    if not shape:
        return str(dtype)
    return f"({', '.join(map(str, shape))}), {dtype}"


class VariableWatch(weakref.ref):
    """A node's weak reference to its Variable that also calls ``callback(watch)`` once
    the Variable is garbage-collected (made by :meth:`VariableNode.watch_variable`);
    ``token`` is what the watcher gave, for the callback to read."""

    __slots__ = ('token',)

    def __copy__(self) -> VariableWatch:  # copied as the plain weak reference it replaces
        return self

    def __deepcopy__(self, memo: dict) -> VariableWatch:
        return self


class VariableNode:
    """The node of a :class:`Variable` in the graph.

    It knows the variable's creator, rank, name, shape and dtype, and holds the
    array only when a function retained it (``data``).  It refers to its
    Variable weakly: dropping a Variable does not cut the graph.
    """

    __slots__ = ('_variable', '_creator_node', 'data', 'name', 'rank', '_requires_grad',
                 'shape', 'dtype', '_old_style_creator', '_uid', '__weakref__')

    def __init__(self, variable: Variable, name: str | None, **kwargs: Any) -> None:
        if kwargs:
            if 'grad' in kwargs:
                raise ValueError('unexpected keyword argument "grad": pass the gradient to '
                                 'Variable instead')
            raise TypeError(f"got unexpected keyword argument(s) {', '.join(map(repr, kwargs))}")
        self._variable = weakref.ref(variable)
        self._creator_node = None
        self.data = None
        self.name = name
        self.rank = 0
        self._requires_grad = variable._requires_grad
        self._old_style_creator = None
        self._uid = None
        self._set_data_type(variable._data)

    def _set_data_type(self, data: Any) -> None:
        if data is None or not hasattr(data, 'shape'):
            self.shape = self.dtype = None
        else:
            self.shape, self.dtype = data.shape, data.dtype

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @property
    def _rank(self) -> int:
        """Chainer's private name for :attr:`rank`, which Chainer code sets directly
        (``x.node._rank = 3``); here ``rank`` is the slot and this reads and writes it.

        >>> import numpy as np, autograd_lab as chainer
        >>> x = chainer.Variable(np.ones(2))
        >>> x.node._rank = 3
        >>> (x.rank, (x * 2).rank)
        (3, 4)
        """
        return self.rank

    @_rank.setter
    def _rank(self, value: int) -> None:
        self.rank = value

    @property
    def creator_node(self) -> Any:
        """The FunctionNode that made this node, or None for a leaf."""
        return self._creator_node

    @creator_node.setter
    def creator_node(self, func: Any) -> None:
        self._creator_node = func
        self._old_style_creator = None
        if func is not None:
            self.rank = func.rank + 1

    @property
    def creator(self) -> Any:
        """The creator: the old-style Function if there is one, else the FunctionNode."""
        if self._old_style_creator is not None:
            return self._old_style_creator
        return self._creator_node

    @creator.setter
    def creator(self, func: Any) -> None:
        self.set_creator(func)

    def set_creator(self, creator: Any) -> None:
        """Set the creator (a FunctionNode, or an old-style Function through its ``.node``)."""
        node = getattr(creator, 'node', creator)
        self.creator_node = node
        if node is not creator:
            self._old_style_creator = creator

    def set_creator_node(self, creator_node: Any) -> None:
        """Set the creator FunctionNode without validation."""
        self.creator_node = creator_node

    @property
    def grad(self) -> Any:
        var = self.get_variable_or_none()
        return None if var is None else var.grad

    @property
    def grad_var(self) -> Any:
        var = self.get_variable_or_none()
        return None if var is None else var.grad_var

    @property
    def label(self) -> str:
        """``'(2, 3), float32'``-style summary of shape and dtype."""
        if self.shape is None:
            raise TypeError('label of an uninitialized variable is undefined (it has no array)')
        return _shape_label(self.shape, self.dtype)

    def get_variable(self) -> Variable:
        """The live Variable, or a new one built from the retained data when it is gone.

        The new Variable shares this node, so it stays connected to the graph.
        """
        var = self._variable()
        if var is not None:
            return var
        return _new_variable(self.data, self._requires_grad, node=self)

    def get_variable_or_none(self) -> Variable | None:
        """The live Variable, or None when it has been garbage-collected."""
        return self._variable()

    def watch_variable(self, callback: Any, token: Any) -> None:
        """Call ``callback(watch)`` once this node's Variable is garbage-collected, where
        ``watch.token`` is ``token``: the engine's hook for observers (the events package
        announces collections through it; one watch per node, the latest wins).

        The node's weak reference to its Variable becomes a :class:`VariableWatch`, which
        costs no more than the plain one; the node lives as long as its Variable (which
        holds it), so the callback runs.  Nothing is watched unless an observer asks.

        >>> import numpy as np
        >>> x = Variable(np.zeros(1))
        >>> x.node.watch_variable(lambda watch: print('gone:', watch.token), 'x')
        >>> del x
        gone: x
        """
        var = self._variable()
        if var is not None:
            watch = self._variable = VariableWatch(var, callback)
            watch.token = token

    def retain_data(self) -> None:
        """Keep the variable's array on this node (used by functions that need it in backward)."""
        var = self._variable()
        if var is None:
            raise RuntimeError('cannot retain the data of a variable that has been '
                               'garbage-collected')
        self.data = var._data

    def unchain(self) -> None:
        """Forget the creator: this node becomes a leaf."""
        self.creator_node = None

    def __repr__(self) -> str:
        name = f' {self.name}' if self.name is not None else ''
        return f'<VariableNode{name} rank={self.rank} shape={self.shape} dtype={self.dtype}>'


class Variable:
    """An array with a gradient and a place in the computational graph.

    Args:
        data: the array (NumPy or CuPy), or None for an uninitialized Variable.
            It is not copied.
        name: optional name, shown in reprs and graph views.
        grad: optional initial gradient array (stored without checks).
        requires_grad: whether backward computes a gradient for this variable.

    >>> import numpy as np
    >>> a = np.zeros((2, 3), np.float32)
    >>> x = Variable(a, name='x')
    >>> x.array is a, x.label, x.rank
    (True, '(2, 3), float32', 0)
    >>> Variable([1, 2])
    Traceback (most recent call last):
    ...
    TypeError: Variable data must be an ndarray or None: ... Actual: <class 'list'>
    """

    __slots__ = ('_data', '_node', '_grad', '_grad_var', '_requires_grad', '_loss_scale',
                 '__weakref__')
    __array_priority__ = 200
    _has_chainerx_array = False  # (Chainer's private flag: never, autograd_lab has no ChainerX)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, data: Any = None, **kwargs: Any) -> None:
        if 'volatile' in kwargs:
            raise ValueError('volatile argument is not supported anymore. '
                             'Use chainer.using_config')
        name = kwargs.pop('name', None)
        grad = kwargs.pop('grad', None)
        requires_grad = kwargs.pop('requires_grad', True)
        if kwargs:
            raise TypeError('got unexpected keyword argument(s) '
                            f"{', '.join(map(repr, kwargs))}")
        if data is not None and not backend.is_array(data):
            raise TypeError('Variable data must be an ndarray or None: '
                            "<class 'numpy.ndarray'> or a GPU array are expected. "
                            f'Actual: {type(data)}')
        if requires_grad is not True and requires_grad is not False:
            raise TypeError(f'requires_grad must be a bool, not {type(requires_grad).__name__}')
        self._data = data
        self._grad = grad
        self._grad_var = None
        self._requires_grad = requires_grad
        self._loss_scale = None
        self._node = VariableNode(self, name)
        if _events.recorder is not None:
            _events.recorder.variable_created(self)

    @classmethod
    def _init_unchecked(cls, data: Any = None, name: str | None = None, grad: Any = None,
                        requires_grad: bool = True, **chainerx_options: Any) -> Variable:
        """Chainer's private constructor (its ChainerX options have no meaning here)."""
        return cls(data, name=name, grad=grad, requires_grad=requires_grad)

    # ---- the array and its gradient -------------------------------------------------

    @property
    def array(self) -> Any:
        """The underlying array (the same object as :attr:`data`)."""
        return self._data

    @array.setter
    def array(self, d: Any) -> None:
        self._data = d
        node = self._node
        node._set_data_type(d)
        if node.data is not None:  # a retained array follows the new one (as Chainer)
            node.data = d
        if _events.recorder is not None:
            _events.recorder.data_changed(self, 'replaced')

    data = array

    @property
    def grad(self) -> Any:
        """The gradient array, or None.  Setting it checks type, dtype and shape."""
        gv = self._grad_var
        return gv._data if gv is not None else self._grad

    @grad.setter
    def grad(self, g: Any) -> None:
        _check_grad(g, self._data)
        self._grad = g
        self._grad_var = None
        if _events.recorder is not None:
            _events.recorder.grad_changed(_events.GradSet, self)

    @property
    def grad_var(self) -> Variable | None:
        """The gradient as a Variable (cached), with a creator after double backprop."""
        gv = self._grad_var
        if gv is None and self._grad is not None:
            gv = self._grad_var = Variable(self._grad)
            self._grad = None
        return gv

    @grad_var.setter
    def grad_var(self, g: Variable | None) -> None:
        if g is not None:
            if not isinstance(g, Variable):
                raise AttributeError(f'grad_var must be a Variable or None, not '
                                     f'{type(g).__name__} (set .grad to assign an array)')
            _check_grad(g._data, self._data)
        self._grad = None
        self._grad_var = g
        if _events.recorder is not None:
            _events.recorder.grad_changed(_events.GradSet, self)

    def _set_grad_unchecked(self, g: Any) -> None:
        """Store a gradient (an array or a Variable) the engine has already checked."""
        if isinstance(g, Variable):
            self._grad_var, self._grad = g, None
        else:
            self._grad_var, self._grad = None, g

    def backward(self, retain_grad: bool = False, enable_double_backprop: bool = False,
                 loss_scale: float | None = None) -> None:
        """Compute gradients of this variable w.r.t. every variable of its graph.

        A one-element variable is seeded with 1 (times ``loss_scale``); any other
        needs ``grad`` set first.  Leaves accumulate (``+=``) into their ``grad``;
        intermediate gradients are released unless ``retain_grad``.  With
        ``enable_double_backprop`` the gradients are Variables with a graph of
        their own, so they can be differentiated again.

        >>> import numpy as np
        >>> x = Variable(np.array(2.0))
        >>> y = x ** 3
        >>> y.backward(enable_double_backprop=True)
        >>> x.grad, x.grad_var.creator is not None
        (array(12.), True)
        """
        from autograd_lab.backprop import BackwardStepper  # noqa: PLC0415 - cycle
        BackwardStepper.for_backward([self], retain_grad, enable_double_backprop,
                                     loss_scale).run()

    # ---- graph --------------------------------------------------------------------

    @property
    def node(self) -> VariableNode:
        return self._node

    @property
    def creator(self) -> Any:
        """The function that made this variable (None for a leaf)."""
        return self._node.creator

    @creator.setter
    def creator(self, func: Any) -> None:
        self._node.set_creator(func)

    @property
    def creator_node(self) -> Any:
        return self._node._creator_node

    @creator_node.setter
    def creator_node(self, func: Any) -> None:
        self._node.creator_node = func

    def set_creator(self, gen_func: Any) -> None:
        """Make ``gen_func`` (a FunctionNode or old-style Function) this variable's creator."""
        self._node.set_creator(gen_func)

    def set_creator_node(self, fnode: Any) -> None:
        """Make ``fnode`` this variable's creator FunctionNode."""
        self._node.set_creator_node(fnode)

    @property
    def rank(self) -> int:
        return self._node.rank

    @property
    def name(self) -> str | None:
        return self._node.name

    @name.setter
    def name(self, n: str | None) -> None:
        self._node.name = n
        if _events.recorder is not None:
            _events.recorder.variable_renamed(self)

    @property
    def requires_grad(self) -> bool:
        """Whether backward computes a gradient for this variable (read-only)."""
        return self._requires_grad

    @property
    def label(self) -> str:
        return self._node.label

    def retain_data(self) -> None:
        """Keep the array on the node even after this Variable is dropped."""
        self._node.data = self._data

    def unchain(self) -> None:
        """Cut the link to the creator: this variable becomes a leaf of later backward passes."""
        cut = (self._node,) if self._node._creator_node is not None else ()
        self._node.unchain()
        if _events.recorder is not None:
            _events.recorder.unchained(self, False, cut)

    def unchain_backward(self) -> None:
        """Unchain every function reachable backward from this variable.

        Each function reached forgets its inputs and unlinks its outputs, so other
        branches that share those outputs are cut as well.  Ranks are kept.
        """
        from autograd_lab.function_node import unchain_backward  # noqa: PLC0415 - cycle
        funcs, nodes = unchain_backward(self._node)
        if _events.recorder is not None:
            _events.recorder.unchained(self, True, nodes, funcs)

    # ---- shape information -------------------------------------------------------

    @property
    def shape(self) -> tuple:
        return self._require_data('shape').shape

    @property
    def ndim(self) -> int:
        return self._require_data('ndim').ndim

    @property
    def size(self) -> int:
        return self._require_data('size').size

    @property
    def dtype(self) -> numpy.dtype:
        return self._require_data('dtype').dtype

    def _require_data(self, what: str) -> Any:
        if self._data is None:
            raise AttributeError(f'{what} of an uninitialized variable is undefined: '
                                 'it has no array yet')
        return self._data

    def __len__(self) -> int:
        if self._data is None:
            raise TypeError('len() of an uninitialized variable')
        return len(self._data)

    @property
    def xp(self) -> Any:
        return backend.get_array_module(self._data)

    @property
    def device(self) -> Device:
        return backend.get_device_from_array(self._data)

    def item(self) -> Any:
        """The single element as a Python scalar (``ValueError`` unless size is 1)."""
        return self._data.item()

    # ---- gradient bookkeeping ----------------------------------------------------

    def cleargrad(self) -> None:
        """Drop the gradient (``grad`` becomes None)."""
        self._grad = None
        self._grad_var = None
        if _events.recorder is not None:
            _events.recorder.grad_changed(_events.GradCleared, self)

    def zerograd(self) -> None:
        """Fill the gradient with zeros in place (deprecated: use :meth:`cleargrad`)."""
        warnings.warn('Variable.zerograd is deprecated. Use Variable.cleargrad instead.',
                      DeprecationWarning, stacklevel=2)
        if self._data is None:
            return
        gv = self._grad_var
        if gv is not None:
            gv.unchain()
            gv._data.fill(0)
        elif self._grad is None:
            self._grad = backend.get_array_module(self._data).zeros_like(self._data)
        else:
            self._grad.fill(0)
        if _events.recorder is not None:
            _events.recorder.grad_changed(_events.GradZeroed, self)

    def addgrad(self, var: Variable) -> None:
        """Add ``var``'s gradient to this variable's (a new graph node, not in place)."""
        src = var._grad_var if var._grad_var is not None else var._grad
        if src is None:
            return
        if self._data is None:
            self.initialize(var.shape)  # type: ignore[attr-defined]  (Parameters only)
        src_var = var.grad_var
        dst_var = self.grad_var
        if src_var.xp is not self.xp:
            from autograd_lab.functions import copy  # noqa: PLC0415 - cycle
            src_var = copy(src_var, self.device)
        if dst_var is None:
            self._set_grad_unchecked(src_var)
        else:
            self._set_grad_unchecked(src_var + dst_var)
        if _events.recorder is not None:
            _events.recorder.grad_changed(_events.GradAdded, self)

    def copydata(self, var: Variable) -> None:
        """Copy ``var``'s array into this one in place (NumPy casting and broadcasting)."""
        src, dst = var._data, self._data
        if src is None:
            if dst is None:
                return
            var.initialize(self.shape)  # type: ignore[attr-defined]
            src = var._data
        if dst is None:
            self.initialize(var.shape)  # type: ignore[attr-defined]
            dst = self._data
        backend.copyto(dst, src)
        if _events.recorder is not None:
            _events.recorder.data_changed(self, 'copied')

    # ---- devices ----------------------------------------------------------------

    def to_device(self, device: Any) -> None:
        """Move the array and the gradient to ``device`` (``'@numpy'``, ``'@cupy:0'``, ...)."""
        dev = backend.get_device(device)
        self._move(dev)

    def to_cpu(self) -> None:
        """Move the array and gradient to the CPU (no-op when already there)."""
        self._move(backend.CPU)

    def to_gpu(self, device: Any = None) -> None:
        """Move the array and gradient to GPU ``device`` (the current one when None)."""
        self._move(backend.get_device(0 if device is None else device))

    def _move(self, dev: Device) -> None:
        source = self._data
        self._data = dev.send(source)
        gv = self._grad_var
        if gv is not None:
            gv._data = dev.send(gv._data)
        else:
            self._grad = dev.send(self._grad)
        if self._node.data is not None:  # a retained copy must follow, or backward mixes devices
            self._node.data = self._data
        if _events.recorder is not None:
            _events.recorder.device_moved(self, backend.get_device_from_array(source), dev)

    def to_intel64(self) -> None:
        raise RuntimeError(backend._IDEEP_ERROR)

    def to_chx(self) -> None:
        raise RuntimeError('ChainerX is not available.')

    def from_chx(self) -> None:
        """No-op: autograd_lab arrays are never ChainerX arrays."""

    @property
    def chx_array(self) -> Any:
        raise ValueError('chx_array is not available for Variable with non-ChainerX array.')

    # ---- display ----------------------------------------------------------------

    def summary(self) -> str:
        if self.name:
            return f'<variable {self.name}>'
        return f'<variable at 0x{id(self):x}>'

    def debug_print(self) -> str:
        """A multi-line description: device, backend, shape, dtype, statistics, grad."""
        data = self._data
        lines = [self.summary()]
        if data is None:
            lines += ['- device: None', '- backend: None', '- shape: None', '- dtype: None',
                      '- statistics: None']
        else:
            dev = self.device
            lines += [f"- device: {'CPU' if dev == backend.CPU else dev}",
                      f'- backend: {type(data)}', f'- shape: {data.shape}',
                      f'- dtype: {data.dtype}',
                      f'- statistics: mean={float(data.mean()):.8f}, std={float(data.std()):.8f}']
        grad = self.grad
        if grad is None:
            lines.append('- grad: None')
        elif not grad.any():
            lines.append('- grad: 0')
        else:
            lines.append(f'- grad: mean={float(grad.mean()):.8f}, std={float(grad.std()):.8f}')
        return '\n'.join(lines)

    def _repr(self, separator: str) -> str:
        prefix = f'variable {self.name}' if self.name else 'variable'
        data = self._data
        if data is None:
            return f'{prefix}(None)'
        data = backend.CPU.send(data)
        if data.size == 0 and data.shape != (0,) and separator == ', ':  # repr only (as Chainer)
            return f'{prefix}([], shape={data.shape})'
        text = numpy.array2string(data, separator=separator, prefix=prefix + '(')
        return f'{prefix}({text})'

    def __repr__(self) -> str:
        return self._repr(', ')

    def __str__(self) -> str:
        return self._repr(' ')

    # ---- Python protocol -----------------------------------------------------------

    def __copy__(self) -> Variable:
        """A new Variable (a new node, no creator) sharing this one's array and gradient."""
        new = Variable(self._data, name=self.name, grad=self._grad,
                       requires_grad=self._requires_grad)
        new._grad_var = self._grad_var
        return new

    def __reduce__(self) -> tuple:
        # Pickled (and deep-copied) as Chainer does: the array, name, gradient and device,
        # without the graph.
        return _recreate_variable, (self._data, self.name, self.grad, self._requires_grad,
                                    self.device)


    def __bool__(self) -> bool:
        raise TypeError('Variables cannot be used as booleans (bool(x)); compare x.array instead')

    def __pos__(self) -> Variable:
        return self

    def __iter__(self) -> Any:
        # Without this, Python would iterate through __getitem__ and never stop on 0-d data.
        if self._data is None or self._data.ndim == 0:
            raise TypeError('iteration over a 0-d or uninitialized variable')
        return (self[i] for i in range(len(self._data)))

    # Arithmetic operators, indexing, reshape/transpose/T/mean are attached by
    # autograd_lab.functions.operators when the package is imported.


def _compare_error(op: str):
    def compare(self: Variable, other: Any) -> Any:
        raise TypeError(f'Variables do not support {op} operator. '
                        'You could use `array` attribute instead.')
    compare.__name__ = f'__{op}__'
    return compare


for _name, _op in (('__eq__', '=='), ('__ne__', '!='), ('__lt__', '<'), ('__le__', '<='),
                   ('__gt__', '>'), ('__ge__', '>=')):
    setattr(Variable, _name, _compare_error(_op))


def as_variable(obj: Any) -> Variable:
    """``obj`` itself if it is a Variable, else a Variable wrapping it with ``requires_grad=False``.

    >>> import numpy as np
    >>> as_variable(np.ones(2)).requires_grad
    False
    """
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


def as_array(obj: Any) -> Any:
    """The array of a Variable, or ``obj`` itself if it is already an array."""
    return obj._data if isinstance(obj, Variable) else obj


def _recreate_variable(data: Any, name: str | None, grad: Any, requires_grad: bool,
                       device: Device) -> Variable:
    var = Variable(data, name=name, grad=grad, requires_grad=requires_grad)
    var.to_device(device)
    return var


def _new_variable(data: Any, requires_grad: bool, creator: Any = None,
                  node: VariableNode | None = None, cls: type = Variable) -> Variable:
    """The engine's one way of making a Variable without ``__init__``: no checks, nothing
    announced (the caller has checked ``data`` and announces what it made).

    A new VariableNode comes with it, made by ``creator`` (a FunctionNode whose rank is
    set) or a leaf, unless ``node`` is given: then the Variable is a new one for that
    existing node (whose own Variable is gone).  ``cls``: a subclass to make instead
    (a copied Parameter keeps its class; its ``data`` may be None, uninitialized).
    """
    var = _new(cls)
    var._data = data
    var._grad = var._grad_var = var._loss_scale = None
    var._requires_grad = requires_grad
    if node is None:
        node = _new(VariableNode)
        node._variable = _ref(var)
        node.data = node.name = node._old_style_creator = node._uid = None
        node._creator_node = creator
        node.rank = 0 if creator is None else creator.rank + 1
        node._requires_grad = requires_grad
        if data is None:  # VariableNode._set_data_type's rule, inline: this runs per output
            node.shape = node.dtype = None
        else:
            node.shape, node.dtype = data.shape, data.dtype
    var._node = node
    return var


from autograd_lab.parameter import Parameter  # noqa: E402,F401  (chainer.variable.Parameter)
