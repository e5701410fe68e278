"""`tf.TensorSpec`: a shape, a dtype and a name, compared and read off tensors."""

import pytest

import minitf as tf


def test_a_spec_holds_its_parts():
    spec = tf.TensorSpec([2, None], tf.float32, "x")
    assert spec.shape.as_list() == [2, None] and spec.dtype == tf.float32 and spec.name == "x"
    assert repr(spec) == "TensorSpec(shape=(2, ?), dtype=tf.float32, name='x')"
    assert repr(tf.TensorSpec(None)) == "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)"


def test_equality_and_compatibility():
    spec = tf.TensorSpec([2, None], tf.float32, "x")
    assert spec == tf.TensorSpec([2, None], "float32", "x")
    assert spec != tf.TensorSpec([2, 3], tf.float32, "x")
    assert spec != tf.TensorSpec([2, None], tf.float32, "y")
    assert spec.is_compatible_with(tf.placeholder(tf.float32, [2, 3]))
    assert not spec.is_compatible_with(tf.placeholder(tf.float32, [3, 3]))
    assert not spec.is_compatible_with(tf.placeholder(tf.int32, [2, 3]))
    assert spec.is_compatible_with(tf.TensorSpec([2, 5]))
    assert len({spec, tf.TensorSpec([2, None], tf.float32, "x")}) == 1


def test_from_tensor_and_from_spec():
    x = tf.constant([1, 2], name="c")
    assert tf.TensorSpec.from_tensor(x) == tf.TensorSpec([2], tf.int32, "c")
    assert tf.TensorSpec.from_tensor(x, name="y").name == "y"
    assert tf.TensorSpec.from_spec(tf.TensorSpec([1], name="a"), name="b").name == "b"


def test_a_bad_dtype_is_refused():
    with pytest.raises(TypeError, match="Cannot convert value"):
        tf.TensorSpec([1], dtype="no_such_type")
