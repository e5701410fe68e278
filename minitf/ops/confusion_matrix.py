"""`tf.confusion_matrix`: counts of (label, prediction) pairs, and squeezing a trailing 1.

`confusion_matrix(labels, predictions, num_classes)` is the matrix whose
entry [i, j] counts (or weighs) the examples of class i predicted as j. Labels
and predictions are checked first, at run time: negative, or (when
`num_classes` is given) not below it, is an InvalidArgumentError.

`remove_squeezable_dimensions` makes labels and predictions the same rank
when one has an extra trailing dimension of size 1 (`[batch, 1]` against
`[batch]`), which losses and metrics do before comparing them.

Mirrors `tensorflow/python/ops/confusion_matrix.py`. TF 1.15 adds a
SparseTensor of the pairs to a zero matrix; minitf scatters them with
`ScatterNd`, which also adds up repeated pairs (TensorFlow 2's way, the
same numbers).
"""

from minitf.graph import dtypes, ops
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.ops import array_ops, check_ops, control_flow_ops, math_ops

__all__ = ["confusion_matrix"]


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """(labels, predictions), one of them squeezed when its rank is one more than expected.

    Static ranks are compared while building; when one is known only at run
    time, a `tf.cond` on the ranks squeezes or passes each tensor.
    """
    with ops.name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        predictions_rank, labels_rank = predictions.shape.ndims, labels.shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            rank_diff = predictions_rank - labels_rank
            if (rank_diff == expected_rank_diff + 1
                    and predictions.shape.dims[-1].is_compatible_with(1)):
                predictions = array_ops.squeeze(predictions, [-1])
            elif (rank_diff == expected_rank_diff - 1
                  and labels.shape.dims[-1].is_compatible_with(1)):
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if predictions_rank is None or predictions.shape.dims[-1].is_compatible_with(1):
            predictions = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff + 1, rank_diff),
                lambda: array_ops.squeeze(predictions, [-1]), lambda: predictions)
        if labels_rank is None or labels.shape.dims[-1].is_compatible_with(1):
            labels = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff - 1, rank_diff),
                lambda: array_ops.squeeze(labels, [-1]), lambda: labels)
        return labels, predictions


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32,
                     name=None):
    """The [num_classes, num_classes] matrix of (label, prediction) counts, or summed weights.

    Without `num_classes`, it is one more than the largest label or prediction.
    """
    with ops.name_scope(name, "confusion_matrix",
                        (predictions, labels, num_classes, weights)) as name:
        labels, predictions = remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"),
            convert_to_tensor(predictions, name="predictions"))
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        labels = control_flow_ops.with_dependencies([check_ops.assert_non_negative(
            labels, message="`labels` contains negative values")], labels)
        predictions = control_flow_ops.with_dependencies([check_ops.assert_non_negative(
            predictions, message="`predictions` contains negative values")], predictions)
        if num_classes is None:
            num_classes = math_ops.maximum(math_ops.reduce_max(predictions),
                                           math_ops.reduce_max(labels)) + 1
        else:
            num_classes_int64 = math_ops.cast(num_classes, dtypes.int64)
            labels = control_flow_ops.with_dependencies([check_ops.assert_less(
                labels, num_classes_int64, message="`labels` out of bound")], labels)
            predictions = control_flow_ops.with_dependencies([check_ops.assert_less(
                predictions, num_classes_int64, message="`predictions` out of bound")],
                predictions)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = math_ops.cast(weights, dtype)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        return array_ops.scatter_nd(indices, values, math_ops.cast(shape, dtypes.int64),
                                    name=name)
