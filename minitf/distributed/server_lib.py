"""`tf.train.ClusterSpec` and `tf.train.Server`: a cluster described, and a task of it started.

A cluster is a set of *jobs* (`"ps"`, `"worker"`), each a set of *tasks*
numbered from 0, each task a process at a network address:

    cluster = tf.train.ClusterSpec({"ps": ["127.0.0.1:2222"],
                                    "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]})

names the devices `/job:ps/task:0`, `/job:worker/task:0` and
`/job:worker/task:1`. A job may also be given sparsely, as a dict from task
index to address (`{"worker": {1: "127.0.0.1:2224"}}`): a process need not
know every task of the jobs it does not talk to.

`tf.train.Server(cluster, job_name, task_index)` starts, in this process,
the task that the cluster gives this job and index: a worker, which runs
its share of every step and keeps its devices' variables, and a master,
which runs the sessions of clients that name its `target`
(`grpc://host:port`). `Server.create_local_server()` is a cluster of one,
on a free port of localhost. Creating a server loads gRPC; describing a
cluster does not.

Mirrors `tensorflow/python/training/server_lib.py`.
"""

from minitf.graph import errors

__all__ = ["ClusterSpec", "Server"]


class ClusterSpec:
    """A cluster as jobs of tasks: `ClusterSpec({"ps": [addr], "worker": {0: addr, 2: addr}})`.

    `cluster` is a dict from job names to lists of addresses (task i at
    index i) or to dicts from task indices to addresses, a ClusterDef
    message, or another ClusterSpec. Two specs are equal when they name the
    same tasks at the same addresses.
    """

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): task for i, task in tasks.items()}
                else:
                    raise TypeError("The tasks for job %r must be a list or a dictionary "
                                    "from integers to strings." % job_name)
                self._cluster_spec[job_name] = job_tasks
            self._check_names()
        elif isinstance(cluster, ClusterSpec):
            self._cluster_spec = {job: dict(tasks)
                                  for job, tasks in cluster._cluster_spec.items()}
        elif _is_cluster_def(cluster):
            self._cluster_spec = {job.name: dict(job.tasks) for job in cluster.job}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to "
                            "lists of network addresses, or a `ClusterDef` protocol buffer")

    def _check_names(self):
        for job_name, tasks in self._cluster_spec.items():
            if not isinstance(job_name, (str, bytes)):
                raise TypeError("Job name %r must be bytes or unicode" % (job_name,))
            for address in tasks.values():
                if not isinstance(address, (str, bytes)):
                    raise TypeError("Task address %r must be bytes or unicode" % (address,))
        self._cluster_spec = {_text(job): {i: _text(a) for i, a in tasks.items()}
                              for job, tasks in self._cluster_spec.items()}

    def __bool__(self):
        return bool(self._cluster_spec)

    def __eq__(self, other):
        # A ClusterSpec equals another with the same tasks, and the dict of its tasks.
        return self._cluster_spec == other

    def __ne__(self, other):
        return self._cluster_spec != other

    __hash__ = None

    def __repr__(self):
        key_values = self.as_dict()
        return "ClusterSpec({%s})" % ", ".join(
            "%r: %r" % (job, key_values[job]) for job in sorted(key_values))

    def as_dict(self):
        """{job: [addresses]} for a job whose indices are 0..n-1, {job: {index: address}} else."""
        result = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                result[job] = {}
            elif max(indices) + 1 == len(indices):
                result[job] = self.job_tasks(job)
            else:
                result[job] = {i: self.task_address(job, i) for i in indices}
        return result

    def as_cluster_def(self):
        """The cluster as a `ClusterDef` message, jobs and tasks sorted."""
        from minitf.proto import cluster_pb2  # noqa: PLC0415 - protobuf is loaded only when used
        cluster_def = cluster_pb2.ClusterDef()
        for job_name, tasks in sorted(self._cluster_spec.items()):
            job_def = cluster_def.job.add(name=job_name)
            for index, address in sorted(tasks.items()):
                job_def.tasks[index] = address
        return cluster_def

    @property
    def jobs(self):
        """The job names, in the order they were given."""
        return list(self._cluster_spec)

    def num_tasks(self, job_name):
        """How many tasks `job_name` has; ValueError for a job the cluster lacks."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The sorted task indices of `job_name`."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """The address of one task; ValueError when the job or the task is not there."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name)) \
                from None

    def job_tasks(self, job_name):
        """The addresses of `job_name` as a list indexed by task (None where a task is missing)."""
        job = self._job(job_name)
        tasks = [None] * (max(job) + 1)
        for index, address in job.items():
            tasks[index] = address
        return tasks

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError("No such job in cluster: %r" % (job_name,)) from None


def _is_cluster_def(value):
    if type(value).__name__ != "ClusterDef":
        return False
    from minitf.proto import cluster_pb2  # noqa: PLC0415 - protobuf is loaded only when used
    return isinstance(value, cluster_pb2.ClusterDef)


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


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
