"""The session factory of the distributed runtime: `tf.Session("grpc://...")` finds it here.

Importing this module registers "GRPC_SESSION" with
`minitf/session/session_factory.py`, for every target that starts with
`grpc://`. The registration costs nothing: gRPC and protobuf are loaded
only when such a session (or a `Session.reset` of such a target) is made,
so `import minitf` still needs NumPy alone.

Mirrors the `GrpcSessionFactory` of
`tensorflow/core/distributed_runtime/rpc/grpc_session.cc`.
"""

from minitf.session import session_factory


class GrpcSessionFactory(session_factory.SessionFactory):
    """Serves the targets of masters: `"grpc://host:port"`."""

    accepted_targets = '"grpc://..."'

    def accepts(self, target):
        return target.startswith("grpc://")

    def new_session(self, target, config):
        from minitf.distributed import grpc_session  # noqa: PLC0415 - grpcio is loaded only when used
        return grpc_session.GrpcSession(target, config)

    def reset(self, target, containers, config):
        from minitf.distributed import grpc_session  # noqa: PLC0415 - grpcio is loaded only when used
        grpc_session.reset(target, containers, config)


session_factory.register("GRPC_SESSION", GrpcSessionFactory())
