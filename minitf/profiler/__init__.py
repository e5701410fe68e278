"""`tf.profiler`: count a graph's FLOPs and parameters, and time a traced step, per scope or op.

`profile(graph, run_meta=None, cmd="scope", options=...)` is the entry
point; `ProfileOptionBuilder` makes its options. How the profile is made:
`tfprof_logger.py` (the op log: FLOPs from `flops_registry.py`, trainable
variables), `tfprof_stats.py` (the nodes and the traced steps), the views
`tfprof_scope.py`, `tfprof_graph.py`, `tfprof_op.py`, and the text report
(`tfprof_show.py`, `tfprof_options.py`). `advise(graph, run_meta)` runs the
checkers of `tfprof_advisor.py` over a profile and returns an AdviceProto;
`write_op_log(graph, log_dir)` writes the op log as TensorFlow's
`tfprof_log` file.

Mirrors `tensorflow/python/profiler/` and `tensorflow/core/profiler/`.
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.profiler.model_analyzer import Profiler, profile
from minitf.profiler.option_builder import ProfileOptionBuilder
from minitf.profiler.tfprof_advisor import advise
from minitf.profiler.tfprof_logger import write_op_log
from minitf.profiler.tfprof_output import GraphNodeProto, MultiGraphNodeProto, OpLogProto

__all__ = ["profile", "Profiler", "ProfileOptionBuilder", "GraphNodeProto",
           "MultiGraphNodeProto", "OpLogProto", "advise", "write_op_log"]


def __getattr__(name):
    """tf.profiler.AdviceProto: a protobuf message, loaded (with protobuf) when asked for."""
    if name == "AdviceProto":
        from minitf.proto import tfprof_log_pb2  # noqa: PLC0415 - protobuf, loaded only when used
        return tfprof_log_pb2.AdviceProto
    raise _tf1_api.missing_name_error("tf.profiler", __name__, name)
