"""Jacobians in a while loop: jacobian, batch_jacobian and their for_loop.

Node names are those the reference TensorFlow gives with `use_pfor=False`.
"""

import numpy as np
import pytest

import minitf as tf
from minitf.autodiff.parallel_for import batch_jacobian, for_loop, jacobian

W_VALUE = np.array([[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]], dtype=np.float32)
X_VALUE = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)


def _expected_jacobian(x_value):
    """d tanh(x W)[b, k] / d x[c, j] = [b == c] (1 - tanh²) W[j, k]."""
    slope = 1.0 - np.tanh(x_value @ W_VALUE) ** 2
    per_example = slope[:, :, None] * W_VALUE.T[None, :, :]  # [b, k, j]
    full = np.zeros((2, 3, 2, 2), dtype=np.float32)
    for b in range(2):
        full[b, :, b, :] = per_example[b]
    return full, per_example


def test_for_loop_stacks_each_iteration_and_keeps_none():
    def loop_fn(i):
        return {"square": tf.cast(i * i, tf.float32), "nothing": None}

    out = for_loop(loop_fn, {"square": tf.float32, "nothing": tf.float32}, 4)
    assert out["nothing"] is None
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out["square"]), [0.0, 1.0, 4.0, 9.0])
    with pytest.raises(ValueError, match="Number of expected outputs, 2, does not match"):
        for_loop(lambda i: tf.cast(i, tf.float32), [tf.float32, tf.float32], 2)


def test_jacobian_differentiates_each_element_in_a_while_loop():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.tanh(tf.matmul(x, tf.constant(W_VALUE)))
    unused = tf.constant(1.0)
    d_x, d_unused = jacobian(y, [x, unused])
    assert d_unused is None
    assert d_x.shape.as_list() == [None, 3, None, 2]
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("while/gradients/Tanh_grad/TanhGrad").type == "TanhGrad"
    assert graph.get_operation_by_name("while/TensorArrayWrite/TensorArrayWriteV3")
    with tf.Session() as sess:
        value = sess.run(d_x, {x: X_VALUE})
    np.testing.assert_allclose(value, _expected_jacobian(X_VALUE)[0], rtol=1e-5, atol=1e-6)


def test_jacobian_of_a_statically_shaped_output_has_its_shape():
    x = tf.constant(X_VALUE)
    d_x = jacobian(tf.square(x), x)
    assert d_x.shape.as_list() == [2, 2, 2, 2]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(d_x).reshape(4, 4), np.diag(2 * X_VALUE.ravel()))


def test_batch_jacobian_is_each_examples_own_jacobian():
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.tanh(tf.matmul(x, tf.constant(W_VALUE)))
    per_example = batch_jacobian(y, x)
    with tf.Session() as sess:
        value = sess.run(per_example, {x: X_VALUE})
    np.testing.assert_allclose(value, _expected_jacobian(X_VALUE)[1], rtol=1e-5, atol=1e-6)


def test_batch_jacobian_checks_the_batch_sizes():
    with pytest.raises(ValueError, match="Need first dimension of output shape"):
        batch_jacobian(tf.zeros([3, 2]), tf.zeros([2, 2]))
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 3])
    result = batch_jacobian(y * 1.0, x)  # shapes agree statically; the Assert checks the run
    assert result is None  # y does not depend on x
    mixed = batch_jacobian(tf.concat([x, x], 0), x)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="Condition x == y did not hold"):
        sess.run(mixed, {x: X_VALUE})
