"""Examples and the parsing ops: TensorFlow's bytes both ways, parse results, errors."""

import gzip
import json
import pathlib
import zlib

import numpy as np
import pytest

import minitf as tf

DATA = pathlib.Path(__file__).parent / "data"
RECORDED = json.loads((DATA / "examples.json").read_text())  # scripts/record_tf_records.py
SERIALIZED = [bytes.fromhex(h) for h in RECORDED["examples"]]


def example(**features):
    def feature(v):
        if not v:
            return tf.train.Feature()
        if isinstance(v[0], bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        if isinstance(v[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(
        feature={k: feature(v) for k, v in features.items()})).SerializeToString()


def run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def test_examples_serialize_to_tensorflows_bytes_and_parse_its_bytes():
    ours = [example(price=[1.5], name=[b"apple"], ids=[3, 7]),
            example(price=[2.25], name=[b"pear", b"fig"], ids=[]),
            example(price=[-0.5], name=[], ids=[9])]
    # A map's entries may be written in any order: compare messages, and one-entry bytes.
    from_tf = [tf.train.Example.FromString(s) for s in SERIALIZED]
    assert [tf.train.Example.FromString(s) for s in ours] == from_tf
    assert example(price=[1.5]) == bytes.fromhex("0a130a110a057072696365120812060a040000c03f")
    parsed = from_tf[1]
    assert list(parsed.features.feature["name"].bytes_list.value) == [b"pear", b"fig"]


def test_parse_example_matches_tensorflow():
    parsed = run(tf.io.parse_example(tf.constant(SERIALIZED), {
        "price": tf.io.FixedLenFeature([1], tf.float32),
        "ids": tf.io.VarLenFeature(tf.int64),
        "name": tf.io.VarLenFeature(tf.string),
        "missing": tf.io.FixedLenFeature([2], tf.int64, default_value=[5, 6])}))
    expected = RECORDED["parsed"]
    for key in ("ids", "name"):
        np.testing.assert_array_equal(parsed[key].indices, expected[key]["indices"])
        np.testing.assert_array_equal(parsed[key].dense_shape, expected[key]["dense_shape"])
        values = [v.decode() if isinstance(v, bytes) else v for v in parsed[key].values]
        assert values == expected[key]["values"]
    np.testing.assert_array_equal(parsed["price"], expected["price"])
    assert parsed["price"].dtype == np.float32
    np.testing.assert_array_equal(parsed["missing"], expected["missing"])


def test_parse_example_static_shapes_and_node_name():
    parsed = tf.parse_example(tf.placeholder(tf.string, [4]), {
        "a": tf.FixedLenFeature([2, 3], tf.float32), "b": tf.VarLenFeature(tf.string)})
    assert parsed["a"].shape.as_list() == [4, 2, 3]
    assert parsed["b"].indices.shape.as_list() == [None, 2]
    assert parsed["a"].op.name == "ParseExample/ParseExample"


def test_parse_single_example():
    parsed = run(tf.io.parse_single_example(SERIALIZED[1], {
        "price": tf.io.FixedLenFeature([], tf.float32), "name": tf.io.VarLenFeature(tf.string)}))
    assert parsed["price"] == np.float32(2.25)
    np.testing.assert_array_equal(parsed["name"].indices, [[0], [1]])
    np.testing.assert_array_equal(parsed["name"].dense_shape, [2])


def test_sparse_feature_and_padded_sequence_feature():
    serialized = [example(i=[3, 1], v=[1.0, 2.0], s=[1.0, 2.0]), example(i=[0], v=[5.0], s=[3.0])]
    parsed = run(tf.io.parse_example(serialized, {
        "sp": tf.io.SparseFeature("i", "v", tf.float32, 4),
        "s": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}))
    assert sorted(parsed) == ["s", "sp"]
    np.testing.assert_array_equal(parsed["sp"].indices, [[0, 1], [0, 3], [1, 0]])
    np.testing.assert_array_equal(parsed["sp"].values, [2.0, 1.0, 5.0])
    np.testing.assert_array_equal(parsed["sp"].dense_shape, [2, 4])
    np.testing.assert_array_equal(parsed["s"], [[1.0, 2.0], [3.0, 0.0]])


def test_string_default_and_scalar_shape():
    parsed = run(tf.io.parse_example([example(a=[1.0])], {
        "a": tf.io.FixedLenFeature([], tf.float32),
        "d": tf.io.FixedLenFeature([], tf.string, default_value="zz")}))
    np.testing.assert_array_equal(parsed["a"], [1.0])
    assert list(parsed["d"]) == [b"zz"]


@pytest.mark.parametrize("serialized,features,message", [
    ([example(a=[1.0])], {"a": tf.io.FixedLenFeature([1], tf.int64)},
     "Name: <unknown>, Key: a, Index: 0.  Data types don't match. Data type: float but "
     "expected type: int64"),
    ([example(a=[1.0, 2.0])], {"a": tf.io.FixedLenFeature([1], tf.float32)},
     "Number of float values != expected.  Values size: 2 but output shape: \\[1\\]"),
    ([example(a=[1.0])], {"b": tf.io.FixedLenFeature([1], tf.float32)},
     "Name: <unknown>, Feature: b \\(data type: float\\) is required but could not be found."),
    ([example(a=[1.0])], {"a": tf.io.VarLenFeature(tf.int64)},
     "Data types don't match. Expected type: int64, Actual type: float"),
    ([b"\xff\xff garbage"], {"a": tf.io.VarLenFeature(tf.int64)},
     "Could not parse example input"),
])
def test_bad_examples_are_invalid_argument(serialized, features, message):
    parsed = tf.io.parse_example(serialized, features)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message) as info:
        run(parsed)
    assert "ParseExample/ParseExample" in str(info.value)


def test_bad_specs_are_value_errors():
    with pytest.raises(ValueError, match="Missing: features"):
        tf.io.parse_example([b""], {})
    with pytest.raises(ValueError, match="requires allow_missing"):
        tf.io.parse_example([b""], {"a": tf.io.FixedLenSequenceFeature([], tf.float32)})
    with pytest.raises(ValueError, match="Unsupported dtype int32"):
        tf.io.parse_example([b""], {"a": tf.io.FixedLenFeature([], tf.int32)})


def sequence_example():
    ex = tf.train.SequenceExample()
    ex.context.feature["id"].int64_list.value.append(7)
    for tokens in ([1, 2], [3, 4], [5, 6]):
        ex.feature_lists.feature_list["tok"].feature.add().int64_list.value.extend(tokens)
    for words in ([b"a"], [b"b", b"c"]):
        ex.feature_lists.feature_list["w"].feature.add().bytes_list.value.extend(words)
    return ex.SerializeToString()


def test_parse_sequence_example():
    short = tf.train.SequenceExample()
    short.context.feature["id"].int64_list.value.append(8)
    short.feature_lists.feature_list["tok"].feature.add().int64_list.value.extend([9, 9])
    context, lists, lengths = run(tf.io.parse_sequence_example(
        [sequence_example(), short.SerializeToString()],
        context_features={"id": tf.io.FixedLenFeature([], tf.int64)},
        sequence_features={"tok": tf.io.FixedLenSequenceFeature([2], tf.int64),
                           "w": tf.io.VarLenFeature(tf.string)}))
    np.testing.assert_array_equal(context["id"], [7, 8])
    np.testing.assert_array_equal(lists["tok"], [[[1, 2], [3, 4], [5, 6]],
                                                 [[9, 9], [0, 0], [0, 0]]])
    np.testing.assert_array_equal(lengths["tok"], [3, 1])
    np.testing.assert_array_equal(lists["w"].indices, [[0, 0, 0], [0, 1, 0], [0, 1, 1]])
    np.testing.assert_array_equal(lists["w"].dense_shape, [2, 2, 2])


def test_parse_single_sequence_example_and_required_feature_list():
    context, lists = run(tf.io.parse_single_sequence_example(
        sequence_example(), context_features={"id": tf.io.FixedLenFeature([], tf.int64)},
        sequence_features={"tok": tf.io.FixedLenSequenceFeature([2], tf.int64)}))
    assert context["id"] == 7
    np.testing.assert_array_equal(lists["tok"], [[1, 2], [3, 4], [5, 6]])
    missing = tf.io.parse_single_sequence_example(
        sequence_example(), sequence_features={"none": tf.io.FixedLenSequenceFeature([], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Feature list 'none' is required"):
        run(missing)


def test_decode_raw():
    values = run(tf.io.decode_raw(tf.constant([b"\x01\x00\x02\x00", b"\x00\x01\x00\x02"]),
                                  tf.int16))
    np.testing.assert_array_equal(values, [[1, 2], [256, 512]])
    big = run(tf.decode_raw(tf.constant(b"\x00\x01"), tf.int16, little_endian=False))
    np.testing.assert_array_equal(big, [1])
    floats = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(run(tf.io.decode_raw(floats.tobytes(), tf.float32)), floats)
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
        run(tf.io.decode_raw(tf.constant([b"\x01\x00", b"\x01"]), tf.uint8))


def test_decode_csv_matches_tensorflow():
    a, b, c = run(tf.io.decode_csv(tf.constant(['1,"a,b",2.5', "3,,"]), [[0], ["d"], [1.0]]))
    np.testing.assert_array_equal(a, [1, 3])
    assert list(b) == [b"a,b", b"d"]
    np.testing.assert_array_equal(c, np.array([2.5, 1.0], np.float32))
    picked = run(tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 2]))
    assert [int(p[0]) for p in picked] == [1, 3]


@pytest.mark.parametrize("records,defaults,message", [
    (["1,2"], [[0], ["d"], [1.0]], "Expect 3 fields but have 2 in record 0"),
    (["x,2"], [[0], [0]], "Field 0 in record 0 is not a valid int32: x"),
    ([",2"], [np.array([], np.int32), [0]], "Field 0 is required but missing in record 0!"),
])
def test_decode_csv_errors(records, defaults, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        run(tf.io.decode_csv(tf.constant(records), defaults))


def test_decode_compressed_inflates_zlib_and_gzip_as_tensorflow():
    # TF 2.21 gives [b'abc', b''], b'xyz', b'plain', shape (2,) and a DataLossError for garbage
    zlibbed = tf.io.decode_compressed([zlib.compress(b"abc"), zlib.compress(b"")], "ZLIB")
    gzipped = tf.decode_compressed(gzip.compress(b"xyz"), compression_type="GZIP")
    plain = tf.io.decode_compressed(b"plain")
    assert zlibbed.shape.as_list() == [2] and zlibbed.name == "DecodeCompressed:0"
    with tf.Session() as sess:
        assert sess.run(zlibbed).tolist() == [b"abc", b""]
        assert sess.run([gzipped, plain]) == [b"xyz", b"plain"]
        with pytest.raises(tf.errors.DataLossError, match="Failed to inflate ZLIB data"):
            sess.run(tf.io.decode_compressed(b"garbage", compression_type="ZLIB"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Only ZLIB, GZIP or NONE"):
            sess.run(tf.io.decode_compressed(b"x", compression_type="BZ2"))


# TF 2.21's bytes for tf.io.serialize_tensor of each value (graph mode, session.run)
TF_SERIALIZED = [
    ([[1.5, 2.0]], b'\x08\x01\x12\x08\x12\x02\x08\x01\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00\x00@'),
    (7, b'\x08\x03\x12\x00"\x04\x07\x00\x00\x00'),
    ([b"ab", b"c"], b"\x08\x07\x12\x04\x12\x02\x08\x02B\x02abB\x01c"),
    ([True, False], b'\x08\n\x12\x04\x12\x02\x08\x02"\x02\x01\x00'),
]


@pytest.mark.parametrize("value, expected", TF_SERIALIZED)
def test_serialize_tensor_gives_tensorflows_bytes_and_parse_tensor_reads_them(value, expected):
    constant = tf.constant(value)
    serialized = tf.io.serialize_tensor(constant)
    parsed = tf.parse_tensor(serialized, constant.dtype)
    assert serialized.shape.as_list() == [] and parsed.shape.ndims is None
    with tf.Session() as sess:
        assert sess.run(serialized) == expected
        np.testing.assert_array_equal(sess.run(parsed), sess.run(constant))


def test_parse_tensor_errors_are_tensorflows():
    serialized = tf.io.serialize_tensor(tf.constant([1.5]))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Type mismatch between parsed tensor \(float\) and dtype "
                                 r"\(int32\)"):
            sess.run(tf.io.parse_tensor(serialized, tf.int32))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Could not parse `serialized` as TensorProto, base64: __8="):
            sess.run(tf.io.parse_tensor(b"\xff\xff", tf.int32))
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.io.parse_tensor([b"a"], tf.int32)


def test_a_batch_mixing_present_missing_and_empty_features():
    # Whole-batch reading falls back to the example-by-example loop: defaults, then errors.
    serialized = [example(a=[1.0, 2.0], t=[b"x"]), example(t=[]), example(a=[5.0, 6.0])]
    parsed = run(tf.io.parse_example(serialized, {
        "a": tf.io.FixedLenFeature([2], tf.float32, default_value=[-1.0, -2.0]),
        "t": tf.io.VarLenFeature(tf.string)}))
    np.testing.assert_array_equal(parsed["a"], [[1, 2], [-1, -2], [5, 6]])
    np.testing.assert_array_equal(parsed["t"].indices, [[0, 0]])
    assert list(parsed["t"].values) == [b"x"]
    np.testing.assert_array_equal(parsed["t"].dense_shape, [3, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: a, Index: 0.  Number of "
                       "float values != expected.  Values size: 0"):
        run(tf.io.parse_example([example(a=[1.0, 2.0]), example(a=[])],
                                {"a": tf.io.FixedLenFeature([2], tf.float32)}))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: t, Index: 0.  Data types "
                       "don't match. Expected type: string, Actual type: int64"):
        run(tf.io.parse_example([example(t=[b"x"]), example(t=[3])],
                                {"t": tf.io.VarLenFeature(tf.string)}))
