"""`tf.profiler`: count a graph's FLOPs and parameters, and time a traced step, per scope or op.

`profile(graph, run_meta=None, cmd="scope", options=...)` is the entry
point; `ProfileOptionBuilder` makes its options. How the profile is made:
`tfprof_logger.py` (the op log: FLOPs from `flops_registry.py`, trainable
variables), `tfprof_stats.py` (the nodes and the traced steps), the views
`tfprof_scope.py`, `tfprof_graph.py`, `tfprof_op.py`, and the text report
(`tfprof_show.py`, `tfprof_options.py`).

Mirrors `tensorflow/python/profiler/` and `tensorflow/core/profiler/`.
"""

from minitf.profiler.model_analyzer import Profiler, profile
from minitf.profiler.option_builder import ProfileOptionBuilder
from minitf.profiler.tfprof_output import GraphNodeProto, MultiGraphNodeProto, OpLogProto

__all__ = ["profile", "Profiler", "ProfileOptionBuilder", "GraphNodeProto",
           "MultiGraphNodeProto", "OpLogProto"]
