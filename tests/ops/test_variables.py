"""tf.Variable (TF1 reference variables), the state ops and the variable collections.

Node names, op types and error messages were checked against TensorFlow's
`tf.compat.v1` (graph mode, resource variables disabled).
"""

import numpy as np
import pytest

import minitf as tf


def _resource_manager(sess):
    """The resource manager of the session's CPU, where its variables live."""
    return sess._runtime.device_mgr.host_cpu.resource_manager


def _var_state(sess, variable):
    return _resource_manager(sess).lookup(None, variable.op.name)


# --- the nodes a Variable builds ----------------------------------------------------

def test_variable_builds_tf1_nodes():
    v = tf.Variable([1.0, 2.0])
    graph = tf.get_default_graph()
    nodes = [(op.name, op.type, [t.name for t in op.inputs]) for op in graph.get_operations()]
    assert nodes == [
        ("Variable/initial_value", "Const", []),
        ("Variable", "VariableV2", []),
        ("Variable/Assign", "Assign", ["Variable:0", "Variable/initial_value:0"]),
        ("Variable/read", "Identity", ["Variable:0"]),
    ]
    assert v.name == "Variable:0"
    assert v.op.name == "Variable"
    assert v.dtype == tf.float32._as_ref
    assert v.dtype.name == "float32_ref"
    assert v.shape.as_list() == [2] and v.get_shape().as_list() == [2]
    assert v.initializer.name == "Variable/Assign"
    assert v.initial_value.name == "Variable/initial_value:0"
    assert v.value().name == "Variable/read:0"
    assert v.graph is graph
    assert repr(v) == "<tf.Variable 'Variable:0' shape=(2,) dtype=float32_ref>"
    # The initializer and the snapshot are colocated with the variable.
    assert v.initializer.colocation_groups() == ["loc:@Variable"]
    assert v.value().op.colocation_groups() == ["loc:@Variable"]
    assert graph.get_operation_by_name("Variable").get_attr("shape").as_list() == [2]


def test_variable_names_follow_name_scopes_and_are_made_unique():
    with tf.name_scope("s"):
        w = tf.Variable(1.0, name="w")
        w2 = tf.Variable(1.0, name="w")
    v = tf.Variable(3)
    assert (w.name, w2.name, v.name) == ("s/w:0", "s/w_1:0", "Variable:0")
    assert v.dtype.name == "int32_ref"
    assert v.initial_value.dtype == tf.int32


def test_callable_initial_value_is_built_under_initializer_scope():
    w = tf.Variable(lambda: tf.constant([1.0, 2.0, 3.0]), name="w")
    initial = w.initial_value.op
    assert initial.name == "w/Initializer/Const"
    assert initial.colocation_groups() == ["loc:@w"]
    assert w.shape.as_list() == [3]
    with tf.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w), [1.0, 2.0, 3.0])


def test_dtype_converts_the_initial_value():
    v = tf.Variable([1, 2], dtype=tf.float64)
    assert v.dtype.name == "float64_ref"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v).dtype == np.float64


def test_initial_value_without_static_shape_needs_validate_shape_false():
    x = tf.placeholder(tf.float32)
    with pytest.raises(ValueError, match="initial_value must have a shape specified"):
        tf.Variable(x)
    v = tf.Variable(x, validate_shape=False)
    assert v.shape.ndims is None
    with tf.Session() as sess:
        sess.run(v.initializer, {x: [[1.0, 2.0]]})
        np.testing.assert_array_equal(sess.run(v), [[1.0, 2.0]])


def test_variable_requires_an_initial_value():
    with pytest.raises(ValueError, match="initial_value must be specified"):
        tf.Variable()


def test_variable_ignores_enclosing_control_dependencies():
    c = tf.constant(1.0)
    with tf.control_dependencies([c]):
        v = tf.Variable(2.0)
    assert v.op.control_inputs == []
    assert v.initializer.control_inputs == []


# --- initialization and reads ---------------------------------------------------------

def test_initialize_then_read_in_several_ways():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    x = tf.constant([[1.0, 1.0]])
    y = tf.matmul(x, w)
    z = w + 1.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(w), [[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_array_equal(sess.run(y), [[4.0, 6.0]])
        np.testing.assert_array_equal(sess.run(z), [[2.0, 3.0], [4.0, 5.0]])
        np.testing.assert_array_equal(w.eval(session=sess), [[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_array_equal(sess.run(w.read_value()), [[1.0, 2.0], [3.0, 4.0]])
        with sess.as_default():
            np.testing.assert_array_equal(w.eval(), [[1.0, 2.0], [3.0, 4.0]])


def test_reading_an_uninitialized_variable_names_it():
    w = tf.Variable([1.0, 2.0], name="weights")
    y = w * 2.0
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value weights"):
            sess.run(y)
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value weights"):
            sess.run(w)


def test_updates_of_an_uninitialized_variable_name_it():
    w = tf.Variable([1.0, 2.0], name="w")
    with tf.Session() as sess:
        for update in (w.assign_add([1.0, 1.0]), w.assign_sub([1.0, 1.0]),
                       tf.scatter_add(w, [0], [1.0]), tf.scatter_update(w, [0], [1.0]),
                       tf.scatter_sub(w, [0], [1.0])):
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="Attempting to use uninitialized value w"):
                sess.run(update)


def test_is_variable_initialized():
    v = tf.Variable(1.0)
    initialized = tf.is_variable_initialized(v)
    assert initialized.dtype == tf.bool and initialized.shape.ndims == 0
    with tf.Session() as sess:
        assert not sess.run(initialized)
        sess.run(v.initializer)
        assert sess.run(initialized)


def test_feeding_a_variable_replaces_its_value_for_that_run():
    v = tf.Variable([1.0, 2.0])
    doubled = v * 2.0
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(doubled, {v: [5.0, 6.0]}), [10.0, 12.0])
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(doubled), [2.0, 4.0])


def test_load_writes_a_value_without_new_ops():
    v = tf.Variable([1.0, 2.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        before = len(tf.get_default_graph().get_operations())
        v.load([7.0, 8.0], sess)
        assert len(tf.get_default_graph().get_operations()) == before
        np.testing.assert_array_equal(sess.run(v), [7.0, 8.0])
    with pytest.raises(ValueError, match="session"):
        v.load([1.0, 2.0])


def test_initialized_value_is_a_cond_on_is_variable_initialized():
    v = tf.Variable(tf.random_uniform([3], seed=1), name="v")
    w = tf.Variable(v.initialized_value() * 2.0, name="w")
    value = v.initialized_value()
    assert (value.op.name, value.op.type) == ("cond_1/Merge", "Merge")
    with tf.Session() as sess:
        sess.run(w.initializer)  # takes v's initial value; v itself stays uninitialized
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v)
        sess.run(tf.global_variables_initializer())
        v_value, w_value = sess.run([v, w])
        np.testing.assert_allclose(w_value, 2.0 * v_value)
        np.testing.assert_allclose(sess.run(value), v_value)  # initialized: the variable's value


# --- updates ---------------------------------------------------------------------------

def test_assign_ops_and_their_names():
    v = tf.Variable([1.0, 2.0], name="v")
    a = v.assign([3.0, 4.0])
    add = v.assign_add([1.0, 1.0])
    sub = v.assign_sub([0.5, 0.5])
    op = v.assign([0.0, 0.0], read_value=False)
    assert (a.name, add.name, sub.name, op.name) == ("Assign:0", "AssignAdd:0",
                                                     "AssignSub:0", "Assign_1")
    assert a.op.inputs[1].name == "Assign/value:0"
    assert isinstance(op, tf.Operation)
    assert a.op.colocation_groups() == ["loc:@v"]
    assert a.op.get_attr("use_locking") is False
    assert tf.assign(v, [1.0, 1.0]).op.get_attr("use_locking") is True
    assert tf.assign_add(v, [1.0, 1.0]).op.get_attr("use_locking") is False
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(a), [3.0, 4.0])
        np.testing.assert_array_equal(sess.run(add), [4.0, 5.0])
        np.testing.assert_array_equal(sess.run(sub), [3.5, 4.5])
        assert sess.run(op) is None
        np.testing.assert_array_equal(sess.run(v), [0.0, 0.0])


def test_tf_assign_functions_take_variables():
    v = tf.Variable(10, name="counter")
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(tf.assign_add(v, 5)) == 15
        assert sess.run(tf.assign_sub(v, 3)) == 12
        assert sess.run(tf.assign(v, 1)) == 1
        assert sess.run(v.count_up_to(3)) == 1
        assert sess.run(tf.count_up_to(v, 3)) == 2
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 3"):
            sess.run(v.count_up_to(3))


def test_assign_checks_shapes_and_dtypes_while_building():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, "
                                         "but are 2 and 3"):
        tf.assign(v, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        v.assign_add([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="Input 'value' of 'Assign' Op has type int32 that "
                                        "does not match type float32 of argument 'ref'"):
        tf.assign(v, tf.constant([1, 2]))
    with pytest.raises(TypeError, match="requires that input 'ref' be a mutable tensor"):
        tf.assign(tf.constant([1.0, 2.0]), [3.0, 4.0])


def test_assign_checks_shapes_at_run_time_unless_told_not_to():
    v = tf.Variable([1.0, 2.0])
    p = tf.placeholder(tf.float32)
    checked = tf.assign(v, p)
    reshaping = tf.assign(v, p, validate_shape=False)
    assert reshaping.shape.ndims is None
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Assign requires shapes of both tensors to match. "
                                 r"lhs shape= \[2\] rhs shape= \[3\]"):
            sess.run(checked, {p: [1.0, 2.0, 3.0]})
        np.testing.assert_array_equal(sess.run(reshaping, {p: [1.0, 2.0, 3.0]}),
                                      [1.0, 2.0, 3.0])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Parameters and update must be the same size"):
            sess.run(tf.assign_add(v, p), {p: [1.0, 1.0]})


def test_assign_stores_a_copy_of_the_fed_array():
    v = tf.Variable([0.0, 0.0])
    p = tf.placeholder(tf.float32, [2])
    assign = tf.assign(v, p)
    fed = np.array([1.0, 2.0], dtype=np.float32)
    with tf.Session() as sess:
        sess.run(assign, {p: fed})
        fed[:] = 99.0
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
        assert not np.shares_memory(_var_state(sess, v).value, fed)


def test_fetched_values_never_change_after_later_updates():
    v = tf.Variable([1.0, 2.0, 3.0])
    snapshot = tf.identity(v)
    with tf.Session() as sess:
        sess.run(v.initializer)
        fetched = sess.run(v)
        via_read = sess.run(v.value())
        via_identity = sess.run(snapshot)
        assigned = sess.run(v.assign([4.0, 5.0, 6.0]))
        sess.run(v.assign_add([1.0, 1.0, 1.0]))
        sess.run(tf.scatter_add(v, [0], [10.0]))
        sess.run(tf.scatter_update(v, [2], [-1.0]))
        np.testing.assert_array_equal(fetched, [1.0, 2.0, 3.0])
        np.testing.assert_array_equal(via_read, [1.0, 2.0, 3.0])
        np.testing.assert_array_equal(via_identity, [1.0, 2.0, 3.0])
        np.testing.assert_array_equal(assigned, [4.0, 5.0, 6.0])
        np.testing.assert_array_equal(sess.run(v), [15.0, 6.0, -1.0])


def test_assign_add_updates_the_buffer_in_place():
    v = tf.Variable(np.zeros([100, 4], np.float32))
    with tf.Session() as sess:
        sess.run(v.initializer)
        buffer = _var_state(sess, v).value
        sess.run(v.assign_add(np.ones([100, 4], np.float32)))
        assert _var_state(sess, v).value is buffer
        np.testing.assert_array_equal(buffer, np.ones([100, 4]))


# --- sparse updates ----------------------------------------------------------------------

def test_scatter_ops_update_rows_in_place_without_copying_the_table():
    rows, width = 20000, 8
    table = tf.Variable(np.zeros([rows, width], np.float32), name="table")
    indices = tf.placeholder(tf.int32, [None])
    updates = tf.placeholder(tf.float32, [None, width])
    ops = {"update": tf.scatter_update(table, indices, updates),
           "add": tf.scatter_add(table, indices, updates),
           "sub": tf.scatter_sub(table, indices, updates)}
    assert ops["add"].name == "ScatterAdd:0"
    expected = np.zeros([rows, width], np.float32)
    with tf.Session() as sess:
        sess.run(table.initializer)
        buffer = _var_state(sess, table).value
        ones = np.ones([3, width], np.float32)
        sess.run(ops["update"].op, {indices: [5, 9, 5], updates: ones * [[1], [2], [3]]})
        expected[5], expected[9] = 3.0, 2.0  # the last update of a row wins
        sess.run(ops["add"].op, {indices: [7, 7, 0], updates: ones})
        expected[7] += 2.0  # repeated indices all add up
        expected[0] += 1.0
        sess.run(ops["sub"].op, {indices: [9, 9, 9], updates: ones})
        expected[9] -= 3.0
        assert _var_state(sess, table).value is buffer
        np.testing.assert_array_equal(buffer, expected)
        np.testing.assert_array_equal(sess.run(table), expected)


def test_scatter_with_scalar_index_and_scalar_update():
    v = tf.Variable([1, 2, 3, 4], name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(tf.scatter_update(v, 2, 30)), [1, 2, 30, 4])
        np.testing.assert_array_equal(sess.run(tf.scatter_add(v, [0, 1], 10)),
                                      [11, 12, 30, 4])


def test_scatter_rejects_out_of_range_indices():
    v = tf.Variable(np.zeros([4, 2], np.float32))
    bad = tf.scatter_add(v, [1, 7], np.ones([2, 2], np.float32))
    negative = tf.scatter_update(v, [-1], np.ones([1, 2], np.float32))
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[1\] = 7 is not in \[0, 4\)"):
            sess.run(bad)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[0\] = -1 is not in \[0, 4\)"):
            sess.run(negative)
        np.testing.assert_array_equal(sess.run(v), np.zeros([4, 2]))


def test_scatter_checks_update_shapes():
    v = tf.Variable(np.zeros([4, 2], np.float32))
    with pytest.raises(ValueError, match="Shapes must be equal rank"):
        tf.scatter_update(v, [[0, 1]], [1.0, 1.0])
    indices = tf.placeholder(tf.int32)
    update = tf.scatter_add(v, indices, np.ones([2, 2], np.float32))
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Must have updates.shape = indices.shape \+ "
                                 r"params.shape\[1:\] or updates.shape = \[\], got "
                                 r"updates.shape \[2,2\], indices.shape \[3\]"):
            sess.run(update, {indices: [0, 1, 2]})


def test_variable_scatter_methods_take_indexed_slices():
    v = tf.Variable(np.zeros([3, 2], np.float32))
    delta = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]))
    add = v.scatter_add(delta)
    sub = v.scatter_sub(delta)
    update = v.scatter_update(delta)
    with pytest.raises(TypeError, match="sparse_delta is not IndexedSlices"):
        v.scatter_add([[1.0, 2.0]])
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(add), [[0, 0], [1, 2], [0, 0]])
        np.testing.assert_array_equal(sess.run(add), [[0, 0], [2, 4], [0, 0]])
        np.testing.assert_array_equal(sess.run(sub), [[0, 0], [1, 2], [0, 0]])
        sess.run(tf.assign(v, np.ones([3, 2], np.float32)))
        np.testing.assert_array_equal(sess.run(update), [[1, 1], [1, 2], [1, 1]])


# --- behaving like a tensor -----------------------------------------------------------------

def test_operators_use_the_snapshot():
    v = tf.Variable([1.0, -2.0], name="v")
    m = tf.Variable([[1.0, 0.0], [0.0, 2.0]], name="m")
    results = {"add": v + 1.0, "radd": 1.0 + v, "mul": v * 3.0, "rmul": 3.0 * v,
               "neg": -v, "numpy": np.float32(2.0) * v, "matmul": m @ m, "index": v[1],
               "abs": abs(v), "greater": v > 0.0}
    assert results["add"].op.inputs[0].name == "v/read:0"
    assert tf.convert_to_tensor(v).name == "v/read:0"
    assert tf.convert_to_tensor(v, as_ref=True).name == "v:0"
    with pytest.raises(ValueError, match="Incompatible type conversion requested to type "
                                         "'int32' for variable of type 'float32_ref'"):
        tf.convert_to_tensor(v, dtype=tf.int32)
    with pytest.raises(TypeError, match="not iterable"):
        iter(v)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(results)
    np.testing.assert_array_equal(values["add"], [2.0, -1.0])
    np.testing.assert_array_equal(values["radd"], [2.0, -1.0])
    np.testing.assert_array_equal(values["mul"], [3.0, -6.0])
    np.testing.assert_array_equal(values["rmul"], [3.0, -6.0])
    np.testing.assert_array_equal(values["neg"], [-1.0, 2.0])
    np.testing.assert_array_equal(values["numpy"], [2.0, -4.0])
    np.testing.assert_array_equal(values["matmul"], [[1.0, 0.0], [0.0, 4.0]])
    assert values["index"] == -2.0
    np.testing.assert_array_equal(values["abs"], [1.0, 2.0])
    np.testing.assert_array_equal(values["greater"], [True, False])


def test_variables_are_hashable_by_identity_and_work_in_scopes():
    v = tf.Variable(1.0)
    w = tf.Variable(1.0)
    assert {v: 1, w: 2}[v] == 1
    assert v != w and v == v
    with tf.control_dependencies([v]):
        c = tf.constant(0.0)
    assert c.op.control_inputs == [v.op]
    with tf.colocate_with(v):
        d = tf.constant(0.0)
    assert d.op.colocation_groups() == ["loc:@Variable"]


# --- collections and initializers ----------------------------------------------------------

def test_collections_of_variables():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(1.0, name="b", trainable=False)
    c = tf.Variable(1.0, name="c", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    with tf.name_scope("layer"):
        d = tf.Variable(1.0, name="d")
    assert tf.global_variables() == [a, b, d]
    # `collections` replaces GLOBAL_VARIABLES, but trainable variables still join
    # TRAINABLE_VARIABLES, as in TensorFlow.
    assert tf.trainable_variables() == [a, c, d]
    assert tf.local_variables() == [c]
    assert tf.global_variables(scope="layer") == [d]
    assert tf.all_variables() == [a, b, d]
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == [a, c, d]
    assert tf.model_variables() == []
    with pytest.raises(ValueError, match="must be a list, tuple, or set"):
        tf.Variable(1.0, collections="not a list")


def test_global_variables_initializer_is_a_noop_named_init():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    local = tf.Variable(3.0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    init = tf.global_variables_initializer()
    assert (init.name, init.type) == ("init", "NoOp")
    assert set(init.control_inputs) == {a.initializer, b.initializer}
    local_init = tf.local_variables_initializer()
    assert local_init.name == "init_1"
    assert local_init.control_inputs == [local.initializer]
    with tf.Session() as sess:
        sess.run(init)
        assert sess.run([a, b]) == [1.0, 2.0]
        assert not sess.run(tf.is_variable_initialized(local))
        sess.run(local_init)
        assert sess.run(local) == 3.0


def test_initializers_of_nothing_are_still_runnable_ops():
    init = tf.global_variables_initializer()
    assert (init.name, init.type) == ("init", "NoOp")
    empty = tf.variables_initializer([], name="nothing")
    assert (empty.name, empty.type) == ("nothing", "NoOp")
    with tf.Session() as sess:
        assert sess.run(init) is None
    assert tf.initialize_all_variables().type == "NoOp"


def test_variables_initializer_initializes_only_its_list():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    with tf.Session() as sess:
        sess.run(tf.variables_initializer([a]))
        assert sess.run(a) == 1.0
        with pytest.raises(tf.errors.FailedPreconditionError, match="value b"):
            sess.run(b)


def test_report_uninitialized_variables():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    c = tf.Variable(3.0, name="c", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    report = tf.report_uninitialized_variables()
    assert report.op.name.startswith("report_uninitialized_variables/")
    assert report.dtype == tf.string and report.shape.ndims == 1
    with tf.Session() as sess:
        assert list(sess.run(report)) == [b"a", b"b", b"c"]
        sess.run(b.initializer)
        assert list(sess.run(report)) == [b"a", b"c"]
        sess.run([a.initializer, c.initializer])
        assert sess.run(report).shape == (0,)
        only_a = tf.report_uninitialized_variables([a], name="only_a")
        assert sess.run(only_a).shape == (0,)


def test_report_uninitialized_variables_of_an_empty_graph():
    report = tf.report_uninitialized_variables()
    with tf.Session() as sess:
        assert sess.run(report).shape == (0,)


# --- containers ------------------------------------------------------------------------------

def test_session_reset_clears_one_container_only():
    kept = tf.Variable([1.0, 2.0], name="kept")
    with tf.container("experiment0"):
        dropped = tf.Variable([3.0], name="dropped")
    assert dropped.op.get_attr("container") == "experiment0"
    assert kept.op.get_attr("container") == ""
    sess = tf.Session()
    try:
        sess.run(tf.global_variables_initializer())
        manager = _resource_manager(sess)
        assert "experiment0" in manager.containers()
        tf.Session.reset("", ["experiment0"])
        assert "experiment0" not in manager.containers()
        np.testing.assert_array_equal(sess.run(kept), [1.0, 2.0])
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value dropped"):
            sess.run(dropped)
        sess.run(dropped.initializer)
        np.testing.assert_array_equal(sess.run(dropped), [3.0])
    finally:
        sess.close()


def test_each_session_has_its_own_variable_state():
    v = tf.Variable(1.0)
    with tf.Session() as first, tf.Session() as second:
        first.run(v.initializer)
        first.run(v.assign(5.0))
        second.run(v.initializer)
        assert first.run(v) == 5.0
        assert second.run(v) == 1.0
