"""The tf.sparse expressions whose values and node names are checked against TensorFlow.

`cases(tf)` maps a case name to a function that builds the expression with
the module `tf` (minitf, or the reference `tensorflow.compat.v1`) in the
current graph and returns what to fetch. scripts/record_sparse_reference.py
records TensorFlow's values and node names into
tests/ops/data/sparse_reference.json; tests/ops/test_sparse_module.py
compares minitf with them.
"""

import numpy as np

_INDICES = [[0, 0], [0, 2], [1, 1], [2, 0], [2, 3]]
_VALUES = [1.0, -2.0, 3.0, 4.0, 0.5]
_SHAPE = [3, 4]


def _sp(tf, values=_VALUES, dtype=None):
    dtype = dtype or tf.float32
    return tf.SparseTensor(_INDICES, tf.constant(values, dtype), _SHAPE)


def _other(tf):
    return tf.SparseTensor([[0, 1], [1, 1], [2, 3]], tf.constant([-1.0, 5.0, 0.25]), _SHAPE)


def _dense(tf):
    return tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2) - 3)


def cases(tf):
    s = tf.sparse
    return {
        "from_dense": lambda: s.from_dense(tf.constant([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])),
        "from_dense_int": lambda: s.from_dense(tf.constant([[0, 7], [5, 0]])),
        "to_indicator": lambda: s.to_indicator(tf.SparseTensor(
            [[0, 0], [0, 1], [1, 0], [2, 0]], tf.constant([2, 0, 1, 1], tf.int64), [3, 2]), 4),
        "merge": lambda: s.merge(
            tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([3, 1, 0], tf.int64), [2, 2]),
            tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([0.5, 1.5, 2.5]), [2, 2]), 5),
        "expand_dims_0": lambda: s.expand_dims(_sp(tf), 0),
        "expand_dims_last": lambda: s.expand_dims(_sp(tf)),
        "expand_dims_neg2": lambda: s.expand_dims(_sp(tf), -2),
        "eye": lambda: s.eye(3),
        "eye_wide_int": lambda: s.eye(2, 4, dtype=tf.int32),
        "transpose": lambda: s.transpose(_sp(tf)),
        "transpose_3d": lambda: s.transpose(tf.SparseTensor(
            [[0, 1, 2], [1, 0, 1], [1, 2, 0]], tf.constant([1, 2, 3]), [2, 3, 4]), [2, 0, 1]),
        "reset_shape": lambda: s.reset_shape(_sp(tf), [4, 5]),
        "reset_shape_tight": lambda: s.reset_shape(tf.SparseTensor(
            [[0, 1], [1, 2]], tf.constant([1.0, 2.0]), [5, 6])),
        "matmul": lambda: s.matmul(_sp(tf), _dense(tf)),
        "matmul_adjoint_a": lambda: s.sparse_dense_matmul(
            _sp(tf), tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2)), adjoint_a=True),
        "matmul_adjoint_b": lambda: s.matmul(
            _sp(tf), tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4)), adjoint_b=True),
        "reduce_sum_all": lambda: s.reduce_sum(_sp(tf)),
        "reduce_sum_1": lambda: s.reduce_sum(_sp(tf), 1),
        "reduce_sum_0_keepdims": lambda: s.reduce_sum(_sp(tf), 0, keepdims=True),
        "reduce_sum_sparse_1": lambda: s.reduce_sum_sparse(_sp(tf), 1),
        "reduce_sum_sparse_0_keepdims": lambda: s.reduce_sum_sparse(_sp(tf), 0, keepdims=True),
        "reduce_max_1": lambda: s.reduce_max(_sp(tf), 1),
        "reduce_max_0": lambda: s.reduce_max(_sp(tf), 0),
        "reduce_max_sparse_0": lambda: s.reduce_max_sparse(_sp(tf), -2),
        "reduce_max_int_empty_column": lambda: s.reduce_max(
            _sp(tf, [1, -2, 3, 4, 5], tf.int32), 0),
        "softmax": lambda: s.softmax(_sp(tf)),
        "softmax_3d": lambda: s.softmax(tf.SparseTensor(
            [[0, 0, 0], [0, 0, 2], [0, 1, 1], [1, 0, 0], [1, 0, 1]],
            tf.constant([1.0, 2.0, 3.0, -1.0, 1.0], tf.float64), [2, 2, 3])),
        "maximum": lambda: s.maximum(_sp(tf), _other(tf)),
        "minimum": lambda: s.minimum(_sp(tf), _other(tf)),
        "slice": lambda: s.slice(_sp(tf), [0, 1], [2, 5]),
        "slice_empty": lambda: s.slice(_sp(tf), [3, 0], [1, 1]),
        "split_1": lambda: s.split(sp_input=_sp(tf), num_split=3, axis=1),
        "split_0": lambda: s.split(sp_input=_sp(tf), num_split=2, axis=0),
        "bincount": lambda: s.bincount([3, 1, 1, 5]),
        "bincount_minlength": lambda: s.bincount([3, 1, 1, 5], minlength=8),
        "bincount_maxlength": lambda: s.bincount([3, 1, 1, 5], maxlength=3),
        "bincount_rows": lambda: s.bincount([[3, 1, 1], [0, 0, 2]], axis=-1),
        "bincount_matrix_axis0": lambda: s.bincount([[3, 1, 1], [0, 0, 2]]),
        "bincount_weights": lambda: s.bincount(
            [[3, 1, 1], [0, 0, 2]], weights=[[0.5, 1, 2], [1, 1, 3]], axis=-1),
        "bincount_binary_int64": lambda: s.bincount(
            tf.constant([[3, 1, 1], [0, 0, 2]], tf.int64), binary_output=True, axis=-1),
        "bincount_sparse_rows": lambda: s.bincount(
            tf.SparseTensor([[0, 0], [0, 2], [2, 1]], [4, 1, 4], [3, 3]), axis=-1),
        "bincount_sparse": lambda: s.bincount(
            tf.SparseTensor([[0, 0], [0, 2], [2, 1]], [4, 1, 4], [3, 3])),
    }
