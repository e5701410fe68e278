"""`tf.losses`: loss functions that weigh, reduce and collect what they compute.

Each function computes an elementwise loss (an absolute difference, a cross
entropy, ...) as float32, then `compute_weighted_loss` multiplies it by
`weights` (a scalar, or anything that broadcasts to the losses) and reduces
it as `reduction` says:

    NONE                       the weighted losses, unreduced
    SUM                        their sum
    MEAN                       the sum over the sum of the weights
    SUM_OVER_BATCH_SIZE        the sum over the number of losses
    SUM_BY_NONZERO_WEIGHTS     the sum over the number of nonzero weights (the default)

A division by zero gives 0 (div_no_nan), and the result is added to the
`GraphKeys.LOSSES` collection, where `tf.losses.get_total_loss()` finds it.

Mirrors `tensorflow/python/ops/losses/losses_impl.py`.
"""

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.losses import util
from minitf.ops import array_ops
from minitf.ops import confusion_matrix
from minitf.ops import math_ops
from minitf.ops import nn_ops
from minitf.ops import weights_broadcast_ops


class Reduction:
    """The ways `compute_weighted_loss` reduces weighted losses to one value."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % key)


# --- weighing and reducing ------------------------------------------------------------------

def _safe_mean(losses, num_present):
    """sum(losses) / num_present, or 0 when num_present is 0."""
    total_loss = math_ops.reduce_sum(losses)
    return math_ops.div_no_nan(total_loss, num_present, name="value")


def _num_present(losses, weights, per_batch=False):
    """How many losses have a nonzero weight (per batch row with `per_batch`)."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with ops.name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtype=dtypes.float32)
        present = math_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                 array_ops.ones_like(weights))
        present = weights_broadcast_ops.broadcast_weights(present, losses)
        if per_batch:
            return math_ops.reduce_sum(present,
                                       axis=math_ops.range(1, array_ops.rank(present)),
                                       keepdims=True, name=scope)
        return math_ops.reduce_sum(present, name=scope)


def _num_elements(losses):
    with ops.name_scope(None, "num_elements", values=[losses]) as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), dtype=losses.dtype)


def compute_weighted_loss(losses, weights=1.0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """`losses` times `weights`, reduced as `reduction` says, added to `loss_collection`.

    The result has the dtype of `losses` (the arithmetic is float32).
    """
    Reduction.validate(reduction)
    with ops.name_scope(scope, "weighted_loss", (losses, weights)):
        with ops.control_dependencies(
                (weights_broadcast_ops.assert_broadcastable(weights, losses),)):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = math_ops.cast(losses, dtype=dtypes.float32)
            weights = math_ops.cast(weights, dtype=dtypes.float32)
            weighted_losses = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted_losses
            else:
                loss = math_ops.reduce_sum(weighted_losses)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(
                        loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = math_ops.cast(loss, input_dtype)
            util.add_loss(loss, loss_collection)
            return loss


# --- the losses -------------------------------------------------------------------------------

def _check_given(**arguments):
    for name, value in arguments.items():
        if value is None:
            raise ValueError("Argument `%s` must not be None." % name)


def _as_float32_pair(predictions, labels):
    """Both cast to float32; their static shapes must be compatible."""
    predictions = math_ops.cast(predictions, dtype=dtypes.float32)
    labels = math_ops.cast(labels, dtype=dtypes.float32)
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    return predictions, labels


def _elementwise_loss(default_name, labels, predictions, weights, scope, loss_collection,
                      reduction, loss_fn):
    """loss_fn(predictions, labels) of the two as float32, weighted and reduced."""
    _check_given(labels=labels, predictions=predictions)
    with ops.name_scope(scope, default_name, (predictions, labels, weights)) as scope:
        predictions, labels = _as_float32_pair(predictions, labels)
        return compute_weighted_loss(loss_fn(predictions, labels), weights, scope,
                                     loss_collection, reduction=reduction)


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=ops.GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """|predictions - labels|, weighted and reduced (an L1 loss)."""
    return _elementwise_loss("absolute_difference", labels, predictions, weights, scope,
                             loss_collection, reduction,
                             lambda p, y: math_ops.abs(math_ops.subtract(p, y)))


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=ops.GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """1 - sum(labels * predictions) along `axis`: for unit-normalized inputs, one minus
    the cosine of their angle."""
    axis = nn_ops._deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _check_given(labels=labels, predictions=predictions)
    with ops.name_scope(scope, "cosine_distance_loss",
                        (predictions, labels, weights)) as scope:
        predictions, labels = _as_float32_pair(predictions, labels)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """max(0, 1 - y * logits) with y = 2 * labels - 1: labels are 0 or 1."""
    _check_given(labels=labels, logits=logits)
    with ops.name_scope(scope, "hinge_loss", (logits, labels, weights)) as scope:
        logits, labels = _as_float32_pair(logits, labels)
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=ops.GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """0.5 * x ** 2 where |x| <= delta, delta * (|x| - 0.5 * delta) beyond (x the error):
    quadratic near 0, linear for outliers."""
    def losses(predictions, labels):
        error = math_ops.subtract(predictions, labels)
        abs_error = math_ops.abs(error)
        quadratic = math_ops.minimum(abs_error, delta)
        # The same as max(abs_error - delta, 0), with a gradient that is 0 at 0.
        linear = math_ops.subtract(abs_error, quadratic)
        return math_ops.add(
            math_ops.multiply(convert_to_tensor(0.5, dtype=quadratic.dtype),
                              math_ops.multiply(quadratic, quadratic)),
            math_ops.multiply(delta, linear))
    return _elementwise_loss("huber_loss", labels, predictions, weights, scope,
                             loss_collection, reduction, losses)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """-labels * log(predictions + eps) - (1 - labels) * log(1 - predictions + eps): the
    cross entropy of probabilities."""
    def losses(predictions, labels):
        return -math_ops.multiply(labels, math_ops.log(predictions + epsilon)) - (
            math_ops.multiply((1 - labels), math_ops.log(1 - predictions + epsilon)))
    return _elementwise_loss("log_loss", labels, predictions, weights, scope, loss_collection,
                             reduction, losses)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=ops.GraphKeys.LOSSES):
    """Per batch row, the mean of (d_i - d_j) ** 2 over the pairs of its elements, where d
    is predictions - labels: a loss blind to a shift of the whole row."""
    _check_given(labels=labels, predictions=predictions)
    with ops.name_scope(scope, "mean_pairwise_squared_error",
                        (predictions, labels, weights)) as scope:
        weights = math_ops.cast(weights, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        with ops.control_dependencies(
                (weights_broadcast_ops.assert_broadcastable(weights, labels),)):
            predictions, labels = _as_float32_pair(predictions, labels)
            diffs = math_ops.subtract(predictions, labels)
            axis = math_ops.range(1, array_ops.rank(diffs))
            sum_squares_diff_per_batch = math_ops.reduce_sum(math_ops.square(diffs), axis=axis,
                                                             keepdims=True)
            num_present_per_batch = _num_present(diffs, weights, per_batch=True)
            term1 = 2.0 * math_ops.div_no_nan(sum_squares_diff_per_batch,
                                              math_ops.maximum(num_present_per_batch - 1, 0),
                                              name="value")
            sum_diff = math_ops.reduce_sum(diffs, axis=axis, keepdims=True)
            term2 = 2.0 * math_ops.div_no_nan(
                math_ops.square(sum_diff),
                math_ops.maximum(math_ops.multiply(num_present_per_batch,
                                                   num_present_per_batch - 1), 0),
                name="value")
            weighted_losses = math_ops.multiply(term1 - term2, weights)
            loss = math_ops.reduce_sum(weighted_losses)
            mean_loss = math_ops.where(math_ops.reduce_sum(num_present_per_batch) > 0, loss,
                                       array_ops.zeros_like(loss), name="value")
            util.add_loss(mean_loss, loss_collection)
            return mean_loss


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=ops.GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """(predictions - labels) ** 2, weighted and reduced."""
    return _elementwise_loss("mean_squared_error", labels, predictions, weights, scope,
                             loss_collection, reduction, math_ops.squared_difference)


def _logits_and_labels(logits, labels):
    """The labels cast to the logits' dtype; their static shapes must be compatible."""
    logits = convert_to_tensor(logits)
    labels = math_ops.cast(labels, logits.dtype)
    logits.get_shape().assert_is_compatible_with(labels.get_shape())
    return logits, labels


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """tf.nn.sigmoid_cross_entropy_with_logits, weighted and reduced; `label_smoothing`
    moves the labels towards 1/2."""
    _check_given(multi_class_labels=multi_class_labels, logits=logits)
    with ops.name_scope(scope, "sigmoid_cross_entropy_loss",
                        (logits, multi_class_labels, weights)) as scope:
        logits, multi_class_labels = _logits_and_labels(logits, multi_class_labels)
        if label_smoothing > 0:
            multi_class_labels = (multi_class_labels * (1 - label_smoothing)
                                  + 0.5 * label_smoothing)
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=multi_class_labels,
                                                          logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """tf.nn.softmax_cross_entropy_with_logits_v2, weighted per example and reduced;
    `label_smoothing` moves the one-hot labels towards uniform."""
    _check_given(onehot_labels=onehot_labels, logits=logits)
    with ops.name_scope(scope, "softmax_cross_entropy_loss",
                        (logits, onehot_labels, weights)) as scope:
        logits, onehot_labels = _logits_and_labels(logits, onehot_labels)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(onehot_labels)[-1], logits.dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            onehot_labels = onehot_labels * smooth_positives + smooth_negatives
        onehot_labels = array_ops.stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=onehot_labels,
                                                             logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def _remove_squeezable_dimensions(labels, predictions, weights=None, expected_rank_diff=0):
    """Labels, predictions and weights with a trailing dimension of 1 squeezed where the
    ranks say so (static ranks only: minitf has no tf.cond for the others)."""
    labels, predictions = confusion_matrix.remove_squeezable_dimensions(
        labels, predictions, expected_rank_diff=expected_rank_diff)
    if weights is not None:
        weights = convert_to_tensor(weights)
        labels_rank, weights_rank = labels.get_shape().ndims, weights.get_shape().ndims
        if (labels_rank is not None and weights_rank is not None
                and weights_rank - labels_rank == 1):
            weights = array_ops.squeeze(weights, [-1])
    return labels, predictions, weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=ops.GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """tf.nn.sparse_softmax_cross_entropy_with_logits (class indices), weighted and
    reduced."""
    _check_given(labels=labels, logits=logits)
    with ops.name_scope(scope, "sparse_softmax_cross_entropy_loss",
                        (logits, labels, weights)) as scope:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights,
                                                                expected_rank_diff=1)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                 name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)
