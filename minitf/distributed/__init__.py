"""The Distributed chapter: clusters, servers, masters and workers over gRPC.

`tf.train.ClusterSpec` describes a cluster, `tf.train.Server` starts one
of its tasks in this process, and `tf.Session(server.target)` runs a
client's graph over all of them: the master places and partitions it,
each worker runs its share, and tensors travel worker to worker.

Importing the package registers the `grpc://` session factory; gRPC and
protobuf are loaded only when a server or a session of a cluster is made.

Mirrors `tensorflow/core/distributed_runtime/` and
`tensorflow/python/training/server_lib.py`.
"""

from minitf.distributed import grpc_session_factory  # noqa: F401  registers GRPC_SESSION
from minitf.distributed.server_lib import ClusterSpec, Server  # noqa: F401
