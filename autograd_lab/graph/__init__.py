"""Graph model and DOT/SVG/PNG export of computational graphs.

:class:`GraphModel` describes a graph (built from outputs or replayed from events);
:func:`to_dot` draws it in one visual language (see :mod:`autograd_lab.graph.palette`);
:func:`render` turns DOT into SVG or PNG with the system ``dot`` or the pip-installed
``graphviz-pure`` renderer.

>>> import numpy as np, autograd_lab as chainer
>>> from autograd_lab import graph
>>> x = chainer.Variable(np.array(3.0), name='x')
>>> y = x ** 2 - 2 * x + 1
>>> model = graph.GraphModel.from_outputs(y)
>>> source = graph.to_dot(model)
>>> source.startswith('digraph')
True
>>> b'<svg' in graph.render(source)
True
"""

from autograd_lab.graph.model import Edge, GraphModel, Node, OBSERVABLE_STATES, STATES
from autograd_lab.graph.dot import to_dot
from autograd_lab.graph.render import RendererNotFound, render, renderer

__all__ = ['OBSERVABLE_STATES', 'STATES', 'Edge', 'GraphModel', 'Node', 'RendererNotFound',
           'render', 'renderer', 'to_dot']
