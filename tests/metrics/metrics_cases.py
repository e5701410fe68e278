"""The metrics the tests compare with TensorFlow's, and the batches they are updated with.

Each case names its inputs (dtype and shape of a placeholder each), a
function `metric(tf, inputs)` that makes the metric, and the batches fed to
it, one per update step, drawn from a seeded NumPy generator. The record
script (`scripts/record_metrics_reference.py`) runs every case in
TensorFlow and writes the names and values to
`data/metrics_reference.json`; the tests run the same cases in minitf.
Nothing here imports TensorFlow or minitf.
"""

import numpy as np

BATCH = 12
STEPS = 3


def _probabilities(rng, shape):
    return rng.uniform(0.0, 1.0, shape).astype(np.float32)


def _binary(rng, shape, dtype=np.float32):
    return rng.randint(0, 2, shape).astype(dtype)


def _classes(rng, shape, num_classes=4):
    return rng.randint(0, num_classes, shape).astype(np.int64)


def _weights(rng, shape):
    # Some zero weights: a masked example must count for nothing.
    return (rng.uniform(0.0, 2.0, shape) * rng.randint(0, 4, shape).clip(0, 1)).astype(np.float32)


def _auc_case(**kwargs):
    return {"inputs": {"labels": ("float32", [BATCH]), "predictions": ("float32", [BATCH])},
            "metric": lambda tf, x: tf.metrics.auc(x["labels"], x["predictions"], **kwargs),
            "batch": lambda rng: {"labels": _binary(rng, [BATCH]),
                                  "predictions": _probabilities(rng, [BATCH])}}


def _weighted_auc_case(**kwargs):
    return {"inputs": {"labels": ("float32", [BATCH]), "predictions": ("float32", [BATCH]),
                       "weights": ("float32", [BATCH])},
            "metric": lambda tf, x: tf.metrics.auc(x["labels"], x["predictions"],
                                                   weights=x["weights"], **kwargs),
            "batch": lambda rng: {"labels": _binary(rng, [BATCH]),
                                  "predictions": _probabilities(rng, [BATCH]),
                                  "weights": _weights(rng, [BATCH])}}


def _regression_case(name, weighted):
    inputs = {"labels": ("float32", [BATCH, 2]), "predictions": ("float32", [BATCH, 2])}
    if weighted:
        inputs["weights"] = ("float32", [BATCH, 1])

    def metric(tf, x):
        return getattr(tf.metrics, name)(x["labels"], x["predictions"], weights=x.get("weights"))

    def batch(rng):
        values = {"labels": rng.normal(0.0, 1.0, [BATCH, 2]).astype(np.float32),
                  "predictions": rng.normal(0.0, 1.0, [BATCH, 2]).astype(np.float32)}
        if weighted:
            values["weights"] = _weights(rng, [BATCH, 1])
        return values

    return {"inputs": inputs, "metric": metric, "batch": batch}


def _binary_case(name, weighted, **kwargs):
    """A metric of (labels, predictions) as 0/1 ints and bools, optionally weighted."""
    inputs = {"labels": ("int64", [BATCH]), "predictions": ("bool", [BATCH])}
    if weighted:
        inputs["weights"] = ("float32", [BATCH])

    def metric(tf, x):
        return getattr(tf.metrics, name)(x["labels"], x["predictions"], weights=x.get("weights"),
                                         **kwargs)

    def batch(rng):
        values = {"labels": _binary(rng, [BATCH], np.int64),
                  "predictions": _binary(rng, [BATCH], np.bool_)}
        if weighted:
            values["weights"] = _weights(rng, [BATCH])
        return values

    return {"inputs": inputs, "metric": metric, "batch": batch}


def _threshold_case(name, weighted, at=(0.25, 0.5, 0.75), **kwargs):
    """A metric of 0/1 labels and probabilities at thresholds (or at a rate, `at`)."""
    inputs = {"labels": ("float32", [BATCH]), "predictions": ("float32", [BATCH])}
    if weighted:
        inputs["weights"] = ("float32", [BATCH])

    def metric(tf, x):
        return getattr(tf.metrics, name)(x["labels"], x["predictions"],
                                         list(at) if isinstance(at, tuple) else at,
                                         weights=x.get("weights"), **kwargs)

    def batch(rng):
        values = {"labels": _binary(rng, [BATCH]), "predictions": _probabilities(rng, [BATCH])}
        if weighted:
            values["weights"] = _weights(rng, [BATCH])
        return values

    return {"inputs": inputs, "metric": metric, "batch": batch}


def _class_case(name, weighted, labels_shape=(BATCH,)):
    """A metric of class ids, with num_classes=4."""
    inputs = {"labels": ("int64", list(labels_shape)), "predictions": ("int64", [BATCH])}
    if weighted:
        inputs["weights"] = ("float32", [BATCH])

    def metric(tf, x):
        return getattr(tf.metrics, name)(x["labels"], x["predictions"], 4,
                                         weights=x.get("weights"))

    def batch(rng):
        values = {"labels": _classes(rng, list(labels_shape)),
                  "predictions": _classes(rng, [BATCH])}
        if weighted:
            values["weights"] = _weights(rng, [BATCH])
        return values

    return {"inputs": inputs, "metric": metric, "batch": batch}


def _accuracy_case(weighted, labels_shape):
    inputs = {"labels": ("int64", list(labels_shape)), "predictions": ("int64", [BATCH])}
    if weighted:
        inputs["weights"] = ("float32", [BATCH])

    def metric(tf, x):
        return tf.metrics.accuracy(x["labels"], x["predictions"], weights=x.get("weights"))

    def batch(rng):
        values = {"labels": _classes(rng, list(labels_shape), 3),
                  "predictions": _classes(rng, [BATCH], 3)}
        if weighted:
            values["weights"] = _weights(rng, [BATCH])
        return values

    return {"inputs": inputs, "metric": metric, "batch": batch}


def _mean_case(weights_shape):
    inputs = {"values": ("float32", [BATCH, 3])}
    if weights_shape is not None:
        inputs["weights"] = ("float32", list(weights_shape))

    def metric(tf, x):
        return tf.metrics.mean(x["values"], weights=x.get("weights"))

    def batch(rng):
        values = {"values": rng.normal(1.0, 2.0, [BATCH, 3]).astype(np.float32)}
        if weights_shape is not None:
            values["weights"] = _weights(rng, list(weights_shape))
        return values

    return {"inputs": inputs, "metric": metric, "batch": batch}


def _percentage_below_case():
    return {"inputs": {"values": ("float32", [BATCH])},
            "metric": lambda tf, x: tf.metrics.percentage_below(x["values"], 0.5),
            "batch": lambda rng: {"values": _probabilities(rng, [BATCH])}}


def _mean_tensor_case(weighted):
    inputs = {"values": ("float32", [4, 3])}
    if weighted:
        inputs["weights"] = ("float32", [4, 1])

    def metric(tf, x):
        return tf.metrics.mean_tensor(x["values"], weights=x.get("weights"))

    def batch(rng):
        values = {"values": rng.normal(1.0, 2.0, [4, 3]).astype(np.float32)}
        if weighted:
            values["weights"] = _weights(rng, [4, 1])
        return values

    return {"inputs": inputs, "metric": metric, "batch": batch}


def _mean_relative_error_case():
    shape = [BATCH, 2]
    return {"inputs": {"labels": ("float32", shape), "predictions": ("float32", shape),
                       "normalizer": ("float32", shape)},
            "metric": lambda tf, x: tf.metrics.mean_relative_error(
                x["labels"], x["predictions"], x["normalizer"]),
            # Some zero normalizers: their relative error counts as 0.
            "batch": lambda rng: {
                "labels": rng.normal(0.0, 1.0, shape).astype(np.float32),
                "predictions": rng.normal(0.0, 1.0, shape).astype(np.float32),
                "normalizer": (rng.uniform(0.5, 2.0, shape)
                               * rng.randint(0, 4, shape).clip(0, 1)).astype(np.float32)}}


def _unit_rows(rng, shape):
    rows = rng.normal(0.0, 1.0, shape)
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def _mean_cosine_distance_case():
    shape = [BATCH, 3]
    return {"inputs": {"labels": ("float32", shape), "predictions": ("float32", shape),
                       "weights": ("float32", [BATCH, 1])},
            "metric": lambda tf, x: tf.metrics.mean_cosine_distance(
                x["labels"], x["predictions"], dim=1, weights=x["weights"]),
            "batch": lambda rng: {"labels": _unit_rows(rng, shape),
                                  "predictions": _unit_rows(rng, shape),
                                  "weights": _weights(rng, [BATCH, 1])}}


def _at_k_case(name, weighted, top_k_given=False, **kwargs):
    """A metric at k of rows of 2 labels (some repeated, some -1: outside the 5 classes)."""
    predictions = ("int64", [BATCH, 3]) if top_k_given else ("float32", [BATCH, 5])
    inputs = {"labels": ("int64", [BATCH, 2]), "predictions": predictions}
    if weighted:
        inputs["weights"] = ("float32", [BATCH])

    def metric(tf, x):
        return getattr(tf.metrics, name)(x["labels"], x["predictions"],
                                         weights=x.get("weights"), **kwargs)

    def batch(rng):
        values = {"labels": rng.randint(-1, 5, [BATCH, 2]).astype(np.int64),
                  "predictions": (np.argsort(rng.uniform(size=(BATCH, 5)))[:, :3]
                                  if top_k_given else _probabilities(rng, [BATCH, 5]))}
        if weighted:
            values["weights"] = _weights(rng, [BATCH])
        return values

    return {"inputs": inputs, "metric": metric, "batch": batch}


CASES = {
    "accuracy": _accuracy_case(False, [BATCH]),
    "accuracy_labels_with_trailing_1": _accuracy_case(False, [BATCH, 1]),
    "accuracy_weighted": _accuracy_case(True, [BATCH]),
    "auc": _auc_case(),
    "auc_weighted": _weighted_auc_case(),
    "auc_few_thresholds": _auc_case(num_thresholds=5),
    "auc_given_thresholds": _auc_case(thresholds=[0.7, 0.2, 0.5]),
    "auc_minoring": _auc_case(summation_method="minoring", num_thresholds=20),
    "auc_majoring": _auc_case(summation_method="majoring", num_thresholds=20),
    "auc_pr": _auc_case(curve="PR"),
    "auc_pr_careful_interpolation": _auc_case(curve="PR", summation_method="careful_interpolation"),
    "auc_pr_weighted_careful": _weighted_auc_case(curve="PR",
                                                  summation_method="careful_interpolation"),
    "mean": _mean_case(None),
    "mean_weighted": _mean_case([BATCH, 3]),
    "mean_weights_broadcast": _mean_case([BATCH, 1]),
    "mean_scalar_weight": _mean_case([]),
    "mean_absolute_error": _regression_case("mean_absolute_error", False),
    "mean_absolute_error_weighted": _regression_case("mean_absolute_error", True),
    "mean_squared_error": _regression_case("mean_squared_error", False),
    "mean_squared_error_weighted": _regression_case("mean_squared_error", True),
    "root_mean_squared_error": _regression_case("root_mean_squared_error", False),
    "root_mean_squared_error_weighted": _regression_case("root_mean_squared_error", True),
    "precision": _binary_case("precision", False),
    "precision_weighted": _binary_case("precision", True),
    "recall": _binary_case("recall", False),
    "recall_weighted": _binary_case("recall", True),
    "true_positives": _binary_case("true_positives", False),
    "false_positives_weighted": _binary_case("false_positives", True),
    "true_negatives": _binary_case("true_negatives", False),
    "false_negatives_weighted": _binary_case("false_negatives", True),
    "precision_at_thresholds": _threshold_case("precision_at_thresholds", False),
    "recall_at_thresholds_weighted": _threshold_case("recall_at_thresholds", True),
    "true_positives_at_thresholds": _threshold_case("true_positives_at_thresholds", False),
    "false_positives_at_thresholds": _threshold_case("false_positives_at_thresholds", True),
    "true_negatives_at_thresholds": _threshold_case("true_negatives_at_thresholds", False),
    "false_negatives_at_thresholds": _threshold_case("false_negatives_at_thresholds", True),
    "mean_iou": _class_case("mean_iou", False),
    "mean_iou_weighted": _class_case("mean_iou", True),
    "mean_per_class_accuracy": _class_case("mean_per_class_accuracy", False),
    "mean_per_class_accuracy_weighted": _class_case("mean_per_class_accuracy", True),
    "percentage_below": _percentage_below_case(),
    "mean_tensor": _mean_tensor_case(False),
    "mean_tensor_weighted": _mean_tensor_case(True),
    "mean_relative_error": _mean_relative_error_case(),
    "mean_cosine_distance_weighted": _mean_cosine_distance_case(),
    "sensitivity_at_specificity": _threshold_case("sensitivity_at_specificity", False, at=0.7),
    "sensitivity_at_specificity_weighted": _threshold_case(
        "sensitivity_at_specificity", True, at=0.4, num_thresholds=20),
    "specificity_at_sensitivity": _threshold_case("specificity_at_sensitivity", False, at=0.6),
    "specificity_at_sensitivity_weighted": _threshold_case(
        "specificity_at_sensitivity", True, at=0.5, num_thresholds=20),
    "precision_at_k": _at_k_case("precision_at_k", False, k=2),
    "precision_at_k_class_weighted": _at_k_case("precision_at_k", True, k=3, class_id=1),
    "sparse_precision_at_k": _at_k_case("sparse_precision_at_k", True, k=1),
    "recall_at_k": _at_k_case("recall_at_k", False, k=2),
    "recall_at_k_class_weighted": _at_k_case("recall_at_k", True, k=3, class_id=2),
    "precision_at_top_k_weighted": _at_k_case("precision_at_top_k", True, top_k_given=True),
    "recall_at_top_k": _at_k_case("recall_at_top_k", False, top_k_given=True, k=3),
    "average_precision_at_k": _at_k_case("average_precision_at_k", False, k=3),
    "sparse_average_precision_at_k_weighted": _at_k_case("sparse_average_precision_at_k",
                                                         True, k=2),
}


# Data printed by a failing tf.Assert: (values, their NumPy dtype, summarize).
ASSERT_DATA = [
    ([[1, 2], [3, 4]], "int32", None),
    ([[1, 2], [3, 4]], "int32", -1),
    ([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], "int64", 5),
    ([0.1, 1.0 / 3, -2.5e-8, 1e20], "float32", 4),
    ([0.1, 1.0 / 3], "float64", None),
    ([True, False, True, True], "bool", None),
    (["first", "second"], "bytes", None),
    (7, "int32", None),
    ([], "float32", None),
]


def assert_message(tf, values, dtype, summarize):
    """The line of the error a failing Assert on ("message", values) raises that says why."""
    with tf.Graph().as_default():
        value = tf.constant(values if dtype == "bytes" else np.array(values, dtype=dtype),
                            dtype=tf.string if dtype == "bytes" else None)
        check = tf.Assert(tf.constant(False), ["message", value], summarize=summarize)
        with tf.Session() as sess:
            try:
                sess.run(check)
            except tf.errors.InvalidArgumentError as e:
                return next(line for line in e.message.split("\n")
                            if line.startswith("assertion failed:"))
    raise AssertionError("the Assert did not fail")


def batches(name):
    """The case's batches, one per update step, always the same ones."""
    rng = np.random.RandomState(sorted(CASES).index(name) + 1)
    return [CASES[name]["batch"](rng) for _ in range(STEPS)]


def run_case(tf, name):
    """Builds the metric in a fresh graph, updates it STEPS times, resets it: what happened.

    Returns the names of its value, update op and variables, the value before
    any update, each update's result and the value after it, and the value
    after `tf.local_variables_initializer()` ran again.
    """
    case = CASES[name]
    with tf.Graph().as_default():
        inputs = {key: tf.placeholder(getattr(tf, dtype), shape, name=key)
                  for key, (dtype, shape) in case["inputs"].items()}
        value, update_op = case["metric"](tf, inputs)
        init = tf.local_variables_initializer()
        names = {"value": value.name, "update_op": update_op.name,
                 "local_variables": [v.name for v in tf.local_variables()],
                 "metric_variables": [v.name for v in tf.get_collection("metric_variables")],
                 "trainable_variables": [v.name for v in tf.trainable_variables()]}
        with tf.Session() as sess:
            sess.run(init)
            initial = sess.run(value)
            steps = []
            for batch in batches(name):
                feed = {inputs[key]: array for key, array in batch.items()}
                updated = sess.run(update_op, feed)
                steps.append({"update": _plain(updated), "value": _plain(sess.run(value))})
            sess.run(init)
            reset = sess.run(value)
    return {"names": names, "initial": _plain(initial), "steps": steps, "reset": _plain(reset)}


def _plain(array):
    """A value as JSON data: a float or a nested list of floats."""
    return np.asarray(array, dtype=np.float64).tolist()
