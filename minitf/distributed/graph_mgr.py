"""GraphMgr: the graphs a worker keeps registered, and how it runs one for a step.

The master sends each task its share of a graph (RegisterGraph), every
node already placed on one of the task's devices. The worker splits it
again, by device: the seed's "图二次分裂". An edge between two of its own
devices becomes a `_Send`/`_Recv` pair like any other (the master has cut
the edges between tasks already). Each device's part goes through the
session's graph passes (constant folding and the rest, unless the graph
options turn them off) and gets an Executor, as in a DirectSession. The
result is kept under a new, unguessable graph handle.

Running a registered graph for one step (RunGraph):

1. the step's rendezvous is found (or created) by the step id the master
   chose; the values the master sends (the fed tensors, for the client
   device's task) are put into it under their keys;
2. the executors of every device run together (`executor.run_step`), with
   the step's deadline;
3. the values the master asked for (the fetches) are taken out of the
   rendezvous.

A handle that this worker did not hand out, or handed out to another
session, is refused: AbortedError, as TensorFlow answers a worker that
restarted and lost its graphs.

Mirrors `tensorflow/core/distributed_runtime/graph_mgr.cc`.
"""

import secrets
import threading
import time

from minitf.device.partition import partition
from minitf.executor.executor import Executor, run_step
from minitf.framework.step import StepState
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.session import graph_optimizer


class RunGraphCall:
    """One RunGraph: which graph, which step, what goes in and what comes out.

    `sends` maps rendezvous keys to arrays, `recv_keys` lists the keys whose
    values come back; `deadline` is a `time.monotonic()` time or None.
    """

    def __init__(self, session_handle, graph_handle, step_id, sends, recv_keys,
                 record_timeline=False, record_partition_graphs=False, deadline=None):
        self.session_handle = session_handle
        self.graph_handle = graph_handle
        self.step_id = step_id
        self.sends = sends
        self.recv_keys = recv_keys
        self.record_timeline = record_timeline
        self.record_partition_graphs = record_partition_graphs
        self.deadline = deadline


class RunGraphResult:
    """What a RunGraph returns: the values asked for, and the step's stats and graphs."""

    def __init__(self, recvs, step_stats=(), partition_graphs=()):
        self.recvs = recvs
        self.step_stats = list(step_stats)
        self.partition_graphs = list(partition_graphs)


class _Item:
    """A registered graph: its session, one executor per device, and the graphs behind them."""

    def __init__(self, session_handle, executors, partition_graphs):
        self.session_handle = session_handle
        self.executors = executors
        self.partition_graphs = partition_graphs


class GraphMgr:
    """The registered graphs of one worker (see the module docstring)."""

    def __init__(self, env):
        self._env = env
        self._items = {}
        self._node_states = {}  # session handle -> node states its graphs share
        self._running = {}      # step id -> StepStates running here
        self._lock = threading.Lock()

    # --- registration ---------------------------------------------------------
    def register(self, session_handle, graph_def, optimizer_options):
        """Splits `graph_def` by device, builds its executors; returns a new graph handle."""
        env = self._env
        nodes = list(graph_def.node)
        names = {n.name for n in nodes}
        for node in nodes:
            self._check_device(node)
            for text in node.input:
                if graph_def_lib.parse_input(text)[0] not in names:
                    raise errors.InvalidArgumentError(
                        node, None, "Node '%s': unknown input node '%s'" % (node.name, text))
        with self._lock:
            node_states = self._node_states.setdefault(session_handle, {})
        optimize = graph_optimizer.optimizes(optimizer_options)
        context = graph_optimizer.PassContext(env.device_mgr.host_cpu)
        executors, graphs = [], []
        by_device = partition(nodes, {n.name: n.device for n in nodes}, env.incarnations)
        for device_name, device_nodes in by_device.items():
            if optimize:
                device_nodes = graph_optimizer.optimize(device_nodes, context)
            device = env.device_mgr.lookup(device_name)
            executors.append(Executor(device_nodes, device, node_states, env.compute_pool))
            graphs.append(graph_def_lib.GraphDef(device_nodes))
        handle = secrets.token_hex(8)
        with self._lock:
            self._items[handle] = _Item(session_handle, executors, graphs)
        return handle

    def _check_device(self, node):
        if not node.device.startswith(self._env.task_name + "/device:"):
            raise errors.InvalidArgumentError(
                node, None, "Node '%s' is placed on '%s', which is not a device of %s"
                % (node.name, node.device, self._env.task_name))
        self._env.device_mgr.lookup(node.device)  # NotFoundError for a device it has not

    def deregister(self, session_handle, graph_handle):
        with self._lock:
            self._lookup(session_handle, graph_handle)
            del self._items[graph_handle]
            if not any(i.session_handle == session_handle for i in self._items.values()):
                self._node_states.pop(session_handle, None)

    def _lookup(self, session_handle, graph_handle):
        item = self._items.get(graph_handle)
        if item is None or item.session_handle != session_handle:
            raise errors.AbortedError(None, None, "Graph handle is not found: %s. Possibly, "
                                      "this worker just restarted." % graph_handle)
        return item

    # --- running ------------------------------------------------------------------
    def execute(self, call):
        """Runs a registered graph for one step (ExecuteAsync, then RecvOutputs)."""
        with self._lock:
            item = self._lookup(call.session_handle, call.graph_handle)
        rendezvous = self._env.rendezvous_mgr.find(call.step_id)
        rendezvous.deadline = call.deadline
        prefix = "%d;" % call.step_id
        for key, value in call.sends.items():
            rendezvous.send(prefix + key, value)
        step = StepState(call.step_id, rendezvous, None)
        with self._lock:
            self._running.setdefault(call.step_id, []).append(step)
        try:
            stats = run_step(item.executors, step, call.record_timeline, _timeout(call.deadline))
        finally:
            with self._lock:
                steps = self._running.pop(call.step_id, [])
                steps.remove(step)
                if steps:
                    self._running[call.step_id] = steps
        recvs = {key: _received(rendezvous, prefix + key) for key in call.recv_keys}
        return RunGraphResult(recvs, stats,
                              item.partition_graphs if call.record_partition_graphs else ())

    def abort_step(self, step_id, error):
        """Fails the step `step_id` wherever it runs on this worker."""
        with self._lock:
            steps = list(self._running.get(step_id, ()))
        for step in steps:
            step.abort(error)


def _timeout(deadline):
    """Seconds left until `deadline` (None: no deadline); DeadlineExceeded when it passed."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise errors.DeadlineExceededError(None, None, "Timed out waiting for notification")
    return left


def _received(rendezvous, key):
    """The value a client-terminated `_Send` of the step left under `key` (RecvOutputs)."""
    result = []
    rendezvous.recv_local_async(key, lambda *received: result.append(received))
    if not result:
        raise errors.InternalError(None, None, "The step finished without sending %s" % key)
    error, value, is_dead = result[0]
    if error is not None:
        raise error
    if is_dead:  # a fetch in a branch of a cond that was not taken
        raise errors.InvalidArgumentError(None, None,
                                          "The tensor returned for %s was not valid." % key)
    return value
