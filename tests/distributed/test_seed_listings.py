"""Seed 004's listings of the distributed runtime, run as they are written (free ports aside).

"worker 0" and "worker 1" are two processes: worker 1 serves; worker 0
starts its own server, builds `c = a + b` under `/job:worker/task:1` and
runs it in a session on its own master, which has task 1 compute it.
"""

import textwrap

from local_cluster import free_port, kill_group, run_python, start_python, wait_for_line

WORKER_1 = textwrap.dedent("""
    import minitf as tf
    cluster = tf.train.ClusterSpec({"worker": ["localhost:%(port0)d", "localhost:%(port1)d"]})
    server = tf.train.Server(cluster, job_name="worker", task_index=1)
    print("Started server with target:", server.target, flush=True)
    server.join()
""")

WORKER_0 = textwrap.dedent("""
    import minitf as tf
    cluster = tf.train.ClusterSpec({"worker": ["localhost:%(port0)d", "localhost:%(port1)d"]})
    server = tf.train.Server(cluster, job_name="worker", task_index=0)
    with tf.device("/job:worker/task:1"):
      a = tf.constant(1)
      b = tf.constant(2)
      c = a + b

    with tf.Session("grpc://localhost:%(port0)d") as sess: # tf.Session(server.target)
        print(sess.run(c))

        # Where each node ran: c on task 1, its fetch on the client's task 0.
        run_metadata = tf.RunMetadata()
        sess.run(c, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=run_metadata)
        for device_stats in run_metadata.step_stats.dev_stats:
            for node in device_stats.node_stats:
                print(node.node_name, device_stats.device)
""")


def test_the_two_worker_listing_computes_on_task_1_for_a_client_on_task_0():
    ports = {"port0": free_port(), "port1": free_port()}
    worker_1 = start_python(WORKER_1 % ports)
    try:
        wait_for_line(worker_1, "Started server with target:", "worker 1")
        result = run_python(WORKER_0 % ports, timeout=120)
    finally:
        kill_group(worker_1)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    assert lines[0] == "3"
    ran_on = dict(line.split() for line in lines[1:])
    assert ran_on["add"] == "/job:worker/replica:0/task:1/device:CPU:0"
    assert ran_on["_send_add_0"] == "/job:worker/replica:0/task:0/device:CPU:0"


LOCAL_SERVER = textwrap.dedent("""
    import minitf as tf
    server = tf.distribute.Server.create_local_server()
    print(server.target)
    print(server.server_def.job_name, server.server_def.task_index)
    with tf.Session(server.target) as sess:
        print([d.name for d in sess.list_devices()])
        print(sess.run(tf.constant([1.0, 2.0]) * 3.0))
""")


def test_the_create_local_server_listing():
    result = run_python(LOCAL_SERVER, timeout=120)
    assert result.returncode == 0, result.stdout
    lines = [line for line in result.stdout.splitlines() if not line.startswith("GrpcSession")]
    assert lines[0].startswith("grpc://localhost:") and lines[0].rsplit(":", 1)[1].isdigit()
    assert lines[1:] == ["localhost 0", "['/job:localhost/replica:0/task:0/device:CPU:0']",
                         "[3. 6.]"]
