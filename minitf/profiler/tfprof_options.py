"""The profiler's options, and the words and numbers of its text report.

`ProfileOptionBuilder` makes a dict; `Options.from_dict` reads it with
TensorFlow's defaults for missing keys and parses `output` (`stdout`,
`none`, `file:outfile=<path>`, ...). The rest of this module is how the
report writes things: 8910000 FLOPs as `8.91m`, 1500 µs as `1.50ms`, the
options block printed before a report and the "Doc:" lines that explain
the selected columns.

Mirrors `tensorflow/core/profiler/tfprof_options.{h,cc}`, `_build_options`
of `tensorflow/python/profiler/model_analyzer.py` and `FormatNumber`,
`FormatTime`, `FormatMemory` and `QueryDoc` of `internal/tfprof_utils.cc`.
"""

ROOT_NAME = "_TFProfRoot"

ORDER_BY = ("name", "bytes", "peak_bytes", "residual_bytes", "output_bytes", "micros",
            "accelerator_micros", "cpu_micros", "params", "float_ops", "occurrence")
OUTPUT_TYPES = ("timeline", "stdout", "file", "pprof", "none")

# What each `order_by` sorts on (descending); "name" (and anything unknown) sorts by name.
SORT_FIELDS = {"bytes": "total_requested_bytes", "peak_bytes": "total_peak_bytes",
               "residual_bytes": "total_residual_bytes", "output_bytes": "total_output_bytes",
               "micros": "total_exec_micros", "accelerator_micros": "total_accelerator_exec_micros",
               "cpu_micros": "total_cpu_exec_micros", "params": "total_parameters",
               "float_ops": "total_float_ops"}


class Options:
    """The options of one profile, read from ProfileOptionBuilder's dict."""

    INTS = ("max_depth", "min_bytes", "min_peak_bytes", "min_residual_bytes", "min_output_bytes",
            "min_micros", "min_accelerator_micros", "min_cpu_micros", "min_params",
            "min_float_ops", "min_occurrence", "step")
    REGEX_LISTS = ("account_type_regexes", "start_name_regexes", "trim_name_regexes",
                   "show_name_regexes", "hide_name_regexes")

    @classmethod
    def from_dict(cls, options):
        """The options with TensorFlow's defaults; ValueError for an unknown `output`."""
        opts = cls()
        for name in cls.INTS:
            setattr(opts, name, int(options.get(name, 0)))
        opts.max_depth = int(options.get("max_depth", 10))
        opts.step = int(options.get("step", -1))
        opts.order_by = options.get("order_by", "name")
        for name in cls.REGEX_LISTS:
            setattr(opts, name, list(options.get(name, [])))
        opts.account_displayed_op_only = bool(options.get("account_displayed_op_only", False))
        opts.select = sorted(set(options.get("select", [])))
        opts.output_type, opts.output_options = parse_output(options.get("output", "stdout"))
        return opts

    def to_string(self):
        """The options block TensorFlow prints before a report."""
        rows = [(name, getattr(self, name)) for name in self.INTS]
        rows.append(("order_by", self.order_by))
        rows += [(name, ",".join(getattr(self, name))) for name in self.REGEX_LISTS]
        rows.append(("account_displayed_op_only",
                     "true" if self.account_displayed_op_only else "false"))
        rows.append(("select", ",".join(self.select)))
        rows.append(("output", "%s:%s" % (self.output_type, ",".join(
            "%s=%s" % kv for kv in sorted(self.output_options.items())))))
        return "".join("%-28s%s\n" % ("-" + name, value) for name, value in rows)


def parse_output(output):
    """`"file:outfile=/tmp/x"` -> ("file", {"outfile": "/tmp/x"}); ValueError when invalid."""
    if not output:
        return "stdout", {}
    output_type, _, rest = output.partition(":")
    if output_type not in OUTPUT_TYPES:
        raise ValueError("E.g. Unknown output type: %s, Valid types: %s\n"
                         % (output_type, ",".join(sorted(OUTPUT_TYPES))))
    options = {}
    for pair in filter(None, rest.split(",")):
        key, _, value = pair.partition("=")
        if not value:
            raise ValueError("Visualize format: -output timeline:key=value,key=value,...")
        if key != "outfile":
            raise ValueError("Unrecognized options %s for output_type: %s\n" % (key, output_type))
        options[key] = value
    if output_type in ("timeline", "file", "pprof") and "outfile" not in options:
        raise ValueError("Missing required output_options for %s\nE.g. -output %s:%s=...\n"
                         % (output_type, output_type, "outfile"))
    return output_type, options


def _format_scaled(value, unit, suffixes):
    """`value` and its unit below 1000; else in thousands, millions, ... with two decimals."""
    if value < 1000:
        return "%d%s" % (value, unit)
    scale = 1000
    for suffix in suffixes[:-1]:
        if value < scale * 1000:
            break
        scale *= 1000
    else:
        suffix = suffixes[-1]
    return "%.2f%s" % (value / scale, suffix)


def format_number(n):
    return _format_scaled(n, "", ("k", "m", "b"))


def format_time(micros):
    return _format_scaled(micros, "us", ("ms", "sec"))


def format_memory(num_bytes):
    return _format_scaled(num_bytes, "B", ("KB", "MB"))


_CMD_DOC = {
    "scope": "scope: The nodes in the model graph are organized by their names, which is "
             "hierarchical like filesystem.",
    "op": "op: The nodes are operation kernel type, such as MatMul, Conv2D. Graph nodes "
          "belonging to the same type are aggregated together.",
}
_CMD_DOC["graph"] = _CMD_DOC["scope"]  # sic: TensorFlow documents the graph view as the scope view

_TOTAL_MICROS = "total execution time: Sum of accelerator execution time and cpu execution time."
_CPU_MICROS = ("cpu execution time: The time from the start to the end of the operation. It's "
               "the sum of actual cpu run time plus the time that it spends waiting if part of "
               "computation is launched asynchronously.")
_ACCELERATOR_MICROS = ("accelerator execution time: Time spent executing on the accelerator. "
                       "This is normally measured by the actual hardware library.")
_SELECT_DOC = {
    "bytes": "requested bytes: The memory requested by the operation, accumulatively.",
    "micros": "\n".join((_TOTAL_MICROS, _CPU_MICROS, _ACCELERATOR_MICROS)),
    "params": "param: Number of parameters (in the Variable).",
    "float_ops": "flops: Number of float operations. Note: Please read the implementation for "
                 "the math behind it.",
    "tensor_value": "tensor_value: Not supported now.",
    "device": "device: which device is placed on.",
    "op_types": "op_types: The attributes of the operation, includes the Kernel name device "
                "placed on and user-defined strings.",
    "occurrence": "occurrence: The number of times it occurs",
    "input_shapes": "input shape: The shape of input tensors",
    "accelerator_micros": _ACCELERATOR_MICROS,
    "cpu_micros": _CPU_MICROS,
    "peak_bytes": "peak bytes: The peak amount of memory that the operation is holding at some "
                  "point.",
    "residual_bytes": "residual bytes: The memory not de-allocated after the operation finishes.",
    "output_bytes": "output bytes: The memory that is output from the operation (not "
                    "necessarilty allocated by the operation)",
}


def query_doc(cmd, opts):
    """The "Doc:" lines that start a report: the view, then each selected column."""
    helps = [_SELECT_DOC.get(s, "Unknown select: " + s) for s in opts.select]
    return "\nDoc:\n%s\n%s\n\n" % (_CMD_DOC.get(cmd, "Unknown command: " + cmd),
                                   "\n".join(helps))
