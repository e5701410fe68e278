"""The TFRecord file format: records framed with lengths and checksums, maybe GZIP'd.

A TFRecord file is a sequence of records, each framed as

    length       uint64, little-endian           8 bytes
    length_crc   masked CRC32C of those 8 bytes  4 bytes (uint32, little-endian)
    data         the record itself               `length` bytes
    data_crc     masked CRC32C of the data       4 bytes

The *masked* CRC rotates the CRC32C (Castagnoli polynomial) right by 15 bits
and adds a constant, because a CRC computed over data that itself contains
CRCs is weak. With GZIP compression the whole byte stream above is one gzip
stream (zlib's deflate, level 6, memory level 9, the gzip header of zlib).

Both the data kernels (`tf.data.TFRecordDataset`) and the writers and
readers of the front end (`tf.io.TFRecordWriter`, `tf.io.tf_record_iterator`)
use this module; a summary writer's event files are TFRecords too. It
depends on nothing above the floor.

A checksum that does not match, or a file that ends inside a record, is a
DataLossError naming the file and the offset of the bad record; every record
before it has been returned.

The checksums are CRC32C, masked as TensorFlow stores them
(`minitf/framework/crc32c.py`, shared with the checkpoint files).

Mirrors `tensorflow/core/lib/io/record_writer.cc`, `record_reader.cc`,
`zlib_outputbuffer.cc` and `tensorflow/core/lib/hash/crc32c.h`.
"""

import struct
import zlib

from minitf.framework import crc32c
from minitf.graph import errors

NONE = ""
GZIP = "GZIP"
ZLIB = "ZLIB"
COMPRESSION_TYPES = (NONE, GZIP, ZLIB)

_HEADER = struct.Struct("<QI")  # length, masked crc of the length
_FOOTER = struct.Struct("<I")   # masked crc of the data
_GZIP_WINDOW_BITS = zlib.MAX_WBITS + 16  # what makes zlib write a gzip header
_ZLIB_WINDOW_BITS = zlib.MAX_WBITS
_READ_CHUNK = 1 << 18


# The CRC32C of some bytes, masked as TFRecord stores it (`minitf/framework/crc32c.py`).
masked_crc32c = crc32c.masked_value


def check_compression_type(compression_type):
    """"", "GZIP" or "ZLIB"; InvalidArgumentError for anything else."""
    compression_type = compression_type or NONE
    if compression_type not in COMPRESSION_TYPES:
        raise errors.InvalidArgumentError(
            None, None, "Unsupported compression type: %s" % compression_type)
    return compression_type


def frame(record):
    """The bytes of one record as the file holds them (before compression)."""
    header = struct.pack("<Q", len(record))
    return (_HEADER.pack(len(record), masked_crc32c(header)) + record
            + _FOOTER.pack(masked_crc32c(record)))


def _compressor(compression_type):
    if compression_type == GZIP:
        return zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, _GZIP_WINDOW_BITS, 9)
    if compression_type == ZLIB:
        return zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, _ZLIB_WINDOW_BITS, 9)
    return None


class RecordWriter:
    """Writes framed records to a binary file object, compressing them if asked.

    The file object is the caller's; `close` finishes the compressed stream
    and closes it.
    """

    def __init__(self, file, compression_type=NONE):
        self._file = file
        self._compressor = _compressor(check_compression_type(compression_type))

    def write(self, record):
        data = frame(bytes(record))
        if self._compressor is not None:
            data = self._compressor.compress(data)
        self._file.write(data)

    def flush(self):
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self):
        if self._file is None:
            return
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_FINISH))
        self._file.close()
        self._file = None


class _Decompressed:
    """A binary file read through zlib: `read(n)` returns up to n decompressed bytes."""

    def __init__(self, file, window_bits, filename):
        self._file = file
        self._inflater = zlib.decompressobj(window_bits)
        self._buffer = b""
        self._filename = filename

    def read(self, n):
        while len(self._buffer) < n:
            chunk = self._file.read(_READ_CHUNK)
            if not chunk:
                self._buffer += self._inflater.flush()
                break
            try:
                self._buffer += self._inflater.decompress(chunk)
            except zlib.error as e:
                raise errors.DataLossError(None, None, "%s: corrupted compressed data: %s"
                                           % (self._filename, e)) from None
        result, self._buffer = self._buffer[:n], self._buffer[n:]
        return result

    def close(self):
        self._file.close()


class RecordReader:
    """Reads the records of one file, in order, checking every checksum.

    `read()` returns the next record, or None at the end of the file. A
    record is read whole before it is returned, so a damaged one never
    reaches the caller: it raises DataLossError with the file name and the
    offset (in the uncompressed stream) where the record starts. The file
    is read in large chunks, and records are cut out of the current chunk.
    """

    def __init__(self, file, filename, compression_type=NONE):
        compression_type = check_compression_type(compression_type)
        if compression_type == GZIP:
            file = _Decompressed(file, _GZIP_WINDOW_BITS, filename)
        elif compression_type == ZLIB:
            file = _Decompressed(file, _ZLIB_WINDOW_BITS, filename)
        self._file = file
        self.filename = filename
        self.offset = 0          # of the next record, in the file's (uncompressed) bytes
        self._chunk = b""
        self._position = 0       # of the next record, in the chunk

    def _available(self, size):
        """At least `size` bytes from the chunk's position on, unless the file ends first."""
        if len(self._chunk) - self._position < size:
            rest = self._chunk[self._position:]
            more = self._file.read(max(_READ_CHUNK, size - len(rest)))
            self._chunk, self._position = rest + more, 0
        return len(self._chunk) - self._position

    def read(self):
        start = self.offset
        if len(self._chunk) - self._position < _HEADER.size:  # the header is not all there
            available = self._available(_HEADER.size)
            if available == 0:
                return None
            if available < _HEADER.size:
                raise self._data_loss(start, "truncated record")
        chunk, position = self._chunk, self._position
        length, length_crc = _HEADER.unpack_from(chunk, position)
        if masked_crc32c(chunk[position:position + 8]) != length_crc:
            raise self._data_loss(start, "corrupted record")
        size = _HEADER.size + length + _FOOTER.size
        if len(chunk) - position < size:  # the record runs past the chunk
            if self._available(size) < size:
                raise self._data_loss(start, "truncated record")
            chunk, position = self._chunk, self._position
        data_start = position + _HEADER.size
        data = chunk[data_start:data_start + length]
        (data_crc,) = _FOOTER.unpack_from(chunk, data_start + length)
        if masked_crc32c(data) != data_crc:
            raise self._data_loss(start, "corrupted record")
        self._position = position + size
        self.offset = start + size
        return data

    def _data_loss(self, offset, what):
        return errors.DataLossError(None, None, "%s at %d in %s" % (what, offset, self.filename))

    def read_some(self):
        """The next records, at least one unless the file has ended (then an empty list).

        The fast path of iterating: every record that lies whole in the
        current chunk is cut out in one loop, its checksums computed by the
        library's function with no Python call around them. At the first
        record that does not fit (it runs past the chunk, or a checksum is
        wrong) the loop stops; if nothing was cut, `read` takes that record:
        it fetches more of the file, or raises the DataLossError, only after
        every good record before it has been returned.
        """
        records = self._whole_records_in_chunk()
        if records:
            return records
        record = self.read()
        return [] if record is None else [record]

    def _whole_records_in_chunk(self):
        crc, unmask = crc32c.value_of_bytes(), crc32c.unmask
        chunk, position = self._chunk, self._position
        records = []
        while len(chunk) - position >= _HEADER.size:
            length, length_crc = _HEADER.unpack_from(chunk, position)
            data_start = position + _HEADER.size
            data_end = data_start + length
            if (data_end + _FOOTER.size > len(chunk)
                    or crc(chunk[position:position + 8]) != unmask(length_crc)):
                break
            data = chunk[data_start:data_end]
            if crc(data) != unmask(_FOOTER.unpack_from(chunk, data_end)[0]):
                break
            records.append(data)
            position = data_end + _FOOTER.size
        self.offset += position - self._position
        self._position = position
        return records

    def __iter__(self):
        while True:
            records = self.read_some()
            if not records:
                return
            yield from records

    def close(self):
        self._file.close()
