"""The rest of tf.*: sorting, histograms, saturating casts, random crops, the clock, bitwise
ops, partitioners, templates, gradient helpers, script ops, and the version and build names.

Values are checked against NumPy; node names against those TensorFlow builds (recorded
from the reference TensorFlow with `import tensorflow.compat.v1 as tf`).
"""

import os
import time

import numpy as np
import pytest

import minitf as tf


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict=feed_dict)


def _op_names(prefix):
    return [op.name for op in tf.get_default_graph().get_operations()
            if op.name.startswith(prefix)]


# --- tf.sort and tf.argsort -------------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 0, 1, 2])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_sort_and_argsort_match_numpy(axis, direction):
    values = np.random.RandomState(axis + 3).permutation(60).reshape(3, 4, 5).astype(np.float32)
    sign = 1 if direction == "ASCENDING" else -1
    got_values, got_indices = _run([tf.sort(values, axis=axis, direction=direction),
                                    tf.argsort(values, axis=axis, direction=direction)])
    np.testing.assert_array_equal(got_values, sign * np.sort(sign * values, axis=axis))
    np.testing.assert_array_equal(got_indices, np.argsort(sign * values, axis=axis))


def test_sort_builds_top_k_as_tensorflow_does():
    x = tf.constant([[3., 1., 2.], [0., 5., 4.]])
    tf.sort(x)
    tf.argsort(x, axis=0, direction="DESCENDING")
    assert _op_names("sort/") == [
        "sort/axis", "sort/Neg", "sort/Shape", "sort/strided_slice/stack",
        "sort/strided_slice/stack_1", "sort/strided_slice/stack_2", "sort/strided_slice",
        "sort/Rank", "sort/TopKV2", "sort/Neg_1"]
    assert "argsort/transposition" in _op_names("argsort/")
    assert _op_names("argsort/")[-2:] == ["argsort/TopKV2", "argsort/transpose_1"]


def test_argsort_keeps_ties_in_order():
    values = np.array([2, 1, 2, 1, 2], np.int32)
    np.testing.assert_array_equal(_run(tf.argsort(values)), [1, 3, 0, 2, 4])


def test_sort_refuses_a_bad_direction_and_a_tensor_axis():
    with pytest.raises(ValueError, match="should be one of ASCENDING, DESCENDING"):
        tf.sort([1., 2.], direction="UP")
    with pytest.raises(ValueError, match="axis must be a constant scalar"):
        tf.sort([1., 2.], axis=tf.placeholder(tf.int32, []))


# --- histograms -------------------------------------------------------------------------

def test_histogram_fixed_width_counts_outliers_in_the_end_bins():
    values = [-1., 0., 1.5, 2., 5.]
    counts, bins = _run([tf.histogram_fixed_width(values, [0., 2.], nbins=4),
                         tf.histogram_fixed_width_bins(values, [0., 2.], nbins=4)])
    np.testing.assert_array_equal(counts, [2, 0, 0, 3])  # TF 1.15's answer
    np.testing.assert_array_equal(bins, [0, 0, 3, 3, 3])
    assert counts.dtype == np.int32
    assert tf.get_default_graph().get_operation_by_name("histogram_fixed_width").type == \
        "HistogramFixedWidth"


def test_histogram_fixed_width_matches_numpy_inside_the_range():
    values = np.random.RandomState(0).uniform(0, 10, size=500)
    got = _run(tf.histogram_fixed_width(values, [0., 10.], nbins=7, dtype=tf.int64))
    np.testing.assert_array_equal(got, np.histogram(values, bins=7, range=(0, 10))[0])
    assert got.dtype == np.int64


def test_histogram_fixed_width_errors():
    with pytest.raises(ValueError, match="Requires nbins > 0: 0"):
        tf.histogram_fixed_width([1.], [0., 1.], nbins=0)
    nbins = tf.placeholder(tf.int32, [])
    with pytest.raises(tf.errors.InvalidArgumentError, match="nbins should be a positive"):
        _run(tf.histogram_fixed_width([1.], [0., 1.], nbins=nbins), {nbins: -1})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"value_range\[0\] < value_range\[1\], but got '\[2, 1\]'"):
        _run(tf.histogram_fixed_width([1.], [2., 1.], nbins=3))


# --- saturate_cast, random_crop, timestamp ----------------------------------------------------

def test_saturate_cast_clips_into_the_target_range():
    got = _run(tf.saturate_cast([300., -5., 7.6], tf.uint8))
    np.testing.assert_array_equal(got, [255, 0, 7])
    assert tf.dtypes.saturate_cast is tf.saturate_cast
    assert tf.get_default_graph().get_operation_by_name("saturate_cast").type == "Cast"


def test_random_crop_is_a_window_of_the_value():
    value = np.arange(48, dtype=np.float32).reshape(6, 8)
    crop = _run(tf.random_crop(value, [2, 3], seed=7))
    assert crop.shape == (2, 3)
    row, col = np.argwhere(value == crop[0, 0])[0]
    np.testing.assert_array_equal(crop, value[row:row + 2, col:col + 3])
    assert tf.get_default_graph().get_operation_by_name("random_crop").type == "Slice"


def test_random_crop_larger_than_the_value_fails_when_run():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need value.shape >= size"):
        _run(tf.random_crop(np.zeros([2, 2], np.float32), [3, 1]))


def test_timestamp_is_the_time_the_node_runs():
    stamp = tf.timestamp()
    assert stamp.dtype == tf.float64 and stamp.shape.ndims == 0
    before = time.time()
    first, second = _run(stamp), _run(stamp)
    assert before <= first <= second <= time.time()


# --- tf.bitwise ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint16])
def test_bitwise_ops_match_numpy(dtype):
    rng = np.random.RandomState(1)
    info = np.iinfo(dtype)
    x = rng.randint(info.min, info.max, size=[3, 4], dtype=dtype)
    y = rng.randint(info.min, info.max, size=[4], dtype=dtype)
    shift = rng.randint(0, info.bits, size=[3, 4]).astype(dtype)
    got = _run([tf.bitwise.bitwise_and(x, y), tf.bitwise.bitwise_or(x, y),
                tf.bitwise.bitwise_xor(x, y), tf.bitwise.invert(x),
                tf.bitwise.left_shift(x, shift), tf.bitwise.right_shift(x, shift)])
    expected = [x & y, x | y, x ^ y, ~x, np.left_shift(x, shift), np.right_shift(x, shift)]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == dtype


def test_shifts_clamp_the_amount_as_tensorflow_does():
    left, right = _run([tf.bitwise.left_shift(tf.constant([1, 2], tf.int8),
                                              tf.constant([7, 9], tf.int8)),
                        tf.bitwise.right_shift(tf.constant([-8, 8, -8]), tf.constant([1, 40, 40]))])
    np.testing.assert_array_equal(left, [-128, 0])  # TF's values
    np.testing.assert_array_equal(right, [-4, 0, -1])


def test_bitwise_ops_refuse_floats():
    with pytest.raises(TypeError):
        tf.bitwise.bitwise_and(1.5, 2.5)


# --- tensors, scopes, templates ----------------------------------------------------------

def test_is_tensor_and_get_static_value():
    assert tf.is_tensor(tf.constant(1.))
    assert tf.is_tensor(tf.Variable(1.))
    assert tf.is_tensor(tf.SparseTensor([[0]], [1.], [2]))
    assert not tf.is_tensor(np.ones(2)) and not tf.is_tensor(3)
    assert tf.is_symbolic_tensor(tf.constant(1.)) and not tf.is_symbolic_tensor(1.)
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert tf.get_static_value(tf.placeholder(tf.float32)) is None


def test_op_scope_is_name_scope_with_its_arguments_reordered():
    with tf.op_scope([], None, default_name="scope") as scope:
        c = tf.constant(1.)
    assert scope == "scope/" and c.op.name == "scope/Const"


def test_init_scope_leaves_control_dependencies():
    a = tf.no_op(name="a")
    with tf.control_dependencies([a]):
        with tf.init_scope():
            b = tf.constant(1., name="b")
    assert b.op.control_inputs == []


def test_make_template_shares_variables_and_names_ops_as_tensorflow():
    def scale(x):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
        return x * w

    template = tf.make_template("lin", scale)
    first, second = template(tf.constant([1., 2.])), template(tf.constant([3., 4.]))
    later = tf.make_template("lin", scale, create_scope_now_=True)
    third = later(1.)
    assert [v.op.name for v in tf.global_variables()] == ["lin/w", "lin_1/w"]
    assert (first.op.name, second.op.name, third.op.name) == ("lin/mul", "lin_1/mul",
                                                             "lin_1_1/mul")
    assert template.variable_scope_name == "lin/"
    assert [v.op.name for v in template.trainable_variables] == ["lin/w"]
    np.testing.assert_array_equal(_run(second), [3., 4.])


def test_a_template_may_not_make_new_trainable_variables_later():
    template = tf.make_template("bad", lambda: tf.Variable(1.))
    template()
    with pytest.raises(ValueError, match="Trainable variable created when calling a template"):
        template()


# --- gradient helpers -----------------------------------------------------------------------

def test_grad_pass_through_gives_the_identity_gradient():
    x = tf.constant([1., 2.])
    y = tf.grad_pass_through(tf.square)(x)
    value, grad = _run([y, tf.gradients(y, x)[0]])
    np.testing.assert_array_equal(value, [1., 4.])
    np.testing.assert_array_equal(grad, [1., 1.])


def test_grad_pass_through_an_op_without_a_gradient():
    x = tf.constant(3.3)
    assert tf.gradients(tf.round(x * 2.), x) == [None]
    y = tf.grad_pass_through(tf.round)(x * 2.)
    assert _run(y) == 7.
    np.testing.assert_allclose(_run(tf.gradients(y, x)[0]), 2.)


def test_recompute_grad_gives_the_same_gradient_by_building_f_again():
    def f(x):
        return tf.sin(x) * x

    x = tf.constant([0.3, 1.2, -0.7], tf.float64)
    y = tf.recompute_grad(f)(x)
    plain = f(x)
    count = len(tf.get_default_graph().get_operations())
    grad = tf.gradients(y, x)[0]
    assert any(op.type == "Sin" for op in tf.get_default_graph().get_operations()[count:])
    got, expected = _run([grad, tf.gradients(plain, x)[0]])
    np.testing.assert_allclose(got, expected)
    error = tf.test.compute_gradient_error(x, [3], y, [3])
    assert error < 1e-6


def test_recompute_grad_with_a_variable():
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", initializer=tf.constant(2., tf.float64))

    def f(x):
        return x * w

    x = tf.constant(3., tf.float64)
    y = tf.recompute_grad(f)(x)
    grad_x, grad_w = _run(tf.gradients(y, [x, w]))
    assert (grad_x, grad_w) == (2., 3.)


# --- script ops -------------------------------------------------------------------------

def test_numpy_function_and_py_function():
    x = tf.constant([1., 2.])
    doubled = tf.numpy_function(lambda a: a * 2, [x], tf.float32)
    added = tf.py_function(lambda a, b: a + b, [x, x], [tf.float32])
    assert doubled.op.type == "PyFunc" and added[0].op.type == "EagerPyFunc"
    got = _run([doubled, added])
    np.testing.assert_array_equal(got[0], [2., 4.])
    np.testing.assert_array_equal(got[1][0], [2., 4.])


def test_py_function_errors_are_tensorflow_errors():
    y = tf.py_function(lambda a: a[10], [tf.constant([1.])], tf.float32)
    with pytest.raises(tf.errors.OpError):
        _run(y)


# --- initializers and partitioned variables ---------------------------------------------------

def test_orthogonal_initializer_gives_orthonormal_rows_or_columns():
    wide = tf.get_variable("wide", [3, 5], initializer=tf.orthogonal_initializer(seed=1))
    tall = tf.get_variable("tall", [4, 2, 3], initializer=tf.initializers.orthogonal(gain=2.))
    eye = tf.get_variable("eye", [2, 3], initializer=tf.initializers.identity(gain=3.))
    a, b, c = _run([wide, tall, eye])
    np.testing.assert_allclose(a @ a.T, np.eye(3), atol=1e-5)
    m = b.reshape(8, 3)
    np.testing.assert_allclose(m.T @ m, 4 * np.eye(3), atol=1e-4)
    np.testing.assert_array_equal(c, 3 * np.eye(2, 3))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        tf.orthogonal_initializer()([3])
    with pytest.raises(ValueError, match="only be used for 2D matrices"):
        tf.initializers.identity()([2, 2, 2])


def test_partitioners_match_tensorflow():
    shape = tf.TensorShape([10, 2])
    assert tf.fixed_size_partitioner(3)(tf.TensorShape([2, 4]), dtype=tf.float32) == [2, 1]
    assert tf.min_max_variable_partitioner(4, min_slice_size=8)(shape, tf.float32) == [4, 1]
    assert tf.variable_axis_size_partitioner(16)(shape, tf.float32) == [5, 1]
    assert tf.variable_axis_size_partitioner(16, max_shards=2)(shape, tf.float32) == [2, 1]
    with pytest.raises(ValueError, match="max_partitions must be >= 1"):
        tf.min_max_variable_partitioner(0)
    with pytest.raises(ValueError, match="shape is not fully defined"):
        tf.variable_axis_size_partitioner(16)(tf.TensorShape([None, 2]), tf.float32)


def test_create_partitioned_variables_names_and_slices():
    parts = tf.create_partitioned_variables([5, 3], [2, 1], tf.random_normal_initializer())
    assert [(v.op.name, v.shape.as_list()) for v in parts] == [
        ("PartitionedVariable/part_0", [3, 3]), ("PartitionedVariable/part_1", [2, 3])]
    value = np.arange(10, dtype=np.float32).reshape(5, 2)
    sliced = tf.create_partitioned_variables([5, 2], [3, 1], value, name="q")
    assert [v.op.name for v in sliced] == ["q/part_0", "q/part_1", "q/part_2"]
    np.testing.assert_array_equal(np.concatenate(_run(sliced)), value)
    with pytest.raises(ValueError, match="must have the length"):
        tf.create_partitioned_variables([5, 3], [2], tf.zeros_initializer())


def test_assert_variables_initialized_fails_until_they_are():
    v = tf.Variable([1., 2.])
    check = tf.assert_variables_initialized([v])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(check)
        sess.run(v.initializer)
        assert sess.run(check) == 1
    assert tf.assert_variables_initialized([]) is None


# --- versions, build information, resources, user ops, protos -------------------------------

def test_versions_and_build_constants():
    assert tf.version.VERSION == tf.VERSION == "1.15.0"
    assert tf.GRAPH_DEF_VERSION == tf.version.GRAPH_DEF_VERSION == 134
    assert tf.GRAPH_DEF_VERSION_MIN_PRODUCER == tf.GRAPH_DEF_VERSION_MIN_CONSUMER == 0
    assert isinstance(tf.COMPILER_VERSION, str) and tf.COMPILER_VERSION
    assert (tf.CXX11_ABI_FLAG, tf.MONOLITHIC_BUILD) == (0, 0)
    assert tf.sysconfig.CXX_VERSION == tf.CXX_VERSION


def test_sysconfig_points_into_minitf():
    assert os.path.isfile(os.path.join(tf.sysconfig.get_include(), "op_def.py"))
    assert os.path.isfile(os.path.join(tf.sysconfig.get_lib(), "__init__.py"))
    assert tf.sysconfig.get_compile_flags()[0] == "-I" + tf.sysconfig.get_include()
    assert tf.sysconfig.get_link_flags() == ["-L" + tf.sysconfig.get_lib()]


def test_resource_loader_finds_files_beside_the_caller_and_in_minitf():
    here = os.path.dirname(os.path.abspath(__file__))
    assert tf.resource_loader.get_data_files_path() == here
    assert tf.resource_loader.get_path_to_datafile("x.txt") == os.path.join(here, "x.txt")
    assert tf.resource_loader.load_resource("graph/versions.py").startswith(b'"""')
    assert tf.resource_loader.readahead_file_path("/a/b") == "/a/b"


def test_user_ops_my_fact():
    fact = tf.user_ops.my_fact()
    assert fact.op.type == "Fact"
    assert _run(fact) == b"0! == 1"


def test_load_library_runs_every_library_of_a_directory(tmp_path):
    (tmp_path / "plus_one.py").write_text(
        "from minitf.framework.op_def import register_op\n"
        "from minitf.framework.kernel_registry import register_kernel\n"
        "from minitf.framework import common_shapes\n"
        "register_op('TestPlusOne').input('x: int32').output('y: int32').set_shape_fn("
        "common_shapes.unchanged_shape)\n"
        "@register_kernel('TestPlusOne', ('CPU',))\n"
        "def plus_one(ctx, x):\n    return x + 1\n")
    assert tf.load_library(str(tmp_path)) is None
    from minitf.graph.op_def_library import apply_op
    assert _run(apply_op("TestPlusOne", x=[1, 2])).tolist() == [2, 3]
    with pytest.raises(tf.errors.NotFoundError):
        tf.load_library(str(tmp_path / "missing"))


def test_graph_proto_classes_and_aliases():
    assert tf.AttrValue(i=3).i == 3
    assert tf.NameAttrList(name="f").name == "f"
    assert tf.MetaGraphDef().meta_info_def.tensorflow_version == ""
    assert tf.TensorInfo(name="x:0").name == "x:0"
    assert tf.NoGradient is tf.NotDifferentiable
    assert tf.OpError is tf.errors.OpError
    assert tf.nest.flatten({"b": 1, "a": [2, 3]}) == [2, 3, 1]
    assert tf.nest.is_nested([1]) and not tf.nest.is_nested(1)


def test_raw_ops_build_any_registered_op_by_keyword():
    total = tf.raw_ops.Add(x=1., y=2., name="total")
    values, indices = tf.raw_ops.TopKV2(input=[3., 1., 2.], k=2)
    assert total.op.name == "total" and total.op.type == "Add"
    assert _run(total) == 3.
    np.testing.assert_array_equal(_run(indices), [0, 2])
    with pytest.raises(TypeError, match="positional"):
        tf.raw_ops.Add(1., 2.)
    with pytest.raises(AttributeError, match="no op type"):
        tf.raw_ops.NoSuchOp  # noqa: B018
    assert "MatMul" in dir(tf.raw_ops)


def test_lookup_namespace_has_the_tables():
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2], value_dtype=tf.int64), -1)
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        assert sess.run(table.lookup(tf.constant(["b", "z"]))).tolist() == [2, -1]


# --- igamma and igammac ---------------------------------------------------------------------

IGAMMA_A = [0.5, 1., 2., 7., 30., 0.1, 100., 2.]
IGAMMA_X = [0.2, 1., 5., 7., 29., 3., 110., 0.]
# The reference TensorFlow's tf.igamma(IGAMMA_A, IGAMMA_X) in float64.
TF_IGAMMA = [0.47291074, 0.63212056, 0.95957232, 0.55028894, 0.45082911, 0.99843473,
             0.84172133, 0.]


def test_igamma_and_igammac_match_tensorflow():
    a, x = np.array(IGAMMA_A), np.array(IGAMMA_X)
    lower, upper = _run([tf.igamma(a, x), tf.math.igammac(a, x)])
    np.testing.assert_allclose(lower, TF_IGAMMA, atol=1e-8)
    np.testing.assert_allclose(lower + upper, np.ones_like(lower), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_igamma_of_a_one_is_the_exponential_cdf(dtype):
    x = np.random.RandomState(0).uniform(0, 20, size=50).astype(dtype)
    got = _run(tf.igamma(np.ones_like(x), x))
    assert got.dtype == dtype
    np.testing.assert_allclose(got, 1 - np.exp(-x.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_igamma_outside_its_domain_is_nan():
    got = _run(tf.igamma(tf.constant([-1., 1., 0.]), tf.constant([1., -1., 1.])))
    assert np.isnan(got).all()
    with pytest.raises(TypeError):
        tf.igamma(tf.constant([1], tf.int32), tf.constant([1], tf.int32))


def test_sparse_matmul_is_matmul_with_hints():
    rng = np.random.RandomState(3)
    a, b = rng.rand(2, 3).astype(np.float32), rng.rand(4, 3).astype(np.float32)
    product = tf.sparse_matmul(a, b, transpose_b=True, a_is_sparse=True)
    assert product.op.type == "SparseMatMul" and product.shape.as_list() == [2, 4]
    np.testing.assert_allclose(_run(product), a @ b.T, rtol=1e-6)
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.sparse_matmul(a, a)
    with pytest.raises(TypeError):
        tf.sparse_matmul(tf.constant(a, tf.float64), tf.constant(b.T, tf.float64))


# --- tf.debugging.assert_shapes -----------------------------------------------------------------

def test_assert_shapes_decides_statically_what_it_can():
    x, y = tf.zeros([2, 3]), tf.zeros([3])
    assert tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("Q",))]).type == "NoOp"
    assert tf.debugging.assert_shapes({x: ("...", 3)}).type == "NoOp"
    with pytest.raises(ValueError, match=r"Specified by tensor zeros:0 dimension 0.  Tensor "
                                         r"zeros_1:0 dimension 0 must have size 2.  Received "
                                         r"size 3, shape \(3,\)"):
        tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N",))])
    with pytest.raises(ValueError, match=r"Specified explicitly.  Tensor zeros:0 dimension 1 "
                                         r"must have size 4.  Received size 3"):
        tf.debugging.assert_shapes([(x, (2, 4))])
    with pytest.raises(ValueError, match="must have rank 3"):
        tf.debugging.assert_shapes([(x, (2, 3, 1))])


def test_assert_shapes_checks_unknown_dimensions_when_run():
    p = tf.placeholder(tf.float32, [None, 3])
    q = tf.placeholder(tf.float32, [None])
    check = tf.debugging.assert_shapes([(p, ("N", 3)), (q, ("N",))])
    with tf.Session() as sess:
        sess.run(check, {p: [[1., 2., 3.]], q: [1.]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have size"):
            sess.run(check, {p: [[1., 2., 3.]], q: [1., 2.]})
