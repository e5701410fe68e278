"""Neural-network ops: activations, softmax, bias_add, losses, dropout, moments, conv, pooling.

Two kinds of ops live here, as in TensorFlow:

* *primitives*, each an op type with its own OpDef (in
  `minitf/framework/op_defs/nn.py`) and kernel: Relu, Relu6,
  Elu, Softplus, Softmax, LogSoftmax, BiasAdd, L2Loss, the two fused
  softmax cross entropies, Conv2D, DepthwiseConv2dNative, MaxPool,
  MaxPoolWithArgmax, AvgPool, Dilation2D, TopKV2, LRN, and the backward
  ops their gradients are made of (ReluGrad, BiasAddGrad,
  Conv2DBackpropInput, MaxPoolGrad, ...); their kernels are in
  `minitf/kernels/cpu/nn_kernels.py`;
* *composites*, Python functions that build a small subgraph from other ops:
  sigmoid cross entropy, dropout, moments, l2_normalize, and the reshapes and
  transposes around the primitives when an axis is not the last one.

Every kernel is numerically stable: softmax and the cross entropies subtract
the row maximum before exponentiating, so logits of 1000 give finite results.
The user reaches these through `tf.nn` (minitf/nn.py).

Mirrors `tensorflow/python/ops/nn_ops.py` and `nn_impl.py`.
"""

import collections
import collections.abc
import numbers

import numpy as np

from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops
from minitf.ops import math_ops
from minitf.ops import random_ops

# No nn op has a top-level `tf.*` name in TF 1.15: they are all under `tf.nn`.
__all__ = []


# --- shape-function helpers with TensorFlow's wording --------------------------------


def _deprecated_argument_lookup(new_name, new_value, old_name, old_value):
    """The value of a renamed argument (`axis` was `dim`); both given is an error."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError("Cannot specify both '%s' and '%s'" % (old_name, new_name))
        return old_value
    return new_value


# --- activations ---------------------------------------------------------------------


def relu(features, name=None):
    """max(features, 0)."""
    return apply_op("Relu", name=name, features=features)


def relu6(features, name=None):
    """min(max(features, 0), 6)."""
    with ops.name_scope(name, "Relu6", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        return apply_op("Relu6", name=scope, features=features)


def elu(features, name=None):
    """features where positive, exp(features) - 1 elsewhere."""
    return apply_op("Elu", name=name, features=features)


def softplus(features, name=None):
    """log(exp(features) + 1), computed without overflow."""
    return apply_op("Softplus", name=name, features=features)


def selu(features, name=None):
    """Scaled exponential linear unit: scale * x where positive, scale * alpha * (exp(x) - 1)
    elsewhere, with the constants that keep activations normalized (Klambauer et al., 2017)."""
    return apply_op("Selu", name=name, features=features)


def leaky_relu(features, alpha=0.2, name=None):
    """x where positive, alpha * x elsewhere; integer features are cast to float32 first."""
    with ops.name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = math_ops.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return apply_op("LeakyRelu", name=scope, features=features, alpha=alpha)


def softsign(features, name=None):
    """x / (abs(x) + 1)."""
    return apply_op("Softsign", name=name, features=features)


def crelu(features, name=None, axis=-1):
    """Concatenated ReLU: relu of [features, -features] joined along `axis` (twice as deep)."""
    with ops.name_scope(name, "CRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        c = array_ops.concat([features, -features], axis, name=scope)
        return relu(c)


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases: a dense layer without its activation."""
    with ops.name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        mm = math_ops.matmul(x, weights)
        return bias_add(mm, biases, name=scope)


# --- softmax and log_softmax -------------------------------------------------------------


def _softmax_op(logits, name=None):
    return apply_op("Softmax", name=name, logits=logits)


def _log_softmax_op(logits, name=None):
    return apply_op("LogSoftmax", name=name, logits=logits)


def _swap_axis(logits, dim_index, last_index, name=None):
    """Transposes `logits` so that dimensions `dim_index` and `last_index` trade places."""
    return array_ops.transpose(logits, array_ops.concat([
        math_ops.range(dim_index), [last_index],
        math_ops.range(dim_index + 1, last_index), [dim_index]], 0), name=name)


def _softmax(logits, compute_op, dim=-1, name=None):
    """Applies `compute_op` (Softmax or LogSoftmax) along dimension `dim`.

    The kernels only work on the last dimension; for any other dimension the
    input is transposed so that `dim` comes last, and the result transposed back.
    """
    logits = convert_to_tensor(logits)
    shape = logits.get_shape()
    if dim == -1 or (shape.ndims is not None and dim == shape.ndims - 1):
        return compute_op(logits, name=name)
    if shape.ndims is None:
        raise ValueError("softmax along dimension %s needs logits of known rank" % (dim,))

    dim_value = tensor_util.constant_value(dim) if isinstance(dim, ops.Tensor) else dim
    if dim_value is not None and not -shape.ndims <= dim_value < shape.ndims:
        raise errors.InvalidArgumentError(
            None, None, "Dimension (%d) must be in the range [%d, %d) where %d is the number "
            "of dimensions in the input." % (dim_value, -shape.ndims, shape.ndims, shape.ndims))

    ndims = array_ops.rank(logits)
    if not isinstance(dim, ops.Tensor):
        if dim < 0:
            dim += ndims
    else:
        dim = math_ops.where(math_ops.less(dim, 0), dim + ndims, dim)

    input_rank = array_ops.rank(logits)
    dim_axis = dim % shape.ndims
    logits = _swap_axis(logits, dim_axis, math_ops.subtract(input_rank, 1))
    output = compute_op(logits)
    output = _swap_axis(output, dim_axis, math_ops.subtract(input_rank, 1), name=name)
    output.set_shape(shape)  # the transposes lose the static shape
    return output


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / sum(exp(logits)) along `axis` (default: the last)."""
    axis = _deprecated_argument_lookup("axis", axis, "dim", dim)
    return _softmax(logits, _softmax_op, -1 if axis is None else axis, name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(sum(exp(logits))) along `axis` (default: the last)."""
    axis = _deprecated_argument_lookup("axis", axis, "dim", dim)
    return _softmax(logits, _log_softmax_op, -1 if axis is None else axis, name)


# --- bias_add ------------------------------------------------------------------------


def _canonical_data_format(data_format):
    """'NHWC' for channels-last formats (N...C), 'NCHW' for channels-first (NC...)."""
    if data_format is None:
        return "NHWC"
    if data_format.startswith("NC"):
        return "NCHW"
    if data_format.startswith("N") and data_format.endswith("C"):
        return "NHWC"
    raise ValueError("data_format must be of the form `N...C` or `NC...`")


def bias_add(value, bias, data_format=None, name=None):
    """Adds the 1-D `bias` to `value` along its channel dimension (last, or 1 for NC...)."""
    with ops.name_scope(name, "BiasAdd", [value, bias]) as scope:
        data_format = _canonical_data_format(data_format)
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype.base_dtype, name="bias")
        return apply_op("BiasAdd", name=scope, value=value, bias=bias, data_format=data_format)


# --- l2_loss -------------------------------------------------------------------------


def l2_loss(t, name=None):
    """sum(t ** 2) / 2, a scalar."""
    return apply_op("L2Loss", name=name, t=t)


# --- softmax cross entropy ------------------------------------------------------------


def _ensure_xent_args(name, sentinel, labels, logits):
    if sentinel is not None:
        raise ValueError("Only call `%s` with named arguments (labels=..., logits=..., ...)"
                         % name)
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")


def _flatten_outer_dims(logits):
    """`logits` reshaped to a matrix: all dimensions but the last folded into one."""
    rank = array_ops.rank(logits)
    last_dim_size = array_ops.slice(array_ops.shape(logits), [math_ops.subtract(rank, 1)], [1])
    output = array_ops.reshape(logits, array_ops.concat([[-1], last_dim_size], 0))
    shape = logits.get_shape()
    if shape.dims is not None:
        dims = shape.as_list()
        if all(d is not None for d in dims[:-1]):
            product = 1
            for d in dims[:-1]:
                product *= d
            output.set_shape([product, dims[-1]])
    return output


def _move_dim_to_end(tensor, dim_index, rank):
    return array_ops.transpose(tensor, array_ops.concat([
        math_ops.range(dim_index), math_ops.range(dim_index + 1, rank), [dim_index]], 0))


def _softmax_cross_entropy_with_logits(labels, logits, axis, name):
    """The shared body of both softmax cross entropies.

    The kernel wants matrices with the classes last: move `axis` to the end,
    flatten the rest into one batch dimension, run the op, and reshape the loss
    back to the logits' shape without `axis`.
    """
    with ops.name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        # float16 loses too much in the sums: compute in float32, return float16.
        convert_to_float32 = logits.dtype.base_dtype == dtypes.float16
        precise_logits = math_ops.cast(logits, dtypes.float32) if convert_to_float32 else logits
        labels = math_ops.cast(labels, precise_logits.dtype)
        input_rank = array_ops.rank(precise_logits)
        shape = logits.get_shape()

        if axis != -1:
            if axis < 0 and shape.ndims is not None:
                axis += shape.ndims
            precise_logits = _move_dim_to_end(precise_logits, axis, input_rank)
            labels = _move_dim_to_end(labels, axis, input_rank)

        input_shape = array_ops.shape(precise_logits)
        precise_logits = _flatten_outer_dims(precise_logits)
        labels = _flatten_outer_dims(labels)
        cost, _ = apply_op("SoftmaxCrossEntropyWithLogits", name=scope,
                           features=precise_logits, labels=labels)

        output_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, output_shape)
        if shape.dims is not None:
            dims = shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return math_ops.cast(cost, dtypes.float16) if convert_to_float32 else cost


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """-sum(labels * log_softmax(logits)) along `axis`; gradients flow into `labels` too."""
    axis = _deprecated_argument_lookup("axis", axis, "dim", dim)
    return _softmax_cross_entropy_with_logits(labels, logits, -1 if axis is None else axis,
                                              name)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """The deprecated TF 1 form: like `_v2`, but no gradient flows into `labels`."""
    # As in TensorFlow, `dim` has a default, so passing `axis` at all is an error.
    dim = _deprecated_argument_lookup("axis", axis, "dim", dim)
    _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with ops.name_scope(name, "softmax_cross_entropy_with_logits_sg",
                        [logits, labels]) as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim,
                                                name=scope)


def _check_sparse_xent_shapes(labels_shape, logits_shape):
    if logits_shape.ndims == 0:
        raise ValueError("Logits cannot be scalars - received shape %s." % logits_shape)
    if (logits_shape.ndims is not None and labels_shape.ndims is not None
            and labels_shape.ndims != logits_shape.ndims - 1):
        raise ValueError("Rank mismatch: Rank of labels (received %s) should equal rank of "
                         "logits minus 1 (received %s)." % (labels_shape.ndims,
                                                            logits_shape.ndims))
    if (labels_shape.is_fully_defined() and logits_shape[:-1].is_fully_defined()
            and labels_shape != logits_shape[:-1]):
        raise ValueError("Shape mismatch: The shape of labels (received %s) should equal the "
                         "shape of logits except for the last dimension (received %s)."
                         % (labels_shape, logits_shape))


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """Softmax cross entropy where `labels` are class indices, not distributions.

    A label outside [0, num_classes) is an InvalidArgumentError when the op runs.
    """
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with ops.name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        is_half = logits.dtype.base_dtype == dtypes.float16
        precise_logits = math_ops.cast(logits, dtypes.float32) if is_half else logits
        labels_static_shape = labels.get_shape()
        labels_shape = array_ops.shape(labels)
        _check_sparse_xent_shapes(labels_static_shape, logits.get_shape())

        if logits.get_shape().ndims == 2:
            cost, _ = apply_op("SparseSoftmaxCrossEntropyWithLogits", name=name,
                               features=precise_logits, labels=labels)
        else:
            # Fold the leading dimensions: logits to [n, classes], labels to [n].
            num_classes = array_ops.shape(logits)[array_ops.rank(logits) - 1]
            precise_logits = array_ops.reshape(precise_logits, [-1, num_classes])
            labels = array_ops.reshape(labels, [-1])
            cost, _ = apply_op("SparseSoftmaxCrossEntropyWithLogits", name=name,
                               features=precise_logits, labels=labels)
            cost = array_ops.reshape(cost, labels_shape)
            cost.set_shape(labels_static_shape)
        return math_ops.cast(cost, dtypes.float16) if is_half else cost


# --- sigmoid cross entropy (a composite) ------------------------------------------------

def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """The logistic loss of each element, z * -log(sigmoid(x)) + (1 - z) * -log(1 - sigmoid(x)).

    With x = logits and z = labels it simplifies to x - x * z + log(1 + exp(-x)),
    which overflows for very negative x; the stable form used here is
    max(x, 0) - x * z + log(1 + exp(-abs(x))).
    """
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        try:
            labels.get_shape().merge_with(logits.get_shape())
        except ValueError:
            raise ValueError("logits and labels must have the same shape (%s vs %s)"
                             % (logits.get_shape(), labels.get_shape())) from None
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype)
        cond = logits >= zeros
        relu_logits = math_ops.where(cond, logits, zeros)      # max(x, 0)
        neg_abs_logits = math_ops.where(cond, -logits, logits)  # -abs(x)
        return math_ops.add(relu_logits - logits * labels,
                            math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)


# --- dropout -------------------------------------------------------------------------

def _get_noise_shape(x, noise_shape):
    """The shape of the keep/drop mask: `x`'s, or `noise_shape` with x's known dims filled in."""
    if noise_shape is None:
        return array_ops.shape(x)
    try:
        noise_shape_ = tensor_shape.as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if x.shape.dims is not None and len(x.shape.dims) == len(noise_shape_.dims):
        new_dims = []
        for dim, noise_dim in zip(x.shape.as_list(), noise_shape_.as_list()):
            new_dims.append(dim if noise_dim is None and dim is not None else noise_dim)
        return tensor_shape.TensorShape(new_dims)
    return noise_shape


def _dropout_v2(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes each element with probability `rate`; scales the others by 1 / (1 - rate)."""
    with ops.name_scope(name, "dropout", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("x has to be a floating point tensor since it's going to be "
                             "scaled. Got a %s tensor instead." % x.dtype.name)
        if isinstance(rate, numbers.Real):
            if not 0 <= rate < 1:
                raise ValueError("rate must be a scalar tensor or a float in the range [0, 1), "
                                 "got %g" % rate)
            if rate == 0:
                return x
        rate = convert_to_tensor(rate, dtype=x.dtype.base_dtype, name="rate")
        rate.get_shape().assert_is_compatible_with(tensor_shape.scalar())
        if tensor_util.constant_value(rate) == 0:
            return x

        noise_shape = _get_noise_shape(x, noise_shape)
        # A uniform draw in [0, 1) is >= rate with probability 1 - rate.
        random_tensor = random_ops.random_uniform(noise_shape, seed=seed, dtype=x.dtype)
        keep_prob = 1 - rate
        scale = 1 / keep_prob
        keep_mask = random_tensor >= rate
        ret = x * scale * math_ops.cast(keep_mask, x.dtype)
        ret.set_shape(x.get_shape())
        return ret


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Dropout, TF 1 style: give `rate` (drop probability) or the deprecated `keep_prob`.

    Kept elements are scaled by 1 / keep_prob so that the expected sum is
    unchanged. `noise_shape` makes whole slices share one keep/drop decision.
    """
    try:
        keep = 1. - keep_prob if keep_prob is not None else None
    except TypeError:
        raise ValueError("keep_prob must be a floating point number or Tensor (got %r)"
                         % (keep_prob,)) from None
    rate = _deprecated_argument_lookup("rate", rate, "keep_prob", keep)
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return _dropout_v2(x, rate, noise_shape=noise_shape, seed=seed, name=name)


# --- moments and l2_normalize ------------------------------------------------------------

def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of `x` over `axes`; the variance is the biased (population) one.

    `shift` is accepted for compatibility and unused, as in TensorFlow.
    """
    keep_dims = _deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    if keep_dims is None:
        keep_dims = False
    with ops.name_scope(name, "moments", [x, axes]):
        x = convert_to_tensor(x, name="x")
        # float16 cannot hold the sums: compute in float32, return float16.
        is_half = x.dtype.base_dtype == dtypes.float16
        y = math_ops.cast(x, dtypes.float32) if is_half else x
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        # stop_gradient: the variance's gradient must not flow back through the mean
        # (it would be zero anyway, and this keeps the gradient graph small).
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)), axes,
            keepdims=True, name="variance")
        if not keep_dims:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if is_half:
            return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
        return mean, variance


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) along `axis`."""
    axis = _deprecated_argument_lookup("axis", axis, "dim", dim)
    with ops.name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=scope)


# --- the backward ops of the activations and of bias_add --------------------------------
#
# Each forward op above has a companion that computes its gradient in one kernel.
# The gradient functions (minitf/autodiff/nn_grad.py) build them; users do not
# (in TensorFlow they live in gen_nn_ops, not in tf.nn).


def relu_grad(gradients, features, name=None):
    """`gradients` where `features` > 0, else 0 (features may be Relu's input or output)."""
    return apply_op("ReluGrad", name=name, gradients=gradients, features=features)


def relu6_grad(gradients, features, name=None):
    """`gradients` where 0 < `features` < 6, else 0."""
    return apply_op("Relu6Grad", name=name, gradients=gradients, features=features)


def elu_grad(gradients, outputs, name=None):
    """`gradients * (outputs + 1)` where Elu's `outputs` < 0, else `gradients`.

    exp(x) = elu(x) + 1 for x < 0, so the derivative comes from the output alone.
    """
    return apply_op("EluGrad", name=name, gradients=gradients, outputs=outputs)


def softplus_grad(gradients, features, name=None):
    """`gradients * sigmoid(features)`: the derivative of log(1 + exp(x)) is sigmoid(x)."""
    return apply_op("SoftplusGrad", name=name, gradients=gradients, features=features)


def selu_grad(gradients, outputs, name=None):
    """`gradients * scale` where Selu's `outputs` > 0, else `gradients * (outputs + scale * alpha)`."""
    return apply_op("SeluGrad", name=name, gradients=gradients, outputs=outputs)


def leaky_relu_grad(gradients, features, alpha=0.2, name=None):
    """`gradients` where `features` > 0, else `alpha * gradients`."""
    return apply_op("LeakyReluGrad", name=name, gradients=gradients, features=features,
                    alpha=alpha)


def softsign_grad(gradients, features, name=None):
    """`gradients / (1 + abs(features)) ** 2`."""
    return apply_op("SoftsignGrad", name=name, gradients=gradients, features=features)


def bias_add_grad(out_backprop, data_format="NHWC", name=None):
    """`out_backprop` summed over every dimension but the channel one: BiasAdd's bias gradient."""
    return apply_op("BiasAddGrad", name=name, out_backprop=out_backprop,
                    data_format=data_format)


# --- convolution and pooling: the geometry of sliding windows ----------------------------
#
# Conv2D, MaxPool and AvgPool slide a window over the height and width of a
# 4-D tensor (NHWC: [batch, height, width, channels], or NCHW). Along each
# spatial axis the output length follows from the input length, the window
# length, the stride, the dilation (gaps between the window's taps) and the
# padding:
#
#   VALID     windows only where they fit:    (in - window_eff) // stride + 1
#   SAME      one window per stride step:     ceil(in / stride), zeros padded
#             around the input as needed, the odd one at the end (bottom/right)
#   EXPLICIT  the given padding, then VALID (conv2d only)
#
# where window_eff = (window - 1) * dilation + 1. The kernels
# (minitf/kernels/cpu/nn_kernels.py) use the same arithmetic.


def _get_sequence(value, n, channel_index, name):
    """A strides/dilations/ksize argument as the 4 values the op wants.

    One value is used for both spatial axes, two are (height, width), and
    four are taken as they are; the batch and channel entries become 1.
    """
    if value is None:
        value = [1]
    elif not isinstance(value, collections.abc.Sized):
        value = [value]
    if len(value) == n + 2:
        return list(value)
    if len(value) == 1:
        value = [value[0]] * n
    elif len(value) == n:
        value = list(value)
    else:
        raise ValueError("%s should be of length 1, %d or %d but was %d"
                         % (name, n, n + 2, len(value)))
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


def _convert_padding(padding):
    """`padding` as the op's (padding, explicit_paddings) attrs.

    A string is kept; a list of 4 [before, after] pairs (one per dimension)
    becomes padding "EXPLICIT" with the pairs flattened.
    """
    if padding == "EXPLICIT":
        raise ValueError('"EXPLICIT" is not a valid value for the padding parameter. To use '
                         'explicit padding, the padding parameter must be a list.')
    if not isinstance(padding, (list, tuple)):
        return padding, []
    explicit_paddings = []
    for i, dim_paddings in enumerate(padding):
        if not isinstance(dim_paddings, (list, tuple)):
            raise ValueError("When padding is a list, each element of padding must be a "
                             "list/tuple of size 2. Element with index %d of padding is not a "
                             "list/tuple" % i)
        if len(dim_paddings) != 2:
            raise ValueError("When padding is a list, each element of padding must be a "
                             "list/tuple of size 2. Element with index %d of padding has size %d"
                             % (i, len(dim_paddings)))
        explicit_paddings.extend(dim_paddings)
    if len(padding) != 4:
        raise ValueError("When padding is a list, it must be of size 4. Got padding of size: %d"
                         % len(padding))
    return "EXPLICIT", explicit_paddings


# --- conv2d and its two backward ops ---------------------------------------------------


# The bare ops, as TF's gen_nn_ops builds them: `padding` is the attr string
# (EXPLICIT included) and `explicit_paddings` a flat list. The gradient
# functions use these, passing on the attrs of the op they differentiate.

def gen_conv2d(input, filter, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
               explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    return apply_op("Conv2D", name=name, input=input, filter=filter, strides=strides,
                    padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=explicit_paddings, data_format=data_format,
                    dilations=dilations)


def gen_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                              use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                              dilations=(1, 1, 1, 1), name=None):
    return apply_op("Conv2DBackpropInput", name=name, input_sizes=input_sizes, filter=filter,
                    out_backprop=out_backprop, strides=strides, padding=padding,
                    use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit_paddings,
                    data_format=data_format, dilations=dilations)


def gen_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                               use_cudnn_on_gpu=True, explicit_paddings=(),
                               data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    return apply_op("Conv2DBackpropFilter", name=name, input=input, filter_sizes=filter_sizes,
                    out_backprop=out_backprop, strides=strides, padding=padding,
                    use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit_paddings,
                    data_format=data_format, dilations=dilations)


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=[1, 1, 1, 1], name=None, filters=None):  # noqa: B006
    """2-D convolution (a cross-correlation, as in every deep-learning library).

    output[b, i, j, k] = sum over di, dj, q of
        input[b, i * stride_h + di * dilation_h, j * stride_w + dj * dilation_w, q]
        * filter[di, dj, q, k]
    on the padded input. `filter` is [height, width, in_channels, out_channels];
    `strides` and `dilations` are 1, 2 or 4 ints; `padding` is "SAME", "VALID"
    or a list of 4 [before, after] pairs.
    """
    filter = _deprecated_argument_lookup("filters", filters, "filter", filter)
    padding, explicit_paddings = _convert_padding(padding)
    if data_format is None:
        data_format = "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    strides = _get_sequence(strides, 2, channel_index, "strides")
    dilations = _get_sequence(dilations, 2, channel_index, "dilations")
    return gen_conv2d(input, filter, strides, padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                      explicit_paddings=explicit_paddings, data_format=data_format,
                      dilations=dilations, name=name)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,  # noqa: A002
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=[1, 1, 1, 1], name=None, filters=None):  # noqa: B006
    """The gradient of conv2d with respect to its input, of shape `input_sizes`."""
    filter = _deprecated_argument_lookup("filters", filters, "filter", filter)
    padding, explicit_paddings = _convert_padding(padding)
    return gen_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                     use_cudnn_on_gpu=use_cudnn_on_gpu,
                                     explicit_paddings=explicit_paddings,
                                     data_format=data_format, dilations=dilations, name=name)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC",
                           dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of conv2d with respect to its filter, of shape `filter_sizes`."""
    padding, explicit_paddings = _convert_padding(padding)
    return gen_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                      use_cudnn_on_gpu=use_cudnn_on_gpu,
                                      explicit_paddings=explicit_paddings,
                                      data_format=data_format, dilations=dilations, name=name)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None):
    """The transpose of conv2d ("deconvolution"): conv2d's input gradient, as an op.

    It maps a [batch, h, w, filter_out] tensor to `output_shape`, the shape
    of the conv2d input that `filter` would have turned into `value`.
    """
    value = _deprecated_argument_lookup("input", input, "value", value)
    filter = _deprecated_argument_lookup("filters", filters, "filter", filter)
    with ops.name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as name:
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        strides = _get_sequence(strides, 2, channel_index, "strides")
        dilations = _get_sequence(dilations, 2, channel_index, "dilations")
        return gen_conv2d_backprop_input(output_shape, filter, value, strides, padding,
                                         data_format=data_format, dilations=dilations,
                                         name=name)


# --- max_pool and avg_pool, and their backward ops -----------------------------------------


def _check_ksize_not_zero(ksize):
    if any(v == 0 for v in ksize):
        raise ValueError("ksize cannot be zero.")


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):  # noqa: A002 - TF's argument name
    """The maximum of each `ksize` window, windows `strides` apart (padding never wins)."""
    value = _deprecated_argument_lookup("input", input, "value", value)
    with ops.name_scope(name, "MaxPool", [value]) as name:
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        ksize = _get_sequence(ksize, 2, channel_index, "ksize")
        strides = _get_sequence(strides, 2, channel_index, "strides")
        _check_ksize_not_zero(ksize)
        value = convert_to_tensor(value, name="input")
        return apply_op("MaxPool", name=name, input=value, ksize=ksize, strides=strides,
                        padding=padding, data_format=data_format)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):  # noqa: A002 - TF's argument name
    """The mean of each `ksize` window; with SAME padding, of its non-padding elements only."""
    with ops.name_scope(name, "AvgPool", [value]) as name:
        value = _deprecated_argument_lookup("input", input, "value", value)
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        ksize = _get_sequence(ksize, 2, channel_index, "ksize")
        strides = _get_sequence(strides, 2, channel_index, "strides")
        _check_ksize_not_zero(ksize)
        return apply_op("AvgPool", name=name, value=value, ksize=ksize, strides=strides,
                        padding=padding, data_format=data_format)


def max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC",
                  name=None):
    """Each window's gradient routed to the window's maximum in `orig_input`, summed."""
    return apply_op("MaxPoolGrad", name=name, orig_input=orig_input, orig_output=orig_output,
                    grad=grad, ksize=ksize, strides=strides, padding=padding,
                    data_format=data_format)


def max_pool_grad_grad(orig_input, orig_output, grad, ksize, strides, padding,
                       data_format="NHWC", name=None):
    """For each window, `grad` (input-shaped) at the window's maximum in `orig_input`."""
    return apply_op("MaxPoolGradGrad", name=name, orig_input=orig_input,
                    orig_output=orig_output, grad=grad, ksize=ksize, strides=strides,
                    padding=padding, data_format=data_format)


def avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC",
                  name=None):
    """Each window's gradient shared equally among the window's (non-padding) elements."""
    return apply_op("AvgPoolGrad", name=name, orig_input_shape=orig_input_shape, grad=grad,
                    ksize=ksize, strides=strides, padding=padding, data_format=data_format)


# --- the 3-D convolution and poolings (NDHWC or NCDHW volumes) ------------------------------


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=[1, 1, 1, 1, 1], name=None, filters=None):  # noqa: B006 - TF's default
    """3-D convolution: conv2d with a depth axis. `filter` is [d, h, w, in, out];
    `strides` and `dilations` are 5 values, the batch and channel ones 1."""
    filter = _deprecated_argument_lookup("filters", filters, "filter", filter)
    return apply_op("Conv3D", name=name, input=input, filter=filter, strides=strides,
                    padding=padding, data_format=data_format, dilations=dilations)


def conv3d_backprop_input_v2(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                             data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of conv3d with respect to its input, of shape `input_sizes`."""
    return apply_op("Conv3DBackpropInputV2", name=name, input_sizes=input_sizes, filter=filter,
                    out_backprop=out_backprop, strides=strides, padding=padding,
                    data_format=data_format, dilations=dilations)


def conv3d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           data_format="NDHWC", dilations=[1, 1, 1, 1, 1],  # noqa: B006
                           name=None):
    """The gradient of conv3d with respect to its filter, of shape `filter_sizes`.

    TF 1.15 exports the op Conv3DBackpropFilterV2 under this name and as
    conv3d_backprop_filter_v2.
    """
    return apply_op("Conv3DBackpropFilterV2", name=name, input=input,
                    filter_sizes=filter_sizes, out_backprop=out_backprop, strides=strides,
                    padding=padding, data_format=data_format, dilations=dilations)


conv3d_backprop_filter_v2 = conv3d_backprop_filter


def _volume_sequence(value, data_format, name):
    channel_index = 1 if data_format.startswith("NC") else 4
    return _get_sequence(value, 3, channel_index, name)


def conv3d_transpose(value, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NDHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None):
    """The transpose of conv3d: conv3d's input gradient, as an op (see conv2d_transpose)."""
    value = _deprecated_argument_lookup("input", input, "value", value)
    filter = _deprecated_argument_lookup("filters", filters, "filter", filter)
    with ops.name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as name:
        data_format = data_format or "NDHWC"
        return conv3d_backprop_input_v2(
            output_shape, filter, value, _volume_sequence(strides, data_format, "strides"),
            padding, data_format=data_format,
            dilations=_volume_sequence(dilations, data_format, "dilations"), name=name)


def _pool3d(op_type, input, ksize, strides, padding, data_format, name):  # noqa: A002
    with ops.name_scope(name, op_type, [input]) as name:
        data_format = data_format or "NDHWC"
        return apply_op(op_type, name=name, input=input,
                        ksize=_volume_sequence(ksize, data_format, "ksize"),
                        strides=_volume_sequence(strides, data_format, "strides"),
                        padding=padding, data_format=data_format)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """The maximum of each `ksize` window of a volume (max_pool with a depth axis)."""
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """The mean of each `ksize` window of a volume, padding not counted."""
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)


def _pool3d_backward(op_type, input_names):
    """The builder of 3-D pooling's backward op `op_type`: (inputs..., ksize, strides,
    padding, data_format="NDHWC", name=None), positionally or by keyword."""
    def build(*args, name=None, **attrs):
        arguments = dict(zip(input_names + ("ksize", "strides", "padding", "data_format"), args))
        arguments.update(attrs)
        arguments.setdefault("data_format", "NDHWC")
        return apply_op(op_type, name=name, **arguments)
    return build


max_pool3d_grad = _pool3d_backward("MaxPool3DGrad", ("orig_input", "orig_output", "grad"))
max_pool3d_grad_grad = _pool3d_backward("MaxPool3DGradGrad",
                                        ("orig_input", "orig_output", "grad"))
avg_pool3d_grad = _pool3d_backward("AvgPool3DGrad", ("orig_input_shape", "grad"))


# --- fractional pooling ------------------------------------------------------------------------


def _fractional_pool(op_type, value, pooling_ratio, pseudo_random, overlapping, deterministic,
                     seed, seed2, name):
    return apply_op(op_type, name=name, value=value, pooling_ratio=pooling_ratio,
                    pseudo_random=pseudo_random, overlapping=overlapping,
                    deterministic=deterministic, seed=seed, seed2=seed2)


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        deterministic=False, seed=0, seed2=0, name=None):
    """(output, row_pooling_sequence, col_pooling_sequence): the maximum of regions whose
    sizes vary between k and k + 1, so that the height and width shrink by the real
    `pooling_ratio` [1.0, r_h, r_w, 1.0]; the sequences are the region boundaries."""
    return _fractional_pool("FractionalMaxPool", value, pooling_ratio, pseudo_random,
                            overlapping, deterministic, seed, seed2, name)


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        deterministic=False, seed=0, seed2=0, name=None):
    """fractional_max_pool with the mean of each region."""
    return _fractional_pool("FractionalAvgPool", value, pooling_ratio, pseudo_random,
                            overlapping, deterministic, seed, seed2, name)


# --- conv1d and the convolutions of any rank, through conv2d ----------------------------------
#
# A 1-D convolution is a 2-D one over an image one pixel high: the input gets
# a height axis of 1 (ExpandDims), the filter a filter-height of 1, and the
# result loses the axis again (Squeeze).

def _one_d_layout(data_format):
    """(the 2-D data format, the axis given height 1, the channel axis) for NWC or NCW."""
    if data_format is None or data_format in ("NWC", "NHWC"):
        return "NHWC", 1, 2
    if data_format in ("NCW", "NCHW"):
        return "NCHW", 2, 1
    raise ValueError("data_format must be \"NWC\" or \"NCW\".")


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format=None, name=None, input=None, dilations=None):  # noqa: A002
    """A 1-D convolution of [batch, width, in_channels] by [width, in_channels, out_channels]."""
    value = _deprecated_argument_lookup("input", input, "value", value)
    with ops.name_scope(name, "conv1d", [value, filters]) as name:
        data_format, spatial_start_dim, channel_index = _one_d_layout(data_format)
        strides = [1] + _get_sequence(stride, 1, channel_index, "stride")
        dilations = [1] + _get_sequence(dilations, 1, channel_index, "dilations")
        value = array_ops.expand_dims(value, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        result = gen_conv2d(value, filters, strides, padding,
                            use_cudnn_on_gpu=use_cudnn_on_gpu is not False,
                            data_format=data_format, dilations=dilations, name=name)
        return array_ops.squeeze(result, [spatial_start_dim])


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
    """The transpose of conv1d: its input gradient, as an op, of shape `output_shape`."""
    with ops.name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as name:
        data_format, spatial_start_dim, channel_index = _one_d_layout(data_format)
        strides = [1] + _get_sequence(strides, 1, channel_index, "stride")
        dilations = [1] + _get_sequence(dilations, 1, channel_index, "dilations")
        input = array_ops.expand_dims(input, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        if not isinstance(output_shape, ops.Tensor):
            output_shape = list(output_shape)
        output_shape = array_ops.concat([output_shape[:spatial_start_dim], [1],
                                         output_shape[spatial_start_dim:]], 0)
        result = gen_conv2d_backprop_input(output_shape, filters, input, strides, padding,
                                           data_format=data_format, dilations=dilations,
                                           name=name)
        return array_ops.squeeze(result, [spatial_start_dim])


def _spatial_rank(input, filter_or_window_rank, data_format):  # noqa: A002
    """How many spatial axes a convolution or pooling of `input` has (1, 2 or 3)."""
    rank = input.shape.ndims
    if rank is None and data_format is not None:
        rank = len(data_format)
    if rank is None and filter_or_window_rank is not None:
        rank = filter_or_window_rank + 2
    if rank is None:
        raise ValueError("The rank of the input must be known, or data_format given")
    if rank not in (3, 4, 5):
        raise ValueError("minitf convolves and pools 1-D, 2-D and 3-D inputs only (rank 3, 4 "
                         "or 5, the batch and channel axes included); got rank %d" % rank)
    return rank - 2


def convolution(input, filter=None, padding=None, strides=None,  # noqa: A002
                dilation_rate=None, name=None, data_format=None, filters=None,
                dilations=None):
    """An N-D convolution: conv1d, conv2d or conv3d by the spatial axes (dilated as asked)."""
    filter = _deprecated_argument_lookup("filters", filters, "filter", filter)
    dilation_rate = _deprecated_argument_lookup("dilations", dilations, "dilation_rate",
                                                dilation_rate)
    with ops.name_scope(name, "convolution", [input, filter]) as name:
        input = convert_to_tensor(input, name="input")
        filter = convert_to_tensor(filter, name="filter")
        n = _spatial_rank(input, filter.shape.ndims and filter.shape.ndims - 2, data_format)
        if n == 1:
            return conv1d(input, filter, strides, padding, data_format=data_format,
                          dilations=dilation_rate, name=name)
        if n == 3:
            data_format = data_format or "NDHWC"
            return conv3d(input, filter, _volume_sequence(strides, data_format, "strides"),
                          padding, data_format=data_format, name=name,
                          dilations=_volume_sequence(dilation_rate, data_format, "dilations"))
        return conv2d(input, filter, strides, padding, data_format=data_format,
                      dilations=dilation_rate, name=name)


def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None):
    """The transpose of `convolution` (conv1d_, conv2d_ or conv3d_transpose by rank)."""
    with ops.name_scope(name, "conv_transpose", [input, filters, output_shape]) as name:
        if isinstance(output_shape, ops.Tensor):
            rank = output_shape.shape.as_list()[0]
        else:
            rank = len(output_shape)
        if rank == 3:
            return conv1d_transpose(input, filters, output_shape, strides, padding,
                                    data_format or "NWC", dilations, name)
        if rank == 4:
            return conv2d_transpose(input, filters, output_shape, strides, padding,
                                    data_format or "NHWC", name, dilations=dilations)
        if rank == 5:
            return conv3d_transpose(input, filters, output_shape, strides, padding,
                                    data_format or "NDHWC", name, dilations=dilations)
        raise ValueError("output_shape must be of length 3, 4 or 5 (1-D, 2-D and 3-D "
                         "convolutions), got %s" % rank)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with `rate - 1` zeros between the filter's taps (a dilated convolution)."""
    return convolution(value, filters, padding, dilation_rate=[rate, rate], name=name)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d: conv2d_transpose with the filter dilated by `rate`."""
    with ops.name_scope(name, "atrous_conv2d_transpose", [value, filters, output_shape]) as name:
        value = convert_to_tensor(value, name="value")
        filters = convert_to_tensor(filters, name="filters")
        if not value.shape.dims[3].is_compatible_with(filters.shape[3]):
            raise ValueError("value's input channels does not match filters' input channels, "
                             "{} != {}".format(value.shape[3], filters.shape[3]))
        if rate < 1:
            raise ValueError("rate {} cannot be less than one".format(rate))
        return conv2d_transpose(value, filters, output_shape, [1, 1, 1, 1], padding,
                                name=name, dilations=[1, rate, rate, 1])


# --- the other names of pooling: 1-D, by rank, and `pool` -----------------------------------

def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """max_pool under its TF 2 name (and scope "MaxPool2d")."""
    with ops.name_scope(name, "MaxPool2d", [input]) as name:
        return max_pool(input, ksize, strides, padding, data_format=data_format, name=name)


avg_pool2d = avg_pool


def _pool1d(pool_2d, scope, input, ksize, strides, padding, data_format, name):  # noqa: A002
    """A 1-D pooling as a 2-D one over an image one pixel high (as conv1d)."""
    with ops.name_scope(name, scope, [input]) as name:
        if data_format is None:
            data_format = "NWC"
        channel_index = 1 if data_format.startswith("NC") else 2
        ksize = [1] + _get_sequence(ksize, 1, channel_index, "ksize")
        strides = [1] + _get_sequence(strides, 1, channel_index, "strides")
        expanding_dim = 1 if data_format == "NWC" else 2
        expanded = array_ops.expand_dims(input, expanding_dim)
        result = pool_2d(expanded, ksize, strides, padding, name=name,
                         data_format="NHWC" if data_format == "NWC" else "NCHW")
        return array_ops.squeeze(result, [expanding_dim])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """The maximum of each window of a [batch, width, channels] tensor."""
    return _pool1d(max_pool, "MaxPool1d", input, ksize, strides, padding, data_format, name)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """The mean of each window of a [batch, width, channels] tensor."""
    return _pool1d(avg_pool, "AvgPool1D", input, ksize, strides, padding, data_format, name)


def _pool_by_rank(pool_1d, pool_2d, pool_3d, input, ksize, strides, padding,  # noqa: A002
                  data_format, name):
    input = convert_to_tensor(input, name="input")
    spatial_rank = _spatial_rank(input, None, data_format)
    if spatial_rank == 1:
        return pool_1d(input, ksize, strides, padding, data_format or "NWC", name)
    if spatial_rank == 3:
        return pool_3d(input, ksize, strides, padding, data_format or "NDHWC", name)
    return pool_2d(input, ksize, strides, padding, data_format or "NHWC", name)


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """max_pool1d, max_pool or max_pool3d, by the rank of `input`."""
    return _pool_by_rank(max_pool1d, max_pool, max_pool3d, input, ksize, strides, padding,
                         data_format, name)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """avg_pool1d, avg_pool or avg_pool3d, by the rank of `input`."""
    return _pool_by_rank(avg_pool1d, avg_pool, avg_pool3d, input, ksize, strides, padding,
                         data_format, name)


MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         Targmax=None, name=None, output_dtype=None,  # noqa: N803 - TF's
                         include_batch_in_index=False):
    """max_pool of an NHWC `input`, and the flat index in it of each maximum:
    (y * width + x) * channels + c, plus b * height * width * channels with
    `include_batch_in_index`. A named pair (output, argmax)."""
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    Targmax = _deprecated_argument_lookup("output_dtype", output_dtype, "Targmax", Targmax)
    if Targmax is None:
        Targmax = dtypes.int64
    output, argmax = apply_op("MaxPoolWithArgmax", name=name, input=input,
                              ksize=_get_sequence(ksize, 2, 3, "ksize"),
                              strides=_get_sequence(strides, 2, 3, "strides"), padding=padding,
                              Targmax=Targmax, include_batch_in_index=include_batch_in_index)
    return MaxPoolWithArgmax(output, argmax)


def max_pool_grad_with_argmax(input, grad, argmax, ksize, strides, padding,  # noqa: A002
                              include_batch_in_index=False, name=None):
    """The gradient of max_pool_with_argmax: each of `grad` added at its `argmax`."""
    return apply_op("MaxPoolGradWithArgmax", name=name, input=input, grad=grad, argmax=argmax,
                    ksize=ksize, strides=strides, padding=padding,
                    include_batch_in_index=include_batch_in_index)



# --- morphological dilation and erosion -------------------------------------------------------

def dilation2d(input, filter=None, strides=None, rates=None, padding=None,  # noqa: A002
               name=None, filters=None, dilations=None):
    """Grayscale dilation: the max over each window of input + filter, per channel
    (`filter` is [height, width, depth]; `rates` dilate it)."""
    filter = _deprecated_argument_lookup("filters", filters, "filter", filter)
    rates = _deprecated_argument_lookup("dilations", dilations, "rates", rates)
    return apply_op("Dilation2D", name=name, input=input, filter=filter, strides=strides,
                    rates=rates, padding=padding)


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """Grayscale erosion, the min over each window of value - kernel: by duality, minus the
    dilation of -value by the kernel turned around."""
    with ops.name_scope(name, "erosion2d", [value, kernel]) as name:
        return math_ops.negative(apply_op(
            "Dilation2D", name=name, input=math_ops.negative(value),
            filter=array_ops.reverse_v2(kernel, [0, 1]), strides=strides, rates=rates,
            padding=padding))


def _dilation_rate_constant(dilation_rate):
    """The int32 constant "dilation_rate" that TensorFlow's with_space_to_batch makes even
    when every rate is 1 (nothing reads it then); made here too, so that the node names
    of pool, depthwise_conv2d and separable_conv2d are TensorFlow's."""
    return convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate")


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None):
    """`op(input, num_spatial_dims, padding)` made dilated: the atrous trick.

    A convolution (or pooling) with `dilation_rate` r equals an undilated one
    on the input cut into r x r interleaved sub-images: space_to_batch_nd
    moves them into the batch, `op` runs on each with VALID padding, and
    batch_to_space_nd puts the results back. SAME padding is made VALID by
    padding the input first by what the dilated filter (`filter_shape`)
    needs. With every rate 1, `op` runs on `input` as it is. minitf needs
    `dilation_rate` and `filter_shape` known while building the graph.
    """
    input = convert_to_tensor(input, name="input")  # noqa: A001 - TF's argument name
    dilation_rate = _dilation_rate_constant(dilation_rate)
    if dilation_rate.shape.ndims != 1:
        raise ValueError("rate must be rank 1")
    num_spatial_dims = dilation_rate.shape.as_list()[0]
    first_spatial_dim = 2 if data_format is not None and data_format.startswith("NC") else 1
    if spatial_dims is None:
        spatial_dims = range(first_spatial_dim, num_spatial_dims + first_spatial_dim)
    spatial_dims = list(spatial_dims)
    if spatial_dims != sorted(set(int(d) for d in spatial_dims)) or min(spatial_dims) < 1:
        raise ValueError("spatial_dims must be a montonically increasing sequence of positive "
                         "integers")
    expected_rank = spatial_dims[-1] + (0 if first_spatial_dim == 2 else 1)
    try:
        input.shape.with_rank_at_least(expected_rank)
    except ValueError:
        raise ValueError("input tensor must have rank %d at least" % expected_rank) from None
    rate = tensor_util.constant_value(dilation_rate)
    if rate is None:
        raise NotImplementedError("minitf needs a dilation_rate known while building the graph")
    if np.any(rate < 1):
        raise ValueError("dilation_rate must be positive")
    if np.all(rate == 1):
        return op(input, num_spatial_dims, padding)
    base_paddings = _space_to_batch_base_paddings(padding, filter_shape, num_spatial_dims, rate)
    input_spatial_shape = [input.shape.as_list()[d] for d in spatial_dims] \
        if input.shape.ndims is not None else None
    if input_spatial_shape is None or None in input_spatial_shape:
        dynamic_shape = array_ops.shape(input)
        input_spatial_shape = array_ops.stack([dynamic_shape[d] for d in spatial_dims])
    paddings, crops = array_ops.required_space_to_batch_paddings(
        input_shape=input_spatial_shape, base_paddings=base_paddings, block_shape=dilation_rate)
    block_shape = _fill_non_spatial_dims(rate, 1, spatial_dims)
    converted = array_ops.space_to_batch_nd(
        input=input, block_shape=block_shape,
        paddings=_fill_non_spatial_dims(paddings, 0, spatial_dims))
    return array_ops.batch_to_space_nd(input=op(converted, num_spatial_dims, "VALID"),
                                       block_shape=block_shape,
                                       crops=_fill_non_spatial_dims(crops, 0, spatial_dims))


def _space_to_batch_base_paddings(padding, filter_shape, num_spatial_dims, rate):
    """[num_spatial_dims, 2]: the padding that makes SAME padding VALID for the dilated filter
    (the odd one at the end, as conv2d pads), zeros for VALID."""
    if padding == "VALID":
        return np.zeros([num_spatial_dims, 2], np.int32)
    if padding != "SAME":
        raise ValueError("Invalid padding method %r" % padding)
    if filter_shape is None:
        raise ValueError("filter_shape must be specified for SAME padding")
    filter_shape = tensor_util.constant_value(convert_to_tensor(filter_shape,
                                                                name="filter_shape"))
    if filter_shape is None:
        raise NotImplementedError("minitf needs a filter_shape known while building the graph")
    extra = (np.asarray(filter_shape[:num_spatial_dims]) - 1) * rate
    start, end = extra // 2, extra - extra // 2
    return array_ops.stack([[start[i], end[i]] for i in range(num_spatial_dims)])


def _fill_non_spatial_dims(values, fill_value, spatial_dims):
    """`values` (one row per spatial dim) with rows of `fill_value` for the dims between
    them, so that row i is for input dimension i + 1."""
    constant = tensor_util.constant_value(values) if isinstance(values, ops.Tensor) else values
    if constant is not None:
        constant = np.asarray(constant)
        rows = np.full((spatial_dims[-1],) + constant.shape[1:], fill_value, constant.dtype)
        rows[np.asarray(spatial_dims) - 1] = constant
        return rows
    fill_row = np.full([1] + values.shape.as_list()[1:], fill_value, np.int32)
    return array_ops.concat([values[spatial_dims.index(dim):spatial_dims.index(dim) + 1]
                             if dim in spatial_dims else fill_row
                             for dim in range(1, spatial_dims[-1] + 1)], 0)


def pool(input, window_shape, pooling_type, padding, dilation_rate=None,  # noqa: A002
         strides=None, name=None, data_format=None, dilations=None):
    """MAX or AVG pooling of a 1-D, 2-D or 3-D input with windows of `window_shape`.

    minitf pools without dilation only (a dilation rate of 1 on every axis).
    """
    dilation_rate = _deprecated_argument_lookup("dilations", dilations, "dilation_rate",
                                                dilation_rate)
    with ops.name_scope(name, "%s_pool" % pooling_type.lower(), [input]) as scope:
        input = convert_to_tensor(input, name="input")
        num_spatial_dims = len(window_shape)
        if num_spatial_dims < 1 or num_spatial_dims > 3:
            raise ValueError("`len(window_shape)` must be 1, 2, or 3. Received: window_shape="
                             "%s of length %d" % (window_shape, num_spatial_dims))
        input.get_shape().with_rank(num_spatial_dims + 2)
        strides = [1] * num_spatial_dims if strides is None else list(strides)
        dilation_rate = [1] * num_spatial_dims if dilation_rate is None else list(dilation_rate)
        if any(s > w for s, w in zip(strides, window_shape)):
            raise ValueError("strides > window_shape not supported due to inconsistency "
                             "between CPU and GPU implementations")
        if pooling_type not in ("MAX", "AVG"):
            raise ValueError("%d-D %s pooling is not supported." % (num_spatial_dims,
                                                                     pooling_type))
        if any(r != 1 for r in dilation_rate):
            raise NotImplementedError("minitf pools without dilation (dilation_rate %s)"
                                      % dilation_rate)
        _dilation_rate_constant(dilation_rate)
        pool_op = max_pool if pooling_type == "MAX" else avg_pool
        channels_first = data_format is not None and data_format.startswith("NC")
        window = [1, 1] + list(window_shape) if channels_first else [1, *window_shape, 1]
        steps = [1, 1] + strides if channels_first else [1, *strides, 1]
        if num_spatial_dims == 2:
            return pool_op(input, window, steps, padding, name=scope,
                           data_format=data_format or "NHWC")
        if num_spatial_dims == 3:
            pool_op = max_pool3d if pooling_type == "MAX" else avg_pool3d
            return pool_op(input, window, steps, padding, data_format or "NDHWC", scope)
        if data_format not in (None, "NWC", "NCW"):
            raise ValueError("data_format must be either 'NWC' or 'NCW'. Received: "
                             "data_format=%s" % data_format)
        spatial_dim = 2 if channels_first else 1
        result = pool_op(array_ops.expand_dims(input, spatial_dim), [1] + window, [1] + steps,
                         padding, name=scope, data_format="NCHW" if channels_first else "NHWC")
        return array_ops.squeeze(result, [spatial_dim])


# --- depthwise convolution: the bare ops --------------------------------------------------------

def _depthwise_attrs(strides, padding, data_format, dilations):
    return dict(strides=strides, padding=padding, data_format=data_format, dilations=dilations)


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=[1, 1, 1, 1], name=None):  # noqa: B006 - TF's default
    """Each input channel convolved with its own `channel_multiplier` filters.

    `filter` is [height, width, in_channels, channel_multiplier]; the output
    has in_channels * channel_multiplier channels, channel c's filters at
    c * channel_multiplier + m.
    """
    return apply_op("DepthwiseConv2dNative", name=name, input=input, filter=filter,
                    **_depthwise_attrs(strides, padding, data_format, dilations))


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop,  # noqa: A002
                                           strides, padding, data_format="NHWC",
                                           dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of depthwise_conv2d_native with respect to its input."""
    return apply_op("DepthwiseConv2dNativeBackpropInput", name=name, input_sizes=input_sizes,
                    filter=filter, out_backprop=out_backprop,
                    **_depthwise_attrs(strides, padding, data_format, dilations))


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop,  # noqa: A002
                                            strides, padding, data_format="NHWC",
                                            dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of depthwise_conv2d_native with respect to its filter."""
    return apply_op("DepthwiseConv2dNativeBackpropFilter", name=name, input=input,
                    filter_sizes=filter_sizes, out_backprop=out_backprop,
                    **_depthwise_attrs(strides, padding, data_format, dilations))


depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter


# --- top_k and in_top_k ----------------------------------------------------------------------

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TF's argument names
    """The `k` largest entries of each row (the last dimension) and their indices.

    Largest first; equal values keep their order (the lower index first).
    Returns a named pair (values, indices).
    """
    values, indices = apply_op("TopKV2", name=name, input=input, k=k, sorted=sorted)
    return TopKV2(values, indices)


def in_top_k(predictions, targets, k, name=None):
    """Whether each row's target class is among the row's `k` largest predictions.

    Ties count in the target's favour: it is in the top k when fewer than k
    predictions are strictly larger. A target out of range gives False.
    """
    with ops.name_scope(name, "in_top_k"):
        return apply_op("InTopKV2", name=name, predictions=predictions, targets=targets, k=k)


def _approx_top_k(operand, k, reduction_dimension, is_max_k, name):
    """The exact top k along `reduction_dimension`: an approximation with a recall of 1."""
    with ops.name_scope(name, "ApproxTopK", [operand]):
        operand = convert_to_tensor(operand, name="operand")
        rank = operand.shape.ndims
        if rank is None:
            raise ValueError("approx_max_k and approx_min_k need an operand of known rank")
        axis = reduction_dimension % rank
        permutation = list(range(rank))
        permutation[axis], permutation[-1] = permutation[-1], permutation[axis]
        moved = operand if axis == rank - 1 else array_ops.transpose(operand, permutation)
        values, indices = top_k(moved if is_max_k else -moved, k)
        if not is_max_k:
            values = -values
        if axis != rank - 1:
            values = array_ops.transpose(values, permutation)
            indices = array_ops.transpose(indices, permutation)
        return values, indices


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The `k` largest values along `reduction_dimension`, and their indices.

    TensorFlow's TPU kernel may miss some (it promises `recall_target`);
    minitf computes the exact top k, which keeps every promise.
    """
    return _approx_top_k(operand, k, reduction_dimension, True, name)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The `k` smallest values along `reduction_dimension`, and their indices (exactly)."""
    return _approx_top_k(operand, k, reduction_dimension, False, name)


# --- local response normalization -------------------------------------------------------------

def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0,  # noqa: A002
                                 beta=0.5, name=None):
    """Each depth of a 4-D `input` divided by (bias + alpha * sqr_sum) ** beta, where sqr_sum
    sums the squares of the 2 * depth_radius + 1 depths around it."""
    return apply_op("LRN", name=name, input=input, depth_radius=depth_radius, bias=bias,
                    alpha=alpha, beta=beta)


lrn = local_response_normalization


def lrn_grad(input_grads, input_image, output_image, depth_radius=5, bias=1.0, alpha=1.0,
             beta=0.5, name=None):
    """The gradient of LRN with respect to its input."""
    return apply_op("LRNGrad", name=name, input_grads=input_grads, input_image=input_image,
                    output_image=output_image, depth_radius=depth_radius, bias=bias,
                    alpha=alpha, beta=beta)
