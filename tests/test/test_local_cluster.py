"""`tf.test.create_local_cluster`: servers of a cluster inside the test's process."""

import numpy as np

import minitf as tf


def test_a_session_on_a_worker_keeps_its_variable_on_the_ps():
    workers, ps_servers = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    try:
        assert len(workers) == 2 and len(ps_servers) == 1
        assert workers[0].server_def.job_name == "worker"
        assert ps_servers[0].server_def.job_name == "ps"
        with tf.device("/job:ps/task:0"):
            v = tf.Variable([1.0, 2.0], name="v")
        with tf.device("/job:worker/task:1"):
            total = tf.reduce_sum(v * 2.0)
        with tf.Session(workers[0].target) as sess:
            sess.run(v.initializer)
            assert sess.run(total) == 6.0
        with tf.Session(workers[1].target) as sess:          # the ps keeps the value
            np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
    finally:
        for server in workers + ps_servers:
            server._server.stop(grace=0)
