"""Recurrent networks: tf.nn.rnn_cell's cells and the RNNs that run them over time.

Values are checked against a NumPy recurrence with the same weights (the
cells' variables read back), gradients numerically and by training; the
values, gradients and node names TensorFlow itself gives are checked in
`test_nn_reference.py` (the `dynamic_rnn_cells` and
`bidirectional_and_static_rnn` cases).
"""

import numpy as np
import pytest

import minitf as tf

cells = tf.nn.rnn_cell


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_lstm(x, lengths, kernel, bias, forget_bias=1.0):
    """BasicLSTMCell over [batch, time, depth]: outputs zero and state kept past each length."""
    batch, steps, _ = x.shape
    units = bias.shape[0] // 4
    c, h = np.zeros((batch, units)), np.zeros((batch, units))
    outputs = np.zeros((batch, steps, units))
    for t in range(steps):
        i, j, f, o = np.split(np.concatenate([x[:, t], h], 1) @ kernel + bias, 4, axis=1)
        new_c = c * _sigmoid(f + forget_bias) + _sigmoid(i) * np.tanh(j)
        new_h = np.tanh(new_c) * _sigmoid(o)
        running = (t < lengths)[:, None]
        c, h = np.where(running, new_c, c), np.where(running, new_h, h)
        outputs[:, t] = np.where(running, new_h, 0)
    return outputs, c, h


def _np_gru(x, gate_kernel, gate_bias, candidate_kernel, candidate_bias):
    h = np.zeros((x.shape[0], candidate_bias.shape[0]))
    outputs = []
    for t in range(x.shape[1]):
        r, u = np.split(_sigmoid(np.concatenate([x[:, t], h], 1) @ gate_kernel + gate_bias), 2,
                        axis=1)
        c = np.tanh(np.concatenate([x[:, t], r * h], 1) @ candidate_kernel + candidate_bias)
        h = u * h + (1 - u) * c
        outputs.append(h)
    return np.stack(outputs, 1), h


def test_dynamic_rnn_lstm_matches_a_numpy_recurrence_with_sequence_lengths():
    x = np.random.RandomState(0).standard_normal((3, 5, 2)).astype(np.float32)
    lengths = np.array([5, 2, 0], np.int32)
    outputs, state = tf.nn.dynamic_rnn(cells.BasicLSTMCell(4), x, sequence_length=lengths,
                                       dtype=tf.float32)
    kernel, bias = tf.trainable_variables()
    assert [kernel.name, bias.name] == ["rnn/basic_lstm_cell/kernel:0",
                                        "rnn/basic_lstm_cell/bias:0"]
    assert outputs.shape.as_list() == [3, 5, 4] and state.c.shape.as_list() == [3, 4]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_outputs, got_state, kernel_value, bias_value = sess.run([outputs, state, kernel,
                                                                     bias])
    expected_outputs, c, h = _np_lstm(x, lengths, kernel_value, bias_value)
    np.testing.assert_allclose(got_outputs, expected_outputs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.c, c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.h, h, rtol=1e-5, atol=1e-6)
    assert np.all(got_outputs[1, 2:] == 0) and np.all(got_state.h[2] == 0)


def test_gru_time_major_and_static_rnn_agree_with_numpy():
    x = np.random.RandomState(1).standard_normal((2, 3, 3))
    time_major_out, time_major_state = tf.nn.dynamic_rnn(
        cells.GRUCell(2), x.transpose(1, 0, 2), dtype=tf.float64, time_major=True)
    gru_variables = tf.trainable_variables()
    assert [v.name for v in gru_variables] == [
        "rnn/gru_cell/gates/kernel:0", "rnn/gru_cell/gates/bias:0",
        "rnn/gru_cell/candidate/kernel:0", "rnn/gru_cell/candidate/bias:0"]
    static_out, static_state = tf.nn.static_rnn(cells.GRUCell(2), tf.unstack(x, axis=1),
                                                dtype=tf.float64, scope="static")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assign = [static.assign(dynamic) for static, dynamic in zip(
            tf.trainable_variables()[4:], gru_variables)]
        sess.run(assign)
        weights = sess.run(gru_variables)
        results = sess.run([time_major_out, time_major_state, static_out, static_state])
    expected_out, expected_state = _np_gru(x, *weights)
    np.testing.assert_allclose(results[0].transpose(1, 0, 2), expected_out, rtol=1e-10)
    np.testing.assert_allclose(results[1], expected_state, rtol=1e-10)
    np.testing.assert_allclose(np.stack(results[2], 1), expected_out, rtol=1e-10)
    np.testing.assert_allclose(results[3], expected_state, rtol=1e-10)


def _feedable_kernel_rnn(x_value, kernel_value):
    """dynamic_rnn of a BasicRNNCell whose kernel is a placeholder: f(x, kernel)."""
    x = tf.placeholder(tf.float64, x_value.shape)
    kernel = tf.placeholder(tf.float64, kernel_value.shape)

    def kernel_getter(getter, name, *args, **kwargs):
        return kernel if name.endswith("kernel") else getter(name, *args, **kwargs)
    with tf.variable_scope("net", custom_getter=kernel_getter):
        outputs, state = tf.nn.dynamic_rnn(cells.BasicRNNCell(2), x, sequence_length=[3, 2],
                                           dtype=tf.float64)
    return x, kernel, tf.reduce_sum(outputs * outputs) + tf.reduce_sum(state)


def test_dynamic_rnn_gradients_match_finite_differences():
    """d loss / d inputs and d loss / d kernel through the while_loop, against central
    differences of the loss."""
    rng = np.random.RandomState(2)
    values = [rng.standard_normal((2, 3, 2)), rng.standard_normal((4, 2)) * 0.5]
    x, kernel, loss = _feedable_kernel_rnn(*values)
    gradients = tf.gradients(loss, [x, kernel])
    delta = 1e-6
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())

        def loss_at(x_value, kernel_value):
            return sess.run(loss, {x: x_value, kernel: kernel_value})
        analytic = sess.run(gradients, {x: values[0], kernel: values[1]})
        for which, value in enumerate(values):
            numeric = np.zeros_like(value)
            for index in np.ndindex(value.shape):
                moved = [v.copy() for v in values], [v.copy() for v in values]
                moved[0][which][index] += delta
                moved[1][which][index] -= delta
                numeric[index] = (loss_at(*moved[0]) - loss_at(*moved[1])) / (2 * delta)
            np.testing.assert_allclose(analytic[which], numeric, rtol=1e-6, atol=1e-8)


def test_an_optimizer_trains_a_multi_layer_lstm():
    rng = np.random.RandomState(3)
    x = rng.standard_normal((4, 6, 2)).astype(np.float32)
    target = np.cumsum(x[:, :, :1], axis=1) * 0.3
    stacked = cells.MultiRNNCell([cells.LSTMCell(5), cells.LSTMCell(1)])
    outputs, _ = tf.nn.dynamic_rnn(stacked, x, dtype=tf.float32)
    assert [v.name for v in tf.trainable_variables()][::2] == [
        "rnn/multi_rnn_cell/cell_0/lstm_cell/kernel:0",
        "rnn/multi_rnn_cell/cell_1/lstm_cell/kernel:0"]
    assert len(stacked.trainable_weights) == 4
    loss = tf.reduce_mean((outputs - target) ** 2)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(60):
            sess.run(train)
        assert sess.run(loss) < first / 3


def test_bidirectional_dynamic_rnn_reverses_within_each_length():
    x = np.random.RandomState(4).standard_normal((2, 4, 1))
    lengths = [4, 2]
    (forward, backward), _ = tf.nn.bidirectional_dynamic_rnn(
        cells.BasicRNNCell(1), cells.BasicRNNCell(1), x, sequence_length=lengths,
        dtype=tf.float64)
    reversed_x = np.stack([x[0, ::-1], np.concatenate([x[1, 1::-1], x[1, 2:]])])
    again, _ = tf.nn.dynamic_rnn(cells.BasicRNNCell(1), reversed_x, sequence_length=lengths,
                                 dtype=tf.float64, scope="again")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        bw_variables = [v for v in tf.trainable_variables() if "/bw/" in v.name]
        sess.run([mine.assign(bw) for mine, bw in zip(tf.trainable_variables()[-2:],
                                                      bw_variables)])
        got, expected = sess.run([backward, again])
    np.testing.assert_allclose(got[0], expected[0, ::-1], rtol=1e-12)
    np.testing.assert_allclose(got[1, :2], expected[1, 1::-1], rtol=1e-12)
    assert np.all(got[1, 2:] == 0)


def test_raw_rnn_is_dynamic_rnn_under_a_loop_fn():
    x = np.random.RandomState(5).standard_normal((3, 2, 2))  # [time, batch, depth]
    lengths = np.array([3, 1])
    cell = cells.BasicRNNCell(2)
    inputs_ta = tf.TensorArray(tf.float64, size=3).unstack(x)

    def loop_fn(time, cell_output, cell_state, loop_state):
        next_state = cell.zero_state(2, tf.float64) if cell_output is None else cell_state
        finished = time >= lengths
        next_input = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([2, 2], tf.float64),
                             lambda: inputs_ta.read(time))
        return finished, next_input, next_state, cell_output, None
    emit_ta, final_state, loop_state = tf.nn.raw_rnn(cell, loop_fn)
    expected, expected_state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths,
                                                 dtype=tf.float64, time_major=True)
    assert loop_state is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_state, want, want_state = sess.run([emit_ta.stack(), final_state, expected,
                                                     expected_state])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_state, want_state, rtol=1e-12)


class _StateSaver:
    """What static_state_saving_rnn needs: a state per name, and an op saving one."""

    def __init__(self, sizes):
        self.variables = {name: tf.Variable(np.full((2, size), 0.5), name=name)
                          for name, size in sizes.items()}

    def state(self, name):
        return self.variables[name].value()

    def save_state(self, name, value):
        return self.variables[name].assign(value)


def test_static_state_saving_rnn_starts_from_and_saves_its_state():
    saver = _StateSaver({"c": 3, "h": 3})
    x = [tf.constant(np.ones((2, 1))), tf.constant(np.ones((2, 1)))]
    outputs, state = tf.nn.static_state_saving_rnn(cells.BasicLSTMCell(3), x, saver,
                                                   ("c", "h"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _, first_state = sess.run([outputs[-1], state])
        np.testing.assert_allclose(sess.run(saver.variables["h"]), first_state.h)
    with pytest.raises(ValueError, match="state_name should be the same type"):
        tf.nn.static_state_saving_rnn(cells.BasicLSTMCell(3), x, saver, "c")


def test_lstm_variants_and_wrappers():
    x_value = np.random.RandomState(6).standard_normal((2, 3))
    x = tf.constant(x_value)
    concatenated = cells.BasicLSTMCell(2, state_is_tuple=False)
    output, state = concatenated(x, concatenated.zero_state(2, tf.float64))
    assert state.shape.as_list() == [2, 4]
    projected = cells.LSTMCell(4, num_proj=2, state_is_tuple=False)
    output, state = projected(x, projected.zero_state(2, tf.float64))
    assert output.shape.as_list() == [2, 2] and state.shape.as_list() == [2, 6]
    residual = cells.ResidualWrapper(cells.BasicRNNCell(3))
    with tf.variable_scope("residual"):
        output, _ = residual(x, residual.zero_state(2, tf.float64))
    inner, _ = residual.cell(x, residual.zero_state(2, tf.float64))  # the same variables
    dropped = cells.DropoutWrapper(cells.BasicRNNCell(3), output_keep_prob=0.5, seed=1)
    with tf.variable_scope("dropout"):
        dropped_output, _ = dropped(tf.ones([200, 3], tf.float64),
                                    dropped.zero_state(200, tf.float64))
    on_cpu = cells.DeviceWrapper(cells.GRUCell(2), "/cpu:0")
    with tf.variable_scope("device"):
        placed, _ = on_cpu(x, on_cpu.zero_state(2, tf.float64))
    assert placed.device.lower().endswith("cpu:0")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, cell_output, kept = sess.run([output, inner, dropped_output])
    np.testing.assert_allclose(got, cell_output + x_value, rtol=1e-12)
    assert 0.3 < np.mean(kept == 0) < 0.7
    assert cells.LSTMStateTuple(tf.zeros([1]), tf.zeros([1])).dtype == tf.float32


@pytest.mark.parametrize("build, error, message", [
    (lambda: tf.nn.dynamic_rnn(cells.BasicRNNCell(2), tf.zeros([2, 3, 1])), ValueError,
     "you must give a dtype"),
    (lambda: tf.nn.dynamic_rnn(cells.BasicRNNCell(2), tf.zeros([2, 3, 1]),
                               sequence_length=tf.zeros([2, 1], tf.int32), dtype=tf.float32),
     ValueError, "sequence_length must be a vector"),
    (lambda: tf.nn.dynamic_rnn("cell", tf.zeros([2, 3, 1]), dtype=tf.float32), TypeError,
     "is not an RNNCell"),
    (lambda: tf.nn.dynamic_rnn(cells.BasicRNNCell(2), tf.placeholder(tf.float32, [2, 3, None]),
                               dtype=tf.float32), ValueError, "must be accessible via shape"),
    (lambda: tf.nn.static_rnn(cells.BasicRNNCell(2), tf.zeros([2, 3]), dtype=tf.float32),
     TypeError, "inputs must be a sequence"),
    (lambda: tf.nn.static_rnn(cells.BasicRNNCell(2), [], dtype=tf.float32), ValueError,
     "inputs must not be empty"),
    (lambda: cells.MultiRNNCell([cells.BasicRNNCell(2)] * 2), ValueError, "same object"),
    (lambda: cells.MultiRNNCell([]), ValueError, "at least one cell"),
    (lambda: cells.DropoutWrapper(cells.BasicRNNCell(2), input_keep_prob=1.5), ValueError,
     "must be between 0 and 1"),
    (lambda: tf.nn.dynamic_rnn(cells.BasicRNNCell(2), tf.zeros([2, 3, 1], tf.int32),
                               dtype=tf.int32), ValueError, "only supports floating point"),
    (lambda: tf.nn.raw_rnn(cells.BasicRNNCell(2), "loop"), TypeError, "must be a callable"),
])
def test_errors(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_a_wrong_sequence_length_fails_at_run_time_naming_the_check():
    lengths = tf.placeholder(tf.int32, [None])
    outputs, _ = tf.nn.dynamic_rnn(cells.BasicRNNCell(2), tf.zeros([2, 3, 1]),
                                   sequence_length=lengths, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected shape for Tensor"):
            sess.run(outputs, {lengths: [1, 2, 3]})
