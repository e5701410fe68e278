"""Conv1D, Conv2DTranspose, the separable convolutions and 1-D pooling: shapes, variable
names and values against NumPy loops."""

import numpy as np
import pytest

import minitf as tf


def _random(shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def _conv1d_reference(x, kernel, stride=1):
    """VALID cross-correlation of NWC `x` with WIO `kernel`."""
    width = kernel.shape[0]
    out_w = (x.shape[1] - width) // stride + 1
    return np.stack([np.tensordot(x[:, i * stride:i * stride + width], kernel,
                                  axes=([1, 2], [0, 1])) for i in range(out_w)], axis=1)


def _conv2d_transpose_reference(x, kernel, stride):
    """Each input pixel scatters kernel-weighted copies into the output (VALID padding)."""
    kh, kw, filters, _ = kernel.shape
    batch, h, w, _ = x.shape
    out = np.zeros((batch, (h - 1) * stride + kh, (w - 1) * stride + kw, filters))
    for i in range(h):
        for j in range(w):
            out[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :] += np.einsum(
                "bc,hwfc->bhwf", x[:, i, j, :], kernel)
    return out


def _depthwise_reference(x, depthwise_kernel):
    """VALID depthwise convolution of NHWC `x` by [kh, kw, in, multiplier]."""
    kh, kw, channels, multiplier = depthwise_kernel.shape
    out_h, out_w = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], out_h, out_w, channels * multiplier))
    for i in range(out_h):
        for j in range(out_w):
            window = x[:, i:i + kh, j:j + kw, :]
            out[:, i, j, :] = np.einsum("bhwc,hwcm->bcm", window, depthwise_kernel).reshape(
                x.shape[0], -1)
    return out


def test_conv1d_variables_and_values():
    x_value = _random((2, 7, 3))
    layer = tf.layers.Conv1D(4, 3, strides=2, bias_initializer=tf.constant_initializer(0.5))
    y = layer(tf.constant(x_value))
    assert [(v.name, v.shape.as_list()) for v in layer.weights] == [
        ("conv1d/kernel:0", [3, 3, 4]), ("conv1d/bias:0", [4])]
    assert y.shape.as_list() == [2, 3, 4] and y.op.name == "conv1d/BiasAdd"
    out, kernel = _run([y, layer.kernel])
    np.testing.assert_allclose(out, _conv1d_reference(x_value, kernel, 2) + 0.5,
                               rtol=1e-4, atol=1e-5)


def test_conv1d_channels_first_and_same_padding():
    x_value = _random((2, 3, 6), seed=1)                   # NCW
    y = tf.layers.conv1d(tf.constant(x_value), 2, 3, data_format="channels_first",
                         use_bias=False, name="c")
    same = tf.layers.conv1d(tf.constant(x_value.transpose(0, 2, 1)), 2, 3, padding="same")
    assert y.shape.as_list() == [2, 2, 4] and same.shape.as_list() == [2, 6, 2]
    out, kernel = _run([y, tf.global_variables()[0]])
    expected = _conv1d_reference(x_value.transpose(0, 2, 1), kernel).transpose(0, 2, 1)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_conv2d_transpose_variables_shapes_and_values():
    x_value = _random((2, 3, 4, 3), seed=2)
    layer = tf.layers.Conv2DTranspose(2, 3, strides=2)
    y = layer(tf.constant(x_value))
    assert [(v.name, v.shape.as_list()) for v in layer.weights] == [
        ("conv2d_transpose/kernel:0", [3, 3, 2, 3]), ("conv2d_transpose/bias:0", [2])]
    assert y.shape.as_list() == [2, 7, 9, 2]
    placeholder = tf.placeholder(tf.float32, [None, 3, 4, 3])
    same = tf.layers.conv2d_transpose(placeholder, 5, (2, 3), strides=2, padding="same")
    assert same.shape.as_list() == [None, 6, 8, 5]
    out, kernel = _run([y, layer.kernel])
    np.testing.assert_allclose(out, _conv2d_transpose_reference(x_value, kernel, 2),
                               rtol=1e-4, atol=1e-5)


def test_conv2d_transpose_needs_a_4d_input():
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        tf.layers.conv2d_transpose(tf.placeholder(tf.float32, [None, 4, 3]), 2, 3)


def test_separable_conv2d_variables_and_values():
    x_value = _random((2, 5, 5, 3), seed=3)
    layer = tf.layers.SeparableConv2D(4, 3, depth_multiplier=2, activation=tf.nn.relu)
    y = layer(tf.constant(x_value))
    assert [(v.name, v.shape.as_list()) for v in layer.weights] == [
        ("separable_conv2d/depthwise_kernel:0", [3, 3, 3, 2]),
        ("separable_conv2d/pointwise_kernel:0", [1, 1, 6, 4]),
        ("separable_conv2d/bias:0", [4])]
    assert y.shape.as_list() == [2, 3, 3, 4] and y.op.name == "separable_conv2d/Relu"
    out, depthwise, pointwise = _run([y, layer.depthwise_kernel, layer.pointwise_kernel])
    expected = np.maximum(_depthwise_reference(x_value, depthwise) @ pointwise[0, 0], 0)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_separable_conv1d_is_the_2d_one_over_a_height_of_one():
    x_value = _random((2, 6, 3), seed=4)
    y = tf.layers.separable_conv1d(tf.constant(x_value), 4, 3, depth_multiplier=2,
                                   use_bias=False)
    variables = tf.global_variables()
    assert [(v.name, v.shape.as_list()) for v in variables] == [
        ("separable_conv1d/depthwise_kernel:0", [3, 3, 2]),
        ("separable_conv1d/pointwise_kernel:0", [1, 6, 4])]
    assert y.shape.as_list() == [2, 4, 4]
    out, depthwise, pointwise = _run([y] + variables)
    expected = _depthwise_reference(x_value[:, None], depthwise[None])[:, 0] @ pointwise[0]
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_separable_conv_reuse_shares_the_kernels():
    x = tf.placeholder(tf.float32, [None, 5, 5, 2])
    tf.layers.separable_conv2d(x, 3, 3, name="sep")
    tf.layers.separable_conv2d(x, 3, 3, name="sep", reuse=True)
    assert len(tf.global_variables()) == 3


def test_gradients_reach_every_kernel():
    x = tf.constant(_random((1, 6, 6, 2), seed=5))
    y = tf.layers.separable_conv2d(tf.layers.conv2d_transpose(x, 2, 2, strides=2), 2, 3)
    y = tf.layers.conv1d(tf.reshape(y, [1, -1, 2]), 1, 3)
    grads = tf.gradients(tf.reduce_sum(y), tf.trainable_variables())
    assert len(grads) == 7 and all(g is not None for g in grads)
    values = _run(grads)
    assert all(np.all(np.isfinite(v)) and np.any(v != 0) for v in values)


def test_max_and_average_pooling1d_values():
    x_value = _random((2, 6, 3), seed=6)
    max_out = tf.layers.max_pooling1d(tf.constant(x_value), pool_size=2, strides=2)
    avg_layer = tf.layers.AveragePooling1D(3, strides=None)
    avg_out = avg_layer(tf.constant(x_value))
    first = tf.layers.average_pooling1d(tf.constant(x_value.transpose(0, 2, 1)), 2, 2,
                                        data_format="channels_first")
    assert max_out.shape.as_list() == [2, 3, 3] and avg_layer.strides == (3,)
    assert avg_layer.weights == []
    got = _run([max_out, avg_out, first])
    np.testing.assert_array_equal(got[0], x_value.reshape(2, 3, 2, 3).max(axis=2))
    np.testing.assert_allclose(got[1], x_value.reshape(2, 2, 3, 3).mean(axis=2), rtol=1e-6)
    np.testing.assert_allclose(got[2], x_value.reshape(2, 3, 2, 3).mean(axis=2)
                               .transpose(0, 2, 1), rtol=1e-6)


def test_pooling1d_needs_a_3d_input():
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=4"):
        tf.layers.max_pooling1d(tf.placeholder(tf.float32, [1, 4, 4, 1]), 2, 2)
