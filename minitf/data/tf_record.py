"""`tf.io.TFRecordWriter`, `tf.io.tf_record_iterator` and `TFRecordOptions`.

The front end's way to write and read TFRecord files outside a graph; the
format itself (framing, checksums, compression) is on the framework floor,
`minitf/framework/record_io.py`, shared with the `TFRecordDataset` kernel.

Mirrors `tensorflow/python/lib/io/tf_record.py`.
"""

import os

from minitf.data import file_io
from minitf.framework import record_io
from minitf.graph import errors

__all__ = ["TFRecordWriter", "tf_record_iterator", "TFRecordOptions",
           "TFRecordCompressionType"]


class TFRecordCompressionType:
    """The compression of a TFRecord file."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
          TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """How a TFRecord file is compressed: `TFRecordOptions("GZIP")`, or a TFRecordCompressionType.

    minitf keeps zlib's defaults for the finer settings, which TensorFlow's
    defaults are too; they are accepted and must stay None.
    """

    compression_type_map = {v: k for k, v in _NAMES.items()}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        if isinstance(compression_type, int):
            compression_type = _NAMES.get(compression_type)
        self.compression_type = record_io.check_compression_type(compression_type)
        unsupported = {k: v for k, v in dict(
            flush_mode=flush_mode, window_bits=window_bits, compression_level=compression_level,
            compression_method=compression_method, mem_level=mem_level,
            compression_strategy=compression_strategy).items() if v is not None}
        if unsupported:
            raise errors.UnimplementedError(None, None, "minitf writes TFRecords with zlib's "
                                            "default settings; not supported: %s"
                                            % sorted(unsupported))

    @classmethod
    def get_compression_type_string(cls, options):
        """"", "ZLIB" or "GZIP" for options that are None, a TFRecordOptions, a type or a string."""
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return cls(options).compression_type


def _path(path):
    return os.fsdecode(path)


class TFRecordWriter:
    """Writes records to a TFRecord file: `with TFRecordWriter(path) as w: w.write(b"...")`.

    The file is created (or truncated) at once; NotFoundError when its
    directory does not exist.
    """

    def __init__(self, path, options=None):
        compression = TFRecordOptions.get_compression_type_string(options)
        path = _path(path)
        with file_io.tf_errors(path):
            file = open(path, "wb")  # noqa: SIM115 - the RecordWriter closes it
        self._writer = record_io.RecordWriter(file, compression)

    def write(self, record):
        if isinstance(record, str):
            record = record.encode("utf-8")
        self._writer.write(record)

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def tf_record_iterator(path, options=None):
    """Yields the records of a TFRecord file; DataLossError at a damaged record."""
    compression = TFRecordOptions.get_compression_type_string(options)
    path = _path(path)
    with file_io.tf_errors(path):
        file = open(path, "rb")  # noqa: SIM115 - the RecordReader closes it
    reader = record_io.RecordReader(file, path, compression)
    try:
        yield from reader
    finally:
        reader.close()
