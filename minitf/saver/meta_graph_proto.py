"""MetaGraphDef as TensorFlow's protocol buffer: the bytes of a `.meta` file, and back.

minitf's MetaGraphDef and the classes inside it (`meta_graph.py`) are
plain Python; this module converts them to and from TensorFlow's messages
(`minitf/proto/meta_graph.proto`, `saver.proto`, `variable.proto`,
`op_def.proto`), so that TensorFlow's `import_meta_graph` reads minitf's
`.meta` files and minitf reads TensorFlow's.

One translation needs care. TensorFlow's CollectionDef has no kind for
variables or Savers: it stores them in a `bytes_list`, each item a
serialized VariableDef or SaverDef, and knows which collections hold such
protos by their keys (`variables`, `trainable_variables`, ..., `savers`).
minitf does the same on writing, and on reading parses the items of those
keys back into VariableDefs and SaverDefs.

This module imports protobuf, so it is imported only when a meta graph
becomes bytes or text.

Mirrors `tensorflow/python/framework/meta_graph.py` (`add_collection_def`,
`import_scoped_meta_graph`'s reading of collections),
`tensorflow/python/ops/variables.py` (`to_proto`, `from_proto`) and
`tensorflow/core/protobuf/meta_graph.proto`.
"""

from minitf.graph import graph_def_proto
from minitf.proto import meta_graph_pb2, saver_pb2, variable_pb2
from minitf.saver import meta_graph


# =============================================================================
# The whole message
# =============================================================================

def serialize(meta_graph_def):
    return graph_def_proto.serialize(to_proto(meta_graph_def))


def parse(data):
    """The MetaGraphDef in the bytes `data`; ValueError when they are not one."""
    return from_proto(graph_def_proto.parse_message(meta_graph_pb2.MetaGraphDef, data))


def to_text(meta_graph_def):
    return graph_def_proto.message_to_text(to_proto(meta_graph_def))


def from_text(text):
    return from_proto(graph_def_proto.text_to_message(text, meta_graph_pb2.MetaGraphDef()))


def to_proto(meta_graph_def):
    """A minitf MetaGraphDef as a `tensorflow.MetaGraphDef` message."""
    proto = meta_graph_pb2.MetaGraphDef()
    proto.meta_info_def.CopyFrom(_meta_info_def_to_proto(meta_graph_def.meta_info_def))
    proto.graph_def.CopyFrom(graph_def_proto.graph_def_to_proto(meta_graph_def.graph_def))
    if meta_graph_def.saver_def is not None:
        proto.saver_def.CopyFrom(saver_def_to_proto(meta_graph_def.saver_def))
    for key, collection in meta_graph_def.collection_def.items():
        proto.collection_def[key].CopyFrom(_collection_def_to_proto(collection))
    for key, signature in meta_graph_def.signature_def.items():
        proto.signature_def[key].CopyFrom(signature)
    return proto


def from_proto(proto):
    """A `tensorflow.MetaGraphDef` message as a minitf MetaGraphDef."""
    return meta_graph.MetaGraphDef(
        meta_info_def=_meta_info_def_from_proto(proto.meta_info_def),
        graph_def=graph_def_proto.graph_def_from_proto(proto.graph_def),
        saver_def=saver_def_from_proto(proto.saver_def) if proto.HasField("saver_def") else None,
        collection_def={key: _collection_def_from_proto(key, value)
                        for key, value in proto.collection_def.items()},
        signature_def=dict(proto.signature_def.items()))


# =============================================================================
# The parts
# =============================================================================

def _meta_info_def_to_proto(info):
    proto = meta_graph_pb2.MetaGraphDef.MetaInfoDef(
        meta_graph_version=info.meta_graph_version, tags=list(info.tags),
        tensorflow_version=info.tensorflow_version,
        tensorflow_git_version=info.tensorflow_git_version,
        stripped_default_attrs=info.stripped_default_attrs)
    for op_def in info.stripped_op_list.op:
        proto.stripped_op_list.op.add().CopyFrom(graph_def_proto.op_def_to_proto(op_def))
    return proto


def _meta_info_def_from_proto(proto):
    return meta_graph.MetaInfoDef(
        meta_graph_version=proto.meta_graph_version,
        stripped_op_list=meta_graph.OpList([graph_def_proto.op_def_from_proto(op)
                                            for op in proto.stripped_op_list.op]),
        tags=list(proto.tags), tensorflow_version=proto.tensorflow_version,
        tensorflow_git_version=proto.tensorflow_git_version,
        stripped_default_attrs=proto.stripped_default_attrs)


def saver_def_to_proto(saver_def):
    """A SaverDef (or any object with its fields, such as a Saver's) as TF's message."""
    return saver_pb2.SaverDef(**meta_graph.saver_def_as_dict(saver_def))


def saver_def_from_proto(proto):
    return meta_graph.SaverDef(
        filename_tensor_name=proto.filename_tensor_name,
        save_tensor_name=proto.save_tensor_name, restore_op_name=proto.restore_op_name,
        max_to_keep=proto.max_to_keep, sharded=proto.sharded,
        keep_checkpoint_every_n_hours=proto.keep_checkpoint_every_n_hours,
        version=proto.version)


def _variable_def_to_proto(variable_def):
    return variable_pb2.VariableDef(**{field: getattr(variable_def, field)
                                       for field in meta_graph.VariableDef.FIELDS})


def _variable_def_from_proto(proto):
    return meta_graph.VariableDef(**{field: getattr(proto, field)
                                     for field in meta_graph.VariableDef.FIELDS})


def _collection_def_to_proto(collection):
    proto = meta_graph_pb2.CollectionDef()
    if collection.kind == "variable_list":
        proto.bytes_list.value.extend(graph_def_proto.serialize(_variable_def_to_proto(v))
                                      for v in collection.value)
    elif collection.kind == "saver_list":
        proto.bytes_list.value.extend(graph_def_proto.serialize(saver_def_to_proto(s))
                                      for s in collection.value)
    else:
        getattr(proto, collection.kind).value.extend(collection.value)
    return proto


def _collection_def_from_proto(key, proto):
    kind = proto.WhichOneof("kind")
    if kind is None:
        return meta_graph.CollectionDef("node_list", [])
    values = list(getattr(proto, kind).value)
    if kind == "bytes_list" and key in meta_graph.VARIABLE_COLLECTIONS:
        return meta_graph.CollectionDef("variable_list", [
            _variable_def_from_proto(_parse(variable_pb2.VariableDef, v, key)) for v in values])
    if kind == "bytes_list" and key in meta_graph.SAVER_COLLECTIONS:
        return meta_graph.CollectionDef("saver_list", [
            saver_def_from_proto(_parse(saver_pb2.SaverDef, v, key)) for v in values])
    return meta_graph.CollectionDef(kind, values)


def _parse(message_class, raw, key):
    try:
        return graph_def_proto.parse_message(message_class, raw)
    except ValueError as e:
        raise ValueError("Collection %r holds an item that is not one: %s" % (key, e)) from None
