"""Kernels of the source datasets: tensors, ranges, Python generators and files.

Each kernel returns a dataset (a `variant` scalar, `minitf/framework/dataset.py`)
that holds what it was given; its iterators produce the elements:

- `TensorDataset`: one element, the given tensors; `TensorSliceDataset`:
  one element per row of the given tensors (their first dimensions must
  agree);
- `RangeDataset`: `start, start + step, ...` up to `stop`, as int64;
- `GeneratorDataset`: a state made by `init_func`, then elements from
  `next_func` until it raises OutOfRangeError, then `finalize_func`
  (from_generator's py_funcs live in these functions);
- `TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDatasetV2`: the
  records, lines or fixed-size records of a list of files, file after file.
  A damaged TFRecord is a DataLossError naming its file and offset, after
  the records before it.

The arrays a source holds outlive every step, so its elements are
read-only views of them (`minitf/framework/buffers.py`): a fetch copies.

Mirrors `tensorflow/core/kernels/data/tensor_dataset_op.cc`,
`tensor_slice_dataset_op.cc`, `range_dataset_op.cc`, `generator_dataset_op.cc`
and `reader_dataset_ops.cc`.
"""

import itertools
import zlib

import numpy as np

from minitf.framework import buffers
from minitf.framework import record_io
from minitf.framework.dataset import DatasetBase, IteratorBase, scalar
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import tensor_shape
from minitf.kernels.data.captured_function import CapturedFunction
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import text

CPU_ONLY = ("CPU",)


# =============================================================================
# Tensors
# =============================================================================

class _ListIterator(IteratorBase):
    """Elements computed from a position: `element(i)` for i in range(count)."""

    def __init__(self, count, element):
        self._count, self._element, self._next = count, element, 0

    def get_next(self):
        if self._next >= self._count:
            return None
        self._next += 1
        return self._element(self._next - 1)


class TensorDataset(DatasetBase):
    def __init__(self, components, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        # Kept beyond the step: a copy of a variable's buffer, then read-only views of it.
        self.components = [buffers.read_only_view(buffers.for_the_caller(c)) for c in components]

    def make_iterator(self):
        return _ListIterator(1, lambda i: list(self.components))


class TensorSliceDataset(DatasetBase):
    def __init__(self, components, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        sizes = {np.shape(c)[0] if np.ndim(c) else None for c in components}
        if None in sizes or len(sizes) != 1:
            raise invalid("All components must be at least 1-dimensional and have the same size "
                          "in the 0th dimension, got shapes %s"
                          % [list(np.shape(c)) for c in components])
        self.components = [buffers.read_only_view(buffers.for_the_caller(np.asarray(c)))
                           for c in components]
        self.count = sizes.pop()

    def make_iterator(self):
        components = self.components
        return _ListIterator(self.count, lambda i: [c[i, ...] for c in components])


@register_kernel("TensorDataset", CPU_ONLY)
def tensor_dataset(ctx, *components, Toutput_types, output_shapes):
    return scalar(TensorDataset(components, Toutput_types, output_shapes))


@register_kernel("TensorSliceDataset", CPU_ONLY)
def tensor_slice_dataset(ctx, *components, Toutput_types, output_shapes):
    return scalar(TensorSliceDataset(components, Toutput_types, output_shapes))


class RangeDataset(DatasetBase):
    def __init__(self, start, stop, step, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        if step == 0:
            raise invalid("step must be a non-zero integer.")
        self.values = np.arange(start, stop, step, dtype=np.int64)

    def make_iterator(self):
        values = self.values
        return _ListIterator(len(values), lambda i: [values[i]])


@register_kernel("RangeDataset", CPU_ONLY)
def range_dataset(ctx, start, stop, step, *, output_types, output_shapes):
    return scalar(RangeDataset(int(start), int(stop), int(step), output_types, output_shapes))


# =============================================================================
# A Python generator, through three functions
# =============================================================================

class GeneratorDataset(DatasetBase):
    def __init__(self, init_func, next_func, finalize_func, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.init_func, self.next_func, self.finalize_func = init_func, next_func, finalize_func

    def make_iterator(self):
        return _GeneratorIterator(self)


class _GeneratorIterator(IteratorBase):
    def __init__(self, dataset):
        self._dataset = dataset
        self._state = None
        self._finished = False

    def get_next(self):
        if self._finished:
            return None
        if self._state is None:
            self._state = self._dataset.init_func.run([])
        try:
            return self._dataset.next_func.run(self._state)
        except errors.OutOfRangeError:
            self.close()
            return None

    def close(self):
        if self._state is not None and not self._finished:
            self._finished = True
            self._dataset.finalize_func.run(self._state)


@register_kernel("GeneratorDataset", CPU_ONLY)
def generator_dataset(ctx, *args, init_func, next_func, finalize_func, Tinit_func_args,
                      Tnext_func_args, Tfinalize_func_args, output_types, output_shapes):
    n_init, n_next = len(Tinit_func_args), len(Tnext_func_args)
    functions = [CapturedFunction(f, captured, ctx.device) for f, captured in (
        (init_func, args[:n_init]), (next_func, args[n_init:n_init + n_next]),
        (finalize_func, args[n_init + n_next:]))]
    return scalar(GeneratorDataset(*functions, output_types, output_shapes))


# =============================================================================
# Files
# =============================================================================

def _filenames(filenames):
    names = [text(f) for f in np.asarray(filenames, dtype=object).reshape(-1)]
    if np.ndim(filenames) > 1:
        raise invalid("`filenames` must be a scalar or a vector.")
    return names


def _open(filename):
    try:
        return open(filename, "rb")  # noqa: SIM115 - closed by the iterator
    except OSError as e:
        raise errors.NotFoundError(None, None, "%s; %s" % (filename, e.strerror)) from None


class _FilesIterator(IteratorBase):
    """The elements of a list of files, one file after the other; `read(file, name)` yields them."""

    def __init__(self, filenames, read):
        self._filenames = list(filenames)
        self._read = read
        self._current = None

    def get_next(self):
        values = self.get_next_values(1)
        return [np.array(values[0], dtype=object)] if values else None  # a scalar string

    def get_next_values(self, limit):
        """Up to `limit` records, across the ends of files; fewer only after the last file."""
        values = []
        while len(values) < limit:
            if self._current is None:
                if not self._filenames:
                    break
                self._current = self._read(self._filenames.pop(0))
            wanted = limit - len(values)
            before = len(values)
            values.extend(itertools.islice(self._current, wanted))
            if len(values) - before < wanted:
                self._current = None  # this file has ended
        return values


class FileDataset(DatasetBase):
    """The records of files, as scalar strings; `read(filename)` yields one file's records."""

    def __init__(self, filenames, read):
        super().__init__([dtypes.string], [tensor_shape.scalar()])
        self.filenames, self.read = filenames, read

    def make_iterator(self):
        return _FilesIterator(self.filenames, self.read)


def _read_tfrecords(compression_type):
    def read(filename):
        reader = record_io.RecordReader(_open(filename), filename, compression_type)
        try:
            yield from reader
        finally:
            reader.close()
    return read


def _read_all(filename, compression_type):
    with _open(filename) as f:
        data = f.read()
    if compression_type == record_io.GZIP:
        return zlib.decompress(data, zlib.MAX_WBITS + 16)
    if compression_type == record_io.ZLIB:
        return zlib.decompress(data)
    return data


def _read_lines(compression_type):
    def read(filename):
        for line in _read_all(filename, compression_type).splitlines(keepends=True):
            yield line.rstrip(b"\n").rstrip(b"\r")
    return read


def _read_fixed_length(header_bytes, record_bytes, footer_bytes, compression_type):
    def read(filename):
        data = _read_all(filename, compression_type)
        body = len(data) - header_bytes - footer_bytes
        if body < 0 or body % record_bytes:
            raise invalid("Excluding the header (%d bytes) and footer (%d bytes), input file "
                          "\"%s\" has body length %d bytes, which is not an exact multiple of "
                          "the record length (%d bytes)." % (
                              header_bytes, footer_bytes, filename, max(body, 0), record_bytes))
        for start in range(header_bytes, header_bytes + body, record_bytes):
            yield data[start:start + record_bytes]
    return read


def _file_dataset(filenames, read):
    return scalar(FileDataset(_filenames(filenames), read))


@register_kernel("TFRecordDataset", CPU_ONLY)
def tf_record_dataset(ctx, filenames, compression_type, buffer_size):
    compression = record_io.check_compression_type(text(compression_type))
    return _file_dataset(filenames, _read_tfrecords(compression))


@register_kernel("TextLineDataset", CPU_ONLY)
def text_line_dataset(ctx, filenames, compression_type, buffer_size):
    compression = record_io.check_compression_type(text(compression_type))
    return _file_dataset(filenames, _read_lines(compression))


@register_kernel("FixedLengthRecordDatasetV2", CPU_ONLY)
def fixed_length_record_dataset(ctx, filenames, header_bytes, record_bytes, footer_bytes,
                                buffer_size, compression_type):
    if int(record_bytes) <= 0:
        raise invalid("record_bytes must be > 0")
    if int(header_bytes) < 0 or int(footer_bytes) < 0:
        raise invalid("header_bytes and footer_bytes must be >= 0")
    compression = record_io.check_compression_type(text(compression_type))
    read = _read_fixed_length(int(header_bytes), int(record_bytes), int(footer_bytes),
                              compression)
    return _file_dataset(filenames, read)
