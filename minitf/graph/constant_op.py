"""Constants: the Const op and `tf.constant`.

A constant's value lives inside its NodeDef (attr `value`), so it travels
with the GraphDef to whichever device runs it. The value is a NumPy array
made from the Python value with TensorFlow's rules (`python_values.py`).

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
from minitf.graph.python_values import to_numpy


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
