"""DType: names, enum numbers, conversions, kinds and limits, as TF 1.15 defines them.

Expected enum numbers come from TensorFlow's types.proto (checked with the
reference TensorFlow: `tf.as_dtype(name).as_datatype_enum`).
"""

import pickle

import numpy as np
import pytest

import minitf as tf
from minitf.graph import dtypes

# name, enum, numpy type, floating, integer, unsigned, bool, itemsize
TABLE = [
    ("float32", 1, np.float32, True, False, False, False, 4),
    ("float64", 2, np.float64, True, False, False, False, 8),
    ("int32", 3, np.int32, False, True, False, False, 4),
    ("uint8", 4, np.uint8, False, True, True, False, 1),
    ("int16", 5, np.int16, False, True, False, False, 2),
    ("int8", 6, np.int8, False, True, False, False, 1),
    ("string", 7, np.object_, False, False, False, False, np.dtype(object).itemsize),
    ("int64", 9, np.int64, False, True, False, False, 8),
    ("bool", 10, np.bool_, False, False, False, True, 1),
    ("uint16", 17, np.uint16, False, True, True, False, 2),
    ("float16", 19, np.float16, True, False, False, False, 2),
    ("uint32", 22, np.uint32, False, True, True, False, 4),
    ("uint64", 23, np.uint64, False, True, True, False, 8),
]


@pytest.mark.parametrize("name, enum, np_type, floating, integer, unsigned, is_bool, size", TABLE)
def test_each_dtype(name, enum, np_type, floating, integer, unsigned, is_bool, size):
    dtype = tf.as_dtype(name)
    assert dtype is getattr(tf, name)
    assert dtype.name == name
    assert dtype.as_datatype_enum == enum
    assert tf.as_dtype(enum) is dtype
    assert dtype.as_numpy_dtype is np_type
    assert (dtype.is_floating, dtype.is_integer, dtype.is_unsigned, dtype.is_bool) == (
        floating, integer, unsigned, is_bool)
    assert dtype.size == size
    assert not dtype.is_complex and not dtype.is_quantized
    assert repr(dtype) == "tf." + name
    assert str(dtype) == "<dtype: '%s'>" % name


@pytest.mark.parametrize("name, enum", [(row[0], row[1]) for row in TABLE])
def test_each_dtype_has_a_reference_twin(name, enum):
    dtype = tf.as_dtype(name)
    ref = dtype._as_ref
    assert ref.name == name + "_ref"
    assert ref.as_datatype_enum == enum + 100
    assert ref.is_ref_dtype and not dtype.is_ref_dtype
    assert ref.base_dtype is dtype and dtype.base_dtype is dtype
    assert ref._as_ref is ref
    assert tf.as_dtype(name + "_ref") is ref
    assert ref.as_numpy_dtype is dtype.as_numpy_dtype
    assert ref != dtype


def test_public_reference_dtypes():
    assert tf.float32_ref is tf.float32._as_ref
    assert tf.int64_ref.base_dtype is tf.int64


def test_aliases():
    assert tf.half is tf.float16
    assert tf.double is tf.float64
    assert dtypes.float is tf.float32
    assert [tf.as_dtype(n) for n in ("float", "double", "half")] == [tf.float32, tf.float64,
                                                                       tf.float16]


@pytest.mark.parametrize("value, expected", [
    (np.float32, tf.float32), (np.dtype("int64"), tf.int64), (np.dtype(np.uint16), tf.uint16),
    (np.bool_, tf.bool), (np.longlong, tf.int64), (np.intc, tf.int32),
    # Python's float is float32 in TF, bool is bool, object is string.
    (float, tf.float32), (bool, tf.bool), (object, tf.string),
    # NumPy's text, bytes and object arrays all hold TF strings.
    (np.dtype("U3"), tf.string), (np.dtype("S3"), tf.string), (np.object_, tf.string),
    (np.bytes_, tf.string), (np.str_, tf.string),
])
def test_as_dtype_from_numpy_and_python_types(value, expected):
    assert tf.as_dtype(value) is expected


def test_as_dtype_passes_a_dtype_through():
    assert tf.as_dtype(tf.int8) is tf.int8


@pytest.mark.parametrize("value", [int, str, bytes, 3.5, "nope", "Float32", 1000, -1,
                                   np.longdouble, None, [1]])
def test_as_dtype_rejects_other_values_with_type_error(value):
    # TF 1.15 refuses Python int/str/bytes too (checked with the reference TensorFlow).
    with pytest.raises(TypeError, match="Cannot convert value .* to a TensorFlow DType"):
        tf.as_dtype(value)


def test_equality_converts_the_other_side():
    assert tf.float32 == "float32"
    assert tf.float32 == np.float32
    assert tf.float32 == 1  # the enum number
    assert tf.float32 != tf.float64
    assert not (tf.float32 == None)  # noqa: E711 - the comparison itself is under test
    assert tf.float32 != "nope"
    assert tf.float32 != [1]
    assert tf.float32 != tf.float32_ref


def test_hash_agrees_with_equality():
    assert hash(tf.float32) == hash(tf.as_dtype("float32"))
    assert len({tf.float32, tf.as_dtype(np.float32), tf.as_dtype("float")}) == 1


def test_dtypes_are_singletons_even_through_pickle():
    for dtype in (tf.float32, tf.string, tf.int64_ref):
        assert pickle.loads(pickle.dumps(dtype)) is dtype


def test_is_compatible_with():
    assert tf.float32.is_compatible_with(tf.float32)
    assert tf.float32.is_compatible_with(tf.float32_ref)  # a variable can feed a float32 input
    assert not tf.float32_ref.is_compatible_with(tf.float32)
    assert not tf.float32.is_compatible_with(tf.int32)
    assert tf.int32.is_compatible_with("int32")


def test_reference_types_keep_their_kind():
    assert tf.float32_ref.is_floating
    assert tf.int32_ref.is_integer
    assert tf.float64_ref.real_dtype is tf.float64


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64"])
def test_integer_limits(name):
    dtype = tf.as_dtype(name)
    info = np.iinfo(dtype.as_numpy_dtype)
    assert (dtype.min, dtype.max) == (info.min, info.max)
    assert dtype.limits == (0, info.max)  # TF 1.15's limits clip the minimum to 0


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_float_limits(name):
    dtype = tf.as_dtype(name)
    info = np.finfo(dtype.as_numpy_dtype)
    assert dtype.min == info.min and dtype.max == info.max
    assert dtype.min < 0 < dtype.max


@pytest.mark.parametrize("dtype", [tf.bool, tf.string])
def test_min_and_max_of_bool_and_string_are_type_errors(dtype):
    with pytest.raises(TypeError, match="Cannot find minimum value of"):
        _ = dtype.min
    with pytest.raises(TypeError, match="Cannot find minimum value of"):
        _ = dtype.max


def test_bool_limits():
    assert tf.bool.limits == (False, True)


def test_numpy_compatibility_flag():
    assert all(tf.as_dtype(row[0]).is_numpy_compatible for row in TABLE)
