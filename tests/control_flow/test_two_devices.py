"""Conds and loops whose nodes sit on two devices (`device_count={'CPU': 2}`).

A loop split over two devices gets a control loop on the device that
receives tensors in it; its _Recvs run once per iteration, and each
iteration's _Send meets that iteration's _Recv through the frame and
iteration in the rendezvous key. A dead tensor crosses devices as dead.
"""

import numpy as np
import pytest

import minitf as tf

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


def _two_cpus(**fields):
    return tf.ConfigProto(device_count={"CPU": 2}, **fields)


def _split_loop(x, n=5, parallel_iterations=10):
    """`a = a * x + 1`, n times: the product on CPU:1, the rest of the loop on CPU:0."""
    def body(i, a):
        with tf.device("/cpu:1"):
            product = a * x
        return i + 1, product + 1.0

    with tf.device("/cpu:0"):
        return tf.while_loop(lambda i, a: i < n, body, [0, tf.constant(1.0)],
                             parallel_iterations=parallel_iterations)


def _partition_graphs(sess, fetches, feed):
    metadata = tf.RunMetadata()
    value = sess.run(fetches, feed, options=tf.RunOptions(output_partition_graphs=True),
                     run_metadata=metadata)
    graphs = {}
    for graph_def in metadata.partition_graphs:
        graphs[graph_def.node[0].device] = {node.name: node for node in graph_def.node}
    return value, graphs


@pytest.mark.parametrize("parallel_iterations", [1, 10])
def test_a_loop_whose_body_is_on_two_devices(finishes_within, parallel_iterations):
    x = tf.placeholder(tf.float32, [], name="x")
    out = _split_loop(x, n=5, parallel_iterations=parallel_iterations)
    with tf.Session(config=_two_cpus()) as sess:
        value, graphs = finishes_within(30, _partition_graphs, sess, out, {x: 2.0})
    assert value == (5, 63.0)
    cpu1 = graphs[CPU1]
    loop_ops = sorted(node.op for name, node in cpu1.items() if name.startswith("_cloop"))
    assert loop_ops == ["Enter", "Merge", "NextIteration", "Switch"]
    merge = next(name for name, node in cpu1.items()
                 if name.startswith("_cloop") and node.op == "Merge")
    recvs = [node for node in cpu1.values() if node.op == "_Recv"]
    # The predicate and the loop variable come from CPU:0, once per iteration.
    assert sorted(r.name for r in recvs) == ["while/Identity_1/_0_recv",
                                             "while/LoopCond/_2_recv"]
    assert all(r.input == ["^" + merge] for r in recvs)
    switch = next(node for name, node in cpu1.items() if node.op == "Switch")
    assert switch.input[:2] == [merge, "while/LoopCond/_2_recv"]
    assert graphs[CPU0]["while/LoopCond/_2_send"].input == ["while/LoopCond"]


def test_many_iterations_across_devices(finishes_within):
    x = tf.placeholder(tf.float32, [], name="x")
    out = _split_loop(x, n=300)
    with tf.Session(config=_two_cpus()) as sess:
        i, a = finishes_within(60, sess.run, out, {x: 0.5})
    assert i == 300 and a == pytest.approx(2.0)


def test_nested_loops_across_devices(finishes_within):
    def outer(i, total):
        def inner(j, s):
            with tf.device("/cpu:1"):
                step = tf.cast(j * i, tf.float32)
            return j + 1, s + step

        with tf.device("/cpu:0"):
            _, inner_total = tf.while_loop(lambda j, s: j < i, inner, [0, 0.0])
        return i + 1, total + inner_total

    with tf.device("/cpu:0"):
        _, total = tf.while_loop(lambda i, t: i < 5, outer, [0, 0.0])
    with tf.Session(config=_two_cpus()) as sess:
        value, graphs = finishes_within(30, _partition_graphs, sess, total, None)
    assert value == sum(j * i for i in range(5) for j in range(i))
    # Two control loops on CPU:1, the inner one fed by the outer one's Merge.
    cpu1 = graphs[CPU1]
    enters = [node for name, node in cpu1.items() if name.startswith("_cloop")
              and node.op == "Enter"]
    assert sorted(e.attr["frame_name"] for e in enters) == ["while/while/while_context",
                                                           "while/while_context"]
    inner_enter = next(e for e in enters if e.attr["frame_name"] == "while/while/while_context")
    assert cpu1[inner_enter.input[0]].op == "Merge"


def test_the_gradient_of_a_loop_split_over_two_devices(finishes_within):
    x = tf.placeholder(tf.float32, [], name="x")
    _, a = _split_loop(x, n=5)
    (grad,) = tf.gradients(a, x)
    with tf.Session(config=_two_cpus()) as sess:
        value = finishes_within(30, sess.run, grad, {x: 2.0})
    # a = x^5 + x^4 + x^3 + x^2 + x + 1
    assert value == 5 * 16 + 4 * 8 + 3 * 4 + 2 * 2 + 1


def test_a_cond_across_devices_sends_dead_tensors(finishes_within):
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    counter = tf.Variable(0.0, name="counter")
    with tf.device("/cpu:1"):
        def taken():
            with tf.control_dependencies([tf.assign_add(counter, 1.0)]):
                return x * 2.0

        r = tf.cond(p, taken, lambda: x + 100.0)
    with tf.Session(config=_two_cpus()) as sess:
        sess.run(counter.initializer)
        assert finishes_within(30, sess.run, r, {x: 3.0, p: True}) == 6.0
        assert finishes_within(30, sess.run, r, {x: 3.0, p: False}) == 103.0
        assert sess.run(counter) == 1.0


def test_training_through_a_loop_on_two_devices():
    w = tf.Variable([0.5, -0.5], name="w")
    xs = tf.constant(np.linspace(-1.0, 1.0, 8).reshape(4, 2), tf.float32)

    def body(i, total):
        with tf.device("/cpu:1"):
            error = tf.reduce_sum(xs[i] * w) - tf.cast(i, tf.float32)
        return i + 1, total + error * error

    with tf.device("/cpu:0"):
        _, loss = tf.while_loop(lambda i, t: i < 4, body, [0, 0.0])
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session(config=_two_cpus()) as sess:
        sess.run(w.initializer)
        first = sess.run(loss)
        for _ in range(50):
            sess.run(train)
        assert sess.run(loss) < first
