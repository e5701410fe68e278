"""tf.ConditionalAccumulator and tf.sparse.SparseConditionalAccumulator: values, stale
gradients, waiting takes and errors, as the reference TensorFlow gives them."""

import threading
import time

import numpy as np
import pytest

import minitf as tf


def test_take_grad_gives_the_mean_and_moves_the_step_on():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    first, second = acc.apply_grad([1., 2.]), acc.apply_grad([3., 6.], local_step=0)
    take, count = acc.take_grad(2), acc.num_accumulated()
    stale, fresh = acc.apply_grad([100., 100.], local_step=0), acc.apply_grad([5., 5.],
                                                                              local_step=1)
    take_one = acc.take_grad(1)
    assert acc.accumulator_ref.op.type == "ResourceConditionalAccumulator"
    assert count.op.name == "conditional_accumulator_NumAccumulated"
    assert take.shape.as_list() == [2]
    with tf.Session() as sess:
        sess.run(first)
        sess.run(second)
        assert sess.run(count) == 2
        np.testing.assert_array_equal(sess.run(take), [2., 4.])  # TensorFlow's values
        sess.run(stale)  # computed at step 0, the accumulator is at step 1: dropped
        assert sess.run(count) == 0
        sess.run(fresh)
        np.testing.assert_array_equal(sess.run(take_one), [5., 5.])


def test_sum_reduction_and_set_global_step():
    acc = tf.ConditionalAccumulator(tf.float64, reduction_type="SUM")
    with tf.Session() as sess:
        sess.run(acc.set_global_step(5))
        sess.run(acc.apply_grad(np.ones(3), local_step=4))   # stale
        sess.run(acc.apply_grad(np.ones(3), local_step=5))
        sess.run(acc.apply_grad(2 * np.ones(3), local_step=7))
        np.testing.assert_array_equal(sess.run(acc.take_grad(2)), [3., 3., 3.])


def test_take_grad_waits_for_enough_gradients():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[])
    apply_op = acc.apply_grad(tf.constant(4.))
    take = acc.take_grad(2)
    with tf.Session() as sess:
        sess.run(apply_op)
        results = []
        deadline = tf.RunOptions(timeout_in_ms=10000)
        taker = threading.Thread(target=lambda: results.append(sess.run(take, options=deadline)))
        taker.start()
        time.sleep(0.2)
        assert results == []  # one gradient of two: the take waits
        sess.run(apply_op)
        taker.join(timeout=10)
        assert results == [4.]


def test_a_waiting_take_ends_at_the_steps_deadline():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(acc.take_grad(1), options=tf.RunOptions(timeout_in_ms=200))


def test_accumulator_errors():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    with pytest.raises(ValueError, match="are incompatible"):
        acc.apply_grad([1., 2., 3.])
    fed = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="num_required must be positive, but was 0"):
            sess.run(acc.take_grad(0))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
            sess.run(acc.apply_grad(fed), {fed: [1., 2., 3.]})


def test_sparse_accumulator_averages_each_row_over_the_gradients_that_had_it():
    acc = tf.sparse.SparseConditionalAccumulator(tf.float32, shape=[3, 2])
    assert tf.SparseConditionalAccumulator is tf.sparse.SparseConditionalAccumulator
    first = acc.apply_grad([0, 2], [[1., 1.], [2., 2.]], grad_shape=[3, 2])
    second = acc.apply_indexed_slices_grad(
        tf.IndexedSlices(tf.constant([[4., 4.]]), tf.constant([2], tf.int64),
                         tf.constant([3, 2], tf.int64)))
    indices, values, shape = acc.take_grad(2)
    slices = acc.take_indexed_slices_grad(1)
    later = acc.apply_grad([1], [[5., 6.]], local_step=1)
    deadline = tf.RunOptions(timeout_in_ms=10000)  # a take that waited forever would fail
    with tf.Session() as sess:
        sess.run([first])
        sess.run(second)
        assert sess.run(acc.num_accumulated()) == 2
        got = sess.run([indices, values, shape])
        assert got[0].tolist() == [0, 2]
        np.testing.assert_array_equal(got[1], [[1., 1.], [3., 3.]])  # TensorFlow's values
        assert got[2].tolist() == [3, 2]
        sess.run(first)  # computed at step 0, the accumulator is at step 1: dropped
        sess.run(later)
        value = sess.run(slices, options=deadline)
        assert value.indices.tolist() == [1]
        np.testing.assert_array_equal(value.values, [[5., 6.]])
