"""gRPC glue: channels, services built from their .proto, and errors as statuses.

The services and their messages are declared once, in
`minitf/proto/master_service.proto` and `worker_service.proto`. The server
and the client stubs are built here from those declarations (the
descriptors protoc generated), method by method, so the method names on
the wire are TensorFlow's (`/tensorflow.WorkerService/RunGraph`) and every
request is parsed by protobuf as the message the .proto names. One method
may bring its own codec: RecvTensor's responses are encoded and decoded by
`tensor_coding.py`, around the tensor's own bytes.

A request that protobuf cannot parse never reaches the service: gRPC
answers it with an error status and the server goes on serving. An error
the service raises becomes a status with TensorFlow's code and message
(both numberings are gRPC's); the caller raises it again as the error
class of that code.

Channels and servers allow messages of any size (gRPC's default limit is
4 MB), retry a connection that failed quickly (a restarted worker is
found again in a second or so), and send keepalive pings, so that a peer
that stopped answering is noticed even by a call without a deadline.

Mirrors `tensorflow/core/distributed_runtime/rpc/grpc_util.cc` (FromGrpcStatus,
ToGrpcStatus), `grpc_channel.cc` (channel arguments) and the method tables of
`grpc_master_service_impl.cc` and `grpc_worker_service_impl.cc`.
"""

import grpc
from google.protobuf import message_factory

from minitf.distributed import messages
from minitf.graph import errors

CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", -1),
    ("grpc.max_receive_message_length", -1),
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.keepalive_time_ms", 10000),
    ("grpc.keepalive_timeout_ms", 10000),
    ("grpc.enable_retries", 0),
]

SERVER_OPTIONS = [
    ("grpc.max_send_message_length", -1),
    ("grpc.max_receive_message_length", -1),
    ("grpc.so_reuseport", 0),  # a port belongs to one server: a second bind fails
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5000),
    ("grpc.http2.max_pings_without_data", 0),
]

_STATUS_CODES = {code.value[0]: code for code in grpc.StatusCode}


# =============================================================================
# Services from their descriptors
# =============================================================================

def service_handler(service_descriptor, servicer, serializers=None):
    """A gRPC handler that serves every method of `service_descriptor` with `servicer`.

    `servicer.<Method>(request, context)` answers each; `serializers` maps a
    method name to its own response serializer.
    """
    serializers = serializers or {}
    handlers = {}
    for method in service_descriptor.methods:
        request_class = _message_class(method.input_type)
        response_class = _message_class(method.output_type)
        make = (grpc.unary_stream_rpc_method_handler if method.server_streaming
                else grpc.unary_unary_rpc_method_handler)
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=request_class.FromString,
            response_serializer=serializers.get(method.name, response_class.SerializeToString))
    return grpc.method_handlers_generic_handler(service_descriptor.full_name, handlers)


def stub_methods(channel, service_descriptor, deserializers=None):
    """{method name: gRPC multi-callable} of `service_descriptor` on `channel`."""
    deserializers = deserializers or {}
    methods = {}
    for method in service_descriptor.methods:
        path = "/%s/%s" % (service_descriptor.full_name, method.name)
        make = channel.unary_stream if method.server_streaming else channel.unary_unary
        methods[method.name] = make(
            path, request_serializer=_message_class(method.input_type).SerializeToString,
            response_deserializer=deserializers.get(
                method.name, _message_class(method.output_type).FromString))
    return methods


def _message_class(descriptor):
    return message_factory.GetMessageClass(descriptor)


def new_channel(address):
    return grpc.insecure_channel(address, options=CHANNEL_OPTIONS)


# =============================================================================
# Errors <-> statuses
# =============================================================================

def abort_with(context, error):
    """Ends the call with `error` as its status (never returns)."""
    code, message = messages.error_status(error)
    context.abort(_STATUS_CODES.get(code, grpc.StatusCode.UNKNOWN), message)


def error_from_rpc(rpc_error, task):
    """A failed call (grpc.RpcError) as the OpError of its status, naming the task called."""
    code = rpc_error.code() if hasattr(rpc_error, "code") else grpc.StatusCode.UNKNOWN
    details = rpc_error.details() if hasattr(rpc_error, "details") else str(rpc_error)
    error = messages.error_from_status(code.value[0], details or code.name)
    return messages.prefixed(error, task)


def is_rpc_error(exception):
    return isinstance(exception, grpc.RpcError)


def is_cancelled_call(exception):
    """Whether `exception` is what a call's future raises once the call was cancelled."""
    return isinstance(exception, grpc.FutureCancelledError)


def serve_errors(method):
    """Decorates a servicer method: an exception becomes the call's status."""

    def serve(self, request, context):
        try:
            return method(self, request, context)
        except errors.OpError as e:
            abort_with(context, e)
        except Exception as e:  # noqa: BLE001 - a malformed request must not kill the server
            abort_with(context, errors.InternalError(
                None, None, "%s: %s: %s" % (method.__name__, type(e).__name__, e)))

    serve.__name__ = method.__name__
    serve.__doc__ = method.__doc__
    return serve
