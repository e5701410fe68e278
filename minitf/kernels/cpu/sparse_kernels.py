"""Kernels of the sparse and segment ops.

Every segment reduction comes down to one step, `_reduce_into_segments`:
sort the rows by segment id, reduce each run of equal ids with a ufunc's
`reduceat` (add, multiply, maximum, minimum), and write the results to
their segments' rows; a segment no row names keeps its "empty" value. A
mean (or sqrt-n) scales a sum by the segment sizes afterwards. The segment ids
are small index vectors: they are read on the host, while the rows stay on
the op's device (`ctx.xp`), so these kernels serve CPU and GPU alike.

The SparseTensor kernels (SparseToDense, SparseReshape,
SparseFillEmptyRows, SparseReorder, SparseConcat, SparseAdd,
SparseTensorDenseAdd, SparseTensorDenseMatMul, SparseReduceSum/Max,
SparseSoftmax, SparseSparseMaximum/Minimum, SparseSlice, SparseSplit)
rearrange index matrices; as in TensorFlow 1.15 they
run on the CPU only, and the placer keeps them there. Sorting entries in
row-major order is one `np.lexsort` over the index columns.

Mirrors `tensorflow/core/kernels/segment_reduction_ops.cc`,
`sparse_to_dense_op.cc`, `reshape_util.cc` (SparseReshape),
`sparse_fill_empty_rows_op.cc`, `sparse_reorder_op.cc`,
`sparse_concat_op.cc`, `sparse_add_op.cc`, `sparse_add_grad_op.cc`,
`sparse_tensor_dense_add_op.cc`, `sparse_tensor_dense_matmul_op.cc`,
`sparse_reduce_op.cc`, `sparse_softmax_op.cc`, `sparse_sparse_binary_op_shared.cc`,
`sparse_slice_op.cc`, `sparse_slice_grad_op.cc`, `sparse_split_op.cc` and the index checks of
`util/sparse/sparse_tensor.h` (IndicesValid).
"""

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text


def _scalar_int(ctx, array, what):
    value = host_array(ctx, array)
    if value.ndim != 0:
        raise invalid("%s should be a scalar, not shape %s" % (what, shape_text(value.shape)))
    return int(value)


# =============================================================================
# The one step every segment reduction shares
# =============================================================================

def _reduce_into_segments(xp, rows, host_ids, num_segments, ufunc_name, empty_value):
    """output[s] = rows with id s reduced by `ufunc_name`; `empty_value` for a segment without rows.

    `host_ids` (NumPy) holds one id in [0, num_segments) per row of `rows`.
    """
    output = xp.full((num_segments,) + tuple(rows.shape[1:]), empty_value, dtype=rows.dtype)
    if host_ids.size == 0:
        return output
    order = np.argsort(host_ids, kind="stable")
    sorted_ids = host_ids[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    sorted_rows = rows[xp.asarray(order)]
    ufunc = getattr(xp, ufunc_name)
    if hasattr(ufunc, "reduceat"):
        reduced = ufunc.reduceat(sorted_rows, xp.asarray(starts), axis=0)
    else:  # an array library without reduceat (some CuPy versions): one segment at a time
        ends = np.r_[starts[1:], sorted_ids.size]
        reduced = xp.stack([ufunc.reduce(sorted_rows[s:e], axis=0) for s, e in zip(starts, ends)])
    output[xp.asarray(sorted_ids[starts])] = reduced.astype(rows.dtype, copy=False)
    return output


def _segment_sizes(host_ids, num_segments):
    """How many rows each segment has, at least 1 (an empty segment's sum stays 0)."""
    return np.maximum(np.bincount(host_ids, minlength=num_segments), 1)


def _divide_by_segment_sizes(xp, sums, host_ids):
    """SegmentMean: sums[s] / size(s); integer means truncate toward zero, as in TF."""
    sizes = _segment_sizes(host_ids, sums.shape[0])
    divisor = xp.asarray(sizes.reshape((-1,) + (1,) * (sums.ndim - 1)))
    if np.issubdtype(sums.dtype, np.integer):
        return xp.trunc(sums / divisor).astype(sums.dtype)
    return sums / divisor.astype(sums.dtype)


def _scale_by_segment_sizes(xp, sums, host_ids, take_sqrt):
    """The sparse segment ops: sums[s] * 1/size(s), or * 1/sqrt(size(s)).

    TF multiplies by the reciprocal, computed in the data's dtype, rather
    than dividing: the last bit of a float32 result depends on it.
    """
    sizes = _segment_sizes(host_ids, sums.shape[0]).astype(sums.dtype)
    if take_sqrt:
        sizes = np.sqrt(sizes)
    scale = (np.ones((), dtype=sums.dtype) / sizes).reshape((-1,) + (1,) * (sums.ndim - 1))
    return sums * xp.asarray(scale)


def _combine(xp, rows, host_ids, num_segments, combiner, empty_value=0):
    """The segments of `rows` combined by "sum", "mean", "sqrtn", "prod", "max" or "min".

    An empty segment is 0 for sum, mean and sqrtn, `empty_value` for the others.
    """
    if combiner in ("sum", "mean", "sqrtn"):
        sums = _reduce_into_segments(xp, rows, host_ids, num_segments, "add", 0)
        if combiner == "sum":
            return sums
        return _scale_by_segment_sizes(xp, sums, host_ids, take_sqrt=combiner == "sqrtn")
    ufunc_name = {"prod": "multiply", "max": "maximum", "min": "minimum"}[combiner]
    return _reduce_into_segments(xp, rows, host_ids, num_segments, ufunc_name, empty_value)


# =============================================================================
# Checks on sorted segment ids
# =============================================================================

def _check_sorted_segment_ids(host_ids, output_rows):
    """InvalidArgumentError, in TF's words, unless the ids are sorted and in [0, output_rows)."""
    if host_ids.size == 0:
        return
    if output_rows < 0:
        raise invalid("segment ids must be >= 0")
    if np.any(host_ids[1:] < host_ids[:-1]):
        raise invalid("segment ids are not increasing")
    if host_ids[0] < 0:
        raise invalid("Segment id %d out of range [0, %d), possibly because 'segment_ids' "
                      "input is not sorted." % (host_ids[0], output_rows))
    if host_ids[-1] >= output_rows:
        raise invalid("segment ids must be < num_segments")


def _sorted_segment_ids(ctx, data, segment_ids):
    """(the segment ids on the host, the number of segments) for the Segment* kernels."""
    if data.ndim < 1:
        raise invalid("input must be at least rank 1")
    if segment_ids.ndim != 1:
        raise invalid("segment_ids should be a vector.")
    if segment_ids.shape[0] != data.shape[0]:
        raise invalid("segment_ids should be the same size as dimension 0 of input.")
    host_ids = host_array(ctx, segment_ids).astype(np.int64)
    num_segments = int(host_ids[-1]) + 1 if host_ids.size else 0
    _check_sorted_segment_ids(host_ids, num_segments)
    return host_ids, num_segments


def _register_segment_kernel(op_type, combiner, empty_value):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, data, segment_ids):
        host_ids, num_segments = _sorted_segment_ids(ctx, data, segment_ids)
        if combiner == "mean":  # SegmentMean divides (the sparse ops scale by a reciprocal)
            sums = _reduce_into_segments(ctx.xp, data, host_ids, num_segments, "add", 0)
            return _divide_by_segment_sizes(ctx.xp, sums, host_ids)
        return _combine(ctx.xp, data, host_ids, num_segments, combiner, empty_value)

    kernel.__name__ = kernel.__qualname__ = "segment_" + combiner


# An empty segment of a sorted reduction is 0, except for a product: 1.
for _op_type, _combiner, _empty_value in (("SegmentSum", "sum", 0), ("SegmentMean", "mean", 0),
                                          ("SegmentProd", "prod", 1), ("SegmentMax", "max", 0),
                                          ("SegmentMin", "min", 0)):
    _register_segment_kernel(_op_type, _combiner, _empty_value)


# =============================================================================
# Unsorted segment reductions (UnsortedSegmentSum is in math_kernels.py)
# =============================================================================

# A segment no row names holds the finite limit (Eigen's lowest() and highest(), as in
# TF's segment reductions), not kernel_util's -inf and inf that an empty Max or Min holds.
def _lowest(dtype):
    return np.finfo(dtype).min if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def _highest(dtype):
    return np.finfo(dtype).max if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max


def _unsorted_rows_and_ids(ctx, data, segment_ids, num_segments):
    """(the slices of `data` with an id >= 0, their ids): a negative id drops its slice."""
    if tuple(data.shape[:segment_ids.ndim]) != tuple(segment_ids.shape):
        raise invalid("data.shape = %s does not start with segment_ids.shape = %s"
                      % (shape_text(data.shape), shape_text(segment_ids.shape)))
    host_ids = host_array(ctx, segment_ids).reshape(-1).astype(np.int64)
    too_large = np.flatnonzero(host_ids >= num_segments)
    if too_large.size:
        i = int(too_large[0])
        position = np.unravel_index(i, segment_ids.shape) if segment_ids.ndim else ()
        raise invalid("segment_ids%s = %d is out of range [0, %d)"
                      % (shape_text(position), host_ids[i], num_segments))
    row_shape = tuple(data.shape[segment_ids.ndim:])
    rows = ctx.xp.reshape(data, (host_ids.size,) + row_shape)
    kept = np.flatnonzero(host_ids >= 0)
    return rows[ctx.xp.asarray(kept)], host_ids[kept]


def _register_unsorted_segment_kernel(op_type, combiner, empty_value_of):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, data, segment_ids, num_segments):
        num_segments = _scalar_int(ctx, num_segments, "num_segments")
        if num_segments < 0:
            raise invalid("Dimension size, given by scalar input 2, must be non-negative but "
                          "is %d" % num_segments)
        rows, host_ids = _unsorted_rows_and_ids(ctx, data, segment_ids, num_segments)
        return _combine(ctx.xp, rows, host_ids, num_segments, combiner,
                        empty_value=empty_value_of(data.dtype))

    kernel.__name__ = kernel.__qualname__ = "unsorted_segment_" + combiner


_register_unsorted_segment_kernel("UnsortedSegmentMax", "max", _lowest)
_register_unsorted_segment_kernel("UnsortedSegmentMin", "min", _highest)
_register_unsorted_segment_kernel("UnsortedSegmentProd", "prod", lambda dtype: 1)


# =============================================================================
# Sparse segment reductions and their gradients
# =============================================================================

def _check_indices_and_segment_ids(indices, segment_ids):
    if indices.ndim != 1:
        raise invalid("indices should be a vector.")
    if segment_ids.ndim != 1:
        raise invalid("segment_ids should be a vector.")
    if indices.shape[0] != segment_ids.shape[0]:
        raise invalid("segment_ids and indices should have same size.")


def _sparse_segment_reduce(ctx, data, indices, segment_ids, num_segments, combiner):
    """Rows data[indices[j]] combined into segment segment_ids[j]."""
    if data.ndim < 1:
        raise invalid("input must be at least rank 1")
    _check_indices_and_segment_ids(indices, segment_ids)
    host_indices = host_array(ctx, indices).astype(np.int64)
    bad = np.flatnonzero((host_indices < 0) | (host_indices >= data.shape[0]))
    if bad.size:
        i = int(bad[0])
        raise invalid("Bad: indices[%d] == %d out of range [0, %d)"
                      % (i, host_indices[i], data.shape[0]))
    host_ids = host_array(ctx, segment_ids).astype(np.int64)
    if num_segments is None:
        num_segments = int(host_ids[-1]) + 1 if host_ids.size else 0
    _check_sorted_segment_ids(host_ids, num_segments)
    rows = data[ctx.xp.asarray(host_indices)]
    return _combine(ctx.xp, rows, host_ids, num_segments, combiner)


def _register_sparse_segment_kernels(op_type, combiner):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, data, indices, segment_ids):
        return _sparse_segment_reduce(ctx, data, indices, segment_ids, None, combiner)

    @register_kernel(op_type + "WithNumSegments", ALL_DEVICE_TYPES)
    def kernel_with_num_segments(ctx, data, indices, segment_ids, num_segments):
        num_segments = _scalar_int(ctx, num_segments, "num_segments")
        return _sparse_segment_reduce(ctx, data, indices, segment_ids, num_segments, combiner)

    kernel.__name__ = kernel.__qualname__ = "sparse_segment_" + combiner
    kernel_with_num_segments.__name__ = kernel_with_num_segments.__qualname__ = (
        "sparse_segment_%s_with_num_segments" % combiner)


_register_sparse_segment_kernels("SparseSegmentSum", "sum")
_register_sparse_segment_kernels("SparseSegmentMean", "mean")
_register_sparse_segment_kernels("SparseSegmentSqrtN", "sqrtn")


def _sparse_segment_grad(ctx, grad, indices, segment_ids, output_dim0, scale):
    """output[indices[j]] += grad[segment_ids[j]] / size (or sqrt(size)) of that segment."""
    xp = ctx.xp
    _check_indices_and_segment_ids(indices, segment_ids)
    output_dim0 = _scalar_int(ctx, output_dim0, "output_dim0")
    host_ids = host_array(ctx, segment_ids).astype(np.int64)
    bad = np.flatnonzero((host_ids < 0) | (host_ids >= grad.shape[0]))
    if bad.size:
        raise invalid("Segment id %d out of range [0, %d)."
                      % (host_ids[bad[0]], grad.shape[0]))
    host_indices = host_array(ctx, indices).astype(np.int64)
    bad = np.flatnonzero((host_indices < 0) | (host_indices >= output_dim0))
    if bad.size:
        raise invalid("Index %d out of range [0, %d)." % (host_indices[bad[0]], output_dim0))
    # Each segment's gradient, already divided by its size, goes to every row it read.
    per_segment = _scale_by_segment_sizes(xp, grad, host_ids, take_sqrt=scale == "sqrtn")
    rows = per_segment[xp.asarray(host_ids)]
    return _reduce_into_segments(xp, rows, host_indices, output_dim0, "add", 0)


@register_kernel("SparseSegmentMeanGrad", ALL_DEVICE_TYPES)
def sparse_segment_mean_grad(ctx, grad, indices, segment_ids, output_dim0):
    return _sparse_segment_grad(ctx, grad, indices, segment_ids, output_dim0, "mean")


@register_kernel("SparseSegmentSqrtNGrad", ALL_DEVICE_TYPES)
def sparse_segment_sqrt_n_grad(ctx, grad, indices, segment_ids, output_dim0):
    return _sparse_segment_grad(ctx, grad, indices, segment_ids, output_dim0, "sqrtn")


# =============================================================================
# SparseToDense
# =============================================================================

def _compare_with_previous(indices):
    """-1, 0 or 1 for each row after the first: it is <, == or > the row before it.

    Rows of the [N, rank] index matrix compare in row-major (lexicographic) order.
    """
    if indices.shape[0] < 2:
        return np.zeros(0, dtype=np.int64)
    if indices.shape[1] == 0:
        return np.zeros(indices.shape[0] - 1, dtype=np.int64)
    signs = np.sign(indices[1:] - indices[:-1])
    first_difference = np.argmax(signs != 0, axis=1)
    return signs[np.arange(signs.shape[0]), first_difference]


def _check_indices_valid(indices, shape):
    """TF's SparseTensor::IndicesValid: each index in bounds, and after the previous one."""
    out_of_bounds = np.any((indices < 0) | (indices >= np.asarray(shape, dtype=np.int64)),
                           axis=1)
    order = np.r_[1, _compare_with_previous(indices)]
    bad = np.flatnonzero(out_of_bounds | (order <= 0))
    if not bad.size:
        return
    i = int(bad[0])
    index_text = shape_text(indices[i])
    if out_of_bounds[i]:
        raise invalid("indices[%d] = %s is out of bounds: need 0 <= index < %s"
                      % (i, index_text, shape_text(shape)))
    if order[i] < 0:
        raise invalid("indices[%d] = %s is out of order. Many sparse ops require sorted "
                      "indices.\n    Use `tf.sparse.reorder` to create a correctly ordered "
                      "copy.\n\n" % (i, index_text))
    raise invalid("indices[%d] = %s is repeated" % (i, index_text))


def _sparse_to_dense_layout(sparse_indices, output_shape, sparse_values, default_value):
    """(number of values, rank) after checking the four inputs fit together."""
    if sparse_indices.ndim > 2:
        raise invalid("sparse_indices should be a scalar, vector, or matrix, got shape %s"
                      % shape_text(sparse_indices.shape))
    if output_shape.ndim > 1:
        raise invalid("output_shape should be a scalar or vector, got shape %s"
                      % shape_text(output_shape.shape))
    num_elems = sparse_indices.shape[0] if sparse_indices.ndim > 0 else 1
    num_dims = sparse_indices.shape[1] if sparse_indices.ndim > 1 else 1
    if not (sparse_values.ndim == 0
            or (sparse_values.ndim == 1 and sparse_values.shape[0] == num_elems)):
        raise invalid("sparse_values has incorrect shape %s, should be [] or [%d]"
                      % (shape_text(sparse_values.shape), num_elems))
    if default_value.ndim != 0:
        raise invalid("default_value should be a scalar.")
    if output_shape.size != num_dims:
        raise invalid("output_shape has incorrect number of elements: %d should be: %d"
                      % (output_shape.size, num_dims))
    return num_elems, num_dims


@register_kernel("SparseToDense", "CPU")
def sparse_to_dense(ctx, sparse_indices, output_shape, sparse_values, default_value, *,
                    validate_indices):
    """A dense array of `default_value` with `sparse_values` written at `sparse_indices`."""
    num_elems, num_dims = _sparse_to_dense_layout(sparse_indices, output_shape, sparse_values,
                                                  default_value)
    shape = tuple(int(d) for d in output_shape.reshape(-1))
    if any(d < 0 for d in shape):
        raise invalid("Dimension %d must be >= 0" % min(shape))
    indices = sparse_indices.reshape(num_elems, num_dims).astype(np.int64)
    if validate_indices:
        _check_indices_valid(indices, shape)
    elif np.any((indices < 0) | (indices >= np.asarray(shape, dtype=np.int64))):
        raise invalid("Indices are not valid (out of bounds).  Shape: %s" % shape_text(shape))
    dense = np.full(shape, default_value, dtype=sparse_values.dtype)
    dense[tuple(indices.T)] = sparse_values
    return dense


# =============================================================================
# SparseReshape
# =============================================================================

def _resolve_new_shape(input_shape, new_shape):
    """`new_shape` with its one -1 inferred so that both shapes hold the same number of values."""
    dense_size = int(np.prod(input_shape, dtype=np.int64))
    unknown = [i for i, d in enumerate(new_shape) if d == -1]
    if len(unknown) > 1:
        raise invalid("only one output dimension may be -1, not both %d and %d"
                      % (unknown[0], unknown[1]))
    for i, d in enumerate(new_shape):
        if d < -1:
            raise invalid("size %d must be non-negative, not %d" % (i, d))
    resolved = [1 if d == -1 else d for d in new_shape]
    product = int(np.prod(resolved, dtype=np.int64))
    if unknown:
        if product <= 0:
            raise invalid("reshape cannot infer the missing input size for an empty tensor "
                          "unless all specified input sizes are non-zero")
        if dense_size % product:
            raise invalid("Input to reshape is a SparseTensor with %d dense values, but the "
                          "requested shape requires a multiple of %d. input_shape=%s "
                          "output_shape=%s" % (dense_size, product, shape_text(input_shape),
                                               shape_text(resolved)))
        resolved[unknown[0]] = dense_size // product
    if int(np.prod(resolved, dtype=np.int64)) != dense_size:
        raise invalid("Input to reshape is a tensor with %d dense values, but the requested "
                      "shape has %d. input_shape=%s output_shape=%s"
                      % (dense_size, int(np.prod(resolved, dtype=np.int64)),
                         shape_text(input_shape), shape_text(resolved)))
    return np.asarray(resolved, dtype=np.int64)


def _row_major_strides(shape):
    """How far one step along each dimension moves in the flattened (row-major) tensor."""
    strides = np.ones(len(shape), dtype=np.int64)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return strides


@register_kernel("SparseReshape", "CPU")
def sparse_reshape(ctx, input_indices, input_shape, new_shape):
    """Each index -> its row-major position in input_shape -> the index there in new_shape."""
    if input_indices.ndim != 2:
        raise invalid("Input indices should be a matrix but received shape %s"
                      % shape_text(input_indices.shape))
    if input_shape.ndim != 1:
        raise invalid("Input shape should be a vector but received shape %s"
                      % shape_text(input_shape.shape))
    if new_shape.ndim != 1:
        raise invalid("Target shape should be a vector but received shape %s"
                      % shape_text(new_shape.shape))
    if input_indices.shape[1] != input_shape.shape[0]:
        raise invalid("Input tensor rank %d and input shape rank %d must match"
                      % (input_indices.shape[1], input_shape.shape[0]))
    output_shape = _resolve_new_shape([int(d) for d in input_shape],
                                      [int(d) for d in new_shape])
    positions = input_indices @ _row_major_strides(input_shape)
    out_strides = _row_major_strides(output_shape)
    # np.maximum: a zero-sized dimension holds no entries, but must not divide by zero.
    output_indices = (positions[:, None] // out_strides) % np.maximum(output_shape, 1)
    return output_indices.astype(np.int64), output_shape


# =============================================================================
# SparseFillEmptyRows
# =============================================================================

def _check_fill_empty_rows_inputs(indices, values, dense_shape, default_value):
    if dense_shape.ndim != 1:
        raise invalid("dense_shape must be a vector, saw: %s" % shape_text(dense_shape.shape))
    if indices.ndim != 2:
        raise invalid("indices must be a matrix, saw: %s" % shape_text(indices.shape))
    if values.ndim != 1:
        raise invalid("values must be a vector, saw: %s" % shape_text(values.shape))
    if default_value.ndim != 0:
        raise invalid("default_value must be a scalar, saw: %s"
                      % shape_text(default_value.shape))
    if dense_shape.shape[0] == 0:
        raise invalid("dense_shape must not be empty")
    if indices.shape[0] != values.shape[0]:
        raise invalid("The length of `values` (%d) must match the first dimension of "
                      "`indices` (%d)." % (values.shape[0], indices.shape[0]))
    if indices.shape[1] != dense_shape.shape[0]:
        raise invalid("The length of `dense_shape` (%d) must match the second dimension of "
                      "`indices` (%d)." % (dense_shape.shape[0], indices.shape[1]))


@register_kernel("SparseFillEmptyRows", "CPU")
def sparse_fill_empty_rows(ctx, indices, values, dense_shape, default_value):
    """Entries grouped by row (stable), plus a default at [row, 0, ...] for each empty row.

    Returns (output_indices, output_values, empty_row_indicator,
    reverse_index_map), where input entry i lands at output position
    reverse_index_map[i].
    """
    _check_fill_empty_rows_inputs(indices, values, dense_shape, default_value)
    num_rows = int(dense_shape[0])
    rows = indices[:, 0]
    for bad, relation, bound in ((rows < 0, "<", 0), (rows >= num_rows, ">=", num_rows)):
        if np.any(bad):
            i = int(np.flatnonzero(bad)[0])
            raise invalid("indices(%d, 0) is invalid: %d %s %d" % (i, rows[i], relation, bound))

    counts = np.bincount(rows, minlength=num_rows)
    empty_row_indicator = counts == 0
    slots = np.maximum(counts, 1)  # an empty row gets one slot, for its default entry
    row_starts = np.cumsum(slots) - slots
    # Entry i is the k-th of its row (k counted in input order): it goes to row_start + k.
    order = np.argsort(rows, kind="stable")
    first_of_row = (np.cumsum(counts) - counts)[rows[order]]
    reverse_index_map = np.empty(rows.shape[0], dtype=np.int64)
    reverse_index_map[order] = row_starts[rows[order]] + np.arange(rows.shape[0]) - first_of_row

    total = int(slots.sum())
    output_indices = np.zeros((total, indices.shape[1]), dtype=np.int64)
    output_values = np.empty(total, dtype=values.dtype)
    output_indices[reverse_index_map] = indices
    output_values[reverse_index_map] = values
    empty_rows = np.flatnonzero(empty_row_indicator)
    output_indices[row_starts[empty_rows], 0] = empty_rows
    output_values[row_starts[empty_rows]] = default_value
    return output_indices, output_values, empty_row_indicator, reverse_index_map


@register_kernel("SparseFillEmptyRowsGrad", "CPU")
def sparse_fill_empty_rows_grad(ctx, reverse_index_map, grad_values):
    """(the gradient of each input value, the summed gradient of the default entries)."""
    if reverse_index_map.ndim != 1:
        raise invalid("reverse_index_map must be a vector, saw: %s"
                      % shape_text(reverse_index_map.shape))
    if grad_values.ndim != 1:
        raise invalid("grad_values must be a vector, saw: %s" % shape_text(grad_values.shape))
    n = grad_values.shape[0]
    bad = np.flatnonzero((reverse_index_map < 0) | (reverse_index_map >= n))
    if bad.size:
        raise invalid("Elements in reverse index must be in [0, %d) but got %d"
                      % (n, reverse_index_map[bad[0]]))
    d_values = grad_values[reverse_index_map]
    from_input = np.zeros(n, dtype=bool)
    from_input[reverse_index_map] = True
    d_default_value = grad_values[~from_input].sum(dtype=grad_values.dtype)
    return d_values, np.asarray(d_default_value, dtype=grad_values.dtype)


# =============================================================================
# SparseReorder, SparseConcat
# =============================================================================

def _row_major_order(indices):
    """The permutation that sorts an [N, rank] index matrix in row-major order (stable)."""
    if indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    # lexsort sorts by its last key first: give it the columns last-to-first.
    return np.lexsort(indices.T[::-1])


def _check_sparse_tensor(indices, values, shape, position=""):
    if indices.ndim != 2:
        raise invalid("Input indices%s should be a matrix but received shape %s"
                      % (position, shape_text(indices.shape)))
    if values.ndim != 1:
        raise invalid("Input values%s should be a vector but received shape %s"
                      % (position, shape_text(values.shape)))
    if shape.ndim != 1:
        raise invalid("Input shape%s should be a vector but received shape %s"
                      % (position, shape_text(shape.shape)))
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise invalid("Input indices%s of shape %s do not fit %d values and a dense shape "
                      "of rank %d" % (position, shape_text(indices.shape), values.shape[0],
                                      shape.shape[0]))


@register_kernel("SparseReorder", "CPU")
def sparse_reorder(ctx, input_indices, input_values, input_shape):
    """The entries sorted in row-major order; equal indices keep their input order."""
    _check_sparse_tensor(input_indices, input_values, input_shape)
    order = _row_major_order(input_indices)
    return input_indices[order], input_values[order]


@register_kernel("SparseConcat", "CPU")
def sparse_concat(ctx, *inputs, concat_dim):
    """Each input's indices shifted along concat_dim past the inputs before it, then sorted."""
    n = len(inputs) // 3
    indices, values, shapes = inputs[:n], inputs[n:2 * n], inputs[2 * n:]
    for i in range(n):
        _check_sparse_tensor(indices[i], values[i], shapes[i], position=" %d" % i)
    rank = shapes[0].shape[0]
    if not -rank <= concat_dim < rank:
        raise invalid("Concat dimension must be in range [%d, %d), got %d"
                      % (-rank, rank, concat_dim))
    axis = concat_dim % rank
    for i in range(1, n):
        if shapes[i].shape[0] != rank:
            raise invalid("Ranks of all input tensors should match: shape[0] = %s vs. "
                          "shape[%d] = %s" % (shape_text(shapes[0]), i,
                                              shape_text(shapes[i])))
        for d in range(rank):
            if d != axis and shapes[i][d] != shapes[0][d]:
                raise invalid("Input shapes must match: expected %d for dimension %d but "
                              "got %d at position %d" % (shapes[0][d], d, shapes[i][d], i))
    offsets = np.cumsum([0] + [int(shape[axis]) for shape in shapes])
    shifted = []
    for i in range(n):
        moved = indices[i].copy()
        moved[:, axis] += offsets[i]
        shifted.append(moved)
    all_indices = np.concatenate(shifted, axis=0)
    all_values = np.concatenate(values, axis=0)
    order = _row_major_order(all_indices)
    output_shape = shapes[0].copy()
    output_shape[axis] = offsets[-1]
    return all_indices[order], all_values[order], output_shape


# =============================================================================
# SparseAdd, SparseAddGrad, SparseTensorDenseAdd
# =============================================================================

def _check_same_dense_shape(a_shape, b_shape):
    if a_shape.shape != b_shape.shape:
        raise invalid("Input indices must have the same dimension, got %d and %d"
                      % (a_shape.shape[0], b_shape.shape[0]))
    for d, (x, y) in enumerate(zip(a_shape, b_shape)):
        if x != y:
            raise invalid("Operands' shapes do not match: got %d and %d for dimension %d"
                          % (x, y, d))


@register_kernel("SparseAdd", "CPU")
def sparse_add(ctx, a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    """The entries of both, in row-major order, those at one index summed into one.

    An entry whose sum has a magnitude below `thresh` is left out.
    """
    _check_sparse_tensor(a_indices, a_values, a_shape)
    _check_sparse_tensor(b_indices, b_values, b_shape)
    _check_same_dense_shape(a_shape, b_shape)
    if np.ndim(thresh) != 0:
        raise invalid("The magnitude threshold must be a scalar: got shape %s"
                      % shape_text(np.shape(thresh)))
    indices = np.concatenate([a_indices, b_indices], axis=0)
    values = np.concatenate([a_values, b_values], axis=0)
    order = _row_major_order(indices)
    indices, values = indices[order], values[order]
    if not indices.shape[0]:
        return indices, values, a_shape.copy()
    starts = np.flatnonzero(np.r_[True, np.any(indices[1:] != indices[:-1], axis=1)])
    sums = np.add.reduceat(values, starts).astype(values.dtype)
    keep = np.abs(sums) >= thresh
    return indices[starts][keep], sums[keep], a_shape.copy()


@register_kernel("SparseAddGrad", "CPU")
def sparse_add_grad(ctx, backprop_val_grad, a_indices, b_indices, sum_indices):
    """Each operand entry gets the gradient of the sum entry at its index (0 if dropped)."""
    if backprop_val_grad.shape[0] != sum_indices.shape[0]:
        raise invalid("backprop_val_grad has %d values but there are %d sum indices"
                      % (backprop_val_grad.shape[0], sum_indices.shape[0]))
    position_of = {tuple(index): i for i, index in enumerate(sum_indices.tolist())}

    def gradient_for(indices):
        grad = np.zeros(indices.shape[0], dtype=backprop_val_grad.dtype)
        for i, index in enumerate(indices.tolist()):
            if tuple(index) in position_of:
                grad[i] = backprop_val_grad[position_of[tuple(index)]]
        return grad

    return gradient_for(a_indices), gradient_for(b_indices)


@register_kernel("SparseTensorDenseAdd", "CPU")
def sparse_tensor_dense_add(ctx, a_indices, a_values, a_shape, b):
    """A copy of dense `b` with the sparse values added at their indices (repeats summed)."""
    _check_sparse_tensor(a_indices, a_values, a_shape)
    if a_shape.shape[0] != b.ndim:
        raise invalid("Dimension mismatch: the sparse operand has rank %d and the dense "
                      "operand rank %d" % (a_shape.shape[0], b.ndim))
    for d, (x, y) in enumerate(zip(a_shape, b.shape)):
        if x != y:
            raise invalid("Dimension %d does not equal (no broadcasting is supported): "
                          "sparse side %d vs dense side %d" % (d, x, y))
    bad = (a_indices < 0) | (a_indices >= np.asarray(b.shape, dtype=np.int64))
    if np.any(bad):
        i, d = (int(v) for v in np.argwhere(bad)[0])
        raise invalid("Sparse tensor has an invalid index on dimension %d: a_indices(%d,%d) "
                      "= %d, dense tensor shape: %s" % (d, i, d, a_indices[i, d],
                                                        " ".join(str(x) for x in b.shape)))
    output = b.copy()
    np.add.at(output, tuple(a_indices.T), a_values)
    return output


# =============================================================================
# The tf.sparse family: SparseTensorDenseMatMul, SparseReduce{Sum,Max}[Sparse],
# SparseSoftmax, SparseDenseCwiseAdd, SparseSparse{Maximum,Minimum}, SparseSlice,
# SparseSliceGrad, SparseSplit
# =============================================================================

@register_kernel("SparseTensorDenseMatMul", "CPU")
def sparse_tensor_dense_mat_mul(ctx, a_indices, a_values, a_shape, b, *, adjoint_a,
                                adjoint_b):
    """op(a) @ op(b), each entry a[i, k] adding a[i, k] * op(b)[k, :] to output row i."""
    _check_sparse_tensor(a_indices, a_values, a_shape)
    if a_shape.shape[0] != 2 or b.ndim != 2:
        raise invalid("Tensor 'a_shape' and 'b' must be matrices: a_shape has %d entries, "
                      "b has rank %d" % (a_shape.shape[0], b.ndim))
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    out_rows, inner = (int(a_shape[0]), int(a_shape[1]))
    if adjoint_a:
        rows, cols, out_rows, inner = cols, rows, inner, out_rows
    b = b.T.conj() if adjoint_b else b
    if b.shape[0] != inner:
        raise invalid("Cannot multiply A and B because inner dimension does not match: "
                      "%d vs. %d.  Did you forget a transpose?  Dimensions of A: [%d, %d).  "
                      "Dimensions of B: %s" % (inner, b.shape[0], int(a_shape[0]),
                                               int(a_shape[1]), shape_text(b.shape)))
    bad = (rows < 0) | (rows >= out_rows) | (cols < 0) | (cols >= inner)
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        raise invalid("k (%d) from index[%d,%d] out of bounds (>=%d)"
                      % (cols[k], k, int(adjoint_a) ^ 1, inner))
    values = a_values.conj() if adjoint_a else a_values
    output = np.zeros((out_rows, b.shape[1]), dtype=b.dtype)
    np.add.at(output, rows, values[:, None] * b[cols])
    return output


def _unique_rows(keys):
    """(the distinct rows of an index matrix in row-major order, each row's position there)."""
    if keys.shape[1] == 0:  # every row is the empty index: one group, if any row at all
        return np.zeros((min(keys.shape[0], 1), 0), np.int64), np.zeros(keys.shape[0], np.int64)
    groups, group_of = np.unique(keys, axis=0, return_inverse=True)
    return groups, np.reshape(group_of, -1)


def _reduction_axes(axes, rank):
    axes = [int(a) for a in np.reshape(axes, -1)]
    for a in axes:
        if not -rank <= a < rank:
            raise invalid("Invalid reduction dimension %d, for input with %d dimensions."
                          % (a, rank))
    return sorted({a % rank for a in axes})


def _sparse_reduce(indices, values, shape, reduction_axes, keep_dims, ufunc):
    """(group indices, group values, output shape): the entries combined per kept index."""
    _check_sparse_tensor(indices, values, shape)
    rank = shape.shape[0]
    axes = _reduction_axes(reduction_axes, rank)
    kept = [d for d in range(rank) if d not in axes]
    groups, group_of = _unique_rows(indices[:, kept])
    combined = np.zeros(groups.shape[0], dtype=values.dtype)
    if ufunc is np.maximum:
        combined[:] = _lowest(values.dtype)
    ufunc.at(combined, group_of, values)
    if keep_dims:
        out_shape = np.array([1 if d in axes else shape[d] for d in range(rank)], np.int64)
        out_indices = np.zeros((groups.shape[0], rank), np.int64)
        out_indices[:, kept] = groups
    else:
        out_shape, out_indices = shape[kept].astype(np.int64), groups.astype(np.int64)
    return out_indices, combined, out_shape


def _register_sparse_reduce_kernels(op_type, ufunc, empty_value_of):
    @register_kernel(op_type, "CPU")
    def dense_kernel(ctx, input_indices, input_values, input_shape, reduction_axes, *,
                     keep_dims):
        out_indices, combined, out_shape = _sparse_reduce(
            input_indices, input_values, input_shape, reduction_axes, keep_dims, ufunc)
        output = np.full(tuple(out_shape), empty_value_of(input_values.dtype),
                         dtype=input_values.dtype)
        if out_indices.shape[1] == 0:  # a reduction to a scalar
            output[()] = combined[0] if combined.size else output[()]
        else:
            output[tuple(out_indices.T)] = combined
        return output

    @register_kernel(op_type + "Sparse", "CPU")
    def sparse_kernel(ctx, input_indices, input_values, input_shape, reduction_axes, *,
                      keep_dims):
        return _sparse_reduce(input_indices, input_values, input_shape, reduction_axes,
                              keep_dims, ufunc)

    dense_kernel.__doc__ = "The %s of the entries of each kept index, dense." % ufunc.__name__
    sparse_kernel.__doc__ = "The same, as a SparseTensor of the indices that have entries."


# A reduction over no entries: 0 for a sum, the lowest value for a max.
_register_sparse_reduce_kernels("SparseReduceSum", np.add, lambda dtype: 0)
_register_sparse_reduce_kernels("SparseReduceMax", np.maximum, _lowest)


def _groups_but_last(indices):
    """The group of each entry: the entries that share every index but the last."""
    return _unique_rows(indices[:, :-1])[1]


@register_kernel("SparseSoftmax", "CPU")
def sparse_softmax(ctx, sp_indices, sp_values, sp_shape):
    """A softmax over the entries of each innermost row; the missing ones take no part."""
    _check_sparse_tensor(sp_indices, sp_values, sp_shape)
    if sp_shape.shape[0] < 2:
        raise invalid("Input should have rank >= 2, but received shape: %s"
                      % shape_text(sp_shape))
    if not sp_values.shape[0]:
        return sp_values.copy()
    group_of = _groups_but_last(sp_indices)
    group_max = np.full(group_of.max() + 1, -np.inf, dtype=sp_values.dtype)
    np.maximum.at(group_max, group_of, sp_values)
    exps = np.exp(sp_values - group_max[group_of])
    sums = np.zeros_like(group_max)
    np.add.at(sums, group_of, exps)
    return (exps / sums[group_of]).astype(sp_values.dtype)


@register_kernel("SparseDenseCwiseAdd", "CPU")
def sparse_dense_cwise_add(ctx, sp_indices, sp_values, sp_shape, dense):
    """Each sparse value plus the dense value broadcast to its index."""
    _check_sparse_tensor(sp_indices, sp_values, sp_shape)
    try:
        broadcast = np.broadcast_to(dense, tuple(sp_shape))
    except ValueError:
        raise invalid("SparseDenseBinaryOpShared broadcasts dense to sparse only; got "
                      "incompatible shapes: [%s] vs. %s"
                      % (",".join(str(d) for d in sp_shape), shape_text(dense.shape))) from None
    return (sp_values + broadcast[tuple(sp_indices.T)]).astype(sp_values.dtype)


def _sparse_sparse_extreme(a_indices, a_values, a_shape, b_indices, b_values, b_shape, ufunc):
    """The union of the indices, each value ufunc(a or 0, b or 0), in row-major order."""
    _check_sparse_tensor(a_indices, a_values, a_shape, " a")
    _check_sparse_tensor(b_indices, b_values, b_shape, " b")
    _check_same_dense_shape(a_shape, b_shape)
    union, position = _unique_rows(np.concatenate([a_indices, b_indices], axis=0))
    a_full = np.zeros(union.shape[0], dtype=a_values.dtype)
    b_full = np.zeros(union.shape[0], dtype=b_values.dtype)
    a_full[position[:a_indices.shape[0]]] = a_values
    b_full[position[a_indices.shape[0]:]] = b_values
    return union.astype(np.int64), ufunc(a_full, b_full)


@register_kernel("SparseSparseMaximum", "CPU")
def sparse_sparse_maximum(ctx, a_indices, a_values, a_shape, b_indices, b_values, b_shape):
    """max(a, b) at every index either holds (a missing entry counts as 0)."""
    return _sparse_sparse_extreme(a_indices, a_values, a_shape, b_indices, b_values, b_shape,
                                  np.maximum)


@register_kernel("SparseSparseMinimum", "CPU")
def sparse_sparse_minimum(ctx, a_indices, a_values, a_shape, b_indices, b_values, b_shape):
    """min(a, b) at every index either holds (a missing entry counts as 0)."""
    return _sparse_sparse_extreme(a_indices, a_values, a_shape, b_indices, b_values, b_shape,
                                  np.minimum)


def _slice(indices, values, shape, start, size):
    """The entries inside [start, start + size), shifted to start at 0, and the new shape."""
    end = np.minimum(start + size, shape)
    inside = np.all((indices >= start) & (indices < end), axis=1)
    return (indices[inside] - start, values[inside],
            np.maximum(end - start, 0).astype(np.int64))


@register_kernel("SparseSlice", "CPU")
def sparse_slice(ctx, indices, values, shape, start, size):
    """The entries of the box [start, start + size) (clipped to the dense shape)."""
    _check_sparse_tensor(indices, values, shape)
    if start.shape != shape.shape or size.shape != shape.shape:
        raise invalid("Expected start and size to be vectors of length %d (the rank), got "
                      "%s and %s" % (shape.shape[0], shape_text(start.shape),
                                     shape_text(size.shape)))
    return _slice(indices, values, shape, start, size)


@register_kernel("SparseSliceGrad", "CPU")
def sparse_slice_grad(ctx, backprop_val_grad, input_indices, input_start, output_indices):
    """Each input entry that the slice kept gets its output entry's gradient; the rest 0."""
    position_of = {tuple(index): i for i, index in enumerate(input_indices.tolist())}
    val_grad = np.zeros(input_indices.shape[0], dtype=backprop_val_grad.dtype)
    for k, index in enumerate((output_indices + input_start).tolist()):
        if tuple(index) not in position_of:
            raise invalid("Elements of output_indices + input_start must be in "
                          "input_indices: %s is not" % (index,))
        val_grad[position_of[tuple(index)]] = backprop_val_grad[k]
    return val_grad


@register_kernel("SparseSplit", "CPU")
def sparse_split(ctx, split_dim, indices, values, shape, *, num_split):
    """num_split slices along split_dim; the first (size % num_split) one entry wider."""
    _check_sparse_tensor(indices, values, shape)
    rank = shape.shape[0]
    axis = int(split_dim)
    if not -rank <= axis < rank:
        raise invalid("Input split_dim should be between -%d and %d, got %d"
                      % (rank, rank, axis))
    axis %= rank
    if num_split > shape[axis]:
        raise invalid("Input num_split should be between 1 and %d, got %d"
                      % (shape[axis], num_split))
    width, extra = divmod(int(shape[axis]), num_split)
    pieces, begin = [], 0
    for i in range(num_split):
        start, size = np.zeros(rank, np.int64), shape.astype(np.int64).copy()
        start[axis], size[axis] = begin, width + (i < extra)
        pieces.append(_slice(indices, values, shape, start, size))
        begin += int(size[axis])
    return ([p[0] for p in pieces] + [p[1] for p in pieces] + [p[2] for p in pieces])


# =============================================================================
# DenseCountSparseOutput, SparseCountSparseOutput (tf.sparse.bincount)
# =============================================================================

def _count(batches, values, weights, num_batches, is_1d, minlength, maxlength,
           binary_output, output_type):
    """The counts (or weight sums) of each value per batch, as a SparseTensor's parts.

    The last dimension is max(largest value + 1, minlength), at most
    maxlength; values from maxlength on are not counted.
    """
    if values.size and values.min() < 0:
        raise invalid("Input values must all be non-negative; got %d" % values.min())
    size = max(int(values.max()) + 1 if values.size else 0, minlength)
    if maxlength >= 0:
        size = min(size, maxlength)
        counted = values < maxlength
        batches, values = batches[counted], values[counted]
        weights = weights[counted] if weights.size else weights
    keys, position = _unique_rows(np.stack([batches, values], axis=1).astype(np.int64))
    if binary_output:
        counts = np.ones(keys.shape[0], dtype=output_type)
    else:
        counts = np.zeros(keys.shape[0], dtype=output_type)
        np.add.at(counts, position, weights if weights.size else 1)
    if is_1d:
        return keys[:, 1:], counts, np.array([size], np.int64)
    return keys, counts, np.array([num_batches, size], np.int64)


def _check_count_weights(weights, values):
    if weights.size and weights.shape != values.shape:
        raise invalid("Weights and values must have the same shape. Weight shape: %s; "
                      "values shape: %s" % (shape_text(weights.shape), shape_text(values.shape)))


@register_kernel("DenseCountSparseOutput", "CPU")
def dense_count_sparse_output(ctx, values, weights, *, minlength, maxlength, binary_output,
                              output_type):
    """bincount of a vector, or of each row of a matrix."""
    if values.ndim not in (1, 2):
        raise invalid("Input must be a 1 or 2-dimensional tensor. Got: %s"
                      % shape_text(values.shape))
    _check_count_weights(weights, values)
    is_1d = values.ndim == 1
    rows = values.reshape(1, -1) if is_1d else values
    batches = np.repeat(np.arange(rows.shape[0]), rows.shape[1])
    return _count(batches, rows.reshape(-1), weights.reshape(-1), rows.shape[0], is_1d,
                  minlength, maxlength, binary_output, output_type.as_numpy_dtype)


@register_kernel("SparseCountSparseOutput", "CPU")
def sparse_count_sparse_output(ctx, indices, values, dense_shape, weights, *, minlength,
                               maxlength, binary_output, output_type):
    """bincount of a SparseTensor's values, per row (its first index) when it is a matrix."""
    _check_sparse_tensor(indices, values, dense_shape)
    _check_count_weights(weights, values)
    is_1d = dense_shape.shape[0] == 1
    batches = np.zeros(values.shape[0], np.int64) if is_1d else indices[:, 0]
    return _count(batches, values, weights, 1 if is_1d else int(dense_shape[0]), is_1d,
                  minlength, maxlength, binary_output, output_type.as_numpy_dtype)
