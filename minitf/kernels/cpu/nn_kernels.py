"""Kernels of the neural-network ops: activations, softmax, bias_add, losses.

Written once against `ctx.xp`, so they serve CPU and GPU alike. Every
exponential is taken of `logits - max(logits)`, which is <= 0: the largest
term is exp(0) = 1, so nothing overflows however large the logits are, and
the log of the sum is at least log(1) = 0, so nothing underflows to log(0).

Then come the backward ops of the activations and of bias_add, and
convolution and pooling (Conv2D, MaxPool, AvgPool and their backward ops),
computed the im2col way: the input pixels under every window are copied into
one big matrix, so that a convolution is a single matrix product (see
`_Windows`). These too are written against `ctx.xp`, with only slicing,
stacking and matmul, so they serve any array module.

The 3-D convolution and poolings use the same windows with a depth axis.
The file ends with DynamicPartition and ParallelDynamicStitch, the two
data-flow ops a partitioned embedding lookup is built from, and the
fractional poolings, whose regions are 0/1 matrices over the rows and the
columns.

Mirrors `tensorflow/core/kernels/relu_op.h`, `softplus_op.h`, `softmax_op_functor.h`,
`bias_op.cc`, `l2loss_op.cc`, `xent_op.h`, `sparse_xent_op.h`, `conv_ops.cc`,
`conv_grad_input_ops.cc`, `conv_grad_filter_ops.cc`, `maxpooling_op.cc`,
`avgpooling_op.cc`, `conv_ops_3d.cc`, `conv_grad_ops_3d.cc`, `pooling_ops_3d.cc`,
`dynamic_partition_op.cc`, `dynamic_stitch_op.cc`, `fractional_max_pool_op.cc` and
`fractional_avg_pool_op.cc`.
"""

import itertools
import math

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import max_identity
from minitf.kernels.kernel_util import shape_text


# --- activations ---------------------------------------------------------------------

@register_kernel("Relu", ALL_DEVICE_TYPES, forwards_inputs=True)
def relu(ctx, features):
    out = ctx.forward_input(0, features, features.shape) if ctx.may_forward else None
    return ctx.xp.maximum(features, 0, out=out)


@register_kernel("Relu6", ALL_DEVICE_TYPES)
def relu6(ctx, features):
    return ctx.xp.minimum(ctx.xp.maximum(features, 0), 6)


@register_kernel("Elu", ALL_DEVICE_TYPES)
def elu(ctx, features):
    xp = ctx.xp
    # expm1 only of the non-positive part: exp of a large positive value would overflow.
    return xp.where(features > 0, features, xp.expm1(xp.minimum(features, 0)))


@register_kernel("Softplus", ALL_DEVICE_TYPES)
def softplus(ctx, features):
    # logaddexp(x, 0) = log(exp(x) + exp(0)), computed without overflow.
    return ctx.xp.logaddexp(features, ctx.xp.zeros_like(features))


# SELU's constants: with them, a layer keeps zero mean and unit variance (Klambauer et al.).
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


@register_kernel("Selu", ALL_DEVICE_TYPES)
def selu(ctx, features):
    xp = ctx.xp
    negative = _SELU_SCALE * _SELU_ALPHA * xp.expm1(xp.minimum(features, 0))
    return xp.where(features > 0, _SELU_SCALE * features, negative).astype(features.dtype)


@register_kernel("LeakyRelu", ALL_DEVICE_TYPES)
def leaky_relu(ctx, features, *, alpha):
    return ctx.xp.where(features > 0, features, features * features.dtype.type(alpha))


@register_kernel("Softsign", ALL_DEVICE_TYPES)
def softsign(ctx, features):
    return features / (1 + ctx.xp.abs(features))


# --- softmax -------------------------------------------------------------------------

def _check_has_dimensions(logits):
    if logits.ndim < 1:
        raise invalid("logits must have >= 1 dimension, got %s" % shape_text(logits.shape))


def _shifted_logits(xp, logits):
    """logits - max(logits) along the last axis: every value <= 0."""
    return logits - xp.max(logits, axis=-1, keepdims=True)


def _log_sum_exp_of_shifted(xp, shifted):
    return xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))


@register_kernel("Softmax", ALL_DEVICE_TYPES)
def softmax(ctx, logits):
    _check_has_dimensions(logits)
    if logits.size == 0:
        return logits
    xp = ctx.xp
    exps = xp.exp(_shifted_logits(xp, logits))
    return exps / xp.sum(exps, axis=-1, keepdims=True)


@register_kernel("LogSoftmax", ALL_DEVICE_TYPES)
def log_softmax(ctx, logits):
    _check_has_dimensions(logits)
    if logits.size == 0:
        return logits
    xp = ctx.xp
    shifted = _shifted_logits(xp, logits)
    return shifted - _log_sum_exp_of_shifted(xp, shifted)


# --- bias_add and l2_loss ---------------------------------------------------------------

@register_kernel("BiasAdd", ALL_DEVICE_TYPES, forwards_inputs=True)
def bias_add(ctx, value, bias, *, data_format):
    if value.ndim < 2:
        raise invalid("Input tensor must be at least 2D: %s" % shape_text(value.shape))
    if bias.ndim != 1:
        raise invalid("Biases must be 1D: %s" % shape_text(bias.shape))
    channel_axis = 1 if data_format == "NCHW" else value.ndim - 1
    if bias.shape[0] != value.shape[channel_axis]:
        raise invalid("Must provide as many biases as the %s dimension of the input tensor: "
                      "%s vs. %s" % ("channel" if data_format == "NCHW" else "last",
                                     shape_text(bias.shape), shape_text(value.shape)))
    # Give the bias trailing length-1 axes so it broadcasts along the channel axis.
    trailing = value.ndim - 1 - channel_axis
    bias = ctx.xp.reshape(bias, (bias.shape[0],) + (1,) * trailing)
    out = ctx.forward_input(0, value, value.shape) if ctx.may_forward else None
    return ctx.xp.add(value, bias, out=out)


@register_kernel("L2Loss", ALL_DEVICE_TYPES)
def l2_loss(ctx, t):
    return ctx.xp.sum(t * t) / 2


# --- cross entropies ---------------------------------------------------------------------

@register_kernel("SoftmaxCrossEntropyWithLogits", ALL_DEVICE_TYPES)
def softmax_cross_entropy_with_logits(ctx, features, labels):
    """loss = -sum(labels * log_softmax(features)); backprop = softmax(features) - labels."""
    xp = ctx.xp
    _check_broadcastable_matrices(features, labels)
    features, labels = xp.broadcast_arrays(features, labels)
    if features.size == 0:
        return xp.sum(features, axis=-1), features - labels
    shifted = _shifted_logits(xp, features)
    log_sum_exp = _log_sum_exp_of_shifted(xp, shifted)
    loss = xp.sum(labels * (log_sum_exp - shifted), axis=-1)
    backprop = xp.exp(shifted - log_sum_exp) - labels
    return loss, backprop


def _check_broadcastable_matrices(features, labels):
    if features.ndim != 2 or labels.ndim != 2:
        raise invalid("logits and labels must be either 2-dimensional, or broadcasted to be "
                      "2-dimensional")
    if any(f != b and 1 not in (f, b) for f, b in zip(features.shape, labels.shape)):
        raise invalid("logits and labels must be broadcastable: logits_size=%s labels_size=%s"
                      % (shape_text(features.shape), shape_text(labels.shape)))


@register_kernel("SparseSoftmaxCrossEntropyWithLogits", ALL_DEVICE_TYPES)
def sparse_softmax_cross_entropy_with_logits(ctx, features, labels):
    """loss = -log_softmax(features)[label]; backprop = softmax(features) - one_hot(label)."""
    xp = ctx.xp
    _check_sparse_inputs(ctx, features, labels)
    batch, num_classes = features.shape
    if features.size == 0:
        return xp.sum(features, axis=-1), features
    shifted = _shifted_logits(xp, features)
    log_sum_exp = _log_sum_exp_of_shifted(xp, shifted)
    is_label = xp.arange(num_classes) == xp.reshape(labels, (batch, 1))  # one-hot, as bools
    loss = xp.sum(xp.where(is_label, log_sum_exp - shifted, xp.zeros_like(shifted)), axis=-1)
    probabilities = xp.exp(shifted - log_sum_exp)
    backprop = xp.where(is_label, probabilities - 1, probabilities)
    return loss, backprop


def _check_sparse_inputs(ctx, features, labels):
    if features.ndim != 2:
        raise invalid("logits must be 2-D, but got shape %s" % shape_text(features.shape))
    if labels.ndim != 1:
        raise invalid("labels must be 1-D, but got shape %s" % shape_text(labels.shape))
    if features.shape[0] != labels.shape[0]:
        raise invalid("logits and labels must have the same first dimension, got logits "
                      "shape %s and labels shape %s" % (shape_text(features.shape),
                                                        shape_text(labels.shape)))
    if features.shape[1] == 0 and features.shape[0] > 0:
        raise invalid("Must have at least one class, but got logits shape %s"
                      % shape_text(features.shape))
    host_labels = ctx.device.copy_to_host(labels)
    bad = (host_labels < 0) | (host_labels >= features.shape[1])
    if bad.any():
        raise invalid("Received a label value of %d which is outside the valid range of "
                      "[0, %d).  Label values: %s"
                      % (host_labels[bad][0], features.shape[1],
                         " ".join(str(v) for v in host_labels.tolist())))


# --- the backward ops of the activations and of bias_add ----------------------------------

def _check_same_shape(gradients, other, other_name):
    if tuple(gradients.shape) != tuple(other.shape):
        raise invalid("gradients and %s must be the same shape: %s vs %s"
                      % (other_name, shape_text(gradients.shape), shape_text(other.shape)))


@register_kernel("ReluGrad", ALL_DEVICE_TYPES, forwards_inputs=True)
def relu_grad(ctx, gradients, features):
    _check_same_shape(gradients, features, "features")
    out = ctx.forward_input(0, gradients, gradients.shape) if ctx.may_forward else None
    # TF's formula; a multiply is cheaper than a select.
    return ctx.xp.multiply(gradients, features > 0, out=out)


@register_kernel("Relu6Grad", ALL_DEVICE_TYPES)
def relu6_grad(ctx, gradients, features):
    _check_same_shape(gradients, features, "features")
    inside = (features > 0) & (features < 6)
    return ctx.xp.where(inside, gradients, ctx.xp.zeros_like(gradients))


@register_kernel("EluGrad", ALL_DEVICE_TYPES)
def elu_grad(ctx, gradients, outputs):
    _check_same_shape(gradients, outputs, "outputs")
    # For x < 0, elu(x) = exp(x) - 1, whose derivative exp(x) is elu(x) + 1.
    return ctx.xp.where(outputs < 0, gradients * (outputs + 1), gradients)


@register_kernel("SoftplusGrad", ALL_DEVICE_TYPES)
def softplus_grad(ctx, gradients, features):
    _check_same_shape(gradients, features, "features")
    xp = ctx.xp
    # sigmoid(x) = exp(-log(1 + exp(-x))): logaddexp keeps it finite for any x.
    sigmoid = xp.exp(-xp.logaddexp(xp.zeros_like(features), -features))
    return gradients * sigmoid


@register_kernel("SeluGrad", ALL_DEVICE_TYPES)
def selu_grad(ctx, gradients, outputs):
    _check_same_shape(gradients, outputs, "outputs")
    # For x <= 0, selu(x) = scale * alpha * (exp(x) - 1): its derivative is selu(x) + scale * alpha.
    negative = gradients * (outputs + outputs.dtype.type(_SELU_SCALE * _SELU_ALPHA))
    return ctx.xp.where(outputs > 0, gradients * gradients.dtype.type(_SELU_SCALE), negative)


@register_kernel("LeakyReluGrad", ALL_DEVICE_TYPES)
def leaky_relu_grad(ctx, gradients, features, *, alpha):
    _check_same_shape(gradients, features, "features")
    return ctx.xp.where(features > 0, gradients, gradients * gradients.dtype.type(alpha))


@register_kernel("SoftsignGrad", ALL_DEVICE_TYPES)
def softsign_grad(ctx, gradients, features):
    _check_same_shape(gradients, features, "features")
    denominator = 1 + ctx.xp.abs(features)
    return gradients / (denominator * denominator)


@register_kernel("BiasAddGrad", ALL_DEVICE_TYPES)
def bias_add_grad(ctx, out_backprop, *, data_format):
    nchw = data_format == "NCHW"
    if out_backprop.ndim < (3 if nchw else 2):
        raise invalid("Input tensor must be at least %dD: %s"
                      % (3 if nchw else 2, shape_text(out_backprop.shape)))
    channel_axis = 1 if nchw else out_backprop.ndim - 1
    other_axes = tuple(a for a in range(out_backprop.ndim) if a != channel_axis)
    return ctx.xp.sum(out_backprop, axis=other_axes, dtype=out_backprop.dtype)


# --- convolution and pooling: sliding windows, the im2col way ----------------------------------

def _output_size_and_pads(size, window, stride, dilation, padding, explicit_pads):
    """The output length along one spatial axis, and the (before, after) padding it needs.

    SAME pads just enough for ceil(size / stride) windows, the odd pixel at the end.
    """
    effective_window = (window - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + effective_window - size, 0)
        return out, (total // 2, total - total // 2)
    before, after = explicit_pads if padding == "EXPLICIT" else (0, 0)
    padded = size + before + after
    if padded < effective_window:
        raise invalid("Computed output size would be negative: %d [input_size: %d, "
                      "effective_filter_size: %d, stride: %d]"
                      % ((padded - effective_window) // stride + 1, size, effective_window, stride))
    return (padded - effective_window) // stride + 1, (before, after)


def _strided_run(start, count, step):
    """The slice of `count` indices start, start + step, ... (empty when count is 0)."""
    if count == 0:
        return slice(0, 0)
    return slice(start, start + step * (count - 1) + 1, step)


# How many bytes of im2col patches one matrix product takes at a time (`batch_chunks`).
_PATCH_CHUNK_BYTES = 2 << 20


class _Windows:
    """Where a window sliding over the spatial axes of a channels-last tensor falls.

    The tensor is [N, spatial..., C]: NHWC for the 2-D ops, NDHWC for the
    3-D ones. A window of kh x kw (or kd x kh x kw) *taps*. For each tap
    (i, j), the padded-input pixels it touches, over all output positions,
    form one strided slice:

        rows i * dilation_h, + stride_h, ...   (out_height of them)
        cols j * dilation_w, + stride_w, ...   (out_width of them)

    Stacking the slices of all taps gives the patches, [N, out..., taps, C]
    (im2col): a convolution is then one matrix product with the filter, a
    pooling a max or a mean over the taps. Gradients go the other way
    (col2im): each tap's slice of values is added back where it was taken
    from; windows that overlap add up. Only the taps are looped over, never
    the pixels.
    """

    def __init__(self, input_shape, window, strides, dilations, padding, explicit_pads):
        self.input_shape = tuple(int(d) for d in input_shape)  # [N, spatial..., C]
        self.window = tuple(window)
        self.strides = tuple(strides)
        self.dilations = tuple(dilations)
        sizes_and_pads = [_output_size_and_pads(*axis, padding, pads) for axis, pads in zip(
            zip(self.input_shape[1:-1], self.window, self.strides, self.dilations),
            explicit_pads)]
        self.output_spatial = tuple(size for size, _ in sizes_and_pads)
        self.pads = tuple(pads for _, pads in sizes_and_pads)  # (before, after) per axis

    @classmethod
    def for_conv(cls, input_shape, filter_shape, strides, dilations, padding, explicit_paddings,
                 data_format):
        window = filter_shape[:len(input_shape) - 2]
        return cls(input_shape, window, _spatial(strides, data_format),
                   _spatial(dilations, data_format), padding,
                   _explicit_pairs(explicit_paddings, data_format))

    @classmethod
    def for_pool(cls, input_shape, ksize, strides, padding, data_format):
        _check_spatial_only(ksize, strides, data_format)
        spatial_rank = len(ksize) - 2
        return cls(input_shape, _spatial(ksize, data_format), _spatial(strides, data_format),
                   (1,) * spatial_rank, padding, ((0, 0),) * spatial_rank)

    @property
    def num_taps(self):
        return math.prod(self.window)

    def output_shape(self, channels):
        return (self.input_shape[0],) + self.output_spatial + (channels,)

    def _interior(self):
        """The index of the part of a padded array where the input lies."""
        return (slice(None),) + tuple(slice(before, before + size) for (before, _), size in zip(
            self.pads, self.input_shape[1:-1])) + (slice(None),)

    def _padded_shape(self, batch, channels):
        return (batch,) + tuple(size + before + after for size, (before, after) in zip(
            self.input_shape[1:-1], self.pads)) + (channels,)

    def pad(self, xp, x, value):
        """`x` (any batch and channels) surrounded by `value` as the padding says."""
        if not any(before or after for before, after in self.pads):
            return x
        padded = xp.full(self._padded_shape(x.shape[0], x.shape[-1]), value, dtype=x.dtype)
        padded[self._interior()] = x
        return padded

    def crop(self, padded):
        """The inverse of `pad`: the part of a padded array where the input lies."""
        return padded[self._interior()]

    def tap_indices(self):
        """For each tap, in row-major order, the index of its strided view of a padded array."""
        for tap in itertools.product(*(range(size) for size in self.window)):
            yield (slice(None),) + tuple(
                _strided_run(offset * dilation, count, stride) for offset, dilation, count, stride
                in zip(tap, self.dilations, self.output_spatial, self.strides)) + (slice(None),)

    def extract_patches(self, xp, padded):
        """im2col: [N, out..., taps, C], the pixels of `padded` under each tap."""
        if type(padded) is np.ndarray:
            return self._strided_patches(padded)
        return xp.stack([padded[index] for index in self.tap_indices()], axis=-2)

    def _strided_patches(self, padded):
        """`extract_patches` of a NumPy array: one strided view of every window at once,
        copied in one go (NumPy's loop, not a slice and a stack per tap: about 3x faster)."""
        axis_strides = padded.strides[1:-1]
        shape = ((padded.shape[0],) + self.output_spatial + self.window + (padded.shape[-1],))
        strides = ((padded.strides[0],)
                   + tuple(s * step for s, step in zip(axis_strides, self.strides))
                   + tuple(s * dilation for s, dilation in zip(axis_strides, self.dilations))
                   + (padded.strides[-1],))
        windows = np.lib.stride_tricks.as_strided(padded, shape, strides, writeable=False)
        return np.ascontiguousarray(windows).reshape(
            (padded.shape[0],) + self.output_spatial + (self.num_taps, padded.shape[-1]))

    def scatter_patches(self, xp, patches):
        """col2im, the transpose of extract_patches: an input-shaped sum of the patches
        (of the images `patches` has: the whole batch, or a chunk of it)."""
        padded = xp.zeros(self._padded_shape(patches.shape[0], patches.shape[-1]),
                          dtype=patches.dtype)
        for tap, index in enumerate(self.tap_indices()):
            padded[index] += patches[..., tap, :]
        return self.crop(padded)

    def batch_chunks(self, row_bytes):
        """Slices of the batch whose patches, `row_bytes` per output pixel, fit in a cache.

        im2col copies every input pixel once per tap: for a whole batch the
        patches are tens of megabytes, written to memory and read back by
        the matrix product. A few images at a time, they are still in the
        cache when the product reads them (what TensorFlow's Eigen
        contraction does with its packed blocks).
        """
        batch = self.input_shape[0]
        per_image = max(1, math.prod(self.output_spatial) * row_bytes)
        images = max(1, min(batch, _PATCH_CHUNK_BYTES // per_image))
        return [slice(start, min(start + images, batch)) for start in range(0, batch, images)]

    def check_output(self, tensor, channels, what):
        expected = self.output_shape(channels)
        if tuple(tensor.shape) != expected:
            raise invalid("%s must have shape %s (the output shape for this input, window, "
                          "strides and padding), got %s" % (what, shape_text(expected),
                                                            shape_text(tensor.shape)))


def _spatial(values, data_format):
    """The spatial entries ((height, width), or (depth, height, width)) of a per-axis attr."""
    return tuple(values[2:] if data_format.startswith("NC") else values[1:-1])


def _explicit_pairs(explicit_paddings, data_format):
    if not explicit_paddings:
        return ((0, 0),) * (len(data_format) - 2)
    pairs = [tuple(explicit_paddings[2 * i:2 * i + 2]) for i in range(4)]
    return _spatial(pairs, data_format)


def _check_spatial_only(ksize, strides, data_format):
    channel = 1 if data_format.startswith("NC") else len(ksize) - 1
    if ksize[0] != 1 or strides[0] != 1 or ksize[channel] != 1 or strides[channel] != 1:
        raise invalid("Pooling is not yet supported on the batch or depth dimension "
                      "(minitf pools over height and width only).")


def _to_nhwc(xp, x, data_format):
    return xp.transpose(x, (0, 2, 3, 1)) if data_format == "NCHW" else x


def _from_nhwc(xp, x, data_format):
    return xp.transpose(x, (0, 3, 1, 2)) if data_format == "NCHW" else x


def _nhwc_shape(shape, data_format):
    return (shape[0], shape[2], shape[3], shape[1]) if data_format == "NCHW" else tuple(shape)


def _check_rank_4(name, x):
    if x.ndim != 4:
        raise invalid("%s must be 4-dimensional: %s" % (name, shape_text(x.shape)))


def _host_shape(ctx, name, sizes, rank=4):
    """A `rank`-element shape input (input_sizes, filter_sizes, ...) as a tuple of ints."""
    host = ctx.device.copy_to_host(sizes).reshape(-1)
    if sizes.ndim != 1 or host.size != rank:
        raise invalid("%s must be a vector of %d ints, got shape %s"
                      % (name, rank, shape_text(sizes.shape)))
    if (host < 0).any():
        raise invalid("%s must not be negative, got %s" % (name, host.tolist()))
    return tuple(int(d) for d in host)


def _check_conv_operands(x_channels_last, filter_shape):
    if x_channels_last.shape[-1] != filter_shape[-2]:
        raise invalid("input and filter must have the same depth: %d vs %d"
                      % (x_channels_last.shape[-1], filter_shape[-2]))


def _backprop_input_operands(ctx, input_sizes, filter, out_backprop, data_format):  # noqa: A002
    """The checked NHWC input shape and NHWC `out_backprop` of an input-gradient op."""
    _check_rank_4("filter", filter)
    _check_rank_4("out_backprop", out_backprop)
    input_shape = _nhwc_shape(_host_shape(ctx, "input_sizes", input_sizes), data_format)
    if input_shape[3] != filter.shape[2]:
        raise invalid("input and filter must have the same depth: %d vs %d"
                      % (input_shape[3], filter.shape[2]))
    return input_shape, _to_nhwc(ctx.xp, out_backprop, data_format)


def _backprop_filter_operands(ctx, input, filter_sizes, out_backprop, data_format):  # noqa: A002
    """The NHWC input, checked filter shape and NHWC `out_backprop` of a filter-gradient op."""
    _check_rank_4("input", input)
    _check_rank_4("out_backprop", out_backprop)
    filter_shape = _host_shape(ctx, "filter_sizes", filter_sizes)
    x = _to_nhwc(ctx.xp, input, data_format)
    _check_conv_operands(x, filter_shape)
    return x, filter_shape, _to_nhwc(ctx.xp, out_backprop, data_format)


@register_kernel("Conv2D", ALL_DEVICE_TYPES)
def conv2d(ctx, input, filter, *, strides, padding, explicit_paddings,  # noqa: A002
           data_format, dilations):
    """One matrix product: [N*out_h*out_w, taps*C_in] patches times [taps*C_in, C_out] filter."""
    xp = ctx.xp
    _check_rank_4("input", input)
    _check_rank_4("filter", filter)
    x = _to_nhwc(xp, input, data_format)
    _check_conv_operands(x, filter.shape)
    windows = _Windows.for_conv(x.shape, filter.shape, strides, dilations, padding,
                                explicit_paddings, data_format)
    return _from_nhwc(xp, _convolve(xp, windows, x, filter), data_format)


def _convolve(xp, windows, x, filter):  # noqa: A002
    """Channels last: [N*out..., taps*C_in] patches times the [taps*C_in, C_out] filter, a few
    images at a time (`_Windows.batch_chunks`)."""
    padded = windows.pad(xp, x, 0)
    out_channels = filter.shape[-1]
    filter_rows = xp.reshape(filter, (-1, out_channels))
    row_length = windows.num_taps * x.shape[-1]
    output = xp.empty(windows.output_shape(out_channels), dtype=x.dtype)
    for images in windows.batch_chunks(row_length * x.dtype.itemsize):
        rows = xp.reshape(windows.extract_patches(xp, padded[images]), (-1, row_length))
        output[images] = xp.reshape(xp.matmul(rows, filter_rows), output[images].shape)
    return output


@register_kernel("Conv2DBackpropInput", ALL_DEVICE_TYPES)
def conv2d_backprop_input(ctx, input_sizes, filter, out_backprop, *, strides, padding,
                          explicit_paddings, data_format, dilations):
    """Each output gradient times the filter gives its patch's gradient; col2im sums them."""
    xp = ctx.xp
    input_shape, grad = _backprop_input_operands(ctx, input_sizes, filter, out_backprop,
                                                 data_format)
    windows = _Windows.for_conv(input_shape, filter.shape, strides, dilations, padding,
                                explicit_paddings, data_format)
    windows.check_output(grad, filter.shape[3], "Conv2DBackpropInput: out_backprop")
    return _from_nhwc(xp, _convolve_backprop_input(xp, windows, filter, grad), data_format)


def _convolve_backprop_input(xp, windows, filter, grad):  # noqa: A002
    """Channels last: each output gradient times the filter is its patch's gradient; col2im."""
    out_channels = filter.shape[-1]
    # A contiguous copy of the (small) transposed filter: NumPy's matmul with a
    # transposed view of it can be many times slower.
    filter_rows = xp.ascontiguousarray(xp.transpose(xp.reshape(filter, (-1, out_channels))))
    in_channels = filter.shape[-2]
    input_grad = xp.empty(windows.input_shape, dtype=grad.dtype)
    for images in windows.batch_chunks(windows.num_taps * in_channels * grad.dtype.itemsize):
        patch_grads = xp.matmul(xp.reshape(grad[images], (-1, out_channels)), filter_rows)
        patch_grads = xp.reshape(patch_grads, tuple(grad[images].shape[:-1])
                                 + (windows.num_taps, in_channels))
        input_grad[images] = windows.scatter_patches(xp, patch_grads)
    return input_grad


@register_kernel("Conv2DBackpropFilter", ALL_DEVICE_TYPES)
def conv2d_backprop_filter(ctx, input, filter_sizes, out_backprop, *, strides,  # noqa: A002
                           padding, explicit_paddings, data_format, dilations):
    """The patches, transposed, times the output gradients: [taps*C_in, C_out]."""
    xp = ctx.xp
    x, filter_shape, grad = _backprop_filter_operands(ctx, input, filter_sizes, out_backprop,
                                                      data_format)
    windows = _Windows.for_conv(x.shape, filter_shape, strides, dilations, padding,
                                explicit_paddings, data_format)
    windows.check_output(grad, filter_shape[3], "Conv2DBackpropFilter: out_backprop")
    return _convolve_backprop_filter(xp, windows, x, grad, filter_shape)


def _convolve_backprop_filter(xp, windows, x, grad, filter_shape):
    """Channels last: the patches, transposed, times the output gradients, summed over
    chunks of the batch."""
    padded = windows.pad(xp, x, 0)
    row_length = windows.num_taps * x.shape[-1]
    out_channels = filter_shape[-1]
    filter_grad = xp.zeros((row_length, out_channels), dtype=x.dtype)
    for images in windows.batch_chunks(row_length * x.dtype.itemsize):
        rows = xp.reshape(windows.extract_patches(xp, padded[images]), (-1, row_length))
        filter_grad += xp.matmul(xp.transpose(rows),
                                 xp.reshape(grad[images], (-1, out_channels)))
    return xp.reshape(filter_grad, filter_shape)


def _max_pool_winners(xp, windows, x):
    """[N, out..., C]: the tap holding each window's maximum (the first, on ties)."""
    patches = windows.extract_patches(xp, windows.pad(xp, x, max_identity(x.dtype)))
    return xp.argmax(patches, axis=-2)


def _max_pool(xp, windows, x):
    """The running maximum over the taps' strided views: no patches are stacked."""
    padded = windows.pad(xp, x, max_identity(x.dtype))
    taps = windows.tap_indices()
    maxima = xp.array(padded[next(taps)])
    for index in taps:
        xp.maximum(maxima, padded[index], out=maxima)  # NaN wins, as in np.max
    return maxima


def _max_pool_backprop(xp, windows, x, grad):
    """Each window's gradient goes to the input element that won its max, as in TF's CPU kernel.

    The winner is the first tap (in row-major order) holding the window's
    maximum. Tap by tap, the windows it wins that no earlier tap won get
    their gradient added where the tap reads.
    """
    maxima = _max_pool(xp, windows, x)
    nan_windows = maxima != maxima  # where NaN is the maximum, the first NaN wins
    if not nan_windows.any():
        nan_windows = None
    padded = windows.pad(xp, x, max_identity(x.dtype))
    padded_grad = xp.zeros(padded.shape, dtype=grad.dtype)
    claimed = None  # the windows an earlier tap has won
    zero = xp.zeros((), dtype=grad.dtype)
    for index in windows.tap_indices():
        tap = padded[index]
        wins = tap == maxima
        if nan_windows is not None:
            wins |= nan_windows & (tap != tap)
        if claimed is None:
            claimed = wins.copy()
        else:
            wins &= ~claimed
            claimed |= wins
        padded_grad[index] += xp.where(wins, grad, zero)
    return windows.crop(padded_grad)


def _max_pool_grad_grad(xp, windows, x, grad):
    """For each window, the input-shaped `grad` at the element that won the window's max."""
    if tuple(grad.shape) != tuple(x.shape):
        raise invalid("grad must have the shape of orig_input: %s vs %s"
                      % (shape_text(grad.shape), shape_text(x.shape)))
    winners = _max_pool_winners(xp, windows, x)
    grad_patches = windows.extract_patches(xp, windows.pad(xp, grad, 0))
    picked = xp.take_along_axis(grad_patches, winners[..., None, :], axis=-2)
    return picked[..., 0, :]


@register_kernel("MaxPool", ALL_DEVICE_TYPES)
def max_pool(ctx, input, *, ksize, strides, padding, data_format):  # noqa: A002
    """The running maximum over the taps' views: no [N, h, w, taps, C] patches are made."""
    xp = ctx.xp
    _check_rank_4("input", input)
    x = _to_nhwc(xp, input, data_format)
    windows = _Windows.for_pool(x.shape, ksize, strides, padding, data_format)
    return _from_nhwc(xp, _max_pool(xp, windows, x), data_format)


@register_kernel("MaxPoolGrad", ALL_DEVICE_TYPES)
def max_pool_grad(ctx, orig_input, orig_output, grad, *, ksize, strides, padding,
                  data_format):
    """Each window's gradient goes to the input element that won its max, as in TF's CPU kernel.

    The winner is the first tap (in row-major order) holding the window's
    maximum. Tap by tap, the windows it wins that no earlier tap won get
    their gradient added where the tap reads. The maxima are recomputed
    from `orig_input`; `orig_output` is not needed.
    """
    xp = ctx.xp
    _check_rank_4("orig_input", orig_input)
    x = _to_nhwc(xp, orig_input, data_format)
    grad = _to_nhwc(xp, grad, data_format)
    windows = _Windows.for_pool(x.shape, ksize, strides, padding, data_format)
    windows.check_output(grad, x.shape[3], "MaxPoolGrad: grad")
    return _from_nhwc(xp, _max_pool_backprop(xp, windows, x, grad), data_format)


@register_kernel("MaxPoolGradGrad", ALL_DEVICE_TYPES)
def max_pool_grad_grad(ctx, orig_input, orig_output, grad, *, ksize, strides, padding,
                       data_format):
    """For each window, the input-shaped `grad` at the element that won the window's max."""
    xp = ctx.xp
    _check_rank_4("orig_input", orig_input)
    x = _to_nhwc(xp, orig_input, data_format)
    grad = _to_nhwc(xp, grad, data_format)
    windows = _Windows.for_pool(x.shape, ksize, strides, padding, data_format)
    return _from_nhwc(xp, _max_pool_grad_grad(xp, windows, x, grad), data_format)



# --- max pooling that says where each maximum was ---------------------------------------------

def _argmax_positions(xp, windows, winners, include_batch_in_index):
    """The flat index in the (NHWC) input of each window's winning tap.

    ((b * height + y) * width + x) * channels + c, without the b term unless
    `include_batch_in_index`.
    """
    n, height, width, channels = windows.input_shape
    out_h, out_w = windows.output_spatial
    (top, _), (left, _) = windows.pads
    tap_row, tap_col = winners // windows.window[1], winners % windows.window[1]
    rows = xp.arange(out_h).reshape(1, -1, 1, 1) * windows.strides[0] + tap_row - top
    cols = xp.arange(out_w).reshape(1, 1, -1, 1) * windows.strides[1] + tap_col - left
    index = (rows * width + cols) * channels + xp.arange(channels).reshape(1, 1, 1, -1)
    if include_batch_in_index:
        index = index + xp.arange(n).reshape(-1, 1, 1, 1) * (height * width * channels)
    return index


def _batch_offsets(xp, argmax, input_shape, include_batch_in_index):
    """`argmax` as indices into the whole flattened input."""
    if include_batch_in_index:
        return argmax
    per_example = input_shape[1] * input_shape[2] * input_shape[3]
    return argmax + xp.arange(argmax.shape[0]).reshape(-1, 1, 1, 1) * per_example


@register_kernel("MaxPoolWithArgmax", ALL_DEVICE_TYPES)
def max_pool_with_argmax(ctx, input, *, ksize, strides, Targmax, padding,  # noqa: A002, N803
                         include_batch_in_index):
    """MaxPool (NHWC) and, for each maximum, its flat index in the input (the first, on ties)."""
    xp = ctx.xp
    _check_rank_4("input", input)
    windows = _Windows.for_pool(input.shape, ksize, strides, padding, "NHWC")
    patches = windows.extract_patches(xp, windows.pad(xp, input, max_identity(input.dtype)))
    winners = xp.argmax(patches, axis=3)
    argmax = _argmax_positions(xp, windows, winners, include_batch_in_index)
    return xp.max(patches, axis=3), argmax.astype(Targmax.as_numpy_dtype)


@register_kernel("MaxPoolGradWithArgmax", ALL_DEVICE_TYPES)
def max_pool_grad_with_argmax(ctx, input, grad, argmax, *, ksize, strides, Targmax,  # noqa: A002
                              padding, include_batch_in_index):
    """Each window's gradient added at the input position `argmax` names."""
    xp = ctx.xp
    _check_rank_4("input", input)
    windows = _Windows.for_pool(input.shape, ksize, strides, padding, "NHWC")
    windows.check_output(grad, input.shape[3], "MaxPoolGradWithArgmax: grad")
    if tuple(argmax.shape) != tuple(grad.shape):
        raise invalid("argmax must have the shape of grad: %s vs %s"
                      % (shape_text(argmax.shape), shape_text(grad.shape)))
    flat = _batch_offsets(xp, argmax.astype(xp.int64), input.shape, include_batch_in_index)
    if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= input.size):
        raise invalid("Invalid argmax: an index is outside the input of %d elements"
                      % input.size)
    output = xp.zeros(input.size, dtype=grad.dtype)
    xp.add.at(output, flat.reshape(-1), grad.reshape(-1))
    return xp.reshape(output, input.shape)



# --- morphological dilation: a max-plus "convolution" -------------------------------------------

def _dilation_operands(xp, input, filter, strides, rates, padding):  # noqa: A002
    """The windows, and each window's taps plus the filter: [N, out_h, out_w, taps, depth]."""
    _check_rank_4("input", input)
    if filter.ndim != 3 or filter.shape[2] != input.shape[3]:
        raise invalid("filter must be 3-dimensional with the input's depth %d: %s"
                      % (input.shape[3], shape_text(filter.shape)))
    windows = _Windows.for_conv(input.shape, filter.shape, strides, rates, padding, [], "NHWC")
    lowest = xp.asarray(-xp.inf if input.dtype.kind == "f" else max_identity(input.dtype),
                        dtype=input.dtype)
    patches = windows.extract_patches(xp, windows.pad(xp, input, lowest))
    return windows, patches + xp.reshape(filter, (1, 1, 1, -1, filter.shape[2]))


@register_kernel("Dilation2D", ALL_DEVICE_TYPES)
def dilation2d(ctx, input, filter, *, strides, rates, padding):  # noqa: A002
    """output[b, y, x, c] = max over taps (i, j) of input[b, y*s + i*r, x*s + j*r, c]
    + filter[i, j, c] (padding never wins)."""
    _, sums = _dilation_operands(ctx.xp, input, filter, strides, rates, padding)
    return ctx.xp.max(sums, axis=3)


def _dilation_winners(xp, windows, sums, out_backprop):
    """[N, out_h, out_w, taps, depth]: `out_backprop` at each window's winning tap, else 0."""
    windows.check_output(out_backprop, sums.shape[-1], "out_backprop")
    winners = xp.argmax(sums, axis=3)
    taps = xp.reshape(xp.arange(windows.num_taps), (1, 1, 1, -1, 1))
    return xp.where(winners[:, :, :, None, :] == taps, out_backprop[:, :, :, None, :],
                    xp.zeros((), dtype=out_backprop.dtype))


@register_kernel("Dilation2DBackpropInput", ALL_DEVICE_TYPES)
def dilation2d_backprop_input(ctx, input, filter, out_backprop, *, strides, rates,  # noqa: A002
                              padding):
    """Each output's gradient goes to the input pixel that won its max."""
    xp = ctx.xp
    windows, sums = _dilation_operands(xp, input, filter, strides, rates, padding)
    return windows.scatter_patches(xp, _dilation_winners(xp, windows, sums, out_backprop))


@register_kernel("Dilation2DBackpropFilter", ALL_DEVICE_TYPES)
def dilation2d_backprop_filter(ctx, input, filter, out_backprop, *, strides,  # noqa: A002
                               rates, padding):
    """Each output's gradient goes to the filter tap that won its max."""
    xp = ctx.xp
    windows, sums = _dilation_operands(xp, input, filter, strides, rates, padding)
    routed = _dilation_winners(xp, windows, sums, out_backprop)
    return xp.reshape(xp.sum(routed, axis=(0, 1, 2)), filter.shape)


def _window_sizes(xp, windows, dtype):
    """[1, out..., 1]: how many real (not padding) input elements each window covers."""
    ones = xp.ones((1,) + windows.input_shape[1:-1] + (1,), dtype=dtype)
    return xp.sum(windows.extract_patches(xp, windows.pad(xp, ones, 0)), axis=-2)


@register_kernel("AvgPool", ALL_DEVICE_TYPES)
def avg_pool(ctx, value, *, ksize, strides, padding, data_format):
    """The window sums divided by the window sizes, padding not counted (as TF does)."""
    xp = ctx.xp
    _check_rank_4("value", value)
    x = _to_nhwc(xp, value, data_format)
    windows = _Windows.for_pool(x.shape, ksize, strides, padding, data_format)
    return _from_nhwc(xp, _avg_pool(xp, windows, x), data_format)


def _avg_pool(xp, windows, x):
    sums = xp.sum(windows.extract_patches(xp, windows.pad(xp, x, 0)), axis=-2)
    return sums / _window_sizes(xp, windows, x.dtype)


@register_kernel("AvgPoolGrad", ALL_DEVICE_TYPES)
def avg_pool_grad(ctx, orig_input_shape, grad, *, ksize, strides, padding, data_format):
    """Each window's gradient, divided by its size, goes to every element of the window."""
    xp = ctx.xp
    _check_rank_4("grad", grad)
    input_shape = _nhwc_shape(_host_shape(ctx, "orig_input_shape", orig_input_shape),
                              data_format)
    grad = _to_nhwc(xp, grad, data_format)
    windows = _Windows.for_pool(input_shape, ksize, strides, padding, data_format)
    windows.check_output(grad, input_shape[3], "AvgPoolGrad: grad")
    return _from_nhwc(xp, _avg_pool_backprop(xp, windows, grad), data_format)


def _avg_pool_backprop(xp, windows, grad):
    """Each window's gradient, divided by its size, goes to every element of the window."""
    shares = grad / _window_sizes(xp, windows, grad.dtype)
    patches = xp.broadcast_to(shares[..., None, :],
                              shares.shape[:-1] + (windows.num_taps, shares.shape[-1]))
    return windows.scatter_patches(xp, patches)


# --- the 3-D convolution and poolings: the same windows over depth, height and width ---------

def _check_rank_5(**tensors):
    for name, x in tensors.items():
        if x.ndim != 5:
            raise invalid("%s must be 5-dimensional: %s" % (name, shape_text(x.shape)))


def _volume_shape_input(ctx, name, sizes, data_format):
    """A 5-element shape input as an NDHWC shape."""
    shape = _host_shape(ctx, name, sizes, rank=5)
    return shape[:1] + shape[2:] + shape[1:2] if data_format == "NCDHW" else shape


def _conv3d_windows(input_shape, filter_shape, strides, dilations, padding, data_format):
    return _Windows.for_conv(input_shape, filter_shape, strides, dilations, padding, [],
                             data_format)


@register_kernel("Conv3D", ALL_DEVICE_TYPES)
def conv3d(ctx, input, filter, *, strides, padding, data_format, dilations):  # noqa: A002
    """Conv2D's one matrix product, with windows of kd x kh x kw taps."""
    xp = ctx.xp
    _check_rank_5(input=input, filter=filter)
    x = _to_channels_last(xp, input, data_format)
    _check_conv_operands(x, filter.shape)
    windows = _conv3d_windows(x.shape, filter.shape, strides, dilations, padding, data_format)
    return _from_channels_last(xp, _convolve(xp, windows, x, filter), data_format)


@register_kernel("Conv3DBackpropInputV2", ALL_DEVICE_TYPES)
def conv3d_backprop_input(ctx, input_sizes, filter, out_backprop, *, strides,  # noqa: A002
                          padding, data_format, dilations):
    xp = ctx.xp
    _check_rank_5(filter=filter, out_backprop=out_backprop)
    input_shape = _volume_shape_input(ctx, "input_sizes", input_sizes, data_format)
    if input_shape[-1] != filter.shape[3]:
        raise invalid("input and filter must have the same depth: %d vs %d"
                      % (input_shape[-1], filter.shape[3]))
    grad = _to_channels_last(xp, out_backprop, data_format)
    windows = _conv3d_windows(input_shape, filter.shape, strides, dilations, padding,
                              data_format)
    windows.check_output(grad, filter.shape[4], "Conv3DBackpropInputV2: out_backprop")
    return _from_channels_last(xp, _convolve_backprop_input(xp, windows, filter, grad),
                               data_format)


@register_kernel("Conv3DBackpropFilterV2", ALL_DEVICE_TYPES)
def conv3d_backprop_filter(ctx, input, filter_sizes, out_backprop, *, strides,  # noqa: A002
                           padding, data_format, dilations):
    xp = ctx.xp
    _check_rank_5(input=input, out_backprop=out_backprop)
    filter_shape = _host_shape(ctx, "filter_sizes", filter_sizes, rank=5)
    x = _to_channels_last(xp, input, data_format)
    _check_conv_operands(x, filter_shape)
    grad = _to_channels_last(xp, out_backprop, data_format)
    windows = _conv3d_windows(x.shape, filter_shape, strides, dilations, padding, data_format)
    windows.check_output(grad, filter_shape[4], "Conv3DBackpropFilterV2: out_backprop")
    return _convolve_backprop_filter(xp, windows, x, grad, filter_shape)


def _pool3d_operands(xp, name, x, ksize, strides, padding, data_format):
    """The windows and the channels-last `x` of a 3-D pooling op."""
    _check_rank_5(**{name: x})
    x = _to_channels_last(xp, x, data_format)
    return _Windows.for_pool(x.shape, ksize, strides, padding, data_format), x


@register_kernel("MaxPool3D", ALL_DEVICE_TYPES)
def max_pool3d(ctx, input, *, ksize, strides, padding, data_format):  # noqa: A002
    return _pool3d(ctx.xp, _max_pool, input, ksize, strides, padding, data_format)


def _pool3d(xp, pool, input, ksize, strides, padding, data_format):  # noqa: A002
    windows, x = _pool3d_operands(xp, "input", input, ksize, strides, padding, data_format)
    return _from_channels_last(xp, pool(xp, windows, x), data_format)


@register_kernel("MaxPool3DGrad", ALL_DEVICE_TYPES)
def max_pool3d_grad(ctx, orig_input, orig_output, grad, *, ksize, strides, padding,
                    data_format, T):  # noqa: N803 - TF's attr name
    def routed(xp, windows, x, grad):
        windows.check_output(grad, x.shape[-1], "MaxPool3DGrad: grad")
        return _max_pool_backprop(xp, windows, x, grad.astype(x.dtype)).astype(T.as_numpy_dtype)
    return _max_pool3d_backward(ctx.xp, routed, orig_input, grad, ksize, strides, padding,
                                data_format)


@register_kernel("MaxPool3DGradGrad", ALL_DEVICE_TYPES)
def max_pool3d_grad_grad(ctx, orig_input, orig_output, grad, *, ksize, strides, padding,
                         data_format):
    return _max_pool3d_backward(ctx.xp, _max_pool_grad_grad, orig_input, grad, ksize, strides,
                                padding, data_format)


def _max_pool3d_backward(xp, compute, orig_input, grad, ksize, strides, padding, data_format):
    """`compute(xp, windows, x, grad)` on the channels-last operands, laid out back."""
    windows, x = _pool3d_operands(xp, "orig_input", orig_input, ksize, strides, padding,
                                  data_format)
    result = compute(xp, windows, x, _to_channels_last(xp, grad, data_format))
    return _from_channels_last(xp, result, data_format)


@register_kernel("AvgPool3D", ALL_DEVICE_TYPES)
def avg_pool3d(ctx, input, *, ksize, strides, padding, data_format):  # noqa: A002
    """The window means, padding not counted, as AvgPool."""
    return _pool3d(ctx.xp, _avg_pool, input, ksize, strides, padding, data_format)


@register_kernel("AvgPool3DGrad", ALL_DEVICE_TYPES)
def avg_pool3d_grad(ctx, orig_input_shape, grad, *, ksize, strides, padding, data_format):
    xp = ctx.xp
    _check_rank_5(grad=grad)
    input_shape = _volume_shape_input(ctx, "orig_input_shape", orig_input_shape, data_format)
    windows = _Windows.for_pool(input_shape, ksize, strides, padding, data_format)
    grad = _to_channels_last(xp, grad, data_format)
    windows.check_output(grad, input_shape[-1], "AvgPool3DGrad: grad")
    return _from_channels_last(xp, _avg_pool_backprop(xp, windows, grad), data_format)


# --- depthwise convolution: a filter (or `multiplier` of them) per input channel ---------------

@register_kernel("DepthwiseConv2dNative", ALL_DEVICE_TYPES)
def depthwise_conv2d_native(ctx, input, filter, *, strides, padding, data_format,  # noqa: A002
                            dilations):
    """out[n, i, j, c * M + m] = sum over taps t of patch[n, i, j, t, c] * filter[t, c, m].

    Each input channel is convolved with its own M filters; the outputs lie
    side by side, channel by channel.
    """
    xp = ctx.xp
    _check_rank_4("input", input)
    _check_rank_4("filter", filter)
    x = _to_nhwc(xp, input, data_format)
    _check_conv_operands(x, filter.shape)
    windows = _Windows.for_conv(x.shape, filter.shape, strides, dilations, padding, [],
                                data_format)
    patches = windows.extract_patches(xp, windows.pad(xp, x, 0))
    filter_taps = xp.reshape(filter, (windows.num_taps,) + tuple(filter.shape[2:]))
    output = xp.einsum("nhwtc,tcm->nhwcm", patches, filter_taps)
    channels = filter.shape[2] * filter.shape[3]
    return _from_nhwc(xp, xp.reshape(output, windows.output_shape(channels)), data_format)


def _depthwise_grad(xp, windows, grad, in_channels, multiplier, what):
    """`grad` (NHWC, C * M channels) checked and split into [N, out_h, out_w, C, M]."""
    windows.check_output(grad, in_channels * multiplier, what)
    return xp.reshape(grad, tuple(grad.shape[:3]) + (in_channels, multiplier))


@register_kernel("DepthwiseConv2dNativeBackpropInput", ALL_DEVICE_TYPES)
def depthwise_conv2d_native_backprop_input(ctx, input_sizes, filter, out_backprop, *, strides,
                                           padding, data_format, dilations):
    """Each output gradient times its channel's filters gives the patch gradients; col2im."""
    xp = ctx.xp
    input_shape, grad = _backprop_input_operands(ctx, input_sizes, filter, out_backprop,
                                                 data_format)
    windows = _Windows.for_conv(input_shape, filter.shape, strides, dilations, padding, [],
                                data_format)
    in_channels, multiplier = filter.shape[2], filter.shape[3]
    grad = _depthwise_grad(xp, windows, grad, in_channels, multiplier,
                           "DepthwiseConv2dNativeBackpropInput: out_backprop")
    filter_taps = xp.reshape(filter, (windows.num_taps, in_channels, multiplier))
    patch_grads = xp.einsum("nhwcm,tcm->nhwtc", grad, filter_taps)
    return _from_nhwc(xp, windows.scatter_patches(xp, patch_grads), data_format)


@register_kernel("DepthwiseConv2dNativeBackpropFilter", ALL_DEVICE_TYPES)
def depthwise_conv2d_native_backprop_filter(ctx, input, filter_sizes,  # noqa: A002
                                            out_backprop, *, strides, padding, data_format,
                                            dilations):
    """Each channel's patches times that channel's output gradients, summed over positions."""
    xp = ctx.xp
    x, filter_shape, grad = _backprop_filter_operands(ctx, input, filter_sizes, out_backprop,
                                                      data_format)
    windows = _Windows.for_conv(x.shape, filter_shape, strides, dilations, padding, [],
                                data_format)
    grad = _depthwise_grad(xp, windows, grad, filter_shape[2], filter_shape[3],
                           "DepthwiseConv2dNativeBackpropFilter: out_backprop")
    patches = windows.extract_patches(xp, windows.pad(xp, x, 0))
    return xp.reshape(xp.einsum("nhwtc,nhwcm->tcm", patches, grad), filter_shape)


# --- top_k and in_top_k ---------------------------------------------------------------------

def _descending_order(xp, x):
    """The indices sorting each row of `x` from the largest value down; ties keep index order.

    A stable ascending sort of the reversed row, reversed back: equal values
    then come lowest index first. NaN counts as the smallest value.
    """
    if x.dtype.kind == "f":
        x = xp.where(xp.isnan(x), xp.asarray(-xp.inf, dtype=x.dtype), x)
    n = x.shape[-1]
    ascending_of_reversed = xp.argsort(x[..., ::-1], axis=-1, kind="stable")
    return (n - 1) - ascending_of_reversed[..., ::-1]


@register_kernel("TopKV2", ALL_DEVICE_TYPES)
def top_k(ctx, input, k, *, sorted):  # noqa: A002 - TF's argument names
    """The k largest entries of each row (last dimension), largest first, and their indices."""
    xp = ctx.xp
    k = int(host_array(ctx, k))
    if k < 0:
        raise invalid("Need k >= 0, got %d" % k)
    if input.ndim < 1:
        raise invalid("input must be >= 1-D, got shape %s" % shape_text(input.shape))
    if input.shape[-1] < k:
        raise invalid("input must have at least k columns. Had %d, needed %d"
                      % (input.shape[-1], k))
    indices = _descending_order(xp, input)[..., :k]
    return xp.take_along_axis(input, indices, axis=-1), indices.astype(xp.int32)


@register_kernel("InTopKV2", ALL_DEVICE_TYPES)
def in_top_k(ctx, predictions, targets, k):
    """Whether the target's prediction is among the k largest of its row.

    It is when fewer than k predictions are strictly larger (ties count in the
    target's favour); a target out of range, or a non-finite prediction in
    the row, gives False.
    """
    xp = ctx.xp
    if predictions.ndim != 2:
        raise invalid("predictions must be 2-dimensional")
    if targets.ndim != 1:
        raise invalid("targets must be 1-dimensional")
    if k.ndim != 0:
        raise invalid("k must be 0 D")
    batch, num_classes = predictions.shape
    if targets.shape[0] != batch:
        raise invalid("First dimension of predictions %d must match length of targets %d"
                      % (batch, targets.shape[0]))
    k = int(host_array(ctx, k))
    in_range = (targets >= 0) & (targets < num_classes)
    safe_targets = xp.where(in_range, targets, xp.zeros_like(targets)).astype(xp.int64)
    target_values = xp.take_along_axis(predictions, safe_targets[:, None], axis=1)
    larger = xp.sum(predictions > target_values, axis=1)
    finite = xp.all(xp.isfinite(predictions), axis=1)
    return in_range & finite & (larger < k)


# --- local response normalization -------------------------------------------------------------

def _depth_window_sums(xp, values, depth_radius):
    """For each depth d, the sum of `values` over depths d - radius .. d + radius (clipped)."""
    depth = values.shape[-1]
    padded = xp.zeros(values.shape[:-1] + (depth + 2 * depth_radius,), dtype=values.dtype)
    padded[..., depth_radius:depth_radius + depth] = values
    sums = xp.zeros_like(values)
    for offset in range(2 * depth_radius + 1):
        sums = sums + padded[..., offset:offset + depth]
    return sums


def _lrn_norms(xp, image, depth_radius, bias, alpha):
    """bias + alpha * (the sum of squares over each depth's window)."""
    return bias + alpha * _depth_window_sums(xp, image * image, depth_radius)


@register_kernel("LRN", ALL_DEVICE_TYPES)
def lrn(ctx, input, *, depth_radius, bias, alpha, beta):  # noqa: A002 - TF's argument name
    """input / (bias + alpha * sum of squares over 2 * depth_radius + 1 depths) ** beta."""
    if input.ndim != 4:
        raise invalid("in must be 4-dimensional")
    xp = ctx.xp
    norms = _lrn_norms(xp, input, depth_radius, bias, alpha)
    return (input * norms ** -beta).astype(input.dtype)


@register_kernel("LRNGrad", ALL_DEVICE_TYPES)
def lrn_grad(ctx, input_grads, input_image, output_image, *, depth_radius, bias, alpha, beta):
    """d out_d / d in_i = [d == i] N_d^-beta - 2 alpha beta in_d in_i N_d^(-beta - 1),
    for i within d's window (N_d: the norm of depth d); windows are symmetric, so the
    sum over d is again a window sum."""
    xp = ctx.xp
    if not (input_grads.ndim == input_image.ndim == output_image.ndim == 4):
        raise invalid("inputs must be 4-dimensional")
    if not (tuple(input_grads.shape) == tuple(input_image.shape)
            == tuple(output_image.shape)):
        raise invalid("input_grads, input_image, and out_image should have the same shape")
    norms = _lrn_norms(xp, input_image, depth_radius, bias, alpha)
    through_norms = _depth_window_sums(
        xp, input_grads * input_image * norms ** (-beta - 1), depth_radius)
    grads = input_grads * norms ** -beta - 2 * alpha * beta * input_image * through_norms
    return grads.astype(input_grads.dtype)


# --- fused batch normalization -----------------------------------------------------------------

def _to_channels_last(xp, x, data_format):
    """`x` with its channel axis last (NCHW and NCDHW are transposed)."""
    if data_format.startswith("NC"):
        return xp.moveaxis(x, 1, -1)
    return x


def _from_channels_last(xp, x, data_format):
    if data_format.startswith("NC"):
        return xp.moveaxis(x, -1, 1)
    return x


def _check_batch_norm_vectors(x, vectors):
    channels = x.shape[-1]
    for name, vector in vectors:
        if vector.ndim != 1:
            raise invalid("%s must be 1-dimensional%s" % (name, shape_text(vector.shape)))
        if vector.shape[0] != channels:
            raise invalid("%s must have the same number of elements as the channels of x, "
                          "got %d and %d" % (name, vector.shape[0], channels))


@register_kernel("FusedBatchNormV3", ALL_DEVICE_TYPES)
def fused_batch_norm(ctx, x, scale, offset, mean, variance, *, epsilon, data_format,
                     is_training):
    """y = scale * (x - mean) / sqrt(variance + epsilon) + offset, per channel.

    Training: mean and variance are the batch's (over every axis but the
    channels); `batch_variance` is returned with Bessel's correction (n / (n - 1))
    for the moving averages, while y uses the biased one, as TensorFlow's
    kernel does. Inference: the given mean and variance are used. The reserve
    spaces keep the mean and (biased) variance used, for the gradient.
    """
    xp = ctx.xp
    if x.ndim not in (4, 5):
        raise invalid("input must be 4 or 5-dimensional%s" % shape_text(x.shape))
    x_last = _to_channels_last(xp, x, data_format).astype(xp.float32)
    vectors = [("scale", scale), ("offset", offset)]
    if not is_training:
        vectors += [("estimated_mean", mean), ("estimated_variance", variance)]
    _check_batch_norm_vectors(x_last, vectors)
    axes = tuple(range(x_last.ndim - 1))
    if is_training:
        count = x_last.size // max(x_last.shape[-1], 1)
        used_mean = xp.mean(x_last, axis=axes)
        used_variance = xp.mean((x_last - used_mean) ** 2, axis=axes)
        corrected = used_variance * (count / max(count - 1, 1))
        batch_mean, batch_variance = used_mean, corrected
    else:
        used_mean, used_variance = mean, variance
        batch_mean, batch_variance = mean, variance
    inverse_std = 1 / xp.sqrt(used_variance + xp.float32(epsilon))
    y = (x_last - used_mean) * (scale * inverse_std) + offset
    y = _from_channels_last(xp, y, data_format).astype(x.dtype)
    return (y, batch_mean.astype(xp.float32), batch_variance.astype(xp.float32),
            used_mean.astype(xp.float32), used_variance.astype(xp.float32),
            xp.zeros((0,), dtype=xp.float32))


@register_kernel("FusedBatchNormGradV3", ALL_DEVICE_TYPES)
def fused_batch_norm_grad(ctx, y_backprop, x, scale, reserve_space_1, reserve_space_2,
                          reserve_space_3, *, epsilon, data_format, is_training):
    """The gradients of y with respect to x, scale and offset.

    reserve_space_1 and 2 are the mean and variance the forward op used (the
    batch's in training, the given ones in inference). In training the mean
    and variance depend on x too, which adds the two centring terms.
    """
    xp = ctx.xp
    if x.ndim not in (4, 5) or tuple(x.shape) != tuple(y_backprop.shape):
        raise invalid("x and y_backprop must be 4 or 5-dimensional and of the same shape, "
                      "got %s and %s" % (shape_text(x.shape), shape_text(y_backprop.shape)))
    x_last = _to_channels_last(xp, x, data_format).astype(xp.float32)
    dy = _to_channels_last(xp, y_backprop, data_format).astype(xp.float32)
    _check_batch_norm_vectors(x_last, [("scale", scale), ("reserve_space_1", reserve_space_1),
                                       ("reserve_space_2", reserve_space_2)])
    axes = tuple(range(x_last.ndim - 1))
    inverse_std = 1 / xp.sqrt(reserve_space_2 + xp.float32(epsilon))
    normalized = (x_last - reserve_space_1) * inverse_std
    offset_backprop = xp.sum(dy, axis=axes)
    scale_backprop = xp.sum(dy * normalized, axis=axes)
    if is_training:
        count = x_last.size // max(x_last.shape[-1], 1)
        dx = (scale * inverse_std) * (dy - offset_backprop / count
                                      - normalized * scale_backprop / count)
    else:
        dx = dy * (scale * inverse_std)
    dx = _from_channels_last(xp, dx, data_format).astype(x.dtype)
    empty = xp.zeros((0,), dtype=xp.float32)
    return (dx, scale_backprop.astype(xp.float32), offset_backprop.astype(xp.float32), empty,
            empty)


# --- the data-flow ops of partitioned embedding lookups ---------------------------------

@register_kernel("DynamicPartition", ALL_DEVICE_TYPES)
def dynamic_partition(ctx, data, partitions, *, num_partitions):
    """outputs[p] = the elements (rows) of `data` where `partitions` == p, in order."""
    if tuple(data.shape[:partitions.ndim]) != tuple(partitions.shape):
        raise invalid("data.shape must start with partitions.shape, got data.shape = %s, "
                      "partitions.shape = %s"
                      % (shape_text(data.shape), shape_text(partitions.shape)))
    host_partitions = ctx.device.copy_to_host(partitions)
    bad = (host_partitions < 0) | (host_partitions >= num_partitions)
    if bad.any():
        index = int(bad.reshape(-1).argmax())
        raise invalid("partitions[%d] = %d is not in [0, %d)"
                      % (index, host_partitions.reshape(-1)[index], num_partitions))
    return [data[partitions == p] for p in range(num_partitions)]


@register_kernel("ParallelDynamicStitch", ALL_DEVICE_TYPES)
def parallel_dynamic_stitch(ctx, *indices_then_data, N):
    """merged[indices[m][i]] = data[m][i]: the inverse of DynamicPartition."""
    xp = ctx.xp
    indices, data = indices_then_data[:N], indices_then_data[N:]
    for m, (index, values) in enumerate(zip(indices, data)):
        if tuple(values.shape[:index.ndim]) != tuple(index.shape):
            raise invalid("data[%d].shape = %s does not start with indices[%d].shape = %s"
                          % (m, shape_text(values.shape), m, shape_text(index.shape)))
    row_shape = tuple(data[0].shape[indices[0].ndim:])
    host_indices = [ctx.device.copy_to_host(index).reshape(-1) for index in indices]
    size = 1 + max((int(i.max()) for i in host_indices if i.size), default=-1)
    merged = xp.zeros((size,) + row_shape, dtype=data[0].dtype)
    for index, values in zip(indices, data):
        if index.size:
            merged[xp.reshape(index, (-1,))] = xp.reshape(values, (-1,) + row_shape)
    return merged


# --- fractional pooling: pooling regions of random sizes k and k + 1 ---------------------------

def _pooling_generator(ctx, seed, seed2, deterministic):
    """The generator of the pooling regions: new per run (from the seeds) when
    `deterministic`, else the node's own, seeded once."""
    if deterministic:
        return np.random.default_rng([seed, seed2])
    if seed == 0 and seed2 == 0:
        return ctx.state.setdefault("generator", np.random.default_rng())
    return ctx.state.setdefault("generator", np.random.default_rng([seed, seed2]))


def _pooling_sequence(generator, input_length, output_length, pseudo_random):
    """The region boundaries 0 = s_0 < s_1 < ... < s_out = input_length, each region
    k = input_length // output_length or k + 1 long (Graham, Fractional Max-Pooling)."""
    if output_length <= 0:
        raise invalid("pooling_ratio is too large: the output would be empty "
                      "(input length %d)" % input_length)
    k = input_length // output_length
    if input_length % output_length == 0:
        lengths = np.full(output_length, k)
    elif pseudo_random:
        alpha = input_length / output_length
        u = generator.random() * min((k + 2) / alpha - 1,
                                     (input_length + 1 - k) / alpha - (output_length - 1))
        cumulative = np.concatenate([[1], np.ceil(alpha * (np.arange(1, output_length) + u)),
                                     [input_length + 1]]).astype(np.int64)
        lengths = np.diff(cumulative)
    else:
        lengths = np.full(output_length, k)
        lengths[:input_length % output_length] += 1
        generator.shuffle(lengths)
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _region_matrix(sequence, input_length, overlapping):
    """[regions, input_length] 0/1: which inputs each region covers (with `overlapping`,
    also the first input of the next region)."""
    positions = np.arange(input_length)
    starts, ends = sequence[:-1, None], sequence[1:, None]
    if overlapping:
        ends = np.minimum(ends + 1, input_length)
    return (positions >= starts) & (positions < ends)


def _fractional_operands(ctx, value, pooling_ratio, pseudo_random, overlapping, deterministic,
                         seed, seed2):
    if value.ndim != 4:
        raise invalid("input must be 4-dimensional: %s" % shape_text(value.shape))
    generator = _pooling_generator(ctx, seed, seed2, deterministic)
    _, height, width, _ = value.shape
    rows = _pooling_sequence(generator, height, int(height / pooling_ratio[1]), pseudo_random)
    cols = _pooling_sequence(generator, width, int(width / pooling_ratio[2]), pseudo_random)
    return rows, cols, _region_matrix(rows, height, overlapping), _region_matrix(
        cols, width, overlapping)


def _masked_max(xp, x, row_regions, col_regions):
    """max over each region: [N, out_h, out_w, C], one region row at a time."""
    lowest = max_identity(x.dtype)
    out = []
    for rows in row_regions:
        band = xp.max(x[:, rows], axis=1)  # [N, W, C]
        out.append(xp.max(xp.where(col_regions[None, :, :, None], band[:, None], lowest),
                          axis=2))
    return xp.stack(out, axis=1)


@register_kernel("FractionalMaxPool")
def fractional_max_pool(ctx, value, *, pooling_ratio, pseudo_random, overlapping,
                        deterministic, seed, seed2):
    rows, cols, row_regions, col_regions = _fractional_operands(
        ctx, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2)
    return _masked_max(ctx.xp, value, row_regions, col_regions), rows, cols


@register_kernel("FractionalAvgPool")
def fractional_avg_pool(ctx, value, *, pooling_ratio, pseudo_random, overlapping,
                        deterministic, seed, seed2):
    """Each region's mean: one product with each region matrix, divided by the sizes."""
    rows, cols, row_regions, col_regions = _fractional_operands(
        ctx, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2)
    sums = np.einsum("ih,nhwc,jw->nijc", row_regions * 1.0, value, col_regions * 1.0)
    sizes = np.outer(row_regions.sum(1), col_regions.sum(1))[None, :, :, None]
    return (sums / sizes).astype(value.dtype), rows, cols


def _regions_from_sequences(row_pooling_sequence, col_pooling_sequence, shape, overlapping):
    return (_region_matrix(row_pooling_sequence, shape[1], overlapping),
            _region_matrix(col_pooling_sequence, shape[2], overlapping))


@register_kernel("FractionalMaxPoolGrad")
def fractional_max_pool_grad(ctx, orig_input, orig_output, out_backprop, row_pooling_sequence,
                             col_pooling_sequence, *, overlapping):
    """Each region's gradient goes to the first (row-major) element holding its maximum."""
    row_regions, col_regions = _regions_from_sequences(row_pooling_sequence,
                                                       col_pooling_sequence,
                                                       orig_input.shape, overlapping)
    if tuple(out_backprop.shape) != (orig_input.shape[0], len(row_regions), len(col_regions),
                                     orig_input.shape[3]):
        raise invalid("out_backprop must have the shape of the pooled output, got %s"
                      % shape_text(out_backprop.shape))
    n, height, width, channels = orig_input.shape
    inside = row_regions[:, None, :, None] & col_regions[None, :, None, :]  # [i, j, h, w]
    lowest = max_identity(orig_input.dtype)
    values = np.where(inside[None, :, :, :, :, None], orig_input[:, None, None], lowest)
    flat = values.reshape(n, len(row_regions), len(col_regions), height * width, channels)
    winners = np.argmax(flat, axis=3)  # [N, out_h, out_w, C], the first maximum
    grad = np.zeros((n, height * width, channels), dtype=out_backprop.dtype)
    batch = np.arange(n)[:, None, None, None]
    channel = np.arange(channels)[None, None, None, :]
    np.add.at(grad, (batch, winners, channel), out_backprop)
    return grad.reshape(orig_input.shape)


@register_kernel("FractionalAvgPoolGrad")
def fractional_avg_pool_grad(ctx, orig_input_tensor_shape, out_backprop, row_pooling_sequence,
                             col_pooling_sequence, *, overlapping):
    """Each region's gradient shared equally among its elements."""
    shape = tuple(int(d) for d in orig_input_tensor_shape)
    if len(shape) != 4:
        raise invalid("original input tensor shape must be 1-dimensional and 4 elements, "
                      "got %s" % (shape,))
    row_regions, col_regions = _regions_from_sequences(row_pooling_sequence,
                                                       col_pooling_sequence, shape,
                                                       overlapping)
    sizes = np.outer(row_regions.sum(1), col_regions.sum(1))[None, :, :, None]
    return np.einsum("ih,nijc,jw->nhwc", row_regions * 1.0, out_backprop / sizes,
                     col_regions * 1.0).astype(out_backprop.dtype)
