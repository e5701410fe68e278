"""Gradients of the segment reductions and the SparseTensor ops.

A segment reduction sends each output row's gradient back to the rows that
made it: a sum copies it to each of them (Gather by segment id), a mean
divides it by the segment size first, a max or min gives it to the rows
that were the extreme (shared evenly between ties), a product multiplies
it by the product of the other rows. The sparse segment ops add one step:
the rows were *gathered* by `indices` first, so the gradient is summed back
per index (UnsortedSegmentSum, or the fused SparseSegmentMeanGrad and
SparseSegmentSqrtNGrad ops) into a tensor shaped like `data`. Flowing on
into the Gather of an embedding lookup, it becomes the IndexedSlices the
optimizer applies to the touched rows only.

A SparseTensor's values get gradients; its indices and dense shape do not.

Mirrors the segment gradients of `tensorflow/python/ops/math_grad.py` and
`tensorflow/python/ops/sparse_grad.py` (SparseToDense, SparseFillEmptyRows,
SparseReorder, SparseAdd, SparseTensorDenseAdd, SparseTensorDenseMatMul,
SparseReduceSum, SparseSoftmax, SparseSlice).
"""

from minitf.autodiff.registry import NotDifferentiable
from minitf.autodiff.registry import RegisterGradient
from minitf.graph import constant_op
from minitf.graph import dtypes
from minitf.graph import sparse_tensor
from minitf.ops import array_ops
from minitf.ops import math_ops
from minitf.ops import sparse_ops

# Index and shape outputs, and the fused gradient ops themselves. SparseConcat
# (like TF, which leaves its values gradient unwritten) also stops backprop.
for _op_type in ("SparseReshape", "SparseFillEmptyRowsGrad", "SparseSegmentMeanGrad",
                 "SparseSegmentSqrtNGrad", "SparseAddGrad", "SparseConcat"):
    NotDifferentiable(_op_type)
NotDifferentiable("SparseCross")  # ids have no gradient


# =============================================================================
# Segment reductions with sorted ids
# =============================================================================

@RegisterGradient("SegmentSum")
def _segment_sum_grad(op, grad):
    """Every row of a segment gets the segment's gradient."""
    return array_ops.gather(grad, op.inputs[1]), None


@RegisterGradient("SegmentMean")
def _segment_mean_grad(op, grad):
    """Every row of a segment gets the segment's gradient divided by the segment size."""
    input_rank = array_ops.rank(op.inputs[0])
    ones_shape = array_ops.concat([
        array_ops.shape(op.inputs[1]),
        array_ops.fill(array_ops.expand_dims(input_rank - 1, 0), 1)], 0)
    ones = array_ops.fill(ones_shape, constant_op.constant(1, dtype=grad.dtype))
    scaled_grad = math_ops.divide(grad, sparse_ops.segment_sum(ones, op.inputs[1]))
    return array_ops.gather(scaled_grad, op.inputs[1]), None


@RegisterGradient("SegmentMax")
def _segment_max_grad(op, grad):
    return _segment_min_or_max_grad(op, grad)


@RegisterGradient("SegmentMin")
def _segment_min_grad(op, grad):
    return _segment_min_or_max_grad(op, grad)


def _segment_min_or_max_grad(op, grad):
    """The rows equal to their segment's extreme share its gradient evenly; the rest get 0."""
    zeros = array_ops.zeros_like(op.inputs[0], dtype=op.inputs[0].dtype)
    gathered_outputs = array_ops.gather(op.outputs[0], op.inputs[1])
    is_selected = math_ops.equal(op.inputs[0], gathered_outputs)
    num_selected = sparse_ops.segment_sum(math_ops.cast(is_selected, grad.dtype), op.inputs[1])
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads = array_ops.gather(weighted_grads, op.inputs[1])
    return math_ops.where(is_selected, gathered_grads, zeros), None


@RegisterGradient("SegmentProd")
def _segment_prod_grad(op, grad):
    """d(prod)/d(x) = the product of the segment's other rows, computed without dividing by 0.

    A segment without zeros: prod / x. With exactly one zero: the product of
    the non-zero rows for the zero row, 0 for the others. With two zeros or
    more: 0 everywhere.
    """
    data, segment_ids = op.inputs[0], op.inputs[1]
    is_zero = math_ops.equal(data, 0)
    num_zeros = sparse_ops.segment_sum(math_ops.cast(is_zero, dtypes.int32), segment_ids)
    grad = math_ops.where(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = math_ops.where(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = sparse_ops.segment_prod(non_zero_data, segment_ids)
    gathered_prod = array_ops.gather(op.outputs[0], segment_ids)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, segment_ids)
    prod_divided_by_el = gathered_prod / non_zero_data
    partial_derivative = math_ops.where(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    return array_ops.gather(grad, segment_ids) * partial_derivative, None


# =============================================================================
# Segment reductions with unsorted ids: negative ids dropped their slices
# =============================================================================

def _gather_drop_negatives(params, ids, zero_clipped_indices=None, is_positive=None):
    """(params[ids] with zeros where ids < 0, the ids clipped at 0, the id >= 0 mask).

    The mask is broadcast to the gathered shape, so Select can use it; pass
    the last two back in to gather again with the same ids.
    """
    if zero_clipped_indices is None:
        zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped_indices)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, 0)
        is_positive_shape = array_ops.shape(is_positive)
        broadcastable_shape = array_ops.concat(
            [is_positive_shape,
             array_ops.ones([array_ops.rank(gathered) - array_ops.rank(is_positive)],
                            dtype=is_positive_shape.dtype)], axis=0)
        is_positive = array_ops.reshape(is_positive, broadcastable_shape)
        is_positive = math_ops.logical_and(
            is_positive, array_ops.ones_like(gathered, dtype=dtypes.bool))
    zero_slice = array_ops.zeros_like(gathered)
    return (math_ops.where(is_positive, gathered, zero_slice), zero_clipped_indices,
            is_positive)


def _unsorted_segment_min_or_max_grad(op, grad):
    gathered_outputs, zero_clipped_indices, is_positive = _gather_drop_negatives(
        op.outputs[0], op.inputs[1])
    is_selected = math_ops.equal(op.inputs[0], gathered_outputs)
    is_selected = math_ops.logical_and(is_selected, is_positive)
    num_selected = math_ops.unsorted_segment_sum(
        math_ops.cast(is_selected, grad.dtype), op.inputs[1], op.inputs[2])
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads, _, _ = _gather_drop_negatives(weighted_grads, None, zero_clipped_indices,
                                                  is_positive)
    zeros = array_ops.zeros_like(gathered_grads)
    return math_ops.where(is_selected, gathered_grads, zeros), None, None


@RegisterGradient("UnsortedSegmentMax")
def _unsorted_segment_max_grad(op, grad):
    return _unsorted_segment_min_or_max_grad(op, grad)


@RegisterGradient("UnsortedSegmentMin")
def _unsorted_segment_min_grad(op, grad):
    return _unsorted_segment_min_or_max_grad(op, grad)


@RegisterGradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op, grad):
    """As SegmentProd's; the slices of negative ids get 0 (the gather drops them)."""
    data, segment_ids, num_segments = op.inputs
    is_zero = math_ops.equal(data, 0)
    num_zeros = math_ops.unsorted_segment_sum(math_ops.cast(is_zero, dtypes.int32),
                                              segment_ids, num_segments)
    grad = math_ops.where(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = math_ops.where(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = sparse_ops.unsorted_segment_prod(non_zero_data, segment_ids, num_segments)
    zero_clipped_indices = math_ops.maximum(segment_ids, array_ops.zeros_like(segment_ids))
    gathered_prod = array_ops.gather(op.outputs[0], zero_clipped_indices)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, zero_clipped_indices)
    prod_divided_by_el = gathered_prod / non_zero_data
    partial_derivative = math_ops.where(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = _gather_drop_negatives(grad, segment_ids, zero_clipped_indices)[0]
    return gathered_grad * partial_derivative, None, None


# =============================================================================
# Sparse segment reductions: the gradient goes back to the rows `indices` read
# =============================================================================

def _data_rows(op):
    return array_ops.shape(op.inputs[0])[0]


def _sparse_segment_sum_grad(op, grad):
    """Each gathered row gets its segment's gradient, summed per index into data's shape."""
    data_grad = math_ops.unsorted_segment_sum(array_ops.gather(grad, op.inputs[2]),
                                              op.inputs[1], _data_rows(op))
    return [data_grad] + [None] * (len(op.inputs) - 1)


def _sparse_segment_mean_grad(op, grad):
    data_grad = sparse_ops.sparse_segment_mean_grad(grad, op.inputs[1], op.inputs[2],
                                                    _data_rows(op))
    return [data_grad] + [None] * (len(op.inputs) - 1)


def _sparse_segment_sqrt_n_grad(op, grad):
    data_grad = sparse_ops.sparse_segment_sqrt_n_grad(grad, op.inputs[1], op.inputs[2],
                                                      _data_rows(op))
    return [data_grad] + [None] * (len(op.inputs) - 1)


for _op_type, _grad_fn in (("SparseSegmentSum", _sparse_segment_sum_grad),
                           ("SparseSegmentMean", _sparse_segment_mean_grad),
                           ("SparseSegmentSqrtN", _sparse_segment_sqrt_n_grad)):
    RegisterGradient(_op_type)(_grad_fn)
    RegisterGradient(_op_type + "WithNumSegments")(_grad_fn)


# =============================================================================
# SparseTensor ops
# =============================================================================

@RegisterGradient("SparseToDense")
def _sparse_to_dense_grad(op, grad):
    """The values get the gradient at their positions; the default value all the rest."""
    sparse_indices, output_shape, sparse_values, _ = op.inputs
    # One index per row, whether the indices came as a scalar, a vector or a matrix.
    index_rows = array_ops.reshape(sparse_indices, array_ops.stack(
        [-1, array_ops.size(output_shape, out_type=sparse_indices.dtype)]))
    values_grad = array_ops.gather_nd(grad, index_rows)
    default_value_grad = math_ops.reduce_sum(grad) - math_ops.reduce_sum(values_grad)
    if sparse_values.shape.ndims == 0:  # one value written at every index
        values_grad = math_ops.reduce_sum(values_grad)
    return [None, None, values_grad, default_value_grad]


@RegisterGradient("SparseFillEmptyRows")
def _sparse_fill_empty_rows_grad(op, unused_grad_output_indices, output_grad_values,
                                 unused_grad_empty_row_indicator,
                                 unused_grad_reverse_index_map):
    """Input value i went to output position reverse_index_map[i]; the defaults filled the rest."""
    reverse_index_map = op.outputs[3]
    d_values, d_default_value = sparse_ops.sparse_fill_empty_rows_grad(
        reverse_index_map=reverse_index_map, grad_values=output_grad_values)
    return [None, d_values, None, d_default_value]


@RegisterGradient("SparseReorder")
def _sparse_reorder_grad(op, unused_output_indices_grad, output_values_grad):
    """Sorting moved input entry i to some position p: i gets the gradient at p.

    The permutation is recovered by reordering the entry numbers 0..N-1 the
    same way and inverting the result.
    """
    input_indices, _, input_shape = op.inputs
    num_entries = array_ops.shape(input_indices)[0]
    entry_indices = math_ops.range(num_entries)
    sp_unordered = sparse_tensor.SparseTensor(input_indices, entry_indices, input_shape)
    sp_ordered = sparse_ops.sparse_reorder(sp_unordered)
    inverted_permutation = array_ops.invert_permutation(sp_ordered.values)
    return None, array_ops.gather(output_values_grad, inverted_permutation), None


@RegisterGradient("SparseAdd")
def _sparse_add_grad(op, *grads):
    """Each operand's entries get the gradient of the sum entry at the same index."""
    val_grad = grads[1]
    a_indices, b_indices, sum_indices = op.inputs[0], op.inputs[3], op.outputs[0]
    a_val_grad, b_val_grad = sparse_ops.sparse_add_grad(val_grad, a_indices, b_indices,
                                                        sum_indices)
    a_val_grad.set_shape(op.inputs[1].get_shape())
    b_val_grad.set_shape(op.inputs[4].get_shape())
    # (a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh)
    return None, a_val_grad, None, None, b_val_grad, None, None


@RegisterGradient("SparseTensorDenseAdd")
def _sparse_tensor_dense_add_grad(op, out_grad):
    """The dense operand gets all of the gradient; each sparse value its position's."""
    sp_indices = op.inputs[0]
    return None, array_ops.gather_nd(out_grad, sp_indices), None, out_grad


# =============================================================================
# The tf.sparse ops
# =============================================================================

# Max reductions, splits and counts: TF declares them not differentiable.
for _op_type in ("SparseReduceMax", "SparseReduceMaxSparse", "SparseReduceSumSparse",
                 "SparseSplit", "SparseSliceGrad", "DenseCountSparseOutput",
                 "SparseCountSparseOutput"):
    NotDifferentiable(_op_type)


def _gradient_not_implemented(op_type):
    """A gradient that refuses, as TensorFlow's does for `op_type`: backprop through the op
    is an error, not a silent zero."""
    def refuse(op, *grads):
        raise NotImplementedError("Gradient for %s is not implemented." % op_type)

    RegisterGradient(op_type)(refuse)


for _op_type in ("SparseSparseMaximum", "SparseSparseMinimum", "SparseDenseCwiseAdd"):
    _gradient_not_implemented(_op_type)


@RegisterGradient("SparseTensorDenseMatMul")
def _sparse_tensor_dense_mat_mul_grad(op, grad):
    """b gets op(a)^T @ grad; each value a[i, k] the dot of grad's row i and op(b)'s row k."""
    a_indices, _, a_shape = op.inputs[:3]
    b = op.inputs[3]
    adj_a = op.get_attr("adjoint_a")
    adj_b = op.get_attr("adjoint_b")
    b_grad = sparse_ops.sparse_tensor_dense_matmul(
        sparse_tensor.SparseTensor(a_indices, op.inputs[1], a_shape), grad,
        adjoint_a=not adj_a)
    if adj_b:
        b_grad = array_ops.transpose(b_grad)
    rows = a_indices[:, 0]
    cols = a_indices[:, 1]
    parts_a = array_ops.gather(grad, rows if not adj_a else cols)
    parts_b = array_ops.gather(b if not adj_b else array_ops.transpose(b),
                               cols if not adj_a else rows)
    a_values_grad = math_ops.reduce_sum(parts_a * parts_b, axis=1)
    return None, a_values_grad, None, b_grad


@RegisterGradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op, out_grad):
    """Each entry gets the gradient of the output index it was summed into."""
    sp_indices = op.inputs[0]
    sp_shape = op.inputs[2]
    output_shape_kept_dims = math_ops.reduced_shape(sp_shape, op.inputs[3])
    out_grad_reshaped = array_ops.reshape(out_grad, output_shape_kept_dims)
    scale = sp_shape // math_ops.cast(output_shape_kept_dims, dtypes.int64)
    return None, array_ops.gather_nd(out_grad_reshaped, sp_indices // scale), None, None


@RegisterGradient("SparseSoftmax")
def _sparse_softmax_grad(op, grad):
    """softmax's gradient per innermost row: (grad - sum(grad * out)) * out."""
    indices, shape = op.inputs[0], op.inputs[2]
    out_vals = op.outputs[0]
    sp_output = sparse_tensor.SparseTensor(indices, out_vals, shape)
    sp_grad = sparse_tensor.SparseTensor(indices, grad, shape)
    sp_product = sparse_tensor.SparseTensor(indices, sp_output.values * sp_grad.values, shape)
    sum_reduced = -sparse_ops.sparse_reduce_sum(sp_product, [-1], keepdims=True)
    sp_sum = sparse_ops.sparse_dense_cwise_add(sp_grad, sum_reduced)
    return None, sp_sum * sp_output.values, None


@RegisterGradient("SparseSlice")
def _sparse_slice_grad(op, *grads):
    """The kept input entries get their output entries' gradients."""
    backprop_val_grad = grads[1]
    input_indices, input_start = op.inputs[0], op.inputs[3]
    output_indices = op.outputs[0]
    val_grad = sparse_ops.sparse_slice_grad(backprop_val_grad, input_indices, input_start,
                                            output_indices)
    return None, val_grad, None, None, None
