"""The gRPC services of a server: MasterService and WorkerService.

Each method parses nothing itself (gRPC hands it the request message,
which protobuf parsed or refused) and calls the master or the worker of
the server; an OpError becomes the call's status. RunStep and RunGraph
can put the error in the response body instead (TensorFlow's
`store_errors_in_response_body`), which is what minitf's own callers ask
for: a long message survives, and a failed step is an answer, not a
broken call.

Two methods wait. RunGraph runs a step, bounded by the caller's deadline,
and if the caller goes away (the master cancelled the call because
another task failed) the step is aborted. RecvTensor waits for the step
of this worker to send the tensor asked for, then streams it back
(`tensor_coding.py`); it too gives up when its caller goes away.

Mirrors `tensorflow/core/distributed_runtime/rpc/grpc_master_service.cc`
and `grpc_worker_service.cc`.
"""

import threading
import time

from minitf.distributed import grpc_util
from minitf.distributed import messages
from minitf.distributed import tensor_coding
from minitf.distributed.graph_mgr import RunGraphCall
from minitf.graph import errors
from minitf.graph import graph_def_proto
from minitf.proto import master_pb2
from minitf.proto import master_service_pb2
from minitf.proto import worker_pb2
from minitf.proto import worker_service_pb2

MASTER_SERVICE = master_service_pb2.DESCRIPTOR.services_by_name["MasterService"]
WORKER_SERVICE = worker_service_pb2.DESCRIPTOR.services_by_name["WorkerService"]


# gRPC reports a call without a deadline as one with about 300 million years left.
_NO_DEADLINE_SECS = 1e9


def _time_remaining(context):
    """Seconds until the caller's deadline, or None when it set none."""
    remaining = context.time_remaining()
    return None if remaining is None or remaining > _NO_DEADLINE_SECS else remaining


def _deadline(context):
    """The caller's deadline as a `time.monotonic()` time, or None."""
    remaining = _time_remaining(context)
    return None if remaining is None else time.monotonic() + remaining


class MasterServicer:
    """`tensorflow.MasterService`, served by a `master.Master`."""

    def __init__(self, master):
        self._master = master

    @grpc_util.serve_errors
    def CreateSession(self, request, context):  # noqa: N802 - the RPC's name
        return self._master.create_session(request)

    @grpc_util.serve_errors
    def ExtendSession(self, request, context):  # noqa: N802
        return self._master.extend_session(request)

    @grpc_util.serve_errors
    def RunStep(self, request, context):  # noqa: N802
        try:
            return self._master.run_step(request)
        except errors.OpError as e:
            if not request.store_errors_in_response_body:
                raise
            code, message = messages.error_status(e)
            return master_pb2.RunStepResponse(status_code=code, status_error_message=message)

    @grpc_util.serve_errors
    def CloseSession(self, request, context):  # noqa: N802
        return self._master.close_session(request)

    @grpc_util.serve_errors
    def ListDevices(self, request, context):  # noqa: N802
        return self._master.list_devices(request)

    @grpc_util.serve_errors
    def Reset(self, request, context):  # noqa: N802
        return self._master.reset(request)


class WorkerServicer:
    """`tensorflow.WorkerService`, served by a `worker.Worker`."""

    def __init__(self, worker):
        self._worker = worker

    @grpc_util.serve_errors
    def GetStatus(self, request, context):  # noqa: N802
        return worker_pb2.GetStatusResponse(device_attributes=self._worker.get_status())

    @grpc_util.serve_errors
    def RegisterGraph(self, request, context):  # noqa: N802
        try:
            graph_def = graph_def_proto.graph_def_from_proto(request.graph_def)
        except (ValueError, TypeError, KeyError) as e:
            raise errors.InvalidArgumentError(None, None, "Malformed GraphDef: %s" % e) from None
        handle = self._worker.register_graph(request.session_handle, graph_def,
                                             request.graph_options)
        return worker_pb2.RegisterGraphResponse(graph_handle=handle)

    @grpc_util.serve_errors
    def DeregisterGraph(self, request, context):  # noqa: N802
        self._worker.deregister_graph(request.session_handle, request.graph_handle)
        return worker_pb2.DeregisterGraphResponse()

    @grpc_util.serve_errors
    def RunGraph(self, request, context):  # noqa: N802
        try:
            return self._run_graph(request, context)
        except errors.OpError as e:
            if not request.store_errors_in_response_body:
                raise
            code, message = messages.error_status(e)
            return worker_pb2.RunGraphResponse(status_code=code, status_error_message=message)

    def _run_graph(self, request, context):
        call = RunGraphCall(
            request.session_handle, request.graph_handle, request.step_id,
            tensor_coding.named_values(request.send, "RunGraph send"), list(request.recv_key),
            request.exec_opts.record_timeline, request.exec_opts.record_partition_graphs,
            _deadline(context))
        finished = threading.Event()

        def caller_gone():
            if not finished.is_set():
                self._worker.abort_step(call.step_id, errors.CancelledError(
                    None, None, "RunGraph cancelled by its caller"))

        context.add_callback(caller_gone)
        try:
            result = self._worker.run_graph(call)
        finally:
            finished.set()
        response = worker_pb2.RunGraphResponse(
            recv=[tensor_coding.named_tensor(key, value) for key, value in result.recvs.items()],
            partition_graph=[graph_def_proto.graph_def_to_proto(g)
                             for g in result.partition_graphs])
        if call.record_timeline:
            messages.step_stats_to_proto(result.step_stats, response.step_stats)
        return response

    @grpc_util.serve_errors
    def CleanupGraph(self, request, context):  # noqa: N802
        self._worker.cleanup_graph(request.step_id)
        return worker_pb2.CleanupGraphResponse()

    @grpc_util.serve_errors
    def CleanupAll(self, request, context):  # noqa: N802
        self._worker.cleanup_all(list(request.container))
        return worker_pb2.CleanupAllResponse()

    def RecvTensor(self, request, context):  # noqa: N802
        """Waits for the tensor, then streams it: serialized RecvTensorResponses."""
        arrived = threading.Event()
        result = []

        def done(error, value, is_dead):
            result.append((error, value, is_dead))
            arrived.set()

        try:
            self._worker.recv_tensor(request.step_id, request.rendezvous_key, done)
        except errors.OpError as e:
            grpc_util.abort_with(context, e)
        context.add_callback(arrived.set)  # the caller went away: stop waiting
        arrived.wait(_time_remaining(context))
        if not result:
            grpc_util.abort_with(context, errors.DeadlineExceededError(
                None, None, "RecvTensor %s: the tensor did not come" % request.rendezvous_key))
        error, value, is_dead = result[0]
        if error is not None:
            grpc_util.abort_with(context, error)
        yield from tensor_coding.encode_recv_tensor_response(value, is_dead)


def add_services(server, master, worker):
    """Serves the master's and the worker's gRPC services on `server`."""
    server.add_generic_rpc_handlers((
        grpc_util.service_handler(MASTER_SERVICE, MasterServicer(master)),
        grpc_util.service_handler(WORKER_SERVICE, WorkerServicer(worker),
                                  serializers={"RecvTensor": bytes}),
    ))
