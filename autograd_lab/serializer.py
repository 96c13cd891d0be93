"""``chainer.serializer``: the serializer base classes (also in ``chainer.serializers``).

>>> import autograd_lab.serializers as S
>>> Serializer is S.Serializer and Deserializer is S.Deserializer
True
"""

from autograd_lab.serializers import AbstractSerializer, Deserializer, Serializer

__all__ = ['AbstractSerializer', 'Deserializer', 'Serializer']
