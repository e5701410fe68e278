"""The OpDefs of the sparse and segment ops, and their shape functions.

Segment reductions (sorted and unsorted ids), sparse segment reductions
(rows picked by `indices`, then reduced by segment), the SparseTensor ops
(SparseToDense, SparseReshape, SparseReorder, SparseConcat, SparseAdd, ...),
the rest of `tf.sparse` (SparseTensorDenseMatMul, SparseReduceSum/Max,
SparseSoftmax, SparseSparseMaximum/Minimum, SparseSlice, SparseSplit) and
SparseCross, which the crossed feature column hashes its keys with.

The front end reads these OpDefs to type and check a new Operation (the
constructors users call are in `minitf/ops/sparse_ops.py`); the runtime reads
them to know what a node takes and gives (the kernels are in
`minitf/kernels/cpu/sparse_kernels.py`).

Mirrors `tensorflow/core/ops/sparse_ops.cc` and the segment ops of
`tensorflow/core/ops/math_ops.cc`.
"""

from minitf.framework.common_shapes import (merge_dim_in_shapes, merge_dims,
                                            shape_from_shape_tensor, with_rank,
                                            with_rank_at_least)
from minitf.framework.op_def import register_op
from minitf.framework.op_defs.math import unsorted_segment_shape
from minitf.graph import tensor_shape
from minitf.graph.tensor_util import constant_value

# The dtypes each op accepts: TF's lists, less those minitf does not have.
_REALS = "{float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
_INDEX = "{int32, int64}"


# =============================================================================
# Shape-function helpers
# =============================================================================


def _rows_of(data_shape):
    """The shape of one row of `data`: everything after dimension 0 (unknown rank: unknown)."""
    data_shape = with_rank_at_least(data_shape, 1)
    if data_shape.ndims is None:
        return None
    return data_shape[1:]


def _segments_shape(num_segments, data_shape):
    """[num_segments] + data.shape[1:], the shape of every (sparse) segment reduction."""
    row = _rows_of(data_shape)
    if row is None:
        return tensor_shape.unknown_shape()
    return tensor_shape.TensorShape([num_segments]).concatenate(row)


def _scalar_value(tensor, what):
    """The build-time value of a scalar int input (num_segments, output_dim0), or None."""
    with_rank(tensor.shape, 0)
    value = constant_value(tensor)
    if value is None:
        return None
    if int(value) < 0:
        raise ValueError("%s must be non-negative but is %d" % (what, int(value)))
    return int(value)


# =============================================================================
# Segment reductions with sorted segment ids
# =============================================================================

def _segment_shape(op):
    """[?] + data.shape[1:]: the number of segments is the last id + 1, known only at run time."""
    with_rank(op.inputs[1].shape, 1)
    return [_segments_shape(None, op.inputs[0].shape)]


for _op_type, _types in (("SegmentSum", _REALS), ("SegmentMean", _REALS),
                         ("SegmentProd", _REALS), ("SegmentMax", _REALS),
                         ("SegmentMin", _REALS)):
    register_op(_op_type).input("data: T").input("segment_ids: Tindices").output(
        "output: T").attr("T: %s" % _types).attr("Tindices: %s" % _INDEX).set_shape_fn(
        _segment_shape)


# =============================================================================
# Segment reductions with unsorted segment ids (UnsortedSegmentSum is in math_ops)
# =============================================================================

for _op_type in ("UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"):
    register_op(_op_type).input("data: T").input("segment_ids: Tindices").input(
        "num_segments: Tnumsegments").output("output: T").attr("T: %s" % _REALS).attr(
        "Tindices: %s" % _INDEX).attr("Tnumsegments: %s = int32" % _INDEX).set_shape_fn(
        unsorted_segment_shape)


# =============================================================================
# Sparse segment reductions: gather rows by `indices`, reduce them by segment
# =============================================================================

def _sparse_segment_shape(op):
    """indices and segment_ids: vectors of one length; output [num_segments?] + row."""
    indices = with_rank(op.inputs[1].shape, 1)
    segment_ids = with_rank(op.inputs[2].shape, 1)
    merge_dim_in_shapes(indices[0], segment_ids[0], 0, indices, segment_ids)
    num_segments = None
    if len(op.inputs) == 4:
        num_segments = _scalar_value(op.inputs[3], "num_segments")
    return [_segments_shape(num_segments, op.inputs[0].shape)]


def _register_sparse_segment_op(op_type, types):
    register_op(op_type).input("data: T").input("indices: Tidx").input(
        "segment_ids: int32").output("output: T").attr("T: %s" % types).attr(
        "Tidx: %s = int32" % _INDEX).set_shape_fn(_sparse_segment_shape)
    register_op(op_type + "WithNumSegments").input("data: T").input("indices: Tidx").input(
        "segment_ids: int32").input("num_segments: Tnumsegments").output("output: T").attr(
        "T: %s" % types).attr("Tidx: %s = int32" % _INDEX).attr(
        "Tnumsegments: %s = int32" % _INDEX).set_shape_fn(_sparse_segment_shape)


_register_sparse_segment_op("SparseSegmentSum", _REALS)
_register_sparse_segment_op("SparseSegmentMean", "{float32, float64}")
_register_sparse_segment_op("SparseSegmentSqrtN", "{float32, float64}")


def _sparse_segment_grad_shape(op):
    """[output_dim0] + grad.shape[1:]."""
    indices = with_rank(op.inputs[1].shape, 1)
    segment_ids = with_rank(op.inputs[2].shape, 1)
    merge_dim_in_shapes(indices[0], segment_ids[0], 0, indices, segment_ids)
    output_dim0 = _scalar_value(op.inputs[3], "output_dim0")
    return [_segments_shape(output_dim0, op.inputs[0].shape)]


for _op_type in ("SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad"):
    register_op(_op_type).input("grad: T").input("indices: Tidx").input(
        "segment_ids: int32").input("output_dim0: int32").output("output: T").attr(
        "T: {float32, float64}").attr("Tidx: %s = int32" % _INDEX).set_shape_fn(
        _sparse_segment_grad_shape)


# =============================================================================
# SparseTensor ops
# =============================================================================

def _sparse_to_dense_shape(op):
    """The shape `output_shape` describes (TF's MakeShapeFromShapeTensor)."""
    output_shape = op.inputs[1]
    if output_shape.shape.ndims == 0:  # a scalar output_shape: a vector of that length
        length = constant_value(output_shape)
        return [tensor_shape.TensorShape([None if length is None else int(length)])]
    return [shape_from_shape_tensor(output_shape)]


register_op("SparseToDense").input("sparse_indices: Tindices").input(
    "output_shape: Tindices").input("sparse_values: T").input("default_value: T").output(
    "dense: T").attr("validate_indices: bool = true").attr("T: type").attr(
    "Tindices: %s" % _INDEX).set_shape_fn(_sparse_to_dense_shape)


def _sparse_reshape_shape(op):
    """output_indices: [N, len(new_shape)]; output_shape: like new_shape."""
    indices = with_rank(op.inputs[0].shape, 2)
    with_rank(op.inputs[1].shape, 1)
    new_shape = with_rank(op.inputs[2].shape, 1)
    return [tensor_shape.TensorShape([indices[0], new_shape[0]]), new_shape]


register_op("SparseReshape").input("input_indices: int64").input("input_shape: int64").input(
    "new_shape: int64").output("output_indices: int64").output("output_shape: int64").set_shape_fn(
    _sparse_reshape_shape)


def _sparse_fill_empty_rows_shape(op):
    indices = with_rank(op.inputs[0].shape, 2)
    values = with_rank(op.inputs[1].shape, 1)
    dense_shape = with_rank(op.inputs[2].shape, 1)
    with_rank(op.inputs[3].shape, 0)
    n = merge_dim_in_shapes(indices[0], values[0], 0, indices, values)
    merge_dim_in_shapes(indices[1], dense_shape[0], 1, indices, dense_shape)
    rank = tensor_shape.dimension_value(dense_shape[0])
    known_shape = shape_from_shape_tensor(op.inputs[2])
    num_rows = known_shape[0] if known_shape.ndims else None
    return [tensor_shape.TensorShape([None, rank]),
            tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([num_rows]),
            tensor_shape.TensorShape([n])]


register_op("SparseFillEmptyRows").input("indices: int64").input("values: T").input(
    "dense_shape: int64").input("default_value: T").output("output_indices: int64").output(
    "output_values: T").output("empty_row_indicator: bool").output(
    "reverse_index_map: int64").attr("T: type").set_shape_fn(_sparse_fill_empty_rows_shape)


def _sparse_fill_empty_rows_grad_shape(op):
    reverse_index_map = with_rank(op.inputs[0].shape, 1)
    with_rank(op.inputs[1].shape, 1)
    return [reverse_index_map, tensor_shape.TensorShape([])]


register_op("SparseFillEmptyRowsGrad").input("reverse_index_map: int64").input(
    "grad_values: T").output("d_values: T").output("d_default_value: T").attr(
    "T: type").set_shape_fn(_sparse_fill_empty_rows_grad_shape)


def _sparse_reorder_shape(op):
    indices = with_rank(op.inputs[0].shape, 2)
    values = with_rank(op.inputs[1].shape, 1)
    with_rank(op.inputs[2].shape, 1)
    return [indices, values]


register_op("SparseReorder").input("input_indices: int64").input("input_values: T").input(
    "input_shape: int64").output("output_indices: int64").output("output_values: T").attr(
    "T: type").set_shape_fn(_sparse_reorder_shape)


def _sparse_concat_shape(op):
    """Rows add up over the inputs; the index columns and the dense-shape length must agree."""
    n = op.get_attr("N")
    first_indices = with_rank(op.inputs[0].shape, 2)
    first_shape = with_rank(op.inputs[2 * n].shape, 1)
    rows = 0
    for i in range(n):
        indices = with_rank(op.inputs[i].shape, 2)
        values = with_rank(op.inputs[n + i].shape, 1)
        dense_shape = with_rank(op.inputs[2 * n + i].shape, 1)
        count = merge_dim_in_shapes(indices[0], values[0], 0, indices, values)
        rows = None if rows is None or count is None else rows + count
        columns = merge_dim_in_shapes(first_indices[1], indices[1], 1, first_indices, indices)
        shape_length = merge_dim_in_shapes(first_shape[0], dense_shape[0], 0, first_shape,
                                           dense_shape)
    return [tensor_shape.TensorShape([rows, columns]), tensor_shape.TensorShape([rows]),
            tensor_shape.TensorShape([shape_length])]


register_op("SparseConcat").input("indices: N * int64").input("values: N * T").input(
    "shapes: N * int64").output("output_indices: int64").output("output_values: T").output(
    "output_shape: int64").attr("concat_dim: int").attr("N: int >= 2").attr(
    "T: type").set_shape_fn(_sparse_concat_shape)


def _sparse_add_shape(op):
    a_shape = with_rank(op.inputs[2].shape, 1)
    with_rank(op.inputs[0].shape, 2)
    with_rank(op.inputs[3].shape, 2)
    with_rank(op.inputs[6].shape, 0)
    return [tensor_shape.TensorShape([None, a_shape[0]]), tensor_shape.TensorShape([None]),
            a_shape]


register_op("SparseAdd").input("a_indices: int64").input("a_values: T").input(
    "a_shape: int64").input("b_indices: int64").input("b_values: T").input(
    "b_shape: int64").input("thresh: Treal").output("sum_indices: int64").output(
    "sum_values: T").output("sum_shape: int64").attr("T: %s" % _REALS).attr(
    "Treal: %s" % _REALS).set_shape_fn(_sparse_add_shape)


def _sparse_add_grad_shape(op):
    a_indices = with_rank(op.inputs[1].shape, 2)
    b_indices = with_rank(op.inputs[2].shape, 2)
    return [tensor_shape.TensorShape([a_indices[0]]), tensor_shape.TensorShape([b_indices[0]])]


register_op("SparseAddGrad").input("backprop_val_grad: T").input("a_indices: int64").input(
    "b_indices: int64").input("sum_indices: int64").output("a_val_grad: T").output(
    "b_val_grad: T").attr("T: %s" % _REALS).set_shape_fn(_sparse_add_grad_shape)


def _sparse_tensor_dense_add_shape(op):
    return [op.inputs[3].shape]


register_op("SparseTensorDenseAdd").input("a_indices: Tindices").input("a_values: T").input(
    "a_shape: Tindices").input("b: T").output("output: T").attr("T: %s" % _REALS).attr(
    "Tindices: %s" % _INDEX).set_shape_fn(_sparse_tensor_dense_add_shape)


def _sparse_cross_shape(op):
    return [tensor_shape.TensorShape([None, 2]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([2])]


register_op("SparseCross").input("indices: N * int64").input("values: sparse_types").input(
    "shapes: N * int64").input("dense_inputs: dense_types").output(
    "output_indices: int64").output("output_values: out_type").output(
    "output_shape: int64").attr("N: int >= 0").attr("hashed_output: bool").attr(
    "num_buckets: int >= 0").attr("hash_key: int").attr(
    "sparse_types: list(type) >= 0").attr("dense_types: list(type) >= 0").attr(
    "out_type: {int64, string}").attr("internal_type: {int64, string}").set_shape_fn(
    _sparse_cross_shape)


# =============================================================================
# The tf.sparse family: products, reductions, softmax, elementwise extremes, slices
# =============================================================================

_FLOATS = "{float16, float32, float64}"


def _sparse_tensor_dense_mat_mul_shape(op):
    """[rows of op(a), columns of op(b)]: a's rows known only from a constant a_shape."""
    with_rank(op.inputs[0].shape, 2)
    with_rank(op.inputs[1].shape, 1)
    with_rank(op.inputs[2].shape, 1)
    b = with_rank(op.inputs[3].shape, 2)
    a_shape = shape_from_shape_tensor(op.inputs[2])
    if a_shape.ndims is not None and a_shape.ndims != 2:
        raise ValueError("Shape must be rank 2 but is rank %d for '%s' (op: '%s')"
                         % (a_shape.ndims, op.name, op.type))
    a_rows, a_cols = (a_shape[0], a_shape[1]) if a_shape.ndims == 2 else (None, None)
    if op.get_attr("adjoint_a"):
        a_rows, a_cols = a_cols, a_rows
    b_rows, b_cols = b[0], b[1]
    if op.get_attr("adjoint_b"):
        b_rows, b_cols = b_cols, b_rows
    merge_dims(a_cols, b_rows)
    return [tensor_shape.TensorShape([a_rows, b_cols])]


register_op("SparseTensorDenseMatMul").input("a_indices: Tindices").input("a_values: T").input(
    "a_shape: int64").input("b: T").output("product: T").attr("T: type").attr(
    "Tindices: {int32, int64} = int64").attr("adjoint_a: bool = false").attr(
    "adjoint_b: bool = false").set_shape_fn(_sparse_tensor_dense_mat_mul_shape)


def _sparse_reduce_dense_shape(op):
    """The reduced dense shape when the shape and the axes are constants, else unknown."""
    for i, rank in ((0, 2), (1, 1), (2, 1)):
        with_rank(op.inputs[i].shape, rank)
    shape, axes = constant_value(op.inputs[2]), constant_value(op.inputs[3])
    if shape is None or axes is None:
        return [tensor_shape.unknown_shape()]
    rank = len(shape)
    axes = {int(a) % rank if -rank <= int(a) < rank else int(a) for a in axes.reshape(-1)}
    if any(not 0 <= a < rank for a in axes):
        raise ValueError("Invalid reduction dimension %s for input with %d dimensions "
                         "for '%s' (op: '%s')" % (sorted(axes), rank, op.name, op.type))
    keep_dims = op.get_attr("keep_dims")
    return [tensor_shape.TensorShape([1 if d in axes else int(n) for d, n in enumerate(shape)
                                      if keep_dims or d not in axes])]


def _sparse_reduce_sparse_shape(op):
    for i, rank in ((0, 2), (1, 1), (2, 1)):
        with_rank(op.inputs[i].shape, rank)
    return [tensor_shape.TensorShape([None, None]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([None])]


def _register_sparse_reduce(op_type, types):
    register_op(op_type).input("input_indices: int64").input("input_values: T").input(
        "input_shape: int64").input("reduction_axes: int32").output("output: T").attr(
        "keep_dims: bool = false").attr("T: %s" % types).set_shape_fn(
        _sparse_reduce_dense_shape)
    register_op(op_type + "Sparse").input("input_indices: int64").input(
        "input_values: T").input("input_shape: int64").input("reduction_axes: int32").output(
        "output_indices: int64").output("output_values: T").output("output_shape: int64").attr(
        "keep_dims: bool = false").attr("T: %s" % types).set_shape_fn(
        _sparse_reduce_sparse_shape)


_register_sparse_reduce("SparseReduceSum", _REALS)
_register_sparse_reduce("SparseReduceMax", _REALS)


def _sparse_values_shape(op):
    """The values of the first SparseTensor: one per index row."""
    indices = with_rank(op.inputs[0].shape, 2)
    values = with_rank(op.inputs[1].shape, 1)
    with_rank(op.inputs[2].shape, 1)
    return [tensor_shape.TensorShape([merge_dim_in_shapes(indices[0], values[0], 0, indices,
                                                          values)])]


register_op("SparseSoftmax").input("sp_indices: int64").input("sp_values: T").input(
    "sp_shape: int64").output("output: T").attr("T: %s" % _FLOATS).set_shape_fn(
    _sparse_values_shape)

register_op("SparseDenseCwiseAdd").input("sp_indices: int64").input("sp_values: T").input(
    "sp_shape: int64").input("dense: T").output("output: T").attr("T: %s" % _REALS).set_shape_fn(
    _sparse_values_shape)


def _sparse_sparse_extreme_shape(op):
    for i, rank in ((0, 2), (1, 1), (2, 1), (3, 2), (4, 1), (5, 1)):
        with_rank(op.inputs[i].shape, rank)
    return [tensor_shape.TensorShape([None, op.inputs[0].shape[1]]),
            tensor_shape.TensorShape([None])]


for _op_type in ("SparseSparseMaximum", "SparseSparseMinimum"):
    register_op(_op_type).input("a_indices: int64").input("a_values: T").input(
        "a_shape: int64").input("b_indices: int64").input("b_values: T").input(
        "b_shape: int64").output("output_indices: int64").output("output_values: T").attr(
        "T: %s" % _REALS).set_shape_fn(_sparse_sparse_extreme_shape)


def _sparse_slice_shape(op):
    """As many index columns and as long a dense shape as the input; the entries unknown."""
    indices = with_rank(op.inputs[0].shape, 2)
    for i in (1, 3, 4):
        with_rank(op.inputs[i].shape, 1)
    dense_shape = with_rank(op.inputs[2].shape, 1)
    return [tensor_shape.TensorShape([None, indices[1]]), tensor_shape.TensorShape([None]),
            dense_shape]


register_op("SparseSlice").input("indices: int64").input("values: T").input(
    "shape: int64").input("start: int64").input("size: int64").output(
    "output_indices: int64").output("output_values: T").output("output_shape: int64").attr(
    "T: type").set_shape_fn(_sparse_slice_shape)


def _sparse_slice_grad_shape(op):
    return [tensor_shape.TensorShape([with_rank(op.inputs[1].shape, 2)[0]])]


register_op("SparseSliceGrad").input("backprop_val_grad: T").input(
    "input_indices: int64").input("input_start: int64").input("output_indices: int64").output(
    "val_grad: T").attr("T: %s" % _REALS).set_shape_fn(_sparse_slice_grad_shape)


def _sparse_split_shape(op):
    with_rank(op.inputs[0].shape, 0)
    indices = with_rank(op.inputs[1].shape, 2)
    with_rank(op.inputs[2].shape, 1)
    dense_shape = with_rank(op.inputs[3].shape, 1)
    num_split = op.get_attr("num_split")
    return ([tensor_shape.TensorShape([None, indices[1]])] * num_split
            + [tensor_shape.TensorShape([None])] * num_split + [dense_shape] * num_split)


register_op("SparseSplit").input("split_dim: int64").input("indices: int64").input(
    "values: T").input("shape: int64").output("output_indices: num_split * int64").output(
    "output_values:  num_split * T").output("output_shape: num_split * int64").attr(
    "num_split: int >= 1").attr("T: type").set_shape_fn(_sparse_split_shape)


def _count_sparse_output_shape(op):
    """[N, rank] indices (rank: 1, or 2 for batches), N values, a dense shape of `rank`."""
    values = op.inputs[0] if op.type == "DenseCountSparseOutput" else op.inputs[2]
    rank = values.shape.ndims if op.type == "DenseCountSparseOutput" else None
    if rank is None and op.type == "SparseCountSparseOutput":
        rank = tensor_shape.dimension_value(with_rank(op.inputs[0].shape, 2)[1])
    if rank is not None and rank not in (1, 2):
        raise ValueError("Shape must be rank 1 or 2 but is rank %d for '%s' (op: '%s')"
                         % (rank, op.name, op.type))
    return [tensor_shape.TensorShape([None, rank]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([rank])]


_COUNT_ATTRS = ("T: {int32, int64}", "minlength: int >= -1 = -1", "maxlength: int >= -1 = -1",
                "binary_output: bool", "output_type: {int32, int64, float32, float64}")
_dense_count = register_op("DenseCountSparseOutput").input("values: T").input(
    "weights: output_type")
_sparse_count = register_op("SparseCountSparseOutput").input("indices: int64").input(
    "values: T").input("dense_shape: int64").input("weights: output_type")
for _builder in (_dense_count, _sparse_count):
    for _attr in _COUNT_ATTRS:
        _builder.attr(_attr)
    _builder.output("output_indices: int64").output("output_values: output_type").output(
        "output_dense_shape: int64").set_shape_fn(_count_sparse_output_shape)
