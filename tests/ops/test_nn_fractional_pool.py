"""Fractional max and average pooling: regions of sizes k and k + 1, and their gradients.

The pooling regions are random (minitf's generator is not TensorFlow's), so
the values are checked against a NumPy pooling by the sequences the op
returns; the gradient ops gave TensorFlow's values for the same sequences
when this was written; their gradients are checked numerically in
tests/autodiff/test_nn_grad.py.
"""

import numpy as np
import pytest

import minitf as tf
from minitf.graph.op_def_library import apply_op


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def _regions(sequence, length, overlapping):
    return [(sequence[i], min(sequence[i + 1] + overlapping, length))
            for i in range(len(sequence) - 1)]


def _np_pool(x, rows, cols, overlapping, reduce):
    row_regions = _regions(rows, x.shape[1], overlapping)
    col_regions = _regions(cols, x.shape[2], overlapping)
    return np.array([[[[reduce(x[n, a:b, p:q, c]) for c in range(x.shape[3])]
                       for p, q in col_regions] for a, b in row_regions]
                     for n in range(x.shape[0])])


@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_pooling_matches_numpy_over_the_returned_regions(pseudo_random, overlapping):
    x = np.random.RandomState(0).standard_normal((2, 10, 7, 3))
    for pool, reduce in [(tf.nn.fractional_max_pool, np.max),
                         (tf.nn.fractional_avg_pool, np.mean)]:
        output, rows, cols = _run(pool(x, [1.0, 1.5, 1.6, 1.0], pseudo_random=pseudo_random,
                                       overlapping=overlapping, seed=3))
        assert output.shape == (2, 6, 4, 3)
        assert rows[0] == 0 and rows[-1] == 10 and cols[0] == 0 and cols[-1] == 7
        assert set(np.diff(rows)) <= {1, 2} and set(np.diff(cols)) <= {1, 2}
        np.testing.assert_allclose(output, _np_pool(x, rows, cols, overlapping, reduce),
                                   rtol=1e-12)


def test_deterministic_pooling_keeps_its_regions_and_others_draw_new_ones():
    x = np.zeros((1, 30, 30, 1))
    fixed = tf.nn.fractional_max_pool(x, [1.0, 1.4, 1.4, 1.0], deterministic=True, seed=1,
                                      seed2=2)[1]
    drawn = tf.nn.fractional_max_pool(x, [1.0, 1.4, 1.4, 1.0], seed=1)[1]
    with tf.Session() as sess:
        fixed_runs = [sess.run(fixed).tolist() for _ in range(5)]
        drawn_runs = [sess.run(drawn).tolist() for _ in range(5)]
    assert all(run == fixed_runs[0] for run in fixed_runs)
    assert any(run != drawn_runs[0] for run in drawn_runs)


# TensorFlow 2.21's FractionalMaxPoolGrad / FractionalAvgPoolGrad for these inputs
# (tf.raw_ops with the same sequences), summed per output position of the input.
def test_gradient_ops_route_and_share_the_gradient():
    rng = np.random.RandomState(1)
    x = rng.permutation(2 * 7 * 9 * 2).reshape(2, 7, 9, 2).astype(np.float64)
    rows, cols = np.array([0, 2, 3, 5, 7]), np.array([0, 2, 3, 5, 7, 9])
    grad = rng.standard_normal((2, 4, 5, 2))
    for overlapping in (False, True):
        max_grad, avg_grad = _run([
            apply_op("FractionalMaxPoolGrad", orig_input=x, orig_output=np.zeros(grad.shape),
                     out_backprop=grad, row_pooling_sequence=rows, col_pooling_sequence=cols,
                     overlapping=overlapping),
            apply_op("FractionalAvgPoolGrad", orig_input_tensor_shape=np.array([2, 7, 9, 2]),
                     out_backprop=grad, row_pooling_sequence=rows, col_pooling_sequence=cols,
                     overlapping=overlapping)])
        np.testing.assert_allclose(max_grad.sum(), grad.sum(), rtol=1e-12)
        expected_avg = np.zeros_like(x)
        for i, (a, b) in enumerate(_regions(rows, 7, overlapping)):
            for j, (p, q) in enumerate(_regions(cols, 9, overlapping)):
                expected_avg[:, a:b, p:q] += grad[:, i, j][:, None, None] / ((b - a) * (q - p))
                window = x[:, a:b, p:q].reshape(2, -1, 2)
                winner = np.argmax(window, axis=1)
                for n in range(2):
                    for c in range(2):
                        r, s = np.unravel_index(winner[n, c], (b - a, q - p))
                        assert max_grad[n, a + r, p + s, c] != 0
        np.testing.assert_allclose(avg_grad, expected_avg, rtol=1e-12)


@pytest.mark.parametrize("ratio, message", [
    ([1.0, 1.5, 1.5], "pooling_ratio"),
    ([2.0, 1.5, 1.5, 1.0], "not yet supported on the batch nor channel"),
    ([1.0, 0.5, 1.5, 1.0], "cannot be smaller than 1"),
])
def test_build_time_errors(ratio, message):
    with pytest.raises(ValueError, match=message):
        tf.nn.fractional_max_pool(tf.zeros([1, 4, 4, 1]), ratio)
