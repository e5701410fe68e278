"""Worker: the service that runs one task's share of every step.

A worker owns the devices of its task and, in their resource managers, the
state that outlives steps and sessions: the variables of a parameter
server live here, whichever client's session created them. What it does
for a master, and for the other workers:

- GetStatus: its devices, each with its *incarnation*, a random number
  drawn when the process started, so that a restarted worker is told from
  the one it replaced;
- RegisterGraph / DeregisterGraph: keep, or forget, a task's share of a
  graph (`graph_mgr.py`);
- RunGraph: run a registered graph for one step;
- CleanupGraph: drop what is left of a step in its rendezvous;
- CleanupAll: clear resource containers (`tf.Session.reset`);
- RecvTensor: hand a tensor that this worker's `_Send` left in a step's
  rendezvous to the worker whose `_Recv` asks for it. The key's source
  device must be one of this worker's, with the incarnation the asker
  expects: a mismatch means that this worker restarted since the graph was
  registered, and is AbortedError.

This class is the worker as its own process calls it (a master in the same
process calls it directly, as TensorFlow's LocalWorker does); the gRPC
service in `grpc_services.py` turns requests into these calls, and
`grpc_remote_worker.py` is the same interface for a worker elsewhere.

Mirrors `tensorflow/core/distributed_runtime/worker.cc` and `worker_env.h`.
"""

import secrets

from minitf.distributed import messages
from minitf.distributed.graph_mgr import GraphMgr
from minitf.distributed.rpc_rendezvous_mgr import RpcRendezvousMgr
from minitf.distributed.rpc_rendezvous_mgr import source_device
from minitf.executor.thread_pool import ThreadPool
from minitf.graph import errors


class WorkerEnv:
    """What a worker works with: its task's name and devices, the rendezvous, the pools.

    `worker_cache` reaches the other tasks of the cluster (set by the server
    once it exists, since the cache's entry for this task is this worker).
    """

    def __init__(self, task_name, device_mgr, inter_op_threads):
        self.task_name = task_name
        self.device_mgr = device_mgr
        # 63 bits: an incarnation travels in a NodeDef's int attr, which is signed.
        self.incarnations = {d.name: secrets.randbits(63) | 1 for d in device_mgr.list_devices()}
        self.rendezvous_mgr = RpcRendezvousMgr(self)
        # The thread that runs a step executes nodes too: N threads in all, N - 1 in the pool.
        self.compute_pool = ThreadPool(inter_op_threads - 1) if inter_op_threads > 1 else None
        self.worker_cache = None


class Worker:
    """The worker of one task, called in-process (see the module docstring)."""

    is_local = True

    def __init__(self, env):
        self.env = env
        self.graph_mgr = GraphMgr(env)

    @property
    def task_name(self):
        return self.env.task_name

    def get_status(self, timeout=None):
        """The DeviceAttributes of every device of the task."""
        del timeout  # answered at once
        return [messages.device_attributes(d, self.env.incarnations[d.name])
                for d in self.env.device_mgr.list_devices()]

    def register_graph(self, session_handle, graph_def, graph_options):
        return self.graph_mgr.register(session_handle, graph_def,
                                       graph_options.optimizer_options)

    def deregister_graph(self, session_handle, graph_handle):
        self.graph_mgr.deregister(session_handle, graph_handle)

    def run_graph(self, call):
        """Runs a registered graph for one step; returns a RunGraphResult."""
        try:
            return self.graph_mgr.execute(call)
        except errors.OpError as e:
            # Nothing of a failed step is needed any more: wake whatever still waits in it.
            self.env.rendezvous_mgr.cleanup(call.step_id, e)
            raise

    def abort_step(self, step_id, error):
        """Fails a step that is running here (its master gave up on it)."""
        self.env.rendezvous_mgr.cleanup(step_id, error)
        self.graph_mgr.abort_step(step_id, error)

    def cleanup_graph(self, step_id):
        self.env.rendezvous_mgr.cleanup(step_id)

    def cleanup_all(self, containers):
        """Clears `containers` on every device; no name at all means the default container."""
        self.env.device_mgr.clear_containers(list(containers) or [""])

    def recv_tensor(self, step_id, rendezvous_key, done):
        """Calls `done(error, value, is_dead)` once the step's `_Send` left `rendezvous_key`.

        A value whose asker went away is dropped with the step's cleanup.
        """
        self._check_source(rendezvous_key)
        rendezvous = self.env.rendezvous_mgr.find(step_id)
        rendezvous.recv_local_async("%d;%s" % (step_id, rendezvous_key), done)

    def _check_source(self, rendezvous_key):
        """The key must name one of this worker's devices, in its current incarnation."""
        parts = rendezvous_key.split(";")
        if len(parts) != 5:
            raise errors.InvalidArgumentError(None, None, "Invalid rendezvous key: %s"
                                              % rendezvous_key)
        device, incarnation = source_device(rendezvous_key), parts[1]
        if device not in self.env.incarnations:
            raise errors.InvalidArgumentError(
                None, None, "RecvTensor for %s, which is not a device of %s"
                % (device, self.env.task_name))
        expected = "%x" % self.env.incarnations[device]
        if incarnation != expected:
            raise errors.AbortedError(
                None, None, "RecvTensor expects a different device incarnation: %s vs. %s. "
                "Your worker job (\"%s\") was probably restarted. Check your worker job for "
                "the reason why it was restarted." % (incarnation, expected,
                                                      self.env.task_name))

