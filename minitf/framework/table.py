"""The table file: sorted key/value pairs in blocks, as LevelDB lays them out (a checkpoint's `.index`).

A table is written once, with keys added in increasing (bytewise) order,
and read by key. TensorFlow took the format from LevelDB and uses it for
a checkpoint's index: the keys are tensor names, the values protobufs
(`tensor_bundle.py`). A file is:

```
data block 0 | trailer          the pairs, in order, until a block is big enough
data block 1 | trailer
...
metaindex block | trailer       empty: TensorFlow keeps no filters or stats
index block | trailer           one pair per data block: a key >= its last key,
                                and where the block is (offset, size)
footer (48 bytes)               where the metaindex and index blocks are, zero
                                padding, and the magic number 0xdb4775248b80fb57
```

**A block** is its entries, then the *restart points*, then their count:

```
entry:    shared (varint) | unshared (varint) | value length (varint)
          | key[shared:] | value
restarts: offset of entry 0, of entry 16, ... (uint32 each) | count (uint32)
```

Keys are sorted, so neighbours share prefixes: each entry stores only
the part of its key that differs from the key before (`shared` bytes are
taken from the previous key). Every 16th entry (a *restart point*) stores
its whole key, so a reader can binary-search the restart points and decode
from there instead of from the start.

**The trailer** after each block is one byte of compression type (always
0, none: TensorFlow writes its indexes uncompressed) and the masked
CRC-32C of the block and that byte (`crc32c.py`). A reader checks it
before it trusts a single offset in the block.

Integers are little-endian; a *varint* is 7 bits per byte, low bits
first, the high bit set on every byte but the last; a *block handle* is
two varints, the block's offset and size (without the trailer).

Mirrors `tensorflow/tsl/lib/io/table_builder.cc`, `block_builder.cc`,
`block.cc`, `format.cc`, `table.cc`, and LevelDB's `doc/table_format.md`.
"""

import struct

from minitf.framework import crc32c

MAGIC_NUMBER = 0xDB4775248B80FB57
BLOCK_SIZE = 262144           # a data block is closed once it reaches this many bytes
RESTART_INTERVAL = 16         # a restart point every 16 entries (the index block: every entry)
NO_COMPRESSION = 0
TRAILER_SIZE = 5              # compression type (1 byte) + masked CRC-32C (4 bytes)
MAX_HANDLE_SIZE = 20          # two varint64s
FOOTER_SIZE = 2 * MAX_HANDLE_SIZE + 8

_UINT32 = struct.Struct("<I")


class TableError(ValueError):
    """The bytes are not a table, or a block's checksum says they were damaged."""


# =============================================================================
# Varints and block handles
# =============================================================================

def put_varint(value):
    """`value` (>= 0) as a varint: 7 bits a byte, low bits first, high bit = "more"."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def get_varint(data, position):
    """(value, position after it) of the varint at `position`; TableError if cut off."""
    result, shift = 0, 0
    while shift <= 63:
        if position >= len(data):
            raise TableError("a varint runs past the end of its block")
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7
    raise TableError("a varint is longer than 10 bytes")


def encode_handle(offset, size):
    return put_varint(offset) + put_varint(size)


def decode_handle(data, position=0):
    """((offset, size), position after the handle)."""
    offset, position = get_varint(data, position)
    size, position = get_varint(data, position)
    return (offset, size), position


# =============================================================================
# Writing
# =============================================================================

class BlockBuilder:
    """Builds one block: prefix-compressed entries and their restart points."""

    def __init__(self, restart_interval=RESTART_INTERVAL):
        self.restart_interval = restart_interval
        self.buffer = bytearray()
        self.restarts = [0]
        self.counter = 0      # entries since the last restart point
        self.last_key = b""

    def add(self, key, value):
        shared = 0
        if self.counter < self.restart_interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.counter = 0
        self.buffer += put_varint(shared) + put_varint(len(key) - shared) + put_varint(len(value))
        self.buffer += key[shared:] + value
        self.last_key = key
        self.counter += 1

    def empty(self):
        return not self.buffer

    def size_estimate(self):
        """The size the block would have if finished now."""
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def finish(self):
        restarts = b"".join(_UINT32.pack(r) for r in self.restarts)
        return bytes(self.buffer) + restarts + _UINT32.pack(len(self.restarts))


def shortest_separator(start, limit):
    """A short key k with start <= k < limit (LevelDB's bytewise FindShortestSeparator)."""
    common = 0
    while common < min(len(start), len(limit)) and start[common] == limit[common]:
        common += 1
    if common < min(len(start), len(limit)):
        byte = start[common]
        if byte < 0xFF and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start  # one is a prefix of the other, or no shorter key fits


def short_successor(key):
    """A short key >= `key`: its first byte below 0xff, plus one (FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def build_table(items, block_size=BLOCK_SIZE):
    """The bytes of a table holding `items`, (key, value) bytes pairs in increasing key order."""
    out = bytearray()
    index = BlockBuilder(restart_interval=1)
    block = BlockBuilder()
    last_key = None

    def flush(next_key):
        handle = _write_block(out, block.finish())
        separator = (short_successor(last_key) if next_key is None
                     else shortest_separator(last_key, next_key))
        index.add(separator, handle)

    for key, value in items:
        if last_key is not None and key <= last_key:
            raise ValueError("table keys must be added in increasing order: %r after %r"
                             % (key, last_key))
        if not block.empty() and block.size_estimate() >= block_size:
            flush(key)
            block = BlockBuilder()
        block.add(key, value)
        last_key = key
    if not block.empty():
        flush(None)
    metaindex_handle = _write_block(out, BlockBuilder().finish())
    index_handle = _write_block(out, index.finish())
    footer = metaindex_handle + index_handle
    out += footer + bytes(2 * MAX_HANDLE_SIZE - len(footer))
    out += _UINT32.pack(MAGIC_NUMBER & 0xFFFFFFFF) + _UINT32.pack(MAGIC_NUMBER >> 32)
    return bytes(out)


def _write_block(out, contents):
    """Appends `contents` and its trailer to `out`; returns the block's handle (bytes)."""
    handle = encode_handle(len(out), len(contents))
    kind = bytes([NO_COMPRESSION])
    out += contents + kind + _UINT32.pack(crc32c.mask(crc32c.extend(crc32c.value(contents),
                                                                     kind)))
    return handle


# =============================================================================
# Reading
# =============================================================================

def read_table(data):
    """[(key, value)] of every entry of the table in `data`, in key order; TableError if damaged."""
    data = memoryview(data)
    if len(data) < FOOTER_SIZE:
        raise TableError("file is too short (%d bytes) to be an sstable" % len(data))
    footer = data[len(data) - FOOTER_SIZE:]
    magic = _UINT32.unpack_from(footer, 2 * MAX_HANDLE_SIZE)[0] | (
        _UINT32.unpack_from(footer, 2 * MAX_HANDLE_SIZE + 4)[0] << 32)
    if magic != MAGIC_NUMBER:
        raise TableError("not an sstable (bad magic number)")
    _, position = decode_handle(footer)  # the metaindex: nothing minitf needs
    index_handle, _ = decode_handle(footer, position)
    items = []
    for _, handle_bytes in read_block(_block_contents(data, index_handle)):
        handle, _ = decode_handle(handle_bytes)
        items.extend(read_block(_block_contents(data, handle)))
    return items


def _block_contents(data, handle):
    """The bytes of the block at `handle`, once its trailer's checksum is verified."""
    offset, size = handle
    end = offset + size
    if end + TRAILER_SIZE > len(data):
        raise TableError("truncated block read: block at %d of %d bytes runs past the end"
                         % (offset, size))
    contents = bytes(data[offset:end])
    kind = data[end]
    stored = _UINT32.unpack_from(data, end + 1)[0]
    if crc32c.unmask(stored) != crc32c.extend(crc32c.value(contents), bytes([kind])):
        raise TableError("block checksum mismatch: block at offset %d" % offset)
    if kind != NO_COMPRESSION:
        raise TableError("block at offset %d is compressed (type %d); minitf reads "
                         "uncompressed tables only" % (offset, kind))
    return contents


def read_block(contents):
    """[(key, value)] of one block's entries, in order."""
    if len(contents) < 4:
        raise TableError("bad block contents: %d bytes" % len(contents))
    num_restarts = _UINT32.unpack_from(contents, len(contents) - 4)[0]
    limit = len(contents) - 4 * (num_restarts + 1)
    if limit < 0:
        raise TableError("bad block contents: %d restart points in %d bytes"
                         % (num_restarts, len(contents)))
    items, key, position = [], b"", 0
    while position < limit:
        shared, position = get_varint(contents, position)
        unshared, position = get_varint(contents, position)
        value_length, position = get_varint(contents, position)
        end = position + unshared + value_length
        if shared > len(key) or end > limit:
            raise TableError("bad entry in block")
        key = key[:shared] + contents[position:position + unshared]
        items.append((key, contents[position + unshared:end]))
        position = end
    return items
