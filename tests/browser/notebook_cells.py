"""Notebook cells that several browser tests run: written once so the views they make agree.

Each cell assumes the imports of the tests' first cell (``np``, ``chainer``, ``F``,
``Variable``, ``GraphView``) and ends with the view, so the notebook displays it.
"""

GRAD_VIEW_CELL = '''\
x3 = Variable(np.array(5.0, dtype=np.float32), name='x')
gx, = chainer.grad([x3**2 - 2*x3 + 1], [x3], enable_double_backprop=True)
gview = GraphView(gx)
gview'''
"""The graph of a gradient (d/dx of x**2 - 2x + 1, built with double backprop), in ``gview``."""

CHAIN_CELL = '''\
# A 500-node chain: h = tanh(h) + (h two blocks back), 4 nodes a block.
h = Variable(np.array([0.5, -0.25], dtype=np.float32), name='c0')
kept = [h]
for i in range(124):
    h = F.tanh(h) + kept[max(0, i - 1)]
    kept.append(h)
chain = GraphView(F.sum(h))
chain'''
"""A 500-node chain, the size the latency benchmark and the fit tests use, in ``chain``."""
