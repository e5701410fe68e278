"""RunMetadata as TensorFlow's protocol buffer: a traced step in the bytes TensorBoard reads.

minitf's `RunMetadata` (config.py) is plain Python: the executors' step
stats (`minitf/executor/step_stats.py`) and, when asked, the partition
graphs. A summary writer stores a traced step as the bytes of TensorFlow's
`RunMetadata` message (`FileWriter.add_run_metadata`), which TensorBoard's
graph view reads to colour each node by its compute time. This module makes
that message; the step stats convert as the distributed runtime sends them
(`minitf/distributed/messages.py`), threads numbered per device.

This module imports protobuf: the writer imports it only when a traced step
is written.

Mirrors `RunMetadata` of `tensorflow/core/protobuf/config.proto` and
`tensorflow/core/framework/step_stats.proto`.
"""

from minitf.distributed import messages
from minitf.proto import config_pb2


def run_metadata_to_proto(run_metadata):
    """A minitf RunMetadata (or TensorFlow's message, returned as it is) as the message."""
    if isinstance(run_metadata, config_pb2.RunMetadata):
        return run_metadata
    node_stats = [stat for device_stats in run_metadata.step_stats.dev_stats
                  for stat in device_stats.node_stats]
    proto = config_pb2.RunMetadata(step_stats=messages.step_stats_to_proto(node_stats))
    for graph_def in run_metadata.partition_graphs:
        proto.partition_graphs.add().ParseFromString(graph_def.SerializeToString())
    return proto
