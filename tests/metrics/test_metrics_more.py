"""mean_tensor, mean_relative_error, mean_cosine_distance and the rates at a rate: values
against NumPy and the arguments they refuse (their names and values over several updates
are compared with TensorFlow's in test_metrics.py)."""

import numpy as np
import pytest

import minitf as tf


def _update_then_read(metric, feeds):
    value, update_op = metric
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for feed in feeds:
            sess.run(update_op, feed)
        return sess.run(value)


def test_mean_tensor_is_the_elementwise_weighted_mean_over_the_updates():
    rng = np.random.RandomState(0)
    values = tf.placeholder(tf.float32, [2, 3])
    weights = tf.placeholder(tf.float32, [2, 1])
    batches = [(rng.randn(2, 3), rng.uniform(0.5, 2.0, [2, 1])) for _ in range(3)]
    got = _update_then_read(tf.metrics.mean_tensor(values, weights),
                            [{values: v, weights: w} for v, w in batches])
    total = sum(v * w for v, w in batches)
    count = sum(np.broadcast_to(w, (2, 3)) for _, w in batches)
    np.testing.assert_allclose(got, total / count, rtol=1e-5)
    assert [v.name for v in tf.local_variables()] == ["mean/total_tensor:0",
                                                      "mean/count_tensor:0"]


def test_mean_relative_error_and_cosine_distance_against_numpy():
    rng = np.random.RandomState(1)
    labels, predictions = rng.randn(5, 3), rng.randn(5, 3)
    normalizer = np.where(rng.rand(5, 3) < 0.3, 0.0, rng.uniform(0.5, 2.0, (5, 3)))
    relative = _update_then_read(
        tf.metrics.mean_relative_error(tf.constant(labels, tf.float32),
                                       tf.constant(predictions, tf.float32),
                                       tf.constant(normalizer, tf.float32)), [{}])
    expected = np.where(normalizer == 0, 0.0,
                        np.abs(labels - predictions) / np.where(normalizer == 0, 1, normalizer))
    np.testing.assert_allclose(relative, expected.mean(), rtol=1e-5)
    unit_l = labels / np.linalg.norm(labels, axis=1, keepdims=True)
    unit_p = predictions / np.linalg.norm(predictions, axis=1, keepdims=True)
    distance = _update_then_read(
        tf.metrics.mean_cosine_distance(tf.constant(unit_l, tf.float32),
                                        tf.constant(unit_p, tf.float32), dim=1), [{}])
    np.testing.assert_allclose(distance, 1 - (unit_l * unit_p).sum(axis=1).mean(), rtol=1e-5)


def test_sensitivity_at_specificity_of_separable_scores_is_one():
    labels = tf.constant([0, 0, 0, 1, 1, 1])
    scores = tf.constant([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    sensitivity = _update_then_read(tf.metrics.sensitivity_at_specificity(labels, scores, 1.0),
                                    [{}])
    specificity = _update_then_read(tf.metrics.specificity_at_sensitivity(labels, scores, 1.0),
                                    [{}])
    np.testing.assert_allclose([sensitivity, specificity], [1.0, 1.0], rtol=1e-6)


@pytest.mark.parametrize("metric, argument", [
    (tf.metrics.sensitivity_at_specificity, "specificity"),
    (tf.metrics.specificity_at_sensitivity, "sensitivity")])
def test_a_rate_outside_zero_one_is_refused(metric, argument):
    with pytest.raises(ValueError, match="`%s` must be in the range \\[0, 1\\]." % argument):
        metric(tf.constant([0, 1]), tf.constant([0.2, 0.8]), 1.5)


def test_precision_and_recall_at_k_count_sets_against_numpy():
    # Row 0: top 2 are classes 3 and 1, labels {1}; row 1: top 2 are 0 and 2, labels {2, 4}.
    scores = tf.constant([[0.1, 0.8, 0.0, 0.9, 0.2], [0.9, 0.1, 0.8, 0.0, 0.3]])
    labels = tf.constant([[1, 1], [2, 4]], tf.int64)
    precision = _update_then_read(tf.metrics.precision_at_k(labels, scores, 2), [{}])
    recall = _update_then_read(tf.metrics.recall_at_k(labels, scores, 2), [{}])
    recall_2 = _update_then_read(tf.metrics.recall_at_k(labels, scores, 2, class_id=4), [{}])
    np.testing.assert_allclose([precision, recall, recall_2], [2 / 4, 2 / 3, 0.0])


def test_average_precision_at_k_leaves_out_labels_outside_the_classes():
    scores = tf.constant([[0.9, 0.1, 0.2, 0.8], [0.1, 0.2, 0.9, 0.3]])
    labels = tf.constant([[0, 7], [3, 1]], tf.int64)
    # Row 0: top 2 = (0, 3), relevant (1, 0), one relevant label: AP 1. Row 1: top 2 =
    # (2, 3), relevant (0, 1): precision 1/2 at rank 2, over 2 labels: AP 1/4.
    value = _update_then_read(tf.metrics.average_precision_at_k(labels, scores, 2), [{}])
    np.testing.assert_allclose(value, (1.0 + 0.25) / 2)


def test_metrics_at_k_refuse_what_they_cannot_count():
    scores = tf.constant([[0.9, 0.1, 0.2]])
    with pytest.raises(ValueError, match="Invalid k=0."):
        tf.metrics.average_precision_at_k(tf.constant([[0]], tf.int64), scores, 0)
    with pytest.raises(ValueError, match="Unexpected labels shape"):
        tf.metrics.precision_at_k(tf.constant([[[0]]], tf.int64), scores, 1)
    sparse_labels = tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [1, 2])
    with pytest.raises(NotImplementedError, match="take dense labels"):
        tf.metrics.recall_at_k(sparse_labels, scores, 1)
