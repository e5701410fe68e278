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

import math
import numbers

import numpy as np

from minitf.framework import common_shapes
from minitf.framework.strided_slice import STRIDED_SLICE_MASKS
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import sparse_tensor
from minitf.graph import tensor_shape
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
