"""What travels between processes: the services' names, tensors as bytes, and bad requests.

The drills send garbage bytes, and well-formed requests that make no
sense, to every method of a running server's two services: each gets an
error status, and the server goes on serving.
"""

import ast
import pathlib

import grpc
import numpy as np
import pytest
from google.protobuf import message_factory

import minitf as tf
from minitf.distributed import tensor_coding
from minitf.graph import graph_def_proto
from minitf.proto import master_pb2, master_service_pb2, worker_pb2, worker_service_pb2

PACKAGE = pathlib.Path(tf.__file__).parent / "distributed"
MASTER = master_service_pb2.DESCRIPTOR.services_by_name["MasterService"]
WORKER = worker_service_pb2.DESCRIPTOR.services_by_name["WorkerService"]


def test_the_services_have_tensorflows_names():
    assert MASTER.full_name == "tensorflow.MasterService"
    assert WORKER.full_name == "tensorflow.WorkerService"
    assert {m.name for m in MASTER.methods} == {
        "CreateSession", "ExtendSession", "RunStep", "CloseSession", "ListDevices", "Reset"}
    assert {m.name for m in WORKER.methods} == {
        "GetStatus", "RegisterGraph", "DeregisterGraph", "RunGraph", "CleanupGraph",
        "CleanupAll", "RecvTensor"}


@pytest.mark.parametrize("message, fields", [
    ("RunStepRequest", {"session_handle": 1, "feed": 2, "fetch": 3, "target": 4, "options": 5,
                        "store_errors_in_response_body": 7}),
    ("RunGraphRequest", {"graph_handle": 1, "step_id": 2, "send": 3, "recv_key": 4,
                         "exec_opts": 5, "session_handle": 8}),
    ("RecvTensorRequest", {"step_id": 1, "rendezvous_key": 2}),
    ("RecvTensorResponse", {"tensor": 1, "is_dead": 2, "send_start_micros": 3}),
    ("ConfigProto", {"device_count": 1, "device_filters": 4, "allow_soft_placement": 7,
                     "graph_options": 10, "operation_timeout_in_ms": 11}),
    ("ServerDef", {"cluster": 1, "job_name": 2, "task_index": 3, "protocol": 5}),
])
def test_messages_keep_tensorflows_field_numbers(message, fields):
    from google.protobuf import descriptor_pool

    from minitf.proto import tensorflow_server_pb2  # noqa: F401  registers ServerDef
    descriptor = descriptor_pool.Default().FindMessageTypeByName("tensorflow." + message)
    assert {f.name: f.number for f in descriptor.fields if f.name in fields} == fields


# =============================================================================
# RecvTensor's stream
# =============================================================================

TENSORS = [np.arange(5000, dtype=np.float32).reshape(50, 100),
           np.arange(-3, 4000, dtype=np.int64), np.zeros((0, 7), np.float64),
           np.array([b"a", b"", b"\x00\xff"], dtype=object), np.array([True, False]),
           np.float32(7.5), np.arange(12, dtype=np.float16).reshape(3, 4)]


@pytest.mark.parametrize("value", TENSORS, ids=lambda v: "%s%s" % (np.asarray(v).dtype,
                                                                   np.shape(v)))
def test_a_tensor_as_a_stream_of_chunks_is_the_tensor_again(value, monkeypatch):
    monkeypatch.setattr(tensor_coding, "CHUNK_BYTES", 1000)
    messages = list(tensor_coding.encode_recv_tensor_response(value))
    assembler = tensor_coding.RecvTensorAssembler("key")
    for message in messages:
        # Hand-encoded, yet exactly what protobuf writes for the same message.
        parsed_by_protobuf = worker_pb2.RecvTensorResponse.FromString(message)
        assert parsed_by_protobuf.SerializeToString() == message
        assembler.add(tensor_coding.parse_recv_tensor_response(message))
    result = assembler.result()
    assert result.dtype == np.asarray(value).dtype and result.shape == np.shape(value)
    np.testing.assert_array_equal(result, value)
    numeric_and_large = np.asarray(value).dtype.kind in "fiu" and np.asarray(value).nbytes > 1000
    assert (len(messages) > 1) == numeric_and_large


def test_the_parser_reads_what_protobuf_writes():
    response = worker_pb2.RecvTensorResponse(
        tensor=tf.make_tensor_proto(np.arange(6, dtype=np.int32).reshape(2, 3)), is_dead=True,
        send_start_micros=12345)
    parsed = tensor_coding.parse_recv_tensor_response(response.SerializeToString())
    assert parsed.is_dead and bytes(parsed.content) == response.tensor.tensor_content
    assert list(parsed.tensor.tensor_shape.dim) == list(response.tensor.tensor_shape.dim)


@pytest.mark.parametrize("data", [b"\x0a\xff\xff\xff\xff\x0f", b"\x0f", b"\x0a\x05\x22\x10"])
def test_malformed_responses_are_data_loss(data):
    with pytest.raises(tf.errors.DataLossError, match="Malformed RecvTensorResponse"):
        tensor_coding.parse_recv_tensor_response(data)


def test_a_stream_that_ends_early_is_data_loss(monkeypatch):
    monkeypatch.setattr(tensor_coding, "CHUNK_BYTES", 100)
    messages = list(tensor_coding.encode_recv_tensor_response(np.zeros(100, np.float32)))
    assembler = tensor_coding.RecvTensorAssembler("edge_1")
    for message in messages[:-1]:
        assembler.add(tensor_coding.parse_recv_tensor_response(message))
    with pytest.raises(tf.errors.DataLossError, match="edge_1: 300 of 400 bytes"):
        assembler.result()


# =============================================================================
# Bad requests to a running server
# =============================================================================

GARBAGE = [b"\x0f", b"\x0a\xff\xff\xff\xff\x0f", b"\x12\x05ab"]  # wire type 7; too long; cut


def _raw_call(channel, service, method, payload):
    """Sends `payload` as the request bytes of one method; its status code (OK or not)."""
    path = "/%s/%s" % (service.full_name, method.name)
    identity = lambda data: data  # noqa: E731
    try:
        if method.server_streaming:
            list(channel.unary_stream(path, request_serializer=identity,
                                      response_deserializer=identity)(payload, timeout=10))
        else:
            channel.unary_unary(path, request_serializer=identity,
                                response_deserializer=identity)(payload, timeout=10)
    except grpc.RpcError as e:
        return e.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize("service", [MASTER, WORKER], ids=lambda s: s.name)
def test_garbage_bytes_to_every_method_get_an_error_and_the_server_keeps_serving(cluster,
                                                                                 service):
    address = cluster.addresses["ps"][0]
    with grpc.insecure_channel(address) as channel:
        for method in service.methods:
            for payload in GARBAGE:
                code = _raw_call(channel, service, method, payload)
                assert code != grpc.StatusCode.OK, (method.name, payload)
    with tf.Session(cluster.target("ps", 0)) as sess:
        assert sess.run(tf.constant(2.0) * 3.0) == 6.0


def _call(channel, service, method_name, request, streaming=False):
    """One call of `service.method_name` with a request message; its response(s)."""
    method = service.methods_by_name[method_name]
    response_class = message_factory.GetMessageClass(method.output_type)
    make = channel.unary_stream if streaming else channel.unary_unary
    call = make("/%s/%s" % (service.full_name, method_name),
                request_serializer=type(request).SerializeToString,
                response_deserializer=response_class.FromString)
    result = call(request, timeout=10)
    return list(result) if streaming else result


def _status(fn):
    try:
        fn()
    except grpc.RpcError as e:
        return e.code(), e.details()
    return grpc.StatusCode.OK, ""


def test_requests_that_make_no_sense_are_refused_with_a_status(cluster):
    with grpc.insecure_channel(cluster.addresses["worker"][1]) as channel:
        def master(method, request):
            return _status(lambda: _call(channel, MASTER, method, request))

        def worker(method, request, streaming=False):
            return _status(lambda: _call(channel, WORKER, method, request, streaming))

        # Session handles the master never handed out.
        code, details = master("RunStep", master_pb2.RunStepRequest(session_handle="forged"))
        assert code == grpc.StatusCode.ABORTED and "Session forged is not found" in details
        assert master("ExtendSession", master_pb2.ExtendSessionRequest(
            session_handle="forged"))[0] == grpc.StatusCode.ABORTED
        assert master("CloseSession", master_pb2.CloseSessionRequest(
            session_handle="forged"))[0] == grpc.StatusCode.ABORTED
        # A graph handle the worker never handed out.
        code, details = worker("RunGraph", worker_pb2.RunGraphRequest(graph_handle="forged"))
        assert code == grpc.StatusCode.ABORTED and "Graph handle is not found" in details
        assert worker("DeregisterGraph", worker_pb2.DeregisterGraphRequest(
            graph_handle="forged"))[0] == grpc.StatusCode.ABORTED
        # A graph of nonsense: an op nobody registered, a device of another task.
        nonsense = tf.GraphDef([tf.NodeDef("x", "NoSuchOp", [],
                                           "/job:worker/replica:0/task:1/device:CPU:0")])
        code, _ = worker("RegisterGraph", worker_pb2.RegisterGraphRequest(
            graph_def=graph_def_proto.graph_def_to_proto(nonsense)))
        assert code != grpc.StatusCode.OK
        elsewhere = tf.GraphDef([tf.NodeDef("x", "NoOp", [],
                                            "/job:ps/replica:0/task:0/device:CPU:0")])
        code, details = worker("RegisterGraph", worker_pb2.RegisterGraphRequest(
            graph_def=graph_def_proto.graph_def_to_proto(elsewhere)))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "not a device of" in details
        # RecvTensor keys that name no device of this worker, or a past incarnation.
        code, _ = worker("RecvTensor", worker_pb2.RecvTensorRequest(
            step_id=1, rendezvous_key="nonsense"), streaming=True)
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        stale = "/job:worker/replica:0/task:1/device:CPU:0;1;/job:ps/replica:0/task:0/" \
                "device:CPU:0;edge_1_x;0:0"
        code, details = worker("RecvTensor", worker_pb2.RecvTensorRequest(
            step_id=1, rendezvous_key=stale), streaming=True)
        assert code == grpc.StatusCode.ABORTED and "different device incarnation" in details
        # ... and it still serves.
        assert worker("GetStatus", worker_pb2.GetStatusRequest())[0] == grpc.StatusCode.OK


def test_a_graph_handle_is_refused_to_another_session(cluster):
    graph = tf.GraphDef([tf.NodeDef("x", "NoOp", [], "/job:worker/replica:0/task:1/device:CPU:0")])
    with grpc.insecure_channel(cluster.addresses["worker"][1]) as channel:
        registered = _call(channel, WORKER, "RegisterGraph", worker_pb2.RegisterGraphRequest(
            session_handle="session_a", graph_def=graph_def_proto.graph_def_to_proto(graph)))
        handle = registered.graph_handle
        assert len(handle) == 16  # random, not a counter another client could guess
        mine = _call(channel, WORKER, "RunGraph", worker_pb2.RunGraphRequest(
            session_handle="session_a", graph_handle=handle, step_id=7,
            store_errors_in_response_body=True))
        assert mine.status_code == 0
        theirs = _call(channel, WORKER, "RunGraph", worker_pb2.RunGraphRequest(
            session_handle="session_b", graph_handle=handle, step_id=8,
            store_errors_in_response_body=True))
        assert theirs.status_code == tf.errors.ABORTED
        assert "Graph handle is not found" in theirs.status_error_message


# 127.0.0.1 as /proc/net/tcp writes it, and as tcp6 writes it mapped into IPv6.
LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F"}


def test_servers_listen_on_their_own_address_only(cluster):
    tables = [pathlib.Path("/proc/net/tcp"), pathlib.Path("/proc/net/tcp6")]
    if not tables[0].exists():
        pytest.skip("needs Linux's /proc/net/tcp")
    port = int(cluster.addresses["ps"][0].rsplit(":", 1)[1])
    listening = []
    for table in tables:
        for line in table.read_text().splitlines()[1:] if table.exists() else []:
            local, state = line.split()[1], line.split()[3]
            if state == "0A" and int(local.split(":")[1], 16) == port:  # LISTEN on our port
                listening.append(local.split(":")[0])
    assert listening and set(listening) <= LOOPBACK  # 127.0.0.1 only: not 0.0.0.0 or ::


def test_nothing_received_is_unpickled_or_evaluated():
    modules = {"pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle"}
    builtins = {"eval", "exec", "compile", "__import__"}
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not modules & {n.split(".")[0] for n in names}, path.name
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in builtins, "%s calls %s" % (path.name, node.func.id)
