"""Kernels of the array ops: constants, placeholders, shapes, slicing, joining.

Every kernel here is written once against `ctx.xp`, the device's array
module, so the same function serves the CPU (NumPy) and a GPU (CuPy).
Small integer arguments that steer a kernel (a Reshape's target shape, a
Transpose's permutation, a slice's begin) are read on the host with
`_host_ints`, as TensorFlow keeps them in host memory.

The strided-slice rules (`plan_strided_slice`) live here too: the
StridedSlice kernel follows them to cut its input, and the op's shape
function in `minitf/ops/array_ops.py` follows the same rules on a static
shape, as TensorFlow's kernel and shape function share
`tensorflow/core/util/strided_slice_op.cc`.

Mirrors `tensorflow/core/kernels/constant_op.cc`, `identity_op.cc`,
`reshape_op.h`, `transpose_op.cc`, `concat_op.cc`, `pack_op.cc`,
`split_op.cc`, `tile_ops.cc`, `pad_op.cc`, `mirror_pad_op.cc`,
`slice_op.cc`, `strided_slice_op.cc`, `gather_op.cc`, `gather_nd_op.cc`,
`one_hot_op.cc`, `shape_ops.h`, `reverse_op.cc`, `scatter_nd_op.cc`,
`broadcast_to_op.cc`, `bcast_ops.cc`, `inplace_ops.cc` (ParallelConcat),
`reverse_sequence_op.cc`, `roll_op.cc`, `bitcast_op.cc`, `guarantee_const_op.cc`,
`unravel_index_op.cc` and `fingerprint_op.cc`; the gradient
helpers StridedSliceGrad, MirrorPadGrad and ConcatOffset come from the same
files as their forward ops.
"""

import functools
import math

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.framework.strided_slice import plan_strided_slice
from minitf.graph import farmhash
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import on_device
from minitf.kernels.kernel_util import shape_text
from minitf.kernels.kernel_util import text
from minitf.kernels.kernel_util import tf_type_name
from minitf.kernels.cpu.nn_kernels import parallel_dynamic_stitch


def _host_ints(ctx, value):
    """A small integer tensor (shape, axis list, begin, ...) as a list of Python ints."""
    return list(map(int, host_array(ctx, value).reshape(-1).tolist()))


def _host_int(ctx, value):
    return int(host_array(ctx, value).reshape(-1)[0])


# --- constants, placeholders, identities ---------------------------------------------

@register_kernel("Const", ALL_DEVICE_TYPES, is_expensive=False)
def const(ctx, *, value):
    return ctx.device.copy_to_device(value) if not ctx.device.is_host else value


@register_kernel("Placeholder", ALL_DEVICE_TYPES, is_expensive=False)
def placeholder(ctx, *, dtype, shape):
    raise invalid("You must feed a value for placeholder tensor '%s' with dtype %s%s"
                  % (ctx.node_name, tf_type_name(dtype),
                     "" if shape.dims is None else " and shape [%s]" % ",".join(
                         "?" if d is None else str(d) for d in shape.as_list())))


@register_kernel("PlaceholderWithDefault", ALL_DEVICE_TYPES, is_expensive=False)
def placeholder_with_default(ctx, value):
    return value


@register_kernel("Identity", ALL_DEVICE_TYPES, is_expensive=False)
def identity(ctx, value):
    return value


@register_kernel("RefIdentity", ALL_DEVICE_TYPES, is_expensive=False)
def ref_identity(ctx, ref):
    return ref  # the variable itself (a Var), not its value


@register_kernel("IdentityN", ALL_DEVICE_TYPES, is_expensive=False)
def identity_n(ctx, *values):
    return list(values)


@register_kernel("StopGradient", ALL_DEVICE_TYPES, is_expensive=False)
def stop_gradient(ctx, value):
    return value


@register_kernel("PreventGradient", ALL_DEVICE_TYPES, is_expensive=False)
def prevent_gradient(ctx, value):
    return value


@register_kernel("NoOp", ALL_DEVICE_TYPES, is_expensive=False)
def no_op(ctx):
    return None


# --- shape metadata --------------------------------------------------------------------

@register_kernel("Shape", ALL_DEVICE_TYPES, is_expensive=False)
def shape(ctx, value, *, out_type):
    return on_device(ctx, np.array(value.shape, dtype=out_type.as_numpy_dtype))


@register_kernel("Size", ALL_DEVICE_TYPES, is_expensive=False)
def size(ctx, value, *, out_type):
    return on_device(ctx, np.array(int(np.prod(value.shape)), dtype=out_type.as_numpy_dtype))


@register_kernel("ShapeN", ALL_DEVICE_TYPES, is_expensive=False)
def shape_n(ctx, *values, out_type):
    return [on_device(ctx, np.array(v.shape, dtype=out_type.as_numpy_dtype)) for v in values]


@register_kernel("Rank", ALL_DEVICE_TYPES, is_expensive=False)
def rank(ctx, value):
    return on_device(ctx, np.array(value.ndim, dtype=np.int32))


# --- reshaping ---------------------------------------------------------------------------

def _resolve_reshape_sizes(num_elements, sizes):
    """The requested shape with its one -1 filled in, checked against the element count."""
    unknown_index = None
    product = 1
    for d, size_d in enumerate(sizes):
        if size_d == -1:
            if unknown_index is not None:
                raise invalid("Only one input size may be -1, not both %d and %d"
                              % (unknown_index, d))
            unknown_index = d
        elif size_d < 0:
            raise invalid("Size %d must be non-negative, not %d" % (d, size_d))
        else:
            product *= size_d
    sizes = list(sizes)
    if unknown_index is not None:
        if product == 0:
            raise invalid("Reshape cannot infer the missing input size for an empty tensor "
                          "unless all specified input sizes are non-zero")
        if num_elements % product:
            raise invalid("Input to reshape is a tensor with %d values, but the requested "
                          "shape requires a multiple of %d" % (num_elements, product))
        sizes[unknown_index] = num_elements // product
        product *= sizes[unknown_index]
    if product != num_elements:
        raise invalid("Input to reshape is a tensor with %d values, but the requested shape "
                      "has %d" % (num_elements, product))
    return sizes


@register_kernel("Reshape", ALL_DEVICE_TYPES, is_expensive=False)
def reshape(ctx, tensor, shape):
    if shape.ndim > 1:
        raise invalid("sizes input must be 1-D, not %s" % shape_text(shape.shape))
    sizes = _resolve_reshape_sizes(math.prod(tensor.shape), _host_ints(ctx, shape))
    return ctx.xp.reshape(tensor, tuple(sizes))  # a view: reshaping moves no data


@register_kernel("ExpandDims", ALL_DEVICE_TYPES, is_expensive=False)
def expand_dims(ctx, value, dim):
    dims = _host_ints(ctx, dim)
    if len(dims) != 1:
        raise invalid("'dim' must be a tensor with a single value")
    axis = dims[0]
    if not -1 - value.ndim <= axis <= value.ndim:
        raise invalid("Tried to expand dim index %d for tensor with %d dimensions."
                      % (axis, value.ndim))
    if axis < 0:
        axis += value.ndim + 1
    new_shape = value.shape[:axis] + (1,) + value.shape[axis:]
    return ctx.xp.reshape(value, new_shape)


@register_kernel("Squeeze", ALL_DEVICE_TYPES, is_expensive=False)
def squeeze(ctx, value, *, squeeze_dims):
    wanted = set()
    for axis in squeeze_dims:
        if not -value.ndim <= axis < value.ndim:
            raise invalid("Tried to squeeze dim index %d for tensor with %d dimensions."
                          % (axis, value.ndim))
        wanted.add(axis % value.ndim)
    new_shape = []
    for i, d in enumerate(value.shape):
        if i in wanted:
            if d != 1:
                raise invalid("Can not squeeze dim[%d], expected a dimension of 1, got %d"
                              % (i, d))
        elif squeeze_dims or d != 1:
            new_shape.append(d)
    return ctx.xp.reshape(value, tuple(new_shape))


@register_kernel("Transpose", ALL_DEVICE_TYPES)
def transpose(ctx, x, perm):
    perm = _host_ints(ctx, perm)
    if len(perm) != x.ndim:
        raise invalid("transpose expects a vector of size %d. But input(1) is a vector of "
                      "size %d" % (x.ndim, len(perm)))
    for d in perm:
        if not 0 <= d < x.ndim:
            raise invalid("%d is out of range [0 .. %d)" % (d, x.ndim))
    for i in range(x.ndim):
        if i not in perm:
            raise invalid("%d is missing from {%s}." % (i, ",".join(str(d) for d in perm)))
    return ctx.xp.transpose(x, tuple(perm))


@register_kernel("Diag", ALL_DEVICE_TYPES)
def diag(ctx, diagonal):
    """output[i1..ik, i1..ik] = diagonal[i1..ik], zero elsewhere (rank k becomes 2k)."""
    if diagonal.ndim == 0:
        raise invalid("Input must be at least rank 1, got 0")
    xp = ctx.xp
    size = diagonal.size
    output = xp.zeros((size, size), dtype=diagonal.dtype)
    output[xp.arange(size), xp.arange(size)] = diagonal.reshape(-1)
    return output.reshape(diagonal.shape + diagonal.shape)


@register_kernel("DiagPart", ALL_DEVICE_TYPES)
def diag_part(ctx, tensor):
    """diagonal[i1..ik] = input[i1..ik, i1..ik]: Diag undone."""
    if tensor.ndim % 2 != 0 or tensor.ndim == 0:
        raise invalid("The rank of the tensor should be even and positive, got shape %s"
                      % shape_text(tensor.shape))
    half = tensor.ndim // 2
    for i in range(half):
        if tensor.shape[i] != tensor.shape[i + half]:
            raise invalid("Invalid shape %s: dimensions %d and %d do not match."
                          % (shape_text(tensor.shape), i, i + half))
    size = math.prod(tensor.shape[:half])
    xp = ctx.xp
    return tensor.reshape(size, size)[xp.arange(size), xp.arange(size)].reshape(
        tensor.shape[:half])


@register_kernel("InvertPermutation", ALL_DEVICE_TYPES)
def invert_permutation(ctx, x):
    if x.ndim != 1:
        raise invalid("invert_permutation expects a 1D vector.")
    values = _host_ints(ctx, x)
    seen = set()
    for v in values:
        if not 0 <= v < len(values):
            raise invalid("%d is not between 0 and %d" % (v, len(values)))
        if v in seen:
            raise invalid("%d is duplicated in the input." % v)
        seen.add(v)
    inverse = np.empty(len(values), dtype=x.dtype)
    inverse[values] = np.arange(len(values))
    return on_device(ctx, inverse)


# --- joining and splitting ---------------------------------------------------------------

@register_kernel("ConcatV2", ALL_DEVICE_TYPES)
def concat_v2(ctx, *values_and_axis):
    values, axis = values_and_axis[:-1], _host_int(ctx, values_and_axis[-1])
    first = values[0]
    if first.ndim == 0:
        raise invalid("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -first.ndim <= axis < first.ndim:
        raise invalid("ConcatOp : Expected concatenating dimensions in the range [%d, %d), "
                      "but got %d" % (-first.ndim, first.ndim, axis))
    axis %= first.ndim
    for i, value in enumerate(values[1:], start=1):
        if value.ndim != first.ndim:
            raise invalid("ConcatOp : Ranks of all input tensors should match: shape[0] = %s "
                          "vs. shape[%d] = %s" % (shape_text(first.shape), i,
                                                  shape_text(value.shape)))
        for d in range(first.ndim):
            if d != axis and value.shape[d] != first.shape[d]:
                raise invalid("ConcatOp : Dimension %d in both shapes must be equal: "
                              "shape[0] = %s vs. shape[%d] = %s"
                              % (d, shape_text(first.shape), i, shape_text(value.shape)))
    return ctx.xp.concatenate(values, axis=axis)


@register_kernel("ConcatOffset", ALL_DEVICE_TYPES, is_expensive=False)
def concat_offset(ctx, concat_dim, *shapes):
    """offset[i][axis] = the sizes of inputs 0..i-1 along the concat axis; 0 elsewhere."""
    shapes = [_host_ints(ctx, s) for s in shapes]
    rank, cdim = len(shapes[0]), _host_int(ctx, concat_dim)
    axis = cdim + rank if cdim < 0 else cdim
    if not 0 <= axis < rank:
        raise invalid("Concat dim is out of range: %d vs. %d" % (cdim, rank))
    offsets, position = [], 0
    for i, dims in enumerate(shapes):
        if len(dims) != rank:
            raise invalid("input %d should contain %d elements, but got %d"
                          % (i, rank, len(dims)))
        if any(d != d0 for j, (d, d0) in enumerate(zip(dims, shapes[0])) if j != axis):
            raise invalid("All dimensions except %d must match. Input %d has shape [%s] and "
                          "doesn't match input 0 with shape [%s]."
                          % (axis, i, " ".join(map(str, dims)),
                             " ".join(map(str, shapes[0]))))
        offset = np.zeros(rank, dtype=np.int32)
        offset[axis] = position
        offsets.append(on_device(ctx, offset))
        position += dims[axis]
    return offsets


@register_kernel("Pack", ALL_DEVICE_TYPES)
def pack(ctx, *values, axis):
    for i, value in enumerate(values[1:], start=1):
        if value.shape != values[0].shape:
            raise invalid("Shapes of all inputs must match: values[0].shape = %s != "
                          "values[%d].shape = %s" % (shape_text(values[0].shape), i,
                                                     shape_text(value.shape)))
    out_rank = values[0].ndim + 1
    if not -out_rank <= axis < out_rank:
        raise invalid("axis = %d not in [%d, %d)" % (axis, -out_rank, out_rank))
    return ctx.xp.stack(values, axis=axis)


@register_kernel("Unpack", ALL_DEVICE_TYPES)
def unpack(ctx, value, *, num, axis):
    if not -value.ndim <= axis < value.ndim:
        raise invalid("axis = %d not in [%d, %d)" % (axis, -value.ndim, value.ndim))
    axis %= value.ndim
    if value.shape[axis] != num:
        raise invalid("Input shape axis %d must equal %d, got shape %s"
                      % (axis, num, shape_text(value.shape)))
    moved = ctx.xp.moveaxis(value, axis, 0)
    return [moved[i] for i in range(num)]


def _split_axis(ndim, axis):
    if not -ndim <= axis < ndim:
        raise invalid("-input rank(-%d) <= split_dim < input rank (%d), but got %d"
                      % (ndim, ndim, axis))
    return axis % ndim


@register_kernel("Split", ALL_DEVICE_TYPES)
def split(ctx, split_dim, value, *, num_split):
    axis = _split_axis(value.ndim, _host_int(ctx, split_dim))
    if value.shape[axis] % num_split:
        raise invalid("Number of ways to split should evenly divide the split dimension, but "
                      "got split_dim %d (size = %d) and num_split %d"
                      % (axis, value.shape[axis], num_split))
    return list(ctx.xp.split(value, num_split, axis=axis))


def _resolve_split_sizes(sizes, dim_size, num_split):
    if len(sizes) != num_split:
        raise invalid("Number of ways to split should match the number of size splits: "
                      "%d vs %d" % (num_split, len(sizes)))
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise invalid("There can only be one -1 in the input.")
    for i, s in enumerate(sizes):
        if s < -1:
            raise invalid("Split size at index %d must be >= 0. Got: %d" % (i, s))
    determined = sum(s for s in sizes if s != -1)
    if (unknown and determined > dim_size) or (not unknown and determined != dim_size):
        raise invalid("Determined shape must either match input shape along split_dim "
                      "exactly if fully specified, or be less than the size of the input "
                      "along split_dim if not fully specified.  Got: %d" % determined)
    sizes = list(sizes)
    if unknown:
        sizes[unknown[0]] = dim_size - determined
    return sizes


@register_kernel("SplitV", ALL_DEVICE_TYPES)
def split_v(ctx, value, size_splits, split_dim, *, num_split):
    axis = _split_axis(value.ndim, _host_int(ctx, split_dim))
    sizes = _resolve_split_sizes(_host_ints(ctx, size_splits), value.shape[axis], num_split)
    boundaries = np.cumsum(sizes)[:-1].tolist()
    return list(ctx.xp.split(value, boundaries, axis=axis))


@register_kernel("Tile", ALL_DEVICE_TYPES)
def tile(ctx, value, multiples):
    multiples = _host_ints(ctx, multiples)
    if len(multiples) != value.ndim:
        raise invalid("Expected multiples argument to be a vector of length %d but got "
                      "length %d" % (value.ndim, len(multiples)))
    for i, m in enumerate(multiples):
        if m < 0:
            raise invalid("Expected multiples[%d] >= 0, but got %d" % (i, m))
    return ctx.xp.tile(value, tuple(multiples))


# --- padding ------------------------------------------------------------------------------

def _paddings_pairs(ctx, value, paddings):
    if paddings.ndim != 2 or paddings.shape[1] != 2:
        raise invalid("paddings must be a matrix with 2 columns: %s"
                      % shape_text(paddings.shape))
    if paddings.shape[0] != value.ndim:
        raise invalid("The first dimension of paddings must be the rank of inputs%s %s"
                      % (shape_text(paddings.shape), shape_text(value.shape)))
    flat = _host_ints(ctx, paddings)
    return [(flat[2 * i], flat[2 * i + 1]) for i in range(value.ndim)]


@register_kernel("Pad", ALL_DEVICE_TYPES)
def pad(ctx, value, paddings):
    return _constant_pad(ctx, value, paddings, value.dtype.type(0) if value.dtype != object
                         else b"")


@register_kernel("PadV2", ALL_DEVICE_TYPES)
def pad_v2(ctx, value, paddings, constant_values):
    if constant_values.ndim != 0:
        raise invalid("constant_values must be a scalar. Got: %s"
                      % shape_text(constant_values.shape))
    return _constant_pad(ctx, value, paddings, host_array(ctx, constant_values)[()])


def _constant_pad(ctx, value, paddings, fill):
    pairs = _paddings_pairs(ctx, value, paddings)
    for before, after in pairs:
        if before < 0 or after < 0:
            raise invalid("Paddings must be non-negative: %d %d" % (before, after))
    if value.dtype == object:  # strings: np.pad cannot fill object arrays
        out = np.full([d + b + a for d, (b, a) in zip(value.shape, pairs)], fill, dtype=object)
        out[tuple(slice(b, b + d) for d, (b, _) in zip(value.shape, pairs))] = value
        return out
    return ctx.xp.pad(value, pairs, mode="constant", constant_values=fill)


@register_kernel("MirrorPad", ALL_DEVICE_TYPES)
def mirror_pad(ctx, value, paddings, *, mode):
    pairs = _paddings_pairs(ctx, value, paddings)
    for d, (before, after) in zip(value.shape, pairs):
        if before < 0 or after < 0:
            raise invalid("paddings must be non-negative: %d %d" % (before, after))
        if mode == "SYMMETRIC" and (before > d or after > d):
            raise invalid("paddings must be no greater than the dimension size: %d, %d "
                          "greater than %d" % (before, after, d))
        if mode == "REFLECT" and (before >= d or after >= d):
            raise invalid("paddings must be less than the dimension size: %d, %d not less "
                          "than %d" % (before, after, d))
    # NumPy's "reflect" leaves the edge out and "symmetric" repeats it: TF's two modes.
    return ctx.xp.pad(value, pairs, mode=mode.lower())


def _along(axis, start, stop):
    """The index that takes positions [start, stop) of dimension `axis` (all of the others)."""
    return (slice(None),) * axis + (slice(start, stop),)


def _fold_mirrored_borders(xp, grad, axis, before, after, mode):
    """Along `axis`: the interior of `grad`, plus each border added back where it was copied from.

    A REFLECT border copies the values next to the edge, a SYMMETRIC one
    the edge too, so the reversed border lands one position further in for REFLECT.
    """
    size = grad.shape[axis] - before - after
    shift = 1 if mode == "REFLECT" else 0

    def zeros(length):
        shape = list(grad.shape)
        shape[axis] = length
        return xp.zeros(tuple(shape), dtype=grad.dtype)

    interior = grad[_along(axis, before, before + size)]
    left = xp.flip(grad[_along(axis, 0, before)], axis=axis)
    right = xp.flip(grad[_along(axis, before + size, before + size + after)], axis=axis)
    left = xp.concatenate([zeros(shift), left, zeros(size - shift - before)], axis=axis)
    right = xp.concatenate([zeros(size - shift - after), right, zeros(shift)], axis=axis)
    return interior + left + right


@register_kernel("MirrorPadGrad", ALL_DEVICE_TYPES)
def mirror_pad_grad(ctx, grad, paddings, *, mode):
    pairs = _paddings_pairs(ctx, grad, paddings)
    for d, (before, after) in zip(grad.shape, pairs):
        size = d - before - after
        if before < 0 or after < 0:
            raise invalid("Paddings must be non-negative: %d %d" % (before, after))
        if mode == "REFLECT" and (before >= size or after >= size):
            raise invalid("paddings must be less than the output dimension size: %d, %d not "
                          "less than %d" % (before, after, size))
        if mode == "SYMMETRIC" and (before > size or after > size):
            raise invalid("paddings must be no greater than the output dimension size: %d, "
                          "%d greater than %d" % (before, after, size))
    for axis, (before, after) in enumerate(pairs):
        grad = _fold_mirrored_borders(ctx.xp, grad, axis, before, after, mode)
    return grad


# --- slicing ------------------------------------------------------------------------------

@register_kernel("Slice", ALL_DEVICE_TYPES)
def slice_(ctx, value, begin, size):
    if (begin.ndim != 1 or size.ndim != 1 or begin.shape[0] != value.ndim
            or size.shape[0] != value.ndim):
        raise invalid("Expected begin and size arguments to be 1-D tensors of size %d, but "
                      "got shapes %s and %s instead." % (value.ndim, shape_text(begin.shape),
                                                         shape_text(size.shape)))
    index = []
    for i, (b, s, d) in enumerate(zip(_host_ints(ctx, begin), _host_ints(ctx, size),
                                      value.shape)):
        if s == -1:
            s = d - b
        if d == 0:
            if b != 0 or s != 0:
                raise invalid("Expected begin[%d] == 0 (got %d) and size[%d] == 0 (got %d) "
                              "when input.dim_size(%d) == 0" % (i, b, i, s, i))
        else:
            if not 0 <= b <= d:
                raise invalid("Expected begin[%d] in [0, %d], but got %d" % (i, d, b))
            if not 0 <= s or b + s > d:
                raise invalid("Expected size[%d] in [0, %d], but got %d" % (i, d - b, s))
        index.append(slice(b, b + s))
    return value[tuple(index)]


@register_kernel("StridedSlice", ALL_DEVICE_TYPES)
def strided_slice(ctx, value, begin, end, strides, *, begin_mask, end_mask, ellipsis_mask,
                  new_axis_mask, shrink_axis_mask):
    try:
        index, final_shape = _planned_slice(
            tuple(value.shape), tuple(_host_ints(ctx, begin)), tuple(_host_ints(ctx, end)),
            tuple(_host_ints(ctx, strides)), begin_mask, end_mask, ellipsis_mask,
            new_axis_mask, shrink_axis_mask)
    except ValueError as e:
        raise invalid(str(e)) from None
    return ctx.xp.reshape(value[index], final_shape)


@functools.lru_cache(maxsize=1024)
def _planned_slice(shape, begin, end, strides, *masks):
    """(Python index, final shape) of a strided slice, remembered: a step slices the
    same shapes the same way every time."""
    plan = plan_strided_slice(list(shape), list(begin), list(end), list(strides), *masks)
    return plan.python_index(), tuple(plan.final_shape)


@register_kernel("StridedSliceGrad", ALL_DEVICE_TYPES)
def strided_slice_grad(ctx, shape, begin, end, strides, dy, *, begin_mask, end_mask,
                       ellipsis_mask, new_axis_mask, shrink_axis_mask):
    """Zeros of the sliced input's `shape`, with `dy` written where the slice came from."""
    if shape.ndim != 1:
        raise invalid("shape must be 1-D, got shape %s" % shape_text(shape.shape))
    input_shape = _host_ints(ctx, shape)
    try:
        plan = plan_strided_slice(input_shape, _host_ints(ctx, begin), _host_ints(ctx, end),
                                  _host_ints(ctx, strides), begin_mask, end_mask,
                                  ellipsis_mask, new_axis_mask, shrink_axis_mask)
    except ValueError as e:
        raise invalid(str(e)) from None
    if list(dy.shape) != plan.final_shape:
        raise invalid("shape of dy was %s instead of %s"
                      % (shape_text(dy.shape), shape_text(plan.final_shape)))
    result = ctx.xp.zeros(tuple(input_shape), dtype=dy.dtype)
    result[plan.python_index()] = ctx.xp.reshape(dy, tuple(plan.processing_shape))
    return result


@register_kernel("ReverseV2", ALL_DEVICE_TYPES)
def reverse_v2(ctx, tensor, axis):
    seen = []
    for i, a in enumerate(_host_ints(ctx, axis)):
        canonical = a + tensor.ndim if a < 0 else a
        if not 0 <= canonical < tensor.ndim:
            raise invalid("'axis'[%d] = %d is out of valid range [0, %d" % (i, a,
                                                                            tensor.ndim - 1))
        if canonical in seen:
            raise invalid("axis %d specified more than once." % canonical)
        seen.append(canonical)
    if not seen:
        return tensor
    return ctx.xp.flip(tensor, axis=tuple(seen))


# --- gathering ------------------------------------------------------------------------------

def _first_bad_index(host_indices, limit):
    """The position and value of the first index outside [0, limit), or None."""
    if host_indices.size == 0 or (host_indices.min() >= 0 and host_indices.max() < limit):
        return None  # the common case, found with two reductions
    bad = np.argwhere((host_indices < 0) | (host_indices >= limit))
    if not len(bad):
        return None
    position = tuple(int(p) for p in bad[0])
    return position, int(host_indices[position])


@register_kernel("GatherV2", ALL_DEVICE_TYPES)
def gather_v2(ctx, params, indices, axis, *, batch_dims):
    xp = ctx.xp
    axis = _host_int(ctx, axis)
    if not -params.ndim <= axis < params.ndim:
        raise invalid("Expected axis in the range [%d, %d), but got %d"
                      % (-params.ndim, params.ndim, axis))
    axis %= params.ndim
    if batch_dims < 0:
        batch_dims += indices.ndim
    if batch_dims > axis:
        raise invalid("batch_dims (%d) must be less than or equal to axis (%d)."
                      % (batch_dims, axis))
    limit = params.shape[axis]
    bad = _first_bad_index(host_array(ctx, indices), limit)
    if bad is not None:
        raise invalid("indices[%s] = %d is not in [0, %d)"
                      % (",".join(str(p) for p in bad[0]), bad[1], limit))
    if batch_dims == 0:
        return xp.take(params, indices, axis=axis)
    return _batched_gather(xp, params, indices, axis, batch_dims)


def _batched_gather(xp, params, indices, axis, batch_dims):
    """Gather with leading batch dimensions: batch b of `indices` picks from batch b of params."""
    batch_shape = params.shape[:batch_dims]
    if tuple(indices.shape[:batch_dims]) != tuple(batch_shape):
        raise invalid("params.shape[:%d] = %s must equal indices.shape[:%d] = %s"
                      % (batch_dims, shape_text(batch_shape), batch_dims,
                         shape_text(indices.shape[:batch_dims])))
    out_shape = (tuple(params.shape[:axis]) + tuple(indices.shape[batch_dims:])
                 + tuple(params.shape[axis + 1:]))
    count = int(np.prod(batch_shape))
    if count == 0:
        return xp.reshape(xp.take(params, xp.reshape(indices, (-1,))[:0], axis=axis), out_shape)
    flat_params = xp.reshape(params, (count,) + tuple(params.shape[batch_dims:]))
    flat_indices = xp.reshape(indices, (count,) + tuple(indices.shape[batch_dims:]))
    pieces = [xp.take(flat_params[b], flat_indices[b], axis=axis - batch_dims)
              for b in range(count)]
    return xp.reshape(xp.stack(pieces), out_shape)


@register_kernel("GatherNd", ALL_DEVICE_TYPES)
def gather_nd(ctx, params, indices):
    xp = ctx.xp
    if indices.ndim < 1:
        raise invalid("indices must be at least a vector; got shape %s"
                      % shape_text(indices.shape))
    depth = indices.shape[-1]
    if depth > params.ndim:
        raise invalid("index innermost dimension length must be <= params rank; saw: %d vs. "
                      "%d" % (depth, params.ndim))
    batch_shape = tuple(indices.shape[:-1])
    count = int(np.prod(batch_shape))
    host_rows = host_array(ctx, indices).reshape(count, depth)
    limits = np.array(params.shape[:depth], dtype=np.int64)
    for n, row in enumerate(host_rows):
        if np.any(row < 0) or np.any(row >= limits):
            position = np.unravel_index(n, batch_shape) if batch_shape else ()
            raise invalid("indices[%s] = [%s] does not index into param shape %s"
                          % (",".join(str(int(p)) for p in position),
                             ", ".join(str(int(v)) for v in row), shape_text(params.shape)))
    slice_shape = tuple(params.shape[depth:])
    if depth == 0:  # every (empty) index picks the whole of params
        picked = xp.repeat(params[None], count, axis=0)
    else:
        rows = xp.reshape(indices, (count, depth))
        picked = params[tuple(rows[:, k] for k in range(depth))]
    return xp.reshape(picked, batch_shape + slice_shape)


@register_kernel("ScatterNd", ALL_DEVICE_TYPES)
def scatter_nd(ctx, indices, updates, shape):
    """Zeros of `shape`, with each updates[i] added at the index vector indices[i]."""
    xp = ctx.xp
    if shape.ndim != 1:
        raise invalid("Shape must be a vector, got shape %s" % shape_text(shape.shape))
    out_shape = tuple(_host_ints(ctx, shape))
    if indices.ndim < 1:
        raise invalid("indices must be at least a vector; got shape %s"
                      % shape_text(indices.shape))
    depth = indices.shape[-1]
    batch_shape = tuple(indices.shape[:-1])
    slice_shape = out_shape[depth:]
    if depth > len(out_shape) or tuple(updates.shape) != batch_shape + slice_shape:
        raise invalid("updates.shape %s must be indices.shape[:-1] + shape[indices.shape[-1]:] "
                      "= %s (indices.shape = %s, shape = %s)"
                      % (shape_text(updates.shape), shape_text(batch_shape + slice_shape),
                         shape_text(indices.shape), shape_text(out_shape)))
    count = int(np.prod(batch_shape))
    host_rows = host_array(ctx, indices).reshape(count, depth)
    limits = np.array(out_shape[:depth], dtype=np.int64)
    for n, row in enumerate(host_rows):
        if np.any(row < 0) or np.any(row >= limits):
            raise invalid("indices[%d] = [%s] does not index into shape %s"
                          % (n, ", ".join(str(int(v)) for v in row), shape_text(out_shape)))
    rows = xp.reshape(indices, (count, depth))
    values = xp.reshape(updates, (count,) + slice_shape)
    result = xp.zeros(out_shape, dtype=updates.dtype)
    # ufunc.at adds every occurrence of a repeated index (plain indexing would keep one).
    xp.add.at(result, tuple(rows[:, k] for k in range(depth)), values)
    return result


# --- creating ---------------------------------------------------------------------------------

@register_kernel("OneHot", ALL_DEVICE_TYPES)
def one_hot(ctx, indices, depth, on_value, off_value, *, axis):
    xp = ctx.xp
    output_rank = indices.ndim + 1
    if not (axis == -1 or 0 <= axis < output_rank):
        raise invalid("Expected axis to be -1 or between [0, %d).  But received: %d"
                      % (output_rank, axis))
    for name, value in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
        if value.ndim != 0:
            raise invalid("%s must be a scalar, but got: %s" % (name, shape_text(value.shape)))
    depth = _host_int(ctx, depth)
    if depth < 0:
        raise invalid("depth must be non-negative, got: %d" % depth)
    # An index outside [0, depth) matches no position: its row is all off_value.
    hot = xp.reshape(indices, tuple(indices.shape) + (1,)) == xp.arange(depth)
    out = xp.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)
    if axis != -1:
        out = xp.moveaxis(out, -1, axis)
    return out


@register_kernel("Fill", ALL_DEVICE_TYPES)
def fill(ctx, dims, value):
    if dims.ndim != 1:
        raise invalid("dims must be a vector, got shape %s" % shape_text(dims.shape))
    if value.ndim != 0:
        raise invalid("value must be a scalar, got shape %s" % shape_text(value.shape))
    shape = _host_ints(ctx, dims)
    for d in shape:
        if d < 0:
            raise invalid("Dimension %d must be >= 0" % d)
    if value.dtype == object:
        return np.full(shape, value[()], dtype=object)
    return ctx.xp.full(tuple(shape), value, dtype=value.dtype)


@register_kernel("ZerosLike", ALL_DEVICE_TYPES)
def zeros_like(ctx, x):
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return ctx.xp.zeros_like(x)


@register_kernel("OnesLike", ALL_DEVICE_TYPES)
def ones_like(ctx, x):
    return ctx.xp.ones_like(x)


# =============================================================================
# Unique
# =============================================================================

@register_kernel("Unique", ALL_DEVICE_TYPES)
def unique(ctx, x, *, out_idx):
    """The distinct values in order of first appearance, and where each element went."""
    xp = ctx.xp
    if x.ndim != 1:
        raise invalid("unique expects a 1D vector.")
    values, first_positions, inverse = xp.unique(x, return_index=True, return_inverse=True)
    # np.unique sorts the values; TF keeps them in order of first appearance.
    order = xp.argsort(first_positions, kind="stable")
    new_position = xp.empty_like(order)
    new_position[order] = xp.arange(order.shape[0])
    y = values[order]
    idx = new_position[xp.reshape(inverse, (-1,))]
    return y, idx.astype(out_idx.as_numpy_dtype)


# =============================================================================
# Broadcasting
# =============================================================================

@register_kernel("BroadcastTo", ALL_DEVICE_TYPES)
def broadcast_to(ctx, value, shape):
    target = tuple(_host_ints(ctx, shape))
    try:
        np.broadcast_shapes(value.shape, target)
        if len(value.shape) > len(target) or np.broadcast_shapes(value.shape, target) != target:
            raise ValueError
    except ValueError:
        raise invalid("Incompatible shapes: %s vs. %s" % (shape_text(value.shape),
                                                          shape_text(target))) from None
    # A copy, not NumPy's read-only view: the output is a tensor of its own.
    return ctx.xp.broadcast_to(value, target).copy()


@register_kernel("BroadcastArgs", ALL_DEVICE_TYPES, is_expensive=False)
def broadcast_args(ctx, s0, s1):
    """The shape two tensors of shapes s0 and s1 broadcast to."""
    a, b = tuple(_host_ints(ctx, s0)), tuple(_host_ints(ctx, s1))
    try:
        shape = np.broadcast_shapes(a, b)
    except ValueError:
        raise invalid("Incompatible shapes: %s vs. %s" % (shape_text(a), shape_text(b))) from None
    return on_device(ctx, np.array(shape, dtype=host_array(ctx, s0).dtype))


# =============================================================================
# More joining and reordering
# =============================================================================

@register_kernel("ParallelConcat", ALL_DEVICE_TYPES)
def parallel_concat(ctx, *values, shape):
    """The inputs (each [1, ...]) one after another along dimension 0, into `shape`."""
    for i, value in enumerate(values):
        if value.ndim == 0 or value.shape[0] != 1 or (
                shape.ndims is not None and not shape[1:].is_compatible_with(value.shape[1:])):
            raise invalid("input %d of shape %s does not fit one row of shape %s"
                          % (i, shape_text(value.shape), shape))
    return ctx.xp.concatenate(values, axis=0)


@register_kernel("ReverseSequence", ALL_DEVICE_TYPES)
def reverse_sequence(ctx, value, seq_lengths, *, seq_dim, batch_dim):
    """In slice b along batch_dim, the first seq_lengths[b] elements along seq_dim reversed."""
    rank = value.ndim
    lengths = _host_ints(ctx, seq_lengths)
    if not (-rank <= batch_dim < rank and -rank <= seq_dim < rank):
        raise invalid("batch_dim %d and seq_dim %d must be in [%d, %d)"
                      % (batch_dim, seq_dim, -rank, rank))
    batch_dim, seq_dim = batch_dim % rank, seq_dim % rank
    if batch_dim == seq_dim:
        raise invalid("batch_dim == seq_dim == %d" % seq_dim)
    if seq_lengths.ndim != 1 or len(lengths) != value.shape[batch_dim]:
        raise invalid("Length of seq_lengths != input.dims(%d), (%d vs. %d)"
                      % (batch_dim, len(lengths), value.shape[batch_dim]))
    for b, n in enumerate(lengths):
        if n < 0:
            raise invalid("seq_lens(%d) < 0" % b)
        if n > value.shape[seq_dim]:
            raise invalid("seq_lens(%d) > input.dims(%d)" % (b, seq_dim))
    xp = ctx.xp
    # Position i of sequence b reads position n_b - 1 - i (i < n_b), or i itself.
    positions = xp.arange(value.shape[seq_dim])
    n = xp.asarray(np.array(lengths)).reshape(-1, 1)
    source = xp.where(positions < n, n - 1 - positions, positions)  # [batch, seq]
    moved = xp.moveaxis(value, (batch_dim, seq_dim), (0, 1))
    gathered = xp.take_along_axis(moved, source.reshape(source.shape + (1,) * (rank - 2)), 1)
    return xp.moveaxis(gathered, (0, 1), (batch_dim, seq_dim))


@register_kernel("Roll", ALL_DEVICE_TYPES)
def roll(ctx, value, shift, axis):
    shifts, axes = _host_ints(ctx, shift), _host_ints(ctx, axis)
    if shift.ndim > 1 or axis.ndim > 1:
        raise invalid("shift and axis must be scalars or vectors")
    if len(shifts) != len(axes):
        raise invalid("shift and axis must have the same size")
    total = [0] * value.ndim
    for s, a in zip(shifts, axes):
        if not -value.ndim <= a < value.ndim:
            raise invalid("axis %d is out of range" % a)
        total[a % value.ndim] += s  # shifts along a repeated axis add up
    moved = [(s, a) for a, s in enumerate(total) if s]
    if not moved:
        return value
    return ctx.xp.roll(value, [s for s, _ in moved], axis=[a for _, a in moved])


@register_kernel("Bitcast", ALL_DEVICE_TYPES)
def bitcast(ctx, value, *, T, type):  # noqa: A002, N803 - TF's attr names
    """The same bytes seen as `type`: a wider input gains an inner dimension, a narrower
    loses its innermost one."""
    size_in, size_out = T.size, type.size
    if size_in < size_out and (value.ndim == 0 or value.shape[-1] != size_out // size_in):
        raise invalid("Cannot bitcast from %d to %d: shape %s does not end in %d"
                      % (T.as_datatype_enum, type.as_datatype_enum, shape_text(value.shape),
                         size_out // size_in))
    contiguous = value.copy()  # C order, whatever layout the input had
    if size_in == size_out:
        return contiguous.view(type.as_numpy_dtype)
    if size_in > size_out:
        return contiguous.view(type.as_numpy_dtype).reshape(value.shape + (size_in // size_out,))
    return contiguous.view(type.as_numpy_dtype).reshape(value.shape[:-1])


# DynamicStitch is ParallelDynamicStitch run in order: where an index repeats, the
# later piece wins, which the one-pass kernel already guarantees.
register_kernel("DynamicStitch", ALL_DEVICE_TYPES)(parallel_dynamic_stitch)


@register_kernel("EnsureShape", ALL_DEVICE_TYPES, is_expensive=False)
def ensure_shape(ctx, value, *, shape, T):  # noqa: N803 - TF's attr name
    if not shape.is_compatible_with(value.shape):
        raise invalid("Shape of tensor %s is not compatible with expected shape %s."
                      % (shape_text(value.shape), shape))
    return value


@register_kernel("GuaranteeConst", ALL_DEVICE_TYPES, is_expensive=False)
def guarantee_const(ctx, value):
    return value


# =============================================================================
# UnravelIndex
# =============================================================================

@register_kernel("UnravelIndex", ALL_DEVICE_TYPES)
def unravel_index(ctx, indices, dims):
    """The coordinates, in a tensor of shape `dims`, of each flat index: [rank(dims), n]."""
    if indices.ndim > 1:
        raise invalid('The indices can only be scalar or vector, got "%s"'
                      % shape_text(indices.shape))
    if dims.ndim != 1:
        raise invalid('The indices can only be 1-D, got "%s"' % shape_text(dims.shape))
    shape = tuple(_host_ints(ctx, dims))
    flat = host_array(ctx, indices)
    if flat.size and (flat.min() < 0 or flat.max() >= math.prod(shape)):
        raise invalid("index is out of bound as with dims")
    coordinates = np.array(np.unravel_index(flat, shape), dtype=indices.dtype)
    return on_device(ctx, coordinates)


# =============================================================================
# Tensor scatters: a copy of `tensor` with the updates applied at indices
# =============================================================================

def scatter_nd_rows(ctx, tensor, indices, updates, op_type):
    """(index tuple, update rows) of a scatter into `tensor`, every index checked."""
    if indices.ndim < 1:
        raise invalid("Indices shape must have rank at least one. Found:%s"
                      % shape_text(indices.shape))
    depth = indices.shape[-1]
    batch_shape = tuple(indices.shape[:-1])
    slice_shape = tuple(tensor.shape[depth:])
    if depth > tensor.ndim or tuple(updates.shape) != batch_shape + slice_shape:
        raise invalid("%s: updates.shape %s must be indices.shape[:-1] + tensor.shape[%d:] = %s"
                      % (op_type, shape_text(updates.shape), depth,
                         shape_text(batch_shape + slice_shape)))
    count = int(np.prod(batch_shape))
    host_rows = host_array(ctx, indices).reshape(count, depth)
    limits = np.array(tensor.shape[:depth], dtype=np.int64)
    for n, row in enumerate(host_rows):
        if np.any(row < 0) or np.any(row >= limits):
            raise invalid("indices[%d] = [%s] does not index into shape %s"
                          % (n, ", ".join(str(int(v)) for v in row), shape_text(tensor.shape)))
    rows = ctx.xp.reshape(indices, (count, depth))
    return tuple(rows[:, k] for k in range(depth)), ctx.xp.reshape(updates, (count,) + slice_shape)


def _tensor_scatter_kernel(op_type, apply):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, tensor, indices, updates):
        where, rows = scatter_nd_rows(ctx, tensor, indices, updates, op_type)
        result = tensor.copy()  # the input tensor itself is never changed
        apply(ctx.xp, result, where, rows)
        return result
    return kernel


def _assign_rows(xp, result, where, rows):
    result[where] = rows  # of a repeated index, the last update is kept


_tensor_scatter_kernel("TensorScatterUpdate", _assign_rows)
_tensor_scatter_kernel("TensorScatterAdd", lambda xp, r, w, u: xp.add.at(r, w, u))
_tensor_scatter_kernel("TensorScatterSub", lambda xp, r, w, u: xp.subtract.at(r, w, u))
_tensor_scatter_kernel("TensorScatterMax", lambda xp, r, w, u: xp.maximum.at(r, w, u))
_tensor_scatter_kernel("TensorScatterMin", lambda xp, r, w, u: xp.minimum.at(r, w, u))


# =============================================================================
# Fingerprint
# =============================================================================

@register_kernel("Fingerprint", ("CPU",))
def fingerprint(ctx, data, method):
    """Eight bytes of FarmHash Fingerprint64 per row of `data` (little-endian).

    A row of numbers is hashed as its bytes; a row of strings as the
    fingerprints of its strings, one after another (a single string: its own).
    """
    method = text(host_array(ctx, method))
    if method != "farmhash64":
        raise invalid("Unsupported fingerprint method: %s" % method)
    if data.ndim == 0:
        raise invalid("`data` should have at least one dimension: %s" % shape_text(data.shape))
    host = host_array(ctx, data)
    rows = host.reshape(host.shape[0], -1) if host.size else host.reshape(host.shape[0], 0)
    out = np.empty((host.shape[0], 8), dtype=np.uint8)
    for i, row in enumerate(rows):
        if host.dtype == object:
            hashes = [farmhash.fingerprint64(s) for s in row]
            row_bytes = (b"".join(h.to_bytes(8, "little") for h in hashes)
                         if len(hashes) != 1 else None)
            value = hashes[0] if row_bytes is None else farmhash.fingerprint64(row_bytes)
        else:
            value = farmhash.fingerprint64(np.ascontiguousarray(row).tobytes())
        out[i] = np.frombuffer(value.to_bytes(8, "little"), dtype=np.uint8)
    return on_device(ctx, out)
