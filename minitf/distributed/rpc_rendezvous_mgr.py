"""The rendezvous of a worker: one per step, and a _Recv that reaches other tasks.

On a worker, every step (a step id the master chose) has its own
rendezvous, which the RendezvousMgr finds or creates by step id: the
step's RunGraph uses it, and so does a RecvTensor from another worker that
may arrive before this worker's share of the step has even started.

The rendezvous keeps a local table (`LocalRendezvous`) for what the step's
`_Send`s leave here. A `_Recv` looks at its key's source device:

- a device of this task: the value comes from the local table, as in a
  DirectSession;
- a device of another task: the value is pulled from that task's worker
  with a RecvTensor call, keyed `src_device;src_incarnation;dst_device;
  tensor_name;frame:iter`. The call is made on the rendezvous' thread pool,
  so a waiting `_Recv` still holds no thread of the executor, and it is
  bounded by the step's deadline.

So a tensor crosses from one task to another worker-to-worker; the master
never sees it. Aborting the rendezvous (the step failed, or the master
cleaned it up) fails every waiting receive and cancels every call in flight.

The key a `_Recv` kernel uses starts with the step id
(`minitf/kernels/runtime_ops.py`); the key on the wire does not, the step
id travels beside it.

Mirrors `tensorflow/core/distributed_runtime/base_rendezvous_mgr.cc` and
`tensorflow/core/distributed_runtime/rpc/rpc_rendezvous_mgr.cc`.
"""

import collections
import threading

from minitf.framework.local_rendezvous import LocalRendezvous
from minitf.framework.rendezvous import Rendezvous
from minitf.graph import errors

# How many cleaned-up step ids a worker remembers: a RecvTensor for one of
# them is refused instead of waiting for a step that will not come again.
_REMEMBERED_CLEANUPS = 10000


def split_step(key):
    """(step id, rendezvous key) of a `_Send`/`_Recv` kernel's `step;key`."""
    step, _, rendezvous_key = key.partition(";")
    return int(step), rendezvous_key


def source_device(rendezvous_key):
    """The source device named by a rendezvous key (its first field)."""
    return rendezvous_key.partition(";")[0]


def task_of(device_name):
    """`/job:ps/replica:0/task:0` of `/job:ps/replica:0/task:0/device:CPU:0`."""
    return device_name.partition("/device:")[0]


class RpcRemoteRendezvous(Rendezvous):
    """The rendezvous of one step on one worker (see the module docstring)."""

    def __init__(self, env, step_id):
        self._env = env
        self.step_id = step_id
        self._local = LocalRendezvous()
        self._lock = threading.Lock()
        self._calls = set()
        self._error = None
        self.deadline = None  # time.monotonic() deadline of the step, once its RunGraph starts

    def send(self, key, value, is_dead=False):
        self._local.send(key, value, is_dead)

    def recv_async(self, key, done):
        _, rendezvous_key = split_step(key)
        task = task_of(source_device(rendezvous_key))
        if task == self._env.task_name:
            self._local.recv_async(key, done)
        else:
            self._recv_from_remote(task, rendezvous_key, done)

    def recv_local_async(self, key, done):
        """Receives from this worker's table only (what a RecvTensor asks for)."""
        self._local.recv_async(key, done)

    def start_abort(self, error):
        self._local.start_abort(error)
        with self._lock:
            if self._error is None:
                self._error = error
            calls, self._calls = list(self._calls), set()
        for call in calls:
            call.cancel()

    def _recv_from_remote(self, task, rendezvous_key, done):
        """Pulls the value from `task`'s worker (RpcRemoteRendezvous::RecvFromRemoteAsync)."""
        with self._lock:
            error = self._error
        if error is not None:
            done(error, None, False)
            return
        calls = []

        def received(error, value, is_dead):
            with self._lock:
                self._calls.difference_update(calls)
            done(error, value, is_dead)

        worker = self._env.worker_cache.get(task)
        calls.append(worker.recv_tensor_async(self.step_id, rendezvous_key, self.deadline,
                                              received))
        with self._lock:
            aborted = self._error is not None
            if not aborted:
                self._calls.add(calls[0])
        if aborted:  # the step failed while the call was being made
            calls[0].cancel()


class RpcRendezvousMgr:
    """A worker's rendezvous, one per step id, created on first use.

    `cleanup(step_id)` aborts a step's rendezvous and forgets it; a step
    cleaned up is remembered, so that a late RecvTensor for it fails at
    once rather than waiting for a step that is over.
    """

    def __init__(self, env):
        self._env = env
        self._table = {}
        self._lock = threading.Lock()
        self._cleaned = collections.OrderedDict()

    def find(self, step_id):
        with self._lock:
            rendezvous = self._table.get(step_id)
            if rendezvous is None:
                rendezvous = RpcRemoteRendezvous(self._env, step_id)
                if step_id in self._cleaned:
                    rendezvous.start_abort(errors.AbortedError(
                        None, None, "Step %d was cleaned up on %s"
                        % (step_id, self._env.task_name)))
                else:
                    self._table[step_id] = rendezvous
            return rendezvous

    def cleanup(self, step_id, error=None):
        with self._lock:
            rendezvous = self._table.pop(step_id, None)
            self._cleaned[step_id] = True
            while len(self._cleaned) > _REMEMBERED_CLEANUPS:
                self._cleaned.popitem(last=False)
        if rendezvous is not None:
            rendezvous.start_abort(error or errors.AbortedError(None, None,
                                                                "Cleanup %d" % step_id))

    def cleanup_all(self):
        with self._lock:
            table, self._table = self._table, {}
        for step_id, rendezvous in table.items():
            rendezvous.start_abort(errors.AbortedError(None, None, "Cleanup %d" % step_id))
