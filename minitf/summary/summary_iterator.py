"""`tf.train.summary_iterator`: the Events of an event file, one by one.

An event file is a TFRecord file (`minitf/data/tf_record.py` reads it);
each record is parsed as an `Event` message. A damaged record raises
DataLossError after the events before it.

Mirrors `tensorflow/python/summary/summary_iterator.py`.
"""

from minitf.data.tf_record import tf_record_iterator

__all__ = ["summary_iterator"]


def summary_iterator(path):
    """Yields the Events of the event file at `path`, the file version first."""
    from minitf.proto import event_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    for record in tf_record_iterator(path):
        yield event_pb2.Event.FromString(record)
