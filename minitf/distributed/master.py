"""Master: the service a client's session talks to, and the sessions it keeps.

Every server of a cluster runs a master beside its worker; the task named
by a client's target (`grpc://host:port`) is the one whose master runs the
client's session. The master keeps its sessions by handle, an unguessable
string it hands out at CreateSession; any other handle is refused with
AbortedError, as TensorFlow refuses a session it does not know (the master
may have restarted).

- CreateSession asks every task of the cluster (or those that
  `ConfigProto.device_filters` allow, and always its own) for its devices
  (GetStatus), waiting for a task that is not up yet up to
  `operation_timeout_in_ms`, or `CREATE_SESSION_TIMEOUT_SECS` when the
  config sets none. The session's devices are the master's own first (its
  CPU:0 is the client device, and a node with no device request goes
  there), then the other tasks', in the order of their names.
- ExtendSession, RunStep and CloseSession go to the MasterSession
  (`master_session.py`); ListDevices lists every device of every task.
- Reset clears resource containers on every worker (CleanupAll) and closes
  every session of the master.

The methods take and return the messages of `minitf/proto/master.proto`
and raise OpErrors: the gRPC service (`grpc_services.py`) and the
in-process path of a client in the same process (`grpc_session.py`) both
call them.

Mirrors `tensorflow/core/distributed_runtime/master.cc` (Master,
DeviceFinder) and `remote_device.cc`.
"""

import concurrent.futures
import secrets
import threading

from minitf.distributed.master_session import MasterSession
from minitf.graph import errors
from minitf.graph import graph_def_proto
from minitf.graph.device_spec import DeviceSpec
from minitf.proto import master_pb2

# How long CreateSession waits for a task that does not answer (yet), when
# the session's config sets no operation timeout.
CREATE_SESSION_TIMEOUT_SECS = 60.0


class RemoteDevice:
    """A device of some task, as the placer sees it: name, type, spec, incarnation."""

    def __init__(self, attributes):
        self.attributes = attributes
        self.name = attributes.name
        self.device_type = attributes.device_type
        self.incarnation = attributes.incarnation
        self.spec = DeviceSpec.from_string(attributes.name)

    def __repr__(self):
        return "<RemoteDevice %s>" % self.name


class Master:
    """The master of one server (see the module docstring)."""

    def __init__(self, local_worker, worker_cache):
        self._local_worker = local_worker
        self._worker_cache = worker_cache
        self._sessions = {}
        self._lock = threading.Lock()

    @property
    def task_name(self):
        return self._local_worker.task_name

    def create_session(self, request):
        graph_def = _graph_def(request.graph_def)
        config = request.config
        devices = self._find_devices(config)
        session = MasterSession(secrets.token_hex(8), config, devices, self._worker_cache)
        version = session.create(graph_def)
        with self._lock:
            self._sessions[session.handle] = session
        return master_pb2.CreateSessionResponse(session_handle=session.handle,
                                                graph_version=version)

    def extend_session(self, request):
        session = self._find_session(request.session_handle)
        version = session.extend(_graph_def(request.graph_def), request.current_graph_version)
        return master_pb2.ExtendSessionResponse(new_graph_version=version)

    def run_step(self, request):
        if request.partial_run_handle:
            raise errors.UnimplementedError(None, None, "minitf has no partial runs")
        return self._find_session(request.session_handle).run(request)

    def close_session(self, request):
        with self._lock:
            session = self._sessions.pop(request.session_handle, None)
        if session is None:
            raise errors.AbortedError(None, None, "Session %s is not found. Possibly, this "
                                      "master has restarted." % request.session_handle)
        session.close()
        return master_pb2.CloseSessionResponse()

    def list_devices(self, request):
        if request.session_handle:
            with self._lock:
                session = self._sessions.get(request.session_handle)
            if session is None:
                raise errors.InvalidArgumentError(
                    None, None, "Session %s is not found. Possibly, this master has "
                    "restarted." % request.session_handle)
            local, remote = session.list_devices()
        else:
            devices = self._find_devices(None)
            local = [d.attributes for d in devices if self._is_local(d)]
            remote = [d.attributes for d in devices if not self._is_local(d)]
        return master_pb2.ListDevicesResponse(local_device=local, remote_device=remote)

    def reset(self, request):
        """Clears the containers on every worker (failures skipped), closes every session."""
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for name in self._targets(list(request.device_filters)):
            try:
                self._worker_cache.get(name).cleanup_all(list(request.container))
            except errors.OpError:
                pass  # a worker that is gone has no containers left to clear
        for session in sessions:
            session.close()
        return master_pb2.ResetResponse()

    def _find_session(self, handle):
        with self._lock:
            session = self._sessions.get(handle)
        if session is None:
            raise errors.AbortedError(None, None, "Session %s is not found." % handle)
        return session

    # --- devices (DeviceFinder) -----------------------------------------------------
    def _is_local(self, device):
        return device.name.startswith(self.task_name + "/")

    def _targets(self, device_filters):
        """The tasks a session uses: those the filters allow, and the master's own."""
        filters = [DeviceSpec.from_string(f) for f in device_filters]
        return [name for name in self._worker_cache.list_workers()
                if name == self.task_name or not filters
                or any(f.is_compatible_with(name) for f in filters)]

    def _find_devices(self, config):
        """Every device of the session's tasks: the master's own first, then by task name."""
        filters = list(config.device_filters) if config is not None else []
        timeout_ms = config.operation_timeout_in_ms if config is not None else 0
        timeout = timeout_ms / 1000.0 if timeout_ms > 0 else CREATE_SESSION_TIMEOUT_SECS
        targets = [t for t in self._targets(filters) if t != self.task_name]
        attributes = list(self._local_worker.get_status())
        if targets:
            with concurrent.futures.ThreadPoolExecutor(len(targets)) as pool:
                answers = [pool.submit(self._status_of, t, timeout) for t in targets]
                for answer in answers:
                    attributes.extend(answer.result())
        devices = [RemoteDevice(a) for a in attributes]
        filters = [DeviceSpec.from_string(f) for f in filters]
        return [d for d in devices if self._is_local(d) or not filters
                or any(f.is_compatible_with(d.spec) for f in filters)]

    def _status_of(self, task, timeout):
        """GetStatus of `task`, waiting for it up to `timeout`; UnavailableError after that."""
        try:
            return self._worker_cache.get(task).get_status(timeout)
        except errors.DeadlineExceededError:
            raise errors.UnavailableError(
                None, None, "CreateSession: %s did not answer within %g s; is it running?"
                % (task, timeout)) from None


def _graph_def(proto):
    """A GraphDef message as minitf's GraphDef; InvalidArgumentError when it is not one."""
    try:
        return graph_def_proto.graph_def_from_proto(proto)
    except (ValueError, TypeError, KeyError) as e:
        raise errors.InvalidArgumentError(None, None, "Malformed GraphDef: %s" % e) from None

