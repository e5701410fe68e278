"""`tf.test.create_local_cluster`: a whole cluster of servers inside the test's process.

`create_local_cluster(2, 1)` starts two `worker` tasks and one `ps` task,
each a `tf.train.Server` on a free port of this machine, and returns the
servers. A session on `workers[0].target` then runs a graph whose
variables sit on `/job:ps/task:0`, as a distributed program would, without
starting other processes (the Distributed chapter runs a task per process,
which is how a real cluster runs).

Mirrors `create_local_cluster` of `tensorflow/python/framework/test_util.py`
(TensorFlow picks the ports with the `portpicker` package; minitf asks the
system for them).
"""

import contextlib
import socket

from minitf.distributed import server_lib


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """(workers, ps_servers): started servers of the jobs `worker` and `ps` on localhost."""
    cluster = {"worker": ["localhost:%d" % _free_port() for _ in range(num_workers)]}
    if num_ps > 0:
        cluster["ps"] = ["localhost:%d" % _free_port() for _ in range(num_ps)]
    spec = server_lib.ClusterSpec(cluster)
    workers = [server_lib.Server(spec, job_name="worker", protocol=protocol, task_index=index,
                                 config=worker_config, start=True)
               for index in range(num_workers)]
    ps_servers = [server_lib.Server(spec, job_name="ps", protocol=protocol, task_index=index,
                                    config=ps_config, start=True)
                  for index in range(num_ps)]
    return workers, ps_servers


def _free_port():
    """A port of the loopback address that nothing listens on (the system's choice)."""
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
