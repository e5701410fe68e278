"""`tf.train.ClusterSpec`: a cluster described, as jobs of tasks at network addresses.

A cluster is a set of *jobs* (`"ps"`, `"worker"`), each a set of *tasks*
numbered from 0, each task a process at a network address:

    cluster = tf.train.ClusterSpec({"ps": ["127.0.0.1:2222"],
                                    "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]})

names the devices `/job:ps/task:0`, `/job:worker/task:0` and
`/job:worker/task:1`. A job may also be given sparsely, as a dict from task
index to address (`{"worker": {1: "127.0.0.1:2224"}}`): a process need not
know every task of the jobs it does not talk to.

Both the user's side (`tf.train.Server`, `server_lib.py`) and the server
it starts (`grpc_server.py`) read a cluster through this class; describing
a cluster loads neither gRPC nor, until it becomes a `ClusterDef`, protobuf.

Mirrors `ClusterSpec` of `tensorflow/python/training/server_lib.py`.
"""

__all__ = ["ClusterSpec"]


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
