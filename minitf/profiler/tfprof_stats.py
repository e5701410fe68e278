"""The profiler's model of a run: the graph's nodes, what the op log says, what the steps took.

`TFStats` reads three inputs, as TensorFlow's C++ profiler does: a GraphDef
(with `_output_shapes`), the op log of the Python side (FLOPs and extra
types per node) and, optionally, one or more traced steps (`RunMetadata`).
From these it builds one `TFGraphNode` per node, and a view on demand
(`scope`, `graph` or `op`) that turns the nodes into a report.

A node that a traced step ran but the GraphDef lacks (`_arg_x_0_0`,
`_retval_y_0_0`, the `_Send`/`_Recv` pairs the partitioner added) becomes a
node of its own, whose op type is its name.

Mirrors `tensorflow/core/profiler/internal/tfprof_stats.{h,cc}`.
"""

import sys

from minitf.profiler.tfprof_graph import TFGraph
from minitf.profiler.tfprof_node import (TFGraphNode, count_as_accelerator_time,
                                         is_placed_on_accelerator)
from minitf.profiler.tfprof_op import TFOp
from minitf.profiler.tfprof_options import query_doc
from minitf.profiler.tfprof_output import GraphNodeProto, MultiGraphNodeProto
from minitf.profiler.tfprof_scope import TFScope

_VIEWS = {"scope": TFScope, "graph": TFGraph, "op": TFOp}


class _RunMetadataNodeDef:
    """A node only the step stats know: its name is also its op type."""

    def __init__(self, name):
        self.name, self.op, self.attr = name, name, {}


class TFStats:
    def __init__(self, graph_def, run_meta=None, op_log=None):
        self.nodes = {}
        self.steps = set()
        self.miss_accelerator_stream = False
        self._views = {}
        self.add_graph(graph_def)
        if run_meta is not None and _has_step_stats(run_meta):
            self.add_run_meta(0, run_meta)
        self.add_op_log(op_log)

    def add_graph(self, graph_def):
        """Adds the nodes not seen yet, with their inputs (`x`, `x:1` and `^x` alike)."""
        added = [node_def for node_def in graph_def.node if node_def.name not in self.nodes]
        for node_def in added:
            self.nodes[node_def.name] = TFGraphNode(node_def, len(self.nodes), self.nodes)
        for node_def in added:
            node = self.nodes[node_def.name]
            for index, input_name in enumerate(node_def.input):
                name, _, output_index = input_name.lstrip("^").partition(":")
                node.add_input(name, int(output_index or 0), index)
        if added:
            self._views.clear()

    def add_op_log(self, op_log):
        if op_log is None:
            return
        for entry in op_log.log_entries:
            node = self.nodes.get(entry.name)
            if node is None:
                continue
            for op_type in entry.types:
                node.add_op_type(op_type)
            if entry.float_ops:
                node.add_float_ops(entry.float_ops)

    def add_run_meta(self, step, run_meta):
        """Adds one traced step: each node's devices, run count and times."""
        self.steps.add(step)
        gpu_scheduling = gpu_stream = False
        for device_stats in run_meta.step_stats.dev_stats:
            device = device_stats.device.lower()
            if is_placed_on_accelerator(device):
                gpu_scheduling = True
                gpu_stream = gpu_stream or count_as_accelerator_time(device)
            for node_stats in device_stats.node_stats:
                name = node_stats.node_name.partition(":")[0]
                node = self.nodes.get(name)
                if node is None:
                    if name in ("RecvTensor", "_SOURCE") or "MEMCPY" in name:
                        continue
                    node = TFGraphNode(_RunMetadataNodeDef(name), len(self.nodes), self.nodes)
                    self.nodes[name] = node
                    self._views.clear()
                node.add_step_stat(step, device_stats.device, node_stats)
        if gpu_scheduling and not gpu_stream:
            self.miss_accelerator_stream = True

    def show(self, cmd, opts):
        """The view's proto, after writing its report where the options say."""
        empty = MultiGraphNodeProto() if cmd == "op" else GraphNodeProto()
        if opts.step >= 0 and opts.step not in self.steps:
            sys.stderr.write("Options -step=%d not found.\nAvailable steps: %s\n"
                             % (opts.step, "".join("%d " % s for s in sorted(self.steps))))
            return empty
        if cmd not in self._views:
            self._views[cmd] = _VIEWS[cmd](self.nodes)
        prefix = self._missing_trace_report() + query_doc(cmd, opts) + "Profile:\n"
        return self._views[cmd].show(prefix, opts)

    def _missing_trace_report(self):
        if not self.miss_accelerator_stream:
            return ""
        return ("\n\nFound accelerator operation but misses accelerator stream stats!\n\n"
                "It's likely a gpu tracing issue rather than tf-profiler issue.\n"
                "If you found your operation missing accelerator time, consider to post to "
                "discuss@tensorflow.org!\n\n")


def _has_step_stats(run_meta):
    step_stats = getattr(run_meta, "step_stats", None)
    return step_stats is not None and bool(step_stats.dev_stats)
