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
register_op("Selu").input("features: T").output("activations: T").attr(
    "T: %s" % _FLOATS).set_shape_fn(common_shapes.unchanged_shape)
register_op("LeakyRelu").input("features: T").output("activations: T").attr(
    "alpha: float = 0.2").attr("T: %s = float32" % _FLOATS).set_shape_fn(
    common_shapes.unchanged_shape)
register_op("Softsign").input("features: T").output("activations: T").attr(
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
register_op("SeluGrad").input("gradients: T").input("outputs: T").output("backprops: T").attr(
    "T: %s" % _FLOATS).set_shape_fn(common_shapes.merged_input_shapes)
register_op("LeakyReluGrad").input("gradients: T").input("features: T").output(
    "backprops: T").attr("alpha: float = 0.2").attr("T: %s = float32" % _FLOATS).set_shape_fn(
    common_shapes.merged_input_shapes)
register_op("SoftsignGrad").input("gradients: T").input("features: T").output(
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


def _conv_output_shape(op, pads, out_channels):
    """[batch, out_height, out_width, channels] of a convolution `op` of input and filter.

    The channels of input and filter agree; `out_channels(in_channels,
    filter's last dimension)` gives the output's.
    """
    data_format = op.get_attr("data_format")
    input_shape = with_rank(op.inputs[0].shape, 4)
    filter_shape = with_rank(op.inputs[1].shape, 4)
    strides = _spatial_attr(op, "strides", "stride")
    dilations = _spatial_attr(op, "dilations", "dilation")
    padding = op.get_attr("padding")
    batch, height, width, in_channels = _as_nhwc_dims(input_shape, data_format)
    filter_height, filter_width, filter_in_channels, filter_out = filter_shape.as_list()
    in_channels = merge_dims(in_channels, filter_in_channels)
    out_height = _windowed_output_size(height, filter_height, strides[0], dilations[0],
                                       padding, pads[0])
    out_width = _windowed_output_size(width, filter_width, strides[1], dilations[1],
                                      padding, pads[1])
    return [_shape_in_format(batch, out_height, out_width,
                             out_channels(in_channels, filter_out), data_format)]


def _conv2d_shape(op):
    """The filter's last dimension is the number of output channels."""
    return _conv_output_shape(op, _explicit_spatial_pads(op), lambda _, filter_out: filter_out)


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
# The remapper's fusion of Conv2D + BiasAdd (+ an activation) into one node; only the
# session's optimized partitions have it (minitf/session/remapper.py).
register_op("_FusedConv2D").input("input: T").input("filter: T").input(
    "args: num_args * T").output("output: T").attr("T: {half, float, double}").attr(
    "num_args: int >= 0").attr("strides: list(int)").attr(_PADDING_WITH_EXPLICIT).attr(
    "explicit_paddings: list(int) = []").attr(_DATA_FORMAT).attr(
    "dilations: list(int) = [1, 1, 1, 1]").attr("use_cudnn_on_gpu: bool = true").attr(
    "fused_ops: list(string) = []").attr("epsilon: float = 0.0001").set_shape_fn(
    _conv2d_shape)
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


# --- the 3-D convolution and poolings: windows over depth, height and width -----------------

_DATA_FORMAT_3D = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'"
_FLOAT32_OR_HALF = "{float16, float32}"  # TF's MaxPool3D kernels: no float64


def _volume_spatial_attr(op, attr_name):
    """The (depth, height, width) entries of a 5-value attr; batch and channel entries are 1."""
    values = list(op.get_attr(attr_name))
    if len(values) != 5:
        raise ValueError("%s requires the %s attribute to contain 5 values, but got: %d"
                         % (op.type, attr_name, len(values)))
    channels_first = op.get_attr("data_format") == "NCDHW"
    if values[0] != 1 or values[1 if channels_first else 4] != 1:
        raise ValueError("%s is not supported on the batch or depth (channel) dimension, "
                         "got %s = %s" % (attr_name, attr_name, values))
    if any(v < 1 for v in values):
        raise ValueError("%s of %s must be positive, got %s" % (attr_name, op.type, values))
    return values[2:] if channels_first else values[1:4]


def _volume_dims(shape, data_format):
    """[batch, depth, height, width, channels] of a rank-5 (possibly unknown) TensorShape."""
    dims = with_rank(shape, 5).as_list()
    return dims[:1] + dims[2:] + dims[1:2] if data_format == "NCDHW" else dims


def _volume_shape(batch, spatial, channels, data_format):
    if data_format == "NCDHW":
        return tensor_shape.TensorShape([batch, channels] + list(spatial))
    return tensor_shape.TensorShape([batch] + list(spatial) + [channels])


def _windowed_volume(op, input_shape, window, dilations):
    """The output's (depth, height, width) for `window` sliding over `input_shape`."""
    strides = _volume_spatial_attr(op, "strides")
    spatial = _volume_dims(input_shape, op.get_attr("data_format"))[1:4]
    return [_windowed_output_size(size, w, s, d, op.get_attr("padding"))
            for size, w, s, d in zip(spatial, window, strides, dilations)]


def _conv3d_shape(op):
    data_format = op.get_attr("data_format")
    batch, _, _, _, in_channels = _volume_dims(op.inputs[0].shape, data_format)
    filter_dims = with_rank(op.inputs[1].shape, 5).as_list()
    merge_dims(in_channels, filter_dims[3])
    spatial = _windowed_volume(op, op.inputs[0].shape, filter_dims[:3],
                               _volume_spatial_attr(op, "dilations"))
    return [_volume_shape(batch, spatial, filter_dims[4], data_format)]


def _conv3d_backprop_shape(sizes_index):
    """The shape the `input_sizes` / `filter_sizes` input (at `sizes_index`) holds."""
    def shape_fn(op):
        _volume_spatial_attr(op, "strides")
        _volume_spatial_attr(op, "dilations")
        with_rank(op.inputs[2].shape, 5)
        return [with_rank(tensor_util.constant_value_as_shape(op.inputs[sizes_index]), 5)]
    return shape_fn


def _register_conv3d_op(op_type, inputs, shape_fn, extra_attrs=()):
    builder = register_op(op_type)
    for spec in inputs:
        builder.input(spec)
    builder.output("output: T").attr("T: %s" % _FLOATS).attr("strides: list(int) >= 5").attr(
        _PADDING).attr(_DATA_FORMAT_3D).attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    for spec in extra_attrs:
        builder.attr(spec)
    builder.set_shape_fn(shape_fn)


_register_conv3d_op("Conv3D", ["input: T", "filter: T"], _conv3d_shape)
_register_conv3d_op("Conv3DBackpropInputV2",
                    ["input_sizes: Tshape", "filter: T", "out_backprop: T"],
                    _conv3d_backprop_shape(0), ["Tshape: {int32, int64} = int32"])
_register_conv3d_op("Conv3DBackpropFilterV2",
                    ["input: T", "filter_sizes: int32", "out_backprop: T"],
                    _conv3d_backprop_shape(1))


def _pool3d_shape(op):
    data_format = op.get_attr("data_format")
    batch, _, _, _, channels = _volume_dims(op.inputs[0].shape, data_format)
    spatial = _windowed_volume(op, op.inputs[0].shape, _volume_spatial_attr(op, "ksize"),
                               (1, 1, 1))
    return [_volume_shape(batch, spatial, channels, data_format)]


def _pool3d_grad_shape(op):
    """The shape of the pooled input, `orig_input` or the one `orig_input_shape` holds."""
    _volume_spatial_attr(op, "ksize")
    _volume_spatial_attr(op, "strides")
    if op.type == "AvgPool3DGrad":
        return [with_rank(tensor_util.constant_value_as_shape(op.inputs[0]), 5)]
    return [with_rank(op.inputs[0].shape, 5)]


def _max_pool3d_grad_grad_shape(op):
    _merge_shapes_or_fail(op.inputs[0].shape, op.inputs[2].shape)
    return _pool3d_shape(op)


def _register_pool3d_op(op_type, inputs, type_attrs, shape_fn):
    builder = register_op(op_type)
    for spec in inputs:
        builder.input(spec)
    builder.output("output: T").attr("ksize: list(int) >= 5").attr(
        "strides: list(int) >= 5").attr(_PADDING).attr(_DATA_FORMAT_3D)
    for spec in type_attrs:
        builder.attr(spec)
    builder.set_shape_fn(shape_fn)


_register_pool3d_op("AvgPool3D", ["input: T"], ["T: %s" % _FLOATS], _pool3d_shape)
_register_pool3d_op("AvgPool3DGrad", ["orig_input_shape: int32", "grad: T"],
                    ["T: %s" % _FLOATS], _pool3d_grad_shape)
_register_pool3d_op("MaxPool3D", ["input: T"], ["T: %s" % _FLOAT32_OR_HALF], _pool3d_shape)
_register_pool3d_op("MaxPool3DGrad", ["orig_input: TInput", "orig_output: TInput", "grad: T"],
                    ["T: %s = float32" % _FLOAT32_OR_HALF,
                     "TInput: %s = float32" % _FLOAT32_OR_HALF], _pool3d_grad_shape)
_register_pool3d_op("MaxPool3DGradGrad", ["orig_input: T", "orig_output: T", "grad: T"],
                    ["T: %s" % _REAL_NUMBERS], _max_pool3d_grad_grad_shape)



def _register_with_attrs(op_type, inputs, outputs, attrs, shape_fn):
    builder = register_op(op_type)
    for spec in inputs:
        builder.input(spec)
    for spec in outputs:
        builder.output(spec)
    for spec in attrs:
        builder.attr(spec)
    builder.set_shape_fn(shape_fn)



def _max_pool_with_argmax_shape(op):
    """The pooled shape, twice (the maxima and where they were); NHWC only."""
    input_shape = with_rank(op.inputs[0].shape, 4)
    ksize, strides = op.get_attr("ksize"), op.get_attr("strides")
    if len(ksize) != 4 or len(strides) != 4 or ksize[0] != 1 or ksize[3] != 1 \
            or strides[0] != 1 or strides[3] != 1:
        raise ValueError(_NON_SPATIAL_MESSAGES["ksize"])
    batch, height, width, channels = input_shape.as_list()
    padding = op.get_attr("padding")
    output = tensor_shape.TensorShape([
        batch, _windowed_output_size(height, ksize[1], strides[1], 1, padding),
        _windowed_output_size(width, ksize[2], strides[2], 1, padding), channels])
    return [output, output]


def _max_pool_grad_with_argmax_shape(op):
    _max_pool_with_argmax_shape(op)
    return [op.inputs[0].shape]


_ARGMAX_POOL_ATTRS = ("ksize: list(int) >= 4", "strides: list(int) >= 4",
                      "Targmax: {int32, int64} = int64", _PADDING,
                      "include_batch_in_index: bool = false", "T: %s" % _REAL_NUMBERS)
_register_with_attrs("MaxPoolWithArgmax", ["input: T"], ["output: T", "argmax: Targmax"],
                     _ARGMAX_POOL_ATTRS, _max_pool_with_argmax_shape)
_register_with_attrs("MaxPoolGradWithArgmax", ["input: T", "grad: T", "argmax: Targmax"],
                     ["output: T"], _ARGMAX_POOL_ATTRS, _max_pool_grad_with_argmax_shape)



# --- morphological dilation -----------------------------------------------------------------


def _dilation2d_shape(op):
    """[batch, out_height, out_width, depth]; the filter is [height, width, depth]."""
    input_shape = with_rank(op.inputs[0].shape, 4)
    filter_shape = with_rank(op.inputs[1].shape, 3)
    strides, rates = op.get_attr("strides"), op.get_attr("rates")
    if len(strides) != 4 or len(rates) != 4:
        raise ValueError("Dilation2D requires the strides and rates attributes to contain 4 "
                         "values")
    if strides[0] != 1 or strides[3] != 1 or rates[0] != 1 or rates[3] != 1:
        raise ValueError("Dilation2D supports strides and rates only in the spatial "
                         "dimensions")
    batch, height, width, depth = input_shape.as_list()
    filter_height, filter_width, filter_depth = filter_shape.as_list()
    depth = merge_dims(depth, filter_depth)
    padding = op.get_attr("padding")
    return [tensor_shape.TensorShape([
        batch, _windowed_output_size(height, filter_height, strides[1], rates[1], padding),
        _windowed_output_size(width, filter_width, strides[2], rates[2], padding), depth])]


def _dilation2d_backprop_shape(output_index):
    def shape_fn(op):
        _dilation2d_shape(op)
        return [op.inputs[output_index].shape]
    return shape_fn


_DILATION_ATTRS = ("T: %s" % _REAL_NUMBERS, "strides: list(int) >= 4", "rates: list(int) >= 4",
                   _PADDING)
_register_with_attrs("Dilation2D", ["input: T", "filter: T"], ["output: T"], _DILATION_ATTRS,
                     _dilation2d_shape)
_register_with_attrs("Dilation2DBackpropInput", ["input: T", "filter: T", "out_backprop: T"],
                     ["in_backprop: T"], _DILATION_ATTRS, _dilation2d_backprop_shape(0))
_register_with_attrs("Dilation2DBackpropFilter", ["input: T", "filter: T", "out_backprop: T"],
                     ["filter_backprop: T"], _DILATION_ATTRS, _dilation2d_backprop_shape(1))


# --- depthwise convolution ----------------------------------------------------------------


def _depthwise_channels(in_channels, multiplier):
    if in_channels is None or multiplier is None:
        return None
    return in_channels * multiplier


def _depthwise_conv2d_shape(op):
    """in_channels * channel_multiplier output channels (the filter's last dimension)."""
    return _conv_output_shape(op, ((0, 0), (0, 0)), _depthwise_channels)


def _depthwise_backprop_shape(sizes_index):
    """The shape function of a backward op: the shape its int32 input `sizes_index` holds."""
    def shape_fn(op):
        for index, tensor in enumerate(op.inputs):
            if index != sizes_index:
                with_rank(tensor.shape, 4)
        _spatial_attr(op, "strides", "stride")
        _spatial_attr(op, "dilations", "dilation")
        return [with_rank(tensor_util.constant_value_as_shape(op.inputs[sizes_index]), 4)]
    return shape_fn


# TF 1.15's depthwise ops take no explicit padding.
for _op_type, _inputs, _shape_fn in [
        ("DepthwiseConv2dNative", ["input: T", "filter: T"], _depthwise_conv2d_shape),
        ("DepthwiseConv2dNativeBackpropInput",
         ["input_sizes: int32", "filter: T", "out_backprop: T"], _depthwise_backprop_shape(0)),
        ("DepthwiseConv2dNativeBackpropFilter",
         ["input: T", "filter_sizes: int32", "out_backprop: T"], _depthwise_backprop_shape(1))]:
    _register_with_attrs(_op_type, _inputs, ["output: T"],
                         ("T: %s" % _FLOATS, "strides: list(int)", _PADDING, _DATA_FORMAT,
                          "dilations: list(int) = [1, 1, 1, 1]"), _shape_fn)


# --- top_k and in_top_k ------------------------------------------------------------------


def _top_k_shape(op):
    """values and indices: the input's shape with the last dimension k."""
    input_shape = with_rank_at_least(op.inputs[0].shape, 1)
    with_rank(op.inputs[1].shape, 0)
    k = common_shapes.constant_int(op.inputs[1])
    if k is not None and k < 0:
        raise ValueError("Dimension size, given by scalar input 1, must be non-negative but "
                         "is %d" % k)
    if input_shape.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.unknown_shape()]
    last = input_shape[-1]
    if k is not None and last is not None and last < k:
        raise ValueError("input must have last dimension >= k = %d but is %d" % (k, last))
    output = tensor_shape.TensorShape(input_shape.as_list()[:-1] + [k])
    return [output, output]


register_op("TopKV2").input("input: T").input("k: int32").output("values: T").output(
    "indices: int32").attr("sorted: bool = true").attr("T: %s" % _REAL_NUMBERS).set_shape_fn(
    _top_k_shape)


def _in_top_k_shape(op):
    """A bool per row of `predictions` ([batch, classes]); `targets` is [batch], k a scalar."""
    predictions = with_rank(op.inputs[0].shape, 2)
    targets = with_rank(op.inputs[1].shape, 1)
    with_rank(op.inputs[2].shape, 0)
    return [tensor_shape.TensorShape([merge_dims(predictions[0], targets[0])])]


register_op("InTopKV2").input("predictions: float32").input("targets: T").input("k: T").output(
    "precision: bool").attr("T: {int32, int64} = int32").set_shape_fn(_in_top_k_shape)


# --- local response normalization and fused batch normalization ---------------------------

_LRN_ATTRS = ("depth_radius: int = 5", "bias: float = 1.0", "alpha: float = 1.0",
              "beta: float = 0.5", "T: {float16, float32} = float32")


def _lrn_shape(op):
    return [with_rank(op.inputs[0].shape, 4)]


def _lrn_grad_shape(op):
    shape = tensor_shape.unknown_shape(4)
    for tensor in op.inputs:
        shape = common_shapes.merge_shapes(shape, with_rank(tensor.shape, 4))
    return [shape]


_register_with_attrs("LRN", ["input: T"], ["output: T"], _LRN_ATTRS, _lrn_shape)
_register_with_attrs("LRNGrad", ["input_grads: T", "input_image: T", "output_image: T"],
                     ["output: T"], _LRN_ATTRS, _lrn_grad_shape)


def _batch_norm_channel_axis(op, x_shape):
    """The channel axis of `x` (rank 4 for NHWC/NCHW, 5 for NDHWC/NCDHW)."""
    data_format = op.get_attr("data_format")
    with_rank(x_shape, 5 if data_format in ("NDHWC", "NCDHW") else 4)
    return 1 if data_format.startswith("NC") else -1


def _fused_batch_norm_shape(op):
    """y: x's shape; the five statistics: [channels] (the last reserve space: unknown).

    scale and offset (and in inference mode mean and variance) are vectors as
    long as the channel dimension.
    """
    x_shape = op.inputs[0].shape
    axis = _batch_norm_channel_axis(op, x_shape)
    x_shape = with_rank_at_least(x_shape, 4)
    channels = x_shape[axis] if x_shape.ndims is not None else None
    vectors = op.inputs[1:3] if op.get_attr("is_training") else op.inputs[1:5]
    for vector in vectors:
        channels = merge_dims(channels, with_rank(vector.shape, 1)[0])
    y_shape = x_shape
    if x_shape.ndims is not None:
        dims = x_shape.as_list()
        dims[axis] = channels
        y_shape = tensor_shape.TensorShape(dims)
    vector_shape = tensor_shape.TensorShape([channels])
    return [y_shape] + [vector_shape] * 4 + [tensor_shape.unknown_shape()]


def _fused_batch_norm_grad_shape(op):
    """x_backprop: x's shape; scale and offset backprops: [channels]; the rest: [0]."""
    y_backprop_shape = op.inputs[0].shape
    axis = _batch_norm_channel_axis(op, y_backprop_shape)
    x_shape = common_shapes.merge_shapes(y_backprop_shape, op.inputs[1].shape)
    channels = x_shape[axis] if x_shape.ndims is not None else None
    for vector in op.inputs[2:5]:
        channels = merge_dims(channels, with_rank(vector.shape, 1)[0])
    return [x_shape, tensor_shape.TensorShape([channels]), tensor_shape.TensorShape([channels]),
            tensor_shape.TensorShape([0]), tensor_shape.TensorShape([0])]


_BATCH_NORM_ATTRS = ("T: {float16, float32}", "U: {float32}", "epsilon: float = 0.0001",
                     "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'",
                     "is_training: bool = true")

_register_with_attrs(
    "FusedBatchNormV3", ["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    ["y: T", "batch_mean: U", "batch_variance: U", "reserve_space_1: U", "reserve_space_2: U",
     "reserve_space_3: U"], _BATCH_NORM_ATTRS, _fused_batch_norm_shape)
_register_with_attrs(
    "FusedBatchNormGradV3", ["y_backprop: T", "x: T", "scale: float32", "reserve_space_1: U",
                             "reserve_space_2: U", "reserve_space_3: U"],
    ["x_backprop: T", "scale_backprop: U", "offset_backprop: U", "reserve_space_4: U",
     "reserve_space_5: U"], _BATCH_NORM_ATTRS, _fused_batch_norm_grad_shape)


# --- fractional pooling: windows of random sizes k and k + 1 ----------------------------------

def _fractional_pool_shape(op):
    """[batch, floor(height / ratio), floor(width / ratio), channels]; the two pooling
    sequences, one boundary more than output rows (columns)."""
    ratio = list(op.get_attr("pooling_ratio"))
    if len(ratio) != 4:
        raise ValueError("pooling_ratio field must specify 4 dimensions")
    if ratio[0] != 1.0 or ratio[3] != 1.0:
        raise ValueError("Fractional pooling is not yet supported on the batch nor channel "
                         "dimension.")
    if any(r < 1.0 for r in ratio):
        raise ValueError("pooling_ratio cannot be smaller than 1, got: %s" % ratio)
    dims = with_rank(op.inputs[0].shape, 4).as_list()
    out = [None if d is None else int(d / r) for d, r in zip(dims, ratio)]
    return [tensor_shape.TensorShape(out),
            tensor_shape.TensorShape([None if out[1] is None else out[1] + 1]),
            tensor_shape.TensorShape([None if out[2] is None else out[2] + 1])]


_FRACTIONAL_POOL_ATTRS = ["pooling_ratio: list(float) >= 4", "pseudo_random: bool = false",
                          "overlapping: bool = false", "deterministic: bool = false",
                          "seed: int = 0", "seed2: int = 0"]
_FRACTIONAL_SEQUENCES = ["row_pooling_sequence: int64", "col_pooling_sequence: int64"]



def _register_fractional_pool(op_type):
    """Stateful, as a random op is: its regions are drawn anew at every run (unless
    `deterministic`), so it is never computed ahead of time."""
    builder = register_op(op_type).input("value: T").output("output: T")
    for spec in _FRACTIONAL_SEQUENCES:
        builder.output(spec)
    for spec in _FRACTIONAL_POOL_ATTRS + ["T: {float32, float64, int32, int64}"]:
        builder.attr(spec)
    builder.set_is_stateful().set_shape_fn(_fractional_pool_shape)


_register_fractional_pool("FractionalMaxPool")
_register_fractional_pool("FractionalAvgPool")
_register_with_attrs("FractionalMaxPoolGrad",
                     ["orig_input: T", "orig_output: T", "out_backprop: T"]
                     + _FRACTIONAL_SEQUENCES,
                     ["output: T"], ["overlapping: bool = false",
                                     "T: {float32, float64, int32, int64}"],
                     lambda op: [with_rank(op.inputs[0].shape, 4)])
_register_with_attrs("FractionalAvgPoolGrad",
                     ["orig_input_tensor_shape: int64", "out_backprop: T"]
                     + _FRACTIONAL_SEQUENCES, ["output: T"],
                     ["overlapping: bool = false", "T: {float32, float64, int32, int64}"],
                     lambda op: [with_rank(tensor_util.constant_value_as_shape(op.inputs[0]),
                                           4)])
