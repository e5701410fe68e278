"""tf.nn's 3-D convolution and poolings, and with_space_to_batch: checked against NumPy.

Random shapes (hypothesis) for the values, both data formats, and every
error at build time and at run time. The values and node names TensorFlow
itself gives are checked in `test_nn_reference.py` (the `conv3d_and_pool3d`
case); the gradients numerically in `tests/autodiff/test_nn_grad.py`.
"""

import itertools

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


def _np_windows_valid(x, window, strides):
    """{tap: x's values under that tap, for every output position}, NDHWC, VALID."""
    out = [(size - w) // s + 1 for size, w, s in zip(x.shape[1:4], window, strides)]
    return {tap: x[(slice(None),) + tuple(slice(t, t + s * (o - 1) + 1, s) for t, s, o in zip(
        tap, strides, out))] for tap in itertools.product(*(range(w) for w in window))}


def _np_conv3d_valid(x, w, strides):
    """out[n, d, h, w, k] = sum over taps (i, j, l) and q of
    x[n, d*s + i, h*s + j, w*s + l, q] * w[i, j, l, q, k]."""
    taps = _np_windows_valid(x, w.shape[:3], strides)
    return sum(values @ w[tap] for tap, values in taps.items())


@SETTINGS
@given(data=st.data())
def test_conv3d_and_pools_match_their_definitions(data):
    window = [data.draw(st.integers(1, 3)) for _ in range(3)]
    strides = [data.draw(st.integers(1, 2)) for _ in range(3)]
    spatial = [data.draw(st.integers(w, 6)) for w in window]
    in_channels, out_channels = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    rng = np.random.RandomState(data.draw(st.integers(0, 99)))
    x = rng.standard_normal([2] + spatial + [in_channels])
    w = rng.standard_normal(window + [in_channels, out_channels])
    five = [1] + strides + [1]
    taps = _np_windows_valid(x, window, strides).values()
    conv, max_pooled, avg_pooled = _run([
        tf.nn.conv3d(x, w, five, "VALID"),
        tf.nn.max_pool3d(x.astype(np.float32), window, strides, "VALID"),
        tf.nn.avg_pool3d(x, [1] + window + [1], five, "VALID")])
    np.testing.assert_allclose(conv, _np_conv3d_valid(x, w, strides), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(max_pooled, np.max(list(taps), axis=0), rtol=1e-6)
    np.testing.assert_allclose(avg_pooled, np.mean(list(taps), axis=0), rtol=1e-10)


def test_same_padding_counts_only_real_elements_and_ncdhw_is_a_transpose():
    x = np.arange(2 * 3 * 3 * 2 * 2, dtype=np.float64).reshape(2, 3, 3, 2, 2)
    w = np.random.RandomState(1).standard_normal((2, 2, 2, 2, 3))
    averaged = _run(tf.nn.avg_pool3d(x, 2, 2, "SAME"))
    # The last window along depth and height covers one real element of each.
    np.testing.assert_allclose(averaged[0, 1, 1, 0, 0], x[0, 2, 2, :2, 0].mean())
    channels_first = np.moveaxis(x, -1, 1)
    for build in (lambda v, f: tf.nn.conv3d(v, w, [1, 1, 2, 2, 1] if f == "NDHWC"
                                            else [1, 1, 1, 2, 2], "SAME", data_format=f),
                  lambda v, f: tf.nn.avg_pool3d(v, 2, 2, "SAME", data_format=f),
                  lambda v, f: tf.nn.max_pool3d(tf.cast(v, tf.float32), [1, 2, 1], 1, "SAME",
                                                data_format=f)):
        np.testing.assert_allclose(np.moveaxis(_run(build(channels_first, "NCDHW")), 1, -1),
                                   _run(build(x, "NDHWC")), rtol=1e-12)


def test_conv3d_transpose_is_the_input_gradient_of_conv3d():
    rng = np.random.RandomState(2)
    x, w = rng.standard_normal((1, 5, 4, 3, 2)), rng.standard_normal((3, 2, 2, 2, 4))
    x_tensor = tf.constant(x)
    y = tf.nn.conv3d(x_tensor, w, [1, 2, 2, 1, 1], "SAME")
    upstream = rng.standard_normal(y.shape.as_list())
    transposed = tf.nn.conv3d_transpose(upstream, w, [1, 5, 4, 3, 2], [1, 2, 2, 1, 1])
    assert transposed.op.type == "Conv3DBackpropInputV2"
    assert transposed.shape.as_list() == [1, 5, 4, 3, 2]
    gradient = tf.gradients(y, x_tensor, grad_ys=upstream)[0]
    np.testing.assert_allclose(*_run([transposed, gradient]), rtol=1e-12)
    assert tf.nn.conv3d_backprop_filter_v2 is tf.nn.conv3d_backprop_filter


@pytest.mark.parametrize("build, message", [
    (lambda: tf.nn.conv3d(tf.zeros([1, 4, 4, 2]), tf.zeros([2, 2, 2, 2, 1]), [1] * 5, "SAME"),
     "Shape must be rank 5 but is rank 4"),
    (lambda: tf.nn.conv3d(tf.zeros([1, 4, 4, 4, 2]), tf.zeros([2, 2, 2, 3, 1]), [1] * 5,
                          "SAME"), "Dimensions must be equal, but are 2 and 3"),
    (lambda: tf.nn.conv3d(tf.zeros([1, 4, 4, 4, 2]), tf.zeros([2, 2, 2, 2, 1]),
                          [2, 1, 1, 1, 1], "SAME"), "not supported on the batch or depth"),
    (lambda: tf.nn.conv3d(tf.zeros([1, 4, 4, 4, 2]), tf.zeros([2, 2, 2, 2, 1]), [1, 1, 1],
                          "SAME"), "passed list of length 3 less than minimum 5"),
    (lambda: tf.nn.conv3d(tf.zeros([1, 1, 4, 4, 2]), tf.zeros([2, 2, 2, 2, 1]), [1] * 5,
                          "VALID"), "Negative dimension size caused by subtracting 2 from 1"),
    (lambda: tf.nn.max_pool3d(tf.zeros([1, 4, 4, 4, 2], tf.float64), 2, 2, "SAME"),
     "float64 not in list of allowed values"),
    (lambda: tf.nn.avg_pool3d(tf.zeros([1, 4, 4, 4, 2]), [1, 2, 2, 2, 2], 1, "SAME"),
     "not supported on the batch or depth"),
])
def test_build_time_errors(build, message):
    with pytest.raises((ValueError, TypeError), match=message):
        build()


def test_run_time_errors_name_the_node():
    x, w = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    y = tf.nn.conv3d(x, w, [1] * 5, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="same depth: 3 vs 2") as raised:
        _run(y, {x: np.ones((1, 3, 3, 3, 3)), w: np.ones((2, 2, 2, 2, 1))})
    assert y.op.name in str(raised.value)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be 5-dimensional"):
        _run(y, {x: np.ones((1, 3, 3, 3)), w: np.ones((2, 2, 2, 3, 1))})
    sizes = tf.placeholder(tf.int32)
    backprop = nn_ops.conv3d_backprop_input_v2(sizes, np.ones((2, 2, 2, 1, 1), np.float32),
                                               np.ones((1, 2, 2, 2, 1), np.float32),
                                               [1] * 5, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="vector of 5 ints"):
        _run(backprop, {sizes: [1, 3, 3, 1]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="out_backprop must have shape"):
        _run(backprop, {sizes: [1, 4, 3, 3, 1]})


def _dilated_conv(w):
    return lambda inp, num_spatial_dims, padding: tf.nn.convolution(inp, w, padding)


def test_with_space_to_batch_is_a_dilated_op_for_static_and_dynamic_shapes():
    rng = np.random.RandomState(4)
    x, w = rng.standard_normal((2, 7, 6, 3)), rng.standard_normal((3, 2, 3, 2))
    expected = _run(tf.nn.conv2d(x, w, 1, "SAME", dilations=[2, 3]))
    static = tf.nn.with_space_to_batch(x, [2, 3], "SAME", _dilated_conv(w), filter_shape=[3, 2])
    unknown = tf.placeholder(tf.float64, [None, None, None, 3])
    dynamic = tf.nn.with_space_to_batch(unknown, [2, 3], "SAME", _dilated_conv(w),
                                        filter_shape=[3, 2])
    got_static, got_dynamic = _run([static, dynamic], {unknown: x})
    np.testing.assert_allclose(got_static, expected, rtol=1e-12)
    np.testing.assert_allclose(got_dynamic, expected, rtol=1e-12)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(dilation_rate=[2, 2], padding="SAME"), ValueError,
     "filter_shape must be specified for SAME padding"),
    (dict(dilation_rate=[0, 2], padding="VALID"), ValueError, "dilation_rate must be positive"),
    (dict(dilation_rate=[2, 2], padding="FULL", filter_shape=[2, 2]), ValueError,
     "Invalid padding method 'FULL'"),
    (dict(dilation_rate=[2, 2], padding="VALID", spatial_dims=[2, 1]), ValueError,
     "montonically increasing"),
    (dict(dilation_rate=[[2, 2]], padding="VALID"), ValueError, "rate must be rank 1"),
])
def test_with_space_to_batch_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        tf.nn.with_space_to_batch(tf.zeros([1, 4, 4, 1]), op=_dilated_conv(np.ones((2, 2, 1, 1))),
                                  **kwargs)
