"""Reductions built from reductions, segment means, counting, polynomials, linspace.

Values are checked against NumPy; node names and errors were read off a
reference TensorFlow (`tf.compat.v1`, graph mode), with the TF 1.15 ops
where newer TensorFlow builds others (Bincount, not DenseBincount;
AccumulateNV2, not AddN; LinSpace, not a composite). Property tests run
the reductions on random shapes, axes and float dtypes.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitf as tf

X = np.array([[1.0, 2.0, 3.0], [-4.0, 0.5, 8.0]], np.float32)


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    result = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return result if keepdims else np.squeeze(result, axis=axis)


def test_reduce_logsumexp_does_not_overflow():
    big = np.array([[1000.0, 1000.0], [-np.inf, 0.0]], np.float32)
    total, rows, kept = run([tf.reduce_logsumexp(X), tf.reduce_logsumexp(big, axis=1),
                             tf.math.reduce_logsumexp(X, axis=0, keepdims=True)])
    np.testing.assert_allclose(total, logsumexp(X), rtol=1e-6)
    np.testing.assert_allclose(rows, [1000 + np.log(2), 0.0], rtol=1e-6)
    np.testing.assert_allclose(kept, logsumexp(X, 0, keepdims=True), rtol=1e-6)
    assert tf.reduce_logsumexp(X).shape.as_list() == []
    assert tf.reduce_logsumexp(X, reduction_indices=[1], keep_dims=True).shape.as_list() == [2, 1]
    assert tf.reduce_logsumexp(X, name="lse").name == "lse:0"
    assert run(tf.reduce_logsumexp(np.full([2], -np.inf, np.float32))) == -np.inf


def test_reduce_variance_and_std():
    variance, std, per_row = run([tf.math.reduce_variance(X), tf.math.reduce_std(X),
                                  tf.math.reduce_std(X, axis=1, keepdims=True)])
    np.testing.assert_allclose(variance, np.var(X), rtol=1e-6)
    np.testing.assert_allclose(std, np.std(X), rtol=1e-6)
    np.testing.assert_allclose(per_row, np.std(X, axis=1, keepdims=True), rtol=1e-6)
    with tf.Graph().as_default():
        assert tf.math.reduce_variance(X).name == "reduce_variance/Mean_1:0"
        assert tf.math.reduce_std(X).name == "reduce_std/Sqrt:0"


def test_unsorted_segment_mean_and_sqrt_n():
    data = np.arange(8.0).reshape(4, 2)
    ids = [0, 2, 0, -1]
    mean, sqrt_n = run([tf.math.unsorted_segment_mean(data, ids, 3),
                        tf.unsorted_segment_sqrt_n(data, ids, 3)])
    np.testing.assert_allclose(mean, [[2, 3], [0, 0], [2, 3]])
    np.testing.assert_allclose(sqrt_n, [[4 / np.sqrt(2), 6 / np.sqrt(2)], [0, 0], [2, 3]])
    assert tf.unsorted_segment_mean(data, ids, 3).name == "UnsortedSegmentMean_1/truediv:0"


def test_accumulate_n_sums_like_add_n():
    a, b = tf.constant(X), tf.constant(2 * X)
    total = tf.accumulate_n([a, b, a])
    assert total.op.type == "AccumulateNV2" and total.shape.as_list() == [2, 3]
    np.testing.assert_allclose(run(total), 4 * X)
    assert tf.math.accumulate_n([a]) is a
    with pytest.raises(ValueError, match="inputs must be a list"):
        tf.accumulate_n([])
    with pytest.raises(TypeError, match="tensor_dtype is"):
        tf.accumulate_n([a, b], tensor_dtype=tf.float64)
    with pytest.raises(ValueError):
        tf.accumulate_n([a, b], shape=[3, 2])


def test_bincount_counts_and_weighs():
    counts, weighted, clipped, empty = run([
        tf.bincount([1, 1, 3, 0]), tf.math.bincount([1, 1, 3], weights=[0.5, 0.5, 2.0],
                                                    minlength=6),
        tf.bincount([5, 1, 1], maxlength=3), tf.bincount(tf.zeros([0], tf.int32))])
    assert counts.tolist() == [1, 2, 0, 1] and counts.dtype == np.int32
    assert weighted.tolist() == [0, 1, 0, 2, 0, 0]
    assert clipped.tolist() == [0, 2, 0] and empty.tolist() == []
    assert run(tf.bincount([2], dtype=tf.float64)).dtype == np.float64
    with tf.Graph().as_default():
        assert tf.bincount([1]).name == "bincount/Bincount:0"


def test_bincount_refuses_a_negative_size():
    from minitf.graph.op_def_library import apply_op
    with pytest.raises(ValueError, match=r"size \(-1\) must be non-negative"):
        apply_op("Bincount", arr=[1], size=-1, weights=tf.constant([], tf.float32))
    size = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
        run(apply_op("Bincount", arr=[1], size=size, weights=tf.constant([], tf.float32)),
            {size: -2})


def test_polyval_uses_horners_rule():
    x = tf.constant([0.0, 1.0, 2.0])
    value = tf.math.polyval([1.0, 2.0, 3.0], x)
    assert value.name == "polyval/add_1:0"
    np.testing.assert_allclose(run(value), np.polyval([1, 2, 3], [0, 1, 2]))
    assert run(tf.math.polyval([], x)).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="must be list"):
        tf.math.polyval(np.ones(2), x)


@pytest.mark.parametrize("values, non_decreasing, strictly_increasing", [
    ([1, 2, 2, 5], True, False), ([1, 2, 3], True, True), ([3, 1], False, False),
    ([[1, 2], [3, 4]], True, True), ([7], True, True), ([], True, True),
])
def test_monotonic_sequences(values, non_decreasing, strictly_increasing):
    x = tf.constant(values, tf.float32)
    assert run([tf.is_non_decreasing(x), tf.math.is_strictly_increasing(x)]) == [
        non_decreasing, strictly_increasing]
    with pytest.raises(TypeError, match="Expected x to be numeric"):
        tf.is_non_decreasing(tf.constant(["a"]))


def test_linspace_includes_both_ends():
    values = tf.linspace(-1.0, 1.0, 5)
    assert values.op.name == "LinSpace" and values.shape.as_list() == [5]
    np.testing.assert_allclose(run(values), np.linspace(-1, 1, 5))
    assert tf.lin_space is tf.linspace
    with pytest.raises(ValueError, match="Requires num > 0: 0"):
        tf.linspace(0.0, 1.0, 0)
    num = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires num > 0: -1"):
        run(tf.linspace(0.0, 1.0, num), {num: -1})
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        tf.linspace(0, 1, 3)


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), data=st.data())
def test_reductions_on_random_shapes(dtype, shape, data):
    x = data.draw(hnp.arrays(dtype, shape, elements=st.floats(
        -30, 30, width=np.dtype(dtype).itemsize * 8)))
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    keepdims = data.draw(st.booleans())
    with tf.Graph().as_default():
        placeholder = tf.placeholder(dtype, None)
        results = run([tf.reduce_logsumexp(placeholder, axis, keepdims),
                       tf.math.reduce_variance(placeholder, axis, keepdims),
                       tf.math.reduce_std(placeholder, axis, keepdims)], {placeholder: x})
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(results[0], logsumexp(x.astype(np.float64), axis, keepdims),
                               rtol=rtol, atol=1e-5)
    np.testing.assert_allclose(results[1], np.var(x.astype(np.float64), axis=axis,
                                                  keepdims=keepdims), rtol=rtol, atol=1e-3)
    np.testing.assert_allclose(results[2], np.std(x.astype(np.float64), axis=axis,
                                                  keepdims=keepdims), rtol=rtol, atol=1e-3)


def test_reduce_euclidean_norm():
    norm, rows, ints, z = run([
        tf.math.reduce_euclidean_norm(X), tf.math.reduce_euclidean_norm(X, 1, keepdims=True),
        tf.math.reduce_euclidean_norm([3, 4]),
        tf.math.reduce_euclidean_norm(tf.constant([3 + 4j, 0j], tf.complex64))])
    np.testing.assert_allclose(norm, np.linalg.norm(X), rtol=1e-6)
    np.testing.assert_allclose(rows, np.linalg.norm(X, axis=1, keepdims=True), rtol=1e-6)
    assert ints == 5 and ints.dtype == np.int32 and z == 5
    with pytest.raises(TypeError, match="string not in list of allowed values"):
        tf.math.reduce_euclidean_norm(tf.constant(["a"]))


def test_cumulative_logsumexp_runs_in_logs():
    x = np.array([[-1000.0, 0.0, 1000.0], [1.0, 2.0, 3.0]])
    running, exclusive_reversed = run([
        tf.math.cumulative_logsumexp(x, axis=1),
        tf.math.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True)])
    np.testing.assert_allclose(running, np.logaddexp.accumulate(x, axis=1), rtol=1e-12)
    expected = np.logaddexp.accumulate(x[:, ::-1], axis=1)[:, ::-1]
    np.testing.assert_allclose(exclusive_reversed[:, :-1], expected[:, 1:], rtol=1e-12)
    assert (exclusive_reversed[:, -1] == -np.inf).all()
    assert tf.math.cumulative_logsumexp(x).op.type == "CumulativeLogsumexp"
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        tf.math.cumulative_logsumexp([1, 2])
