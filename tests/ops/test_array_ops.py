"""The array ops against NumPy: values, dtypes, static shapes, node names, errors.

Node names, op types and error wordings follow TensorFlow 1.15; where a test
spells one out, it was read off the reference TensorFlow (`tf.compat.v1` in
graph mode) building the same graph.
"""

import numpy as np
import pytest

import minitf as tf


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def graph_nodes():
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations()]


X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
M = np.arange(6, dtype=np.int32).reshape(2, 3)


# --- placeholders, identity, stop_gradient --------------------------------------------

def test_placeholder_with_default_uses_default_or_feed():
    p = tf.placeholder_with_default(M, [None, 3])
    assert p.shape.as_list() == [None, 3]
    np.testing.assert_array_equal(run(p), M)
    np.testing.assert_array_equal(run(p, {p: M[:1]}), M[:1])


def test_identity_and_stop_gradient_pass_values_through():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    i, s = tf.identity(x), tf.stop_gradient(x)
    assert (i.op.type, i.op.name, s.op.type, s.op.name) == (
        "Identity", "Identity", "StopGradient", "StopGradient")
    assert s.shape.as_list() == [None, 4]
    value = X[0]
    got_i, got_s = run([i, s], {x: value})
    np.testing.assert_array_equal(got_i, value)
    np.testing.assert_array_equal(got_s, value)


# --- reshape ----------------------------------------------------------------------------

def test_reshape_infers_the_minus_one_and_names_its_shape_input():
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    y = tf.reshape(x, [4, -1])
    assert y.shape.as_list() == [4, 6]
    assert graph_nodes() == [("x", "Placeholder"), ("Reshape/shape", "Const"),
                             ("Reshape", "Reshape")]
    assert y.op.get_attr("Tshape") == tf.int32
    np.testing.assert_array_equal(run(y, {x: X}), X.reshape(4, -1))


def test_reshape_static_shape_with_unknown_dims():
    x = tf.placeholder(tf.float32, [None, 6])
    assert tf.reshape(x, [-1, 2, 3]).shape.as_list() == [None, 2, 3]
    assert tf.reshape(x, [4, -1]).shape.as_list() == [4, None]
    assert tf.reshape(x, tf.placeholder(tf.int32, [3])).shape.as_list() == [None] * 3
    assert tf.reshape(x, tf.placeholder(tf.int32, [None])).shape.ndims is None
    # A shape computed from another tensor's static shape is seen through.
    assert tf.reshape(X, tf.shape(tf.zeros([6, 4]))).shape.as_list() == [6, 4]


def test_reshape_errors_at_build_time():
    with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 6 elements to shape "
                                         r"\[4,2\] \(8 elements\)"):
        tf.reshape(tf.zeros([2, 3]), [4, 2])
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 4 but is 6"):
        tf.reshape(tf.zeros([2, 3]), [-1, 4])
    with pytest.raises(ValueError, match="Invalid value in tensor used for shape: -2"):
        tf.reshape(tf.zeros([2, 3]), [-2, 3])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.reshape(tf.zeros([2, 3]), [[2, 3]])
    with pytest.raises(TypeError, match="int32, int64"):
        tf.reshape(tf.zeros([2, 3]), [2.0, 3.0])


def test_reshape_errors_at_run_time():
    x = tf.placeholder(tf.float32)
    shape = tf.placeholder(tf.int32)
    y = tf.reshape(x, shape)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input to reshape is a tensor with 6 values, but the requested "
                             "shape has 8"):
        run(y, {x: np.zeros((2, 3)), shape: [4, 2]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="requires a multiple of 4"):
        run(y, {x: np.zeros((2, 3)), shape: [-1, 4]})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Only one input size may be -1, not both 0 and 1"):
        run(y, {x: np.zeros((2, 3)), shape: [-1, -1]})


# --- transpose, expand_dims, squeeze ------------------------------------------------------

def test_transpose_reverses_dimensions_by_default():
    x = tf.placeholder(tf.float32, [2, None, 4], name="x")
    y = tf.transpose(x)
    assert y.shape.as_list() == [4, None, 2]
    assert graph_nodes()[1:] == [("transpose/perm", "Const"), ("transpose", "Transpose")]
    np.testing.assert_array_equal(run(y, {x: X}), X.T)


def test_transpose_with_perm_and_with_unknown_rank():
    x = tf.constant(X)
    y = tf.transpose(x, [1, 0, 2])
    assert y.shape.as_list() == [3, 2, 4]
    unknown = tf.placeholder(tf.float32)
    z = tf.transpose(unknown)  # the permutation is computed at run time from the rank
    assert z.shape.ndims is None
    assert tf.get_default_graph().get_operation_by_name("transpose_1/Rank").type == "Rank"
    got_y, got_z = run([y, z], {unknown: X})
    np.testing.assert_array_equal(got_y, X.transpose(1, 0, 2))
    np.testing.assert_array_equal(got_z, X.T)


def test_transpose_errors():
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        tf.transpose(tf.zeros([2, 3]), [0, 1, 2])
    with pytest.raises(ValueError, match="perm dim 2 is out of range of input rank 2"):
        tf.transpose(tf.zeros([2, 3]), [0, 2])
    x = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"1 is missing from \{0,0\}"):
        run(tf.transpose(x, [0, 0]), {x: np.zeros((2, 3))})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="transpose expects a vector of size 2. But input.1. is a vector of "
                             "size 3"):
        run(tf.transpose(x, [0, 1, 2]), {x: np.zeros((2, 3))})


def test_invert_permutation():
    y = tf.invert_permutation([2, 0, 3, 1])
    assert y.op.type == "InvertPermutation" and y.dtype == tf.int32
    np.testing.assert_array_equal(run(y), np.argsort([2, 0, 3, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 is duplicated in the input"):
        run(tf.invert_permutation([0, 0]))


@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4])
def test_expand_dims_matches_numpy(axis):
    y = tf.expand_dims(X, axis)
    expected = np.expand_dims(X, axis)
    assert y.shape.as_list() == list(expected.shape)
    np.testing.assert_array_equal(run(y), expected)


def test_expand_dims_names_and_legacy_dim_argument():
    y = tf.expand_dims(tf.placeholder(tf.float32, [None, 3], name="x"), dim=1)
    assert y.shape.as_list() == [None, 1, 3]
    assert graph_nodes()[1:] == [("ExpandDims/dim", "Const"), ("ExpandDims", "ExpandDims")]
    with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'"):
        tf.expand_dims(X, 1, dim=1)
    with pytest.raises(ValueError, match=r"Must specify an axis argument to tf.expand_dims\(\)"):
        tf.expand_dims(X)
    with pytest.raises(ValueError, match=r"dim 4 not in the interval \[-4, 3\]"):
        tf.expand_dims(X, 4)
    with pytest.raises(ValueError, match="'dim' input must be a tensor with a single value"):
        tf.expand_dims(X, [1, 2])
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Tried to expand dim index 5 for tensor with 2 dimensions"):
        run(tf.expand_dims(p, 5), {p: np.zeros((2, 3))})


def test_squeeze_all_and_selected_dims():
    value = np.zeros((1, 2, 1, 3), np.float32)
    everything = tf.squeeze(value)
    first = tf.squeeze(value, [0])
    legacy = tf.squeeze(value, squeeze_dims=[-2])
    scalar_axis = tf.squeeze(value, 2)
    assert everything.shape.as_list() == [2, 3]
    assert first.shape.as_list() == [2, 1, 3]
    assert legacy.shape.as_list() == [1, 2, 3]
    assert first.op.get_attr("squeeze_dims") == [0]
    results = run([everything, first, legacy, scalar_axis])
    assert [r.shape for r in results] == [(2, 3), (2, 1, 3), (1, 2, 3), (1, 2, 3)]


def test_squeeze_with_unknown_dims():
    x = tf.placeholder(tf.float32, [None, 2, 1])
    assert tf.squeeze(x).shape.ndims is None  # cannot tell whether the ? is a 1
    assert tf.squeeze(x, [0]).shape.as_list() == [2, 1]
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Can not squeeze dim\[1\], expected a dimension of 1, got 2"):
        run(tf.squeeze(p, [1]), {p: np.zeros((1, 2))})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Tried to squeeze dim index 3 for tensor with 2 dimensions"):
        run(tf.squeeze(p, [3]), {p: np.zeros((1, 2))})


def test_squeeze_build_errors():
    with pytest.raises(ValueError, match=r"Can not squeeze dim\[1\], expected a dimension of 1, "
                                         r"got 2"):
        tf.squeeze(tf.zeros([1, 2]), [1])
    with pytest.raises(ValueError, match=r"squeeze_dims\[0\] not in \[-2,2\)"):
        tf.squeeze(tf.zeros([1, 2]), [2])
    with pytest.raises(ValueError, match="Cannot specify both 'squeeze_dims' and 'axis'"):
        tf.squeeze(tf.zeros([1, 2]), [0], squeeze_dims=[0])


# --- concat, stack, unstack ---------------------------------------------------------------

def test_concat_matches_numpy_and_names_inputs():
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    y = tf.concat([x, X[:, :1]], 1)
    assert y.shape.as_list() == [2, 4, 4]
    assert graph_nodes()[1:] == [("concat/values_1", "Const"), ("concat/axis", "Const"),
                                 ("concat", "ConcatV2")]
    assert y.op.get_attr("N") == 2
    np.testing.assert_array_equal(run(y, {x: X}), np.concatenate([X, X[:, :1]], 1))
    negative = tf.concat([M, M, M], -1)
    np.testing.assert_array_equal(run(negative), np.concatenate([M, M, M], -1))


def test_concat_static_shapes_with_unknowns():
    a = tf.placeholder(tf.float32, [None, 3])
    assert tf.concat([a, tf.zeros([2, 3])], 0).shape.as_list() == [None, 3]
    assert tf.concat([a, tf.zeros([2, 3])], 1).shape.as_list() == [2, 6]
    unknown_axis = tf.placeholder(tf.int32, [])
    assert tf.concat([a, tf.zeros([2, 3])], unknown_axis).shape.as_list() == [None, None]


def test_concat_of_one_value_is_an_identity():
    y = tf.concat([tf.constant(M, name="m")], 0)
    assert (y.op.type, y.op.name) == ("Identity", "concat/concat")
    assert ("concat/concat_dim", "Const") in graph_nodes()
    np.testing.assert_array_equal(run(y), M)


def test_concat_errors():
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.concat([tf.zeros([2, 3]), tf.zeros([2])], 0)
    with pytest.raises(ValueError, match="Dimension 1 in both shapes must be equal, but are 3 "
                                         "and 2"):
        tf.concat([tf.zeros([2, 3]), tf.zeros([2, 2])], 0)
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        tf.concat([tf.zeros([2, 3]), tf.zeros([2, 3])], 2)
    with pytest.raises(ValueError, match=r"Can't concatenate scalars \(use tf.stack instead\)"):
        tf.concat([tf.constant(1.0), tf.constant(2.0)], 0)
    with pytest.raises(TypeError, match="don't all match"):
        tf.concat([tf.zeros([2]), tf.zeros([2], tf.int32)], 0)
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"ConcatOp : Dimension 1 in both shapes must be equal: shape\[0\] = "
                             r"\[2,3\] vs. shape\[1\] = \[2,2\]"):
        run(tf.concat([p, tf.zeros([2, 2])], 0), {p: np.zeros((2, 3))})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Ranks of all input tensors"):
        run(tf.concat([p, tf.zeros([2])], 0), {p: np.zeros((2, 3))})


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_and_unstack_match_numpy(axis):
    a = tf.placeholder(tf.int32, [2, 3])
    stacked = tf.stack([a, a], axis=axis)
    expected = np.stack([M, M], axis=axis)
    assert stacked.shape.as_list() == list(expected.shape)
    pieces = tf.unstack(tf.constant(expected), axis=axis)
    assert len(pieces) == 2 and pieces[0].shape.as_list() == [2, 3]
    got, got_pieces = run([stacked, pieces], {a: M})
    np.testing.assert_array_equal(got, expected)
    for piece in got_pieces:
        np.testing.assert_array_equal(piece, M)


def test_stack_of_plain_values_is_a_const_and_of_tensors_a_pack():
    plain = tf.stack([1, 2])
    assert (plain.op.type, plain.op.name) == ("Const", "stack")
    x = tf.placeholder(tf.float32, [2], name="x")
    mixed = tf.stack([x, [5.0, 6.0]], axis=1)
    assert (mixed.op.type, mixed.op.name) == ("Pack", "stack_1")
    assert mixed.op.get_attr("axis") == 1
    assert mixed.shape.as_list() == [2, 2]
    np.testing.assert_array_equal(run(mixed, {x: [1, 2]}), [[1, 5], [2, 6]])


def test_stack_errors():
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 "
                                         "and 3"):
        tf.stack([tf.zeros([2]), tf.zeros([3])])
    with pytest.raises(ValueError, match=r"axis = 2 not in \[-2, 2\)"):
        tf.stack([tf.zeros([2]), tf.zeros([2])], axis=2)
    with pytest.raises(TypeError, match="don't all match"):
        tf.stack([tf.zeros([2]), tf.zeros([2], tf.int32)], axis=1)
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Shapes of all inputs must match: values\[0\].shape = \[3\] != "
                             r"values\[1\].shape = \[2\]"):
        run(tf.stack([p, tf.zeros([2])]), {p: np.zeros(3)})


def test_unstack_needs_a_known_num():
    pieces = tf.unstack(tf.placeholder(tf.float32, [2, None], name="x"), axis=0)
    assert [t.name for t in pieces] == ["unstack:0", "unstack:1"]
    assert pieces[0].op.type == "Unpack" and pieces[0].shape.as_list() == [None]
    with pytest.raises(ValueError, match="Cannot infer num from shape"):
        tf.unstack(tf.placeholder(tf.float32, [None, 2]))
    with pytest.raises(ValueError, match=r"axis = 2 not in \[-2, 2\)"):
        tf.unstack(tf.zeros([2, 3]), axis=2)
    with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
        tf.unstack(tf.zeros([2, 3]), num=3)
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input shape axis 0 must equal 3, got shape \[2,3\]"):
        run(tf.unstack(p, num=3), {p: np.zeros((2, 3))})


# --- split, tile --------------------------------------------------------------------------

def test_split_into_equal_pieces():
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    pieces = tf.split(x, 2, axis=2)
    assert [p.shape.as_list() for p in pieces] == [[2, 3, 2]] * 2
    assert graph_nodes()[1:] == [("split/split_dim", "Const"), ("split", "Split")]
    for got, expected in zip(run(pieces, {x: X}), np.split(X, 2, axis=2)):
        np.testing.assert_array_equal(got, expected)


def test_split_by_sizes_with_one_minus_one():
    pieces = tf.split(X, [1, -1, 1], axis=2)
    assert pieces[0].op.type == "SplitV" and pieces[0].op.get_attr("Tlen") == tf.int32
    assert [p.shape.as_list() for p in pieces] == [[2, 3, 1], [2, 3, 2], [2, 3, 1]]
    for got, expected in zip(run(pieces), np.split(X, [1, 3], axis=2)):
        np.testing.assert_array_equal(got, expected)
    partial = tf.split(tf.placeholder(tf.float32, [None, 4]), [1, -1], axis=0)
    assert [p.shape.as_list() for p in partial] == [[1, 4], [None, 4]]


def test_split_errors():
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 2 but is 3"):
        tf.split(tf.zeros([2, 3]), 2, axis=1)
    with pytest.raises(ValueError, match=r"can't split axis of size 3 into pieces of size "
                                         r"\[1,1\]"):
        tf.split(tf.zeros([2, 3]), [1, 1], axis=1)
    with pytest.raises(ValueError, match="size_splits can only have one -1"):
        tf.split(tf.zeros([2, 3]), [-1, -1], axis=1)
    with pytest.raises(ValueError, match="Split size at index 1 must be >= 0. Got: -1"):
        tf.split(tf.zeros([2, 3]), [4, -1], axis=1)
    with pytest.raises(ValueError, match=r"must be in range \[-2, 2\)"):
        tf.split(tf.zeros([2, 3]), 3, axis=2)
    with pytest.raises(ValueError, match="Rank-0 tensors are not supported"):
        tf.split(tf.zeros([2, 3]), tf.constant(3), axis=1)
    with pytest.raises(ValueError, match="Cannot infer num from shape"):
        tf.split(tf.zeros([2, 3]), tf.placeholder(tf.int32, [None]), axis=1)
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Number of ways to split should evenly divide the split "
                             r"dimension, but got split_dim 1 \(size = 3\) and num_split 2"):
        run(tf.split(p, 2, axis=1), {p: np.zeros((2, 3))})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Determined shape must either "
                                                             "match input shape"):
        run(tf.split(p, [1, 1], axis=1), {p: np.zeros((2, 3))})


def test_tile_matches_numpy():
    x = tf.placeholder(tf.int32, [None, 3], name="x")
    y = tf.tile(x, [2, 3])
    assert y.shape.as_list() == [None, 9]
    assert graph_nodes()[1:] == [("Tile/multiples", "Const"), ("Tile", "Tile")]
    np.testing.assert_array_equal(run(y, {x: M}), np.tile(M, [2, 3]))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.tile(tf.zeros([2, 3]), [2])
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected multiples\[1\] >= 0, "
                                                             r"but got -1"):
        run(tf.tile(p, [2, -1]), {p: np.zeros((2, 3))})


# --- pad ------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,numpy_mode", [("CONSTANT", "constant"), ("reflect", "reflect"),
                                             ("Symmetric", "symmetric")])
def test_pad_modes_match_numpy(mode, numpy_mode):
    paddings = [[1, 1], [2, 2]]
    y = tf.pad(M, paddings, mode=mode)
    assert y.shape.as_list() == [4, 7]
    assert y.op.type == ("Pad" if mode == "CONSTANT" else "MirrorPad")
    np.testing.assert_array_equal(run(y), np.pad(M, paddings, mode=numpy_mode))


def test_pad_with_constant_values_is_pad_v2():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.pad(x, [[1, 0], [0, 2]], constant_values=-1.5)
    assert y.shape.as_list() == [None, 5]
    assert graph_nodes()[1:] == [("PadV2/paddings", "Const"), ("PadV2/constant_values", "Const"),
                                 ("PadV2", "PadV2")]
    value = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(run(y, {x: value}),
                                  np.pad(value, [[1, 0], [0, 2]], constant_values=-1.5))


def test_pad_errors():
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.pad(tf.zeros([2, 3]), [[1, 1]])
    with pytest.raises(ValueError, match="Paddings must be non-negative"):
        tf.pad(tf.zeros([2, 3]), [[1, 1], [-1, 0]])
    with pytest.raises(ValueError, match="Unknown padding mode: FOO"):
        tf.pad(tf.zeros([2, 3]), [[1, 1], [0, 0]], mode="foo")
    with pytest.raises(TypeError, match="constant_values"):
        tf.pad(tf.zeros([2, 3]), [[1, 1], [0, 0]], constant_values="a")
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="paddings must be less than the dimension size: 2, 0 not less "
                             "than 2"):
        run(tf.pad(p, [[2, 0], [0, 0]], mode="REFLECT"), {p: np.zeros((2, 3))})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="paddings must be no greater than the dimension size: 3, 0 "
                             "greater than 2"):
        run(tf.pad(p, [[3, 0], [0, 0]], mode="SYMMETRIC"), {p: np.zeros((2, 3))})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="The first dimension of paddings must be the rank of inputs"):
        run(tf.pad(p, [[1, 1]]), {p: np.zeros((2, 3))})


# --- slice, strided_slice, reverse ----------------------------------------------------------

def test_slice_with_size_minus_one():
    x = tf.placeholder(tf.float32, [2, None, 4], name="x")
    y = tf.slice(x, [1, 0, 1], [-1, 2, -1])
    assert y.shape.as_list() == [1, 2, 3]
    assert graph_nodes()[1:] == [("Slice/begin", "Const"), ("Slice/size", "Const"),
                                 ("Slice", "Slice")]
    np.testing.assert_array_equal(run(y, {x: X}), X[1:, 0:2, 1:])
    assert tf.slice(x, [0, 1, 0], [1, -1, 2]).shape.as_list() == [1, None, 2]


def test_slice_errors_at_run_time():
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected size\[1\] in \[0, 1\], but got 2"):
        run(tf.slice(p, [0, 2], [1, 2]), {p: np.zeros((2, 3))})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected begin\[1\] in \[0, 3\], but got -1"):
        run(tf.slice(p, [0, -1], [1, 1]), {p: np.zeros((2, 3))})
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.slice(tf.zeros([2, 3]), [0], [1])


def test_strided_slice_with_masks_matches_numpy():
    x = tf.constant(X)
    cases = [
        (tf.strided_slice(x, [0, -1, 3], [2, -4, 0], [1, -1, -2]), X[0:2, -1:-4:-1, 3:0:-2]),
        (tf.strided_slice(x, [1, 0, 0], [0, 2, 0], [1, 1, 1], begin_mask=1, end_mask=5,
                          shrink_axis_mask=2), X[:, 0, :]),
        (tf.strided_slice(x, [0, 1], [0, 2], [1, 1], ellipsis_mask=1), X[..., 1:2]),
        (tf.strided_slice(x, [0, 0, 1], [0, 0, 2], [1, 1, 1], ellipsis_mask=1,
                          new_axis_mask=2), X[..., np.newaxis, 1:2]),
        (tf.strided_slice(x, [0, 1], [2, 3]), X[0:2, 1:3]),  # default strides: ones
    ]
    for tensor, expected in cases:
        assert tensor.op.type == "StridedSlice"
        assert tensor.shape.as_list() == list(expected.shape)
    for (tensor, expected), got in zip(cases, run([t for t, _ in cases])):
        np.testing.assert_array_equal(got, expected)


def test_strided_slice_of_one_node_follows_the_shape_it_is_fed():
    # The kernel remembers its plans by shape and bounds: a new shape gets a new plan.
    x = tf.placeholder(tf.float32, [None, None])
    sliced = x[1:, :-1]
    with tf.Session() as sess:
        for shape in [(3, 4), (5, 2), (3, 4)]:
            value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            np.testing.assert_array_equal(sess.run(sliced, {x: value}), value[1:, :-1])


def test_strided_slice_names_its_inputs():
    tf.strided_slice(tf.placeholder(tf.float32, [2, 3], name="x"), [0, 1], [2, 3], [1, 1])
    assert graph_nodes()[1:] == [("StridedSlice/begin", "Const"), ("StridedSlice/end", "Const"),
                                 ("StridedSlice/strides", "Const"),
                                 ("StridedSlice", "StridedSlice")]


def test_reverse_matches_numpy():
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    y = tf.reverse(x, [0, -1])
    assert y.shape.as_list() == [2, 3, 4]
    assert graph_nodes()[1:] == [("ReverseV2/axis", "Const"), ("ReverseV2", "ReverseV2")]
    np.testing.assert_array_equal(run(y, {x: X}), X[::-1, :, ::-1])
    np.testing.assert_array_equal(run(tf.reverse_v2(M, [1])), M[:, ::-1])
    with pytest.raises(ValueError, match="axis 1 specified more than once"):
        tf.reverse(tf.zeros([2, 3]), [1, -1])
    with pytest.raises(ValueError, match=r"'axis'\[0\] = 2 is out of valid range \[0, 1"):
        tf.reverse(tf.zeros([2, 3]), [2])
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis 1 specified more than once"):
        run(tf.reverse(p, [1, -1]), {p: np.zeros((2, 3))})


# --- gather, gather_nd, boolean_mask ---------------------------------------------------------

def test_gather_along_axes_matches_numpy():
    x = tf.placeholder(tf.float32, [2, None, 4], name="x")
    first = tf.gather(x, [1, 0, 1])
    middle = tf.gather(x, [[2, 0], [1, 1]], axis=1, validate_indices=True)
    assert first.shape.as_list() == [3, None, 4]
    assert middle.shape.as_list() == [2, 2, 2, 4]
    assert graph_nodes()[1:4] == [("GatherV2/indices", "Const"), ("GatherV2/axis", "Const"),
                                  ("GatherV2", "GatherV2")]
    got_first, got_middle = run([first, middle], {x: X})
    np.testing.assert_array_equal(got_first, np.take(X, [1, 0, 1], axis=0))
    np.testing.assert_array_equal(got_middle, np.take(X, [[2, 0], [1, 1]], axis=1))


def test_gather_with_batch_dims():
    indices = np.array([[1, 0], [2, 2]])
    y = tf.gather(X, indices, axis=1, batch_dims=1)
    assert y.shape.as_list() == [2, 2, 4]
    expected = np.stack([X[b][indices[b]] for b in range(2)])
    np.testing.assert_array_equal(run(y), expected)


def test_gather_out_of_range_index_is_an_invalid_argument():
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = 5 is not in \[0, 2\)"):
        run(tf.gather(p, [0, 5]), {p: np.zeros((2, 3))})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1,1\] = -1 is not in \[0, 3\)"):
        run(tf.gather(p, [[0, 1], [2, -1]], axis=1), {p: np.zeros((2, 3))})
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        tf.gather(tf.zeros([2, 3]), [0], axis=2)
    with pytest.raises(TypeError, match="indices"):
        tf.gather(tf.zeros([2, 3]), [0.5])


def test_gather_nd_matches_numpy():
    x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
    rows = tf.gather_nd(x, [[1, 2], [0, 1]])
    elements = tf.gather_nd(x, [[[1, 2, 3]], [[0, 1, 0]]])
    assert rows.shape.as_list() == [2, 4]
    assert elements.shape.as_list() == [2, 1]
    assert rows.op.type == "GatherNd"
    got_rows, got_elements = run([rows, elements], {x: X})
    np.testing.assert_array_equal(got_rows, X[[1, 0], [2, 1]])
    np.testing.assert_array_equal(got_elements, [[X[1, 2, 3]], [X[0, 1, 0]]])
    with pytest.raises(ValueError, match=r"indices.shape\[-1\] must be <= params.rank"):
        tf.gather_nd(tf.zeros([2, 3]), [[0, 0, 0]])
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = \[1, 3\] does not index into param shape \[2,3\]"):
        run(tf.gather_nd(p, [[0, 0], [1, 3]]), {p: np.zeros((2, 3))})


def test_boolean_mask_matches_numpy():
    mask = np.array([[True, False, True], [False, False, True]])
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    y = tf.boolean_mask(x, mask)
    assert y.shape.as_list() == [None, 4]
    assert y.op.name == "boolean_mask/GatherV2"
    assert tf.get_default_graph().get_operation_by_name("boolean_mask/Where").type == "Where"
    along_axis = tf.boolean_mask(x, [True, False, True], axis=1)
    assert along_axis.shape.as_list() == [2, None, 4]
    got, got_axis = run([y, along_axis], {x: X})
    np.testing.assert_array_equal(got, X[mask])
    np.testing.assert_array_equal(got_axis, X[:, [True, False, True]])


def test_boolean_mask_errors():
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask(tf.zeros([2, 3]), True)
    with pytest.raises(ValueError, match="Number of mask dimensions must be specified"):
        tf.boolean_mask(tf.zeros([2, 3]), tf.placeholder(tf.bool))
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask(tf.zeros([2, 3]), [True, False, True])


# --- one_hot, fill, zeros, ones ----------------------------------------------------------------

def test_one_hot_defaults_and_out_of_range_indices():
    y = tf.one_hot([0, 2, -1, 5], 3)
    assert y.dtype == tf.float32 and y.shape.as_list() == [4, 3]
    assert y.op.get_attr("axis") == -1
    assert ("one_hot/on_value", "Const") in graph_nodes()
    expected = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]], np.float32)
    np.testing.assert_array_equal(run(y), expected)


def test_one_hot_values_axis_and_dtype_inference():
    indices = np.array([[0, 2], [1, 1]])
    y = tf.one_hot(indices, 3, on_value=5, off_value=-1, axis=0)
    assert y.dtype == tf.int32 and y.shape.as_list() == [3, 2, 2]
    z = tf.one_hot(indices, 3, axis=1, dtype=tf.int64)
    assert z.dtype == tf.int64 and z.shape.as_list() == [2, 3, 2]
    only_off = tf.one_hot(indices, 3, off_value=2.5)
    assert only_off.dtype == tf.float32
    hot = np.eye(3, dtype=np.int64)[indices]  # [2, 2, 3]
    got_y, got_z, got_off = run([y, z, only_off])
    np.testing.assert_array_equal(got_y, np.moveaxis(np.where(hot == 1, 5, -1), -1, 0))
    np.testing.assert_array_equal(got_z, np.moveaxis(hot, -1, 1))
    np.testing.assert_array_equal(got_off, np.where(hot == 1, 1.0, 2.5))


def test_one_hot_errors():
    with pytest.raises(TypeError, match="dtype <dtype: 'float32'> of on_value does not match "
                                        "dtype <dtype: 'int32'> of off_value"):
        tf.one_hot([1], 3, on_value=1.0, off_value=0)
    with pytest.raises(TypeError, match="does not match dtype parameter"):
        tf.one_hot([1], 3, on_value=1.0, dtype=tf.int32)
    with pytest.raises(ValueError, match="axis must be >= -1"):
        tf.one_hot([1], 3, axis=-2)
    depth = tf.placeholder(tf.int32, [])
    y = tf.one_hot([1], depth)
    assert y.shape.as_list() == [1, None]
    with pytest.raises(tf.errors.InvalidArgumentError, match="depth must be non-negative, got: -1"):
        run(y, {depth: -1})


def test_fill_matches_numpy():
    y = tf.fill([2, 3], 7)
    assert y.dtype == tf.int32 and y.shape.as_list() == [2, 3]
    assert graph_nodes() == [("Fill/dims", "Const"), ("Fill/value", "Const"), ("Fill", "Fill")]
    np.testing.assert_array_equal(run(y), np.full((2, 3), 7))
    dims = tf.placeholder(tf.int32, [2])
    assert tf.fill(dims, 1.0).shape.as_list() == [None, None]
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.fill([2], [1.0, 2.0])
    with pytest.raises(ValueError, match="Fill dimensions must be >= 0"):
        tf.fill([-1, 2], 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        run(tf.fill(dims, 1.0), {dims: [-1, 2]})


def test_zeros_and_ones_are_constants_when_small():
    zeros, ones = tf.zeros([2, 3]), tf.ones([2], tf.bool)
    assert graph_nodes() == [("zeros", "Const"), ("ones", "Const")]
    got_zeros, got_ones = run([zeros, ones])
    assert got_zeros.dtype == np.float32 and got_ones.dtype == np.bool_
    np.testing.assert_array_equal(got_zeros, np.zeros((2, 3)))
    np.testing.assert_array_equal(got_ones, [True, True])
    strings = tf.zeros([2], tf.string)
    assert list(run(strings)) == [b"", b""]


def test_zeros_and_ones_are_fills_when_big_or_dynamic():
    big = tf.zeros([100, 10], tf.int32)
    assert graph_nodes() == [("zeros/shape_as_tensor", "Const"), ("zeros/Const", "Const"),
                             ("zeros", "Fill")]
    dims = tf.placeholder(tf.int32, [2], name="dims")
    dynamic = tf.ones(dims)
    assert (dynamic.op.type, dynamic.op.name) == ("Fill", "ones")
    assert dynamic.shape.as_list() == [None, None]
    scalar_dims = tf.placeholder(tf.int32, [], name="n")
    vector = tf.zeros(scalar_dims)  # a scalar shape is reshaped to a vector first
    assert vector.shape.as_list() == [None]
    assert vector.op.inputs[0].op.type == "Reshape"
    got_big, got_dynamic, got_vector = run([big, dynamic, vector], {dims: [2, 2], scalar_dims: 3})
    np.testing.assert_array_equal(got_big, np.zeros((100, 10), np.int32))
    np.testing.assert_array_equal(got_dynamic, np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(got_vector, np.zeros(3, np.float32))


def test_zeros_with_a_shape_holding_tensors_is_packed():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.zeros([tf.shape(x)[0], 3])
    assert y.op.type == "Fill" and y.op.inputs[0].op.name == "zeros/packed"
    assert y.shape.as_list() == [None, 3]
    np.testing.assert_array_equal(run(y, {x: np.ones((4, 3))}), np.zeros((4, 3)))


def test_zeros_like_and_ones_like():
    known = tf.placeholder(tf.int32, [2, 3], name="known")
    unknown = tf.placeholder(tf.int32, [None, 3], name="unknown")
    cases = {
        tf.zeros_like(known): ("Const", np.zeros((2, 3), np.int32)),
        tf.zeros_like(unknown): ("ZerosLike", np.zeros((2, 3), np.int32)),
        tf.zeros_like(known, optimize=False): ("ZerosLike", np.zeros((2, 3), np.int32)),
        tf.zeros_like(unknown, dtype=tf.float32): ("Fill", np.zeros((2, 3), np.float32)),
        tf.ones_like(known): ("Fill", np.ones((2, 3), np.int32)),
        tf.ones_like(unknown, dtype=tf.bool): ("Fill", np.ones((2, 3), np.bool_)),
    }
    for tensor, (op_type, _) in cases.items():
        assert tensor.op.type == op_type
    assert tf.ones_like(unknown).shape.as_list() == [None, 3]
    assert tf.get_default_graph().get_operation_by_name("ones_like/Shape").type == "Const"
    results = run(list(cases), {known: M, unknown: M})
    for got, (_, expected) in zip(results, cases.values()):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


# --- shape, size, rank ------------------------------------------------------------------------

def test_shape_size_rank_of_known_shapes_are_constants():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    shape, size, rank = tf.shape(x), tf.size(x), tf.rank(x)
    assert [(t.op.name, t.op.type) for t in (shape, size, rank)] == [
        ("Shape", "Const"), ("Size", "Const"), ("Rank", "Const")]
    assert tf.shape(x, out_type=tf.int64).dtype == tf.int64
    np.testing.assert_array_equal(run(shape), [2, 3])
    assert run(size) == 6 and run(rank) == 2


def test_shape_size_rank_of_unknown_shapes_are_ops():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    anything = tf.placeholder(tf.float32, name="anything")
    shape, size, rank = tf.shape(x, out_type=tf.int64), tf.size(x), tf.rank(anything)
    assert [t.op.type for t in (shape, size, rank)] == ["Shape", "Size", "Rank"]
    assert shape.dtype == tf.int64 and shape.shape.as_list() == [2]
    assert size.shape.as_list() == [] and rank.dtype == tf.int32
    assert tf.shape(anything).shape.as_list() == [None]
    got_shape, got_size, got_rank = run([shape, size, rank], {x: np.zeros((5, 3)),
                                                             anything: np.zeros((1, 2, 3))})
    assert got_shape.dtype == np.int64
    np.testing.assert_array_equal(got_shape, [5, 3])
    assert got_size == 15 and got_rank == 3
    assert tf.size(tf.placeholder(tf.float32, [None, 0])).op.type == "Const"


# --- auto-packing -------------------------------------------------------------------------------

def test_a_list_holding_tensors_converts_to_a_pack():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    packed = tf.convert_to_tensor([x, np.ones((2, 3), np.float32)])
    assert graph_nodes()[1:] == [("packed/1", "Const"), ("packed", "Pack")]
    assert packed.shape.as_list() == [2, 2, 3]
    np.testing.assert_array_equal(run(packed, {x: np.zeros((2, 3))}),
                                  [np.zeros((2, 3)), np.ones((2, 3))])


def test_nested_lists_pack_inner_lists_first():
    nested = tf.convert_to_tensor([[tf.constant(1.0), 2.0], [3.0, 4.0]])
    assert [name for name, _ in graph_nodes()] == ["Const", "packed/0/1", "packed/0",
                                                   "packed/1_1", "packed"]
    np.testing.assert_array_equal(run(nested), [[1, 2], [3, 4]])


def test_packing_casts_to_a_requested_dtype_and_leaves_plain_lists_to_constants():
    cast = tf.convert_to_tensor([tf.constant(1), 2.0], dtype=tf.float32)
    assert cast.dtype == tf.float32 and cast.op.inputs[0].op.type == "Cast"
    np.testing.assert_array_equal(run(cast), [1.0, 2.0])
    plain = tf.convert_to_tensor([[1, 2], [3, 4]])
    assert plain.op.type == "Const"
    with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype"):
        tf.convert_to_tensor([tf.constant(1.0), tf.constant(1)])
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        tf.convert_to_tensor([tf.zeros([2]), tf.zeros([3])])


def test_ops_accept_lists_of_tensors_as_shapes():
    x = tf.placeholder(tf.float32, [None, 6], name="x")
    y = tf.reshape(x, [tf.shape(x)[0], 2, 3])
    assert y.op.inputs[1].op.type == "Pack"
    assert y.shape.as_list() == [None, 2, 3]
    value = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.testing.assert_array_equal(run(y, {x: value}), value.reshape(2, 2, 3))


# --- the same kernels on a GPU --------------------------------------------------------------

def test_array_kernels_run_on_a_gpu_through_its_array_module(stand_in_gpu):
    with tf.device("/gpu:0"):
        x = tf.constant(X)
        unknown = tf.placeholder_with_default(x, None)
        cases = [
            (tf.reshape(x, [4, -1]), X.reshape(4, -1)),
            (tf.transpose(x), X.T),
            (x[1, ::-1, tf.newaxis], X[1, ::-1, np.newaxis]),
            (tf.concat([x, x], 1), np.concatenate([X, X], 1)),
            (tf.stack([x, x], axis=1), np.stack([X, X], axis=1)),
            (tf.unstack(x)[1], X[1]),
            (tf.split(x, [1, -1], axis=2)[1], X[:, :, 1:]),
            (tf.tile(x, [1, 2, 1]), np.tile(X, [1, 2, 1])),
            (tf.pad(x, [[1, 0], [0, 0], [2, 2]], mode="REFLECT"),
             np.pad(X, [[1, 0], [0, 0], [2, 2]], mode="reflect")),
            (tf.slice(x, [0, 1, 1], [-1, 1, 2]), X[:, 1:2, 1:3]),
            (tf.gather(x, [2, 0], axis=1), X[:, [2, 0]]),
            (tf.gather_nd(x, [[1, 2]]), X[[1], [2]]),
            (tf.reverse(x, [1]), X[:, ::-1]),
            (tf.squeeze(tf.expand_dims(x, 0)), X),
            (tf.one_hot([1, 0], 3), np.eye(3, dtype=np.float32)[[1, 0]]),
            (tf.fill([2], 3.0), np.full(2, 3.0, np.float32)),
            (tf.shape(unknown), np.array([2, 3, 4], np.int32)),
            (tf.ones_like(unknown), np.ones_like(X)),
            (tf.zeros_like(unknown), np.zeros_like(X)),
        ]
    for tensor, _ in cases:
        assert "GPU" in tensor.op.device
    for (tensor, expected), got in zip(cases, run([t for t, _ in cases])):
        assert type(got) is np.ndarray  # copied back to the host
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
