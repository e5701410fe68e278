"""Conv3D, Conv3DTranspose, MaxPooling3D and AveragePooling3D: shapes, variable names,
values against NumPy loops, reuse, gradients and bad input."""

import itertools

import numpy as np
import pytest

import minitf as tf


def _random(shape, seed=0, dtype=np.float32):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict)


# --- the references: plain loops over NDHWC volumes -----------------------------------------

def _same_padding(size, window, stride):
    """(before, after) padding of one dimension with SAME: the output holds ceil(size /
    stride) windows, the extra half (rounded down) before."""
    out = -(-size // stride)
    total = max((out - 1) * stride + window - size, 0)
    return total // 2, total - total // 2


def _pad_volume(x, windows, strides, padding, value=0.0):
    """NDHWC `x` padded for `padding` ('valid' or 'same') on its three spatial axes."""
    if padding == "valid":
        return x
    pads = [_same_padding(x.shape[1 + i], windows[i], strides[i]) for i in range(3)]
    return np.pad(x, [(0, 0)] + pads + [(0, 0)], constant_values=value)


def _windows(x, windows, strides, dilations=(1, 1, 1)):
    """Each (d, h, w) output position and the window of NDHWC `x` it reads."""
    spans = [(k - 1) * r + 1 for k, r in zip(windows, dilations)]
    counts = [(x.shape[1 + i] - spans[i]) // strides[i] + 1 for i in range(3)]
    for d, h, w in itertools.product(*(range(c) for c in counts)):
        starts = (d * strides[0], h * strides[1], w * strides[2])
        yield (d, h, w), x[:, starts[0]:starts[0] + spans[0]:dilations[0],
                            starts[1]:starts[1] + spans[1]:dilations[1],
                            starts[2]:starts[2] + spans[2]:dilations[2], :]


def _conv3d_reference(x, kernel, strides=(1, 1, 1), padding="valid", dilations=(1, 1, 1)):
    """Cross-correlation of NDHWC `x` with a [kd, kh, kw, in, filters] `kernel`."""
    spans = [(k - 1) * r + 1 for k, r in zip(kernel.shape[:3], dilations)]
    x = _pad_volume(x, spans, strides, padding)
    results = dict((at, np.tensordot(window, kernel, axes=([1, 2, 3, 4], [0, 1, 2, 3])))
                   for at, window in _windows(x, kernel.shape[:3], strides, dilations))
    return _assemble(results)


def _pool3d_reference(x, pool_size, strides, padding, reduce):
    """`reduce` (np.max or np.mean) over each window of NDHWC `x`; SAME padding is left out
    of every window (NaN, ignored by the nan-reductions)."""
    x = _pad_volume(x.astype(np.float64), pool_size, strides, padding, value=np.nan)
    return _assemble(dict((at, reduce(window, axis=(1, 2, 3)))
                          for at, window in _windows(x, pool_size, strides)))


def _assemble(results):
    """A [batch, d, h, w, channels] array of {(d, h, w): [batch, channels]} `results`."""
    shape = [max(at[i] for at in results) + 1 for i in range(3)]
    first = next(iter(results.values()))
    out = np.zeros((first.shape[0],) + tuple(shape) + (first.shape[1],))
    for (d, h, w), value in results.items():
        out[:, d, h, w, :] = value
    return out


def _conv3d_transpose_reference(x, kernel, strides, padding):
    """Each input voxel adds a kernel-weighted copy of itself into the output, `strides`
    apart; with SAME the output is `strides` times the input, cropped as conv3d pads."""
    kernel_size, filters = kernel.shape[:3], kernel.shape[3]
    in_sizes = x.shape[1:4]
    if padding == "valid":
        out_sizes = [n * s + max(k - s, 0) for n, k, s in zip(in_sizes, kernel_size, strides)]
        before = [0, 0, 0]
    else:
        out_sizes = [n * s for n, s in zip(in_sizes, strides)]
        before = [_same_padding(o, k, s)[0] for o, k, s in zip(out_sizes, kernel_size, strides)]
    full = np.zeros((x.shape[0],) + tuple(o + b + k for o, b, k in
                                          zip(out_sizes, before, kernel_size)) + (filters,))
    for d, h, w in itertools.product(*(range(n) for n in in_sizes)):
        d0, h0, w0 = d * strides[0], h * strides[1], w * strides[2]
        full[:, d0:d0 + kernel_size[0], h0:h0 + kernel_size[1], w0:w0 + kernel_size[2], :] += (
            np.einsum("bc,dhwfc->bdhwf", x[:, d, h, w, :], kernel))
    return full[:, before[0]:before[0] + out_sizes[0], before[1]:before[1] + out_sizes[1],
                before[2]:before[2] + out_sizes[2], :]


def _channels_first(x):
    return np.moveaxis(x, -1, 1)


def _channels_last(x):
    return np.moveaxis(x, 1, -1)


# --- Conv3D ---------------------------------------------------------------------------------

def test_conv3d_variables_ops_and_values():
    x_value = _random((2, 4, 5, 4, 3))
    layer = tf.layers.Conv3D(4, (2, 3, 2), activation=tf.nn.relu,
                             bias_initializer=tf.constant_initializer(0.1))
    y = layer(tf.constant(x_value))
    assert [(v.name, v.shape.as_list()) for v in layer.weights] == [
        ("conv3d/kernel:0", [2, 3, 2, 3, 4]), ("conv3d/bias:0", [4])]
    assert layer.trainable_weights == layer.weights
    assert y.shape.as_list() == [2, 3, 3, 3, 4] and y.op.name == "conv3d/Relu"
    op_names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "conv3d/Conv3D" in op_names and "conv3d/BiasAdd" in op_names
    out, kernel = _run([y, layer.kernel])
    expected = np.maximum(_conv3d_reference(x_value, kernel) + 0.1, 0)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_conv3d_arguments_default_as_tensorflow():
    layer = tf.layers.Conv3D(2, 3)
    assert layer.kernel_size == (3, 3, 3) and layer.strides == (1, 1, 1)
    assert layer.dilation_rate == (1, 1, 1) and layer.padding == "valid"
    assert layer.data_format == "channels_last" and layer.use_bias


def test_conv3d_shapes_for_padding_and_strides():
    x = tf.placeholder(tf.float32, [None, 7, 6, 5, 2])
    assert tf.layers.conv3d(x, 3, 3).shape.as_list() == [None, 5, 4, 3, 3]
    assert tf.layers.conv3d(x, 3, 3, padding="same").shape.as_list() == [None, 7, 6, 5, 3]
    assert tf.layers.conv3d(x, 3, (3, 2, 1), strides=2).shape.as_list() == [None, 3, 3, 3, 3]
    assert tf.layers.conv3d(x, 3, 2, strides=(2, 3, 1), padding="same").shape.as_list() == [
        None, 4, 2, 5, 3]
    assert tf.layers.conv3d(x, 3, 2, dilation_rate=(3, 1, 2)).shape.as_list() == [
        None, 4, 5, 3, 3]


@pytest.mark.parametrize("strides,padding,dilation", [
    ((1, 1, 1), "same", (1, 1, 1)),
    ((2, 1, 2), "valid", (1, 1, 1)),
    ((2, 3, 1), "same", (1, 1, 1)),
    ((1, 1, 1), "valid", (2, 1, 2)),
])
def test_conv3d_values_against_loops(strides, padding, dilation):
    x_value = _random((2, 5, 6, 5, 2), seed=1)
    layer = tf.layers.Conv3D(3, (2, 3, 2), strides=strides, padding=padding,
                             dilation_rate=dilation, use_bias=False)
    y = layer(tf.constant(x_value))
    out, kernel = _run([y, layer.kernel])
    expected = _conv3d_reference(x_value, kernel, strides, padding, dilation)
    assert y.shape.as_list() == list(expected.shape)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_conv3d_channels_first():
    x_value = _random((2, 3, 4, 5, 4), seed=2)             # NCDHW
    layer = tf.layers.Conv3D(4, 3, data_format="channels_first", padding="same",
                             bias_initializer=tf.constant_initializer(1.0))
    y = layer(tf.constant(x_value))
    assert y.shape.as_list() == [2, 4, 4, 5, 4]
    assert layer.kernel.shape.as_list() == [3, 3, 3, 3, 4]
    out, kernel = _run([y, layer.kernel])
    expected = _conv3d_reference(_channels_last(x_value), kernel, padding="same") + 1.0
    np.testing.assert_allclose(out, _channels_first(expected), rtol=1e-4, atol=1e-5)


def test_conv3d_reuse_shares_the_variables():
    x_value = _random((1, 4, 4, 4, 2), seed=3)
    x = tf.constant(x_value)
    first = tf.layers.conv3d(x, 2, 3, name="conv", bias_initializer=tf.ones_initializer())
    second = tf.layers.conv3d(x, 2, 3, name="conv", reuse=True)
    assert [v.name for v in tf.global_variables()] == ["conv/kernel:0", "conv/bias:0"]
    assert second.op.name == "conv_1/BiasAdd"
    first_out, second_out = _run([first, second])
    np.testing.assert_array_equal(first_out, second_out)
    with tf.variable_scope("outer", reuse=tf.AUTO_REUSE):
        tf.layers.conv3d(x, 2, 3, name="shared")
        tf.layers.conv3d(x, 2, 3, name="shared")
    assert len(tf.global_variables()) == 4
    with pytest.raises(ValueError, match="already exists"):
        tf.layers.conv3d(x, 2, 3, name="conv")


# --- Conv3DTranspose ------------------------------------------------------------------------

def test_conv3d_transpose_variables_and_shapes():
    layer = tf.layers.Conv3DTranspose(2, (2, 3, 2), strides=2)
    y = layer(tf.placeholder(tf.float32, [None, 3, 4, 2, 5]))
    assert [(v.name, v.shape.as_list()) for v in layer.weights] == [
        ("conv3d_transpose/kernel:0", [2, 3, 2, 2, 5]), ("conv3d_transpose/bias:0", [2])]
    assert y.shape.as_list() == [None, 6, 9, 4, 2]
    x = tf.placeholder(tf.float32, [None, 3, 4, 2, 5])
    assert tf.layers.conv3d_transpose(x, 4, 3, padding="same").shape.as_list() == [
        None, 3, 4, 2, 4]
    assert tf.layers.conv3d_transpose(x, 4, 1, strides=(3, 1, 2)).shape.as_list() == [
        None, 9, 4, 4, 4]
    assert tf.layers.conv3d_transpose(x, 4, 3, strides=(1, 2, 3),
                                      padding="same").shape.as_list() == [None, 3, 8, 6, 4]


def test_conv3d_transpose_shape_known_only_when_running():
    x = tf.placeholder(tf.float32, [None, None, 3, None, 2])
    y = tf.layers.conv3d_transpose(x, 3, 2, strides=2, use_bias=False)
    assert y.shape.as_list() == [None, None, 6, None, 3]
    assert _run(y, {x: np.zeros((2, 4, 3, 1, 2), np.float32)}).shape == (2, 8, 6, 2, 3)


@pytest.mark.parametrize("kernel_size,strides,padding", [
    ((2, 2, 2), (1, 1, 1), "valid"),
    ((3, 2, 2), (2, 2, 1), "valid"),
    ((1, 2, 1), (3, 1, 2), "valid"),     # a stride larger than the kernel: gaps of zeros
    ((3, 3, 2), (2, 1, 2), "same"),
])
def test_conv3d_transpose_values_against_loops(kernel_size, strides, padding):
    x_value = _random((2, 3, 2, 3, 3), seed=4)
    layer = tf.layers.Conv3DTranspose(2, kernel_size, strides=strides, padding=padding,
                                      bias_initializer=tf.constant_initializer(-0.5))
    y = layer(tf.constant(x_value))
    out, kernel = _run([y, layer.kernel])
    expected = _conv3d_transpose_reference(x_value, kernel, strides, padding) - 0.5
    assert y.shape.as_list() == list(expected.shape)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_conv3d_transpose_channels_first():
    x_value = _random((1, 3, 2, 3, 2), seed=5)              # NCDHW
    y = tf.layers.conv3d_transpose(tf.constant(x_value), 2, 2, strides=(2, 1, 2),
                                   data_format="channels_first", use_bias=False, name="up")
    assert y.shape.as_list() == [1, 2, 4, 4, 4]
    kernel = tf.global_variables()[0]
    assert kernel.name == "up/kernel:0" and kernel.shape.as_list() == [2, 2, 2, 2, 3]
    out, kernel_value = _run([y, kernel])
    expected = _conv3d_transpose_reference(_channels_last(x_value), kernel_value, (2, 1, 2),
                                           "valid")
    np.testing.assert_allclose(out, _channels_first(expected), rtol=1e-4, atol=1e-5)


def test_conv3d_transpose_reuse_shares_the_variables():
    x = tf.placeholder(tf.float32, [None, 2, 2, 2, 3])
    tf.layers.conv3d_transpose(x, 2, 2, name="up")
    tf.layers.conv3d_transpose(x, 2, 2, name="up", reuse=True)
    assert [v.name for v in tf.global_variables()] == ["up/kernel:0", "up/bias:0"]


def test_transposed_conv3d_is_the_gradient_of_conv3d():
    x_value = _random((1, 4, 6, 4, 2), seed=6)
    x = tf.constant(x_value)
    conv = tf.layers.Conv3D(3, 2, strides=2, padding="same", use_bias=False)
    y = conv(x)
    up = tf.layers.Conv3DTranspose(2, 2, strides=2, padding="same", use_bias=False,
                                   kernel_initializer=tf.constant_initializer(0.0))
    dy = _random(y.shape.as_list(), seed=7)
    back = up(tf.constant(dy))
    grad = tf.gradients(y, x, grad_ys=dy)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(up.kernel.assign(conv.kernel))
        back_out, grad_out = sess.run([back, grad])
    assert back_out.shape == x_value.shape
    np.testing.assert_allclose(back_out, grad_out, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("conv_class,transpose_class,shape", [
    (tf.layers.Conv2D, tf.layers.Conv2DTranspose, (1, 7, 6, 2)),
    (tf.layers.Conv3D, tf.layers.Conv3DTranspose, (1, 6, 7, 5, 2)),
])
def test_a_dilated_transposed_convolution_is_the_gradient_of_the_dilated_one(
        conv_class, transpose_class, shape):
    # dilation_rate reaches the transposed layers as a keyword, as Keras's layers under
    # TensorFlow's take it: the output size counts the dilated window.
    x_value = _random(shape, seed=8)
    x = tf.constant(x_value)
    conv = conv_class(3, 2, dilation_rate=2, use_bias=False)
    y = conv(x)
    up = transpose_class(2, 2, dilation_rate=2, use_bias=False)
    dy = _random(y.shape.as_list(), seed=9)
    back = up(tf.constant(dy))
    assert back.shape.as_list() == list(shape)
    grad = tf.gradients(y, x, grad_ys=dy)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(up.kernel.assign(conv.kernel))
        back_out, grad_out = sess.run([back, grad])
    np.testing.assert_allclose(back_out, grad_out, rtol=1e-5, atol=1e-5)


# --- MaxPooling3D and AveragePooling3D ------------------------------------------------------

@pytest.mark.parametrize("pool_size,strides,padding", [
    ((2, 2, 2), (2, 2, 2), "valid"),
    ((3, 2, 2), (1, 2, 1), "valid"),
    ((3, 3, 2), (2, 2, 3), "same"),
])
def test_pooling3d_values_against_loops(pool_size, strides, padding):
    x_value = _random((2, 5, 4, 6, 3), seed=8)
    max_out = tf.layers.max_pooling3d(tf.constant(x_value), pool_size, strides, padding)
    avg_out = tf.layers.AveragePooling3D(pool_size, strides, padding)(tf.constant(x_value))
    expected_max = _pool3d_reference(x_value, pool_size, strides, padding, np.nanmax)
    expected_avg = _pool3d_reference(x_value, pool_size, strides, padding, np.nanmean)
    assert max_out.shape.as_list() == avg_out.shape.as_list() == list(expected_max.shape)
    got_max, got_avg = _run([max_out, avg_out])
    np.testing.assert_allclose(got_max, expected_max, rtol=1e-6)
    np.testing.assert_allclose(got_avg, expected_avg, rtol=1e-5, atol=1e-6)


def test_pooling3d_layers_names_ops_and_arguments():
    x = tf.placeholder(tf.float32, [None, 4, 4, 4, 2])
    max_layer = tf.layers.MaxPooling3D(pool_size=(2, 1, 2), strides=None)
    y = max_layer(x)
    assert max_layer.strides == (2, 1, 2) and max_layer.padding == "valid"
    assert max_layer.data_format == "channels_last" and max_layer.weights == []
    assert y.op.name == "max_pooling3d/MaxPool3D" and y.shape.as_list() == [None, 2, 4, 2, 2]
    assert y.op.get_attr("ksize") == [1, 2, 1, 2, 1]
    avg = tf.layers.average_pooling3d(x, 2, 2, name="pool")
    assert avg.op.name == "pool/AvgPool3D" and avg.shape.as_list() == [None, 2, 2, 2, 2]
    assert tf.global_variables() == []


def test_pooling3d_channels_first_moves_the_channels_around_the_op():
    x_value = _random((2, 3, 4, 4, 6), seed=9)             # NCDHW
    y = tf.layers.max_pooling3d(tf.constant(x_value), 2, (2, 2, 3),
                                data_format="channels_first")
    avg = tf.layers.average_pooling3d(tf.constant(x_value), 3, 1, padding="same",
                                      data_format="channels_first")
    assert y.shape.as_list() == [2, 3, 2, 2, 2] and avg.shape.as_list() == [2, 3, 4, 4, 6]
    pool_op = tf.get_default_graph().get_operation_by_name("max_pooling3d/MaxPool3D")
    assert pool_op.get_attr("data_format") == "NDHWC"
    assert y.op.name == "max_pooling3d/transpose_1"
    got_max, got_avg = _run([y, avg])
    x_last = _channels_last(x_value)
    np.testing.assert_allclose(
        got_max, _channels_first(_pool3d_reference(x_last, (2, 2, 2), (2, 2, 3), "valid",
                                                   np.nanmax)), rtol=1e-6)
    np.testing.assert_allclose(
        got_avg, _channels_first(_pool3d_reference(x_last, (3, 3, 3), (1, 1, 1), "same",
                                                   np.nanmean)), rtol=1e-5, atol=1e-6)


# --- gradients through the layers -----------------------------------------------------------

def _gradient_error(layer, x_value, seed):
    """The gradient checker's error for the layer's output with respect to its input and
    each of its variables (set to random values)."""
    x = tf.constant(x_value)
    y = layer(x)
    values = [x_value] + [_random(v.shape.as_list(), seed + i, x_value.dtype)
                          for i, v in enumerate(layer.weights, 1)]
    with tf.Session():
        return tf.test.compute_gradient_error(
            [x] + layer.weights, [list(v.shape) for v in values], y, y.shape.as_list(),
            x_init_value=values, init_targets=[tf.global_variables_initializer()])


def test_conv3d_gradients_are_numerically_right():
    layer = tf.layers.Conv3D(2, (2, 3, 2), strides=(1, 2, 1), padding="same",
                             activation=tf.nn.tanh)
    error = _gradient_error(layer, _random((1, 3, 4, 3, 2), seed=10, dtype=np.float64), 11)
    assert error < 1e-5


def test_conv3d_transpose_gradients_are_numerically_right():
    layer = tf.layers.Conv3DTranspose(2, 2, strides=(2, 1, 2), data_format="channels_first")
    error = _gradient_error(layer, _random((1, 3, 2, 2, 2), seed=12, dtype=np.float64), 13)
    assert error < 1e-6


def test_average_pooling3d_gradient_is_numerically_right():
    x = tf.placeholder(tf.float64, [1, 4, 3, 4, 2])
    y = tf.layers.average_pooling3d(x, 2, (2, 1, 2), padding="same")
    with tf.Session():
        error = tf.test.compute_gradient_error(
            x, [1, 4, 3, 4, 2], y, y.shape.as_list(),
            x_init_value=_random((1, 4, 3, 4, 2), seed=14, dtype=np.float64))
    assert error < 1e-6


def test_max_pooling3d_gradient_is_numerically_right():
    # MaxPool3D has float16 and float32 kernels only (as TF): distinct values 0.1 apart
    # keep the maximum of every window where a small step leaves it.
    x_value = (np.random.RandomState(15).permutation(48) * 0.1).reshape(1, 4, 3, 4, 1)
    x = tf.placeholder(tf.float32, x_value.shape)
    y = tf.layers.max_pooling3d(x, 2, (2, 1, 2), padding="same", data_format="channels_first")
    with tf.Session():
        error = tf.test.compute_gradient_error(x, list(x_value.shape), y, y.shape.as_list(),
                                               x_init_value=x_value.astype(np.float32),
                                               delta=1e-2)
    assert error < 1e-3


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("build", [
    lambda x: tf.layers.conv3d(x, 2, 3),
    lambda x: tf.layers.conv3d_transpose(x, 2, 3),
    lambda x: tf.layers.max_pooling3d(x, 2, 2),
    lambda x: tf.layers.average_pooling3d(x, 2, 2),
])
def test_3d_layers_need_a_5d_input(build):
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=4"):
        build(tf.placeholder(tf.float32, [None, 5, 5, 1]))
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=6"):
        build(tf.placeholder(tf.float32, [1, 5, 5, 5, 5, 1]))


def test_conv3d_bad_arguments():
    x = tf.placeholder(tf.float32, [None, 5, 5, 5, 1])
    with pytest.raises(ValueError, match="The `kernel_size` argument must be a tuple of 3 "
                                         "integers. Received: \\(3, 3\\)"):
        tf.layers.conv3d(x, 2, (3, 3))
    with pytest.raises(ValueError, match="The `strides` argument must be a tuple of 3"):
        tf.layers.Conv3DTranspose(2, 3, strides=(1, 2))
    with pytest.raises(ValueError, match="The `pool_size` argument must be a tuple of 3"):
        tf.layers.MaxPooling3D((2, 2), 2)
    with pytest.raises(ValueError, match="The `padding` argument must be"):
        tf.layers.conv3d(x, 2, 3, padding="full")
    with pytest.raises(ValueError, match="The `data_format` argument must be one of"):
        tf.layers.average_pooling3d(x, 2, 2, data_format="NDHWC")
    with pytest.raises(ValueError, match="The channel dimension of the inputs should be "
                                         "defined"):
        tf.layers.conv3d(tf.placeholder(tf.float32, [None, 5, 5, 5, None]), 2, 3)


def test_a_built_conv3d_wants_its_channels():
    layer = tf.layers.Conv3D(2, 2)
    layer(tf.placeholder(tf.float32, [None, 3, 3, 3, 4]))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 4"):
        layer(tf.placeholder(tf.float32, [None, 3, 3, 3, 5]))
