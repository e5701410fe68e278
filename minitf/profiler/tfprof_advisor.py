"""`tf.profiler.advise`: checkers that read a profile and say what might be improved.

Each checker looks at the graph's nodes and, when a step was traced, at
where its time went, and gives a list of reports (strings). `advise`
runs the checkers `options` names (by default all of them), prints each
one's reports, and returns them in an AdviceProto, keyed by checker:

* `OperationChecker`: a `BatchNorm` scope with no fused batch norm, or an
  op with `data_format="NHWC"` placed on a GPU (NCHW is faster there);
* `AcceleratorUtilizationChecker`: for each GPU stream of the traced step,
  the share of its span that kernels ran;
* `ExpensiveOperationChecker`: the op types and the top scopes that took
  the most time (from the profiler's `op` and `scope` views);
* `JobChecker` is in the default options, but TensorFlow runs it inside
  Google only: elsewhere it is skipped, and so it is here.

Mirrors `tensorflow/python/profiler/model_analyzer.py` (advise) and
`tensorflow/core/profiler/internal/advisor/`.
"""

import sys

from minitf.graph import ops
from minitf.profiler import tfprof_logger
from minitf.profiler.tfprof_node import count_as_accelerator_time, is_placed_on_accelerator
from minitf.profiler.tfprof_options import Options, format_time
from minitf.profiler.tfprof_stats import TFStats

__all__ = ["advise", "ALL_ADVICE"]

ALL_ADVICE = {"ExpensiveOperationChecker": {}, "AcceleratorUtilizationChecker": {},
              "JobChecker": {}, "OperationChecker": {}}
_DEFAULT_ADVISE_OPTIONS = 0
_CHECKER_ORDER = ("AcceleratorUtilizationChecker", "OperationChecker",
                  "ExpensiveOperationChecker")
_SKIPPED = ("JobChecker",)


def advise(graph=None, run_meta=None, options=_DEFAULT_ADVISE_OPTIONS):
    """The advice of the checkers in `options` (a dict of checker names) on `graph` and the
    step traced in `run_meta`, printed and returned as an AdviceProto."""
    from minitf.proto import tfprof_log_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    if graph is None:
        graph = ops.get_default_graph()
    if options == _DEFAULT_ADVISE_OPTIONS:
        options = dict(ALL_ADVICE)
    op_log = tfprof_logger.merge_default_with_oplog(graph, None, run_meta, add_trace=True)
    graph_def = graph.as_graph_def(add_shapes=True)
    stats = TFStats(graph_def, run_meta, op_log)
    advice = tfprof_log_pb2.AdviceProto()
    for name in options:
        if name not in _CHECKERS and name not in _SKIPPED:
            sys.stderr.write("Unknown checker: %s\n" % name)
    for name in _CHECKER_ORDER:
        if name in options:
            reports = _CHECKERS[name](stats, graph_def)
            advice.checkers[name].reports.extend(reports)
    for name, checker in advice.checkers.items():
        sys.stdout.write("\n%s:\n" % name)
        for report in checker.reports:
            sys.stdout.write("%s\n" % report)
    return advice


def _operation_checker(stats, graph_def):
    use_batch_norm = any("BatchNorm" in name for name in stats.nodes)
    use_fused_batch_norm = any(op_type.startswith("FusedBatchNorm")
                               for node in stats.nodes.values() for op_type in node.op_types)
    recommend_nchw = False
    for node_def in graph_def.node:
        data_format = node_def.attr.get("data_format")
        node = stats.nodes.get(node_def.name)
        if data_format in ("NHWC", b"NHWC") and node is not None and \
                is_placed_on_accelerator(node.canonical_device.lower()):
            recommend_nchw = True
    reports = []
    if use_batch_norm and not use_fused_batch_norm:
        reports.append("Maybe use faster FusedBatchNorm instead of BatchNorm")
    if recommend_nchw:
        reports.append("Found operation using NHWC data_format on GPU. Maybe NCHW is faster.")
    return reports


def _accelerator_utilization_checker(stats, graph_def):
    """Per GPU stream: the time its kernels ran over the span from the first start to the
    last end."""
    del graph_def
    spans = {}
    for node in stats.nodes.values():
        for step in node.execs.values():
            for device, execs in step.accelerator_execs.items():
                if not count_as_accelerator_time(device.lower()):
                    continue
                span = spans.setdefault(device, [None, 0, 0])
                for start, micros in execs:
                    span[0] = start if span[0] is None else min(span[0], start)
                    span[1] = max(span[1], start + micros)
                    span[2] += micros
    reports = []
    for device, (start, end, exec_micros) in sorted(spans.items()):
        total = end - start
        if total <= 0:
            continue
        utilization = exec_micros / total
        word = "utilization" if utilization >= 0.5 else "low utilization"
        reports.append("device: %s %s: %.2f" % (device, word, utilization))
    return reports


def _expensive_operation_checker(stats, graph_def):
    del graph_def
    if not stats.steps:
        sys.stderr.write("Missing RunMetadata info. Skip ExpensiveOperationChecker\n")
        sys.stderr.write("Missing run_meta for ExpensiveOperationChecker\n")
        return []
    return [r for r in (_top_op_types(stats), _top_scopes(stats)) if r]


def _top_op_types(stats):
    opts = Options.from_dict({"max_depth": 3, "min_micros": 1, "order_by": "micros",
                              "account_type_regexes": [".*"], "start_name_regexes": [".*"],
                              "show_name_regexes": [".*"], "select": ["micros", "occurrence"],
                              "output": "none"})
    root = stats.show("op", opts)
    lines = []
    for node in root.children:
        if node.exec_micros == 0:
            continue
        if len(lines) == 3:
            break
        lines.append("top %d operation type: %s, cpu: %s, accelerator: %s, total: %s (%.2f%%)" % (
            len(lines) + 1, node.name, format_time(node.cpu_exec_micros),
            format_time(node.accelerator_exec_micros), format_time(node.exec_micros),
            100.0 * node.exec_micros / (root.total_exec_micros + 1e-10)))
    return "\n".join(lines)


def _top_scopes(stats):
    opts = Options.from_dict({"max_depth": 100, "min_micros": 100, "order_by": "micros",
                              "account_type_regexes": [".*"], "start_name_regexes": [".*"],
                              "show_name_regexes": [".*"], "select": ["micros"],
                              "output": "none"})
    root = stats.show("scope", opts)
    return "\n".join(
        "top %d graph node: %s, cpu: %s, accelerator: %s, total: %s" % (
            i + 1, node.name, format_time(node.cpu_exec_micros),
            format_time(node.accelerator_exec_micros), format_time(node.exec_micros))
        for i, node in enumerate(root.children[:3]))


_CHECKERS = {"AcceleratorUtilizationChecker": _accelerator_utilization_checker,
             "OperationChecker": _operation_checker,
             "ExpensiveOperationChecker": _expensive_operation_checker}
