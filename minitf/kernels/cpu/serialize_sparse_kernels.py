"""SerializeSparse, SerializeManySparse and the deserializers: a SparseTensor as three values.

A SparseTensor is three tensors (indices, values, dense shape), and these
ops carry it as one vector of three:

* as `string`s, TensorFlow's format (`tf.io.serialize_sparse`): each part
  is the bytes of a TensorProto, as SerializeTensor writes them
  (`parsing_kernels.tensor_proto_bytes`), so a SparseTensor serialized
  here can be read by TensorFlow and the other way round;
* as a `variant` (a dataset's element): the three arrays themselves.

SerializeManySparse serializes each row of a rank >= 2 SparseTensor, as
`[rows, 3]`. DeserializeSparse and DeserializeManySparse turn `[..., 3]`
back into one SparseTensor whose first dimensions are the batch's, each
further dimension as long as the longest. Parsing bytes only ever
builds arrays from TensorProtos: no other object comes out of them.

Mirrors `tensorflow/core/kernels/serialize_sparse_op.cc`,
`deserialize_sparse_string_op.cc` and `deserialize_sparse_variant_op.cc`.
"""

import numpy as np

from minitf.framework.kernel_registry import register_kernel
from minitf.graph import dtypes
from minitf.kernels.cpu.parsing_kernels import tensor_from_proto_bytes, tensor_proto_bytes
from minitf.kernels.kernel_util import invalid, shape_text, tf_type_name


@register_kernel("SerializeSparse", ("CPU",))
def serialize_sparse(ctx, sparse_indices, sparse_values, sparse_shape, *, T, out_type):  # noqa: N803
    return _serialized(np.asarray(sparse_indices, np.int64), np.asarray(sparse_values),
                       np.asarray(sparse_shape, np.int64), T, out_type)


@register_kernel("SerializeManySparse", ("CPU",))
def serialize_many_sparse(ctx, sparse_indices, sparse_values, sparse_shape, *, T,  # noqa: N803
                          out_type):
    """One serialized SparseTensor per row of the first dimension: [rows, 3]."""
    indices = np.asarray(sparse_indices, np.int64)
    values = np.asarray(sparse_values)
    shape = np.asarray(sparse_shape, np.int64)
    if shape.size <= 1:
        raise invalid("Rank of input SparseTensor should be > 1, but saw rank: %d" % shape.size)
    rows = np.empty((int(shape[0]), 3), dtype=object)
    for row in range(int(shape[0])):
        mine = indices[:, 0] == row
        rows[row] = _serialized(indices[mine][:, 1:], values[mine], shape[1:], T, out_type)
    return rows


def _serialized(indices, values, shape, dtype, out_type):
    serialized = np.empty(3, dtype=object)
    if out_type == dtypes.variant:
        serialized[:] = [indices, values, shape]
    else:
        serialized[:] = [tensor_proto_bytes(indices, dtypes.int64),
                         tensor_proto_bytes(values, dtype),
                         tensor_proto_bytes(shape, dtypes.int64)]
    return serialized


@register_kernel("DeserializeSparse", ("CPU",))
def deserialize_sparse(ctx, serialized_sparse, *, dtype, Tserialized):  # noqa: N803
    return _deserialized(np.asarray(serialized_sparse, dtype=object), dtype, Tserialized)


@register_kernel("DeserializeManySparse", ("CPU",))
def deserialize_many_sparse(ctx, serialized_sparse, *, dtype):
    serialized = np.asarray(serialized_sparse, dtype=object)
    if serialized.ndim != 2 or serialized.shape[1] != 3:
        raise invalid("Serialized sparse should have 3 as the last dimension %s"
                      % shape_text(serialized.shape))
    return _deserialized(serialized, dtype, dtypes.string)


def _deserialized(serialized, dtype, serialized_type):
    if serialized.ndim == 0 or serialized.shape[-1] != 3:
        raise invalid("Serialized sparse should have 3 as the last dimension %s"
                      % shape_text(serialized.shape))
    if serialized.ndim == 1:
        return _parts(serialized, 0, dtype, serialized_type)
    batch_shape = serialized.shape[:-1]
    rows = [_parts(row, position, dtype, serialized_type)
            for position, row in enumerate(serialized.reshape(-1, 3))]
    rank = _common_rank(rows)
    dense = (np.stack([shape for _, _, shape in rows]).max(axis=0) if rows
             else np.zeros(0, np.int64))
    indices = [np.hstack([np.tile(np.unravel_index(position, batch_shape), (len(row_indices), 1)),
                          row_indices.reshape(len(row_indices), rank)])
               for position, (row_indices, _, _) in enumerate(rows)]
    values = [row_values for _, row_values, _ in rows]
    full_rank = len(batch_shape) + rank
    return (np.concatenate(indices).reshape(-1, full_rank).astype(np.int64) if indices
            else np.zeros((0, full_rank), np.int64),
            np.concatenate(values).astype(dtype.as_numpy_dtype) if values
            else np.zeros(0, dtype.as_numpy_dtype),
            np.concatenate([np.asarray(batch_shape, np.int64), dense]).astype(np.int64))


def _parts(row, position, dtype, serialized_type):
    """(indices, values, shape) of one serialized SparseTensor, checked."""
    if serialized_type == dtypes.variant:
        return (np.asarray(row[0], np.int64), np.asarray(row[1], dtype=dtype.as_numpy_dtype),
                np.asarray(row[2], np.int64))
    (indices, _), (values, values_type), (shape, _) = (
        tensor_from_proto_bytes(_bytes(part)) for part in row)
    if values_type != dtype:
        raise invalid("Requested SparseTensor of type %s but SparseTensor[%d].values.dtype() == %s"
                      % (tf_type_name(dtype), position, tf_type_name(values_type)))
    return np.asarray(indices, np.int64), values, np.asarray(shape, np.int64)


def _bytes(part):
    return part if isinstance(part, bytes) else str(part).encode("utf-8")


def _common_rank(rows):
    rank = None
    for position, (_, _, shape) in enumerate(rows):
        if rank is not None and len(shape) != rank:
            raise invalid("Inconsistent shape across SparseTensors: rank prior to "
                          "SparseTensor[%d] was: %d but rank of SparseTensor[%d] is: %d"
                          % (position, rank, position, len(shape)))
        rank = len(shape)
    return rank or 0
