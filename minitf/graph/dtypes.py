"""Data types: what kind of number (or string) a tensor holds.

A `DType` names an element type the way TensorFlow does (`tf.float32`,
`tf.int64`, `tf.string`, ...) and knows its NumPy counterpart, which the
kernels use. Each type also has a *reference* twin (`float32_ref`): the type
of a TF1 variable's output, a handle through which ops like `Assign` change
the variable in place.

Mirrors `tensorflow/python/framework/dtypes.py` and
`tensorflow/core/framework/types.proto` (whose enum numbers are kept).
"""

import builtins

import numpy as np

_REF_OFFSET = 100


class DType:
    """One element type. Compare with `==`; DTypes are interned singletons."""

    def __init__(self, type_enum, name, numpy_dtype):
        self._type_enum = type_enum
        self._name = name
        self._numpy_dtype = numpy_dtype

    # --- identity -------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def as_datatype_enum(self):
        return self._type_enum

    def __repr__(self):
        return "tf." + self._name

    def __str__(self):
        return "<dtype: %r>" % self._name

    def __eq__(self, other):
        if other is None:
            return False
        try:
            return self._type_enum == as_dtype(other)._type_enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._type_enum

    def __reduce__(self):
        return as_dtype, (self._name,)

    # --- reference types ------------------------------------------------
    @property
    def is_ref_dtype(self):
        return self._type_enum > _REF_OFFSET

    @property
    def base_dtype(self):
        return _BY_ENUM[self._type_enum - _REF_OFFSET] if self.is_ref_dtype else self

    @property
    def real_dtype(self):
        return self.base_dtype

    @property
    def _as_ref(self):
        return self if self.is_ref_dtype else _BY_ENUM[self._type_enum + _REF_OFFSET]

    # --- kind -----------------------------------------------------------
    @property
    def as_numpy_dtype(self):
        return self._numpy_dtype

    @property
    def is_floating(self):
        return self.base_dtype in (float16, float32, float64)

    @property
    def is_integer(self):
        return self.base_dtype in _INTEGERS

    @property
    def is_unsigned(self):
        return self.base_dtype in (uint8, uint16, uint32, uint64)

    @property
    def is_bool(self):
        return self.base_dtype == bool

    @property
    def is_complex(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def is_numpy_compatible(self):
        return self._type_enum % _REF_OFFSET != 20  # not a resource handle

    @property
    def size(self):
        """Bytes per element (a string element is a pointer-sized object, as in TF)."""
        return np.dtype(self._numpy_dtype).itemsize

    @property
    def min(self):
        """The smallest value of a numeric type; TypeError for bool and string."""
        return _limits(self)[0]

    @property
    def max(self):
        """The largest value of a numeric type; TypeError for bool and string."""
        return _limits(self)[1]

    @property
    def limits(self):
        """(0, max) of an integer or float type, (False, True) for bool, as TF 1.15 returns."""
        if self.base_dtype == bool:
            return False, True
        return 0, _limits(self)[1]

    def is_compatible_with(self, other):
        """True when a value of `other` can stand where `self` is expected."""
        other = as_dtype(other)
        return self._type_enum in (other._type_enum, other.base_dtype._type_enum)


def _limits(dtype):
    if dtype.is_floating:
        info = np.finfo(dtype.as_numpy_dtype)
        return builtins.float(info.min), builtins.float(info.max)
    if dtype.is_integer:
        info = np.iinfo(dtype.as_numpy_dtype)
        return int(info.min), int(info.max)
    raise TypeError("Cannot find minimum value of %s." % dtype)


_BY_ENUM = {}
_BY_NAME = {}


def _define(type_enum, name, numpy_dtype):
    dtype = DType(type_enum, name, numpy_dtype)
    ref = DType(type_enum + _REF_OFFSET, name + "_ref", numpy_dtype)
    for d in (dtype, ref):
        _BY_ENUM[d.as_datatype_enum] = d
        _BY_NAME[d.name] = d
    return dtype


float32 = _define(1, "float32", np.float32)
float64 = _define(2, "float64", np.float64)
int32 = _define(3, "int32", np.int32)
uint8 = _define(4, "uint8", np.uint8)
int16 = _define(5, "int16", np.int16)
int8 = _define(6, "int8", np.int8)
string = _define(7, "string", np.object_)
int64 = _define(9, "int64", np.int64)
bool = _define(10, "bool", np.bool_)  # noqa: A001 - TF's public name
uint16 = _define(17, "uint16", np.uint16)
float16 = _define(19, "float16", np.float16)
uint32 = _define(22, "uint32", np.uint32)
uint64 = _define(23, "uint64", np.uint64)
# A handle to a resource (an iterator, a stack of a loop's gradient, a TensorArray),
# and a variant (a dataset, a serialized SparseTensor): each element is a Python
# object, as a string tensor's is.
resource = _define(20, "resource", np.object_)
variant = _define(21, "variant", np.object_)

half = float16
float = float32  # noqa: A001 - TF's public alias
double = float64

float32_ref = float32._as_ref
float64_ref = float64._as_ref
int32_ref = int32._as_ref
int64_ref = int64._as_ref

_INTEGERS = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)

_NAME_ALIASES = {"float": float32, "double": float64, "half": float16}

# Python's `float` means float32 to TF, and `int`, `str`, `bytes` are not
# accepted: TF picks the 32-bit types for Python numbers itself.
_PYTHON_TYPE_TO_DTYPE = {builtins.float: float32, builtins.bool: bool, builtins.object: string}

_NUMPY_TO_DTYPE = {
    np.dtype(np.float16): float16, np.dtype(np.float32): float32, np.dtype(np.float64): float64,
    np.dtype(np.int8): int8, np.dtype(np.int16): int16, np.dtype(np.int32): int32,
    np.dtype(np.int64): int64, np.dtype(np.uint8): uint8, np.dtype(np.uint16): uint16,
    np.dtype(np.uint32): uint32, np.dtype(np.uint64): uint64, np.dtype(np.bool_): bool,
}


def as_dtype(type_value):
    """Converts a DType, a name, an enum number, a NumPy type or dtype to a DType.

    Raises TypeError for anything else (including Python's `int`, `str` and
    `bytes`, which TF does not accept either).
    """
    if isinstance(type_value, DType):
        return type_value
    found = None
    if isinstance(type_value, str):
        found = _BY_NAME.get(type_value) or _NAME_ALIASES.get(type_value)
    elif isinstance(type_value, int) and not isinstance(type_value, builtins.bool):
        found = _BY_ENUM.get(type_value)
    elif isinstance(type_value, type) and type_value in _PYTHON_TYPE_TO_DTYPE:
        found = _PYTHON_TYPE_TO_DTYPE[type_value]
    elif isinstance(type_value, np.dtype) or (
            isinstance(type_value, type) and issubclass(type_value, np.generic)):
        found = _from_numpy_dtype(np.dtype(type_value))
    if found is None:
        raise TypeError("Cannot convert value %r to a TensorFlow DType." % (type_value,))
    return found


def _from_numpy_dtype(np_dtype):
    if np_dtype.kind in ("U", "S", "O"):  # NumPy's text, bytes and object arrays hold strings
        return string
    return _NUMPY_TO_DTYPE.get(np_dtype.newbyteorder("="))  # big-endian int32 is int32 too


QUANTIZED_DTYPES = frozenset()
