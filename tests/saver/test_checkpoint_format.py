"""The checkpoint files: names, bytes, index, checksums, and the SaveV2/RestoreV2 ops."""

import os
import struct

import numpy as np
import pytest

import minitf as tf
from minitf.framework import crc32c
from minitf.framework import table
from minitf.framework import tensor_bundle as cf
from minitf.proto import tensor_bundle_pb2
from minitf.saver import io_ops

# One tensor of every dtype minitf has, 0-d and empty ones included.
ALL_DTYPE_VALUES = {
    "f16": (np.array([1.5, -2.25, 65504.0], np.float16), tf.float16),
    "f32": (np.arange(6, dtype=np.float32).reshape(2, 3) / 7, tf.float32),
    "f64": (np.array(np.pi), tf.float64),
    "i8": (np.array([-128, 0, 127], np.int8), tf.int8),
    "i16": (np.array([[-32768], [32767]], np.int16), tf.int16),
    "i32": (np.array(-7, np.int32), tf.int32),
    "i64": (np.array([2**62, -2**62], np.int64), tf.int64),
    "u8": (np.array([0, 255], np.uint8), tf.uint8),
    "u16": (np.array([65535], np.uint16), tf.uint16),
    "u32": (np.array([2**32 - 1], np.uint32), tf.uint32),
    "u64": (np.array([2**64 - 1], np.uint64), tf.uint64),
    "bool": (np.array([[True, False], [False, True]]), tf.bool),
    "str": (np.array([[b"", b"a\x00b"], ["h\u00e9llo".encode(), b"x" * 300]], dtype=object),
            tf.string),
    "str0": (np.array(b"scalar", dtype=object), tf.string),
    "empty": (np.zeros((0, 3), np.float32), tf.float32),
}


def _write_all(prefix):
    cf.write_checkpoint(prefix, [(name, value, dtype)
                                 for name, (value, dtype) in ALL_DTYPE_VALUES.items()])


def _assert_same(actual, expected):
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


def test_round_trip_of_every_dtype(tmp_path):
    prefix = str(tmp_path / "all")
    _write_all(prefix)
    reader = cf.CheckpointReader(prefix)
    for name, (value, dtype) in ALL_DTYPE_VALUES.items():
        _assert_same(reader.read(name), value)
    assert reader.dtype_map()["str"] == tf.string
    assert reader.shape_map()["f64"] == [] and reader.shape_map()["empty"] == [0, 3]


def test_file_names_and_no_temporary_files_left(tmp_path):
    prefix = str(tmp_path / "model-1000")
    _write_all(prefix)
    assert sorted(os.listdir(tmp_path)) == ["model-1000.data-00000-of-00001", "model-1000.index"]
    assert cf.checkpoint_exists(prefix)
    assert not cf.checkpoint_exists(str(tmp_path / "model"))
    assert cf.data_filename("p", 1, 4) == "p.data-00001-of-00004"


def test_data_file_is_raw_little_endian_bytes_and_varint_prefixed_strings(tmp_path):
    prefix = str(tmp_path / "ckpt")
    cf.write_checkpoint(prefix, [("a", np.array([1, 256], np.int32), tf.int32),
                                 ("b", np.array([b"hi", b"", b"x" * 200], dtype=object), tf.string),
                                 ("c", np.array(True), tf.bool)])
    raw = (tmp_path / "ckpt.data-00000-of-00001").read_bytes()
    # The lengths' checksum covers them as uint32s, not as the varints written.
    lengths_crc = crc32c.mask(crc32c.value(struct.pack("<III", 2, 0, 200)))
    strings = b"\x02\x00\xc8\x01" + struct.pack("<I", lengths_crc) + b"hi" + b"x" * 200
    assert raw == b"\x01\x00\x00\x00\x00\x01\x00\x00" + strings + b"\x01"


def test_big_endian_input_is_stored_little_endian(tmp_path):
    prefix = str(tmp_path / "ckpt")
    big = np.array([1.0, 2.0], dtype=">f4")
    cf.write_checkpoint(prefix, [("x", big, tf.float32)])
    raw = (tmp_path / "ckpt.data-00000-of-00001").read_bytes()
    assert raw == np.array([1.0, 2.0], "<f4").tobytes()
    _assert_same(cf.CheckpointReader(prefix).read("x"), np.array([1.0, 2.0], np.float32))


def test_index_is_a_table_of_a_header_and_a_sorted_entry_per_tensor(tmp_path):
    prefix = str(tmp_path / "ckpt")
    cf.write_checkpoint(prefix, [("z", np.ones(3, np.float64), tf.float64),
                                 ("a", np.array(5, np.int64), tf.int64)])
    items = table.read_table((tmp_path / "ckpt.index").read_bytes())
    assert [key for key, _ in items] == [b"", b"a", b"z"]
    header = tensor_bundle_pb2.BundleHeaderProto.FromString(items[0][1])
    assert (header.num_shards, header.endianness, header.version.producer) == (1, 0, 1)
    z = tensor_bundle_pb2.BundleEntryProto.FromString(items[2][1])
    a = tensor_bundle_pb2.BundleEntryProto.FromString(items[1][1])
    # Data lie in the order written (z first); the index lists them by name.
    assert (z.dtype, [d.size for d in z.shape.dim], z.shard_id, z.offset, z.size) == (
        tf.float64.as_datatype_enum, [3], 0, 0, 24)
    assert (a.offset, a.size, a.HasField("shape"), len(a.shape.dim)) == (24, 8, True, 0)
    data = (tmp_path / "ckpt.data-00000-of-00001").read_bytes()
    assert z.crc32c == crc32c.mask(crc32c.value(data[0:24]))


def test_missing_checkpoint_is_not_found_with_tf_message(tmp_path):
    prefix = str(tmp_path / "nothere")
    with pytest.raises(tf.errors.NotFoundError,
                       match="Unsuccessful TensorSliceReader constructor: Failed to find any "
                             "matching files for .*nothere"):
        cf.CheckpointReader(prefix)


def test_missing_key_is_not_found(tmp_path):
    prefix = str(tmp_path / "ckpt")
    _write_all(prefix)
    with pytest.raises(tf.errors.NotFoundError, match="^Key nope not found in checkpoint$"):
        cf.CheckpointReader(prefix).read("nope")


def _flip_byte(path, offset):
    raw = bytearray(path.read_bytes())
    raw[offset] ^= 0x01
    path.write_bytes(bytes(raw))


def test_flipped_data_byte_is_data_loss_naming_file_and_tensor(tmp_path):
    prefix = str(tmp_path / "ckpt")
    cf.write_checkpoint(prefix, [("a", np.arange(4, dtype=np.float32), tf.float32),
                                 ("b", np.arange(4, dtype=np.float32), tf.float32)])
    _flip_byte(tmp_path / "ckpt.data-00000-of-00001", 17)  # inside b
    reader = cf.CheckpointReader(prefix)
    np.testing.assert_array_equal(reader.read("a"), np.arange(4))  # a is intact
    with pytest.raises(tf.errors.DataLossError,
                       match=r"Checksum does not match.*tensor b in .*ckpt\.data-00000-of-00001"):
        reader.read("b")


def test_truncated_data_file_is_data_loss(tmp_path):
    prefix = str(tmp_path / "ckpt")
    cf.write_checkpoint(prefix, [("a", np.arange(10, dtype=np.int64), tf.int64)])
    data = tmp_path / "ckpt.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[:50])
    with pytest.raises(tf.errors.DataLossError,
                       match=r"Truncated data file .*ckpt\.data-00000-of-00001: tensor a needs "
                             r"80 bytes at offset 0, only 50"):
        cf.CheckpointReader(prefix).read("a")


def test_missing_data_file_is_data_loss(tmp_path):
    prefix = str(tmp_path / "ckpt")
    cf.write_checkpoint(prefix, [("a", np.arange(3, dtype=np.int64), tf.int64)])
    os.remove(tmp_path / "ckpt.data-00000-of-00001")
    with pytest.raises(tf.errors.DataLossError, match="Data file .* of tensor a is missing"):
        cf.CheckpointReader(prefix).read("a")


def test_corrupted_or_truncated_index_is_data_loss(tmp_path):
    prefix = str(tmp_path / "ckpt")
    cf.write_checkpoint(prefix, [("a", np.arange(300, dtype=np.int64), tf.int64)])
    index = tmp_path / "ckpt.index"
    raw = index.read_bytes()
    _flip_byte(index, 12)  # inside the entry of a: its block's checksum catches it
    with pytest.raises(tf.errors.DataLossError,
                       match="ckpt.index is not a valid checkpoint index: block checksum "
                             "mismatch"):
        cf.CheckpointReader(prefix)
    index.write_bytes(raw[:len(raw) // 2])
    with pytest.raises(tf.errors.DataLossError, match="bad magic number"):
        cf.CheckpointReader(prefix)
    index.write_bytes(b"")
    with pytest.raises(tf.errors.DataLossError, match="too short"):
        cf.CheckpointReader(prefix)


def test_a_checkpoint_that_needs_a_newer_reader_is_refused(tmp_path):
    prefix = str(tmp_path / "ckpt")
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=1)
    header.version.producer, header.version.min_consumer = 7, 99  # a future version's file
    (tmp_path / "ckpt.index").write_bytes(table.build_table([(b"", header.SerializeToString())]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Checkpoint min consumer version 99 above current version 1"):
        cf.CheckpointReader(prefix)
    header.version.min_consumer, header.endianness = 0, header.BIG
    (tmp_path / "ckpt.index").write_bytes(table.build_table([(b"", header.SerializeToString())]))
    with pytest.raises(tf.errors.UnimplementedError, match="different endianness"):
        cf.CheckpointReader(prefix)


def test_a_sliced_tensor_is_refused_by_name(tmp_path):
    prefix = str(tmp_path / "ckpt")
    cf.write_checkpoint(prefix, [("part", np.ones(2, np.float32), tf.float32)])
    items = table.read_table((tmp_path / "ckpt.index").read_bytes())
    entry = tensor_bundle_pb2.BundleEntryProto.FromString(items[1][1])
    entry.slices.add().extent.add(start=0, length=2)  # as TF saves a partitioned variable
    items[1] = (b"part", entry.SerializeToString())
    (tmp_path / "ckpt.index").write_bytes(table.build_table(items))
    reader = cf.CheckpointReader(prefix)
    assert reader.shape_map() == {"part": [2]}
    with pytest.raises(tf.errors.UnimplementedError, match="Tensor part .* is stored in slices"):
        reader.read("part")


def test_merge_checkpoints_makes_one_index_over_several_data_files(tmp_path):
    a, b = str(tmp_path / "part-0"), str(tmp_path / "part-1")
    cf.write_checkpoint(a, [("x", np.array([1.0], np.float32), tf.float32)])
    cf.write_checkpoint(b, [("y", np.array([b"s"], dtype=object), tf.string)])
    cf.merge_checkpoints([a, b], str(tmp_path / "merged"))
    assert sorted(os.listdir(tmp_path)) == ["merged.data-00000-of-00002",
                                            "merged.data-00001-of-00002", "merged.index"]
    reader = cf.CheckpointReader(str(tmp_path / "merged"))
    assert reader.num_shards == 2 and reader.entries["y"].shard_id == 1
    _assert_same(reader.read("y"), np.array([b"s"], dtype=object))


def test_parse_shape_and_slice():
    assert cf.parse_shape_and_slice("") is None
    assert cf.parse_shape_and_slice(b"2 3 0,2:-") == [2, 3]
    with pytest.raises(ValueError, match="whole tensors only"):
        cf.parse_shape_and_slice("4 0,2")
    with pytest.raises(ValueError, match="Non numerical dimension"):
        cf.parse_shape_and_slice("a -")


# --- the ops -------------------------------------------------------------------------------

def test_save_v2_and_restore_v2_ops_round_trip_every_dtype(tmp_path):
    prefix = str(tmp_path / "sub" / "ckpt")  # SaveV2 creates the missing directory
    names = list(ALL_DTYPE_VALUES)
    tensors = [tf.constant(value, dtype=dtype) for value, dtype in ALL_DTYPE_VALUES.values()]
    save = io_ops.save_v2(prefix, names, [""] * len(names), tensors)
    restored = io_ops.restore_v2(prefix, names, [""] * len(names),
                                 [dtype for _, dtype in ALL_DTYPE_VALUES.values()])
    assert save.type == "SaveV2" and save.op_def.is_stateful
    assert save.get_attr("dtypes") == [d for _, d in ALL_DTYPE_VALUES.values()]
    assert [t.dtype for t in restored] == [d for _, d in ALL_DTYPE_VALUES.values()]
    with tf.Session() as sess:
        sess.run(save)
        values = sess.run(restored)
    for name, value in zip(names, values):
        expected = ALL_DTYPE_VALUES[name][0]
        if expected.dtype == object and expected.ndim == 0:
            assert value == expected.item()  # a fetched 0-d string is bytes, as in TF
        else:
            _assert_same(np.asarray(value), expected)


def test_restore_v2_checks_every_tensor_before_returning(tmp_path):
    prefix = str(tmp_path / "ckpt")
    cf.write_checkpoint(prefix, [("v", np.array([1.0, 2.0], np.float32), tf.float32)])
    wrong_dtype = io_ops.restore_v2(prefix, ["v"], [""], [tf.float64])
    wrong_shape = io_ops.restore_v2(prefix, ["v"], ["3 -"], [tf.float32])
    missing = io_ops.restore_v2(prefix, ["v", "w"], ["", ""], [tf.float32, tf.float32])
    nowhere = io_ops.restore_v2(str(tmp_path / "none"), ["v"], [""], [tf.float32])
    # With a constant full-shape spec, the restored tensor has a static shape.
    assert io_ops.restore_v2(prefix, ["v"], ["2 -"], [tf.float32])[0].shape.as_list() == [2]
    with tf.Session() as sess:
        # The reference TF says "tensor_name = v; expected dtype double does not equal
        # original dtype float" (its dtype names); minitf adds the checkpoint.
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="tensor_name = v; expected dtype float64 does not equal "
                                 "original dtype float32 .checkpoint .*ckpt"):
            sess.run(wrong_dtype)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"tensor_name = v; shape in shape_and_slice spec \[3\] does not "
                                 r"match the shape stored in checkpoint: \[2\]"):
            sess.run(wrong_shape)
        with pytest.raises(tf.errors.NotFoundError, match="Key w not found in checkpoint"):
            sess.run(missing)
        with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
            sess.run(nowhere)


def test_save_v2_rejects_mismatched_names_and_slices(tmp_path):
    prefix = tf.placeholder(tf.string, [])
    names = tf.placeholder(tf.string, [None])
    save = io_ops.save_v2(prefix, names, ["", ""], [tf.constant(1), tf.constant(2)])
    sliced = io_ops.save_v2(prefix, ["a"], ["2 0,1"], [tf.constant([1, 2])])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="tensor_names and shape_and_slices have different number of "
                                 "elements: 3 vs. 2"):
            sess.run(save, {prefix: str(tmp_path / "x"), names: ["a", "b", "c"]})
        with pytest.raises(tf.errors.UnimplementedError, match="whole tensors only"):
            sess.run(sliced, {prefix: str(tmp_path / "y")})
    with pytest.raises(ValueError, match="shape_and_slices has 1 entries for 2 tensors"):
        io_ops.save_v2("p", ["a", "b"], [""], [tf.constant(1), tf.constant(2)])


def test_sharded_filename_op():
    name = io_ops.sharded_filename("dir/model", 3, 12)
    with tf.Session() as sess:
        assert sess.run(name) == b"dir/model-00003-of-00012"
