"""SerializeSparse and DeserializeSparse: a SparseTensor inside a `variant`, and back.

A dataset's element is a list of dense tensors, so a SparseTensor component
travels as one `variant` vector of three objects (its indices, values and
dense shape). Batching such vectors stacks them into `[batch, 3]`;
DeserializeSparse turns `[batch, 3]` back into one SparseTensor with the
batch as its first dimension (each dimension as long as the longest).

Mirrors `tensorflow/core/kernels/serialize_sparse_op.cc` and
`deserialize_sparse_variant_op.cc`, for the `variant` out_type only.
"""

import numpy as np

from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors
from minitf.kernels.kernel_util import invalid


@register_kernel("SerializeSparse", ("CPU",))
def serialize_sparse(ctx, sparse_indices, sparse_values, sparse_shape, *, out_type):
    if out_type.name != "variant":
        raise errors.UnimplementedError(None, None, "minitf serializes sparse tensors to "
                                        "variant only, not %s" % out_type.name)
    serialized = np.empty(3, dtype=object)
    serialized[0] = np.asarray(sparse_indices, np.int64)
    serialized[1] = np.asarray(sparse_values)
    serialized[2] = np.asarray(sparse_shape, np.int64)
    return serialized


@register_kernel("DeserializeSparse", ("CPU",))
def deserialize_sparse(ctx, serialized_sparse, *, dtype):
    serialized = np.asarray(serialized_sparse, dtype=object)
    if serialized.ndim == 0 or serialized.shape[-1] != 3:
        raise invalid("Serialized sparse should have 3 as the last dimension %s"
                      % (list(serialized.shape),))
    if serialized.ndim == 1:
        return serialized[0], _values(serialized[1], dtype), serialized[2]
    batch_shape = serialized.shape[:-1]
    rows = serialized.reshape(-1, 3)
    shapes = np.stack([r[2] for r in rows]) if len(rows) else np.zeros((0, 0), np.int64)
    dense = shapes.max(axis=0) if len(rows) else np.zeros(0, np.int64)
    indices, values = [], []
    for position, row in enumerate(rows):
        prefix = np.asarray(np.unravel_index(position, batch_shape), np.int64)
        count = len(row[0])
        indices.append(np.hstack([np.tile(prefix, (count, 1)), row[0].reshape(count, len(dense))]))
        values.append(row[1])
    rank = len(batch_shape) + len(dense)
    return (np.concatenate(indices).reshape(-1, rank).astype(np.int64),
            _values(np.concatenate(values) if values else np.zeros(0), dtype),
            np.concatenate([np.asarray(batch_shape, np.int64), dense]).astype(np.int64))


def _values(values, dtype):
    return np.asarray(values, dtype=dtype.as_numpy_dtype)
