"""Event files: a TFRecord file of `Event` messages, named by when and where it was made.

An event file lives in a *log directory* and is named

    events.out.tfevents.<seconds since 1970, 10 digits>.<host name><suffix>

so that the files of one directory sort by the time they were started, and
the runs of several machines sharing a directory never collide. Its records
are framed as every TFRecord (`minitf/framework/record_io.py`); each is one
`Event` (`minitf/proto/event.proto`): a wall time, a step, and one thing
that happened. The first record is always the file's version,
`file_version: "brain.Event:2"`, with the whole second the file was made as
its wall time; TensorBoard reads it to know how to read the rest.

The file is created when the first event is written (or at once, when a
suffix is given), not when the writer is: a writer that never writes
leaves no file. Events are written as they come and flushed to the file
every `flush_secs` seconds (the first at once), on `flush()` and on
`close()`. After `close()`, `reopen()` makes the next event start a new
file.

Mirrors `tensorflow/core/util/events_writer.cc` (EventsWriter) and
`tensorflow/python/summary/writer/event_file_writer.py` (EventFileWriter).
"""

import logging
import os
import socket
import time

from minitf.data import file_io
from minitf.framework import record_io

__all__ = ["EventFileWriter", "EventsWriter", "FILE_VERSION"]

FILE_VERSION = "brain.Event:2"

_logger = logging.getLogger("minitf")


def _event_pb2():
    from minitf.proto import event_pb2  # noqa: PLC0415 - protobuf, loaded only when used
    return event_pb2


class EventsWriter:
    """Writes Events into the file `<prefix>.out.tfevents.<time>.<host><suffix>`."""

    def __init__(self, file_prefix, file_suffix=""):
        self._file_prefix = file_prefix
        self._file_suffix = file_suffix
        self._filename = None
        self._records = None
        self._num_outstanding_events = 0

    def init_with_suffix(self, suffix):
        """Sets the suffix and creates the file now."""
        self._file_suffix = suffix
        self.init_if_needed()

    def file_name(self):
        """The file's path; creates the file if there is none yet."""
        self.init_if_needed()
        return self._filename

    def init_if_needed(self):
        """Creates the file and writes its first record, unless a file is open and still there."""
        if self._records is not None:
            if os.path.exists(self._filename):
                return
            if self._num_outstanding_events:
                _logger.warning("Re-initialization, attempting to open a new file, %d events "
                                "will be lost.", self._num_outstanding_events)
            self._records.close()
        seconds = int(time.time())
        self._filename = "%s.out.tfevents.%010d.%s%s" % (
            self._file_prefix, seconds, socket.gethostname(), self._file_suffix)
        with file_io.tf_errors(self._filename):
            self._records = record_io.RecordWriter(open(self._filename, "wb"))  # noqa: SIM115
        self._num_outstanding_events = 0
        self.write_event(_event_pb2().Event(wall_time=seconds, file_version=FILE_VERSION))
        self.flush()

    def write_event(self, event):
        """Appends one Event (a message, or its bytes) to the file."""
        self.init_if_needed()
        record = event if isinstance(event, bytes) else event.SerializeToString()
        with file_io.tf_errors(self._filename):
            self._records.write(record)
        self._num_outstanding_events += 1

    def flush(self):
        """Hands every written event to the operating system."""
        if self._records is None or not self._num_outstanding_events:
            return
        with file_io.tf_errors(self._filename):
            self._records.flush()
        self._num_outstanding_events = 0

    def close(self):
        """Flushes and closes the file; the next event starts a new one."""
        self.flush()
        if self._records is not None:
            self._records.close()
            self._records = None


class EventFileWriter:
    """Writes Events to an event file in `logdir`, flushing them every `flush_secs` seconds.

    TensorFlow hands the events to a thread through a queue of `max_queue`
    events; minitf writes them on the caller's thread, so `max_queue` is
    accepted and unused.
    """

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._logdir = str(logdir)
        file_io.makedirs(self._logdir)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._events_writer = EventsWriter(os.path.join(self._logdir, "events"))
        if filename_suffix:
            self._events_writer.init_with_suffix(filename_suffix)
        self._next_flush_time = 0
        self._closed = False

    def get_logdir(self):
        """The directory the event files are written to."""
        return self._logdir

    def add_event(self, event):
        """Writes an Event; flushes when `flush_secs` have passed since the last flush."""
        if self._closed:
            return
        self._events_writer.write_event(event)
        now = time.time()
        if now > self._next_flush_time:
            self._events_writer.flush()
            self._next_flush_time = now + self._flush_secs

    def flush(self):
        if not self._closed:
            self._events_writer.flush()

    def close(self):
        if not self._closed:
            self._events_writer.close()
            self._closed = True

    def reopen(self):
        """After `close`, lets events be written again, into a new file."""
        self._closed = False
