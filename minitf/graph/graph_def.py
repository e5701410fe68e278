"""GraphDef and NodeDef: the graph as data, the only thing the runtime sees.

The front end's Graph of Python objects is turned into a `GraphDef`: a list of
`NodeDef`s, each with a name, an op type, its inputs as strings
(`"x"` is output 0 of node x, `"x:1"` output 1, `"^x"` a control input), a
requested device and a dict of attrs. The runtime, local or distributed,
consumes only this.

An attr's value is a plain Python value: a `str` (or `bytes` that are not
UTF-8), an `int`, a `float`, a `bool`, a `DType`, a `TensorShape`, a NumPy
array (a tensor), or a list of one of these.

On disk and on the wire a GraphDef is TensorFlow's own protocol buffer
(`graph_def_proto.py`): `SerializeToString()` gives the bytes TensorFlow
writes, `FromString()` and `ParseFromString()` read bytes TensorFlow wrote,
and `graph_def_proto.graph_def_to_text` gives TensorFlow's text format. No
pickle is involved: loading a GraphDef from anywhere runs no code, and
malformed bytes are a ValueError.

Mirrors `tensorflow/core/framework/graph.proto`, `node_def.proto` and
`attr_value.proto`, as Python classes.
"""

import math

import numpy as np

from minitf.graph import dtypes
from minitf.graph import tensor_shape


class NodeDef:
    """One node: name, op type, input strings, device and attrs."""

    __slots__ = ("name", "op", "input", "device", "attr")

    def __init__(self, name, op, input=None, device="", attr=None):  # noqa: A002 - TF's field
        self.name = name
        self.op = op
        self.input = list(input or [])
        self.device = device or ""
        self.attr = dict(attr or {})

    def __repr__(self):
        return "NodeDef(name=%r, op=%r, input=%r, device=%r)" % (
            self.name, self.op, self.input, self.device)

    def __str__(self):
        return format_node(self)

    def __eq__(self, other):
        return (isinstance(other, NodeDef)
                and (self.name, self.op, self.input, self.device)
                == (other.name, other.op, other.input, other.device)
                and sorted(self.attr) == sorted(other.attr)
                and all(attr_values_equal(v, other.attr[k]) for k, v in self.attr.items()))

    def copy(self):
        return NodeDef(self.name, self.op, list(self.input), self.device, dict(self.attr))


class GraphDef:
    """An ordered list of NodeDefs plus the version of the graph it was taken from."""

    def __init__(self, node=None, version=0):
        self.node = list(node or [])
        self.version = version

    def __repr__(self):
        return "GraphDef(%d nodes)" % len(self.node)

    def __str__(self):
        return "\n".join(format_node(n) for n in self.node)

    def __eq__(self, other):
        return (isinstance(other, GraphDef) and self.version == other.version
                and self.node == other.node)

    def SerializeToString(self):  # noqa: N802 - protobuf's name, as TF's GraphDef has it
        """The GraphDef as the bytes of TensorFlow's GraphDef message (`graph_def_proto.py`)."""
        from minitf.graph import graph_def_proto  # noqa: PLC0415 - cycle: it imports this module
        return graph_def_proto.serialize(graph_def_proto.graph_def_to_proto(self))

    @classmethod
    def FromString(cls, data):  # noqa: N802 - protobuf's name
        """Parses the bytes of a TensorFlow GraphDef message; ValueError when they are not one."""
        from minitf.graph import graph_def_proto  # noqa: PLC0415 - cycle: it imports this module
        return graph_def_proto.graph_def_from_proto(bytes(data))

    def ParseFromString(self, data):  # noqa: N802 - protobuf's name
        """Replaces this GraphDef's nodes with those of the GraphDef message in `data`."""
        parsed = self.FromString(data)
        self.node, self.version = parsed.node, parsed.version
        return len(data)


class FunctionDef:
    """A function's body, kept as the value of a `func` attr: its name and its nodes.

    The nodes form a graph of their own whose `_Arg` nodes (attr `index`)
    are the function's arguments and whose `_Retval` nodes are its results,
    the form TensorFlow gives a function when it instantiates it. A dataset
    op holds the function given to `map` or `filter` this way, and the
    iterator's kernel runs it (`minitf/kernels/data/captured_function.py`).
    """

    def __init__(self, name, node):
        self.name = name
        self.node = list(node)

    def _sorted_by_index(self, op_type):
        return sorted((n for n in self.node if n.op == op_type), key=lambda n: n.attr["index"])

    @property
    def arg_types(self):
        return [n.attr["T"] for n in self._sorted_by_index("_Arg")]

    @property
    def ret_types(self):
        return [n.attr["T"] for n in self._sorted_by_index("_Retval")]

    def __repr__(self):
        return "FunctionDef(%s, %d nodes)" % (self.name, len(self.node))

    def _results(self):
        return [(n.attr["index"], n.attr["T"], n.input) for n in self._sorted_by_index("_Retval")]

    def __eq__(self, other):
        """Same name, same nodes, same results (a `_Retval` node's own name is not part of
        the function: TensorFlow's FunctionDef keeps only what each result reads)."""
        body = [n for n in self.node if n.op != "_Retval"]
        other_body = [n for n in other.node if n.op != "_Retval"] \
            if isinstance(other, FunctionDef) else None
        return (isinstance(other, FunctionDef) and self.name == other.name
                and body == other_body and self._results() == other._results())


def format_node(node):
    """One readable line for a NodeDef, as the tour and the docs print it."""
    attrs = ", ".join("%s=%s" % (k, _format_attr(v)) for k, v in sorted(node.attr.items())
                      if not k.startswith("_"))
    device = " @ %s" % node.device if node.device else ""
    return "%s = %s(%s)%s%s" % (node.name, node.op, ", ".join(node.input),
                                " {%s}" % attrs if attrs else "", device)


def _format_attr(value):
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=6) if value.size <= 6 else "<%s %s>" % (
            value.dtype, list(value.shape))
    if isinstance(value, dtypes.DType):
        return value.name
    return str(value)


# --- input strings -----------------------------------------------------------------

def parse_input(text):
    """`"x"` -> ("x", 0, False); `"x:1"` -> ("x", 1, False); `"^x"` -> ("x", -1, True)."""
    is_control = text.startswith("^")
    name, colon, index = text[1:].partition(":") if is_control else text.partition(":")
    if not name or (colon and (is_control or not index.isdigit())):
        raise ValueError("Malformed input %r: expected 'node', 'node:<index>' or '^node'"
                         % text)
    if is_control:
        return name, -1, True
    return name, int(index) if colon else 0, False


def tensor_name(node_name, index):
    """The input string of output `index` of `node_name` ("x" for output 0, else "x:1")."""
    return node_name if index == 0 else "%s:%d" % (node_name, index)


# --- attr values ----------------------------------------------------------------

def attr_values_equal(a, b):
    """True when two attr values are the same value (arrays by dtype, shape and elements)."""
    if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        a, b = np.asarray(a), np.asarray(b)
        return (a.dtype == b.dtype and a.shape == b.shape
                and bool(np.all((a == b) | ((a != a) & (b != b)))))  # NaN equals NaN here
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
                and len(a) == len(b) and all(attr_values_equal(x, y) for x, y in zip(a, b)))
    if isinstance(a, tensor_shape.TensorShape) and isinstance(b, tensor_shape.TensorShape):
        return a.dims is None and b.dims is None or (
            a.dims is not None and b.dims is not None and a.as_list() == b.as_list())
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b
