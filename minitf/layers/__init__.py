"""`tf.layers`: Layer, Dense and friends, the TF1 way to build a model from reusable parts.

Each layer is a class (`tf.layers.Dense`) that owns its variables and a
function (`tf.layers.dense`) that makes one and applies it once. Only names
live here: the Layer base class is in `base.py`, the layers in `core.py`,
`normalization.py`, `convolutional.py` and `pooling.py`.

Mirrors `tensorflow/python/layers/layers.py`.
"""

from minitf.layers.base import InputSpec, Layer
from minitf.layers.convolutional import (Conv1D, Conv2D, Conv2DTranspose, Conv3D,
                                         Conv3DTranspose, SeparableConv1D, SeparableConv2D,
                                         conv1d, conv2d, conv2d_transpose, conv3d,
                                         conv3d_transpose, separable_conv1d, separable_conv2d)
from minitf.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten
from minitf.layers.normalization import BatchNormalization, batch_normalization
from minitf.layers.pooling import (AveragePooling1D, AveragePooling2D, AveragePooling3D,
                                   MaxPooling1D, MaxPooling2D, MaxPooling3D, average_pooling1d,
                                   average_pooling2d, average_pooling3d, max_pooling1d,
                                   max_pooling2d, max_pooling3d)

__all__ = ["Layer", "InputSpec", "Dense", "dense", "Dropout", "dropout", "Flatten", "flatten",
           "BatchNormalization", "batch_normalization", "Conv2D", "conv2d", "MaxPooling2D",
           "max_pooling2d", "AveragePooling2D", "average_pooling2d", "Conv1D", "conv1d",
           "Conv2DTranspose", "conv2d_transpose", "SeparableConv1D", "separable_conv1d",
           "SeparableConv2D", "separable_conv2d", "MaxPooling1D", "max_pooling1d",
           "AveragePooling1D", "average_pooling1d", "Conv3D", "conv3d", "Conv3DTranspose",
           "conv3d_transpose", "MaxPooling3D", "max_pooling3d", "AveragePooling3D",
           "average_pooling3d"]
