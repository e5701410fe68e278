"""The OpDefs of the neural-network ops, and their shape functions.

Activations and their gradients, softmax and the cross-entropy losses,
BiasAdd, L2Loss, and the convolution and pooling ops with their gradients
(with TF's `padding`, `data_format` and `explicit_paddings` rules for the
output size).

The front end reads these OpDefs to type and check a new Operation (the
constructors users call are in `minitf/ops/nn_ops.py`); the runtime reads
them to know what a node takes and gives (the kernels are in
`minitf/kernels/cpu/nn_kernels.py`).

Mirrors `tensorflow/core/ops/nn_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.common_shapes import merge_dims, with_rank, with_rank_at_least
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape, tensor_util

_FLOATS = "{float16, float32, float64}"
_REAL_NUMBERS = ("{float32, float64, int32, uint8, int16, int8, int64, uint16, float16, "
                 "uint32, uint64}")


register_op("Relu").input("features: T").output("activations: T").attr(
    "T: %s" % _REAL_NUMBERS).set_shape_fn(common_shapes.unchanged_shape)
register_op("Relu6").input("features: T").output("activations: T").attr(
    "T: %s" % _REAL_NUMBERS).set_shape_fn(common_shapes.unchanged_shape)
register_op("Elu").input("features: T").output("activations: T").attr(
    "T: %s" % _FLOATS).set_shape_fn(common_shapes.unchanged_shape)
register_op("Softplus").input("features: T").output("activations: T").attr(
    "T: %s" % _FLOATS).set_shape_fn(common_shapes.unchanged_shape)


def _softmax_shape(op):
    return [with_rank_at_least(op.inputs[0].shape, 1)]


register_op("Softmax").input("logits: T").output("softmax: T").attr(
    "T: %s" % _FLOATS).set_shape_fn(_softmax_shape)
register_op("LogSoftmax").input("logits: T").output("logsoftmax: T").attr(
    "T: %s" % _FLOATS).set_shape_fn(_softmax_shape)


def _bias_add_shape(op):
    """The value's shape; the bias must be 1-D and as long as the channel dimension."""
    nchw = op.get_attr("data_format") == "NCHW"
    value = with_rank_at_least(op.inputs[0].shape, 3 if nchw else 2)
    bias = with_rank(op.inputs[1].shape, 1)
    if value.ndims is None:
        return [tensor_shape.unknown_shape()]
    dims = value.as_list()
    channel = 1 if nchw else -1
    dims[channel] = merge_dims(dims[channel], bias[0])
    return [tensor_shape.TensorShape(dims)]


register_op("BiasAdd").input("value: T").input("bias: T").output("output: T").attr(
    "T: %s" % _REAL_NUMBERS).attr("data_format: string = 'NHWC'").set_shape_fn(
    _bias_add_shape)


register_op("L2Loss").input("t: T").output("output: T").attr("T: %s" % _FLOATS).set_shape_fn(
    common_shapes.scalar_shape)


def _softmax_xent_shape(op):
    """loss: [batch]; backprop: [batch, classes]. labels may broadcast against features."""
    features, labels = op.inputs[0].shape, op.inputs[1].shape
    if features.ndims in (None, 2) and features.with_rank(2).is_compatible_with(labels):
        merged = features.with_rank(2).merge_with(labels)
    else:
        merged = common_shapes.broadcast_shapes(features, labels)
        if merged.ndims is None:
            raise ValueError("Shape must be broadcasted with rank 2, but is rank is unknown.")
        if merged.ndims != 2:
            raise ValueError("Shape must be broadcasted with rank 2, but is rank %d"
                             % merged.ndims)
    return [tensor_shape.TensorShape([merged[0]]), merged]


def _sparse_softmax_xent_shape(op):
    features = with_rank(op.inputs[0].shape, 2)
    labels = with_rank(op.inputs[1].shape, 1)
    batch = merge_dims(features[0], labels[0])
    return [tensor_shape.TensorShape([batch]), tensor_shape.TensorShape([batch, features[1]])]


# The second output, `backprop` (softmax - labels), is the gradient of the loss
# with respect to the logits: the gradient function reuses it instead of
# computing the softmax again.
register_op("SoftmaxCrossEntropyWithLogits").input("features: T").input("labels: T").output(
    "loss: T").output("backprop: T").attr("T: %s" % _FLOATS).set_shape_fn(_softmax_xent_shape)
register_op("SparseSoftmaxCrossEntropyWithLogits").input("features: T").input(
    "labels: Tlabels").output("loss: T").output("backprop: T").attr("T: %s" % _FLOATS).attr(
    "Tlabels: {int32, int64} = int64").set_shape_fn(_sparse_softmax_xent_shape)


register_op("ReluGrad").input("gradients: T").input("features: T").output("backprops: T").attr(
    "T: %s" % _REAL_NUMBERS).set_shape_fn(common_shapes.merged_input_shapes)
register_op("Relu6Grad").input("gradients: T").input("features: T").output(
    "backprops: T").attr("T: %s" % _REAL_NUMBERS).set_shape_fn(
    common_shapes.merged_input_shapes)
register_op("EluGrad").input("gradients: T").input("outputs: T").output("backprops: T").attr(
    "T: %s" % _FLOATS).set_shape_fn(common_shapes.merged_input_shapes)
register_op("SoftplusGrad").input("gradients: T").input("features: T").output(
    "backprops: T").attr("T: %s" % _FLOATS).set_shape_fn(common_shapes.merged_input_shapes)


def _bias_add_grad_shape(op):
    """A vector as long as the channel dimension of `out_backprop`."""
    nchw = op.get_attr("data_format") == "NCHW"
    shape = with_rank_at_least(op.inputs[0].shape, 3 if nchw else 2)
    if shape.ndims is None:
        return [tensor_shape.TensorShape([None])]
    return [tensor_shape.TensorShape([shape[1] if nchw else shape[-1]])]


register_op("BiasAddGrad").input("out_backprop: T").output("output: T").attr(
    "T: %s" % _REAL_NUMBERS).attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'").set_shape_fn(
    _bias_add_grad_shape)


_PADDING_WITH_EXPLICIT = "padding: {'SAME', 'VALID', 'EXPLICIT'}"
_PADDING = "padding: {'SAME', 'VALID'}"
_DATA_FORMAT = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"


def _spatial_axes(data_format):
    """The (height, width) axes of a 4-D tensor laid out as `data_format`."""
    return (2, 3) if data_format == "NCHW" else (1, 2)


def _channel_axis(data_format):
    return 1 if data_format == "NCHW" else 3


def _windowed_output_size(input_size, window, stride, dilation, padding, pads=(0, 0)):
    """The output length along one spatial axis (None where unknown), as TF computes it."""
    if input_size is None:
        return None
    if padding == "SAME":
        return -(-input_size // stride)
    if window is None:
        return None
    effective_window = (window - 1) * dilation + 1
    padded = input_size + pads[0] + pads[1]
    if padded < effective_window:
        raise ValueError("Negative dimension size caused by subtracting %d from %d"
                         % (effective_window, padded))
    return (padded - effective_window) // stride + 1


def _as_nhwc_dims(shape, data_format):
    """[batch, height, width, channels] of a rank-4 (possibly unknown) TensorShape."""
    dims = shape.as_list()
    if data_format == "NCHW":
        return [dims[0], dims[2], dims[3], dims[1]]
    return dims


def _shape_in_format(batch, height, width, channels, data_format):
    if data_format == "NCHW":
        return tensor_shape.TensorShape([batch, channels, height, width])
    return tensor_shape.TensorShape([batch, height, width, channels])


def _spatial_attr(op, attr_name, what):
    """The (height, width) entries of a 4-value attr (strides, dilations, ksize).

    The batch and channel entries must be 1: windows slide only over space.
    """
    values = op.get_attr(attr_name)
    if len(values) != 4:
        raise ValueError("%s requires the %s attribute to contain 4 values, but got: %d"
                         % (op.type, what, len(values)))
    data_format = op.get_attr("data_format")
    if values[0] != 1 or values[_channel_axis(data_format)] != 1:
        raise ValueError(_NON_SPATIAL_MESSAGES[attr_name])
    if any(v < 1 for v in values):
        raise ValueError("%s of %s must be positive, got %s" % (attr_name, op.type, values))
    height_axis, width_axis = _spatial_axes(data_format)
    return values[height_axis], values[width_axis]


_NON_SPATIAL_MESSAGES = {
    "strides": "Current implementation does not yet support strides in the batch and depth "
               "dimensions.",
    "dilations": "Current implementation does not yet support dilations in the batch and "
                 "depth dimensions.",
    "ksize": "Pooling is not yet supported on the batch or depth dimension (minitf pools over "
             "height and width only).",
}


def _explicit_spatial_pads(op):
    """((top, bottom), (left, right)) for EXPLICIT padding, zeros otherwise."""
    explicit = list(op.get_attr("explicit_paddings"))
    if op.get_attr("padding") != "EXPLICIT":
        if explicit:
            raise ValueError("explicit_paddings attribute must be empty if the padding "
                             "attribute is not EXPLICIT")
        return (0, 0), (0, 0)
    if len(explicit) != 8:
        raise ValueError("explicit_paddings attribute must contain 8 values, but got: %d"
                         % len(explicit))
    if any(p < 0 for p in explicit):
        raise ValueError("All elements of explicit_paddings must be nonnegative")
    data_format = op.get_attr("data_format")
    pairs = [tuple(explicit[2 * i:2 * i + 2]) for i in range(4)]
    if pairs[0] != (0, 0) or pairs[_channel_axis(data_format)] != (0, 0):
        raise ValueError("Nonzero explicit padding in the batch or depth dimensions is not "
                         "supported")
    height_axis, width_axis = _spatial_axes(data_format)
    return pairs[height_axis], pairs[width_axis]


def _conv2d_shape(op):
    """[batch, out_height, out_width, out_channels]; the channels of input and filter agree."""
    data_format = op.get_attr("data_format")
    input_shape = with_rank(op.inputs[0].shape, 4)
    filter_shape = with_rank(op.inputs[1].shape, 4)
    strides = _spatial_attr(op, "strides", "stride")
    dilations = _spatial_attr(op, "dilations", "dilation")
    pads = _explicit_spatial_pads(op)
    padding = op.get_attr("padding")
    batch, height, width, in_channels = _as_nhwc_dims(input_shape, data_format)
    filter_height, filter_width, filter_in_channels, out_channels = filter_shape.as_list()
    merge_dims(in_channels, filter_in_channels)
    out_height = _windowed_output_size(height, filter_height, strides[0], dilations[0],
                                       padding, pads[0])
    out_width = _windowed_output_size(width, filter_width, strides[1], dilations[1],
                                      padding, pads[1])
    return [_shape_in_format(batch, out_height, out_width, out_channels, data_format)]


def _conv2d_backprop_input_shape(op):
    """The shape the `input_sizes` tensor holds; channels are checked against the filter."""
    data_format = op.get_attr("data_format")
    input_shape = with_rank(tensor_util.constant_value_as_shape(op.inputs[0]), 4)
    filter_shape = with_rank(op.inputs[1].shape, 4)
    out_backprop_shape = with_rank(op.inputs[2].shape, 4)
    _spatial_attr(op, "strides", "stride")
    _spatial_attr(op, "dilations", "dilation")
    _explicit_spatial_pads(op)
    merge_dims(_as_nhwc_dims(input_shape, data_format)[3], filter_shape[2])
    merge_dims(_as_nhwc_dims(out_backprop_shape, data_format)[3], filter_shape[3])
    return [input_shape]


def _conv2d_backprop_filter_shape(op):
    """The shape the `filter_sizes` tensor holds."""
    with_rank(op.inputs[0].shape, 4)
    with_rank(op.inputs[2].shape, 4)
    _spatial_attr(op, "strides", "stride")
    _spatial_attr(op, "dilations", "dilation")
    _explicit_spatial_pads(op)
    return [with_rank(tensor_util.constant_value_as_shape(op.inputs[1]), 4)]


def _register_conv_op(op_type, inputs, shape_fn):
    builder = register_op(op_type)
    for spec in inputs:
        builder.input(spec)
    builder.output("output: T").attr("T: %s" % _FLOATS).attr("strides: list(int)").attr(
        "use_cudnn_on_gpu: bool = true").attr(_PADDING_WITH_EXPLICIT).attr(
        "explicit_paddings: list(int) = []").attr(_DATA_FORMAT).attr(
        "dilations: list(int) = [1, 1, 1, 1]").set_shape_fn(shape_fn)


_register_conv_op("Conv2D", ["input: T", "filter: T"], _conv2d_shape)
_register_conv_op("Conv2DBackpropInput", ["input_sizes: int32", "filter: T", "out_backprop: T"],
                  _conv2d_backprop_input_shape)
_register_conv_op("Conv2DBackpropFilter", ["input: T", "filter_sizes: int32", "out_backprop: T"],
                  _conv2d_backprop_filter_shape)


def _pool_shape(op):
    """[batch, out_height, out_width, channels] of the pooled `op.inputs[0]`."""
    data_format = op.get_attr("data_format")
    input_shape = with_rank(op.inputs[0].shape, 4)
    ksize = _spatial_attr(op, "ksize", "ksize")
    strides = _spatial_attr(op, "strides", "stride")
    padding = op.get_attr("padding")
    batch, height, width, channels = _as_nhwc_dims(input_shape, data_format)
    out_height = _windowed_output_size(height, ksize[0], strides[0], 1, padding)
    out_width = _windowed_output_size(width, ksize[1], strides[1], 1, padding)
    return [_shape_in_format(batch, out_height, out_width, channels, data_format)]


def _max_pool_grad_shape(op):
    """The shape of `orig_input`, which the gradient is for."""
    _pool_shape(op)  # validates the attrs
    return [with_rank(op.inputs[0].shape, 4)]


def _max_pool_grad_grad_shape(op):
    """The pooled shape of `orig_input`; `grad` has the shape of `orig_input`."""
    _merge_shapes_or_fail(op.inputs[0].shape, op.inputs[2].shape)
    return _pool_shape(op)


def _merge_shapes_or_fail(a, b):
    try:
        return a.merge_with(b)
    except ValueError:
        raise ValueError("Shapes %s and %s are not compatible" % (a, b)) from None


def _avg_pool_grad_shape(op):
    _spatial_attr(op, "ksize", "ksize")
    _spatial_attr(op, "strides", "stride")
    return [with_rank(tensor_util.constant_value_as_shape(op.inputs[0]), 4)]


def _register_pool_op(op_type, inputs, types, shape_fn, default_type=None):
    builder = register_op(op_type)
    for spec in inputs:
        builder.input(spec)
    default = " = %s" % default_type if default_type else ""
    builder.output("output: T").attr("T: %s%s" % (types, default)).attr(
        "ksize: list(int) >= 4").attr("strides: list(int) >= 4").attr(_PADDING).attr(
        _DATA_FORMAT).set_shape_fn(shape_fn)


# TF 1.15 gives MaxPool's and MaxPoolGrad's T a default (float), so a GraphDef
# written with default attrs stripped may leave it out.
_register_pool_op("MaxPool", ["input: T"], _REAL_NUMBERS, _pool_shape, default_type="float32")
_register_pool_op("MaxPoolGrad", ["orig_input: T", "orig_output: T", "grad: T"],
                  _REAL_NUMBERS, _max_pool_grad_shape, default_type="float32")
_register_pool_op("MaxPoolGradGrad", ["orig_input: T", "orig_output: T", "grad: T"],
                  _REAL_NUMBERS, _max_pool_grad_grad_shape)
_register_pool_op("AvgPool", ["value: T"], _FLOATS, _pool_shape)
_register_pool_op("AvgPoolGrad", ["orig_input_shape: int32", "grad: T"], _FLOATS,
                  _avg_pool_grad_shape)
