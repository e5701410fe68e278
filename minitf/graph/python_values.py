"""Python values as NumPy arrays, with TensorFlow's rules for their dtypes.

What `tf.constant`, a TensorProto and a feed of `sess.run` all start with:
a Python value (a number, a nested list, a string, an array) turned into a
NumPy array. Python ints become int32 (int64 when one does not fit),
floats float32, complex numbers complex128, strings `bytes`; asking for an
int dtype for 1.5 is a TypeError, not a silent truncation.

Mirrors the conversions of `tensorflow/python/framework/constant_op.py`
and `tensor_util.py` (`make_tensor_proto`'s inference).
"""

import numbers

import numpy as np

from minitf.graph import dtypes


def to_numpy(value, dtype=None):
    """`value` as a NumPy array of `dtype` (inferred TF-style when None)."""
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind in ("U", "S"):
            array = _to_bytes_array(array)
        elif not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))  # kernels see native order
        if dtype is None:
            dtypes.as_dtype(array.dtype)  # raises TypeError for unsupported dtypes
            return array
        return _cast_array(array, dtype, value)
    _check_python_value(value, dtype)
    if dtype is None:
        dtype = _infer_dtype(value)
    if dtype == dtypes.string:
        return _to_bytes_array(np.array(value, dtype=object))
    try:
        return np.array(value, dtype=dtype.as_numpy_dtype)
    except (OverflowError, ValueError) as e:
        raise TypeError("Cannot convert %r to EagerTensor of dtype %s: %s"
                        % (value, dtype.name, e)) from None


def _cast_array(array, dtype, original):
    if dtype == dtypes.string:
        if array.dtype != object:
            raise TypeError("Expected string, got %r of type '%s' instead."
                            % (original, type(original).__name__))
        return _to_bytes_array(array)
    if array.dtype == object:
        raise TypeError("Expected %s, got %r of type '%s' instead."
                        % (dtype.name, original, type(original).__name__))
    return array.astype(dtype.as_numpy_dtype, copy=False)


def _flatten(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _flatten(item)
    else:
        yield value


def _infer_dtype(value):
    leaves = list(_flatten(value))
    if not leaves:
        return dtypes.float32
    if all(isinstance(v, (str, bytes)) for v in leaves):
        return dtypes.string
    if all(isinstance(v, (bool, np.bool_)) for v in leaves):
        return dtypes.bool
    if any(isinstance(v, (str, bytes)) for v in leaves):
        raise TypeError("Failed to convert object %r to a tensor: mixed strings and numbers."
                        % (value,))
    numpy_leaves = [v for v in leaves if isinstance(v, np.generic)]
    if numpy_leaves and len(numpy_leaves) == len(leaves):
        return dtypes.as_dtype(np.result_type(*numpy_leaves))
    if any(isinstance(v, (complex, np.complexfloating)) for v in leaves):
        return dtypes.complex128
    if any(isinstance(v, float) or isinstance(v, np.floating) for v in leaves):
        return dtypes.float32
    if all(isinstance(v, numbers.Integral) for v in leaves):
        big = any(not (-2**31 <= int(v) < 2**31) for v in leaves)
        return dtypes.int64 if big else dtypes.int32
    raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s."
                    % (type(value), value))


def _check_python_value(value, dtype):
    """TypeError when a Python value does not fit the requested dtype (1.5 for int32)."""
    if dtype is None:
        return
    for leaf in _flatten(value):
        if dtype == dtypes.string:
            ok = isinstance(leaf, (str, bytes))
        elif dtype.is_bool:
            ok = isinstance(leaf, (bool, np.bool_))
        elif dtype.is_integer:
            ok = isinstance(leaf, numbers.Integral) and not isinstance(leaf, bool)
        elif dtype.is_floating:
            ok = isinstance(leaf, numbers.Real) and not isinstance(leaf, bool)
        elif dtype.is_complex:
            ok = isinstance(leaf, numbers.Number)
        else:
            ok = False
        if not ok:
            raise TypeError("Expected %s, got %r of type '%s' instead."
                            % (dtype.name, leaf, type(leaf).__name__))


def _to_bytes_array(array):
    result = np.empty(array.shape, dtype=object)
    flat = result.reshape(-1)
    for i, item in enumerate(array.reshape(-1)):
        flat[i] = item.encode("utf-8") if isinstance(item, str) else bytes(item)
    return result
