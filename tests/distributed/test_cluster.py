"""A cluster of three processes (ps:0, worker:0, worker:1) and clients of it.

The client is this test's process, talking to a worker's master over gRPC;
tensors cross between the processes worker to worker. One module-wide
cluster serves every test: each builds its own graph and session.
"""

import json
import pathlib
import textwrap

import numpy as np
import pytest
from local_cluster import run_python

import minitf as tf
from minitf.distributed import grpc_session, tensor_coding
from minitf.session import timeline
from minitf.session.config import RPCOptions

PS, WORKER0, WORKER1 = "/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1"


def test_the_session_lists_every_device_of_every_task(cluster):
    with tf.Session(cluster.target("worker", 0)) as sess:
        names = [d.name for d in sess.list_devices()]
    assert names == ["/job:worker/replica:0/task:0/device:CPU:0",  # the master's own first
                     "/job:ps/replica:0/task:0/device:CPU:0",
                     "/job:worker/replica:0/task:1/device:CPU:0"]


VALUES = {
    "float32": np.arange(6, dtype=np.float32).reshape(2, 3),
    "int64": np.array([1, -2, 3 ** 30], np.int64),
    "string": np.array([b"a", b"", b"\xff\x00z"], dtype=object),
    "bool": np.array([[True], [False]]),
    "float16": np.array([1.5, -2.25], np.float16),
    "scalar": np.float64(2.5),
    "empty": np.zeros((0, 3), np.float32),
    "empty_string": np.zeros((2, 0), dtype=object),
}


@pytest.mark.parametrize("chunk_bytes", [tensor_coding.CHUNK_BYTES, 16])
def test_tensors_cross_tasks_with_their_values_dtypes_and_shapes(cluster, chunk_bytes,
                                                                 monkeypatch):
    # With 16-byte chunks even these small tensors travel as streams of parts.
    monkeypatch.setattr(tensor_coding, "CHUNK_BYTES", chunk_bytes)
    feeds, fetches = {}, {}
    for name, value in VALUES.items():
        with tf.device(WORKER0):
            feeds[name] = tf.placeholder(tf.as_dtype(np.asarray(value).dtype), name=name)
        with tf.device(PS):
            on_ps = tf.identity(feeds[name])
        with tf.device(WORKER1):
            fetches[name] = tf.identity(on_ps)
    with tf.Session(cluster.target("worker", 0)) as sess:
        results = sess.run(fetches, {feeds[n]: v for n, v in VALUES.items()})
    for name, value in VALUES.items():
        result = np.asarray(results[name])
        assert result.dtype == np.asarray(value).dtype, name
        assert result.shape == np.shape(value), name
        np.testing.assert_array_equal(result, value, err_msg=name)


def test_a_tensor_is_sent_to_a_task_once_however_many_consumers_it_has_there(cluster):
    with tf.device(PS):
        x = tf.placeholder(tf.float32, [3], name="x")
        doubled = x * 2.0
    with tf.device(WORKER1):
        total = tf.reduce_sum(doubled) + tf.reduce_max(doubled) + tf.reduce_min(doubled)
    run_metadata = tf.RunMetadata()
    with tf.Session(cluster.target("worker", 0)) as sess:
        value = sess.run(total, {x: [1.0, 2.0, 3.0]}, run_metadata=run_metadata,
                         options=tf.RunOptions(output_partition_graphs=True))
    assert value == 12.0 + 6.0 + 2.0
    sends = [n for g in run_metadata.partition_graphs for n in g.node
             if n.op == "_Send" and n.input[0] == "mul"]
    assert len(sends) == 1
    assert sends[0].attr["recv_device"] == "/job:worker/replica:0/task:1/device:CPU:0"


def test_a_step_reports_partition_graphs_and_stats_of_every_task(cluster):
    with tf.device(WORKER1):
        a = tf.constant([1.0, 2.0], name="a") * 3.0
    with tf.device(PS):
        b = tf.reduce_sum(a, name="b")
    run_metadata = tf.RunMetadata()
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
    with tf.Session(cluster.target("worker", 0)) as sess:
        assert sess.run(b, options=options, run_metadata=run_metadata) == 9.0
    devices = sorted({n.device for g in run_metadata.partition_graphs for n in g.node})
    assert devices == ["/job:ps/replica:0/task:0/device:CPU:0",
                       "/job:worker/replica:0/task:0/device:CPU:0",
                       "/job:worker/replica:0/task:1/device:CPU:0"]
    ran_on = {s.node_name: d.device for d in run_metadata.step_stats.dev_stats
              for s in d.node_stats}
    assert ran_on["b"] == "/job:ps/replica:0/task:0/device:CPU:0"
    assert ran_on["_send_b_0"] == "/job:worker/replica:0/task:0/device:CPU:0"
    # The timeline draws one lane per device of every task, each node with its op.
    trace = json.loads(timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format())
    boxes = {e["name"]: e["args"]["op"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert boxes["b"] == "Sum" and boxes["_send_b_0"] == "_Send"


def test_a_device_the_cluster_does_not_have_is_a_placement_error(cluster):
    with tf.device("/job:worker/task:7"):
        nowhere = tf.constant(1.0, name="nowhere") * 2.0
    with tf.Session(cluster.target("worker", 0)) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(nowhere)
    message = info.value.message
    assert "Cannot assign a device for operation" in message
    assert "/job:worker/task:7" in message and "/job:ps/replica:0/task:0/device:CPU:0" in message


def test_a_session_in_the_servers_process_talks_to_its_master_directly_or_through_grpc():
    server = tf.train.Server.create_local_server()
    direct = grpc_session.master_for(server.target, tf.ConfigProto())
    through_grpc = grpc_session.master_for(server.target, tf.ConfigProto(
        rpc_options=RPCOptions(use_rpc_for_inprocess_master=True)))
    assert isinstance(direct, grpc_session.LocalMaster)
    assert isinstance(through_grpc, grpc_session.GrpcRemoteMaster)
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.reduce_sum(x * [2.0, 3.0])
    for config in (tf.ConfigProto(), tf.ConfigProto(
            rpc_options=RPCOptions(use_rpc_for_inprocess_master=True))):
        with tf.Session(server.target, config=config) as sess:
            assert sess.run(y, {x: [1.0, 1.0]}) == 5.0
    server._server.stop()


def test_variables_live_on_the_ps_across_sessions_and_clients(cluster):
    with tf.device(PS):
        v = tf.Variable(10.0, name="shared_counter")
    increment = v.assign_add(1.0)
    with tf.Session(cluster.target("worker", 0)) as first:
        first.run(v.initializer)
        first.run(increment)
    # Another session, on another task's master: the same variable, on the ps.
    with tf.Session(cluster.target("worker", 1)) as second:
        assert second.run(v) == 11.0
        second.run(increment)
    with tf.Session(cluster.target("worker", 0)) as third:
        assert third.run(v) == 12.0


TWO_CLIENTS = textwrap.dedent("""
    import sys
    import minitf as tf
    target, steps = sys.argv[1], int(sys.argv[2])
    with tf.device("/job:ps/task:0"):
        counter = tf.Variable(0.0, name="updated_by_two")
    with tf.device("/job:worker"):
        one = tf.constant(1.0) * 1.0
    increment = tf.assign_add(counter, one, use_locking=True)
    with tf.Session(target) as sess:
        for _ in range(steps):
            sess.run(increment)
    print("done")
""")


def test_a_variable_on_the_ps_updated_by_two_worker_processes(cluster):
    with tf.device(PS):
        counter = tf.Variable(0.0, name="updated_by_two")
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(counter.initializer)
    import concurrent.futures  # noqa: PLC0415 - only this test runs two clients at once
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(run_python, TWO_CLIENTS, 120, (cluster.target("worker", i), 25))
                for i in (0, 1)]
        for run in runs:
            result = run.result()
            assert result.returncode == 0 and "done" in result.stdout, result.stdout
    with tf.Session(cluster.target("worker", 1)) as sess:
        assert sess.run(counter) == 50.0


def test_containers_are_cleared_by_session_reset(cluster):
    with tf.device(PS):
        with tf.container("experiment0"):
            kept_apart = tf.Variable(1.0, name="in_experiment0")
        default = tf.Variable(2.0, name="in_the_default_container")
    target = cluster.target("worker", 0)
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
    tf.Session.reset(target, ["experiment0"])
    with tf.Session(target) as sess:
        assert sess.run(default) == 2.0
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="uninitialized value in_experiment0"):
            sess.run(kept_apart)
        sess.run(kept_apart.initializer)
    tf.Session.reset(target)  # no container named: the default one
    with tf.Session(target) as sess:
        assert sess.run(kept_apart) == 1.0
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(default)


def test_an_error_on_a_task_names_the_task_the_node_and_the_users_line(cluster):
    with tf.device(PS):
        never_initialized = tf.Variable(1.0, name="never_initialized")
    with tf.device(WORKER1):
        doubled = never_initialized * 2.0
    with tf.Session(cluster.target("worker", 0)) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            sess.run(doubled)
    message = info.value.message
    assert message.startswith("From /job:") and "never_initialized" in message
    assert "uninitialized value never_initialized" in message
    assert pathlib.Path(__file__).name in message  # the line of this file that made the node


def test_a_session_target_with_nothing_listening_is_unavailable():
    from local_cluster import free_port  # noqa: PLC0415
    with pytest.raises(tf.errors.UnavailableError, match="127.0.0.1"):
        tf.Session("grpc://127.0.0.1:%d" % free_port()).run(tf.constant(1.0))


def short(device):
    """`/job:worker/replica:0/task:1/device:CPU:0` -> `task:1/CPU:0`."""
    return device.split("/", 3)[3].replace("device:", "")


def test_the_master_splits_by_task_and_each_worker_by_device(two_tasks_of_two_cpus):
    """Two tasks of two CPUs each, in this process: a share per task, a partition per device."""
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/job:worker/task:1/device:CPU:0"):
        a = tf.multiply(x, 2.0, name="a")
    with tf.device("/job:worker/task:1/device:CPU:1"):
        b = tf.add(a, 1.0, name="b")
    run_metadata = tf.RunMetadata()
    with tf.Session(two_tasks_of_two_cpus[0]) as sess:
        assert len(sess.list_devices()) == 4
        value = sess.run(b, {x: [1.0, 2.0]}, run_metadata=run_metadata,
                         options=tf.RunOptions(output_partition_graphs=True))
    np.testing.assert_array_equal(value, [3.0, 5.0])
    devices = {g.node[0].device for g in run_metadata.partition_graphs}
    assert devices == {"/job:worker/replica:0/task:0/device:CPU:0",
                       "/job:worker/replica:0/task:1/device:CPU:0",
                       "/job:worker/replica:0/task:1/device:CPU:1"}
    sends = {(short(n.attr["send_device"]), short(n.attr["recv_device"]))
             for g in run_metadata.partition_graphs for n in g.node
             if n.op == "_Send" and not n.attr["client_terminated"]}
    # x from the client's task to task 1, a between task 1's two CPUs, b back.
    assert sends == {("task:0/CPU:0", "task:1/CPU:0"), ("task:1/CPU:0", "task:1/CPU:1"),
                     ("task:1/CPU:1", "task:0/CPU:0")}

