"""tf.cond and tf.while_loop over a cluster of three processes (ps:0, worker:0, worker:1).

The master splits a loop whose body has nodes on two tasks as it splits
one over two devices: each task's share gets its own copy of the frame and
a control loop that keeps its iterations in step with the others; a dead
tensor (of a branch not taken) crosses between tasks as a dead tensor. The
last test splits a loop over two tasks and, inside one of them, over two
CPUs: the master cuts every edge between devices, of all tasks, and gives
each its control loop; the worker's own split by device has nothing left
to add.
"""

import json

import numpy as np
import pytest

import minitf as tf
from minitf.ops import control_flow_ops
from minitf.session import timeline

PS, WORKER0, WORKER1 = "/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1"


def test_a_cond_runs_only_the_taken_branch_on_another_task(cluster):
    with tf.device(PS):
        untaken_runs = tf.Variable(0.0, name="untaken_runs")
    with tf.device(WORKER0):
        pred = tf.placeholder(tf.bool, [], name="pred")
        x = tf.placeholder(tf.float32, [2], name="x")

    def true_fn():
        with tf.device(WORKER1):
            return x * 3.0

    def false_fn():
        with tf.device(PS):
            with tf.control_dependencies([untaken_runs.assign_add(1.0)]):
                return x - 1.0

    with tf.device(WORKER0):
        result = tf.cond(pred, true_fn, false_fn) + 0.5
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(untaken_runs.initializer)
        np.testing.assert_allclose(sess.run(result, {pred: True, x: [1.0, 2.0]}), [3.5, 6.5])
        assert sess.run(untaken_runs) == 0.0
        np.testing.assert_allclose(sess.run(result, {pred: False, x: [1.0, 2.0]}), [0.5, 1.5])
        assert sess.run(untaken_runs) == 1.0


def test_fetching_a_dead_tensor_from_another_task_is_an_invalid_argument(cluster):
    with tf.device(WORKER0):
        pred = tf.placeholder(tf.bool, [], name="pred")
    with tf.device(WORKER1):
        _, on_true = control_flow_ops.switch(tf.constant(1.0), pred)
        doubled = on_true * 2.0
    with tf.Session(cluster.target("worker", 0)) as sess:
        assert sess.run(doubled, {pred: True}) == 2.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="was not valid"):
            sess.run(doubled, {pred: False})


def _two_task_loop(n):
    """`i, x = i + 1, x * a + 1.0` with the counter on worker 0 and the update on worker 1."""
    with tf.device(WORKER0):
        a = tf.placeholder(tf.float32, [], name="a")

    def body(i, x):
        with tf.device(WORKER1):
            x = x * a + 1.0
        with tf.device(WORKER0):
            return i + 1, x

    with tf.device(WORKER0):
        _, x = tf.while_loop(lambda i, x: i < n, body, [0, tf.constant(0.0)])
    return a, x


def test_a_loop_whose_body_spans_two_tasks_keeps_them_in_step(cluster):
    a, x = _two_task_loop(50)
    grad = tf.gradients(x, a)[0]
    run_metadata = tf.RunMetadata()
    with tf.Session(cluster.target("worker", 0)) as sess:
        value, grad_value = sess.run(
            [x, grad], {a: 0.5}, run_metadata=run_metadata,
            options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
    # x_n = sum_{k<n} a^k, and its derivative sum_{k<n} k a^(k-1).
    k = np.arange(50)
    np.testing.assert_allclose(value, np.sum(0.5 ** k), rtol=1e-6)
    np.testing.assert_allclose(grad_value, np.sum(k * 0.5 ** np.maximum(k - 1, 0)), rtol=1e-5)
    # The update ran on worker 1 once per iteration, and its stats say which.
    on_worker1 = [s for d in run_metadata.step_stats.dev_stats
                  if d.device == "/job:worker/replica:0/task:1/device:CPU:0"
                  for s in d.node_stats if s.node_name == "while/add"]
    assert sorted(s.iter_id for s in on_worker1) == list(range(50))
    assert {s.frame_name for s in on_worker1} == {";0;while/while_context"}  # parent;iter;name
    trace = json.loads(timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format())
    boxes = [e["args"] for e in trace["traceEvents"]
             if e["ph"] == "X" and e["name"] == "while/add"]
    assert {b["iteration"] for b in boxes} == set(range(50))


def test_a_loop_over_two_tasks_and_two_devices_of_one_task(two_tasks_of_two_cpus):
    with tf.device(WORKER0):
        n = tf.placeholder(tf.int32, [], name="n")

    def body(i, x):
        with tf.device(WORKER1 + "/device:CPU:0"):
            x = x * 0.5
        with tf.device(WORKER1 + "/device:CPU:1"):
            x = x + 1.0
        with tf.device(WORKER0):
            return i + 1, x

    with tf.device(WORKER0):
        out = tf.while_loop(lambda i, x: i < n, body, [0, 0.0])
    run_metadata = tf.RunMetadata()
    with tf.Session(two_tasks_of_two_cpus[0]) as sess:
        i, x = sess.run(out, {n: 300}, run_metadata=run_metadata,
                        options=tf.RunOptions(output_partition_graphs=True))
    assert i == 300
    np.testing.assert_allclose(x, 2.0 * (1.0 - 0.5 ** 300), rtol=1e-6)
    devices = {g.node[0].device for g in run_metadata.partition_graphs}
    assert devices == {"/job:worker/replica:0/task:0/device:CPU:0",
                       "/job:worker/replica:0/task:1/device:CPU:0",
                       "/job:worker/replica:0/task:1/device:CPU:1"}
