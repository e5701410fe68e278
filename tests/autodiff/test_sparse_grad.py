"""Gradients of the segment and sparse ops (minitf/autodiff/sparse_grad.py).

Every op type with a gradient in sparse_grad.py has cases in
GRADIENT_CASES, each checked numerically in float64 with
tf.test.compute_gradient_error (symbolic Jacobian against central
differences). Max/min cases avoid ties; product cases include segments with
one zero and with two zeros, the three branches of the product gradient.
The fused gradient kernels (SparseSegmentMeanGrad, SparseSegmentSqrtNGrad,
SparseFillEmptyRowsGrad) are also checked directly against NumPy.
"""

import numpy as np
import pytest

import minitf as tf
from minitf.autodiff import registry
from minitf.ops import sparse_ops


class Case:
    """One numeric gradient check: y = build(*xs) at the point `inputs` (float64 arrays).

    With `static=False` the inputs enter through placeholders of unknown
    shape, so the gradient functions take their dynamic-shape paths.
    """

    def __init__(self, name, build, *inputs, static=True, tolerance=1e-8):
        self.name = name
        self.build = build
        self.inputs = [np.asarray(v, dtype=np.float64) for v in inputs]
        self.static = static
        self.tolerance = tolerance

    def __repr__(self):
        return self.name


def V(*shape, offset=0.0):
    """Distinct, well-separated values of `shape`: a point without ties to differentiate at."""
    count = int(np.prod(shape))
    return (np.arange(count, dtype=np.float64) * 0.37 + 0.1 + offset).reshape(shape)


def _shuffled(*shape, seed=0):
    """Distinct values in no particular order (so a segment's max is not always its last row)."""
    values = V(*shape).reshape(-1)
    return np.random.RandomState(seed).permutation(values).reshape(shape)


# Products of several factors (and softmax) are not linear: finite differences carry an
# O(delta^2) error.
_PROD_TOLERANCE = 1e-6

_INDICES_2D = [[0, 1], [1, 0], [1, 2], [3, 3]]
_FILL_INDICES = [[0, 1], [2, 0], [2, 2], [4, 1]]


def _fill_empty_rows_values(values, default_value):
    sp = tf.SparseTensor(_FILL_INDICES, values, [6, 4])
    filled, _ = tf.sparse_fill_empty_rows(sp, default_value)
    return filled.values * tf.constant(np.arange(7, dtype=np.float64) + 1.0)


def _fill_empty_rows_unordered(values):
    sp = tf.SparseTensor([[2, 1], [0, 0], [2, 0]], values, [4, 2])
    filled, _ = tf.sparse_fill_empty_rows(sp, tf.constant(-1.0, tf.float64))
    return filled.values * tf.constant([1.0, 2.0, 3.0, 4.0, 5.0], tf.float64)


def _sparse_add_values(a, b):
    total = tf.sparse_add(tf.SparseTensor([[0, 1], [1, 0], [2, 3]], a, [3, 4]),
                          tf.SparseTensor([[0, 1], [2, 2]], b, [3, 4]))
    return tf.sparse_tensor_to_dense(total) * tf.constant(V(3, 4))


GRADIENT_CASES = {
    "SegmentSum": [
        Case("vector", lambda x: tf.segment_sum(x, [0, 0, 1, 3]), V(4)),
        Case("rows", lambda x: tf.segment_sum(x, [0, 0, 2]), V(3, 2)),
        Case("3d_int64_ids", lambda x: tf.segment_sum(x, tf.constant([1, 1], tf.int64)),
             V(2, 2, 3)),
        Case("unknown_shape", lambda x: tf.segment_sum(x, [0, 1, 1]), V(3, 2), static=False),
    ],
    "SegmentMean": [
        Case("vector", lambda x: tf.segment_mean(x, [0, 0, 0, 2]), V(4)),
        Case("rows", lambda x: tf.segment_mean(x, [0, 1, 1]), V(3, 2)),
        Case("3d", lambda x: tf.segment_mean(x, [0, 0, 1]), V(3, 2, 2)),
        Case("unknown_shape", lambda x: tf.segment_mean(x, [1, 1, 2]), V(3, 2), static=False),
    ],
    "SegmentMax": [
        Case("vector", lambda x: tf.segment_max(x, [0, 0, 1, 1, 1]), _shuffled(5)),
        Case("rows", lambda x: tf.segment_max(x, [0, 0, 2, 2]), _shuffled(4, 3, seed=1)),
        Case("unknown_shape", lambda x: tf.segment_max(x, [0, 0, 0]), _shuffled(3, 2, seed=2),
             static=False),
    ],
    "SegmentMin": [
        Case("vector", lambda x: tf.segment_min(x, [0, 1, 1, 1, 3]), _shuffled(5, seed=3)),
        Case("rows", lambda x: tf.segment_min(x, [1, 1, 1, 2]), _shuffled(4, 3, seed=4)),
    ],
    "SegmentProd": [
        Case("no_zeros", lambda x: tf.segment_prod(x, [0, 0, 0, 2]), V(4, 2),
             tolerance=_PROD_TOLERANCE),
        Case("one_zero", lambda x: tf.segment_prod(x, [0, 0, 1, 1]),
             [1.5, 0.0, 2.0, -0.5], tolerance=_PROD_TOLERANCE),
        Case("two_zeros", lambda x: tf.segment_prod(x, [0, 0, 0, 1]),
             [0.0, 1.5, 0.0, 2.0], tolerance=_PROD_TOLERANCE),
    ],
    "UnsortedSegmentMax": [
        Case("vector", lambda x: tf.unsorted_segment_max(x, [2, 0, 2, 0, 1], 4),
             _shuffled(5, seed=5)),
        Case("negative_ids", lambda x: tf.unsorted_segment_max(x, [1, -1, 0, 1], 3),
             _shuffled(4, 2, seed=6)),
        Case("2d_ids", lambda x: tf.unsorted_segment_max(x, [[0, 1], [1, 0]], 2),
             _shuffled(2, 2, 3, seed=7)),
    ],
    "UnsortedSegmentMin": [
        Case("vector", lambda x: tf.unsorted_segment_min(x, [1, 1, 0, 2, 0], 3),
             _shuffled(5, seed=8)),
        Case("negative_ids", lambda x: tf.unsorted_segment_min(x, [-1, 0, 0], 2),
             _shuffled(3, 2, seed=9)),
    ],
    "UnsortedSegmentProd": [
        Case("vector", lambda x: tf.unsorted_segment_prod(x, [1, 0, 1, 1], 3), V(4),
             tolerance=_PROD_TOLERANCE),
        Case("zeros_and_negative_ids",
             lambda x: tf.unsorted_segment_prod(x, [0, 1, 0, -1, 1, 1], 2),
             [0.0, 1.5, 2.0, 3.0, 0.0, 0.0], tolerance=_PROD_TOLERANCE),
        Case("rows", lambda x: tf.unsorted_segment_prod(x, [1, 1, 0], 2), V(3, 2),
             tolerance=_PROD_TOLERANCE),
    ],
    "SparseSegmentSum": [
        Case("vector", lambda x: tf.sparse_segment_sum(x, [0, 2, 2, 3], [0, 0, 1, 1]), V(4)),
        Case("rows_repeated_index", lambda x: tf.sparse_segment_sum(x, [1, 1, 0], [0, 2, 2]),
             V(3, 2)),
        Case("unknown_shape", lambda x: tf.sparse_segment_sum(
            x, tf.constant([3, 0], tf.int64), [0, 1]), V(4, 2), static=False),
    ],
    "SparseSegmentSumWithNumSegments": [
        Case("trailing_empty", lambda x: tf.sparse_segment_sum(x, [0, 1], [0, 0],
                                                               num_segments=3), V(3, 2)),
        Case("3d", lambda x: tf.sparse_segment_sum(x, [2, 0, 2], [1, 1, 2], num_segments=4),
             V(3, 2, 2)),
    ],
    "SparseSegmentMean": [
        Case("vector", lambda x: tf.sparse_segment_mean(x, [0, 2, 3, 1, 1], [0, 0, 0, 2, 2]),
             V(4)),
        Case("rows", lambda x: tf.sparse_segment_mean(x, [2, 0], [1, 1]), V(3, 2)),
        Case("unknown_shape", lambda x: tf.sparse_segment_mean(x, [0, 0, 1], [0, 1, 1]),
             V(2, 3), static=False),
    ],
    "SparseSegmentMeanWithNumSegments": [
        Case("rows", lambda x: tf.sparse_segment_mean(x, [0, 1, 2], [0, 0, 1],
                                                      num_segments=4), V(3, 2)),
        Case("3d", lambda x: tf.sparse_segment_mean(x, [1, 1], [2, 2], num_segments=3),
             V(2, 2, 2)),
    ],
    "SparseSegmentSqrtN": [
        Case("vector", lambda x: tf.sparse_segment_sqrt_n(x, [0, 1, 2, 3], [0, 0, 0, 1]),
             V(4)),
        Case("rows", lambda x: tf.sparse_segment_sqrt_n(x, [2, 0, 2], [0, 0, 1]), V(3, 2)),
    ],
    "SparseSegmentSqrtNWithNumSegments": [
        Case("rows", lambda x: tf.sparse_segment_sqrt_n(x, [0, 1], [1, 1], num_segments=3),
             V(2, 2)),
        Case("unknown_shape", lambda x: tf.sparse_segment_sqrt_n(
            x, [0, 2, 1], [0, 0, 0], num_segments=2), V(3, 2), static=False),
    ],
    "SparseToDense": [
        Case("matrix_indices", lambda v, d: tf.sparse_to_dense(_INDICES_2D, [4, 4], v, d),
             V(4), 0.5),
        Case("vector_indices", lambda v, d: tf.sparse_to_dense([1, 3], [5], v, d), V(2), -1.0),
        Case("scalar_value", lambda v, d: tf.sparse_to_dense([[0, 0], [1, 1]], [2, 3], v, d),
             2.0, 0.25),
        Case("sparse_tensor_to_dense", lambda v: tf.sparse_tensor_to_dense(
            tf.SparseTensor(_INDICES_2D, v, [4, 5])), V(4)),
    ],
    "SparseReorder": [
        Case("matrix", lambda v: tf.sparse_reorder(
            tf.SparseTensor([[2, 1], [0, 3], [1, 0], [0, 0]], v, [3, 4])).values
            * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64), V(4)),
        Case("already_ordered", lambda v: tf.sparse_reorder(
            tf.SparseTensor([[0], [2]], v, [3])).values * 3.0, V(2)),
    ],
    "SparseAdd": [
        Case("overlapping", _sparse_add_values, V(3), V(2, offset=1.0)),
        Case("threshold_drops_a_sum", lambda a, b: tf.sparse_add(
            tf.SparseTensor([[0], [2]], a, [4]), tf.SparseTensor([[2], [3]], b, [4]),
            threshold=0.1).values * tf.constant([2.0, 3.0], tf.float64),
            [0.5, 1.0], [-1.0, 2.0]),
    ],
    "SparseTensorDenseAdd": [
        Case("sparse_and_dense", lambda v, d: tf.sparse_add(
            tf.SparseTensor(_INDICES_2D, v, [4, 4]), d), V(4), V(4, 4)),
        Case("dense_first_int32_indices", lambda d, v: tf.sparse_add(
            d, tf.SparseTensor(tf.constant([[0, 0, 1], [1, 1, 0]], tf.int64), v, [2, 2, 2])),
            V(2, 2, 2), V(2)),
    ],
    "SparseFillEmptyRows": [
        Case("values_and_default", _fill_empty_rows_values, V(4), 1.5),
        Case("unordered_rows", _fill_empty_rows_unordered, V(3)),
    ],
    "SparseTensorDenseMatMul": [
        Case("plain", lambda v, b: tf.sparse.matmul(
            tf.SparseTensor(_INDICES_2D, v, [4, 4]), b), V(4), V(4, 3)),
        Case("adjoint_a", lambda v, b: tf.sparse.matmul(
            tf.SparseTensor(_INDICES_2D, v, [4, 5]), b, adjoint_a=True), V(4), V(4, 2)),
        Case("adjoint_b", lambda v, b: tf.sparse.matmul(
            tf.SparseTensor(_INDICES_2D, v, [4, 4]), b,
            adjoint_b=True), V(4), V(3, 4)),
        Case("both_adjoint", lambda v, b: tf.sparse.matmul(
            tf.SparseTensor(_INDICES_2D, v, [4, 4]), b, adjoint_a=True, adjoint_b=True),
            V(4), V(2, 4)),
    ],
    "SparseReduceSum": [
        Case("all", lambda v: tf.sparse.reduce_sum(tf.SparseTensor(_INDICES_2D, v, [4, 4])),
             V(4)),
        Case("rows_keepdims", lambda v: tf.sparse.reduce_sum(
            tf.SparseTensor(_INDICES_2D, v, [4, 4]), 1, keepdims=True)
            * tf.constant([[1.0], [2.0], [3.0], [4.0]], tf.float64), V(4)),
        Case("3d_two_axes", lambda v: tf.sparse.reduce_sum(tf.SparseTensor(
            [[0, 0, 1], [0, 2, 0], [1, 1, 1]], v, [2, 3, 2]), [0, -1])
            * tf.constant([1.0, 2.0, 3.0], tf.float64), V(3)),
    ],
    "SparseSoftmax": [
        Case("rows", lambda v: tf.sparse.softmax(tf.SparseTensor(
            [[0, 0], [0, 2], [0, 3], [1, 1], [2, 0], [2, 1]], v, [3, 4])).values
            * tf.constant(V(6, offset=1.0)), _shuffled(6), tolerance=_PROD_TOLERANCE),
        Case("3d", lambda v: tf.sparse.softmax(tf.SparseTensor(
            [[0, 0, 0], [0, 0, 2], [1, 1, 0], [1, 1, 1]], v, [2, 2, 3])).values
            * tf.constant([1.0, -2.0, 0.5, 3.0], tf.float64), V(4), tolerance=_PROD_TOLERANCE),
    ],
    "SparseSlice": [
        Case("box", lambda v: tf.sparse.slice(tf.SparseTensor(_INDICES_2D, v, [4, 4]),
                                              [1, 0], [3, 3]).values
             * tf.constant([2.0, 3.0], tf.float64), V(4)),
    ],
}

_ALL_CASES = [(op_type, case) for op_type, cases in GRADIENT_CASES.items() for case in cases]


def _inputs_of(case):
    """The tensors the checker perturbs: constants, or placeholders of unknown shape."""
    if case.static:
        return [tf.constant(v) for v in case.inputs]
    return [tf.placeholder_with_default(v, shape=None) for v in case.inputs]


@pytest.mark.parametrize("op_type, case", _ALL_CASES,
                         ids=["%s-%s" % (op_type, case.name) for op_type, case in _ALL_CASES])
def test_gradient_matches_finite_differences(op_type, case):
    xs = _inputs_of(case)
    y = case.build(*xs)
    assert op_type in {op.type for op in tf.get_default_graph().get_operations()}
    with tf.Session() as sess:
        y_shape = sess.run(y).shape
        error = tf.test.compute_gradient_error(xs, [v.shape for v in case.inputs], y, y_shape,
                                               x_init_value=case.inputs)
    assert error < case.tolerance


# TensorFlow registers gradients for these that raise NotImplementedError.
_REFUSING = {"SparseSparseMaximum", "SparseSparseMinimum", "SparseDenseCwiseAdd"}


def test_every_registered_sparse_gradient_has_cases():
    sparse_grad_types = {op_type for op_type, fn in registry.registered_gradients().items()
                         if fn.__module__ == "minitf.autodiff.sparse_grad"}
    assert sparse_grad_types == set(GRADIENT_CASES) | _REFUSING


@pytest.mark.parametrize("op_type, build", [
    ("SparseSparseMaximum", lambda a, v: tf.sparse.maximum(a, a).values),
    ("SparseSparseMinimum", lambda a, v: tf.sparse.minimum(a, a).values),
    ("SparseDenseCwiseAdd", lambda a, v: sparse_ops.sparse_dense_cwise_add(a, v)),
])
def test_a_gradient_tensorflow_leaves_unimplemented_raises(op_type, build):
    values = tf.constant([1.0, 2.0])
    sp = tf.SparseTensor([[0, 0], [1, 1]], values, [2, 2])
    y = build(sp, tf.ones([2, 2]))
    with pytest.raises(NotImplementedError, match="Gradient for %s is not implemented."
                       % op_type):
        tf.gradients(y, values)


@pytest.mark.parametrize("op_type", ["SparseReshape", "SparseFillEmptyRowsGrad",
                                     "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad",
                                     "SparseAddGrad", "SparseConcat", "SparseReduceMax",
                                     "SparseReduceSumSparse", "SparseSplit",
                                     "SparseSliceGrad"])
def test_index_and_gradient_ops_are_not_differentiable(op_type):
    assert registry.is_registered(op_type)
    assert op_type not in registry.registered_gradients()


def test_sparse_reshape_passes_the_values_gradient_through():
    values = tf.constant([1.0, 2.0, 3.0], tf.float64)
    sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], values, [3, 4])
    reshaped = tf.sparse_reshape(sp, [2, -1])
    grad = tf.gradients(tf.reduce_sum(reshaped.values * [1.0, 10.0, 100.0]), [values])[0]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(grad), [1.0, 10.0, 100.0])


def test_sparse_to_dense_sends_no_gradient_to_indices_or_shape():
    indices = tf.constant([[0, 0], [1, 1]])
    shape = tf.constant([2, 2])
    values = tf.constant([1.0, 2.0], tf.float64)
    dense = tf.sparse_to_dense(indices, shape, values)
    grads = tf.gradients(tf.reduce_sum(dense), [indices, shape, values])
    assert grads[0] is None and grads[1] is None
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(grads[2]), [1.0, 1.0])


# --- the fused gradient kernels against NumPy ---------------------------------------------

def _sparse_segment_grad_reference(grad, indices, segment_ids, output_dim0, power):
    counts = np.bincount(segment_ids, minlength=grad.shape[0]).astype(grad.dtype)
    expected = np.zeros((output_dim0,) + grad.shape[1:], dtype=grad.dtype)
    for index, segment in zip(indices, segment_ids):
        expected[index] += grad[segment] / counts[segment] ** power
    return expected


@pytest.mark.parametrize("grad_fn, power", [(sparse_ops.sparse_segment_mean_grad, 1.0),
                                            (sparse_ops.sparse_segment_sqrt_n_grad, 0.5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_sparse_segment_gradients_match_numpy(grad_fn, power, dtype):
    grad = (np.arange(12).reshape(4, 3) + 1.0).astype(dtype)
    indices = np.array([4, 0, 4, 2, 1])
    segment_ids = np.array([0, 0, 1, 3, 3], dtype=np.int32)
    result = grad_fn(grad, indices, segment_ids, 6)
    assert result.dtype == tf.as_dtype(dtype)
    assert result.shape.as_list() == [6, 3]
    with tf.Session() as sess:
        value = sess.run(result)
    assert value.dtype == dtype
    np.testing.assert_allclose(
        value, _sparse_segment_grad_reference(grad, indices, segment_ids, 6, power), rtol=1e-6)


def test_fused_sparse_segment_gradient_checks_its_ids():
    grad = np.ones((2, 3), np.float32)
    ids = tf.placeholder(tf.int32, [None])
    result = sparse_ops.sparse_segment_mean_grad(grad, [0, 1], ids, 4)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Segment id 2 out of range"):
            sess.run(result, {ids: [0, 2]})
    bad_index = sparse_ops.sparse_segment_mean_grad(grad, [0, 7], [0, 1], 4)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Index 7 out of range"):
            sess.run(bad_index)


def test_sparse_fill_empty_rows_grad_kernel():
    reverse_index_map = tf.constant([0, 2, 3], tf.int64)
    grad_values = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    d_values, d_default = sparse_ops.sparse_fill_empty_rows_grad(reverse_index_map, grad_values)
    assert d_values.shape.as_list() == [3] and d_default.shape.as_list() == []
    with tf.Session() as sess:
        values, default = sess.run([d_values, d_default])
    np.testing.assert_allclose(values, [1.0, 3.0, 4.0])
    assert default == pytest.approx(2.0 + 5.0)
    assert default.dtype == np.float32
