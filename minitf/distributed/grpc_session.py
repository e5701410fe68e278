"""GrpcSession: the runtime behind `tf.Session("grpc://host:port")`.

The client's `tf.Session` does not change: it flattens fetches, checks
feeds and sends new nodes as before, and hands the rest to its runtime,
here a GrpcSession, which talks to the master of the target's task:

- the first graph the client sends creates the master's session
  (CreateSession); later nodes extend it (ExtendSession), with the graph
  version the master returned last;
- a run is one RunStep: the feeds as named TensorProtos, the names of the
  fetches and targets, the RunOptions; the answer brings the fetched
  values, and the step stats and partition graphs when asked for. The
  deadline is the run's `timeout_in_ms`, or the config's
  `operation_timeout_in_ms`;
- `list_devices()` lists the devices of every task (a session with no
  graph yet is created with an empty one, as TensorFlow does);
- `close()` closes the master's session (CloseSession), and
  `tf.Session.reset(target, containers)` asks the master to clear those
  containers on every worker (Reset).

When the target's server runs in this very process, the calls go to its
master directly instead of through gRPC, as TensorFlow's LocalMaster does,
unless `ConfigProto(rpc_options=RPCOptions(use_rpc_for_inprocess_master=True))`
asks for the round trip.

Mirrors `tensorflow/core/distributed_runtime/rpc/grpc_session.cc`,
`grpc_remote_master.cc` and `local_master.cc`.
"""

import logging

from minitf.distributed import grpc_server
from minitf.distributed import grpc_util
from minitf.distributed import messages
from minitf.distributed import tensor_coding
from minitf.executor.step_stats import StepStats
from minitf.graph import graph_def as graph_def_lib
from minitf.graph import graph_def_proto
from minitf.proto import master_pb2
from minitf.proto import master_service_pb2

_SERVICE = master_service_pb2.DESCRIPTOR.services_by_name["MasterService"]
_logger = logging.getLogger("minitf")

# A RunStep's own call waits this much longer than the step's deadline, so
# that the master, which enforces the deadline, answers first.
_DEADLINE_GRACE_SECS = 5.0


class GrpcSession:
    """A client session's runtime on a master (see the module docstring)."""

    def __init__(self, target, config):
        self._target = target
        self._config = config
        self._config_proto = messages.config_to_proto(config)
        self._master = master_for(target, config)
        self._handle = None
        self._graph_version = 0
        self.closed = False

    # --- the graph ------------------------------------------------------------
    def extend(self, graph_def):
        """Creates the master's session with the first nodes, then extends it."""
        if self._handle is None:
            self._create(graph_def)
            return
        response = self._master.call("ExtendSession", master_pb2.ExtendSessionRequest(
            session_handle=self._handle, current_graph_version=self._graph_version,
            graph_def=graph_def_proto.graph_def_to_proto(graph_def)))
        self._graph_version = response.new_graph_version

    def reset_graph(self, graph_def):
        """The whole graph again (after edits of sent nodes): a new session on the master."""
        self._close_master_session()
        self._create(graph_def)

    def _create(self, graph_def):
        response = self._master.call("CreateSession", master_pb2.CreateSessionRequest(
            graph_def=graph_def_proto.graph_def_to_proto(graph_def),
            config=self._config_proto, target=self._target))
        self._handle = response.session_handle
        self._graph_version = response.graph_version

    def _ensure_created(self):
        if self._handle is None:
            self._create(graph_def_lib.GraphDef())

    def list_devices(self):
        """The DeviceAttributes of every device of every task, the master's own first."""
        if self._handle is None:
            _logger.warning("GrpcSession::ListDevices will initialize the session with an "
                            "empty graph and other defaults because the session has not yet "
                            "been created.")
        self._ensure_created()
        response = self._master.call("ListDevices",
                                     master_pb2.ListDevicesRequest(session_handle=self._handle))
        return list(response.local_device) + list(response.remote_device)

    # --- running ---------------------------------------------------------------
    def run(self, feeds, fetches, targets, options=None, run_metadata=None):
        """One RunStep; returns the fetched values in the order of `fetches`."""
        if self.closed:
            raise RuntimeError("Attempted to use a closed Session.")
        self._ensure_created()
        request = master_pb2.RunStepRequest(
            session_handle=self._handle, fetch=fetches, target=targets,
            store_errors_in_response_body=True,
            feed=[tensor_coding.named_tensor(name, value) for name, value in feeds.items()])
        timeout_ms = self._config.operation_timeout_in_ms
        if options is not None:
            request.options.CopyFrom(messages.run_options_to_proto(options))
            timeout_ms = options.timeout_in_ms or timeout_ms
        timeout = timeout_ms / 1000.0 + _DEADLINE_GRACE_SECS if timeout_ms > 0 else None
        response = self._master.call("RunStep", request, timeout)
        if response.status_code:
            raise messages.error_from_status(response.status_code,
                                             response.status_error_message)
        values = tensor_coding.named_values(response.tensor, "fetch")
        if run_metadata is not None:
            _fill_run_metadata(run_metadata, response.metadata)
        return [values[name] for name in fetches]

    # --- lifetime ----------------------------------------------------------------
    def close(self):
        if not self.closed:
            self.closed = True
            self._close_master_session()

    def _close_master_session(self):
        handle, self._handle = self._handle, None
        if handle is not None:
            self._master.call("CloseSession",
                              master_pb2.CloseSessionRequest(session_handle=handle))


def _fill_run_metadata(run_metadata, proto):
    run_metadata.step_stats = StepStats()
    run_metadata.step_stats.add(messages.step_stats_from_proto(proto.step_stats))
    run_metadata.partition_graphs = [graph_def_proto.graph_def_from_proto(g)
                                     for g in proto.partition_graphs]


def reset(target, containers, config):
    """`tf.Session.reset(target, containers)`: a Reset on the target's master."""
    master_for(target, config).call("Reset", master_pb2.ResetRequest(
        container=list(containers or [])))


# =============================================================================
# The master, in this process or over gRPC
# =============================================================================

def master_for(target, config):
    """The target's master: in-process when its server runs here, over gRPC otherwise."""
    force_rpc = config is not None and config.rpc_options.use_rpc_for_inprocess_master
    master = None if force_rpc else grpc_server.local_master(target)
    if master is not None:
        return LocalMaster(master)
    return GrpcRemoteMaster(target)


class LocalMaster:
    """A master of this process, called directly with the same messages."""

    _METHODS = {"CreateSession": "create_session", "ExtendSession": "extend_session",
                "RunStep": "run_step", "CloseSession": "close_session",
                "ListDevices": "list_devices", "Reset": "reset"}

    def __init__(self, master):
        self._master = master

    def call(self, method, request, timeout=None):
        del timeout  # the master itself bounds the step
        return getattr(self._master, self._METHODS[method])(request)


class GrpcRemoteMaster:
    """A master reached over gRPC at a `grpc://host:port` target."""

    def __init__(self, target):
        self._target = target
        self._channel = grpc_util.new_channel(target[len("grpc://"):])
        self._methods = grpc_util.stub_methods(self._channel, _SERVICE)

    def call(self, method, request, timeout=None):
        try:
            return self._methods[method](request, timeout=timeout)
        except Exception as e:  # noqa: BLE001 - grpc.RpcError, as the OpError it stands for
            if grpc_util.is_rpc_error(e):
                raise grpc_util.error_from_rpc(e, "the master at %s" % self._target) from None
            raise

    def __del__(self):
        try:
            self._channel.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
