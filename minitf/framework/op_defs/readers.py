"""The OpDefs of the readers: TF 1.x's queue-fed record readers.

A reader op (`TFRecordReaderV2`, `TextLineReaderV2`, ...) makes a reader
resource; `ReaderReadV2(reader, queue)` takes the next record of the file
it is reading, and dequeues the next file name from `queue` when it has
none or the file is done. The front end is `minitf/data/queue_readers.py`, the
kernels `minitf/kernels/cpu/reader_kernels.py`.

Mirrors the reader ops of `tensorflow/core/ops/io_ops.cc`.
"""

from minitf.framework import common_shapes
from minitf.framework.common_shapes import with_rank
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape


def _reader(op_type):
    return register_op(op_type).output("reader_handle: resource").attr(
        "container: string = ''").attr("shared_name: string = ''").set_is_stateful()


_reader("WholeFileReaderV2").set_shape_fn(common_shapes.scalar_shape)
_reader("IdentityReaderV2").set_shape_fn(common_shapes.scalar_shape)
_reader("TextLineReaderV2").attr("skip_header_lines: int = 0").set_shape_fn(
    common_shapes.scalar_shape)
_reader("TFRecordReaderV2").attr("compression_type: string = ''").set_shape_fn(
    common_shapes.scalar_shape)
_reader("FixedLengthRecordReaderV2").attr("header_bytes: int = 0").attr(
    "record_bytes: int").attr("footer_bytes: int = 0").attr("hop_bytes: int = 0").attr(
    "encoding: string = ''").set_shape_fn(common_shapes.scalar_shape)


def _scalar_handles(op):
    for tensor in op.inputs[:2]:
        with_rank(tensor.shape, 0)


def _read_shape(op):
    _scalar_handles(op)
    return [tensor_shape.scalar(), tensor_shape.scalar()]


def _read_up_to_shape(op):
    _scalar_handles(op)
    with_rank(op.inputs[2].shape, 0)
    return [tensor_shape.TensorShape([None]), tensor_shape.TensorShape([None])]


def _reader_scalar_shape(op):
    with_rank(op.inputs[0].shape, 0)
    return [tensor_shape.scalar()] * len(op.outputs)


register_op("ReaderReadV2").input("reader_handle: resource").input(
    "queue_handle: resource").output("key: string").output("value: string").set_is_stateful().set_shape_fn(_read_shape)
register_op("ReaderReadUpToV2").input("reader_handle: resource").input(
    "queue_handle: resource").input("num_records: int64").output("keys: string").output(
    "values: string").set_is_stateful().set_shape_fn(_read_up_to_shape)
register_op("ReaderNumRecordsProducedV2").input("reader_handle: resource").output(
    "records_produced: int64").set_is_stateful().set_shape_fn(_reader_scalar_shape)
register_op("ReaderNumWorkUnitsCompletedV2").input("reader_handle: resource").output(
    "units_completed: int64").set_is_stateful().set_shape_fn(_reader_scalar_shape)
register_op("ReaderSerializeStateV2").input("reader_handle: resource").output(
    "state: string").set_is_stateful().set_shape_fn(_reader_scalar_shape)
register_op("ReaderRestoreStateV2").input("reader_handle: resource").input(
    "state: string").set_is_stateful().set_shape_fn(common_shapes.no_outputs)
register_op("ReaderResetV2").input("reader_handle: resource").set_is_stateful().set_shape_fn(
    common_shapes.no_outputs)
