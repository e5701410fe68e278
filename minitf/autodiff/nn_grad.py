"""Gradient functions of the neural-network ops: activations, softmax, losses, conv, pooling.

Each function receives the forward op and the gradient of its output(s) and
adds the ops computing the gradient of each input (see registry.py). Most
activations have a dedicated backward op (ReluGrad, EluGrad, ...) that does
the work in one kernel, and so do bias_add, conv2d and the poolings
(BiasAddGrad, Conv2DBackpropInput/Filter, MaxPoolGrad, AvgPoolGrad). Those
backward ops have gradients too, so that second derivatives work, as in
TensorFlow.

The cross entropies are the cheapest of all: their op already computed
softmax(logits) - labels (its second output, `backprop`) for this moment.

The random ops are declared here as NotDifferentiable: a random draw has no
gradient with respect to its shape or seed.

Mirrors `tensorflow/python/ops/nn_grad.py` (and the NotDifferentiable lines
of `random_ops.py`).
"""

import collections

from minitf.autodiff import gradients_impl
from minitf.autodiff.registry import NotDifferentiable, RegisterGradient
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_util
from minitf.graph.op_def_library import apply_op
from minitf.ops import array_ops
from minitf.ops import math_ops
from minitf.ops import nn_impl
from minitf.ops import nn_ops

for _op_type in ("RandomStandardNormal", "RandomUniform", "RandomUniformInt",
                 "TruncatedNormal", "RandomShuffle", "Multinomial", "StatelessRandomNormal",
                 "StatelessRandomUniform", "StatelessRandomUniformInt",
                 "StatelessTruncatedNormal", "StatelessMultinomial"):
    NotDifferentiable(_op_type)


# --- activations ----------------------------------------------------------------------

@RegisterGradient("Relu")
def _relu_grad(op, grad):
    # Relu's output is > 0 exactly where its input is: either tells where the gradient passes.
    return nn_ops.relu_grad(grad, op.outputs[0])


@RegisterGradient("Relu6")
def _relu6_grad(op, grad):
    return nn_ops.relu6_grad(grad, op.outputs[0])


@RegisterGradient("Elu")
def _elu_grad(op, grad):
    return nn_ops.elu_grad(grad, op.outputs[0])


@RegisterGradient("Softplus")
def _softplus_grad(op, grad):
    return nn_ops.softplus_grad(grad, op.inputs[0])


@RegisterGradient("Selu")
def _selu_grad(op, grad):
    return nn_ops.selu_grad(grad, op.outputs[0])


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op, grad):
    return nn_ops.leaky_relu_grad(grad, op.inputs[0], alpha=op.get_attr("alpha"))


@RegisterGradient("Softsign")
def _softsign_grad(op, grad):
    return nn_ops.softsign_grad(grad, op.inputs[0])


# The backward ops are linear in `gradients`, so their gradient with respect to
# it is the same backward op applied to the incoming gradient.

@RegisterGradient("ReluGrad")
def _relu_grad_grad(op, grad):
    features = op.inputs[1]
    # The step function's derivative is 0 wherever it is defined.
    return nn_ops.relu_grad(grad, features), array_ops.zeros_like(features)


@RegisterGradient("Relu6Grad")
def _relu6_grad_grad(op, grad):
    features = op.inputs[1]
    return nn_ops.relu6_grad(grad, features), array_ops.zeros_like(features)


@RegisterGradient("EluGrad")
def _elu_grad_grad(op, grad):
    # EluGrad(dy, y) = dy * (y + 1) where y < 0, else dy.
    dy, elu_y = op.inputs
    d_outputs = math_ops.where(elu_y < 0, grad * dy, array_ops.zeros_like(elu_y))
    return nn_ops.elu_grad(grad, elu_y), d_outputs


@RegisterGradient("SeluGrad")
def _selu_grad_grad(op, grad):
    # SeluGrad(dy, y) = dy * (y + scale * alpha) where y < 0: linear in y there.
    dy, selu_y = op.inputs
    d_outputs = math_ops.where(selu_y < 0., grad * dy, array_ops.zeros_like(selu_y))
    return nn_ops.selu_grad(grad, selu_y), d_outputs


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op, grad):
    features = op.inputs[1]
    return (nn_ops.leaky_relu_grad(grad, features, alpha=op.get_attr("alpha")),
            array_ops.zeros_like(features))


@RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    # SoftplusGrad(dy, x) = dy * sigmoid(x), and sigmoid'(x) = 1 / (exp(-x) + 2 + exp(x)).
    dy, x = op.inputs
    with ops.control_dependencies([grad]):
        ddy = nn_ops.softplus_grad(grad, x)
        d2x = grad * dy / (math_ops.exp(-x) + 2.0 + math_ops.exp(x))
        return ddy, d2x


# --- softmax and log_softmax --------------------------------------------------------------

@RegisterGradient("Softmax")
def _softmax_grad(op, grad_softmax):
    """d softmax / dx = diag(softmax) - softmax softmax^T, applied without building the matrix:

        grad_x = (grad_softmax - sum(grad_softmax * softmax)) * softmax
    """
    softmax = op.outputs[0]
    sum_channels = math_ops.reduce_sum(grad_softmax * softmax, -1, keepdims=True)
    return (grad_softmax - sum_channels) * softmax


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    """log_softmax = x - log(sum(exp(x))), so d/dx = identity - softmax (per row)."""
    softmax = math_ops.exp(op.outputs[0])
    return grad - math_ops.reduce_sum(grad, -1, keepdims=True) * softmax


# --- bias_add and l2_loss --------------------------------------------------------------------

def _data_format(op):
    try:
        return op.get_attr("data_format")
    except ValueError:
        return None


@RegisterGradient("BiasAdd")
def _bias_add_grad(op, received_grad):
    """The value gets the gradient as it is; the bias gets it summed over all but the channels."""
    data_format = _data_format(op) or "NHWC"
    return received_grad, nn_ops.bias_add_grad(received_grad, data_format=data_format)


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op, received_grad):
    """BiasAddGrad sums over all but the channel dimension; its gradient tiles back over them."""
    shape = array_ops.shape(op.inputs[0])
    bias_shape = array_ops.shape(received_grad)
    if _data_format(op) == "NCHW":
        expanded_shape = array_ops.concat(
            [array_ops.ones_like(shape[:1]), bias_shape, array_ops.ones_like(shape[2:])], 0)
        tile_multiples = array_ops.concat([shape[:1], [1], shape[2:]], 0)
    else:
        expanded_shape = array_ops.concat([array_ops.ones_like(shape[:-1]), bias_shape], 0)
        tile_multiples = array_ops.concat([shape[:-1], [1]], 0)
    expanded_grad = array_ops.reshape(received_grad, expanded_shape)
    return array_ops.tile(expanded_grad, tile_multiples)


@RegisterGradient("L2Loss")
def _l2_loss_grad(op, grad):
    """d(sum(t ** 2) / 2) / dt = t."""
    return op.inputs[0] * grad


# --- the cross entropies ------------------------------------------------------------------------

def _broadcast_mul(vec, mat):
    """vec[:, None] * mat: one scalar per row (the loss gradient) times each row."""
    return array_ops.expand_dims(vec, -1) * mat


def _is_zero(grad):
    """True when `grad` is known at build time to be all zeros (a filler for a missing gradient)."""
    if grad.op.type in ("ZerosLike", "Zeros"):
        return True
    value = tensor_util.constant_value(grad)
    return value is not None and (value == 0).all()


def _softmax_second_order_term(logits, grad_grad):
    """The gradient flowing back through the op's `backprop` output (softmax - labels).

    That output is softmax(logits) up to a constant, so its gradient is the
    softmax gradient: (grad_grad - sum(grad_grad * softmax)) * softmax, per row.
    """
    softmax = nn_ops.softmax(logits)
    return (grad_grad - array_ops.squeeze(
        math_ops.matmul(array_ops.expand_dims(grad_grad, 1),
                        array_ops.expand_dims(softmax, 2)), axis=1)) * softmax


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_cross_entropy_with_logits_grad(op, grad_loss, grad_grad):
    """d loss / d logits = softmax - labels (the op's second output, reused);
    d loss / d labels = -log_softmax(logits).

    `grad_grad`, the gradient arriving at the `backprop` output, is non-zero
    only when a second derivative is taken. As in TensorFlow, it is sent on to
    the logits only: the labels' share of it (-grad_grad) is left out, so a
    second derivative with respect to the labels misses that term.
    """
    logits = op.inputs[0]
    grad = _broadcast_mul(grad_loss, op.outputs[1])
    if grad_grad is not None and not _is_zero(grad_grad):
        grad += _softmax_second_order_term(logits, grad_grad)
    return grad, _broadcast_mul(grad_loss, -nn_ops.log_softmax(logits))


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_cross_entropy_with_logits_grad(op, grad_loss, grad_grad):
    """As the dense one; the integer labels get no gradient."""
    logits = op.inputs[0]
    grad = _broadcast_mul(grad_loss, op.outputs[1])
    if grad_grad is not None and not _is_zero(grad_grad):
        grad += _softmax_second_order_term(logits, grad_grad)
    return grad, None


# --- convolution ----------------------------------------------------------------------------------

_ConvFamily = collections.namedtuple("_ConvFamily", ["forward", "backprop_input",
                                                     "backprop_filter", "attr_names"])

_CONV2D = _ConvFamily(nn_ops.gen_conv2d, nn_ops.gen_conv2d_backprop_input,
                      nn_ops.gen_conv2d_backprop_filter,
                      ("strides", "padding", "explicit_paddings", "use_cudnn_on_gpu",
                       "data_format", "dilations"))
_CONV3D = _ConvFamily(nn_ops.conv3d, nn_ops.conv3d_backprop_input_v2,
                      nn_ops.conv3d_backprop_filter, ("strides", "padding", "data_format",
                                                      "dilations"))
_DEPTHWISE = _ConvFamily(nn_ops.depthwise_conv2d_native,
                         nn_ops.depthwise_conv2d_native_backprop_input,
                         nn_ops.depthwise_conv2d_native_backprop_filter,
                         ("strides", "padding", "data_format", "dilations"))


def _register_conv_gradients(op_type, family, backprop_suffix=""):
    """The gradients of a convolution (`op_type`) and of its two backward ops.

    The backward ops are `op_type` + "BackpropInput" and + "BackpropFilter",
    each followed by `backprop_suffix` (Conv3D's are the V2 ops).

    All three are linear in each of their tensor inputs, so each gradient is
    one of the other two ops: a convolution's input gradient is its
    transpose (BackpropInput), and the transpose of that is the convolution.
    The shape inputs get nothing.
    """
    def attrs(op):
        return {name: op.get_attr(name) for name in family.attr_names}

    @RegisterGradient(op_type)
    def _forward_grad(op, grad):
        input_tensor, filter_tensor = op.inputs
        return [family.backprop_input(array_ops.shape(input_tensor), filter_tensor, grad,
                                      **attrs(op)),
                family.backprop_filter(input_tensor, array_ops.shape(filter_tensor), grad,
                                       **attrs(op))]

    @RegisterGradient(op_type + "BackpropInput" + backprop_suffix)
    def _backprop_input_grad(op, grad):
        _, filter_tensor, out_backprop = op.inputs
        return [None,
                family.backprop_filter(grad, array_ops.shape(filter_tensor), out_backprop,
                                       **attrs(op)),
                family.forward(grad, filter_tensor, **attrs(op))]

    @RegisterGradient(op_type + "BackpropFilter" + backprop_suffix)
    def _backprop_filter_grad(op, grad):
        input_tensor, _, out_backprop = op.inputs
        return [family.backprop_input(array_ops.shape(input_tensor), grad, out_backprop,
                                      **attrs(op)),
                None,
                family.forward(input_tensor, grad, **attrs(op))]


_register_conv_gradients("Conv2D", _CONV2D)
_register_conv_gradients("DepthwiseConv2dNative", _DEPTHWISE)
_register_conv_gradients("Conv3D", _CONV3D, backprop_suffix="V2")


# --- pooling --------------------------------------------------------------------------------------

def _pool_attrs(op):
    return {name: op.get_attr(name) for name in ("ksize", "strides", "padding", "data_format")}


@RegisterGradient("MaxPool")
def _max_pool_grad(op, grad):
    """Each window's gradient goes to the element that won its max."""
    return nn_ops.max_pool_grad(op.inputs[0], op.outputs[0], grad, **_pool_attrs(op))


@RegisterGradient("MaxPoolGrad")
def _max_pool_grad_grad(op, grad):
    """MaxPoolGrad moves values around (linear in `grad`); which way depends on orig_input
    only through the winners, which small changes do not move: zero gradient there."""
    orig_input, orig_output, _ = op.inputs
    return (array_ops.zeros_like(orig_input),
            array_ops.zeros_like(orig_output),
            nn_ops.max_pool_grad_grad(orig_input, orig_output, grad, **_pool_attrs(op)))


@RegisterGradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op, grad):
    orig_input, orig_output, _ = op.inputs
    return (array_ops.zeros_like(orig_input),
            array_ops.zeros_like(orig_output),
            nn_ops.max_pool_grad(orig_input, orig_output, grad, **_pool_attrs(op)))


@RegisterGradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op, grad, _):
    """Each window's gradient goes where its argmax says; the argmax output has none."""
    attrs = {name: op.get_attr(name) for name in ("ksize", "strides", "padding",
                                                   "include_batch_in_index")}
    return nn_ops.max_pool_grad_with_argmax(op.inputs[0], grad, op.outputs[1], **attrs)


@RegisterGradient("Dilation2D")
def _dilation2d_grad(op, grad):
    """The gradient of each max goes to its winner, in the input and in the filter."""
    attrs = {name: op.get_attr(name) for name in ("strides", "rates", "padding")}
    inputs = dict(input=op.inputs[0], filter=op.inputs[1], out_backprop=grad)
    return [apply_op("Dilation2DBackpropInput", **inputs, **attrs),
            apply_op("Dilation2DBackpropFilter", **inputs, **attrs)]


@RegisterGradient("AvgPool")
def _avg_pool_grad(op, grad):
    """Each window's gradient is shared among its elements."""
    return nn_ops.avg_pool_grad(array_ops.shape(op.inputs[0]), grad, **_pool_attrs(op))


@RegisterGradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    """AvgPoolGrad is the transpose of AvgPool (a linear map), so AvgPool is its gradient.

    TensorFlow returns stop_gradient(orig_input_shape) for the integer shape
    input; no gradient (None) says the same thing.
    """
    return None, nn_ops.avg_pool(grad, **_pool_attrs(op))


def _register_volume_pool_gradients():
    """MaxPool3D's and AvgPool3D's gradients and their backward ops', as the 2-D ones above."""

    @RegisterGradient("MaxPool3D")
    def _max_pool3d_grad(op, grad):
        return nn_ops.max_pool3d_grad(op.inputs[0], op.outputs[0], grad, **_pool_attrs(op))

    @RegisterGradient("MaxPool3DGrad")
    def _max_pool3d_grad_grad(op, grad):
        orig_input, orig_output, _ = op.inputs
        return (array_ops.zeros_like(orig_input), array_ops.zeros_like(orig_output),
                nn_ops.max_pool3d_grad_grad(orig_input, orig_output, grad, **_pool_attrs(op)))

    @RegisterGradient("MaxPool3DGradGrad")
    def _max_pool3d_grad_grad_grad(op, grad):
        orig_input, orig_output, _ = op.inputs
        return (array_ops.zeros_like(orig_input), array_ops.zeros_like(orig_output),
                nn_ops.max_pool3d_grad(orig_input, orig_output, grad, **_pool_attrs(op)))

    @RegisterGradient("AvgPool3D")
    def _avg_pool3d_grad(op, grad):
        return nn_ops.avg_pool3d_grad(array_ops.shape(op.inputs[0]), grad, **_pool_attrs(op))

    @RegisterGradient("AvgPool3DGrad")
    def _avg_pool3d_grad_grad(op, grad):
        return None, nn_ops.avg_pool3d(grad, **_pool_attrs(op))


_register_volume_pool_gradients()


@RegisterGradient("FractionalMaxPool")
def _fractional_max_pool_grad(op, grad_0, unused_grad_1, unused_grad_2):
    """Each region's gradient goes to its maximum; the sequences have none."""
    return apply_op("FractionalMaxPoolGrad", orig_input=op.inputs[0],
                    orig_output=op.outputs[0], out_backprop=grad_0,
                    row_pooling_sequence=op.outputs[1], col_pooling_sequence=op.outputs[2],
                    overlapping=op.get_attr("overlapping"))


@RegisterGradient("FractionalAvgPool")
def _fractional_avg_pool_grad(op, grad_0, unused_grad_1, unused_grad_2):
    """Each region's gradient is shared among its elements."""
    return apply_op("FractionalAvgPoolGrad",
                    orig_input_tensor_shape=array_ops.shape(op.inputs[0],
                                                            out_type=dtypes.int64),
                    out_backprop=grad_0, row_pooling_sequence=op.outputs[1],
                    col_pooling_sequence=op.outputs[2], overlapping=op.get_attr("overlapping"))


# --- CTC -----------------------------------------------------------------------------------------

@RegisterGradient("CTCLoss")
def _ctc_loss_grad(op, grad_loss, _):
    """The op's own `gradient` output, scaled per batch entry by the loss's gradient.

    That output has no gradient of its own: a second derivative is refused
    (PreventGradient), never silently wrong.
    """
    gradient = array_ops.prevent_gradient(
        op.outputs[1], message="Currently there is no way to take the second  derivative of "
        "ctc_loss due to the fused implementation's interaction  with tf.gradients()")
    return [array_ops.expand_dims(grad_loss, -1) * gradient, None, None, None]


NotDifferentiable("CTCGreedyDecoder")
NotDifferentiable("CTCBeamSearchDecoder")


# --- top_k ----------------------------------------------------------------------------------------

@RegisterGradient("TopKV2")
def _top_k_grad(op, grad, _):
    """Each value's gradient goes back to where it was taken from; the rest of the input gets 0.

    The indices are per row; adding each row's offset makes them indices into
    the flattened input, where scatter_nd puts the gradients.
    """
    in_shape = array_ops.shape(op.inputs[0])
    ind_shape = array_ops.shape(op.outputs[1])
    ind_lastdim = array_ops.gather(ind_shape, array_ops.size(ind_shape) - 1)
    ind_2d = array_ops.reshape(op.outputs[1], array_ops.stack([-1, ind_lastdim]))
    in_lastdim = array_ops.gather(in_shape, array_ops.size(in_shape) - 1)
    outerdim = array_ops.shape(ind_2d)[0]
    ind = array_ops.reshape(
        ind_2d + array_ops.expand_dims(math_ops.range(0, outerdim * in_lastdim, in_lastdim), -1),
        [-1])
    return [array_ops.reshape(array_ops.scatter_nd(array_ops.expand_dims(ind, -1),
                                                   array_ops.reshape(grad, [-1]),
                                                   [math_ops.reduce_prod(in_shape)]), in_shape),
            array_ops.zeros([], dtype=dtypes.int32)]


# --- normalization ------------------------------------------------------------------------------

@RegisterGradient("LRN")
def _lrn_grad(op, grad):
    attrs = {name: op.get_attr(name) for name in ("depth_radius", "bias", "alpha", "beta")}
    return [nn_ops.lrn_grad(grad, op.inputs[0], op.outputs[0], **attrs)]


def _batch_norm_attrs(op):
    return {name: op.get_attr(name) for name in ("epsilon", "data_format", "is_training")}


@RegisterGradient("FusedBatchNormV3")
def _fused_batch_norm_grad(op, *grad):
    """One backward op for x, scale and offset; mean and variance (inference inputs) get None.

    In training the batch statistics the op used are its reserve spaces; in
    inference they are its `mean` and `variance` inputs.
    """
    x, scale = op.inputs[0], op.inputs[1]
    attrs = _batch_norm_attrs(op)
    if attrs["is_training"]:
        mean, variance = op.outputs[3], op.outputs[4]
    else:
        mean, variance = op.inputs[3], op.inputs[4]
    dx, dscale, doffset, _, _ = nn_impl.fused_batch_norm_grad(grad[0], x, scale, mean, variance,
                                                             op.outputs[5], **attrs)
    return dx, dscale, doffset, None, None


def _batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format, is_training):
    """FusedBatchNormGradV3 written with plain ops, so that it can be differentiated itself.

    (grad_x, grad_scale, grad_offset). In training the statistics are
    recomputed from x, since they depend on it.
    """
    x_dtype = x.dtype.base_dtype
    if x_dtype == dtypes.float16:  # float16 is too imprecise for these sums
        x, grad_y = math_ops.cast(x, dtypes.float32), math_ops.cast(grad_y, dtypes.float32)
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    channels_first = data_format.startswith("NC")
    reduce_axis = [0] + list(range(2, rank)) if channels_first else list(range(rank - 1))
    if channels_first:
        shape = [1, array_ops.size(scale)] + [1] * (rank - 2)
        scale = array_ops.reshape(scale, shape)
        pop_mean, pop_var = array_ops.reshape(pop_mean, shape), array_ops.reshape(pop_var, shape)
    grad_offset = math_ops.reduce_sum(grad_y, axis=reduce_axis)
    if is_training:
        mean_grad_y = math_ops.reduce_mean(grad_y, reduce_axis, keepdims=True)
        mean_x = math_ops.reduce_mean(x, reduce_axis, keepdims=True)
        var_x = math_ops.reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)), reduce_axis,
            keepdims=True)
        x_offset = x - mean_x
        mean = math_ops.reduce_mean(grad_y * x_offset, axis=reduce_axis, keepdims=True)
        grad_x = scale * math_ops.rsqrt(var_x + epsilon) * (
            grad_y - mean_grad_y - math_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        grad_scale = math_ops.reduce_sum(
            math_ops.rsqrt(var_x + epsilon) * grad_y * x_offset, axis=reduce_axis)
    else:
        var_rsqrt = math_ops.rsqrt(pop_var + epsilon)
        grad_scale = math_ops.reduce_sum(grad_y * (x - pop_mean) * var_rsqrt, axis=reduce_axis)
        grad_x = grad_y * scale * var_rsqrt
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


@RegisterGradient("FusedBatchNormGradV3")
def _fused_batch_norm_grad_grad(op, *grad):
    """Differentiates `_batch_norm_grad`, the backward op spelled out, with tf.gradients.

    Its inputs are taken through stop_gradient: the derivatives wanted are those
    of the backward op alone, not of whatever computed its inputs (grad_y itself
    depends on x).
    """
    grad_y, x, scale = (array_ops.stop_gradient(t) for t in op.inputs[:3])
    pop_mean, pop_var = op.inputs[3:5]
    attrs = _batch_norm_attrs(op)
    grad_x, grad_scale, grad_offset = _batch_norm_grad(grad_y, x, scale, pop_mean, pop_var,
                                                       **attrs)
    ys = [grad_x, grad_scale, grad_offset]
    grad_ys = [array_ops.zeros_like(y) if g is None else g for y, g in zip(ys, grad[:3])]
    grad_grad_y, grad_x, grad_scale = gradients_impl.gradients(ys, [grad_y, x, scale],
                                                               grad_ys=grad_ys)
    return grad_grad_y, grad_x, grad_scale, None, None, None
