"""Math ops: elementwise arithmetic, comparisons, casts, matmul, range, reductions, scans.

Each op type gets the Python constructor users call, with TensorFlow
1.15's name, arguments and defaults, ending in `apply_op`. Its OpDef
(inputs, attrs, allowed dtypes and shape function) is on the framework
floor, in `minitf/framework/op_defs/math.py`; the kernels that compute
them live in `minitf/kernels/cpu/math_kernels.py`.

Binary elementwise ops broadcast like NumPy. Their operands must already
share one dtype: `tf.add(tf.constant(1), tf.constant(2.0))` is a TypeError,
TensorFlow never promotes silently. The only conversions are the explicit
ones TF1 makes in Python: `truediv` casts integers to floats first, and
`range` picks the widest dtype among its arguments.

The end of the file installs Tensor's operators (`a + b`, `a @ b`, `-a`,
`a < b`, ...). Each builds the same op as the function, under a lower-case
name scope (`add`, `sub`, `truediv`), converting a Python operand to the
tensor's dtype first, as TensorFlow does. `==` and `!=` are left alone: TF1
tensors compare by identity, so they can be dict keys. Just before them
come the ops that gradient functions (`minitf/autodiff/math_grad.py`) are
built from: UnsortedSegmentSum, BroadcastGradientArgs and the fused
gradients of unary ops (TanhGrad, ...).

Mirrors `tensorflow/python/ops/math_ops.py`.
"""

import builtins

import numpy as np

from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph import tensor_shape
from minitf.graph.constant_op import constant
from minitf.graph.op_def_library import apply_op
from minitf.graph.sparse_tensor import IndexedSlices
from minitf.graph.sparse_tensor import SparseTensor
from minitf.graph.tensor_conversion import convert_to_tensor
from minitf.graph.tensor_conversion import convert_to_tensor_or_indexed_slices
from minitf.graph.tensor_util import constant_value
from minitf.ops import array_ops

__all__ = [
    # binary arithmetic
    "add", "subtract", "multiply", "scalar_mul", "divide", "truediv", "div", "div_no_nan",
    "realdiv",
    "floordiv", "mod", "floormod", "pow", "maximum", "minimum", "squared_difference",
    # unary
    "negative", "abs", "sign", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sin",
    "cos", "tanh", "sigmoid", "log_sigmoid", "floor", "ceil", "round", "reciprocal",
    # comparisons and logic
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor", "where",
    # casts
    "cast", "to_float", "to_double", "to_int32", "to_int64",
    # the rest
    "add_n", "matmul", "range",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
    "reduce_all", "argmax", "argmin", "count_nonzero",
    # scans and segment reductions
    "cumsum", "cumprod", "unsorted_segment_sum",
]


# =============================================================================
# Binary elementwise arithmetic
# =============================================================================


def add(x, y, name=None):
    """x + y elementwise, with broadcasting (also joins strings)."""
    return apply_op("Add", name=name, x=x, y=y)


def subtract(x, y, name=None):
    """x - y elementwise, with broadcasting."""
    return apply_op("Sub", name=name, x=x, y=y)


def multiply(x, y, name=None):
    """x * y elementwise, with broadcasting."""
    return apply_op("Mul", name=name, x=x, y=y)


def scalar_mul(scalar, x, name=None):
    """scalar * x, where x may be an IndexedSlices: then only its values are multiplied."""
    scalar = convert_to_tensor(scalar, dtype=x.dtype.base_dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError("Only scalar multiply works, got shape %s" % scalar.shape)
    if isinstance(x, IndexedSlices):
        return IndexedSlices(apply_op("Mul", name=name, x=scalar, y=x.values), x.indices,
                             x.dense_shape)
    return apply_op("Mul", name=name, x=scalar, y=x)


def realdiv(x, y, name=None):
    """x / y for real numbers, elementwise (integers divide and truncate)."""
    return apply_op("RealDiv", name=name, x=x, y=y)


def floordiv(x, y, name=None):
    """floor(x / y) elementwise: rounds toward negative infinity, also for integers."""
    with ops.name_scope(name, "floordiv", [x, y]) as scope:
        return apply_op("FloorDiv", name=scope, x=x, y=y)


def floormod(x, y, name=None):
    """The remainder of floor division: the result has the sign of `y`, like Python's %."""
    return apply_op("FloorMod", name=name, x=x, y=y)


mod = floormod


def pow(x, y, name=None):  # noqa: A001 - TF's public name
    """x ** y elementwise; integers to negative integer powers fail at run time."""
    with ops.name_scope(name, "Pow", [x]) as scope:
        return apply_op("Pow", name=scope, x=x, y=y)


def maximum(x, y, name=None):
    """The larger of x and y, elementwise."""
    return apply_op("Maximum", name=name, x=x, y=y)


def minimum(x, y, name=None):
    """The smaller of x and y, elementwise."""
    return apply_op("Minimum", name=name, x=x, y=y)


def squared_difference(x, y, name=None):
    """(x - y) * (x - y) elementwise."""
    return apply_op("SquaredDifference", name=name, x=x, y=y)


# --- division: TF1 has several, with different integer semantics -----------------

# What `truediv` casts integers to before dividing: small ones fit float32,
# int32 and int64 need float64 to keep every value exact.
_TRUEDIV_FLOAT = {
    dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32,
    dtypes.uint16: dtypes.float32, dtypes.int16: dtypes.float32,
    dtypes.uint32: dtypes.float64, dtypes.int32: dtypes.float64,
    dtypes.uint64: dtypes.float64, dtypes.int64: dtypes.float64,
    dtypes.float16: None, dtypes.float32: None, dtypes.float64: None,
    dtypes.complex64: None, dtypes.complex128: None,
}


def truediv(x, y, name=None):
    """x / y with Python 3 semantics: integers are cast to floats, then divided."""
    with ops.name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
        x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError("x and y must have the same dtype, got %r != %r"
                            % (x_dtype, y_dtype))
        if x_dtype not in _TRUEDIV_FLOAT:
            raise TypeError("Invalid dtype %r in __truediv__" % x_dtype)
        float_dtype = _TRUEDIV_FLOAT[x_dtype]
        if float_dtype is not None:
            x = cast(x, float_dtype)
            y = cast(y, float_dtype)
        return apply_op("RealDiv", name=scope, x=x, y=y)


def divide(x, y, name=None):
    """x / y, as the `/` operator computes it (true division)."""
    if not isinstance(x, ops.Tensor) and isinstance(y, ops.Tensor):
        # As for `2 / tensor`: the Python operand takes the tensor's dtype.
        x = convert_to_tensor(x, dtype=y.dtype.base_dtype)
    return truediv(x, y, name=name)


def div_no_nan(x, y, name=None):
    """x / y elementwise, and 0 where y is 0: a ratio whose empty denominator means zero."""
    with ops.name_scope(name, "div_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        return apply_op("DivNoNan", name=scope, x=x, y=y)


def div(x, y, name=None):
    """Deprecated TF1 division with Python 2 semantics: floor for integers, real for floats."""
    with ops.name_scope(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        if x.dtype.is_floating or x.dtype.is_complex:
            return apply_op("RealDiv", name=scope, x=x, y=y)
        return apply_op("FloorDiv", name=scope, x=x, y=y)


# =============================================================================
# Unary elementwise
# =============================================================================


def negative(x, name=None):
    """-x elementwise."""
    return apply_op("Neg", name=name, x=x)


def abs(x, name=None):  # noqa: A001 - TF's public name
    """|x| elementwise; of a complex number, its magnitude sqrt(re^2 + im^2), a real number."""
    with ops.name_scope(name, "Abs", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return apply_op("ComplexAbs", name=scope, x=x, Tout=x.dtype.real_dtype)
        return apply_op("Abs", name=scope, x=x)


def sign(x, name=None):
    """-1, 0 or 1 according to the sign of each element."""
    return apply_op("Sign", name=name, x=x)


def square(x, name=None):
    """x * x elementwise."""
    return apply_op("Square", name=name, x=x)


def sqrt(x, name=None):
    """The square root of each element."""
    return apply_op("Sqrt", name=name, x=x)


def rsqrt(x, name=None):
    """1 / sqrt(x) elementwise."""
    return apply_op("Rsqrt", name=name, x=x)


def exp(x, name=None):
    """e ** x elementwise."""
    return apply_op("Exp", name=name, x=x)


def log(x, name=None):
    """The natural logarithm of each element."""
    return apply_op("Log", name=name, x=x)


def log1p(x, name=None):
    """log(1 + x) elementwise, accurate for small x."""
    return apply_op("Log1p", name=name, x=x)


def sin(x, name=None):
    """The sine of each element."""
    return apply_op("Sin", name=name, x=x)


def cos(x, name=None):
    """The cosine of each element."""
    return apply_op("Cos", name=name, x=x)


def tanh(x, name=None):
    """The hyperbolic tangent of each element."""
    with ops.name_scope(name, "Tanh", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Tanh", name=scope, x=x)


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)) elementwise."""
    with ops.name_scope(name, "Sigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Sigmoid", name=scope, x=x)


def log_sigmoid(x, name=None):
    """log(1 / (1 + exp(-x))) elementwise, computed as -softplus(-x), which stays finite
    where the sigmoid underflows."""
    with ops.name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Neg", name=scope, x=apply_op("Softplus", features=negative(x)))


def floor(x, name=None):
    """The largest integer not greater than each element."""
    return apply_op("Floor", name=name, x=x)


def ceil(x, name=None):
    """The smallest integer not less than each element."""
    return apply_op("Ceil", name=name, x=x)


def round(x, name=None):  # noqa: A001 - TF's public name
    """Rounds to the nearest integer, halves to even (0.5 -> 0, 1.5 -> 2); ints pass through."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return apply_op("Round", name=name, x=x)


def reciprocal(x, name=None):
    """1 / x elementwise."""
    return apply_op("Reciprocal", name=name, x=x)


# =============================================================================
# Comparisons and logic
# =============================================================================


def equal(x, y, name=None):
    """x == y elementwise, as a bool tensor."""
    return apply_op("Equal", name=name, x=x, y=y)


def not_equal(x, y, name=None):
    """x != y elementwise, as a bool tensor."""
    return apply_op("NotEqual", name=name, x=x, y=y)


def less(x, y, name=None):
    """x < y elementwise, as a bool tensor."""
    return apply_op("Less", name=name, x=x, y=y)


def less_equal(x, y, name=None):
    """x <= y elementwise, as a bool tensor."""
    return apply_op("LessEqual", name=name, x=x, y=y)


def greater(x, y, name=None):
    """x > y elementwise, as a bool tensor."""
    return apply_op("Greater", name=name, x=x, y=y)


def greater_equal(x, y, name=None):
    """x >= y elementwise, as a bool tensor."""
    return apply_op("GreaterEqual", name=name, x=x, y=y)


def logical_and(x, y, name=None):
    """x AND y elementwise, for bool tensors."""
    return apply_op("LogicalAnd", name=name, x=x, y=y)


def logical_or(x, y, name=None):
    """x OR y elementwise, for bool tensors."""
    return apply_op("LogicalOr", name=name, x=x, y=y)


def logical_not(x, name=None):
    """NOT x elementwise, for bool tensors."""
    return apply_op("LogicalNot", name=name, x=x)


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y elementwise; TF builds it as (x OR y) AND NOT (x AND y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# --- where: coordinates of true elements, or an elementwise choice -----------------


def where(condition, x=None, y=None, name=None):
    """TF1's `tf.where`.

    With only `condition`: the coordinates of its true (non-zero) elements, an
    int64 matrix [number of true elements, rank of condition].
    With `x` and `y`: elements of `x` where `condition` is true, of `y` elsewhere.
    `condition` has the shape of `x`, or is a vector choosing whole rows of `x`
    (matching its first dimension), or is a scalar choosing all of `x` or `y`.
    """
    if x is None and y is None:
        return array_ops.where_coordinates(condition, name)
    if x is not None and y is not None:
        return apply_op("Select", name=name, condition=condition, t=x, e=y)
    raise ValueError("x and y must both be non-None or both be None.")


# =============================================================================
# More elementwise functions
# =============================================================================

# Each builds its op directly under the name given (no name scope), as the
# generated wrappers of TF's gen_math_ops do.


def acos(x, name=None):
    """The inverse cosine of each element, in [0, pi] (NaN outside [-1, 1])."""
    return apply_op("Acos", name=name, x=x)


def asin(x, name=None):
    """The inverse sine of each element, in [-pi/2, pi/2] (NaN outside [-1, 1])."""
    return apply_op("Asin", name=name, x=x)


def atan(x, name=None):
    """The inverse tangent of each element, in (-pi/2, pi/2)."""
    return apply_op("Atan", name=name, x=x)


def atan2(y, x, name=None):
    """The angle of the point (x, y), atan(y / x) in the right quadrant: in [-pi, pi]."""
    return apply_op("Atan2", name=name, y=y, x=x)


def tan(x, name=None):
    """The tangent of each element."""
    return apply_op("Tan", name=name, x=x)


def acosh(x, name=None):
    """The inverse hyperbolic cosine of each element (NaN below 1)."""
    return apply_op("Acosh", name=name, x=x)


def asinh(x, name=None):
    """The inverse hyperbolic sine of each element."""
    return apply_op("Asinh", name=name, x=x)


def atanh(x, name=None):
    """The inverse hyperbolic tangent of each element (+-inf at +-1, NaN beyond)."""
    return apply_op("Atanh", name=name, x=x)


def cosh(x, name=None):
    """The hyperbolic cosine of each element."""
    return apply_op("Cosh", name=name, x=x)


def sinh(x, name=None):
    """The hyperbolic sine of each element."""
    return apply_op("Sinh", name=name, x=x)


def expm1(x, name=None):
    """e^x - 1, exact also for tiny x (where exp(x) - 1 would lose every digit)."""
    return apply_op("Expm1", name=name, x=x)


def rint(x, name=None):
    """The nearest integer, halves to even, as a float: rint(2.5) == 2.0."""
    return apply_op("Rint", name=name, x=x)


def is_finite(x, name=None):
    """True where an element is neither infinite nor NaN."""
    return apply_op("IsFinite", name=name, x=x)


def is_inf(x, name=None):
    """True where an element is +inf or -inf."""
    return apply_op("IsInf", name=name, x=x)


def is_nan(x, name=None):
    """True where an element is NaN."""
    return apply_op("IsNan", name=name, x=x)


def erf(x, name=None):
    """The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x."""
    return apply_op("Erf", name=name, x=x)


def erfc(x, name=None):
    """1 - erf(x), exact also where erf(x) is nearly 1."""
    return apply_op("Erfc", name=name, x=x)


def erfinv(x, name=None):
    """The inverse of erf: the y with erf(y) = x (+-inf at +-1, NaN outside [-1, 1])."""
    with ops.name_scope(name, "erfinv", [x]):
        return apply_op("Erfinv", x=x)


def ndtri(x, name=None):
    """The quantile of the standard normal distribution: the inverse of its CDF."""
    with ops.name_scope(name, "ndtri", [x]):
        return apply_op("Ndtri", x=x)


def erfcinv(x, name=None):
    """The inverse of erfc, from ndtri: erfcinv(x) = -ndtri(x / 2) / sqrt(2)."""
    with ops.name_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * np.sqrt(0.5)


def bessel_i0e(x, name=None):
    """e^-|x| I0(x): the modified Bessel function of order 0, scaled so as not to overflow."""
    with ops.name_scope(name, "bessel_i0e", [x]):
        return apply_op("BesselI0e", x=x)


def bessel_i1e(x, name=None):
    """e^-|x| I1(x): the modified Bessel function of order 1, scaled."""
    with ops.name_scope(name, "bessel_i1e", [x]):
        return apply_op("BesselI1e", x=x)


def bessel_i0(x, name=None):
    """I0(x), the modified Bessel function of order 0: e^|x| bessel_i0e(x)."""
    with ops.name_scope(name, "bessel_i0", [x]):
        return exp(abs(x)) * bessel_i0e(x)


def bessel_i1(x, name=None):
    """I1(x), the modified Bessel function of order 1: e^|x| bessel_i1e(x)."""
    with ops.name_scope(name, "bessel_i1", [x]):
        return exp(abs(x)) * bessel_i1e(x)


def lgamma(x, name=None):
    """log |Gamma(x)|: the log of the factorial's continuation, (n - 1)! at integer n."""
    return apply_op("Lgamma", name=name, x=x)


def digamma(x, name=None):
    """psi(x), the derivative of lgamma(x)."""
    return apply_op("Digamma", name=name, x=x)


def zeta(x, q, name=None):
    """The Hurwitz zeta function: the sum over k >= 0 of (k + q)^-x."""
    return apply_op("Zeta", name=name, x=x, q=q)


def polygamma(a, x, name=None):
    """The a-th derivative of digamma (a a non-negative integer; NaN otherwise)."""
    return apply_op("Polygamma", name=name, a=a, x=x)


def igamma(a, x, name=None):
    """P(a, x), the lower regularized incomplete gamma function (the Gamma(a) CDF at x)."""
    return apply_op("Igamma", name=name, a=a, x=x)


def igammac(a, x, name=None):
    """Q(a, x) = 1 - P(a, x), the upper regularized incomplete gamma function."""
    return apply_op("Igammac", name=name, a=a, x=x)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b): the Beta(a, b) CDF at x."""
    return apply_op("Betainc", name=name, a=a, b=b, x=x)


def lbeta(x, name=None):
    """log |Beta(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x))."""
    with ops.name_scope(name, "lbeta", [x]):
        x = convert_to_tensor(x, name="x")
        log_prod_gamma_x = reduce_sum(lgamma(x), axis=[-1])
        log_gamma_sum_x = lgamma(reduce_sum(x, axis=[-1]))
        return log_prod_gamma_x - log_gamma_sum_x


def truncatediv(x, y, name=None):
    """x / y rounded toward zero, as C divides integers: truncatediv(-7, 2) == -3."""
    return apply_op("TruncateDiv", name=name, x=x, y=y)


def truncatemod(x, y, name=None):
    """The remainder of truncatediv: it has the sign of x (truncatemod(-7, 2) == -1)."""
    return apply_op("TruncateMod", name=name, x=x, y=y)


def floor_div(x, y, name=None):
    """The FloorDiv op itself, built without `floordiv`'s name scope."""
    return apply_op("FloorDiv", name=name, x=x, y=y)


def xdivy(x, y, name=None):
    """x / y, and 0 where x is 0 (even where y is 0 too)."""
    return apply_op("Xdivy", name=name, x=x, y=y)


def xlogy(x, y, name=None):
    """x * log(y), and 0 where x is 0 (even where y is 0): the terms of an entropy."""
    return apply_op("Xlogy", name=name, x=x, y=y)


def xlog1py(x, y, name=None):
    """x * log1p(y), and 0 where x is 0."""
    return apply_op("Xlog1py", name=name, x=x, y=y)


def nextafter(x1, x2, name=None):
    """The float next to x1 in the direction of x2."""
    return apply_op("NextAfter", name=name, x1=x1, x2=x2)


def multiply_no_nan(x, y, name=None):
    """x * y, and 0 where y is 0 (even where x is inf or NaN)."""
    with ops.name_scope(name, "multiply_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        return apply_op("MulNoNan", name=scope, x=x, y=y)


def reciprocal_no_nan(x, name=None):
    """1 / x, and 0 where x is 0."""
    with ops.name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = constant(1, dtype=x.dtype.base_dtype, name="one")
        return apply_op("DivNoNan", name=scope, x=one, y=x)


# =============================================================================
# Counting, polynomials, monotonic sequences
# =============================================================================


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32):
    """How often each value 0, 1, ..., max(arr) occurs in `arr` (or the sum of its weights).

    The output has max(arr) + 1 entries (0 for an empty arr), at least
    `minlength` and at most `maxlength`.
    """
    with ops.name_scope(None, "bincount", [arr, weights, minlength, maxlength]):
        arr = convert_to_tensor(arr, name="arr", dtype=dtypes.int32)
        array_is_nonempty = reduce_prod(array_ops.shape(arr)) > 0
        output_size = cast(array_is_nonempty, dtypes.int32) * (reduce_max(arr) + 1)
        if minlength is not None:
            minlength = convert_to_tensor(minlength, name="minlength", dtype=dtypes.int32)
            output_size = maximum(minlength, output_size)
        if maxlength is not None:
            maxlength = convert_to_tensor(maxlength, name="maxlength", dtype=dtypes.int32)
            output_size = minimum(maxlength, output_size)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            return unsorted_segment_sum(weights, arr, output_size)
        weights = constant([], dtype)
        return apply_op("Bincount", arr=arr, size=output_size, weights=weights)


def polyval(coeffs, x, name=None):
    """coeffs[0] x^(n-1) + ... + coeffs[n-1], by Horner's rule: (c0 x + c1) x + c2 ..."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("Argument coeffs must be list type found {}.".format(type(coeffs)))
    with ops.name_scope(name, "polyval", list(coeffs) + [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return array_ops.zeros_like(x, name=scope)
        coeffs = [convert_to_tensor(coeff, name="coeff_%d" % index)
                  for index, coeff in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p


def _consecutive_differences(x):
    """x[1:] - x[:-1] of the flattened x (empty when x has fewer than two elements)."""
    x = array_ops.reshape(x, [-1])
    if not (x.dtype.is_floating or x.dtype.is_integer or x.dtype.is_complex):
        raise TypeError("Expected x to be numeric, instead found: %s" % x)
    return x[1:] - x[:-1]


def is_non_decreasing(x, name=None):
    """True when each element of the flattened x is >= the one before it."""
    with ops.name_scope(name, "is_non_decreasing", [x]):
        diff = _consecutive_differences(convert_to_tensor(x, name="x"))
        zero = convert_to_tensor(0, dtype=diff.dtype)
        return reduce_all(less_equal(zero, diff))


def is_strictly_increasing(x, name=None):
    """True when each element of the flattened x is > the one before it."""
    with ops.name_scope(name, "is_strictly_increasing", [x]):
        diff = _consecutive_differences(convert_to_tensor(x, name="x"))
        zero = convert_to_tensor(0, dtype=diff.dtype)
        return reduce_all(less(zero, diff))


# =============================================================================
# Complex numbers
# =============================================================================

# A complex64 is a pair of float32s, a complex128 a pair of float64s. Real
# tensors pass through `real` and `conj` unchanged (no op is built), and
# `imag` and `angle` of a real tensor are computed from its sign.

_COMPLEX_OF_PARTS = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def complex(real, imag, name=None):  # noqa: A001 - TF's public name
    """real + imag * i: float32 parts make complex64, float64 parts complex128."""
    real = convert_to_tensor(real, name="real")
    imag = convert_to_tensor(imag, name="imag")
    with ops.name_scope(name, "Complex", [real, imag]) as scope:
        real_dtype, imag_dtype = real.dtype.base_dtype, imag.dtype.base_dtype
        if real_dtype != imag_dtype or real_dtype not in _COMPLEX_OF_PARTS:
            raise TypeError("real and imag have incorrect types: %s %s"
                            % (real_dtype.name, imag_dtype.name))
        return apply_op("Complex", name=scope, real=real, imag=imag,
                        Tout=_COMPLEX_OF_PARTS[real_dtype])


def real(input, name=None):  # noqa: A002 - TF's argument name
    """The real part of each element, as float32 (of complex64) or float64; a real tensor itself."""
    with ops.name_scope(name, "Real", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return apply_op("Real", name=scope, input=input, Tout=input.dtype.real_dtype)
        return input


def imag(input, name=None):  # noqa: A002 - TF's argument name
    """The imaginary part of each element; zeros for a real tensor."""
    with ops.name_scope(name, "Imag", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return apply_op("Imag", name=scope, input=input, Tout=input.dtype.real_dtype)
        return array_ops.zeros_like(input)


def angle(input, name=None):  # noqa: A002 - TF's argument name
    """The argument of each element, atan2(im, re) in [-pi, pi]; pi or 0 for a real tensor."""
    with ops.name_scope(name, "Angle", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return apply_op("Angle", name=scope, input=input, Tout=input.dtype.real_dtype)
        return where(input < 0, np.pi * array_ops.ones_like(input),
                     array_ops.zeros_like(input))


def conj(x, name=None):
    """The complex conjugate re - im * i of each element; a real tensor is returned as it is."""
    if isinstance(x, ops.Tensor) and (x.dtype.is_floating or x.dtype.is_integer):
        return x
    with ops.name_scope(name, "Conj", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex or x.dtype.base_dtype == dtypes.variant:
            return apply_op("Conj", name=scope, input=x)
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError("Expected numeric or variant tensor, got dtype %r" % x.dtype)


# =============================================================================
# Casts
# =============================================================================


def cast(x, dtype, name=None):
    """`x` converted to `dtype`: floats to ints truncate toward zero, non-zero to bool is True.

    A tensor that already has `dtype` is returned as it is, with no new op.
    """
    base_type = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, ops.Tensor) and x.dtype == base_type:
        return x
    with ops.name_scope(name, "Cast", [x]) as scope:
        if isinstance(x, SparseTensor):
            return SparseTensor(x.indices, cast(x.values, base_type, name=scope), x.dense_shape)
        if isinstance(x, IndexedSlices):
            return IndexedSlices(cast(x.values, base_type, name=scope), x.indices,
                                 x.dense_shape)
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == base_type:
            return x
        return apply_op("Cast", name=scope, x=x, DstT=base_type)


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False,
                  b_is_sparse=False, name=None):
    """a @ b of float32 matrices (a SparseMatMul op): the same product as tf.matmul; the
    `*_is_sparse` hints are kept in the node for TensorFlow, which picks a kernel by them."""
    return apply_op("SparseMatMul", name=name, a=a, b=b, transpose_a=transpose_a,
                    transpose_b=transpose_b, a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse)


def saturate_cast(value, dtype, name=None):
    """`value` cast to `dtype`, first clipped into the range of `dtype` (300.0 -> uint8 255).

    A plain cast of a value out of range wraps around or is undefined; this
    one saturates.
    """
    with ops.name_scope(name, "saturate_cast", [value]) as name:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        if value.dtype.min < dtype.min:
            value = maximum(value, convert_to_tensor(dtype.min, dtype=value.dtype, name="min"))
        if value.dtype.max > dtype.max:
            value = minimum(value, convert_to_tensor(dtype.max, dtype=value.dtype, name="max"))
        return cast(value, dtype, name=name)


def to_float(x, name="ToFloat"):
    """Deprecated: `cast(x, tf.float32)`."""
    return cast(x, dtypes.float32, name=name)


def to_double(x, name="ToDouble"):
    """Deprecated: `cast(x, tf.float64)`."""
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    """Deprecated: `cast(x, tf.int32)`."""
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    """Deprecated: `cast(x, tf.int64)`."""
    return cast(x, dtypes.int64, name=name)


def to_complex64(x, name="ToComplex64"):
    """Deprecated: `cast(x, tf.complex64)`."""
    return cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    """Deprecated: `cast(x, tf.complex128)`."""
    return cast(x, dtypes.complex128, name=name)


# =============================================================================
# add_n
# =============================================================================


def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors, all of one dtype and shape."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the "
                         "same dtype and shape")
    inputs = [convert_to_tensor_or_indexed_slices(x) for x in inputs]
    if len(inputs) == 1:
        if name:
            return array_ops.identity(inputs[0], name=name)
        return inputs[0]
    return apply_op("AddN", name=name, inputs=inputs)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The elementwise sum of a list of tensors, as add_n, with the AccumulateNV2 op.

    TensorFlow's runtime may add the inputs as they become ready, without
    keeping all of them; the result is add_n's.
    """
    def input_error():
        return ValueError("inputs must be a list of at least one Tensor with the same dtype "
                          "and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise input_error()
    inputs = [convert_to_tensor(x) for x in inputs]
    if not all(x.dtype == inputs[0].dtype for x in inputs):
        raise input_error()
    shape = tensor_shape.unknown_shape() if shape is None else tensor_shape.as_shape(shape)
    for x in inputs:
        shape = shape.merge_with(x.shape)
    if tensor_dtype is not None and tensor_dtype != inputs[0].dtype:
        raise TypeError("tensor_dtype is {}, but input is of type {}".format(
            tensor_dtype, inputs[0].dtype))
    if len(inputs) == 1:
        return inputs[0] if name is None else array_ops.identity(inputs[0], name=name)
    return apply_op("AccumulateNV2", name=name, inputs=inputs, shape=shape)


# =============================================================================
# matmul
# =============================================================================


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    """The matrix product of `a` and `b`, each optionally transposed first.

    Rank-2 inputs make a MatMul op. When either input has rank above 2 (or
    an unknown rank) the leading dimensions are batch dimensions, broadcast
    like NumPy's, and the op is BatchMatMulV2. The adjoint is the conjugate
    transpose: MatMul only transposes, so an adjoint operand is conjugated
    first, and BatchMatMulV2 only takes adjoints, so a transposed one is
    (`conj` builds nothing for real numbers). `a_is_sparse`/`b_is_sparse` are
    hints TF may use for a faster kernel; they do not change the result, and
    minitf ignores them.
    """
    with ops.name_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of transpose_a and adjoint_a can be True.")
        if transpose_b and adjoint_b:
            raise ValueError("Only one of transpose_b and adjoint_b can be True.")
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, preferred_dtype=a.dtype.base_dtype, name="b")
        if _may_have_batch_dimensions(a) or _may_have_batch_dimensions(b):
            a = conj(a) if transpose_a else a
            b = conj(b) if transpose_b else b
            return apply_op("BatchMatMulV2", name=scope, x=a, y=b,
                            adj_x=builtins.bool(transpose_a or adjoint_a),
                            adj_y=builtins.bool(transpose_b or adjoint_b))
        a = conj(a) if adjoint_a else a
        b = conj(b) if adjoint_b else b
        return apply_op("MatMul", name=scope, a=a, b=b,
                        transpose_a=builtins.bool(transpose_a or adjoint_a),
                        transpose_b=builtins.bool(transpose_b or adjoint_b))


def _may_have_batch_dimensions(tensor):
    return tensor.shape.ndims is None or tensor.shape.ndims > 2


# =============================================================================
# range
# =============================================================================


# `range` infers the widest of these dtypes among its arguments.
_RANGE_DTYPE_ORDER = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """The numbers start, start + delta, ... up to but excluding `limit`.

    `range(n)` counts from 0. Without `dtype`, the result has the widest of the
    arguments' dtypes, int32 < int64 < float32 < float64.
    """
    if limit is None:
        start, limit = 0, start
    with ops.name_scope(name, "Range", [start, limit, delta]) as scope:
        start = convert_to_tensor(start, dtype=dtype, name="start")
        limit = convert_to_tensor(limit, dtype=dtype, name="limit")
        delta = convert_to_tensor(delta, dtype=dtype, name="delta")
        if dtype is None:
            arguments = [start, limit, delta]
            for t in arguments:
                if t.dtype.base_dtype not in _RANGE_DTYPE_ORDER:
                    raise TypeError("range does not support dtype %s; use int32, int64, "
                                    "float32 or float64" % t.dtype.base_dtype.name)
            widest = builtins.max((t.dtype.base_dtype for t in arguments),
                                  key=_RANGE_DTYPE_ORDER.index)
            start, limit, delta = (cast(t, widest) for t in arguments)
        return apply_op("Range", name=scope, start=start, limit=limit, delta=delta)


def linspace(start, stop, num, name=None):
    """`num` evenly spaced numbers from `start` to `stop`, both ends included."""
    return apply_op("LinSpace", name=name, start=start, stop=stop, num=num)


lin_space = linspace


# =============================================================================
# Reductions
# =============================================================================


def _deprecated_argument(new_name, new_value, old_name, old_value):
    """The value of an argument TF1 renamed (`keep_dims` -> `keepdims`); both given is an error."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise ValueError("Cannot specify both '%s' and '%s'." % (old_name, new_name))
    return old_value


def _reduction_axes(tensor, axis):
    """`axis`, or every axis when it is None: a constant when the rank is known."""
    if axis is not None:
        return axis
    if tensor.shape.ndims is not None:
        return constant(np.arange(tensor.shape.ndims, dtype=np.int32))
    return range(0, array_ops.rank(tensor))


def _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    axis = _deprecated_argument("axis", axis, "reduction_indices", reduction_indices)
    keepdims = builtins.bool(_deprecated_argument("keepdims", keepdims, "keep_dims", keep_dims))
    input_tensor = convert_to_tensor(input_tensor)
    output = apply_op(op_type, name=name, input=input_tensor,
                      reduction_indices=_reduction_axes(input_tensor, axis), keep_dims=keepdims)
    if axis is None and not keepdims:
        output.set_shape(tensor_shape.scalar())  # reducing every axis leaves a scalar
    return output


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """The sum along `axis` (every axis when None), in the input's dtype."""
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    """The mean along `axis`, in the input's dtype: integer means truncate toward zero."""
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    """The product along `axis`."""
    return _reduce("Prod", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """The maximum along `axis` (the dtype's lowest value over an empty axis)."""
    return _reduce("Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """The minimum along `axis` (the dtype's highest value over an empty axis)."""
    return _reduce("Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """Logical OR along `axis`, for bool tensors."""
    return _reduce("Any", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """Logical AND along `axis`, for bool tensors."""
    return _reduce("All", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002
    """The number of non-zero elements along `axis`, as `dtype` (int64 by default)."""
    input_tensor = _deprecated_argument("input", input, "input_tensor", input_tensor)
    with ops.name_scope(name, "count_nonzero", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input")
        zero = constant(np.zeros((), input_tensor.dtype.base_dtype.as_numpy_dtype),
                        name="zeros")
        nonzero = cast(not_equal(input_tensor, zero), dtypes.int64)
        counts = reduce_sum(nonzero, axis=axis, keepdims=keepdims,
                            reduction_indices=reduction_indices, keep_dims=keep_dims)
        return cast(counts, dtype)


# --- reductions built from reductions ---------------------------------------------


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                     keep_dims=None):
    """log(sum(exp(x))) along `axis`, computed without overflow.

    The maximum m is taken out first: log(sum(exp(x - m))) + m, where every
    exp(x - m) <= 1. An infinite maximum is replaced by 0, so that inf - inf
    makes no NaN.
    """
    axis = _deprecated_argument("axis", axis, "reduction_indices", reduction_indices)
    keepdims = builtins.bool(_deprecated_argument("keepdims", keepdims, "keep_dims", keep_dims))
    input_tensor = convert_to_tensor(input_tensor)
    with ops.name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        raw_max = reduce_max(input_tensor, axis=axis, keepdims=True)
        my_max = array_ops.stop_gradient(
            where(is_finite(raw_max), raw_max, array_ops.zeros_like(raw_max)))
        result = log(reduce_sum(exp(subtract(input_tensor, my_max)), axis,
                                keepdims=keepdims))
        if not keepdims:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        result = add(result, my_max, name=scope)
        if axis is None and not keepdims:
            result.set_shape(tensor_shape.scalar())
        return result


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(|x|^2)) along `axis` (every axis when None)."""
    return _reduce("EuclideanNorm", input_tensor, axis, keepdims, name, None, None)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The mean squared deviation from the mean along `axis`."""
    with ops.name_scope(name or "reduce_variance"):
        means = reduce_mean(input_tensor, axis=axis, keepdims=True)
        squared_deviations = square(input_tensor - means)
        return reduce_mean(squared_deviations, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation along `axis`: the square root of reduce_variance."""
    with ops.name_scope(name or "reduce_std"):
        return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


# --- argmax / argmin ------------------------------------------------------------


def argmax(input, axis=None, name=None, dimension=None,  # noqa: A002 - TF's argument name
           output_type=dtypes.int64):
    """The index of the largest element along `axis` (0 when None); ties go to the first."""
    axis = _deprecated_argument("axis", axis, "dimension", dimension)
    return apply_op("ArgMax", name=name, input=input, dimension=0 if axis is None else axis,
                    output_type=output_type)


def argmin(input, axis=None, name=None, dimension=None,  # noqa: A002 - TF's argument name
           output_type=dtypes.int64):
    """The index of the smallest element along `axis` (0 when None); ties go to the first."""
    axis = _deprecated_argument("axis", axis, "dimension", dimension)
    return apply_op("ArgMin", name=name, input=input, dimension=0 if axis is None else axis,
                    output_type=output_type)


def arg_max(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """Deprecated: the ArgMax op itself, its axis required (`argmax` defaults it to 0)."""
    return apply_op("ArgMax", name=name, input=input, dimension=dimension,
                    output_type=output_type)


def arg_min(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """Deprecated: the ArgMin op itself, its axis required."""
    return apply_op("ArgMin", name=name, input=input, dimension=dimension,
                    output_type=output_type)


def reduced_shape(input_shape, axes):
    """The shape a reduction over `axes` keeps: `input_shape` with 1 at each reduced axis.

    reduced_shape([2, 3, 5, 7], [1, 2]) is [2, 1, 1, 7]. Gradients of
    reductions reshape their incoming gradient to it, so that it broadcasts
    back over the input. Both arguments are int tensors (or values); the
    result is a constant when both are known at build time.
    """
    shape_value = constant_value(convert_to_tensor(input_shape))
    axes_value = constant_value(convert_to_tensor(axes))
    if shape_value is not None and axes_value is not None:
        kept = np.array(shape_value, dtype=np.int32).reshape(-1)
        kept[np.reshape(axes_value, -1) % builtins.max(kept.size, 1)] = 1
        return constant(kept)
    input_shape = cast(input_shape, dtypes.int32)
    axes = array_ops.reshape(cast(axes, dtypes.int32), [-1])
    input_rank = array_ops.size(input_shape)
    axes = (axes + input_rank) % input_rank
    # TF stitches 1s in at `axes` with DynamicStitch; a mask of the reduced axes does the same.
    is_reduced = greater(unsorted_segment_sum(array_ops.ones_like(axes), axes, input_rank), 0)
    return where(is_reduced, array_ops.ones_like(input_shape), input_shape)


# =============================================================================
# Scans
# =============================================================================


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums along `axis`: [a, b, c] -> [a, a + b, a + b + c].

    `exclusive` leaves out each element itself ([0, a, a + b]); `reverse`
    runs from the end ([a + b + c, b + c, c]).
    """
    with ops.name_scope(name, "Cumsum", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Cumsum", name=scope, x=x, axis=axis, exclusive=exclusive,
                        reverse=reverse)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """The running log(sum(exp(x))) along `axis`, as cumsum runs the sum; -inf before the first."""
    with ops.name_scope(name, "CumulativeLogsumexp", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("CumulativeLogsumexp", name=scope, x=x, axis=axis, exclusive=exclusive,
                        reverse=reverse)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products along `axis`: [a, b, c] -> [a, a * b, a * b * c] (see `cumsum`)."""
    with ops.name_scope(name, "Cumprod", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Cumprod", name=scope, x=x, axis=axis, exclusive=exclusive,
                        reverse=reverse)


# =============================================================================
# Segment reductions
# =============================================================================


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """output[i] = the sum of the slices data[j...] whose segment_ids[j...] == i.

    `segment_ids` indexes the leading dimensions of `data` (its shape is a
    prefix of data's), in any order; a segment no id names sums to 0, and a
    negative id drops its slice. The result has `num_segments` rows, so its
    shape is [num_segments] + data.shape[rank(segment_ids):]. This is how a
    sparse gradient (IndexedSlices) is made dense.
    """
    return apply_op("UnsortedSegmentSum", name=name, data=data, segment_ids=segment_ids,
                    num_segments=num_segments)


def _unsorted_segment_n(data, segment_ids, num_segments):
    """How many slices each segment has (at least 1), shaped to broadcast over a segment's slice."""
    num_segments = convert_to_tensor(num_segments)
    ones = array_ops.ones(array_ops.shape(segment_ids), dtype=data.dtype)
    n = unsorted_segment_sum(ones, segment_ids, num_segments)
    ndims_output = data.shape.ndims - segment_ids.shape.ndims
    broadcast_shape = array_ops.concat(
        [array_ops.reshape(num_segments, [1]), array_ops.ones([ndims_output], dtypes.int32)], 0)
    return maximum(array_ops.reshape(n, broadcast_shape), 1)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of each segment's slices (0 for an empty segment)."""
    with ops.name_scope(name, "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        return unsorted_segment_sum(data, segment_ids, num_segments) / n


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Each segment's sum divided by the square root of its size: sums that keep their scale."""
    with ops.name_scope(name, "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        return unsorted_segment_sum(data, segment_ids, num_segments) / sqrt(n)


# =============================================================================
# Broadcasting in gradients
# =============================================================================


def broadcast_gradient_args(s0, s1, name=None):
    """The axes to sum the gradient of a broadcasting binary op over, for each operand.

    `s0` and `s1` are the shapes of x and y; r0 (r1) lists the axes of the
    broadcast result along which x (y) was stretched, so that
    `reshape(reduce_sum(grad, r0), s0)` is x's gradient. Returns [r0, r1].
    """
    return apply_op("BroadcastGradientArgs", name=name, s0=s0, s1=s1)


# =============================================================================
# Gradient helper ops
# =============================================================================

# The backward pass of some unary ops is one fused op of (y, dy), y being the
# forward output: SqrtGrad computes dy * 0.5 / y. They are not public (TF
# keeps them in gen_math_ops) and have gradients of their own, for second
# derivatives.


def sqrt_grad(y, dy, name=None):
    """dy * 0.5 / y: the gradient of sqrt, from its output y = sqrt(x)."""
    return apply_op("SqrtGrad", name=name, y=y, dy=dy)


def rsqrt_grad(y, dy, name=None):
    """dy * -0.5 * y ** 3: the gradient of rsqrt, from its output y = 1 / sqrt(x)."""
    return apply_op("RsqrtGrad", name=name, y=y, dy=dy)


def tanh_grad(y, dy, name=None):
    """dy * (1 - y * y): the gradient of tanh, from its output y = tanh(x)."""
    return apply_op("TanhGrad", name=name, y=y, dy=dy)


def sigmoid_grad(y, dy, name=None):
    """dy * y * (1 - y): the gradient of sigmoid, from its output y = sigmoid(x)."""
    return apply_op("SigmoidGrad", name=name, y=y, dy=dy)


def reciprocal_grad(y, dy, name=None):
    """-dy * y * y: the gradient of reciprocal, from its output y = 1 / x."""
    return apply_op("ReciprocalGrad", name=name, y=y, dy=dy)


# =============================================================================
# Tensor's operators
# =============================================================================

def _add_dispatch(x, y, name=None):
    """`+` builds AddV2, TF's newer Add (same kernel), except for strings, which only Add joins."""
    if x.dtype.base_dtype == dtypes.string:
        return add(x, y, name=name)
    return apply_op("AddV2", name=name, x=x, y=y)


def _install_binary_operator(function, scope_name, operator):
    """Makes `x <operator> y` and `y <operator> x` call `function` in a scope `scope_name`."""

    def forward(x, y):
        with ops.name_scope(None, scope_name, [x, y]) as scope:
            if not isinstance(y, ops.Tensor):
                try:
                    y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
                except TypeError:
                    # An object that is no tensor may know how to combine itself with one.
                    if hasattr(type(y), "__r%s__" % operator):
                        return NotImplemented
                    raise
            return function(x, y, name=scope)

    def reverse(y, x):
        with ops.name_scope(None, scope_name, [x, y]) as scope:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return function(x, y, name=scope)

    ops.Tensor._override_operator("__%s__" % operator, forward)
    ops.Tensor._override_operator("__r%s__" % operator, reverse)


_install_binary_operator(_add_dispatch, "add", "add")
_install_binary_operator(subtract, "sub", "sub")
_install_binary_operator(multiply, "mul", "mul")
_install_binary_operator(truediv, "truediv", "truediv")
_install_binary_operator(floordiv, "floordiv", "floordiv")
_install_binary_operator(floormod, "mod", "mod")
_install_binary_operator(pow, "pow", "pow")
_install_binary_operator(matmul, "matmul", "matmul")
_install_binary_operator(logical_and, "and", "and")
_install_binary_operator(logical_or, "or", "or")
_install_binary_operator(logical_xor, "xor", "xor")

ops.Tensor._override_operator("__neg__", negative)
ops.Tensor._override_operator("__abs__", abs)
ops.Tensor._override_operator("__invert__", logical_not)
# Python tries the reflected comparison itself (`1 < t` is `t > 1`), so no __r*__ here.
ops.Tensor._override_operator("__lt__", less)
ops.Tensor._override_operator("__le__", less_equal)
ops.Tensor._override_operator("__gt__", greater)
ops.Tensor._override_operator("__ge__", greater_equal)
