"""The candidate samplers and the sampled losses (nce_loss, sampled_softmax_loss).

The draws are checked for what they promise (range, uniqueness, frequencies
that follow the distribution, expected counts by its formula), and the
losses against their full counterparts, which they equal when every class
is "sampled" (all_candidate_sampler). The values TensorFlow computes for
fixed sampled values are checked in `test_nn_reference.py`.
"""

import numpy as np
import pytest

import minitf as tf

LABELS = np.array([[1, 4], [0, 2], [7, 7]], np.int64)


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _log_uniform_p(classes, range_max):
    classes = np.asarray(classes, np.float64)
    return np.log((classes + 2) / (classes + 1)) / np.log(range_max + 1)


def test_log_uniform_draws_follow_the_distribution_and_count_expectations():
    sampled, true_expected, sampled_expected = _run(
        tf.nn.log_uniform_candidate_sampler(LABELS, 2, 20000, False, 10, seed=7))
    assert sampled.dtype == np.int64 and sampled.shape == (20000,)
    frequencies = np.bincount(sampled, minlength=10) / 20000.0
    np.testing.assert_allclose(frequencies, _log_uniform_p(np.arange(10), 10), atol=0.01)
    np.testing.assert_allclose(true_expected, 20000 * _log_uniform_p(LABELS, 10), rtol=1e-5)
    np.testing.assert_allclose(sampled_expected, 20000 * _log_uniform_p(sampled, 10), rtol=1e-5)


def test_unique_draws_are_distinct_and_expected_at_most_once():
    sampled, true_expected, sampled_expected = _run(
        tf.nn.uniform_candidate_sampler(LABELS, 2, 8, True, 10, seed=3))
    assert len(set(sampled.tolist())) == 8 and sampled.min() >= 0 and sampled.max() < 10
    # 1 - (1 - p) ** num_tries with p = 1/10 and at least 8 tries
    assert np.all(true_expected >= 1 - 0.9 ** 8 - 1e-6) and np.all(true_expected < 1)
    np.testing.assert_allclose(sampled_expected, sampled_expected[0])


def test_learned_unigram_learns_the_true_classes():
    labels = tf.constant([[3]] * 50, tf.int64)
    sampled = tf.nn.learned_unigram_candidate_sampler(labels, 1, 100, False, 5, seed=1)[0]
    with tf.Session() as sess:
        for _ in range(5):
            sess.run(sampled)
        last = sess.run(sampled)
    assert np.bincount(last, minlength=5).argmax() == 3  # weight 251 against 1


def test_fixed_unigram_reads_a_vocabulary_file_with_reserved_ids_and_shards(tmp_path):
    vocab = tmp_path / "vocab.csv"
    vocab.write_text("the,5\nof,1\ncat,9\ndog,2\n")  # ids 1..4 after reserved id 0
    # shard 1 of 2 keeps ids 1 and 3: weights 5 and 9, renumbered 0 and 1
    sampled, true_expected, _ = _run(tf.nn.fixed_unigram_candidate_sampler(
        tf.constant([[1]], tf.int64), 1, 5000, False, 2, vocab_file=str(vocab),
        num_reserved_ids=1, num_shards=2, shard=1, seed=2))
    np.testing.assert_allclose(np.bincount(sampled, minlength=2) / 5000.0, [5 / 14, 9 / 14],
                               atol=0.02)
    np.testing.assert_allclose(true_expected, [[5000 * 9 / 14]], rtol=1e-5)


def test_all_candidate_sampler_and_accidental_hits():
    sampled, true_expected, sampled_expected = _run(
        tf.nn.all_candidate_sampler(LABELS, 2, 8, True))
    np.testing.assert_array_equal(sampled, np.arange(8))
    np.testing.assert_array_equal(true_expected, np.ones((3, 2)))
    indices, ids, weights = _run(tf.nn.compute_accidental_hits(
        LABELS, tf.constant([7, 1, 9, 1], tf.int64), 2))
    np.testing.assert_array_equal(indices, [0, 2, 2])  # class 1 at its last position, 3
    np.testing.assert_array_equal(ids, [3, 0, 0])
    assert np.all(weights == -np.finfo(np.float32).max)


def _full_losses(weights, biases, inputs, labels):
    logits = inputs @ weights.T + biases
    one_hot = np.eye(len(biases))[labels[:, 0]]
    sigmoid_xent = np.maximum(logits, 0) - logits * one_hot + np.log1p(np.exp(-np.abs(logits)))
    log_softmax = logits - logits.max(1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(1, keepdims=True))
    return sigmoid_xent, -(one_hot * log_softmax).sum(1)


def test_sampled_losses_over_every_class_are_the_full_losses():
    rng = np.random.RandomState(0)
    weights, biases = rng.standard_normal((6, 3)), rng.standard_normal(6)
    inputs, labels = rng.standard_normal((4, 3)), np.array([[0], [5], [2], [2]], np.int64)
    everything = tf.nn.all_candidate_sampler(labels, 1, 6, True)  # expected counts of 1
    args = [w.astype(np.float32) for w in (weights, biases)] + [labels,
                                                                inputs.astype(np.float32)]
    nce = tf.nn.nce_loss(*args, 6, 6, sampled_values=everything)
    softmax = tf.nn.sampled_softmax_loss(*args, 6, 6, sampled_values=everything)
    logits = inputs @ weights.T + biases
    true_logits = logits[np.arange(4), labels[:, 0]]
    # The true class against every class as noise (the true one again among them) ...
    expected_nce = np.logaddexp(0, -true_logits) + np.logaddexp(0, logits).sum(1)
    # ... and, with the accidental hit taken out, the softmax over every class.
    log_softmax = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    got_nce, got_softmax = _run([nce, softmax])
    np.testing.assert_allclose(got_nce, expected_nce, rtol=1e-5)
    np.testing.assert_allclose(got_softmax, -log_softmax[np.arange(4), labels[:, 0]], rtol=1e-5)


def test_nce_loss_gradient_is_numerically_right():
    rng = np.random.RandomState(1)
    weights, biases = (tf.constant(rng.standard_normal(shape)) for shape in [(6, 3), 6])
    inputs = tf.constant(rng.standard_normal((2, 3)))
    loss = tf.nn.nce_loss(weights, biases, [[1], [4]], inputs, 3, 6, sampled_values=(
        tf.constant([0, 4, 5], tf.int64), tf.constant([[0.5], [0.3]], tf.float64),
        tf.constant([0.2, 0.3, 0.4], tf.float64)), remove_accidental_hits=True)
    with tf.Session():
        error = tf.test.compute_gradient_error(inputs, [2, 3], loss, [2])
    assert error < 1e-6


@pytest.mark.parametrize("build, message", [
    (lambda: tf.nn.uniform_candidate_sampler([1, 2], 1, 2, True, 5), "must be rank 2"),
    (lambda: tf.nn.uniform_candidate_sampler(LABELS, 1, 2, True, 5),
     "Dimensions must be equal, but are 2 and 1"),
    (lambda: tf.nn.log_uniform_candidate_sampler(LABELS, 2, 0, True, 5), "num_sampled"),
])
def test_build_time_errors(build, message):
    with pytest.raises(ValueError, match=message):
        build()


@pytest.mark.parametrize("build, message", [
    (lambda labels: tf.nn.uniform_candidate_sampler(labels, 2, 9, True, 8)[0],
     "Sampler's range is too small"),
    (lambda labels: tf.nn.log_uniform_candidate_sampler(labels, 2, 2, True, 5)[0],
     r"`true_candidate` out of range \[0, 5\), received 7"),
    (lambda labels: tf.nn.fixed_unigram_candidate_sampler(labels, 2, 2, True, 9,
                                                           unigrams=[1.0] * 8)[0],
     "range_max 9 must be the number of ids"),
])
def test_run_time_errors_name_the_node(build, message):
    labels = tf.placeholder(tf.int64, [None, 2])
    fetch = build(labels)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message) as raised:
        _run(fetch, {labels: LABELS})
    assert fetch.op.name in str(raised.value)
