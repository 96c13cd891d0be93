"""Standard links (Chainer's ``chainer.links``, usually imported as ``L``).

>>> import numpy as np, autograd_lab.links as L
>>> layer = L.Linear(3)            # output size 3, input size from the first call
>>> layer.W.is_initialized
False
>>> layer(np.zeros((2, 5), np.float32)).shape, layer.W.shape
((2, 3), (3, 5))
"""

from autograd_lab.links.connection import Convolution2D, EmbedID, Linear
from autograd_lab.links.model import Classifier
from autograd_lab.links.normalization import BatchNormalization, LayerNormalization

__all__ = ['BatchNormalization', 'Classifier', 'Convolution2D', 'EmbedID', 'LayerNormalization',
           'Linear']
