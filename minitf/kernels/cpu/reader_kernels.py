"""Kernels of the readers: record readers fed file names by a queue.

A reader is a resource that reads one *work unit* (a file name, dequeued
from a queue) at a time. `ReaderReadV2` asks the current file for its next
record; when there is no current file, or it is done, it dequeues the next
name (asynchronously, as a queue's dequeue: the step waits without holding
a thread) and starts on it. So a `string_input_producer` queue of names and
a reader make a stream of (key, value) records across files; when the queue
is closed and empty, the read fails with the queue's OutOfRangeError, which
ends a queue-runner program's loop.

The kinds differ in what a record of a file is, and its key:

* `TFRecordReader`: each record of a TFRecord file (checksums checked,
  optionally ZLIB/GZIP compressed), key `"<file>:<offset>"`;
* `TextLineReader`: each line, without its newline, key `"<file>:<line>"`
  (counting from 1, after `skip_header_lines`);
* `WholeFileReader`: the whole file, key the file name;
* `FixedLengthRecordReader`: `record_bytes` bytes at a time after
  `header_bytes` (`hop_bytes` apart when given), key `"<file>:<record>"`;
* `IdentityReader`: the work unit itself, as key and value.

Mirrors `tensorflow/core/framework/reader_base.cc` and the readers of
`tensorflow/core/kernels/` (`tf_record_reader_op.cc`, `text_line_reader_op.cc`,
`whole_file_read_ops.cc`, `fixed_length_record_reader_op.cc`,
`identity_reader_op.cc`).
"""

import contextlib
import threading
import zlib

import numpy as np

from minitf.framework import record_io
from minitf.framework.dataset import ResourceHandle, scalar, unwrap
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors
from minitf.kernels.cpu.queue_kernels import QueueBase
from minitf.kernels.kernel_util import invalid, text

CPU_ONLY = ("CPU",)


@contextlib.contextmanager
def _tf_errors(path):
    """A block whose OSError (a missing file, ...) is raised as TensorFlow's OpError."""
    try:
        yield
    except OSError as e:
        raise errors.from_os_error(e, path) from None


class ReaderBase:
    """The work unit being read, the counts, and the next record of the current unit."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.RLock()
        self.reset()

    def reset(self):
        self.close_work()
        self.current_work = None
        self.num_records_produced = 0
        self.num_work_units_completed = 0

    def start_work(self, work):
        self.current_work = work
        self.on_work_started()

    def finish_work(self):
        self.close_work()
        self.current_work = None
        self.num_work_units_completed += 1

    def next_record(self):
        """(key, value) of the current unit's next record, or None when it has no more."""
        raise NotImplementedError

    def on_work_started(self):
        pass

    def close_work(self):
        pass


class TFRecordReader(ReaderBase):
    def __init__(self, name, compression_type):
        self.compression_type = compression_type
        self._records = None
        super().__init__(name)

    def on_work_started(self):
        with _tf_errors(self.current_work):
            file = open(self.current_work, "rb")  # noqa: SIM115 - the RecordReader closes it
        self._records = record_io.RecordReader(file, self.current_work, self.compression_type)

    def next_record(self):
        offset = self._records.offset
        record = self._records.read()
        if record is None:
            return None
        return "%s:%d" % (self.current_work, offset), record

    def close_work(self):
        if self._records is not None:
            self._records.close()
            self._records = None


class TextLineReader(ReaderBase):
    def __init__(self, name, skip_header_lines):
        self.skip_header_lines = skip_header_lines
        self._file = None
        self._line_number = 0
        super().__init__(name)

    def on_work_started(self):
        with _tf_errors(self.current_work):
            self._file = open(self.current_work, "rb")  # noqa: SIM115 - closed in close_work
        self._line_number = 0
        for _ in range(self.skip_header_lines):
            if not self._file.readline():
                break
            self._line_number += 1

    def next_record(self):
        line = self._file.readline()
        if not line:
            return None
        self._line_number += 1
        return "%s:%d" % (self.current_work, self._line_number), line.rstrip(b"\n").rstrip(b"\r")

    def close_work(self):
        if self._file is not None:
            self._file.close()
            self._file = None


class _OneRecordPerWork(ReaderBase):
    """A reader whose work unit is one record: `record()`, keyed by the unit."""

    def on_work_started(self):
        self._done = False

    def next_record(self):
        if self._done:
            return None
        self._done = True
        return self.current_work, self.record()

    def record(self):
        raise NotImplementedError


class WholeFileReader(_OneRecordPerWork):
    def record(self):
        with _tf_errors(self.current_work), open(self.current_work, "rb") as f:
            return f.read()


class IdentityReader(_OneRecordPerWork):
    def record(self):
        return self.current_work.encode("utf-8")


class FixedLengthRecordReader(ReaderBase):
    def __init__(self, name, header_bytes, record_bytes, footer_bytes, hop_bytes, encoding):
        self.header_bytes, self.record_bytes = header_bytes, record_bytes
        self.footer_bytes, self.hop_bytes = footer_bytes, hop_bytes
        self.encoding = encoding
        self._data = b""
        super().__init__(name)

    def on_work_started(self):
        with _tf_errors(self.current_work), open(self.current_work, "rb") as f:
            data = f.read()
        if self.encoding:
            try:
                data = zlib.decompress(data, _WINDOW_BITS[self.encoding])
            except zlib.error as e:
                raise errors.DataLossError(None, None, "%s: corrupted compressed data: %s"
                                           % (self.current_work, e)) from None
        self._data = data[self.header_bytes:len(data) - self.footer_bytes]
        self._record_number = 0

    def next_record(self):
        step = self.hop_bytes or self.record_bytes
        start = self._record_number * step
        if start + self.record_bytes > len(self._data):
            return None
        value = self._data[start:start + self.record_bytes]
        key = "%s:%d" % (self.current_work, self._record_number)
        self._record_number += 1
        return key, value


# zlib's window bits for a zlib stream, and for a gzip one (header and all).
_WINDOW_BITS = {"ZLIB": zlib.MAX_WBITS, "GZIP": zlib.MAX_WBITS + 16}


# =============================================================================
# Kernels
# =============================================================================

def _create(ctx, reader_class, shared_name, container, *args):
    name = shared_name or ctx.node_name
    container = container or ctx.resource_manager.default_container
    reader = ctx.resource_manager.lookup_or_create(
        container, name, lambda: reader_class(name, *args))
    if not isinstance(reader, reader_class):
        raise invalid("Shared reader '%s' is a %s, not a %s" % (
            name, type(reader).__name__, reader_class.__name__))
    return scalar(ResourceHandle(ctx.device.name, container, name))


@register_kernel("TFRecordReaderV2", CPU_ONLY, is_expensive=False)
def tf_record_reader(ctx, *, container, shared_name, compression_type):
    return _create(ctx, TFRecordReader, shared_name, container,
                   record_io.check_compression_type(compression_type))


@register_kernel("TextLineReaderV2", CPU_ONLY, is_expensive=False)
def text_line_reader(ctx, *, container, shared_name, skip_header_lines):
    if skip_header_lines < 0:
        raise invalid("skip_header_lines must be >= 0 not %d" % skip_header_lines)
    return _create(ctx, TextLineReader, shared_name, container, skip_header_lines)


@register_kernel("WholeFileReaderV2", CPU_ONLY, is_expensive=False)
def whole_file_reader(ctx, *, container, shared_name):
    return _create(ctx, WholeFileReader, shared_name, container)


@register_kernel("IdentityReaderV2", CPU_ONLY, is_expensive=False)
def identity_reader(ctx, *, container, shared_name):
    return _create(ctx, IdentityReader, shared_name, container)


@register_kernel("FixedLengthRecordReaderV2", CPU_ONLY, is_expensive=False)
def fixed_length_record_reader(ctx, *, container, shared_name, header_bytes, record_bytes,
                               footer_bytes, hop_bytes, encoding):
    for what, value in (("header_bytes", header_bytes), ("footer_bytes", footer_bytes),
                        ("hop_bytes", hop_bytes)):
        if value < 0:
            raise invalid("%s must be >= 0 not %d" % (what, value))
    if record_bytes <= 0:
        raise invalid("record_bytes must be > 0 not %d" % record_bytes)
    if encoding not in ("", "ZLIB", "GZIP"):
        raise invalid("Unsupported encoding: %s" % encoding)
    return _create(ctx, FixedLengthRecordReader, shared_name, container, header_bytes,
                   record_bytes, footer_bytes, hop_bytes, encoding)


def _reader(ctx, handle):
    return unwrap(handle, ResourceHandle, "reader handle").lookup(ctx.device, ReaderBase)


def _read(ctx, reader, queue, count, allow_fewer, done):
    """Reads `count` records, dequeuing work units as needed; calls done((keys, values)).

    With `allow_fewer` (read_up_to), the records end at the end of a file, or
    of the queue, when some have been read.
    """
    keys, values = [], []

    def go_on():
        try:
            while len(keys) < count:
                with reader.lock:
                    record = reader.next_record() if reader.current_work is not None else None
                    if record is None and reader.current_work is not None:
                        reader.finish_work()
                        if allow_fewer and keys:
                            break  # read_up_to stops at the end of a file
                        continue
                    if record is not None:
                        reader.num_records_produced += 1
                        keys.append(record[0])
                        values.append(record[1])
                        continue
                queue.dequeue(1, False, ctx.step, got_work)
                return
        except errors.OpError as e:
            done(error=e)
            return
        done((keys, values))

    def got_work(elements=None, error=None):
        if error is not None:
            if allow_fewer and keys:
                done((keys, values))
            else:
                done(error=error)
            return
        work = text(np.asarray(elements[0][0], dtype=object).reshape(-1)[0], "replace")
        try:
            with reader.lock:
                reader.start_work(work)
        except errors.OpError as e:
            done(error=e)
            return
        go_on()

    go_on()


def _strings(items):
    out = np.empty(len(items), dtype=object)
    out[:] = [item.encode("utf-8") if isinstance(item, str) else item for item in items]
    return out


@register_kernel("ReaderReadV2", CPU_ONLY, is_async=True, is_expensive=False)
def reader_read(ctx, reader_handle, queue_handle, *, done):
    reader = _reader(ctx, reader_handle)
    queue = unwrap(queue_handle, ResourceHandle, "queue handle").lookup(ctx.device, QueueBase)

    def finish(result=None, error=None):
        if error is not None:
            done(error=error)
        else:
            key, value = _strings(result[0]), _strings(result[1])
            done((np.array(key[0], dtype=object), np.array(value[0], dtype=object)))

    _read(ctx, reader, queue, 1, False, finish)


@register_kernel("ReaderReadUpToV2", CPU_ONLY, is_async=True, is_expensive=False)
def reader_read_up_to(ctx, reader_handle, queue_handle, num_records, *, done):
    reader = _reader(ctx, reader_handle)
    queue = unwrap(queue_handle, ResourceHandle, "queue handle").lookup(ctx.device, QueueBase)
    count = int(np.asarray(num_records))
    if count <= 0:
        raise invalid("num_records must be > 0 not %d" % count)

    def finish(result=None, error=None):
        if error is not None:
            done(error=error)
        else:
            done((_strings(result[0]), _strings(result[1])))

    _read(ctx, reader, queue, count, True, finish)


@register_kernel("ReaderNumRecordsProducedV2", CPU_ONLY, is_expensive=False)
def reader_num_records_produced(ctx, reader_handle):
    return np.array(_reader(ctx, reader_handle).num_records_produced, np.int64)


@register_kernel("ReaderNumWorkUnitsCompletedV2", CPU_ONLY, is_expensive=False)
def reader_num_work_units_completed(ctx, reader_handle):
    return np.array(_reader(ctx, reader_handle).num_work_units_completed, np.int64)


@register_kernel("ReaderResetV2", CPU_ONLY, is_expensive=False)
def reader_reset(ctx, reader_handle):
    reader = _reader(ctx, reader_handle)
    with reader.lock:
        reader.reset()
    return ()


@register_kernel("ReaderSerializeStateV2", CPU_ONLY, is_expensive=False)
def reader_serialize_state(ctx, reader_handle):
    _reader(ctx, reader_handle)
    raise errors.UnimplementedError(None, None, "Reader SerializeState")


@register_kernel("ReaderRestoreStateV2", CPU_ONLY, is_expensive=False)
def reader_restore_state(ctx, reader_handle, state):
    _reader(ctx, reader_handle)
    raise errors.UnimplementedError(None, None, "Reader RestoreState")
