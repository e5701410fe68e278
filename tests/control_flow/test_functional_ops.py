"""tf.map_fn, tf.scan, tf.foldl and tf.foldr: while loops over the rows of a tensor."""

import numpy as np
import pytest

import minitf as tf

ROWS = np.arange(12.0).reshape(4, 3)


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_map_fn_applies_fn_to_each_row():
    squares = tf.map_fn(lambda row: row * row, tf.constant(ROWS))
    assert squares.shape.as_list() == [4, 3]
    np.testing.assert_array_equal(_run(squares), ROWS ** 2)
    assert squares.op.name == "map/TensorArrayStack/TensorArrayGatherV3"


def test_map_fn_over_structures_with_another_output_dtype():
    x = tf.constant(ROWS)
    sums, maxima = tf.map_fn(lambda pair: (tf.reduce_sum(pair[0] + pair[1]),
                                           tf.cast(tf.reduce_max(pair[0]), tf.int32)),
                             (x, x * 10.0), dtype=(tf.float64, tf.int32))
    values = _run([sums, maxima])
    np.testing.assert_allclose(values[0], (ROWS * 11).sum(axis=1))
    assert values[1].tolist() == [2, 5, 8, 11]


def test_map_fn_rows_known_only_at_run_time():
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.map_fn(lambda row: row[::-1], x)
    assert y.shape.as_list() == [None, 2]
    np.testing.assert_array_equal(_run(y, {x: [[1, 2], [3, 4], [5, 6]]}),
                                  [[2, 1], [4, 3], [6, 5]])


def test_scan_gives_the_running_results():
    x = tf.constant(ROWS)
    np.testing.assert_array_equal(_run(tf.scan(lambda a, r: a + r, x)), np.cumsum(ROWS, 0))
    np.testing.assert_array_equal(_run(tf.scan(lambda a, r: a + r, x, reverse=True)),
                                  np.cumsum(ROWS[::-1], 0)[::-1])
    counted = tf.scan(lambda a, r: a + 1, x, initializer=tf.constant(10))
    assert _run(counted).tolist() == [11, 12, 13, 14]
    pairs = tf.scan(lambda a, r: (a[0] + r, a[1] * 2.0), x,
                    initializer=(tf.zeros([3], tf.float64), tf.constant(1.0, tf.float64)))
    running, doubled = _run(pairs)
    np.testing.assert_array_equal(running, np.cumsum(ROWS, 0))
    assert doubled.tolist() == [2.0, 4.0, 8.0, 16.0]


def test_foldl_and_foldr():
    digits = tf.constant([1, 2, 3])
    assert _run(tf.foldl(lambda a, d: a * 10 + d, digits)) == 123
    assert _run(tf.foldr(lambda a, d: a * 10 + d, digits)) == 321
    assert _run(tf.foldl(lambda a, d: a * 10 + d, digits, initializer=4)) == 4123
    assert _run(tf.foldr(lambda a, d: a * 10 + d, digits, initializer=4)) == 4321
    np.testing.assert_array_equal(_run(tf.foldl(lambda a, r: a + r, tf.constant(ROWS))),
                                  ROWS.sum(axis=0))


@pytest.mark.parametrize("fn", [tf.map_fn, tf.scan, tf.foldl, tf.foldr])
def test_fn_must_be_callable(fn):
    with pytest.raises(TypeError, match="fn must be callable"):
        fn(3, tf.constant(ROWS))


def test_map_fn_refuses_a_sparse_tensor():
    with pytest.raises(TypeError, match="To perform a map on the values of a sparse tensor"):
        tf.map_fn(lambda x: x, tf.SparseTensor([[0, 0]], [1.0], [2, 2]))


def test_variables_made_in_fn_are_cached_where_they_are_read():
    seen = []

    def fn(row):
        seen.append(tf.get_variable_scope().caching_device)
        return row

    tf.map_fn(fn, tf.constant(ROWS))
    assert callable(seen[0])
    assert tf.get_variable_scope().caching_device is None  # restored afterwards
