"""The table file of a checkpoint's index (LevelDB's format) and its CRC-32C checksums."""

import pathlib
import struct

import pytest

from minitf.framework import crc32c
from minitf.framework import table

DATA = pathlib.Path(__file__).resolve().parent / "data"


def test_crc32c_values_and_the_mask():
    assert crc32c.value(b"123456789") == 0xE3069283  # the standard check value
    assert crc32c.extend(crc32c.value(b"1234"), b"56789") == 0xE3069283
    assert crc32c.value(b"") == 0
    assert crc32c.mask(0) == 0xA282EAD8  # the mask's constant
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert crc32c.unmask(crc32c.mask(crc)) == crc
        assert crc32c.mask(crc) != crc


def test_varints():
    assert table.put_varint(0) == b"\x00"
    assert table.put_varint(127) == b"\x7f"
    assert table.put_varint(300) == b"\xac\x02"
    assert table.get_varint(b"\xff\xac\x02", 1) == (300, 3)
    with pytest.raises(table.TableError, match="past the end"):
        table.get_varint(b"\xac", 0)


def test_separators_are_short_keys_between_blocks():
    assert table.shortest_separator(b"abcdef", b"abzz") == b"abd"
    assert table.shortest_separator(b"abc", b"abd") == b"abc"  # no shorter key fits
    assert table.shortest_separator(b"ab", b"abc") == b"ab"  # a prefix stays as it is
    assert table.short_successor(b"s") == b"t"
    assert table.short_successor(b"\xff\xffa") == b"\xff\xffb"
    assert table.short_successor(b"\xff") == b"\xff"


def test_a_block_stores_shared_prefixes_and_a_restart_point_every_16_entries():
    block = table.BlockBuilder()
    keys = [b"layer_%02d/kernel" % i for i in range(20)]
    for key in keys:
        block.add(key, b"v")
    contents = block.finish()
    num_restarts, = struct.unpack_from("<I", contents, len(contents) - 4)
    restarts = struct.unpack_from("<%dI" % num_restarts, contents,
                                  len(contents) - 4 - 4 * num_restarts)
    assert num_restarts == 2 and restarts[0] == 0
    assert contents[:3] == bytes([0, len(keys[0]), 1])  # entry 0: its whole key
    second = 3 + len(keys[0]) + 1
    assert contents[second:second + 3] == bytes([7, len(keys[1]) - 7, 1])  # "layer_0" shared
    assert contents[restarts[1]] == 0  # entry 16 starts over: nothing shared
    assert table.read_block(contents) == [(k, b"v") for k in keys]


def test_many_keys_make_several_data_blocks_and_read_back_in_order():
    items = [(b"key/%05d" % i, b"value %d" % i * (i % 7)) for i in range(3000)]
    data = table.build_table(items, block_size=4096)
    footer = data[-table.FOOTER_SIZE:]
    assert footer[-8:] == struct.pack("<Q", table.MAGIC_NUMBER)
    _, position = table.decode_handle(footer)
    index_handle, _ = table.decode_handle(footer, position)
    index = table.read_block(table._block_contents(memoryview(data), index_handle))
    assert len(index) > 10
    assert [k for k, _ in index] == sorted(k for k, _ in index)
    assert table.read_table(data) == items


def test_keys_must_come_in_increasing_order():
    with pytest.raises(ValueError, match="increasing order"):
        table.build_table([(b"b", b""), (b"a", b"")])
    with pytest.raises(ValueError, match="increasing order"):
        table.build_table([(b"a", b""), (b"a", b"")])


def test_the_index_tensorflow_wrote_is_rebuilt_byte_for_byte():
    data = (DATA / "tf_model.index").read_bytes()
    items = table.read_table(data)
    assert items[0][0] == b"" and [k for k, _ in items[1:]] == sorted(k for k, _ in items[1:])
    assert table.build_table(items) == data


def test_every_damaged_byte_of_a_table_is_caught():
    data = table.build_table([(b"k%02d" % i, b"v") for i in range(40)])
    footer = len(data) - table.FOOTER_SIZE
    (metaindex_offset, metaindex_size), handle_end = table.decode_handle(data[footer:])
    _, end = table.decode_handle(data[footer:], handle_end)
    unread = set(range(metaindex_offset, metaindex_offset + metaindex_size + table.TRAILER_SIZE))
    unread |= set(range(footer, footer + handle_end)) | set(range(footer + end, len(data) - 8))
    for position in range(len(data)):
        damaged = bytearray(data)
        damaged[position] ^= 0x40
        try:
            items = table.read_table(bytes(damaged))
        except table.TableError:
            continue
        # Only what no reader looks at may change without notice: the (empty)
        # metaindex block and its handle, which TensorFlow does not read
        # either, and the footer's padding.
        assert position in unread, position
        assert items == table.read_table(data)
