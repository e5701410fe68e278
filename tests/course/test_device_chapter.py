"""The Devices chapter's exercises have the answers the page gives (docs/device.md).

Each test runs one exercise as a reader would and checks the collapsed
answer, so that a change in the placer or the partitioner that changes an
answer fails here, next to the page that must change with it.
"""

import numpy as np
import pytest

import minitf as tf
from minitf import visualize

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"
FEED = {"x:0": [1.0, 2.0, 3.0, 4.0], "y:0": [0.0, -1.0, -2.0, -3.0]}


def two_cpus(**kwargs):
    return tf.ConfigProto(device_count={"CPU": 2}, **kwargs)


def running_example(x_device=None):
    """The chapter's "Try it" graph: the loss on /cpu:1; returns (out, loss)."""
    W = tf.Variable(0.3, dtype=tf.float32, name="W")  # noqa: N806 - the seed's name
    b = tf.Variable(-0.3, dtype=tf.float32, name="b")
    with tf.device(x_device):
        x = tf.placeholder(tf.float32, name="x")
    y = tf.placeholder(tf.float32, name="y")
    out = W * x + b
    with tf.device("/cpu:1"):
        loss = tf.reduce_sum(tf.square(out - y))
    return out, loss


def transfers_of_run(fetches, feed_dict=None):
    run_metadata = tf.RunMetadata()
    with tf.Session(config=two_cpus()) as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(fetches, feed_dict, run_metadata=run_metadata,
                          options=tf.RunOptions(output_partition_graphs=True))
    return values, visualize.transfers(run_metadata.partition_graphs)


def test_exercise_1_a_missing_device_fails_unless_placement_is_soft():
    with tf.device("/cpu:5"):
        a = tf.constant(2.0, name="on_cpu5")
    with tf.Session(config=two_cpus()) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Cannot assign a device for operation on_cpu5"):
            sess.run(a)
    run_metadata = tf.RunMetadata()
    with tf.Session(config=two_cpus(allow_soft_placement=True)) as sess:
        assert sess.run(a, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=run_metadata) == 2.0
    devices = {s.node_name: d.device for d in run_metadata.step_stats.dev_stats
               for s in d.node_stats}
    assert devices["on_cpu5"] == CPU0


def test_exercise_2_a_tensor_is_sent_once_per_destination_device():
    out, loss = running_example()
    with tf.device("/cpu:1"):
        mean = tf.reduce_mean(out)
    values, rows = transfers_of_run([loss, mean], FEED)
    assert np.allclose(values, [23.66, 0.45])
    carrying_add = [row for row in rows if row.tensor == "add"]
    assert len(carrying_add) == 1 and carrying_add[0].recv_device == CPU1
    assert {"sub", "Mean"} <= set(carrying_add[0].consumers)


def test_exercise_3_x_on_cpu1_needs_two_pairs():
    _, loss = running_example(x_device="/cpu:1")
    value, rows = transfers_of_run(loss, FEED)
    assert np.isclose(value, 23.66)
    directions = sorted((row.tensor, row.send_device, row.recv_device) for row in rows)
    assert directions == [("_arg_x_0_0", CPU1, CPU0), ("add", CPU0, CPU1)]


def test_exercise_4_without_a_pool_two_devices_run_one_after_the_other():
    rng = np.random.default_rng(0)
    chains, feeds = [], {}
    for i in range(2):
        with tf.device("/cpu:%d" % i):
            x = tf.placeholder(tf.float32, [512, 512])
            feeds[x] = rng.standard_normal((512, 512)).astype(np.float32)
            y = x
            for _ in range(4):
                y = tf.matmul(y, tf.constant(np.eye(512, dtype=np.float32)))
        chains.append(y)
    run_metadata = tf.RunMetadata()
    with tf.Session(config=two_cpus(inter_op_parallelism_threads=1)) as sess:
        sess.run(chains, feeds, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=run_metadata)
    rows = [r for r in visualize.schedule(run_metadata.step_stats) if r.op == "MatMul"]
    assert len(rows) == 8 and {r.thread for r in rows} == {0}
    first = [r for r in rows if r.device == rows[0].device]
    second = [r for r in rows if r.device != rows[0].device]
    assert len(first) == len(second) == 4
    assert max(r.end_us for r in first) <= min(r.start_us for r in second)
