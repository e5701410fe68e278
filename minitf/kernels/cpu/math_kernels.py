"""Kernels of the math ops: elementwise arithmetic, casts, matmul, range, reductions.

Written once against `ctx.xp` (NumPy on CPU, CuPy on a GPU), so each serves
both device types. NumPy's broadcasting is TensorFlow's too; what differs is
spelled out here:

- results keep the inputs' dtype: a sum of int8 is int8 (it wraps), the
  mean of int32 is int32 (it truncates toward zero);
- integer division or modulo by zero is an InvalidArgumentError, not a
  warning and a garbage value;
- float division by zero, overflow and the like give inf/nan silently, as
  IEEE arithmetic and TensorFlow do (the executor runs kernels with NumPy's
  warnings switched off);
- floor division of floats is floor(x / y), as TF computes it.

Mirrors `tensorflow/core/kernels/cwise_ops*.cc`, `cast_op.cc`, `matmul_op.cc`,
`batch_matmul_op_impl.h`, `sequence_ops.cc` (Range), `where_op.cc`,
`aggregate_ops.cc` (AddN), `reduction_ops*.cc`, `argmax_op.cc`,
`scan_ops.cc` (Cumsum, Cumprod), `segment_reduction_ops.cc`
(UnsortedSegmentSum), `bcast_ops.cc` with `util/bcast.h`
(BroadcastGradientArgs) and the `*Grad` functors of `cwise_ops_gradients.h`.
"""

import re

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.graph import errors
from minitf.kernels.kernel_util import host_array
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import max_identity
from minitf.kernels.kernel_util import min_identity
from minitf.kernels.kernel_util import on_device
from minitf.kernels.kernel_util import shape_text


def _is_integer(array):
    return np.issubdtype(array.dtype, np.integer)


def _is_complex(array):
    return np.issubdtype(array.dtype, np.complexfloating)


def _named_after(op_type, kernel):
    """Gives a kernel made in a loop a readable name: FloorDiv -> floor_div."""
    kernel.__name__ = kernel.__qualname__ = re.sub(r"(?<!^)(?=[A-Z])", "_", op_type).lower()
    return kernel


# =============================================================================
# Binary elementwise
# =============================================================================

def _check_broadcastable(x, y):
    """InvalidArgumentError, in TF's words, when the shapes cannot broadcast."""
    for a, b in zip(reversed(x.shape), reversed(y.shape)):
        if a != b and a != 1 and b != 1:
            raise invalid("Incompatible shapes: %s vs. %s"
                          % (shape_text(x.shape), shape_text(y.shape)))


def _check_no_integer_zero(xp, y, x=None):
    """InvalidArgumentError for an integer zero divisor (none when the result is empty)."""
    if x is not None and 0 in np.broadcast_shapes(x.shape, y.shape):
        return
    if _is_integer(y) and bool(xp.any(y == 0)):
        raise invalid("Integer division by zero")


# The dtype of string tensors (NumPy's object arrays of bytes), one object NumPy shares:
# `is` asks for it far faster than `==`, which a chain of small adds feels.
_STRINGS = np.dtype(object)


def _add(xp, x, y):
    if x.dtype is _STRINGS:  # bytes + bytes joins them
        return np.asarray(np.add(x, y), dtype=object)
    return xp.add(x, y)


def _real_div(xp, x, y):
    if _is_integer(x):
        # RealDiv of integers divides as C++ does: truncating toward zero.
        _check_no_integer_zero(xp, y, x)
        quotient = xp.floor_divide(xp.abs(x), xp.abs(y))
        return xp.where((x < 0) != (y < 0), -quotient, quotient).astype(x.dtype)
    return xp.true_divide(x, y)


def _div_no_nan(xp, x, y):
    """x / y, and 0 wherever y is 0 (even where x is 0 or NaN)."""
    quotient = xp.true_divide(x, xp.where(y == 0, xp.ones_like(y), y))
    return xp.where(y == 0, xp.zeros_like(quotient), quotient)


def _floor_div(xp, x, y):
    if _is_integer(x):
        _check_no_integer_zero(xp, y, x)
        return xp.floor_divide(x, y)
    return xp.floor(xp.true_divide(x, y))


def _floor_mod(xp, x, y):
    if _is_integer(x):
        _check_no_integer_zero(xp, y, x)
        return xp.remainder(x, y)
    # C's fmod has the sign of x; moving it to the sign of y gives floor semantics.
    remainder = xp.fmod(x, y)
    needs_shift = (remainder != 0) & ((remainder < 0) != (y < 0))
    return xp.where(needs_shift, remainder + y, remainder)


def _pow(xp, x, y):
    if _is_integer(y) and bool(xp.any(y < 0)):
        raise invalid("Integers to negative integer powers are not allowed")
    return xp.power(x, y)


def _squared_difference(xp, x, y):
    difference = xp.subtract(x, y)
    return xp.multiply(difference, difference)


def _equal(xp, x, y):
    if x.dtype == object:
        return np.asarray(np.equal(x, y), dtype=bool)
    return xp.equal(x, y)


def _not_equal(xp, x, y):
    if x.dtype == object:
        return np.asarray(np.not_equal(x, y), dtype=bool)
    return xp.not_equal(x, y)


def _truncate_div(xp, x, y):
    """x / y rounded toward zero, as C++ divides integers."""
    if _is_integer(x):
        return _real_div(xp, x, y)
    quotient = xp.true_divide(x, y)
    return quotient if _is_complex(quotient) else xp.trunc(quotient)


def _truncate_mod(xp, x, y):
    """C's remainder: it has the sign of x (Python's % has the sign of y)."""
    if _is_integer(x):
        _check_no_integer_zero(xp, y, x)
    return xp.fmod(x, y)


def _where_x_is_zero(xp, x, value):
    """`value`, but 0 wherever x is 0 (even where value is inf or NaN)."""
    return xp.where(x == 0, xp.zeros_like(value), value)


def _mul_no_nan(xp, x, y):
    """x * y, and 0 wherever y is 0 (even where x is inf or NaN)."""
    return _where_x_is_zero(xp, y, xp.multiply(x, y))


_BINARY = {
    "Add": _add,
    "AddV2": _add,
    "Sub": lambda xp, x, y: xp.subtract(x, y),
    "Mul": lambda xp, x, y: xp.multiply(x, y),
    "RealDiv": _real_div,
    "DivNoNan": _div_no_nan,
    "FloorDiv": _floor_div,
    "FloorMod": _floor_mod,
    "Pow": _pow,
    "Maximum": lambda xp, x, y: xp.maximum(x, y),
    "Minimum": lambda xp, x, y: xp.minimum(x, y),
    "SquaredDifference": _squared_difference,
    "Equal": _equal,
    "NotEqual": _not_equal,
    "Less": lambda xp, x, y: xp.less(x, y),
    "LessEqual": lambda xp, x, y: xp.less_equal(x, y),
    "Greater": lambda xp, x, y: xp.greater(x, y),
    "GreaterEqual": lambda xp, x, y: xp.greater_equal(x, y),
    "LogicalAnd": lambda xp, x, y: xp.logical_and(x, y),
    "LogicalOr": lambda xp, x, y: xp.logical_or(x, y),
    "Atan2": lambda xp, y, x: xp.arctan2(y, x),
    "TruncateDiv": _truncate_div,
    "TruncateMod": _truncate_mod,
    "Xdivy": lambda xp, x, y: _where_x_is_zero(xp, x, xp.true_divide(x, y)),
    "Xlogy": lambda xp, x, y: _where_x_is_zero(xp, x, xp.multiply(x, xp.log(y))),
    "Xlog1py": lambda xp, x, y: _where_x_is_zero(xp, x, xp.multiply(x, xp.log1p(y))),
    "MulNoNan": _mul_no_nan,
    "NextAfter": lambda xp, x1, x2: xp.nextafter(x1, x2),
}


# The binary ops whose kernels write into a free input buffer (`ctx.forward_input`) when
# the executor offers one: the ufunc that computes them, given `out=`.
_FORWARDING_UFUNCS = {"Add": "add", "AddV2": "add", "Sub": "subtract", "Mul": "multiply",
                      "Maximum": "maximum", "Minimum": "minimum"}


def _register_binary_kernel(op_type, compute):
    ufunc_name = _FORWARDING_UFUNCS.get(op_type)

    @register_kernel(op_type, ALL_DEVICE_TYPES, forwards_inputs=ufunc_name is not None)
    def kernel(ctx, x, y):
        if x.shape != y.shape:
            _check_broadcastable(x, y)
        if ctx.may_forward:  # only ever for the ops of _FORWARDING_UFUNCS
            out = _forwarded_output(ctx, x, y)
            if out is not None:
                return getattr(ctx.xp, ufunc_name)(x, y, out=out)
        return compute(ctx.xp, x, y)

    _named_after(op_type, kernel)


def _forwarded_output(ctx, x, y):
    """An input buffer the executor lets the kernel write x op y into, or None."""
    if x.dtype != y.dtype or x.dtype.hasobject:
        return None
    shape = x.shape if x.shape == y.shape else np.broadcast_shapes(x.shape, y.shape)
    out = ctx.forward_input(0, x, shape)
    return out if out is not None else ctx.forward_input(1, y, shape)


for _op_type, _compute in _BINARY.items():
    _register_binary_kernel(_op_type, _compute)


# =============================================================================
# Unary elementwise
# =============================================================================

def _sigmoid(xp, x):
    if _is_complex(x):
        return xp.reciprocal(1 + xp.exp(-x))
    # exp(-|x|) never overflows: for x < 0, sigmoid(x) = e / (1 + e) with e = exp(x).
    e = xp.exp(-xp.abs(x))
    positive = xp.reciprocal(1 + e)
    return xp.where(x >= 0, positive, e * positive)


def _reciprocal(xp, x):
    if _is_integer(x):
        _check_no_integer_zero(xp, x)
    return xp.reciprocal(x)


_UNARY = {
    "Neg": lambda xp, x: xp.negative(x),
    "Abs": lambda xp, x: xp.abs(x),
    "Sign": lambda xp, x: xp.sign(x),  # x / |x| for complex numbers, as TF
    "Square": lambda xp, x: xp.square(x),
    "Sqrt": lambda xp, x: xp.sqrt(x),
    "Rsqrt": lambda xp, x: xp.reciprocal(xp.sqrt(x)),
    "Exp": lambda xp, x: xp.exp(x),
    "Log": lambda xp, x: xp.log(x),
    "Log1p": lambda xp, x: xp.log1p(x),
    "Sin": lambda xp, x: xp.sin(x),
    "Cos": lambda xp, x: xp.cos(x),
    "Tanh": lambda xp, x: xp.tanh(x),
    "Sigmoid": _sigmoid,
    "Floor": lambda xp, x: xp.floor(x),
    "Ceil": lambda xp, x: xp.ceil(x),
    "Round": lambda xp, x: xp.round(x),  # NumPy rounds halves to even, like TF
    "Reciprocal": _reciprocal,
    "LogicalNot": lambda xp, x: xp.logical_not(x),
    "Acos": lambda xp, x: xp.arccos(x),
    "Asin": lambda xp, x: xp.arcsin(x),
    "Atan": lambda xp, x: xp.arctan(x),
    "Tan": lambda xp, x: xp.tan(x),
    "Acosh": lambda xp, x: xp.arccosh(x),
    "Asinh": lambda xp, x: xp.arcsinh(x),
    "Atanh": lambda xp, x: xp.arctanh(x),
    "Cosh": lambda xp, x: xp.cosh(x),
    "Sinh": lambda xp, x: xp.sinh(x),
    "Expm1": lambda xp, x: xp.expm1(x),
    "Rint": lambda xp, x: xp.rint(x),  # halves to even, as TF
    "IsFinite": lambda xp, x: xp.isfinite(x),
    "IsInf": lambda xp, x: xp.isinf(x),
    "IsNan": lambda xp, x: xp.isnan(x),
}


def _register_unary_kernel(op_type, compute):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, x):
        return compute(ctx.xp, x)

    _named_after(op_type, kernel)


for _op_type, _compute in _UNARY.items():
    _register_unary_kernel(_op_type, _compute)


# =============================================================================
# Complex numbers
# =============================================================================

@register_kernel("Complex", ALL_DEVICE_TYPES)
def complex_(ctx, real, imag, *, Tout):  # noqa: N803 - TF's attr name
    """real + imag * i, elementwise, with broadcasting.

    The parts are laid side by side as pairs of floats, which is how a
    complex number is stored, and read as complex numbers: computing
    `real + imag * 1j` instead would turn an infinite real part into NaN.
    """
    if real.shape != imag.shape:
        _check_broadcastable(real, imag)
    xp = ctx.xp
    pairs = xp.stack(xp.broadcast_arrays(real, imag), axis=-1)
    return xp.ascontiguousarray(pairs).view(Tout.as_numpy_dtype)[..., 0]


_COMPLEX_PARTS = {
    "Real": lambda xp, x: xp.real(x),
    "Imag": lambda xp, x: xp.imag(x),
    "Angle": lambda xp, x: xp.angle(x),
    "ComplexAbs": lambda xp, x: xp.abs(x),
}


def _register_complex_part_kernel(op_type, compute):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, x, *, Tout):  # noqa: N803 - TF's attr name
        return compute(ctx.xp, x).astype(Tout.as_numpy_dtype, copy=False)

    _named_after(op_type, kernel)


for _op_type, _compute in _COMPLEX_PARTS.items():
    _register_complex_part_kernel(_op_type, _compute)


@register_kernel("Conj", ALL_DEVICE_TYPES)
def conj(ctx, x):
    if x.dtype == object:
        raise errors.UnimplementedError(None, None, "Conj of a variant tensor is not supported")
    return ctx.xp.conj(x)


# =============================================================================
# Cast, Select, Where, AddN
# =============================================================================

@register_kernel("Cast", ALL_DEVICE_TYPES)
def cast(ctx, x, *, SrcT, DstT):  # noqa: N803 - TF's attr names
    """C++ conversion rules: floats truncate toward zero, integers wrap, non-zero is True.

    A complex number cast to a real type keeps its real part (to bool: it is
    True when either part is non-zero).
    """
    if (SrcT.name == "string") != (DstT.name == "string"):
        raise errors.UnimplementedError(None, None, "Cast %s to %s is not supported"
                                        % (SrcT.name, DstT.name))
    if SrcT.is_complex and not DstT.is_complex:
        x = x != 0 if DstT.is_bool else ctx.xp.real(x)
    return x.astype(DstT.as_numpy_dtype)


@register_kernel("Select", ALL_DEVICE_TYPES)
def select(ctx, condition, t, e):
    if t.shape != e.shape:
        raise invalid("'then' and 'else' must have the same size.  but received: %s vs. %s"
                      % (shape_text(t.shape), shape_text(e.shape)))
    if condition.ndim == 1 and t.ndim > 1:
        # A vector condition picks whole rows (slices along dimension 0).
        if condition.shape[0] != t.shape[0]:
            raise invalid("Number of batches of 'then' must match size of 'cond', but saw: "
                          "%d vs. %d" % (t.shape[0], condition.shape[0]))
        condition = condition.reshape(condition.shape + (1,) * (t.ndim - 1))
    elif condition.ndim != 0 and condition.shape != t.shape:
        raise invalid("Inputs to operation %s of type Select must have the same size and "
                      "shape.  Input 0: %s != input 1: %s" % (
                          ctx.node_name, shape_text(condition.shape), shape_text(t.shape)))
    return ctx.xp.where(condition, t, e)


@register_kernel("SelectV2", ALL_DEVICE_TYPES)
def select_v2(ctx, condition, t, e):
    """t where condition, else e, the three broadcast against each other."""
    try:
        np.broadcast_shapes(condition.shape, t.shape, e.shape)
    except ValueError:
        raise invalid("condition %s, then %s, and else %s must be broadcastable"
                      % (shape_text(condition.shape), shape_text(t.shape),
                         shape_text(e.shape))) from None
    return ctx.xp.where(condition, t, e)


@register_kernel("Where", ALL_DEVICE_TYPES)
def where(ctx, x):
    """The coordinates of the true (non-zero) elements: int64 [num_true, rank]."""
    if x.ndim == 0:
        raise invalid("WhereOp : Unhandled input dimensions: 0")
    return ctx.xp.argwhere(x).astype(np.int64)


@register_kernel("AccumulateNV2", ALL_DEVICE_TYPES)
def accumulate_nv2(ctx, *inputs, shape):
    """AddN's sum (TF's runtime may add the inputs as they come instead, with less memory)."""
    del shape
    return add_n(ctx, *inputs)


@register_kernel("AddN", ALL_DEVICE_TYPES)
def add_n(ctx, *inputs):
    first = inputs[0]
    for i, x in enumerate(inputs[1:], start=1):
        if x.shape != first.shape:
            raise invalid("Inputs to operation %s of type AddN must have the same size and "
                          "shape.  Input 0: %s != input %d: %s" % (
                              ctx.node_name, shape_text(first.shape), i,
                              shape_text(x.shape)))
    total = first
    for x in inputs[1:]:
        total = ctx.xp.add(total, x)
    return total


# =============================================================================
# Matrix products
# =============================================================================

@register_kernel("MatMul", ALL_DEVICE_TYPES)
def matmul(ctx, a, b, *, transpose_a, transpose_b):
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    if a.shape[1] != b.shape[0]:
        raise invalid("Matrix size-incompatible: In[0]: %s, In[1]: %s"
                      % (shape_text(a.shape), shape_text(b.shape)))
    return ctx.xp.matmul(a, b)


@register_kernel("SparseMatMul", ALL_DEVICE_TYPES)
def sparse_matmul(ctx, a, b, *, transpose_a, transpose_b, a_is_sparse, b_is_sparse, Ta, Tb):  # noqa: N803
    """MatMul's product; the sparsity hints only choose a faster kernel in TensorFlow."""
    del a_is_sparse, b_is_sparse, Ta, Tb
    return matmul(ctx, a, b, transpose_a=transpose_a, transpose_b=transpose_b)


@register_kernel("BatchMatMulV2", ALL_DEVICE_TYPES)
def batch_matmul(ctx, x, y, *, adj_x, adj_y):
    """Matrix products over the last two axes; the batch axes before them broadcast."""
    for i, operand in enumerate((x, y)):
        if operand.ndim < 2:
            raise invalid("In[%d] ndims must be >= 2: %d" % (i, operand.ndim))
    try:
        np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise invalid("In[0] and In[1] must have compatible batch dimensions: %s vs. %s"
                      % (shape_text(x.shape), shape_text(y.shape))) from None
    x = _adjoint(ctx.xp, x) if adj_x else x
    y = _adjoint(ctx.xp, y) if adj_y else y
    if x.shape[-1] != y.shape[-2]:
        raise invalid("Matrix size-incompatible: In[0]: %s, In[1]: %s"
                      % (shape_text(x.shape), shape_text(y.shape)))
    return ctx.xp.matmul(x, y)


def _adjoint(xp, matrices):
    """The conjugate transpose of each matrix (the last two axes)."""
    transposed = xp.swapaxes(matrices, -1, -2)
    return xp.conj(transposed) if _is_complex(matrices) else transposed


# =============================================================================
# Range
# =============================================================================

@register_kernel("Range", ALL_DEVICE_TYPES)
def range_(ctx, start, limit, delta):
    """start, start + delta, start + 2 * delta, ... computed in the output dtype, as TF does."""
    start, limit, delta = (host_array(ctx, v)[()] for v in (start, limit, delta))
    if delta == 0:
        raise invalid("Requires delta != 0: %s" % delta)
    if delta > 0 and start > limit:
        raise invalid("Requires start <= limit when delta > 0: %s/%s" % (start, limit))
    if delta < 0 and start < limit:
        raise invalid("Requires start >= limit when delta < 0: %s/%s" % (start, limit))
    dtype = start.dtype
    if np.issubdtype(dtype, np.integer):
        step = abs(int(delta))
        size = (abs(int(limit) - int(start)) + step - 1) // step
    else:
        size = int(np.ceil(np.abs((limit - start) / delta)))
    values = start + np.arange(size, dtype=dtype) * delta
    return on_device(ctx, values.astype(dtype, copy=False))


@register_kernel("LinSpace", ALL_DEVICE_TYPES)
def lin_space(ctx, start, stop, num):
    """`num` evenly spaced numbers from start to stop, both included."""
    num = int(host_array(ctx, num))
    if num <= 0:
        raise invalid("Requires num > 0: %d" % num)
    start, stop = host_array(ctx, start)[()], host_array(ctx, stop)[()]
    return on_device(ctx, np.linspace(start, stop, num).astype(start.dtype))


@register_kernel("Bincount", ALL_DEVICE_TYPES)
def bincount(ctx, arr, size, weights):
    """How often each value in [0, size) occurs in arr (or the sum of its weights).

    Values outside [0, size) are ignored; an empty `weights` counts each occurrence as 1.
    """
    size = int(host_array(ctx, size))
    if size < 0:
        raise invalid("size (%d) must be non-negative" % size)
    if weights.size and weights.shape != arr.shape:
        raise invalid("weights should have the same shape as arr or be empty: %s vs. %s"
                      % (shape_text(weights.shape), shape_text(arr.shape)))
    xp = ctx.xp
    dtype = weights.dtype  # T, also when no weights are given
    values = arr.reshape(-1)
    kept = (values >= 0) & (values < size)
    weights = weights.reshape(-1)[kept] if weights.size else None
    counts = xp.bincount(values[kept], weights=weights, minlength=size)
    return counts.astype(dtype, copy=False)


# =============================================================================
# Reductions
# =============================================================================

def _reduction_axes(ctx, x, indices):
    """The axes to reduce as a sorted tuple of non-negative ints, checked as TF checks them."""
    axes = []
    for axis in host_array(ctx, indices).reshape(-1).tolist():
        if not -x.ndim <= axis < x.ndim:
            raise invalid("Invalid reduction dimension (%d for input with %d dimension(s)"
                          % (axis, x.ndim))
        axis %= x.ndim
        if axis in axes:
            raise invalid("Invalid reduction arguments: Axes contains duplicate dimension: %d"
                          % axis)
        axes.append(axis)
    return tuple(sorted(axes))


def _reduced_shape(x, axes, keep_dims):
    return tuple(1 if i in axes else d for i, d in enumerate(x.shape)
                 if keep_dims or i not in axes)


def _register_reduction_kernel(op_type, compute):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, x, indices, *, keep_dims):
        axes = _reduction_axes(ctx, x, indices)
        result = compute(ctx.xp, x, axes, keep_dims)
        return result.astype(x.dtype, copy=False)

    _named_after(op_type, kernel)


def _sum(xp, x, axes, keep_dims):
    return xp.sum(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)


def _prod(xp, x, axes, keep_dims):
    return xp.prod(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)


def _mean(xp, x, axes, keep_dims):
    count = 1
    for axis in axes:
        count *= x.shape[axis]
    if _is_integer(x):
        # Sum without overflow in 64 bits, then divide truncating toward zero, as C++ does.
        wide = np.uint64 if np.issubdtype(x.dtype, np.unsignedinteger) else np.int64
        total = xp.sum(x, axis=axes, keepdims=keep_dims, dtype=wide)
        if count == 0:
            return xp.zeros(total.shape, dtype=x.dtype)
        quotient = xp.floor_divide(xp.abs(total), count)
        return xp.where(total < 0, -quotient, quotient)
    accumulator = np.float32 if x.dtype == np.float16 else x.dtype
    return xp.sum(x, axis=axes, keepdims=keep_dims, dtype=accumulator) / count


def _extreme(name, empty_value):
    """Max or Min; over an empty axis the result is the reduction's identity, as in TF."""
    def compute(xp, x, axes, keep_dims):
        if any(x.shape[axis] == 0 for axis in axes):
            return xp.full(_reduced_shape(x, axes, keep_dims), empty_value(x.dtype),
                           dtype=x.dtype)
        return getattr(xp, name)(x, axis=axes, keepdims=keep_dims)
    return compute


def _euclidean_norm(xp, x, axes, keep_dims):
    """sqrt(sum(|x|^2)), computed in float64 for integers (the kernel casts back)."""
    if _is_complex(x):
        squares = xp.real(x * xp.conj(x))
    elif _is_integer(x):
        squares = xp.square(x.astype(np.float64))
    else:
        squares = xp.square(x)
    return xp.sqrt(xp.sum(squares, axis=axes, keepdims=keep_dims))


_REDUCTIONS = {
    "Sum": _sum,
    "Prod": _prod,
    "Mean": _mean,
    "Max": _extreme("max", max_identity),
    "Min": _extreme("min", min_identity),
    "EuclideanNorm": _euclidean_norm,
    "Any": lambda xp, x, axes, keep_dims: xp.any(x, axis=axes, keepdims=keep_dims),
    "All": lambda xp, x, axes, keep_dims: xp.all(x, axis=axes, keepdims=keep_dims),
}

for _op_type, _compute in _REDUCTIONS.items():
    _register_reduction_kernel(_op_type, _compute)


def _register_arg_reduction_kernel(op_type, name):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, x, dimension, *, output_type):
        axis = int(host_array(ctx, dimension))
        if not -x.ndim <= axis < x.ndim:
            raise invalid("Expected dimension in the range [%d, %d), but got %d"
                          % (-x.ndim, x.ndim, axis))
        if x.shape[axis] == 0:
            raise invalid("Reduction axis %d is empty in shape %s"
                          % (axis, shape_text(x.shape)))
        return getattr(ctx.xp, name)(x, axis=axis).astype(output_type.as_numpy_dtype)

    _named_after(op_type, kernel)


_register_arg_reduction_kernel("ArgMax", "argmax")
_register_arg_reduction_kernel("ArgMin", "argmin")


# =============================================================================
# Scans
# =============================================================================

def _register_scan_kernel(op_type, running, identity):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, x, axis, *, exclusive, reverse):
        xp = ctx.xp
        axis = host_array(ctx, axis)
        if axis.ndim != 0:
            raise invalid("ScanOp: axis must be a scalar, not %s" % shape_text(axis.shape))
        axis = int(axis)
        if not -x.ndim <= axis < x.ndim:
            raise invalid("ScanOp: Expected scan axis in the range [%d, %d), but got %d"
                          % (-x.ndim, x.ndim, axis))
        axis %= x.ndim
        if x.shape[axis] == 0:
            return xp.zeros(x.shape, dtype=x.dtype)  # nothing to scan
        if reverse:
            x = xp.flip(x, axis=axis)
        if exclusive:
            # Shift by one: the identity first, the last element dropped.
            first = xp.full(x.shape[:axis] + (1,) + x.shape[axis + 1:], identity, dtype=x.dtype)
            all_but_last = (slice(None),) * axis + (slice(0, x.shape[axis] - 1),)
            x = xp.concatenate([first, x[all_but_last]], axis=axis)
        result = running(xp, x, axis).astype(x.dtype, copy=False)
        return xp.flip(result, axis=axis) if reverse else result

    _named_after(op_type, kernel)


_register_scan_kernel("Cumsum", lambda xp, x, axis: xp.cumsum(x, axis=axis, dtype=x.dtype), 0)
_register_scan_kernel("Cumprod", lambda xp, x, axis: xp.cumprod(x, axis=axis, dtype=x.dtype), 1)
# log(e^a + e^b), one element after the other: no exp ever overflows or underflows to 0.
_register_scan_kernel("CumulativeLogsumexp",
                      lambda xp, x, axis: xp.logaddexp.accumulate(x, axis=axis), -np.inf)


# =============================================================================
# Fused gradients of unary ops: f(y, dy), y being the forward op's output
# =============================================================================

_UNARY_GRADIENTS = {
    "SqrtGrad": lambda y, dy: dy * 0.5 / y,
    "RsqrtGrad": lambda y, dy: dy * -0.5 * y * y * y,
    "TanhGrad": lambda y, dy: dy * (1 - y * y),
    "SigmoidGrad": lambda y, dy: dy * y * (1 - y),
    "ReciprocalGrad": lambda y, dy: -dy * y * y,
}


def _register_unary_gradient_kernel(op_type, compute):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, y, dy):
        if y.size != dy.size:
            raise invalid("The two arguments to a cwise op must have same number of elements, "
                          "got %d and %d" % (y.size, dy.size))
        if _is_complex(y):
            y = ctx.xp.conj(y)  # the derivative at y, conjugated: TF's rule for complex numbers
        # 0.5 and 1 are Python numbers: NumPy keeps y's dtype (float16 stays float16).
        return compute(y, ctx.xp.reshape(dy, y.shape)).astype(y.dtype, copy=False)

    _named_after(op_type, kernel)


for _op_type, _compute in _UNARY_GRADIENTS.items():
    _register_unary_gradient_kernel(_op_type, _compute)


# =============================================================================
# UnsortedSegmentSum
# =============================================================================

@register_kernel("UnsortedSegmentSum", ALL_DEVICE_TYPES)
def unsorted_segment_sum(ctx, data, segment_ids, num_segments):
    """output[i] = sum of data's slices with id i; negative ids are dropped, as in TF."""
    xp = ctx.xp
    num_segments = host_array(ctx, num_segments)
    if num_segments.ndim != 0:
        raise invalid("num_segments should be a scalar, not shape %s"
                      % shape_text(num_segments.shape))
    num_segments = int(num_segments)
    if num_segments < 0:
        raise invalid("Dimension size, given by scalar input 2, must be non-negative but "
                      "is %d" % num_segments)
    if tuple(data.shape[:segment_ids.ndim]) != tuple(segment_ids.shape):
        raise invalid("data.shape = %s does not start with segment_ids.shape = %s"
                      % (shape_text(data.shape), shape_text(segment_ids.shape)))
    host_ids = host_array(ctx, segment_ids).reshape(-1)
    too_large = np.flatnonzero(host_ids >= num_segments) if host_ids.size and (
        host_ids.max() >= num_segments) else ()
    if len(too_large):
        i = int(too_large[0])
        raise invalid("segment_ids%s = %d is out of range [0, %d)" % (
            _index_text(i, segment_ids.shape), host_ids[i], num_segments))
    row_shape = tuple(data.shape[segment_ids.ndim:])
    rows = xp.reshape(data, (host_ids.size,) + row_shape)
    output = xp.zeros((num_segments,) + row_shape, dtype=data.dtype)
    _add_rows_by_id(xp, output, host_ids, rows)
    return output


@register_kernel("_DeduplicateIndexedSlices", ALL_DEVICE_TYPES)
def deduplicate_indexed_slices(ctx, values, indices):
    """(summed values, unique indices), the indices in order of first appearance.

    What `Unique` and `UnsortedSegmentSum` give together, bit for bit (the
    rows of one index are added in their order), from one sort of the
    indices instead of three.
    """
    xp = ctx.xp
    if indices.ndim != 1 or values.ndim < 1 or values.shape[0] != indices.shape[0]:
        raise invalid("values.shape = %s does not start with indices.shape = %s"
                      % (shape_text(values.shape), shape_text(indices.shape)))
    host_ids = host_array(ctx, indices)
    if host_ids.size == 0:
        return values, indices
    runs = IdRuns(host_ids)
    # Unique numbers the distinct indices in order of first appearance: so do we.
    by_appearance = np.argsort(runs.first_positions)
    slots = np.empty_like(by_appearance)
    slots[by_appearance] = np.arange(by_appearance.size)
    sums = xp.empty((by_appearance.size,) + tuple(values.shape[1:]), dtype=values.dtype)
    runs.sum_into(xp, sums, slots, values)
    return sums, on_device(ctx, runs.ids[by_appearance])


def _add_rows_by_id(xp, output, host_ids, rows):
    """output[id] += row for every (id, row), repeated ids summed, negative ids dropped."""
    if host_ids.size and host_ids.min() < 0:
        kept = np.flatnonzero(host_ids >= 0)
        rows, host_ids = rows[xp.asarray(kept)], host_ids[kept]
    if host_ids.size:
        runs = IdRuns(host_ids)
        runs.sum_into(xp, output, runs.ids, rows)


class IdRuns:
    """The rows of each distinct id, found by one stable sort of the ids.

    Sorting brings the occurrences of an id together, in their order: a
    *run*. `ids` lists the distinct ids (increasing), `first_positions`
    where each first occurs. `sum_into` adds up the rows of each run: an id
    that occurs once just has its row copied, and the runs of repeated ids
    are summed with `add.reduceat`, in the order of the rows. Both are many
    times faster than `add.at`, which handles one occurrence at a time, and
    leaving the single rows out of `reduceat` matters too: its cost grows
    with the number of runs (about half a microsecond each), not with the
    rows.
    """

    def __init__(self, host_ids):
        self.order = np.argsort(host_ids, kind="stable")
        self.sorted_ids = host_ids[self.order]
        starts = _run_starts(self.sorted_ids)
        self.ids = self.sorted_ids[starts]
        self.first_positions = self.order[starts]
        self.lengths = np.empty_like(starts)
        self.lengths[:-1] = starts[1:] - starts[:-1]
        self.lengths[-1] = self.sorted_ids.size - starts[-1]

    def sum_into(self, xp, output, slots, rows):
        """output[slots[r]] = the sum of the rows of run r, for every run r."""
        single = self.lengths == 1
        if single.any():
            output[xp.asarray(slots[single])] = rows[xp.asarray(self.first_positions[single])]
        if not single.all():
            repeated = np.repeat(~single, self.lengths)  # for each sorted row: its id repeats?
            output[xp.asarray(slots[~single])] = _sum_runs(
                xp, rows[xp.asarray(self.order[repeated])],
                _run_starts(self.sorted_ids[repeated]))


def _sum_runs(xp, rows, run_starts):
    """The sum of each run of `rows`, the runs starting at `run_starts` (host positions)."""
    if hasattr(xp.add, "reduceat"):
        return xp.add.reduceat(rows, xp.asarray(run_starts), axis=0)
    # An array library without reduceat (some CuPy versions): scatter-add by run number.
    run_of_row = np.repeat(np.arange(run_starts.size), np.diff(run_starts, append=len(rows)))
    sums = xp.zeros((run_starts.size,) + tuple(rows.shape[1:]), dtype=rows.dtype)
    xp.add.at(sums, xp.asarray(run_of_row), rows)
    return sums


def _run_starts(sorted_ids):
    """The positions where a new id starts in `sorted_ids` (not empty)."""
    starts_a_run = np.empty(sorted_ids.size, dtype=bool)
    starts_a_run[0] = True
    np.not_equal(sorted_ids[1:], sorted_ids[:-1], out=starts_a_run[1:])
    return np.flatnonzero(starts_a_run)


def _index_text(flat_index, shape):
    """`[1,2]`: the multi-index of a flat position, as TF prints it in messages."""
    return shape_text(np.unravel_index(flat_index, shape)) if shape else "[]"


# =============================================================================
# BroadcastGradientArgs
# =============================================================================

@register_kernel("BroadcastGradientArgs", ALL_DEVICE_TYPES, is_expensive=False)
def broadcast_gradient_args(ctx, s0, s1):
    """The axes of the broadcast result along which each operand was stretched (TF's BCast)."""
    for i, shape in enumerate((s0, s1)):
        if shape.ndim != 1:
            raise invalid("In[%d] must be a vector.%s" % (i, shape_text(shape.shape)))
    x = [int(d) for d in host_array(ctx, s0)]
    y = [int(d) for d in host_array(ctx, s1)]
    r0, r1 = _gradient_reduction_axes(x, y)
    dtype = s0.dtype
    return (on_device(ctx, np.asarray(r0, dtype=dtype)),
            on_device(ctx, np.asarray(r1, dtype=dtype)))


def _gradient_reduction_axes(x, y):
    """(axes to sum x's gradient over, axes to sum y's), as lists of ints."""
    if x == y:
        return [], []  # identical shapes: nothing was broadcast
    rank = max(len(x), len(y))
    padded_x = [1] * (rank - len(x)) + x
    padded_y = [1] * (rank - len(y)) + y
    reduce_x, reduce_y = [], []
    for axis, (a, b) in enumerate(zip(padded_x, padded_y)):
        if a == b:
            if a == 1:
                # Both 1: summing over the axis is a no-op either way; TF lists it for both.
                reduce_x.append(axis)
                reduce_y.append(axis)
        elif a == 1:
            reduce_x.append(axis)
        elif b == 1:
            reduce_y.append(axis)
        else:
            raise invalid("Incompatible shapes: %s vs. %s" % (shape_text(x), shape_text(y)))
    return reduce_x, reduce_y


# =============================================================================
# Histograms
# =============================================================================

@register_kernel("HistogramFixedWidth", ALL_DEVICE_TYPES)
def histogram_fixed_width(ctx, values, value_range, nbins, *, T, dtype):  # noqa: N803
    """Counts of `values` in `nbins` equal bins over value_range; outliers go to an end bin."""
    del T
    low, high = (float(v) for v in host_array(ctx, value_range).reshape(-1)[:2])
    nbins = int(host_array(ctx, nbins))
    if nbins <= 0:
        raise invalid("nbins should be a positive number, but got '%d'" % nbins)
    if not low < high:
        raise invalid("value_range should satisfy value_range[0] < value_range[1], but got '[%s, %s]'"
                      % (_number_text(low), _number_text(high)))
    xp = ctx.xp
    step = (high - low) / nbins
    scaled = xp.floor((values.reshape(-1).astype(np.float64) - low) / step)
    bins = xp.clip(scaled, 0, nbins - 1).astype(np.int64)
    return xp.bincount(bins, minlength=nbins).astype(dtype.as_numpy_dtype)


def _number_text(value):
    return "%d" % value if float(value).is_integer() else "%g" % value
