"""In-graph and between-graph replication train the seed's MLP as local training does.

In-graph: one client, one graph, a tower on each worker, the gradients
averaged and applied to the variables on the ps. The mean of the towers'
gradients is the gradient of the whole batch, so the losses are local
training's, up to the order of float additions.

Between-graph: two worker processes, each its own server and its own
client, each building the graph with `replica_device_setter` and training
with `MonitoredTrainingSession(master=server.target, is_chief=...)`: the
chief initializes, the other waits until the model is ready. Their updates
interleave (asynchronous training), so the loss is local training's only
within a tolerance.
"""

import textwrap

import numpy as np
import seed_mlp
from local_cluster import LocalCluster, kill_group, start_python, wait_for_line

import minitf as tf

STEPS = 6


def test_in_graph_replication_trains_as_local_training_does(cluster):
    with tf.device("/job:ps/task:0"):
        layers = seed_mlp.variables()
    loss, train = seed_mlp.towers(layers, ["/job:worker/task:0", "/job:worker/task:1"])
    run_metadata = tf.RunMetadata()
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train])[0] for _ in range(STEPS - 1)]
        losses.append(sess.run([loss, train], options=tf.RunOptions(
            trace_level=tf.RunOptions.FULL_TRACE), run_metadata=run_metadata)[0])
    local_losses, _ = seed_mlp.train_locally(STEPS)
    np.testing.assert_allclose(losses, local_losses, rtol=1e-5)
    assert losses[-1] < losses[0]
    ran_on = {s.node_name: d.device.split("/device")[0]
              for d in run_metadata.step_stats.dev_stats for s in d.node_stats}
    assert ran_on["tower0/MatMul"] == "/job:worker/replica:0/task:0"
    assert ran_on["tower1/MatMul"] == "/job:worker/replica:0/task:1"
    assert ran_on["GradientDescent/update_layer1/w/ApplyGradientDescent"] == \
        "/job:ps/replica:0/task:0"


BETWEEN_GRAPH_WORKER = textwrap.dedent("""
    import json, os, sys, time
    sys.path.insert(0, "tests/distributed")
    import minitf as tf
    import seed_mlp

    cluster = tf.train.ClusterSpec(json.loads(sys.argv[1]))
    task, steps, marks = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    server = tf.train.Server(cluster, job_name="worker", task_index=task)
    print("Started server with target:", server.target, flush=True)

    def wait_for(name):  # the two workers start training together
        deadline = time.time() + 60
        while not os.path.exists(os.path.join(marks, name)):
            assert time.time() < deadline, "no " + name
            time.sleep(0.05)

    with tf.device(tf.train.replica_device_setter(
            cluster=cluster, worker_device="/job:worker/task:%d" % task)):
        loss, train, global_step = seed_mlp.build()
    if task != 0:
        wait_for("chief_ready")  # its model is ready: no wait inside wait_for_session
    with tf.train.MonitoredTrainingSession(
            master=server.target, is_chief=(task == 0),
            hooks=[tf.train.StopAtStepHook(last_step=steps)]) as sess:
        open(os.path.join(marks, "chief_ready" if task == 0 else "worker_ready"), "w").close()
        if task == 0:
            wait_for("worker_ready")
        done = 0
        while not sess.should_stop():
            sess.run(train)
            done += 1
    print("steps run:", done, flush=True)
""")


def test_between_graph_replication_trains_to_the_loss_of_local_training(tmp_path):
    local = LocalCluster({"ps": 1, "worker": 2})
    workers = []
    try:
        local.start(only=("ps",))
        for task in (0, 1):
            workers.append(start_python(BETWEEN_GRAPH_WORKER, args=(
                _json(local.spec), task, 2 * STEPS, tmp_path)))
        for task, worker in enumerate(workers):
            wait_for_line(worker, "Started server with target:", "worker %d" % task)
        steps_run = [int(wait_for_line(w, "steps run:", "worker %d" % t).split(":")[1])
                     for t, w in enumerate(workers)]
        assert all(steps > 0 for steps in steps_run)  # both workers trained
        # The variables are on the ps: read the trained model's loss there, in a session
        # that sees only the ps (the workers have finished and gone).
        with tf.device("/job:ps/task:0"):
            loss, _, global_step = seed_mlp.build()
        with tf.Session(local.target("ps", 0),
                        config=tf.ConfigProto(device_filters=["/job:ps"])) as sess:
            trained_loss, steps = sess.run([loss, global_step])
    finally:
        for worker in workers:
            kill_group(worker)
        local.close()
    assert steps >= 2 * STEPS
    _, local_loss = seed_mlp.train_locally(int(steps))
    first_loss = seed_mlp.train_locally(1)[0][0]
    assert trained_loss < first_loss
    np.testing.assert_allclose(trained_loss, local_loss, rtol=0.01)


def _json(value):
    import json  # noqa: PLC0415 - only to pass the cluster to the worker programs
    return json.dumps(value)
