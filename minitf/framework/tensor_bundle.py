"""The checkpoint file format (TensorFlow's "V2" tensor bundle): how tensors lie on disk.

A checkpoint is named by a *prefix*, say `train/model-1000`. The prefix is
not a file; two files carry it, byte for byte as TensorFlow writes them:

```
train/model-1000.index                  which tensors there are, and where
train/model-1000.data-00000-of-00001    the tensors' bytes, one after another
```

(A sharded save writes several data files, `.data-00000-of-00002`,
`.data-00001-of-00002`, and one index for all of them.)

**The data file** is nothing but tensor bytes, concatenated with no header
and no padding, in the order they were saved (the Saver saves in name
order). A numeric or bool tensor is its elements in row-major (C) order,
little-endian (bool: one byte, 0 or 1). A string tensor of n elements is

```
len_0 .. len_n-1 (varints) | masked CRC-32C of the lengths (4 bytes) | bytes_0 .. bytes_n-1
```

**The index file** is a table (`table.py`, LevelDB's format: sorted keys,
prefix-compressed in checksummed blocks, a footer with a magic number)
whose keys are tensor names and whose values are protobufs
(`minitf/proto/tensor_bundle.proto`):

| key            | value                                                              |
|----------------|--------------------------------------------------------------------|
| `""` (first)   | BundleHeaderProto: `num_shards`, endianness (little), version 1    |
| each tensor    | BundleEntryProto: `dtype`, `shape`, `shard_id` (which data file),  |
|                | `offset` and `size` (the byte range in it), `crc32c` of the bytes  |

The `crc32c` of an entry is the masked CRC-32C (`crc32c.py`) of its bytes
(of a string tensor: of its lengths as uint32s, their checksum and the
strings). Every block of the index has a checksum of its own, so a reader
verifies the index before it trusts a single offset, and a tensor's bytes
before it hands their value out: a flipped bit or a truncated file is a
DataLossError naming the file and the tensor, never a wrong number.
Nothing here is pickle: loading a checkpoint runs no code. A reader
refuses a checkpoint whose version says it needs a newer reader
(InvalidArgumentError, TensorFlow's words) rather than guess at its layout.

**Writing never leaves a half-written checkpoint that looks valid.** Each
file is written under a temporary name (`<file>.tempstate<random>`), flushed
to disk (fsync), then renamed over its final name with `os.replace`, which
is atomic: data first, index last. A checkpoint "exists" exactly when its
index does (`checkpoint_exists`), and the index only appears once the data
it points into is complete. The `checkpoint` state file that names the
latest checkpoint is written the same way, after the index
(`checkpoint_management.py`). A writer killed at any moment leaves either
the old state or the new one, plus perhaps a stray temporary file. (Saving
again under the *same* prefix first removes that prefix's old index, so a
crash there leaves no checkpoint under that name, never one whose index and
data disagree; `global_step` gives each save a prefix of its own.)

Differences from TensorFlow: tensor slices (partitioned variables) are
neither written nor read (reading one is an UnimplementedError naming it);
only the dtypes minitf has can be read (list_variables shows the others).

Mirrors `tensorflow/core/util/tensor_bundle/tensor_bundle.{h,cc}`
(BundleWriter, BundleReader, MergeBundles) and `tensor_bundle.proto`.
"""

import os
import struct
import uuid

import numpy as np

from minitf.framework import crc32c
from minitf.framework import table
from minitf.graph import dtypes
from minitf.graph import errors
from minitf.graph import tensor_shape

# The format's version: this code writes version 1 and reads what needs no newer one.
VERSION = 1
MIN_PRODUCER = 0
HEADER_KEY = b""

_UINT32 = struct.Struct("<I")


def _bundle_pb2():
    from minitf.proto import tensor_bundle_pb2  # noqa: PLC0415 - protobuf is loaded only when used
    return tensor_bundle_pb2


# =============================================================================
# File names
# =============================================================================

def index_filename(prefix):
    """`<prefix>.index`: the file whose presence makes a checkpoint exist."""
    return prefix + ".index"


def data_filename(prefix, shard=0, num_shards=1):
    """`<prefix>.data-00000-of-00001`: the bytes of the tensors of one shard."""
    return "%s.data-%05d-of-%05d" % (prefix, shard, num_shards)


def checkpoint_exists(prefix):
    """True when `prefix` names a complete checkpoint (its index file is there)."""
    return os.path.isfile(index_filename(prefix))


# =============================================================================
# Tensors <-> bytes
# =============================================================================

def _little_endian(np_dtype):
    return np.dtype(np_dtype).newbyteorder("<")


def encode_tensor(array, dtype):
    """(bytes, masked CRC-32C) of `array` (of minitf dtype `dtype`), as the data file holds it."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype == dtypes.string:
        return _encode_strings([_as_bytes(element) for element in np.asarray(array).flat])
    raw = np.ascontiguousarray(array, dtype=_little_endian(dtype.as_numpy_dtype)).tobytes()
    return raw, crc32c.mask(crc32c.value(raw))


def _as_bytes(element):
    return element.encode("utf-8") if isinstance(element, str) else bytes(element)


def _encode_strings(elements):
    """The lengths as varints, their checksum, the bytes; and the checksum of all three.

    TensorFlow's quirk, kept for its bytes: the checksum covers each length
    as a 4-byte integer (8 for a string over 4 GiB), not as its varint.
    """
    lengths = b"".join(table.put_varint(len(e)) for e in elements)
    crc = crc32c.value(b"".join(_length_bytes(len(e)) for e in elements))
    lengths_checksum = _UINT32.pack(crc32c.mask(crc))
    crc = crc32c.extend(crc, lengths_checksum)
    strings = b"".join(elements)
    crc = crc32c.extend(crc, strings)
    return lengths + lengths_checksum + strings, crc32c.mask(crc)


def _length_bytes(length):
    return struct.pack("<I" if length <= 0xFFFFFFFF else "<Q", length)


def decode_tensor(raw, dtype, shape, masked_crc32c):
    """The array that `encode_tensor` turned into `raw`; ValueError if the bytes are damaged.

    The checksum is verified before anything is decoded.
    """
    dtype = dtypes.as_dtype(dtype).base_dtype
    count = int(np.prod(shape, dtype=np.int64))
    if dtype == dtypes.string:
        return _decode_strings(raw, count, masked_crc32c).reshape(shape)
    actual = crc32c.value(raw)
    if crc32c.mask(actual) != masked_crc32c:
        raise ChecksumError(crc32c.unmask(masked_crc32c), actual)
    np_dtype = _little_endian(dtype.as_numpy_dtype)
    if len(raw) != count * np_dtype.itemsize:
        raise ValueError("%d bytes cannot hold %d elements of %s" % (len(raw), count,
                                                                   dtype.name))
    array = np.frombuffer(raw, dtype=np_dtype).reshape(shape)
    return array.astype(dtype.as_numpy_dtype)  # native byte order, and a writable copy


class ChecksumError(ValueError):
    """Bytes whose CRC-32C is not the one stored for them."""

    def __init__(self, stored, actual):
        super().__init__("Checksum does not match: stored %d vs. calculated on the restored "
                         "bytes %d" % (stored, actual))


def _decode_strings(raw, count, masked_crc32c):
    lengths, position = [], 0
    for i in range(count):
        try:
            length, position = table.get_varint(raw, position)
        except table.TableError:
            raise ValueError("the length of string element %d is cut off" % i) from None
        lengths.append(length)
    crc = crc32c.value(b"".join(_length_bytes(n) for n in lengths))
    if position + 4 > len(raw) or crc32c.unmask(_UINT32.unpack_from(raw, position)[0]) != crc:
        raise ValueError("The length checksum does not match: the string lengths are damaged")
    crc = crc32c.extend(crc, raw[position:position + 4])
    position += 4
    if position + sum(lengths) != len(raw):
        raise ValueError("%d bytes of strings, expected %d" % (len(raw) - position,
                                                               sum(lengths)))
    actual = crc32c.extend(crc, raw[position:])
    if crc32c.mask(actual) != masked_crc32c:
        raise ChecksumError(crc32c.unmask(masked_crc32c), actual)
    result = np.empty(count, dtype=object)
    for i, length in enumerate(lengths):
        result[i] = bytes(raw[position:position + length])
        position += length
    return result


# =============================================================================
# Which part of a tensor to read: the ops' `shape_and_slices` entries
# =============================================================================

def parse_shape_and_slice(spec):
    """The full shape a `shape_and_slices` entry names, or None for "" (the whole tensor).

    A spec is TF's "dim0 dim1 ... slice", the slice being one "start,length"
    (or "-", all of it) per dimension joined by ":". minitf restores whole
    tensors only: a slice that is not the whole tensor raises ValueError.
    """
    if isinstance(spec, bytes):
        spec = spec.decode("utf-8")
    if not spec:
        return None
    parts = spec.split(" ")
    if len(parts) < 2:
        raise ValueError("Need least two elements in shape_and_slice specification: %s" % spec)
    try:
        full_shape = [int(d) for d in parts[:-1]]
    except ValueError:
        raise ValueError("Non numerical dimension in shape_and_slice: %s" % spec) from None
    extents = parts[-1].split(":")
    if len(extents) != len(full_shape) or not all(
            _is_whole_extent(extent, dim) for extent, dim in zip(extents, full_shape)):
        raise ValueError("minitf restores whole tensors only; shape_and_slice %r names a "
                         "slice" % spec)
    return full_shape


def _is_whole_extent(extent, dim):
    return extent == "-" or extent == "0,%d" % dim


# =============================================================================
# Writing files atomically
# =============================================================================

def temporary_name(path):
    """A fresh name next to `path` to write it under before it may be seen."""
    return "%s.tempstate%s" % (path, uuid.uuid4().hex)


def write_atomically(path, payload):
    """Writes `payload` (bytes) to `path` so that readers see the old file or the new one.

    The bytes go to a temporary file that is fsync'ed, then renamed over
    `path`; the directory is fsync'ed too, so the rename itself survives a
    power cut.
    """
    temporary = temporary_name(path)
    try:
        with open(temporary, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        _remove_if_exists(temporary)
        raise
    _fsync_directory(os.path.dirname(path) or ".")


def _fsync_directory(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # not every platform can open a directory; the rename is done anyway
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_if_exists(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


# =============================================================================
# The index
# =============================================================================

class TensorEntry:
    """One tensor of the index (a BundleEntryProto): where its bytes are and what they hold.

    `dtype` is None for a dtype minitf does not have (its number is in `dtype_enum`).
    """

    __slots__ = ("name", "dtype", "dtype_enum", "shape", "shard_id", "offset", "size",
                 "crc32c", "sliced")

    def __init__(self, name, dtype, shape, shard_id, offset, size, crc32c_value, sliced=False):
        self.name = name
        if isinstance(dtype, int) and not isinstance(dtype, bool):
            self.dtype_enum = dtype
            self.dtype = _known_dtype(dtype)
        else:
            self.dtype = dtypes.as_dtype(dtype).base_dtype
            self.dtype_enum = self.dtype.as_datatype_enum
        self.shape = [int(d) for d in shape]
        self.shard_id = int(shard_id)
        self.offset = int(offset)
        self.size = int(size)
        self.crc32c = int(crc32c_value)
        self.sliced = sliced
        if min(self.shape + [self.shard_id, self.offset, self.size]) < 0:
            raise ValueError("negative size or position in the entry of %s" % name)

    def to_proto(self):
        proto = _bundle_pb2().BundleEntryProto(dtype=self.dtype_enum, shard_id=self.shard_id,
                                               offset=self.offset, size=self.size,
                                               crc32c=self.crc32c)
        proto.shape.CopyFrom(tensor_shape.TensorShape(self.shape).as_proto())
        proto.shape.SetInParent()  # a scalar's empty shape is still written, as TF does
        return proto

    @classmethod
    def from_proto(cls, name, proto):
        shape = [dim.size for dim in proto.shape.dim]
        return cls(name, int(proto.dtype), shape, proto.shard_id, proto.offset, proto.size,
                   proto.crc32c, sliced=bool(proto.slices))

    def __repr__(self):
        return "TensorEntry(%r, %s, %s)" % (self.name, self.dtype.name if self.dtype else
                                            "dtype %d" % self.dtype_enum, self.shape)


def _known_dtype(dtype_enum):
    try:
        return dtypes.as_dtype(dtype_enum).base_dtype
    except TypeError:
        return None


def encode_index(entries, num_shards):
    """The bytes of an index file: the header, then `entries` in name order."""
    bundle_pb2 = _bundle_pb2()
    header = bundle_pb2.BundleHeaderProto(num_shards=num_shards)
    header.version.producer = VERSION
    items = [(HEADER_KEY, header.SerializeToString(deterministic=True))]
    items += sorted((e.name.encode("utf-8"), e.to_proto().SerializeToString(deterministic=True))
                    for e in entries)
    return table.build_table(items)


def decode_index(raw, filename):
    """(num_shards, {name: TensorEntry}) from the bytes of an index; DataLossError if damaged."""
    bundle_pb2 = _bundle_pb2()
    try:
        items = table.read_table(raw)
    except table.TableError as e:
        raise _data_loss("%s is not a valid checkpoint index: %s" % (filename, e)) from None
    if not items or items[0][0] != HEADER_KEY:
        raise _data_loss("%s is not a valid checkpoint index: it has no header entry"
                         % filename)
    header = _parse(bundle_pb2.BundleHeaderProto, items[0][1], filename, "its header")
    _check_header(header, filename)
    entries = {}
    for key, value in items[1:]:
        name = key.decode("utf-8", errors="replace")
        proto = _parse(bundle_pb2.BundleEntryProto, value, filename, "the entry of %s" % name)
        try:
            entries[name] = TensorEntry.from_proto(name, proto)
        except ValueError as e:
            raise _data_loss("%s is not a valid checkpoint index: %s" % (filename, e)) from None
    return header.num_shards, entries


def _parse(message_class, raw, filename, what):
    message = message_class()
    try:
        message.ParseFromString(bytes(raw))
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise _data_loss("%s is not a valid checkpoint index: %s cannot be parsed (%s)"
                         % (filename, what, e)) from None
    return message


def _check_header(header, filename):
    """TensorFlow's checks of a bundle's header: byte order, then versions (CheckVersions)."""
    if header.endianness != header.LITTLE:
        raise errors.UnimplementedError(
            None, None, "Reading a bundle with different endianness from the reader is "
            "unsupported (%s)" % filename)
    version = header.version
    if version.producer < MIN_PRODUCER:
        raise errors.InvalidArgumentError(
            None, None, "Checkpoint producer version %d below min producer %d supported by "
            "TensorFlow.  Please regenerate your checkpoint. (%s)" % (
                version.producer, MIN_PRODUCER, filename))
    if version.min_consumer > VERSION:
        raise errors.InvalidArgumentError(
            None, None, "Checkpoint min consumer version %d above current version %d for "
            "TensorFlow.  Please upgrade TensorFlow. (%s)" % (version.min_consumer, VERSION,
                                                              filename))
    if VERSION in version.bad_consumers:
        raise errors.InvalidArgumentError(
            None, None, "Checkpoint disallows consumer version %d.  Please upgrade "
            "TensorFlow: this version is likely buggy. (%s)" % (VERSION, filename))


def _data_loss(message):
    return errors.DataLossError(None, None, message)


# =============================================================================
# Writer
# =============================================================================

def write_checkpoint(prefix, tensors):
    """Writes a one-shard checkpoint of `tensors`, a list of (name, array, dtype).

    The bytes go into the data file in the order given; the data file is
    complete on disk before the index that makes the checkpoint visible is
    renamed into place. Returns the index entries.
    """
    _check_unique_names([name for name, _, _ in tensors])
    entries, chunks, offset = [], [], 0
    for name, array, dtype in tensors:
        raw, checksum = encode_tensor(array, dtype)
        entries.append(TensorEntry(name, dtype, np.shape(array), 0, offset, len(raw), checksum))
        chunks.append(raw)
        offset += len(raw)
    # Saving over an existing checkpoint: its index goes first, so that a crash
    # cannot leave the old index pointing into the new data.
    _remove_if_exists(index_filename(prefix))
    write_atomically(data_filename(prefix), b"".join(chunks))
    write_atomically(index_filename(prefix), encode_index(entries, num_shards=1))
    return entries


def _check_unique_names(names):
    seen = set()
    for name in names:
        if name in seen:
            raise errors.InvalidArgumentError(
                None, None, "Adding a tensor named %s twice to one checkpoint" % name)
        seen.add(name)


def merge_checkpoints(source_prefixes, destination_prefix):
    """Turns several checkpoints into one whose data files are theirs, renamed.

    The sources' indexes are read, then removed (so that no source looks
    like a checkpoint once its data files move), and so is the index of an
    older checkpoint at the destination; the data files are renamed to
    `<destination>.data-0000i-of-0000n` in the sources' order, and the
    merged index is written last, atomically. Tensor names must not
    repeat across sources.
    """
    sources = [(source,) + read_index(source) for source in source_prefixes]
    num_shards = sum(source_shards for _, source_shards, _ in sources)
    merged, first_shard = [], 0
    for _, source_shards, entries in sources:
        for entry in entries.values():
            entry.shard_id += first_shard
            merged.append(entry)
        first_shard += source_shards
    _check_unique_names([e.name for e in merged])
    for source in list(source_prefixes) + [destination_prefix]:
        _remove_if_exists(index_filename(source))
    shard = 0
    for source, source_shards, _ in sources:
        for i in range(source_shards):
            os.replace(data_filename(source, i, source_shards),
                       data_filename(destination_prefix, shard, num_shards))
            shard += 1
    _fsync_directory(os.path.dirname(destination_prefix) or ".")  # the renames, before the index
    write_atomically(index_filename(destination_prefix), encode_index(merged, num_shards))


# =============================================================================
# Reader
# =============================================================================

def not_found_error(prefix):
    """TensorFlow's error for a prefix with no checkpoint behind it."""
    return errors.NotFoundError(
        None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any matching "
        "files for %s" % prefix)


def read_index(prefix):
    """(num_shards, {name: TensorEntry}) of the checkpoint `prefix`."""
    filename = index_filename(prefix)
    try:
        with open(filename, "rb") as f:
            raw = f.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise not_found_error(prefix) from None
    return decode_index(raw, filename)


class CheckpointReader:
    """Reads the tensors of the checkpoint `prefix`, verifying every byte it hands out.

    Opening it reads and verifies the index (NotFoundError when there is
    none, DataLossError when it is damaged); each `read` then reads one
    tensor's bytes and checks their length and CRC-32C.
    """

    def __init__(self, prefix):
        self.prefix = prefix
        self.num_shards, self.entries = read_index(prefix)

    def has_tensor(self, name):
        return name in self.entries

    def entry(self, name):
        """The index entry of `name`; NotFoundError (TF's message) when it is not there."""
        try:
            return self.entries[name]
        except KeyError:
            raise errors.NotFoundError(
                None, None, "Key %s not found in checkpoint" % name) from None

    def read(self, name):
        """The value of tensor `name`, as a NumPy array of its dtype."""
        entry = self.entry(name)
        check_readable(entry, self.prefix)
        filename = data_filename(self.prefix, entry.shard_id, self.num_shards)
        raw = self._read_bytes(filename, entry)
        try:
            return decode_tensor(raw, entry.dtype, entry.shape, entry.crc32c)
        except ChecksumError as e:
            raise _data_loss("%s for tensor %s in %s" % (e, name, filename)) from None
        except ValueError as e:
            raise _data_loss("Tensor %s in %s cannot be decoded: %s" % (name, filename,
                                                                        e)) from None

    @staticmethod
    def _read_bytes(filename, entry):
        try:
            with open(filename, "rb") as f:
                f.seek(entry.offset)
                raw = f.read(entry.size)
        except FileNotFoundError:
            raise _data_loss("Data file %s of tensor %s is missing" % (
                filename, entry.name)) from None
        if len(raw) != entry.size:
            raise _data_loss("Truncated data file %s: tensor %s needs %d bytes at offset %d, "
                             "only %d are there" % (filename, entry.name, entry.size,
                                                    entry.offset, len(raw)))
        return raw

    def shape_map(self):
        """{name: shape as a list of ints}."""
        return {name: list(e.shape) for name, e in self.entries.items()}

    def dtype_map(self):
        """{name: DType} (None for a dtype minitf does not have)."""
        return {name: e.dtype for name, e in self.entries.items()}


def check_readable(entry, prefix):
    """What minitf cannot read is refused by name, before any bytes are read."""
    if entry.sliced:
        raise errors.UnimplementedError(
            None, None, "Tensor %s of checkpoint %s is stored in slices (a partitioned "
            "variable); minitf reads whole tensors only" % (entry.name, prefix))
    if entry.dtype is None:
        raise errors.UnimplementedError(
            None, None, "Tensor %s of checkpoint %s has dtype %d, which minitf does not have"
            % (entry.name, prefix, entry.dtype_enum))
