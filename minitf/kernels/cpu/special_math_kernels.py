"""Kernels of the special functions: erf and its inverses, gamma's kin, Bessel functions.

NumPy has none of them (SciPy has, but minitf needs NumPy alone), so each
is computed here from the series and approximations the numerical
libraries use, with `ctx.xp`'s elementwise operations only, so that they
run on a GPU too. Every loop has a fixed number of steps, enough for
float64 precision over the whole domain; the work is done in float64 and
the result cast back to the input's dtype. The edge cases (poles, inf,
NaN) are TensorFlow's (Eigen's).

Mirrors the special functions of `Eigen/src/SpecialFunctions/`
(`SpecialFunctionsImpl.h`), which `tensorflow/core/kernels/cwise_op_*.cc`
call.
"""

import math

import numpy as np

from minitf.framework.kernel_registry import ALL_DEVICE_TYPES
from minitf.framework.kernel_registry import register_kernel
from minitf.kernels.cpu.math_kernels import _check_broadcastable
from minitf.kernels.kernel_util import invalid
from minitf.kernels.kernel_util import shape_text

# =============================================================================
# The error function
# =============================================================================

_SERIES_LIMIT = 2.5  # below: a power series; above: a continued fraction


def _erf_series(xp, a):
    """erf(a) = 2/sqrt(pi) e^(-a^2) sum_n a (2a^2)^n / (1 3 5 ... (2n+1)), for 0 <= a <= 2.5.

    Every term is positive, so nothing cancels.
    """
    term = a
    total = a
    for n in range(1, 60):
        term = term * (2 * a * a) / (2 * n + 1)
        total = total + term
    return 2 / math.sqrt(math.pi) * xp.exp(-a * a) * total


def _erfc_continued_fraction(xp, a):
    """erfc(a) = e^(-a^2) / sqrt(pi) / (a + (1/2) / (a + 1 / (a + (3/2) / (a + ...)))), a >= 2.5.

    Computed from the bottom up; it keeps full relative precision far into the tail.
    """
    f = a
    for k in range(80, 0, -1):
        f = a + (k / 2) / f
    return xp.exp(-a * a) / (math.sqrt(math.pi) * f)


def _erf(xp, x):
    a = xp.abs(x)
    near = _erf_series(xp, xp.minimum(a, _SERIES_LIMIT))
    far = 1 - _erfc_continued_fraction(xp, xp.maximum(a, _SERIES_LIMIT))
    return xp.sign(x) * xp.where(a < _SERIES_LIMIT, near, far)


def _erfc(xp, x):
    a = xp.abs(x)
    tail = _erfc_continued_fraction(xp, xp.maximum(a, _SERIES_LIMIT))
    far = xp.where(x > 0, tail, 2 - tail)
    return xp.where(a < _SERIES_LIMIT, 1 - _erf(xp, x), far)


# --- its inverses --------------------------------------------------------------------

def _winitzki_guess(xp, log_one_minus_y_squared):
    """|erfinv(y)| to 0.2 %, from log(1 - y^2) (Winitzki's approximation, a = 0.147)."""
    a = 0.147
    t = 2 / (math.pi * a) + log_one_minus_y_squared / 2
    return xp.sqrt(xp.sqrt(t * t - log_one_minus_y_squared / a) - t)


def _density(xp, x):
    """erf'(x) = 2/sqrt(pi) e^(-x^2)."""
    return 2 / math.sqrt(math.pi) * xp.exp(-x * x)


def _erfinv_central(xp, y):
    """erfinv(y) for |y| <= 0.5, by Newton's method on erf."""
    x = xp.sign(y) * _winitzki_guess(xp, xp.log1p(-y * y))
    for _ in range(4):
        x = x - (_erf(xp, x) - y) / _density(xp, x)
    return x


def _erfcinv_tail(xp, z):
    """erfcinv(z) for 0 < z <= 0.5, by Newton's method on log(erfc): precise also for tiny z."""
    x = _winitzki_guess(xp, xp.log(z * (2 - z)))
    for _ in range(6):
        tail = _erfc_continued_fraction(xp, xp.maximum(x, _SERIES_LIMIT))
        tail = xp.where(x < _SERIES_LIMIT, _erfc(xp, x), tail)
        x = x + (xp.log(tail) - xp.log(z)) * tail / _density(xp, x)
    return x


def _erfinv(xp, y):
    """The x with erf(x) = y: +-inf at +-1, NaN outside [-1, 1]."""
    a = xp.abs(y)
    central = _erfinv_central(xp, xp.where(a <= 0.5, y, 0))
    tail = xp.sign(y) * _erfcinv_tail(xp, xp.where((a > 0.5) & (a < 1), 1 - a, 0.5))
    x = xp.where(a <= 0.5, central, tail)
    x = xp.where(a == 1, xp.sign(y) * xp.inf, x)
    return xp.where((a > 1) | xp.isnan(y), xp.nan, x)


def _ndtri(xp, p):
    """The standard normal distribution's quantile: sqrt(2) erfinv(2p - 1), tails kept exact."""
    central = math.sqrt(2) * _erfinv_central(xp, xp.where((p >= 0.25) & (p <= 0.75), 2 * p - 1,
                                                           0))
    lower = -math.sqrt(2) * _erfcinv_tail(xp, xp.where((p > 0) & (p < 0.25), 2 * p, 0.5))
    upper = math.sqrt(2) * _erfcinv_tail(xp, xp.where((p > 0.75) & (p < 1), 2 * (1 - p), 0.5))
    x = xp.where(p < 0.25, lower, xp.where(p > 0.75, upper, central))
    x = xp.where(p == 0, -xp.inf, xp.where(p == 1, xp.inf, x))
    return xp.where((p < 0) | (p > 1) | xp.isnan(p), xp.nan, x)


# =============================================================================
# The gamma function and its derivatives
# =============================================================================

# Lanczos' approximation with g = 7 and nine coefficients: relative error ~1e-15.
_LANCZOS_G = 7
_LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7]


def _lgamma_positive(xp, x):
    """log Gamma(x) for x >= 0.5, by Lanczos' approximation (in logs: no overflow)."""
    z = x - 1
    total = xp.full_like(z, _LANCZOS[0])
    for i, coefficient in enumerate(_LANCZOS[1:], start=1):
        total = total + coefficient / (z + i)
    t = z + _LANCZOS_G + 0.5
    return 0.5 * math.log(2 * math.pi) + (z + 0.5) * xp.log(t) - t + xp.log(total)


def _sin_pi(xp, x):
    """|sin(pi x)|, exact also next to the integers: x - round(x) has no rounding error."""
    return xp.abs(xp.sin(math.pi * (x - xp.round(x))))


def _is_non_positive_integer(xp, x):
    return (x <= 0) & (x == xp.floor(x))


def _lgamma(xp, x):
    """log |Gamma(x)|.

    Next to 0 (|x| < 0.5) from Gamma(x) = Gamma(x + 1) / x; at and below -0.5
    by the reflection Gamma(x) Gamma(1 - x) = pi / sin(pi x).
    """
    small = (xp.abs(x) < 0.5) & (x != 0)
    negative = (x <= -0.5) | (x == 0)
    value = _lgamma_positive(xp, xp.where(negative, 1 - x, xp.where(small, x + 1, x)))
    sine = _sin_pi(xp, xp.where(xp.isfinite(x), x, 0))
    value = xp.where(negative, math.log(math.pi) - xp.log(sine) - value, value)
    value = xp.where(small, value - xp.log(xp.abs(xp.where(small, x, 1))), value)
    value = xp.where((x == 1) | (x == 2), 0, value)  # exactly, as 0! and 1! are 1
    return xp.where(_is_non_positive_integer(xp, x) | xp.isinf(x), xp.inf, value)


# B_2k / (2k), for the asymptotic series of digamma: psi(x) ~ ln x - 1/(2x) - sum B_2k/(2k x^2k).
_DIGAMMA_SERIES = [1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12]


def _digamma_positive(xp, x):
    """psi(x) for x > 0: moved up to x >= 10 by psi(x) = psi(x + 1) - 1/x, then the series."""
    shift = xp.zeros_like(x)
    for _ in range(10):
        small = x < 10
        shift = shift - xp.where(small, 1 / x, 0)
        x = xp.where(small, x + 1, x)
    inverse_square = 1 / (x * x)
    series = xp.zeros_like(x)
    for coefficient in reversed(_DIGAMMA_SERIES):
        series = (series + coefficient) * inverse_square
    return shift + xp.log(x) - 0.5 / x - series


def _digamma(xp, x):
    """psi(x) = Gamma'(x) / Gamma(x).

    Between -0.5 and 0 from psi(x) = psi(x + 1) - 1/x; at and below -0.5 by
    the reflection psi(1 - x) - pi / tan(pi x). NaN at the poles (0, -1, -2,
    ...) and at -inf.
    """
    near_zero = (x < 0) & (x > -0.5)
    negative = x <= -0.5
    moved = xp.where(negative, 1 - x, xp.where(near_zero, x + 1, x))
    value = _digamma_positive(xp, xp.where(xp.isfinite(moved), moved, 1))
    finite = xp.where(xp.isfinite(x), x, 0)
    tangent = xp.tan(math.pi * (finite - xp.round(finite)))  # tan has period pi
    value = xp.where(negative, value - math.pi / tangent, value)
    value = xp.where(near_zero, value - 1 / xp.where(near_zero, x, 1), value)
    value = xp.where(x == xp.inf, xp.inf, value)
    return xp.where(_is_non_positive_integer(xp, x) | (x == -xp.inf) | xp.isnan(x), xp.nan,
                    value)


# (2k)! / B_2k for k = 1..12: the Euler-Maclaurin corrections of the Hurwitz zeta function.
_ZETA_CORRECTIONS = [12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                     7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                     -4.5979787224074726105e15, 1.8152105401943546773e17,
                     -7.1661652561756670113e18]


def _zeta(xp, x, q):
    """The Hurwitz zeta function sum_k (k + q)^-x: nine terms, the rest by Euler-Maclaurin."""
    total = xp.power(q, -x)
    a = q
    b = total
    for _ in range(9):
        a = a + 1
        b = xp.power(a, -x)
        total = total + b
    w = a
    total = total + b * w / (x - 1) - 0.5 * b
    factor = xp.ones_like(x)
    k = 0.0
    for correction in _ZETA_CORRECTIONS:
        factor = factor * (x + k)
        b = b / w
        total = total + factor * b / correction
        k += 1
        factor = factor * (x + k)
        b = b / w
        k += 1
    # Eigen's domain: x > 1; q a non-positive integer is a pole for even x.
    pole = _is_non_positive_integer(xp, q)
    even = (x == xp.floor(x)) & (xp.fmod(x, 2) == 0)
    total = xp.where(pole, xp.where(even, xp.inf, xp.nan), total)
    total = xp.where((q < 0) & ~pole & (x != xp.floor(x)), xp.nan, total)
    total = xp.where(x == 1, xp.inf, total)
    return xp.where(x < 1, xp.nan, total)


def _polygamma(xp, n, x):
    """The n-th derivative of digamma: (-1)^(n+1) n! zeta(n + 1, x); digamma for n = 0."""
    is_order = (n >= 0) & (n == xp.floor(n))
    order = xp.where(is_order, n, 1)
    sign = xp.where(xp.fmod(order, 2) == 0, -1.0, 1.0)
    factorial = xp.exp(_lgamma(xp, order + 1))
    value = xp.where(order == 0, _digamma(xp, x), sign * factorial * _zeta(xp, order + 1, x))
    return xp.where(is_order, value, xp.nan)


# =============================================================================
# The regularized incomplete beta function
# =============================================================================

def _beta_continued_fraction(xp, a, b, x):
    """The continued fraction of I_x(a, b), by Lentz's method (for x < (a + 1) / (a + b + 2))."""
    tiny = 1e-300
    c = xp.ones_like(x)
    d = 1 - (a + b) * x / (a + 1)
    d = 1 / xp.where(xp.abs(d) < tiny, tiny, d)
    h = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / xp.where(xp.abs(d) < tiny, tiny, d)
            c = 1 + numerator / c
            c = xp.where(xp.abs(c) < tiny, tiny, c)
            h = h * d * c
    return h


def _betainc(xp, a, b, x):
    """I_x(a, b), the CDF of the Beta(a, b) distribution at x; NaN outside its domain.

    Where x is past the mean the symmetry I_x(a, b) = 1 - I_(1-x)(b, a)
    keeps the continued fraction converging fast.
    """
    valid = (a > 0) & (b > 0)
    inside = valid & (x > 0) & (x < 1)
    edge = xp.where(valid & (x == 0), 0.0, xp.where(valid & (x == 1), 1.0, xp.nan))
    a, b, x = (xp.where(inside, v, 0.5) for v in (a, b, x))
    log_front = (_lgamma(xp, a + b) - _lgamma(xp, a) - _lgamma(xp, b) + a * xp.log(x)
                 + b * xp.log1p(-x))
    flip = x > (a + 1) / (a + b + 2)
    fa, fb, fx = xp.where(flip, b, a), xp.where(flip, a, b), xp.where(flip, 1 - x, x)
    value = xp.exp(log_front) * _beta_continued_fraction(xp, fa, fb, fx) / fa
    value = xp.where(flip, 1 - value, value)
    return xp.where(inside, value, edge)


# =============================================================================
# Modified Bessel functions, scaled: i0e(x) = e^-|x| I0(x), i1e(x) = e^-|x| I1(x)
# =============================================================================

_BESSEL_SERIES_LIMIT = 30.0  # below: the power series; above: the asymptotic series


def _bessel_series(xp, a, order):
    """e^-a I_order(a) for 0 <= a <= 30: sum_k (a/2)^(2k + order) / (k! (k + order)!)."""
    quarter_square = a * a / 4
    term = xp.ones_like(a) if order == 0 else a / 2
    total = term
    for k in range(1, 100):
        term = term * quarter_square / (k * (k + order))
        total = total + term
    return xp.exp(-a) * total


def _bessel_asymptotic(xp, a, order):
    """e^-a I_order(a) for a > 30, by the asymptotic series.

    1/sqrt(2 pi a) sum_k (-1)^k prod_j (4 order^2 - (2j-1)^2) / (k! (8a)^k).
    """
    term = xp.ones_like(a)
    total = term
    for k in range(1, 40):
        term = -term * (4 * order * order - (2 * k - 1) ** 2) / (8 * k * a)
        total = total + term
    return total / xp.sqrt(2 * math.pi * a)


def _bessel_scaled(order):
    def compute(xp, x):
        a = xp.abs(x)
        near = _bessel_series(xp, xp.minimum(a, _BESSEL_SERIES_LIMIT), order)
        far = _bessel_asymptotic(xp, xp.maximum(a, _BESSEL_SERIES_LIMIT), order)
        value = xp.where(a <= _BESSEL_SERIES_LIMIT, near, far)
        return value if order == 0 else xp.sign(x) * value  # I1 is odd
    return compute


# =============================================================================
# The kernels
# =============================================================================

# =============================================================================
# The regularized incomplete gamma functions
# =============================================================================

_IGAMMA_STEPS = 400  # enough terms for both expansions up to a ~ 10^4 in float64
_TINY = 1e-300


def _igamma_prefactor(xp, a, x):
    """x^a e^-x / Gamma(a), in logs."""
    return xp.exp(a * xp.log(x) - x - _lgamma(xp, a))


def _igamma_series(xp, a, x):
    """P(a, x) by its power series, which converges fast for x < a + 1."""
    term = 1.0 / a
    total = term
    for n in range(1, _IGAMMA_STEPS):
        term = term * x / (a + n)
        total = total + term
    return _igamma_prefactor(xp, a, x) * total


def _igammac_fraction(xp, a, x):
    """Q(a, x) by its continued fraction (Lentz's method), which converges for x >= a + 1."""
    b = x + 1.0 - a
    c = xp.full_like(x, 1.0 / _TINY)
    d = 1.0 / xp.where(xp.abs(b) < _TINY, _TINY, b)
    h = d
    for i in range(1, _IGAMMA_STEPS):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = 1.0 / xp.where(xp.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < _TINY, _TINY, c)
        h = h * d * c
    return _igamma_prefactor(xp, a, x) * h


def _igamma_pair(xp, a, x):
    """(P(a, x), Q(a, x)), each from the expansion that converges, the other as 1 minus it."""
    use_series = x < a + 1.0
    safe_a = xp.where((a > 0) & xp.isfinite(a), a, 1.0)
    safe_x = xp.where((x > 0) & xp.isfinite(x), x, 1.0)
    p_series = _igamma_series(xp, safe_a, xp.where(use_series, safe_x, 0.5 * safe_a))
    q_fraction = _igammac_fraction(xp, safe_a, xp.where(use_series, safe_a + 1.0, safe_x))
    p = xp.where(use_series, p_series, 1.0 - q_fraction)
    q = xp.where(use_series, 1.0 - p_series, q_fraction)
    p = xp.where(x == 0, 0.0, xp.where(xp.isinf(x), 1.0, p))
    q = xp.where(x == 0, 1.0, xp.where(xp.isinf(x), 0.0, q))
    invalid_arguments = (a <= 0) | (x < 0) | xp.isnan(a) | xp.isnan(x)
    return xp.where(invalid_arguments, xp.nan, p), xp.where(invalid_arguments, xp.nan, q)


def _igamma(xp, a, x):
    """P(a, x), the lower regularized incomplete gamma function: the Gamma(a) CDF at x."""
    return _igamma_pair(xp, a, x)[0]


def _igammac(xp, a, x):
    """Q(a, x) = 1 - P(a, x), computed directly where it is small."""
    return _igamma_pair(xp, a, x)[1]


def _in_float64(xp, compute, *arrays):
    """compute(*arrays) in float64, cast back to the first array's dtype."""
    dtype = arrays[0].dtype
    with np.errstate(all="ignore"):
        result = compute(xp, *(a.astype(np.float64) for a in arrays))
    return result.astype(dtype)


def _register_unary(op_type, compute):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, x):
        return _in_float64(ctx.xp, compute, x)

    kernel.__name__ = kernel.__qualname__ = op_type.lower()


def _register_binary(op_type, compute):
    @register_kernel(op_type, ALL_DEVICE_TYPES)
    def kernel(ctx, x, y):
        if x.shape != y.shape:
            _check_broadcastable(x, y)
        return _in_float64(ctx.xp, compute, *ctx.xp.broadcast_arrays(x, y))

    kernel.__name__ = kernel.__qualname__ = op_type.lower()


for _op_type, _compute in [("Erf", _erf), ("Erfc", _erfc), ("Erfinv", _erfinv),
                           ("Ndtri", _ndtri), ("Lgamma", _lgamma), ("Digamma", _digamma),
                           ("BesselI0e", _bessel_scaled(0)), ("BesselI1e", _bessel_scaled(1))]:
    _register_unary(_op_type, _compute)


@register_kernel("Betainc", ALL_DEVICE_TYPES)
def betainc(ctx, a, b, x):
    """I_x(a, b); a, b and x have one shape, or are scalars."""
    shapes = {v.shape for v in (a, b, x) if v.ndim}
    if len(shapes) > 1:
        raise invalid("Shapes of a, b and x are inconsistent: %s vs. %s vs. %s"
                      % (shape_text(a.shape), shape_text(b.shape), shape_text(x.shape)))
    return _in_float64(ctx.xp, _betainc, *ctx.xp.broadcast_arrays(a, b, x))


_register_binary("Zeta", _zeta)
_register_binary("Igamma", _igamma)
_register_binary("Igammac", _igammac)
_register_binary("Polygamma", _polygamma)
