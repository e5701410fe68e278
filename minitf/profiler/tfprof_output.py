"""What the profiler returns: GraphNodeProto trees, MultiGraphNodeProto lists, OpLogProto.

TensorFlow returns protocol buffers; these are plain Python objects with
the same field names, the same defaults (zero, "" or empty) and the same
text form (`str(node)` prints what `print(proto)` prints in TensorFlow:
the fields that are set, in field-number order). A shape is a list of
dimension sizes (-1 for an unknown one), or None when even the rank is
unknown.

Mirrors `tensorflow/core/profiler/tfprof_output.proto` and `tfprof_log.proto`.
"""

import json


class _Message:
    """Fields from FIELDS: (field number, name, kind); kind is int, str, strs, shapes,
    shape_map (int -> shape) or a message class name for a repeated message field."""

    FIELDS = ()

    def __init__(self, **values):
        for _, name, kind in self.FIELDS:
            setattr(self, name, _default(kind))
        for name, value in values.items():
            if not any(name == field for _, field, _ in self.FIELDS):
                raise ValueError("%s has no field %r" % (type(self).__name__, name))
            setattr(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and all(
            getattr(self, name) == getattr(other, name) for _, name, _ in self.FIELDS)

    def __repr__(self):
        return "<%s %s>" % (type(self).__name__, json.dumps(self.name))

    def __str__(self):
        return "".join(_text_lines(self, ""))

    def CopyFrom(self, other):  # noqa: N802 - protobuf's name
        for _, name, kind in self.FIELDS:
            value = getattr(other, name)
            setattr(self, name, list(value) if isinstance(value, list) else
                    dict(value) if isinstance(value, dict) else value)


def _default(kind):
    if kind == "int":
        return 0
    if kind == "str":
        return ""
    if kind == "shape_map":
        return {}
    return []


def _text_lines(message, indent):
    for _, name, kind in sorted(message.FIELDS):
        value = getattr(message, name)
        if kind in ("int", "str"):
            if value:
                yield "%s%s: %s\n" % (indent, name, _quote(value) if kind == "str" else value)
        elif kind == "strs":
            for item in value:
                yield "%s%s: %s\n" % (indent, name, _quote(item))
        elif kind == "shapes":
            for shape in value:
                yield from _block(indent, name, _shape_lines(shape, indent + "  "))
        elif kind == "shape_map":
            for key in sorted(value):
                entry = ["%s  key: %d\n" % (indent, key)]
                entry += _block(indent + "  ", "value", _shape_lines(value[key], indent + "    "))
                yield from _block(indent, name, entry)
        else:
            for child in value:
                yield from _block(indent, name, _text_lines(child, indent + "  "))


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}


def _quote(text):
    """A string as protobuf's text format writes it: C escapes, non-ASCII bytes in octal."""
    return '"%s"' % "".join(_ESCAPES.get(b) or (chr(b) if 32 <= b < 127 else "\\%03o" % b)
                            for b in text.encode("utf-8"))


def _block(indent, name, lines):
    return ["%s%s {\n" % (indent, name), *lines, "%s}\n" % indent]


def _shape_lines(shape, indent):
    if shape is None:
        return ["%sunknown_rank: true\n" % indent]
    lines = []
    for size in shape:
        lines += _block(indent, "dim", ["%s  size: %d\n" % (indent, size)] if size else [])
    return lines


class GraphNodeProto(_Message):
    """A node of the scope or graph view: its own stats, the totals of what it accounts, children.

    `float_ops`, `parameters`, `exec_micros`, ... are the node's own;
    `total_*` add those of every accounted node below it (in the scope
    view, the nodes under its name scope; in the graph view, its inputs,
    recursively).
    """

    FIELDS = (
        (1, "name", "str"), (21, "run_count", "int"), (2, "exec_micros", "int"),
        (17, "accelerator_exec_micros", "int"), (18, "cpu_exec_micros", "int"),
        (3, "requested_bytes", "int"), (24, "peak_bytes", "int"), (25, "residual_bytes", "int"),
        (26, "output_bytes", "int"), (4, "parameters", "int"), (13, "float_ops", "int"),
        (10, "devices", "strs"), (23, "total_definition_count", "int"),
        (22, "total_run_count", "int"), (6, "total_exec_micros", "int"),
        (19, "total_accelerator_exec_micros", "int"), (20, "total_cpu_exec_micros", "int"),
        (7, "total_requested_bytes", "int"), (27, "total_peak_bytes", "int"),
        (28, "total_residual_bytes", "int"), (29, "total_output_bytes", "int"),
        (8, "total_parameters", "int"), (14, "total_float_ops", "int"), (11, "shapes", "shapes"),
        (16, "input_shapes", "shape_map"), (12, "children", "GraphNodeProto"),
    )


class MultiGraphNodeProto(_Message):
    """A node of the op view: all graph nodes of one op type (`graph_nodes`), added up.

    The op view is a list, not a tree: each node's `children` holds the
    next op type, and its `total_*` add up itself and every op type after it.
    """

    FIELDS = (
        (1, "name", "str"), (2, "exec_micros", "int"), (12, "accelerator_exec_micros", "int"),
        (13, "cpu_exec_micros", "int"), (3, "requested_bytes", "int"), (16, "peak_bytes", "int"),
        (17, "residual_bytes", "int"), (18, "output_bytes", "int"), (4, "parameters", "int"),
        (5, "float_ops", "int"), (6, "total_exec_micros", "int"),
        (14, "total_accelerator_exec_micros", "int"), (15, "total_cpu_exec_micros", "int"),
        (7, "total_requested_bytes", "int"), (19, "total_peak_bytes", "int"),
        (20, "total_residual_bytes", "int"), (21, "total_output_bytes", "int"),
        (8, "total_parameters", "int"), (9, "total_float_ops", "int"),
        (10, "graph_nodes", "GraphNodeProto"), (11, "children", "MultiGraphNodeProto"),
    )


class OpLogEntry(_Message):
    """Extra facts about one node: its FLOPs and the types it belongs to for accounting."""

    FIELDS = ((1, "name", "str"), (2, "float_ops", "int"), (3, "types", "strs"))


class OpLogProto(_Message):
    """A list of OpLogEntry: what the Python side tells the profiler about the graph's nodes."""

    FIELDS = ((1, "log_entries", "OpLogEntry"),)

    def __repr__(self):
        return "<OpLogProto %d entries>" % len(self.log_entries)
