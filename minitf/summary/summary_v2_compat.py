"""The TF 2 summary names that TF 1.15's `tf.summary` keeps, and a description reader.

TensorFlow 2 writes summaries with ops that run a writer resource
(`tf.summary.create_file_writer`, `tf.contrib.summary` in 1.x). Its ops
gather in the collection `_SUMMARY_V2`, and before they run the writer
must be initialized. minitf has only the TF 1 summaries (ops that give
`Summary` bytes, a FileWriter that writes them), so:

* `all_v2_summary_ops()` is the `_SUMMARY_V2` collection: empty unless a
  program adds to it;
* `initialize()` fails as TensorFlow's does when no TF 2 writer was made;
* `get_summary_description(node_def)` reads the JSON description a v1
  `TensorSummary` node carries into a `SummaryDescription`.

Mirrors `tensorflow/python/summary/summary.py` (get_summary_description)
and `tensorflow/python/ops/summary_ops_v2.py` (all_v2_summary_ops, initialize).
"""

from minitf.graph import ops

__all__ = ["all_v2_summary_ops", "get_summary_description", "initialize"]


def all_v2_summary_ops():
    """The TF 2 summary ops of the default graph (the `_SUMMARY_V2` collection)."""
    return ops.get_collection(ops.GraphKeys._SUMMARY_COLLECTION)


def initialize(graph=None, session=None):
    """Initializes the default TF 2 summary writer; there is none in minitf, as in a TF 1.15
    program that made none, so this raises RuntimeError."""
    del graph, session
    raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")


def get_summary_description(node_def):
    """The SummaryDescription of a `TensorSummary` NodeDef, parsed from its `description`
    attr (JSON)."""
    from google.protobuf import json_format  # noqa: PLC0415 - protobuf, loaded only when used

    from minitf.proto import summary_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    if node_def.op != "TensorSummary":
        raise ValueError("Can't get_summary_description on %s" % node_def.op)
    description = node_def.attr.get("description", b"")
    description = getattr(description, "s", description)
    if isinstance(description, bytes):
        description = description.decode("utf-8")
    summary_description = summary_pb2.SummaryDescription()
    json_format.Parse(description, summary_description)
    return summary_description
