"""tf.losses: the reductions, the LOSSES collection and the errors.

The values TensorFlow computes for every loss are checked in
`tests/ops/test_nn_reference.py` (case "losses"); here, each reduction against its
definition, what goes into the collections, and the error paths.
"""

import numpy as np
import pytest

import minitf as tf

LOSSES = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
WEIGHTS = np.array([[0.0], [2.0]], np.float32)


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


@pytest.mark.parametrize("reduction, expected", [
    (tf.losses.Reduction.NONE, LOSSES * WEIGHTS),
    (tf.losses.Reduction.SUM, 30.0),
    (tf.losses.Reduction.MEAN, 30.0 / 6.0),                 # over the sum of the weights
    (tf.losses.Reduction.SUM_OVER_BATCH_SIZE, 30.0 / 6.0),  # over the number of losses
    (tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS, 30.0 / 3.0),
])
def test_each_reduction_matches_its_definition(reduction, expected):
    loss = tf.losses.compute_weighted_loss(LOSSES, WEIGHTS, reduction=reduction)
    np.testing.assert_allclose(_run(loss), expected)
    assert tf.losses.get_losses() == [loss]


def test_zero_weights_give_zero_not_nan_and_the_dtype_is_kept():
    loss = tf.losses.compute_weighted_loss(LOSSES.astype(np.float64), 0.0)
    assert loss.dtype == tf.float64 and _run(loss) == 0.0


def test_the_collections_add_up_to_the_total_loss():
    tf.losses.mean_squared_error([1.0, 2.0], [2.0, 4.0])                 # 2.5
    tf.losses.absolute_difference([1.0], [3.0], loss_collection=None)    # not collected
    tf.losses.add_loss(tf.constant(1.0))
    assert _run(tf.losses.get_regularization_loss()) == 0.0
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.constant(0.5))
    assert len(tf.losses.get_losses()) == 2 and len(tf.losses.get_regularization_losses()) == 1
    assert _run(tf.losses.get_total_loss()) == 4.0
    assert _run(tf.losses.get_total_loss(add_regularization_losses=False)) == 3.5
    assert tf.losses.get_total_loss().op.name == "total_loss_2"


def test_get_total_loss_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="at least one Tensor"):
        tf.losses.get_total_loss()


@pytest.mark.parametrize("build, message", [
    (lambda: tf.losses.mean_squared_error(None, [1.0]), "`labels` must not be None"),
    (lambda: tf.losses.log_loss([1.0, 0.0], [0.5, 0.5, 0.5]), "are incompatible"),
    (lambda: tf.losses.cosine_distance([1.0], [1.0]), "You must specify argument `axis`"),
    (lambda: tf.losses.compute_weighted_loss(LOSSES, [1.0, 2.0]),
     "weights can not be broadcast to values"),
    (lambda: tf.losses.compute_weighted_loss(LOSSES, reduction="mean"),
     "Invalid Reduction Key mean"),
])
def test_build_time_errors(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_sparse_softmax_cross_entropy_squeezes_a_trailing_dimension_of_one():
    logits = np.array([[2.0, 0.0], [0.0, 1.0]], np.float32)
    loss = tf.losses.sparse_softmax_cross_entropy([[0], [1]], logits, [[1.0], [3.0]],
                                                  reduction=tf.losses.Reduction.NONE)
    expected = -np.log(np.exp([2.0, 1.0]) / np.exp(logits).sum(1)) * [1.0, 3.0]
    np.testing.assert_allclose(_run(loss), expected, rtol=1e-5)


def test_huber_and_hinge_losses_have_the_right_gradients():
    x = tf.constant([[-2.0, 0.3, 1.5]], tf.float32)
    huber = tf.losses.huber_loss(tf.zeros([1, 3]), x, delta=1.0)
    hinge = tf.losses.hinge_loss(tf.constant([[1.0, 0.0, 1.0]]), x)
    with tf.Session():
        for loss in (huber, hinge):
            assert tf.test.compute_gradient_error(x, [1, 3], loss, []) < 1e-2
