"""After folding: the deduplication fused into one node, and pass-through nodes dropped."""

import numpy as np
import pytest

import minitf as tf
from minitf.graph.op_def_library import apply_op
from session_configs import without_folding


def run_with_partitions(sess, fetches, feed_dict=None):
    metadata = tf.RunMetadata()
    value = sess.run(fetches, feed_dict, options=tf.RunOptions(output_partition_graphs=True),
                     run_metadata=metadata)
    return value, {n.name: n.op for g in metadata.partition_graphs for n in g.node}


def deduplication(values, indices):
    """What an optimizer builds before a sparse update (`_deduplicate_indexed_slices`)."""
    unique_indices, positions = tf.unique(indices)
    summed = tf.unsorted_segment_sum(values, positions, tf.shape(unique_indices)[0],
                                     name="summed")
    return summed, unique_indices, positions


@pytest.mark.parametrize("index_dtype", [tf.int32, tf.int64])
@pytest.mark.parametrize("row_shape", [(), (3,), (2, 2)])
def test_the_fused_node_gives_unique_and_segment_sum_bit_for_bit(index_dtype, row_shape):
    rng = np.random.default_rng(len(row_shape))
    index_values = rng.choice([7, 2, 9, 2, 0, 7, 7, 4], 40).astype(index_dtype.as_numpy_dtype)
    values = tf.placeholder(tf.float32, (40,) + row_shape)
    indices = tf.placeholder(index_dtype, [40])
    summed, unique_indices, _ = deduplication(values, indices)
    feed = {values: rng.standard_normal((40,) + row_shape).astype(np.float32),
            indices: index_values}
    with tf.Session() as sess:
        fused, nodes = run_with_partitions(sess, [summed, unique_indices], feed)
    with tf.Session(config=without_folding()) as sess:
        unfused, unfused_nodes = run_with_partitions(sess, [summed, unique_indices], feed)
    assert nodes["summed"] == "_DeduplicateIndexedSlices"
    assert not {"Unique", "Shape", "StridedSlice"} & set(nodes.values())
    assert unfused_nodes["summed"] == "UnsortedSegmentSum"
    for got, want in zip(fused, unfused):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_positions_read_elsewhere_keep_the_pattern_as_it_is():
    values = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
    summed, _, positions = deduplication(values, tf.placeholder_with_default([3, 1, 3, 0], [4]))
    with tf.Session() as sess:
        (summed_value, position_values), nodes = run_with_partitions(sess, [summed, positions])
    assert nodes["summed"] == "UnsortedSegmentSum" and "Unique" in nodes.values()
    np.testing.assert_array_equal(summed_value, [[4, 6], [2, 3], [6, 7]])
    np.testing.assert_array_equal(position_values, [0, 1, 0, 2])


def test_no_indices_give_no_rows():
    values = tf.placeholder(tf.float32, [None, 2])
    indices = tf.placeholder(tf.int64, [None])
    summed, unique_indices, _ = deduplication(values, indices)
    with tf.Session() as sess:
        got_sums, got_indices = sess.run([summed, unique_indices],
                                         {values: np.zeros((0, 2)), indices: []})
    assert got_sums.shape == (0, 2) and got_indices.shape == (0,)


def test_the_fused_node_knows_its_row_shape_statically():
    summed, unique = apply_op("_DeduplicateIndexedSlices", name="dedup",
                              values=tf.placeholder(tf.float32, [5, 3, 2]),
                              indices=tf.placeholder(tf.int64, [5]))
    assert summed.shape.as_list() == [None, 3, 2] and unique.shape.as_list() == [None]
    assert unique.dtype == tf.int64


def test_mismatched_values_and_indices_fail_naming_the_node():
    summed, _ = apply_op("_DeduplicateIndexedSlices", name="dedup",
                         values=tf.zeros([3, 2]), indices=tf.constant([1, 2], tf.int64))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="dedup") as info:
            sess.run(summed)
    assert "does not start with indices.shape = [2]" in info.value.message


@pytest.mark.parametrize("make_optimizer", [
    lambda: tf.train.AdagradOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5),
])
def test_sparse_training_is_the_same_with_the_fused_node(make_optimizer):
    def train(config):
        graph = tf.Graph()
        with graph.as_default():
            ids = tf.placeholder(tf.int64, [6])
            table = tf.Variable(np.linspace(-1, 1, 40, dtype=np.float32).reshape(10, 4))
            loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, ids)) * [1., 2., 3., 4.])
            train_op = make_optimizer().minimize(loss)
            with tf.Session(graph=graph, config=config) as sess:
                sess.run(tf.global_variables_initializer())
                for step in range(4):
                    _, nodes = run_with_partitions(sess, train_op, {ids: [1, 3, 1, 7, 3, step]})
                return sess.run(table), set(nodes.values())

    fused, fused_ops = train(None)
    unfused, unfused_ops = train(without_folding())
    np.testing.assert_array_equal(fused, unfused)
    assert "_DeduplicateIndexedSlices" in fused_ops and "Unique" not in fused_ops
    assert "Unique" in unfused_ops


# --- nodes that pass their input through ----------------------------------------------------

def test_a_reshape_to_the_same_shape_and_an_identity_of_a_value_are_dropped():
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    same = tf.reshape(x, [-1, 3], name="same")
    named = tf.identity(same * 2.0, name="named")
    other = tf.reshape(named, [3, 4], name="other")
    feed = {x: np.arange(12, dtype=np.float32).reshape(4, 3)}
    with tf.Session() as sess:
        values, nodes = run_with_partitions(sess, [named, other, same], feed)
    np.testing.assert_array_equal(values[0], feed[x] * 2.0)
    np.testing.assert_array_equal(values[1], (feed[x] * 2.0).reshape(3, 4))
    np.testing.assert_array_equal(values[2], feed[x])
    assert "same" not in nodes and "named" not in nodes
    assert nodes["other"] == "Reshape"  # it does change the shape


def test_a_variable_read_and_nodes_with_control_edges_stay():
    v = tf.Variable([1.0, 2.0], name="v")
    first = tf.identity(v.value() + 1.0, name="first")
    with tf.control_dependencies([first]):
        waiting = tf.identity(v.value(), name="waiting")
    with tf.Session() as sess:
        sess.run(v.initializer)
        values, nodes = run_with_partitions(sess, [waiting, first])
    np.testing.assert_array_equal(values[0], [1.0, 2.0])
    assert nodes["v/read"] == "Identity"  # reads the variable's reference
    assert nodes["first"] == "Identity" and nodes["waiting"] == "Identity"


def test_a_fetched_identity_of_a_variable_is_still_a_copy():
    v = tf.Variable([1.0, 2.0], name="v")
    read = tf.identity(v, name="read")
    with tf.Session() as sess:
        sess.run(v.initializer)
        value = sess.run(read)
        sess.run(tf.assign_add(v, [10.0, 10.0]))
    np.testing.assert_array_equal(value, [1.0, 2.0])


def test_a_reduction_over_no_axes_is_dropped():
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    b = tf.placeholder(tf.float32, [3], name="b")
    y = x + b
    grad_x, grad_b = tf.gradients(tf.reduce_sum(y * y), [x, b])
    feed = {x: np.arange(12, dtype=np.float32).reshape(4, 3), b: np.ones(3, np.float32)}
    with tf.Session() as sess:
        (gx, gb), nodes = run_with_partitions(sess, [grad_x, grad_b], feed)
    np.testing.assert_allclose(gx, 2 * (feed[x] + feed[b]))
    np.testing.assert_allclose(gb, (2 * (feed[x] + feed[b])).sum(axis=0))
    assert "gradients/add_grad/Sum" not in nodes  # over no axes: the gradient as it is
    assert nodes["gradients/add_grad/Sum_1"] == "Sum"  # over the broadcast axis


# --- a contraction, its bias and its activation ----------------------------------------------

def dense_layers(x, sizes, activation, use_bias_add, rng):
    """Layers of `activation(matmul(x, w) + b)`, the bias added by Add or BiasAdd."""
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = tf.constant(rng.standard_normal((fan_in, fan_out)).astype(np.float32))
        b = tf.constant(rng.standard_normal(fan_out).astype(np.float32))
        product = tf.matmul(x, w)
        x = tf.nn.bias_add(product, b) if use_bias_add else product + b
        if activation is not None:
            x = activation(x, name="act%d" % i)
    return x


@pytest.mark.parametrize("use_bias_add", [False, True])
@pytest.mark.parametrize("activation", [tf.nn.relu, tf.nn.relu6, None])
def test_matmul_bias_and_activation_become_one_node_with_the_same_numbers(activation,
                                                                            use_bias_add):
    rng = np.random.default_rng(1)
    x = tf.placeholder(tf.float32, [8, 5], name="x")
    out = dense_layers(x, [5, 7, 3], activation, use_bias_add, rng)
    feed = {x: rng.standard_normal((8, 5)).astype(np.float32) * 3}
    with tf.Session() as sess:
        fused, nodes = run_with_partitions(sess, out, feed)
    with tf.Session(config=without_folding()) as sess:
        unfused, unfused_nodes = run_with_partitions(sess, out, feed)
    np.testing.assert_array_equal(fused, unfused)
    assert list(nodes.values()).count("_FusedMatMul") == 2
    assert "MatMul" not in nodes.values() and "Relu" not in nodes.values()
    if activation is not None:
        assert nodes["act1"] == "_FusedMatMul"  # the fused node has the last node's name
    assert "MatMul" in unfused_nodes.values()


def test_conv2d_bias_and_relu_become_one_node_with_the_same_numbers():
    rng = np.random.default_rng(2)
    images = tf.placeholder(tf.float32, [2, 9, 9, 3], name="images")
    filters = tf.constant(rng.standard_normal((3, 3, 3, 4)).astype(np.float32))
    bias = tf.constant(rng.standard_normal(4).astype(np.float32))
    out = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, filters, [1, 2, 2, 1], "SAME"), bias),
                     name="conv_relu")
    feed = {images: rng.standard_normal((2, 9, 9, 3)).astype(np.float32)}
    with tf.Session() as sess:
        fused, nodes = run_with_partitions(sess, out, feed)
    with tf.Session(config=without_folding()) as sess:
        unfused, _ = run_with_partitions(sess, out, feed)
    np.testing.assert_array_equal(fused, unfused)
    assert nodes["conv_relu"] == "_FusedConv2D" and "Conv2D" not in nodes.values()


def test_a_product_read_elsewhere_or_a_bias_that_is_no_vector_stays_unfused():
    rng = np.random.default_rng(3)
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    w_value = rng.standard_normal((3, 3)).astype(np.float32)
    w = tf.constant(w_value)
    product = tf.matmul(x, w, name="read_twice")
    reused = tf.nn.relu(product + 1.0) + product  # the product has two readers
    matrix_bias = tf.nn.relu(tf.matmul(x, w, name="matrix_bias") + tf.ones([4, 3]))
    integer = tf.matmul(tf.ones([2, 2], tf.int32), tf.ones([2, 2], tf.int32), name="ints")
    integer_sum = tf.nn.relu(integer + tf.constant([1, 2]))
    feed = {x: rng.standard_normal((4, 3)).astype(np.float32)}
    with tf.Session() as sess:
        values, nodes = run_with_partitions(sess, [reused, matrix_bias, integer_sum], feed)
    assert nodes["read_twice"] == "MatMul" and nodes["matrix_bias"] == "MatMul"
    product_value = feed[x] @ w_value
    np.testing.assert_allclose(values[0], np.maximum(product_value + 1.0, 0) + product_value,
                               rtol=1e-6)
    np.testing.assert_array_equal(values[2], [[3, 4], [3, 4]])


def test_a_fused_bias_of_the_wrong_length_fails_naming_the_node():
    fused = apply_op("_FusedMatMul", name="fused", a=tf.ones([2, 3]), b=tf.ones([3, 4]),
                     args=[tf.ones([5])], fused_ops=["BiasAdd", "Relu"])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="fused") as info:
            sess.run(fused)
    assert "biases" in info.value.message


def test_an_unknown_fused_op_is_an_error():
    fused = apply_op("_FusedMatMul", name="fused_tanh", a=tf.ones([2, 3]), b=tf.ones([3, 4]),
                     args=[tf.ones([4])], fused_ops=["BiasAdd", "Tanh"])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unsupported fusion"):
            sess.run(fused)


def test_an_mlp_trains_the_same_with_fused_layers():
    def train(config):
        rng = np.random.default_rng(4)
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [16, 6])
            labels = tf.placeholder(tf.float32, [16, 3])
            hidden = tf.layers.dense(x, 8, activation=tf.nn.relu,
                                     kernel_initializer=tf.constant_initializer(
                                         rng.standard_normal((6, 8)).astype(np.float32)))
            logits = tf.layers.dense(hidden, 3, kernel_initializer=tf.constant_initializer(
                rng.standard_normal((8, 3)).astype(np.float32)))
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
                labels=labels, logits=logits))
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            feed = {x: rng.standard_normal((16, 6)).astype(np.float32),
                    labels: np.eye(3, dtype=np.float32)[rng.integers(0, 3, 16)]}
            with tf.Session(graph=graph, config=config) as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(5):
                    _, nodes = run_with_partitions(sess, train_op, feed)
                return sess.run(tf.trainable_variables()), set(nodes.values())

    fused, fused_ops = train(None)
    unfused, unfused_ops = train(without_folding())
    assert "_FusedMatMul" in fused_ops and "_FusedMatMul" not in unfused_ops
    for got, want in zip(fused, unfused):
        np.testing.assert_array_equal(got, want)
