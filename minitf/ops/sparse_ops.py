"""Sparse and segment ops: what feature columns build their lookups from.

A categorical feature arrives as a `SparseTensor` (each example has a few
ids, a different number each) and leaves as one dense row per example. The
ops in between come in three families:

* **Segment reductions** combine the rows of `data` that share a *segment
  id*: `segment_sum(data, [0, 0, 1])` adds rows 0 and 1 into output row 0
  and copies row 2 to output row 1. The `segment_*` ops want the ids
  sorted; the `unsorted_segment_*` ops take them in any order plus the
  number of segments.
* **Sparse segment reductions** first pick rows of `data` by `indices`,
  then reduce them by segment: one op does gather + segment sum, which is
  exactly "look up each example's ids and add the embeddings up".
* **SparseTensor ops** rewrite the three tensors of a SparseTensor:
  densify it (SparseToDense), reshape it (SparseReshape), give every empty
  row one default entry (SparseFillEmptyRows), keep some of its values
  (`sparse_retain`, built from Where and Gather), sort its entries
  (SparseReorder), join several (SparseConcat) or add two (SparseAdd,
  SparseTensorDenseAdd).
* **The rest of `tf.sparse`** multiplies a SparseTensor with a dense matrix
  (SparseTensorDenseMatMul), reduces it (SparseReduceSum/Max, dense or
  sparse), takes a softmax per row (SparseSoftmax), an elementwise max or
  min of two (SparseSparseMaximum/Minimum), cuts it (SparseSlice,
  SparseSplit); and composites rebuild SparseTensors from the ops above
  (from_dense, eye, expand_dims, transpose, merge, to_indicator,
  reset_shape), with TensorFlow's node names. `minitf/sparse.py` exports
  all of them under their `tf.sparse` names.

`tf.nn.embedding_lookup_sparse` (in `minitf/ops/embedding_ops.py`) chains
them: unique ids -> Gather -> SparseSegmentSum/Mean/SqrtN. Kernels live in
`minitf/kernels/cpu/sparse_kernels.py`, gradients in
`minitf/autodiff/sparse_grad.py`.

The OpDefs are in `minitf/framework/op_defs/sparse.py` (TF 1.15: the
segment ids of the sparse segment ops are int32).

Mirrors `tensorflow/python/ops/sparse_ops.py` and the segment functions of
`tensorflow/python/ops/math_ops.py`.
"""

import numbers

import numpy as np

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import sparse_tensor
from minitf.graph import tensor_shape
from minitf.graph.op_def_library import apply_op
from minitf.graph.sparse_tensor import SparseTensor
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.graph.tensor_util import constant_value
from minitf.ops import array_ops
from minitf.ops import check_ops
from minitf.ops import control_flow_ops
from minitf.ops import math_ops

__all__ = [
    # segment reductions
    "segment_sum", "segment_mean", "segment_prod", "segment_max", "segment_min",
    "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
    "sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
    # SparseTensor ops
    "sparse_tensor_to_dense", "sparse_to_dense", "sparse_reshape", "sparse_fill_empty_rows",
    "sparse_retain", "sparse_placeholder", "sparse_reorder", "sparse_concat", "sparse_add",
    "sparse_to_indicator", "sparse_merge", "sparse_transpose", "sparse_reset_shape",
    "sparse_tensor_dense_matmul", "sparse_reduce_sum", "sparse_reduce_sum_sparse",
    "sparse_reduce_max", "sparse_reduce_max_sparse", "sparse_maximum", "sparse_minimum",
    "sparse_softmax", "sparse_slice", "sparse_split",
]


# =============================================================================
# Segment reductions with sorted segment ids
# =============================================================================


def segment_sum(data, segment_ids, name=None):
    """output[i] = the sum of the rows data[j] with segment_ids[j] == i.

    `segment_ids` is a sorted vector with one id per row of `data`; the result
    has `segment_ids[-1] + 1` rows, and a segment no id names is zero.
    Unsorted ids are an InvalidArgumentError at run time.
    """
    return apply_op("SegmentSum", name=name, data=data, segment_ids=segment_ids)


def segment_mean(data, segment_ids, name=None):
    """output[i] = the mean of the rows of segment i (0 for an empty segment)."""
    return apply_op("SegmentMean", name=name, data=data, segment_ids=segment_ids)


def segment_prod(data, segment_ids, name=None):
    """output[i] = the product of the rows of segment i (1 for an empty segment)."""
    return apply_op("SegmentProd", name=name, data=data, segment_ids=segment_ids)


def segment_max(data, segment_ids, name=None):
    """output[i] = the elementwise maximum of the rows of segment i (0 for an empty segment)."""
    return apply_op("SegmentMax", name=name, data=data, segment_ids=segment_ids)


def segment_min(data, segment_ids, name=None):
    """output[i] = the elementwise minimum of the rows of segment i (0 for an empty segment)."""
    return apply_op("SegmentMin", name=name, data=data, segment_ids=segment_ids)


# =============================================================================
# Segment reductions with unsorted segment ids (UnsortedSegmentSum is in math_ops)
# =============================================================================


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """output[i] = the maximum of the slices with id i; the dtype's lowest value if none.

    Like `tf.unsorted_segment_sum`: ids in any order, negative ids dropped.
    """
    return apply_op("UnsortedSegmentMax", name=name, data=data, segment_ids=segment_ids,
                    num_segments=num_segments)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """output[i] = the minimum of the slices with id i; the dtype's highest value if none."""
    return apply_op("UnsortedSegmentMin", name=name, data=data, segment_ids=segment_ids,
                    num_segments=num_segments)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """output[i] = the product of the slices with id i; 1 if none."""
    return apply_op("UnsortedSegmentProd", name=name, data=data, segment_ids=segment_ids,
                    num_segments=num_segments)


# =============================================================================
# Sparse segment reductions: gather rows by `indices`, reduce them by segment
# =============================================================================


def _sparse_segment_reduction(op_type, data, indices, segment_ids, name, num_segments):
    if num_segments is not None:
        return apply_op(op_type + "WithNumSegments", name=name, data=data, indices=indices,
                        segment_ids=segment_ids, num_segments=num_segments)
    return apply_op(op_type, name=name, data=data, indices=indices, segment_ids=segment_ids)


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """output[i] = the sum of data[indices[j]] over the j with segment_ids[j] == i.

    `segment_ids` (int32) is sorted. Without `num_segments` the result has
    `segment_ids[-1] + 1` rows; with it, exactly `num_segments` (the
    *WithNumSegments op), which keeps trailing empty segments.
    """
    return _sparse_segment_reduction("SparseSegmentSum", data, indices, segment_ids, name,
                                     num_segments)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """Like sparse_segment_sum, divided by the number of rows in each segment."""
    return _sparse_segment_reduction("SparseSegmentMean", data, indices, segment_ids, name,
                                     num_segments)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """Like sparse_segment_sum, divided by the square root of each segment's size."""
    return _sparse_segment_reduction("SparseSegmentSqrtN", data, indices, segment_ids, name,
                                     num_segments)


# --- the fused gradients of SparseSegmentMean / SqrtN ---------------------------------


def sparse_segment_mean_grad(grad, indices, segment_ids, output_dim0, name=None):
    """output[indices[j]] += grad[segment_ids[j]] / (size of that segment); output_dim0 rows."""
    return apply_op("SparseSegmentMeanGrad", name=name, grad=grad, indices=indices,
                    segment_ids=segment_ids, output_dim0=output_dim0)


def sparse_segment_sqrt_n_grad(grad, indices, segment_ids, output_dim0, name=None):
    """output[indices[j]] += grad[segment_ids[j]] / sqrt(size of that segment)."""
    return apply_op("SparseSegmentSqrtNGrad", name=name, grad=grad, indices=indices,
                    segment_ids=segment_ids, output_dim0=output_dim0)


# =============================================================================
# SparseTensor ops
# =============================================================================

def _convert_to_sparse_tensor(sp_input):
    """A SparseTensor (a SparseTensorValue becomes one); TypeError for anything else."""
    if isinstance(sp_input, sparse_tensor.SparseTensorValue):
        return sparse_tensor.SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, sparse_tensor.SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


# --- SparseToDense ---------------------------------------------------------------------


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """A dense tensor of `output_shape`: `sparse_values` at `sparse_indices`, the rest default.

    `sparse_indices` is a scalar, a vector (indices into a vector) or an
    [N, rank] matrix; `sparse_values` a scalar (for every index) or one
    value per index. With `validate_indices` the indices must be sorted in
    row-major order, without repeats, and in bounds.
    """
    return apply_op("SparseToDense", name=name, sparse_indices=sparse_indices,
                    output_shape=output_shape, sparse_values=sparse_values,
                    default_value=default_value, validate_indices=validate_indices)


def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices=True, name=None):
    """The dense tensor `sp_input` stands for, `default_value` where it holds nothing."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    return sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values,
                           default_value=default_value, validate_indices=validate_indices,
                           name=name)


# --- SparseReshape ---------------------------------------------------------------------


def sparse_reshape(sp_input, shape, name=None):
    """The SparseTensor `sp_input` with dense shape `shape`, entries in the same row-major order.

    One dimension of `shape` may be -1 and is inferred. When both shapes are
    known while building, a mismatch is a ValueError then.
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    shape = math_ops.cast(shape, dtype=dtypes.int64)
    with ops.name_scope(name, "SparseReshape", [sp_input]) as name:
        reshaped_ind, reshaped_shape = apply_op(
            "SparseReshape", name=name, input_indices=sp_input.indices,
            input_shape=sp_input.dense_shape, new_shape=shape)
        static_shape = _static_reshape(sp_input.get_shape(), constant_value(shape))
        if static_shape is not None:
            reshaped_shape = static_shape
        return sparse_tensor.SparseTensor(reshaped_ind, array_ops.identity(sp_input.values),
                                          reshaped_shape)


def _static_reshape(input_shape, new_shape):
    """`new_shape` with its -1 filled in, checked against `input_shape`; None if unknown."""
    if new_shape is None or not input_shape.is_fully_defined():
        return None
    new_shape = [int(d) for d in np.asarray(new_shape).reshape(-1)]
    if new_shape.count(-1) > 1:
        raise ValueError("At most one dimension can be inferred (-1). Found: %s" % new_shape)
    in_size = int(np.prod(input_shape.as_list(), dtype=np.int64))
    resolved = list(new_shape)
    if -1 in new_shape:
        others = int(np.prod([d for d in new_shape if d != -1], dtype=np.int64))
        resolved[new_shape.index(-1)] = in_size // others if others else 0
    out_size = int(np.prod(resolved, dtype=np.int64))
    if out_size != in_size:
        raise ValueError("Cannot reshape a tensor with %d elements to shape %s (%d elements)."
                         % (in_size, new_shape, out_size))
    return np.array(resolved, dtype=np.int64)


# --- SparseFillEmptyRows ---------------------------------------------------------------


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """(`sp_input` with one `default_value` entry at [row, 0, ...] of each empty row, is-empty).

    The second result is a bool vector, True for the rows that were empty.
    The entries come out sorted by row (within a row, in their input order).
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        output_indices, output_values, empty_row_indicator, _ = apply_op(
            "SparseFillEmptyRows", indices=sp_input.indices, values=sp_input.values,
            dense_shape=sp_input.dense_shape, default_value=default_value)
        return (sparse_tensor.SparseTensor(output_indices, output_values,
                                           sp_input.dense_shape),
                empty_row_indicator)


def sparse_fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """(d_values, d_default_value): the gradient of SparseFillEmptyRows' output values."""
    return apply_op("SparseFillEmptyRowsGrad", name=name, reverse_index_map=reverse_index_map,
                    grad_values=grad_values)


# --- sparse_retain, sparse_placeholder -------------------------------------------------

def sparse_retain(sp_input, to_retain):
    """The entries of `sp_input` where the bool vector `to_retain` is True (same dense shape)."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    to_retain = convert_to_tensor(to_retain)
    retain_shape = to_retain.get_shape()
    retain_shape.assert_has_rank(1)
    sp_input.values.get_shape().dims[0].merge_with(
        tensor_shape.dimension_at_index(retain_shape, 0))
    where_true = array_ops.reshape(math_ops.where(to_retain), [-1])
    new_indices = array_ops.gather(sp_input.indices, where_true)
    new_values = array_ops.gather(sp_input.values, where_true)
    return sparse_tensor.SparseTensor(new_indices, new_values,
                                      array_ops.identity(sp_input.dense_shape))


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor of three placeholders, fed with a SparseTensorValue.

    `shape` (if given, and fully known) fixes `dense_shape` to a constant;
    otherwise dense_shape is a placeholder too. Feed the SparseTensor itself:
    `feed_dict={sp: tf.SparseTensorValue(indices, values, dense_shape)}`.
    """
    shape_name = (name + "/shape") if name is not None else None
    shape, rank = _normalize_sparse_shape(shape, shape_name)
    if shape is None:
        shape = array_ops.placeholder(dtypes.int64, shape=[rank], name=shape_name)
    return sparse_tensor.SparseTensor(
        values=array_ops.placeholder(
            dtype, shape=[None], name=(name + "/values") if name is not None else None),
        indices=array_ops.placeholder(
            dtypes.int64, shape=[None, rank],
            name=(name + "/indices") if name is not None else None),
        dense_shape=shape)


def _normalize_sparse_shape(shape, name):
    """(a dense_shape tensor or None, the rank or None) for sparse_placeholder's `shape`."""
    if shape is None:
        return None, None
    if isinstance(shape, ops.Tensor):
        return shape, tensor_shape.dimension_value(shape.get_shape()[0])
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list()
    rank = len(shape)
    if any(d is None or d == -1 for d in shape):
        return None, rank
    return convert_to_tensor(shape, dtype=dtypes.int64, name=name), rank


# --- SparseReorder ---------------------------------------------------------------------


def sparse_reorder(sp_input, name=None):
    """`sp_input` with its entries sorted in row-major order, as most sparse ops want them."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    reordered_ind, reordered_val = apply_op(
        "SparseReorder", name=name, input_indices=sp_input.indices,
        input_values=sp_input.values, input_shape=sp_input.dense_shape)
    if sp_input.get_shape().is_fully_defined():
        dense_shape = sp_input.get_shape().as_list()
    else:
        dense_shape = array_ops.identity(sp_input.dense_shape)
    return sparse_tensor.SparseTensor(reordered_ind, reordered_val, dense_shape)


# --- SparseConcat ----------------------------------------------------------------------


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """The SparseTensors `sp_inputs` joined along `axis`, entries in row-major order.

    The other dimensions must match, unless `expand_nonconcat_dim`: then each
    input is taken to have the largest size in each of them.
    """
    if concat_dim is not None:
        axis = concat_dim  # the name TF 1.x used first
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    sp_inputs = [_convert_to_sparse_tensor(sp_input) for sp_input in sp_inputs]
    if len(sp_inputs) == 1:  # nothing to join
        return sp_inputs[0]
    inds = [sp_input.indices for sp_input in sp_inputs]
    vals = [sp_input.values for sp_input in sp_inputs]
    shapes = [sp_input.dense_shape for sp_input in sp_inputs]
    if expand_nonconcat_dim:
        shapes = _expanded_shapes(shapes, axis)
    output_ind, output_val, output_shape = apply_op(
        "SparseConcat", name=name, indices=inds, values=vals, shapes=shapes, concat_dim=axis)
    shapes_value = [constant_value(shape) for shape in shapes]
    if all(value is not None for value in shapes_value):
        static_shape = np.array(shapes_value[0], dtype=np.int64)
        static_shape[axis] = sum(int(value[axis]) for value in shapes_value)
        output_shape = static_shape
    return sparse_tensor.SparseTensor(output_ind, output_val, output_shape)


def _expanded_shapes(shapes, axis):
    """Each dense shape with every dimension but `axis` raised to the largest among them."""
    max_shape = math_ops.reduce_max(
        array_ops.concat([array_ops.reshape(shape, [1, -1]) for shape in shapes], 0), 0)
    if axis < 0:
        rank = tensor_shape.dimension_value(shapes[0].shape[0])
        if rank is None:
            raise ValueError("expand_nonconcat_dim with a negative axis needs SparseTensors "
                             "of known rank")
        axis += rank
    return [array_ops.concat([max_shape[:axis], shape[axis:axis + 1], max_shape[axis + 1:]], 0)
            for shape in shapes]


# --- SparseAdd and SparseTensorDenseAdd ------------------------------------------------


def sparse_add(a, b, threshold=None, thresh=None):
    """a + b where at least one is a SparseTensor; the shapes must be equal (no broadcasting).

    Two SparseTensors give a SparseTensor, without the entries whose sum has
    a magnitude below `threshold` (`thresh` is its older name); one
    SparseTensor and one dense Tensor give a dense Tensor.
    """
    if threshold is None:
        threshold = 0 if thresh is None else thresh
    sparse_classes = (sparse_tensor.SparseTensor, sparse_tensor.SparseTensorValue)
    if not any(isinstance(inp, sparse_classes) for inp in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if all(isinstance(inp, sparse_classes) for inp in (a, b)):
        a = _convert_to_sparse_tensor(a)
        b = _convert_to_sparse_tensor(b)
        threshold = convert_to_tensor(threshold, dtype=a.values.dtype.base_dtype,
                                      name="threshold")
        output_ind, output_val, output_shape = apply_op(
            "SparseAdd", a_indices=a.indices, a_values=a.values, a_shape=a.dense_shape,
            b_indices=b.indices, b_values=b.values, b_shape=b.dense_shape, thresh=threshold)
        static_shape = a.get_shape().merge_with(b.get_shape())
        if static_shape.is_fully_defined():
            output_shape = static_shape.as_list()
        return sparse_tensor.SparseTensor(output_ind, output_val, output_shape)
    if isinstance(b, sparse_classes):  # make `a` the SparseTensor
        a, b = b, a
    a = _convert_to_sparse_tensor(a)
    return apply_op("SparseTensorDenseAdd", a_indices=a.indices, a_values=a.values,
                    a_shape=a.dense_shape, b=b)


def sparse_add_grad(backprop_val_grad, a_indices, b_indices, sum_indices, name=None):
    """(a_val_grad, b_val_grad): each operand entry gets the sum's gradient at its index."""
    return apply_op("SparseAddGrad", name=name, backprop_val_grad=backprop_val_grad,
                    a_indices=a_indices, b_indices=b_indices, sum_indices=sum_indices)


# =============================================================================
# Crossing sparse features (what crossed_column hashes its keys with)
# =============================================================================

# The hash key TensorFlow's SparseCross uses when none is given.
_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def sparse_cross(inputs, name=None):
    """The string cross of `inputs`: values joined with "_X_" ("x_X_z")."""
    return _sparse_cross_internal(inputs, hashed_output=False, name=name)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed cross of `inputs` (SparseTensors and dense matrices): int64 ids.

    `num_buckets=0` keeps the whole hash (modulo 2**63 - 1, to stay positive).
    """
    return _sparse_cross_internal(inputs, hashed_output=True, num_buckets=num_buckets,
                                  hash_key=hash_key, name=name)


def _sparse_cross_internal(inputs, hashed_output=False, num_buckets=0, hash_key=None,
                           name=None):
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    for i in inputs:
        if not isinstance(i, SparseTensor) and not hasattr(i, "dtype"):
            raise TypeError("All inputs must be SparseTensors")
    sparse_inputs = [i for i in inputs if isinstance(i, SparseTensor)]
    dense_inputs = [i for i in inputs if not isinstance(i, SparseTensor)]
    # Integers of any width are crossed as int64 (a string and an int64 column may mix).
    values = [_as_int64_unless_string(sp.values) for sp in sparse_inputs]
    dense_inputs = [_as_int64_unless_string(d) for d in dense_inputs]
    internal_type = dtypes.string
    if any(t.dtype != dtypes.string for t in values + dense_inputs):
        internal_type = dtypes.int64
    indices_out, values_out, shape_out = apply_op(
        "SparseCross", name=name,
        indices=[sp.indices for sp in sparse_inputs], values=values,
        shapes=[sp.dense_shape for sp in sparse_inputs], dense_inputs=dense_inputs,
        hashed_output=hashed_output, num_buckets=num_buckets,
        hash_key=_DEFAULT_HASH_KEY if hash_key is None else hash_key,
        out_type=dtypes.int64 if hashed_output else dtypes.string,
        internal_type=internal_type)
    return SparseTensor(indices_out, values_out, shape_out)


def _as_int64_unless_string(tensor):
    if tensor.dtype == dtypes.string:
        return tensor
    if not tensor.dtype.is_integer:
        raise TypeError("SparseCross takes string or integer features, got %s." % tensor.dtype)
    return math_ops.cast(tensor, dtypes.int64)


# =============================================================================
# Composites: SparseTensors rebuilt from the ops above and the dense ones
# =============================================================================

def from_dense(tensor, name=None):
    """The SparseTensor of the entries of `tensor` that are not zero (or "", or False)."""
    with ops.name_scope(name, "dense_to_sparse"):
        tensor = convert_to_tensor(tensor)
        indices = math_ops.where(
            math_ops.not_equal(tensor, array_ops.zeros_like(tensor)))
        values = array_ops.gather_nd(tensor, indices)
        shape = array_ops.shape(tensor, out_type=dtypes.int64)
        return sparse_tensor.SparseTensor(indices, values, shape)


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor, one more dimension of `vocab_size`: True at each row's ids.

    `sp_input` holds int ids (in its last dimension, any number per row);
    out[i, ..., id] is True for the ids of row [i, ...].
    """
    sp_input = _convert_to_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseToIndicator", [sp_input]) as name:
        num_entries = array_ops.shape(sp_input.indices)[0]
        new_values = array_ops.fill(array_ops.expand_dims(num_entries, 0), True)
        sp_values = sparse_tensor.SparseTensor(sp_input.indices, new_values,
                                               sp_input.dense_shape)
        sp_new = _sparse_merge_impl(sp_input, sp_values, vocab_size, name)
        # An id may repeat within a row: repeated indices are fine for an indicator.
        return sparse_tensor_to_dense(sp_new, default_value=False, validate_indices=False,
                                      name=name)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """One SparseTensor from ids and values: entry [..., ids[k]] holds values[k].

    The last dimension of `sp_values` is replaced by one of `vocab_size`
    (a list of ids and sizes makes several). The result is reordered unless
    `already_sorted`.
    """
    return _sparse_merge_impl(sp_ids, sp_values, vocab_size, name, already_sorted)


def _sparse_merge_impl(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    if isinstance(vocab_size, (ops.Tensor, numbers.Integral)):
        vocab_size = [vocab_size]
        sp_ids = [sp_ids]
    if not isinstance(sp_ids, (list, tuple)) or len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size must be lists of the same length.")
    for sp_ids_dim in sp_ids:
        if not isinstance(sp_ids_dim, sparse_tensor.SparseTensor):
            raise TypeError("sp_ids must be a SparseTensor or a list of them.")
    with ops.name_scope(name, "SparseMerge", [sp_ids, sp_values]):
        sp_values = _convert_to_sparse_tensor(sp_values)
        ids = []
        for sp_ids_dim in sp_ids:
            ids_dim = sp_ids_dim.values
            if sp_ids_dim.dtype != dtypes.int64:
                ids_dim = math_ops.cast(ids_dim, dtypes.int64)
            ids += [array_ops.expand_dims(ids_dim, axis=1)]
        vocab_size = [math_ops.cast(x, dtypes.int64) for x in vocab_size]
        # The last index column gives way to the ids.
        indices_columns_to_preserve = sp_values.indices[:, :-1]
        new_indices = array_ops.concat([indices_columns_to_preserve] + ids, 1)
        new_shape = array_ops.concat([sp_values.dense_shape[:-1], vocab_size], 0)
        result = sparse_tensor.SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        sorted_result = sparse_reorder(result)
        return sparse_tensor.SparseTensor(sorted_result.indices, sorted_result.values,
                                          new_shape)


def sparse_expand_dims(sp_input, axis=None, name=None):
    """`sp_input` with a dimension of size 1 inserted at `axis` (default: last)."""
    rank = tensor_shape.dimension_value(sp_input.dense_shape.get_shape()[0])
    if rank is None:
        rank = array_ops.shape(sp_input.dense_shape)[0]
    axis = -1 if axis is None else axis
    with ops.name_scope(name, default_name="expand_dims", values=[sp_input]):
        if isinstance(axis, numbers.Integral):
            axis = convert_to_tensor(axis, name="axis", dtype=dtypes.int32)
        elif not isinstance(axis, ops.Tensor):
            raise TypeError("axis must be an int; got %s" % type(axis).__name__)
        # A negative axis counts from the end of the new rank.
        axis = array_ops.where_v2(axis >= 0, axis, axis + rank + 1)
        column_size = array_ops.shape(sp_input.indices)[0]
        new_index = array_ops.zeros([column_size, 1], dtype=dtypes.int64)
        indices_before = array_ops.slice(sp_input.indices, [0, 0], [-1, axis])
        indices_after = array_ops.slice(sp_input.indices, [0, axis], [-1, -1])
        indices = array_ops.concat([indices_before, new_index, indices_after], axis=1)
        shape_before = sp_input.dense_shape[:axis]
        shape_after = sp_input.dense_shape[axis:]
        new_shape = convert_to_tensor([1], name="new_shape", dtype=dtypes.int64)
        shape = array_ops.concat([shape_before, new_shape, shape_after], axis=0)
        return sparse_tensor.SparseTensor(indices=indices, values=sp_input.values,
                                          dense_shape=shape)


def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """The sparse identity matrix [num_rows, num_columns]: ones on the diagonal."""
    with ops.name_scope(name, default_name="eye", values=[num_rows, num_columns]):
        num_rows = _make_int64_tensor(num_rows, "num_rows")
        num_columns = (num_rows if num_columns is None
                       else _make_int64_tensor(num_columns, "num_columns"))
        diag_size = math_ops.minimum(num_rows, num_columns)
        diag_range = math_ops.range(diag_size, dtype=dtypes.int64)
        return sparse_tensor.SparseTensor(
            indices=array_ops.stack([diag_range, diag_range], axis=1),
            values=array_ops.ones(diag_size, dtype=dtype),
            dense_shape=[num_rows, num_columns])


def _make_int64_tensor(value, name):
    if isinstance(value, numbers.Integral):
        return convert_to_tensor(value, name=name, dtype=dtypes.int64)
    if not isinstance(value, ops.Tensor):
        raise TypeError("%s must be an integer value" % name)
    if value.dtype == dtypes.int64:
        return value
    return math_ops.cast(value, dtypes.int64)


def sparse_transpose(sp_input, perm=None, name=None):
    """`sp_input` with its dimensions permuted by `perm` (default: reversed), reordered."""
    with ops.name_scope(name, "SparseTranspose", [sp_input]) as name:
        if perm is None:
            rank = sp_input.get_shape().ndims
            if rank is not None:
                perm = (rank - 1) - np.arange(0, rank, 1)
            else:
                rank = array_ops.rank(sp_input)
                perm = (rank - 1) - math_ops.range(0, rank, 1)
        indices = sp_input.indices
        transposed_indices = array_ops.transpose(
            array_ops.gather(array_ops.transpose(indices), perm))
        perm_ = constant_value(convert_to_tensor(perm))
        if perm_ is not None and sp_input.get_shape().is_fully_defined():
            old_shape_ = sp_input.get_shape().as_list()
            transposed_dense_shape = [old_shape_[p] for p in perm_]
        else:
            transposed_dense_shape = array_ops.gather(sp_input.dense_shape, perm)
        transposed_st = sparse_tensor.SparseTensor(transposed_indices, sp_input.values,
                                                   transposed_dense_shape)
        return sparse_reorder(transposed_st)


def sparse_reset_shape(sp_input, new_shape=None):
    """`sp_input` with dense shape `new_shape` (no smaller than the old one), or, without
    it, the smallest shape that holds its indices."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    in_indices = array_ops.identity(sp_input.indices)
    in_values = array_ops.identity(sp_input.values)
    in_shape = array_ops.identity(sp_input.dense_shape)
    if new_shape is None:
        dim_low_bound = math_ops.reduce_max(in_indices, axis=0)
        output_shape_tensor = math_ops.maximum(
            convert_to_tensor(0, dtype=dtypes.int64),
            math_ops.add(dim_low_bound, array_ops.ones_like(in_shape)))
    else:
        output_shape_tensor = convert_to_tensor(new_shape)
        output_shape_tensor.get_shape().assert_has_rank(1)
        output_shape_tensor = math_ops.cast(output_shape_tensor, dtypes.int64)
        # Known while building: the rank mismatch is caught now.
        output_shape_tensor.get_shape().dims[0].merge_with(in_shape.get_shape().dims[0])
        output_shape_tensor_const = constant_value(output_shape_tensor)
        if (output_shape_tensor_const is not None
                and sp_input.get_shape().is_fully_defined()):
            in_shape_const = np.array(sp_input.get_shape().as_list())
            if not np.all(in_shape_const <= output_shape_tensor_const):
                raise ValueError(
                    "Requested new_shape should have dimension sizes >= sp_input.shape."
                    "  Found new_shape (%s), sp_input.shape (%s)."
                    % (in_shape_const, output_shape_tensor_const))
            output_shape_tensor = output_shape_tensor_const
        else:
            # Known only when it runs: asserts check it then.
            output_shape_tensor = control_flow_ops.with_dependencies([
                check_ops.assert_equal(array_ops.shape(in_shape),
                                       array_ops.shape(output_shape_tensor))],
                output_shape_tensor)
            output_shape_tensor = control_flow_ops.with_dependencies(
                [check_ops.assert_less_equal(in_shape, output_shape_tensor)],
                output_shape_tensor)
    return sparse_tensor.SparseTensor(in_indices, in_values, output_shape_tensor)


# =============================================================================
# The tf.sparse ops: products, reductions, softmax, extremes, slices
# =============================================================================

def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """op(sp_a) @ op(b) for a 2-D SparseTensor and a dense matrix: a dense matrix.

    `adjoint_a`/`adjoint_b` transpose (and conjugate) an operand first.
    """
    sp_a = _convert_to_sparse_tensor(sp_a)
    with ops.name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]):
        b = convert_to_tensor(b, name="b")
        return apply_op("SparseTensorDenseMatMul", a_indices=sp_a.indices,
                        a_values=sp_a.values, a_shape=sp_a.dense_shape, b=b,
                        adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def _sparse_reduction_dims(sp_input, axis):
    """`axis`, or every dimension of `sp_input` when it is None (TF's _ReductionDims)."""
    if axis is not None:
        return axis
    rank = tensor_shape.dimension_value(sp_input.dense_shape.get_shape()[0])
    if rank is not None:
        return convert_to_tensor(np.arange(rank, dtype=np.int32))
    return math_ops.range(0, array_ops.size(sp_input.dense_shape))


def _sparse_reduce(op_type, sp_input, axis, keepdims, reduction_axes, keep_dims):
    """The outputs of `op_type` over `axis` (or its older name `reduction_axes`)."""
    if reduction_axes is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_axes'")
        axis = reduction_axes
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
        keepdims = keep_dims
    sp_input = _convert_to_sparse_tensor(sp_input)
    return apply_op(op_type, input_indices=sp_input.indices, input_values=sp_input.values,
                    input_shape=sp_input.dense_shape,
                    reduction_axes=_sparse_reduction_dims(sp_input, axis),
                    keep_dims=bool(keepdims))


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None):
    """The sum of the entries of `sp_input` over `axis` (default: all): a dense tensor.

    Missing entries count as 0; `keepdims` keeps the reduced dimensions with size 1.
    """
    return _sparse_reduce("SparseReduceSum", sp_input, axis, keepdims, reduction_axes,
                          keep_dims)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None):
    """The max of the entries of `sp_input` over `axis` (default: all): a dense tensor.

    Only the entries take part (missing ones are not 0 here); an index no
    entry reduces into gets the lowest value of the dtype.
    """
    return _sparse_reduce("SparseReduceMax", sp_input, axis, keepdims, reduction_axes,
                          keep_dims)


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None):
    """sparse_reduce_sum as a SparseTensor: only the indices some entry was summed into."""
    return sparse_tensor.SparseTensor(*_sparse_reduce(
        "SparseReduceSumSparse", sp_input, axis, keepdims, reduction_axes, keep_dims))


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None):
    """sparse_reduce_max as a SparseTensor: only the indices some entry reduced into."""
    return sparse_tensor.SparseTensor(*_sparse_reduce(
        "SparseReduceMaxSparse", sp_input, axis, keepdims, reduction_axes, keep_dims))


def sparse_softmax(sp_input, name=None):
    """A softmax over the entries of each innermost row of `sp_input` (rank >= 2).

    The missing entries take no part (they are not zeros with weight e^0).
    """
    with ops.name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]):
        out_vals = apply_op("SparseSoftmax", sp_indices=sp_input.indices,
                            sp_values=sp_input.values, sp_shape=sp_input.dense_shape)
        return sparse_tensor.SparseTensor(sp_input.indices, out_vals, sp_input.dense_shape)


def sparse_dense_cwise_add(sp_t, dense_t, name=None):
    """The values of `sp_t` plus `dense_t` broadcast to its dense shape, at its indices."""
    return apply_op("SparseDenseCwiseAdd", name=name, sp_indices=sp_t.indices,
                    sp_values=sp_t.values, sp_shape=sp_t.dense_shape, dense=dense_t)


def _sparse_sparse_extreme(op_type, sp_a, sp_b, name):
    with ops.name_scope(name, op_type, [sp_a.indices, sp_a.values, sp_b.indices,
                                        sp_b.values]) as name:
        out_indices, out_values = apply_op(
            op_type, name=name, a_indices=sp_a.indices, a_values=sp_a.values,
            a_shape=sp_a.dense_shape, b_indices=sp_b.indices, b_values=sp_b.values,
            b_shape=sp_b.dense_shape)
    return sparse_tensor.SparseTensor(out_indices, out_values, sp_a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """The elementwise max of two SparseTensors of one shape (a missing entry is 0)."""
    return _sparse_sparse_extreme("SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a, sp_b, name=None):
    """The elementwise min of two SparseTensors of one shape (a missing entry is 0)."""
    return _sparse_sparse_extreme("SparseSparseMinimum", sp_a, sp_b, name)


def sparse_slice(sp_input, start, size, name=None):
    """The entries of `sp_input` in the box [start, start + size), shifted to start at 0."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    start = convert_to_tensor(start, dtypes.int64)
    size = convert_to_tensor(size, dtypes.int64)
    with ops.name_scope(name, "SparseSlice", [sp_input]) as name:
        output_indices, output_values, output_shape = apply_op(
            "SparseSlice", name=name, indices=sp_input.indices, values=sp_input.values,
            shape=sp_input.dense_shape, start=start, size=size)
        return sparse_tensor.SparseTensor(output_indices, output_values, output_shape)


def sparse_slice_grad(backprop_val_grad, input_indices, input_start, output_indices,
                      name=None):
    """The gradient of SparseSlice's values: each kept input entry gets its output's."""
    return apply_op("SparseSliceGrad", name=name, backprop_val_grad=backprop_val_grad,
                    input_indices=input_indices, input_start=input_start,
                    output_indices=output_indices)


class _KeywordRequired:
    """The default of sparse_split's first parameter: its arguments must be keywords."""

    def __repr__(self):
        return ""


def sparse_split(keyword_required=_KeywordRequired(), sp_input=None, num_split=None,
                 axis=None, name=None, split_dim=None):
    """`num_split` SparseTensors: `sp_input` cut along `axis` into nearly equal slices.

    The first (size % num_split) slices are one wider. Keyword arguments only.
    """
    if not isinstance(keyword_required, _KeywordRequired):
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if split_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'split_dim'")
        axis = split_dim
    if axis is None:
        raise ValueError("axis is required")
    sp_input = _convert_to_sparse_tensor(sp_input)
    outputs = apply_op("SparseSplit", name=name, split_dim=axis,
                       indices=sp_input.indices, values=sp_input.values,
                       shape=sp_input.dense_shape, num_split=num_split)
    return [sparse_tensor.SparseTensor(outputs[i], outputs[num_split + i],
                                       outputs[2 * num_split + i]) for i in range(num_split)]


# =============================================================================
# Counting: tf.sparse.bincount (TensorFlow's bincount_ops.py)
# =============================================================================

def bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
             binary_output=False, name=None):
    """How often each value occurs in `values` (a SparseTensor or a dense int tensor).

    The result is a SparseTensor: with `axis=0` one count vector for all
    values, with `axis=-1` one per row of a matrix. `weights` (like
    `values`) sums weights instead of counting; `binary_output` gives 1 for
    every value that occurs. The count vector is max(largest value + 1,
    `minlength`) long, at most `maxlength`.
    """
    with ops.name_scope(name, "count", [values, weights]):
        if not isinstance(values, sparse_tensor.SparseTensor):
            values = convert_to_tensor(values, name="values")
        if weights is not None and not isinstance(weights, sparse_tensor.SparseTensor):
            weights = convert_to_tensor(weights, name="weights")
        if weights is not None and binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually "
                             "exclusive. Please specify only one.")
        axis = 0 if axis is None else axis
        if axis not in [0, -1]:
            raise ValueError("Unsupported value for argument axis=%s. Only 0 and -1 are "
                             "currently supported." % axis)
        minlength_value = minlength if minlength is not None else -1
        maxlength_value = maxlength if maxlength is not None else -1
        if axis == 0:
            if isinstance(values, sparse_tensor.SparseTensor):
                weights = _sparse_weights(values, weights)
                values = values.values
            else:
                if weights is not None:
                    weights = array_ops.reshape(weights, [-1])
                values = array_ops.reshape(values, [-1])
        if isinstance(values, sparse_tensor.SparseTensor):
            c_ind, c_val, c_shape = apply_op(
                "SparseCountSparseOutput", indices=values.indices, values=values.values,
                dense_shape=values.dense_shape, weights=_sparse_weights(values, weights),
                minlength=minlength_value, maxlength=maxlength_value,
                binary_output=binary_output)
        else:
            c_ind, c_val, c_shape = apply_op(
                "DenseCountSparseOutput", values=values,
                weights=_dense_weights(values, weights), minlength=minlength_value,
                maxlength=maxlength_value, binary_output=binary_output)
        return sparse_tensor.SparseTensor(c_ind, c_val, c_shape)


def _dense_weights(values, weights):
    """The weights as the kernel takes them: none is an empty vector of the values' dtype."""
    if weights is None:
        return convert_to_tensor([], dtype=values.dtype)
    if isinstance(weights, sparse_tensor.SparseTensor):
        raise ValueError("`weights` must be a dense tensor when `values` is dense.")
    return weights


def _sparse_weights(values, weights):
    """The values of a SparseTensor of weights, which must have the same indices as values."""
    if weights is None:
        return convert_to_tensor([], dtype=values.values.dtype)
    if not isinstance(weights, sparse_tensor.SparseTensor):
        raise ValueError("`weights` must be a SparseTensor if `values` is a SparseTensor.")
    return weights.values


# --- a SparseTensor as strings: tf.io.serialize_sparse and friends ------------------------------

def serialize_sparse(sp_input, name=None, out_type=dtypes.string):
    """A [3] vector: the SparseTensor's indices, values and shape, each a TensorProto's bytes."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    return apply_op("SerializeSparse", name=name, sparse_indices=sp_input.indices,
                    sparse_values=sp_input.values, sparse_shape=sp_input.dense_shape,
                    out_type=out_type)


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string):
    """[rows, 3]: each row of the first dimension serialized as by serialize_sparse."""
    sp_input = _convert_to_sparse_tensor(sp_input)
    return apply_op("SerializeManySparse", name=name, sparse_indices=sp_input.indices,
                    sparse_values=sp_input.values, sparse_shape=sp_input.dense_shape,
                    out_type=out_type)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """One SparseTensor from [rows, 3] serialized ones, the rows its first dimension."""
    output_indices, output_values, output_shape = apply_op(
        "DeserializeManySparse", name=name, serialized_sparse=serialized_sparse, dtype=dtype)
    output_indices.set_shape([None, rank])
    output_shape.set_shape([rank])
    return SparseTensor(output_indices, output_values, output_shape)
