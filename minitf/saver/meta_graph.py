"""Meta graphs: a graph, its collections and its Saver, as one file (`model.ckpt.meta`).

A checkpoint holds only numbers. To continue training in a new process
without the model code, that process also needs the graph itself, the
collections that say which ops matter (`train_op`, `losses`, the variables)
and how the Saver's own nodes are named. A `MetaGraphDef` is exactly that:

    meta_info_def   versions, tags and the OpDefs of the ops the graph uses
    graph_def       the GraphDef (with each node's output shapes)
    saver_def       the Saver's SaverDef, or None
    collection_def  {collection name: CollectionDef}

`tf.train.Saver.save` writes one next to each checkpoint (`<prefix>.meta`);
`tf.train.import_meta_graph` reads it back into the default graph: it
imports the nodes, rebuilds the collections (the variables become Variable
objects again, wrapped around the imported nodes) and returns a Saver built
from the SaverDef, ready to `restore`:

    saver = tf.train.import_meta_graph("/tmp/model.ckpt-100.meta")
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint("/tmp"))
        train_op = tf.get_collection("train_op")[0]
        sess.run(train_op)

This module imports the nodes and the collections; the function users
call, which also makes the Saver, is in `saver.py`. As in TensorFlow, the
Saver builds on meta graphs, and this module does not know the Saver.

A collection is stored by the kind of its items (the first item decides, as
in TF):

| kind            | items                       | stored in TensorFlow's CollectionDef as     |
|-----------------|-----------------------------|---------------------------------------------|
| `variable_list` | Variables, under a variable | `bytes_list` of serialized VariableDefs     |
|                 | collection's key            | (the names of their nodes)                  |
| `saver_list`    | Savers, under `savers`      | `bytes_list` of serialized SaverDefs        |
| `node_list`     | Operations, Tensors         | names ("train", "loss:0")                   |
| `bytes_list`    | str, bytes                  | bytes                                       |
| `int64_list`    | ints                        | ints                                        |
| `float_list`    | floats                      | float32s                                    |

A collection of anything else (or of mixed kinds) is left out with a
warning, as TF does. Like TF, strings come back as bytes, and an import
scope is prepended to them as if they were node names.

The file is TensorFlow's MetaGraphDef protocol buffer
(`meta_graph_proto.py`): TensorFlow's `import_meta_graph` reads minitf's
`.meta` files and minitf reads TensorFlow's. `as_text=True` writes
TensorFlow's text format instead, which the reader also accepts. Reading
one runs no code.

`tf.train.write_graph` writes a GraphDef (or a MetaGraphDef) to a file,
atomically: readers see the old file or the new one, never half of one.

Differences from TensorFlow: a graph exported with `export_scope` whose
nodes read tensors from outside the scope records those "unbound inputs"
as TF does, but cannot be imported (minitf's `import_graph_def` maps only
inputs of nodes the GraphDef holds); signature defs are kept as
TensorFlow's messages, untouched.

Mirrors `tensorflow/python/framework/meta_graph.py`,
`tensorflow/python/training/saver.py` (`export_meta_graph`),
`tensorflow/python/framework/graph_io.py` and
`tensorflow/core/protobuf/meta_graph.proto`.
"""

import copy
import logging
import os
import re
import tempfile

import numpy as np

from minitf.framework import op_def as op_def_lib
from minitf.graph import graph_def as graph_def_lib
from minitf.graph import importer
from minitf.graph import ops
from minitf.graph import versions
from minitf.ops import variables

__all__ = ["export_meta_graph", "write_graph"]

_logger = logging.getLogger("minitf")

FORMAT_VERSION = 1
_UNBOUND_INPUT_PREFIX = "$unbound_inputs_"
# The op types that make up a Saver's save and restore subgraphs.
_SAVE_AND_RESTORE_OPS = ("SaveV2", "Save", "SaveSlice", "MergeV2Checkpoints", "RestoreV2",
                         "Restore", "RestoreSlice")


# =============================================================================
# The MetaGraphDef as data
# =============================================================================

class OpList:
    """The OpDefs (`minitf/framework/op_def.py`) of the ops a graph uses (TF's `OpList`)."""

    def __init__(self, op=None):
        self.op = list(op or [])

    def __repr__(self):
        return "OpList(%s)" % ", ".join(op.name for op in self.op)


class MetaInfoDef:
    """Facts about the meta graph: versions, tags, the OpDefs of the ops its graph uses."""

    def __init__(self, meta_graph_version="", stripped_op_list=None, tags=None,
                 tensorflow_version="", tensorflow_git_version="",
                 stripped_default_attrs=False):
        self.meta_graph_version = meta_graph_version
        self.stripped_op_list = stripped_op_list if stripped_op_list is not None else OpList()
        self.tags = list(tags or [])
        self.tensorflow_version = tensorflow_version
        self.tensorflow_git_version = tensorflow_git_version
        self.stripped_default_attrs = stripped_default_attrs


class VariableDef:
    """A variable as the names of its nodes (TF's `variable.proto`).

    `Variable(variable_def=..., import_scope=...)` wraps those nodes again.
    """

    FIELDS = {"variable_name": str, "initial_value_name": str, "initializer_name": str,
              "snapshot_name": str, "trainable": bool, "synchronization": int,
              "aggregation": int, "is_resource": bool}

    def __init__(self, variable_name="", initial_value_name="", initializer_name="",
                 snapshot_name="", trainable=False, synchronization=0, aggregation=0,
                 is_resource=False):
        self.variable_name = variable_name
        self.initial_value_name = initial_value_name
        self.initializer_name = initializer_name
        self.snapshot_name = snapshot_name
        self.trainable = trainable
        self.synchronization = synchronization
        self.aggregation = aggregation
        self.is_resource = is_resource

    def __repr__(self):
        return "VariableDef(%r)" % self.variable_name


class SaverDef:
    """How a Saver's nodes are named and how it keeps checkpoints (TF's `saver.proto`)."""

    LEGACY, V1, V2 = 0, 1, 2
    FIELDS = {"filename_tensor_name": str, "save_tensor_name": str, "restore_op_name": str,
              "max_to_keep": int, "sharded": bool, "keep_checkpoint_every_n_hours": float,
              "version": int}

    def __init__(self, filename_tensor_name="", save_tensor_name="", restore_op_name="",
                 max_to_keep=0, sharded=False, keep_checkpoint_every_n_hours=0.0, version=0):
        self.filename_tensor_name = filename_tensor_name
        self.save_tensor_name = save_tensor_name
        self.restore_op_name = restore_op_name
        self.max_to_keep = max_to_keep
        self.sharded = sharded
        self.keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self.version = version

    def to_dict(self):
        return saver_def_as_dict(self)

    @classmethod
    def from_dict(cls, data):
        """A SaverDef from a dict of its fields (ValueError naming an unknown one)."""
        unknown = set(data) - set(cls.FIELDS)
        if unknown:
            raise ValueError("a SaverDef has no fields %s" % sorted(unknown))
        return cls(**data)

    def __eq__(self, other):
        return isinstance(other, SaverDef) and saver_def_as_dict(self) == saver_def_as_dict(other)

    def __repr__(self):
        return "SaverDef(%r)" % saver_def_as_dict(self)


def saver_def_as_dict(saver_def):
    """Any object with SaverDef's fields (the Saver's own class, say) as a plain dict."""
    return {"filename_tensor_name": str(saver_def.filename_tensor_name),
            "save_tensor_name": str(saver_def.save_tensor_name),
            "restore_op_name": str(saver_def.restore_op_name),
            "max_to_keep": int(saver_def.max_to_keep),
            "sharded": bool(saver_def.sharded),
            "keep_checkpoint_every_n_hours": float(saver_def.keep_checkpoint_every_n_hours),
            "version": int(getattr(saver_def.version, "value", saver_def.version))}


class CollectionDef:
    """One collection: its kind (see the module docstring) and its stored values."""

    KINDS = ("node_list", "bytes_list", "int64_list", "float_list", "variable_list",
             "saver_list")

    def __init__(self, kind, value):
        if kind not in self.KINDS:
            raise ValueError("Unknown collection kind %r (expected one of %s)"
                             % (kind, ", ".join(self.KINDS)))
        self.kind = kind
        self.value = list(value)

    def WhichOneof(self, oneof_group="kind"):  # noqa: N802 - the protobuf method name
        return self.kind

    def __repr__(self):
        return "CollectionDef(%s, %d values)" % (self.kind, len(self.value))


class MetaGraphDef:
    """A GraphDef with its collections, its SaverDef and facts about it (`meta_graph.proto`)."""

    def __init__(self, meta_info_def=None, graph_def=None, saver_def=None,
                 collection_def=None, signature_def=None):
        self.meta_info_def = meta_info_def or MetaInfoDef()
        self.graph_def = graph_def or graph_def_lib.GraphDef()
        self.saver_def = saver_def
        self.collection_def = dict(collection_def or {})
        self.signature_def = dict(signature_def or {})  # {key: TensorFlow's SignatureDef}

    def HasField(self, name):  # noqa: N802 - the protobuf method name
        return getattr(self, name, None) is not None

    def __repr__(self):
        return "MetaGraphDef(%d nodes, collections %s, %s)" % (
            len(self.graph_def.node), sorted(self.collection_def),
            "a SaverDef" if self.saver_def is not None else "no SaverDef")

    def __eq__(self, other):
        return (isinstance(other, MetaGraphDef)
                and self.SerializeToString() == other.SerializeToString())

    def SerializeToString(self):  # noqa: N802 - the protobuf method name
        """The bytes of TensorFlow's MetaGraphDef message (what a `.meta` file holds)."""
        from minitf.saver import meta_graph_proto  # noqa: PLC0415 - cycle: it imports this module
        return meta_graph_proto.serialize(self)

    @classmethod
    def FromString(cls, data):  # noqa: N802 - the protobuf method name
        """Parses a MetaGraphDef message's bytes; ValueError when they are not one."""
        from minitf.saver import meta_graph_proto  # noqa: PLC0415 - cycle: it imports this module
        return meta_graph_proto.parse(bytes(data))

    def to_text(self):
        """The MetaGraphDef in TensorFlow's text format."""
        from minitf.saver import meta_graph_proto  # noqa: PLC0415 - cycle: it imports this module
        return meta_graph_proto.to_text(self)

    @classmethod
    def from_text(cls, text):
        """Parses TensorFlow's text format of a MetaGraphDef; ValueError when it is not one."""
        from minitf.saver import meta_graph_proto  # noqa: PLC0415 - cycle: it imports this module
        return meta_graph_proto.from_text(text)


# =============================================================================
# Export
# =============================================================================

def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """Returns the MetaGraphDef of `graph` (default: the default graph); writes it if asked.

    Args:
      filename: where to write it (directories are created); None writes nothing.
      meta_info_def: a MetaInfoDef to start from (versions and op list are filled in).
      graph_def: the GraphDef to store; default `graph.as_graph_def(add_shapes=True)`.
      saver_def: the SaverDef of the Saver that restores this graph, or None.
      collection_list: the collection names to store; default all of the graph's.
      as_text: write TensorFlow's text format instead of the binary message.
      export_scope: store only the nodes (and collection items) under this
        name scope, with the scope stripped from their names.
      clear_devices: drop every node's device, to import it anywhere.
      clear_extraneous_savers: drop the nodes of other Savers than `saver_def`'s
        and the `savers` collection.
      strip_default_attrs: drop attrs whose value is their OpDef's default.
      save_debug_info: also write `<filename minus extension>.debug`: each
        node's creation stack (file, line, function), as TensorFlow's
        GraphDebugInfo message (in its text format when `as_text`).
    """
    unbound_inputs_col_name = kwargs.pop("unbound_inputs_col_name", "unbound_inputs")
    if kwargs:
        raise TypeError("export_meta_graph() got unexpected keyword arguments: %s"
                        % ", ".join(sorted(kwargs)))
    graph = graph or ops.get_default_graph()
    export_scope = _scope_without_slash(export_scope)
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    exclude = (_extraneous_saver_nodes(graph_def, saver_def) if clear_extraneous_savers
               else set())
    unbound_inputs = []
    nodes = [_exported_node(node, export_scope, unbound_inputs, clear_devices)
             for node in graph_def.node
             if node.name not in exclude and _in_scope(node.name, export_scope)]
    if strip_default_attrs:
        for node in nodes:
            _strip_default_attrs(node)
    meta_graph_def = MetaGraphDef(
        meta_info_def=_meta_info_def(meta_info_def, nodes, strip_default_attrs),
        graph_def=graph_def_lib.GraphDef(nodes, graph_def.version),
        saver_def=saver_def)
    if collection_list is None:
        collection_list = graph.get_all_collection_keys()
    for key in collection_list:
        if clear_extraneous_savers and key == ops.GraphKeys.SAVERS:
            continue
        collection_def = _collection_def(graph, key, export_scope, exclude)
        if collection_def is not None:
            meta_graph_def.collection_def[key] = collection_def
    if unbound_inputs:
        meta_graph_def.collection_def[unbound_inputs_col_name] = CollectionDef(
            "bytes_list", [name.encode("utf-8") for name in sorted(set(unbound_inputs))])
    if filename:
        write_graph(meta_graph_def, os.path.dirname(filename), os.path.basename(filename),
                    as_text=as_text)
        if save_debug_info:
            _write_debug_info(graph, meta_graph_def, filename, export_scope, as_text)
    return meta_graph_def


def _meta_info_def(meta_info_def, nodes, strip_default_attrs):
    info = copy.deepcopy(meta_info_def) if meta_info_def is not None else MetaInfoDef()
    info.stripped_op_list = OpList([op_def_lib.get_op_def(op) for op in sorted({n.op for n in nodes})
                                    if op_def_lib.is_registered(op)])
    info.tensorflow_version = info.tensorflow_version or versions.__version__
    info.stripped_default_attrs = bool(strip_default_attrs)
    return info


def _exported_node(node, export_scope, unbound_inputs, clear_devices):
    """A copy of `node` with `export_scope` stripped from its name, inputs and colocations.

    An input from outside the scope becomes `$unbound_inputs_<name>` and is
    recorded in `unbound_inputs`: an importer must map it to a tensor.
    """
    node = node.copy()
    node.name = strip_name_scope(node.name, export_scope)
    inputs = []
    for text in node.input:
        if _in_scope(text.lstrip("^"), export_scope):
            inputs.append(strip_name_scope(text, export_scope))
        else:
            caret = "^" if text.startswith("^") else ""
            inputs.append(caret + _UNBOUND_INPUT_PREFIX + text.lstrip("^"))
            unbound_inputs.append(inputs[-1])
    node.input = inputs
    if "_class" in node.attr:
        node.attr["_class"] = [strip_name_scope(group, export_scope)
                               for group in node.attr["_class"]
                               if _in_scope(group.split("@", 1)[-1], export_scope)]
    if clear_devices:
        node.device = ""
    return node


def _strip_default_attrs(node):
    """Drops the attrs of `node` whose value equals their default in the op's OpDef."""
    if not op_def_lib.is_registered(node.op):
        return
    for name, attr in op_def_lib.get_op_def(node.op).attrs.items():
        if (attr.has_default and name in node.attr
                and graph_def_lib.attr_values_equal(node.attr[name], attr.default)):
            del node.attr[name]


def _extraneous_saver_nodes(graph_def, saver_def):
    """The names of the nodes of Savers other than the one `saver_def` describes.

    A Saver's nodes live under one scope (`save/`, `save_1/`, ...), found
    through the save and restore ops in it.
    """
    keep = set()
    if saver_def is not None:
        keep.add(_scope_of(_op_name(saver_def.save_tensor_name)) + "/")
        keep.add(_scope_of(_op_name(saver_def.restore_op_name)) + "/")
    saver_nodes = {n.name for n in graph_def.node if n.op in _SAVE_AND_RESTORE_OPS}
    saver_scopes = {_scope_of(name) + "/" for name in saver_nodes
                    if _scope_of(name) not in saver_nodes}
    extraneous = saver_scopes - keep
    return {n.name for n in graph_def.node
            if any(n.name.startswith(scope) for scope in extraneous)}


# --- collections ---------------------------------------------------------------------

def _collection_def(graph, key, export_scope, exclude):
    """The CollectionDef of one collection, or None when it is empty or cannot be stored."""
    items = [item for item in graph.get_collection(key)
             if _item_in_export(item, export_scope, exclude)]
    if not items:
        return None
    kind = _kind_of(items[0], key)
    problem = _unstorable(items, kind, key)
    if problem:
        _logger.warning("Issue encountered when serializing: %s.\nType is unsupported, or the "
                        "types of the items don't match field type in CollectionDef. Note "
                        "this is a warning and probably safe to ignore.\n%s", key, problem)
        return None
    if kind == "node_list":
        values = [strip_name_scope(item.name, export_scope) for item in items]
    elif kind == "variable_list":
        values = [_variable_def(v, export_scope) for v in items]
    elif kind == "saver_list":
        values = [item.saver_def for item in items]
    elif kind == "int64_list":
        values = [int(item) for item in items]
    elif kind == "float_list":
        values = [float(item) for item in items]
    else:  # bytes_list: stored as bytes, as TF does
        values = [item.encode("utf-8") if isinstance(item, str) else item for item in items]
    return CollectionDef(kind, values)


# The collections whose items TensorFlow stores as serialized protos, by key
# (TF's `ops.register_proto_function`): a Variable elsewhere is stored by name.
VARIABLE_COLLECTIONS = frozenset([
    ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.TRAINABLE_VARIABLES,
    ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.MODEL_VARIABLES,
    ops.GraphKeys.MOVING_AVERAGE_VARIABLES, ops.GraphKeys.GLOBAL_STEP, "metric_variables"])
SAVER_COLLECTIONS = frozenset([ops.GraphKeys.SAVERS])


def _kind_of(item, key):
    if isinstance(item, variables.Variable) and key in VARIABLE_COLLECTIONS:
        return "variable_list"
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, (int, np.integer)):  # bools too, as in TF
        return "int64_list"
    if isinstance(item, (float, np.floating)):
        return "float_list"
    if _is_saver(item) and key in SAVER_COLLECTIONS:
        return "saver_list"
    return "node_list"


def _unstorable(items, kind, key):
    """Why `items` cannot be stored as `kind` (a message), or None when they can."""
    for item in items:
        if kind == "node_list":
            if not isinstance(item, (ops.Tensor, ops.Operation, variables.Variable)):
                return "%r is not an Operation, a Tensor or a Variable" % (item,)
        elif kind == "variable_list" and not isinstance(item, variables.Variable):
            return "%r is not a Variable, as the collection's first item is" % (item,)
        elif kind != "variable_list" and _kind_of(item, key) != kind:
            return "%r does not fit a %s" % (item, kind)
    return None


def _is_saver(item):
    return hasattr(item, "saver_def") and hasattr(item, "restore")


def _item_in_export(item, export_scope, exclude):
    """Like TF: items named outside the scope (strings count as names) are left out."""
    name = item if isinstance(item, str) else getattr(item, "name", None)
    if not isinstance(name, str):
        return True
    node_name = name.lstrip("^").split(":")[0]
    if node_name in exclude:
        return False
    return node_name.startswith(_UNBOUND_INPUT_PREFIX) or _in_scope(node_name, export_scope)


def _variable_def(variable, export_scope):
    """The VariableDef naming `variable`'s nodes (TF's `Variable.to_proto`)."""
    initial_value = variable.initial_value
    return VariableDef(
        variable_name=strip_name_scope(variable._ref().name, export_scope),
        initial_value_name=("" if initial_value is None
                            else strip_name_scope(initial_value.name, export_scope)),
        initializer_name=strip_name_scope(variable.initializer.name, export_scope),
        snapshot_name=strip_name_scope(variable.value().name, export_scope),
        trainable=bool(variable.trainable),
        synchronization=variable.synchronization.value,
        aggregation=variable.aggregation.value)


def _write_debug_info(graph, meta_graph_def, filename, export_scope, as_text):
    """Each exported node's creation stack, for error messages about a loaded graph."""
    from google.protobuf import text_format  # noqa: PLC0415 - protobuf is loaded only when used
    from minitf.proto import graph_debug_info_pb2  # noqa: PLC0415 - only when used
    info = graph_debug_info_pb2.GraphDebugInfo()
    file_index = {}
    for node in meta_graph_def.graph_def.node:
        full_name = export_scope + "/" + node.name if export_scope else node.name
        op = graph._nodes_by_name.get(full_name)
        if op is None:
            continue
        trace = info.traces[node.name]
        for file_name, line, function in op.traceback:
            if file_name not in file_index:
                file_index[file_name] = len(info.files)
                info.files.append(file_name)
            trace.file_line_cols.add(file_index=file_index[file_name], line=line, func=function)
    content = (text_format.MessageToString(info).encode("utf-8") if as_text
               else info.SerializeToString(deterministic=True))
    _atomic_write(os.path.splitext(filename)[0] + ".debug", content)


# =============================================================================
# Import
# =============================================================================

def import_scoped_meta_graph_with_return_elements(
        meta_graph_def, saver_from_def, clear_devices=False, import_scope=None, graph=None,
        input_map=None, unbound_inputs_col_name="unbound_inputs",
        restore_collections_predicate=(lambda key: True), return_elements=None):
    """Imports the nodes of `meta_graph_def` into `graph` and rebuilds its collections.

    `saver_from_def(saver_def, name)` turns a SaverDef that a collection
    stored back into a Saver; `tf.train.import_meta_graph` (in `saver.py`)
    passes it, as TF's saver.py registers `Saver.from_proto` for this.
    Returns the scope the names were put under ("" for none) and the
    imported `return_elements`.
    """
    graph = graph or ops.get_default_graph()
    with graph.as_default():
        _check_unbound_inputs(meta_graph_def, unbound_inputs_col_name, input_map)
        scope = graph.unique_name(import_scope, mark_as_used=False) if import_scope else ""
        returned = importer.import_graph_def(
            _graph_def_to_import(meta_graph_def.graph_def, clear_devices),
            input_map=input_map, return_elements=return_elements, name=import_scope or "",
            producer_op_list=meta_graph_def.meta_info_def.stripped_op_list)
        _restore_collections(graph, meta_graph_def, scope, unbound_inputs_col_name,
                             restore_collections_predicate, saver_from_def)
    return scope, returned


def read_meta_graph_file(filename):
    """The MetaGraphDef stored in `filename`; OSError when it is missing or malformed."""
    if not os.path.exists(filename):
        raise OSError("File %s does not exist." % filename)
    with open(filename, "rb") as f:
        content = f.read()
    try:
        return MetaGraphDef.FromString(content)
    except ValueError:
        pass  # not the binary message: perhaps its text format, as TF tries next
    try:
        return MetaGraphDef.from_text(content)
    except (ValueError, UnicodeDecodeError) as e:
        raise OSError("Cannot parse file %s: %s." % (filename, e)) from None


def _check_unbound_inputs(meta_graph_def, col_name, input_map):
    collection = meta_graph_def.collection_def.get(col_name)
    if collection is None or not collection.value:
        return
    names = [value.decode("utf-8") for value in collection.value]
    missing = [name for name in names if name not in (input_map or {})]
    if missing:
        raise ValueError("Graph contains unbound inputs: %s. Must provide these inputs "
                         "through input_map." % ",".join(missing))
    raise ValueError("Graph contains unbound inputs: %s. minitf cannot import a meta graph "
                     "exported with inputs from outside its export_scope." % ",".join(names))


def _graph_def_to_import(graph_def, clear_devices):
    """A copy without the `_output_shapes` hints (shapes are inferred again on import)."""
    nodes = []
    for node in graph_def.node:
        node = node.copy()
        node.attr.pop("_output_shapes", None)
        if clear_devices:
            node.device = ""
        nodes.append(node)
    return graph_def_lib.GraphDef(nodes, graph_def.version)


def _restore_collections(graph, meta_graph_def, scope, unbound_inputs_col_name, predicate,
                         saver_from_def):
    """Adds each stored collection's items, rebuilt, to the graph's collections."""
    variables_by_name = {}  # one Variable object per variable, whichever collections list it
    for key in sorted(meta_graph_def.collection_def):
        if key == unbound_inputs_col_name or not predicate(key):
            continue
        collection_def = meta_graph_def.collection_def[key]
        for value in collection_def.value:
            graph.add_to_collection(key, _restored_item(graph, collection_def.kind, value,
                                                        scope, variables_by_name,
                                                        saver_from_def))


def _restored_item(graph, kind, value, scope, variables_by_name, saver_from_def):
    if kind == "node_list":
        return graph.as_graph_element(prepend_name_scope(value, scope))
    if kind == "variable_list":
        name = prepend_name_scope(value.variable_name, scope)
        if name not in variables_by_name:
            variables_by_name[name] = variables.Variable(variable_def=value,
                                                         import_scope=scope)
        return variables_by_name[name]
    if kind == "bytes_list":
        return prepend_name_scope(value.decode("utf-8", "replace"), scope) if scope else value
    if kind == "saver_list":
        return saver_from_def(value, scope or None)
    return value  # int64_list, float_list


# =============================================================================
# write_graph
# =============================================================================

def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a graph's GraphDef to `logdir/name`, atomically; returns the path.

    `graph_or_graph_def` is a Graph, a GraphDef or a MetaGraphDef. With
    `as_text` it is written in TensorFlow's text format; otherwise as the
    bytes of TensorFlow's message (`GraphDef.FromString` reads them, and so
    does TensorFlow).
    """
    if isinstance(graph_or_graph_def, ops.Graph):
        graph_def = graph_or_graph_def.as_graph_def()
    elif isinstance(graph_or_graph_def, (graph_def_lib.GraphDef, MetaGraphDef)):
        graph_def = graph_or_graph_def
    else:
        raise TypeError("write_graph expects a Graph, a GraphDef or a MetaGraphDef, got %s"
                        % type(graph_or_graph_def).__name__)
    if logdir:
        os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        _atomic_write(path, _as_text(graph_def).encode("utf-8"))
    else:
        _atomic_write(path, graph_def.SerializeToString())
    return path


def _as_text(graph_def):
    if isinstance(graph_def, MetaGraphDef):
        return graph_def.to_text()
    from minitf.graph import graph_def_proto  # noqa: PLC0415 - protobuf is loaded only when used
    return graph_def_proto.graph_def_to_text(graph_def)


def _atomic_write(path, data):
    """Writes a temporary file beside `path`, then renames it over `path`."""
    directory = os.path.dirname(path) or "."
    fd, tmp_path = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        if os.path.exists(tmp_path):
            os.remove(tmp_path)
        raise


# =============================================================================
# Names and scopes
# =============================================================================

def strip_name_scope(name, export_scope):
    """`scope/x` -> `x` (also for `^scope/x` and `loc:@scope/x`); other names unchanged."""
    if not export_scope:
        return name
    pattern = r"([\^]|loc:@|^)" + re.escape(export_scope.rstrip("/")) + r"[\/]+(.*)"
    return re.sub(pattern, r"\1\2", name, count=1)


def prepend_name_scope(name, import_scope):
    """`x` -> `scope/x` (also for `^x` and `loc:@x`)."""
    if not import_scope:
        return name
    return re.sub(r"([\^]|loc:@|^)(.*)", lambda m: m.group(1) + import_scope.rstrip("/")
                  + "/" + m.group(2), name, count=1)


def _scope_without_slash(scope):
    return scope.rstrip("/") if scope else scope


def _in_scope(name, scope):
    """Is the node `name` (or a tensor of it) inside the name scope `scope`?"""
    if not scope:
        return True
    node_name = name.split(":")[0]
    return node_name == scope or node_name.startswith(scope + "/")


def _op_name(tensor_name):
    return tensor_name.lstrip("^").split(":")[0]


def _scope_of(node_name):
    return node_name.rsplit("/", 1)[0] if "/" in node_name else ""
