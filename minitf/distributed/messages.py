"""The runtime's Python objects as TensorFlow's messages, and back.

A DirectSession hands Python objects around: a `ConfigProto` and
`RunOptions` of `minitf/session/config.py`, NodeExecStats, NodeDefs, errors.
Between a client, a master and its workers they travel as TensorFlow's
messages (`minitf/proto/config.proto`, `step_stats.proto`,
`device_attributes.proto`); this module converts one into the other.

An error crosses a process as a status: TensorFlow's error code (gRPC's
numbering) and its message. The receiving side raises the error class of
that code, and reads the failing node's name back from the message
(`[[node NAME (op: ...`), so that the client can still point at the line
of the user's program that made the node.

Mirrors the conversions of `tensorflow/core/distributed_runtime/
message_wrappers.cc` and `tensorflow/python/framework/errors_impl.py`
(`_make_specific_exception`).
"""

import re

from minitf.executor.step_stats import NodeExecStats
from minitf.graph import errors
from minitf.proto import config_pb2
from minitf.proto import device_attributes_pb2
from minitf.proto import step_stats_pb2

_NODE_IN_MESSAGE = re.compile(r"\[\[node ([^ \]]+)")
_LABEL = re.compile(r"^(?P<name>.*) = (?P<op>[^(]*)\(.*?\)"
                    r"(?: in (?P<frame>.+), iteration (?P<iter>\d+))?$")


# =============================================================================
# Session configuration and run options
# =============================================================================

def config_to_proto(config):
    """A session's `ConfigProto` (minitf/session/config.py) as the message a master reads."""
    optimizer = config.graph_options.optimizer_options
    proto = config_pb2.ConfigProto(
        device_count=dict(config.device_count),
        intra_op_parallelism_threads=config.intra_op_parallelism_threads,
        inter_op_parallelism_threads=config.inter_op_parallelism_threads,
        allow_soft_placement=config.allow_soft_placement,
        log_device_placement=config.log_device_placement,
        operation_timeout_in_ms=config.operation_timeout_in_ms,
        use_per_session_threads=config.use_per_session_threads,
        isolate_session_state=config.isolate_session_state,
        device_filters=list(config.device_filters))
    proto.graph_options.optimizer_options.opt_level = optimizer.opt_level
    proto.graph_options.optimizer_options.do_constant_folding = optimizer.do_constant_folding
    proto.graph_options.optimizer_options.do_common_subexpression_elimination = \
        optimizer.do_common_subexpression_elimination
    proto.rpc_options.use_rpc_for_inprocess_master = \
        config.rpc_options.use_rpc_for_inprocess_master
    return proto


def run_options_to_proto(options):
    """`RunOptions` as the message a RunStep carries."""
    return config_pb2.RunOptions(
        trace_level=options.trace_level, timeout_in_ms=options.timeout_in_ms,
        inter_op_thread_pool=options.inter_op_thread_pool,
        output_partition_graphs=options.output_partition_graphs,
        report_tensor_allocations_upon_oom=options.report_tensor_allocations_upon_oom)


# =============================================================================
# Step stats
# =============================================================================

def step_stats_to_proto(node_stats, proto=None):
    """NodeExecStats (any devices, any order) as a StepStats message, one entry per device.

    Threads are numbered per device in the order they first appear: a
    Python thread id does not fit TensorFlow's 32 bits, and the timeline
    needs only to tell them apart.
    """
    proto = proto if proto is not None else step_stats_pb2.StepStats()
    by_device, thread_numbers = {}, {}
    for stat in node_stats:
        device_stats = by_device.get(stat.device)
        if device_stats is None:
            device_stats = by_device[stat.device] = proto.dev_stats.add(device=stat.device)
        threads = thread_numbers.setdefault(stat.device, {})
        device_stats.node_stats.add(
            node_name=stat.node_name, all_start_micros=stat.all_start_micros,
            op_start_rel_micros=stat.op_start_rel_micros,
            op_end_rel_micros=stat.op_end_rel_micros,
            all_end_rel_micros=stat.all_end_rel_micros, timeline_label=stat.timeline_label,
            thread_id=threads.setdefault(stat.thread_id, len(threads)))
    return proto


def step_stats_from_proto(proto):
    """The NodeExecStats of a StepStats message, device by device."""
    stats = []
    for device_stats in proto.dev_stats:
        for node in device_stats.node_stats:
            label = _LABEL.match(node.timeline_label)
            stats.append(NodeExecStats(
                node_name=node.node_name, op=label.group("op") if label else "",
                device=device_stats.device, thread_id=node.thread_id,
                all_start_micros=node.all_start_micros,
                all_end_rel_micros=node.all_end_rel_micros,
                frame_name=label.group("frame") or "" if label else "",
                iter_id=int(label.group("iter") or 0) if label else 0))
    return stats


# =============================================================================
# Devices
# =============================================================================

def device_attributes(device, incarnation):
    """What a worker tells a master about one of its devices."""
    return device_attributes_pb2.DeviceAttributes(
        name=device.name, device_type=device.device_type, incarnation=incarnation,
        physical_device_desc=device.physical_device_desc)


# =============================================================================
# Errors as statuses
# =============================================================================

def error_status(error):
    """(code, message) of an error: TensorFlow's code for an OpError, UNKNOWN otherwise."""
    if isinstance(error, errors.OpError):
        return error.error_code, error.message
    return errors.UNKNOWN, "%s: %s" % (type(error).__name__, error)


def error_from_status(code, message):
    """The OpError of a status, naming the failing node when the message does."""
    try:
        error_class = errors.exception_type_from_error_code(code)
    except KeyError:
        error_class = errors.UnknownError
    error = error_class(None, None, message)
    node = _NODE_IN_MESSAGE.search(message)
    if node is not None:
        error._node_name = node.group(1)
    return error


def prefixed(error, where):
    """The same error, its message prefixed with `From <where>:` (TensorFlow's wording)."""
    if error.message.startswith("From "):
        return error
    new = type(error)(error.node_def, error.op, "From %s:\n%s" % (where, error.message))
    new._node_name = error._node_name
    return new
