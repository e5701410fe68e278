"""The readers of TF 1.x's input pipelines: `tf.TFRecordReader`, `tf.TextLineReader`, ...

    filenames = tf.train.string_input_producer(["a.csv", "b.csv"])
    reader = tf.TextLineReader(skip_header_lines=1)
    key, value = reader.read(filenames)   # one line per run, file after file

A reader object holds the handle of a reader resource; `read(queue)` builds
a `ReaderReadV2` node that takes the next record, dequeuing the next file
name from `queue` when the current file is done (the kernels are in
`minitf/kernels/cpu/reader_kernels.py`). With queue runners feeding the
queue, a loop of `sess.run` reads all files until the queue's
OutOfRangeError. `tf.data` (TFRecordDataset, TextLineDataset, ...) is
the newer way to the same records.

Mirrors the readers of `tensorflow/python/ops/io_ops.py`.
"""

from minitf.data.tf_record import TFRecordOptions
from minitf.graph import ops
from minitf.graph.op_def_library import apply_op

__all__ = ["ReaderBase", "TFRecordReader", "TextLineReader", "WholeFileReader",
           "FixedLengthRecordReader", "IdentityReader"]


def _queue_ref(queue):
    return queue if isinstance(queue, ops.Tensor) else queue.queue_ref


class ReaderBase:
    """A reader resource and the ops that read from it."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        """The reader resource's handle."""
        return self._reader_ref

    @property
    def supports_serialize(self):
        """Whether serialize_state can work; minitf's readers keep no state in bytes."""
        return self._supports_serialize

    def read(self, queue, name=None):
        """(key, value): the next record, a file name taken from `queue` when needed."""
        return apply_op("ReaderReadV2", name=name, reader_handle=self._reader_ref,
                        queue_handle=_queue_ref(queue))

    def read_up_to(self, queue, num_records, name=None):
        """(keys, values): up to num_records records (fewer at the very end)."""
        return apply_op("ReaderReadUpToV2", name=name, reader_handle=self._reader_ref,
                        queue_handle=_queue_ref(queue), num_records=num_records)

    def num_records_produced(self, name=None):
        """How many records this reader has produced."""
        return apply_op("ReaderNumRecordsProducedV2", name=name, reader_handle=self._reader_ref)

    def num_work_units_completed(self, name=None):
        """How many files (work units) this reader has finished."""
        return apply_op("ReaderNumWorkUnitsCompletedV2", name=name,
                        reader_handle=self._reader_ref)

    def serialize_state(self, name=None):
        """The reader's state as bytes (UnimplementedError when run: see the docs)."""
        return apply_op("ReaderSerializeStateV2", name=name, reader_handle=self._reader_ref)

    def restore_state(self, state, name=None):
        """Restores serialize_state's bytes (UnimplementedError when run)."""
        return apply_op("ReaderRestoreStateV2", name=name, reader_handle=self._reader_ref,
                        state=state)

    def reset(self, name=None):
        """Back to the start: no current file, counts zero."""
        return apply_op("ReaderResetV2", name=name, reader_handle=self._reader_ref)


class WholeFileReader(ReaderBase):
    """Each file is one record: key its name, value its contents."""

    def __init__(self, name=None):
        super().__init__(apply_op("WholeFileReaderV2", name=name), supports_serialize=True)


class TextLineReader(ReaderBase):
    """Each line of a file is a record (without its newline); key "file:line"."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(apply_op("TextLineReaderV2", name=name,
                                  skip_header_lines=skip_header_lines or 0))


class FixedLengthRecordReader(ReaderBase):
    """Records of record_bytes bytes, after header_bytes and before footer_bytes."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        super().__init__(apply_op(
            "FixedLengthRecordReaderV2", name=name, record_bytes=record_bytes,
            header_bytes=header_bytes or 0, footer_bytes=footer_bytes or 0,
            hop_bytes=hop_bytes or 0, encoding=encoding or ""))


class TFRecordReader(ReaderBase):
    """Each record of a TFRecord file; key "file:offset"."""

    def __init__(self, name=None, options=None):
        compression_type = TFRecordOptions.get_compression_type_string(options)
        super().__init__(apply_op("TFRecordReaderV2", name=name,
                                  compression_type=compression_type))


class IdentityReader(ReaderBase):
    """Each work unit (the string dequeued) is its own record, as key and value."""

    def __init__(self, name=None):
        super().__init__(apply_op("IdentityReaderV2", name=name), supports_serialize=True)
