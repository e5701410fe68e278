"""The OpDefs of the math ops, and their shape functions.

Elementwise arithmetic (binary ops broadcast like NumPy), comparisons and
logic, casts, matmul, range, reductions, scans and UnsortedSegmentSum; the
gradient helpers BroadcastGradientArgs and the fused gradients of unary ops
(TanhGrad, ...); and `_DeduplicateIndexedSlices`, the runtime's fusion of an
optimizer's Unique + UnsortedSegmentSum, which the session's remapper
(`minitf/session/remapper.py`) puts into its copy of the graph and users
never write.

The front end reads these OpDefs to type and check a new Operation (the
constructors users call are in `minitf/ops/math_ops.py`); the runtime reads
them to know what a node takes and gives (the kernels are in
`minitf/kernels/cpu/math_kernels.py`).

Mirrors `tensorflow/core/ops/math_ops.cc`.
"""

import builtins

import numpy as np

from minitf.framework import common_shapes
from minitf.framework.common_shapes import merge_shapes, with_rank, with_rank_at_least
from minitf.framework.op_def import register_op
from minitf.graph import tensor_shape
from minitf.graph.tensor_util import constant_value

# The dtypes each op accepts: TF's lists, less the dtypes minitf does not have
# (bfloat16, quantized).
_FLOATS = "{float16, float32, float64}"
_FLOATS_OR_COMPLEX = "{float16, float32, float64, complex64, complex128}"
_SIGNED = "{float16, float32, float64, int8, int16, int32, int64}"
_SIGNED_OR_COMPLEX = "{float16, float32, float64, int8, int16, int32, int64, complex64, complex128}"
_REALS = "{float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
# TF's `numbertype`: every real type and both complex ones.
_NUMBERS = ("{float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
            "complex64, complex128}")
_INDEX = "{int32, int64}"


# =============================================================================
# Binary elementwise arithmetic
# =============================================================================

def _register_binary(op_type, types, output="T"):
    register_op(op_type).input("x: T").input("y: T").output("z: %s" % output).attr(
        "T: %s" % types).set_shape_fn(common_shapes.broadcast_binary_shape)


_register_binary("Add", "{float16, float32, float64, int8, int16, int32, int64, uint8, complex64, "
                        "complex128, string}")
_register_binary("AddV2", _NUMBERS)
_register_binary("Sub", _NUMBERS)
_register_binary("Mul", _NUMBERS)
_register_binary("RealDiv", _NUMBERS)
_register_binary("DivNoNan", _FLOATS_OR_COMPLEX)
_register_binary("FloorDiv", _REALS)
_register_binary("FloorMod", _REALS)
_register_binary("Pow", _SIGNED_OR_COMPLEX)
_register_binary("Maximum", _REALS)
_register_binary("Minimum", _REALS)
_register_binary("SquaredDifference",
                 "{float16, float32, float64, int32, int64, complex64, complex128}")


# =============================================================================
# Unary elementwise
# =============================================================================

def _register_unary(op_type, types):
    register_op(op_type).input("x: T").output("y: T").attr("T: %s" % types).set_shape_fn(
        common_shapes.unchanged_shape)


for _op_type in ("Neg", "Sign", "Reciprocal"):
    _register_unary(_op_type, _SIGNED_OR_COMPLEX)
for _op_type in ("Abs", "Round"):
    _register_unary(_op_type, _SIGNED)
_register_unary("Square", _NUMBERS)
for _op_type in ("Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Sin", "Cos", "Tanh", "Sigmoid"):
    _register_unary(_op_type, _FLOATS_OR_COMPLEX)
for _op_type in ("Floor", "Ceil"):
    _register_unary(_op_type, _FLOATS)


# =============================================================================
# More elementwise functions: trigonometry, tests for inf/nan, special division
# =============================================================================

for _op_type in ("Acos", "Asin", "Atan", "Tan", "Acosh", "Asinh", "Atanh", "Cosh", "Sinh",
                 "Expm1"):
    _register_unary(_op_type, _FLOATS_OR_COMPLEX)
_register_unary("Rint", _FLOATS)
for _op_type in ("Erf", "Erfc", "Lgamma", "Digamma", "Erfinv", "Ndtri", "BesselI0e",
                 "BesselI1e"):
    _register_unary(_op_type, _FLOATS)
for _op_type in ("IsFinite", "IsInf", "IsNan"):
    register_op(_op_type).input("x: T").output("y: bool").attr("T: %s" % _FLOATS).set_shape_fn(
        common_shapes.unchanged_shape)

register_op("Atan2").input("y: T").input("x: T").output("z: T").attr(
    "T: %s" % _FLOATS).set_shape_fn(common_shapes.broadcast_binary_shape)
_register_binary("TruncateDiv", _NUMBERS)
_register_binary("TruncateMod", "{float16, float32, float64, int32, int64}")
for _op_type in ("Xdivy", "Xlogy", "Xlog1py", "MulNoNan"):
    _register_binary(_op_type, _FLOATS_OR_COMPLEX)
register_op("Zeta").input("x: T").input("q: T").output("z: T").attr(
    "T: {float32, float64}").set_shape_fn(common_shapes.broadcast_binary_shape)
for _op_type in ("Igamma", "Igammac"):
    register_op(_op_type).input("a: T").input("x: T").output("z: T").attr(
        "T: {float32, float64}").set_shape_fn(common_shapes.broadcast_binary_shape)
register_op("Polygamma").input("a: T").input("x: T").output("z: T").attr(
    "T: {float32, float64}").set_shape_fn(common_shapes.broadcast_binary_shape)


def _betainc_shape(op):
    """a, b and x share one shape, scalars aside."""
    shape = tensor_shape.unknown_shape()
    for t in op.inputs:
        if t.shape.ndims != 0:
            shape = merge_shapes(shape, t.shape)
    return [shape if shape.ndims is not None or any(
        t.shape.ndims is None for t in op.inputs) else tensor_shape.scalar()]


register_op("Betainc").input("a: T").input("b: T").input("x: T").output("z: T").attr(
    "T: {float32, float64}").set_shape_fn(_betainc_shape)
register_op("NextAfter").input("x1: T").input("x2: T").output("output: T").attr(
    "T: {float64, float32} = float32").set_shape_fn(common_shapes.broadcast_binary_shape)


# =============================================================================
# Complex numbers
# =============================================================================

_COMPLEX_PARTS = "{float32, float64} = float32"
_COMPLEX = "{complex64, complex128} = complex64"
register_op("Complex").input("real: T").input("imag: T").output("out: Tout").attr(
    "T: " + _COMPLEX_PARTS).attr("Tout: " + _COMPLEX).set_shape_fn(
    common_shapes.broadcast_binary_shape)
for _op_type in ("Real", "Imag", "Angle"):
    register_op(_op_type).input("input: T").output("output: Tout").attr(
        "T: " + _COMPLEX).attr("Tout: " + _COMPLEX_PARTS).set_shape_fn(
        common_shapes.unchanged_shape)
register_op("ComplexAbs").input("x: T").output("y: Tout").attr("T: " + _COMPLEX).attr(
    "Tout: " + _COMPLEX_PARTS).set_shape_fn(common_shapes.unchanged_shape)
register_op("Conj").input("input: T").output("output: T").attr(
    "T: {complex64, complex128, variant} = complex64").set_shape_fn(common_shapes.unchanged_shape)


# =============================================================================
# Comparisons and logic
# =============================================================================

_register_binary("Equal", "type", output="bool")
_register_binary("NotEqual", "type", output="bool")
for _op_type in ("Less", "LessEqual", "Greater", "GreaterEqual"):
    _register_binary(_op_type, _REALS, output="bool")
for _op_type in ("LogicalAnd", "LogicalOr"):
    register_op(_op_type).input("x: bool").input("y: bool").output("z: bool").set_shape_fn(
        common_shapes.broadcast_binary_shape)
register_op("LogicalNot").input("x: bool").output("y: bool").set_shape_fn(
    common_shapes.unchanged_shape)


def _where_shape(op):
    rank = op.inputs[0].shape.ndims
    return [tensor_shape.TensorShape([None, rank])]


def _select_shape(op):
    """TF1's rules: `t` and `e` alike; `condition` a scalar, their shape, or a vector over dim 0."""
    condition = op.inputs[0].shape
    data = merge_shapes(op.inputs[1].shape, op.inputs[2].shape)
    if condition.ndims is None or data.ndims is None or condition.ndims == 0:
        return [data]
    if condition.ndims == 1 and data.ndims >= 1:
        merge_shapes(condition, tensor_shape.TensorShape([data[0]]))
        return [data]
    return [merge_shapes(data, condition)]


register_op("Where").input("input: T").output("index: int64").attr(
    "T: {bool, float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, "
    "uint64} = bool").set_shape_fn(_where_shape)
register_op("Select").input("condition: bool").input("t: T").input("e: T").output(
    "output: T").attr("T: type").set_shape_fn(_select_shape)


def _select_v2_shape(op):
    """The broadcast of the condition's, t's and e's shapes (tf.where_v2)."""
    condition, t, e = (x.shape for x in op.inputs)
    return [common_shapes.broadcast_shapes(condition, common_shapes.broadcast_shapes(t, e))]


register_op("SelectV2").input("condition: bool").input("t: T").input("e: T").output(
    "output: T").attr("T: type").set_shape_fn(_select_v2_shape)


# =============================================================================
# Casts
# =============================================================================

register_op("Cast").input("x: SrcT").output("y: DstT").attr("SrcT: type").attr(
    "DstT: type").attr("Truncate: bool = false").set_shape_fn(common_shapes.unchanged_shape)


# =============================================================================
# add_n
# =============================================================================

def _add_n_shape(op):
    shape = tensor_shape.unknown_shape()
    for t in op.inputs:
        shape = merge_shapes(shape, t.shape)
    return [shape]


register_op("AddN").input("inputs: N * T").output("sum: T").attr("N: int >= 1").attr(
    "T: %s" % _NUMBERS).set_shape_fn(_add_n_shape)


def _accumulate_n_shape(op):
    """The inputs' merged shape, merged with the `shape` attr too."""
    return [merge_shapes(_add_n_shape(op)[0], tensor_shape.as_shape(op.get_attr("shape")))]


register_op("AccumulateNV2").input("inputs: N * T").output("sum: T").attr("N: int >= 1").attr(
    "T: %s" % _NUMBERS).attr("shape: shape").set_shape_fn(_accumulate_n_shape)


# =============================================================================
# matmul
# =============================================================================

def _matmul_shape(op):
    a = with_rank(op.inputs[0].shape, 2)
    b = with_rank(op.inputs[1].shape, 2)
    rows, inner_a = (a[1], a[0]) if op.get_attr("transpose_a") else (a[0], a[1])
    inner_b, cols = (b[1], b[0]) if op.get_attr("transpose_b") else (b[0], b[1])
    _check_inner_dimensions(inner_a, inner_b)
    return [tensor_shape.TensorShape([rows, cols])]


def _batch_matmul_shape(op):
    """Batch dimensions broadcast; the last two are multiplied as matrices."""
    x = with_rank_at_least(op.inputs[0].shape, 2)
    y = with_rank_at_least(op.inputs[1].shape, 2)
    if x.ndims is None or y.ndims is None:
        return [tensor_shape.unknown_shape()]
    rows, inner_x = (x[-1], x[-2]) if op.get_attr("adj_x") else (x[-2], x[-1])
    inner_y, cols = (y[-1], y[-2]) if op.get_attr("adj_y") else (y[-2], y[-1])
    _check_inner_dimensions(inner_x, inner_y)
    batch = common_shapes.broadcast_shapes(tensor_shape.TensorShape(x.dims[:-2]),
                                           tensor_shape.TensorShape(y.dims[:-2]))
    return [batch.concatenate([rows, cols])]


def _check_inner_dimensions(a, b):
    if not a.is_compatible_with(b):
        raise ValueError("Dimensions must be equal, but are %s and %s" % (a, b))


_MATMUL_TYPES = "{float16, float32, float64, int32, int64, complex64, complex128}"
register_op("MatMul").input("a: T").input("b: T").output("product: T").attr(
    "transpose_a: bool = false").attr("transpose_b: bool = false").attr(
    "T: %s" % _MATMUL_TYPES).set_shape_fn(_matmul_shape)
# The remapper's fusion of MatMul + BiasAdd (+ an activation) into one node; only the
# session's optimized partitions have it (minitf/session/remapper.py).
register_op("_FusedMatMul").input("a: T").input("b: T").input("args: num_args * T").output(
    "product: T").attr("transpose_a: bool = false").attr("transpose_b: bool = false").attr(
    "T: {half, float, double}").attr("num_args: int >= 0").attr(
    "fused_ops: list(string) = []").attr("epsilon: float = 0.0001").set_shape_fn(_matmul_shape)
# tf.sparse_matmul: a MatMul of float32 matrices with hints that one has many zeros, which
# minitf's kernel does not use (TF's bfloat16 inputs are left out with bfloat16).
register_op("SparseMatMul").input("a: Ta").input("b: Tb").output("product: float").attr(
    "transpose_a: bool = false").attr("transpose_b: bool = false").attr(
    "a_is_sparse: bool = false").attr("b_is_sparse: bool = false").attr(
    "Ta: {float32} = float32").attr("Tb: {float32} = float32").set_shape_fn(_matmul_shape)
register_op("BatchMatMulV2").input("x: T").input("y: T").output("output: T").attr(
    "T: %s" % _MATMUL_TYPES).attr("adj_x: bool = false").attr(
    "adj_y: bool = false").set_shape_fn(_batch_matmul_shape)


# =============================================================================
# range
# =============================================================================

def _range_shape(op):
    for t in op.inputs:
        with_rank(t.shape, 0)
    start, limit, delta = (constant_value(t) for t in op.inputs)
    if start is None or limit is None or delta is None:
        return [tensor_shape.vector(None)]
    return [tensor_shape.vector(_range_size(start, limit, delta))]


def _range_size(start, limit, delta):
    """How many numbers `range(start, limit, delta)` has; ValueError when it cannot end.

    The values are NumPy scalars of the op's dtype, so that float arithmetic
    rounds as the kernel's will.
    """
    if delta == 0:
        raise ValueError("Requires delta != 0: %s" % delta)
    if delta > 0 and start > limit:
        raise ValueError("Requires start <= limit when delta > 0: %s/%s" % (start, limit))
    if delta < 0 and start < limit:
        raise ValueError("Requires start >= limit when delta < 0: %s/%s" % (start, limit))
    if np.issubdtype(np.asarray(start).dtype, np.integer):
        span, step = builtins.abs(int(limit) - int(start)), builtins.abs(int(delta))
        return (span + step - 1) // step
    return int(np.ceil(np.abs((limit - start) / delta)))


register_op("Range").input("start: Tidx").input("limit: Tidx").input("delta: Tidx").output(
    "output: Tidx").attr("Tidx: {float32, float64, int32, int64} = int32").set_shape_fn(
    _range_shape)


def _lin_space_shape(op):
    for t in op.inputs:
        with_rank(t.shape, 0)
    num = constant_value(op.inputs[2])
    if num is not None and int(num) <= 0:
        raise ValueError("Requires num > 0: %d" % int(num))
    return [tensor_shape.vector(None if num is None else int(num))]


register_op("LinSpace").input("start: T").input("stop: T").input("num: Tidx").output(
    "output: T").attr("T: {float16, float32, float64}").attr(
    "Tidx: %s = int32" % _INDEX).set_shape_fn(_lin_space_shape)


def _bincount_shape(op):
    with_rank(op.inputs[1].shape, 0)
    size = constant_value(op.inputs[1])
    if size is not None and int(size) < 0:
        raise ValueError("size (%d) must be non-negative" % int(size))
    return [tensor_shape.vector(None if size is None else int(size))]


register_op("Bincount").input("arr: int32").input("size: int32").input("weights: T").output(
    "bins: T").attr("T: {int32, int64, float32, float64}").set_shape_fn(_bincount_shape)


# =============================================================================
# Reductions
# =============================================================================

def _reduction_shape(op):
    """The input's shape without the reduced axes (or with 1s there, under keep_dims)."""
    input_shape = op.inputs[0].shape
    keep_dims = op.get_attr("keep_dims")
    if op.inputs[1].shape.ndims is not None and op.inputs[1].shape.ndims > 1:
        raise ValueError("Shape must be at most rank 1 but is rank %d"
                         % op.inputs[1].shape.ndims)
    axes = constant_value(op.inputs[1])
    rank = input_shape.ndims
    if axes is None or rank is None:
        if keep_dims and rank is not None:
            return [tensor_shape.unknown_shape(rank)]
        return [tensor_shape.unknown_shape()]
    reduced = {_checked_axis(int(a), rank) for a in np.reshape(axes, -1)}
    dims = []
    for i, dim in enumerate(input_shape.as_list()):
        if i not in reduced:
            dims.append(dim)
        elif keep_dims:
            dims.append(1)
    return [tensor_shape.TensorShape(dims)]


def _checked_axis(axis, rank):
    if not -rank <= axis < rank:
        raise ValueError("Invalid reduction dimension %d for input with %d dimensions"
                         % (axis, rank))
    return axis % rank


def _register_reduction(op_type, input_type, types=None):
    builder = register_op(op_type).input("input: %s" % input_type).input(
        "reduction_indices: Tidx").output("output: %s" % input_type).attr(
        "keep_dims: bool = false")
    if types is not None:
        builder.attr("T: %s" % types)
    builder.attr("Tidx: %s = int32" % _INDEX).set_shape_fn(_reduction_shape)


for _op_type in ("Sum", "Mean", "Prod", "EuclideanNorm"):
    _register_reduction(_op_type, "T", _NUMBERS)
for _op_type in ("Max", "Min"):
    _register_reduction(_op_type, "T", _REALS)
for _op_type in ("Any", "All"):
    _register_reduction(_op_type, "bool")


def _arg_reduction_shape(op):
    input_shape = op.inputs[0].shape
    if input_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    rank = input_shape.ndims
    axis = constant_value(op.inputs[1])
    if axis is None:
        return [tensor_shape.unknown_shape(builtins.max(rank - 1, 0))]
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ValueError("Dimension (%d) must be in the range [%d, %d), where %d is the number "
                         "of dimensions in the input" % (axis, -rank, rank, rank))
    dims = input_shape.as_list()
    del dims[axis % rank]
    return [tensor_shape.TensorShape(dims)]


for _op_type in ("ArgMax", "ArgMin"):
    register_op(_op_type).input("input: T").input("dimension: Tidx").output(
        "output: output_type").attr("T: %s" % _REALS).attr("Tidx: %s = int32" % _INDEX).attr(
        "output_type: %s = int64" % _INDEX).set_shape_fn(_arg_reduction_shape)


# =============================================================================
# Scans
# =============================================================================

def _scan_shape(op):
    with_rank(op.inputs[1].shape, 0)
    return [op.inputs[0].shape]


for _op_type in ("Cumsum", "Cumprod"):
    register_op(_op_type).input("x: T").input("axis: Tidx").attr(
        "exclusive: bool = false").attr("reverse: bool = false").output("out: T").attr(
        "T: %s" % _NUMBERS).attr("Tidx: %s = int32" % _INDEX).set_shape_fn(_scan_shape)
register_op("CumulativeLogsumexp").input("x: T").input("axis: Tidx").attr(
    "exclusive: bool = false").attr("reverse: bool = false").output("out: T").attr(
    "T: %s" % _FLOATS).attr("Tidx: %s = int32" % _INDEX).set_shape_fn(_scan_shape)


# =============================================================================
# Segment reductions
# =============================================================================

def unsorted_segment_shape(op):
    """[num_segments] + data.shape[rank(segment_ids):]; data must start with segment_ids' shape."""
    data, segment_ids = op.inputs[0].shape, op.inputs[1].shape
    with_rank(op.inputs[2].shape, 0)
    if segment_ids.ndims is None:
        return [tensor_shape.unknown_shape()]
    data = with_rank_at_least(data, segment_ids.ndims)
    if data.ndims is None:
        return [tensor_shape.unknown_shape()]
    for data_dim, id_dim in zip(data.dims, segment_ids.dims):
        if not data_dim.is_compatible_with(id_dim):
            raise ValueError("Dimensions must be equal, but are %s and %s" % (data_dim, id_dim))
    num_segments = constant_value(op.inputs[2])
    if num_segments is not None and int(num_segments) < 0:
        raise ValueError("Dimension size, given by scalar input 2, must be non-negative but "
                         "is %d" % int(num_segments))
    rows = None if num_segments is None else int(num_segments)
    return [tensor_shape.TensorShape([rows] + data.dims[segment_ids.ndims:])]


register_op("UnsortedSegmentSum").input("data: T").input("segment_ids: Tindices").input(
    "num_segments: Tnumsegments").output("output: T").attr("T: %s" % _NUMBERS).attr(
    "Tindices: %s" % _INDEX).attr("Tnumsegments: %s = int32" % _INDEX).set_shape_fn(
    unsorted_segment_shape)


# =============================================================================
# Broadcasting in gradients
# =============================================================================

def _broadcast_gradient_args_shape(op):
    for t in op.inputs:
        with_rank(t.shape, 1)
    return [tensor_shape.vector(None), tensor_shape.vector(None)]


register_op("BroadcastGradientArgs").input("s0: T").input("s1: T").output("r0: T").output(
    "r1: T").attr("T: %s = int32" % _INDEX).set_shape_fn(_broadcast_gradient_args_shape)


# =============================================================================
# Gradient helper ops
# =============================================================================

def _merged_pair_shape(op):
    return [merge_shapes(op.inputs[0].shape, op.inputs[1].shape)]


for _op_type in ("SqrtGrad", "RsqrtGrad", "TanhGrad", "SigmoidGrad", "ReciprocalGrad"):
    register_op(_op_type).input("y: T").input("dy: T").output("z: T").attr(
        "T: %s" % _FLOATS_OR_COMPLEX).set_shape_fn(_merged_pair_shape)


# =============================================================================
# UnsortedSegmentSum
# =============================================================================

# The runtime's own fusion of `Unique` + `UnsortedSegmentSum`: the session's remapper
# (minitf/session/remapper.py) puts it where an optimizer sums the gradient rows
# of repeated indices. Users never write it, so its OpDef is registered here.
def _deduplicate_shape(op):
    """[?] + values.shape[1:] and [?]: how many indices are distinct is known only at run time."""
    values = op.inputs[0].shape
    rows = values.dims[1:] if values.ndims is not None else None
    return [tensor_shape.TensorShape(None if rows is None else [None] + rows),
            tensor_shape.TensorShape([None])]


register_op("_DeduplicateIndexedSlices").input("values: T").input("indices: Tindices").output(
    "summed_values: T").output("unique_indices: Tindices").attr("T: type").attr(
    "Tindices: {int32, int64}").set_shape_fn(_deduplicate_shape)


# =============================================================================
# Histograms
# =============================================================================

def _histogram_fixed_width_shape(op):
    """A vector of nbins counts; value_range must be a vector of 2 and nbins a scalar."""
    value_range_shape = with_rank(op.inputs[1].shape, 1)
    if value_range_shape.dims[0].value not in (None, 2):
        raise ValueError("Dimension must be 2 but is %d for '%s' (op: 'HistogramFixedWidth')"
                         % (value_range_shape.dims[0].value, op.name))
    with_rank(op.inputs[2].shape, 0)
    nbins = constant_value(op.inputs[2])
    if nbins is not None and int(nbins) <= 0:
        raise ValueError("Requires nbins > 0: %d for '%s' (op: 'HistogramFixedWidth')"
                         % (int(nbins), op.name))
    return [tensor_shape.TensorShape([None if nbins is None else int(nbins)])]


register_op("HistogramFixedWidth").input("values: T").input("value_range: T").input(
    "nbins: int32").output("out: dtype").attr("T: {int32, int64, float32, float64}").attr(
    "dtype: {int32, int64} = int32").set_shape_fn(_histogram_fixed_width_shape)
