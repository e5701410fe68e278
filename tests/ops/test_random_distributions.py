"""Draws of distributions with parameters (tf.multinomial, tf.random_poisson) and the
stateless random ops (tf.random.stateless_*), whose seed is an input."""

import numpy as np
import pytest

import minitf as tf


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


# --- multinomial / categorical ------------------------------------------------------------

def test_multinomial_draws_classes_with_the_softmax_probabilities():
    logits = [np.log([0.1, 0.2, 0.7]), [np.log(0.5), np.log(0.5), -np.inf]]
    samples = tf.multinomial(logits, 20000, seed=1)
    assert samples.dtype == tf.int64 and samples.shape.as_list() == [2, 20000]
    assert samples.op.name == "multinomial/Multinomial"
    drawn = run(samples)
    freq = [np.bincount(row, minlength=3) / row.size for row in drawn]
    np.testing.assert_allclose(freq[0], [0.1, 0.2, 0.7], atol=0.02)
    np.testing.assert_allclose(freq[1], [0.5, 0.5, 0.0], atol=0.02)
    assert not (drawn[1] == 2).any()                   # probability 0: never drawn


def test_categorical_is_multinomial_with_dtype():
    samples = tf.random.categorical([[0.0, 0.0]], 5, dtype=tf.int32, seed=3)
    assert samples.dtype == tf.int32 and samples.op.name == "categorical/Multinomial"
    assert set(run(samples).reshape(-1)) <= {0, 1}


def test_a_seeded_multinomial_repeats_in_a_new_session_and_draws_anew_in_the_same():
    samples = tf.multinomial([[1.0, 1.0, 1.0, 1.0]], 50, seed=7)
    with tf.Session() as sess:
        first, second = sess.run(samples), sess.run(samples)
    assert (first != second).any()
    np.testing.assert_array_equal(run(samples), first)


def test_multinomial_errors():
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.multinomial([1.0, 2.0], 3)
    logits = tf.placeholder(tf.float32)
    count = tf.placeholder(tf.int32)
    samples = tf.multinomial(logits, count)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_samples should be "
                                                             "nonnegative, got -1"):
        run(samples, {logits: [[1.0]], count: -1})
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_classes should be positive"):
        run(samples, {logits: np.zeros((2, 0)), count: 1})
    with pytest.raises(tf.errors.InvalidArgumentError, match="logits should be a matrix"):
        run(samples, {logits: [1.0], count: 1})


# --- poisson --------------------------------------------------------------------------------

def test_random_poisson_draws_per_rate():
    draws = tf.random_poisson([1.0, 10.0], [5000], seed=2)
    assert draws.shape.as_list() == [5000, 2] and draws.dtype == tf.float32
    assert draws.op.name == "random_poisson/RandomPoissonV2"
    values = run(draws)
    np.testing.assert_allclose(values.mean(axis=0), [1.0, 10.0], rtol=0.05)
    np.testing.assert_allclose(values.var(axis=0), [1.0, 10.0], rtol=0.1)
    assert (values == np.round(values)).all()
    assert tf.random.poisson is tf.random_poisson


def test_random_poisson_rejects_a_negative_rate():
    rate = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="rate must be non-negative"):
        run(tf.random_poisson(rate, [2], dtype=tf.int32), {rate: [-1.0]})


# --- stateless ------------------------------------------------------------------------------

STATELESS = [
    (tf.random.stateless_normal, "stateless_random_normal", "StatelessRandomNormal"),
    (tf.random.stateless_truncated_normal, "stateless_truncated_normal",
     "StatelessTruncatedNormal"),
    (tf.random.stateless_uniform, "stateless_random_uniform", "StatelessRandomUniform"),
]


@pytest.mark.parametrize("fn, scope, op_type", STATELESS)
def test_the_same_seed_gives_the_same_numbers(fn, scope, op_type):
    seed = tf.placeholder(tf.int64, [2])
    values = fn([3, 4], seed=seed)
    assert values.op.name == scope and values.shape.as_list() == [3, 4]
    assert values.op.inputs[0].op.inputs[0].op.type == op_type
    with tf.Session() as sess:
        first = sess.run(values, {seed: [1, 2]})
        np.testing.assert_array_equal(sess.run(values, {seed: [1, 2]}), first)
        assert (sess.run(values, {seed: [1, 3]}) != first).any()
    np.testing.assert_array_equal(run(values, {seed: [1, 2]}), first)


def test_stateless_values_have_their_distributions():
    normal, truncated, uniform = run([
        tf.random.stateless_normal([20000], [4, 5], mean=1.0, stddev=2.0, dtype=tf.float64),
        tf.random.stateless_truncated_normal([20000], [4, 5]),
        tf.random.stateless_uniform([20000], [4, 5], minval=-1.0, maxval=3.0)])
    assert abs(normal.mean() - 1.0) < 0.05 and abs(normal.std() - 2.0) < 0.05
    assert np.abs(truncated).max() <= 2.0
    assert uniform.min() >= -1.0 and uniform.max() < 3.0 and abs(uniform.mean() - 1.0) < 0.05


def test_stateless_uniform_integers():
    ints = run(tf.random.stateless_uniform([1000], [1, 1], minval=-3, maxval=4, dtype=tf.int32))
    assert ints.dtype == np.int32 and set(ints) == set(range(-3, 4))
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        tf.random.stateless_uniform([2], [1, 1], dtype=tf.int64)
    with pytest.raises(ValueError, match="Invalid dtype"):
        tf.random.stateless_uniform([2], [1, 1], dtype=tf.string)


def test_stateless_categorical():
    samples = tf.random.stateless_categorical(np.log([[0.25, 0.75]]), 4000, seed=[3, 4])
    assert samples.op.name == "stateless_categorical/StatelessMultinomial"
    drawn = run(samples)
    assert abs(drawn.mean() - 0.75) < 0.03
    np.testing.assert_array_equal(run(tf.random.stateless_multinomial(
        np.log([[0.25, 0.75]]), 4000, seed=[3, 4])), drawn)


def test_a_seed_must_be_two_ints():
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
        tf.random.stateless_normal([2], seed=7)
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 3 "
                                         "and 2"):
        tf.random.stateless_uniform([2], seed=[1, 2, 3])
    seed = tf.placeholder(tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seed must have shape \[2\], "
                                                             r"not \[3\]"):
        run(tf.random.stateless_normal([2], seed=seed), {seed: [1, 2, 3]})


def test_the_random_namespace():
    assert tf.random.normal is tf.random_normal and tf.random.uniform is tf.random_uniform
    assert tf.random.shuffle is tf.random_shuffle and tf.random.set_random_seed is \
        tf.set_random_seed
    assert tf.random.multinomial is tf.multinomial
    with pytest.raises(AttributeError, match="tf.random.Generator is a name of TensorFlow "
                                             "1.15 that minitf leaves out"):
        tf.random.Generator  # noqa: B018
