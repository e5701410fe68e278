"""Constant folding: what the session computes once, and what it must leave to the step."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitf as tf
from minitf.graph.op_def_library import apply_op
from minitf.session import constant_folding
from session_configs import without_folding


def partition_nodes(sess, fetches, feed_dict=None):
    """{node name: op type} of the graphs one run executed, and the run's value."""
    metadata = tf.RunMetadata()
    value = sess.run(fetches, feed_dict, options=tf.RunOptions(output_partition_graphs=True),
                     run_metadata=metadata)
    return {n.name: n.op for g in metadata.partition_graphs for n in g.node}, value


def test_a_constant_expression_becomes_one_const_of_the_same_name():
    x = tf.constant(2.0, name="X")
    y = tf.constant(5.0, name="Y")
    z = tf.add(x, y, name="Z")
    with tf.Session() as sess:
        nodes, value = partition_nodes(sess, z)
    assert value == 7.0
    assert nodes["Z"] == "Const" and "X" not in nodes and "Y" not in nodes


def test_level_l0_turns_folding_off_and_do_constant_folding_turns_it_back_on():
    z = tf.add(tf.constant(2.0), tf.constant(5.0), name="Z")
    with tf.Session(config=without_folding()) as sess:
        nodes, value = partition_nodes(sess, z)
    assert value == 7.0 and nodes["Z"] == "Add"
    options = tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0, do_constant_folding=True)
    config = tf.ConfigProto(graph_options=tf.GraphOptions(optimizer_options=options))
    with tf.Session(config=config) as sess:
        nodes, _ = partition_nodes(sess, z)
    assert nodes["Z"] == "Const"
    assert constant_folding.folding_enabled(tf.OptimizerOptions())  # L1, the default


def test_shapes_known_statically_are_materialized():
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    shape = tf.shape(x, name="shape")
    size = tf.size(x, name="size")
    rank = tf.rank(x, name="rank")
    doubled = tf.multiply(shape, 2, name="doubled")
    with tf.Session() as sess:
        nodes, values = partition_nodes(sess, [doubled, size, rank],
                                        {x: np.zeros((4, 3), np.float32)})
    np.testing.assert_array_equal(values[0], [8, 6])
    assert values[1:] == [12, 2]
    assert nodes["doubled"] == nodes["size"] == nodes["rank"] == "Const"


def test_a_shape_not_known_statically_is_computed_each_step():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    shape = tf.shape(x, name="shape")
    with tf.Session() as sess:
        nodes, value = partition_nodes(sess, shape, {x: np.zeros((2, 3), np.float32)})
        np.testing.assert_array_equal(value, [2, 3])
        np.testing.assert_array_equal(sess.run(shape, {x: np.zeros((5, 3), np.float32)}),
                                      [5, 3])
    assert nodes["shape"] == "Shape"


def test_a_multi_output_node_gets_one_const_per_output_named_as_grappler_names_them():
    r0, r1 = apply_op("BroadcastGradientArgs", s0=tf.constant([2, 1, 3]), s1=tf.constant([3]),
                      name="args")
    with tf.Session() as sess:
        nodes, values = partition_nodes(sess, [r0, r1])
    np.testing.assert_array_equal(values[0], [1])
    np.testing.assert_array_equal(values[1], [0, 1])
    assert "args" not in nodes
    assert nodes["ConstantFolding/args-folded-0"] == "Const"
    assert nodes["ConstantFolding/args-folded-1"] == "Const"


def test_stateful_ops_are_not_folded():
    noisy = tf.random_uniform([3], seed=1) + 1.0
    with tf.Session() as sess:
        first, second = sess.run(noisy), sess.run(noisy)
    assert not np.array_equal(first, second)


def test_an_uninitialized_variable_is_still_an_error_when_only_its_shape_is_asked():
    v = tf.Variable(tf.zeros([2, 3]), name="v")
    shape = apply_op("Shape", input=v)  # tf.shape would give a constant right away
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
            sess.run(shape)
        sess.run(v.initializer)
        nodes, value = partition_nodes(sess, shape)
    np.testing.assert_array_equal(value, [2, 3])
    assert nodes[shape.op.name] == "Const"


def test_control_dependencies_of_folded_nodes_still_run_first():
    counter = tf.Variable(0, name="counter")
    bump = tf.assign_add(counter, 1)
    with tf.control_dependencies([bump]):
        folded = tf.constant(2.0) * 3.0
    with tf.Session() as sess:
        sess.run(counter.initializer)
        nodes, value = partition_nodes(sess, folded)
        assert value == 6.0 and nodes[folded.op.name] == "Const"
        sess.run(folded)
        assert sess.run(counter) == 2


def test_a_node_whose_kernel_fails_is_left_for_the_step_to_report():
    bad = tf.gather(tf.constant([1, 2, 3]), 7, name="bad_gather")  # no static check of indices
    fine = tf.add(tf.constant(1), 2, name="fine")
    with tf.Session() as sess:
        assert sess.run(fine) == 3
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run([fine, bad])
    assert "bad_gather" in info.value.message and "GatherV2" in info.value.message


def test_a_fed_tensor_is_not_folded():
    x = tf.constant(2.0, name="x")
    y = tf.multiply(x, 10.0, name="y")
    with tf.Session() as sess:
        assert sess.run(y) == 20.0
        assert sess.run(y, {x: 3.0}) == 30.0


def test_outputs_over_the_size_limit_are_computed_each_step():
    big = tf.fill([1100, 1100, 3], 1.0, name="big")  # 14.5 MB of float32
    total = tf.reduce_sum(big + 1.0, name="total")
    with tf.Session() as sess:
        nodes, value = partition_nodes(sess, total)
    assert value == pytest.approx(2.0 * 1100 * 1100 * 3)
    assert nodes["big"] == "Fill" and nodes["total"] == "Sum"


def test_a_fetched_constant_is_a_copy_the_caller_may_change():
    z = tf.add(tf.constant([1.0, 2.0]), 1.0)
    c = tf.constant([5.0, 6.0])
    with tf.Session() as sess:
        for tensor in (z, c):
            first = sess.run(tensor)
            expected = first.copy()
            first[:] = -1.0
            np.testing.assert_array_equal(sess.run(tensor), expected)


def test_folding_does_not_change_what_a_training_graph_computes():
    def train(config):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(3)
            ids = tf.placeholder(tf.int64, [6])
            table = tf.Variable(tf.random_normal([10, 4], seed=1))
            rows = tf.nn.embedding_lookup(table, ids)
            loss = tf.reduce_sum(tf.square(rows) * tf.constant([0.5, 1.0, 1.5, 2.0]))
            train_op = tf.train.AdagradOptimizer(0.1).minimize(loss)
            with tf.Session(graph=graph, config=config) as sess:
                sess.run(tf.global_variables_initializer())
                for step in range(5):
                    sess.run(train_op, {ids: [1, 3, 1, 7, 3, 1 + step]})
                nodes, _ = partition_nodes(sess, train_op, {ids: [0] * 6})
                return sess.run(table), len(nodes)

    folded, folded_count = train(None)
    unfolded, unfolded_count = train(without_folding())
    np.testing.assert_array_equal(folded, unfolded)
    assert folded_count < unfolded_count


def test_a_constant_part_placed_on_the_gpu_is_computed_on_the_host_and_sent_there(stand_in_gpu):
    x = tf.placeholder(tf.float32, [2])
    with tf.device("/gpu:0"):
        folded = tf.multiply(tf.constant([1.0, 2.0]), 3.0, name="folded")
        out = tf.add(folded, x, name="out")
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        value = sess.run(out, {x: [10.0, 20.0]}, run_metadata=metadata,
                         options=tf.RunOptions(output_partition_graphs=True))
    np.testing.assert_array_equal(value, [13.0, 26.0])
    nodes = {n.name: n for g in metadata.partition_graphs for n in g.node}
    assert nodes["folded"].op == "Const" and nodes["out"].op == "Add"
    assert nodes["folded"].device.endswith("GPU:0")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["add", "mul", "square", "neg", "shape_sum", "reshape"]),
                min_size=1, max_size=6),
       st.lists(st.booleans(), min_size=6, max_size=6))
def test_folding_never_changes_a_result(op_names, from_placeholder):
    """Chains mixing constants and a fed value: the same numbers with folding on and off."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        y = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        for name, use_x in zip(op_names, from_placeholder):
            other = x if use_x else tf.constant(np.full((2, 3), 0.5, np.float32))
            if name == "add":
                y = y + other
            elif name == "mul":
                y = y * other
            elif name == "square":
                y = tf.square(y)
            elif name == "neg":
                y = -y
            elif name == "shape_sum":  # a Shape of a known shape, folded to a Const
                y = y + tf.cast(tf.reduce_sum(apply_op("Shape", input=y)), tf.float32)
            else:
                y = tf.reshape(tf.reshape(y, [-1]), [2, 3])
    feed = {x: np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)}
    results = []
    for config in (None, without_folding()):
        with tf.Session(graph=graph, config=config) as sess:
            results.append(sess.run(y, feed))
    np.testing.assert_array_equal(results[0], results[1])


def test_a_fetched_feed_is_a_new_array_not_the_callers():
    x = tf.placeholder(tf.float32, [2])
    passed_through = tf.identity(x)  # dropped from the partition: the _Retval reads the _Arg
    fed = np.array([1.0, 2.0], np.float32)
    with tf.Session() as sess:
        got = sess.run(passed_through, {x: fed})
    assert got is not fed and not np.shares_memory(got, fed)
    np.testing.assert_array_equal(got, fed)
