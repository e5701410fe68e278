"""CTC: the loss against a sum over every alignment, the decoders, the label helpers.

The values, gradients and node names TensorFlow itself gives are checked in
`test_nn_reference.py` (the `ctc` case); the gradient numerically in
`tests/autodiff/test_nn_grad.py`.
"""

import itertools

import numpy as np
import pytest

import minitf as tf


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _collapse(path, blank, merge_repeated):
    merged = [c for i, c in enumerate(path) if not (merge_repeated and i and c == path[i - 1])]
    return [c for c in merged if c != blank]


def _brute_force_loss(logits, label, merge_repeated=True):
    """-log of the summed probability of every path of classes that collapses to `label`."""
    probs = _softmax(logits)
    steps, classes = probs.shape
    total = sum(np.prod(probs[np.arange(steps), path])
                for path in itertools.product(range(classes), repeat=steps)
                if _collapse(list(path), classes - 1, merge_repeated) == label)
    return -np.log(total)


def _sparse(labels):
    indices = [[b, i] for b, label in enumerate(labels) for i in range(len(label))]
    values = np.array([v for label in labels for v in label], np.int32)
    return tf.SparseTensor(indices, values, [len(labels), max(map(len, labels))])


@pytest.mark.parametrize("merge_repeated", [True, False])
def test_ctc_loss_sums_over_every_alignment(merge_repeated):
    logits = np.random.RandomState(0).standard_normal((5, 4, 3))
    labels = [[0, 1], [1, 1], [0], [1, 0, 1]]
    lengths = [5, 5, 3, 4]
    loss = _run(tf.nn.ctc_loss(_sparse(labels), logits, lengths,
                               ctc_merge_repeated=merge_repeated))
    expected = [_brute_force_loss(logits[:n, b], labels[b], merge_repeated)
                for b, n in enumerate(lengths)]
    np.testing.assert_allclose(loss, expected, rtol=1e-10)


def test_batch_major_inputs_and_a_gradient_that_is_zero_past_each_length():
    logits = np.random.RandomState(1).standard_normal((2, 4, 3))  # [batch, time, classes]
    x = tf.constant(logits)
    loss = tf.nn.ctc_loss(_sparse([[1], [0, 1]]), x, [2, 4], time_major=False)
    gradient = tf.gradients(loss, x)[0]
    loss_value, gradient_value = _run([loss, gradient])
    np.testing.assert_allclose(loss_value[0], _brute_force_loss(logits[0, :2], [1]), rtol=1e-10)
    assert np.all(gradient_value[0, 2:] == 0)
    np.testing.assert_allclose(gradient_value.sum(-1), 0, atol=1e-12)  # softmax's rows sum to 1
    with pytest.raises(LookupError, match="second  derivative of ctc_loss"):
        tf.gradients(gradient, x)


def test_labels_longer_than_the_inputs_fail_or_cost_nothing():
    logits = np.zeros((3, 1, 3))
    too_long = _sparse([[0, 0, 1]])  # needs 4 steps: a blank between the two 0s
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Not enough time for target transition sequence \(required: 4, "
                             r"available: 3\)"):
        _run(tf.nn.ctc_loss(too_long, logits, [3]))
    assert _run(tf.nn.ctc_loss(too_long, logits, [3],
                               ignore_longer_outputs_than_inputs=True))[0] == 0
    collapsed = tf.nn.ctc_loss(too_long, logits, [3], preprocess_collapse_repeated=True)
    np.testing.assert_allclose(_run(collapsed)[0], _brute_force_loss(logits[:, 0], [0, 1]))


@pytest.mark.parametrize("build, error, message", [
    (lambda: tf.nn.ctc_loss(tf.constant([[0]]), np.zeros((2, 1, 3)), [2]), TypeError,
     "to be a SparseTensor"),
    (lambda: tf.nn.ctc_loss(_sparse([[0]]), np.zeros((2, 3)), [2]), ValueError,
     "Shape must be rank 3 but is rank 2"),
    (lambda: tf.nn.ctc_loss(_sparse([[0]]), np.zeros((2, 2, 3)), [2]), ValueError,
     "Dimensions must be equal, but are 2 and 1"),
    (lambda: tf.nn.ctc_loss_v2(_sparse([[0]]), np.zeros((2, 1, 3)), None, [2]), ValueError,
     "blank_index must be given"),
])
def test_build_time_errors(build, error, message):
    with pytest.raises(error, match=message):
        build()


@pytest.mark.parametrize("labels, lengths, message", [
    ([[2]], [2], r"Labels must be in the range \[0, num_classes - 1\)"),
    ([[0]], [5], r"sequence_length\(0\) <= 2"),
])
def test_run_time_errors_name_the_node(labels, lengths, message):
    loss = tf.nn.ctc_loss(_sparse(labels), np.zeros((2, 1, 3)), lengths)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message) as raised:
        _run(loss)
    assert loss.op.name in str(raised.value)


def test_ctc_loss_v2_puts_the_blank_where_asked():
    logits = np.random.RandomState(2).standard_normal((4, 2, 4))
    blank_first = np.concatenate([logits[:, :, 3:], logits[:, :, :3]], axis=2)  # blank at 0
    dense = tf.nn.ctc_loss_v2([[2, 3], [1, 0]], blank_first, [2, 1], [4, 3])
    sparse = tf.nn.ctc_loss_v2(_sparse([[1, 2], [0]]), logits, None, [4, 3], blank_index=-1)
    expected = [_brute_force_loss(logits[:, 0], [1, 2]), _brute_force_loss(logits[:3, 1], [0])]
    np.testing.assert_allclose(_run(dense), expected, rtol=1e-10)
    np.testing.assert_allclose(_run(sparse), expected, rtol=1e-10)


def test_greedy_decoder_merges_repeats_and_drops_blanks():
    classes = np.array([[0, 0, 2, 0, 1, 1], [1, 2, 2, 1, 0, 0]]).T  # [time, batch]
    logits = np.eye(3)[classes] * 2.0  # the best class is 2.0, the others 0
    (decoded,), neg_sum = _run(tf.nn.ctc_greedy_decoder(logits, [6, 4]))
    np.testing.assert_array_equal(decoded.indices, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]])
    np.testing.assert_array_equal(decoded.values, [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(decoded.dense_shape, [2, 3])
    np.testing.assert_allclose(neg_sum, [[-12.0], [-8.0]])
    (unmerged,), _ = _run(tf.nn.ctc_greedy_decoder(logits, [6, 4], merge_repeated=False,
                                                   blank_index=0))
    np.testing.assert_array_equal(unmerged.values, [2, 1, 1, 1, 2, 2, 1])


def test_collapse_repeated_and_unique_labels():
    labels = np.array([[1, 1, 2, 2, 1], [3, 3, 3, 4, 4]])
    collapsed, lengths = _run(tf.nn.collapse_repeated(labels, [5, 2]))
    np.testing.assert_array_equal(collapsed, [[1, 2, 1], [3, 0, 0]])
    np.testing.assert_array_equal(lengths, [3, 1])
    unique, index = _run(tf.nn.ctc_unique_labels([[3, 4, 4, 3], [5, 5, 6, 0]]))
    np.testing.assert_array_equal(unique, [[3, 4, 0, 0], [5, 6, 0, 0]])
    np.testing.assert_array_equal(index, [[0, 1, 1, 0], [0, 0, 1, 2]])


def test_a_wide_beam_search_finds_the_most_probable_labelings():
    logits = np.random.RandomState(3).standard_normal((4, 1, 3)) * 2
    decoded, log_probability = _run(tf.nn.ctc_beam_search_decoder(logits, [4], beam_width=50,
                                                                   top_paths=3,
                                                                   merge_repeated=False))
    probs = _softmax(logits[:, 0])
    exact = {}
    for path in itertools.product(range(3), repeat=4):
        label = tuple(_collapse(list(path), 2, True))
        exact[label] = exact.get(label, 0) + np.prod(probs[np.arange(4), path])
    best = sorted(exact.items(), key=lambda item: -item[1])[:3]
    assert [list(d.values) for d in decoded] == [list(label) for label, _ in best]
    np.testing.assert_allclose(log_probability[0], [np.log(p) for _, p in best], rtol=1e-6)


def test_beam_search_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="top_paths must be <= beam_width"):
        _run(tf.nn.ctc_beam_search_decoder(np.zeros((2, 1, 3)), [2], beam_width=1,
                                           top_paths=2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Less leaves in the beam search"):
        _run(tf.nn.ctc_beam_search_decoder(np.zeros((1, 1, 2)), [1], beam_width=5,
                                           top_paths=4))
    with pytest.raises(ValueError, match="top_paths"):
        tf.nn.ctc_beam_search_decoder(np.zeros((2, 1, 3)), [2], top_paths=0)
