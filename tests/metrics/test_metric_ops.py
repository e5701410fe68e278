"""The ops the metrics are built from: div_no_nan, diag_part, Assert and the checks, confusion_matrix."""

import json
import pathlib

import numpy as np
import pytest

import metrics_cases
import minitf as tf

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" / "metrics_reference.json")
                       .read_text(encoding="utf-8"))


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_div_no_nan_is_zero_where_the_denominator_is():
    x = tf.constant([[1.0, np.nan], [-6.0, 0.0]], tf.float32)
    y = tf.constant([0.0, 2.0], tf.float32)
    result = tf.div_no_nan(x, y)
    assert result.op.type == "DivNoNan" and result.shape.as_list() == [2, 2]
    np.testing.assert_array_equal(run(result), [[0.0, np.nan], [0.0, 0.0]])
    dx, dy = tf.gradients(tf.reduce_sum(result), [x, y])
    np.testing.assert_array_equal(run(dx), [[0.0, 0.5], [0.0, 0.5]])
    with pytest.raises(TypeError):
        tf.div_no_nan(tf.constant([1, 2]), tf.constant([1, 0]))   # integers have no NaN


def test_diag_and_diag_part_undo_each_other():
    diagonal = np.arange(6, dtype=np.float32).reshape(2, 3)
    square = tf.diag(diagonal)
    assert square.shape.as_list() == [2, 3, 2, 3]
    full = run(square)
    assert full[1, 2, 1, 2] == 5.0 and full.sum() == diagonal.sum()
    np.testing.assert_array_equal(run(tf.diag_part(square)), diagonal)
    np.testing.assert_array_equal(run(tf.diag_part(np.arange(9.0).reshape(3, 3))), [0, 4, 8])


def test_diag_part_wants_an_even_rank_of_matching_halves():
    with pytest.raises(ValueError, match="Input must have even and non-zero rank, input rank is 3"):
        tf.diag_part(tf.ones([2, 2, 2]))
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        tf.diag_part(tf.ones([2, 3]))
    unknown = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Invalid shape \[2,3\]: dimensions 0 and 1 do not match"):
        run(tf.diag_part(unknown), {unknown: np.ones((2, 3))})


@pytest.mark.parametrize("index", range(len(metrics_cases.ASSERT_DATA)))
def test_a_failing_assert_prints_its_data_as_tensorflow_does(index):
    message = metrics_cases.assert_message(tf, *metrics_cases.ASSERT_DATA[index])
    assert message == REFERENCE["assert_messages"][index]


def test_a_passing_assert_lets_its_dependents_run():
    x = tf.placeholder(tf.float32, [3])
    with tf.control_dependencies([tf.assert_non_negative(x, message="x must be >= 0")]):
        doubled = x * 2
    np.testing.assert_array_equal(run(doubled, {x: [0.0, 1.0, 2.0]}), [0.0, 2.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"assertion failed: \[x must be >= 0\] \[Condition x >= 0 did not "
                             r"hold element-wise:\] \[x \(Placeholder:0\) = \] \[0 -1 2\]"):
        run(doubled, {x: [0.0, -1.0, 2.0]})


def test_checks_decided_while_building():
    with pytest.raises(TypeError, match="Const:0 must be of type <dtype: 'bool'>"):
        tf.assert_type(tf.constant([1.0]), tf.bool)
    assert tf.assert_type(tf.constant([True]), tf.bool).type == "NoOp"
    with pytest.raises(ValueError, match=r"must have rank in \(0, 1\).  Received rank 2"):
        tf.assert_rank_in(tf.ones([2, 2]), (0, 1))
    assert tf.assert_rank_in(tf.ones([2]), (0, 1)).type == "NoOp"
    unknown = tf.placeholder(tf.float32)
    check = tf.assert_rank_in(unknown, (0, 1))
    assert check.type == "Assert"
    with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank in"):
        run(check, {unknown: np.ones((2, 2))})


def test_confusion_matrix_counts_and_weighs_pairs():
    labels = [0, 1, 2, 2, 1]
    predictions = [0, 2, 2, 1, 2]
    counts = run(tf.confusion_matrix(labels, predictions))
    np.testing.assert_array_equal(counts, [[1, 0, 0], [0, 0, 2], [0, 1, 1]])
    weighted = tf.confusion_matrix(labels, predictions, num_classes=4,
                                   weights=[1.0, 2.0, 3.0, 4.0, 5.0], dtype=tf.float32)
    assert weighted.dtype == tf.float32
    np.testing.assert_array_equal(run(weighted)[1:3, 1:3], [[0.0, 7.0], [4.0, 3.0]])
    squeezed = tf.confusion_matrix(tf.constant([[0], [1]]), tf.constant([1, 1]), num_classes=2)
    np.testing.assert_array_equal(run(squeezed), [[0, 1], [0, 1]])


@pytest.mark.parametrize("labels, predictions, message", [
    ([0, -1], [0, 0], "`labels` contains negative values"),
    ([0, 1], [0, 3], "`predictions` out of bound"),
])
def test_confusion_matrix_checks_its_classes(labels, predictions, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        run(tf.confusion_matrix(labels, predictions, num_classes=3))


def test_ranks_known_only_at_run_time_are_squeezed_in_a_cond():
    labels = tf.placeholder(tf.int32, None, name="labels")
    predictions = tf.placeholder(tf.int32, None, name="predictions")
    counts = tf.confusion_matrix(labels, predictions, num_classes=2)
    assert "Switch" in {op.type for op in tf.get_default_graph().get_operations()}
    for label_rows, prediction_rows in [([[0], [1]], [1, 1]), ([0, 1], [[1], [1]]),
                                        ([0, 1], [1, 1])]:
        np.testing.assert_array_equal(
            run(counts, {labels: label_rows, predictions: prediction_rows}), [[0, 1], [0, 1]])


def test_weights_of_a_rank_known_only_at_run_time_are_fitted_and_checked():
    values = tf.placeholder(tf.float32, [3], name="values")
    weights = tf.placeholder(tf.float32, None, name="weights")
    mean, update = tf.metrics.mean(values, weights)
    feed = {values: [1.0, 2.0, 4.0]}
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for fitting in ([[1.0], [0.0], [1.0]], [1.0, 0.0, 1.0], 2.0):  # squeezed, kept, scalar
            sess.run(update, {**feed, weights: fitting})
        np.testing.assert_allclose(sess.run(mean), (5.0 + 5.0 + 14.0) / (2.0 + 2.0 + 6.0))
        for wrong in ([1.0, 0.0], [[[1.0], [0.0], [1.0]]]):  # a dimension, then the rank
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="weights can not be broadcast to values"):
                sess.run(update, {**feed, weights: wrong})
