"""`tf.metrics`: streaming metrics, each a pair (value, update_op) over local variables.

A metric is two things in the graph. Its **state** is a few local
variables (`metric_variable`: zeros, not trainable, in the LOCAL_VARIABLES
and METRIC_VARIABLES collections), such as `total` and `count` for a mean,
or the confusion counts at each threshold for an AUC. Its **update_op**
adds one batch to the state (AssignAdd, ScatterAdd) and computes the metric
from the updated state; its **value** computes the metric from the state as
it is, without changing it. Run `update_op` once per batch of an evaluation
and read `value` at the end; `tf.local_variables_initializer()` zeroes the
state for the next evaluation.

Every metric is built from a few shared pieces: `mean` (a weighted total
over a weighted count, which `accuracy`, the errors and `percentage_below`
reduce to), `_count_condition` (the true/false positives/negatives),
`_confusion_matrix_at_thresholds` (the counts `auc` and the `*_at_thresholds`
metrics read), `_streaming_confusion_matrix` (`mean_iou`), and the set counts
of the metrics at k (`_count_in_set`: TensorFlow's set_size of a
set_intersection or set_difference, here of dense rows of class ids).

Mirrors `tensorflow/python/ops/metrics_impl.py` (TF 1.15), without the
distribution strategies: a metric value is computed once, in the graph it
is made in.
"""

import numpy as np

from minitf.graph import dtypes, ops, sparse_tensor
from minitf.graph.constant_op import constant
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import (array_ops, check_ops, confusion_matrix, control_flow_ops, math_ops,
                        nn_ops, state_ops, variable_scope, variables, weights_broadcast_ops)

__all__ = ["accuracy", "auc", "average_precision_at_k", "sparse_average_precision_at_k",
           "precision_at_k", "precision_at_top_k", "recall_at_k",
           "recall_at_top_k", "sparse_precision_at_k", "false_negatives", "false_negatives_at_thresholds",
           "false_positives", "false_positives_at_thresholds", "mean", "mean_absolute_error",
           "mean_cosine_distance", "mean_iou", "mean_per_class_accuracy",
           "mean_relative_error", "mean_squared_error", "mean_tensor", "percentage_below",
           "precision", "precision_at_thresholds", "recall", "recall_at_thresholds",
           "root_mean_squared_error", "sensitivity_at_specificity",
           "specificity_at_sensitivity", "true_negatives", "true_negatives_at_thresholds",
           "true_positives", "true_positives_at_thresholds"]


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A variable of zeros for a metric's state: local, in METRIC_VARIABLES, not trainable."""
    return variables.Variable(
        lambda: array_ops.zeros(shape, dtype), trainable=False,
        collections=[ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape, name=name)


def _remove_squeezable_dimensions(predictions, labels, weights):
    """Squeezes a trailing 1 so that labels, predictions and weights have matching ranks.

    Predictions or labels lose their last dimension when their ranks differ
    by one; weights lose it, or gain one, to match the predictions. Scalar
    weights stay scalar. A rank known only at run time is compared there,
    in a `tf.cond`.
    """
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = confusion_matrix.remove_squeezable_dimensions(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    weights_rank, predictions_rank = weights.shape.ndims, predictions.shape.ndims
    if weights_rank == 0:
        return predictions, labels, weights
    if weights_rank is not None and predictions_rank is not None:
        if weights_rank - predictions_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif predictions_rank - weights_rank == 1:
            weights = array_ops.expand_dims(weights, [-1])
        return predictions, labels, weights
    return predictions, labels, _weights_to_rank_at_run_time(weights, predictions)


def _weights_to_rank_at_run_time(weights, predictions):
    """Scalar weights as they are, else squeezed or expanded by one dimension, in conds."""
    weights_rank = array_ops.rank(weights)
    rank_diff = weights_rank - array_ops.rank(predictions)

    def maybe_expand_weights():
        return control_flow_ops.cond(math_ops.equal(rank_diff, -1),
                                     lambda: array_ops.expand_dims(weights, [-1]),
                                     lambda: weights)

    def maybe_squeeze_weights():
        if weights.shape.ndims is not None and not weights.shape.dims[-1].is_compatible_with(1):
            return weights  # its last dimension is known not to be 1: no squeeze
        return array_ops.squeeze(weights, [-1])

    def maybe_adjust_weights():
        return control_flow_ops.cond(math_ops.equal(rank_diff, 1), maybe_squeeze_weights,
                                     maybe_expand_weights)

    return control_flow_ops.cond(math_ops.equal(weights_rank, 0), lambda: weights,
                                 maybe_adjust_weights)


def _streaming_confusion_matrix(labels, predictions, num_classes, weights=None):
    """A float64 [num_classes, num_classes] variable, and the op that adds a batch's matrix."""
    total_cm = metric_variable([num_classes, num_classes], dtypes.float64,
                               name="total_confusion_matrix")
    predictions = math_ops.cast(predictions, dtypes.int64)
    labels = math_ops.cast(labels, dtypes.int64)
    num_classes = math_ops.cast(num_classes, dtypes.int64)
    if predictions.shape.ndims > 1:
        predictions = array_ops.reshape(predictions, [-1])
    if labels.shape.ndims > 1:
        labels = array_ops.reshape(labels, [-1])
    if weights is not None and weights.shape.ndims > 1:
        weights = array_ops.reshape(weights, [-1])
    current_cm = confusion_matrix.confusion_matrix(labels, predictions, num_classes,
                                                   weights=weights, dtype=dtypes.float64)
    return total_cm, state_ops.assign_add(total_cm, current_cm)


def _aggregate_across_replicas(metrics_collections, metric_value_fn, *args):
    """The metric's value from its state, added to `metrics_collections`.

    (TensorFlow sums the state of every replica first; minitf has one.)
    """
    metric_value = metric_value_fn(None, *args)
    if metrics_collections:
        ops.add_to_collections(metrics_collections, metric_value)
    return metric_value


def _aggregate_variable(v, collections):
    return _aggregate_across_replicas(collections, lambda _, value: array_ops.identity(value), v)


def _add_update_op(updates_collections, update_op):
    if updates_collections:
        ops.add_to_collections(updates_collections, update_op)
    return update_op


# --- means ------------------------------------------------------------------------------
def _weighted(values, weights):
    """`values` * `weights` and the weights broadcast to the values' shape."""
    values, _, weights = _remove_squeezable_dimensions(predictions=values, labels=None,
                                                       weights=weights)
    weights = weights_broadcast_ops.broadcast_weights(math_ops.cast(weights, dtypes.float32),
                                                      values)
    return math_ops.multiply(values, weights), weights


def _streaming_mean(total, count, batch_total, batch_count, metrics_collections,
                    updates_collections):
    """Adds a batch to `total` and `count`; the value and update_op are total / count."""
    update_total_op = state_ops.assign_add(total, batch_total)
    with ops.control_dependencies([batch_total]):
        update_count_op = state_ops.assign_add(count, batch_count)

    def compute_mean(_, t, c):
        return math_ops.div_no_nan(t, math_ops.maximum(c, 0), name="value")

    mean_t = _aggregate_across_replicas(metrics_collections, compute_mean, total, count)
    update_op = math_ops.div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0),
                                    name="update_op")
    return mean_t, _add_update_op(updates_collections, update_op)


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of `values`: local variables `total` and `count`, total / count.

    `update_op` adds sum(values * weights) to `total` and sum(weights) to
    `count` (weights default to 1; a weight of 0 masks a value).
    """
    with variable_scope.variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, weights = _weighted(values, weights)
            num_values = math_ops.reduce_sum(weights)
        return _streaming_mean(total, count, math_ops.reduce_sum(values), num_values,
                               metrics_collections, updates_collections)


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None):
    """The elementwise (weighted) mean of `values` over the updates: local variables
    `total_tensor` and `count_tensor` of the shape of `values`, total / count."""
    with variable_scope.variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable(values.shape, dtypes.float32, name="total_tensor")
        count = metric_variable(values.shape, dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, weights = _weighted(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        return _streaming_mean(total, count, values, num_values, metrics_collections,
                               updates_collections)


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """How often `predictions` equals `labels`: the mean of 1.0 (equal) and 0.0 (not)."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of |predictions - labels|."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights)
    absolute_errors = math_ops.abs(predictions - labels)
    return mean(absolute_errors, weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The mean of (labels - predictions)²."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights)
    squared_error = math_ops.squared_difference(labels, predictions)
    return mean(squared_error, weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The square root of `mean_squared_error` (whose variables it uses)."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights)
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None,
                                            name or "root_mean_squared_error")
    rmse = _aggregate_across_replicas(metrics_collections, lambda _, m: math_ops.sqrt(m), mse)
    return rmse, _add_update_op(updates_collections, math_ops.sqrt(update_mse_op))


def mean_relative_error(labels, predictions, normalizer, weights=None,
                        metrics_collections=None, updates_collections=None, name=None):
    """The mean of |labels - predictions| / normalizer (0 where the normalizer is 0)."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights)
    predictions, normalizer = confusion_matrix.remove_squeezable_dimensions(
        predictions, normalizer)
    predictions.shape.assert_is_compatible_with(normalizer.shape)
    relative_errors = math_ops.where(math_ops.equal(normalizer, 0.0),
                                     array_ops.zeros_like(labels),
                                     math_ops.div(math_ops.abs(labels - predictions),
                                                  normalizer))
    return mean(relative_errors, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """1 - the mean of the dot products along `dim` of `labels` and `predictions` (which
    are expected to be unit vectors already)."""
    labels, predictions, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights)
    radial_diffs = math_ops.multiply(predictions, labels)
    radial_diffs = math_ops.reduce_sum(radial_diffs, axis=[dim], keepdims=True)
    mean_distance, update_op = mean(radial_diffs, weights, None, None,
                                    name or "mean_cosine_distance")
    mean_distance = math_ops.subtract(1.0, mean_distance)
    update_op = math_ops.subtract(1.0, update_op)
    if metrics_collections:
        ops.add_to_collections(metrics_collections, mean_distance)
    return mean_distance, _add_update_op(updates_collections, update_op)


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """The fraction of `values` below `threshold`."""
    is_below_threshold = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(is_below_threshold, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """The accuracy of each class (correct / seen, per label), averaged over the classes.

    Its update_op returns the per-class accuracies, its value their mean.
    """
    with variable_scope.variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = math_ops.cast(labels, dtypes.int64)
        if labels.shape.ndims > 1:
            labels = array_ops.reshape(labels, [-1])
        if predictions.shape.ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        predictions.shape.assert_is_compatible_with(labels.shape)
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones([array_ops.size(labels)], dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            if weights.shape.ndims > 1:
                weights = array_ops.reshape(weights, [-1])
            weights = math_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total_op = state_ops.scatter_add(total, labels, ones)
        update_count_op = state_ops.scatter_add(count, labels, is_correct)

        def compute_mean_accuracy(_, count, total):
            per_class_accuracy = math_ops.div_no_nan(count, math_ops.maximum(total, 0))
            return math_ops.reduce_mean(per_class_accuracy, name="mean_accuracy")

        mean_accuracy_v = _aggregate_across_replicas(metrics_collections, compute_mean_accuracy,
                                                     count, total)
        update_op = math_ops.div_no_nan(update_count_op, math_ops.maximum(update_total_op, 0),
                                        name="update_op")
        return mean_accuracy_v, _add_update_op(updates_collections, update_op)


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The mean over classes of intersection / union, from a streaming confusion matrix.

    For class c, the intersection is cm[c, c] and the union is its row plus
    its column minus cm[c, c]; classes never seen (union 0) are left out of
    the mean. The update_op returns the updated confusion matrix.
    """
    with variable_scope.variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions.shape.assert_is_compatible_with(labels.shape)
        total_cm, update_op = _streaming_confusion_matrix(labels, predictions, num_classes,
                                                          weights)

        def compute_mean_iou(_, total_cm):
            sum_over_row = math_ops.cast(math_ops.reduce_sum(total_cm, 0), dtypes.float32)
            sum_over_col = math_ops.cast(math_ops.reduce_sum(total_cm, 1), dtypes.float32)
            cm_diag = math_ops.cast(array_ops.diag_part(total_cm), dtypes.float32)
            denominator = sum_over_row + sum_over_col - cm_diag
            num_valid_entries = math_ops.reduce_sum(
                math_ops.cast(math_ops.not_equal(denominator, 0), dtype=dtypes.float32))
            denominator = math_ops.where(math_ops.greater(denominator, 0), denominator,
                                         array_ops.ones_like(denominator))
            iou = math_ops.divide(cm_diag, denominator)
            return math_ops.where(math_ops.greater(num_valid_entries, 0),
                                  math_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries,
                                  0)

        mean_iou_v = _aggregate_across_replicas(metrics_collections, compute_mean_iou, total_cm)
        return mean_iou_v, _add_update_op(updates_collections, update_op)


# --- counts of true/false positives/negatives -------------------------------------------
def _count_condition(values, weights=None, metrics_collections=None, updates_collections=None):
    """A `count` variable and the op that adds the (weighted) number of true `values`."""
    check_ops.assert_type(values, dtypes.bool)
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:
        with ops.control_dependencies((check_ops.assert_rank_in(
                weights, (0, array_ops.rank(values))),)):
            weights = math_ops.cast(weights, dtypes.float32)
            values = math_ops.multiply(values, weights)
    value_tensor = _aggregate_variable(count, metrics_collections)
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    return value_tensor, _add_update_op(updates_collections, update_op)


def _count_matches(scope, label_wanted, prediction_wanted, labels, predictions, weights,
                   metrics_collections, updates_collections, name):
    """The (weighted) count of examples whose label and prediction are as wanted."""
    with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            predictions=math_ops.cast(predictions, dtype=dtypes.bool),
            labels=math_ops.cast(labels, dtype=dtypes.bool), weights=weights)
        is_match = math_ops.logical_and(math_ops.equal(labels, label_wanted),
                                        math_ops.equal(predictions, prediction_wanted))
        return _count_condition(is_match, weights, metrics_collections, updates_collections)


def true_positives(labels, predictions, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """The (weighted) number of examples labeled True and predicted True."""
    return _count_matches("true_positives", True, True, labels, predictions, weights,
                          metrics_collections, updates_collections, name)


def false_positives(labels, predictions, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """The (weighted) number of examples labeled False and predicted True."""
    return _count_matches("false_positives", False, True, labels, predictions, weights,
                          metrics_collections, updates_collections, name)


def true_negatives(labels, predictions, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """The (weighted) number of examples labeled False and predicted False."""
    return _count_matches("true_negatives", False, False, labels, predictions, weights,
                          metrics_collections, updates_collections, name)


def false_negatives(labels, predictions, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """The (weighted) number of examples labeled True and predicted False."""
    return _count_matches("false_negatives", True, False, labels, predictions, weights,
                          metrics_collections, updates_collections, name)


def _ratio_of_counts(scope, other_count, labels, predictions, weights, metrics_collections,
                     updates_collections, name):
    """tp / (tp + other), 0 when both are 0: precision (other: fp) or recall (other: fn)."""
    with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            predictions=math_ops.cast(predictions, dtype=dtypes.bool),
            labels=math_ops.cast(labels, dtype=dtypes.bool), weights=weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        other, other_update = other_count(labels, predictions, weights)

        def compute(tp, other, name):
            return math_ops.where(math_ops.greater(tp + other, 0),
                                  math_ops.divide(tp, tp + other), 0, name)

        value = _aggregate_across_replicas(
            metrics_collections, lambda _, tp, o: compute(tp, o, "value"), true_p, other)
        update_op = compute(true_p_update, other_update, "update_op")
        return value, _add_update_op(updates_collections, update_op)


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """Of the examples predicted True, the (weighted) fraction labeled True."""
    return _ratio_of_counts("precision", false_positives, labels, predictions, weights,
                            metrics_collections, updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """Of the examples labeled True, the (weighted) fraction predicted True."""
    return _ratio_of_counts("recall", false_negatives, labels, predictions, weights,
                            metrics_collections, updates_collections, name)


# --- counts at thresholds, and what they make: AUC, precision and recall at thresholds -----
def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None,
                                    includes=None):
    """Variables of the (weighted) tp, fn, tn, fp counts at each threshold, and their updates.

    An example is predicted positive at threshold t when its prediction is
    above t. The predictions must lie in [0, 1] (checked at run time).
    Returns two dicts keyed by the `includes` ('tp', 'fn', 'tn', 'fp').
    """
    all_includes = ("tp", "fn", "tn", "fp")
    if includes is None:
        includes = all_includes
    for include in includes:
        if include not in all_includes:
            raise ValueError("Invalid key: %s." % include)

    with ops.control_dependencies([
            check_ops.assert_greater_equal(
                predictions, math_ops.cast(0.0, dtype=predictions.dtype),
                message="predictions must be in [0, 1]"),
            check_ops.assert_less_equal(
                predictions, math_ops.cast(1.0, dtype=predictions.dtype),
                message="predictions must be in [0, 1]")]):
        predictions, labels, weights = _remove_squeezable_dimensions(
            predictions=math_ops.cast(predictions, dtypes.float32),
            labels=math_ops.cast(labels, dtype=dtypes.bool), weights=weights)

    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtype=dtypes.bool), [1, -1])
    num_predictions = predictions_2d.shape.as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(array_ops.expand_dims(constant(thresholds), [1]),
                                  array_ops.stack([1, num_predictions]))
    # One row per threshold, one column per example.
    pred_is_pos = math_ops.greater(
        array_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]), thresh_tiled)
    pred_is_neg = math_ops.logical_not(pred_is_pos) if {"fn", "tn"} & set(includes) else None
    label_is_pos = array_ops.tile(labels_2d, [num_thresholds, 1])
    label_is_neg = math_ops.logical_not(label_is_pos) if {"fp", "tn"} & set(includes) else None
    weights_tiled = None
    if weights is not None:
        weights = weights_broadcast_ops.broadcast_weights(
            math_ops.cast(weights, dtypes.float32), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [num_thresholds, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)

    conditions = {"tp": ("true_positives", label_is_pos, pred_is_pos),
                  "fn": ("false_negatives", label_is_pos, pred_is_neg),
                  "tn": ("true_negatives", label_is_neg, pred_is_neg),
                  "fp": ("false_positives", label_is_neg, pred_is_pos)}
    values, update_ops = {}, {}
    for key in all_includes:
        if key not in includes:
            continue
        variable_name, label_is, pred_is = conditions[key]
        count = metric_variable([num_thresholds], dtypes.float32, name=variable_name)
        is_counted = math_ops.cast(math_ops.logical_and(label_is, pred_is), dtypes.float32)
        if weights_tiled is not None:
            is_counted *= weights_tiled
        update_ops[key] = state_ops.assign_add(count, math_ops.reduce_sum(is_counted, 1))
        values[key] = count
    return values, update_ops


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """The area under the ROC (or precision-recall) curve, from counts at fixed thresholds.

    `num_thresholds` evenly spaced thresholds in (0, 1), or the given
    `thresholds`, plus one just below 0 and one just above 1, discretize the
    curve; `summation_method` says how the area between two of its points
    is taken: 'trapezoidal' (default), 'careful_interpolation' (PR: the
    interpolation of Davis & Goadrich), 'minoring' (lower bound) or
    'majoring' (upper bound).
    """
    with variable_scope.variable_scope(name, "auc", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError("curve must be either ROC or PR, %s unknown" % curve)
        kepsilon = 1e-7  # so that predictions of exactly 0 and 1 fall inside the end thresholds
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
        else:
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + thresholds + [1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)
        epsilon = 1.0e-6  # keeps the rates defined when a count is 0

        def interpolate_pr_auc(tp, fp, fn):
            """PR-AUC with TP, FP and P = TP + FP linear between thresholds (Davis et al., 2006).

            Over an interval where P goes from P_A to P_B, precision is
            (TP_A + slope·(P - P_A)) / P; its integral, divided by all
            positives, is slope·(dTP + intercept·log(P_B / P_A)) / (TP + FN).
            """
            dtp = tp[:num_thresholds - 1] - tp[1:]
            p = tp + fp
            prec_slope = math_ops.div_no_nan(
                dtp, math_ops.maximum(p[:num_thresholds - 1] - p[1:], 0), name="prec_slope")
            intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
            safe_p_ratio = math_ops.where(
                math_ops.logical_and(p[:num_thresholds - 1] > 0, p[1:] > 0),
                math_ops.div_no_nan(p[:num_thresholds - 1], math_ops.maximum(p[1:], 0),
                                    name="recall_relative_ratio"),
                array_ops.ones_like(p[1:]))
            return math_ops.reduce_sum(
                math_ops.div_no_nan(prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                                    math_ops.maximum(tp[1:] + fn[1:], 0),
                                    name="pr_auc_increment"),
                name="interpolate_pr_auc")

        def compute_auc(tp, fn, tn, fp, name):
            if curve == "PR" and summation_method == "careful_interpolation":
                return interpolate_pr_auc(tp, fp, fn)
            rec = math_ops.divide(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = math_ops.divide(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, math_ops.divide(tp + epsilon, tp + fp + epsilon)
            widths = x[:num_thresholds - 1] - x[1:]
            if summation_method in ("trapezoidal", "careful_interpolation"):
                heights = (y[:num_thresholds - 1] + y[1:]) / 2.
            elif summation_method == "minoring":
                heights = math_ops.minimum(y[:num_thresholds - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[:num_thresholds - 1], y[1:])
            else:
                raise ValueError("Invalid summation_method: %s" % summation_method)
            return math_ops.reduce_sum(math_ops.multiply(widths, heights), name=name)

        auc_value = _aggregate_across_replicas(
            metrics_collections,
            lambda _, v: compute_auc(v["tp"], v["fn"], v["tn"], v["fp"], "value"), values)
        update_op = compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"],
                                update_ops["fp"], "update_op")
        return auc_value, _add_update_op(updates_collections, update_op)


def _ratio_at_thresholds(scope, other, labels, predictions, thresholds, weights,
                         metrics_collections, updates_collections, name):
    """tp / (tp + other) at each threshold: precision (other: fp) or recall (other: fn)."""
    with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", other))
        epsilon = 1e-7
        prefix = scope.partition("_")[0] + "_"

        def compute(tp, other_count, name):
            return math_ops.divide(tp, epsilon + tp + other_count, name=prefix + name)

        value = _aggregate_across_replicas(
            metrics_collections, lambda _, v: compute(v["tp"], v[other], "value"), values)
        update_op = compute(update_ops["tp"], update_ops[other], "update_op")
        return value, _add_update_op(updates_collections, update_op)


def precision_at_thresholds(labels, predictions, thresholds, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """Precision at each threshold (an example is predicted True above it)."""
    return _ratio_at_thresholds("precision_at_thresholds", "fp", labels, predictions, thresholds,
                                weights, metrics_collections, updates_collections, name)


def recall_at_thresholds(labels, predictions, thresholds, weights=None,
                         metrics_collections=None, updates_collections=None, name=None):
    """Recall at each threshold (an example is predicted True above it)."""
    return _ratio_at_thresholds("recall_at_thresholds", "fn", labels, predictions, thresholds,
                                weights, metrics_collections, updates_collections, name)


def _rate_at_rate(scope, at_name, at, labels, predictions, weights, num_thresholds,
                  metrics_collections, updates_collections, name, last_threshold,
                  compute):
    """A rate read at the threshold where another rate is closest to `at`: the part that
    `sensitivity_at_specificity` and `specificity_at_sensitivity` share."""
    if at < 0 or at > 1:
        raise ValueError("`%s` must be in the range [0, 1]." % at_name)
    with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
        kepsilon = 1e-7  # so that predictions of exactly 0 and 1 fall inside the end thresholds
        thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + thresholds + [last_threshold]
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)
        value = _aggregate_across_replicas(
            metrics_collections,
            lambda _, v: compute(v["tp"], v["tn"], v["fp"], v["fn"], "value"), values)
        update_op = compute(update_ops["tp"], update_ops["tn"], update_ops["fp"],
                            update_ops["fn"], "update_op")
        return value, _add_update_op(updates_collections, update_op)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The sensitivity (recall, tp / (tp + fn)) at the threshold whose specificity
    (tn / (tn + fp)) is closest to `specificity`, of `num_thresholds` in [0, 1]."""
    kepsilon = 1e-7

    def compute_sensitivity_at_specificity(tp, tn, fp, fn, name):
        specificities = math_ops.div(tn, tn + fp + kepsilon)
        tf_index = math_ops.argmin(math_ops.abs(specificities - specificity), 0)
        tf_index = math_ops.cast(tf_index, dtypes.int32)
        return math_ops.div(tp[tf_index], tp[tf_index] + fn[tf_index] + kepsilon, name)

    return _rate_at_rate("sensitivity_at_specificity", "specificity", specificity, labels,
                         predictions, weights, num_thresholds, metrics_collections,
                         updates_collections, name, 1.0 + kepsilon,
                         compute_sensitivity_at_specificity)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The specificity (tn / (tn + fp)) at the threshold whose sensitivity (tp / (tp + fn))
    is closest to `sensitivity`, the last such threshold on a tie."""
    kepsilon = 1e-7

    def compute_specificity_at_sensitivity(tp, tn, fp, fn, name):
        sensitivities = math_ops.div(tp, tp + fn + kepsilon)
        # The last of the closest: argmax gives the first maximum of the running count.
        min_val = math_ops.reduce_min(math_ops.abs(sensitivities - sensitivity))
        indices_at_minval = math_ops.equal(math_ops.abs(sensitivities - sensitivity), min_val)
        indices_at_minval = math_ops.cumsum(math_ops.cast(indices_at_minval, dtypes.int64))
        tf_index = math_ops.cast(math_ops.argmax(indices_at_minval, 0), dtypes.int32)
        return math_ops.div(tn[tf_index], tn[tf_index] + fp[tf_index] + kepsilon, name)

    # TensorFlow ends these thresholds just below 1, not just above it as elsewhere.
    return _rate_at_rate("specificity_at_sensitivity", "sensitivity", sensitivity, labels,
                         predictions, weights, num_thresholds, metrics_collections,
                         updates_collections, name, 1.0 - kepsilon,
                         compute_specificity_at_sensitivity)


def _count_at_thresholds(key, scope, labels, predictions, thresholds, weights,
                         metrics_collections, updates_collections, name):
    with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights=weights, includes=(key,))
        value = _aggregate_variable(values[key], metrics_collections)
        return value, _add_update_op(updates_collections, update_ops[key])


def true_positives_at_thresholds(labels, predictions, thresholds, weights=None,
                                 metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) true positives at each threshold."""
    return _count_at_thresholds("tp", "true_positives", labels, predictions, thresholds,
                                weights, metrics_collections, updates_collections, name)


def false_positives_at_thresholds(labels, predictions, thresholds, weights=None,
                                  metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) false positives at each threshold."""
    return _count_at_thresholds("fp", "false_positives", labels, predictions, thresholds,
                                weights, metrics_collections, updates_collections, name)


def true_negatives_at_thresholds(labels, predictions, thresholds, weights=None,
                                 metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) true negatives at each threshold."""
    return _count_at_thresholds("tn", "true_negatives", labels, predictions, thresholds,
                                weights, metrics_collections, updates_collections, name)


def false_negatives_at_thresholds(labels, predictions, thresholds, weights=None,
                                  metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) false negatives at each threshold."""
    return _count_at_thresholds("fn", "false_negatives", labels, predictions, thresholds,
                                weights, metrics_collections, updates_collections, name)


# --- the top k predictions against sets of labels: precision and recall at k ---------------
def _at_k_name(name, k=None, class_id=None):
    """'precision_at_5', 'recall_at_k', 'precision_at_5_class3': the default scope names."""
    name = "%s_at_%d" % (name, k) if k is not None else "%s_at_k" % name
    return "%s_class%d" % (name, class_id) if class_id is not None else name


def _maybe_expand_labels(labels, predictions):
    """Labels of one rank less than the predictions (one label per row) get a last axis."""
    if isinstance(labels, sparse_tensor.SparseTensor):
        raise NotImplementedError("minitf's metrics at k take dense labels, one row of class "
                                  "ids per example; got a SparseTensor.")
    with ops.name_scope(None, "expand_labels", (labels, predictions)) as scope:
        labels = convert_to_tensor(labels)
        labels_rank, predictions_rank = labels.shape.ndims, predictions.shape.ndims
        if labels_rank is None or predictions_rank is None:
            raise ValueError("The metrics at k need the ranks of labels and predictions "
                             "while building.")
        if predictions_rank == labels_rank:
            return labels
        if predictions_rank == labels_rank + 1:
            return array_ops.expand_dims(labels, -1, name=scope)
        raise ValueError("Unexpected labels shape %s for predictions shape %s."
                         % (labels.shape, predictions.shape))


def _set_members(ids, class_id):
    """Which of each row's ids are members of the row's set: the first of equal ids (a set
    holds each once), and only `class_id` when one is given."""
    size = ids.shape.dims[-1].value
    if size is None:
        raise ValueError("The metrics at k need the last dimension of labels and "
                         "predictions while building.")
    equal = math_ops.equal(array_ops.expand_dims(ids, -1), array_ops.expand_dims(ids, -2))
    earlier = constant(np.tril(np.ones([size, size], dtype=bool), -1))
    members = math_ops.logical_not(math_ops.reduce_any(math_ops.logical_and(equal, earlier),
                                                       -1))
    if class_id is not None:
        members = math_ops.logical_and(members, math_ops.equal(ids, class_id))
    return members


def _count_in_set(ids, other_ids, class_id, in_other, weights):
    """Per row, how many members of the set `ids` are (`in_other`) or are not in the set
    `other_ids`, weighted: set_size of the set intersection or difference, as float64."""
    found = math_ops.reduce_any(math_ops.equal(array_ops.expand_dims(ids, -1),
                                               array_ops.expand_dims(other_ids, -2)), -1)
    if not in_other:
        found = math_ops.logical_not(found)
    counted = math_ops.logical_and(_set_members(ids, class_id), found)
    count = math_ops.reduce_sum(math_ops.cast(counted, dtypes.float64), -1)
    if weights is not None:
        with ops.control_dependencies((weights_broadcast_ops.assert_broadcastable(weights,
                                                                                   count),)):
            count = math_ops.multiply(count, math_ops.cast(weights, dtypes.float64))
    return count


def _streaming_count_at_k(scope_name, ids, other_ids, in_other, k, class_id, weights):
    """A float64 local variable of the batches' total count, and the op that adds one."""
    with ops.name_scope(None, _at_k_name(scope_name, k, class_id=class_id),
                        (ids, other_ids, weights)) as scope:
        count = _count_in_set(ids, other_ids, class_id, in_other, weights)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, state_ops.assign_add(var, math_ops.reduce_sum(count), name="update")


def _tp_over_tp_plus(metric_name, other_name, other_is_labels, labels, predictions_idx, k,
                     class_id, weights, metrics_collections, updates_collections, name):
    """tp / (tp + fp) (precision: other_is_labels False) or tp / (tp + fn) (recall) of the
    top-k ids against the labels."""
    with ops.name_scope(name, _at_k_name(metric_name, k, class_id=class_id),
                        (predictions_idx, labels, weights)) as scope:
        labels = math_ops.cast(_maybe_expand_labels(labels, predictions_idx), dtypes.int64)
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count_at_k("true_positive", top_k_idx, labels, True, k,
                                              class_id, weights)
        if other_is_labels:
            other, other_update = _streaming_count_at_k(other_name, labels, top_k_idx, False,
                                                        k, class_id, weights)
        else:
            other, other_update = _streaming_count_at_k(other_name, top_k_idx, labels, False,
                                                        k, class_id, weights)
        metric = _aggregate_across_replicas(
            metrics_collections, lambda _, t, o: math_ops.div(t, math_ops.add(t, o), name=scope),
            tp, other)
        update = math_ops.div(tp_update, math_ops.add(tp_update, other_update), name="update")
        return metric, _add_update_op(updates_collections, update)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                       metrics_collections=None, updates_collections=None, name=None):
    """Of the ids in `predictions_idx` (the top k classes of each example), the fraction
    that are among the example's `labels`: float64 local variables true_positive_at_<k>
    and false_positive_at_<k>. With `class_id`, only that class counts."""
    return _tp_over_tp_plus("precision", "false_positive", False, labels, predictions_idx, k,
                            class_id, weights, metrics_collections, updates_collections, name)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                    metrics_collections=None, updates_collections=None, name=None):
    """Of each example's `labels` (a set: each id once), the fraction found among the ids
    of `predictions_idx`; a label outside the classes always counts as missed."""
    return _tp_over_tp_plus("recall", "false_negative", True, labels, predictions_idx, k,
                            class_id, weights, metrics_collections, updates_collections, name)


def _of_top_k(metric_name, metric_at_top_k, labels, predictions, k, class_id, weights,
              metrics_collections, updates_collections, name):
    with ops.name_scope(name, _at_k_name(metric_name, k, class_id=class_id),
                        (predictions, labels, weights)) as scope:
        _, top_k_idx = nn_ops.top_k(predictions, k)
        return metric_at_top_k(labels=labels, predictions_idx=top_k_idx, k=k,
                               class_id=class_id, weights=weights,
                               metrics_collections=metrics_collections,
                               updates_collections=updates_collections, name=scope)


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None, name=None):
    """`precision_at_top_k` of the `k` classes with the highest `predictions` (logits or
    probabilities, [..., num_classes])."""
    return _of_top_k("precision", precision_at_top_k, labels, predictions, k, class_id,
                     weights, metrics_collections, updates_collections, name)


sparse_precision_at_k = precision_at_k  # TF 1.15's older name of it


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """`recall_at_top_k` of the `k` classes with the highest `predictions`."""
    return _of_top_k("recall", recall_at_top_k, labels, predictions, k, class_id, weights,
                     metrics_collections, updates_collections, name)


def _clean_out_of_range_indices(labels, num_classes):
    """Labels of `num_classes` or more as -1, so that they are not counted as relevant."""
    labels = math_ops.cast(convert_to_tensor(labels), dtypes.int64)

    def clean_labels_out_of_range():
        return math_ops.where(math_ops.greater_equal(labels, num_classes),
                              -1 * array_ops.ones_like(labels), labels)

    max_labels = math_ops.reduce_max(labels)
    return control_flow_ops.cond(math_ops.greater_equal(max_labels, num_classes),
                                 clean_labels_out_of_range, lambda: labels)


def _average_precision_at_top_k(labels, predictions_idx):
    """Per example, the mean over its relevant ranks i of the precision of the first i ids,
    divided by min(k, the number of its non-negative labels)."""
    with ops.name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.shape.ndims == 0:
            raise ValueError("Invalid predictions_idx %s." % predictions_idx)
        k = predictions_idx.shape.as_list()[-1]
        if k is None:
            raise ValueError("predictions_idx must have static last dimension.")
        labels = math_ops.cast(_maybe_expand_labels(labels, predictions_idx), dtypes.int64)
        relevant_per_k = math_ops.cast(math_ops.reduce_any(math_ops.equal(
            array_ops.expand_dims(predictions_idx, -1), array_ops.expand_dims(labels, -2)), -1),
            dtypes.float64, name="relevant_per_k")
        tp_per_k = math_ops.cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = math_ops.cumsum(array_ops.ones_like(relevant_per_k), axis=-1,
                                          name="retrieved_per_k")
        precision_per_k = math_ops.div(tp_per_k, retrieved_per_k, name="precision_per_k")
        relevant_precision_per_k = math_ops.multiply(precision_per_k, relevant_per_k,
                                                     name="relevant_precision_per_k")
        precision_sum = math_ops.reduce_sum(relevant_precision_per_k, axis=(-1,),
                                            name="precision_sum")
        num_labels = math_ops.reduce_sum(
            math_ops.cast(math_ops.greater_equal(labels, 0), dtypes.int64), axis=-1)
        num_relevant_items = math_ops.cast(math_ops.minimum(num_labels, k), dtypes.float64)
        return math_ops.div(precision_sum, num_relevant_items, name=scope)


def _streaming_total(scope_name, batch_value, batch_name):
    """A float64 local variable named by its scope, and the op that adds `batch_value`."""
    with ops.name_scope(None, scope_name, (batch_value,)) as scope:
        var = metric_variable([], dtypes.float64, name=scope)
        batch = batch_value(batch_name)
        return var, state_ops.assign_add(var, batch, name="update")


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """The mean over the examples of the average precision of their top `k` predictions:
    float64 local variables `total` (of the per-example values) and `max` (the examples,
    or their weights)."""
    if k < 1:
        raise ValueError("Invalid k=%s." % k)
    with ops.name_scope(name, _at_k_name("average_precision", k),
                        (predictions, labels, weights)) as scope:
        _, predictions_idx = nn_ops.top_k(predictions, k)
        labels = _clean_out_of_range_indices(
            labels, math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64))
        average_precision = _average_precision_at_top_k(labels, predictions_idx)
        if weights is not None:
            weights = weights_broadcast_ops.broadcast_weights(
                math_ops.cast(weights, dtypes.float64), average_precision)
            average_precision = math_ops.multiply(average_precision, weights)
        if weights is None:
            max_var, max_update = _streaming_total("max", lambda name: math_ops.cast(
                array_ops.size(average_precision, name=name), dtypes.float64), "batch_max")
        else:
            max_var, max_update = _streaming_total(
                "max", lambda name: math_ops.reduce_sum(weights, name=name), "batch_max")
        total_var, total_update = _streaming_total(
            "total", lambda name: math_ops.reduce_sum(average_precision, name=name),
            "batch_total")
        mean_average_precision = _aggregate_across_replicas(
            metrics_collections, lambda _, t, m: math_ops.div_no_nan(t, m, name="mean"),
            total_var, max_var)
        update = math_ops.div_no_nan(total_update, max_update, name=scope)
        return mean_average_precision, _add_update_op(updates_collections, update)


sparse_average_precision_at_k = average_precision_at_k  # TF 1.15's older name of it
