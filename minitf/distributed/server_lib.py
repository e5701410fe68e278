"""`tf.train.ClusterSpec` and `tf.train.Server`: a cluster described, and a task of it started.

A cluster (`tf.train.ClusterSpec`, `cluster_spec.py`) is a set of jobs,
each a set of tasks at network addresses:

    cluster = tf.train.ClusterSpec({"ps": ["127.0.0.1:2222"],
                                    "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]})

`tf.train.Server(cluster, job_name, task_index)` starts, in this process,
the task that the cluster gives this job and index: a worker, which runs
its share of every step and keeps its devices' variables, and a master,
which runs the sessions of clients that name its `target`
(`grpc://host:port`). `Server.create_local_server()` is a cluster of one,
on a free port of localhost. Creating a server loads gRPC; describing a
cluster does not.

Mirrors `tensorflow/python/training/server_lib.py`.
"""

from minitf.distributed.cluster_spec import ClusterSpec
from minitf.graph import errors

__all__ = ["ClusterSpec", "Server"]


class Server:
    """A task of a cluster, running in this process: its worker and its master.

    `server_or_cluster_def` is a ClusterSpec (or what makes one) or a
    ServerDef message. `job_name` and `task_index` may be left out when the
    cluster leaves no choice (one job; one task in the job). `config` is the
    ConfigProto of the task's devices (`device_count`) and threads, and the
    default of its sessions' options.
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                 config=None, start=True):
        self._server_def = _make_server_def(server_or_cluster_def, job_name, task_index,
                                            protocol, config)
        from minitf.distributed import grpc_server  # noqa: PLC0415 - grpcio is loaded only when used
        self._server = grpc_server.GrpcServer(self._server_def)
        if start:
            self.start()

    def start(self):
        """Starts serving (a second call does nothing)."""
        self._server.start()

    def join(self):
        """Blocks until the server has shut down (in TensorFlow: forever)."""
        self._server.join()

    @property
    def server_def(self):
        """The `ServerDef` message this server was made from."""
        return self._server_def

    @property
    def target(self):
        """What `tf.Session(target)` takes to run on this server: `grpc://host:port`."""
        return self._server.target

    @staticmethod
    def create_local_server(config=None, start=True):
        """A cluster of one task, `/job:localhost/task:0`, on a free port of localhost."""
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config,
                      start=start)


def _make_server_def(server_or_cluster_def, job_name, task_index, protocol, config):
    """The ServerDef of a new server, filling in what the arguments leave out (TF's rules)."""
    from minitf.distributed import messages  # noqa: PLC0415 - protobuf is loaded only when used
    from minitf.proto import tensorflow_server_pb2  # noqa: PLC0415 - protobuf is loaded only when used
    server_def = tensorflow_server_pb2.ServerDef()
    if isinstance(server_or_cluster_def, tensorflow_server_pb2.ServerDef):
        server_def.MergeFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
    else:
        try:
            cluster_spec = ClusterSpec(server_or_cluster_def)
        except TypeError:
            raise TypeError("Could not convert `server_or_cluster_def` to a "
                            "`tf.train.ServerDef` or `tf.train.ClusterSpec`.") from None
        if job_name is None:
            if len(cluster_spec.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name`.")
            job_name = cluster_spec.jobs[0]
        if task_index is None:
            task_indices = cluster_spec.task_indices(job_name)
            if len(task_indices) != 1:
                raise ValueError("Must specify an explicit `task_index`.")
            task_index = task_indices[0]
        server_def.cluster.CopyFrom(cluster_spec.as_cluster_def())
        server_def.job_name = job_name
        server_def.task_index = task_index
        server_def.protocol = protocol or "grpc"
    if config is not None:
        server_def.default_session_config.MergeFrom(
            config if hasattr(config, "SerializeToString") else messages.config_to_proto(config))
    if not server_def.protocol:
        raise errors.InvalidArgumentError(None, None, "The ServerDef names no protocol")
    return server_def
