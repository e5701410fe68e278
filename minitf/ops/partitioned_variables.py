"""Partitioned variables: one large variable kept as several smaller ones.

A partitioner decides how many pieces each axis of a variable's shape is
cut into (`[4, 1]`: four pieces along the first axis); TensorFlow places
the pieces of an embedding table on different parameter servers that way.
The three partitioners TF 1.15 offers are here, as functions of the
variable's TensorShape and dtype:

* `fixed_size_partitioner(n)`: n pieces (fewer when the axis is shorter);
* `variable_axis_size_partitioner(max_shard_bytes)`: as few pieces as keep
  each under a byte size;
* `min_max_variable_partitioner(max_partitions, min_slice_size)`: as many
  pieces as keep each over a byte size, at most max_partitions.

`create_partitioned_variables(shape, slicing, initializer)` makes the
pieces: variables `<name>/part_<i>`, the first `dim % n` of them one row
longer, each initialized with the initializer's value for its own shape
(a constant value is sliced). minitf's `tf.get_variable` takes no
partitioner for a non-scalar variable: there is no PartitionedVariable
object here that reads as the whole.

Mirrors `tensorflow/python/ops/partitioned_variables.py` and the slicing
of `variable_scope._get_partitioned_variable`.
"""

import collections
import math

import numpy as np

from minitf.graph import dtypes
from minitf.graph import tensor_shape
from minitf.ops import array_ops
from minitf.ops import variable_scope

__all__ = ["create_partitioned_variables", "fixed_size_partitioner",
           "min_max_variable_partitioner", "variable_axis_size_partitioner"]


def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner cutting `axis` into `num_shards` pieces (at most one per row)."""

    def _partitioner(shape, **unused_args):
        partitions_list = [1] * len(shape)
        partitions_list[axis] = min(num_shards, shape.dims[axis].value)
        return partitions_list

    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """A partitioner cutting `axis` so that each piece holds at most `max_shard_bytes`."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive.")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        element_size = _element_size(shape, dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        bytes_per_slice = 1.0 * (shape.num_elements() / shape.dims[axis].value) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * shape.dims[axis].value / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """A partitioner giving each piece at least `min_slice_size` bytes, in at most
    `max_partitions` pieces."""
    if max_partitions < 1:
        raise ValueError("max_partitions must be >= 1, not %d" % max_partitions)

    def _partitioner(shape, dtype):
        bytes_per_element = _element_size(shape, dtype, bytes_per_string_element)
        partitions = shape.num_elements() * bytes_per_element / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(1, min(shape.dims[axis].value, max_partitions,
                                           int(math.ceil(partitions))))
        return partitions_list

    return _partitioner


def _element_size(shape, dtype, bytes_per_string_element):
    """The bytes of one element, after checking the partitioner's arguments as TF checks them."""
    if not isinstance(shape, tensor_shape.TensorShape):
        raise ValueError("shape is not a TensorShape: %s" % shape)
    if not shape.is_fully_defined():
        raise ValueError("shape is not fully defined: %s" % shape)
    if not isinstance(dtype, dtypes.DType):
        raise ValueError("dtype is not a DType: %s" % dtype)
    if dtype.base_dtype == dtypes.string:
        return bytes_per_string_element
    return dtype.size


# --- making the pieces ---------------------------------------------------------------------

class _PartitionInfo(collections.namedtuple("_PartitionInfo", ["full_shape", "var_offset"])):
    """What an initializer is told about the piece it fills: the whole shape and where
    the piece starts in it."""


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32,
                                 trainable=True, collections=None, name=None, reuse=None):
    """The pieces of a variable of `shape` cut `slicing[i]` times along axis i (one axis only).

    Returns the list of Variables `<name>/part_0`, `<name>/part_1`, ... (the
    scope `PartitionedVariable` when `name` is None).
    """
    if len(shape) != len(slicing):
        raise ValueError("The 'shape' and 'slicing' of a partitioned Variable must have the "
                         "length: shape: %s, slicing: %s" % (shape, slicing))
    if len(shape) < 1:
        raise ValueError("A partitioned Variable must have rank at least 1: shape: %s" % shape)
    shape = [int(d) for d in shape]
    axis = _partitioned_axis(slicing)
    with variable_scope.variable_scope(name, "PartitionedVariable", reuse=reuse):
        return [variable_scope.get_variable(
            "part_%d" % index, shape=None if _is_value(initializer) else piece_shape,
            dtype=dtype, trainable=trainable, collections=collections,
            initializer=_piece_initializer(initializer, shape, offset, piece_shape))
            for index, (offset, piece_shape) in enumerate(_pieces(shape, slicing, axis))]


def _partitioned_axis(slicing):
    cut = [i for i, n in enumerate(slicing) if n > 1]
    if len(cut) > 1:
        raise ValueError("Can only slice a variable along one dimension: slicing: %s" % slicing)
    return cut[0] if cut else 0


def _pieces(shape, slicing, axis):
    """(offset, shape) of each piece: the first `dim % n` pieces are one longer."""
    count = int(slicing[axis])
    if count < 1 or count > shape[axis]:
        raise ValueError("Cannot create %d slices for size %d. shape: %s, slicing: %s"
                         % (count, shape[axis], shape, slicing))
    base, extra = divmod(shape[axis], count)
    offset = 0
    for index in range(count):
        size = base + (1 if index < extra else 0)
        piece_offset = [0] * len(shape)
        piece_offset[axis] = offset
        piece_shape = list(shape)
        piece_shape[axis] = size
        yield piece_offset, piece_shape
        offset += size


def _is_value(initializer):
    return initializer is not None and not callable(initializer)


def _piece_initializer(initializer, full_shape, offset, piece_shape):
    """The initializer of one piece: the slice of a constant value, or a callable told where
    the piece is."""
    if _is_value(initializer):
        return array_ops.slice(initializer, np.asarray(offset, np.int32),
                               np.asarray(piece_shape, np.int32))
    if initializer is None:
        return None
    info = _PartitionInfo(full_shape, offset)
    return lambda shape, dtype=None, partition_info=None: initializer(
        shape, dtype=dtype, partition_info=info)
