"""Gradients of the array ops (minitf/autodiff/array_grad.py).

Every op type with a registered gradient in array_grad.py has cases in
GRADIENT_CASES, each checked numerically in float64 with
tf.test.compute_gradient_error (symbolic Jacobian against central
differences). A sparse (IndexedSlices) gradient is checked row by row by the
checker and, separately, after densifying it with indexed_slices_to_dense.
"""

import numpy as np
import pytest

import minitf as tf
from minitf.autodiff import registry
from minitf.autodiff.gradients_impl import indexed_slices_to_dense
from minitf.graph.sparse_tensor import IndexedSlices, IndexedSlicesValue
from minitf.ops import array_ops
from minitf.ops import embedding_ops


class Case:
    """One numeric gradient check: y = build(*xs) at the point `inputs` (float64 arrays).

    With `static=False` the inputs enter through placeholders of unknown
    shape, so the gradient functions take their dynamic-shape paths.
    """

    def __init__(self, name, build, *inputs, static=True):
        self.name = name
        self.build = build
        self.inputs = [np.asarray(v, dtype=np.float64) for v in inputs]
        self.static = static

    def __repr__(self):
        return self.name


def _values(*shape, offset=0.0):
    """Distinct, well-separated values of `shape`: a generic point to differentiate at."""
    count = int(np.prod(shape))
    return (np.arange(count, dtype=np.float64) * 0.37 + 0.1 + offset).reshape(shape)


V = _values


def _pair(x):
    return tf.identity_n([x, 2.0 * x])


GRADIENT_CASES = {
    "CheckNumerics": [
        Case("matrix", lambda x: tf.check_numerics(x, "x"), V(2, 3)),
    ],
    "Print": [
        Case("matrix", lambda x: tf.Print(x, [x], "x: ", first_n=0), V(2, 3)),
    ],
    "Identity": [
        Case("vector", tf.identity, V(3)),
        Case("matrix", tf.identity, V(2, 3)),
        Case("scalar", tf.identity, V()),
    ],
    "PlaceholderWithDefault": [
        Case("vector", lambda x: tf.placeholder_with_default(x, [3]), V(3)),
        Case("unknown_shape", lambda x: tf.placeholder_with_default(x, None), V(2, 3)),
    ],
    "IdentityN": [
        Case("two_outputs", lambda x, y: tf.concat(
            [tf.reshape(t, [-1]) for t in tf.identity_n([x, y])], 0), V(2, 2), V(3)),
        Case("one_output_unused", lambda x, y: tf.identity_n([x, y])[1] * 3.0, V(2), V(2, 3)),
        Case("mixed_dtypes", lambda x: tf.identity_n([x, tf.constant([1, 2])])[0], V(2, 2)),
    ],
    "Reshape": [
        Case("matrix_to_matrix", lambda x: tf.reshape(x, [3, 2]), V(2, 3)),
        Case("minus_one", lambda x: tf.reshape(x, [-1, 4]), V(2, 3, 4)),
        Case("vector_to_3d", lambda x: tf.reshape(x, [2, 1, 3]), V(6)),
        Case("unknown_shape", lambda x: tf.reshape(x, [-1]), V(2, 3), static=False),
    ],
    "ExpandDims": [
        Case("axis_0", lambda x: tf.expand_dims(x, 0), V(2, 3)),
        Case("axis_minus_1", lambda x: tf.expand_dims(x, -1), V(2, 3)),
        Case("scalar", lambda x: tf.expand_dims(x, 0), V()),
        Case("unknown_shape", lambda x: tf.expand_dims(x, 1), V(3, 2), static=False),
    ],
    "Squeeze": [
        Case("all", tf.squeeze, V(1, 3, 1)),
        Case("one_axis", lambda x: tf.squeeze(x, [1]), V(2, 1, 3)),
        Case("unknown_shape", lambda x: tf.squeeze(x, [0]), V(1, 4), static=False),
    ],
    "Transpose": [
        Case("matrix", tf.transpose, V(2, 3)),
        Case("3d_perm", lambda x: tf.transpose(x, [1, 2, 0]), V(2, 3, 4)),
        Case("4d_perm", lambda x: tf.transpose(x, [3, 1, 0, 2]), V(2, 1, 3, 2)),
    ],
    "Diag": [
        Case("vector", tf.diag, V(3)),
        Case("matrix", tf.diag, V(2, 2)),
    ],
    "DiagPart": [
        Case("matrix", tf.diag_part, V(3, 3)),
        Case("rank_4", tf.diag_part, V(2, 3, 2, 3)),
        Case("unknown_shape", tf.diag_part, V(2, 2), static=False),
    ],
    "ConcatV2": [
        Case("axis_0", lambda a, b: tf.concat([a, b], 0), V(2, 3), V(1, 3)),
        Case("axis_1_three", lambda a, b, c: tf.concat([a, b, c], 1), V(2, 1), V(2, 3), V(2, 2)),
        Case("negative_axis", lambda a, b: tf.concat([a, b], -1), V(2, 2, 1), V(2, 2, 2)),
        Case("int64_axis", lambda a, b: tf.concat([a, b], tf.constant(0, tf.int64)),
             V(1, 2), V(2, 2)),
        Case("unknown_shapes", lambda a, b: tf.concat([a, b], 1), V(2, 2), V(2, 3),
             static=False),
        # A gather after the concat sends it a sparse gradient.
        Case("sparse_axis_0", lambda a, b: tf.gather(tf.concat([a, b], 0), [3, 0, 3, 1]),
             V(2, 2), V(2, 2)),
        Case("sparse_axis_1", lambda a, b: tf.gather(tf.concat([a, b], 1), [2, 0, 2]),
             V(3, 1), V(3, 2)),
    ],
    "Pack": [
        Case("axis_0", lambda a, b: tf.stack([a, b]), V(3), V(3)),
        Case("axis_1_three", lambda a, b, c: tf.stack([a, b, c], axis=1), V(2, 2), V(2, 2),
             V(2, 2)),
        Case("axis_minus_1", lambda a, b: tf.stack([a, b], axis=-1), V(2, 3), V(2, 3)),
    ],
    "Unpack": [
        Case("axis_0", lambda x: tf.concat(
            [t * float(i + 1) for i, t in enumerate(tf.unstack(x))], 0), V(3, 2)),
        Case("axis_1", lambda x: tf.stack(tf.unstack(x, axis=1)[::-1]), V(2, 3, 2)),
        Case("one_output_used", lambda x: tf.unstack(x, axis=-1)[1], V(2, 3)),
    ],
    "Split": [
        Case("axis_0", lambda x: tf.concat(
            [t * float(i + 1) for i, t in enumerate(tf.split(x, 3))], 1), V(6, 2)),
        Case("axis_1", lambda x: tf.split(x, 2, axis=1)[1], V(2, 4)),
        Case("axis_minus_1_3d", lambda x: tf.split(x, 2, axis=-1)[0], V(2, 1, 4)),
    ],
    "SplitV": [
        Case("sizes", lambda x: tf.concat(
            [tf.reshape(t, [-1]) * float(i + 1) for i, t in enumerate(
                tf.split(x, [1, 2, 3], axis=1))], 0), V(2, 6)),
        Case("minus_one", lambda x: tf.split(x, [2, -1], axis=0)[1], V(5, 2)),
    ],
    "Slice": [
        Case("matrix", lambda x: tf.slice(x, [1, 2], [2, -1]), V(4, 5)),
        Case("3d", lambda x: tf.slice(x, [0, 1, 1], [2, 1, 2]), V(2, 3, 3)),
        Case("int64_begin", lambda x: tf.slice(x, tf.constant([1], tf.int64),
                                               tf.constant([2], tf.int64)), V(4)),
        Case("unknown_shape", lambda x: tf.slice(x, [1, 0], [1, 2]), V(3, 2), static=False),
    ],
    "StridedSlice": [
        Case("range", lambda x: x[1:3], V(4, 2)),
        Case("reverse_and_shrink", lambda x: x[::-1, 1], V(3, 3)),
        Case("ellipsis_new_axis", lambda x: x[..., tf.newaxis, 0:2], V(2, 3)),
        Case("strides", lambda x: x[::2, ::-3], V(5, 7)),
        Case("unknown_shape", lambda x: x[1:, :-1], V(3, 3), static=False),
    ],
    "StridedSliceGrad": [
        Case("rows", lambda dy: array_ops.strided_slice_grad([4, 3], [1, 0], [3, 3], [1, 2], dy),
             V(2, 2)),
        Case("shrink", lambda dy: array_ops.strided_slice_grad(
            [3, 4], [1], [2], [1], dy, shrink_axis_mask=1), V(4)),
    ],
    "GatherV2": [
        Case("axis_0_repeated", lambda p: tf.gather(p, [2, 0, 2]), V(4, 3)),
        Case("axis_0_matrix_indices", lambda p: tf.gather(p, [[1, 1], [0, 3]]), V(4, 2)),
        Case("axis_0_vector", lambda p: tf.gather(p, [3, 1, 3, 3]), V(5)),
        Case("axis_1", lambda p: tf.gather(p, [2, 0, 2], axis=1), V(2, 3, 2)),
        Case("axis_minus_1", lambda p: tf.gather(p, [[1], [0]], axis=-1), V(3, 2)),
        Case("batch_dims", lambda p: tf.gather(p, [[0, 2, 2], [1, 1, 0]], axis=1, batch_dims=1),
             V(2, 3, 2)),
        Case("batch_dims_inner_axis", lambda p: tf.gather(p, [[3, 0], [1, 1]], axis=2,
                                                          batch_dims=1), V(2, 2, 4)),
        Case("unknown_shape", lambda p: tf.gather(p, [1, 0, 1]), V(3, 2), static=False),
    ],
    "GatherNd": [
        Case("rows_sparse", lambda p: tf.gather_nd(p, [[2], [0], [2]]), V(3, 2)),
        Case("elements", lambda p: tf.gather_nd(p, [[0, 1], [2, 0], [0, 1]]), V(3, 2)),
        Case("3d_slices", lambda p: tf.gather_nd(p, [[[1, 0]], [[0, 1]]]), V(2, 2, 3)),
    ],
    "ScatterNd": [
        Case("vector", lambda u: tf.scatter_nd([[1], [3], [1]], u, [5]), V(3)),
        Case("rows", lambda u: tf.scatter_nd([[2], [0]], u, [3, 2]), V(2, 2)),
        Case("elements_int64", lambda u: tf.scatter_nd(
            tf.constant([[0, 1], [1, 1]], tf.int64), u, tf.constant([2, 3], tf.int64)), V(2)),
    ],
    "Pad": [
        Case("matrix", lambda x: tf.pad(x, [[1, 2], [0, 1]]), V(2, 3)),
        Case("3d", lambda x: tf.pad(x, [[0, 0], [1, 1], [2, 0]]), V(1, 2, 2)),
        Case("int64_paddings", lambda x: tf.pad(x, tf.constant([[2, 1]], tf.int64)), V(3)),
        Case("unknown_shape", lambda x: tf.pad(x, [[1, 0], [0, 1]]), V(2, 2), static=False),
    ],
    "PadV2": [
        Case("matrix", lambda x: tf.pad(x, [[1, 0], [1, 1]], constant_values=1.5), V(2, 2)),
        Case("vector", lambda x: tf.pad(x, [[0, 3]], constant_values=-2.0), V(3)),
    ],
    "MirrorPad": [
        Case("reflect", lambda x: tf.pad(x, [[1, 2], [2, 1]], mode="REFLECT"), V(3, 4)),
        Case("symmetric", lambda x: tf.pad(x, [[2, 2], [1, 0]], mode="SYMMETRIC"), V(3, 2)),
        Case("reflect_vector", lambda x: tf.pad(x, [[2, 2]], mode="REFLECT"), V(3)),
    ],
    "MirrorPadGrad": [
        Case("reflect", lambda g: array_ops.mirror_pad_grad(g, [[2, 2]], mode="REFLECT"),
             V(7)),
        Case("symmetric", lambda g: array_ops.mirror_pad_grad(
            g, [[1, 1], [0, 2]], mode="SYMMETRIC"), V(4, 4)),
    ],
    "Tile": [
        Case("rows", lambda x: tf.tile(x, [2, 1]), V(2, 3)),
        Case("vector", lambda x: tf.tile(x, [3]), V(2)),
        Case("3d", lambda x: tf.tile(x, [1, 2, 2]), V(2, 1, 2)),
        # A gather after the tile sends it a sparse gradient.
        Case("sparse", lambda x: tf.gather(tf.tile(x, [3, 1]), [5, 0, 2, 5]), V(2, 2)),
    ],
    "ReverseV2": [
        Case("axis_0", lambda x: tf.reverse(x, [0]), V(3, 2)),
        Case("both_axes", lambda x: tf.reverse(x, [1, 0]), V(2, 3)),
        Case("negative_axis", lambda x: tf.reverse(x, [-1]), V(2, 2, 3)),
    ],
    "DynamicPartition": [
        Case("vector", lambda d: tf.concat(embedding_ops._dynamic_partition(
            d, [1, 0, 1, 2], 3), 0), V(4)),
        Case("rows", lambda d: tf.concat(embedding_ops._dynamic_partition(
            d, [1, 1, 0], 2), 0), V(3, 2)),
        Case("matrix_partitions", lambda d: embedding_ops._dynamic_partition(
            d, [[0, 1], [1, 1]], 2)[1], V(2, 2, 2)),
    ],
    "ParallelDynamicStitch": [
        Case("two_pieces", lambda a, b: embedding_ops._parallel_dynamic_stitch(
            [[0, 3], [2, 1]], [a, b]), V(2), V(2)),
        Case("rows", lambda a, b: embedding_ops._parallel_dynamic_stitch(
            [[2], [0, 1]], [a, b]), V(1, 3), V(2, 3)),
        # A lookup in a table split in two partitions gathers from each and stitches.
        Case("partitioned_embedding_lookup", lambda p0, p1: tf.nn.embedding_lookup(
            [p0, p1], [[3, 0], [2, 3]]), V(2, 2), V(2, 2)),
    ],
    "BroadcastTo": [
        Case("rows", lambda x: tf.broadcast_to(x, [3, 2]), V(2)),
        Case("both_ways", lambda x: tf.broadcast_to(x, [2, 3, 4]), V(3, 1)),
        Case("dynamic", lambda x: tf.broadcast_to(x, [2, 3]), V(1, 3), static=False),
    ],
    "Roll": [
        Case("vector", lambda x: tf.roll(x, 2, 0), V(5)),
        Case("two_axes", lambda x: tf.roll(x, [1, -1], [0, 1]), V(3, 4)),
    ],
    "ReverseSequence": [
        Case("rows", lambda x: tf.reverse_sequence(x, [2, 3], seq_axis=1, batch_axis=0),
             V(2, 4)),
        Case("batch_second", lambda x: tf.reverse_sequence(x, [1, 3, 2], seq_axis=0,
                                                            batch_axis=1), V(3, 3, 2)),
    ],
    "EnsureShape": [
        Case("matrix", lambda x: tf.ensure_shape(x, [None, 3]) * x, V(2, 3)),
    ],
    "DynamicStitch": [
        Case("two_pieces", lambda a, b: tf.dynamic_stitch([[0, 3], [2, 1]], [a, b]),
             V(2), V(2)),
        Case("rows", lambda a, b: tf.dynamic_stitch([[2], [0, 1]], [a, b]), V(1, 3), V(2, 3)),
    ],
    "TensorScatterUpdate": [
        Case("rows", lambda t, u: tf.tensor_scatter_nd_update(t, [[0], [2]], u), V(3, 2),
             V(2, 2, offset=5.0)),
        Case("elements", lambda t, u: tf.tensor_scatter_nd_update(t, [[0, 1], [1, 0]], u),
             V(2, 2), V(2, offset=5.0)),
    ],
    "TensorScatterAdd": [
        Case("repeated_index", lambda t, u: tf.tensor_scatter_nd_add(t, [[1], [1], [0]], u),
             V(3), V(3, offset=5.0)),
    ],
    "TensorScatterSub": [
        Case("rows", lambda t, u: tf.tensor_scatter_nd_sub(t, [[2], [0]], u), V(3, 2),
             V(2, 2, offset=5.0)),
    ],
    "TensorScatterMax": [
        # 0.1 and 0.47 win over the updates, the updates 5.0 and 5.37 win elsewhere.
        Case("mixed_winners", lambda t, u: tf.tensor_scatter_nd_max(t, [[0], [2], [3]], u),
             V(4), np.array([-1.0, 5.0, 5.37])),
    ],
    "TensorScatterMin": [
        Case("mixed_winners", lambda t, u: tf.tensor_scatter_nd_min(t, [[0], [2], [3]], u),
             V(4), np.array([-1.0, 5.0, -5.37])),
    ],
    "SpaceToBatchND": [
        Case("padded", lambda x: tf.space_to_batch_nd(x, [2, 2], [[0, 0], [1, 1]]),
             V(1, 4, 2, 1)),
    ],
    "BatchToSpaceND": [
        Case("cropped", lambda x: tf.batch_to_space_nd(x, [2, 2], [[0, 0], [1, 1]]),
             V(4, 2, 2, 1)),
    ],
    "SpaceToDepth": [
        Case("2x2", lambda x: tf.space_to_depth(x, 2), V(1, 4, 4, 2)),
    ],
    "DepthToSpace": [
        Case("2x2", lambda x: tf.depth_to_space(x, 2), V(1, 2, 2, 8)),
    ],
    "ExtractImagePatches": [
        Case("overlapping_same", lambda x: tf.extract_image_patches(
            x, [1, 2, 3, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME"), V(2, 3, 4, 2)),
        Case("dilated_valid", lambda x: tf.extract_image_patches(
            x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 2, 1, 1], "VALID"), V(1, 4, 3, 1)),
    ],
    "ExtractVolumePatches": [
        Case("valid", lambda x: tf.extract_volume_patches(
            x, [1, 2, 2, 1, 1], [1, 1, 1, 1, 1], "VALID"), V(1, 3, 2, 2, 2)),
    ],
    "Fill": [
        Case("matrix", lambda v: tf.fill([2, 3], v), V()),
        Case("weighted", lambda v: tf.fill([4], v) * tf.constant([1.0, 2.0, 3.0, 4.0],
                                                                  tf.float64), V()),
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
    assert error < 1e-8


def test_every_registered_array_gradient_has_cases():
    array_grad_types = {op_type for op_type, fn in registry.registered_gradients().items()
                        if fn.__module__ == "minitf.autodiff.array_grad"}
    # PreventGradient's gradient raises by design (checked in tests/ops/test_ctc.py).
    assert array_grad_types - {"PreventGradient"} == set(GRADIENT_CASES)


# --- sparse gradients ------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_partitioned_embedding_lookup_gives_each_partition_indexed_slices(strategy):
    table = np.arange(15, dtype=np.float64).reshape(5, 3)
    ids = np.array([4, 1, 4, 2])
    weights = np.arange(12, dtype=np.float64).reshape(4, 3) - 5.0
    rows = [[0, 2, 4], [1, 3]] if strategy == "mod" else [[0, 1, 2], [3, 4]]
    partitions = [tf.Variable(table[r], name="part_%d" % i) for i, r in enumerate(rows)]
    looked_up = tf.nn.embedding_lookup(partitions, ids, partition_strategy=strategy)
    grads = tf.gradients(tf.reduce_sum(looked_up * weights), partitions)
    assert all(isinstance(g, IndexedSlices) for g in grads)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        dense = sess.run([indexed_slices_to_dense(g) for g in grads])
    expected = np.zeros_like(table)
    np.add.at(expected, ids, weights)
    for r, d in zip(rows, dense):
        np.testing.assert_allclose(d, expected[r])


def test_embedding_lookup_gradient_stays_indexed_slices_through_read():
    table = np.arange(15, dtype=np.float64).reshape(5, 3)
    ids = np.array([3, 0, 3, 4])
    weights = np.arange(12, dtype=np.float64).reshape(4, 3) - 5.0
    embedding = tf.Variable(table, name="embedding")
    looked_up = tf.nn.embedding_lookup(embedding, ids)
    loss = tf.reduce_sum(looked_up * weights)
    grad = tf.gradients(loss, [embedding])[0]
    assert isinstance(grad, IndexedSlices)
    dense = indexed_slices_to_dense(grad)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value, dense_value = sess.run([grad, dense])
    assert isinstance(value, IndexedSlicesValue)
    np.testing.assert_array_equal(value.indices, ids)  # duplicates kept, in lookup order
    np.testing.assert_allclose(value.values, weights)
    np.testing.assert_array_equal(value.dense_shape, [5, 3])
    expected = np.zeros_like(table)
    np.add.at(expected, ids, weights)
    np.testing.assert_allclose(dense_value, expected)


@pytest.mark.parametrize("build, dense_shape", [
    (lambda p: tf.gather(p, [[2, 0], [2, 2]]), (4, 3)),
    (lambda p: tf.gather_nd(p, [[1], [3], [1]]), (4, 3)),
    (lambda p: tf.identity(tf.gather(p, [0, 3, 0])), (4, 3)),
])
def test_sparse_gradients_densify_to_the_numpy_reference(build, dense_shape):
    params_value = _values(*dense_shape)
    params = tf.constant(params_value)
    y = build(params)
    with tf.Session() as sess:
        y_value = sess.run(y)
    weights = _values(*y_value.shape, offset=-3.0)
    grad = tf.gradients(y, params, grad_ys=tf.constant(weights))[0]
    assert isinstance(grad, IndexedSlices)
    with tf.Session() as sess:
        dense = sess.run(indexed_slices_to_dense(grad))
    # The reference: d sum(weights * y) / d params, by finite differences (y is linear).
    expected = np.zeros(dense_shape)
    for i in np.ndindex(*dense_shape):
        bumped = params_value.copy()
        bumped[i] += 1.0
        with tf.Session() as sess:
            expected[i] = np.sum(weights * (sess.run(y, {params: bumped}) - y_value))
    np.testing.assert_allclose(dense, expected)


def test_gather_gradient_names_and_static_shapes_follow_tensorflow():
    # Names as TF 1.x builds them (read from the reference TF's graph).
    params = tf.placeholder(tf.float64, [4, 3], name="params")
    grad = tf.gradients(tf.gather(params, [0, 2, 2]), params)[0]
    assert grad.values.name == "gradients/GatherV2_grad/Reshape:0"
    assert grad.indices.name == "gradients/GatherV2_grad/Reshape_1:0"
    assert grad.dense_shape.name == "gradients/GatherV2_grad/Shape:0"
    assert grad.values.shape.as_list() == [3, 3]


def test_concat_and_transpose_gradient_node_names():
    x = tf.placeholder(tf.float64, [4, 3], name="x")
    y = tf.placeholder(tf.float64, [4, 2], name="y")
    gx, gy = tf.gradients(tf.concat([x, y], 1), [x, y])
    assert (gx.name, gy.name) == ("gradients/concat_grad/Slice:0",
                                  "gradients/concat_grad/Slice_1:0")
    assert gx.op.inputs[1].op.type == "ConcatOffset"
    (gt,) = tf.gradients(tf.transpose(x), x)
    assert gt.name == "gradients_1/transpose_grad/transpose:0"
    assert gt.op.inputs[1].op.type == "InvertPermutation"


def test_concat_of_unknown_shapes_uses_shape_n():
    a = tf.placeholder(tf.float64, None)
    b = tf.placeholder(tf.float64, [None, 2])
    ga, gb = tf.gradients(tf.concat([a, b], 0), [a, b])
    assert ga.op.inputs[2].op.type == "ShapeN"
    with tf.Session() as sess:
        va, vb = sess.run([ga, gb], {a: np.ones((1, 2)), b: np.ones((3, 2))})
    assert va.shape == (1, 2) and vb.shape == (3, 2)


def test_boolean_mask_gradient_scatters_back_to_the_kept_entries():
    x_value = _values(2, 3)
    mask = np.array([[True, False, True], [False, True, True]])
    x = tf.constant(x_value)
    y = tf.boolean_mask(x, mask)
    error = tf.test.compute_gradient_error(x, [2, 3], y, [4], x_init_value=x_value)
    assert error < 1e-8
    (grad,) = tf.gradients(tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64)), x)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(indexed_slices_to_dense(grad)),
                                   [[1.0, 0.0, 2.0], [0.0, 3.0, 4.0]])


# --- ops without a gradient --------------------------------------------------------------------

@pytest.mark.parametrize("build", [
    tf.stop_gradient,
    lambda x: tf.cast(tf.shape(tf.placeholder_with_default(x, None)), tf.float64),
    lambda x: tf.cast(tf.size(tf.placeholder_with_default(x, None)), tf.float64),
    lambda x: tf.cast(tf.rank(tf.placeholder_with_default(x, None)), tf.float64),
    lambda x: tf.zeros_like(tf.placeholder_with_default(x, None)),
    lambda x: tf.ones_like(tf.placeholder_with_default(x, None)),
    lambda x: tf.one_hot([0, 2], 3, on_value=x[0], off_value=x[1]),
], ids=["StopGradient", "Shape", "Size", "Rank", "ZerosLike", "OnesLike", "OneHot"])
def test_not_differentiable_ops_stop_backprop_silently(build):
    x = tf.constant([1.0, 2.0], tf.float64)
    assert tf.gradients(build(x) * 3.0, x) == [None]


def test_state_ops_are_not_differentiable():
    for op_type in ("VariableV2", "Assign", "AssignAdd", "AssignSub", "ScatterUpdate",
                    "ScatterAdd", "ScatterSub", "IsVariableInitialized", "Const", "Placeholder"):
        assert registry.is_registered(op_type) and op_type not in registry.registered_gradients()
    v = tf.Variable([1.0, 2.0])
    x = tf.constant([3.0, 4.0])
    assert tf.gradients(tf.assign(v, x * 2.0), x) == [None]
    assert tf.gradients(tf.assign_add(v, x), x) == [None]


# --- the ops the gradients use ------------------------------------------------------------------

def test_identity_n_passes_tensors_of_mixed_dtypes_through():
    a = tf.constant([1.0, 2.0])
    b = tf.constant(3)
    x, y = tf.identity_n([a, b], name="both")
    assert (x.name, y.name) == ("both:0", "both:1")
    assert (x.dtype, y.dtype) == (tf.float32, tf.int32)
    assert x.shape.as_list() == [2] and y.shape.as_list() == []
    assert x.op.get_attr("T") == [tf.float32, tf.int32]
    with tf.Session() as sess:
        x_value, y_value = sess.run([x, y])
    np.testing.assert_array_equal(x_value, [1.0, 2.0])
    assert y_value == 3


def test_shape_n_gives_each_shape():
    a = tf.placeholder(tf.float32, [None, 3])
    shapes = tf.shape_n([a, tf.zeros([4])], out_type=tf.int64)
    assert [s.name for s in shapes] == ["ShapeN:0", "ShapeN:1"]
    assert [s.shape.as_list() for s in shapes] == [[2], [1]]
    with tf.Session() as sess:
        values = sess.run(shapes, {a: np.zeros((2, 3))})
    assert [v.tolist() for v in values] == [[2, 3], [4]]
    assert values[0].dtype == np.int64


def test_scatter_nd_sums_duplicates_and_checks_its_inputs():
    out = tf.scatter_nd([[0], [0], [2]], [1.0, 2.0, 5.0], [4])
    assert out.shape.as_list() == [4]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [3.0, 0.0, 5.0, 0.0])
        np.testing.assert_array_equal(
            sess.run(tf.scatter_nd([[1, 0]], [[1, 2]], [2, 2, 2])),
            [[[0, 0], [0, 0]], [[1, 2], [0, 0]]])
        indices = tf.placeholder(tf.int32)
        bad = tf.scatter_nd(indices, [1.0, 2.0], [4])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[1\] = \[5\] does not index into shape \[4\]"):
            sess.run(bad, {indices: [[0], [5]]})
    # Messages as TF's shape function words them (checked against the reference TF).
    with pytest.raises(ValueError, match="outer 1 dimensions of indices.shape=.2,1. must match"):
        tf.scatter_nd([[0], [1]], [1.0, 2.0, 3.0], [4])
    with pytest.raises(ValueError, match="inner 1 dimensions of output.shape=.4,3. must match"):
        tf.scatter_nd([[0], [1]], [[1.0, 2.0], [3.0, 4.0]], [4, 3])


def test_concat_offset_gives_each_inputs_start_and_checks_shapes():
    offsets = array_ops.concat_offset(1, [[2, 3, 4], [2, 5, 4], [2, 1, 4]])
    concat_dim = tf.placeholder(tf.int32)
    shape = tf.placeholder(tf.int32, [None])
    with tf.Session() as sess:
        assert [v.tolist() for v in sess.run(offsets)] == [[0, 0, 0], [0, 3, 0], [0, 8, 0]]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Concat dim is out of range: 3 vs. 3"):
            sess.run(array_ops.concat_offset(concat_dim, [[2, 3, 4], [2, 5, 4]]),
                     {concat_dim: 3})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"All dimensions except 1 must match. Input 1 has shape "
                                 r"\[2 5 4\] and doesn't match input 0 with shape \[3 3 4\]"):
            sess.run(array_ops.concat_offset(1, [shape, [2, 5, 4]]), {shape: [3, 3, 4]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="input 1 should contain 2 elements, but got 3"):
            sess.run(array_ops.concat_offset(1, [shape, [2, 5, 4]]), {shape: [2, 3]})


def test_strided_slice_grad_places_dy_and_checks_its_shape():
    result = array_ops.strided_slice_grad([4, 3], [1, 0], [3, 3], [1, 2], [[1.0, 2.0],
                                                                          [3.0, 4.0]])
    assert result.shape.as_list() == [4, 3]
    dy = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(result), [[0, 0, 0], [1, 0, 2], [3, 0, 4],
                                                         [0, 0, 0]])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"shape of dy was \[3,2\] instead of \[2,2\]"):
            sess.run(array_ops.strided_slice_grad([4, 3], [1, 0], [3, 3], [1, 2], dy),
                     {dy: np.ones((3, 2))})


def test_mirror_pad_grad_folds_borders_back_and_checks_paddings():
    # Values from the reference TF's MirrorPadGrad on arange(7) with paddings [[2, 2]].
    reflect = array_ops.mirror_pad_grad(np.arange(7.0), [[2, 2]], mode="REFLECT")
    symmetric = array_ops.mirror_pad_grad(np.arange(7.0), [[2, 2]], mode="SYMMETRIC")
    assert reflect.shape.as_list() == [3]
    grad = tf.placeholder(tf.float64)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(reflect), [8.0, 9.0, 4.0])
        np.testing.assert_array_equal(sess.run(symmetric), [3.0, 9.0, 9.0])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="paddings must be less than the output dimension size: "
                                 "2, 2 not less than 1"):
            sess.run(array_ops.mirror_pad_grad(grad, [[2, 2]], mode="REFLECT"),
                     {grad: np.arange(5.0)})
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 4 "
                                         "from 3"):
        array_ops.mirror_pad_grad(np.arange(3.0), [[2, 2]], mode="REFLECT")


def _gradient_through_helper_ops():
    """A gradient whose graph uses StridedSliceGrad, MirrorPadGrad, ScatterNd, ConcatOffset."""
    x = tf.constant(_values(4, 3))
    y = tf.concat([
        tf.reshape(x[1:, ::2], [-1]),
        tf.reshape(tf.pad(x, [[1, 1], [2, 0]], mode="SYMMETRIC"), [-1]),
        tf.reshape(tf.gather_nd(x, [[0, 1], [3, 2], [0, 1]]), [-1]),
        tf.reshape(tf.identity_n([x, tf.constant(1)])[0], [-1]),
    ], 0)
    return tf.gradients(y, x, grad_ys=tf.constant(_values(51)))[0]


def test_gradient_kernels_run_on_the_gpu(stand_in_gpu):
    with tf.Graph().as_default(), tf.Session() as sess:
        on_cpu = sess.run(_gradient_through_helper_ops())
    with tf.device("/gpu:0"):
        grad = _gradient_through_helper_ops()
    helpers = [op for op in tf.get_default_graph().get_operations() if op.type in (
        "StridedSliceGrad", "MirrorPadGrad", "ScatterNd", "ConcatOffset", "IdentityN")]
    assert len({op.type for op in helpers}) == 5
    assert all("GPU" in op.device for op in helpers)
    with tf.Session() as sess:
        on_gpu = sess.run(grad)
    assert type(on_gpu) is np.ndarray  # copied back to the host
    np.testing.assert_allclose(on_gpu, on_cpu)
