"""Small models shared by the tests (one definition, many graphs)."""

from __future__ import annotations

import autograd_lab as chainer
import autograd_lab.functions as F
import autograd_lab.links as L


class MLP(chainer.Chain):
    """Linear(3, 4) -> relu -> Linear(4, 2): two Link scopes, a parameter-free call between."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))
