"""The running example with control flow (minitf.tour's helpers for the Control flow chapter)."""

import numpy as np

import minitf as tf
from minitf import tour


def _feed(example):
    return {example.x: tour.X_TRAIN, example.y: tour.Y_TRAIN}


def test_the_cond_adds_the_bias_or_not():
    example = tour.build_running_example()
    prediction, use_bias = tour.add_cond(example)
    assert (prediction.op.name, prediction.op.type) == ("cond/Merge", "Merge")
    with tf.Session(graph=example.graph) as sess:
        sess.run(example.init)
        with_bias = sess.run(prediction, {example.x: tour.X_TRAIN, use_bias: True})
        without = sess.run(prediction, {example.x: tour.X_TRAIN, use_bias: False})
    np.testing.assert_allclose(with_bias, tour.reference()[0])
    np.testing.assert_allclose(without, np.float32(tour.W_INIT) * tour.X_TRAIN)


def test_the_training_loop_takes_the_steps_of_gradient_descent():
    example = tour.build_running_example()
    w, b = tour.add_training_loop(example, steps=100)
    with tf.Session(graph=example.graph) as sess:
        sess.run(example.init)
        values = sess.run([w, b], _feed(example))
        assert sess.run(example.W) == np.float32(tour.W_INIT)  # the variables stay put
    np.testing.assert_allclose(values, tour.reference_training(100), rtol=1e-5)
    assert np.allclose(tour.reference_training(1), tour.reference_step())


def test_the_loop_loss_and_its_gradient_loop_match_the_plain_ones():
    example = tour.build_running_example()
    loss, gradients = tour.add_loop_loss(example)
    with tf.Session(graph=example.graph) as sess:
        sess.run(example.init)
        values = sess.run([loss] + gradients, _feed(example))
    np.testing.assert_allclose(values[0], tour.reference()[1], rtol=1e-6)
    np.testing.assert_allclose(values[1:], tour.reference_gradients(), rtol=1e-6)


def test_the_power_loop_and_its_gradient():
    example = tour.build_running_example()
    power, gradient = tour.add_power_loop(example)
    with tf.Session(graph=example.graph) as sess:
        sess.run(example.init)
        np.testing.assert_allclose(sess.run([power, gradient]), [0.3 ** 3, 3 * 0.3 ** 2],
                                   rtol=1e-5)
