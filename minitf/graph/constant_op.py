"""Constants: the Const op, `tf.constant`, and turning Python values into arrays.

A constant's value lives inside its NodeDef (attr `value`), so it travels
with the GraphDef to whichever device runs it. Python values are turned into
NumPy arrays with TensorFlow's rules: Python ints become int32, floats
float32, complex numbers complex128, strings become `bytes`; asking for an int dtype for 1.5 is a
TypeError, not a silent truncation.

`constant_value(tensor)` is the build-time side of constants: shape
functions call it to learn, say, the target shape of a Reshape when it is a
constant.

Mirrors `tensorflow/python/framework/constant_op.py` and `tensor_util.py`.
"""

import numbers

import numpy as np

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_conversion
from minitf.graph import tensor_shape


# --- Python values -> NumPy arrays ------------------------------------------------

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


# --- tf.constant -------------------------------------------------------------------

def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A tensor whose value is fixed when the graph is built.

    With `shape`, a scalar is broadcast to it and a value with the same number
    of elements is reshaped to it.
    """
    array = to_numpy(value, dtype)
    if shape is not None:
        array = _fit_to_shape(array, shape, verify_shape)
    graph = ops.get_default_graph()
    dtype = dtypes.as_dtype(array.dtype)
    op = graph.create_op("Const", [], [dtype], name=name,
                         attrs={"value": array, "dtype": dtype})
    return op.outputs[0]


def _fit_to_shape(array, shape, verify_shape):
    shape = tuple(tensor_shape.as_shape(shape).as_list())
    if array.shape == shape:
        return array
    if verify_shape:
        raise TypeError("Expected Tensor's shape: %s, got %s." % (shape, array.shape))
    if array.size == 1:
        return np.full(shape, array.reshape(()), dtype=array.dtype)
    if array.size == int(np.prod(shape)):
        return array.reshape(shape)
    raise TypeError("Eager execution of tf.constant with unsupported shape (value has %d "
                    "elements, shape is %s with %d elements)."
                    % (array.size, list(shape), int(np.prod(shape))))


def _constant_conversion(value, dtype=None, name=None, as_ref=False):
    return constant(value, dtype=dtype, name=name or "Const")


tensor_conversion.register_tensor_conversion_function(
    (list, tuple, numbers.Number, str, bytes, np.ndarray, np.generic), _constant_conversion,
    priority=200)
