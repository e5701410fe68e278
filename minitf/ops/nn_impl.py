"""Neural-network composites: functions built from other ops, as TensorFlow's nn_impl.py.

Nothing here has a kernel of its own except `fused_batch_norm`, which is one
op (FusedBatchNormV3). The rest are small subgraphs whose node names are
TensorFlow's: swish, the weighted and Poisson losses, the moments family
(sufficient statistics, normalized, weighted), batch normalization, and the
averaging helpers of distributed training, which with minitf's single
replica divide by the batch size alone.

    batch_normalization:  inv = rsqrt(variance + epsilon) * scale
                          y   = x * inv + (offset - mean * inv)

The user reaches them through `tf.nn` (minitf/nn.py).

Mirrors `tensorflow/python/ops/nn_impl.py` (and `nn_impl_distribute.py`).
"""

import math

from minitf.autodiff.custom_gradient import custom_gradient
from minitf.graph import constant_op
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import math_ops
from minitf.ops import nn_ops

__all__ = []


_deprecated_argument_lookup = nn_ops._deprecated_argument_lookup


# --- activations built from other ops ----------------------------------------------------

def swish(features, beta=1.0):
    """features * sigmoid(beta * features) (SiLU for beta = 1), with its own gradient.

    The gradient is written out rather than derived through the sigmoid, so
    that backprop keeps no intermediate tensor but `features`.
    """
    features = convert_to_tensor(features, name="features")
    beta = math_ops.cast(convert_to_tensor(beta, name="beta"), features.dtype)

    @custom_gradient
    def swish_impl(features, beta):
        def grad(dy):
            with ops.control_dependencies([dy]):
                sigmoid_features = math_ops.sigmoid(beta * features)
            activation_grad = sigmoid_features * (
                1.0 + (beta * features) * (1.0 - sigmoid_features))
            beta_grad = math_ops.reduce_sum(
                dy * math_ops.square(features) * sigmoid_features * (1.0 - sigmoid_features))
            return dy * activation_grad, beta_grad
        return features * math_ops.sigmoid(beta * features), grad

    return swish_impl(features, beta)


silu = swish


def relu_layer(x, weights, biases, name=None):
    """relu(matmul(x, weights) + biases)."""
    with ops.name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        xw_plus_b = nn_ops.bias_add(math_ops.matmul(x, weights), biases)
        return nn_ops.relu(xw_plus_b, name=scope)


# --- losses ---------------------------------------------------------------------------------

def _check_same_shape(a, b, a_name, b_name):
    try:
        b.get_shape().assert_is_compatible_with(a.get_shape())
    except ValueError:
        raise ValueError("%s and %s must have the same shape (%s vs %s)"
                         % (a_name, b_name, a.get_shape(), b.get_shape())) from None


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """Sigmoid cross entropy whose positive term is weighted by `pos_weight`:

        labels * -log(sigmoid(logits)) * pos_weight + (1 - labels) * -log(1 - sigmoid(logits))

    computed as (1 - z) * x + l * (log(1 + exp(-abs(x))) + max(-x, 0)) with
    l = 1 + (pos_weight - 1) * z, which neither overflows nor loses precision.
    """
    labels = _deprecated_argument_lookup("labels", labels, "targets", targets)
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        _check_same_shape(logits, labels, "logits", "labels")
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add(
            (1 - labels) * logits,
            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits)))
                          + nn_ops.relu(-logits)),
            name=scope)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """The negative log-likelihood of `targets` under a Poisson of log-rate `log_input`:
    exp(log_input) - log_input * targets, plus (with `compute_full_loss`) the Stirling
    approximation of log(targets!), counted only for targets above 1."""
    with ops.name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        _check_same_shape(log_input, targets, "log_input", "targets")
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant_op.constant(0.5, dtype=targets.dtype)
            two_pi = constant_op.constant(2 * math.pi, dtype=targets.dtype)
            stirling_approx = (targets * math_ops.log(targets)) - targets + (
                point_five * math_ops.log(two_pi * targets))
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += math_ops.where(cond, zeros, stirling_approx)
        return result


# --- statistics ------------------------------------------------------------------------------

def _count_nonzero(input_tensor, dtype=dtypes.int64):
    with ops.name_scope("count_nonzero", values=[input_tensor]):
        zero = array_ops.zeros([], dtype=input_tensor.dtype)
        return math_ops.reduce_sum(
            math_ops.cast(math_ops.not_equal(input_tensor, zero), dtype=dtype),
            name="nonzero_count")


def zero_fraction(value, name=None):
    """The fraction of zeros in `value`, as a float32 scalar (a sparsity summary of
    activations)."""
    with ops.name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes.int64)
        # TensorFlow picks an int32 count inside a tf.cond when the size fits in
        # an int32; a count in int64 is right for every size.
        num_nonzero = _count_nonzero(value, dtype=dtypes.int64)
        with ops.name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            num_zero_float32 = math_ops.cast(num_zero, dtype=dtypes.float32)
            size_float32 = math_ops.cast(size, dtype=dtypes.float32)
            zero_fraction_float32 = num_zero_float32 / size_float32
        return array_ops.identity(zero_fraction_float32, "fraction")


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of x - shift, sum of (x - shift) ** 2, shift) over `axes`.

    What the mean and variance are computed from (normalize_moments), and
    what can be added up across batches before dividing.
    """
    axes = list(set(axes))
    keep_dims = _deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    if keep_dims is None:
        keep_dims = False
    with ops.name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        x_shape = x.get_shape()
        dims = x_shape.as_list() if x_shape.ndims is not None else None
        if dims is not None and all(dims[d] is not None for d in axes):
            counts = 1
            for d in axes:
                counts *= dims[d]
            counts = constant_op.constant(counts, dtype=x.dtype)
        else:  # the shape is known only when the graph runs
            rank = array_ops.rank(x)
            positive_axes = [axis + rank if axis < 0 else axis for axis in axes]
            x_dims = array_ops.gather(math_ops.cast(array_ops.shape(x), x.dtype),
                                      positive_axes)
            counts = math_ops.reduce_prod(x_dims, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss = x
            v_ss = math_ops.square(x)
        m_ss = math_ops.reduce_sum(m_ss, axes, keepdims=keep_dims, name="mean_ss")
        v_ss = math_ops.reduce_sum(v_ss, axes, keepdims=keep_dims, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics: variance = E[(x-s)^2] - (E[x-s])^2."""
    with ops.name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(math_ops.multiply(variance_ss, divisor),
                                     math_ops.square(shifted_mean), name="variance")
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of `x` over `axes`, each element counted `frequency_weights` times.

    The weights broadcast against `x`; all-zero weights give 0, not NaN (div_no_nan).
    """
    keep_dims = _deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    if keep_dims is None:
        keep_dims = False
    with ops.name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        frequency_weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype == dtypes.float16  # float16 cannot hold the sums
        if needs_cast:
            x = math_ops.cast(x, dtypes.float32)
        if frequency_weights.dtype != x.dtype:
            frequency_weights = math_ops.cast(frequency_weights, x.dtype)
        weighted_input_sum = math_ops.reduce_sum(frequency_weights * x, axes,
                                                 name="weighted_input_sum", keepdims=True)
        broadcasted_weights = frequency_weights + array_ops.zeros_like(x)
        sum_of_weights = math_ops.reduce_sum(broadcasted_weights, axes, name="sum_of_weights",
                                             keepdims=True)
        weighted_mean = math_ops.div_no_nan(weighted_input_sum, sum_of_weights)
        weighted_distsq = math_ops.reduce_sum(
            frequency_weights * math_ops.squared_difference(x, weighted_mean), axes,
            name="weighted_distsq", keepdims=True)
        weighted_variance = math_ops.div_no_nan(weighted_distsq, sum_of_weights)
        if not keep_dims:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        if needs_cast:
            weighted_mean = math_ops.cast(weighted_mean, dtypes.float16)
            weighted_variance = math_ops.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance


# --- batch normalization -------------------------------------------------------------------------

def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """scale * (x - mean) / sqrt(variance + variance_epsilon) + offset, broadcasting.

    Written as x * inv + (offset - mean * inv), with inv = rsqrt(variance +
    epsilon) * scale: one multiply and one add on the (large) x.
    """
    with ops.name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        return x * math_ops.cast(inv, x.dtype) + math_ops.cast(
            offset - mean * inv if offset is not None else -mean * inv, x.dtype)


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None, scale_after_normalization=None,
                                         name=None, input=None,  # noqa: A002 - TF's name
                                         mean=None, variance=None):
    """The old interface of batch_normalization: gamma only with scale_after_normalization."""
    t = _deprecated_argument_lookup("input", input, "t", t)
    m = _deprecated_argument_lookup("mean", mean, "m", m)
    v = _deprecated_argument_lookup("variance", variance, "v", v)
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name)


# cuDNN refuses smaller epsilons; TensorFlow raises every epsilon to this on all devices.
_MIN_BATCH_NORM_EPSILON = 1.001e-5


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None):
    """Batch normalization of a 4-D (or 5-D) `x` in one op: (y, batch_mean, batch_variance).

    Training: normalizes with the batch's statistics over every axis but the
    channels, and returns them (the variance with Bessel's correction, for
    moving averages). Inference: `mean` and `variance` must be given, and are used.
    """
    if not is_training and (mean is None or variance is None):
        raise ValueError("Both 'mean' and 'variance' must be a 1D tensor when is_training is "
                         "False.")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant_op.constant([])
    if variance is None:
        variance = constant_op.constant([])
    epsilon = max(epsilon, _MIN_BATCH_NORM_EPSILON)
    y, batch_mean, batch_variance, _, _, _ = apply_op(
        "FusedBatchNormV3", name=name, x=x, scale=scale, offset=offset, mean=mean,
        variance=variance, epsilon=epsilon, data_format=data_format, is_training=is_training)
    return y, batch_mean, batch_variance


def fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                          reserve_space_3, epsilon=0.0001, data_format="NHWC",
                          is_training=True, name=None):
    """The gradients of FusedBatchNormV3: (x_backprop, scale_backprop, offset_backprop, _, _)."""
    return apply_op("FusedBatchNormGradV3", name=name, y_backprop=y_backprop, x=x, scale=scale,
                    reserve_space_1=reserve_space_1, reserve_space_2=reserve_space_2,
                    reserve_space_3=reserve_space_3, epsilon=epsilon, data_format=data_format,
                    is_training=is_training)


# --- depthwise and separable convolutions ---------------------------------------------------------
#
# TensorFlow dilates these (rate > 1) by wrapping the undilated op in
# SpaceToBatchND / BatchToSpaceND (`with_space_to_batch`); minitf passes the
# rate to the op's `dilations` attr instead. The values are the same, the
# node names of a dilated call are not.

def _depthwise_dilations(filter, rate, strides, data_format):  # noqa: A002 - TF's name
    """The `dilations` attr for `rate`, after the two constants TensorFlow makes on the way
    (the filter's shape and the rate: see nn_ops._dilation_rate_constant)."""
    rate = [1, 1] if rate is None else list(rate)
    if any(r > 1 for r in rate) and any(s != 1 for s in strides):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    array_ops.shape(filter)
    nn_ops._dilation_rate_constant(rate)
    if data_format is not None and data_format.startswith("NC"):
        return [1, 1] + rate
    return [1] + rate + [1]


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """Each input channel convolved with its own filters (DepthwiseConv2dNative), dilated
    by `rate`: `filter` is [height, width, in_channels, channel_multiplier]."""
    rate = _deprecated_argument_lookup("dilations", dilations, "rate", rate)
    with ops.name_scope(name, "depthwise", [input, filter]) as name:
        input = convert_to_tensor(input, name="tensor_in")
        filter = convert_to_tensor(filter, name="filter_in")
        return nn_ops.depthwise_conv2d_native(
            input, filter, strides, padding, data_format=data_format or "NHWC",
            dilations=_depthwise_dilations(filter, rate, strides, data_format), name=name)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     rate=None, name=None, data_format=None, dilations=None):
    """A depthwise convolution, then a 1x1 convolution that mixes its channels.

    `depthwise_filter` is [height, width, in_channels, channel_multiplier];
    `pointwise_filter` is [1, 1, in_channels * channel_multiplier, out_channels].
    """
    rate = _deprecated_argument_lookup("dilations", dilations, "rate", rate)
    with ops.name_scope(name, "separable_conv2d",
                        [input, depthwise_filter, pointwise_filter]) as name:
        input = convert_to_tensor(input, name="tensor_in")
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pointwise_filter_shape = pointwise_filter.get_shape().with_rank(4)
        pointwise_filter_shape.dims[0].assert_is_compatible_with(1)
        pointwise_filter_shape.dims[1].assert_is_compatible_with(1)
        depthwise = nn_ops.depthwise_conv2d_native(
            input, depthwise_filter, strides, padding, data_format=data_format or "NHWC",
            dilations=_depthwise_dilations(depthwise_filter, rate, strides, data_format),
            name="depthwise")
        return nn_ops.conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], padding="VALID",
                             data_format=data_format, name=name)


# --- averaging across replicas -----------------------------------------------------------------
#
# Under a distribution strategy, each replica divides its loss by the global
# batch size (or the regularization loss by the number of replicas) so that
# summing over replicas gives the mean. minitf has no strategies: one replica.

_NUM_REPLICAS = 1


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (0 for an empty batch).

    `global_batch_size` defaults to the first dimension of the loss.
    """
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    if per_example_loss.shape.ndims == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with "
                         "at least rank 1. Received shape ()")
    if sample_weight is not None:
        sample_weight = math_ops.cast(convert_to_tensor(sample_weight), input_dtype)
        per_example_loss = per_example_loss * sample_weight
    if global_batch_size is None:
        per_replica_batch_size = array_ops.shape(per_example_loss)[0]
        global_batch_size = per_replica_batch_size * _NUM_REPLICAS
    elif isinstance(global_batch_size, int) and global_batch_size <= 0:
        raise ValueError("global_batch_size must be positive, got %d" % global_batch_size)
    global_batch_size = math_ops.cast(global_batch_size, input_dtype)
    return math_ops.div_no_nan(math_ops.reduce_sum(per_example_loss), global_batch_size)


def scale_regularization_loss(regularization_loss):
    """sum(regularization_loss) / the number of replicas (one in minitf)."""
    return math_ops.reduce_sum(regularization_loss) / _NUM_REPLICAS
