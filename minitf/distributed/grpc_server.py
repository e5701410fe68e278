"""GrpcServer: one task of a cluster, its worker and its master, behind one gRPC port.

Built from a ServerDef (the cluster, the job and task it serves, the
default session config):

1. the task's devices, named `/job:<job>/replica:0/task:<index>/device:...`,
   as many CPUs as the config's `device_count` asks for, and its GPUs;
2. the worker (`worker.py`) with its rendezvous manager and thread pool,
   the cache that reaches the cluster's other tasks, and the master;
3. a gRPC server serving both services (`grpc_services.py`), bound to the
   address the cluster gives this task, and to nothing else: a server for
   `127.0.0.1:2222` is not reachable from another machine, and port 0
   means a free port the system picks.

`start()` begins serving and makes the master findable by its target
(`grpc://host:port`) in this process, so that a session of this process
calls it directly, without a round trip through gRPC (TensorFlow's
LocalMaster); `join()` waits until the server stops.

Mirrors `tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc`.
"""

import concurrent.futures
import threading

import grpc

from minitf.device.device import DeviceMgr, local_devices
from minitf.distributed.cluster_spec import ClusterSpec
from minitf.distributed import grpc_services
from minitf.distributed import grpc_util
from minitf.distributed.grpc_remote_worker import WorkerCache, task_name
from minitf.distributed.master import Master
from minitf.distributed.worker import Worker, WorkerEnv
from minitf.executor.thread_pool import ThreadPool, default_num_threads
from minitf.graph import errors

# Threads serving calls at once. A RunGraph and a RecvTensor each hold one while they wait.
_SERVER_THREADS = 64

_local_masters = {}  # target -> Master of a server started in this process
_local_masters_lock = threading.Lock()


def local_master(target):
    """The master of a server of this process whose target is `target`, or None."""
    with _local_masters_lock:
        return _local_masters.get(target)


class GrpcServer:
    """A running task of a cluster (see the module docstring)."""

    def __init__(self, server_def):
        if server_def.protocol != "grpc":
            raise errors.NotFoundError(
                None, None, "No server factory registered for the given ServerDef: protocol "
                "%r. The available server factories are: [ GRPC_SERVER ]"
                % server_def.protocol)
        cluster = ClusterSpec(server_def.cluster)
        job, index = server_def.job_name, server_def.task_index
        address = _task_address(cluster, job, index)
        host, port = _split_address(address, job, index)
        if server_def.port:
            port = server_def.port
        config = server_def.default_session_config
        self.task_name = task_name(job, index)
        devices = local_devices(dict(config.device_count), job_prefix=self.task_name)
        env = WorkerEnv(self.task_name, DeviceMgr(devices),
                        config.inter_op_parallelism_threads or default_num_threads())
        self.worker = Worker(env)
        env.worker_cache = WorkerCache(cluster, self.worker)
        self.master = Master(self.worker, env.worker_cache)
        self._grpc_server = grpc.server(_DaemonThreads(_SERVER_THREADS, "minitf_grpc"),
                                        options=grpc_util.SERVER_OPTIONS)
        grpc_services.add_services(self._grpc_server, self.master, self.worker)
        try:
            bound_port = self._grpc_server.add_insecure_port("%s:%s" % (host, port))
        except RuntimeError:
            bound_port = 0
        if not bound_port:
            raise errors.UnknownError(None, None, "Could not start gRPC server: cannot bind "
                                      "%s:%s for %s" % (host, port, self.task_name))
        self.target = "grpc://%s:%d" % (host, bound_port)
        self._started = False
        self._stopped = threading.Event()

    def start(self):
        if self._started:
            return
        self._started = True
        self._grpc_server.start()
        with _local_masters_lock:
            _local_masters[self.target] = self.master

    def join(self):
        """Blocks until the server stops."""
        self._stopped.wait()

    def stop(self, grace=None):
        """Stops serving; calls in flight are cancelled after `grace` seconds."""
        with _local_masters_lock:
            if _local_masters.get(self.target) is self.master:
                del _local_masters[self.target]
        self._grpc_server.stop(grace).wait()
        self.worker.env.worker_cache.close()
        self._stopped.set()


class _DaemonThreads(concurrent.futures.Executor):
    """The threads that serve calls: daemon threads (minitf's ThreadPool).

    A call may wait for long (a RunGraph for its step, a RecvTensor for a
    tensor that a dead task will never send); the threads of a
    `ThreadPoolExecutor` would keep the process from exiting until it ends.
    """

    def __init__(self, max_workers, name):
        self._pool = ThreadPool(max_workers, name=name)

    def submit(self, fn, *args, **kwargs):
        future = concurrent.futures.Future()

        def run():
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as e:  # noqa: BLE001 - handed to whoever waits on the future
                future.set_exception(e)

        self._pool.schedule(run)
        return future

    def shutdown(self, wait=True, *, cancel_futures=False):
        self._pool.shutdown()


def _task_address(cluster, job, index):
    try:
        return cluster.task_address(job, index)
    except ValueError as e:
        raise errors.InvalidArgumentError(
            None, None, "Could not start a server for job %r, task %d: %s"
            % (job, index, e.args[0])) from None


def _split_address(address, job, index):
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit():
        raise errors.InvalidArgumentError(
            None, None, "Could not start a server for /job:%s/task:%d: its address %r is not "
            "host:port" % (job, index, address))
    return host, int(port)
