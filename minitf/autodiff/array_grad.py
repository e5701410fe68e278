"""Gradients of the array ops: reshaping, joining, slicing, gathering, padding.

Almost every array op only *moves* values, so its gradient moves the
incoming gradient back to where each value came from: a Reshape's gradient
is a Reshape to the input's shape, a Transpose's is the inverse Transpose,
a Concat's is one Slice per input, a Slice's is a Pad with zeros, a Pad's is
a Slice. Where one input value fed several output positions (Tile, a mirror
pad, a gather with repeated indices), the gradients of those positions are
summed.

The gradient of a gather along axis 0 stays *sparse*: an
`IndexedSlices(values, indices, dense_shape)` saying "these rows of params
get these gradients", so that an embedding lookup of 10 ids in a table of a
million rows never builds a million-row gradient. Identity passes it through
untouched (a variable is read through an Identity, its `read` op), so it
reaches the optimizer as rows; ops that need a dense gradient (Reshape,
ExpandDims, ...) convert it with `indexed_slices_to_dense`.

The ops TensorFlow declares non-differentiable (Shape, Const, OneHot, the
state ops that assign to variables, ...) are declared here with
`NotDifferentiable`: backprop stops there silently.

Each function receives the forward Operation and the gradient of each of its
outputs, adds ops computing the gradients of its inputs (under the
`gradients/<op name>_grad/` scope tf.gradients opens), and returns one
gradient, or None, per input.

Mirrors `tensorflow/python/ops/array_grad.py` (and `state_grad.py` for the
state ops, `data_flow_grad.py` for the two data-flow ops of partitioned
embedding lookups).
"""

from minitf.autodiff.gradients_impl import indexed_slices_to_dense
from minitf.autodiff.registry import NotDifferentiable, RegisterGradient
from minitf.graph import constant_op
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.sparse_tensor import IndexedSlices
from minitf.ops import array_ops
from minitf.ops import embedding_ops
from minitf.ops import math_ops
from minitf.ops import numerics


# =============================================================================
# Identities: the gradient passes through unchanged (sparse ones too)
# =============================================================================

@RegisterGradient("Identity")
def _identity_grad(_, grad):
    return grad


@RegisterGradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(_, grad):
    return grad


@RegisterGradient("IdentityN")
def _identity_n_grad(_, *grads):
    return grads


# The whole point of tf.stop_gradient.
NotDifferentiable("StopGradient")


@RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op, _):
    """An error: the op marks a value whose gradient would be wrong (say, a second
    derivative a fused kernel cannot give)."""
    message = op.get_attr("message")
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    raise LookupError("Gradient explicitly disabled. Reason: %s" % message)


# =============================================================================
# Reshaping: Reshape, ExpandDims, Squeeze, Transpose
# =============================================================================

def _reshaped_to_input(op, grad):
    """`grad` (made dense) in the shape of the op's first input."""
    return array_ops.reshape(indexed_slices_to_dense(grad), array_ops.shape(op.inputs[0]))


@RegisterGradient("Reshape")
def _reshape_grad(op, grad):
    return [_reshaped_to_input(op, grad), None]


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op, grad):
    return [_reshaped_to_input(op, grad), None]


@RegisterGradient("Squeeze")
def _squeeze_grad(op, grad):
    return _reshaped_to_input(op, grad)


@RegisterGradient("Transpose")
def _transpose_grad(op, grad):
    """Undo the permutation: transpose by its inverse."""
    perm = op.inputs[1]
    return [array_ops.transpose(grad, array_ops.invert_permutation(perm)), None]


@RegisterGradient("Diag")
def _diag_grad(op, grad):
    """Only the diagonal entries came from the input: the gradient's diagonal."""
    return array_ops.diag_part(grad)


@RegisterGradient("DiagPart")
def _diag_part_grad(op, grad):
    """Each output entry is one diagonal entry of the input; the rest get zero."""
    return array_ops.diag(grad)


# =============================================================================
# Joining and splitting: ConcatV2, Pack, Unpack, Split, SplitV, Tile
# =============================================================================

@RegisterGradient("Pack")
def _pack_grad(op, grad):
    """Stacking's gradient is unstacking: one slice of `grad` per input."""
    return array_ops.unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


@RegisterGradient("Unpack")
def _unpack_grad(op, *grads):
    return array_ops.stack(grads, axis=op.get_attr("axis"))


@RegisterGradient("Split")
def _split_grad(op, *grads):
    """The pieces' gradients joined back along the split axis (input 0 is that axis)."""
    return None, array_ops.concat(list(grads), op.inputs[0])


@RegisterGradient("SplitV")
def _split_v_grad(op, *grads):
    return [array_ops.concat(list(grads), op.inputs[2]), None, None]


@RegisterGradient("ConcatV2")
def _concat_v2_grad(op, grad):
    """Each input's gradient is its own block of `grad`, cut out at the input's offset.

    ConcatOffset computes where each input starts along the concat axis; one
    Slice per input then cuts its block out. A sparse `grad` is split into
    sparse pieces instead.
    """
    values, concat_dim = op.inputs[:-1], op.inputs[-1]
    # concat_dim was checked against [-rank, rank) when the op ran; % makes it non-negative.
    # (ConcatOffset takes an int32 axis; the op's axis may be int64.)
    non_neg_concat_dim = math_ops.cast(concat_dim, dtypes.int32) % array_ops.rank(values[0])
    if isinstance(grad, IndexedSlices):
        value_grads = _concat_grad_of_indexed_slices(values, concat_dim, non_neg_concat_dim,
                                                     grad)
    else:
        sizes = _input_shapes(values)
        offsets = array_ops.concat_offset(non_neg_concat_dim, sizes)
        value_grads = [array_ops.slice(grad, begin, size) for begin, size in zip(offsets, sizes)]
    return value_grads + [None]


def _input_shapes(values):
    """The shapes of `values`: constants when all are known, else one ShapeN op."""
    if all(v.shape.is_fully_defined() for v in values):
        return [array_ops.shape(v) for v in values]
    return array_ops.shape_n(values)


def _concat_grad_of_indexed_slices(values, concat_dim, non_neg_concat_dim, grad):
    """Splits a sparse gradient of a concat into one IndexedSlices per input.

    Along axis 0 each input keeps the rows that fall in its range (shifted
    to start at 0); along another axis every input keeps all the rows, with
    its own columns of the values.
    """
    static_dim = tensor_util.constant_value(concat_dim)
    if static_dim is None:
        raise ValueError("Can only compute IndexedSlices gradient with statically-known "
                         "concat_dim")
    static_dim = int(static_dim)
    if static_dim < 0:
        rank = values[0].shape.ndims
        if rank is None:
            raise ValueError("Can only compute IndexedSlices gradient with negative concat_dim "
                             "when first value rank is statically-known.")
        static_dim %= rank
    sizes = [array_ops.shape(v) for v in values]
    result = []
    if static_dim > 0:
        mask, begin = _concat_axis_mask_and_begin(sizes, non_neg_concat_dim)
        for size in sizes:
            columns = array_ops.concat([[-1], array_ops.slice(size, [1], [-1])], 0)
            new_values = array_ops.slice(grad.values, begin, columns)
            result.append(IndexedSlices(new_values, grad.indices, size))
            begin = math_ops.add(begin, size * mask)
        return result
    start = constant_op.constant(0, dtype=grad.indices.dtype)
    for size in sizes:
        rows = array_ops.gather(size, non_neg_concat_dim)
        if rows.dtype != grad.indices.dtype:
            rows = math_ops.cast(rows, grad.indices.dtype)
        end = start + rows
        in_range = math_ops.logical_and(grad.indices >= start, grad.indices < end)
        selected = array_ops.squeeze(math_ops.where(in_range), axis=[1])
        new_indices = array_ops.gather(grad.indices, selected) - start
        new_values = array_ops.gather(grad.values, selected)
        result.append(IndexedSlices(new_values, new_indices, size))
        start = end
    return result


def _concat_axis_mask_and_begin(sizes, concat_dim):
    """A vector with a 1 at concat_dim and 0 elsewhere, and a zero begin vector."""
    shape_of_shape = array_ops.shape(sizes[0])
    mask = array_ops.concat([
        array_ops.zeros(array_ops.expand_dims(concat_dim, 0), dtype=dtypes.int32),
        [1],
        array_ops.zeros(shape_of_shape - concat_dim - 1, dtype=dtypes.int32),
    ], 0)
    begin = array_ops.zeros(shape_of_shape, dtype=dtypes.int32)
    return mask, begin


@RegisterGradient("Tile")
def _tile_grad(op, grad):
    """Sums the gradient over the copies: reshape to [m0, d0, m1, d1, ...], sum the m axes.

    E.g. input shape [20, 30, 40] tiled by [2, 3, 4]: the gradient of shape
    [40, 90, 160] is viewed as [2, 20, 3, 30, 4, 40] and summed over axes 0, 2, 4.
    """
    multiples = op.inputs[1]
    input_shape = array_ops.shape(op.inputs[0], out_type=multiples.dtype)
    split_shape = array_ops.reshape(
        array_ops.transpose(array_ops.stack([multiples, input_shape])), [-1])
    axes = math_ops.range(0, array_ops.size(split_shape), 2)
    if isinstance(grad, IndexedSlices):
        # Rows i, i + d0, i + 2*d0, ... are copies of input row i: sum them first.
        rows = math_ops.cast(input_shape[0], grad.indices.dtype)
        grad = math_ops.unsorted_segment_sum(grad.values, math_ops.floormod(grad.indices, rows),
                                             rows)
        split_shape = array_ops.concat([[1], split_shape[1:]], axis=0)
    input_grad = math_ops.reduce_sum(array_ops.reshape(grad, split_shape), axes)
    input_grad.set_shape(op.inputs[0].shape)
    return [input_grad, None]


# =============================================================================
# Padding: Pad, PadV2, MirrorPad (and MirrorPadGrad)
# =============================================================================

def _pad_grad(op, grad):
    """Padding's gradient slices the original block out: begin = the `before` paddings."""
    x, paddings = op.inputs[0], op.inputs[1]
    pad_before = array_ops.slice(paddings, [0, 0], array_ops.stack([array_ops.rank(x), 1]))
    begin = array_ops.reshape(pad_before, [-1])
    sizes = array_ops.shape(x, out_type=begin.dtype)
    x_grad = array_ops.slice(grad, begin, sizes)
    # TensorFlow gives PadV2's constant_values no gradient either.
    return (x_grad, None, None) if len(op.inputs) == 3 else (x_grad, None)


RegisterGradient("Pad")(_pad_grad)
RegisterGradient("PadV2")(_pad_grad)


@RegisterGradient("MirrorPad")
def _mirror_pad_grad(op, grad):
    """Each mirrored border adds its gradient back onto the values it copied."""
    return [array_ops.mirror_pad_grad(grad, op.inputs[1], mode=op.get_attr("mode")), None]


@RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op, grad):
    """MirrorPadGrad is linear; its adjoint is MirrorPad itself."""
    return [array_ops.pad(grad, op.inputs[1], mode=op.get_attr("mode")), None]


# =============================================================================
# Slicing: Slice, StridedSlice (and StridedSliceGrad), ReverseV2
# =============================================================================

@RegisterGradient("Slice")
def _slice_grad(op, grad):
    """Pads the slice's gradient with zeros back to the input's shape.

    before = begin, after = input shape - slice shape - begin, as a [rank, 2]
    paddings matrix.
    """
    x, begin = op.inputs[0], op.inputs[1]
    index_dtype = begin.dtype
    slice_size = array_ops.shape(op.outputs[0], out_type=index_dtype)
    column = array_ops.stack([array_ops.rank(x), 1])
    before = array_ops.reshape(begin, column)
    after = array_ops.reshape(
        array_ops.shape(x, out_type=index_dtype) - slice_size - begin, column)
    paddings = array_ops.concat([before, after], 1)
    return array_ops.pad(grad, paddings), None, None


def _strided_slice_masks(op):
    return {name: op.get_attr(name) for name in ("begin_mask", "end_mask", "ellipsis_mask",
                                                 "new_axis_mask", "shrink_axis_mask")}


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op, grad):
    """Writes the gradient into zeros of the input's shape, where the slice came from."""
    begin, end, strides = op.inputs[1:4]
    # StridedSliceGrad wants its shape in the same integer type as begin/end/strides.
    x_shape = array_ops.shape(op.inputs[0], out_type=begin.dtype)
    x_grad = array_ops.strided_slice_grad(x_shape, begin, end, strides, grad,
                                          **_strided_slice_masks(op))
    return x_grad, None, None, None


@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    """StridedSliceGrad scatters dy into zeros; its adjoint slices the same place back out."""
    begin, end, strides = op.inputs[1:4]
    dy_grad = array_ops.strided_slice(grad, begin, end, strides, **_strided_slice_masks(op))
    return None, None, None, None, dy_grad


@RegisterGradient("ReverseV2")
def _reverse_v2_grad(op, grad):
    return array_ops.reverse(grad, op.inputs[1]), None


# =============================================================================
# Gathering: GatherV2, GatherNd, ScatterNd
# =============================================================================

@RegisterGradient("GatherV2")
def _gather_v2_grad(op, grad):
    """Along axis 0: a sparse gradient, the rows `indices` of params get the values of `grad`.

    Repeated indices stay repeated (the rows are summed when the gradient is
    made dense or applied). Along another axis, the gathered axis is moved
    to the front, the gradient is summed per index (UnsortedSegmentSum)
    into a dense tensor, and the axis is moved back.
    """
    params = op.inputs[0]
    with ops.colocate_with(params):  # params may be huge: ask its device for the shape
        params_shape = array_ops.shape(params)
    indices = op.inputs[1]
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    axis = op.inputs[2]
    batch_dims = int(op.get_attr("batch_dims"))
    if batch_dims < 0:
        batch_dims += indices.shape.ndims

    if tensor_util.constant_value(axis) == 0:
        values_shape = array_ops.concat([indices_size, params_shape[1:]], 0)
        values = array_ops.reshape(indexed_slices_to_dense(grad), values_shape)
        # TF folds values_shape to a constant where it can; the static shape says the same.
        values.set_shape(tensor_shape.TensorShape([indices.shape.num_elements()]).concatenate(
            params.shape[1:]))
        flat_indices = array_ops.reshape(indices, indices_size)
        return [IndexedSlices(values, flat_indices, params_shape), None, None]

    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = array_ops.concat([outer_shape, [-1], inner_shape], 0)
    values_dims = array_ops.size(values_shape)
    axis_dims = array_ops.size(outer_shape)

    outer_batch_axes = math_ops.range(batch_dims)
    batch_to_axis_axes = math_ops.range(batch_dims, axis_dims)
    inner_axes = math_ops.range(axis_dims + 1, values_dims)

    values = array_ops.reshape(indexed_slices_to_dense(grad), values_shape)
    # Move values[axis] up to values[batch_dims], the first non-batch dimension.
    transpose_dims = array_ops.concat(
        [outer_batch_axes, [axis_dims], batch_to_axis_axes, inner_axes], 0)
    values_transposed = array_ops.transpose(values, transpose_dims)
    params_shape_transposed = array_ops.gather(params_shape, transpose_dims)
    params_grad = _batch_gather_grad(params_shape_transposed, values_transposed, indices,
                                     batch_dims, params_shape[axis])
    # Move dimension batch_dims back to where `axis` was.
    invert_transpose_dims = array_ops.concat(
        [outer_batch_axes, batch_to_axis_axes + 1, [batch_dims], inner_axes], 0)
    return [array_ops.transpose(params_grad, invert_transpose_dims), None, None]


def _batch_gather_grad(params_shape, values, indices, batch_dims, gather_dim_size):
    """The dense gradient of a gather whose gathered axis is the first non-batch one.

    With batch dimensions, the batches are flattened into the gathered axis
    (each batch's indices offset past the previous batches' rows), summed
    per index, and unflattened.
    """
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    if batch_dims:
        values_shape = array_ops.shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = math_ops.reduce_prod(outer_shape, [0])
        flat_values_shape = array_ops.concat([[-1], inner_shape], 0)
        gather_dim_size *= batch_size
        indices = _batch_offset_indices(params_shape, indices, batch_dims)
        values = array_ops.reshape(values, flat_values_shape)

    indices = array_ops.reshape(indices, indices_size)
    params_grad = math_ops.unsorted_segment_sum(values, indices, gather_dim_size)

    if batch_dims:
        params_grad = array_ops.reshape(
            params_grad, array_ops.concat([outer_shape, flat_values_shape], 0))
    return params_grad


def _batch_offset_indices(params_shape, indices, batch_dims):
    """`indices` plus, for each batch position, the offset of its batch in the flattened axis."""
    indices_rank = indices.shape.ndims
    if indices_rank is None:
        raise ValueError("The gradient of tf.gather with batch_dims needs indices of known "
                         "rank")
    index_dtype = indices.dtype.base_dtype
    dims = math_ops.cast(params_shape, index_dtype)
    batch_indices = indices
    stride = array_ops.ones((), dtype=index_dtype)
    for dim in range(batch_dims, 0, -1):
        dim_size = dims[dim - 1]
        stride *= dims[dim]
        offsets = math_ops.range(dim_size) * stride
        broadcast_shape = array_ops.stack([1] * (dim - 1) + [dim_size]
                                          + [1] * (indices_rank - dim), axis=0)
        batch_indices += array_ops.reshape(offsets, broadcast_shape)
    return batch_indices


@RegisterGradient("GatherNd")
def _gather_nd_grad(op, grad):
    """Scatters the gradient back to the gathered positions (ScatterNd sums repeats).

    Index vectors of length 1 into a matrix of indices pick whole rows, so
    their gradient can stay sparse, as for a gather along axis 0.
    """
    params, indices = op.inputs[0], op.inputs[1]
    params_shape = array_ops.shape(params, out_type=indices.dtype)
    if indices.shape.ndims == 2 and indices.shape[-1].value == 1:
        rows = array_ops.squeeze(indices, axis=-1)
        return [IndexedSlices(grad, rows, params_shape), None]
    return [array_ops.scatter_nd(indices, grad, params_shape), None]


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op, grad):
    """Each update went to one position: its gradient is gathered from there."""
    indices = op.inputs[0]
    return [None, array_ops.gather_nd(grad, indices), None]


# =============================================================================
# Data-flow ops of partitioned embedding lookups: DynamicPartition, ParallelDynamicStitch
# (TensorFlow keeps these two in data_flow_grad.py)
# =============================================================================

@RegisterGradient("DynamicPartition")
def _dynamic_partition_grad(op, *grads):
    """Stitches the partitions' gradients back into data's order.

    Partitioning the positions 0..n-1 the same way as data says where each
    element of each partition came from.
    """
    data, partitions = op.inputs
    prefix_shape = array_ops.shape(partitions)
    original_positions = array_ops.reshape(
        math_ops.range(math_ops.reduce_prod(prefix_shape)), prefix_shape)
    partitioned_positions = embedding_ops._dynamic_partition(
        original_positions, partitions, op.get_attr("num_partitions"))
    stitched = embedding_ops._parallel_dynamic_stitch(partitioned_positions, list(grads))
    return [array_ops.reshape(stitched, array_ops.shape(data)), None]


@RegisterGradient("ParallelDynamicStitch")
def _parallel_dynamic_stitch_grad(op, grad):
    """data[m][i] went to merged[indices[m][i]]: its gradient is gathered from there.

    (Where an index repeats, the forward pass keeps only one of the pieces,
    yet every piece gets the gradient, as in TensorFlow.)
    """
    num_values = len(op.inputs) // 2
    indices = op.inputs[:num_values]
    if isinstance(grad, IndexedSlices):
        output_rows = array_ops.shape(op.outputs[0])[0]
        grad = math_ops.unsorted_segment_sum(grad.values, grad.indices, output_rows)
    return [None] * num_values + [array_ops.gather(grad, i) for i in indices]


# =============================================================================
# Creating: Fill (ZerosLike, OnesLike, OneHot have no gradient)
# =============================================================================

@RegisterGradient("Fill")
def _fill_grad(_, grad):
    """Every output element is `value`: its gradient is the sum of all of them."""
    return None, math_ops.reduce_sum(grad)


NotDifferentiable("ZerosLike")
NotDifferentiable("OnesLike")
NotDifferentiable("OneHot")


# =============================================================================
# Broadcasting, rolling, reversing sequences, stitching
# =============================================================================

@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    """Each input value fed every position it was repeated to: their gradients are summed
    over the broadcast dimensions, then reshaped to the input's shape."""
    input_value = op.inputs[0]
    input_shape = array_ops.shape(input_value)
    reduce_axes, _ = math_ops.broadcast_gradient_args(input_shape, op.inputs[1])
    summed = math_ops.reduce_sum(grad, axis=reduce_axes, keepdims=True)
    return [array_ops.reshape(summed, input_shape), None]


@RegisterGradient("Roll")
def _roll_grad(op, grad):
    """A roll moves values: the gradient rolls back by -shift."""
    shift, axis = op.inputs[1], op.inputs[2]
    return [array_ops.roll(grad, math_ops.negative(shift), axis), None, None]


@RegisterGradient("ReverseSequence")
def _reverse_sequence_grad(op, grad):
    """Reversing the same prefixes again puts each gradient back where its value came from."""
    seq_lengths = op.inputs[1]
    return [array_ops.reverse_sequence(grad, seq_lengths, seq_axis=op.get_attr("seq_dim"),
                                       batch_axis=op.get_attr("batch_dim")), None]


@RegisterGradient("EnsureShape")
def _ensure_shape_grad(_, grad):
    return grad


@RegisterGradient("DynamicStitch")
def _dynamic_stitch_grad(op, grad):
    """As ParallelDynamicStitch's: each piece's gradient is gathered from where it went."""
    return _parallel_dynamic_stitch_grad(op, grad)


# =============================================================================
# Tensor scatters: a copy of a tensor with updates written at indices
# =============================================================================

@RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op, grad):
    """The overwritten positions of `tensor` get no gradient; each update gets its own."""
    indices, updates = op.inputs[1], op.inputs[2]
    tensor_grad = array_ops.tensor_scatter_nd_update(grad, indices,
                                                     array_ops.zeros_like(updates))
    return [tensor_grad, None, array_ops.gather_nd(grad, indices)]


@RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op, grad):
    return [grad, None, array_ops.gather_nd(grad, op.inputs[1])]


@RegisterGradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op, grad):
    return [grad, None, math_ops.negative(array_ops.gather_nd(grad, op.inputs[1]))]


def _tensor_scatter_min_or_max_grad(op, grad):
    """The gradient goes to whichever of tensor and the updates won at each position,
    shared equally where several tie."""
    tensor, indices, updates = op.inputs
    output = op.outputs[0]
    tensor_won = math_ops.cast(math_ops.equal(tensor, output), grad.dtype)
    update_won = math_ops.cast(math_ops.equal(updates, array_ops.gather_nd(output, indices)),
                               grad.dtype)
    winners = tensor_won + array_ops.scatter_nd(indices, update_won, array_ops.shape(tensor))
    return [grad * tensor_won / winners, None,
            array_ops.gather_nd(grad / winners, indices) * update_won]


RegisterGradient("TensorScatterMax")(_tensor_scatter_min_or_max_grad)
RegisterGradient("TensorScatterMin")(_tensor_scatter_min_or_max_grad)


# =============================================================================
# Moving blocks of space: each op's gradient is its inverse applied to grad
# =============================================================================

@RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op, grad):
    block_shape, paddings = op.inputs[1], op.inputs[2]
    return [array_ops.batch_to_space_nd(grad, block_shape, paddings), None, None]


@RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op, grad):
    block_shape, crops = op.inputs[1], op.inputs[2]
    return [array_ops.space_to_batch_nd(grad, block_shape, crops), None, None]


@RegisterGradient("SpaceToDepth")
def _space_to_depth_grad(op, grad):
    return array_ops.depth_to_space(grad, op.get_attr("block_size"),
                                    data_format=op.get_attr("data_format"))


@RegisterGradient("DepthToSpace")
def _depth_to_space_grad(op, grad):
    return array_ops.space_to_depth(grad, op.get_attr("block_size"),
                                    data_format=op.get_attr("data_format"))


@RegisterGradient("ExtractImagePatches")
def _extract_image_patches_grad(op, grad):
    """Each patch element is a copy of one input pixel (or padding): its gradient is summed
    back into that pixel. Extracting patches of the pixels' own numbers says which."""
    return [_patches_grad(op, grad, 2, lambda numbers: array_ops.extract_image_patches(
        numbers, op.get_attr("ksizes"), op.get_attr("strides"), op.get_attr("rates"),
        op.get_attr("padding")))]


@RegisterGradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op, grad):
    return [_patches_grad(op, grad, 3, lambda numbers: array_ops.extract_volume_patches(
        numbers, op.get_attr("ksizes"), op.get_attr("strides"), op.get_attr("padding")))]


def _patches_grad(op, grad, spatial_rank, extract):
    """The input's gradient [batch, *spatial, depth] of a patch extraction.

    Pixel p (counted from 1, 0 stands for padding) is numbered p in a one-
    channel image; extracting its patches gives, for every (position, patch
    element), the pixel that element copied; an unsorted segment sum adds
    the gradients of all copies of each pixel.
    """
    input_shape = array_ops.shape(op.inputs[0])
    batch, depth = input_shape[0], input_shape[-1]
    spatial = input_shape[1:1 + spatial_rank]
    pixel_count = math_ops.reduce_prod(spatial)
    numbers = math_ops.cast(math_ops.range(1, pixel_count + 1), dtypes.float64)  # exact
    numbers = array_ops.reshape(numbers, array_ops.concat([[1], spatial, [1]], 0))
    copied_pixel = math_ops.cast(array_ops.reshape(extract(numbers), [-1]), dtypes.int32)
    # grad: [batch, *out_spatial, patch_elements * depth] -> [out * patch_elements, batch, depth]
    grad = array_ops.reshape(grad, array_ops.stack([batch, -1, depth]))
    grad = array_ops.transpose(grad, [1, 0, 2])
    summed = math_ops.unsorted_segment_sum(grad, copied_pixel, pixel_count + 1)[1:]
    return array_ops.reshape(array_ops.transpose(summed, [1, 0, 2]), input_shape)


# =============================================================================
# Not differentiable: constants, placeholders, shape metadata, index helpers
# =============================================================================

NotDifferentiable("Const")
NotDifferentiable("Placeholder")
NotDifferentiable("Shape")
NotDifferentiable("ShapeN")
NotDifferentiable("Rank")
NotDifferentiable("Size")
NotDifferentiable("InvertPermutation")
NotDifferentiable("ConcatOffset")
NotDifferentiable("EditDistance")
NotDifferentiable("Assert")  # a check, with no outputs (TensorFlow declares it in logging_ops.py)
# The summary ops output bytes for an event file, not numbers (TensorFlow: logging_ops.py).
for _summary_op in ("ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummaryV2",
                    "TensorSummaryV2", "MergeSummary"):
    NotDifferentiable(_summary_op)


# =============================================================================
# State ops: variables and the ops that assign to them
#
# A variable is where backprop ends (tf.gradients w.r.t. a variable stops at
# its ref output); an assignment changes state rather than computing a value
# to differentiate. TensorFlow declares these in state_grad.py.
# =============================================================================

for _op_type in ("VariableV2", "IsVariableInitialized", "CountUpTo",
                 "Assign", "AssignAdd", "AssignSub",
                 "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv",
                 "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub"):
    NotDifferentiable(_op_type)
del _op_type


# =============================================================================
# CheckNumerics and Print: the gradient passes through (checked the same way)
# =============================================================================

@RegisterGradient("CheckNumerics")
def _check_numerics_grad(op, grad):
    return numerics.check_numerics(
        grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. %s"
        % op.get_attr("message"))


@RegisterGradient("Print")
def _print_grad(op, *grads):
    """The gradient passes to the printed input; the data printed get none."""
    return list(grads) + [None] * (len(op.inputs) - 1)


NotDifferentiable("PrintV2")  # no outputs: nothing flows back through tf.print
