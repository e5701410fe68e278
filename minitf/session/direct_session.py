"""DirectSession: the in-process runtime behind `tf.Session()`.

It sees only GraphDefs. `extend` adds the nodes the client sends; `run` takes
tensor names to feed and fetch and node names to run, and for each new
(feeds, fetches, targets) signature builds, once:

1. the rewritten, pruned graph (`subgraph.rewrite_for_execution`),
2. a placement of every node on a device (`device.placer`),
3. one partition per device, joined by _Send/_Recv (`device.partition`),
4. each partition optimized by the graph passes of
   `graph_optimizer.PASSES`, unless the config's OptimizerOptions turn them
   off: its constant part computed once, the nodes that pass their input
   through dropped, a known pattern fused into one node,
5. one Executor per partition.

Later runs with the same signature reuse them (the feeds are sorted first,
so `{a, b}` and `{b, a}` are one signature). A step gives every executor the
same step id, call frame and Rendezvous and runs them together
(`executor.run_step`); `RunOptions.timeout_in_ms` (or the config's
`operation_timeout_in_ms`) bounds it.

A node added to the graph later never changes an existing signature's
graph, so `extend` keeps the cache; an edit of a node already sent
(`reset_graph`) drops it.

From the ConfigProto it takes the devices (`device_count`), the inter-op
pool's size, soft placement, placement logging (which starts, as in TF,
with the "Device mapping" of the session's devices) and the intra-op thread
count, which it can only pass on to NumPy's BLAS (see `_limit_blas_threads`).

The module registers DirectSession's factory ("DIRECT_SESSION", for the
targets `""` and `"local..."`) with `session_factory`, through which the
client finds it.

Mirrors `tensorflow/core/common_runtime/direct_session.cc`.
"""

import itertools
import threading
import weakref

from minitf.device.device import DeviceMgr, local_devices
from minitf.device.partition import partition
from minitf.device.placer import place
from minitf.executor.executor import run_step
from minitf.executor.single_threaded_executor import new_executor
from minitf.executor.step_stats import StepStats
from minitf.executor.thread_pool import ThreadPool, default_num_threads
from minitf.framework.local_rendezvous import LocalRendezvous
from minitf.framework.step import CallFrame
from minitf.framework.step import StepState
from minitf.graph import errors
from minitf.graph import graph_def as graph_def_lib
from minitf.session import graph_optimizer
from minitf.session import session_factory
from minitf.session import subgraph
from minitf.session.config import ConfigProto, RunOptions

_step_ids = itertools.count(1)
_live_sessions = weakref.WeakSet()
_NO_OPTIONS = RunOptions()


class ExecutorsAndKeys:
    """What one run signature compiles to: executors per device and the graphs behind them."""

    def __init__(self, executors, partition_graphs, num_fetches):
        self.executors = executors
        self.partition_graphs = partition_graphs
        self.num_fetches = num_fetches


class DirectSession:
    """Runs GraphDefs on the devices of this process."""

    def __init__(self, config=None):
        self.config = config or ConfigProto()
        self.device_mgr = DeviceMgr(local_devices(self.config.device_count))
        if self.config.log_device_placement:
            _print_device_mapping(self.device_mgr)
        self._blas_limits = _limit_blas_threads(self.config.intra_op_parallelism_threads)
        self._optimize = graph_optimizer.optimizes(self.config.graph_options.optimizer_options)
        self._pass_context = graph_optimizer.PassContext(self.device_mgr.host_cpu)
        # The thread calling run() executes nodes too: N threads in all means N - 1 in the pool.
        threads = self.config.inter_op_parallelism_threads or default_num_threads()
        self.thread_pool = ThreadPool(threads - 1) if threads > 1 else None
        self._nodes = {}
        self._executors = {}
        self._node_states = {}
        self._lock = threading.Lock()
        self._incarnations = {d.name: i + 1 for i, d in enumerate(self.device_mgr.list_devices())}
        self.closed = False
        _live_sessions.add(self)

    # --- the graph ---------------------------------------------------------
    def extend(self, graph_def):
        """Adds the nodes of `graph_def` (new ones only) to the session's graph."""
        with self._lock:
            for node in graph_def.node:
                if node.name in self._nodes:
                    raise errors.InvalidArgumentError(
                        node, None, "Duplicate node name in graph: '%s'" % node.name)
            for node in graph_def.node:
                self._nodes[node.name] = node.copy()

    def reset_graph(self, graph_def):
        """Replaces the whole graph (after the client edited existing nodes)."""
        with self._lock:
            self._nodes = {n.name: n.copy() for n in graph_def.node}
            self._executors.clear()

    def list_devices(self):
        return self.device_mgr.list_devices()

    # --- running -------------------------------------------------------------
    def run(self, feeds, fetches, targets, options=None, run_metadata=None):
        """Runs one step: `feeds` {tensor name: array}, returns the values of `fetches`."""
        if self.closed:
            raise RuntimeError("Attempted to use a closed Session.")
        options = options or _NO_OPTIONS
        feed_names = sorted(feeds)  # {a, b} and {b, a} share one executor
        bundle = self._get_executors(feed_names, fetches, targets)
        call_frame = CallFrame([feeds[n] for n in feed_names], bundle.num_fetches)
        step = StepState(next(_step_ids), LocalRendezvous(), call_frame)
        collect = run_metadata is not None and options.trace_level > RunOptions.NO_TRACE
        timeout_in_ms = options.timeout_in_ms or self.config.operation_timeout_in_ms
        stats = run_step(bundle.executors, step, collect,
                         timeout_in_ms / 1000.0 if timeout_in_ms > 0 else None)
        if run_metadata is not None:
            run_metadata.step_stats = StepStats()
            run_metadata.step_stats.add(stats)
            run_metadata.partition_graphs = (list(bundle.partition_graphs)
                                             if options.output_partition_graphs else [])
        return call_frame.consume_retvals()

    def _get_executors(self, feeds, fetches, targets):
        """The executors of one (feeds, fetches, targets) signature, built on first use."""
        key = (tuple(feeds), tuple(fetches), tuple(targets))
        bundle = self._executors.get(key)
        if bundle is None:
            with self._lock:
                bundle = self._executors.get(key)
                if bundle is None:
                    bundle = self._create_executors(feeds, fetches, targets)
                    self._executors[key] = bundle
        return bundle

    def _create_executors(self, feeds, fetches, targets):
        nodes = subgraph.rewrite_for_execution(self._nodes, feeds, fetches, targets)
        devices = self.device_mgr.list_devices()
        placement = place(nodes, devices, self.config.allow_soft_placement,
                          self.config.log_device_placement)
        partitions = partition(nodes, placement, self._incarnations)
        executors, graphs = [], []
        for device_name, partition_nodes in partitions.items():
            device = self.device_mgr.lookup(device_name)
            if self._optimize:
                partition_nodes = graph_optimizer.optimize(partition_nodes, self._pass_context)
            executors.append(new_executor(partition_nodes, device, self._node_states,
                                          self.thread_pool,
                                          self.config.experimental.executor_type))
            graphs.append(graph_def_lib.GraphDef(partition_nodes))
        return ExecutorsAndKeys(executors, graphs, len(fetches))

    # --- lifetime ----------------------------------------------------------------
    def close(self):
        if not self.closed:
            self.closed = True
            if self.thread_pool is not None:
                self.thread_pool.shutdown()
            if self._blas_limits is not None:
                self._blas_limits.restore_original_limits()
            _live_sessions.discard(self)

    def reset_containers(self, containers=None):
        self.device_mgr.clear_containers(containers)


def _print_device_mapping(device_mgr):
    """What TF prints when a session with `log_device_placement` starts."""
    mapping = device_mgr.device_mapping_string()
    if mapping:
        print("Device mapping:\n%s" % mapping, end="")
    else:
        print("Device mapping: no known devices.")


def _limit_blas_threads(intra_op_parallelism_threads):
    """Limits NumPy's BLAS to that many threads, when threadpoolctl is there to do it.

    TensorFlow sizes the thread pool that one kernel splits its work over.
    minitf's kernels are NumPy calls, and only NumPy's BLAS (matmul and
    friends) uses several threads, so the setting can only go there; the
    optional `threadpoolctl` package knows how. Without it the value is
    recorded in the config and has no effect. The limit holds for the whole
    process (there is one BLAS) until the session is closed.
    Returns the limiter to undo on close, or None.
    """
    if intra_op_parallelism_threads <= 0:
        return None
    try:
        import threadpoolctl  # noqa: PLC0415 - optional, not a dependency of minitf
    except ImportError:
        return None
    return threadpoolctl.threadpool_limits(limits=intra_op_parallelism_threads,
                                           user_api="blas")


class DirectSessionFactory(session_factory.SessionFactory):
    """Serves the targets of this process: `""` and `"local..."`."""

    accepted_targets = '"" or "local..."'

    def accepts(self, target):
        return not target or target.startswith("local")

    def new_session(self, target, config):
        return DirectSession(config)

    def reset(self, target, containers, config):
        """`Session.reset('', containers)`: clears those containers in every local session."""
        for session in list(_live_sessions):
            session.reset_containers(containers)


session_factory.register("DIRECT_SESSION", DirectSessionFactory())
