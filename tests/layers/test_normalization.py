"""BatchNormalization: batch statistics while training, moving averages at inference,
and the moving-average updates that run through UPDATE_OPS."""

import numpy as np
import pytest

import minitf as tf

EPSILON = 1e-3


def _normalize(x, mean, variance, gamma=1.0, beta=0.0, epsilon=EPSILON):
    return gamma * (x - mean) / np.sqrt(variance + epsilon) + beta


def _batch(shape=(8, 3), seed=0):
    return (np.random.RandomState(seed).randn(*shape) * 2 + 1).astype(np.float32)


def test_variables_and_collections():
    layer = tf.layers.BatchNormalization()
    layer(tf.placeholder(tf.float32, [None, 3]), training=True)
    assert [v.name for v in tf.global_variables()] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0",
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert tf.trainable_variables() == [layer.gamma, layer.beta]
    assert layer.non_trainable_weights == [layer.moving_mean, layer.moving_variance]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [(op.name, op.type) for op in updates] == [
        ("batch_normalization/AssignMovingAvg", "AssignSub"),
        ("batch_normalization/AssignMovingAvg_1", "AssignSub")]
    assert layer.updates == updates


def test_training_normalizes_with_the_batch_moments():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.layers.batch_normalization(x, training=True,
                                      gamma_initializer=tf.constant_initializer(2.0),
                                      beta_initializer=tf.constant_initializer(0.5))
    assert y.op.name == "batch_normalization/batchnorm/add_1"
    x_value = _batch()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y, {x: x_value})
    expected = _normalize(x_value, x_value.mean(0), x_value.var(0), gamma=2.0, beta=0.5)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_update_ops_move_the_averages_towards_the_batch_moments():
    x = tf.placeholder(tf.float32, [None, 3])
    layer = tf.layers.BatchNormalization(momentum=0.9)
    layer(x, training=True)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    x_value = _batch()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(update_ops, {x: x_value})
        mean_1, variance_1 = sess.run([layer.moving_mean, layer.moving_variance])
        sess.run(update_ops, {x: x_value})
        mean_2, variance_2 = sess.run([layer.moving_mean, layer.moving_variance])
    batch_mean, batch_variance = x_value.mean(0), x_value.var(0)
    np.testing.assert_allclose(mean_1, 0.1 * batch_mean, rtol=1e-5)
    np.testing.assert_allclose(variance_1, 0.9 * 1.0 + 0.1 * batch_variance, rtol=1e-5)
    np.testing.assert_allclose(mean_2, 0.9 * mean_1 + 0.1 * batch_mean, rtol=1e-5)
    np.testing.assert_allclose(variance_2, 0.9 * variance_1 + 0.1 * batch_variance, rtol=1e-5)


def test_inference_uses_the_moving_averages_and_adds_no_updates():
    x = tf.placeholder(tf.float32, [None, 3])
    layer = tf.layers.BatchNormalization(
        moving_mean_initializer=tf.constant_initializer(1.0),
        moving_variance_initializer=tf.constant_initializer(4.0))
    y = layer(x)                                       # training=False by default
    assert layer.updates == [] and tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    assert "batch_normalization/moments/mean" not in [
        op.name for op in tf.get_default_graph().get_operations()]
    x_value = _batch()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y, {x: x_value})
    np.testing.assert_allclose(out, _normalize(x_value, 1.0, 4.0), rtol=1e-5, atol=1e-6)


def test_a_training_tensor_selects_the_statistics_and_the_updates_per_run():
    x = tf.placeholder(tf.float32, [None, 3])
    training = tf.placeholder(tf.bool, [])
    layer = tf.layers.BatchNormalization(momentum=0.5)
    y = layer(x, training=training)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(update_ops) == 2
    x_value = _batch()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, _ = sess.run([y, update_ops], {x: x_value, training: False})
        np.testing.assert_allclose(out, _normalize(x_value, 0.0, 1.0), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(sess.run(layer.moving_mean), np.zeros(3))

        out, _ = sess.run([y, update_ops], {x: x_value, training: True})
        np.testing.assert_allclose(out, _normalize(x_value, x_value.mean(0), x_value.var(0)),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(sess.run(layer.moving_mean), 0.5 * x_value.mean(0),
                                   rtol=1e-5)


def test_axis_1_of_an_nchw_input():
    x_value = _batch((4, 3, 2, 2), seed=1)
    x = tf.constant(x_value)
    layer = tf.layers.BatchNormalization(axis=1, center=False)
    y = layer(x, training=True)
    assert layer.gamma.shape.as_list() == [3] and layer.beta is None
    assert layer.axis == [1]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y)
    mean = x_value.mean(axis=(0, 2, 3), keepdims=True)
    variance = x_value.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(out, _normalize(x_value, mean, variance), rtol=1e-4, atol=1e-5)


def test_several_axes_keep_one_parameter_per_position():
    x_value = _batch((5, 3, 2), seed=2)
    layer = tf.layers.BatchNormalization(axis=[1, 2])
    y = layer(tf.constant(x_value), training=True)
    assert layer.moving_mean.shape.as_list() == [1, 3, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y)
    expected = _normalize(x_value, x_value.mean(0, keepdims=True), x_value.var(0, keepdims=True))
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_a_non_trainable_layer_reports_no_updates():
    # As in TensorFlow: a layer made with trainable=False adds nothing to UPDATE_OPS.
    tf.layers.batch_normalization(tf.placeholder(tf.float32, [None, 3]), training=True,
                                  trainable=False)
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    assert tf.trainable_variables() == []


def test_bad_axes_are_rejected():
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match="Invalid axis: 2"):
        tf.layers.batch_normalization(x, axis=2)
    with pytest.raises(ValueError, match="Duplicate axis"):
        tf.layers.batch_normalization(x, axis=[1, -1])
    with pytest.raises(ValueError, match="Input has undefined `axis` dimension"):
        tf.layers.batch_normalization(tf.placeholder(tf.float32, [3, None]))
    with pytest.raises(TypeError, match="axis must be int or list"):
        tf.layers.BatchNormalization(axis="1")


def test_a_training_tensor_builds_tensorflows_conds():
    # TF's smart_cond: the statistics and each moving-average update are a tf.cond, and
    # the updates in UPDATE_OPS are their Merges (the AssignSub runs only when training).
    x = tf.placeholder(tf.float32, [None, 3])
    training = tf.placeholder(tf.bool, [])
    layer = tf.layers.BatchNormalization()
    layer(x, training=training)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [(u.name, u.type) for u in updates] == [("batch_normalization/cond_2/Merge", "Merge"),
                                                  ("batch_normalization/cond_3/Merge", "Merge")]
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("batch_normalization/cond_2/AssignMovingAvg").type == \
        "AssignSub"
    assert graph.get_operation_by_name("batch_normalization/cond/Merge").type == "Merge"
