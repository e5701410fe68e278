"""Neural-network composites: functions built from other ops, as TensorFlow's nn_impl.py.

Nothing here has a kernel of its own except `fused_batch_norm`, which is one
op (FusedBatchNormV3). The rest are small subgraphs whose node names are
TensorFlow's: the weighted and Poisson losses, the moments family
(sufficient statistics, normalized, weighted), batch normalization, and the
averaging helpers of distributed training, which with minitf's single
replica divide by the batch size alone.

    batch_normalization:  inv = rsqrt(variance + epsilon) * scale
                          y   = x * inv + (offset - mean * inv)

The user reaches them through `tf.nn` (minitf/nn.py). TensorFlow's
nn_impl.py also holds swish, whose gradient is written with
`tf.custom_gradient`; minitf's is in the Gradients chapter
(`minitf/autodiff/swish.py`), which builders do not import.

Mirrors `tensorflow/python/ops/nn_impl.py` (and `nn_impl_distribute.py`).
"""

import math

from minitf.graph import constant_op
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import candidate_sampling_ops
from minitf.ops import embedding_ops
from minitf.ops import math_ops
from minitf.ops import nn_ops

__all__ = []


_deprecated_argument_lookup = nn_ops._deprecated_argument_lookup


# --- activations built from other ops ----------------------------------------------------

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


# --- sampled losses: a few sampled classes instead of all of them ---------------------------------
#
# With many classes (a vocabulary), the logits of every class cost too much.
# These losses score each example's true classes and `num_sampled` classes
# drawn for the whole batch (log-uniformly by default), each logit minus the
# log of how often its class was expected to be drawn, so that the sampled
# loss estimates the full one. A sampled class that is also a row's true
# class (an accidental hit) can be taken out with a logit of -FLT_MAX.

def _sum_rows(x):
    """The sum of each row of a matrix, as a matmul with a column of ones (faster on GPUs)."""
    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(array_ops.stack([cols, 1]), x.dtype)
    return array_ops.reshape(math_ops.matmul(x, ones), [-1])


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true=1, sampled_values=None, subtract_log_q=True,
                            remove_accidental_hits=False, partition_strategy="mod",
                            name=None, seed=None):
    """(logits, labels) of [batch, num_true + num_sampled]: the true classes' columns first,
    with labels 1 / num_true, then the sampled classes' with labels 0."""
    if not isinstance(weights, list):
        weights = [weights]
    with ops.name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        labels = convert_to_tensor(labels)
        if labels.dtype != dtypes.int64:
            labels = math_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = candidate_sampling_ops.log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed)
        sampled, true_expected_count, sampled_expected_count = (
            array_ops.stop_gradient(s) for s in sampled_values)
        sampled = math_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_ops.embedding_lookup(weights, all_ids,
                                               partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        true_w = array_ops.slice(all_w, [0, 0],
                                 array_ops.stack([array_ops.shape(labels_flat)[0], -1]))
        sampled_w = array_ops.slice(all_w, array_ops.stack([array_ops.shape(labels_flat)[0], 0]),
                                    [-1, -1])
        sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_ops.embedding_lookup(biases, all_ids,
                                               partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        # Each row's dot products with its num_true true classes' weights.
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(array_ops.expand_dims(inputs, 1),
                                          array_ops.reshape(true_w, new_true_w_shape))
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b
        if remove_accidental_hits:
            sampled_logits += _accidental_hit_logits(labels, sampled, num_true, num_sampled,
                                                     sampled_logits.dtype)
        if subtract_log_q:
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat([array_ops.ones_like(true_logits) / num_true,
                                       array_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def _accidental_hit_logits(labels, sampled, num_true, num_sampled, dtype):
    """[batch, num_sampled]: -FLT_MAX where a sampled class is one of the row's true
    classes, 0 elsewhere. (TensorFlow writes it with SparseToDense; minitf with ScatterNd,
    which adds up repeated positions no differently here: each (row, position) is one hit.)"""
    acc_indices, acc_ids, acc_weights = candidate_sampling_ops.compute_accidental_hits(
        labels, sampled, num_true=num_true)
    acc_indices_2d = array_ops.reshape(acc_indices, [-1, 1])
    acc_ids_2d_int32 = array_ops.reshape(math_ops.cast(acc_ids, dtypes.int32), [-1, 1])
    sparse_indices = array_ops.concat([acc_indices_2d, acc_ids_2d_int32], 1, "sparse_indices")
    sampled_logits_shape = array_ops.concat(
        [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0)
    if acc_weights.dtype != dtype:
        acc_weights = math_ops.cast(acc_weights, dtype)
    return array_ops.scatter_nd(sparse_indices, acc_weights, sampled_logits_shape)


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):
    """Noise-contrastive estimation: per example, the sigmoid cross entropy of telling its
    true classes (label 1 / num_true) from the sampled ones (label 0).

    `weights` is [num_classes, dim] (or a list of its partitions), `biases`
    [num_classes], `labels` [batch, num_true], `inputs` [batch, dim]. Returns
    [batch]; use it for training only (the full logistic loss for evaluation).
    """
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values,
        subtract_log_q=True, remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name)
    sampled_losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                              name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """The softmax cross entropy over each example's true classes and the sampled ones: an
    estimate of the full softmax loss, for training with many classes. Returns [batch]."""
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values,
        subtract_log_q=True, remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name, seed=seed)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)


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
