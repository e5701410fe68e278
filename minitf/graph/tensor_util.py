"""Build-time values: what a tensor's value is when it can be known without running.

`constant_value(tensor)` answers for the tensors whose value the graph
alone decides: a Const, the Shape of a fully known shape, a Pack of known
values, and a few more. Shape functions call it to learn, say, the target
shape of a Reshape when it is a constant; op constructors call it to choose
a cheaper graph when an argument is known.

This module sits on the floor of the package: the OpDefs' shape functions
(`minitf/framework/op_defs/`) use it, and the op registry is below
`graph/ops.py`, so it cannot import `ops` and knows a Tensor by its
attributes (an `op` and a `value_index`) instead of its class.

Mirrors `tensorflow/python/framework/tensor_util.py`.
"""

import numpy as np

from minitf.graph import tensor_shape


def is_graph_tensor(value):
    """True for a graph Tensor (an output of an Operation), False for a value."""
    return hasattr(value, "op") and hasattr(value, "value_index")


def constant_value(tensor):
    """The value of `tensor` when it can be known while building, else None.

    Knows Const, Shape/Size/Rank of fully known shapes, Pack and ConcatV2 of
    known values, Identity and Cast; shape functions use it for arguments like Reshape's shape.
    """
    if not is_graph_tensor(tensor):
        return np.asarray(tensor) if tensor is not None else None
    op = tensor.op
    if op.type == "Const":
        return op.get_attr("value")
    if op.type == "Shape":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
    elif op.type == "Size":
        n = op.inputs[0].shape.num_elements()
        if n is not None:
            return np.array(n, dtype=tensor.dtype.as_numpy_dtype)
    elif op.type == "Rank":
        if op.inputs[0].shape.ndims is not None:
            return np.array(op.inputs[0].shape.ndims, dtype=np.int32)
    elif op.type == "Pack":
        values = [constant_value(t) for t in op.inputs]
        if all(v is not None for v in values):
            return np.stack(values, axis=op.get_attr("axis")).astype(tensor.dtype.as_numpy_dtype)
    elif op.type == "ConcatV2":
        values = [constant_value(t) for t in op.inputs]
        if all(v is not None for v in values):
            return np.concatenate(values[:-1], axis=int(values[-1]))
    elif op.type in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    elif op.type == "Cast":
        value = constant_value(op.inputs[0])
        if value is not None:
            return value.astype(tensor.dtype.as_numpy_dtype)
    return None


def constant_value_as_shape(tensor):
    """A TensorShape from a 1-D shape tensor, with None where an element is unknown."""
    value = constant_value(tensor)
    if value is not None:
        return tensor_shape.TensorShape([None if d < 0 else int(d) for d in value.reshape(-1)])
    if tensor.op.type == "Shape":
        return tensor.op.inputs[0].shape
    if tensor.op.type == "Pack":
        dims = []
        for t in tensor.op.inputs:
            v = constant_value(t)
            dims.append(None if v is None or int(v) < 0 else int(v))
        return tensor_shape.TensorShape(dims)
    rank = tensor.shape[0].value if tensor.shape.ndims == 1 else None
    return tensor_shape.unknown_shape(rank)


def make_ndarray(value):
    return np.asarray(value)


# --- what counts as a tensor -----------------------------------------------------------

def is_tensor(x):
    """`tf.is_tensor`: True for a Tensor, a SparseTensor, an IndexedSlices or a Variable.

    The composites are told by their parts (this module cannot import their
    classes), a Variable by its `is_tensor_like` flag, TF's own protocol.
    """
    return (is_graph_tensor(x) or _is_composite_tensor(x)
            or getattr(type(x), "is_tensor_like", False))


def _is_composite_tensor(x):
    return type(x).__name__ in ("SparseTensor", "IndexedSlices") and hasattr(x, "values")


def is_symbolic_tensor(x):
    """True for a graph Tensor: in minitf's graph mode, every Tensor is symbolic."""
    return is_graph_tensor(x)


def get_static_value(tensor, partial=False):
    """`tf.get_static_value`: the value of `tensor` when the graph alone decides it, else None.

    A NumPy value is returned as it is. `partial` (TF's switch for partially
    known values) changes nothing here: minitf knows a value entirely or not.
    """
    del partial
    return constant_value(tensor)

