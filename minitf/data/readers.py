"""Datasets that read files: TFRecords, lines of text, fixed-length records.

Each is a source dataset over a list of file names (a string, a list, or a
string tensor, maybe a placeholder fed at initialization). Files are read
one after the other; with `num_parallel_reads`, `num_parallel_reads` files
are interleaved record by record, as TensorFlow does.

Mirrors `tensorflow/python/data/ops/readers.py`.
"""

import functools

from minitf.data import structure
from minitf.data.dataset_ops import Dataset
from minitf.graph import dtypes
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor

__all__ = ["TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset"]

_DEFAULT_BUFFER_SIZE = 256 * 1024
_STRING_SPEC = structure.ComponentSpec(dtypes.string, [])


def _filenames(filenames):
    tensor = convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    if tensor.shape.ndims not in (None, 0, 1):
        raise TypeError("`filenames` must be a `tf.Tensor` of dtype `tf.string` and rank 0 or "
                        "1, got %s." % tensor.shape)
    return tensor


def _scalar(value, dtype, name):
    return convert_to_tensor(value, dtype=dtype, name=name)


def _per_file(filenames, num_parallel_reads, make_one):
    """One dataset over all files: `make_one(filenames)`, or an interleave of one per file."""
    filenames = _filenames(filenames)
    if num_parallel_reads is None:
        return make_one(filenames)
    files = Dataset.from_tensor_slices(filenames if filenames.shape.ndims == 1
                                       else [filenames])
    return files.interleave(make_one, cycle_length=num_parallel_reads, block_length=1)


def _source(op_type, **inputs):
    return Dataset(apply_op(op_type, **inputs), _STRING_SPEC)


class _FileDataset(Dataset):
    """A Dataset that is the dataset `_per_file` built."""

    def __init__(self, dataset):
        super().__init__(dataset._variant_tensor, dataset.element_spec)


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files ("", "ZLIB" or "GZIP" compressed), as scalar strings."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        super().__init__(_per_file(filenames, num_parallel_reads, functools.partial(
            _records_or_lines, "TFRecordDataset", compression_type=compression_type,
            buffer_size=buffer_size)))


class TextLineDataset(_FileDataset):
    """The lines of text files, without their line endings, as scalar strings."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        super().__init__(_per_file(filenames, num_parallel_reads, functools.partial(
            _records_or_lines, "TextLineDataset", compression_type=compression_type,
            buffer_size=buffer_size)))


class FixedLengthRecordDataset(_FileDataset):
    """Records of `record_bytes` bytes each, after `header_bytes` and before `footer_bytes`."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None):
        super().__init__(_per_file(filenames, num_parallel_reads, functools.partial(
            _fixed_length_records, record_bytes=record_bytes, header_bytes=header_bytes,
            footer_bytes=footer_bytes, buffer_size=buffer_size,
            compression_type=compression_type)))


def _records_or_lines(op_type, names, compression_type, buffer_size):
    return _source(op_type, filenames=names,
                   compression_type=_scalar(compression_type or "", dtypes.string,
                                            "compression_type"),
                   buffer_size=_scalar(buffer_size or _DEFAULT_BUFFER_SIZE, dtypes.int64,
                                       "buffer_size"))


def _fixed_length_records(names, record_bytes, header_bytes, footer_bytes, buffer_size,
                          compression_type):
    return _source("FixedLengthRecordDatasetV2", filenames=names,
                   header_bytes=_scalar(header_bytes or 0, dtypes.int64, "header_bytes"),
                   record_bytes=_scalar(record_bytes, dtypes.int64, "record_bytes"),
                   footer_bytes=_scalar(footer_bytes or 0, dtypes.int64, "footer_bytes"),
                   buffer_size=_scalar(buffer_size or _DEFAULT_BUFFER_SIZE, dtypes.int64,
                                       "buffer_size"),
                   compression_type=_scalar(compression_type or "", dtypes.string,
                                            "compression_type"))
