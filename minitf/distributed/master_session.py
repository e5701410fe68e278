"""MasterSession: DirectSession's pipeline, one level up, over the tasks of a cluster.

A client's session on a master is a MasterSession. It keeps the client's
graph (CreateSession, then ExtendSession with the new nodes) and, for each
new (feeds, fetches, targets) signature of RunStep, builds a *client graph*
once:

1. the graph rewritten and pruned for the signature
   (`session.subgraph.rewrite_for_execution`); the feeds and fetches are
   client-terminated `_Recv`s and `_Send`s on the *client device*, the
   first CPU of the master's own task;
2. a placement of every node on a device of *any* task of the cluster
   (`device.placer`, over every device the session found);
3. one partition per device, joined by `_Send`/`_Recv` pairs
   (`device.partition`), gathered by task: the seed's "图分裂", each task's
   share of the step;
4. each task's share registered with its worker (RegisterGraph), which
   splits it again by device and keeps the executors (`graph_mgr.py`).

A step then asks every task of the client graph to run its share
(RunGraph), all at once, under a step id drawn at random: the feeds go to
the client device's task with its RunGraph, the fetches come back with
its answer, and every tensor that crosses tasks goes from worker to
worker (RecvTensor), never through the master. The first task to fail
fails the step: the others are cancelled, and the error names the task
(`From /job:ps/replica:0/task:0:`). After the step, every worker of the
step is told to clean up what is left of it (CleanupGraph).

A step that needs only some tasks talks only to them, so a session stays
usable for the steps that do not need a task that died. A signature whose
registration failed is tried again by the next run.

Mirrors `tensorflow/core/distributed_runtime/master_session.cc`
(MasterSession, ReffedClientGraph, RunManyGraphs).
"""

import secrets
import threading
import time

from minitf.device.partition import partition
from minitf.device.placer import place
from minitf.distributed import messages
from minitf.distributed import tensor_coding
from minitf.distributed.graph_mgr import RunGraphCall
from minitf.distributed.rpc_rendezvous_mgr import task_of
from minitf.framework.rendezvous import create_key
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.graph import graph_def_proto
from minitf.proto import config_pb2
from minitf.proto import master_pb2
from minitf.session import subgraph


class MasterSession:
    """One client session on a master (see the module docstring).

    `devices` are the session's devices, the client device first; each has
    a name, a type, a DeviceSpec and an incarnation (`master.RemoteDevice`).
    """

    def __init__(self, handle, config, devices, worker_cache):
        self.handle = handle
        self.config = config
        self.devices = devices
        self.client_device = devices[0]
        self.worker_cache = worker_cache
        self.incarnations = {d.name: d.incarnation for d in devices}
        self._nodes = {}
        self._graph_version = 0
        self._client_graphs = {}
        self._lock = threading.Lock()
        self._closed = False

    # --- the graph -----------------------------------------------------------
    def create(self, graph_def):
        """The session's first nodes; returns the graph version."""
        return self.extend(graph_def, 0)

    def extend(self, graph_def, current_version):
        """Adds the nodes of `graph_def` (new names only); returns the new graph version."""
        with self._lock:
            if current_version != self._graph_version:
                raise errors.AbortedError(
                    None, None, "Current version is %d but caller expected %d."
                    % (self._graph_version, current_version))
            for node in graph_def.node:
                if node.name in self._nodes:
                    raise errors.InvalidArgumentError(
                        node, None, "Duplicate node name in graph: '%s'" % node.name)
            for node in graph_def.node:
                self._nodes[node.name] = node
            self._graph_version += 1
            return self._graph_version

    # --- running -----------------------------------------------------------------
    def run(self, request):
        """Runs one step of a RunStepRequest; returns its RunStepResponse."""
        feeds = tensor_coding.named_values(request.feed, "feed")
        fetches, targets = list(request.fetch), list(request.target)
        options = request.options
        timeout_ms = options.timeout_in_ms or self.config.operation_timeout_in_ms
        deadline = time.monotonic() + timeout_ms / 1000.0 if timeout_ms > 0 else None
        client_graph = self._client_graph(sorted(feeds), fetches, targets)
        trace = options.trace_level > config_pb2.RunOptions.NO_TRACE
        outputs, stats, graphs = client_graph.run_partitions(
            _new_step_id(), feeds, trace, options.output_partition_graphs, deadline)
        response = master_pb2.RunStepResponse(
            tensor=[tensor_coding.named_tensor(name, outputs[name]) for name in fetches])
        if trace:
            messages.step_stats_to_proto(stats, response.metadata.step_stats)
        for graph in graphs:
            response.metadata.partition_graphs.append(graph_def_proto.graph_def_to_proto(graph))
        return response

    def _client_graph(self, feeds, fetches, targets):
        """The registered client graph of one signature, built on first use."""
        key = (tuple(feeds), tuple(fetches), tuple(targets))
        client_graph = self._client_graphs.get(key)
        if client_graph is None:
            with self._lock:
                if self._closed:
                    raise errors.AbortedError(None, None, "Session %s is closed." % self.handle)
                client_graph = self._client_graphs.get(key)
                if client_graph is None:
                    client_graph = _ClientGraph(self, dict(self._nodes), feeds, fetches,
                                                targets)
                    client_graph.register()
                    self._client_graphs[key] = client_graph
        return client_graph

    # --- lifetime -------------------------------------------------------------------
    def list_devices(self):
        """(the master's own devices, the other tasks' devices) as DeviceAttributes."""
        local_task = task_of(self.client_device.name)
        local = [d.attributes for d in self.devices if task_of(d.name) == local_task]
        remote = [d.attributes for d in self.devices if task_of(d.name) != local_task]
        return local, remote

    def close(self):
        """Deregisters every graph of the session from its worker (a dead one is skipped)."""
        with self._lock:
            self._closed = True
            client_graphs, self._client_graphs = list(self._client_graphs.values()), {}
        for client_graph in client_graphs:
            client_graph.deregister()


def _new_step_id():
    """A random step id: the masters of a cluster share workers, and must not share ids."""
    return secrets.randbits(62) + 1


class _Part:
    """One task's share of a client graph: its worker, its graph and the keys it feeds."""

    def __init__(self, task, worker, nodes):
        self.task = task
        self.worker = worker
        self.graph_def = graph_def_lib.GraphDef(nodes)
        self.graph_handle = None
        self.feed_key = {}   # feed name ("x:0") -> rendezvous key of its client-terminated _Recv
        self.key_fetch = {}  # rendezvous key of a client-terminated _Send -> fetch name
        for node in nodes:
            if node.op in ("_Send", "_Recv") and node.attr.get("client_terminated"):
                key = create_key(node.attr["send_device"], node.attr["send_device_incarnation"],
                                 node.attr["recv_device"], node.attr["tensor_name"])
                if node.op == "_Recv":
                    self.feed_key[node.attr["tensor_name"]] = key
                else:
                    self.key_fetch[key] = node.attr["tensor_name"]


class _ClientGraph:
    """A signature's graph, placed over the cluster and registered task by task.

    Mirrors `ReffedClientGraph` of `master_session.cc`.
    """

    def __init__(self, session, nodes, feeds, fetches, targets):
        self._session = session
        client = session.client_device
        config = session.config
        pruned = subgraph.rewrite_for_execution(nodes, feeds, fetches, targets,
                                                (client.name, client.incarnation))
        placement = place(pruned, session.devices, config.allow_soft_placement,
                          config.log_device_placement)
        by_task = {}  # the seed's "图分裂": one share of the graph per task
        for device_name, device_nodes in partition(pruned, placement,
                                                   session.incarnations).items():
            by_task.setdefault(task_of(device_name), []).extend(device_nodes)
        self.parts = [_Part(task, session.worker_cache.get(task), task_nodes)
                      for task, task_nodes in sorted(by_task.items())]

    def register(self):
        """RegisterGraph on every task; on a failure, what was registered is deregistered."""
        session = self._session
        try:
            for part in self.parts:
                part.graph_handle = part.worker.register_graph(
                    session.handle, part.graph_def, session.config.graph_options)
        except errors.OpError as e:
            self.deregister()
            raise messages.prefixed(e, part.task) from None

    def deregister(self):
        for part in self.parts:
            if part.graph_handle is not None:
                try:
                    part.worker.deregister_graph(self._session.handle, part.graph_handle)
                except errors.OpError:
                    pass  # the worker is gone, and its graphs with it
                part.graph_handle = None

    def run_partitions(self, step_id, feeds, trace, output_partition_graphs, deadline):
        """Runs every task's share of one step; returns (outputs, stats, partition graphs)."""
        calls = _RunManyGraphs(self.parts, step_id)
        local = []
        for part in self.parts:
            call = RunGraphCall(
                self._session.handle, part.graph_handle, step_id,
                {key: feeds[name] for name, key in part.feed_key.items()},
                list(part.key_fetch), trace, output_partition_graphs, deadline)
            if part.worker.is_local:
                local.append((part, call))
            else:
                calls.started(part, part.worker.run_graph_async(
                    call, lambda result, error, part=part: calls.finished(part, result, error)))
        for part, call in local:  # on this thread, while the other tasks run theirs
            try:
                calls.finished(part, part.worker.run_graph(call), None)
            except errors.OpError as e:
                calls.finished(part, None, e)
        calls.wait(deadline)
        for part in self.parts:
            part.worker.cleanup_graph(step_id)
        if calls.error is not None:
            raise calls.error
        outputs, stats, graphs = {}, [], []
        for part in self.parts:
            result = calls.results[part.task]
            for key, value in result.recvs.items():
                outputs[part.key_fetch[key]] = value
            stats.extend(result.step_stats)
            graphs.extend(result.partition_graphs)
        return outputs, stats, graphs


def _derived(error):
    """Whether `error` is the consequence of another task's failure, not its cause.

    A task's share is cancelled when another task failed, and a task's
    rendezvous that was cleaned up (its own share failed) aborts the
    transfers other tasks were waiting for, with messages of
    `rpc_rendezvous_mgr.py`. TensorFlow marks such statuses as derived
    (`StatusGroup::MakeDerived`) for the same reason.
    """
    return isinstance(error, errors.CancelledError) or (
        isinstance(error, errors.AbortedError) and (
            "was cleaned up on" in error.message or "Cleanup " in error.message))


class _RunManyGraphs:
    """The RunGraph calls of one step: their results, the first error, and cancellation."""

    def __init__(self, parts, step_id):
        self._parts = parts
        self._step_id = step_id
        self._pending = len(parts)
        self._calls = {}
        self._done = threading.Condition()
        self.results = {}
        self.error = None

    def started(self, part, call):
        with self._done:
            self._calls[part.task] = call
            cancel = self.error is not None
        if cancel:
            call.cancel()

    def finished(self, part, result, error):
        with self._done:
            self.results[part.task] = result
            first = error is not None and self.error is None
            if first or (error is not None and _derived(self.error) and not _derived(error)):
                # A task whose share was cancelled or cleaned up because another failed may
                # answer first; the step's error is the cause (TF's StatusGroup does the same).
                self.error = messages.prefixed(error, part.task)
            self._pending -= 1
            self._done.notify_all()
        if first:
            self._cancel_others(part)

    def _cancel_others(self, failed):
        """Gives up on the other tasks' shares of the step: the step has failed."""
        error = errors.CancelledError(None, None, "RunManyGraphs")
        with self._done:
            calls = dict(self._calls)
        for part in self._parts:
            if part is failed:
                continue
            if part.worker.is_local:
                part.worker.abort_step(self._step_id, error)
            elif part.task in calls:
                calls[part.task].cancel()

    def wait(self, deadline):
        """Waits for every call; past the deadline (and a grace second) the step fails."""
        with self._done:
            while self._pending:
                timeout = None if deadline is None else deadline + 1.0 - time.monotonic()
                if timeout is not None and timeout <= 0:
                    break
                self._done.wait(timeout)
            if not self._pending:
                return
            if self.error is None:
                self.error = errors.DeadlineExceededError(
                    None, None, "Timed out waiting for notification")
        self._cancel_others(None)
