"""The OpDefs of the array ops, and their shape functions.

Every op type that creates, reshapes, joins, slices, gathers or pads
tensors is declared here once, with `register_op`: its inputs and outputs,
its attrs with their allowed values and defaults, and the shape function
that computes its output shapes while the graph is built. The front end
reads these OpDefs to type and check a new Operation (`tf.reshape` is in
`minitf/ops/array_ops.py`); the runtime reads them to know what a node
takes and gives (the kernels are in `minitf/kernels/cpu/array_kernels.py`).

Mirrors `tensorflow/core/ops/array_ops.cc`.
"""

import math

import numpy as np

from minitf.framework import common_shapes
from minitf.framework.common_shapes import (
    constant_int,
    constant_ints,
    merge_dim_in_shapes,
    merge_dims,
    merge_shapes,
    shape_from_shape_tensor,
    shape_text,
    with_rank,
    with_rank_at_least,
    with_rank_at_most,
)
from minitf.framework.op_def import register_op
from minitf.framework.strided_slice import STRIDED_SLICE_MASKS, plan_strided_slice
from minitf.graph import tensor_shape
from minitf.graph.tensor_util import constant_value

_INDEX_TYPES = "{int32, int64} = int32"


def _normalize_axis(axis, rank, message):
    if not -rank <= axis < rank:
        raise ValueError(message)
    return axis % rank


# =============================================================================
# Constants, placeholders, identities
# =============================================================================

def _const_shape(op):
    return [tensor_shape.TensorShape(op.get_attr("value").shape)]


register_op("Const").output("output: dtype").attr("value: tensor").attr(
    "dtype: type").set_shape_fn(_const_shape)


def _placeholder_shape(op):
    return [op.get_attr("shape")]


register_op("Placeholder").output("output: dtype").attr("dtype: type").attr(
    "shape: shape = None").set_shape_fn(_placeholder_shape)
register_op("PlaceholderWithDefault").input("input: dtype").output("output: dtype").attr(
    "dtype: type").attr("shape: shape").set_shape_fn(_placeholder_shape)
register_op("Identity").input("input: T").output("output: T").attr("T: type").set_shape_fn(
    common_shapes.unchanged_shape)
# A variable's reference passed on as a reference (a loop variable that is one).
register_op("RefIdentity").input("input: Ref(T)").output("output: Ref(T)").attr(
    "T: type").set_shape_fn(common_shapes.unchanged_shape).set_allows_uninitialized_input()
register_op("StopGradient").input("input: T").output("output: T").attr(
    "T: type").set_shape_fn(common_shapes.unchanged_shape)
# The identity, through which taking a gradient is an error saying `message`.
register_op("PreventGradient").input("input: T").output("output: T").attr("T: type").attr(
    "message: string = ''").set_shape_fn(common_shapes.unchanged_shape)


def _identity_n_shape(op):
    return [t.shape for t in op.inputs]


# One op passing several tensors of mixed dtypes through (used by tf.custom_gradient).
register_op("IdentityN").input("input: T").output("output: T").attr(
    "T: list(type)").set_shape_fn(_identity_n_shape)


# =============================================================================
# Shape metadata: Shape, Size, Rank
# =============================================================================

def _shape_shape(op):
    return [tensor_shape.TensorShape([op.inputs[0].shape.ndims])]


register_op("Shape").input("input: T").output("output: out_type").attr("T: type").attr(
    "out_type: {int32, int64} = int32").set_shape_fn(_shape_shape)
register_op("Size").input("input: T").output("output: out_type").attr("T: type").attr(
    "out_type: {int32, int64} = int32").set_shape_fn(common_shapes.scalar_shape)
register_op("Rank").input("input: T").output("output: int32").attr("T: type").set_shape_fn(
    common_shapes.scalar_shape)


def _shape_n_shape(op):
    return [tensor_shape.TensorShape([t.shape.ndims]) for t in op.inputs]


register_op("ShapeN").input("input: N * T").output("output: N * out_type").attr(
    "N: int >= 1").attr("T: type").attr("out_type: {int32, int64} = int32").set_shape_fn(
    _shape_n_shape)


# =============================================================================
# Reshaping: Reshape, ExpandDims, Squeeze, Transpose
# =============================================================================

def _reshape_shape(op):
    """The target shape, with its one unknown dim inferred from a fully known input."""
    in_shape = op.inputs[0].shape
    out_shape = shape_from_shape_tensor(op.inputs[1])
    if in_shape.ndims is None or out_shape.ndims is None:
        return [out_shape]
    in_dims, out_dims = in_shape.as_list(), out_shape.as_list()
    in_unknown = [i for i, d in enumerate(in_dims) if d is None]
    out_unknown = [i for i, d in enumerate(out_dims) if d is None]
    if len(in_unknown) > 1 or len(out_unknown) > 1:
        return [out_shape]
    known_in = math.prod(d for d in in_dims if d is not None)
    known_out = math.prod(d for d in out_dims if d is not None)
    if not in_unknown and not out_unknown and known_in != known_out:
        raise ValueError("Cannot reshape a tensor with %d elements to shape %s (%d elements)"
                         % (known_in, shape_text(out_shape), known_out))
    if not in_unknown and out_unknown and known_out > 0:
        if known_in % known_out:
            raise ValueError("Dimension size must be evenly divisible by %d but is %d"
                             % (known_out, known_in))
        out_dims[out_unknown[0]] = known_in // known_out
    return [tensor_shape.TensorShape(out_dims)]


register_op("Reshape").input("tensor: T").input("shape: Tshape").output("output: T").attr(
    "T: type").attr("Tshape: " + _INDEX_TYPES).set_shape_fn(_reshape_shape)


def _expand_dims_shape(op):
    in_shape = op.inputs[0].shape
    dims = constant_ints(op.inputs[1])
    if dims is not None and len(dims) != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    if dims is None or in_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    dim, in_rank = dims[0], in_shape.ndims
    if not -in_rank - 1 <= dim <= in_rank:
        raise ValueError("dim %d not in the interval [%d, %d]." % (dim, -in_rank - 1, in_rank))
    if dim < 0:
        dim += in_rank + 1
    dims_list = in_shape.as_list()
    return [tensor_shape.TensorShape(dims_list[:dim] + [1] + dims_list[dim:])]


register_op("ExpandDims").input("input: T").input("dim: Tdim").output("output: T").attr(
    "T: type").attr("Tdim: " + _INDEX_TYPES).set_shape_fn(_expand_dims_shape)


def _squeeze_shape(op):
    in_shape = op.inputs[0].shape
    if in_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    in_rank = in_shape.ndims
    wanted = []
    for i, axis in enumerate(op.get_attr("squeeze_dims")):
        if not -in_rank <= axis < in_rank:
            raise ValueError("squeeze_dims[%d] not in [%d,%d)." % (i, -in_rank, in_rank))
        wanted.append(axis % in_rank)
    result = []
    for i, d in enumerate(in_shape.as_list()):
        if d is None:
            if i in wanted:
                continue  # assumed to be 1 at run time; the kernel checks
            if not wanted:
                return [tensor_shape.unknown_shape()]  # cannot tell whether it will be 1
        elif d == 1:
            if i in wanted or not wanted:
                continue
        elif i in wanted:
            raise ValueError("Can not squeeze dim[%d], expected a dimension of 1, got %d"
                             % (i, d))
        result.append(d)
    return [tensor_shape.TensorShape(result)]


register_op("Squeeze").input("input: T").output("output: T").attr("T: type").attr(
    "squeeze_dims: list(int) = []").set_shape_fn(_squeeze_shape)


def _transpose_shape(op):
    in_shape, perm_tensor = op.inputs[0].shape, op.inputs[1]
    perm = constant_ints(perm_tensor)
    perm_shape = perm_tensor.shape
    perm_length = perm_shape.num_elements()
    if in_shape.ndims is None and perm_length is None and perm is None:
        return [tensor_shape.unknown_shape()]
    if in_shape.ndims is not None:
        out_rank = in_shape.ndims
    else:
        out_rank = perm_length if perm_length is not None else len(perm)
    if in_shape.ndims is None and out_rank < 2:
        return [in_shape]  # a one-element perm fits a scalar or a vector alike
    in_shape = with_rank(in_shape, out_rank)
    with_rank(perm_shape, 1)
    if perm_length is not None and perm_length != out_rank:
        raise ValueError("Dimension must be %d but is %d" % (out_rank, perm_length))
    if perm is None:
        return [tensor_shape.unknown_shape(out_rank)]
    for d in perm:
        if d >= out_rank:
            raise ValueError("perm dim %d is out of range of input rank %d" % (d, out_rank))
    return [tensor_shape.TensorShape([in_shape[d] for d in perm])]


register_op("Transpose").input("x: T").input("perm: Tperm").output("y: T").attr(
    "T: type").attr("Tperm: " + _INDEX_TYPES).set_shape_fn(_transpose_shape)


def _invert_permutation_shape(op):
    return [with_rank(op.inputs[0].shape, 1)]


register_op("InvertPermutation").input("x: T").output("y: T").attr(
    "T: {int32, int64} = int32").set_shape_fn(_invert_permutation_shape)


def _diag_shape(op):
    diagonal = with_rank_at_least(op.inputs[0].shape, 1)
    return [diagonal.concatenate(diagonal)]


def _diag_part_shape(op):
    shape = op.inputs[0].shape
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    if shape.ndims % 2 != 0 or shape.ndims == 0:
        raise ValueError("Input must have even and non-zero rank, input rank is %d" % shape.ndims)
    half = shape.ndims // 2
    return [tensor_shape.TensorShape([
        merge_dim_in_shapes(shape.dims[i], shape.dims[i + half], i, shape, shape)
        for i in range(half)])]


_DIAG_TYPES = "{float16, float32, float64, int32, int64}"
register_op("Diag").input("diagonal: T").output("output: T").attr(
    "T: " + _DIAG_TYPES).set_shape_fn(_diag_shape)
register_op("DiagPart").input("input: T").output("diagonal: T").attr(
    "T: " + _DIAG_TYPES).set_shape_fn(_diag_part_shape)


# =============================================================================
# Joining and splitting: ConcatV2, Pack, Unpack, Split, SplitV, Tile
# =============================================================================

def _concat_shape(op):
    """Every dim but `axis` must agree; along `axis` the sizes add up."""
    values, axis_tensor = op.inputs[:-1], op.inputs[-1]
    with_rank(axis_tensor.shape, 0)
    known_ranks = [v.shape.ndims for v in values if v.shape.ndims is not None]
    if not known_ranks:
        return [tensor_shape.unknown_shape()]
    out_rank = known_ranks[0]
    if out_rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    axis = constant_int(axis_tensor)
    if axis is not None and not -out_rank <= axis < out_rank:
        raise ValueError("Shape must be at least rank %d but is rank %d"
                         % (-axis if axis < 0 else axis + 1, out_rank))
    for v in values:
        with_rank(v.shape, out_rank)
    if axis is None:
        return [tensor_shape.unknown_shape(out_rank)]
    axis %= out_rank
    result = [None] * out_rank
    result[axis] = 0
    for v in values:
        dims = v.shape.as_list() if v.shape.ndims is not None else [None] * out_rank
        for i, d in enumerate(dims):
            if i == axis:
                result[axis] = None if result[axis] is None or d is None else result[axis] + d
            else:
                result[i] = merge_dim_in_shapes(result[i], d, i, values[0].shape, v.shape)
    return [tensor_shape.TensorShape(result)]


register_op("ConcatV2").input("values: N * T").input("axis: Tidx").output("output: T").attr(
    "N: int >= 2").attr("T: type").attr("Tidx: " + _INDEX_TYPES).set_shape_fn(_concat_shape)


def _concat_offset_shape(op):
    with_rank(op.inputs[0].shape, 0)
    return [with_rank(t.shape, 1) for t in op.inputs[1:]]


# Where each input of a concat starts in the result: what the concat gradient slices out.
register_op("ConcatOffset").input("concat_dim: int32").input("shape: N * int32").output(
    "offset: N * int32").attr("N: int >= 2").set_shape_fn(_concat_offset_shape)


def _pack_shape(op):
    merged = tensor_shape.unknown_shape()
    for i, t in enumerate(op.inputs):
        merged = _merge_shapes(merged, t.shape, "From merging shape %d with other shapes." % i)
    if merged.ndims is None:
        return [tensor_shape.unknown_shape()]
    axis = op.get_attr("axis")
    out_rank = merged.ndims + 1
    axis = _normalize_axis(axis, out_rank, "Invalid axis: %d; must be in [%d,%d)"
                           % (axis, -out_rank, out_rank))
    dims = merged.as_list()
    return [tensor_shape.TensorShape(dims[:axis] + [len(op.inputs)] + dims[axis:])]


def _merge_shapes(a, b, context):
    if a.ndims is None:
        return b
    if b.ndims is None:
        return a
    if a.ndims != b.ndims:
        raise ValueError("Shapes must be equal rank, but are %d and %d. %s"
                         % (a.ndims, b.ndims, context))
    return tensor_shape.TensorShape([merge_dim_in_shapes(x, y, i, a, b) for i, (x, y) in enumerate(
        zip(a.as_list(), b.as_list()))])


register_op("Pack").input("values: N * T").output("output: T").attr("N: int >= 1").attr(
    "T: type").attr("axis: int = 0").set_shape_fn(_pack_shape)


def _unpack_shape(op):
    in_shape = op.inputs[0].shape
    num = op.get_attr("num")
    if in_shape.ndims is None:
        return [tensor_shape.unknown_shape()] * num
    in_rank = in_shape.ndims
    axis = op.get_attr("axis")
    axis = _normalize_axis(axis, in_rank, "Invalid axis: %d; must be in [%d,%d)"
                           % (axis, -in_rank, in_rank))
    dims = in_shape.as_list()
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError("Dimension must be %d but is %d" % (num, dims[axis]))
    return [tensor_shape.TensorShape(dims[:axis] + dims[axis + 1:])] * num


register_op("Unpack").input("value: T").output("output: num * T").attr(
    "num: int >= 0").attr("T: type").attr("axis: int = 0").set_shape_fn(_unpack_shape)


def _split_dim(axis_tensor, in_rank):
    """The constant split axis made non-negative, or None when unknown."""
    axis = constant_int(axis_tensor)
    if axis is None or in_rank is None:
        return axis if axis is None or axis >= 0 else None
    if not -in_rank <= axis < in_rank:
        raise ValueError("Dimension size, given by scalar input %d must be in range [%d, %d)"
                         % (axis, -in_rank, in_rank))
    return axis % in_rank


def _split_shape(op):
    split_dim_tensor, value = op.inputs
    num_split = op.get_attr("num_split")
    in_shape = value.shape
    axis = _split_dim(split_dim_tensor, in_shape.ndims)
    if axis is None:
        return [tensor_shape.unknown_shape(in_shape.ndims)] * num_split
    with_rank_at_least(in_shape, axis + 1)
    if in_shape.ndims is None:
        return [tensor_shape.unknown_shape()] * num_split
    dims = in_shape.as_list()
    if dims[axis] is not None:
        if dims[axis] % num_split:
            raise ValueError("Dimension size must be evenly divisible by %d but is %d. Number "
                             "of ways to split should evenly divide the split dimension"
                             % (num_split, dims[axis]))
        dims[axis] //= num_split
    return [tensor_shape.TensorShape(dims)] * num_split


register_op("Split").input("split_dim: int32").input("value: T").output(
    "output: num_split * T").attr("num_split: int >= 1").attr("T: type").set_shape_fn(
    _split_shape)


def _split_v_shape(op):
    value, size_splits, split_dim_tensor = op.inputs
    num_split = op.get_attr("num_split")
    in_shape = value.shape
    axis = _split_dim(split_dim_tensor, in_shape.ndims)
    if in_shape.ndims is None:
        return [tensor_shape.unknown_shape()] * num_split
    if in_shape.ndims == 0:
        raise ValueError("Can't split scalars")
    sizes = constant_ints(size_splits)
    if axis is None:
        return [tensor_shape.unknown_shape(in_shape.ndims)] * num_split
    dims = in_shape.as_list()
    if sizes is None:
        return [tensor_shape.TensorShape(dims[:axis] + [None] + dims[axis + 1:])] * num_split
    return [tensor_shape.TensorShape(dims[:axis] + [d] + dims[axis + 1:])
            for d in _static_split_sizes(sizes, dims[axis], num_split)]


def _static_split_sizes(sizes, dim_size, num_split):
    """The size of each piece (None where unknown), checked against a known dimension."""
    if len(sizes) != num_split:
        raise ValueError("Length of size_splits should be equal to num_outputs")
    if sizes.count(-1) > 1:
        raise ValueError("size_splits can only have one -1")
    total = sum(s for s in sizes if s != -1)
    result = []
    for i, s in enumerate(sizes):
        if s == -1 and dim_size is not None:
            s = dim_size - total
        if s < -1 or (s == -1 and dim_size is not None):
            raise ValueError("Split size at index %d must be >= 0. Got: %d" % (i, s))
        result.append(None if s == -1 else s)
    if dim_size is not None and (total > dim_size if -1 in sizes else total != dim_size):
        raise ValueError("can't split axis of size %d into pieces of size [%s]"
                         % (dim_size, ",".join(str(s) for s in sizes)))
    return result


register_op("SplitV").input("value: T").input("size_splits: Tlen").input(
    "split_dim: int32").output("output: num_split * T").attr("num_split: int >= 1").attr(
    "T: type").attr("Tlen: {int32, int64} = int64").set_shape_fn(_split_v_shape)


def _tile_shape(op):
    in_shape, multiples_tensor = op.inputs[0].shape, op.inputs[1]
    multiples = shape_from_shape_tensor(multiples_tensor)
    if in_shape.ndims is not None:
        multiples = with_rank(multiples, in_shape.ndims)
    if multiples.ndims is None:
        return [tensor_shape.unknown_shape()]
    in_shape = with_rank(in_shape, multiples.ndims)
    return [tensor_shape.TensorShape([d * m for d, m in zip(in_shape.dims, multiples.dims)])]


register_op("Tile").input("input: T").input("multiples: Tmultiples").output(
    "output: T").attr("T: type").attr("Tmultiples: " + _INDEX_TYPES).set_shape_fn(_tile_shape)


# =============================================================================
# Padding: Pad, PadV2, MirrorPad
# =============================================================================

def _pad_shape(op):
    in_shape, paddings_tensor = op.inputs[0].shape, op.inputs[1]
    paddings_shape = with_rank(paddings_tensor.shape, 2)
    if paddings_shape[1].value is not None and paddings_shape[1].value != 2:
        raise ValueError("Dimension must be 2 but is %d" % paddings_shape[1].value)
    pad_rank = paddings_shape[0].value
    if pad_rank is not None:
        in_shape = with_rank(in_shape, pad_rank)
    elif in_shape.ndims is not None:
        pad_rank = in_shape.ndims
    paddings = constant_value(paddings_tensor)
    if paddings is None:
        return [tensor_shape.unknown_shape(pad_rank)]
    dims = []
    for d, (before, after) in zip(in_shape.dims, np.asarray(paddings).reshape(-1, 2)):
        if before < 0 or after < 0:
            raise ValueError("Paddings must be non-negative")
        dims.append(d + int(before + after))
    return [tensor_shape.TensorShape(dims)]


register_op("Pad").input("input: T").input("paddings: Tpaddings").output("output: T").attr(
    "T: type").attr("Tpaddings: " + _INDEX_TYPES).set_shape_fn(_pad_shape)
register_op("PadV2").input("input: T").input("paddings: Tpaddings").input(
    "constant_values: T").output("output: T").attr("T: type").attr(
    "Tpaddings: " + _INDEX_TYPES).set_shape_fn(_pad_shape)
# REFLECT leaves the edge out of the mirror image; SYMMETRIC repeats it.
register_op("MirrorPad").input("input: T").input("paddings: Tpaddings").output(
    "output: T").attr("T: type").attr("Tpaddings: " + _INDEX_TYPES).attr(
    "mode: {'REFLECT', 'SYMMETRIC'}").set_shape_fn(_pad_shape)


def _mirror_pad_grad_shape(op):
    """The padded input's shape minus the paddings: the shape MirrorPad started from."""
    in_shape, paddings_tensor = op.inputs[0].shape, op.inputs[1]
    paddings_shape = with_rank(paddings_tensor.shape, 2)
    if paddings_shape[1].value is not None and paddings_shape[1].value != 2:
        raise ValueError("Dimension must be 2 but is %d" % paddings_shape[1].value)
    if paddings_shape[0].value is not None:
        in_shape = with_rank(in_shape, paddings_shape[0].value)
    paddings = constant_value(paddings_tensor)
    if paddings is None or in_shape.ndims is None:
        return [tensor_shape.unknown_shape(in_shape.ndims)]
    dims = []
    for d, (before, after) in zip(in_shape.as_list(), np.asarray(paddings).reshape(-1, 2)):
        removed = int(before + after)
        if d is not None and d < removed:
            raise ValueError("Negative dimension size caused by subtracting %d from %d"
                             % (removed, d))
        dims.append(None if d is None else d - removed)
    return [tensor_shape.TensorShape(dims)]


# The gradient of MirrorPad: folds each mirrored border back onto the values it copied.
register_op("MirrorPadGrad").input("input: T").input("paddings: Tpaddings").output(
    "output: T").attr("T: type").attr("Tpaddings: " + _INDEX_TYPES).attr(
    "mode: {'REFLECT', 'SYMMETRIC'}").set_shape_fn(_mirror_pad_grad_shape)


# =============================================================================
# Slicing: Slice, StridedSlice, Tensor.__getitem__, ReverseV2
# =============================================================================

def _slice_shape(op):
    input_tensor, begin_tensor, size_tensor = op.inputs
    begin_shape = with_rank(begin_tensor.shape, 1)
    size_shape = with_rank(size_tensor.shape, 1)
    length = merge_dim_in_shapes(begin_shape[0].value, size_shape[0].value, 0, begin_shape,
                                 size_shape)
    in_shape = input_tensor.shape
    if length is not None:
        in_shape = with_rank(in_shape, length)
    begin = shape_from_shape_tensor(begin_tensor)  # read like a shape: unknown where unknown
    sizes = constant_ints(size_tensor)
    if sizes is None:
        sizes_shape = shape_from_shape_tensor(size_tensor)
        return [sizes_shape if sizes_shape.ndims is not None
                else tensor_shape.unknown_shape(in_shape.ndims)]
    dims = []
    for i, s in enumerate(sizes):
        if s == -1:
            dims.append(_remaining(in_shape[i].value, begin[i].value))
        elif s < 0:
            raise ValueError("Out of bounds slicing on dimension %d of length %s: sizes vector "
                             "cannot be < -1, but was %d" % (i, in_shape[i], s))
        else:
            dims.append(s)
    return [tensor_shape.TensorShape(dims)]


def _remaining(dim, begin):
    """What a size of -1 means: the dimension from `begin` to its end (None if unknown)."""
    if dim is None or begin is None:
        return None
    if begin > dim:
        raise ValueError("Negative dimension size caused by subtracting %d from %d"
                         % (begin, dim))
    return dim - begin


register_op("Slice").input("input: T").input("begin: Index").input("size: Index").output(
    "output: T").attr("T: type").attr("Index: {int32, int64}").set_shape_fn(_slice_shape)


def _strided_slice_shape(op):
    in_shape = op.inputs[0].shape
    for t in op.inputs[1:]:
        with_rank(t.shape, 1)
    strides = constant_ints(op.inputs[3])
    if in_shape.ndims is None or strides is None:
        return [tensor_shape.unknown_shape()]
    plan = plan_strided_slice(
        in_shape.as_list(), constant_ints(op.inputs[1]), constant_ints(op.inputs[2]),
        strides, *(op.get_attr(m) for m in STRIDED_SLICE_MASKS))
    return [tensor_shape.TensorShape(plan.final_shape)]


def _with_mask_attrs(builder):
    for mask in STRIDED_SLICE_MASKS:
        builder.attr("%s: int = 0" % mask)
    return builder


_with_mask_attrs(register_op("StridedSlice").input("input: T").input("begin: Index").input(
    "end: Index").input("strides: Index").output("output: T").attr("T: type").attr(
    "Index: {int32, int64}")).set_shape_fn(_strided_slice_shape)


def _strided_slice_grad_shape(op):
    return [shape_from_shape_tensor(op.inputs[0])]


# The gradient of StridedSlice: dy written into zeros of the sliced input's `shape`.
_with_mask_attrs(register_op("StridedSliceGrad").input("shape: Index").input(
    "begin: Index").input("end: Index").input("strides: Index").input("dy: T").output(
    "output: T").attr("T: type").attr("Index: {int32, int64}")).set_shape_fn(
    _strided_slice_grad_shape)


def _reverse_shape(op):
    in_shape, axis_tensor = op.inputs[0].shape, op.inputs[1]
    with_rank(axis_tensor.shape, 1)
    axes = constant_ints(axis_tensor)
    if axes is not None and in_shape.ndims is not None:
        seen = set()
        for i, a in enumerate(axes):
            canonical = a + in_shape.ndims if a < 0 else a
            if not 0 <= canonical < in_shape.ndims:
                raise ValueError("'axis'[%d] = %d is out of valid range [0, %d"
                                 % (i, a, in_shape.ndims - 1))
            if canonical in seen:
                raise ValueError("axis %d specified more than once." % canonical)
            seen.add(canonical)
    return [in_shape]


register_op("ReverseV2").input("tensor: T").input("axis: Tidx").output("output: T").attr(
    "Tidx: " + _INDEX_TYPES).attr("T: type").set_shape_fn(_reverse_shape)


# =============================================================================
# Gathering: GatherV2, GatherNd, boolean_mask
# =============================================================================

def _gather_shape(op):
    params_shape = with_rank_at_least(op.inputs[0].shape, 1)
    indices_shape = op.inputs[1].shape
    with_rank(op.inputs[2].shape, 0)
    batch_dims = op.get_attr("batch_dims")
    axis = constant_int(op.inputs[2])
    if axis is None:
        if params_shape.ndims is None or indices_shape.ndims is None:
            return [tensor_shape.unknown_shape()]
        return [tensor_shape.unknown_shape(
            params_shape.ndims + indices_shape.ndims - 1 - batch_dims)]
    with_rank_at_least(params_shape, -axis if axis < 0 else axis + 1)
    if params_shape.ndims is None or indices_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    axis %= params_shape.ndims
    if batch_dims < 0:
        batch_dims += indices_shape.ndims
    params_dims, indices_dims = params_shape.as_list(), indices_shape.as_list()
    return [tensor_shape.TensorShape(params_dims[:axis] + indices_dims[batch_dims:]
                                     + params_dims[axis + 1:])]


register_op("GatherV2").input("params: Tparams").input("indices: Tindices").input(
    "axis: Taxis").output("output: Tparams").attr("batch_dims: int = 0").attr(
    "Tparams: type").attr("Tindices: {int32, int64}").attr(
    "Taxis: {int32, int64}").set_shape_fn(_gather_shape)


def _gather_nd_shape(op):
    params_shape = op.inputs[0].shape
    indices_shape = with_rank_at_least(op.inputs[1].shape, 1)
    depth = indices_shape[-1].value if indices_shape.ndims is not None else None
    if params_shape.ndims is None or depth is None:
        return [tensor_shape.unknown_shape()]
    if depth > params_shape.ndims:
        raise ValueError("indices.shape[-1] must be <= params.rank, but saw indices shape: %s "
                         "and params shape: %s" % (shape_text(indices_shape),
                                                   shape_text(params_shape)))
    return [tensor_shape.TensorShape(indices_shape.as_list()[:-1]
                                     + params_shape.as_list()[depth:])]


register_op("GatherNd").input("params: Tparams").input("indices: Tindices").output(
    "output: Tparams").attr("Tparams: type").attr("Tindices: {int32, int64}").set_shape_fn(
    _gather_nd_shape)


def _scatter_nd_shape(op):
    """`shape`'s value; indices' outer dims and shape's inner dims must fit `updates`."""
    indices_shape = with_rank_at_least(op.inputs[0].shape, 1)
    updates_shape = op.inputs[1].shape
    output_shape = shape_from_shape_tensor(op.inputs[2])
    if not _scatter_ranks_known(indices_shape, updates_shape, output_shape):
        return [output_shape]
    depth, outer = indices_shape[-1].value, indices_shape.ndims - 1
    _check_compatible(indices_shape[:outer], updates_shape[:outer],
                      "The outer %d dimensions of indices.shape=%s must match the outer %d "
                      "dimensions of updates.shape=%s" % (outer, shape_text(indices_shape), outer,
                                                          shape_text(updates_shape)))
    _check_compatible(output_shape[depth:], updates_shape[outer:],
                      "The inner %d dimensions of output.shape=%s must match the inner %d "
                      "dimensions of updates.shape=%s" % (
                          output_shape.ndims - depth, shape_text(output_shape),
                          updates_shape.ndims - outer, shape_text(updates_shape)))
    return [output_shape]


def _scatter_ranks_known(indices_shape, updates_shape, output_shape):
    """Whether the index depth and the ranks of updates and output are known."""
    return (indices_shape.ndims is not None and indices_shape[-1].value is not None
            and updates_shape.ndims is not None and output_shape.ndims is not None)


def _check_compatible(a, b, message):
    try:
        _merge_shapes(a, b, "")
    except ValueError as e:
        raise ValueError("%s: %s" % (message, str(e).strip())) from None


register_op("ScatterNd").input("indices: Tindices").input("updates: T").input(
    "shape: Tindices").output("output: T").attr("T: type").attr(
    "Tindices: {int32, int64}").set_shape_fn(_scatter_nd_shape)


# =============================================================================
# Creating: Fill, zeros/ones, ZerosLike/OnesLike, OneHot
# =============================================================================

def _fill_shape(op):
    dims_tensor, value = op.inputs
    with_rank(dims_tensor.shape, 1)
    with_rank(value.shape, 0)
    dims = constant_ints(dims_tensor)
    if dims is not None and any(d < 0 for d in dims):
        raise ValueError("Fill dimensions must be >= 0")
    return [shape_from_shape_tensor(dims_tensor)]


register_op("Fill").input("dims: index_type").input("value: T").output("output: T").attr(
    "T: type").attr("index_type: " + _INDEX_TYPES).set_shape_fn(_fill_shape)
register_op("ZerosLike").input("x: T").output("y: T").attr("T: type").set_shape_fn(
    common_shapes.unchanged_shape)
register_op("OnesLike").input("x: T").output("y: T").attr(
    "T: {float16, float32, float64, int8, uint8, int16, uint16, int32, int64, bool}"
).set_shape_fn(common_shapes.unchanged_shape)


def _one_hot_shape(op):
    axis = op.get_attr("axis")
    if axis < -1:
        raise ValueError("axis must be >= -1")
    with_rank(op.inputs[1].shape, 0)
    depth = constant_int(op.inputs[1])
    indices_shape = op.inputs[0].shape
    if indices_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    out_rank = indices_shape.ndims + 1
    depth_index = (axis + out_rank) % out_rank
    dims = indices_shape.as_list()
    return [tensor_shape.TensorShape(dims[:depth_index] + [depth] + dims[depth_index:])]


register_op("OneHot").input("indices: TI").input("depth: int32").input("on_value: T").input(
    "off_value: T").output("output: T").attr("axis: int = -1").attr("T: type").attr(
    "TI: {uint8, int32, int64} = int64").set_shape_fn(_one_hot_shape)


# =============================================================================
# unique
# =============================================================================

def _unique_shape(op):
    x_shape = with_rank(op.inputs[0].shape, 1)
    return [tensor_shape.TensorShape([None]), x_shape]


register_op("Unique").input("x: T").output("y: T").output("idx: out_idx").attr(
    "T: type").attr("out_idx: {int32, int64} = int32").set_shape_fn(_unique_shape)


# =============================================================================
# Broadcasting: BroadcastTo, BroadcastArgs
# =============================================================================

def _broadcast_to_shape(op):
    """The target shape; each known dim of the input must be 1 or equal the target's."""
    in_shape = op.inputs[0].shape
    target = shape_from_shape_tensor(op.inputs[1])
    if target.ndims is None:
        return [tensor_shape.unknown_shape()]
    if in_shape.ndims is None:
        return [target]
    with_rank_at_most(in_shape, target.ndims)
    offset = target.ndims - in_shape.ndims
    for i, d in enumerate(in_shape.as_list()):
        wanted = target[offset + i].value
        if d is not None and wanted is not None and d != 1 and d != wanted:
            raise ValueError("Dimensions must be equal, but are %d and %d" % (d, wanted))
    return [target]


register_op("BroadcastTo").input("input: T").input("shape: Tidx").output("output: T").attr(
    "T: type").attr("Tidx: " + _INDEX_TYPES).set_shape_fn(_broadcast_to_shape)


def _broadcast_args_shape(op):
    """A vector as long as the longer of the two shapes (unknown if either length is)."""
    lengths = [with_rank(t.shape, 1)[0].value for t in op.inputs]
    return [tensor_shape.TensorShape([None if None in lengths else max(lengths)])]


register_op("BroadcastArgs").input("s0: T").input("s1: T").output("r0: T").attr(
    "T: " + _INDEX_TYPES).set_shape_fn(_broadcast_args_shape)


# =============================================================================
# More joining and reordering: ParallelConcat, ReverseSequence, Roll, Bitcast
# =============================================================================

def _parallel_concat_shape(op):
    """The `shape` attr; every input is one row of it ([1] + the rest)."""
    shape = op.get_attr("shape")
    row = tensor_shape.TensorShape([1]).concatenate(shape[1:]) if shape.ndims else shape
    for t in op.inputs:
        if t.shape.ndims is not None and shape.ndims is not None:
            merge_shapes(t.shape, row)
    return [shape]


register_op("ParallelConcat").input("values: N * T").output("output: T").attr(
    "N: int >= 1").attr("T: type").attr("shape: shape").set_shape_fn(_parallel_concat_shape)


def _reverse_sequence_shape(op):
    in_shape, lengths_shape = op.inputs[0].shape, with_rank(op.inputs[1].shape, 1)
    if in_shape.ndims is None:
        return [in_shape]
    seq_dim, batch_dim = op.get_attr("seq_dim"), op.get_attr("batch_dim")
    rank = in_shape.ndims
    if not (-rank <= batch_dim < rank and -rank <= seq_dim < rank):
        raise ValueError("batch_dim %d and seq_dim %d must be in [%d, %d)"
                         % (batch_dim, seq_dim, -rank, rank))
    merge_dims(in_shape[batch_dim], lengths_shape[0])
    return [in_shape]


register_op("ReverseSequence").input("input: T").input("seq_lengths: Tlen").output(
    "output: T").attr("seq_dim: int").attr("batch_dim: int = 0").attr("T: type").attr(
    "Tlen: {int32, int64} = int64").set_shape_fn(_reverse_sequence_shape)


def _roll_shape(op):
    shift_shape = with_rank_at_most(op.inputs[1].shape, 1)
    axis_shape = with_rank_at_most(op.inputs[2].shape, 1)
    if shift_shape.ndims == 1 and axis_shape.ndims == 1:
        merge_shapes(shift_shape, axis_shape)
    return [op.inputs[0].shape]


register_op("Roll").input("input: T").input("shift: Tshift").input("axis: Taxis").output(
    "output: T").attr("T: type").attr("Tshift: {int32, int64}").attr(
    "Taxis: {int32, int64}").set_shape_fn(_roll_shape)

_BITCAST_TYPES = ("{float16, float32, float64, int8, int16, int32, int64, uint8, uint16, "
                  "uint32, uint64}")


def _bitcast_shape(op):
    """Same-sized types keep the shape; a wider input gains an inner dim, a narrower loses one."""
    in_shape = op.inputs[0].shape
    size_in = op.get_attr("T").size
    size_out = op.get_attr("type").size
    if in_shape.ndims is None or size_in == size_out:
        return [in_shape]
    if size_in > size_out:
        return [in_shape.concatenate([size_in // size_out])]
    dims = in_shape.as_list()
    if not dims:
        raise ValueError("Cannot bitcast from %d to %d due to shape: the input is a scalar"
                         % (op.get_attr("T").as_datatype_enum,
                            op.get_attr("type").as_datatype_enum))
    if dims[-1] is not None and dims[-1] != size_out // size_in:
        raise ValueError("Cannot bitcast from %d to %d due to shape. %d does not match %d"
                         % (op.get_attr("T").as_datatype_enum,
                            op.get_attr("type").as_datatype_enum, dims[-1],
                            size_out // size_in))
    return [tensor_shape.TensorShape(dims[:-1])]


register_op("Bitcast").input("input: T").output("output: type").attr(
    "T: " + _BITCAST_TYPES).attr("type: " + _BITCAST_TYPES).set_shape_fn(_bitcast_shape)

# A promise that the input does not change while the graph runs (so it may be folded).
def _ensure_shape_shape(op):
    """The input's shape merged with the `shape` attr: a ValueError if they cannot agree."""
    return [merge_shapes(op.inputs[0].shape, op.get_attr("shape"))]


register_op("EnsureShape").input("input: T").output("output: T").attr("shape: shape").attr(
    "T: type").set_shape_fn(_ensure_shape_shape)

register_op("GuaranteeConst").input("input: T").output("output: T").attr(
    "T: type").set_is_stateful().set_shape_fn(common_shapes.unchanged_shape)


# =============================================================================
# Indices: UnravelIndex, UniqueWithCounts, ListDiff, LowerBound, UpperBound
# =============================================================================

def _unravel_index_shape(op):
    indices_shape = op.inputs[0].shape
    dims_shape = with_rank(op.inputs[1].shape, 1)
    if indices_shape.ndims == 0:
        return [dims_shape]
    if indices_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [dims_shape.concatenate([indices_shape.num_elements()])]


register_op("UnravelIndex").input("indices: Tidx").input("dims: Tidx").output(
    "output: Tidx").attr("Tidx: " + _INDEX_TYPES).set_shape_fn(_unravel_index_shape)


def _unique_with_counts_shape(op):
    x_shape = with_rank(op.inputs[0].shape, 1)
    return [tensor_shape.TensorShape([None]), x_shape, tensor_shape.TensorShape([None])]


register_op("UniqueWithCounts").input("x: T").output("y: T").output("idx: out_idx").output(
    "count: out_idx").attr("T: type").attr("out_idx: {int32, int64} = int32").set_shape_fn(
    _unique_with_counts_shape)


def _list_diff_shape(op):
    for t in op.inputs:
        with_rank(t.shape, 1)
    return [tensor_shape.TensorShape([None])] * 2


register_op("ListDiff").input("x: T").input("y: T").output("out: T").output(
    "idx: out_idx").attr("T: type").attr("out_idx: {int32, int64} = int32").set_shape_fn(
    _list_diff_shape)


def _bound_shape(op):
    """Rows of sorted values and rows of values to place in them: one index per value."""
    sorted_shape = with_rank(op.inputs[0].shape, 2)
    values_shape = with_rank(op.inputs[1].shape, 2)
    merge_dims(sorted_shape[0], values_shape[0])
    return [values_shape]


for _op_type in ("LowerBound", "UpperBound"):
    register_op(_op_type).input("sorted_inputs: T").input("values: T").output(
        "output: out_type").attr("T: type").attr(
        "out_type: {int32, int64} = int32").set_shape_fn(_bound_shape)


# =============================================================================
# Tensor scatters: TensorScatterUpdate, Add, Sub, Max, Min
# =============================================================================

def tensor_scatter_shape(op):
    """The tensor's shape; updates must be indices.shape[:-1] + tensor.shape[depth:]."""
    tensor_shape_, indices_shape, updates_shape = (t.shape for t in op.inputs)
    indices_shape = with_rank_at_least(indices_shape, 1)
    if not _scatter_ranks_known(indices_shape, updates_shape, tensor_shape_):
        return [tensor_shape_]
    depth, outer = indices_shape[-1].value, indices_shape.ndims - 1
    _check_compatible(indices_shape[:outer], updates_shape[:outer],
                      "Dimensions [0,%d) of indices[shape=%s] = %s must match dimensions "
                      "[0,%d) of updates[shape=%s] = %s"
                      % (outer, shape_text(indices_shape), shape_text(indices_shape[:outer]),
                         outer, shape_text(updates_shape), shape_text(updates_shape[:outer])))
    _check_compatible(tensor_shape_[depth:], updates_shape[outer:],
                      "Dimensions [%d,%d) of input[shape=%s] = %s must match dimensions [%d,%d) "
                      "of updates[shape=%s] = %s"
                      % (depth, tensor_shape_.ndims, shape_text(tensor_shape_),
                         shape_text(tensor_shape_[depth:]), outer, updates_shape.ndims,
                         shape_text(updates_shape), shape_text(updates_shape[outer:])))
    return [tensor_shape_]


for _op_type in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                 "TensorScatterMax", "TensorScatterMin"):
    register_op(_op_type).input("tensor: T").input("indices: Tindices").input(
        "updates: T").output("output: T").attr("T: type").attr(
        "Tindices: {int32, int64}").set_shape_fn(tensor_scatter_shape)


# =============================================================================
# Moving blocks between space, batch and depth: SpaceToBatchND, BatchToSpaceND,
# SpaceToDepth, DepthToSpace
# =============================================================================

def _block_shape_and_pairs(op):
    """(block sizes, [before, after] per block dim) when both are known while building."""
    block_shape = with_rank(op.inputs[1].shape, 1)
    pairs_shape = with_rank(op.inputs[2].shape, 2)
    merge_dims(block_shape[0], pairs_shape[0])
    if pairs_shape[1].value is not None and pairs_shape[1].value != 2:
        raise ValueError("Dimension must be 2 but is %d" % pairs_shape[1].value)
    block = constant_ints(op.inputs[1])
    pairs = constant_value(op.inputs[2])
    if block is not None and any(b < 1 for b in block):
        raise ValueError("block_shape must be positive")
    return block, None if pairs is None else np.asarray(pairs).reshape(-1, 2).tolist()


def _block_op_shape(op, batch_size, spatial_size):
    """The output shape of SpaceToBatchND or BatchToSpaceND: the batch and each block dim
    as `batch_size(batch, prod(block))` and `spatial_size(dim, block, [before, after])`
    give them; the dims after the block dims unchanged."""
    in_shape = op.inputs[0].shape
    block, pairs = _block_shape_and_pairs(op)
    if in_shape.ndims is None or block is None:
        return [tensor_shape.unknown_shape(in_shape.ndims)]
    with_rank_at_least(in_shape, len(block) + 1)
    dims = in_shape.as_list()
    batch = None if dims[0] is None else batch_size(dims[0], math.prod(block))
    spatial = [None if dims[1 + i] is None or pairs is None
               else spatial_size(dims[1 + i], b, pairs[i]) for i, b in enumerate(block)]
    return [tensor_shape.TensorShape([batch] + spatial + dims[1 + len(block):])]


def _space_to_batch_nd_shape(op):
    """Batch * prod(block); each padded block dim divided by its block size."""
    return _block_op_shape(op, lambda batch, blocks: batch * blocks, _padded_blocks)


def _padded_blocks(size, block, paddings):
    if any(p < 0 for p in paddings):
        raise ValueError("paddings must be non-negative")
    padded = size + paddings[0] + paddings[1]
    if padded % block:
        raise ValueError("Dimension size must be evenly divisible by %d but is %d"
                         % (block, padded))
    return padded // block


def _batch_to_space_nd_shape(op):
    """Batch / prod(block); each block dim times its block size, less the crops."""
    return _block_op_shape(op, _batch_of_blocks, _cropped_blocks)


def _batch_of_blocks(batch, blocks):
    if batch % blocks:
        raise ValueError("Dimension size must be evenly divisible by %d but is %d"
                         % (blocks, batch))
    return batch // blocks


def _cropped_blocks(size, block, crops):
    if any(c < 0 for c in crops):
        raise ValueError("crops must be non-negative")
    cropped = size * block - crops[0] - crops[1]
    if cropped < 0:
        raise ValueError("Negative dimension size caused by subtracting %d from %d"
                         % (crops[0] + crops[1], size * block))
    return cropped


register_op("SpaceToBatchND").input("input: T").input("block_shape: Tblock_shape").input(
    "paddings: Tpaddings").output("output: T").attr("T: type").attr(
    "Tblock_shape: " + _INDEX_TYPES).attr("Tpaddings: " + _INDEX_TYPES).set_shape_fn(
    _space_to_batch_nd_shape)
register_op("BatchToSpaceND").input("input: T").input("block_shape: Tblock_shape").input(
    "crops: Tcrops").output("output: T").attr("T: type").attr(
    "Tblock_shape: " + _INDEX_TYPES).attr("Tcrops: " + _INDEX_TYPES).set_shape_fn(
    _batch_to_space_nd_shape)


def _depth_shape(op, to_depth):
    """NHWC (or NCHW): H and W divided (or multiplied) by the block, C the other way."""
    in_shape = with_rank(op.inputs[0].shape, 4)
    if in_shape.ndims is None:
        return [in_shape]
    block = op.get_attr("block_size")
    if block < 2:
        raise ValueError("Attr 'block_size' must be at least 2, got %d" % block)
    nchw = op.get_attr("data_format") == "NCHW"
    n, h, w, c = (in_shape.as_list()[i] for i in ((0, 2, 3, 1) if nchw else (0, 1, 2, 3)))
    if to_depth:
        for d in (h, w):
            if d is not None and d % block:
                raise ValueError("Dimension size must be evenly divisible by %d but is %d"
                                 % (block, d))
        h, w = (None if d is None else d // block for d in (h, w))
        c = None if c is None else c * block * block
    else:
        if c is not None and c % (block * block):
            raise ValueError("Dimension size must be evenly divisible by %d but is %d"
                             % (block * block, c))
        h, w = (None if d is None else d * block for d in (h, w))
        c = None if c is None else c // (block * block)
    return [tensor_shape.TensorShape([n, c, h, w] if nchw else [n, h, w, c])]


for _op_type, _to_depth in (("SpaceToDepth", True), ("DepthToSpace", False)):
    register_op(_op_type).input("input: T").output("output: T").attr("T: type").attr(
        "block_size: int >= 2").attr(
        "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'").set_shape_fn(
        lambda op, to_depth=_to_depth: _depth_shape(op, to_depth))


# =============================================================================
# Patches: ExtractImagePatches, ExtractVolumePatches
# =============================================================================

def _patches_shape(op, spatial_rank):
    """[batch, output positions..., every tap of the window * channels]."""
    in_shape = with_rank(op.inputs[0].shape, spatial_rank + 2)
    ksizes, strides = op.get_attr("ksizes"), op.get_attr("strides")
    rates = op.get_attr("rates") if spatial_rank == 2 else [1] * (spatial_rank + 2)
    for name, values in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
        if len(values) != spatial_rank + 2:
            raise ValueError("%s input must be a list of length %d, got %d"
                             % (name, spatial_rank + 2, len(values)))
    if in_shape.ndims is None:
        return [in_shape]
    dims = in_shape.as_list()
    taps = math.prod(ksizes[1:-1])
    out_dims = []
    for i in range(1, spatial_rank + 1):
        effective = ksizes[i] + (ksizes[i] - 1) * (rates[i] - 1)
        out_dims.append(_window_output_size(dims[i], effective, strides[i],
                                            op.get_attr("padding")))
    depth = None if dims[-1] is None else dims[-1] * taps
    return [tensor_shape.TensorShape([dims[0]] + out_dims + [depth])]


def _window_output_size(size, window, stride, padding):
    if size is None:
        return None
    if padding == "VALID":
        if size < window:
            raise ValueError("Computed output size would be negative: %d [input_size: %d, "
                             "effective_filter_size: %d, stride: %d]"
                             % ((size - window) // stride + 1, size, window, stride))
        return (size - window) // stride + 1
    return -(-size // stride)


register_op("ExtractImagePatches").input("images: T").output("patches: T").attr(
    "ksizes: list(int) >= 4").attr("strides: list(int) >= 4").attr(
    "rates: list(int) >= 4").attr("T: type").attr(
    "padding: {'SAME', 'VALID'}").set_shape_fn(lambda op: _patches_shape(op, 2))
register_op("ExtractVolumePatches").input("input: T").output("patches: T").attr(
    "ksizes: list(int) >= 5").attr("strides: list(int) >= 5").attr("T: type").attr(
    "padding: {'SAME', 'VALID'}").set_shape_fn(lambda op: _patches_shape(op, 3))


# =============================================================================
# Fingerprint, EditDistance, DynamicStitch
# =============================================================================

def _fingerprint_shape(op):
    """[rows, 8]: eight bytes of FarmHash per row of data."""
    data_shape = with_rank_at_least(op.inputs[0].shape, 1)
    with_rank(op.inputs[1].shape, 0)
    method = constant_value(op.inputs[1])
    if method is not None:
        method = method.item() if isinstance(method, np.ndarray) else method
        method = method.decode("utf-8") if isinstance(method, bytes) else method
        if method != "farmhash64":
            raise ValueError("Unsupported method: %s" % method)
    rows = data_shape[0] if data_shape.ndims is not None else None
    return [tensor_shape.TensorShape([rows, 8])]


register_op("Fingerprint").input("data: T").input("method: string").output(
    "fingerprint: uint8").attr("T: type").set_shape_fn(_fingerprint_shape)


def _edit_distance_shape(op):
    """A float per position of the shapes without their last (sequence) dimension."""
    for i in (0, 3):
        with_rank(op.inputs[i].shape, 2)
    for i in (2, 5):
        with_rank(op.inputs[i].shape, 1)
    shapes = [constant_value(op.inputs[i]) for i in (2, 5)]
    if any(s is None for s in shapes):
        rank = op.inputs[2].shape[0].value
        return [tensor_shape.unknown_shape(None if rank is None else rank - 1)]
    hypothesis, truth = (np.asarray(s).reshape(-1) for s in shapes)
    if len(hypothesis) != len(truth):
        raise ValueError("Shapes must be equal rank, but are %d and %d"
                         % (len(hypothesis), len(truth)))
    return [tensor_shape.TensorShape(np.maximum(hypothesis, truth)[:-1].tolist())]


register_op("EditDistance").input("hypothesis_indices: int64").input(
    "hypothesis_values: T").input("hypothesis_shape: int64").input(
    "truth_indices: int64").input("truth_values: T").input("truth_shape: int64").output(
    "output: float32").attr("normalize: bool = true").attr("T: type").set_shape_fn(
    _edit_distance_shape)


def _dynamic_stitch_shape(op):
    """[max index + 1 when the indices are constants, else unknown] + data's trailing dims."""
    count = len(op.inputs) // 2
    row = tensor_shape.unknown_shape()
    largest = -1
    for index, data in zip(op.inputs[:count], op.inputs[count:]):
        if index.shape.ndims is not None and data.shape.ndims is not None:
            merge_shapes(data.shape[:index.shape.ndims], index.shape)
            row = merge_shapes(row, data.shape[index.shape.ndims:])
        values = constant_value(index)
        if values is None:
            largest = None
        elif largest is not None and np.size(values):
            largest = max(largest, int(np.max(values)))
    return [tensor_shape.TensorShape([None if largest is None else largest + 1]).concatenate(
        row)]


register_op("DynamicStitch").input("indices: N * int32").input("data: N * T").output(
    "merged: T").attr("N: int >= 1").attr("T: type").set_shape_fn(_dynamic_stitch_shape)
