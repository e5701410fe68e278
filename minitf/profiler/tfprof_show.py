"""What the scope and graph views share: a node being shown, the filters, one line of report.

A view works in three passes over its tree of `ShowNode`s:

1. **account**: decide which nodes count (their types match
   `account_type_regexes`) and add each counted node's stats into its
   ancestors' `total_*`;
2. **show**: decide which nodes are displayed (`max_depth`, the `min_*`
   thresholds on a node's own FLOPs and parameters and on its totals, the
   `show`/`hide`/`trim` name regexes); a hidden node's displayed children
   move up to its nearest displayed ancestor; with
   `account_displayed_op_only` the totals are added up again from the
   displayed nodes only;
3. **format**: one line per displayed node, children sorted by `order_by`,
   and the GraphNodeProto tree that `profile` returns.

A node's line is `name (own/total ...)`, or `name (--/total ...)` when
the node itself is not accounted and only its descendants are.

Mirrors `tensorflow/core/profiler/internal/tfprof_show.{h,cc}` and the
`ShowNode` of `tfprof_node_show.cc`.
"""

import re
import sys

from minitf.profiler.tfprof_options import (ROOT_NAME, SORT_FIELDS, format_memory, format_number,
                                            format_time)
from minitf.profiler.tfprof_output import GraphNodeProto

# A node's own stats and the totals they add to.
TOTALS = (("run_count", "total_run_count"), ("exec_micros", "total_exec_micros"),
          ("accelerator_exec_micros", "total_accelerator_exec_micros"),
          ("cpu_exec_micros", "total_cpu_exec_micros"),
          ("requested_bytes", "total_requested_bytes"), ("peak_bytes", "total_peak_bytes"),
          ("residual_bytes", "total_residual_bytes"), ("output_bytes", "total_output_bytes"),
          ("parameters", "total_parameters"), ("float_ops", "total_float_ops"))


def matches_all(regexes):
    """True for the list [".*"], which the views treat as "everything" without matching."""
    return list(regexes) == [".*"]


def full_match_any(regexes, text):
    return any(re.fullmatch(regex, text) for regex in regexes)


def above_total_minimums(proto, opts):
    """The node's total bytes and times reach the `min_*` thresholds of the options."""
    return (proto.total_requested_bytes >= opts.min_bytes
            and proto.total_peak_bytes >= opts.min_peak_bytes
            and proto.total_residual_bytes >= opts.min_residual_bytes
            and proto.total_output_bytes >= opts.min_output_bytes
            and proto.total_exec_micros >= opts.min_micros
            and proto.total_accelerator_exec_micros >= opts.min_accelerator_micros
            and proto.total_cpu_exec_micros >= opts.min_cpu_micros)


def shown_by_name(name, opts):
    """The name matches `show_name_regexes` and no `hide_name_regexes`."""
    if not (matches_all(opts.show_name_regexes) or full_match_any(opts.show_name_regexes, name)):
        return False
    return not full_match_any(opts.hide_name_regexes, name)


def write_report(text, opts):
    """Prints the report, or writes it to the `file:outfile=` file (`none`: nowhere)."""
    if opts.output_type == "stdout":
        sys.stdout.write(text)
    elif opts.output_type == "file":
        try:
            with open(opts.output_options["outfile"], "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            sys.stderr.write("%s\n" % e)


_TIME_LEGENDS = {"exec_micros": "total execution time",
                 "accelerator_exec_micros": "accelerator execution time",
                 "cpu_exec_micros": "cpu execution time"}


def time_fields(select):
    """The time columns `select` asks for, as the fields of a node's own times."""
    if "micros" in select:
        return list(_TIME_LEGENDS)
    return [field for column, field in (("accelerator_micros", "accelerator_exec_micros"),
                                        ("cpu_micros", "cpu_exec_micros")) if column in select]


def time_legends(select):
    return [_TIME_LEGENDS[field] for field in time_fields(select)]


class ShowNode:
    """A TFGraphNode in a view: whether it is accounted, its children, its GraphNodeProto."""

    def __init__(self, node):
        self.node = node
        self.account = False
        self.children = []        # the view's structure
        self.show_children = []   # what remains after accounting and display
        self.formatted_str = ""
        self.proto = GraphNodeProto()
        self.re_init(-1)

    @property
    def name(self):
        return self.node.name

    def re_init(self, step):
        """Refreshes the node's own stats (for one step, or averaged when step < 0)."""
        node, proto = self.node, self.proto
        proto.name = node.name
        proto.devices = [node.canonical_device] if node.canonical_device else []
        proto.run_count = node.run_count(step)
        proto.exec_micros = node.exec_micros(step)
        proto.accelerator_exec_micros = node.accelerator_exec_micros(step)
        proto.cpu_exec_micros = node.cpu_exec_micros(step)
        proto.float_ops = node.float_ops(step)
        proto.input_shapes = {i: shape or None for i, shape in node.input_shapes().items()}
        proto.parameters = node.parameters()

    def reset_total_stats(self):
        self.formatted_str = ""
        self.proto.total_definition_count = 0
        for _, total in TOTALS:
            setattr(self.proto, total, 0)
        self.proto.children = []

    def add_self_to_total_stats(self):
        self.proto.total_definition_count += 1
        for own, total in TOTALS:
            setattr(self.proto, total, getattr(self.proto, total) + getattr(self.proto, own))

    def total_over(self, children):
        """Makes `children` the node's shown children and its totals its own stats plus theirs."""
        self.reset_total_stats()
        self.add_self_to_total_stats()
        for child in children:
            self.aggregate_total_stats(child)
        self.show_children = list(children)

    def aggregate_total_stats(self, other):
        self.proto.total_definition_count += other.proto.total_definition_count
        for _, total in TOTALS:
            setattr(self.proto, total, getattr(self.proto, total) + getattr(other.proto, total))


class View:
    """A view of the profile: built once from the nodes, then shown with any options."""

    root = None

    def show(self, prefix, opts):
        """Runs the view and writes its report where `opts.output_type` says; the root's proto."""
        root = self.show_internal(opts)
        write_report(prefix + root.formatted_str, opts)
        return root.proto

    def show_internal(self, opts):
        raise NotImplementedError

    def reset_root(self, opts):
        """Clears the root's totals; False (after saying so) for pprof, which no view here writes."""
        self.root.reset_total_stats()
        if opts.output_type == "pprof":
            sys.stderr.write("Only 'code' view supports pprof output now.\n")
            return False
        return True


class TFShow(View):
    """The base of the scope and graph views."""

    def show_internal(self, opts):
        """The three passes; the root with its report in `formatted_str` and its proto tree."""
        root = self.root
        if not self.reset_root(opts):
            return root
        root.show_children = []
        roots = self.account(root.children, opts, set())
        for node in roots:
            root.aggregate_total_stats(node)
        if not matches_all(opts.start_name_regexes):
            roots = self.search_root(roots, opts.start_name_regexes, set())
        root.show_children = roots
        root = self.print_nodes([root], opts, 1, 0, set())[0]
        root.formatted_str = (self.format_legend(opts) + root.formatted_str
                              + self.format_tree(root.show_children, root.proto))
        return root

    def account(self, nodes, opts, visited):
        """The accounted nodes among `nodes`, with their totals (each view decides how)."""
        raise NotImplementedError

    def search_root(self, nodes, regexes, visited):
        """The first nodes, depth first, whose names match `start_name_regexes`."""
        found = []
        for node in nodes:
            if node.name in visited:
                continue
            visited.add(node.name)
            if full_match_any(regexes, node.name):
                found.append(node)
            else:
                found += self.search_root(node.show_children, regexes, visited)
        return found

    def print_nodes(self, nodes, opts, depth, last_indent, visited):
        """The displayed nodes among `nodes` (a hidden node's displayed children take its place)."""
        shown = []
        for node in nodes:
            if node.name in visited:
                continue
            visited.add(node.name)
            show = self.should_show(node, opts, depth)
            indent = last_indent + 2 if show else last_indent
            shown_children = []
            if not self.should_trim(node, opts.trim_name_regexes) and depth <= opts.max_depth:
                shown_children = self.print_nodes(node.show_children, opts, depth + 1, indent,
                                                  visited)
            if not show:
                shown += shown_children
                continue
            shown_children = self.sort_nodes(shown_children, opts)
            if opts.account_displayed_op_only:
                node.total_over(shown_children)
            else:
                node.show_children = shown_children
            node.formatted_str = "%s%s\n" % (" " * last_indent, self.format_node(node, opts))
            shown.append(node)
        return shown

    # --- the filters -----------------------------------------------------------------------
    @staticmethod
    def should_show(node, opts, depth):
        """Shown: the root, or a node above every threshold (its own FLOPs, parameters, runs)."""
        proto = node.proto
        return node.name == ROOT_NAME or (
            above_total_minimums(proto, opts) and proto.parameters >= opts.min_params
            and proto.float_ops >= opts.min_float_ops and proto.run_count >= opts.min_occurrence
            and depth <= opts.max_depth and shown_by_name(node.name, opts))

    @staticmethod
    def should_trim(node, regexes):
        return full_match_any(regexes, node.name)

    @staticmethod
    def re_account(node, opts):
        """Refreshes the node's stats; True when one of its types matches account_type_regexes."""
        node.re_init(opts.step)
        if matches_all(opts.account_type_regexes):
            return True
        return any(re.fullmatch(regex, op_type)
                   for regex in opts.account_type_regexes for op_type in node.node.op_types)

    @staticmethod
    def sort_nodes(nodes, opts):
        if not opts.order_by:
            return list(nodes)
        field = SORT_FIELDS.get(opts.order_by)
        if field is None:
            return sorted(nodes, key=lambda n: n.name)
        return sorted(nodes, key=lambda n: -getattr(n.proto, field))

    # --- one line of the report ------------------------------------------------------------
    @staticmethod
    def format_node(node, opts):
        proto, select = node.proto, opts.select

        def own_and_total(own, total, fmt):
            return (fmt(own) if node.account else "--") + "/" + fmt(total)

        info = []
        if "params" in select:
            if node.node.shape:
                info.append("x".join(str(d) for d in node.node.shape))
            info.append(own_and_total(proto.parameters, proto.total_parameters, format_number)
                        + " params")
        if "float_ops" in select:
            info.append(own_and_total(proto.float_ops, proto.total_float_ops, format_number)
                        + " flops")
        for column, own in (("bytes", "requested_bytes"), ("peak_bytes", "peak_bytes"),
                            ("residual_bytes", "residual_bytes"),
                            ("output_bytes", "output_bytes")):
            if column in select:
                info.append(own_and_total(getattr(proto, own), getattr(proto, "total_" + own),
                                          format_memory))
        for own in time_fields(select):
            info.append(own_and_total(getattr(proto, own), getattr(proto, "total_" + own),
                                      format_time))
        if "device" in select and proto.devices:
            info.append("|".join(proto.devices))
        if "op_types" in select:
            info.append("|".join(sorted(node.node.op_types)))
        if "occurrence" in select:
            info.append(own_and_total(proto.run_count, proto.total_run_count, format_number)
                        + "|" + ("1" if node.account else "--") + "/"
                        + format_number(proto.total_definition_count))
        if "input_shapes" in select:
            info.append("|".join(
                "%d:%s" % (i, "x".join(str(d) for d in shape) if shape else "unknown")
                for i, shape in sorted(node.node.input_shapes().items())))
        return "%s (%s)" % (node.name, ", ".join(info))

    @staticmethod
    def format_legend(opts):
        select = opts.select
        legends = []
        for column, legend in (("params", "# parameters"), ("float_ops", "# float_ops"),
                               ("bytes", "requested bytes"), ("peak_bytes", "peak bytes"),
                               ("residual_bytes", "residual bytes"),
                               ("output_bytes", "output bytes")):
            if column in select:
                legends.append(legend)
        legends += time_legends(select)
        for column, legend in (("device", "assigned devices"), ("op_types", "op types"),
                               ("occurrence", "op count (run|defined)"),
                               ("input_shapes", "input shapes")):
            if column in select:
                legends.append(legend)
        return "node name | %s\n" % " | ".join(legends)

    @staticmethod
    def format_tree(nodes, proto):
        """The displayed nodes' lines, depth first, and their protos as `proto`'s children."""
        lines = []
        for node in nodes:
            lines.append(node.formatted_str)
            child = GraphNodeProto()
            child.CopyFrom(node.proto)
            proto.children.append(child)
            lines.append(TFShow.format_tree(node.show_children, child))
        return "".join(lines)

