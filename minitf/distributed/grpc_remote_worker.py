"""The workers of other tasks, reached over gRPC, and the cache that finds them.

`GrpcRemoteWorker` has the methods of `worker.Worker`, and makes each a
call of `tensorflow.WorkerService` on the task's address: a master calls
it to register and run graphs, a worker's rendezvous to pull a tensor
(RecvTensor). Python values become messages here and messages values:
graphs as GraphDefs, tensors as TensorProtos, a failed call as the OpError
of its status, its message starting `From /job:.../task:N:` so that it
names the task that failed or could not be reached.

- RunGraph is asynchronous: the master starts one per task and waits for
  all; `cancel()` gives up on one when another failed.
- RecvTensor runs on a thread of the cache's pool (its answer is a stream,
  which only a thread can read) and calls back with the assembled tensor.
- CleanupGraph is sent and not waited for.
- GetStatus, with `wait_for_ready`, waits for a task that is not up yet
  (or restarting) until its timeout.

`WorkerCache` maps task names (`/job:ps/replica:0/task:0`) to workers: the
in-process `Worker` for the server's own task, a `GrpcRemoteWorker` (one
channel, made once) for every other task of the cluster.

Mirrors `tensorflow/core/distributed_runtime/rpc/grpc_remote_worker.cc` and
`grpc_worker_cache.cc`.
"""

import threading
import time

from minitf.distributed import grpc_util
from minitf.distributed import messages
from minitf.distributed import tensor_coding
from minitf.distributed.graph_mgr import RunGraphResult
from minitf.executor.thread_pool import ThreadPool
from minitf.graph import errors
from minitf.graph import graph_def_proto
from minitf.proto import worker_pb2
from minitf.proto import worker_service_pb2

_SERVICE = worker_service_pb2.DESCRIPTOR.services_by_name["WorkerService"]

# Threads that read RecvTensor streams, per process: one per transfer in flight.
_RECV_THREADS = 64


def timeout_until(deadline):
    """Seconds left until a `time.monotonic()` deadline (a little at least); None without one."""
    if deadline is None:
        return None
    return max(0.001, deadline - time.monotonic())


class GrpcRemoteWorker:
    """The WorkerService of another task (see the module docstring)."""

    is_local = False

    def __init__(self, task_name, address, recv_pool):
        self.task_name = task_name
        self.address = address
        self._channel = grpc_util.new_channel(address)
        self._methods = grpc_util.stub_methods(
            self._channel, _SERVICE,
            {"RecvTensor": tensor_coding.parse_recv_tensor_response})
        self._recv_pool = recv_pool

    def _call(self, method, request, timeout=None, wait_for_ready=False):
        try:
            return self._methods[method](request, timeout=timeout,
                                         wait_for_ready=wait_for_ready)
        except Exception as e:  # noqa: BLE001 - grpc.RpcError, as the OpError it stands for
            raise self.error(e) from None

    def error(self, exception):
        """An exception of a call to this worker as an OpError that names the task."""
        if grpc_util.is_rpc_error(exception):
            return grpc_util.error_from_rpc(exception, self.task_name)
        if grpc_util.is_cancelled_call(exception):  # the step failed elsewhere: we gave up
            return errors.CancelledError(None, None, "From %s:\nthe call was cancelled"
                                         % self.task_name)
        if isinstance(exception, errors.OpError):
            return messages.prefixed(exception, self.task_name)
        return errors.InternalError(None, None, "From %s:\n%s: %s" % (
            self.task_name, type(exception).__name__, exception))

    # --- the methods of worker.Worker --------------------------------------------
    def get_status(self, timeout=None):
        response = self._call("GetStatus", worker_pb2.GetStatusRequest(), timeout,
                              wait_for_ready=True)
        return list(response.device_attributes)

    def register_graph(self, session_handle, graph_def, graph_options):
        request = worker_pb2.RegisterGraphRequest(
            session_handle=session_handle,
            graph_def=graph_def_proto.graph_def_to_proto(graph_def))
        request.graph_options.CopyFrom(graph_options)
        return self._call("RegisterGraph", request).graph_handle

    def deregister_graph(self, session_handle, graph_handle):
        self._call("DeregisterGraph", worker_pb2.DeregisterGraphRequest(
            session_handle=session_handle, graph_handle=graph_handle), timeout=10)

    def run_graph_async(self, call, done):
        """Starts a RunGraph; `done(result, error)` when it ends. Returns what `cancel()`s it."""
        request = worker_pb2.RunGraphRequest(
            session_handle=call.session_handle, graph_handle=call.graph_handle,
            step_id=call.step_id, recv_key=call.recv_keys,
            store_errors_in_response_body=True,
            send=[tensor_coding.named_tensor(key, value) for key, value in call.sends.items()])
        request.exec_opts.record_timeline = call.record_timeline
        request.exec_opts.record_partition_graphs = call.record_partition_graphs
        future = self._methods["RunGraph"].future(request,
                                                  timeout=timeout_until(call.deadline))

        def finished(future):
            try:
                result, error = self._run_graph_result(future.result()), None
            except Exception as e:  # noqa: BLE001 - reported to the master, not raised here
                result, error = None, self.error(e)
            done(result, error)

        future.add_done_callback(finished)
        return future

    def _run_graph_result(self, response):
        if response.status_code:
            raise messages.error_from_status(response.status_code,
                                             response.status_error_message)
        return RunGraphResult(
            tensor_coding.named_values(response.recv, "RunGraph recv"),
            messages.step_stats_from_proto(response.step_stats),
            [graph_def_proto.graph_def_from_proto(g) for g in response.partition_graph])

    def cleanup_graph(self, step_id):
        """Sent, not waited for: a worker that is gone has nothing left to clean."""
        self._methods["CleanupGraph"].future(worker_pb2.CleanupGraphRequest(step_id=step_id),
                                             timeout=10)

    def cleanup_all(self, containers):
        self._call("CleanupAll", worker_pb2.CleanupAllRequest(container=list(containers)),
                   timeout=10)

    def recv_tensor_async(self, step_id, rendezvous_key, deadline, done):
        """Pulls one tensor; `done(error, value, is_dead)`. Returns what `cancel()`s it."""
        transfer = _RecvTensorCall(self, step_id, rendezvous_key, deadline, done)
        self._recv_pool.schedule(transfer.run)
        return transfer

    def open_recv_stream(self, request, deadline):
        """The stream of RecvTensorResponses (parsed) for one RecvTensorRequest."""
        return self._methods["RecvTensor"](request, timeout=timeout_until(deadline))

    def close(self):
        self._channel.close()


class _RecvTensorCall:
    """One RecvTensor: read the stream on a pool thread, assemble, call back once."""

    def __init__(self, worker, step_id, rendezvous_key, deadline, done):
        self._worker = worker
        self._request = worker_pb2.RecvTensorRequest(step_id=step_id,
                                                     rendezvous_key=rendezvous_key)
        self._key = rendezvous_key
        self._deadline = deadline
        self._done = done
        self._lock = threading.Lock()
        self._stream = None
        self._cancelled = False

    def run(self):
        with self._lock:
            if not self._cancelled:
                self._stream = self._worker.open_recv_stream(self._request, self._deadline)
        if self._stream is None:
            self._done(errors.CancelledError(None, None, "RecvTensor cancelled"), None, False)
            return
        assembler = tensor_coding.RecvTensorAssembler(self._key)
        try:
            for parsed in self._stream:
                assembler.add(parsed)
            value = assembler.result()
        except Exception as e:  # noqa: BLE001 - reported through the rendezvous
            self._done(self._worker.error(e), None, False)
            return
        self._done(None, value, assembler.is_dead)

    def cancel(self):
        with self._lock:
            self._cancelled = True
            stream = self._stream
        if stream is not None:
            stream.cancel()


class WorkerCache:
    """Task name -> worker: the local one in-process, the others over gRPC."""

    def __init__(self, cluster_spec, local_worker):
        self._addresses = {}
        for job in cluster_spec.jobs:
            for index in cluster_spec.task_indices(job):
                self._addresses[task_name(job, index)] = cluster_spec.task_address(job, index)
        self._local = local_worker
        self._workers = {}
        self._lock = threading.Lock()
        self._recv_pool = ThreadPool(_RECV_THREADS, name="minitf_recv_tensor")

    def list_workers(self):
        return sorted(self._addresses)

    def list_workers_in_job(self, job_name):
        return [t for t in self.list_workers() if t.startswith("/job:%s/" % job_name)]

    def get(self, name):
        """The worker of task `name`; NotFoundError for a task the cluster does not have."""
        if name == self._local.task_name:
            return self._local
        with self._lock:
            worker = self._workers.get(name)
            if worker is None:
                if name not in self._addresses:
                    raise errors.NotFoundError(None, None, "Unknown worker: %s (the cluster has "
                                               "%s)" % (name, ", ".join(self.list_workers())))
                worker = GrpcRemoteWorker(name, self._addresses[name], self._recv_pool)
                self._workers[name] = worker
            return worker

    def close(self):
        with self._lock:
            workers, self._workers = list(self._workers.values()), {}
        for worker in workers:
            worker.close()
        self._recv_pool.shutdown()


def task_name(job, task_index):
    return "/job:%s/replica:0/task:%d" % (job, task_index)
