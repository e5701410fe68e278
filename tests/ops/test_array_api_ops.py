"""The array ops of `tf.*`: masks, broadcasts, scatters, searches, moving blocks of space.

Values against NumPy on random shapes (hypothesis), fed as constants or
through placeholders of unknown shape; the error classes TensorFlow raises
at build time (ValueError from a shape function) and at run time
(InvalidArgumentError from a kernel); and the kernels on the stand-in GPU.
Values recorded from TensorFlow itself are in test_array_string_reference.py.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitf as tf

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
DTYPES = [np.float32, np.float64, np.int32, np.int64]


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _unknown(array):
    """A placeholder of unknown shape fed with `array`: the kernels decide everything."""
    placeholder = tf.placeholder(tf.as_dtype(array.dtype), None)
    return placeholder, {placeholder: array}


@st.composite
def arrays(draw, min_dims=1, max_dims=3):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, max_side=4))
    return draw(hnp.arrays(dtype, shape, elements=st.integers(-9, 9)))


# --- broadcasting, rolling, meshgrid: NumPy's functions of the same names ----------------------

@SETTINGS
@given(x=arrays(max_dims=2), extra=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
       stretch=st.booleans())
def test_broadcast_to_matches_numpy(x, extra, stretch):
    target = tuple(extra) + tuple(1 if stretch and d == 1 else d for d in x.shape)
    with tf.Graph().as_default():
        value, feed = _unknown(x)
        result = _run(tf.broadcast_to(value, target), feed)
    np.testing.assert_array_equal(result, np.broadcast_to(x, target))
    assert result.dtype == x.dtype


@SETTINGS
@given(x=arrays(), data=st.data())
def test_roll_matches_numpy(x, data):
    axes = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=3))
    shifts = data.draw(st.lists(st.integers(-7, 7), min_size=len(axes), max_size=len(axes)))
    with tf.Graph().as_default():
        value, feed = _unknown(x)
        result = _run(tf.roll(value, shifts, axes), feed)
    np.testing.assert_array_equal(result, np.roll(x, shifts, axes))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    vectors = [np.arange(3.0), np.arange(2.0) + 10, np.arange(4.0) - 5]
    for count in (1, 2, 3):
        with tf.Graph().as_default():
            grids = _run(tf.meshgrid(*vectors[:count], indexing=indexing))
        for got, want in zip(grids, np.meshgrid(*vectors[:count], indexing=indexing)):
            np.testing.assert_array_equal(got, want)


def test_broadcast_shapes_static_and_dynamic():
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1, 3]),
                                     tf.TensorShape([4, 1])).as_list() == [2, 4, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([None, 3]),
                                     tf.TensorShape([1])).as_list() == [None, 3]
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    with tf.Graph().as_default():
        shape = tf.broadcast_dynamic_shape(tf.constant([2, 1, 3]), tf.constant([4, 1]))
        np.testing.assert_array_equal(_run(shape), [2, 4, 3])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
            _run(tf.broadcast_dynamic_shape(tf.constant([2]), tf.constant([3])))


# --- masks and repeats --------------------------------------------------------------------------

@SETTINGS
@given(lengths=hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=2, max_side=4),
                          elements=st.integers(0, 5)),
       maxlen=st.one_of(st.none(), st.integers(0, 6)))
def test_sequence_mask_matches_numpy(lengths, maxlen):
    width = lengths.max() if maxlen is None else maxlen
    expected = np.arange(width) < lengths[..., None]
    with tf.Graph().as_default():
        value, feed = _unknown(lengths)
        np.testing.assert_array_equal(_run(tf.sequence_mask(value, maxlen), feed), expected)


@SETTINGS
@given(x=arrays(max_dims=2), data=st.data())
def test_repeat_matches_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    counts = data.draw(st.one_of(
        st.integers(0, 3), st.lists(st.integers(0, 3), min_size=x.shape[axis],
                                    max_size=x.shape[axis])))
    with tf.Graph().as_default():
        result = _run(tf.repeat(tf.constant(x), counts, axis=axis))
    np.testing.assert_array_equal(result, np.repeat(x, counts, axis=axis))


# --- sets and searches ----------------------------------------------------------------------------

@SETTINGS
@given(x=hnp.arrays(np.int64, st.integers(1, 12), elements=st.integers(-4, 4)))
def test_unique_with_counts_matches_numpy_in_first_seen_order(x):
    with tf.Graph().as_default():
        y, idx, count = _run(tf.unique_with_counts(tf.constant(x), out_idx=tf.int64))
    np.testing.assert_array_equal(y[idx], x)
    values, first, counts = np.unique(x, return_index=True, return_counts=True)
    order = np.argsort(first)  # TensorFlow keeps the order of first appearance
    np.testing.assert_array_equal(y, values[order])
    np.testing.assert_array_equal(count, counts[order])
    assert idx.dtype == np.int64


@SETTINGS
@given(x=hnp.arrays(np.int32, st.integers(0, 10), elements=st.integers(0, 6)),
       y=hnp.arrays(np.int32, st.integers(0, 5), elements=st.integers(0, 6)))
def test_setdiff1d_keeps_order_and_positions(x, y):
    with tf.Graph().as_default():
        out, idx = _run(tf.setdiff1d(x, y))
    keep = ~np.isin(x, y)
    np.testing.assert_array_equal(out, x[keep])
    np.testing.assert_array_equal(idx, np.flatnonzero(keep))


@SETTINGS
@given(rows=st.integers(1, 3), data=st.data(), side=st.sampled_from(["left", "right"]))
def test_searchsorted_matches_numpy_row_by_row(rows, data, side):
    sequence = np.sort(data.draw(hnp.arrays(np.float64, (rows, 5), elements=st.integers(0, 6))),
                       axis=-1)
    values = data.draw(hnp.arrays(np.float64, (rows, 3), elements=st.integers(-1, 7)))
    with tf.Graph().as_default():
        result = _run(tf.searchsorted(sequence, values, side=side, out_type=tf.int64))
    expected = [np.searchsorted(s, v, side=side) for s, v in zip(sequence, values)]
    np.testing.assert_array_equal(result, expected)
    assert result.dtype == np.int64


# --- scatters, partitions, stitches ---------------------------------------------------------------

_NUMPY_SCATTER = {
    tf.tensor_scatter_nd_add: np.add.at, tf.tensor_scatter_nd_sub: np.subtract.at,
    tf.tensor_scatter_nd_max: np.maximum.at, tf.tensor_scatter_nd_min: np.minimum.at,
}


@pytest.mark.parametrize("scatter", list(_NUMPY_SCATTER), ids=lambda f: f.__name__)
def test_tensor_scatters_match_numpy_with_repeated_indices(scatter):
    rng = np.random.RandomState(0)
    tensor = rng.randint(-9, 9, size=(4, 3)).astype(np.float32)
    indices = np.array([[1], [3], [1], [0]])
    updates = rng.randint(-9, 9, size=(4, 3)).astype(np.float32)
    expected = tensor.copy()
    _NUMPY_SCATTER[scatter](expected, indices[:, 0], updates)
    with tf.Graph().as_default():
        np.testing.assert_array_equal(_run(scatter(tensor, indices, updates)), expected)


def test_tensor_scatter_update_and_tf1_aliases():
    assert tf.tensor_scatter_update is tf.tensor_scatter_nd_update
    assert tf.tensor_scatter_add is tf.tensor_scatter_nd_add
    assert tf.tensor_scatter_sub is tf.tensor_scatter_nd_sub
    with tf.Graph().as_default():
        result = _run(tf.tensor_scatter_nd_update(np.zeros((2, 2), np.int32), [[0, 1], [1, 0]],
                                                  [5, 6]))
        np.testing.assert_array_equal(result, [[0, 5], [6, 0]])
        with pytest.raises(tf.errors.InvalidArgumentError, match="TensorScatterUpdate"):
            _run(tf.tensor_scatter_nd_update([1, 2], [[2]], [3]))


def test_dynamic_stitch_undoes_dynamic_partition():
    data = np.arange(12.0).reshape(6, 2)
    partitions = np.array([2, 0, 1, 0, 2, 2], np.int32)
    with tf.Graph().as_default():
        pieces = tf.dynamic_partition(data, partitions, 3)
        positions = tf.dynamic_partition(tf.range(6), partitions, 3)
        stitched = tf.dynamic_stitch(positions, pieces)
        assert stitched.shape.as_list() == [None, 2]
        got_pieces, got = _run([pieces, stitched])
    for p in range(3):
        np.testing.assert_array_equal(got_pieces[p], data[partitions == p])
    np.testing.assert_array_equal(got, data)


def test_dynamic_stitch_keeps_the_last_piece_of_a_repeated_index():
    with tf.Graph().as_default():
        merged = _run(tf.dynamic_stitch([[0, 1], [1]], [[1.0, 2.0], [7.0]]))
    np.testing.assert_array_equal(merged, [1.0, 7.0])


# --- reordering and reinterpreting -----------------------------------------------------------------

def test_reverse_sequence_reverses_only_each_prefix():
    x = np.arange(24).reshape(2, 4, 3)
    lengths = np.array([3, 1, 4], np.int64)
    with tf.Graph().as_default():
        value, feed = _unknown(x)
        result = _run(tf.reverse_sequence(value, lengths, seq_axis=1, batch_axis=2), feed)
    expected = x.copy()
    for b, n in enumerate(lengths):
        expected[:, :n, b] = x[:, :n, b][:, ::-1]
    np.testing.assert_array_equal(result, expected)


def test_unravel_index_and_bitcast_match_numpy():
    with tf.Graph().as_default():
        coords = _run(tf.unravel_index([0, 7, 23], [2, 3, 4]))
        np.testing.assert_array_equal(coords, np.unravel_index([0, 7, 23], (2, 3, 4)))
        x = np.array([[1.5, -2.0]], np.float32)
        as_bytes = _run(tf.bitcast(x, tf.uint8))
        np.testing.assert_array_equal(as_bytes, x.view(np.uint8).reshape(1, 2, 4))
        np.testing.assert_array_equal(_run(tf.bitcast(as_bytes, tf.float32)), x)
        np.testing.assert_array_equal(_run(tf.bitcast(x, tf.int32)), x.view(np.int32))


def test_guarantee_const_passes_its_input():
    with tf.Graph().as_default():
        assert _run(tf.guarantee_const(tf.constant([1, 2]))).tolist() == [1, 2]


# --- moving blocks of space -----------------------------------------------------------------------

def _space_to_depth_numpy(x, block):
    n, h, w, c = x.shape
    blocks = x.reshape(n, h // block, block, w // block, block, c)
    return blocks.transpose(0, 1, 3, 2, 4, 5).reshape(n, h // block, w // block, -1)


@pytest.mark.parametrize("block, shape", [(2, (2, 4, 6, 3)), (3, (1, 3, 3, 2))])
def test_space_to_depth_matches_numpy_and_depth_to_space_undoes_it(block, shape):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    with tf.Graph().as_default():
        value, feed = _unknown(x)
        depth = tf.space_to_depth(value, block)
        deep, back = _run([depth, tf.depth_to_space(depth, block)], feed)
    np.testing.assert_array_equal(deep, _space_to_depth_numpy(x, block))
    np.testing.assert_array_equal(back, x)


def test_space_to_batch_nd_round_trips_with_the_required_paddings():
    x = np.arange(2 * 5 * 3 * 2, dtype=np.float32).reshape(2, 5, 3, 2)
    with tf.Graph().as_default():
        paddings, crops = tf.required_space_to_batch_paddings([5, 3], [2, 3])
        batched = tf.space_to_batch_nd(x, [2, 3], paddings)
        assert batched.shape.as_list() == [12, 3, 1, 2]  # paddings known while building
        got, back = _run([batched, tf.batch_to_space_nd(batched, [2, 3], crops)])
    assert got.shape == (12, 3, 1, 2)
    np.testing.assert_array_equal(back, x)
    # Block position (i, j) of the 2 x 3 block goes to batch (i * 3 + j) * 2 + b.
    padded = np.pad(x, [(0, 0), (0, 1), (0, 0), (0, 0)])
    np.testing.assert_array_equal(got[(1 * 3 + 2) * 2 + 1], padded[1, 1::2, 2::3])


def test_extract_image_patches_matches_numpy_windows():
    x = np.arange(2 * 5 * 4 * 3, dtype=np.float64).reshape(2, 5, 4, 3)
    with tf.Graph().as_default():
        patches = _run(tf.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 1, 1], [1, 2, 1, 1],
                                                "VALID"))
    assert patches.shape == (2, 2, 3, 12)
    for r in range(2):
        for c in range(3):
            window = x[:, 2 * r:2 * r + 3:2, c:c + 2, :]  # rate 2 along rows
            np.testing.assert_array_equal(patches[:, r, c], window.reshape(2, -1))


# --- errors: TensorFlow's classes, at build time and at run time -----------------------------------

BUILD_TIME_ERRORS = {
    "broadcast_to_incompatible": lambda: tf.broadcast_to([1, 2, 3], [2, 2]),
    "roll_shift_and_axis_sizes": lambda: tf.roll([1, 2, 3], [1, 2], [0]),
    "setdiff1d_of_a_matrix": lambda: tf.setdiff1d([[1]], [1]),
    "searchsorted_side": lambda: tf.searchsorted([1, 2], [1], side="middle"),
    "space_to_depth_indivisible": lambda: tf.space_to_depth(np.zeros((1, 3, 4, 1)), 2),
    "depth_to_space_indivisible": lambda: tf.depth_to_space(np.zeros((1, 2, 2, 3)), 2),
    "space_to_batch_indivisible": lambda: tf.space_to_batch_nd(
        np.zeros((1, 3, 4, 1)), [2, 2], [[0, 0], [0, 0]]),
    "tensor_scatter_updates_shape": lambda: tf.tensor_scatter_nd_update([1, 2, 3], [[0], [1]],
                                                                        [1, 2, 3]),
    "sequence_mask_maxlen_not_scalar": lambda: tf.sequence_mask([1, 2], [[3]]),
    "meshgrid_indexing": lambda: tf.meshgrid([1], [2], indexing="zz"),
    "reverse_sequence_lengths": lambda: tf.reverse_sequence([[1, 2]], [1, 2, 3], seq_axis=1,
                                                            batch_axis=0),
    "dynamic_stitch_piece_shapes": lambda: tf.dynamic_stitch([[0, 1]], [[1.0, 2.0, 3.0]]),
    "bitcast_narrow_to_wide": lambda: tf.bitcast(tf.constant([1, 2, 3], tf.uint8), tf.int32),
}


@pytest.mark.parametrize("name", sorted(BUILD_TIME_ERRORS))
def test_build_time_errors_are_value_errors(name):
    with tf.Graph().as_default(), pytest.raises(ValueError):
        BUILD_TIME_ERRORS[name]()


def test_run_time_errors_name_the_op():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32)
        checks = [
            (tf.unravel_index(x, [3, 4]), {x: [12]}, "UnravelIndex"),
            (tf.roll(tf.constant([1, 2]), x, [0]), {x: [1, 2]}, "Roll"),
            (tf.broadcast_to(tf.constant([1, 2]), x), {x: [3]}, "BroadcastTo"),
            (tf.reverse_sequence(tf.zeros([2, 3]), x, 1, 0), {x: [1, 4]}, "ReverseSequence"),
            (tf.space_to_depth(tf.zeros([1, 4, 4, 1]) + tf.cast(x, tf.float32), 3), {x: 0},
             "SpaceToDepth"),
        ]
        with tf.Session() as sess:
            for fetch, feed, op_type in checks:
                with pytest.raises(tf.errors.InvalidArgumentError) as raised:
                    sess.run(fetch, feed)
                assert op_type in str(raised.value), op_type


# --- the kernels written against ctx.xp run on the stand-in GPU ------------------------------------

def _gpu_family_fetches():
    x = tf.constant(np.arange(32.0).reshape(2, 4, 4, 1))
    return [
        tf.broadcast_to(tf.constant([1.0, 2.0]), [3, 2]),
        tf.roll(x, 1, 1),
        tf.reverse_sequence(x, [2, 3], seq_axis=1, batch_axis=0),
        tf.tensor_scatter_nd_add(x, [[0, 1]], tf.ones([1, 4, 1], tf.float64)),
        tf.tensor_scatter_nd_max(x, [[1]], tf.fill([1, 4, 4, 1], tf.constant(20.0, tf.float64))),
        tf.space_to_depth(x, 2),
        tf.batch_to_space_nd(tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]), [2, 2],
                             [[0, 0], [0, 0]]),
        tf.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
        tf.dynamic_stitch([[1], [0]], [[x[0]], [x[1]]]),
        tf.unravel_index([5], [2, 3]),
        tf.where_v2(x > 10.0, x, 0.0),
    ]


def test_array_kernels_run_on_the_stand_in_gpu(stand_in_gpu):
    with tf.Graph().as_default(), tf.Session() as sess:
        on_cpu = sess.run(_gpu_family_fetches())
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            fetches = _gpu_family_fetches()
        placed = {f.op.type: f.op.device for f in fetches}
        assert all("GPU" in device for device in placed.values()), placed
        with tf.Session() as sess:
            on_gpu = sess.run(fetches)
    for got, want in zip(on_gpu, on_cpu):
        np.testing.assert_array_equal(got, want)


# --- in-place scatters into variables, ensure_shape, sparse_mask, tf.manip ------------------------

def test_variable_scatters_match_numpy_with_repeated_indices():
    table = np.array([[1.0, -2.0], [3.0, 4.0], [-5.0, 6.0]])
    indices = np.array([2, 0, 2])
    updates = np.array([[2.0, 3.0], [0.5, -1.0], [4.0, -2.0]])
    for scatter, numpy_at in ((tf.scatter_mul, np.multiply.at), (tf.scatter_div, np.divide.at),
                              (tf.scatter_max, np.maximum.at), (tf.scatter_min, np.minimum.at)):
        expected = table.copy()
        numpy_at(expected, indices, updates)
        with tf.Graph().as_default():
            var = tf.Variable(table)
            with tf.Session() as sess:
                sess.run(var.initializer)
                np.testing.assert_array_equal(sess.run(scatter(var, indices, updates)),
                                              expected)


def test_scatter_nd_update_writes_elements_and_slices_in_place():
    with tf.Graph().as_default():
        var = tf.Variable(np.zeros((2, 3, 2), np.int64))
        with tf.Session() as sess:
            sess.run(var.initializer)
            sess.run(tf.scatter_nd_update(var, [[1, 2, 0]], [7]))
            sess.run(tf.scatter_nd_add(var, [[0, 1], [0, 1]], [[1, 2], [10, 20]]))
            result = sess.run(tf.scatter_nd_sub(var, [[1]], -np.ones((1, 3, 2), np.int64)))
    expected = np.zeros((2, 3, 2), np.int64)
    expected[1, 2, 0] = 7
    expected[0, 1] = [11, 22]
    expected[1] += 1
    np.testing.assert_array_equal(result, expected)


def test_variable_scatter_errors():
    with tf.Graph().as_default():
        var = tf.Variable(np.zeros((2, 2), np.int32))
        with pytest.raises(ValueError):
            tf.scatter_nd_update(var, [[0]], [1, 2, 3])  # updates must be [1, 2]
        with pytest.raises(TypeError, match="mutable tensor"):
            tf.scatter_nd_add(tf.constant([1, 2]), [[0]], [1])
        with tf.Session() as sess:
            sess.run(var.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match="ScatterNdUpdate"):
                sess.run(tf.scatter_nd_update(var, [[2, 0]], [1]))
            with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
                sess.run(tf.scatter_div(var, [0], [[1, 0]]))


def test_ensure_shape_checks_at_build_time_and_at_run_time():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        checked = tf.ensure_shape(x, [2, None])
        assert checked.shape.as_list() == [2, 3]
        with pytest.raises(ValueError):
            tf.ensure_shape(x, [2, 4])
        with tf.Session() as sess:
            assert sess.run(checked, {x: np.ones((2, 3))}).shape == (2, 3)
            with pytest.raises(tf.errors.InvalidArgumentError, match="EnsureShape"):
                sess.run(tf.ensure_shape(tf.placeholder_with_default(x, None), [2, 3]),
                         {x: np.ones((1, 3))})


def test_sparse_mask_drops_the_masked_slices():
    with tf.Graph().as_default():
        slices = tf.IndexedSlices(tf.constant(np.arange(8.0).reshape(4, 2)),
                                  tf.constant([12, 26, 37, 45]), tf.constant([50, 2]))
        masked = tf.sparse_mask(slices, [12, 45])
        values, indices = _run([masked.values, masked.indices])
    np.testing.assert_array_equal(indices, [26, 37])
    np.testing.assert_array_equal(values, [[2.0, 3.0], [4.0, 5.0]])
    assert masked.dense_shape is slices.dense_shape


def test_manip_holds_the_top_level_functions():
    for name in ("batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd",
                 "space_to_batch_nd", "tile"):
        assert getattr(tf.manip, name) is getattr(tf, name)
