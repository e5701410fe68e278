"""`tf.summary`: what a model shows TensorBoard, and the event files it is written to.

The summary ops (`summary.py`) make, in the graph, the bytes of `Summary`
messages; a FileWriter (`writer.py`, `event_file_writer.py`) writes them,
the graph and traced steps as `Event` records of an event file, which
`tf.train.summary_iterator` reads back. The messages themselves
(`tf.summary.Summary`, `Event`, `SessionLog`, ...) are the classes generated
from `minitf/proto/summary.proto` and `event.proto`; looking one up loads
protobuf, which `import minitf` must not.

Mirrors the `tf.summary` namespace of TF 1.15.
"""

from minitf.graph import tf1_api as _tf1_api
from minitf.summary.summary import (audio, histogram, image, merge, merge_all,  # noqa: F401
                                    scalar, tensor_summary, text)
from minitf.summary.summary_v2_compat import (all_v2_summary_ops,  # noqa: F401
                                              get_summary_description, initialize)
from minitf.summary.writer import FileWriter  # noqa: F401
from minitf.summary.writer_cache import FileWriterCache  # noqa: F401

# Message classes: name -> the generated module that holds it.
PROTO_CLASSES = {"Summary": "summary_pb2", "SummaryDescription": "summary_pb2",
                 "SummaryMetadata": "summary_pb2", "HistogramProto": "summary_pb2",
                 "Event": "event_pb2", "SessionLog": "event_pb2", "LogMessage": "event_pb2",
                 "TaggedRunMetadata": "event_pb2"}


def proto_class(name):
    """The generated message class `name` of PROTO_CLASSES (imports protobuf)."""
    import importlib  # noqa: PLC0415 - protobuf, loaded only when used
    return getattr(importlib.import_module("minitf.proto." + PROTO_CLASSES[name]), name)


# The ones TF 1.15 exports as tf.summary.<name> (tf.<name> has others, `minitf/__init__.py`).
_EXPORTED = ("Event", "SessionLog", "Summary", "SummaryDescription", "TaggedRunMetadata")


def __getattr__(name):
    if name in _EXPORTED:
        return proto_class(name)
    raise _tf1_api.missing_name_error("tf.summary", __name__, name)
