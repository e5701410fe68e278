"""`tf.summary.FileWriter`: summaries, graphs and traced steps into an event file.

What a training program writes, and the Event each becomes:

    add_summary(summary, step)      Event(step, summary=Summary)
    add_graph(graph)                Event(graph_def=<GraphDef bytes>)
    add_meta_graph(meta_graph_def)  Event(meta_graph_def=<MetaGraphDef bytes>)
    add_run_metadata(rm, tag, step) Event(step, tagged_run_metadata=(tag, <RunMetadata bytes>))
    add_session_log(log, step)      Event(step, session_log=SessionLog)
    add_event(event)                the Event as it is

Each gets the wall time of the call. A FileWriter made with a graph writes
it at once, as a GraphDef (with each node's output shapes, which
TensorBoard's graph view labels its edges with) and as a MetaGraphDef.

A summary's metadata (which plugin reads it) is written only the first
time its tag is seen: TensorBoard remembers it per tag, and the metadata of
a text or tensor summary is not small.

Mirrors `tensorflow/python/summary/writer/writer.py` (SummaryToEventTransformer,
FileWriter).
"""

import time
import warnings

from minitf.graph import errors, ops
from minitf.graph import graph_def as graph_def_lib
from minitf.saver import meta_graph
from minitf.summary.event_file_writer import EventFileWriter

__all__ = ["FileWriter"]


def _pb2(name):
    import importlib  # noqa: PLC0415 - protobuf, loaded only when used
    return importlib.import_module("minitf.proto." + name)


class SummaryToEventTransformer:
    """Turns summaries, graphs, traced steps and session logs into Events for `event_writer`."""

    def __init__(self, event_writer, graph=None, graph_def=None):
        self.event_writer = event_writer
        self._session_run_tags = {}
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            as_graph_def = (graph.as_graph_def(add_shapes=True)
                            if isinstance(graph, ops.Graph) else graph)
            self.add_meta_graph(meta_graph.export_meta_graph(
                graph_def=_minitf_graph_def(graph_def or as_graph_def),
                graph=graph if isinstance(graph, ops.Graph) else None))
        self._seen_summary_tags = set()

    def add_summary(self, summary, global_step=None):
        """Writes a Summary (a message, or the bytes a summary op returned) at `global_step`."""
        event_pb2, summary_pb2 = _pb2("event_pb2"), _pb2("summary_pb2")
        if isinstance(summary, bytes):
            summary = summary_pb2.Summary.FromString(summary)
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(event_pb2.Event(summary=summary), global_step)

    def add_session_log(self, session_log, global_step=None):
        """Writes a SessionLog: a session's START, STOP or CHECKPOINT."""
        self._add_event(_pb2("event_pb2").Event(session_log=session_log), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes a graph (a tf.Graph, or a GraphDef) for TensorBoard's graph view."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, ops.Graph) or isinstance(graph_def, ops.Graph):
            graph = graph if isinstance(graph, ops.Graph) else graph_def
            true_graph_def = graph.as_graph_def(add_shapes=True)
        elif _is_graph_def(graph) or _is_graph_def(graph_def):
            true_graph_def = graph if _is_graph_def(graph) else graph_def
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated "
                            "`GraphDef`")
        event = _pb2("event_pb2").Event(graph_def=true_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Writes a MetaGraphDef (minitf's, or TensorFlow's message)."""
        if not isinstance(meta_graph_def, (meta_graph.MetaGraphDef,
                                           _pb2("meta_graph_pb2").MetaGraphDef)):
            raise TypeError("meta_graph_def must be type MetaGraphDef, saw type: %s"
                            % type(meta_graph_def))
        event = _pb2("event_pb2").Event(meta_graph_def=meta_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Writes a traced step (`tf.RunMetadata`, or TensorFlow's message) under `tag`, once."""
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags[tag] = True
        event_pb2 = _pb2("event_pb2")
        from minitf.summary import run_metadata_proto  # noqa: PLC0415 - only when used
        tagged = event_pb2.TaggedRunMetadata(
            tag=tag, run_metadata=run_metadata_proto.run_metadata_to_proto(
                run_metadata).SerializeToString())
        self._add_event(event_pb2.Event(tagged_run_metadata=tagged), global_step)

    def _add_event(self, event, step):
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)


def _is_graph_def(value):
    return isinstance(value, (graph_def_lib.GraphDef, _pb2("graph_pb2").GraphDef))


def _minitf_graph_def(graph_def):
    if isinstance(graph_def, graph_def_lib.GraphDef):
        return graph_def
    return graph_def_lib.GraphDef.FromString(graph_def.SerializeToString())


class FileWriter(SummaryToEventTransformer):
    """Writes Events to a new event file in `logdir` (created if missing).

    Args:
      logdir: the log directory, which TensorBoard is pointed at.
      graph: a tf.Graph to write at once (`sess.graph`).
      max_queue: accepted for TensorFlow's signature (minitf writes at once).
      flush_secs: how often, in seconds, the written events are flushed.
      graph_def: deprecated, a GraphDef instead of `graph`.
      filename_suffix: appended to the event file's name (which is then
        created at once).
      session: not supported: minitf has no summary-writer ops.
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        if session is not None:
            raise errors.UnimplementedError(
                None, None, "minitf's FileWriter writes from Python only: session= needs "
                "TensorFlow's summary-writer ops")
        event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._closed = False
        super().__init__(event_writer, graph, graph_def)

    def __enter__(self):
        return self

    def __exit__(self, unused_type, unused_value, unused_traceback):
        self.close()

    def get_logdir(self):
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def _warn_if_event_writer_is_closed(self):
        if self._closed:
            warnings.warn("Attempting to use a closed FileWriter. The operation will be a noop "
                          "unless the FileWriter is explicitly reopened.", stacklevel=3)

    def _add_event(self, event, step):
        self._warn_if_event_writer_is_closed()
        super()._add_event(event, step)

    def add_event(self, event):
        """Writes an Event as it is."""
        self._warn_if_event_writer_is_closed()
        self.event_writer.add_event(event)

    def flush(self):
        """Makes everything written so far reach the file."""
        self._warn_if_event_writer_is_closed()
        self.event_writer.flush()

    def close(self):
        """Flushes and closes the file; writing is a no-op until `reopen`."""
        self.event_writer.close()
        self._closed = True

    def reopen(self):
        """Lets a closed FileWriter write again, into a new event file."""
        self.event_writer.reopen()
        self._closed = False
