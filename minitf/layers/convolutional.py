"""The convolution layers: `Conv1D`, `Conv2D`, `Conv3D`, `Conv2DTranspose`,
`Conv3DTranspose`, `SeparableConv1D`, `SeparableConv2D`, and their functional
forms (`tf.layers.conv2d`, ...).

`build` makes `kernel` [*kernel_size, in_channels, filters] and `bias`
[filters]; `call` is `activation(conv(inputs, kernel) + bias)` on
`tf.nn.conv1d`, `tf.nn.conv2d` or `tf.nn.conv3d`. The transposed layers'
kernel is [*kernel_size, filters, in_channels] (they run
`tf.nn.conv2d_transpose` or `tf.nn.conv3d_transpose`); the separable ones
have a `depthwise_kernel` [*kernel_size, in_channels, depth_multiplier] and a
`pointwise_kernel` [1.., in_channels * depth_multiplier, filters]
(`tf.nn.separable_conv2d`). Layer arguments use Keras's words:
`padding='valid'` or `'same'` (lower case), `data_format='channels_last'`
(NWC, NHWC, NDHWC) or `'channels_first'` (NCW, NCHW, NCDHW), `kernel_size`,
`strides` and `dilation_rate` as an int or a tuple.

Mirrors `tensorflow/python/layers/convolutional.py` and the Keras layers it
wraps (`tensorflow/python/keras/layers/convolutional.py`).
"""

from minitf.graph import tensor_shape
from minitf.layers import base
from minitf.layers import utils
from minitf.ops import array_ops
from minitf.ops import init_ops
from minitf.ops import nn_impl
from minitf.ops import nn_ops

__all__ = ["Conv1D", "conv1d", "Conv2D", "conv2d", "Conv3D", "conv3d", "Conv2DTranspose",
           "conv2d_transpose", "Conv3DTranspose", "conv3d_transpose", "SeparableConv1D",
           "separable_conv1d", "SeparableConv2D", "separable_conv2d"]


class _Conv(base.Layer):
    """The shared part of the convolutions: arguments, the channel axis, the bias and the
    activation. A subclass names its number of spatial dimensions (`_rank`)."""

    _rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None,
                 use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        rank = self.rank = self._rank
        self.filters = int(filters)
        self.kernel_size = utils.normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = utils.normalize_tuple(strides, rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.dilation_rate = utils.normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = base.InputSpec(ndim=rank + 2)

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def _input_dim(self, input_shape):
        input_dim = tensor_shape.dimension_value(
            tensor_shape.TensorShape(input_shape)[self._channel_axis()])
        if input_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        self.input_spec = base.InputSpec(ndim=self.rank + 2,
                                         axes={self._channel_axis(): input_dim})
        return input_dim

    def _add_kernel(self, name, shape, initializer, regularizer, constraint):
        return self.add_weight(name, shape=shape, initializer=initializer,
                               regularizer=regularizer, constraint=constraint,
                               trainable=True, dtype=self.dtype)

    def _add_bias(self):
        self.bias = None
        if self.use_bias:
            self.bias = self._add_kernel("bias", (self.filters,), self.bias_initializer,
                                         self.bias_regularizer, self.bias_constraint)

    def build(self, input_shape):
        input_dim = self._input_dim(input_shape)
        self.kernel = self._add_kernel("kernel", self.kernel_size + (input_dim, self.filters),
                                       self.kernel_initializer, self.kernel_regularizer,
                                       self.kernel_constraint)
        self._add_bias()
        self.built = True

    def _convolve(self, inputs):
        data_format = utils.convert_data_format(self.data_format, self.rank + 2)
        if self.rank == 1:
            return nn_ops.conv1d(inputs, self.kernel, stride=self.strides,
                                 padding=self.padding.upper(), data_format=data_format,
                                 dilations=self.dilation_rate)
        if self.rank == 2:
            return nn_ops.conv2d(inputs, self.kernel, strides=self.strides,
                                 padding=self.padding.upper(), data_format=data_format,
                                 dilations=self.dilation_rate)
        return nn_ops.conv3d(inputs, self.kernel, strides=self._volume_attr(self.strides),
                             padding=self.padding.upper(), data_format=data_format,
                             dilations=self._volume_attr(self.dilation_rate))

    def _volume_attr(self, values):
        """(depth, height, width) as the 5 values `tf.nn.conv3d` takes: 1 for the batch and
        the channels."""
        if self.data_format == "channels_first":
            return (1, 1) + values
        return (1,) + values + (1,)

    def call(self, inputs):
        outputs = self._convolve(inputs)
        if self.use_bias:
            outputs = nn_ops.bias_add(
                outputs, self.bias, data_format="NCHW" if self._channel_axis() == 1 else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class Conv1D(_Conv):
    """1-D convolution of a [batch, width, channels] input with `filters` filters."""

    _rank = 1


class Conv2D(_Conv):
    """2-D convolution of a [batch, height, width, channels] input with `filters` filters."""

    _rank = 2


class Conv3D(_Conv):
    """3-D convolution of a [batch, depth, height, width, channels] input with `filters`
    filters."""

    _rank = 3


def deconv_output_length(input_length, filter_size, padding, stride, dilation=1):
    """The length a transposed convolution gives one spatial dimension of `input_length`
    (a dilated filter spans `filter_size + (filter_size - 1) * (dilation - 1)`)."""
    if input_length is None:
        return None
    filter_size += (filter_size - 1) * (dilation - 1)
    if padding == "valid":
        return input_length * stride + max(filter_size - stride, 0)
    return input_length * stride


class _ConvTranspose(_Conv):
    """What the transposed convolutions add to their convolution: the kernel
    [*kernel_size, filters, in_channels], and the output shape worked out from the
    input's, which the transpose op (a subclass's `_transpose_function`) needs as a
    tensor. Their arguments are TensorFlow's, less `dilation_rate`, which (as Keras's
    layers underneath them do) they still take as a keyword."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)

    def build(self, input_shape):
        input_dim = self._input_dim(input_shape)
        self.kernel = self._add_kernel("kernel", self.kernel_size + (self.filters, input_dim),
                                       self.kernel_initializer, self.kernel_regularizer,
                                       self.kernel_constraint)
        self._add_bias()
        self.built = True

    def _output_size(self, size, axis):
        return deconv_output_length(size, self.kernel_size[axis], self.padding,
                                    self.strides[axis], self.dilation_rate[axis])

    def _output_layout(self, batch, spatial):
        """[batch, *spatial, filters], or [batch, filters, *spatial] for channels_first."""
        if self.data_format == "channels_first":
            return [batch, self.filters] + spatial
        return [batch] + spatial + [self.filters]

    def _convolve(self, inputs):
        first = 2 if self.data_format == "channels_first" else 1
        spatial_axes = range(first, first + self.rank)
        inputs_shape = array_ops.shape(inputs)
        batch, spatial = inputs_shape[0], [inputs_shape[axis] for axis in spatial_axes]
        sizes = [self._output_size(size, i) for i, size in enumerate(spatial)]
        outputs = self._transpose_function(
            inputs, self.kernel, array_ops.stack(self._output_layout(batch, sizes)),
            self.strides, padding=self.padding.upper(),
            data_format=utils.convert_data_format(self.data_format, self.rank + 2),
            dilations=self.dilation_rate)
        static = inputs.shape.as_list()
        static_sizes = [self._output_size(static[a], i) for i, a in enumerate(spatial_axes)]
        outputs.set_shape(self._output_layout(static[0], static_sizes))
        return outputs


class Conv2DTranspose(_ConvTranspose, Conv2D):
    """The transpose of Conv2D ("deconvolution"): each input pixel spreads over a
    `kernel_size` window of the output, `strides` apart."""

    _transpose_function = staticmethod(nn_ops.conv2d_transpose)


class Conv3DTranspose(_ConvTranspose, Conv3D):
    """The transpose of Conv3D: each input voxel spreads over a `kernel_size` window of the
    output, `strides` apart."""

    _transpose_function = staticmethod(nn_ops.conv3d_transpose)


class _SeparableConv(_Conv):
    """A depthwise convolution of each channel by `depth_multiplier` filters, then a 1x1
    convolution that mixes the channels into `filters` (`tf.nn.separable_conv2d`). A
    subclass names its number of spatial dimensions (`_rank`)."""

    _rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape):
        input_dim = self._input_dim(input_shape)
        self.depthwise_kernel = self._add_kernel(
            "depthwise_kernel", self.kernel_size + (input_dim, self.depth_multiplier),
            self.depthwise_initializer, self.depthwise_regularizer, self.depthwise_constraint)
        self.pointwise_kernel = self._add_kernel(
            "pointwise_kernel", (1,) * self.rank + (self.depth_multiplier * input_dim,
                                                    self.filters),
            self.pointwise_initializer, self.pointwise_regularizer, self.pointwise_constraint)
        self._add_bias()
        self.built = True

    def _convolve(self, inputs):
        depthwise_kernel, pointwise_kernel = self.depthwise_kernel, self.pointwise_kernel
        strides, dilation_rate = self.strides, self.dilation_rate
        spatial_start = 2 if self.data_format == "channels_first" else 1
        if self.rank == 1:  # as a 2-D convolution over a height of 1
            inputs = array_ops.expand_dims(inputs, spatial_start)
            depthwise_kernel = array_ops.expand_dims(depthwise_kernel, 0)
            pointwise_kernel = array_ops.expand_dims(pointwise_kernel, 0)
            strides, dilation_rate = (1,) + strides, (1,) + dilation_rate
        if self.data_format == "channels_last":
            strides = (1,) + strides + (1,)
        else:
            strides = (1, 1) + strides
        outputs = nn_impl.separable_conv2d(
            inputs, depthwise_kernel, pointwise_kernel, strides=strides,
            padding=self.padding.upper(), rate=dilation_rate,
            data_format=utils.convert_data_format(self.data_format, 4))
        if self.rank == 1:
            outputs = array_ops.squeeze(outputs, [spatial_start])
        return outputs


class SeparableConv1D(_SeparableConv):
    """Depthwise-separable 1-D convolution of a [batch, width, channels] input."""

    _rank = 1


class SeparableConv2D(_SeparableConv):
    """Depthwise-separable 2-D convolution of a [batch, height, width, channels] input."""

    _rank = 2


# --- the functional forms: `name` is the variable scope, `reuse` shares it -------------------
def _apply(layer_class, arguments):
    """A `layer_class` made of the function's `arguments` (its `locals()`), applied once."""
    arguments = dict(arguments)
    inputs, name, reuse = arguments.pop("inputs"), arguments.pop("name"), arguments.pop("reuse")
    return layer_class(name=name, _reuse=reuse, _scope=name, **arguments).apply(inputs)


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
           data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True, name=None, reuse=None):
    """The functional form of `Conv1D`."""
    return _apply(Conv1D, locals())


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True, name=None, reuse=None):
    """The functional form of `Conv2D`."""
    return _apply(Conv2D, locals())


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
           use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """The functional form of `Conv3D`."""
    return _apply(Conv3D, locals())


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                     kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                     kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                     reuse=None):
    """The functional form of `Conv2DTranspose`."""
    return _apply(Conv2DTranspose, locals())


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                     kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                     kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                     reuse=None):
    """The functional form of `Conv3DTranspose`."""
    return _apply(Conv3DTranspose, locals())


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
                     data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                     pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                     reuse=None):
    """The functional form of `SeparableConv1D`."""
    return _apply(SeparableConv1D, locals())


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                     pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                     reuse=None):
    """The functional form of `SeparableConv2D`."""
    return _apply(SeparableConv2D, locals())
