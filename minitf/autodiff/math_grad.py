"""Gradient functions of the math ops: arithmetic, unary functions, matmul, reductions.

Each function receives the forward Operation `op` and the gradient `grad`
flowing into its output, and adds the ops computing the gradient of each of
its inputs (see `registry.py`). `tf.gradients` calls them inside the name
scope `gradients/<op name>_grad/`, so `tf.gradients(x * y, [x, y])` builds
`gradients/mul_grad/Mul`, `gradients/mul_grad/Sum`, ...

Three patterns recur:

- *Broadcasting.* When `x + y` stretches x of shape [3, 1] to [3, 4], every
  element of x fed four outputs, so x's gradient is grad summed over axis 1,
  reshaped to [3, 1]. The op BroadcastGradientArgs(shape(x), shape(y))
  returns the axes to sum over for each operand at run time, because shapes
  may be unknown while the graph is built.
- *Reductions.* The gradient of a reduction is spread back over the input:
  reshaped to the input's rank with 1s at the reduced axes
  (`math_ops.reduced_shape`), then tiled.
- *Reusing the output.* exp, tanh, sigmoid, sqrt, rsqrt and reciprocal
  differentiate most cheaply from their output y (d tanh = 1 - y^2), so
  their gradients read `op.outputs[0]`; several use a fused op (TanhGrad),
  which has a gradient of its own for second derivatives.

Many gradients sit inside `control_dependencies([grad])`, as in TF: the ops
that read only the forward values would otherwise be ready, and run, long
before the gradient arrives, holding their result in memory meanwhile.

For complex numbers TF's convention holds: the gradient of a function of
z is the conjugate of its derivative times the incoming gradient, so
several gradients conjugate the forward values they reuse. `math_ops.conj`
returns a real tensor as it is, building no op, so real graphs keep TF's
node names. Mirrors `tensorflow/python/ops/math_grad.py` (TF 1.15).
"""

import numpy as np

from minitf.autodiff.registry import NotDifferentiable
from minitf.autodiff.registry import RegisterGradient
from minitf.graph import dtypes
from minitf.graph import ops
from minitf.graph.constant_op import constant
from minitf.graph.sparse_tensor import IndexedSlices
from minitf.graph.tensor_util import constant_value
from minitf.ops import array_ops
from minitf.ops import math_ops


# =============================================================================
# Ops without a gradient
# =============================================================================

# Their outputs are booleans, indices or shapes: nothing to differentiate.
for _op_type in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                 "LogicalAnd", "LogicalOr", "LogicalNot", "Any", "All",
                 "ArgMax", "ArgMin", "Range", "LinSpace", "Where", "BroadcastGradientArgs"):
    NotDifferentiable(_op_type)
# Bits of integers, and a clock reading.
for _op_type in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift",
                 "Timestamp"):
    NotDifferentiable(_op_type)


# =============================================================================
# Helpers
# =============================================================================

def _safe_shape_div(x, y):
    """x // y for shapes and sizes (x, y >= 0), treating 0 // 0 as 0."""
    return x // math_ops.maximum(y, 1)


def _shapes_fully_specified_and_equal(x, y, grad):
    """True when x, y and grad are known to have one and the same shape: no broadcasting."""
    if not isinstance(grad, ops.Tensor):
        return False
    return (x.shape.is_fully_defined() and x.shape == y.shape and x.shape == grad.shape)


def _reduction_axes_for_broadcast(x, y):
    """(shape of x, shape of y, axes to sum x's gradient over, axes to sum y's)."""
    sx = array_ops.shape(x)
    sy = array_ops.shape(y)
    rx, ry = math_ops.broadcast_gradient_args(sx, sy)
    return sx, sy, rx, ry


def _negate(grad):
    """-grad; an IndexedSlices (the gradient of a gather) stays sparse, its values negated."""
    if isinstance(grad, IndexedSlices):
        return IndexedSlices(-grad.values, grad.indices, grad.dense_shape)
    return -grad


def _sum_to_shape(grad, axes, shape):
    """`grad` summed over the broadcast `axes` and reshaped to an operand's `shape`."""
    return array_ops.reshape(math_ops.reduce_sum(grad, axes), shape)


# =============================================================================
# Binary elementwise arithmetic
# =============================================================================

@RegisterGradient("Add")
@RegisterGradient("AddV2")
def _add_grad(op, grad):
    """d(x + y) = dx + dy: the gradient passes to both, summed where they were broadcast."""
    x, y = op.inputs
    if _shapes_fully_specified_and_equal(x, y, grad):
        return grad, grad
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    return _sum_to_shape(grad, rx, sx), _sum_to_shape(grad, ry, sy)


@RegisterGradient("Sub")
def _sub_grad(op, grad):
    x, y = op.inputs
    if _shapes_fully_specified_and_equal(x, y, grad):
        return grad, -grad
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    return (_sum_to_shape(grad, rx, sx),
            array_ops.reshape(-math_ops.reduce_sum(grad, ry), sy))


@RegisterGradient("Mul")
def _mul_grad(op, grad):
    """d(x * y) = y dx + x dy."""
    x, y = op.inputs
    # TF takes this shortcut for int32 and float32 only; other types go the general way.
    if (_shapes_fully_specified_and_equal(x, y, grad)
            and grad.dtype in (dtypes.int32, dtypes.float32)):
        return math_ops.multiply(grad, y), math_ops.multiply(grad, x)
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    x, y = math_ops.conj(x), math_ops.conj(y)
    return (_sum_to_shape(math_ops.multiply(grad, y), rx, sx),
            _sum_to_shape(math_ops.multiply(x, grad), ry, sy))


def _quotient_grad(op, grad, divide):
    """d(x / y) = dx / y - x dy / y^2, each division made by `divide`."""
    x, y = op.inputs
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    x, y = math_ops.conj(x), math_ops.conj(y)
    return (_sum_to_shape(divide(grad, y), rx, sx),
            _sum_to_shape(grad * divide(divide(-x, y), y), ry, sy))


@RegisterGradient("RealDiv")
def _real_div_grad(op, grad):
    """d(x / y) = dx / y - x dy / y^2."""
    return _quotient_grad(op, grad, math_ops.realdiv)


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    """As RealDiv's, with every division by y made safe: where y is 0 both gradients are 0."""
    return _quotient_grad(op, grad, math_ops.div_no_nan)


@RegisterGradient("FloorDiv")
def _floor_div_grad(op, grad):
    """floor(x / y) is a step function: no useful gradient."""
    return None, None


@RegisterGradient("FloorMod")
def _floor_mod_grad(op, grad):
    """x mod y = x - floor(x / y) * y, the floor taken as a constant."""
    x, y = op.inputs
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    floor_xy = math_ops.floordiv(x, y)
    return (_sum_to_shape(grad, rx, sx),
            _sum_to_shape(grad * math_ops.negative(floor_xy), ry, sy))


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    """d(x^y) = y x^(y-1) dx + x^y log(x) dy; the dy part is 0 where x <= 0.

    (For complex numbers, where the log is defined everywhere but at 0: where x = 0.)
    """
    x, y = op.inputs
    z = op.outputs[0]
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    x, y, z = math_ops.conj(x), math_ops.conj(y), math_ops.conj(z)
    gx = _sum_to_shape(grad * y * math_ops.pow(x, y - 1), rx, sx)
    # log(x) is undefined for x <= 0 (and would make 0 * -inf = nan at x = 0):
    # take the log of 1 there, then zero it out.
    if x.dtype.is_complex:
        mask = math_ops.not_equal(x, array_ops.zeros_like(x))
    else:
        mask = x > 0
    safe_x = math_ops.where(mask, x, array_ops.ones_like(x))
    log_x = math_ops.where(mask, math_ops.log(safe_x), array_ops.zeros_like(x))
    gy = _sum_to_shape(grad * z * log_x, ry, sy)
    return gx, gy


def _maximum_minimum_grad(op, grad, selector):
    """The gradient goes to whichever operand was picked (x on ties), nothing to the other."""
    x, y = op.inputs
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    zeros = array_ops.zeros(array_ops.shape(grad), grad.dtype)
    x_picked = selector(x, y)
    rx, ry = math_ops.broadcast_gradient_args(sx, sy)
    x_grad = math_ops.where(x_picked, grad, zeros)
    y_grad = math_ops.where(x_picked, zeros, grad)
    return _sum_to_shape(x_grad, rx, sx), _sum_to_shape(y_grad, ry, sy)


@RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, math_ops.greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, math_ops.less_equal)


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    """d(x - y)^2 = 2 (x - y) (dx - dy)."""
    x, y = op.inputs
    with ops.control_dependencies([grad]):
        # scalar_mul keeps an IndexedSlices grad sparse until it meets the dense x - y.
        x_grad = math_ops.scalar_mul(2.0, grad) * (x - y)
    if _shapes_fully_specified_and_equal(x, y, grad):
        return x_grad, -x_grad
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    return _sum_to_shape(x_grad, rx, sx), -_sum_to_shape(x_grad, ry, sy)


# =============================================================================
# Unary elementwise
# =============================================================================

@RegisterGradient("Neg")
def _neg_grad(op, grad):
    return _negate(grad)


@RegisterGradient("Abs")
def _abs_grad(op, grad):
    return grad * math_ops.sign(op.inputs[0])


@RegisterGradient("Sign")
def _sign_grad(op, grad):
    """sign is flat wherever it is differentiable: zeros (not None, as TF)."""
    x = op.inputs[0]
    return array_ops.zeros(array_ops.shape(x), dtype=x.dtype)


@RegisterGradient("Square")
def _square_grad(op, grad):
    x = op.inputs[0]
    with ops.control_dependencies([grad]):
        x = math_ops.conj(x)
        two = constant(2.0, dtype=x.dtype)
        return math_ops.multiply(grad, math_ops.multiply(x, two))


@RegisterGradient("Sqrt")
def _sqrt_grad(op, grad):
    """d sqrt(x) = 0.5 / y dx, with y = sqrt(x)."""
    return math_ops.sqrt_grad(op.outputs[0], grad)


@RegisterGradient("Rsqrt")
def _rsqrt_grad(op, grad):
    """d x^(-1/2) = -0.5 y^3 dx, with y = x^(-1/2)."""
    return math_ops.rsqrt_grad(op.outputs[0], grad)


@RegisterGradient("Reciprocal")
def _reciprocal_grad(op, grad):
    """d (1/x) = -y^2 dx, with y = 1/x."""
    y = op.outputs[0]
    with ops.control_dependencies([grad]):
        return math_ops.reciprocal_grad(y, grad)


@RegisterGradient("Exp")
def _exp_grad(op, grad):
    """d e^x = y dx, with y = e^x."""
    y = op.outputs[0]
    with ops.control_dependencies([grad]):
        return grad * math_ops.conj(y)


@RegisterGradient("Log")
def _log_grad(op, grad):
    x = op.inputs[0]
    with ops.control_dependencies([grad]):
        return grad * math_ops.reciprocal(math_ops.conj(x))


@RegisterGradient("Log1p")
def _log1p_grad(op, grad):
    x = op.inputs[0]
    with ops.control_dependencies([grad]):
        return grad * math_ops.reciprocal(1 + math_ops.conj(x))


@RegisterGradient("Sin")
def _sin_grad(op, grad):
    x = op.inputs[0]
    with ops.control_dependencies([grad]):
        return grad * math_ops.cos(math_ops.conj(x))


@RegisterGradient("Cos")
def _cos_grad(op, grad):
    x = op.inputs[0]
    with ops.control_dependencies([grad]):
        return _negate(grad) * math_ops.sin(math_ops.conj(x))


@RegisterGradient("Tanh")
def _tanh_grad(op, grad):
    """d tanh(x) = (1 - y^2) dx, with y = tanh(x)."""
    y = op.outputs[0]
    with ops.control_dependencies([grad]):
        return math_ops.tanh_grad(y, grad)


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op, grad):
    """d sigmoid(x) = y (1 - y) dx, with y = sigmoid(x)."""
    y = op.outputs[0]
    with ops.control_dependencies([grad]):
        return math_ops.sigmoid_grad(y, grad)


@RegisterGradient("Floor")
def _floor_grad(op, grad):
    return [None]


@RegisterGradient("Ceil")
def _ceil_grad(op, grad):
    return [None]


@RegisterGradient("Round")
def _round_grad(op, grad):
    return [None]


# --- second derivatives: gradients of the fused gradient ops -------------------
# Each fused op computes z = f(y, dy); its gradient returns (dz/dy, dz/d(dy)).

@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    """z = 0.5 * b / a: dz/da = -z / a, dz/db = 0.5 / a."""
    a = op.inputs[0]
    z = op.outputs[0]
    with ops.control_dependencies([grad]):
        ga = grad / a
        return -ga * z, 0.5 * ga


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op, grad):
    """z = -0.5 * b * a^3: dz/da = -1.5 * b * a^2, dz/db = -0.5 * a^3."""
    a, b = op.inputs
    with ops.control_dependencies([grad]):
        grad_a = -1.5 * grad * b * math_ops.square(a)
        grad_b = math_ops.rsqrt_grad(a, grad)
        return grad_a, grad_b


@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    """z = b * (1 - a^2): dz/da = -2 * a * b, dz/db = 1 - a^2."""
    a, b = op.inputs
    with ops.control_dependencies([grad]):
        return grad * -2.0 * b * a, math_ops.tanh_grad(a, grad)


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    """z = b * a * (1 - a): dz/da = b - 2 * a * b, dz/db = a * (1 - a)."""
    a, b = op.inputs
    with ops.control_dependencies([grad]):
        gb = grad * b
        return gb - 2.0 * gb * a, math_ops.sigmoid_grad(a, grad)


@RegisterGradient("ReciprocalGrad")
def _reciprocal_grad_grad(op, grad):
    """z = -b * a^2: dz/da = -2 * a * b, dz/db = -a^2."""
    a, b = op.inputs
    with ops.control_dependencies([grad]):
        return grad * -2.0 * b * a, math_ops.reciprocal_grad(a, grad)


# =============================================================================
# More elementwise functions
# =============================================================================

# IsFinite, IsInf, IsNan and TruncateMod have no gradient registered at all, as in TF.


@RegisterGradient("Rint")
@RegisterGradient("TruncateDiv")
def _step_function_grad(op, grad):
    """Rounding is a step function: no useful gradient."""
    return [None] * len(op.inputs)


def _unary_grad_times(derivative):
    """The gradient of an op whose derivative at x is `derivative(x)` (conjugated)."""
    def gradient(op, grad):
        x = op.inputs[0]
        with ops.control_dependencies([grad]):
            return grad * derivative(math_ops.conj(x))
    return gradient


def _one_minus_square(x):
    return constant(1, dtype=x.dtype) - math_ops.square(x)


RegisterGradient("Asin")(_unary_grad_times(
    lambda x: math_ops.reciprocal(math_ops.sqrt(_one_minus_square(x)))))
RegisterGradient("Acos")(_unary_grad_times(
    lambda x: -math_ops.reciprocal(math_ops.sqrt(_one_minus_square(x)))))
RegisterGradient("Atan")(_unary_grad_times(
    lambda x: math_ops.reciprocal(constant(1, dtype=x.dtype) + math_ops.square(x))))
RegisterGradient("Atanh")(_unary_grad_times(
    lambda x: math_ops.reciprocal(_one_minus_square(x))))
RegisterGradient("Tan")(_unary_grad_times(
    lambda x: math_ops.square(math_ops.reciprocal(math_ops.cos(x)))))
RegisterGradient("Sinh")(_unary_grad_times(math_ops.cosh))
RegisterGradient("Cosh")(_unary_grad_times(math_ops.sinh))
RegisterGradient("Expm1")(_unary_grad_times(math_ops.exp))
RegisterGradient("Erf")(_unary_grad_times(
    lambda x: constant(2 / np.sqrt(np.pi), dtype=x.dtype) * math_ops.exp(-math_ops.square(x))))
RegisterGradient("Erfc")(_unary_grad_times(
    lambda x: constant(-2 / np.sqrt(np.pi), dtype=x.dtype) * math_ops.exp(-math_ops.square(x))))
RegisterGradient("Lgamma")(_unary_grad_times(math_ops.digamma))


@RegisterGradient("BesselI0e")
def _bessel_i0e_grad(op, grad):
    """d(e^-|x| I0(x)) = e^-|x| I1(x) - sign(x) e^-|x| I0(x)."""
    x, y = op.inputs[0], op.outputs[0]
    with ops.control_dependencies([grad]):
        return grad * (math_ops.bessel_i1e(x) - math_ops.sign(x) * y)


@RegisterGradient("BesselI1e")
def _bessel_i1e_grad(op, grad):
    """d(e^-|x| I1(x)) = i0e(x) - y (sign(x) + 1/x); 0.5 at x = 0, where 1/x is not."""
    x, y = op.inputs[0], op.outputs[0]
    with ops.control_dependencies([grad]):
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        zeros = array_ops.zeros_like(x)
        x_is_not_tiny = math_ops.abs(x) > eps
        safe_x = math_ops.where(x_is_not_tiny, x, eps + zeros)
        dy_dx = math_ops.bessel_i0e(safe_x) - y * (math_ops.sign(safe_x)
                                                   + math_ops.reciprocal(safe_x))
        return grad * math_ops.where(x_is_not_tiny, dy_dx, 0.5 + zeros)


@RegisterGradient("Erfinv")
def _erfinv_grad(op, grad):
    """d erfinv(x) = sqrt(pi)/2 e^(y^2), with y = erfinv(x)."""
    with ops.control_dependencies([grad]):
        root_pi_over_two = constant(np.sqrt(np.pi) / 2, dtype=grad.dtype)
        return grad * root_pi_over_two * math_ops.exp(math_ops.square(op.outputs[0]))


@RegisterGradient("Ndtri")
def _ndtri_grad(op, grad):
    """d ndtri(p) = sqrt(2 pi) e^(y^2 / 2): one over the normal density at y = ndtri(p)."""
    with ops.control_dependencies([grad]):
        root_two_pi = constant(np.sqrt(2 * np.pi), dtype=grad.dtype)
        return grad * root_two_pi * math_ops.exp(math_ops.square(op.outputs[0]) / 2.0)


RegisterGradient("Digamma")(_unary_grad_times(
    lambda x: math_ops.polygamma(constant(1, dtype=x.dtype), x)))


@RegisterGradient("Zeta")
def _zeta_grad(op, grad):
    """d zeta(x, q) / dq = -x zeta(x + 1, q); no gradient for x."""
    x, q = op.inputs
    sx, sq, _, rq = _reduction_axes_for_broadcast(x, q)
    with ops.control_dependencies([grad]):
        partial_q = -x * math_ops.zeta(x + 1, q)
        return None, _sum_to_shape(partial_q * grad, rq, sq)


@RegisterGradient("Betainc")
def _betainc_grad(op, grad):
    """d I_x(a, b) / dx = x^(a-1) (1-x)^(b-1) / B(a, b); TF gives none for a and b."""
    a, b, x = op.inputs
    _, rx = math_ops.broadcast_gradient_args(array_ops.shape(a), array_ops.shape(x))
    log_beta = math_ops.lgamma(a) + math_ops.lgamma(b) - math_ops.lgamma(a + b)
    partial_x = math_ops.exp((b - 1) * math_ops.log(1 - x) + (a - 1) * math_ops.log(x)
                             - log_beta)
    return None, None, _sum_to_shape(partial_x * grad, rx, array_ops.shape(x))


def _igamma_partial_x(a, x):
    """d P(a, x) / dx = x^(a-1) e^-x / Gamma(a)."""
    return math_ops.exp(-x + (a - 1) * math_ops.log(x) - math_ops.lgamma(a))


@RegisterGradient("Igamma")
def _igamma_grad(op, grad):
    """The gradient in x; in a, None (TensorFlow's IgammaGradA op is not in minitf)."""
    a, x = op.inputs
    _, sx, _, rx = _reduction_axes_for_broadcast(a, x)
    with ops.control_dependencies([grad]):
        return None, _sum_to_shape(_igamma_partial_x(a, x) * grad, rx, sx)


@RegisterGradient("Igammac")
def _igammac_grad(op, grad):
    """Q = 1 - P: the negated gradient of Igamma in x."""
    a, x = op.inputs
    _, sx, _, rx = _reduction_axes_for_broadcast(a, x)
    with ops.control_dependencies([grad]):
        return None, _sum_to_shape(-_igamma_partial_x(a, x) * grad, rx, sx)


@RegisterGradient("Polygamma")
def _polygamma_grad(op, grad):
    """d polygamma(n, x) / dx = polygamma(n + 1, x); no gradient for the order n."""
    n, x = op.inputs
    sn, sx, _, rx = _reduction_axes_for_broadcast(n, x)
    with ops.control_dependencies([grad]):
        partial_x = math_ops.polygamma(n + 1, x)
        return None, _sum_to_shape(partial_x * grad, rx, sx)


@RegisterGradient("Asinh")
def _asinh_grad(op, grad):
    """d asinh(x) = 1 / cosh(y), with y = asinh(x)."""
    y = op.outputs[0]
    with ops.control_dependencies([grad]):
        return grad / math_ops.cosh(math_ops.conj(y))


@RegisterGradient("Acosh")
def _acosh_grad(op, grad):
    """d acosh(x) = 1 / sinh(y), with y = acosh(x)."""
    y = op.outputs[0]
    with ops.control_dependencies([grad]):
        return grad / math_ops.sinh(math_ops.conj(y))


def _binary_grad(partial_x, partial_y):
    """The gradient of a broadcasting op with partial derivatives `partial_x(x, y)`, ...."""
    def gradient(op, grad):
        x, y = op.inputs
        sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
        with ops.control_dependencies([grad]):
            x, y = math_ops.conj(x), math_ops.conj(y)
            return (_sum_to_shape(partial_x(x, y) * grad, rx, sx),
                    _sum_to_shape(partial_y(x, y) * grad, ry, sy))
    return gradient


def _is_not_zero(x):
    """1 where x != 0, 0 where x == 0, in x's dtype."""
    return math_ops.cast(math_ops.not_equal(x, constant(0, dtype=x.dtype)), x.dtype)


def _square_sum(y, x):
    return math_ops.square(x) + math_ops.square(y)


RegisterGradient("Atan2")(_binary_grad(lambda y, x: x / _square_sum(y, x),
                                       lambda y, x: -y / _square_sum(y, x)))
RegisterGradient("Xdivy")(_binary_grad(
    lambda x, y: math_ops.xdivy(_is_not_zero(x), y),
    lambda x, y: math_ops.xdivy(math_ops.negative(x), math_ops.square(y))))
RegisterGradient("Xlogy")(_binary_grad(lambda x, y: math_ops.xlogy(_is_not_zero(x), y),
                                       math_ops.xdivy))
RegisterGradient("Xlog1py")(_binary_grad(
    lambda x, y: math_ops.xlog1py(_is_not_zero(x), y),
    lambda x, y: math_ops.xdivy(x, y + constant(1, dtype=y.dtype))))
RegisterGradient("NextAfter")(_binary_grad(lambda x1, x2: array_ops.ones_like(x1),
                                           lambda x1, x2: array_ops.zeros_like(x2)))


@RegisterGradient("MulNoNan")
def _mul_no_nan_grad(op, grad):
    """As Mul's gradient, each product made with MulNoNan: where y is 0, so is x's gradient."""
    x, y = op.inputs
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    return (_sum_to_shape(math_ops.multiply_no_nan(grad, y), rx, sx),
            _sum_to_shape(math_ops.multiply_no_nan(x, grad), ry, sy))


# =============================================================================
# Complex numbers
# =============================================================================

# A real-valued function f of z = x + iy has the gradient df/dx + i df/dy:
# what flows back into a complex tensor is such a complex number.


@RegisterGradient("Complex")
def _complex_grad(op, grad):
    """The real part of the gradient goes to `real`, the imaginary part to `imag`."""
    x, y = op.inputs
    sx, sy, rx, ry = _reduction_axes_for_broadcast(x, y)
    return (_sum_to_shape(math_ops.real(grad), rx, sx),
            _sum_to_shape(math_ops.imag(grad), ry, sy))


@RegisterGradient("Real")
def _real_grad(op, grad):
    """re(z) changes with x only: the gradient grad + 0i."""
    zero = constant(0, dtype=grad.dtype)
    return math_ops.complex(grad, zero)


@RegisterGradient("Imag")
def _imag_grad(op, grad):
    """im(z) changes with y only: the gradient 0 + grad i."""
    zero = constant(0, dtype=grad.dtype)
    return math_ops.complex(zero, grad)


@RegisterGradient("Angle")
def _angle_grad(op, grad):
    """d atan2(y, x) = (x dy - y dx) / |z|^2, which is -grad / (y + ix) as a complex number."""
    x = op.inputs[0]
    with ops.control_dependencies([grad]):
        re = math_ops.real(x)
        im = math_ops.imag(x)
        z = math_ops.reciprocal(math_ops.complex(im, re))
        zero = constant(0, dtype=grad.dtype)
        complex_grad = math_ops.complex(grad, zero)
        return -complex_grad * z


@RegisterGradient("Conj")
def _conj_grad(op, grad):
    return math_ops.conj(grad)


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    """d|z| = z / |z| times grad (and 0 at z = 0, where |z| has no derivative)."""
    return math_ops.div_no_nan(
        math_ops.complex(grad, array_ops.zeros_like(grad)) * op.inputs[0],
        math_ops.complex(op.outputs[0], array_ops.zeros_like(op.outputs[0])))


# =============================================================================
# Cast, Select, AddN
# =============================================================================

_FLOAT_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
                dtypes.complex128)


@RegisterGradient("Cast")
def _cast_grad(op, grad):
    """Between float or complex types the gradient is cast back; with integers there is none."""
    source_type = op.inputs[0].dtype.base_dtype
    if source_type in _FLOAT_TYPES and grad.dtype.base_dtype in _FLOAT_TYPES:
        return math_ops.cast(grad, source_type)
    return None


@RegisterGradient("Select")
def _select_grad(op, grad):
    """Each element's gradient goes to the branch that was picked; none to the condition."""
    condition, t, _ = op.inputs
    zeros = array_ops.zeros_like(t)
    return (None, math_ops.where(condition, grad, zeros),
            math_ops.where(condition, zeros, grad))


@RegisterGradient("SelectV2")
def _select_v2_grad(op, grad):
    """As Select's, each branch's share summed back over the dims it was broadcast along."""
    condition, t, e = op.inputs
    zeros = array_ops.zeros([], dtype=grad.dtype.base_dtype)
    output_shape = array_ops.shape(op.outputs[0])
    grads = []
    for branch, picked in ((t, array_ops.where_v2(condition, grad, zeros)),
                           (e, array_ops.where_v2(condition, zeros, grad))):
        branch_shape = array_ops.shape(branch)
        reduce_axes, _ = math_ops.broadcast_gradient_args(branch_shape, output_shape)
        summed = math_ops.reduce_sum(picked, axis=reduce_axes, keepdims=True)
        grads.append(array_ops.reshape(summed, branch_shape))
    return [None] + grads


@RegisterGradient("AddN")
@RegisterGradient("AccumulateNV2")
def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)


# =============================================================================
# Matrix products
# =============================================================================

@RegisterGradient("SparseMatMul")
@RegisterGradient("MatMul")
def _matmul_grad(op, grad):
    """For C = A B: dA = dC B^T and dB = A^T dC, rearranged for each transpose flag.

    Every case is a single MatMul whose own flags absorb the transposes
    (of complex matrices, the conjugates are multiplied).
    """
    transpose_a = op.get_attr("transpose_a")
    transpose_b = op.get_attr("transpose_b")
    a, b = (math_ops.conj(t) for t in op.inputs)
    matmul = math_ops.matmul
    if not transpose_a and not transpose_b:
        grad_a = matmul(grad, b, transpose_b=True)
        grad_b = matmul(a, grad, transpose_a=True)
    elif not transpose_a and transpose_b:
        grad_a = matmul(grad, b)
        grad_b = matmul(grad, a, transpose_a=True)
    elif transpose_a and not transpose_b:
        grad_a = matmul(b, grad, transpose_b=True)
        grad_b = matmul(a, grad)
    else:
        grad_a = matmul(b, grad, transpose_a=True, transpose_b=True)
        grad_b = matmul(grad, a, transpose_a=True, transpose_b=True)
    return grad_a, grad_b


@RegisterGradient("BatchMatMulV2")
def _batch_matmul_v2_grad(op, grad):
    """MatMul's rule per batch, then sums over the batch axes an operand was broadcast along."""
    x, y = op.inputs
    adj_x = op.get_attr("adj_x")
    adj_y = op.get_attr("adj_y")
    matmul = math_ops.matmul
    if not adj_x and not adj_y:
        grad_x = matmul(grad, y, adjoint_b=True)
        grad_y = matmul(x, grad, adjoint_a=True)
    elif not adj_x and adj_y:
        grad_x = matmul(grad, y)
        grad_y = matmul(grad, x, adjoint_a=True)
    elif adj_x and not adj_y:
        grad_x = matmul(y, grad, adjoint_b=True)
        grad_y = matmul(x, grad)
    else:
        grad_x = matmul(y, grad, adjoint_a=True, adjoint_b=True)
        grad_y = matmul(grad, x, adjoint_a=True, adjoint_b=True)
    if not (x.shape.is_fully_defined() and x.shape == y.shape):
        # The batch axes (all but the last two) may have been broadcast.
        sx = array_ops.shape(x)
        sy = array_ops.shape(y)
        rx, ry = math_ops.broadcast_gradient_args(sx[:-2], sy[:-2])
        grad_x = _sum_to_shape(grad_x, rx, sx)
        grad_y = _sum_to_shape(grad_y, ry, sy)
    return grad_x, grad_y


# =============================================================================
# Reductions
# =============================================================================

def _reduces_every_axis(op):
    """True when the reduction's axes are known to be exactly [0, 1, ..., rank - 1]."""
    rank = op.inputs[0].shape.ndims
    axes = constant_value(op.inputs[1])
    return (rank is not None and axes is not None
            and list(axes.reshape(-1)) == list(range(rank)))


@RegisterGradient("Sum")
def _sum_grad(op, grad):
    """Every input element added once into its output element: grad is copied back to each."""
    x = op.inputs[0]
    if _reduces_every_axis(op):
        # Common case: a scalar loss. Reshape to [1, 1, ...] and tile to x's shape.
        grad = array_ops.reshape(grad, [1] * x.shape.ndims)
        return [array_ops.tile(grad, array_ops.shape(x)), None]
    input_shape = array_ops.shape(x)
    output_shape_kept_dims = math_ops.reduced_shape(input_shape, op.inputs[1])
    tile_scaling = _safe_shape_div(input_shape, output_shape_kept_dims)
    grad = array_ops.reshape(grad, output_shape_kept_dims)
    return [array_ops.tile(grad, tile_scaling), None]


@RegisterGradient("Mean")
def _mean_grad(op, grad):
    """Sum's gradient divided by how many elements each output averaged."""
    sum_grad = _sum_grad(op, grad)[0]
    input_shape, output_shape = op.inputs[0].shape, op.outputs[0].shape
    if input_shape.is_fully_defined() and output_shape.is_fully_defined():
        factor = input_shape.num_elements() // max(output_shape.num_elements(), 1)
        factor = constant(factor, dtype=sum_grad.dtype)
    else:
        input_size = math_ops.reduce_prod(array_ops.shape(op.inputs[0]))
        output_size = math_ops.reduce_prod(array_ops.shape(op.outputs[0]))
        factor = _safe_shape_div(input_size, output_size)
    return math_ops.truediv(sum_grad, math_ops.cast(factor, sum_grad.dtype)), None


@RegisterGradient("EuclideanNorm")
def _euclidean_norm_grad(op, grad):
    """d ||x|| = x / ||x||, times grad, broadcast back over the reduced axes."""
    output = op.outputs[0]
    if not op.get_attr("keep_dims"):
        output_shape_kept_dims = math_ops.reduced_shape(array_ops.shape(op.inputs[0]),
                                                        op.inputs[1])
        output = array_ops.reshape(output, output_shape_kept_dims)
        grad = array_ops.reshape(grad, output_shape_kept_dims)
    return math_ops.truediv(op.inputs[0], output / grad), None


def _min_or_max_grad(op, grad):
    """The gradient goes to the elements equal to the result, shared equally among ties."""
    input_shape = array_ops.shape(op.inputs[0])
    output_shape_kept_dims = math_ops.reduced_shape(input_shape, op.inputs[1])
    y = array_ops.reshape(op.outputs[0], output_shape_kept_dims)
    grad = array_ops.reshape(grad, output_shape_kept_dims)
    indicators = math_ops.cast(math_ops.equal(y, op.inputs[0]), grad.dtype)
    num_selected = array_ops.reshape(math_ops.reduce_sum(indicators, op.inputs[1]),
                                     output_shape_kept_dims)
    return [math_ops.divide(indicators, num_selected) * grad, None]


@RegisterGradient("Max")
def _max_grad(op, grad):
    return _min_or_max_grad(op, grad)


@RegisterGradient("Min")
def _min_grad(op, grad):
    return _min_or_max_grad(op, grad)


@RegisterGradient("Prod")
def _prod_grad(op, grad):
    """d(prod)/dx_i = the product of all the other elements, computed without dividing.

    Dividing the product by x_i fails when x_i is 0. Instead the reduced axes
    are moved to the front and flattened into one, and for each element the
    product of those before it (an exclusive cumprod) is multiplied by the
    product of those after it (an exclusive, reversed cumprod).
    """
    x = op.inputs[0]
    input_shape = array_ops.shape(x)
    output_shape_kept_dims = math_ops.reduced_shape(input_shape, op.inputs[1])
    tile_scaling = _safe_shape_div(input_shape, output_shape_kept_dims)
    grad = array_ops.tile(array_ops.reshape(grad, output_shape_kept_dims), tile_scaling)

    # Permute the reduced axes to the front, then view x as a matrix
    # [reduced elements, other elements].
    reduced, other = _reduced_and_other_axes(x, op.inputs[1])
    perm = array_ops.concat([reduced, other], 0)
    reduced_num = math_ops.reduce_prod(array_ops.gather(input_shape, reduced))
    other_num = math_ops.reduce_prod(array_ops.gather(input_shape, other))
    permuted = array_ops.transpose(x, perm)
    permuted_shape = array_ops.shape(permuted)
    reshaped = array_ops.reshape(permuted, [reduced_num, other_num])

    # The product of everything but the current entry.
    left = math_ops.cumprod(reshaped, axis=0, exclusive=True)
    right = math_ops.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = array_ops.reshape(left * right, permuted_shape)

    out = grad * array_ops.transpose(y, array_ops.invert_permutation(perm))
    return array_ops.reshape(out, input_shape), None


def _reduced_and_other_axes(x, axes):
    """(the reduced axes made non-negative, the others in order), as int32 vectors.

    Constants when x's rank and the axes are known while building; otherwise
    ops (TF always builds the ops, taking the others with setdiff1d).
    """
    rank_value, axes_value = x.shape.ndims, constant_value(axes)
    if rank_value is not None and axes_value is not None:
        reduced = [int(a) % rank_value for a in axes_value.reshape(-1)]
        other = [a for a in range(rank_value) if a not in reduced]
        return (constant(reduced, dtype=dtypes.int32, name="reduced"),
                constant(other, dtype=dtypes.int32, name="other"))
    rank = array_ops.rank(x)
    axes = math_ops.cast(array_ops.reshape(axes, [-1]), dtypes.int32)
    reduced = (axes + rank) % rank
    times_reduced = math_ops.unsorted_segment_sum(array_ops.ones_like(reduced), reduced, rank)
    other = math_ops.where(math_ops.equal(times_reduced, 0))
    return reduced, math_ops.cast(array_ops.reshape(other, [-1]), dtypes.int32)


# =============================================================================
# Scans and segment sums
# =============================================================================

@RegisterGradient("Cumsum")
def _cumsum_grad(op, grad):
    """Each x_i fed all the running sums after it: a cumsum in the other direction."""
    axis = op.inputs[1]
    exclusive = op.get_attr("exclusive")
    reverse = op.get_attr("reverse")
    return [math_ops.cumsum(grad, axis, exclusive=exclusive, reverse=not reverse), None]


@RegisterGradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op, grad):
    """Cumsum's gradient done in logs: grad split by sign so that its log exists."""
    x, axis = op.inputs
    cumulative_logsumexp = op.outputs[0]
    exclusive = op.get_attr("exclusive")
    reverse = op.get_attr("reverse")
    lowest = constant(grad.dtype.min, dtype=grad.dtype)
    log_grad_positive = math_ops.where(math_ops.greater(grad, 0), math_ops.log(grad),
                                       array_ops.fill(array_ops.shape(grad), lowest))
    log_grad_negative = math_ops.where(math_ops.less(grad, 0), math_ops.log(-grad),
                                       array_ops.fill(array_ops.shape(grad), lowest))

    def part(log_grad):
        return math_ops.exp(math_ops.cumulative_logsumexp(
            log_grad - cumulative_logsumexp, axis=axis, reverse=not reverse,
            exclusive=exclusive) + x)
    return [part(log_grad_positive) - part(log_grad_negative), None]


@RegisterGradient("Cumprod")
def _cumprod_grad(op, grad):
    """Like Cumsum's, on prod * grad, divided by x (so, as in TF, wrong where x is 0)."""
    x = op.inputs[0]
    axis = op.inputs[1]
    exclusive = op.get_attr("exclusive")
    reverse = op.get_attr("reverse")
    prod = math_ops.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = math_ops.cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return [out / x, None]


def _gather_drop_negatives(params, ids):
    """params[ids] with the rows of negative ids set to zero (they were dropped going forward)."""
    zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped_indices)
    is_positive = math_ops.greater_equal(ids, 0)
    # Select needs the condition in the shape of the values: broadcast it by hand.
    for _ in range(gathered.shape.ndims - is_positive.shape.ndims):
        is_positive = array_ops.expand_dims(is_positive, -1)
    is_positive = math_ops.logical_and(
        is_positive, array_ops.ones_like(gathered, dtype=dtypes.bool))
    zero_slice = array_ops.zeros_like(gathered)
    return math_ops.where(is_positive, gathered, zero_slice)


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op, grad):
    """Each data slice was added into segment segment_ids[i]: it gets that segment's gradient."""
    return _gather_drop_negatives(grad, op.inputs[1]), None, None
