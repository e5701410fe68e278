"""tf.metrics: names, variables and values over several update steps, compared with TensorFlow.

The metrics and batches are those of `metrics_cases.py`; what TensorFlow
named and computed is in `data/metrics_reference.json` (recorded by
`scripts/record_metrics_reference.py`).
"""

import json
import pathlib

import numpy as np
import pytest

import metrics_cases
import minitf as tf

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" / "metrics_reference.json")
                       .read_text(encoding="utf-8"))
FLOAT32_ROUNDING = {"rtol": 1e-6, "atol": 1e-7}
# Their update_op returns the state (the confusion matrix, the per-class accuracies), not the value.
UPDATE_IS_NOT_THE_VALUE = ("mean_iou", "mean_per_class_accuracy")


@pytest.mark.parametrize("name", sorted(metrics_cases.CASES))
def test_names_and_values_over_several_updates_are_tensorflows(name):
    got, expected = metrics_cases.run_case(tf, name), REFERENCE["cases"][name]
    assert got["names"] == expected["names"]
    assert len(got["steps"]) == metrics_cases.STEPS
    for step, expected_step in zip(got["steps"], expected["steps"]):
        np.testing.assert_allclose(step["update"], expected_step["update"], **FLOAT32_ROUNDING)
        np.testing.assert_allclose(step["value"], expected_step["value"], **FLOAT32_ROUNDING)
        if not name.startswith(UPDATE_IS_NOT_THE_VALUE):
            np.testing.assert_allclose(step["update"], step["value"], **FLOAT32_ROUNDING)
    np.testing.assert_allclose(got["initial"], expected["initial"], **FLOAT32_ROUNDING)
    np.testing.assert_allclose(got["reset"], expected["initial"], **FLOAT32_ROUNDING)


def test_the_state_is_local_variables_reset_by_the_local_initializer():
    labels = tf.placeholder(tf.float32, [4])
    predictions = tf.placeholder(tf.float32, [4])
    auc, update = tf.metrics.auc(labels, predictions, num_thresholds=3)
    state = tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)
    assert [v.op.name for v in state] == ["auc/true_positives", "auc/false_negatives",
                                          "auc/true_negatives", "auc/false_positives"]
    assert tf.local_variables() == state
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    feed = {labels: [1, 0, 1, 0], predictions: [0.9, 0.1, 0.6, 0.7]}
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update, feed)
        assert sess.run(state[0]).tolist() == [2.0, 2.0, 0.0]   # true positives per threshold
        sess.run(tf.local_variables_initializer())
        assert sess.run(state[0]).tolist() == [0.0, 0.0, 0.0]


def test_metrics_join_the_collections_they_are_given():
    values = tf.placeholder(tf.float32, [3])
    mean, update = tf.metrics.mean(values, metrics_collections=["my_metrics"],
                                   updates_collections=[tf.GraphKeys.UPDATE_OPS])
    rmse, rmse_update = tf.metrics.root_mean_squared_error(
        values, values, metrics_collections=["my_metrics"],
        updates_collections=[tf.GraphKeys.UPDATE_OPS])
    assert tf.get_collection("my_metrics") == [mean, rmse]
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == [update, rmse_update]


def test_auc_of_predictions_outside_zero_one_fails_the_step():
    labels = tf.placeholder(tf.float32, [2])
    predictions = tf.placeholder(tf.float32, [2])
    _, update = tf.metrics.auc(labels, predictions)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[predictions must be in \[0, 1\]\] "
                                 r"\[Condition x <= y did not hold element-wise:\]"):
            sess.run(update, {labels: [1, 0], predictions: [0.5, 1.5]})
        assert sess.run(tf.local_variables()[0]).sum() == 0   # nothing was counted


def test_mean_iou_of_a_label_out_of_range_fails_the_step():
    labels = tf.placeholder(tf.int64, [3])
    predictions = tf.placeholder(tf.int64, [3])
    _, update = tf.metrics.mean_iou(labels, predictions, num_classes=2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound"):
            sess.run(update, {labels: [0, 1, 2], predictions: [0, 1, 1]})


@pytest.mark.parametrize("kwargs, message", [
    ({"curve": "ROC-PR"}, "curve must be either ROC or PR"),
    ({"summation_method": "simpson"}, "Invalid summation_method: simpson"),
])
def test_auc_refuses_an_unknown_curve_or_summation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.metrics.auc(tf.constant([1.0]), tf.constant([0.5]), **kwargs)


def test_weights_that_cannot_broadcast_are_refused_while_building():
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.metrics.mean(tf.ones([4, 3]), weights=tf.ones([4, 2]))
    with pytest.raises(ValueError, match="Shapes .* are incompatible|not compatible"):
        tf.metrics.accuracy(tf.ones([4]), tf.ones([5]))


def numpy_auc(labels, predictions, num_thresholds=200):
    """The area TensorFlow's trapezoidal ROC AUC computes, from its definition."""
    kepsilon, epsilon = 1e-7, 1e-6
    thresholds = ([-kepsilon] + [(i + 1) / (num_thresholds - 1)
                                 for i in range(num_thresholds - 2)] + [1 + kepsilon])
    thresholds = np.array(thresholds, dtype=np.float32)[:, None]
    positive = predictions[None, :] > thresholds
    tp = (positive & labels).sum(1)
    fp = (positive & ~labels).sum(1)
    fn = (~positive & labels).sum(1)
    tn = (~positive & ~labels).sum(1)
    recall = (tp + epsilon) / (tp + fn + epsilon)
    fp_rate = fp / (fp + tn + epsilon)
    return np.sum((fp_rate[:-1] - fp_rate[1:]) * (recall[:-1] + recall[1:]) / 2)


def test_seed_listing_evaluates_a_reimported_graph_with_auc():
    """Seed 004: import a GraphDef, find loss, label and pred by name, add tf.metrics.auc."""
    rng = np.random.RandomState(4)
    features = rng.normal(size=(64, 3)).astype(np.float32)
    targets = (features @ [1.0, -2.0, 0.5] + rng.normal(size=64) > 0).astype(np.float32)
    with tf.Graph().as_default() as training_graph:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None], name="label")
        w = tf.constant([[0.8], [-1.5], [0.2]], name="w")
        logits = tf.reshape(tf.matmul(x, w), [-1])
        tf.sigmoid(logits, name="pred")
        tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits),
                       name="loss")
    graph_def = tf.GraphDef.FromString(training_graph.as_graph_def().SerializeToString())
    loss_name, label_name, pred_name = "loss:0", "label:0", "pred:0"

    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
        loss = graph.get_tensor_by_name(loss_name)
        label = graph.get_tensor_by_name(label_name)
        pred = graph.get_tensor_by_name(pred_name)
        _, auc = tf.metrics.auc(label > 0.5, pred)
        sess = tf.Session(graph=graph)
        sess.run(tf.local_variables_initializer())
    x_in = graph.get_tensor_by_name("x:0")
    feed = {x_in: features, label: targets}
    auc_value, loss_value = sess.run([auc, loss], feed)
    sess.close()
    probabilities = 1 / (1 + np.exp(-(features @ np.array([0.8, -1.5, 0.2], np.float32))))
    assert auc_value == pytest.approx(numpy_auc(targets > 0.5, probabilities), rel=1e-5)
    assert 0.8 < auc_value <= 1.0 and loss_value > 0
