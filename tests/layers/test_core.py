"""Dense, Dropout and Flatten: values against NumPy, shapes, and the training flag."""

import numpy as np
import pytest

import minitf as tf


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict)


def _relu(a):
    return np.maximum(a, 0)


# --- Dense ---------------------------------------------------------------------------------

def test_dense_with_activation_matches_numpy():
    x = tf.placeholder(tf.float32, [None, 3])
    layer = tf.layers.Dense(4, activation=tf.nn.relu,
                            bias_initializer=tf.constant_initializer(0.5))
    y = layer(x)
    x_value = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    out, kernel, bias = _run([y, layer.kernel, layer.bias], {x: x_value})
    assert kernel.shape == (3, 4) and np.all(bias == 0.5)
    np.testing.assert_allclose(out, _relu(x_value @ kernel + bias), rtol=1e-5, atol=1e-6)


def test_dense_kernel_defaults_to_glorot_uniform_and_bias_to_zeros():
    layer = tf.layers.Dense(40)
    layer(tf.placeholder(tf.float32, [None, 60]))
    kernel, bias = _run([layer.kernel, layer.bias])
    limit = np.sqrt(6.0 / (60 + 40))
    assert np.all(np.abs(kernel) <= limit) and kernel.std() > limit / 3
    assert np.all(bias == 0)


def test_dense_without_bias_and_with_a_given_initializer():
    x = tf.constant([[1.0, 2.0, 3.0]])
    layer = tf.layers.Dense(2, use_bias=False, kernel_initializer=tf.ones_initializer())
    y = layer(x)
    assert layer.bias is None and layer.weights == [layer.kernel]
    assert y.op.type == "MatMul"
    np.testing.assert_allclose(_run(y), [[6.0, 6.0]])


def test_dense_on_a_rank_3_input_multiplies_along_the_last_axis():
    x = tf.placeholder(tf.float32, [2, 5, 3])
    layer = tf.layers.Dense(4, bias_initializer=tf.constant_initializer(0.1))
    y = layer(x)
    assert y.shape.as_list() == [2, 5, 4]
    assert "dense/Tensordot/MatMul" in [op.name for op in tf.get_default_graph().get_operations()]
    x_value = np.random.RandomState(1).randn(2, 5, 3).astype(np.float32)
    out, kernel = _run([y, layer.kernel], {x: x_value})
    np.testing.assert_allclose(out, np.einsum("btc,cu->btu", x_value, kernel) + 0.1,
                               rtol=1e-5, atol=1e-6)


def test_dense_on_a_rank_3_input_with_unknown_leading_dimensions():
    x = tf.placeholder(tf.float32, [None, None, 3])
    layer = tf.layers.Dense(2)
    y = layer(x)
    assert y.shape.as_list() == [None, None, 2]
    x_value = np.random.RandomState(2).randn(4, 6, 3).astype(np.float32)
    out, kernel = _run([y, layer.kernel], {x: x_value})
    assert out.shape == (4, 6, 2)
    np.testing.assert_allclose(out, x_value @ kernel, rtol=1e-5, atol=1e-6)


def test_dense_keeps_its_constraints_on_the_variables():
    def clip(w):
        return tf.clip_by_value(w, -0.1, 0.1)
    layer = tf.layers.Dense(2, kernel_constraint=clip)
    layer(tf.placeholder(tf.float32, [None, 3]))
    assert layer.kernel.constraint is clip and layer.bias.constraint is None


def test_dense_output_shape():
    layer = tf.layers.Dense(7)
    assert layer.compute_output_shape([None, 5, 3]).as_list() == [None, 5, 7]


# --- Dropout -------------------------------------------------------------------------------

def test_dropout_is_the_identity_when_not_training():
    x = tf.constant(np.ones((4, 5), np.float32))
    y = tf.layers.dropout(x, rate=0.5)                # training=False by default
    assert y.op.type == "Identity" and y.op.name == "dropout/Identity"
    np.testing.assert_array_equal(_run(y), np.ones((4, 5)))


def test_dropout_while_training_zeroes_some_and_scales_the_rest():
    x = tf.constant(np.ones((100, 50), np.float32))
    out = _run(tf.layers.dropout(x, rate=0.25, training=True, seed=3))
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.75, rtol=1e-6)
    assert 0.70 < kept.mean() < 0.80


def test_dropout_noise_shape_with_none_takes_the_input_size():
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.layers.Dropout(0.5, noise_shape=[None, 1], seed=1)(x, training=True)
    out = _run(y, {x: np.ones((40, 6), np.float32)})
    # One decision per row: each row is all zeros or all 2.0.
    assert set(np.unique(out.std(axis=1))) == {0.0}
    assert 0 < (out[:, 0] == 0).sum() < 40


def test_dropout_with_a_training_tensor_decides_per_run():
    x = tf.constant(np.ones((50, 40), np.float32))
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.dropout(x, rate=0.5, training=training, seed=4)
    assert (y.op.name, y.op.type) == ("dropout/cond/Merge", "Merge")  # TF's tf.cond
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {training: False}), np.ones((50, 40)))
        trained = sess.run(y, {training: True})
    assert set(np.unique(trained)) == {0.0, 2.0}


def test_dropout_rejects_a_non_bool_training_tensor():
    with pytest.raises(TypeError, match="`training` must be a Python bool or a bool tensor"):
        tf.layers.dropout(tf.constant([1.0]), training=tf.constant(1.0))


# --- Flatten -------------------------------------------------------------------------------

def test_flatten_keeps_the_batch_dimension():
    x = tf.placeholder(tf.float32, [None, 2, 3, 4])
    y = tf.layers.flatten(x)
    assert y.shape.as_list() == [None, 24] and y.op.name == "flatten/Reshape"
    x_value = np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4)
    np.testing.assert_array_equal(_run(y, {x: x_value}), x_value.reshape(2, 24))


def test_flatten_with_unknown_inner_dimensions():
    x = tf.placeholder(tf.float32, [None, None, 3])
    y = tf.layers.flatten(x)
    assert y.shape.as_list() == [None, None]
    x_value = np.arange(30, dtype=np.float32).reshape(2, 5, 3)
    np.testing.assert_array_equal(_run(y, {x: x_value}), x_value.reshape(2, 15))


def test_flatten_channels_first_flattens_in_channels_last_order():
    x_value = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)   # NCHW
    y = tf.layers.flatten(tf.constant(x_value), data_format="channels_first")
    np.testing.assert_array_equal(_run(y), x_value.transpose(0, 2, 3, 1).reshape(2, 12))


def test_flatten_rejects_a_vector_and_a_bad_data_format():
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        tf.layers.flatten(tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="The `data_format` argument must be one of"):
        tf.layers.Flatten(data_format="NHWC")


def test_dropout_training_none_means_inference():
    y = tf.layers.Dropout(0.5)(tf.constant([1.0, 2.0]), training=None)
    assert y.op.type == "Identity"
