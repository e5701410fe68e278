"""`tf.train.replica_device_setter`: variables on parameter servers, compute on the worker.

Replicated training puts the model's state on the tasks of a `ps` job and
the computation on a `worker` task. Written by hand, that is a
`tf.device` around every variable; `replica_device_setter` returns a
*device function* that does it as the graph is built:

    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        w = tf.Variable(...)   # /job:ps/task:0
        b = tf.Variable(...)   # /job:ps/task:1
        y = tf.matmul(x, w)    # /job:worker

An op whose type is one of `ps_ops` (the variable ops, by default) goes to
`ps_device`, on the task that `ps_strategy` picks: round robin by default,
or `GreedyLoadBalancingStrategy(num_tasks, byte_size_load_fn)`, which puts
each variable on the task holding the fewest bytes so far. Every other op
goes to `worker_device`. The fields an op's own device (from an inner
`tf.device`) sets are kept. A variable's `Assign`, `read` and optimizer
slots are colocated with it, so they follow it to its ps task.

Mirrors `tensorflow/python/training/device_setter.py` and
`tensorflow/contrib/training/python/training/device_setter.py`
(GreedyLoadBalancingStrategy, byte_size_load_fn).
"""

import logging

import numpy as np

from minitf.distributed.server_lib import ClusterSpec
from minitf.graph import tensor_shape
from minitf.graph.device_spec import DeviceSpec

__all__ = ["replica_device_setter"]

_logger = logging.getLogger("minitf")

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable",
                   "MutableHashTableV2", "MutableHashTableOfTensors",
                   "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp",
                   "BoostedTreesEnsembleResourceHandleOp")


class _RoundRobinStrategy:
    """The ps tasks in turn: 0, 1, ..., num_tasks - 1, 0, ..."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class GreedyLoadBalancingStrategy:
    """The ps task with the least load so far; `load_fn(op)` says what an op weighs.

    Greedy, so it depends on the order variables are created in: each goes
    to the least loaded task at the time.
    """

    def __init__(self, num_tasks, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op):
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op):
    """The bytes of a single-output op's output (a variable's size); ValueError otherwise."""
    if len(op.outputs) != 1:
        raise ValueError("Op %s must have a single output" % op)
    output = op.outputs[0]
    shape = output.get_shape()
    if not shape.is_fully_defined():
        # A variable's output may not have its shape yet when its device is chosen.
        shape = tensor_shape.TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * output.dtype.size


class _ReplicaDeviceChooser:
    """The device function: ps ops to a ps task, the rest to the worker, merged with the op's."""

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        if self._ps_tasks and self._ps_device and op.type in self._ps_ops:
            ps_device = DeviceSpec.from_string(self._ps_device)
            # The task is chosen only when the op's own job, if any, is the ps job.
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker_device = DeviceSpec.from_string(self._worker_device or "")
        return worker_device.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker",
                          merge_devices=True, cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for `tf.device`: variables on ps tasks, other ops on the worker.

    With `cluster` (a ClusterSpec, its dict or a ClusterDef), `ps_tasks` is
    the number of tasks of its ps job, and None is returned when it has
    none; with neither, `ps_tasks=0` also returns None (no device function).
    """
    if cluster is not None:
        cluster_spec = (cluster if isinstance(cluster, ClusterSpec)
                        else ClusterSpec(cluster)).as_dict()
        ps_job_name = DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_spec or cluster_spec[ps_job_name] is None:
            return None
        ps_tasks = len(cluster_spec[ps_job_name])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        _logger.warning("DEPRECATION: It is recommended to set merge_devices=true in "
                        "replica_device_setter")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                    ps_strategy)
    return chooser.device_function
