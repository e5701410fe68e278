"""The op view: one line per op type (MatMul, Conv2D, ...), its graph nodes added up.

The op types are sorted by `order_by`, and each line shows the type's own
share and the running total from it to the end of the list, both as a
percentage of everything accounted: `MatMul  8.79m float_ops (100.00%, 98.63%)`.
The returned MultiGraphNodeProto is that list as a chain, each op type the
only child of the one before.

Mirrors `tensorflow/core/profiler/internal/tfprof_op.{h,cc}`,
`tfprof_show_multi.{h,cc}`, and `TFMultiGraphNode` / `ShowMultiNode` of
`tfprof_node.h` and `tfprof_node_show.cc`.
"""

import re

from minitf.profiler.tfprof_options import (ROOT_NAME, SORT_FIELDS, format_memory, format_number,
                                            format_time)
from minitf.profiler.tfprof_output import MultiGraphNodeProto
from minitf.profiler.tfprof_show import (TOTALS, ShowNode, TFShow, View, above_total_minimums,
                                         full_match_any, matches_all, shown_by_name, time_fields,
                                         time_legends)

_MULTI_TOTALS = tuple(pair for pair in TOTALS if pair[0] != "run_count")


class TFMultiGraphNode:
    """All graph nodes of one op type; sums the stats of those that match the account types."""

    def __init__(self, name):
        self.name = name
        self.nodes = {}
        self.snapshot = {}
        self.op_types, self.devices = set(), set()
        self.stats = dict.fromkeys((own for own, _ in TOTALS), 0)

    def snapshot_nodes(self, step, type_regexes):
        """Sums the picked nodes' stats; False when the account types match none of the nodes."""
        self.stats = dict.fromkeys(self.stats, 0)
        self.op_types, self.devices, self.snapshot = set(), set(), {}
        picked = self._pick_nodes(type_regexes)
        if not picked:
            return matches_all(type_regexes)
        for node in picked:
            self.op_types |= node.op_types
            self.stats["run_count"] += node.run_count(step)
            self.stats["exec_micros"] += node.exec_micros(step)
            self.stats["accelerator_exec_micros"] += node.accelerator_exec_micros(step)
            self.stats["cpu_exec_micros"] += node.cpu_exec_micros(step)
            self.stats["float_ops"] += node.float_ops(step)
            self.stats["parameters"] += node.parameters()
            self.devices.add(node.canonical_device)
            self.snapshot[node.name] = node
        return True

    def _pick_nodes(self, type_regexes):
        nodes = [self.nodes[name] for name in sorted(self.nodes)]
        if matches_all(type_regexes):
            return nodes
        # A node matching two regexes is picked (and counted) twice, as in TensorFlow.
        return [node for regex in type_regexes for node in nodes
                if any(re.fullmatch(regex, op_type) for op_type in node.op_types)]


class ShowMultiNode:
    """An op type in the op view: accounted or not, shown or not, its MultiGraphNodeProto."""

    def __init__(self, node):
        self.node = node
        self.account = False
        self.show = False
        self.formatted_str = ""
        self.proto = MultiGraphNodeProto()
        self.re_init(-1, [".*"])

    @property
    def name(self):
        return self.node.name

    def re_init(self, step, type_regexes):
        matched = self.node.snapshot_nodes(step, type_regexes)
        self.proto.graph_nodes = []
        for graph_node in self.node.snapshot.values():
            shown = ShowNode(graph_node)
            shown.re_init(step)
            shown.add_self_to_total_stats()
            self.proto.graph_nodes.append(shown.proto)
        self.proto.name = self.node.name
        for own, _ in _MULTI_TOTALS:
            setattr(self.proto, own, self.node.stats[own])
        return matched

    def reset_total_stats(self):
        self.formatted_str = ""
        for _, total in _MULTI_TOTALS:
            setattr(self.proto, total, 0)
        self.proto.children = []

    def add_self_to_total_stats(self):
        for own, total in _MULTI_TOTALS:
            setattr(self.proto, total, getattr(self.proto, total) + getattr(self.proto, own))

    def aggregate_total_stats(self, other):
        for _, total in _MULTI_TOTALS:
            setattr(self.proto, total, getattr(self.proto, total) + getattr(other.proto, total))


class TFOp(View):
    def __init__(self, graph_nodes):
        """`graph_nodes`: the TFGraphNodes by name; groups them by op type."""
        by_type = {}
        for name, node in sorted(graph_nodes.items()):
            by_type.setdefault(node.op, TFMultiGraphNode(node.op)).nodes[name] = node
        self.op_nodes = [ShowMultiNode(by_type[op_type]) for op_type in sorted(by_type)]
        self.root = ShowMultiNode(TFMultiGraphNode(ROOT_NAME))

    def show_internal(self, opts):
        root = self.root
        if not self.reset_root(opts):
            return root
        to_text = opts.output_type in ("stdout", "file")
        if to_text:
            root.formatted_str = self.format_node(root, root, opts)
        if not self.op_nodes:
            return root

        for node in self.op_nodes:
            node.account = node.re_init(opts.step, opts.account_type_regexes)
            node.reset_total_stats()
            node.add_self_to_total_stats()
        accounted = [n for n in self.sort_nodes(self.op_nodes, opts) if n.account]
        self._accumulate_from_the_end(accounted)

        shown = []
        start = self._search_root(accounted, opts.start_name_regexes)
        for depth, node in enumerate(accounted[start:]):
            if TFShow.should_trim(node, opts.trim_name_regexes) or depth > opts.max_depth:
                break
            node.show = self.should_show(node, opts, depth)
            if node.show:
                shown.append(node)
        if opts.account_displayed_op_only:
            for node in shown:
                node.reset_total_stats()
                node.add_self_to_total_stats()
            self._accumulate_from_the_end(shown)

        if to_text:
            root.formatted_str = self.format_legend(opts) + "".join(
                self.format_node(node, root, opts) for node in shown)
        parent = root.proto
        for node in shown:
            child = MultiGraphNodeProto()
            child.CopyFrom(node.proto)
            parent.children = [child]
            parent = child
        return root

    def _accumulate_from_the_end(self, nodes):
        """Each node's totals become its own plus those of every node after it; so the root's."""
        later = None
        for node in reversed(nodes):
            if later is not None:
                node.aggregate_total_stats(later)
            later = node
        self.root.reset_total_stats()
        if later is not None:
            self.root.aggregate_total_stats(later)

    @staticmethod
    def _search_root(nodes, regexes):
        if not regexes or matches_all(regexes):
            return 0
        for i, node in enumerate(nodes):
            if full_match_any(regexes, node.name):
                return i
        return len(nodes)

    @staticmethod
    def sort_nodes(nodes, opts):
        if not opts.order_by:
            return list(nodes)
        if opts.order_by == "occurrence":
            return sorted(nodes, key=lambda n: -len(n.node.snapshot))
        field = SORT_FIELDS.get(opts.order_by)
        if field is None:
            return sorted(nodes, key=lambda n: n.name)
        return sorted(nodes, key=lambda n: -getattr(n.proto, field))

    @staticmethod
    def should_show(node, opts, depth):
        """Shown: an op type above every threshold (its totals of FLOPs and parameters)."""
        proto = node.proto
        return (above_total_minimums(proto, opts) and proto.total_parameters >= opts.min_params
                and proto.total_float_ops >= opts.min_float_ops and depth <= opts.max_depth
                and shown_by_name(node.name, opts))

    # --- the report ------------------------------------------------------------------------
    @staticmethod
    def format_node(node, root, opts):
        proto, total, select = node.proto, root.proto, opts.select

        def share(own, field, text, counted):
            """`text (accumulated %, own %)`, both shares of the root's total when `counted`."""
            node_total, root_total = getattr(proto, "total_" + field), getattr(total, "total_" + field)
            accumulated = 100.0 * node_total / root_total if counted else 0.0
            own_pct = 100.0 * own / root_total if counted else 0.0
            return "%30s" % ("%s (%.2f%%, %.2f%%)" % (text, accumulated, own_pct))

        attrs = []
        for column, field in (("bytes", "requested_bytes"), ("peak_bytes", "peak_bytes"),
                              ("residual_bytes", "residual_bytes"),
                              ("output_bytes", "output_bytes")):
            if column in select:
                own = getattr(proto, field)
                attrs.append(share(own, field, format_memory(own), own > 0))
        for field in time_fields(select):
            own = getattr(proto, field)
            attrs.append(share(own, field, format_time(own), getattr(proto, "total_" + field) > 0))
        if "params" in select:
            attrs.append(share(proto.parameters, "parameters",
                               format_number(proto.parameters) + " params",
                               proto.total_parameters > 0))
        if "float_ops" in select:
            attrs.append(share(proto.float_ops, "float_ops",
                               format_number(proto.float_ops) + " float_ops",
                               proto.total_float_ops > 0))
        if "device" in select:
            attrs.append("|".join(sorted(node.node.devices)))
        if "op_types" in select:
            attrs.append("|".join(sorted(node.node.op_types)))
        if "occurrence" in select:
            runs = sum(g.run_count for g in proto.graph_nodes)
            attrs.append("%10s" % ("%d|%d" % (runs, len(proto.graph_nodes))))
        line = "%-25s%s\n" % (node.name, ", ".join(attrs))
        if "input_shapes" in select:
            shapes = _format_input_shapes(proto)
            if shapes:
                line = "%s\n%s\n\n" % (line, shapes)
        return line

    @staticmethod
    def format_legend(opts):
        select = opts.select
        legends = [legend for column, legend in (
            ("bytes", "requested bytes"), ("peak_bytes", "peak bytes"),
            ("residual_bytes", "residual bytes"), ("output_bytes", "output bytes"))
            if column in select]
        legends += time_legends(select)
        legends += [legend for column, legend in (
            ("params", "# parameters"), ("float_ops", "# float_ops"),
            ("device", "assigned devices"), ("op_types", "op types"),
            ("occurrence", "op occurrence (run|defined)"), ("input_shapes", "input shapes"))
            if column in select]
        return "node name | %s\n" % " | ".join(legends)


def _format_input_shapes(proto):
    """Each distinct tuple of input shapes of the type's nodes, with how often it ran and took."""
    by_shapes = {}
    for graph_node in proto.graph_nodes:
        text = ",\t".join(
            "%d:%s" % (i, "x".join(str(d) for d in shape) if shape else "unknown")
            for i, shape in sorted(graph_node.input_shapes.items()))
        defined, runs, micros = by_shapes.get("input_type: " + text, (0, 0, 0))
        by_shapes["input_type: " + text] = (defined + 1, runs + graph_node.run_count,
                                            micros + graph_node.exec_micros)
    ordered = sorted(sorted(by_shapes.items()), key=lambda item: -item[1][1])
    return "\n".join("%s\t(run*%d|defined*%d)\texec_time: %s" % (
        text, runs, defined, format_time(micros)) for text, (defined, runs, micros) in ordered)
