"""tf.train.ExponentialMovingAverage, checked against TF 2.21's tensorflow.compat.v1.

The reference values below come from running the same graph with the
reference TensorFlow (graph mode, `disable_eager_execution()`): a variable
`w = [1, 2]` increased by 1 after each step, a variable `b = 3` left alone,
a tensor `[8, 10]` averaged with zero debiasing, decay 0.9 and
`num_updates` a step counter increased after each step.
"""

import numpy as np
import pytest

import minitf as tf

TF_AVERAGES = [  # (w's shadow, b's, the tensor's) after each of three steps, from TensorFlow
    ([1.0, 2.0], 3.0, [8.0, 10.0]),
    ([1.8181818, 2.8181818], 3.0, [8.123077, 10.153847]),
    ([2.7045455, 3.7045455], 3.0, [8.090043, 10.112555]),
]


def build():
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(3.0, name="b")
    step = tf.Variable(0, trainable=False, name="step")
    t = tf.constant([4.0, 5.0]) * 2.0
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step, zero_debias=True)
    assert ema.average_name(w) == "w/ExponentialMovingAverage"
    return w, b, step, t, ema, ema.apply([w, b, t])


def test_names_and_collections_are_tensorflows():
    w, b, _, t, ema, apply_op = build()
    assert (apply_op.name, apply_op.type) == ("ExponentialMovingAverage", "NoOp")
    assert [ema.average(v).name for v in (w, b, t)] == [
        "w/ExponentialMovingAverage:0", "b/ExponentialMovingAverage:0",
        "mul/ExponentialMovingAverage:0"]
    assert tf.moving_average_variables() == [w, b]
    assert sorted(v.name for v in tf.global_variables()) == [
        "b/ExponentialMovingAverage:0", "b:0", "mul/ExponentialMovingAverage/biased:0",
        "mul/ExponentialMovingAverage/local_step:0", "mul/ExponentialMovingAverage:0",
        "step:0", "w/ExponentialMovingAverage:0", "w:0"]
    assert not any(ema.average(v) in tf.trainable_variables() for v in (w, b, t))
    restore = {k: v.name for k, v in ema.variables_to_restore().items()}
    assert restore["w/ExponentialMovingAverage"] == "w:0" and restore["step"] == "step:0"
    assert ema.average(tf.Variable(0.0)) is None


def test_averages_are_tensorflows_step_by_step():
    w, b, step, t, ema, apply_op = build()
    move = tf.group(tf.assign_add(w, [1.0, 1.0]), tf.assign_add(step, 1))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for expected in TF_AVERAGES:
            sess.run(apply_op)
            sess.run(move)
            got = sess.run([ema.average(w), ema.average(b), ema.average(t)])
            for value, want in zip(got, expected):
                np.testing.assert_allclose(value, want, rtol=1e-6)


def test_a_constant_decay_follows_the_formula():
    w = tf.Variable(0.0)
    ema = tf.train.ExponentialMovingAverage(0.75)
    apply_op = ema.apply()  # the trainable variables
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(w, 8.0))
        sess.run(apply_op)
        assert sess.run(ema.average(w)) == pytest.approx(0.75 * 0.0 + 0.25 * 8.0)
        sess.run(apply_op)
        assert sess.run(ema.average(w)) == pytest.approx(0.75 * 2.0 + 0.25 * 8.0)


def test_restoring_the_averages_into_the_variables(tmp_path):
    w = tf.Variable(0.0, name="w")
    ema = tf.train.ExponentialMovingAverage(0.5)
    apply_op = ema.apply([w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(w, 4.0))
        sess.run(apply_op)  # the shadow: 2.0
        path = tf.train.Saver().save(sess, str(tmp_path / "model"))
    with tf.Session() as sess:
        tf.train.Saver(ema.variables_to_restore()).restore(sess, path)
        assert sess.run(w) == 2.0


def test_only_floating_point_values_are_averaged():
    with pytest.raises(TypeError, match="must be half, float, or double: v:0"):
        tf.train.ExponentialMovingAverage(0.9).apply([tf.Variable(1, name="v")])
