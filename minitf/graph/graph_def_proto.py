"""GraphDef as TensorFlow's protocol buffer: minitf's NodeDefs to bytes TensorFlow reads, and back.

minitf's `GraphDef` and `NodeDef` (`graph_def.py`) are plain Python; this
module converts them to and from TensorFlow's messages
(`minitf/proto/graph.proto`, `node_def.proto`, `attr_value.proto`), the
form a GraphDef takes on the wire and in TensorFlow's files. The one
question a conversion must answer is which kind of AttrValue an attr is
(`i` or `f`, `s`, `type`, `shape`, `tensor`, or a `list` of one of them):
the op's OpDef says, when the op is known; otherwise the Python value does
(a `DType` is a type, a `TensorShape` a shape, an array a tensor, ...).
Coming back, string attrs are `str` as minitf keeps them (bytes that are
not UTF-8 stay bytes), shapes are TensorShapes and types DTypes.

A GraphDef also has TensorFlow's *text format* (`graph_def_to_text`,
`graph_def_from_text`), what `tf.io.write_graph(..., as_text=True)` writes:

    node {
      name: "MatMul"
      op: "MatMul"
      input: "x"
      input: "w/read"
      attr { key: "T" value { type: DT_FLOAT } }
      ...
    }
    versions { producer: 134 }

OpDefs convert too (`op_def_to_proto`, `op_def_from_proto`), for a meta
graph's `stripped_op_list`: the OpDefs of the ops its graph uses, as the
program that wrote it knew them.

A `func` attr (a dataset's map function) is, in TensorFlow's messages, only
a name: the function itself goes into the GraphDef's `library`, as a
FunctionDef in TensorFlow's form (a signature of typed arguments, body
nodes whose inputs read `"node:output_arg:index"`, and a `ret` map), which
`function_def_to_proto` and `function_def_from_proto` translate to and from
minitf's `_Arg`/`_Retval` form.

This module imports protobuf, so it is imported only when a GraphDef
becomes bytes or text (`GraphDef.SerializeToString`, `GraphDef.FromString`).

Mirrors the conversions of `tensorflow/python/framework/attr_value` and
`ops.py` (`Operation.node_def`), and `graph.proto`, `node_def.proto`,
`attr_value.proto`.
"""

import numpy as np
from google.protobuf import text_format

from minitf.framework import op_def as op_def_lib
from minitf.graph import dtypes
from minitf.graph import tensor_shape
from minitf.graph import graph_def as graph_def_lib
from minitf.graph.graph_def import FunctionDef, GraphDef, NodeDef
from minitf.graph.tensor_proto import make_ndarray, make_tensor_proto
from minitf.graph.versions import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER
from minitf.proto import attr_value_pb2, function_pb2, graph_pb2, node_def_pb2, op_def_pb2


# =============================================================================
# GraphDef and NodeDef
# =============================================================================

def graph_def_to_proto(graph_def):
    """A minitf GraphDef as a `tensorflow.GraphDef` message.

    Its versions are TensorFlow 1.15's, and the functions its attrs hold go
    into its `library`.
    """
    library = {}
    proto = graph_pb2.GraphDef(node=[node_def_to_proto(n, library) for n in graph_def.node])
    proto.versions.producer = GRAPH_DEF_VERSION
    proto.versions.min_consumer = GRAPH_DEF_VERSION_MIN_CONSUMER
    for name in sorted(library):
        proto.library.function.add().CopyFrom(library[name])
    return proto


def graph_def_from_proto(proto):
    """A `tensorflow.GraphDef` message (or its bytes) as a minitf GraphDef."""
    if isinstance(proto, (bytes, bytearray, memoryview)):
        proto = parse_graph_def(bytes(proto))
    library = _Library(proto.library)
    return GraphDef([node_def_from_proto(n, library) for n in proto.node])


def parse_graph_def(data):
    """The GraphDef message in `data`; ValueError when the bytes are not one."""
    return parse_message(graph_pb2.GraphDef, data)


def parse_message(message_class, data):
    """The `message_class` message in the bytes `data`; ValueError when they are not one."""
    proto = message_class()
    try:
        proto.ParseFromString(data)
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise ValueError("Bytes are not a serialized %s: %s"
                         % (message_class.DESCRIPTOR.name, e)) from None
    return proto


def serialize(message):
    """A message's bytes, map entries sorted by key: the same message always gives the same bytes.

    TensorFlow writes its files this way too (`deterministic=True`).
    """
    return message.SerializeToString(deterministic=True)


def graph_def_to_text(graph_def):
    """A minitf GraphDef in TensorFlow's text format, as `write_graph(as_text=True)` writes it."""
    return message_to_text(graph_def_to_proto(graph_def))


def graph_def_from_text(text):
    """The minitf GraphDef that TensorFlow's text format `text` describes; ValueError if none."""
    return graph_def_from_proto(text_to_message(text, graph_pb2.GraphDef()))


def message_to_text(message):
    """Any message in TensorFlow's text format, as TensorFlow's `write_graph` writes it."""
    return text_format.MessageToString(message)


def text_to_message(text, message):
    """Fills `message` from its text format; ValueError (saying where) when `text` is not one."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    try:
        return text_format.Merge(text, message)
    except text_format.ParseError as e:
        raise ValueError("Text is not a %s in text format: %s"
                         % (message.DESCRIPTOR.name, e)) from None


def node_def_to_proto(node, library=None):
    """A NodeDef as a message; the functions its attrs hold are added to `library` (by name)."""
    op_def = _op_def_or_none(node.op)
    proto = node_def_pb2.NodeDef(name=node.name, op=node.op, input=list(node.input),
                                 device=node.device or "")
    for name, value in node.attr.items():
        attr_type = op_def.attrs[name].type if op_def and name in op_def.attrs else None
        proto.attr[name].CopyFrom(attr_value_to_proto(value, attr_type, library))
    return proto


def node_def_from_proto(proto, library=None):
    return NodeDef(proto.name, proto.op, list(proto.input), proto.device,
                   {name: attr_value_from_proto(value, library)
                    for name, value in proto.attr.items()})


def op_def_to_proto(op_def):
    """A minitf OpDef (`minitf/framework/op_def.py`) as a `tensorflow.OpDef` message."""
    proto = op_def_pb2.OpDef(name=op_def.name, is_stateful=op_def.is_stateful,
                             allows_uninitialized_input=op_def.allows_uninitialized_input)
    for args, protos in ((op_def.input_args, proto.input_arg),
                         (op_def.output_args, proto.output_arg)):
        for arg in args:
            protos.add(name=arg.name, type=arg.dtype.as_datatype_enum if arg.dtype else 0,
                       type_attr=arg.type_attr or "", number_attr=arg.number_attr or "",
                       type_list_attr=arg.type_list_attr or "", is_ref=arg.is_ref)
    for attr in op_def.attrs.values():
        attr_proto = proto.attr.add(name=attr.name, type=attr.type)
        if attr.has_default:
            attr_proto.default_value.CopyFrom(attr_value_to_proto(attr.default, attr.type))
        if attr.minimum is not None:
            attr_proto.has_minimum, attr_proto.minimum = True, attr.minimum
        if attr.allowed_values is not None:
            attr_proto.allowed_values.CopyFrom(attr_value_to_proto(
                list(attr.allowed_values), "list(%s)" % attr.type))
    return proto


def op_def_from_proto(proto):
    """A `tensorflow.OpDef` message as a minitf OpDef (not registered: a description).

    TensorFlow's OpDefs may name dtypes minitf lacks (bfloat16, resource,
    ...): such an arg keeps its dtype's number, and allowed values keep
    only the dtypes minitf has.
    """
    op_def = op_def_lib.OpDef(proto.name)
    for protos, args in ((proto.input_arg, op_def.input_args),
                         (proto.output_arg, op_def.output_args)):
        for arg in protos:
            args.append(op_def_lib.ArgDef(
                arg.name, dtype=_dtype_or_number(arg.type) if arg.type else None,
                type_attr=arg.type_attr or None, number_attr=arg.number_attr or None,
                type_list_attr=arg.type_list_attr or None, is_ref=arg.is_ref))
    for attr in proto.attr:
        allowed = (_known_allowed_values(attr.allowed_values)
                   if attr.HasField("allowed_values") else None)
        attr_def = op_def_lib.AttrDef(attr.name, attr.type, allowed_values=allowed,
                                      minimum=attr.minimum if attr.has_minimum else None)
        if attr.HasField("default_value"):
            attr_def.default = attr_value_from_proto(attr.default_value)
        op_def.attrs[attr.name] = attr_def
    op_def.is_stateful = proto.is_stateful
    op_def.allows_uninitialized_input = proto.allows_uninitialized_input
    return op_def


def _dtype_or_number(type_enum):
    try:
        return dtypes.as_dtype(type_enum)
    except TypeError:
        return type_enum


def _known_allowed_values(proto):
    if proto.list.type:
        known = [t for t in proto.list.type if not isinstance(_dtype_or_number(t), int)]
        return [dtypes.as_dtype(t) for t in known]
    return attr_value_from_proto(proto)


def _op_def_or_none(op_type):
    return op_def_lib.get_op_def(op_type) if op_def_lib.is_registered(op_type) else None


# =============================================================================
# AttrValue
# =============================================================================

def attr_value_to_proto(value, attr_type=None, library=None):
    """An attr's Python value as an AttrValue; `attr_type` is its OpDef type, if known.

    A FunctionDef becomes its name; the function goes into `library`.
    """
    proto = attr_value_pb2.AttrValue()
    if value is None:
        return proto  # no value set: what an unset attr reads back as
    if isinstance(value, FunctionDef):
        if library is None:
            raise TypeError("A function attr (%s) can only be stored in a GraphDef, whose "
                            "library holds the function" % value.name)
        if value.name not in library:
            library[value.name] = None  # taken: a function that refers to itself stops here
            library[value.name] = function_def_to_proto(value, library)
        proto.func.name = value.name
    elif attr_type is not None and attr_type.startswith("list("):
        _fill_list(proto.list, value, attr_type[5:-1])
        proto.list.SetInParent()  # an empty list is still a list
    elif attr_type is None and isinstance(value, (list, tuple)):
        _fill_list(proto.list, value, None)
        proto.list.SetInParent()
    else:
        kind = attr_type if attr_type is not None else _kind_of(value)
        _set_single(proto, kind, value)
    return proto


def _kind_of(value):
    """The AttrValue kind of a Python value, for attrs no OpDef describes."""
    if isinstance(value, dtypes.DType):
        return "type"
    if isinstance(value, tensor_shape.TensorShape):
        return "shape"
    if isinstance(value, (np.ndarray, np.generic)):
        return "tensor"
    if isinstance(value, (str, bytes)):
        return "string"
    if isinstance(value, bool):  # before int: a bool is an int in Python
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    raise TypeError("Cannot store %r (a %s) in an AttrValue" % (value, type(value).__name__))


def _set_single(proto, kind, value):
    if kind == "string":
        proto.s = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    elif kind == "int":
        proto.i = int(value)
    elif kind == "float":
        proto.f = float(value)
    elif kind == "bool":
        proto.b = bool(value)
    elif kind == "type":
        proto.type = dtypes.as_dtype(value).as_datatype_enum
    elif kind == "shape":
        proto.shape.CopyFrom(tensor_shape.as_shape(value).as_proto())
    elif kind == "tensor":
        proto.tensor.CopyFrom(make_tensor_proto(value))
    else:
        raise TypeError("minitf cannot store an attr of type %s" % kind)


def _fill_list(list_value, values, kind):
    for value in values:
        item_kind = kind if kind is not None else _kind_of(value)
        if item_kind == "string":
            list_value.s.append(value.encode("utf-8") if isinstance(value, str) else bytes(value))
        elif item_kind == "int":
            list_value.i.append(int(value))
        elif item_kind == "float":
            list_value.f.append(float(value))
        elif item_kind == "bool":
            list_value.b.append(bool(value))
        elif item_kind == "type":
            list_value.type.append(dtypes.as_dtype(value).as_datatype_enum)
        elif item_kind == "shape":
            list_value.shape.add().CopyFrom(tensor_shape.as_shape(value).as_proto())
        elif item_kind == "tensor":
            list_value.tensor.add().CopyFrom(make_tensor_proto(value))
        else:
            raise TypeError("minitf cannot store a list attr of type %s" % item_kind)


def attr_value_from_proto(proto, library=None):
    """An AttrValue as the Python value minitf keeps in NodeDef.attr."""
    kind = proto.WhichOneof("value")
    if kind == "func":
        if library is None or not library.has(proto.func.name):
            raise ValueError("Function '%s' is not in the GraphDef's library" % proto.func.name)
        return library.get(proto.func.name)
    if kind == "list":
        return _list_from_proto(proto.list)
    if kind == "s":
        return _text_or_bytes(proto.s)
    if kind in ("i", "f", "b"):
        return getattr(proto, kind)
    if kind == "type":
        return dtypes.as_dtype(proto.type)
    if kind == "shape":
        return tensor_shape.TensorShape(proto.shape)
    if kind == "tensor":
        return make_ndarray(proto.tensor)
    if kind is None:
        return None
    raise ValueError("minitf does not support AttrValue '%s' attrs" % kind)


def _list_from_proto(list_value):
    for field in ("s", "i", "f", "b", "type", "shape", "tensor"):
        items = getattr(list_value, field)
        if not items:
            continue
        if field == "s":
            return [_text_or_bytes(s) for s in items]
        if field == "type":
            return [dtypes.as_dtype(t) for t in items]
        if field == "shape":
            return [tensor_shape.TensorShape(s) for s in items]
        if field == "tensor":
            return [make_ndarray(t) for t in items]
        return list(items)
    if list_value.func:
        raise ValueError("minitf does not support list(func) attrs")
    return []


def _text_or_bytes(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


# =============================================================================
# Functions: minitf's _Arg/_Retval bodies and TensorFlow's FunctionDef
# =============================================================================

def _output_names(node):
    """For each output index of a body node, TensorFlow's "output_arg:index" naming of it."""
    op_def = op_def_lib.get_op_def(node.op)
    attrs = op_def.attrs_with_defaults(node.attr)
    names = []
    for arg in op_def.output_args:
        names.extend("%s:%d" % (arg.name, i) for i in range(len(arg.dtypes(attrs))))
    return names


def function_def_to_proto(function, library):
    """A minitf FunctionDef as TensorFlow's: arguments in the signature, inputs renamed."""
    proto = function_pb2.FunctionDef()
    proto.signature.name = function.name
    args = sorted((n for n in function.node if n.op == "_Arg"), key=lambda n: n.attr["index"])
    rets = sorted((n for n in function.node if n.op == "_Retval"),
                  key=lambda n: n.attr["index"])
    arg_names = {n.name for n in args}
    for node in args:
        proto.signature.input_arg.add(name=node.name, type=node.attr["T"].as_datatype_enum)
    body = [n for n in function.node if n.op not in ("_Arg", "_Retval")]
    outputs = {n.name: _output_names(n) for n in body}

    def tf_input(text):
        name, index, is_control = graph_def_lib.parse_input(text)
        if is_control or name in arg_names:
            return text
        return "%s:%s" % (name, outputs[name][index])

    for node in body:
        copy = node.copy()
        copy.input = [tf_input(text) for text in node.input]
        proto.node_def.add().CopyFrom(node_def_to_proto(copy, library))
    for i, node in enumerate(rets):
        output = "output_%d" % i
        proto.signature.output_arg.add(name=output, type=node.attr["T"].as_datatype_enum)
        proto.ret[output] = tf_input(node.input[0])
    return proto


class _Library:
    """The functions of a GraphDef message, turned into minitf's FunctionDefs when first asked."""

    def __init__(self, library_proto):
        self._protos = {f.signature.name: f for f in library_proto.function}
        self._functions = {}

    def has(self, name):
        return name in self._protos

    def get(self, name):
        if name not in self._functions:
            self._functions[name] = function_def_from_proto(self._protos[name], self)
        return self._functions[name]


def function_def_from_proto(proto, library):
    """TensorFlow's FunctionDef as minitf's: `_Arg` and `_Retval` nodes, GraphDef inputs."""
    signature = proto.signature
    nodes = [NodeDef(arg.name, "_Arg", [], "", {"T": dtypes.as_dtype(arg.type), "index": i})
             for i, arg in enumerate(signature.input_arg)]
    body = [node_def_from_proto(n, library) for n in proto.node_def]
    outputs = {n.name: {name: i for i, name in enumerate(_output_names(n))} for n in body}

    def minitf_input(text):
        if text.startswith("^") or ":" not in text:
            return text  # a control input, or an argument
        name, output = text.split(":", 1)
        if output not in outputs.get(name, {}):
            raise ValueError("Function %s: input '%s' names no output of a node"
                             % (signature.name, text))
        return graph_def_lib.tensor_name(name, outputs[name][output])

    for node in body:
        node.input = [minitf_input(text) for text in node.input]
    nodes.extend(body)
    for i, arg in enumerate(signature.output_arg):
        nodes.append(NodeDef("%s_retval_%d" % (signature.name, i), "_Retval",
                             [minitf_input(proto.ret[arg.name])], "",
                             {"T": dtypes.as_dtype(arg.type), "index": i}))
    return FunctionDef(signature.name, nodes)
