"""tf.io.serialize_sparse, serialize_many_sparse, deserialize_many_sparse; decode_json_example.

The serialized bytes are TensorFlow's (recorded from the reference TensorFlow with
`tf.io.serialize_sparse(tf.SparseTensor([[0, 0], [1, 2]], [1.5, 2.5], [3, 4]))`), and so are
the error messages.
"""

import numpy as np
import pytest

import minitf as tf
from minitf.proto import example_pb2

TF_SERIALIZED = [
    b'\x08\t\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02" ' + bytes(16) + b'\x01' + bytes(7)
    + b'\x02' + bytes(7),
    b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00 @',
    b'\x08\t\x12\x04\x12\x02\x08\x02"\x10\x03' + bytes(7) + b'\x04' + bytes(7),
]


def _sparse():
    return tf.SparseTensor([[0, 0], [1, 2]], [1.5, 2.5], [3, 4])


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict=feed_dict)


def test_serialize_sparse_writes_tensorflows_bytes():
    serialized = tf.io.serialize_sparse(_sparse())
    assert serialized.op.type == "SerializeSparse" and serialized.shape.as_list() == [3]
    assert tf.serialize_sparse is tf.io.serialize_sparse
    assert _run(serialized).tolist() == TF_SERIALIZED


def test_serialize_many_sparse_and_back():
    serialized = tf.io.serialize_many_sparse(_sparse())
    assert serialized.shape.as_list() == [None, 3]
    rows = _run(serialized)
    assert rows.shape == (3, 3)
    restored = tf.io.deserialize_many_sparse(serialized, tf.float32, rank=2)
    assert restored.indices.shape.as_list() == [None, 2]
    value = _run(restored)
    assert value.indices.tolist() == [[0, 0], [1, 2]]
    np.testing.assert_array_equal(value.values, [1.5, 2.5])
    assert value.dense_shape.tolist() == [3, 4]


def test_deserialize_many_sparse_stacks_rows_of_different_shapes():
    first = tf.io.serialize_sparse(tf.SparseTensor([[0, 1], [1, 0], [1, 3]], [1, 2, 3], [2, 5]))
    second = tf.io.serialize_sparse(tf.SparseTensor([[2, 1]], [7], [4, 2]))
    value = _run(tf.io.deserialize_many_sparse(tf.stack([first, second]), tf.int32))
    assert value.indices.tolist() == [[0, 0, 1], [0, 1, 0], [0, 1, 3], [1, 2, 1]]
    assert value.values.tolist() == [1, 2, 3, 7]
    assert value.dense_shape.tolist() == [2, 4, 5]  # TensorFlow's answer


def test_deserialize_many_sparse_errors():
    serialized = tf.io.serialize_many_sparse(_sparse())
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Requested SparseTensor of type int32 but "
                             r"SparseTensor\[0\].values.dtype\(\) == float"):
        _run(tf.io.deserialize_many_sparse(serialized, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
        _run(tf.io.deserialize_many_sparse(tf.constant([["a", "b", "c"]]), tf.int32))
    fed = tf.placeholder(tf.string)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"should have 3 as the last dimension \[1,2\]"):
        _run(tf.io.deserialize_many_sparse(fed, tf.float32), {fed: [["a", "b"]]})
    with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
        tf.io.deserialize_many_sparse(tf.constant([["a", "b"]]), tf.float32)
    mixed = tf.stack([tf.io.serialize_sparse(tf.SparseTensor([[0, 1]], [1], [2, 5])),
                      tf.io.serialize_sparse(tf.SparseTensor([[2]], [7], [4]))])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Inconsistent shape across"):
        _run(tf.io.deserialize_many_sparse(mixed, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="should be > 1, but saw rank: 1"):
        _run(tf.io.serialize_many_sparse(tf.SparseTensor([[0]], [1.], [3])))


def test_decode_json_example_gives_example_bytes():
    texts = tf.constant(['{"features": {"feature": {"a": {"int64List": {"value": ["1", "2"]}}}}}',
                         "{}"])
    decoded = tf.io.decode_json_example(texts)
    assert decoded.op.type == "DecodeJSONExample" and decoded.shape.as_list() == [2]
    first, empty = _run(decoded)
    example = example_pb2.Example.FromString(first)
    assert list(example.features.feature["a"].int64_list.value) == [1, 2]
    assert empty == b""
    parsed = tf.parse_example(decoded, {"a": tf.VarLenFeature(tf.int64)})
    assert _run(parsed["a"]).values.tolist() == [1, 2]


def test_decode_json_example_bad_json():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Error while parsing JSON"):
        _run(tf.decode_json_example("{bad"))
