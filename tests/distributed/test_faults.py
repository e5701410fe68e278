"""Failures: a worker killed, one that stops answering, a restarted ps, and the recovery.

The client is this process, on worker 0's master; the model's variables
live on the ps and its compute runs on worker 1, which the tests kill
(SIGKILL), stop (SIGSTOP) and restart. Every wait is bounded.
"""

import logging
import os
import signal
import textwrap
import threading
import time

import numpy as np
import pytest
from local_cluster import run_python

import minitf as tf

PS, WORKER1 = "/job:ps/task:0", "/job:worker/task:1"
WORKER1_NAME = "/job:worker/replica:0/task:1"


def build_model():
    """v on the ps; `needs_worker1` computes on worker 1, `without_worker1` does not."""
    with tf.device(PS):
        v = tf.Variable(3.0, name="v")
    with tf.device(WORKER1):
        needs_worker1 = v * 2.0
    with tf.device("/job:worker/task:0"):
        without_worker1 = v + 1.0
    return v, needs_worker1, without_worker1


def test_a_killed_worker_fails_the_step_in_time_naming_it_and_the_session_goes_on(
        cluster, finishes_within):
    v, needs_worker1, without_worker1 = build_model()
    options = tf.RunOptions(timeout_in_ms=10000)
    sess = tf.Session(cluster.target("worker", 0))
    try:
        sess.run(v.initializer)
        assert sess.run(needs_worker1) == 6.0
        cluster.kill("worker", 1)
        start = time.monotonic()
        with pytest.raises(tf.errors.UnavailableError) as info:
            finishes_within(30, sess.run, needs_worker1, options=options)
        assert time.monotonic() - start < 10.0
        assert WORKER1_NAME in info.value.message
        # A step that does not need worker 1 still runs in the same session.
        assert finishes_within(30, sess.run, without_worker1, options=options) == 4.0
        cluster.restart("worker", 1)
        # The restarted worker lost the graphs registered with it, and its devices have new
        # incarnations: whichever the step meets first, this session is done.
        with pytest.raises(tf.errors.AbortedError,
                           match="Graph handle is not found|different device incarnation"):
            run_once_reconnected(finishes_within, sess, needs_worker1, options)
    finally:
        sess.close()
    with tf.Session(cluster.target("worker", 0)) as new_session:
        assert finishes_within(30, new_session.run, needs_worker1) == 6.0


def run_once_reconnected(finishes_within, sess, fetch, options):
    """Runs `fetch` once the master's channel to a restarted task is up again (a second or so).

    Until then the call fails at once with UnavailableError: gRPC waits a
    little between two attempts to connect.
    """
    deadline = time.monotonic() + 20
    while True:
        try:
            return finishes_within(30, sess.run, fetch, options=options)
        except tf.errors.UnavailableError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_a_worker_that_stops_answering_fails_the_step_at_its_deadline(cluster,
                                                                      finishes_within):
    _, needs_worker1, _ = build_model()
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(needs_worker1) == 6.0
        os.kill(cluster.pid("worker", 1), signal.SIGSTOP)
        try:
            start = time.monotonic()
            with pytest.raises(tf.errors.DeadlineExceededError):
                finishes_within(30, sess.run, needs_worker1,
                                options=tf.RunOptions(timeout_in_ms=1500))
            assert time.monotonic() - start < 10.0
        finally:
            os.kill(cluster.pid("worker", 1), signal.SIGCONT)
        assert finishes_within(30, sess.run, needs_worker1) == 6.0


def test_a_restarted_ps_comes_back_empty(cluster, finishes_within):
    v, _, without_worker1 = build_model()
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(v.initializer)
        assert sess.run(without_worker1) == 4.0
    cluster.restart("ps", 0)
    with tf.Session(cluster.target("worker", 0)) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
            finishes_within(30, sess.run, without_worker1)


# =============================================================================
# The drill: kill worker 1 mid-training, restart it, and the training resumes
# =============================================================================

class _KillAndRestart(tf.train.SessionRunHook):
    """When a run reads the global step at `at_step`, SIGKILLs worker 1; restarts it soon after.

    Only the runs that do not train count: in a run of the train op, the
    step read may be the one before or after the increment.
    """

    def __init__(self, cluster, global_step, train_op, at_step):
        self._cluster = cluster
        self._global_step = global_step
        self._train_op = train_op
        self._at_step = at_step
        self.restarter = None

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        if run_context.original_args.fetches is self._train_op:
            return
        if self.restarter is None and run_values.results >= self._at_step:
            self._cluster.kill("worker", 1)
            self.restarter = threading.Thread(target=self._restart_later, daemon=True)
            self.restarter.start()

    def _restart_later(self):
        time.sleep(0.5)
        self._cluster.start()


def test_killing_a_worker_mid_training_and_restarting_it_resumes_from_the_checkpoint(
        cluster, tmp_path, finishes_within, caplog):
    caplog.set_level(logging.INFO, logger="minitf")
    rng = np.random.RandomState(0)
    images = rng.rand(32, 8).astype(np.float32)
    labels = (images.sum(axis=1, keepdims=True) > 4.0).astype(np.float32)
    with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device=WORKER1)):
        global_step = tf.train.get_or_create_global_step()
        tf.set_random_seed(1)
        hidden = tf.layers.dense(images, 16, tf.nn.relu)
        logits = tf.layers.dense(hidden, 1)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels,
                                                                      logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=global_step)
    killer = _KillAndRestart(cluster, global_step, train, at_step=13)
    curve = []

    def train_until_step_20():
        with tf.train.MonitoredTrainingSession(
                master=cluster.target("worker", 0), is_chief=True,
                checkpoint_dir=str(tmp_path), save_checkpoint_steps=5, log_step_count_steps=None,
                hooks=[tf.train.StopAtStepHook(last_step=20), killer]) as sess:
            while not sess.should_stop():
                curve.append(tuple(sess.run([global_step, loss])))
                sess.run(train)  # the step that fails once worker 1 is gone, and is run again

    finishes_within(120, train_until_step_20)
    killer.restarter.join(30)
    steps = [int(step) for step, _ in curve]
    # Worker 1 died right after step 13 was read; the step that failed was run again in a
    # new session, restored from the last checkpoint (step 10): the next step read is 11.
    assert steps == list(range(14)) + list(range(11, 20))
    losses_before = dict(curve[:14])
    for step, loss_value in curve[14:17]:  # the same weights at the same step: the same loss
        np.testing.assert_allclose(loss_value, losses_before[step], rtol=1e-6)
    assert curve[-1][1] < curve[0][1]  # and it goes on learning
    # The run that failed, and why: the dead worker, named.
    recoveries = [r.getMessage() for r in caplog.records
                  if "A new session will be created" in r.getMessage()
                  or "a new session will be created" in r.getMessage()]
    assert recoveries and WORKER1_NAME in recoveries[0]


WAITING_AT_EXIT = textwrap.dedent("""
    import threading, time
    import grpc
    import minitf as tf
    from minitf.proto import worker_pb2
    server = tf.train.Server.create_local_server()
    device = "/job:localhost/replica:0/task:0/device:CPU:0"
    incarnation = server._server.worker.env.incarnations[device]
    key = "%s;%x;%s;edge_1_never_sent;0:0" % (device, incarnation, device)
    channel = grpc.insecure_channel(server.target[len("grpc://"):])
    recv = channel.unary_stream("/tensorflow.WorkerService/RecvTensor",
                                request_serializer=worker_pb2.RecvTensorRequest.SerializeToString,
                                response_deserializer=lambda data: data)
    stream = recv(worker_pb2.RecvTensorRequest(step_id=5, rendezvous_key=key))
    threading.Thread(target=lambda: list(stream), daemon=True).start()
    time.sleep(1)  # the server now has a call waiting for a tensor nobody will send
    print("exiting", flush=True)
""")


def test_a_process_with_a_server_exits_even_while_a_call_waits():
    result = run_python(WAITING_AT_EXIT, timeout=60)
    assert result.returncode == 0 and "exiting" in result.stdout, result.stdout
