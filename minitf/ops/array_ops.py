"""Array ops: creating, shaping, slicing and joining tensors.

Each constructor ends in `apply_op`, which builds the op its OpDef
describes; the OpDefs and their shape functions are on the framework floor
(`minitf/framework/op_defs/array.py`). The shape functions follow
TensorFlow's C++ ones, so a mistake whose shapes are known while
building (reshaping 6 elements into 8, concatenating [2,3] with [2,2] along
axis 0...) is a ValueError at build time, and the same mistake hidden behind
a placeholder is an InvalidArgumentError from the kernel at run time.

Several public functions are composites, as in TensorFlow: `tf.zeros` is a
Const for a small known shape and a Fill otherwise, `tf.shape` of a fully
known shape is a Const, `tf.boolean_mask` is a Reshape, a Where and a
GatherV2. This module also installs `Tensor.__getitem__` (one StridedSlice
node) and the conversion that packs a list of tensors into one (`packed`).

The few math ops this module needs (Cast, Prod, Where) it builds with
`apply_op` itself, as TensorFlow's array_ops calls the generated
`gen_math_ops` rather than `math_ops`: math_ops is built on this module,
not the other way round.

Kernels live in `minitf/kernels/cpu/array_kernels.py`.

Mirrors `tensorflow/python/ops/array_ops.py`.
"""

import collections
import math
import numbers

import numpy as np

from minitf.framework import common_shapes
from minitf.framework.strided_slice import STRIDED_SLICE_MASKS
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import sparse_tensor
from minitf.graph import tensor_shape
from minitf.graph import tensor_util
from minitf.graph.constant_op import constant
from minitf.graph.op_def_library import apply_op
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.graph.tensor_conversion import register_tensor_conversion_function

# `slice` below is tf.slice; the indexing code needs Python's own.
_BaseSlice = slice

__all__ = ["unique", 
    "placeholder", "placeholder_with_default", "identity", "identity_n", "stop_gradient",
    "reshape", "transpose", "expand_dims", "squeeze", "invert_permutation", "diag", "diag_part",
    "concat", "stack", "unstack", "split", "tile", "pad",
    "slice", "strided_slice", "gather", "gather_nd", "boolean_mask", "reverse", "reverse_v2",
    "one_hot", "fill", "zeros", "ones", "zeros_like", "ones_like",
    "shape", "shape_n", "size", "rank", "newaxis", "scatter_nd",
]

newaxis = None
"""`x[tf.newaxis]` inserts a dimension of size 1, as in NumPy."""


# =============================================================================
# Placeholders, identities
# =============================================================================


def placeholder(dtype, shape=None, name=None):
    """A tensor whose value must be fed at run time (`feed_dict`)."""
    return apply_op("Placeholder", name=name, dtype=dtype, shape=tensor_shape.as_shape(shape))


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's argument name
    """Like a placeholder, but `input` is used when nothing is fed."""
    value = convert_to_tensor(input)
    shape = tensor_shape.as_shape(shape)
    value.shape.assert_is_compatible_with(shape)
    return apply_op("PlaceholderWithDefault", name=name, input=value, shape=shape,
                    dtype=value.dtype)


def identity(input, name=None):  # noqa: A002 - TF's argument name
    """A tensor with the same value as `input`."""
    return apply_op("Identity", name=name, input=input)


def stop_gradient(input, name=None):  # noqa: A002 - TF's argument name
    """The value of `input`, through which no gradient flows back."""
    return apply_op("StopGradient", name=name, input=input)


def prevent_gradient(input, message="", name=None):  # noqa: A002 - TF's argument name
    """The value of `input`; asking for a gradient through it raises LookupError(`message`)."""
    return apply_op("PreventGradient", name=name, input=input, message=message)


def identity_n(input, name=None):  # noqa: A002 - TF's argument name
    """A list of tensors with the same values as the list `input` (one IdentityN op)."""
    return list(apply_op("IdentityN", name=name, input=input))


# =============================================================================
# Shape metadata: Shape, Size, Rank
# =============================================================================


def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF's argument name
    """The shape of `input` as a 1-D tensor: a Const when the static shape is fully known."""
    return _shape_internal(input, name, optimize=True, out_type=out_type)


def _shape_internal(input, name=None, optimize=True, out_type=dtypes.int32):  # noqa: A002
    with ops.name_scope(name, "Shape", [input]) as name:
        if isinstance(input, sparse_tensor.SparseTensor):
            return _cast(input.dense_shape, out_type)
        input = convert_to_tensor(input)
        if optimize and input.shape.is_fully_defined():
            return constant(input.shape.as_list(), out_type, name=name)
        return apply_op("Shape", name=name, input=input, out_type=out_type)


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002 - TF's argument name
    """The shapes of the tensors in the list `input`, from one ShapeN op (never folded)."""
    return list(apply_op("ShapeN", name=name, input=input, out_type=out_type))


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF's argument name
    """The number of elements of `input`: a Const when the static shape tells it."""
    with ops.name_scope(name, "Size", [input]) as name:
        if isinstance(input, sparse_tensor.SparseTensor):
            return apply_op("Prod", name=name, input=_cast(input.dense_shape, out_type),
                            reduction_indices=0, keep_dims=False)
        input = convert_to_tensor(input)
        known = input.shape
        if known.is_fully_defined():
            return constant(known.num_elements(), out_type, name=name)
        if known.dims and any(d.value == 0 for d in known.dims):
            return constant(0, out_type, name=name)
        return apply_op("Size", name=name, input=input, out_type=out_type)


def rank(input, name=None):  # noqa: A002 - TF's argument name
    """The number of dimensions of `input`: a Const when the static rank is known."""
    with ops.name_scope(name, "Rank", [input]) as name:
        if isinstance(input, sparse_tensor.SparseTensor):
            return apply_op("Size", name=name, input=input.dense_shape)
        input = convert_to_tensor(input)
        if input.shape.ndims is not None:
            return constant(input.shape.ndims, dtypes.int32, name=name)
        return apply_op("Rank", name=name, input=input)


def _cast(x, dtype):
    """`x` as `dtype` through one Cast op; `x` itself when it has that dtype already."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if x.dtype.base_dtype == dtype:
        return x
    return apply_op("Cast", x=x, DstT=dtype)


# =============================================================================
# Reshaping: Reshape, ExpandDims, Squeeze, Transpose
# =============================================================================


def reshape(tensor, shape, name=None):
    """`tensor`'s elements in a new shape; one dimension may be -1 (inferred)."""
    return apply_op("Reshape", name=name, tensor=tensor, shape=shape)


def _deprecated_argument_lookup(new_name, new_value, old_name, old_value):
    if old_value is not None:
        if new_value is not None:
            raise ValueError("Cannot specify both '%s' and '%s'" % (old_name, new_name))
        return old_value
    return new_value


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002 - TF's argument name
    """`input` with a dimension of size 1 inserted at `axis` (`dim` is its old name)."""
    axis = _deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return apply_op("ExpandDims", name=name, input=input, dim=axis)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """`input` without the size-1 dimensions listed in `axis` (all of them by default)."""
    axis = _deprecated_argument_lookup("axis", axis, "squeeze_dims", squeeze_dims)
    if axis is None:
        axis = []
    elif np.isscalar(axis):
        axis = [axis]
    return apply_op("Squeeze", name=name, input=input, squeeze_dims=axis)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """`a` with its dimensions permuted by `perm`; by default, reversed (a matrix transpose).

    With conjugate=True complex numbers are conjugated too (reals are left as they are).
    """
    with ops.name_scope(name, "transpose", [a]) as name:
        a = convert_to_tensor(a, name="a")
        if conjugate and a.dtype.is_complex:
            a = apply_op("Conj", input=a)
        if perm is None:
            perm = _reversed_dimensions(a)
        return apply_op("Transpose", name=name, x=a, perm=perm)


def _reversed_dimensions(a):
    """[rank-1, ..., 1, 0]: a constant when the rank is known, else computed at run time."""
    if a.shape.ndims is not None:
        return np.arange(a.shape.ndims - 1, -1, -1, dtype=np.int32)
    a_rank = apply_op("Rank", input=a)
    return apply_op("Range", start=a_rank - 1, limit=-1, delta=-1)


def invert_permutation(x, name=None):
    """The permutation y with y[x[i]] = i."""
    return apply_op("InvertPermutation", name=name, x=x)


def diag(diagonal, name=None):
    """The tensor of rank 2k with `diagonal` (rank k) on its diagonal, zeros elsewhere."""
    return apply_op("Diag", name=name, diagonal=diagonal)


def diag_part(input, name=None):  # noqa: A002 - TF's argument name
    """The diagonal of a tensor of rank 2k: `input[i, ..., i, ...]`, of rank k."""
    return apply_op("DiagPart", name=name, input=input)


# =============================================================================
# Joining and splitting: ConcatV2, Pack, Unpack, Split, SplitV, Tile
# =============================================================================


def concat(values, axis, name="concat"):
    """The tensors of `values` joined along dimension `axis`."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        # Nothing to join: TensorFlow still checks `axis` and returns an identity.
        with ops.name_scope(name):
            axis_tensor = convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            common_shapes.with_rank(axis_tensor.shape, 0)
            return identity(values[0], name=name)
    return apply_op("ConcatV2", name=name, values=values, axis=axis)


def concat_offset(concat_dim, shape, name=None):
    """For each shape in `shape`, the offset of that input in their concat along `concat_dim`.

    offset[i] is zero everywhere except at concat_dim, where it is the sum of
    shape[j][concat_dim] for j < i.
    """
    return list(apply_op("ConcatOffset", name=name, concat_dim=concat_dim, shape=shape))


def stack(values, axis=0, name="stack"):
    """The tensors of `values` (all of one shape) stacked along a new dimension `axis`."""
    if axis == 0:
        try:
            # A list of plain values (or of tensors, auto-packed) converts directly.
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    first_shape = convert_to_tensor(values[0]).shape if len(values) else None
    if first_shape is not None and first_shape.ndims is not None:
        out_rank = first_shape.ndims + 1
        if not -out_rank <= axis < out_rank:
            raise ValueError("axis = %d not in [%d, %d)" % (axis, -out_rank, out_rank))
    return apply_op("Pack", name=name, values=values, axis=axis)


def unstack(value, num=None, axis=0, name="unstack"):
    """The `num` tensors obtained by slicing `value` along `axis` (num inferred if None)."""
    if num is None:
        value = convert_to_tensor(value)
        value_shape = value.shape
        if value_shape.ndims is not None:
            if not -value_shape.ndims <= axis < value_shape.ndims:
                raise ValueError("axis = %d not in [%d, %d)"
                                 % (axis, -value_shape.ndims, value_shape.ndims))
            num = value_shape[axis].value
        if num is None:
            raise ValueError("Cannot infer num from shape %s" % value_shape)
    return apply_op("Unpack", name=name, value=value, num=num, axis=axis)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """`value` cut along `axis` into `num_or_size_splits` equal pieces, or pieces of given sizes.

    A list of sizes may hold one -1, the rest of the dimension.
    """
    if isinstance(num_or_size_splits, (numbers.Integral, tensor_shape.Dimension)):
        return apply_op("Split", name=name, split_dim=axis, value=value,
                        num_split=int(num_or_size_splits))
    size_splits = convert_to_tensor(num_or_size_splits)
    if size_splits.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         "to split. Argument provided: %s" % (num_or_size_splits,))
    if num is None:
        if size_splits.shape.ndims is not None:
            num = size_splits.shape[0].value
        if num is None:
            raise ValueError("Cannot infer num from shape %s" % (num_or_size_splits,))
    return apply_op("SplitV", name=name, value=value, size_splits=size_splits, split_dim=axis,
                    num_split=num)


def tile(input, multiples, name=None):  # noqa: A002 - TF's argument name
    """`input` repeated `multiples[i]` times along each dimension i."""
    return apply_op("Tile", name=name, input=input, multiples=multiples)


# =============================================================================
# Padding: Pad, PadV2, MirrorPad
# =============================================================================


def mirror_pad_grad(input, paddings, mode, name=None):  # noqa: A002 - TF's argument name
    """The gradient of a mirror `tf.pad(x, paddings, mode)` w.r.t. x.

    `input` is the gradient of the padded output; each border is added back
    onto the values it mirrored.
    """
    return apply_op("MirrorPadGrad", name=name, input=input, paddings=paddings, mode=mode)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """`tensor` padded by paddings[i] = [before, after] along each dimension i.

    CONSTANT fills with `constant_values`; REFLECT and SYMMETRIC mirror the
    tensor, without or with its edge.
    """
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, ops.Tensor) and np.all(constant_values == 0):
            return apply_op("Pad", name=name, input=tensor, paddings=paddings)
        return apply_op("PadV2", name=name, input=tensor, paddings=paddings,
                        constant_values=constant_values)
    if mode in ("REFLECT", "SYMMETRIC"):
        return apply_op("MirrorPad", name=name, input=tensor, paddings=paddings, mode=mode)
    raise ValueError("Unknown padding mode: %s" % mode)


# =============================================================================
# Slicing: Slice, StridedSlice, Tensor.__getitem__, ReverseV2
# =============================================================================


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's public name
    """The block of `input_` starting at `begin` of extent `size` (-1: to the end)."""
    return apply_op("Slice", name=name, input=input_, begin=begin, size=size)


def strided_slice_grad(shape, begin, end, strides, dy, begin_mask=0, end_mask=0,
                       ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, name=None):
    """Zeros of `shape` with `dy` placed where `strided_slice` (same arguments) took its slice."""
    return apply_op("StridedSliceGrad", name=name, shape=shape, begin=begin, end=end,
                    strides=strides, dy=dy, begin_mask=begin_mask, end_mask=end_mask,
                    ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                    shrink_axis_mask=shrink_axis_mask)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """NumPy-style slicing spelled out: begin/end/strides plus bit masks.

    Bit i of `begin_mask`/`end_mask` ignores begin[i]/end[i] (the full range);
    of `ellipsis_mask` makes entry i a `...`; of `new_axis_mask` a new size-1
    dimension; of `shrink_axis_mask` an integer index that removes the dimension.
    """
    if strides is None:
        strides = ones_like(begin)
    result = apply_op("StridedSlice", name=name, input=input_, begin=begin, end=end,
                      strides=strides, begin_mask=begin_mask, end_mask=end_mask,
                      ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                      shrink_axis_mask=shrink_axis_mask)
    parent_name = result.op.name

    def assign(value, name=None):
        """`var[...] = value`: writes `value` into the sliced part of the variable."""
        if var is None:
            raise ValueError("Sliced assignment is only supported for variables")
        return var._strided_slice_assign(
            begin=begin, end=end, strides=strides, value=value,
            name=name or parent_name + "_assign", begin_mask=begin_mask, end_mask=end_mask,
            ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
            shrink_axis_mask=shrink_axis_mask)

    result.assign = assign
    return result


_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")


def _check_index(index):
    """TypeError unless `index` is an int or a scalar int32/int64 tensor (or array)."""
    if isinstance(index, numbers.Integral):
        return
    dtype = getattr(index, "dtype", None)
    try:
        dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
    except TypeError:
        dtype = None
    index_shape = getattr(index, "shape", None)
    is_vector = index_shape is not None and tensor_shape.as_shape(index_shape).ndims == 1
    if dtype not in (dtypes.int32, dtypes.int64) or is_vector:
        raise TypeError(_SLICE_TYPE_ERROR + ", got %r" % (index,))


def _plain_index(index):
    """A valid index as a Python int (NumPy ints included), a scalar tensor as it is.

    An unknown Dimension in a slice counts as a missing bound.
    """
    if isinstance(index, tensor_shape.Dimension):
        index = index.value
    if index is None:
        return None
    _check_index(index)
    return index if isinstance(index, ops.Tensor) else int(index)


def _slice_helper(tensor, slice_spec, var=None):
    """`tensor[slice_spec]`: NumPy basic indexing as one StridedSlice node.

    Each entry of the spec adds one element to begin, end and strides and
    maybe a bit to a mask: `a:b:c` (missing parts set begin_mask/end_mask),
    an integer (shrink_axis_mask), `...` (ellipsis_mask) or `tf.newaxis`
    (new_axis_mask). A boolean mask is handed to `tf.boolean_mask`.
    """
    if (isinstance(slice_spec, bool)
            or (isinstance(slice_spec, ops.Tensor) and slice_spec.dtype == dtypes.bool)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)):
        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    masks = dict.fromkeys(STRIDED_SLICE_MASKS, 0)
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, _BaseSlice):
            for value, values, mask in ((s.start, begin, "begin_mask"), (s.stop, end, "end_mask")):
                value = _plain_index(value)
                if value is None:
                    values.append(0)
                    masks[mask] |= bit
                else:
                    values.append(value)
            step = _plain_index(s.step)
            strides.append(1 if step is None else step)
        elif s is Ellipsis or s is newaxis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis_mask" if s is Ellipsis else "new_axis_mask"] |= bit
        else:
            s = _plain_index(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
    with ops.name_scope(None, "strided_slice", [tensor] + begin + end + strides) as name:
        if begin:
            begin, end, strides = _agree_on_index_dtype(begin, end, strides)
            packed_begin, packed_end, packed_strides = stack(begin), stack(end), stack(strides)
        else:
            packed_begin = packed_end = packed_strides = constant([], dtype=dtypes.int32)
        return strided_slice(tensor, packed_begin, packed_end, packed_strides, var=var,
                             name=name, **masks)


def _agree_on_index_dtype(*index_lists):
    """With any int64 index tensor, plain ints become int64 too (StridedSlice needs one type)."""
    wants_int64 = any(isinstance(v, ops.Tensor) and v.dtype.base_dtype == dtypes.int64
                      for values in index_lists for v in values)
    if not wants_int64:
        return index_lists
    return tuple([v if isinstance(v, ops.Tensor) else np.int64(v) for v in values]
                 for values in index_lists)


ops.Tensor._override_operator("__getitem__", _slice_helper)


def reverse(tensor, axis, name=None):
    """`tensor` with the order of elements reversed along each dimension in `axis`."""
    return apply_op("ReverseV2", name=name, tensor=tensor, axis=axis)


reverse_v2 = reverse


# =============================================================================
# Gathering: GatherV2, GatherNd, boolean_mask
# =============================================================================


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of `params` along `axis` picked by `indices`: out[..., i, ...] = params[..., indices[i], ...].

    An index outside [0, params.shape[axis]) is an InvalidArgumentError at
    run time. `validate_indices` is accepted and ignored, as in TensorFlow.
    """
    del validate_indices
    if axis is None:
        axis = batch_dims
    return apply_op("GatherV2", name=name, params=params, indices=indices, axis=axis,
                    batch_dims=batch_dims)


def gather_nd(params, indices, name=None, batch_dims=0):
    """Slices of `params` picked by index vectors: out[i] = params[indices[i][0], indices[i][1], ...]."""
    if batch_dims != 0:
        raise NotImplementedError("minitf supports gather_nd with batch_dims=0 only")
    return apply_op("GatherNd", name=name, params=params, indices=indices)


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of `shape` with updates[i] added at the index vector indices[i] (duplicates sum).

    The reverse of `gather_nd`, and its gradient.
    """
    return apply_op("ScatterNd", name=name, indices=indices, updates=updates, shape=shape)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The entries of `tensor` where `mask` is True (mask covers dims axis..axis+K-1).

    Built as TensorFlow builds it: flatten the masked dimensions into one
    (Reshape), find the True positions (Where), pick them (GatherV2).
    """
    with ops.name_scope(name, values=[tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                             "is not.")
        axis = 0 if axis is None else axis
        shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)

        leading_size = apply_op("Prod", input=shape(tensor)[axis:axis + ndims_mask],
                                reduction_indices=[0], keep_dims=False)
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size],
                                         shape(tensor)[axis + ndims_mask:]], 0))
        first_dim = shape_tensor[axis:axis + ndims_mask].num_elements()
        tensor.set_shape(tensor_shape.as_shape(shape_tensor[:axis]).concatenate(
            [first_dim]).concatenate(shape_tensor[axis + ndims_mask:]))

        mask = reshape(mask, [-1])
        indices = squeeze(apply_op("Where", input=mask), axis=[1])
        return gather(tensor, indices, axis=axis)


# =============================================================================
# Creating: Fill, zeros/ones, ZerosLike/OnesLike, OneHot
# =============================================================================


def fill(dims, value, name=None):
    """A tensor of shape `dims` with every element equal to the scalar `value`."""
    return apply_op("Fill", name=name, dims=dims, value=value)


_SMALL_CONSTANT = 1000  # below this many elements, zeros/ones are stored as a Const


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of `shape` filled with zeros (False, or "" for strings)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    zero = False if dtype == dtypes.bool else b"" if dtype == dtypes.string else 0
    return _filled(shape, zero, dtype, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of `shape` filled with ones (True for bool)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    one = True if dtype == dtypes.bool else 1
    return _filled(shape, one, dtype, name, "ones")


def _filled(shape, value, dtype, name, default_name):
    """`tf.zeros`/`tf.ones`: a Const for a small known shape, else a Fill.

    A big Const would bloat the GraphDef, so beyond _SMALL_CONSTANT elements
    (or when the shape is only known at run time) the value is a Fill.
    """
    with ops.name_scope(name, default_name, [shape]) as name:
        if not isinstance(shape, ops.Tensor):
            small = _constant_if_small(value, shape, dtype, name)
            if small is not None:
                return small
            shape = _shape_as_tensor(shape)
        if shape.shape.ndims in (None, 0):
            shape = reshape(shape, [-1])  # Fill wants a vector of dims
        return fill(shape, constant(value, dtype=dtype), name=name)


def _contains_tensor(value):
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return isinstance(value, ops.Tensor)


def _constant_if_small(value, shape, dtype, name):
    if _contains_tensor(shape):
        return None
    try:
        dims = tensor_shape.as_shape(shape).as_list()
    except (TypeError, ValueError):
        return None
    if None in dims or math.prod(dims) >= _SMALL_CONSTANT:
        return None
    return constant(value, dtype=dtype, shape=dims, name=name)


def _shape_as_tensor(shape):
    """A shape given as a list (maybe holding tensors) or TensorShape, as an int tensor."""
    try:
        dims = tensor_shape.as_shape(shape).as_list()
        if None not in dims:
            big = any(d >= 2 ** 31 for d in dims)
            return constant(dims, dtype=dtypes.int64 if big else dtypes.int32,
                            name="shape_as_tensor")
    except (TypeError, ValueError):
        pass
    return convert_to_tensor(shape, dtype=dtypes.int32)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros of `tensor`'s shape: a constant when that shape is fully known (and `optimize`)."""
    with ops.name_scope(name, "zeros_like", [tensor]) as name:
        tensor = convert_to_tensor(tensor, name="tensor")
        if optimize and tensor.shape.is_fully_defined():
            return zeros(tensor.shape.as_list(), dtype=dtype or tensor.dtype, name=name)
        if dtype is not None and dtypes.as_dtype(dtype) != tensor.dtype.base_dtype:
            return zeros(_shape_internal(tensor, optimize=optimize), dtype=dtype, name=name)
        return apply_op("ZerosLike", name=name, x=tensor)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones of `tensor`'s shape (a Fill whose dims are a Const when the shape is known)."""
    with ops.name_scope(name, "ones_like", [tensor]) as name:
        tensor = convert_to_tensor(tensor, name="tensor")
        ones_shape = _shape_internal(tensor, optimize=optimize)
        result = ones(ones_shape, dtype=dtype or tensor.dtype.base_dtype, name=name)
        result.set_shape(tensor.shape)
        return result


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """out[..., i, ...] = on_value where i == indices[...], else off_value.

    The dtype is `dtype`, else that of `on_value` or `off_value`, else float32;
    the values default to 1 and 0. The new axis of size `depth` goes at `axis`
    (-1, the default: last). An index outside [0, depth) gives a row of off_value.
    """
    with ops.name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as name:
        if on_value is not None:
            on_value = convert_to_tensor(on_value)
        if off_value is not None:
            off_value = convert_to_tensor(off_value)
        dtype = _one_hot_dtype(on_value, off_value, dtype)
        if on_value is None:
            on_value = convert_to_tensor(1, dtype, name="on_value")
        if off_value is None:
            off_value = convert_to_tensor(0, dtype, name="off_value")
        if on_value.dtype.base_dtype != off_value.dtype.base_dtype:
            raise TypeError("dtype %s of on_value does not match dtype %s of off_value"
                            % (on_value.dtype, off_value.dtype))
        return apply_op("OneHot", name=name, indices=indices, depth=depth, on_value=on_value,
                        off_value=off_value, axis=-1 if axis is None else axis)


def _one_hot_dtype(on_value, off_value, dtype):
    given = [(label, t.dtype.base_dtype) for label, t in (("on_value", on_value),
                                                            ("off_value", off_value))
             if t is not None]
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        for label, value_dtype in given:
            if value_dtype != dtype:
                raise TypeError("dtype %s of %s does not match dtype parameter %s"
                                % (value_dtype, label, dtype))
        return dtype
    return given[0][1] if given else dtypes.float32


# =============================================================================
# Auto-packing: a list holding tensors converts to one tensor (a Pack op)
# =============================================================================

def _is_tensor_like(value):
    return isinstance(value, ops.Tensor) or (
        hasattr(value, "_as_graph_element") and hasattr(value, "dtype"))


def _dtype_of_first_tensor(nested):
    for item in nested:
        if _is_tensor_like(item):
            return item.dtype.base_dtype
        if isinstance(item, (list, tuple)):
            found = _dtype_of_first_tensor(item)
            if found is not None:
                return found
    return None


def _cast_tensors(nested, dtype):
    if isinstance(nested, (list, tuple)):
        return [_cast_tensors(item, dtype) for item in nested]
    if _is_tensor_like(nested):
        return _cast(nested, dtype)
    return nested


def _autopacking_helper(list_or_tuple, dtype, name):
    """Packs a (nested) list of tensors and values into one tensor, inner lists first.

    Returns the list unchanged when no tensor was found inside it, so that
    an outer call can turn it into a constant.
    """
    must_pack = False
    converted = []
    with ops.name_scope(name) as scope:
        for i, item in enumerate(list_or_tuple):
            if _is_tensor_like(item):
                if item.dtype.base_dtype != dtype:
                    raise TypeError("Cannot convert a list containing a tensor of dtype %s to "
                                    "%s (Tensor is: %r)" % (item.dtype, dtype, item))
                must_pack = True
            elif isinstance(item, (list, tuple)):
                item = _autopacking_helper(item, dtype, str(i))
                must_pack = must_pack or _is_tensor_like(item)
            converted.append(item)
        if not must_pack:
            return converted
        tensors = [item if _is_tensor_like(item) else constant(item, dtype=dtype, name=str(i))
                   for i, item in enumerate(converted)]
        return apply_op("Pack", name=scope, values=tensors)


def _autopacking_conversion_function(value, dtype=None, name=None, as_ref=False):
    """The conversion of lists and tuples that hold tensors; NotImplemented for the others."""
    if as_ref:
        return NotImplemented
    inferred = _dtype_of_first_tensor(value)
    if inferred is None:
        return NotImplemented  # no tensor inside: a constant (priority 200) converts it
    if dtype is None:
        dtype = inferred
    elif dtypes.as_dtype(dtype).base_dtype != inferred:
        dtype = dtypes.as_dtype(dtype).base_dtype
        value = _cast_tensors(value, dtype)
    return _autopacking_helper(value, dtype, name or "packed")


# Runs before the constant conversion (priority 200), which assumes plain values.
register_tensor_conversion_function((list, tuple), _autopacking_conversion_function, 99)


# =============================================================================
# unique
# =============================================================================


def unique(x, out_idx=dtypes.int32, name=None):
    """`(y, idx)`: the distinct values of the 1-D `x` in order of first appearance,
    and for each element of `x` the position of its value in `y` (`x == y[idx]`).

    The optimizers use it to sum the gradient rows of repeated indices.
    """
    y, idx = apply_op("Unique", name=name, x=x, out_idx=out_idx)
    return y, idx


# =============================================================================
# unique_with_counts, setdiff1d, searchsorted, edit_distance
# =============================================================================

UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """`unique`'s (y, idx), and how many times each value of y occurs in the 1-D `x`."""
    return UniqueWithCounts(*apply_op("UniqueWithCounts", name=name, x=x, out_idx=out_idx))


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """(out, idx): the values of the 1-D `x` that are not in `y`, in order, and where they
    are in `x` (`out == gather(x, idx)`)."""
    return ListDiff(*apply_op("ListDiff", name=name, x=x, y=y, out_idx=index_dtype))


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Where each of `values` would be inserted into `sorted_sequence` to keep it sorted.

    Both have the same leading dimensions; the search runs along the last
    one, row by row. side "left" gives the first such place (LowerBound),
    "right" the last (UpperBound).
    """
    sequence_size = _shape_internal(sorted_sequence)[-1]
    values_size = _shape_internal(values)[-1]
    sorted_sequence_2d = reshape(sorted_sequence, [-1, sequence_size])
    values_2d = reshape(values, [-1, values_size])
    if side not in ("left", "right"):
        raise ValueError("Argument `side` must be either 'right' or 'left'. Received: `side` = "
                         "'%s'." % side)
    op_type = "UpperBound" if side == "right" else "LowerBound"
    output = apply_op(op_type, name=name, sorted_inputs=sorted_sequence_2d, values=values_2d,
                      out_type=out_type)
    return reshape(output, _shape_internal(values))


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences of two SparseTensors, position by
    position (the last dimension orders each sequence), divided by the truth's length when
    `normalize` (inf where the truth is empty)."""
    if not isinstance(hypothesis, (sparse_tensor.SparseTensor, sparse_tensor.SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (sparse_tensor.SparseTensor, sparse_tensor.SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    return apply_op("EditDistance", name=name, hypothesis_indices=hypothesis.indices,
                    hypothesis_values=hypothesis.values,
                    hypothesis_shape=hypothesis.dense_shape, truth_indices=truth.indices,
                    truth_values=truth.values, truth_shape=truth.dense_shape,
                    normalize=normalize)


# =============================================================================
# Broadcasting: broadcast_to, broadcast_dynamic_shape, broadcast_static_shape, meshgrid
# =============================================================================


def broadcast_to(input, shape, name=None):  # noqa: A002 - TF's argument name
    """`input` repeated along its size-1 (or missing leading) dimensions to `shape`."""
    return apply_op("BroadcastTo", name=name, input=input, shape=shape)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape (a 1-D tensor) that tensors of shapes `shape_x` and `shape_y` broadcast to."""
    return apply_op("BroadcastArgs", s0=shape_x, s1=shape_y)


def broadcast_static_shape(shape_x, shape_y):
    """The TensorShape that static shapes `shape_x` and `shape_y` broadcast to."""
    try:
        return common_shapes.broadcast_shapes(tensor_shape.as_shape(shape_x),
                                              tensor_shape.as_shape(shape_y))
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting: %s and %s"
                         % (shape_x, shape_y)) from None


def meshgrid(*args, **kwargs):
    """The coordinate grids of N vectors: N tensors, each of the N lengths' shape.

    indexing "xy" (Cartesian, the default) swaps the first two dimensions,
    as NumPy's meshgrid does; "ij" (matrix) keeps them in order.
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    for key in kwargs:
        raise TypeError("'%s' is an invalid keyword argument for this function" % key)
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got '%s'"
                         % indexing)
    with ops.name_scope(name, "meshgrid", args):
        ndim = len(args)
        ones_elsewhere = (1,) * ndim
        # Each vector becomes a tensor of rank N, long along its own dimension.
        output = [reshape(stack(x), ones_elsewhere[:i] + (-1,) + ones_elsewhere[i + 1:])
                  for i, x in enumerate(args)]
        shapes = [size(x) for x in args]
        output_dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = ones(shapes, output_dtype)
        return [x * mult_fact for x in output]


# =============================================================================
# Creating: sequence_mask, parallel_stack, repeat
# =============================================================================


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """mask[i..., j] = j < lengths[i...]: one row of `maxlen` (default max(lengths)) per length.

    Built as TensorFlow builds it: Range(0, maxlen) < ExpandDims(lengths, -1).
    """
    with ops.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = apply_op("Max", input=lengths, reduction_indices=_all_dimensions(lengths),
                              keep_dims=False)
            maxlen = apply_op("Maximum", x=constant(0, maxlen.dtype), y=maxlen)
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError("Argument `maxlen` must be scalar for sequence_mask, received "
                             "`maxlen` = %s with shape '%s' instead" % (maxlen, maxlen.shape))
        row_vector = apply_op("Range", start=constant(0, maxlen.dtype), limit=maxlen,
                              delta=constant(1, maxlen.dtype))
        # maxlen >= max(lengths), so the lengths fit maxlen's dtype.
        matrix = apply_op("Cast", x=expand_dims(lengths, -1), DstT=maxlen.dtype)
        result = apply_op("Less", x=row_vector, y=matrix)
        if dtype is None or result.dtype.base_dtype == dtypes.as_dtype(dtype).base_dtype:
            return result
        return apply_op("Cast", x=result, DstT=dtype)


def _all_dimensions(x):
    """[0, 1, ..., rank - 1] of `x`: a constant when its rank is known."""
    if x.shape.ndims is not None:
        return constant(np.arange(x.shape.ndims, dtype=np.int32))
    return apply_op("Range", start=0, limit=rank(x), delta=1)


def parallel_stack(values, name="parallel_stack"):
    """`stack(values)` as one ParallelConcat, which may copy each input as soon as it is
    ready; every value must have the first one's fully known shape."""
    with ops.name_scope(name):
        value_shape = convert_to_tensor(values[0]).shape
        output_shape = tensor_shape.TensorShape([len(values)]).concatenate(value_shape)
        return apply_op("ParallelConcat", values=[expand_dims(v, 0) for v in values],
                        shape=output_shape)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF's argument name
    """Each element (each slice along `axis`) of `input` repeated `repeats` times.

    `repeats` is one count for all, or one per slice. Without `axis`, `input`
    is flattened first. As in TensorFlow: tile every slice max(repeats) times,
    then keep the first repeats[i] copies of slice i with a sequence_mask.
    """
    if axis is None:
        input = reshape(input, [-1])  # noqa: A001
        axis = 0
    if not isinstance(axis, int):
        raise TypeError("axis must be an int; got %s" % type(axis).__name__)
    with ops.name_scope(name, "Repeat", [input, repeats]):
        data = convert_to_tensor(input, name="data")
        repeats = convert_to_tensor(repeats, name="repeats")
        if not repeats.dtype.is_integer:
            raise TypeError("repeats must be an integer tensor, got %s" % repeats.dtype)
        repeats = _cast(repeats, dtypes.int32)
        common_shapes.with_rank_at_most(repeats.shape, 1)
        if data.shape.ndims == 0:
            data = reshape(data, [1])
        data_shape = shape(data, out_type=repeats.dtype)
        if data.shape.ndims is None:
            raise ValueError("repeat needs the rank of `input` to be known")
        if not -data.shape.ndims <= axis < data.shape.ndims:
            raise ValueError("axis=%d out of bounds: expected %d<=axis<%d"
                             % (axis, -data.shape.ndims, data.shape.ndims))
        axis %= data.shape.ndims
        if repeats.shape.num_elements() == 1:
            return _repeat_each_by(data, data_shape, reshape(repeats, []), axis)
        return _repeat_by_counts(data, data_shape, repeats, axis)


def _repeat_each_by(data, data_shape, count, axis):
    """Every slice repeated `count` times: a tile of a new dimension, reshaped away."""
    tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, count)
    result_shape = concat([data_shape[:axis], [count * data_shape[axis]],
                           data_shape[axis + 1:]], axis=0)
    return reshape(tiled, result_shape)


def _repeat_by_counts(data, data_shape, repeats, axis):
    if repeats.shape.ndims == 1:
        data.shape.dims[axis].assert_is_compatible_with(repeats.shape[0])
    repeats = broadcast_to(repeats, [data_shape[axis]])
    max_repeat = apply_op("Max", input=repeats, reduction_indices=_all_dimensions(repeats),
                          keep_dims=False)
    max_repeat = apply_op("Maximum", x=convert_to_tensor(0, name="zero", dtype=max_repeat.dtype),
                          y=max_repeat)
    mask = sequence_mask(repeats, max_repeat)
    tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, max_repeat)
    # The mask keeps repeats[i] copies of slice i, and flattens the dims up to `axis`.
    result = boolean_mask(tiled, mask, axis=axis)
    new_axis_size = 0 if repeats.shape[0].value == 0 else None
    result.set_shape(data.shape[:axis].concatenate([new_axis_size]).concatenate(
        data.shape[axis + 1:]))
    return result


def _tile_one_dimension(data, axis, multiple):
    multiples = [1] * data.shape.ndims
    multiples[axis] = multiple
    return tile(data, multiples)


# =============================================================================
# Gathering and choosing: batch_gather, where_v2
# =============================================================================


def batch_gather(params, indices, name=None):
    """Deprecated: `gather(params, indices, axis=k, batch_dims=k)`, k = rank(indices) - 1:
    each row of indices picks from its own row of params."""
    with ops.name_scope(name, "BatchGather", [params, indices]):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if indices.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        batch_dims = indices.shape.ndims - 1
        return gather(params, indices, axis=batch_dims, batch_dims=batch_dims)


def where_v2(condition, x=None, y=None, name=None):
    """TF2's `tf.where`: x where `condition`, else y, the three broadcast against each other.

    With only `condition`: the coordinates of its true elements, as `tf.where`.
    """
    if x is None and y is None:
        return where_coordinates(condition, name)
    if x is not None and y is not None:
        return apply_op("SelectV2", name=name, condition=condition, t=x, e=y)
    raise ValueError("x and y must both be non-None or both be None.")


def where_coordinates(condition, name=None):
    """The coordinates of the true elements of `condition` (`tf.where` of one argument)."""
    with ops.name_scope(name, "Where", [condition]) as scope:
        condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
        return apply_op("Where", name=scope, input=condition)


# =============================================================================
# Tensor scatters: a new tensor with updates written at indices
# =============================================================================


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of `tensor` with updates[i] at the index vector indices[i] (`scatter_nd`
    into an existing tensor, not zeros). Of a repeated index one update is kept."""
    return _tensor_scatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of `tensor` with updates[i] added at indices[i] (repeated indices add up)."""
    return _tensor_scatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of `tensor` with updates[i] subtracted at indices[i]."""
    return _tensor_scatter("TensorScatterSub", tensor, indices, updates, name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of `tensor` holding max(tensor, updates[i]) at indices[i]."""
    return _tensor_scatter("TensorScatterMax", tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of `tensor` holding min(tensor, updates[i]) at indices[i]."""
    return _tensor_scatter("TensorScatterMin", tensor, indices, updates, name)


def _tensor_scatter(op_type, tensor, indices, updates, name):
    return apply_op(op_type, name=name, tensor=tensor, indices=indices, updates=updates)


tensor_scatter_update = tensor_scatter_nd_update  # TF 1.15's names
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub


def ensure_shape(x, shape, name=None):
    """`x`, checked when it runs to have a shape compatible with `shape` (an
    InvalidArgumentError if not), and known from now on to have it."""
    if not isinstance(shape, tensor_shape.TensorShape):
        shape = tensor_shape.TensorShape(shape)
    return apply_op("EnsureShape", name=name, input=x, shape=shape)


def sparse_mask(a, mask_indices, name=None):
    """The IndexedSlices `a` without the slices whose indices are in `mask_indices`."""
    with ops.name_scope(name, "sparse_mask", [a, mask_indices]) as name:
        out_indices, to_gather = setdiff1d(a.indices, mask_indices)
        out_values = gather(a.values, to_gather, name=name)
        return sparse_tensor.IndexedSlices(out_values, out_indices, a.dense_shape)


# =============================================================================
# Partitioning and stitching: dynamic_partition, dynamic_stitch
# =============================================================================


def dynamic_partition(data, partitions, num_partitions, name=None):
    """`num_partitions` tensors: the slices data[k] with partitions[k] == p go to the p-th,
    in order. `partitions` covers a prefix of data's shape."""
    return apply_op("DynamicPartition", name=name, data=data, partitions=partitions,
                    num_partitions=num_partitions)


def dynamic_stitch(indices, data, name=None):
    """One tensor merged from the pieces: merged[indices[m][i]] = data[m][i]; where an index
    repeats, the piece listed last wins (`dynamic_partition` undone)."""
    return apply_op("DynamicStitch", name=name, indices=indices, data=data)


# =============================================================================
# Reordering and reinterpreting: reverse_sequence, unravel_index, bitcast, ...
# =============================================================================


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,  # noqa: A002
                     seq_dim=None, batch_dim=None):
    """For each slice b along `batch_axis`, its first seq_lengths[b] elements along
    `seq_axis` reversed, the rest left as they are (reversing padded sequences)."""
    seq_axis = _deprecated_argument_lookup("seq_axis", seq_axis, "seq_dim", seq_dim)
    batch_axis = _deprecated_argument_lookup("batch_axis", batch_axis, "batch_dim", batch_dim)
    attrs = {} if batch_axis is None else {"batch_dim": batch_axis}
    return apply_op("ReverseSequence", name=name, input=input, seq_lengths=seq_lengths,
                    seq_dim=seq_axis, **attrs)


def roll(input, shift, axis, name=None):  # noqa: A002 - TF's argument name
    """`input` shifted by `shift` along each of `axis`, what falls off one end coming back
    at the other (shifts along a repeated axis add up)."""
    return apply_op("Roll", name=name, input=input, shift=shift, axis=axis)


def unravel_index(indices, dims, name=None):
    """The coordinates in a tensor of shape `dims` of each flat (row-major) index:
    [len(dims)] for a scalar index, [len(dims), n] for n of them."""
    return apply_op("UnravelIndex", name=name, indices=indices, dims=dims)


def bitcast(input, type, name=None):  # noqa: A002 - TF's argument names
    """The bytes of `input` seen as `type`, no copy of values: a wider input gains an inner
    dimension (int32 -> uint8: [..., 4]), a narrower one loses it."""
    return apply_op("Bitcast", name=name, input=input, type=type)


def guarantee_const(input, name=None):  # noqa: A002 - TF's argument name
    """`input`, with the promise that its value never changes while the graph runs."""
    return apply_op("GuaranteeConst", name=name, input=input)


def fingerprint(data, method="farmhash64", name=None):
    """Eight bytes (uint8) of FarmHash Fingerprint64 per row of `data`; stable forever."""
    return apply_op("Fingerprint", name=name, data=data, method=method)


# =============================================================================
# Moving blocks of space: space_to_batch, batch_to_space, space_to_depth, patches
# =============================================================================


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """The M spatial dims of `input` padded, cut into blocks of `block_shape`, and the
    position inside each block moved to the batch: [batch * prod(block), dims / block, ...]."""
    return apply_op("SpaceToBatchND", name=name, input=input, block_shape=block_shape,
                    paddings=paddings)


def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """`space_to_batch_nd` undone: the batch split into blocks put back in space, then cropped."""
    return apply_op("BatchToSpaceND", name=name, input=input, block_shape=block_shape,
                    crops=crops)


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """`space_to_batch_nd` of a 4-D [batch, height, width, depth] with a square block."""
    block_size = _deprecated_argument_lookup("block_shape", block_shape, "block_size",
                                             block_size)
    return _with_rank_4(space_to_batch_nd(input, _square(block_size), paddings, name=name))


def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """`batch_to_space_nd` of a 4-D [batch, height, width, depth] with a square block."""
    block_size = _deprecated_argument_lookup("block_shape", block_shape, "block_size",
                                             block_size)
    return _with_rank_4(batch_to_space_nd(input, _square(block_size), crops, name=name))


def _square(block_size):
    return np.array([block_size, block_size], dtype=np.int64)


def _with_rank_4(result):
    result.set_shape(result.shape.with_rank(4))
    return result


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) that make each of `input_shape` (plus `base_paddings`) divisible
    by `block_shape` for space_to_batch_nd, and undo the extra in batch_to_space_nd."""
    with ops.name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        block_shape.shape.assert_is_fully_defined()
        block_shape.shape.assert_has_rank(1)
        num_block_dims = block_shape.shape[0].value
        if num_block_dims == 0:
            return zeros([0, 2], dtypes.int32), zeros([0, 2], dtypes.int32)
        input_shape.shape.assert_is_compatible_with([num_block_dims])
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtype=dtypes.int32,
                                              name="base_paddings")
            base_paddings.shape.assert_is_compatible_with([num_block_dims, 2])
        else:
            base_paddings = zeros([num_block_dims, 2], dtypes.int32)
        known = [tensor_util.constant_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(k is not None for k in known):
            # Known while building: the same arithmetic on NumPy arrays gives constants.
            block_shape, input_shape, base_paddings = known
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = stack([[pad_start[i], pad_end[i]] for i in range(num_block_dims)],
                         name="paddings")
        crops = stack([[0, pad_end_extra[i]] for i in range(num_block_dims)], name="crops")
        return paddings, crops


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Each block_size x block_size patch of pixels moved into the depth:
    [n, h, w, c] -> [n, h / b, w / b, c * b * b]."""
    return apply_op("SpaceToDepth", name=name, input=input, block_size=block_size,
                    data_format=data_format)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """`space_to_depth` undone: [n, h, w, c] -> [n, h * b, w * b, c / (b * b)]."""
    return apply_op("DepthToSpace", name=name, input=input, block_size=block_size,
                    data_format=data_format)


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None):
    """Every window a convolution with `ksizes` (`sizes`), `strides`, `rates` and `padding`
    would see, laid out in the depth: [batch, out_rows, out_cols, k_rows * k_cols * depth]."""
    ksizes = _deprecated_argument_lookup("sizes", sizes, "ksizes", ksizes)
    return apply_op("ExtractImagePatches", name=name, images=images, ksizes=ksizes,
                    strides=strides, rates=rates, padding=padding)


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """`extract_image_patches` in three spatial dimensions (no rates)."""
    return apply_op("ExtractVolumePatches", name=name, input=input, ksizes=ksizes,
                    strides=strides, padding=padding)
