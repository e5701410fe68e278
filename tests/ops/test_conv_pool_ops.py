"""tf.nn.conv2d, its two backward ops, conv2d_transpose, max_pool and avg_pool.

Forward values are compared with naive NumPy references written here as
plain loops over output positions (independent of the kernels' im2col).
Hand-written numbers, static shapes and error messages were read off a
reference TensorFlow (`tf.compat.v1`, graph mode) building the same
expressions.
"""


import numpy as np
import pytest

import minitf as tf


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _rng(seed=0):
    return np.random.RandomState(seed)


# --- naive references ------------------------------------------------------------------------

def _pads_and_output(size, window, stride, dilation, padding):
    """TF's arithmetic along one axis, written out: ((before, after), output size)."""
    effective = (window - 1) * dilation + 1
    if padding == "SAME":
        out = int(np.ceil(size / stride))
        total = max((out - 1) * stride + effective - size, 0)
        return (total // 2, total - total // 2), out
    if isinstance(padding, tuple):  # explicit (before, after)
        size += padding[0] + padding[1]
        return padding, (size - effective) // stride + 1
    return (0, 0), (size - effective) // stride + 1


def naive_conv2d(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    """out[b, i, j, k] = sum over di, dj, q of
    xpad[b, i*sh + di*dh, j*sw + dj*dw, q] * w[di, dj, q, k]."""
    n, height, width, _ = x.shape
    kh, kw, _, out_channels = w.shape
    pad_h = padding[0] if isinstance(padding, list) else padding
    pad_w = padding[1] if isinstance(padding, list) else padding
    (top, bottom), out_h = _pads_and_output(height, kh, strides[0], dilations[0], pad_h)
    (left, right), out_w = _pads_and_output(width, kw, strides[1], dilations[1], pad_w)
    xpad = np.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)])
    out = np.zeros((n, out_h, out_w, out_channels), x.dtype)
    for i in range(out_h):
        for j in range(out_w):
            for di in range(kh):
                for dj in range(kw):
                    pixel = xpad[:, i * strides[0] + di * dilations[0],
                                 j * strides[1] + dj * dilations[1], :]
                    out[:, i, j, :] += pixel @ w[di, dj]
    return out


def naive_pool(x, ksize, strides, padding, reduce):
    """Each window of the *unpadded* input, clipped at its borders, reduced."""
    n, height, width, channels = x.shape
    (top, _), out_h = _pads_and_output(height, ksize[0], strides[0], 1, padding)
    (left, _), out_w = _pads_and_output(width, ksize[1], strides[1], 1, padding)
    out = np.zeros((n, out_h, out_w, channels), x.dtype)
    for i in range(out_h):
        for j in range(out_w):
            row0, col0 = i * strides[0] - top, j * strides[1] - left
            window = x[:, max(row0, 0):row0 + ksize[0], max(col0, 0):col0 + ksize[1], :]
            out[:, i, j, :] = reduce(window, axis=(1, 2))
    return out


# --- conv2d: values ----------------------------------------------------------------------

@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("in_channels, out_channels", [(1, 1), (3, 4), (2, 5)])
def test_conv2d_matches_a_naive_loop(padding, stride, in_channels, out_channels):
    x = _rng(0).randn(2, 7, 6, in_channels)
    w = _rng(1).randn(3, 2, in_channels, out_channels)
    y = tf.nn.conv2d(x, w, strides=stride, padding=padding)
    expected = naive_conv2d(x, w, (stride, stride), padding)
    result = _run(y)
    assert y.shape.as_list() == list(expected.shape)
    assert result.dtype == np.float64
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)


def test_conv2d_same_padding_puts_the_odd_pixel_at_the_end():
    # 4 pixels, window 3, stride 2: 2 outputs need 5 pixels, so one zero goes at the end.
    x = np.arange(16.).reshape(1, 4, 4, 1)
    y = tf.nn.conv2d(x, np.ones((3, 3, 1, 1)), strides=2, padding="SAME")
    np.testing.assert_array_equal(_run(y)[0, :, :, 0], [[45., 39.], [66., 50.]])  # from TF


def test_conv2d_rectangular_strides_dilations_and_explicit_padding():
    x = _rng(0).randn(2, 9, 8, 3)
    w = _rng(1).randn(3, 2, 3, 4)
    explicit = [[0, 0], [1, 2], [2, 0], [0, 0]]
    cases = [
        (tf.nn.conv2d(x, w, strides=[2, 3], padding="SAME"),
         naive_conv2d(x, w, (2, 3), "SAME")),
        (tf.nn.conv2d(x, w, strides=1, padding="SAME", dilations=2),
         naive_conv2d(x, w, (1, 1), "SAME", (2, 2))),
        (tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID", dilations=[1, 2, 3, 1]),
         naive_conv2d(x, w, (1, 1), "VALID", (2, 3))),
        (tf.nn.conv2d(x, w, strides=2, padding=explicit),
         naive_conv2d(x, w, (2, 2), [(1, 2), (2, 0)])),
    ]
    for (y, expected), result in zip(cases, _run([y for y, _ in cases])):
        assert y.shape.as_list() == list(expected.shape)
        np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)
    assert cases[3][0].op.get_attr("padding") == "EXPLICIT"
    assert cases[3][0].op.get_attr("explicit_paddings") == [0, 0, 1, 2, 2, 0, 0, 0]


def test_conv2d_nchw_is_nhwc_transposed():
    x = _rng(0).randn(2, 6, 5, 3)
    w = _rng(1).randn(3, 3, 3, 2)
    nhwc = tf.nn.conv2d(x, w, strides=2, padding="SAME")
    nchw = tf.nn.conv2d(x.transpose(0, 3, 1, 2), w, strides=2, padding="SAME",
                        data_format="NCHW")
    assert nchw.op.get_attr("strides") == [1, 1, 2, 2]
    assert nchw.shape.as_list() == [2, 2, 3, 3]
    a, b = _run([nhwc, nchw])
    np.testing.assert_allclose(b, a.transpose(0, 3, 1, 2), rtol=1e-12)


def test_conv2d_node_names_attrs_and_float32():
    x = tf.placeholder(tf.float32, [2, 7, 7, 3])
    w = tf.constant(np.ones((3, 3, 3, 5), np.float32))
    y = tf.nn.conv2d(x, filters=w, strides=2, padding="SAME")
    assert y.name == "Conv2D:0" and y.dtype == tf.float32
    assert y.op.get_attr("strides") == [1, 2, 2, 1]
    assert y.op.get_attr("dilations") == [1, 1, 1, 1]
    assert y.op.get_attr("data_format") == "NHWC"
    assert y.shape.as_list() == [2, 4, 4, 5]
    assert tf.nn.conv2d(x, w, [1, 1], "VALID", name="conv").name == "conv:0"
    result = _run(y, {x: np.ones((2, 7, 7, 3), np.float32)})
    assert result.dtype == np.float32
    assert result[0, 1, 1, 0] == 27.0  # a full 3x3x3 window of ones


def test_conv2d_static_shapes_with_unknown_dimensions():
    w = np.ones((3, 3, 3, 5), np.float32)
    partial = tf.nn.conv2d(tf.placeholder(tf.float32, [None, None, 9, 3]), w, 2, "SAME")
    assert partial.shape.as_list() == [None, None, 5, 5]
    unknown = tf.nn.conv2d(tf.placeholder(tf.float32), w, 2, "SAME")
    assert unknown.shape.as_list() == [None, None, None, 5]


# --- the backward ops and conv2d_transpose ---------------------------------------------

@pytest.mark.parametrize("padding, stride, dilation", [
    ("SAME", 1, 1), ("SAME", 2, 1), ("VALID", 2, 1), ("VALID", 1, 2),
    ([[0, 0], [1, 0], [0, 2], [0, 0]], 2, 1)])
def test_backprop_ops_are_the_adjoints_of_conv2d(padding, stride, dilation):
    """<conv(x, w), dy> = <x, backprop_input(w, dy)> = <w, backprop_filter(x, dy)>."""
    x = _rng(0).randn(2, 7, 6, 3)
    w = _rng(1).randn(3, 2, 3, 4)
    y = tf.nn.conv2d(x, w, strides=stride, padding=padding, dilations=dilation)
    dy = _rng(2).randn(*y.shape.as_list())
    strides = [1, stride, stride, 1]
    dilations = [1, dilation, dilation, 1]
    dx = tf.nn.conv2d_backprop_input([2, 7, 6, 3], w, dy, strides, padding,
                                     dilations=dilations)
    dw = tf.nn.conv2d_backprop_filter(x, [3, 2, 3, 4], dy, strides, padding,
                                      dilations=dilations)
    assert dx.shape.as_list() == [2, 7, 6, 3] and dw.shape.as_list() == [3, 2, 3, 4]
    y_value, dx_value, dw_value = _run([y, dx, dw])
    inner = np.sum(y_value * dy)
    np.testing.assert_allclose(np.sum(x * dx_value), inner, rtol=1e-10)
    np.testing.assert_allclose(np.sum(w * dw_value), inner, rtol=1e-10)


def test_conv2d_transpose_values_and_names():
    t = tf.nn.conv2d_transpose(np.ones((1, 2, 2, 1)), np.ones((3, 3, 1, 1)), [1, 4, 4, 1],
                               2, "SAME")
    assert t.name == "conv2d_transpose:0" and t.op.type == "Conv2DBackpropInput"
    assert t.op.inputs[0].name == "conv2d_transpose/input_sizes:0"
    assert t.shape.as_list() == [1, 4, 4, 1]
    # From TF: each input pixel spreads over its 3x3 window; overlaps add up.
    np.testing.assert_array_equal(_run(t)[0, :, :, 0], [[1., 1., 2., 1.], [1., 1., 2., 1.],
                                                         [2., 2., 4., 2.], [1., 1., 2., 1.]])


def test_backprop_op_names_and_unknown_sizes():
    w = tf.constant(np.ones((3, 3, 3, 5), np.float32))
    dy = tf.placeholder(tf.float32, [2, 7, 7, 5])
    dx = tf.nn.conv2d_backprop_input([2, 7, 7, 3], w, dy, [1, 1, 1, 1], "SAME")
    assert dx.name == "Conv2DBackpropInput:0" and dx.shape.as_list() == [2, 7, 7, 3]
    sizes = tf.placeholder(tf.int32, [4])
    unknown = tf.nn.conv2d_backprop_input(sizes, w, dy, [1, 1, 1, 1], "SAME")
    assert unknown.shape.as_list() == [None] * 4  # TF 1.15: what the sizes tensor tells
    x = tf.placeholder(tf.float32, [2, 7, 7, 3])
    dw = tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 5], dy, [1, 1, 1, 1], "SAME")
    assert dw.name == "Conv2DBackpropFilter:0" and dw.shape.as_list() == [3, 3, 3, 5]


# --- pooling ---------------------------------------------------------------------------------

POOL_CASES = [((2, 2), (2, 2)), ((3, 3), (2, 2)), ((3, 3), (1, 1)), ((2, 3), (1, 2))]


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("ksize, strides", POOL_CASES)
@pytest.mark.parametrize("channels", [1, 3])
def test_max_pool_and_avg_pool_match_naive_loops(padding, ksize, strides, channels):
    x = _rng(0).randn(2, 7, 6, channels)
    m = tf.nn.max_pool(x, ksize, strides, padding)
    a = tf.nn.avg_pool(x, list(ksize), list(strides), padding)
    expected_max = naive_pool(x, ksize, strides, padding, np.max)
    expected_avg = naive_pool(x, ksize, strides, padding, np.mean)
    assert m.shape.as_list() == list(expected_max.shape) == a.shape.as_list()
    max_value, avg_value = _run([m, a])
    np.testing.assert_array_equal(max_value, expected_max)
    np.testing.assert_allclose(avg_value, expected_avg, rtol=1e-12)


def test_pooling_with_same_padding_ignores_the_padding():
    x = np.arange(16.).reshape(1, 4, 4, 1)
    a = tf.nn.avg_pool(x, 3, 2, "SAME")    # padding not counted in the mean
    m = tf.nn.max_pool(-x, 3, 2, "SAME")   # padding never wins, even over negatives
    a_value, m_value = _run([a, m])
    np.testing.assert_array_equal(a_value[0, :, :, 0], [[5., 6.5], [11., 12.5]])  # from TF
    np.testing.assert_array_equal(m_value[0, :, :, 0], [[0., -2.], [-8., -10.]])  # from TF


def test_pool_node_names_attrs_dtypes_and_nchw():
    x = tf.placeholder(tf.float32, [2, 7, 7, 3])
    m = tf.nn.max_pool(x, 2, 2, "SAME")
    a = tf.nn.avg_pool(x, [3, 3], [1, 2], "VALID")
    assert m.name == "MaxPool:0" and m.op.get_attr("ksize") == [1, 2, 2, 1]
    assert m.shape.as_list() == [2, 4, 4, 3]
    assert a.name == "AvgPool:0" and a.shape.as_list() == [2, 5, 3, 3]
    assert tf.nn.max_pool(x, 2, 2, "SAME", name="pool").name == "pool:0"
    ints = np.array([[1, 5, -3, 2], [7, 0, 4, 4]], np.int32).reshape(1, 2, 4, 1)
    pooled = _run(tf.nn.max_pool(ints, [1, 2], [1, 2], "VALID"))
    assert pooled.dtype == np.int32
    np.testing.assert_array_equal(pooled.reshape(-1), [5, 2, 7, 4])
    values = _rng(0).randn(2, 6, 5, 3)
    nchw = tf.nn.max_pool(values.transpose(0, 3, 1, 2), 2, 2, "SAME", data_format="NCHW")
    assert nchw.op.get_attr("strides") == [1, 1, 2, 2]
    np.testing.assert_array_equal(_run(nchw), naive_pool(values, (2, 2), (2, 2), "SAME",
                                                         np.max).transpose(0, 3, 1, 2))


def test_max_pool_grad_routes_each_window_gradient_to_its_maximum():
    x = np.array([[1., 9., 2., 3.], [4., 5., 8., 6.]]).reshape(1, 2, 4, 1)
    m = tf.nn.max_pool(x, [2, 2], [1, 2], "VALID")  # windows [[1, 9], [4, 5]] and [[2, 3], [8, 6]]
    grad = tf.gradients(m, tf.get_default_graph().get_operations()[0].outputs[0],
                        grad_ys=np.array([10., 20.]).reshape(1, 1, 2, 1))[0]
    assert grad.op.type == "MaxPoolGrad"
    np.testing.assert_array_equal(_run(grad).reshape(2, 4), [[0., 10., 0., 0.],
                                                            [0., 0., 20., 0.]])


def test_overlapping_max_pool_windows_sum_their_gradients():
    x = tf.constant(np.array([[0., 1., 0.], [0., 9., 0.], [0., 0., 0.]]).reshape(1, 3, 3, 1))
    m = tf.nn.max_pool(x, 2, 1, "VALID")  # all four 2x2 windows hold the 9
    np.testing.assert_array_equal(_run(tf.gradients(m, x)[0]).reshape(3, 3),
                                  [[0., 0., 0.], [0., 4., 0.], [0., 0., 0.]])


def test_a_tie_goes_to_the_first_maximum_and_a_nan_window_to_its_first_nan():
    # Windows (row-major taps): [[5, 5], [1, 5]] -> the first 5; [[1, nan], [nan, 7]] -> the
    # first NaN, as np.argmax (and TensorFlow's CPU kernel) pick them.
    x = tf.constant(np.array([[5., 5., 1., np.nan], [1., 5., np.nan, 7.]]).reshape(1, 2, 4, 1))
    m = tf.nn.max_pool(x, [2, 2], [2, 2], "VALID")
    grad = tf.gradients(m, x, grad_ys=np.array([10., 20.]).reshape(1, 1, 2, 1))[0]
    np.testing.assert_array_equal(_run(grad).reshape(2, 4), [[10., 0., 0., 20.],
                                                            [0., 0., 0., 0.]])


# --- errors --------------------------------------------------------------------------------

def test_conv2d_build_time_errors():
    x = tf.placeholder(tf.float32, [2, 7, 7, 3])
    w = tf.placeholder(tf.float32, [3, 3, 3, 5])
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.nn.conv2d(x, tf.placeholder(tf.float32, [3, 3, 4, 5]), 1, "SAME")
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        tf.nn.conv2d(tf.placeholder(tf.float32, [2, 7, 7]), w, 1, "SAME")
    with pytest.raises(ValueError, match="passed string 'FOO' not in"):
        tf.nn.conv2d(x, w, 1, "FOO")
    with pytest.raises(ValueError, match="passed string 'same' not in"):
        tf.nn.conv2d(x, w, 1, "same")
    with pytest.raises(ValueError, match="strides should be of length 1, 2 or 4 but was 3"):
        tf.nn.conv2d(x, w, [1, 2, 3], "SAME")
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 3 "
                                         "from 2"):
        tf.nn.conv2d(tf.placeholder(tf.float32, [2, 2, 2, 3]), w, 1, "VALID")
    with pytest.raises(ValueError, match="does not yet support strides in the batch"):
        tf.nn.conv2d(x, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="the padding parameter must be a list"):
        tf.nn.conv2d(x, w, 1, "EXPLICIT")
    with pytest.raises(ValueError, match="it must be of size 4"):
        tf.nn.conv2d(x, w, 1, [[1, 1], [1, 1]])
    with pytest.raises(ValueError, match="batch or depth dimensions is not supported"):
        tf.nn.conv2d(x, w, 1, [[1, 1], [0, 0], [0, 0], [0, 0]])
    with pytest.raises(TypeError):
        tf.nn.conv2d(tf.placeholder(tf.int64, [2, 7, 7, 3]), w, 1, "SAME")


def test_conv2d_run_time_errors():
    x = tf.placeholder(tf.float32, [None, 4, 4, None])
    y = tf.nn.conv2d(x, np.ones((3, 3, 3, 5), np.float32), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="input and filter must have the same depth: 2 vs 3"):
        _run(y, {x: np.ones((1, 4, 4, 2), np.float32)})
    dy = tf.placeholder(tf.float32, [None, None, None, 5])
    dx = tf.nn.conv2d_backprop_input([1, 4, 4, 3], np.ones((3, 3, 3, 5), np.float32), dy,
                                     [1, 2, 2, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"must have shape \[1,2,2,5\]"):
        _run(dx, {dy: np.ones((1, 4, 4, 5), np.float32)})


def test_pooling_errors():
    x = tf.placeholder(tf.float32, [2, 7, 7, 3])
    with pytest.raises(ValueError, match="ksize cannot be zero"):
        tf.nn.max_pool(x, 0, 2, "SAME")
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 9 "
                                         "from 7"):
        tf.nn.avg_pool(x, [1, 9, 9, 1], 1, "VALID")
    with pytest.raises(ValueError, match="passed string 'FULL' not in"):
        tf.nn.max_pool(x, 2, 2, "FULL")
    with pytest.raises(ValueError, match="batch or depth dimension"):
        tf.nn.max_pool(x, [2, 2, 2, 1], 2, "SAME")
    with pytest.raises(ValueError, match="ksize should be of length 1, 2 or 4 but was 3"):
        tf.nn.avg_pool(x, [2, 2, 2], 2, "SAME")
    with pytest.raises(TypeError):
        tf.nn.avg_pool(tf.placeholder(tf.int32, [2, 7, 7, 3]), 2, 2, "SAME")


# --- speed and the GPU path ------------------------------------------------------------------

def test_conv2d_of_a_batch_of_feature_maps():
    """A 64 x 28 x 28 x 32 batch (im2col makes it one matrix product; speed lives in bench/)."""
    x = tf.placeholder(tf.float32, [64, 28, 28, 32])
    y = tf.nn.conv2d(x, np.ones((3, 3, 32, 32), np.float32), 1, "SAME")
    feed = {x: np.ones((64, 28, 28, 32), np.float32)}
    with tf.Session() as sess:
        result = sess.run(y, feed)
    assert result.shape == (64, 28, 28, 32)
    assert result[0, 5, 5, 0] == 9 * 32  # an interior pixel sees the full 3x3 window
    assert result[63, 0, 0, 31] == 4 * 32  # a corner sees 2x2 of it, SAME pads with zeros
    assert result[10, 0, 5, 3] == 6 * 32  # an edge sees 2x3


def test_conv_and_pool_kernels_run_on_a_gpu_through_its_array_module(stand_in_gpu):
    x = _rng(0).randn(2, 5, 6, 3)
    w = _rng(1).randn(3, 3, 3, 4)
    with tf.device("/gpu:0"):
        xt = tf.constant(x)
        y = tf.nn.conv2d(xt, w, strides=2, padding="SAME")
        m = tf.nn.max_pool(xt, 2, 2, "SAME")
        a = tf.nn.avg_pool(xt, 3, 2, "SAME")
        grads = tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(m) + tf.reduce_sum(a), xt)
    assert "GPU" in y.op.device and "GPU" in grads[0].op.device
    y_value, m_value, a_value, grad_value = _run([y, m, a, grads[0]])
    assert isinstance(y_value, np.ndarray)  # copied back to the host
    np.testing.assert_allclose(y_value, naive_conv2d(x, w, (2, 2), "SAME"), rtol=1e-12)
    np.testing.assert_array_equal(m_value, naive_pool(x, (2, 2), (2, 2), "SAME", np.max))
    np.testing.assert_allclose(a_value, naive_pool(x, (3, 3), (2, 2), "SAME", np.mean))
    assert grad_value.shape == x.shape
