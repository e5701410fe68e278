"""Fixtures of the Distributed chapter: clusters of real processes, always cleaned up."""

import pytest
from local_cluster import LocalCluster, free_port

import minitf as tf


@pytest.fixture(scope="module")
def cluster():
    """One ps and two workers, each an OS process on 127.0.0.1, for the whole module."""
    local = LocalCluster({"ps": 1, "worker": 2})
    try:
        yield local.start()
    finally:
        local.close()


@pytest.fixture
def two_tasks_of_two_cpus():
    """Two worker servers in this process, each with two CPUs; their targets, stopped after."""
    spec = {"worker": ["127.0.0.1:%d" % free_port(), "127.0.0.1:%d" % free_port()]}
    two_cpus = tf.ConfigProto(device_count={"CPU": 2})
    servers = [tf.train.Server(spec, job_name="worker", task_index=i, config=two_cpus)
               for i in (0, 1)]
    try:
        yield [server.target for server in servers]
    finally:
        for server in servers:
            server._server.stop()
