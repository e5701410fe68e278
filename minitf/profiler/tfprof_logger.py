"""The op log: what the Python side knows about each node that a GraphDef does not say.

Two facts per node go to the profiler with the GraphDef: its FLOPs, from
the statistics registered for its op type (`flops_registry.py`), and the
extra *types* it belongs to, by which the profiler can account for nodes:
every trainable variable gets the type `_trainable_variables`, which is
how `ProfileOptionBuilder.trainable_variables_parameter()` counts only
the parameters of trainable variables.

Mirrors `tensorflow/python/profiler/tfprof_logger.py`.
"""

import os
import sys

from minitf.graph import errors
from minitf.graph import ops
from minitf.profiler import flops_registry  # noqa: F401 - registers the FLOPs statistics
from minitf.profiler.statistics import get_stats_for_node_def
from minitf.profiler.tfprof_output import OpLogEntry, OpLogProto

TRAINABLE_VARIABLES = "_trainable_variables"
REGISTERED_FLOP_STATS = "flops"


def _get_logged_ops(graph, run_meta=None, add_trainable_var=True):
    """The OpLogEntry of every node with FLOPs, and of every trainable variable, by name."""
    op_missing_shape = 0
    logged_ops = {}
    for op in graph.get_operations():
        try:
            stats = get_stats_for_node_def(graph, op.node_def, REGISTERED_FLOP_STATS)
        except ValueError:
            op_missing_shape += 1
            stats = None
        if stats and stats.value:
            logged_ops[op.name] = OpLogEntry(name=op.name, float_ops=int(stats.value))

    if add_trainable_var:
        for v in graph.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES):
            entry = logged_ops.setdefault(v.op.name, OpLogEntry(name=v.op.name))
            entry.types.append(TRAINABLE_VARIABLES)

    if op_missing_shape > 0 and not run_meta:
        sys.stderr.write("%d ops no flops stats due to incomplete shapes.\n" % op_missing_shape)
    return logged_ops


def merge_default_with_oplog(graph, op_log=None, run_meta=None, add_trace=True,
                             add_trainable_var=True):
    """The op log of `graph` merged with the caller's `op_log` (whose FLOPs counts win).

    `add_trace` is accepted for TensorFlow's signature: there is no code
    view to record Python traces for. TensorFlow also completes unknown
    static shapes from the shapes in `run_meta`; minitf's step stats carry
    no output shapes, so a node whose FLOPs need an unknown shape counts zero.
    """
    del add_trace
    if graph is None:
        graph = ops.get_default_graph()
    logged_ops = _get_logged_ops(graph, run_meta, add_trainable_var=add_trainable_var)
    if not op_log:
        return OpLogProto(log_entries=list(logged_ops.values()))

    all_ops = {}
    for entry in op_log.log_entries:
        all_ops[entry.name] = OpLogEntry()
        all_ops[entry.name].CopyFrom(entry)
    for name, entry in logged_ops.items():
        if name not in all_ops:
            all_ops[name] = entry
            continue
        all_ops[name].types.extend(entry.types)
        if entry.float_ops > 0 and all_ops[name].float_ops == 0:
            all_ops[name].float_ops = entry.float_ops
    return OpLogProto(log_entries=list(all_ops.values()))


def write_op_log(graph, log_dir, op_log=None, run_meta=None, add_trace=True):
    """Writes the op log of `graph` (merged with `op_log`) to `<log_dir>/tfprof_log`, as the
    OpLogProto bytes TensorFlow's profiler reads."""
    from minitf.proto import tfprof_log_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    op_log = merge_default_with_oplog(graph, op_log, run_meta, add_trace)
    message = tfprof_log_pb2.OpLogProto()
    for entry in op_log.log_entries:
        message.log_entries.add(name=entry.name, float_ops=entry.float_ops, types=entry.types)
    path = os.path.join(log_dir, "tfprof_log")
    if not os.path.isdir(log_dir):
        raise errors.NotFoundError(None, None, "%s; No such file or directory" % path)
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(message.SerializeToString())
    os.replace(temporary, path)  # never a half-written log
