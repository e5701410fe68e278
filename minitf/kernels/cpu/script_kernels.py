"""The PyFunc kernel: calls a Python function registered by `tf.py_func`.

The function gets the inputs as NumPy arrays and returns one value per
output (or a single value), each converted to its output's dtype. Its
Python exceptions become TensorFlow's errors, as TensorFlow maps them:
ValueError and TypeError an InvalidArgumentError, StopIteration an
OutOfRangeError (a generator's end), MemoryError a ResourceExhaustedError,
NotImplementedError an UnimplementedError, anything else an UnknownError.

Mirrors `tensorflow/python/lib/core/py_func.cc`.
"""

import numpy as np

from minitf.framework import py_func_registry
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors

_ERRORS = ((StopIteration, errors.OutOfRangeError), (ValueError, errors.InvalidArgumentError),
           (TypeError, errors.InvalidArgumentError), (MemoryError, errors.ResourceExhaustedError),
           (NotImplementedError, errors.UnimplementedError))


def _as_error(exception):
    for python_class, error_class in _ERRORS:
        if isinstance(exception, python_class):
            break
    else:
        error_class = errors.UnknownError
    return error_class(None, None, "%s: %s" % (type(exception).__name__, exception))


def _as_output(value, dtype, index):
    if dtype.as_numpy_dtype is np.object_:
        array = np.asarray(value, dtype=object)
        return np.vectorize(lambda s: s.encode("utf-8") if isinstance(s, str) else s,
                            otypes=[object])(array) if array.size else array
    array = np.asarray(value)
    if array.dtype != dtype.as_numpy_dtype:
        if not np.can_cast(array.dtype, dtype.as_numpy_dtype, casting="same_kind"):
            raise errors.InvalidArgumentError(None, None, "pyfunc returns %s for output %d, "
                                              "expected %s" % (array.dtype, index, dtype.name))
        array = array.astype(dtype.as_numpy_dtype)
    return array


@register_kernel("EagerPyFunc", ("CPU",))
@register_kernel("PyFunc", ("CPU",))
def py_func(ctx, *inputs, token, Tout):
    fn = py_func_registry.lookup(token)
    if fn is None:
        raise errors.InvalidArgumentError(None, None, "callback %s is not found" % token)
    try:
        result = fn(*inputs)
    except Exception as e:  # noqa: BLE001 - the function's error, as TensorFlow's
        raise _as_error(e) from None
    if len(Tout) == 0:
        return ()
    values = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(values) != len(Tout):
        raise errors.InvalidArgumentError(None, None, "pyfunc returned %d values, expected %d"
                                          % (len(values), len(Tout)))
    return tuple(_as_output(v, t, i) for i, (v, t) in enumerate(zip(values, Tout)))
