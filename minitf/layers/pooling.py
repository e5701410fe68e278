"""Pooling layers: `MaxPooling1D/2D/3D` and `AveragePooling1D/2D/3D`, and their functional
forms.

A pooling layer has no variables: `call` is one `tf.nn.max_pool` or
`tf.nn.avg_pool` (`max_pool1d`, `avg_pool1d` for 1-D, `max_pool3d`,
`avg_pool3d` for 3-D) over `pool_size` windows, `strides` apart. A 3-D layer
with `channels_first` moves the channels last around its op and back, as
TensorFlow does: TF's 3-D pooling kernels take NDHWC only on CPU.

Mirrors `tensorflow/python/layers/pooling.py` and the Keras layers it wraps
(`tensorflow/python/keras/layers/pooling.py`).
"""

from minitf.layers import base
from minitf.layers import utils
from minitf.ops import array_ops
from minitf.ops import nn_ops

__all__ = ["MaxPooling1D", "max_pooling1d", "AveragePooling1D", "average_pooling1d",
           "MaxPooling2D", "max_pooling2d", "AveragePooling2D", "average_pooling2d",
           "MaxPooling3D", "max_pooling3d", "AveragePooling3D", "average_pooling3d"]


class _Pooling(base.Layer):
    """The shared part of pooling: arguments, shape checks, and the call. A subclass names
    its number of spatial dimensions (`_rank`) and its `tf.nn` op (`_pool_function`)."""

    _rank = 2
    _pool_function = staticmethod(nn_ops.max_pool)

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if strides is None:
            strides = pool_size
        self.pool_size = utils.normalize_tuple(pool_size, self._rank, "pool_size")
        self.strides = utils.normalize_tuple(strides, self._rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = base.InputSpec(ndim=self._rank + 2)

    def call(self, inputs):
        if self._rank == 3 and self.data_format == "channels_first":
            outputs = self._pool(array_ops.transpose(inputs, (0, 2, 3, 4, 1)), "channels_last")
            return array_ops.transpose(outputs, (0, 4, 1, 2, 3))
        return self._pool(inputs, self.data_format)

    def _pool(self, inputs, data_format):
        pool_shape, strides = self.pool_size, self.strides
        if self._rank > 1 and data_format == "channels_last":
            pool_shape, strides = (1,) + pool_shape + (1,), (1,) + strides + (1,)
        elif self._rank > 1:
            pool_shape, strides = (1, 1) + pool_shape, (1, 1) + strides
        return self._pool_function(inputs, ksize=pool_shape, strides=strides,
                                   padding=self.padding.upper(),
                                   data_format=utils.convert_data_format(data_format,
                                                                         self._rank + 2))


class MaxPooling1D(_Pooling):
    """The maximum of each `pool_size` window of a [batch, width, channels] input."""

    _rank = 1
    _pool_function = staticmethod(nn_ops.max_pool1d)


class AveragePooling1D(_Pooling):
    """The mean of each `pool_size` window of a [batch, width, channels] input."""

    _rank = 1
    _pool_function = staticmethod(nn_ops.avg_pool1d)


class MaxPooling2D(_Pooling):
    """The maximum of each `pool_size` window."""

    _pool_function = staticmethod(nn_ops.max_pool)


class AveragePooling2D(_Pooling):
    """The mean of each `pool_size` window (of its non-padding elements with 'same')."""

    _pool_function = staticmethod(nn_ops.avg_pool)


class MaxPooling3D(_Pooling):
    """The maximum of each `pool_size` window of a [batch, depth, height, width, channels]
    input."""

    _rank = 3
    _pool_function = staticmethod(nn_ops.max_pool3d)


class AveragePooling3D(_Pooling):
    """The mean of each `pool_size` window of a volume (of its non-padding elements with
    'same')."""

    _rank = 3
    _pool_function = staticmethod(nn_ops.avg_pool3d)


def _apply(layer_class, inputs, pool_size, strides, padding, data_format, name):
    return layer_class(pool_size=pool_size, strides=strides, padding=padding,
                       data_format=data_format, name=name).apply(inputs)


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """The functional form of `MaxPooling1D`."""
    return _apply(MaxPooling1D, inputs, pool_size, strides, padding, data_format, name)


def average_pooling1d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """The functional form of `AveragePooling1D`."""
    return _apply(AveragePooling1D, inputs, pool_size, strides, padding, data_format, name)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """The functional form of `MaxPooling2D`."""
    return _apply(MaxPooling2D, inputs, pool_size, strides, padding, data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """The functional form of `AveragePooling2D`."""
    return _apply(AveragePooling2D, inputs, pool_size, strides, padding, data_format, name)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """The functional form of `MaxPooling3D`."""
    return _apply(MaxPooling3D, inputs, pool_size, strides, padding, data_format, name)


def average_pooling3d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """The functional form of `AveragePooling3D`."""
    return _apply(AveragePooling3D, inputs, pool_size, strides, padding, data_format, name)
