"""Links: objects that own Parameters, and chains of links (Chainer's ``chainer.Link``).

A :class:`Link` registers the :class:`~autograd_lab.Parameter` objects assigned
inside its :meth:`~Link.init_scope`; a :class:`Chain` registers child links the
same way, :class:`ChainList` keeps them in a list and :class:`Sequential` calls
its layers one after the other.  Calling a link calls its ``forward``.

>>> import numpy as np, autograd_lab as chainer
>>> class Affine(chainer.Link):
...     def __init__(self):
...         super().__init__()
...         with self.init_scope():
...             self.w = chainer.Parameter(np.array([2.0], np.float32))
...         self.not_a_param = chainer.Parameter(np.array([0.0], np.float32))
...     def forward(self, x):
...         return x * self.w
>>> class Model(chainer.Chain):
...     def __init__(self):
...         super().__init__()
...         with self.init_scope():
...             self.l1 = Affine()
...     def forward(self, x):
...         return self.l1(x)
>>> m = Model()
>>> [name for name, _ in m.namedparams()]
['/l1/w']
>>> m(np.array([3.0], np.float32)).array
array([6.], dtype=float32)
>>> m.l1.path, m.count_params()
('/l1', 1)

Graph views can tell which link built a function: :func:`current_links` gives
the links whose ``__call__`` is running (outermost first), and every link knows
its :attr:`Link.path` in the hierarchy it was registered in.
"""

from __future__ import annotations

import contextlib
import copy as copy_module
import warnings
import weakref
from collections.abc import Callable, Iterator, MutableSequence
from typing import Any

import numpy

from autograd_lab import backend, initializers
from autograd_lab import device_resident as _device_resident
from autograd_lab import events as _events
from autograd_lab.parameter import Parameter


def current_links() -> tuple:
    """The links whose ``__call__`` is running in this thread, outermost first.

    A FunctionHook (or the graph widget) can read it in ``forward_preprocess``
    to group function nodes by the link that created them.

    >>> import numpy as np, autograd_lab as chainer
    >>> class Probe(chainer.Link):
    ...     def forward(self):
    ...         return [link.path for link in current_links()]
    >>> class Outer(chainer.Chain):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.probe = Probe()
    ...     def forward(self):
    ...         return self.probe()
    >>> Outer()()
    ['/', '/probe']
    >>> current_links()
    ()
    """
    return tuple(_events.running_links())


def _is_shape(value: Any) -> bool:
    if value is None:
        return True
    try:
        if isinstance(value, (tuple, list)):
            return all(int(x) >= 0 for x in value)
        int(value)
        return True
    except (TypeError, ValueError):
        return False


class Link:
    """A building block of models: owns Parameters and persistent values.

    Args:
        params: ``name=shape`` (or ``name=(shape, dtype)``) pairs; each becomes a
            NaN-filled Parameter (uninitialized when the shape is None).

    Only Parameters assigned inside ``with self.init_scope():`` are registered;
    the same assignment outside the scope makes a plain attribute.

    >>> import numpy as np
    >>> link = Link(w=(2, 3), b=None)
    >>> [(name, p.shape if p.is_initialized else None) for name, p in link.namedparams()]
    [('/b', None), ('/w', (2, 3))]
    >>> link.cleargrads(); link.w.grad is None
    True
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _device_resident.check_subclass(cls, Link)  # final and deprecated device methods

    def __init__(self, **params: Any) -> None:
        d = self.__dict__
        d['_params'] = set()
        d['_persistent'] = set()
        d['_within_init_scope'] = False
        d['_parent'] = None
        d['_device'] = backend.CPU
        d['name'] = None
        for name, value in params.items():
            if _is_shape(value):
                shape, dtype = value, numpy.float32
            else:
                shape, dtype = value
            self.add_param(name, shape, dtype=dtype)

    # ---- registration --------------------------------------------------------------

    @property
    def within_init_scope(self) -> bool:
        """True inside ``with self.init_scope():``."""
        return self.__dict__.get('_within_init_scope', False)

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """Within this block, assigned Parameters (and, for a Chain, Links) are registered."""
        self._check_init_done()
        old = self._within_init_scope
        self.__dict__['_within_init_scope'] = True
        try:
            yield
        finally:
            self.__dict__['_within_init_scope'] = old

    def _check_init_done(self) -> None:
        if '_params' not in self.__dict__:
            raise RuntimeError('Link.__init__() has not been called.')

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Parameter):
            value.name = name
            self._params.add(name)
            self._persistent.discard(name)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._params.discard(name)
        self._persistent.discard(name)
        object.__delattr__(self, name)

    def add_param(self, name: str, shape: Any = None, dtype: Any = numpy.float32,
                  initializer: Any = None) -> None:
        """Register a new Parameter ``name`` (NaN-filled unless ``initializer`` is given).

        >>> link = Link()
        >>> link.add_param('w', (2,), initializer=1.5)
        >>> link.w.array
        array([1.5, 1.5], dtype=float32)
        """
        if name in self.__dict__:
            raise AttributeError(f'cannot register a new parameter {name}: attribute exists')
        if initializer is None:
            initializer = initializers.NaN(dtype)
        param = Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Register a persistent value: saved by serializers and copied by :meth:`copyparams`.

        >>> link = Link()
        >>> link.add_persistent('count', 0)
        >>> link.count
        0
        """
        d = self.__dict__
        if name in d:
            raise AttributeError(f'cannot register a new persistent value {name}: '
                                 'attribute exists')
        self._persistent.add(name)
        self._params.discard(name)
        d[name] = value

    def register_persistent(self, name: str) -> None:
        """Mark the existing attribute ``name`` as persistent (unregistering it as a param)."""
        if not hasattr(self, name):
            raise AttributeError(f'cannot register non-existent attribute {name} as a '
                                 'persistent value')
        self._persistent.add(name)
        self._params.discard(name)

    # ---- calling ------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_init_done()
        running = _events.running_links()  # events made meanwhile carry this link's path
        running.append(self)
        try:
            return _forward_of(self)(*args, **kwargs)
        finally:
            running.pop()

    # ---- hierarchy ------------------------------------------------------------------

    @property
    def parent(self) -> Link | None:
        """The link this one was last registered in as a child, or None."""
        ref = self.__dict__.get('_parent')
        return None if ref is None else ref()

    @property
    def path(self) -> str:
        """``'/'`` for a root, else the slash-joined child names from the root (``'/l1'``)."""
        names = []
        link = self
        seen = set()
        while True:
            parent = link.parent
            if parent is None or id(link) in seen:
                break
            seen.add(id(link))
            names.append(str(link.name))
            link = parent
        return '/' + '/'.join(reversed(names))

    def _adopt(self, child: Link, name: str) -> None:
        child.__dict__['name'] = name
        child.__dict__['_parent'] = weakref.ref(self)

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        """All Parameters of the hierarchy (own ones first, sorted by name)."""
        d = self.__dict__
        for name in sorted(self._params):
            if include_uninit or d[name].array is not None:
                yield d[name]

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(path, param)`` pairs such as ``('/W', W)`` or ``('/l1/W', W)``."""
        d = self.__dict__
        for name in sorted(self._params):
            if include_uninit or d[name].array is not None:
                yield '/' + name, d[name]

    def links(self, skipself: bool = False) -> Iterator[Link]:
        """This link (unless ``skipself``) and every link below it."""
        if not skipself:
            yield self

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """``(path, link)`` pairs, ``'/'`` being this link."""
        if not skipself:
            yield '/', self

    def children(self) -> Iterator[Link]:
        """The direct child links."""
        yield from ()

    # ---- gradients and update flags -------------------------------------------------

    def cleargrads(self) -> None:
        """``cleargrad()`` every Parameter: call it before each backward."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Zero-fill every gradient (deprecated: use :meth:`cleargrads`)."""
        warnings.warn('Link.zerograds is deprecated. Use Link.cleargrads instead.',
                      DeprecationWarning, stacklevel=2)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            for param in self.params():
                param.zerograd()

    def addgrads(self, link: Link) -> None:
        """Add the gradients of the same-shaped ``link`` into this one's."""
        src, dst = link.__dict__, self.__dict__
        for name in self._params:
            dst[name].addgrad(src[name])

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copy parameter arrays (not grads) and, optionally, persistent values from ``link``.

        >>> a, b = Link(w=(2,)), Link(w=(2,))
        >>> a.w.array[:] = 1.0
        >>> b.copyparams(a); b.w.array
        array([1., 1.], dtype=float32)
        """
        src, dst = link.__dict__, self.__dict__
        for name in self._params:
            dst[name].copydata(src[name])
        if copy_persistent:
            for name in self._persistent:
                d, s = dst[name], src[name]
                if backend.is_array(d) and backend.is_array(s):
                    backend.copyto(d, s)
                else:
                    dst[name] = copy_module.deepcopy(s)

    def enable_update(self) -> None:
        """Set ``enabled = True`` on every parameter's update rule."""
        for param in self.params():
            if param.update_rule is not None:
                param.update_rule.enabled = True

    def disable_update(self) -> None:
        """Set ``enabled = False`` on every parameter's update rule (freeze the link)."""
        for param in self.params():
            if param.update_rule is not None:
                param.update_rule.enabled = False

    @property
    def update_enabled(self) -> bool:
        """True if at least one parameter has an enabled update rule."""
        return any(p.update_rule is not None and p.update_rule.enabled for p in self.params())

    def count_params(self) -> int:
        """The number of scalars in all initialized Parameters (warns about the others).

        >>> Link(w=(2, 3), b=(3,)).count_params()
        9
        """
        size = 0
        for name, param in self.namedparams():
            if param.array is None:
                warnings.warn(f"Parameter '{name}' has not been initialized, so the resulting "
                              'count will not include the number of parameters in it.',
                              stacklevel=2)
                continue
            size += param.size
        return size

    # ---- serialization -------------------------------------------------------------

    def serialize(self, serializer: Any) -> None:
        """Save or load the parameters and persistent values through ``serializer``."""
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            data = serializer(name, param.array)
            if param.array is None and data is not None:
                param.initialize(data.shape)
                backend.copyto(param.array, data)
        for name in sorted(self._persistent):
            d[name] = serializer(name, d[name])

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state['_parent'] = None  # weak references do not pickle; parents re-adopt children
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name, child in self._named_child_links():
            if child.__dict__.get('_parent') is None:
                self._adopt(child, name)

    def _named_child_links(self) -> list:
        return []

    # ---- copies ---------------------------------------------------------------------

    def copy(self, mode: str = 'share') -> Link:
        """Copy the hierarchy: ``'share'`` the arrays, deep ``'copy'`` them, or ``'init'``
        (deep copy, then re-initialize every parameter, whose gradients are then NaN).
        The copy has no parent; as in Chainer, a shared copy has no name and the others
        keep it.
        """
        if mode == 'share':
            ret = copy_module.copy(self)
            d = ret.__dict__
            d['_params'] = set(self._params)
            d['_persistent'] = set(self._persistent)
            for name in ret._params:
                p = copy_module.copy(d[name])
                p.grad = None
                d[name] = p
            d['name'] = None
        elif mode == 'copy':
            ret = copy_module.deepcopy(self)
        elif mode == 'init':
            ret = copy_module.deepcopy(self)
            for param in ret.params(include_uninit=False):
                param.initialize(param.shape)
        else:
            raise ValueError("The 'mode' argument should be either 'init','copy', or 'share'. "
                             f'But {mode} was given.')
        ret.__dict__['_parent'] = None
        return ret

    def repeat(self, n_repeat: int, mode: str = 'init') -> Sequential:
        """A :class:`Sequential` of ``n_repeat`` copies of this link (see :meth:`copy`)."""
        ret = Sequential()
        if n_repeat <= 0:
            return ret
        if mode not in ('init', 'copy', 'share'):
            raise ValueError("The 'mode' argument should be either 'init','copy', or 'share'. "
                             f'But {mode} was given.')
        for _ in range(n_repeat):
            ret.append(self.copy(mode))
        return ret

    # ---- devices --------------------------------------------------------------------

    @property
    def device(self) -> backend.Device:
        """The device the link's arrays live on."""
        return self.__dict__.get('_device', backend.CPU)

    @property
    def xp(self) -> Any:
        """``numpy`` or the GPU array module, after the link's device."""
        return self.device.xp

    def to_device(self, device: Any) -> Link:
        """Move every parameter and persistent array of the hierarchy to ``device``."""
        dev = backend.get_device(device)
        for link in self.links():
            move = None if link is self else _device_resident.overriding_method(link, Link, dev)
            if move is not None:  # a child's own (deprecated) to_cpu/to_gpu moves it
                move()
                continue
            d = link.__dict__
            for name in link._params:
                d[name].to_device(dev)
            for name in link._persistent:
                if backend.is_array(d[name]):
                    d[name] = dev.send(d[name])
            d['_device'] = dev
        return self

    def to_cpu(self) -> Link:
        """Move the hierarchy to the CPU (deprecated: ``to_device('@numpy')``)."""
        _device_resident.warn_deprecated_call('to_cpu')
        return self.to_device(backend.CPU)

    def to_gpu(self, device: Any = None) -> Link:
        """Move the hierarchy to GPU ``device`` (deprecated: ``to_device('@cupy:N')``)."""
        backend._require_gpu()
        _device_resident.warn_deprecated_call('to_gpu')
        return self.to_device(backend.get_device(0 if device is None else device))

    def to_intel64(self) -> Link:
        raise RuntimeError(backend._IDEEP_ERROR)

    def to_chx(self) -> Link:
        raise RuntimeError('ChainerX is not available.')

    def from_chx(self) -> Link:
        """No-op: autograd_lab has no ChainerX arrays."""
        return self

    # ---- display --------------------------------------------------------------------

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """``(name, value)`` pairs shown by ``str(link)``."""
        yield from ()

    def __str__(self) -> str:
        specs = ', '.join(f'{k}={v}' for k, v in self.printable_specs)
        return f'{type(self).__name__}({specs})'


class Chain(Link):
    """A link made of named child links (registered inside ``init_scope`` or by keyword).

    >>> import autograd_lab.links as L
    >>> c = Chain(l1=L.Linear(3, 2), l2=L.Linear(2, 1))
    >>> [name for name, _ in c.namedparams()]
    ['/l1/W', '/l1/b', '/l2/W', '/l2/b']
    >>> c['l2'].name, c.l2.path
    ('l2', '/l2')
    """

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self.__dict__['_children'] = set()
        for name, link in links.items():
            self.add_link(name, link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            if hasattr(self, name):
                raise AttributeError(f'cannot register a new link {name}: attribute exists')
            self._adopt(value, name)
            self._children.add(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._children.discard(name)
        super().__delattr__(name)

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)

    def add_link(self, name: str, link: Link) -> None:
        """Register ``link`` as the child ``name``."""
        if name in self.__dict__:
            raise AttributeError(f'cannot register a new link {name}: attribute exists')
        if not isinstance(link, Link):
            raise TypeError('cannot register a non-link object as a child')
        with self.init_scope():
            setattr(self, name, link)

    def _named_child_links(self) -> list:
        d = self.__dict__
        return [(name, d[name]) for name in sorted(self._children)]

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        yield from super().params(include_uninit)
        for _, child in self._named_child_links():
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from super().namedparams(include_uninit)
        for name, child in self._named_child_links():
            for path, param in child.namedparams(include_uninit):
                yield f'/{name}{path}', param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        if not skipself:
            yield self
        for _, child in self._named_child_links():
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        if not skipself:
            yield '/', self
        for name, child in self._named_child_links():
            yield f'/{name}', child
            for path, link in child.namedlinks(True):
                yield f'/{name}{path}', link

    def children(self) -> Iterator[Link]:
        for _, child in self._named_child_links():
            yield child

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        src = link.__dict__
        for name, child in self._named_child_links():
            child.copyparams(src[name], copy_persistent)

    def addgrads(self, link: Link) -> None:
        super().addgrads(link)
        src = link.__dict__
        for name, child in self._named_child_links():
            child.addgrads(src[name])

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for name, child in self._named_child_links():
            child.serialize(serializer[name])

    def copy(self, mode: str = 'share') -> Chain:
        ret = super().copy(mode)
        d = ret.__dict__
        d['_children'] = set(d['_children'])
        for name in d['_children']:
            child = d[name].copy(mode)
            ret._adopt(child, name)
            d[name] = child
        return ret

    def __str__(self) -> str:
        lines = []
        for name, child in self._named_child_links():
            for line in f'({name}): {child},'.splitlines():
                lines.append(f'  {line}\n')
        body = '\n' + ''.join(lines) if lines else ''
        return f'{type(self).__name__}({body})'


class ChainList(Link, MutableSequence):
    """A link holding an ordered list of child links named ``'0'``, ``'1'``, ...

    >>> import autograd_lab.links as L
    >>> layers = ChainList(L.Linear(3, 2), L.Linear(2, 1))
    >>> [name for name, _ in layers.namedparams()]
    ['/0/W', '/0/b', '/1/W', '/1/b']
    >>> len(layers), layers[1].path
    (2, '/1')
    """

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self.__dict__['_children'] = []
        for link in links:
            self.add_link(link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            raise TypeError('cannot register a new link within a "with chainlist.init_scope():" '
                            'block.')
        super().__setattr__(name, value)

    def _rename_children(self) -> None:
        for i, child in enumerate(self._children):
            self._adopt(child, str(i))

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, int):
            self._children[index] = value
        elif isinstance(index, slice):
            self._children[index] = value
        else:
            raise TypeError('ChainList indices must be integers or slices, not '
                            f'{type(index).__name__}')
        self._rename_children()

    def __getitem__(self, index: Any) -> Any:
        return self._children[index]

    def __delitem__(self, index: Any) -> None:
        del self._children[index]
        self._rename_children()

    def insert(self, index: int, link: Link) -> None:
        """Insert ``link`` before position ``index`` (children are renamed)."""
        self._children.insert(index, link)
        self._rename_children()

    def __iter__(self) -> Iterator[Link]:
        return iter(self._children)

    def __len__(self) -> int:
        return len(self._children)

    def add_link(self, link: Link) -> None:
        """Append ``link``."""
        self.append(link)

    def _named_child_links(self) -> list:
        return [(str(i), c) for i, c in enumerate(self._children)]

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        yield from super().params(include_uninit)
        for child in self._children:
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from super().namedparams(include_uninit)
        for i, child in enumerate(self._children):
            for path, param in child.namedparams(include_uninit):
                yield f'/{i}{path}', param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        if not skipself:
            yield self
        for child in self._children:
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        if not skipself:
            yield '/', self
        for i, child in enumerate(self._children):
            yield f'/{i}', child
            for path, link in child.namedlinks(True):
                yield f'/{i}{path}', link

    def children(self) -> Iterator[Link]:
        yield from self._children

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        for child, src in zip(self._children, link._children):
            child.copyparams(src, copy_persistent)

    def addgrads(self, link: Link) -> None:
        super().addgrads(link)
        for child, src in zip(self._children, link._children):
            child.addgrads(src)

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for i, child in enumerate(self._children):
            child.serialize(serializer[str(i)])

    def copy(self, mode: str = 'share') -> ChainList:
        ret = super().copy()  # sic: Chainer 7.8.1 shares a ChainList's own params in any mode
        ret.__dict__['_children'] = [child.copy(mode) for child in self._children]
        ret._rename_children()
        return ret

    def __str__(self) -> str:
        lines = []
        for i, child in enumerate(self._children):
            for line in f'({i}): {child},'.splitlines():
                lines.append(f'  {line}\n')
        body = '\n' + ''.join(lines) if lines else ''
        return f'{type(self).__name__}({body})'


class Sequential(ChainList):
    """Calls its layers (links or plain callables) one after another.

    A layer that returns a tuple has it unpacked into the next layer's arguments.

    >>> import numpy as np, autograd_lab.links as L, autograd_lab.functions as F
    >>> model = Sequential(L.Linear(3, 4), F.tanh, L.Linear(4, 2))
    >>> model(np.zeros((5, 3), np.float32)).shape
    (5, 2)
    >>> len(model), [name for name, _ in model.namedlinks(skipself=True)]
    (3, ['/0', '/1'])
    """

    def __init__(self, *layers: Callable) -> None:
        super().__init__()
        self.__dict__['_layers'] = []
        for layer in layers:
            self.append(layer)

    def __len__(self) -> int:
        return len(self._layers)

    def __getitem__(self, i: Any) -> Any:
        return self._layers[i]

    def __setitem__(self, i: int, layer: Callable) -> None:
        if i >= len(self):
            raise ValueError(f'{i} should be less than {len(self)}')
        if not callable(layer):
            raise ValueError('All elements of a Sequential class should be callable. But given '
                             f'{layer} is not callable.')
        if self._layers[i] is not layer:
            del self[i]
            self.insert(i, layer)

    def __delitem__(self, i: Any) -> None:
        layer = self._layers.pop(i)
        if isinstance(layer, Link):
            for k, child in enumerate(self._children):
                if child is layer:
                    del self._children[k]
                    break
            self._rename_children()

    def __iter__(self) -> Iterator[Callable]:
        return iter(self._layers)

    def __reversed__(self) -> Iterator[Callable]:
        return reversed(self._layers)

    def __contains__(self, item: Any) -> bool:
        return any(layer is item for layer in self._layers)

    def __add__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError('add (+) operator supports only objects of Sequential class, '
                             f'but {type(other)} is given.')
        return Sequential(*self, *other)

    def __iadd__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError('add (+) operator supports only objects of Sequential class, '
                             f'but {type(other)} is given.')
        for layer in list(other):
            self.append(layer)
        return self

    def forward(self, *x: Any) -> Any:
        if not self._layers:
            raise RuntimeError('Sequential does not have any layer.')
        for layer in self._layers:
            x = layer(*x) if isinstance(x, tuple) else layer(x)
        return x

    def insert(self, i: int, layer: Callable) -> None:
        n = len(self._layers)
        if not -n <= i < n + 1:
            raise IndexError(f'Index out of range: {i}')
        if i < 0:
            i += n
        if not callable(layer):
            raise ValueError('All elements of the argument should be callable. But given '
                             f'{layer} is not callable.')
        self._layers.insert(i, layer)
        self.__dict__['_children'] = [lay for lay in self._layers if isinstance(lay, Link)]
        self._rename_children()

    def append(self, layer: Callable) -> None:
        self.insert(len(self), layer)

    def extend(self, sequential: Any) -> None:
        for layer in list(sequential):
            self.append(layer)

    def remove(self, layer: Callable) -> None:
        for i, item in enumerate(self._layers):
            if item is layer:
                del self[i]
                return
        raise ValueError(f'There is no layer object that is same as {layer}')

    def pop(self, i: int = -1) -> Callable:
        layer = self._layers[i]
        del self[i]
        return layer

    def clear(self) -> None:
        self.__dict__['_layers'] = []
        self.__dict__['_children'] = []

    def index(self, layer: Any, start: Any = None, end: Any = None) -> int:
        return self._layers[start:end].index(layer)

    def count(self, layer: Any) -> int:
        return self._layers.count(layer)

    def copy(self, mode: str = 'share') -> Sequential:
        return Sequential(*[layer.copy(mode) if isinstance(layer, Link) else
                            copy_module.copy(layer) for layer in self._layers])

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        if not isinstance(link, Sequential):
            raise ValueError('Objects other than Sequential object cannot be copied to a '
                             'Sequential object.')
        for i, layer in enumerate(self._layers):
            if isinstance(layer, Link):
                layer.copyparams(link[i], copy_persistent)

    def flatten(self) -> Sequential:
        """A Sequential with nested Sequentials expanded in place."""
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                ret.extend(layer.flatten())
            else:
                ret.append(layer)
        return ret

    def __str__(self) -> str:
        lines = []
        for i, layer in enumerate(self._layers):
            for line in f'({i}): {layer},'.splitlines():
                lines.append(f'  {line}\n')
        body = '\n' + ''.join(lines) if lines else ''
        return f'{type(self).__name__}({body})'


__all__ = ['Chain', 'ChainList', 'Link', 'Sequential', 'current_links']


def _forward_of(link: Link) -> Any:
    """What calling ``link`` runs: a ``__call__`` of a class mixed in after Link (as in
    Chainer), else ``link.forward`` (AttributeError if the class defines none)."""
    call = getattr(super(Link, link), '__call__', None)  # noqa: B004 - a bound method or None
    return call if call is not None else link.forward
