"""tf.nn's other convolutions and poolings: 1-D, depthwise, separable, dilated, by rank.

Each is checked against a direct NumPy definition on random shapes
(hypothesis), and every error at build time and at run time. The values
and node names TensorFlow itself gives are checked in `test_nn_reference.py`.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitf as tf
from minitf.ops import nn_ops

SETTINGS = settings(max_examples=15, deadline=None)


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _np_depthwise_valid(x, w, stride, dilation):
    """out[n, i, j, c * M + m] = sum x[n, i*s + a*d, j*s + b*d, c] * w[a, b, c, m]."""
    kh, kw, channels, multiplier = w.shape
    span_h, span_w = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    out_h = (x.shape[1] - span_h) // stride + 1
    out_w = (x.shape[2] - span_w) // stride + 1
    out = np.zeros((x.shape[0], out_h, out_w, channels, multiplier))
    for a in range(kh):
        for b in range(kw):
            rows = x[:, a * dilation:a * dilation + stride * (out_h - 1) + 1:stride,
                     b * dilation:b * dilation + stride * (out_w - 1) + 1:stride, :]
            out += rows[..., None] * w[a, b]
    return out.reshape(out.shape[:3] + (channels * multiplier,))


@SETTINGS
@given(data=st.data())
def test_depthwise_conv2d_matches_its_definition(data):
    kh, kw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    stride, dilation = data.draw(st.sampled_from([(1, 1), (2, 1), (1, 2)]))
    channels, multiplier = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2))
    height = data.draw(st.integers((kh - 1) * dilation + 1, 7))
    width = data.draw(st.integers((kw - 1) * dilation + 1, 7))
    rng = np.random.RandomState(data.draw(st.integers(0, 99)))
    x = rng.standard_normal((2, height, width, channels))
    w = rng.standard_normal((kh, kw, channels, multiplier))
    y = tf.nn.depthwise_conv2d(x, w, [1, stride, stride, 1], "VALID", rate=[dilation] * 2)
    np.testing.assert_allclose(_run(y), _np_depthwise_valid(x, w, stride, dilation),
                               rtol=1e-10, atol=1e-10)


def test_separable_conv2d_is_depthwise_then_pointwise():
    rng = np.random.RandomState(0)
    x, w, p = (rng.standard_normal(s) for s in ([1, 4, 4, 2], [2, 2, 2, 3], [1, 1, 6, 5]))
    expected = _np_depthwise_valid(x, w, 1, 1) @ p[0, 0]
    np.testing.assert_allclose(_run(tf.nn.separable_conv2d(x, w, p, [1, 1, 1, 1], "VALID")),
                               expected, rtol=1e-10)


@SETTINGS
@given(width=st.integers(3, 9), stride=st.integers(1, 3), seed=st.integers(0, 99))
def test_conv1d_matches_a_correlation_and_its_transpose_is_its_gradient(width, stride, seed):
    rng = np.random.RandomState(seed)
    x, w = rng.standard_normal((2, width, 3)), rng.standard_normal((3, 3, 2))
    y = tf.nn.conv1d(x, w, stride, "VALID")
    out_w = (width - 3) // stride + 1
    expected = np.stack([np.einsum("nkc,kcd->nd", x[:, i * stride:i * stride + 3], w)
                         for i in range(out_w)], axis=1)
    np.testing.assert_allclose(_run(y), expected, rtol=1e-10)
    dy = rng.standard_normal((2, out_w, 2))
    transpose = tf.nn.conv1d_transpose(dy, w, [2, width, 3], stride, "VALID")
    x_t = tf.constant(x)
    gradient = tf.gradients(tf.nn.conv1d(x_t, w, stride, "VALID"), x_t, grad_ys=dy)[0]
    np.testing.assert_allclose(*_run([transpose, gradient]), rtol=1e-10)


@pytest.mark.parametrize("pool, reduce", [(tf.nn.max_pool1d, np.max),
                                          (tf.nn.avg_pool1d, np.mean)])
def test_1d_pooling_matches_numpy_windows(pool, reduce):
    x = np.random.RandomState(1).standard_normal((2, 7, 3))
    windows = np.stack([x[:, i:i + 3] for i in range(0, 5, 2)], axis=1)
    np.testing.assert_allclose(_run(pool(x, 3, 2, "VALID")), reduce(windows, axis=2))
    np.testing.assert_allclose(_run(tf.nn.pool(x, [3], "MAX" if reduce is np.max else "AVG",
                                               "VALID", strides=[2])), reduce(windows, axis=2))


def test_pool_and_convolution_by_rank():
    assert tf.nn.max_pool_v2(tf.zeros([1, 6, 2]), 2, 2, "VALID").shape.as_list() == [1, 3, 2]
    assert tf.nn.avg_pool_v2(tf.zeros([1, 6, 4, 2]), 2, 2, "VALID").shape.as_list() == [
        1, 3, 2, 2]
    assert tf.nn.convolution(tf.zeros([1, 5, 2]), tf.zeros([3, 2, 4]), "SAME").shape.as_list() \
        == [1, 5, 4]
    assert tf.nn.depthwise_conv2d_backprop_input is tf.nn.depthwise_conv2d_native_backprop_input
    volume, kernel = tf.zeros([1, 4, 6, 2, 3]), tf.zeros([2, 2, 2, 3, 5])
    assert tf.nn.convolution(volume, kernel, "SAME", strides=[1, 2, 1]).op.type == "Conv3D"
    assert tf.nn.conv_transpose(tf.zeros([1, 4, 6, 2, 5]), kernel, [1, 4, 6, 2, 3], 1).op.type \
        == "Conv3DBackpropInputV2"
    assert tf.nn.max_pool_v2(volume, 2, 2, "VALID").shape.as_list() == [1, 2, 3, 1, 3]
    assert tf.nn.avg_pool_v2(volume, 2, 1, "VALID").op.type == "AvgPool3D"
    assert tf.nn.pool(volume, [2, 3, 2], "MAX", "SAME").shape.as_list() == [1, 4, 6, 2, 3]


@pytest.mark.parametrize("build, error, message", [
    (lambda: tf.nn.depthwise_conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 2, 1]),
                                    [1, 1, 1, 1], "SAME"), ValueError,
     "Dimensions must be equal, but are 3 and 2"),
    (lambda: tf.nn.depthwise_conv2d(tf.zeros([1, 4, 4]), tf.zeros([2, 2, 4, 1]),
                                    [1, 1, 1, 1], "SAME"), ValueError,
     "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.depthwise_conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]),
                                    [1, 2, 2, 1], "SAME", rate=[2, 2]), ValueError,
     "strides > 1 not supported in conjunction with dilation_rate > 1"),
    (lambda: tf.nn.separable_conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]),
                                    tf.zeros([2, 1, 1, 1]), [1, 1, 1, 1], "SAME"), ValueError,
     "are not compatible"),
    (lambda: tf.nn.conv1d(tf.zeros([1, 4, 1]), tf.zeros([2, 1, 1]), 1, "SAME",
                          data_format="NHCW"), ValueError, "data_format must be"),
    (lambda: tf.nn.pool(tf.zeros([1, 4, 4, 4, 1]), [2, 2, 2], "SUM", "SAME"), ValueError,
     "3-D SUM pooling is not supported"),
    (lambda: tf.nn.pool(tf.zeros([1, 4, 1]), [2], "MAX", "VALID", dilation_rate=[2]),
     NotImplementedError, "minitf pools without dilation"),
    (lambda: tf.nn.max_pool_v2(tf.zeros([1, 2, 2, 2, 2, 1]), 2, 2, "SAME"), ValueError,
     "rank 3, 4 or 5"),
    (lambda: tf.nn.max_pool_with_argmax(tf.zeros([1, 4, 4, 1]), 2, 2, "SAME",
                                        data_format="NCHW"), ValueError,
     "Data formats other than 'NHWC' are not yet supported"),
    (lambda: tf.nn.max_pool_with_argmax(tf.zeros([4, 4, 1]), 2, 2, "SAME"), ValueError,
     "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.dilation2d(tf.zeros([1, 4, 4, 2]), tf.zeros([2, 2, 3]), [1, 1, 1, 1],
                              [1, 1, 1, 1], "SAME"), ValueError,
     "Dimensions must be equal, but are 2 and 3"),
    (lambda: tf.nn.dilation2d(tf.zeros([1, 4, 4, 2]), tf.zeros([2, 2, 2]), [1, 1, 1, 2],
                              [1, 1, 1, 1], "SAME"), ValueError,
     "strides and rates only in the spatial dimensions"),
])
def test_build_time_errors(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_run_time_errors_name_the_node():
    x, w = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    y = tf.nn.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="same depth: 3 vs 2") as raised:
        _run(y, {x: np.ones((1, 3, 3, 3)), w: np.ones((2, 2, 2, 1))})
    assert y.op.name in str(raised.value)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Computed output size would be "
                       "negative"):
        _run(y, {x: np.ones((1, 1, 3, 2)), w: np.ones((2, 2, 2, 1))})


def test_max_pool_with_argmax_points_at_each_maximum_and_rejects_a_bad_argmax():
    x = np.random.RandomState(3).standard_normal((2, 4, 5, 3))
    output, argmax = _run(tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    np.testing.assert_array_equal(np.take_along_axis(x.reshape(2, -1), argmax.reshape(2, -1),
                                                     1).reshape(output.shape), output)
    grad = nn_ops.max_pool_grad_with_argmax(x, np.ones_like(output), argmax + 1000,
                                            [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid argmax") as raised:
        _run(grad)
    assert grad.op.name in str(raised.value)


def _np_dilation_valid(x, f):
    kh, kw, _ = f.shape
    out_h, out_w = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    return np.max([x[:, i:i + out_h, j:j + out_w, :] + f[i, j]
                   for i in range(kh) for j in range(kw)], axis=0)


def test_dilation_and_erosion_match_their_definitions_and_errors_name_the_node():
    rng = np.random.RandomState(4)
    x, f = rng.standard_normal((2, 5, 6, 3)), rng.standard_normal((2, 3, 3))
    strides = rates = [1, 1, 1, 1]
    np.testing.assert_allclose(_run(tf.nn.dilation2d(x, f, strides, rates, "VALID")),
                               _np_dilation_valid(x, f))
    np.testing.assert_allclose(_run(tf.nn.erosion2d(x, f, strides, rates, "VALID")),
                               -_np_dilation_valid(-x, f[::-1, ::-1]))
    image, kernel = tf.placeholder(tf.float64), tf.placeholder(tf.float64)
    y = tf.nn.dilation2d(image, kernel, strides, rates, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="input's depth 3") as raised:
        _run(y, {image: x, kernel: f[..., :2]})
    assert y.op.name in str(raised.value)
